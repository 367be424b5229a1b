/* dwarf-print.c - what pass 2 shows of the DWARF probes: the variables
 * -L lists for a site, as stap -L does, and at -p2 each probe's address
 * and its resolved accesses in stap's -p2 notation (@kregister(N),
 * @kderef(SIZE, ADDR)).
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "elaborate/elab-internal.h"
#include "parse/print.h"
#include "xalloc.h"

/* ---- listings ---- */

struct listing {
	struct vctx *v;
	FILE *out;
	Dwarf_Addr pc;
};

static bool list_cb(Dwarf_Die *var, void *arg)
{
	struct listing *l = arg;
	const char *n = die_name(var), *tn;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	Dwarf_Die type;

	/* a location here, or a constant (gcc's constant propagation) */
	if (!n || (!l->v->site->tracepoint &&
		   var_ops(var, l->pc, &attr, &ops, &nops) <= 0 &&
		   !dwarf_hasattr_integrate(var, DW_AT_const_value)) ||
	    !die_type(var, &type) || !(tn = dwt_name(l->v->s, &type)))
		return false;
	fprintf(l->out, " $%s:%s", n, tn);
	return false;
}

void dwarf_list_vars(struct session *s, FILE *out,
		     const struct dwarf_site *site)
{
	struct vctx v;
	struct dprobe fake;
	struct listing l;

	if (site->btf) {
		btf_list_vars(s, out, site);
		return;
	}
	if (!site->decl_file)
		return;		/* a symbol: no variables */
	memset(&fake, 0, sizeof(fake));
	fake.dwarf = site;
	memset(&v, 0, sizeof(v));
	v.s = s;
	v.p = &fake;
	v.site = site;
	v.u = site->unit;
	ensure_scopes(&v);
	if (site->is_return) {
		Dwarf_Die fn, type;
		const char *tn;

		if (dwarf_offdie(v.u->dw, site->die, &fn) && die_type(&fn, &type) &&
		    (tn = dwt_name(s, &type)))
			fprintf(out, " $return:%s", tn);
	}
	l.v = &v;
	l.out = out;
	l.pc = site->is_return ? entry_var_pc(site) : site->var_pc;
	/* the function's (or the inline instance's) own variables only, as
	 * stap -L; a statement lists the scopes around its line */
	{
		int n = 0;

		/* up to the site's own DIE: not what holds an instance */
		while (n < v.nscopes &&
		       dwarf_dieoffset(&v.scopes[n]) != site->die)
			n++;
		each_var(v.scopes, n < v.nscopes ? n + 1 : v.nscopes ? 1 : 0,
			 list_cb, &l);
	}
	free(v.scopes);
}

void dwarf_dump_pc(FILE *out, const struct dwarf_site *site)
{
	/* no address: a handler on the tracepoint, or a BTF function's
	 * probe placed by its symbol */
	if (site->tracepoint || site->btf)
		return;
	if (strcmp(site->module, "kernel") == 0)
		fprintf(out, " /* pc=%s+%#llx */", site->reloc_base,
			(unsigned long long)site->reloc_offset);
	else if (site->symbol)
		fprintf(out, " /* pc=<%s:%s+%llu> */", site->module,
			site->symbol, (unsigned long long)site->symbol_offset);
	else
		fprintf(out, " /* pc=<%s:%s+%#llx> */", site->module,
			site->reloc_base, (unsigned long long)site->reloc_offset);
}

/* A DWARF expression in stap's -p2 notation, by evaluating it on a stack
 * of texts; false when it uses what the notation lacks (branches). */
static bool ops_text(FILE *out, const struct dwarf_loc *l)
{
	char *st[16] = { 0 };
	int sp = 0;
	bool ok = true;

	for (int i = 0; ok && i < l->nops; i++) {
		const struct dwarf_op *op = &l->ops[i];
		uint8_t a = op->atom;
		const char *bin = NULL;
		char *x = NULL;

		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			x = xasprintf("%d", a - DW_OP_lit0);
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			x = (int64_t)op->n1 ? xasprintf("(@kregister(%d)) + (%lld)",
					a - DW_OP_breg0, (long long)op->n1) :
			    xasprintf("@kregister(%d)", a - DW_OP_breg0);
		} else {
			switch (a) {
			case DW_OP_bregx:
				x = xasprintf("(@kregister(%llu)) + (%lld)",
					      (unsigned long long)op->n1,
					      (long long)op->n2);
				break;
			case DW_OP_addr:
				x = xasprintf("%#llx", (unsigned long long)op->n1);
				break;
			case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
			case DW_OP_const8u: case DW_OP_constu:
				x = xasprintf("%llu", (unsigned long long)op->n1);
				break;
			case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
			case DW_OP_const8s: case DW_OP_consts:
				x = xasprintf("%lld", (long long)op->n1);
				break;
			case DW_OP_plus: bin = "+"; break;
			case DW_OP_minus: bin = "-"; break;
			case DW_OP_mul: bin = "*"; break;
			case DW_OP_div: bin = "/"; break;
			case DW_OP_mod: bin = "%"; break;
			case DW_OP_and: bin = "&"; break;
			case DW_OP_or: bin = "|"; break;
			case DW_OP_xor: bin = "^"; break;
			case DW_OP_shl: bin = "<<"; break;
			case DW_OP_shr: bin = ">>>"; break;
			case DW_OP_shra: bin = ">>"; break;
			case DW_OP_stack_value:
				continue;
			default:
				break;
			}
		}
		if (x) {
			if (sp == 16) {
				free(x);
				ok = false;
				break;
			}
			st[sp++] = x;
			continue;
		}
		if (bin) {
			if (sp < 2) {
				ok = false;
				break;
			}
			x = xasprintf("(%s) %s (%s)", st[sp - 2], bin, st[sp - 1]);
			free(st[--sp]);
			free(st[sp - 1]);
			st[sp - 1] = x;
			continue;
		}
		if (sp < 1) {
			ok = false;
			break;
		}
		switch (a) {
		case DW_OP_plus_uconst:
			x = xasprintf("(%s) + (%llu)", st[sp - 1],
				      (unsigned long long)op->n1);
			break;
		case DW_OP_neg:
			x = xasprintf("-(%s)", st[sp - 1]);
			break;
		case DW_OP_not:
			x = xasprintf("~(%s)", st[sp - 1]);
			break;
		case DW_OP_deref:
			x = xasprintf("@kderef(8, %s)", st[sp - 1]);
			break;
		case DW_OP_deref_size:
			x = xasprintf("@kderef(%llu, %s)",
				      (unsigned long long)op->n1, st[sp - 1]);
			break;
		case DW_OP_dup:
			if (sp == 16) {
				ok = false;
				break;
			}
			st[sp] = xstrdup(st[sp - 1]);
			sp++;
			continue;
		case DW_OP_drop:
			free(st[--sp]);
			continue;
		case DW_OP_swap:
			if (sp < 2) {
				ok = false;
				break;
			}
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = x;
			continue;
		case DW_OP_over:
			if (sp < 2 || sp == 16) {
				ok = false;
				break;
			}
			st[sp] = xstrdup(st[sp - 2]);
			sp++;
			continue;
		default:
			ok = false;
			break;
		}
		if (!ok)
			break;
		free(st[sp - 1]);
		st[sp - 1] = x;
	}
	if (ok && sp == 1)
		fputs(st[0], out);
	else
		ok = false;
	for (int i = 0; i < sp; i++)
		free(st[i]);
	return ok;
}

static void print_ops(FILE *out, const struct dwarf_loc *l)
{
	if (ops_text(out, l))
		return;
	fputs("<dwarf:", out);
	for (int i = 0; i < l->nops; i++)
		fprintf(out, " %#x(%#llx,%#llx)", l->ops[i].atom,
			(unsigned long long)l->ops[i].n1,
			(unsigned long long)l->ops[i].n2);
	fputc('>', out);
}

/* A location without pieces: a register, a constant, an address or a
 * value. */
/* A location's text (malloc'd); through a FILE only for DWARF
 * operations: a memstream for each of $$parms' thousands of accesses
 * cost more than the rest of printing them. */
static char *loc_text(const struct dwarf_loc *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	switch (l->kind) {
	case DWARF_LOC_REG:
		return xasprintf("@kregister(%d)", l->reg);
	case DWARF_LOC_CONST:
		return xasprintf("%lld", (long long)l->value);
	case DWARF_LOC_PIECES:
		return xasprintf("<pieces>");
	default:
		if (l->simple && l->reg >= 0 && l->offset)
			return xasprintf("(@kregister(%d)) + (%lld)", l->reg,
					 (long long)l->offset);
		if (l->simple && l->reg >= 0)
			return xasprintf("@kregister(%d)", l->reg);
		if (l->simple)
			return xasprintf("%#llx", (unsigned long long)l->offset);
	}
	f = open_memstream(&buf, &len);
	if (!f)
		out_of_memory();
	print_ops(f, l);
	fclose(f);
	return buf;
}

static void print_loc(FILE *f, const struct dwarf_loc *l)
{
	char *t = loc_text(l);

	fputs(t, f);
	free(t);
}

/* A read from a composite: @kpieces(SIZE, OFFSET, [PIECE:BYTES, ...]),
 * a memory piece as @kmem(ADDRESS), an optimized-out one as <empty>. */
static void print_pieces(FILE *f, const struct dwarf_loc *l)
{
	fprintf(f, "@kpieces(%u, %llu, [", l->piece_size,
		(unsigned long long)l->piece_off);
	for (int i = 0; i < l->npieces; i++) {
		const struct dwarf_piece *p = &l->pieces[i];

		if (i)
			fputs(", ", f);
		if (p->empty) {
			fputs("<empty>", f);
		} else if (p->loc.kind == DWARF_LOC_MEM) {
			fputs("@kmem(", f);
			print_loc(f, &p->loc);
			fputc(')', f);
		} else {
			print_loc(f, &p->loc);
		}
		fprintf(f, ":%llu", (unsigned long long)p->size);
	}
	fputs("])", f);
}

static void print_access(FILE *out, const struct dwarf_access *a)
{
	char *buf = NULL, *tmp = NULL;
	size_t len = 0, tlen = 0;
	FILE *f;
	bool object;
	const struct dwarf_loc *l = &a->base;

	/* build the expression text step by step in buf */
	if (a->cast || l->kind == DWARF_LOC_PIECES) {
		f = open_memstream(&buf, &len);
		if (!f)
			return;
		if (a->cast)
			print_expr(f, a->cast);
		else
			print_pieces(f, l);
		fclose(f);
	} else {
		buf = loc_text(l);
	}
	object = a->cast || l->kind == DWARF_LOC_MEM;
	for (int i = 0; i < a->nsteps; i++) {
		const struct dwarf_step *st = &a->steps[i];

		tmp = NULL;
		switch (st->kind) {
		case DWARF_STEP_DEREF:
			if (object)
				tmp = xasprintf("@kderef(8, %s)", buf);
			object = true;
			break;
		case DWARF_STEP_OFFSET:
			if (st->offset)
				tmp = xasprintf("(%s) + (%lld)", buf,
						(long long)st->offset);
			break;
		case DWARF_STEP_INDEX:
			f = open_memstream(&tmp, &tlen);
			if (!f)
				break;
			fprintf(f, "(%s) + ((", buf);
			print_expr(f, st->index);
			fprintf(f, ") * (%llu))", (unsigned long long)st->stride);
			fclose(f);
			break;
		}
		if (tmp) {
			free(buf);
			buf = tmp;
		}
	}
	switch (a->result) {
	case DWARF_RES_ADDRESS:
		fputs(buf, out);
		break;
	case DWARF_RES_BITFIELD:
		/* as stap: the storage unit, shifted and masked (or shifted
		 * up and down for a signed one) */
		if (a->is_signed)
			fprintf(out, "((@kderef(%u, %s)) << (%u)) >> (%u)", a->size,
				buf, 64 - a->bit_offset - a->bit_size,
				64 - a->bit_size);
		else if (a->bit_offset)
			fprintf(out, "((@kderef(%u, %s)) >> (%u)) & (%llu)", a->size,
				buf, a->bit_offset, (unsigned long long)
				((1ULL << a->bit_size) - 1));
		else
			fprintf(out, "(@kderef(%u, %s)) & (%llu)", a->size, buf,
				(unsigned long long)((1ULL << a->bit_size) - 1));
		break;
	case DWARF_RES_INT:
		if (object)
			fprintf(out, "@kderef(%u, %s)", a->size, buf);
		else if (a->size == 8 || a->base.kind == DWARF_LOC_CONST)
			fputs(buf, out);
		else if (a->is_signed)
			fprintf(out, "((%s) << (%u)) >> (%u)", buf,
				64 - 8 * a->size, 64 - 8 * a->size);
		else {
			char *mask = xasprintf(") & (%llu)", (unsigned long long)
					       ((1ULL << (8 * a->size)) - 1));
			size_t bl = strlen(buf), ml = strlen(mask);

			/* the expression may mask already, as stap sees */
			if (bl > ml && strcmp(buf + bl - ml, mask) == 0)
				fputs(buf, out);
			else
				fprintf(out, "(%s%s", buf, mask);
			free(mask);
		}
		break;
	}
	free(buf);
}

/* In a user-space probe the loads read the task's memory and the
 * registers are its user registers: @uderef, @uregister. */
void dwarf_print_access(FILE *out, const struct dwarf_access *a)
{
	char *buf = NULL, *p;
	size_t len = 0;
	FILE *m;

	if (!a->site || !a->site->unit || !a->site->unit->user ||
	    !(m = open_memstream(&buf, &len))) {
		print_access(out, a);
		return;
	}
	print_access(m, a);
	fclose(m);
	for (p = buf; (p = strchr(p, '@')); p++)
		if (!strncmp(p, "@kderef(", 8) || !strncmp(p, "@kregister(", 11))
			p[1] = 'u';
	fputs(buf, out);
	free(buf);
}

/* The target variables' lines, under a heading printed before the first,
 * straight to the output (not through a memstream a probe: 2500 of them
 * for -p2 of kernel.trace("*")). */
struct tdump {
	FILE *out;
	bool headed;
};

static void dump_expr(struct tdump *d, const struct expr *x);

static void dump_list(struct tdump *d, const struct expr *x)
{
	for (; x; x = x->next)
		dump_expr(d, x);
}

static void dump_expr(struct tdump *d, const struct expr *x)
{
	if (!x)
		return;
	if ((x->kind == E_TARGET || x->kind == E_CAST || x->kind == E_ATVAR ||
	     x->kind == E_AUTOCAST) && x->ref) {
		const struct dwarf_access *a = x->ref;
		FILE *out = d->out;

		if (!d->headed)
			fputs("  # target variables\n", out);
		d->headed = true;
		fprintf(out, "  %s:%s = ", a->text, a->type ? a->type : "?");
		dwarf_print_access(out, a);
		if (a->at_entry)
			fputs("  /* at entry */", out);
		fputc('\n', out);
	}
	dump_expr(d, x->a);
	dump_expr(d, x->b);
	dump_expr(d, x->c);
	dump_list(d, x->args);
	for (const struct chain *c = x->chain; c; c = c->next)
		dump_expr(d, c->index);
}

static void dump_stmts(struct tdump *d, const struct stmt *st)
{
	for (; st; st = st->next) {
		dump_expr(d, st->init);
		dump_expr(d, st->e);
		dump_expr(d, st->incr);
		if (st->fe) {
			dump_expr(d, st->fe->array);
			dump_expr(d, st->fe->limit);
		}
		dump_stmts(d, st->body);
		dump_stmts(d, st->else_body);
	}
}

void dwarf_dump_targets(FILE *out, const struct dprobe *p)
{
	struct tdump d = { out, false };

	dump_stmts(&d, p->body);
}
