/* dwarf-vars.c - target variables at a probe site.
 *
 * The variables a site sees are those of the scopes holding its DIE (the
 * function, or the inline instance and the blocks and functions around
 * it; for a statement, the lexical blocks around its address too),
 * innermost first, in DIE order, then the CU's globals. A $var, with its
 * ->member and [index] chain, is resolved against its location list at
 * the probe address (the frame base and entry values made register
 * arithmetic) and the C types along the chain into a struct
 * dwarf_access (dwarf-api.h), with SystemTap's diagnostics; @cast and
 * @var likewise. dwarf-walk.c applies this to a probe's body.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <dwarf.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "elaborate/elab-internal.h"
#include "kconfig.h"
#include "parse/print.h"
#include "providers/provider.h"
#include "xalloc.h"

#define MAX_STEPS 64


/* ---- diagnostics ---- */

void verr(struct vctx *v, const struct loc *l, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	v->failed = true;
	if (v->trial)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		out_of_memory();
	va_end(ap);
	if (v->defer && v->p) {
		struct deferred_error **tail = &v->p->deferred;

		while (*tail && ((*tail)->node != v->defer ||
				 strcmp((*tail)->msg, msg) != 0))
			tail = &(*tail)->next;
		if (!*tail) {	/* (a node resolved twice says it once) */
			struct deferred_error *d = ANEW(&v->s->arena,
							struct deferred_error);

			d->node = v->defer;
			d->loc = *l;
			d->msg = arena_strdup(&v->s->arena, msg);
			d->next = NULL;
			*tail = d;
		}
	} else {
		elab_error(v->e, l, "%s", msg);
	}
	free(msg);
}

/* "vfs_read at fs/read_write.c:450 (kernel.function(...))" */
const char *where(struct vctx *v)
{
	const struct dwarf_site *s = v->site;

	return arena_printf(&v->s->arena, "near pc %#llx in %s %s (probe "
			    "point %s)", (unsigned long long)s->pc, s->function,
			    s->decl_file, v->p->name);
}

/* ---- scopes and variables ---- */

static bool cu_die(struct dwarf_unit *u, const struct dwarf_site *site,
		   Dwarf_Die *cu)
{
	return dwarf_offdie(u->dw, site->cu_die, cu) != NULL;
}

/* The scopes from the DIE at offset target out to the CU: descend from
 * the CU's child 'top' into the child whose subtree holds the offset (a
 * subtree spans from its DIE to its next sibling), innermost first in
 * the result. */
static int scopes_to(Dwarf_Die *cu, Dwarf_Die *top, uint64_t target,
		     Dwarf_Die **out)
{
	Dwarf_Die path[64], c;
	int n = 0;

	path[n++] = *cu;
	path[n++] = *top;
	while (dwarf_dieoffset(&path[n - 1]) != target && n < 64) {
		bool found = false;

		if (dwarf_child(&path[n - 1], &c) != 0)
			break;
		for (;;) {
			Dwarf_Die next = c;
			int r = dwarf_siblingof(&next, &next);

			if (dwarf_dieoffset(&c) <= target &&
			    (r != 0 || dwarf_dieoffset(&next) > target)) {
				found = true;
				break;
			}
			if (r != 0)
				break;
			c = next;
		}
		if (!found)
			break;
		path[n++] = c;
	}
	if (dwarf_dieoffset(&path[n - 1]) != target) {
		*out = NULL;
		return 0;
	}
	*out = xcalloc((size_t)n, sizeof(**out));
	for (int i = 0; i < n; i++)
		(*out)[i] = path[n - 1 - i];
	return n;
}

/* A statement's scopes: the lexical blocks around pc inside its
 * function (or inline instance) 'die', then die and what holds it,
 * innermost first. The inline instances at pc are not entered: the line
 * is die's own. */
static int block_scopes(Dwarf_Die *cu, Dwarf_Die *top, uint64_t die,
			Dwarf_Addr pc, Dwarf_Die **out)
{
	Dwarf_Die *outer, inner[32], c;
	int n = 0, nouter = scopes_to(cu, top, die, &outer);
	bool deeper = nouter > 0;

	inner[0] = nouter ? outer[0] : *cu;
	while (deeper && n < 31) {
		deeper = false;
		if (dwarf_child(n ? &inner[n] : &outer[0], &c) != 0)
			break;
		do {
			if (dwarf_tag(&c) == DW_TAG_lexical_block &&
			    dwarf_haspc(&c, pc) > 0) {
				inner[++n] = c;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	*out = xcalloc((size_t)(n + nouter + 1), sizeof(**out));
	for (int i = 0; i < n; i++)
		(*out)[i] = inner[n - i];
	for (int i = 0; i < nouter; i++)
		(*out)[n + i] = outer[i];
	free(outer);
	return n + nouter;
}

static int site_scopes(const struct dwarf_site *site, Dwarf_Die **out)
{
	struct dwarf_unit *u = site->unit;
	Dwarf_Die cu, top;

	*out = NULL;
	if (!cu_die(u, site, &cu))
		return 0;
	if (!dwarf_offdie(u->dw, site->top_die, &top))
		return 0;
	if (site->scope_die)	/* a label: the blocks from its own */
		return block_scopes(&cu, &top, site->scope_die, site->pc, out);
	if (site->line)
		return block_scopes(&cu, &top, site->die, site->pc, out);
	return scopes_to(&cu, &top, site->die, out);
}

/* The scopes are found on first need: many probes use no variable. */
void ensure_scopes(struct vctx *v)
{
	if (v->scopes || !v->site || v->site->btf)
		return;
	v->nscopes = site_scopes(v->site, &v->scopes);
	if (v->nscopes < 0)
		v->nscopes = 0;
	for (int i = 0; i < v->nscopes; i++)
		if (dwarf_tag(&v->scopes[i]) == DW_TAG_subprogram &&
		    dwarf_hasattr(&v->scopes[i], DW_AT_frame_base)) {
			v->func = v->scopes[i];
			v->have_func = true;
			break;
		}
}

void ctx_init(struct vctx *v, struct elab *e, struct dprobe *p)
{
	memset(v, 0, sizeof(*v));
	v->e = e;
	v->s = e->s;
	v->p = p;
	v->site = p ? p->dwarf : NULL;
	if (v->site)
		v->u = v->site->unit;
}

static bool is_var(Dwarf_Die *d)
{
	int t = dwarf_tag(d);

	return t == DW_TAG_variable || t == DW_TAG_formal_parameter;
}

const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

bool die_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, t) != NULL;
}

/* A tracepoint's iterator, __traceiter_NAME(void *__data, ARGS): its
 * variables are ARGS alone (__data and its locals are the kernel's). */
bool traceiter(Dwarf_Die *d)
{
	const char *n;

	if (dwarf_tag(d) != DW_TAG_subprogram)
		return false;
	n = die_name(d);
	return n && strncmp(n, "__traceiter_", 12) == 0;
}

/* Calls fn for each variable of the scopes (not the CU's), innermost
 * first; stops when fn returns true. */
bool each_var(Dwarf_Die *scopes, int n,
		     bool (*fn)(Dwarf_Die *var, void *arg), void *arg)
{
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;
		bool tp, first = true;

		if (dwarf_tag(&scopes[i]) == DW_TAG_compile_unit)
			break;
		tp = traceiter(&scopes[i]);
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			if (!is_var(&c))
				continue;
			if (tp && (dwarf_tag(&c) != DW_TAG_formal_parameter ||
				   first)) {
				first = false;
				continue;
			}
			if (fn(&c, arg))
				return true;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return false;
}

struct find_arg {
	const char *name;
	Dwarf_Die found;
};

static bool find_cb(Dwarf_Die *var, void *arg)
{
	struct find_arg *f = arg;
	const char *n = die_name(var);

	if (n && strcmp(n, f->name) == 0) {
		f->found = *var;
		return true;
	}
	return false;
}

/* A variable named name visible at the site: the scopes', then the
 * CU's globals. */
bool find_var(struct vctx *v, const char *name, Dwarf_Die *out)
{
	struct find_arg f = { .name = name };
	Dwarf_Die cu, c;
	bool found = false;

	ensure_scopes(v);
	if (!v->atvar && each_var(v->scopes, v->nscopes, find_cb, &f)) {
		*out = f.found;
		return true;
	}
	if (v->site->tracepoint)
		return false;
	if (!cu_die(v->u, v->site, &cu) || dwarf_child(&cu, &c) != 0)
		return false;
	/* a global's definition (with a location) rather than the
	 * declaration of a header before it */
	do {
		if (dwarf_tag(&c) != DW_TAG_variable || !find_cb(&c, &f))
			continue;
		if (!found || dwarf_hasattr(&c, DW_AT_location))
			*out = f.found;
		found = true;
		if (dwarf_hasattr(&c, DW_AT_location))
			break;
	} while (dwarf_siblingof(&c, &c) == 0);
	return found;
}

struct names_arg {
	const char **v;
	int n, cap;
};

static bool names_cb(Dwarf_Die *var, void *arg)
{
	struct names_arg *a = arg;
	const char *n = die_name(var);

	if (!n)
		return false;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->v[i], n) == 0)
			return false;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->v = xrealloc(a->v, (size_t)a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = n;
	return false;
}

/* "$file, $buf, $count, $pos, $ret" */
const char *alternatives(struct vctx *v)
{
	struct names_arg a = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *out;

	ensure_scopes(v);
	each_var(v->scopes, v->nscopes, names_cb, &a);
	for (int i = 0; f && i < a.n; i++)
		fprintf(f, "%s$%s", i ? ", " : "", a.v[i]);
	if (f)
		fclose(f);
	out = arena_strdup(&v->s->arena, buf ? buf : "");
	free(buf);
	free(a.v);
	return out;
}

/* ---- locations ---- */

/* The location expression of var at pc: 1 found, 0 none there, -1 no
 * location at all. */
int var_ops(Dwarf_Die *var, Dwarf_Addr pc, Dwarf_Attribute *attr,
		   Dwarf_Op **ops, size_t *nops)
{
	if (!dwarf_attr_integrate(var, DW_AT_location, attr))
		return -1;
	if (dwarf_getlocation_addr(attr, pc, ops, nops, 1) <= 0 || !*nops)
		return 0;
	return 1;
}

struct opbuf {
	struct dwarf_op *v;
	int n, cap;
};

static void op_push(struct opbuf *b, uint8_t atom, uint64_t n1, uint64_t n2)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 8;
		b->v = xrealloc(b->v, (size_t)b->cap * sizeof(*b->v));
	}
	b->v[b->n].atom = atom;
	b->v[b->n].n1 = n1;
	b->v[b->n].n2 = n2;
	b->n++;
}

/* The CFA at pc as DWARF operations (from .debug_frame). */
static bool cfa_ops(struct vctx *v, Dwarf_Addr pc, struct opbuf *b)
{
	Dwarf_CFI *cfi;
	Dwarf_Frame *frame;
	Dwarf_Op *ops;
	size_t n;

	/* at a function's first instruction (or past its call to
	 * __fentry__) on x86_64 the CFA is the stack pointer plus the
	 * return address: no need to read the call frame information */
	if (v->site && !v->site->inlined && v->site->pc == v->site->entry_pc &&
	    (pc == v->site->entry_pc || pc == v->site->var_pc) &&
	    strcmp(kconfig_get(v->s)->arch, "x86_64") == 0) {
		op_push(b, DW_OP_breg7, 8, 0);
		return true;
	}
	cfi = dwarf_unit_cfi(v->u);

	if (!cfi || dwarf_cfi_addrframe(cfi, pc + v->u->bias, &frame) != 0)
		return false;
	if (dwarf_frame_cfa(frame, &ops, &n) != 0) {
		free(frame);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		op_push(b, ops[i].atom, ops[i].number, ops[i].number2);
	free(frame);
	return true;
}

/* The frame base (DW_AT_frame_base of the function) at pc. */
static bool frame_base_ops(struct vctx *v, Dwarf_Addr pc, struct opbuf *b)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!v->have_func ||
	    !dwarf_attr(&v->func, DW_AT_frame_base, &a) ||
	    dwarf_getlocation_addr(&a, pc, &ops, &n, 1) <= 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_call_frame_cfa) {
			if (!cfa_ops(v, pc, b))
				return false;
		} else {
			op_push(b, ops[i].atom, ops[i].number, ops[i].number2);
		}
	}
	return true;
}

/* Fold a leading bregN off followed by plus_uconst/consts+plus. */
static void simplify(struct opbuf *b)
{
	if (b->n && b->v[0].atom == DW_OP_bregx && b->v[0].n1 < 32) {
		b->v[0].atom = (uint8_t)(DW_OP_breg0 + b->v[0].n1);
		b->v[0].n1 = b->v[0].n2;
		b->v[0].n2 = 0;
	}
	while (b->n >= 2 && b->v[0].atom >= DW_OP_breg0 &&
	       b->v[0].atom <= DW_OP_breg31) {
		if (b->v[1].atom == DW_OP_plus_uconst) {
			b->v[0].n1 += b->v[1].n1;
			memmove(&b->v[1], &b->v[2], (size_t)(b->n - 2) *
				sizeof(*b->v));
			b->n--;
		} else if (b->n >= 3 && (b->v[1].atom == DW_OP_consts ||
					 b->v[1].atom == DW_OP_constu) &&
			   b->v[2].atom == DW_OP_plus) {
			b->v[0].n1 += b->v[1].n1;
			memmove(&b->v[1], &b->v[3], (size_t)(b->n - 3) *
				sizeof(*b->v));
			b->n -= 2;
		} else {
			break;
		}
	}
}

/* DW_OP_entry_value(DW_OP_regN) at the function's entry is register N. */
static bool entry_value(struct vctx *v, Dwarf_Attribute *attr, Dwarf_Op *op,
			Dwarf_Addr pc, struct opbuf *b)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr fentry;

	/* at the entry, or just past its call to __fentry__ */
	if (!v->have_func || dwarf_entrypc(&v->func, &fentry) != 0 ||
	    (fentry != pc && !(v->site && !v->site->inlined &&
			       v->site->entry_pc == fentry &&
			       v->site->var_pc == pc)))
		return false;
	if (dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return false;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		op_push(b, (uint8_t)(DW_OP_breg0 + (ops[0].atom - DW_OP_reg0)),
			0, 0);
		return true;
	}
	if (ops[0].atom == DW_OP_regx) {
		op_push(b, DW_OP_bregx, ops[0].number, 0);
		return true;
	}
	return false;
}

/* A value computed from constants alone (gcc's constant propagation:
 * "DW_OP_lit2 DW_OP_lit21 DW_OP_shl DW_OP_stack_value"). */
static bool const_eval(const struct dwarf_op *ops, int n, int64_t *out)
{
	int64_t st[16];
	int sp = 0;

	for (int i = 0; i < n; i++) {
		uint8_t a = ops[i].atom;
		int64_t x, y;

		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			if (sp == 16)
				return false;
			st[sp++] = a - DW_OP_lit0;
			continue;
		}
		switch (a) {
		case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s:
		case DW_OP_const8u: case DW_OP_const8s: case DW_OP_constu:
		case DW_OP_consts:
			if (sp == 16)
				return false;
			st[sp++] = (int64_t)ops[i].n1;
			continue;
		case DW_OP_plus_uconst:
			if (sp < 1)
				return false;
			st[sp - 1] += (int64_t)ops[i].n1;
			continue;
		case DW_OP_neg: case DW_OP_not:
			if (sp < 1)
				return false;
			st[sp - 1] = a == DW_OP_neg ? -st[sp - 1] : ~st[sp - 1];
			continue;
		default:
			break;
		}
		if (sp < 2)
			return false;
		y = st[--sp];
		x = st[sp - 1];
		switch (a) {
		case DW_OP_plus: x += y; break;
		case DW_OP_minus: x -= y; break;
		case DW_OP_mul: x *= y; break;
		case DW_OP_and: x &= y; break;
		case DW_OP_or: x |= y; break;
		case DW_OP_xor: x ^= y; break;
		case DW_OP_shl: x = (int64_t)((uint64_t)x << (y & 63)); break;
		case DW_OP_shr: x = (int64_t)((uint64_t)x >> (y & 63)); break;
		case DW_OP_shra: x >>= (y & 63); break;
		default:
			return false;
		}
		st[sp - 1] = x;
	}
	if (sp != 1)
		return false;
	*out = st[0];
	return true;
}

static const char *translate_simple(struct vctx *v, Dwarf_Attribute *attr,
				    Dwarf_Op *ops, size_t n, Dwarf_Addr pc,
				    struct dwarf_loc *out);

/* The base location of var (attr/ops at pc) into out; NULL or why not.
 * A composite location ("DW_OP_reg5 DW_OP_piece 8 DW_OP_reg4 DW_OP_piece
 * 8") becomes DWARF_LOC_PIECES, each piece's operations translated on
 * their own; a piece without operations is empty (optimized out). */
static const char *translate(struct vctx *v, Dwarf_Attribute *attr,
			     Dwarf_Op *ops, size_t n, Dwarf_Addr pc,
			     struct dwarf_loc *out)
{
	struct dwarf_piece *pc_v = NULL;
	int np = 0;
	size_t start = 0;
	bool pieces = false;

	for (size_t i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_bit_piece)
			return "it is split in bit pieces (DW_OP_bit_piece)";
		if (ops[i].atom == DW_OP_piece)
			pieces = true;
	}
	if (!pieces)
		return translate_simple(v, attr, ops, n, pc, out);
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		struct dwarf_piece *p;
		const char *why;

		if (ops[i].atom != DW_OP_piece)
			continue;
		pc_v = xrealloc(pc_v, (size_t)(np + 1) * sizeof(*pc_v));
		p = &pc_v[np++];
		memset(p, 0, sizeof(*p));
		p->size = ops[i].number;
		if (i == start) {
			p->empty = true;
		} else if ((why = translate_simple(v, attr, ops + start,
						   i - start, pc, &p->loc))) {
			free(pc_v);
			return why;
		}
		if (!p->size) {
			free(pc_v);
			return "it has a piece of 0 bytes";
		}
		start = i + 1;
	}
	if (start != n) {
		free(pc_v);
		return "its location is too complex (operations after the "
		       "last piece)";
	}
	out->kind = DWARF_LOC_PIECES;
	out->npieces = np;
	out->pieces = arena_alloc(&v->s->arena, (size_t)np * sizeof(*pc_v));
	memcpy((void *)out->pieces, pc_v, (size_t)np * sizeof(*pc_v));
	free(pc_v);
	return NULL;
}

/* One location without pieces. */
static const char *translate_simple(struct vctx *v, Dwarf_Attribute *attr,
				    Dwarf_Op *ops, size_t n, Dwarf_Addr pc,
				    struct dwarf_loc *out)
{
	struct opbuf b = { 0 };
	bool value = false;

	memset(out, 0, sizeof(*out));
	if (n == 1 && ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		out->kind = DWARF_LOC_REG;
		out->reg = ops[0].atom - DW_OP_reg0;
		return NULL;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx) {
		out->kind = DWARF_LOC_REG;
		out->reg = (int)ops[0].number;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		switch (ops[i].atom) {
		case DW_OP_fbreg: {
			struct opbuf fb = { 0 };

			if (!frame_base_ops(v, pc, &fb)) {
				free(fb.v);
				free(b.v);
				return "its frame base is unknown at this address";
			}
			for (int k = 0; k < fb.n; k++)
				op_push(&b, fb.v[k].atom, fb.v[k].n1, fb.v[k].n2);
			free(fb.v);
			op_push(&b, DW_OP_consts, ops[i].number, 0);
			op_push(&b, DW_OP_plus, 0, 0);
			break;
		}
		case DW_OP_call_frame_cfa:
			if (!cfa_ops(v, pc, &b)) {
				free(b.v);
				return "the frame address is unknown here";
			}
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (!entry_value(v, attr, &ops[i], pc, &b)) {
				free(b.v);
				return "its value at function entry is needed";
			}
			break;
		case DW_OP_stack_value:
			if (i != n - 1) {
				free(b.v);
				return "its location is too complex";
			}
			value = true;
			break;
		case DW_OP_implicit_value: {
			/* the value's bytes, in the target's (little-endian)
			 * order */
			Dwarf_Block blk;
			uint64_t val = 0;

			if (n != 1 || dwarf_getlocation_implicit_value(attr,
					&ops[i], &blk) != 0 || blk.length > 8) {
				free(b.v);
				return "its value is too big or not readable";
			}
			for (size_t k = blk.length; k > 0; k--)
				val = val << 8 | blk.data[k - 1];
			out->kind = DWARF_LOC_CONST;
			out->value = (int64_t)val;
			free(b.v);
			return NULL;
		}
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
		case DW_OP_GNU_variable_value:
		case DW_OP_GNU_parameter_ref:
			free(b.v);
			return "its location kind is not supported";
		case DW_OP_addr:
			out->reloc = true;
			op_push(&b, ops[i].atom, ops[i].number, ops[i].number2);
			break;
		default:
			if ((ops[i].atom >= DW_OP_reg0 &&
			     ops[i].atom <= DW_OP_reg31) ||
			    ops[i].atom == DW_OP_regx) {
				free(b.v);
				return "its location is too complex";
			}
			op_push(&b, ops[i].atom, ops[i].number, ops[i].number2);
		}
	}
	simplify(&b);
	out->kind = value ? DWARF_LOC_VALUE : DWARF_LOC_MEM;
	if (b.n == 1 && b.v[0].atom >= DW_OP_breg0 && b.v[0].atom <= DW_OP_breg31) {
		out->simple = true;
		out->reg = b.v[0].atom - DW_OP_breg0;
		out->offset = (int64_t)b.v[0].n1;
	} else if (b.n == 1 && b.v[0].atom == DW_OP_addr) {
		out->simple = true;
		out->reg = -1;
		out->offset = (int64_t)b.v[0].n1;
	} else if (value && const_eval(b.v, b.n, &out->value)) {
		out->kind = DWARF_LOC_CONST;
	}
	out->nops = b.n;
	out->ops = arena_alloc(&v->s->arena, (size_t)(b.n + 1) * sizeof(*b.v));
	if (b.n)
		memcpy((void *)out->ops, b.v, (size_t)b.n * sizeof(*b.v));
	free(b.v);
	return NULL;
}

/* ---- accesses ---- */

static const char *relocate(struct vctx *v, struct dwarf_unit *u,
			    struct dwarf_loc *l);
static const char *symbol_loc(struct vctx *v, struct dwarf_unit *u,
			      const char *name, struct dwarf_loc *l);

/* The function entry's lookup address (past __fentry__). */
Dwarf_Addr entry_var_pc(const struct dwarf_site *s)
{
	return s->pc == s->entry_pc ? s->var_pc : s->entry_pc;
}

struct builder {
	struct dwarf_step steps[MAX_STEPS];
	int n;
	bool object;		/* OBJECT (else VALUE) */
	Dwarf_Die type;		/* of the current value */
	Dwarf_Die member;	/* the last member stepped into */
	bool have_member;
	bool cast_base;		/* still at a @cast's object: '[i]' steps */
};

static bool push_step(struct vctx *v, struct builder *b,
		      enum dwarf_step_kind k, int64_t off, struct expr *index,
		      uint64_t stride, const struct loc *l)
{
	if (b->n == MAX_STEPS) {
		verr(v, l, "target variable chain is too long");
		return false;
	}
	b->steps[b->n].kind = k;
	b->steps[b->n].offset = off;
	b->steps[b->n].index = index;
	b->steps[b->n].stride = stride;
	b->n++;
	return true;
}

bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* "'struct path' (include/linux/path.h:8)" */
static const char *type_where(struct vctx *v, Dwarf_Die *t)
{
	const char *name = dwt_name(v->s, t);
	const char *file = dwarf_decl_file(t);
	int line = 0;

	dwarf_decl_line(t, &line);
	if (file)
		return arena_printf(&v->s->arena, "'%s' (%s:%d)",
				    name ? name : "?", file, line);
	return arena_printf(&v->s->arena, "'%s'", name ? name : "?");
}

static const char *first_member(Dwarf_Die *t)
{
	Dwarf_Die p, m;

	if (!dwt_peel(t, &p) || dwarf_child(&p, &m) != 0)
		return NULL;
	do {
		if (dwarf_tag(&m) == DW_TAG_member && dwarf_diename(&m))
			return dwarf_diename(&m);
	} while (dwarf_siblingof(&m, &m) == 0);
	return NULL;
}

static bool step_field(struct vctx *v, struct builder *b,
		       const struct chain *c)
{
	Dwarf_Die t, pointee, m;
	int64_t off = 0;
	const char *tn;

	if (!dwt_peel(&b->type, &t))
		goto invalid;
	if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		Dwarf_Die pt;

		if (!die_type(&t, &pointee) || !dwt_peel(&pointee, &pt) ||
		    !is_aggregate(dwarf_tag(&pt)))
			goto invalid;
		if (!push_step(v, b, DWARF_STEP_DEREF, 0, NULL, 0, &c->loc))
			return false;
		b->object = true;
		b->type = pointee;
		t = pt;
	} else if (!is_aggregate(dwarf_tag(&t))) {
		goto invalid;
	} else if (!b->object) {
		verr(v, &c->loc, "cannot access member '%s' of a structure "
		     "held in registers", c->field);
		return false;
	}
	if (!dwt_member(&t, c->field, &m, &off)) {
		const char *names = dwt_member_names(v->s, &t);
		const char **list = NULL;
		int n = 0;
		const char *sim;
		char *copy = xstrdup(names);

		for (char *p = strtok(copy, ", "); p; p = strtok(NULL, ", ")) {
			list = xrealloc(list, (size_t)(n + 1) * sizeof(*list));
			list[n++] = p;
		}
		sim = similar_names(v->s, c->field, list, n);
		tn = dwt_name(v->s, &t);
		verr(v, &c->loc, "unable to find member '%s' for %s "
		     "(alternatives: %s)", c->field, tn ? tn : "?",
		     sim ? sim : names);
		free(list);
		free(copy);
		return false;
	}
	if (!push_step(v, b, DWARF_STEP_OFFSET, off, NULL, 0, &c->loc))
		return false;
	b->have_member = true;
	b->member = m;
	if (!die_type(&m, &b->type)) {
		verr(v, &c->loc, "member '%s' has no type", c->field);
		return false;
	}
	return true;
invalid:
	tn = dwt_name(v->s, &b->type);
	verr(v, &c->loc, "invalid access '->%s' vs. %s", c->field,
	     tn ? tn : "void");
	return false;
}

static bool array_stride(Dwarf_Die *arr, Dwarf_Die *elem, uint64_t *stride)
{
	Dwarf_Die c;
	int dims = 0;
	int64_t size;

	if (!die_type(arr, elem))
		return false;
	if (dwarf_child(arr, &c) == 0)
		do {
			if (dwarf_tag(&c) == DW_TAG_subrange_type)
				dims++;
		} while (dwarf_siblingof(&c, &c) == 0);
	size = dwt_size(elem);
	if (dims > 1 || size <= 0)
		return false;
	*stride = (uint64_t)size;
	return true;
}

static bool step_index(struct vctx *v, struct builder *b,
		       const struct chain *c)
{
	Dwarf_Die t, elem;
	uint64_t stride;
	int64_t size;
	const char *tn;

	if (b->cast_base) {
		/* @cast(p, "T")[i] is the i-th T from p, as if p were a T *
		 * (stap's sizeof idiom: &@cast(0, "T")[1]) */
		if ((size = dwt_size(&b->type)) <= 0)
			goto invalid;
		stride = (uint64_t)size;
		elem = b->type;
	} else if (!dwt_peel(&b->type, &t)) {
		goto invalid;
	} else if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		if (!die_type(&t, &elem) || (size = dwt_size(&elem)) <= 0)
			goto invalid;
		stride = (uint64_t)size;
		if (!push_step(v, b, DWARF_STEP_DEREF, 0, NULL, 0, &c->loc))
			return false;
		b->object = true;
	} else if (dwarf_tag(&t) == DW_TAG_array_type) {
		if (!array_stride(&t, &elem, &stride))
			goto invalid;
		if (!b->object) {
			verr(v, &c->loc, "cannot index an array held in "
			     "registers");
			return false;
		}
	} else {
		goto invalid;
	}
	if (c->index->kind == E_NUM) {
		if (!push_step(v, b, DWARF_STEP_OFFSET,
			       c->index->num * (int64_t)stride, NULL, 0, &c->loc))
			return false;
	} else if (!push_step(v, b, DWARF_STEP_INDEX, 0, c->index, stride,
			      &c->loc)) {
		return false;
	}
	b->type = elem;
	b->have_member = false;
	return true;
invalid:
	tn = dwt_name(v->s, &b->type);
	verr(v, &c->loc, "invalid access '[...]' vs. %s", tn ? tn : "void");
	return false;
}

/* Whether a number of type t (peeled) is sign-extended when read. An
 * enum is read as unsigned of its size whatever its underlying type and
 * the DW_AT_encoding gcc gives it (stap prints TM_MINUS = -3 of a 4-byte
 * enum as 4294967293). */
bool signed_type(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (dwarf_tag(t) != DW_TAG_base_type ||
	    !dwarf_attr(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* The result of the access: a value loaded, a bitfield, or an address. */
/* Autocast: a names the object its value points at (obj), of type t. */
static void set_obj(struct vctx *v, struct dwarf_access *a, Dwarf_Die *t)
{
	Dwarf_Die *d = ANEW(&v->s->arena, Dwarf_Die);

	*d = *t;
	a->obj = d;
	a->obj_name = dwt_name(v->s, d);
}

static bool finish(struct vctx *v, struct builder *b, struct dwarf_access *a,
		   bool addr, const struct loc *l)
{
	Dwarf_Die t;
	int tag;
	int64_t size;

	a->type = dwt_name(v->s, &b->type);
	if (addr) {
		if (!b->object) {
			verr(v, l, "cannot take the address of '%s': it is "
			     "held in a register", a->text);
			return false;
		}
		a->result = DWARF_RES_ADDRESS;
		a->pointer = true;
		a->size = 8;
		a->type = arena_printf(&v->s->arena, "%s*",
				       a->type ? a->type : "void");
		set_obj(v, a, &b->type);
		return true;
	}
	if (!dwt_peel(&b->type, &t)) {
		verr(v, l, "'%s' has type void", a->text);
		return false;
	}
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type) {
		if (!b->object) {
			verr(v, l, "'%s' is an array held in registers", a->text);
			return false;
		}
		a->result = DWARF_RES_ADDRESS;
		a->pointer = true;
		a->size = 8;
		if (tag == DW_TAG_array_type) {
			Dwarf_Die elem;

			if (die_type(&t, &elem))
				set_obj(v, a, &elem);
		}
		return true;
	}
	if (is_aggregate(tag)) {
		const char *m = first_member(&t);

		verr(v, l, "%s is being accessed instead of a member such as "
		     "'->%s'", type_where(v, &t), m ? m : "...");
		return false;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type &&
	    tag != DW_TAG_pointer_type) {
		verr(v, l, "'%s' has a type that cannot be read as a number",
		     a->text);
		return false;
	}
	size = tag == DW_TAG_pointer_type ? 8 : dwt_size(&t);
	if (size <= 0 || size > 8) {
		verr(v, l, "'%s' is %lld bytes, too big for a long", a->text,
		     (long long)size);
		return false;
	}
	a->result = DWARF_RES_INT;
	a->size = (unsigned)size;
	a->pointer = tag == DW_TAG_pointer_type;
	a->is_signed = !a->pointer && signed_type(&t);
	if (a->pointer) {
		Dwarf_Die to;

		if (die_type(&t, &to))
			set_obj(v, a, &to);
	}
	if (b->have_member && b->n &&
	    b->steps[b->n - 1].kind == DWARF_STEP_OFFSET) {
		Dwarf_Attribute at;
		Dwarf_Word bits = 0, bitoff = 0;

		if (dwarf_attr(&b->member, DW_AT_bit_size, &at) &&
		    dwarf_formudata(&at, &bits) == 0 && bits) {
			struct dwarf_step *st = &b->steps[b->n - 1];
			uint64_t total;

			a->result = DWARF_RES_BITFIELD;
			a->bit_size = (unsigned)bits;
			if (dwarf_attr(&b->member, DW_AT_data_bit_offset, &at) &&
			    dwarf_formudata(&at, &bitoff) == 0) {
				/* counted from the start of the structure:
				 * read the 'size' bytes that hold it */
				total = bitoff;
				st->offset += (int64_t)(total / ((uint64_t)size * 8)) *
					      size;
				a->bit_offset = (unsigned)(total % ((uint64_t)size * 8));
			} else if (dwarf_attr(&b->member, DW_AT_bit_offset, &at) &&
				   dwarf_formudata(&at, &bitoff) == 0) {
				/* DWARF 2: counted from the most significant
				 * bit of the containing unit */
				a->bit_offset = (unsigned)(size * 8 - bitoff - bits);
			}
		}
	}
	return true;
}

char *chain_text(const char *head, const struct chain *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		out_of_memory();
	fputs(head, f);
	for (; c; c = c->next) {
		if (c->field) {
			fprintf(f, "->%s", c->field);
		} else {
			fputc('[', f);
			print_expr(f, c->index);
			fputc(']', f);
		}
	}
	fclose(f);
	return buf;
}

/* Walk chain c from a value of type 'type' (an OBJECT if object; a
 * @cast's object if cast_base). */
static struct dwarf_access *build_chain(struct vctx *v, struct dwarf_access *a,
					Dwarf_Die *type, bool object,
					bool cast_base, const struct chain *c,
					bool addr, const struct loc *l)
{
	struct builder *b = xcalloc(1, sizeof(*b));
	bool ok = true;

	b->type = *type;
	b->object = object;
	b->cast_base = cast_base;
	for (; ok && c; c = c->next) {
		ok = c->field ? step_field(v, b, c) : step_index(v, b, c);
		b->cast_base = false;
	}
	if (ok)
		ok = finish(v, b, a, addr, l);
	if (ok) {
		struct dwarf_step *steps = arena_alloc(&v->s->arena,
			(size_t)(b->n + 1) * sizeof(*steps));

		memcpy(steps, b->steps, (size_t)b->n * sizeof(*steps));
		a->steps = steps;
		a->nsteps = b->n;
	}
	free(b);
	return ok ? a : NULL;
}

static struct dwarf_access *build(struct vctx *v, struct dwarf_access *a,
				  Dwarf_Die *type, bool object,
				  const struct chain *c, bool addr,
				  const struct loc *l)
{
	return build_chain(v, a, type, object, false, c, addr, l);
}

/* Where locations are read: the probe's, or the function entry's for
 * @entry and return probes' parameters. */
static Dwarf_Addr read_pc(struct vctx *v)
{
	return v->in_entry ? entry_var_pc(v->site) : v->site->var_pc;
}

/* An access to a variable held in pieces (base DWARF_LOC_PIECES): the
 * chain is walked as over an object, then the leading OFFSET steps are
 * folded into base.piece_off and what is read there (the value, or the
 * pointer the next DEREF follows) sized into base.piece_size. Returns 1,
 * 0 after an error, -1 when a read touches an empty piece and
 * --skip-badvars is on. */
static int pieces_access(struct vctx *v, struct dwarf_access *a,
			 const char *name, Dwarf_Die *type,
			 const struct chain *chain, bool addr,
			 const struct loc *l)
{
	struct dwarf_loc *base = &a->base;
	uint64_t off = 0, total = 0, pos = 0;
	unsigned size;
	int k = 0;

	if (!build(v, a, type, true, chain, addr, l))
		return 0;
	while (k < a->nsteps && a->steps[k].kind == DWARF_STEP_OFFSET)
		off += (uint64_t)a->steps[k++].offset;
	if (k < a->nsteps && a->steps[k].kind == DWARF_STEP_INDEX) {
		verr(v, l, "cannot index an array of '$%s': it is split in "
		     "pieces (DW_OP_piece), %s", name, where(v));
		return 0;
	}
	if (k == a->nsteps && a->result == DWARF_RES_ADDRESS) {
		verr(v, l, "cannot take the address of '%s': '$%s' is split "
		     "in pieces (DW_OP_piece), %s", a->text, name, where(v));
		return 0;
	}
	size = k < a->nsteps ? 8 : a->size;
	for (int i = 0; i < base->npieces; i++)
		total += base->pieces[i].size;
	if (off + size > total) {
		verr(v, l, "cannot read '%s': bytes %llu-%llu are outside the "
		     "%llu bytes of '$%s' held in pieces, %s", a->text,
		     (unsigned long long)off,
		     (unsigned long long)(off + size - 1),
		     (unsigned long long)total, name, where(v));
		return 0;
	}
	for (int i = 0; i < base->npieces; pos += base->pieces[i++].size) {
		const struct dwarf_piece *p = &base->pieces[i];

		if (!p->empty || pos >= off + size || pos + p->size <= off)
			continue;
		/* pretty printing ($q$, $$parms) tries members: '?' */
		if (v->s->skip_badvars && !v->trial)
			return -1;
		verr(v, l, "'%s' is not accessible at this address (pc: "
		     "%#llx): that part of '$%s' was optimized away there, %s",
		     a->text, (unsigned long long)(a->at_entry ?
						  entry_var_pc(v->site) :
						  read_pc(v)), name, where(v));
		return 0;
	}
	base->piece_off = off;
	base->piece_size = size;
	a->steps += k;
	a->nsteps -= k;
	return 1;
}

/* A tracepoint argument's base: memory at its slot of the handler's
 * array, through sp (dwarf-api.h's struct trace_arg). */
static void slot_base(struct vctx *v, struct dwarf_access *a, unsigned slot)
{
	struct dwarf_op *op = ANEW(&v->s->arena, struct dwarf_op);

	a->base.kind = DWARF_LOC_MEM;
	a->base.simple = true;
	a->base.reg = 7;		/* sp */
	a->base.offset = 8 * (int64_t)slot;
	op->atom = DW_OP_breg7;
	op->n1 = (uint64_t)a->base.offset;
	a->base.ops = op;
	a->base.nops = 1;
}

static void unknown_tracepoint_var(struct vctx *v, const char *name,
				   const struct loc *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; f && i < v->site->ntargs; i++)
		fprintf(f, "$%s, ", v->site->targs[i].name);
	if (f)
		fclose(f);
	verr(v, l, "unable to find tracepoint variable '$%s' (alternatives: "
	     "%s$$name, $$vars, $$parms)", name, buf ? buf : "");
	free(buf);
}

static void btf_err(void *arg, const struct loc *l, const char *msg)
{
	verr(arg, l, "%s", msg);
}

/* A kernel function's parameter from its BTF prototype: in its
 * register at the entry (read there for a return probe too), or $return
 * in rax. */
static struct dwarf_access *btf_param(struct vctx *v, struct dwarf_access *a,
				      const char *name,
				      const struct chain *chain, bool addr,
				      const struct loc *l)
{
	struct btf_ref r = { .s = v->s, .err = btf_err, .arg = v,
			      .site = v->site };
	const struct dwarf_site *site = v->site;
	const struct trace_arg *t = NULL;
	uint32_t type;

	if (strcmp(name, "return") == 0 && site->is_return) {
		if (!site->btf_ret) {
			verr(v, l, "'$return' is not available: %s returns "
			     "void (probe point %s)", site->function,
			     v->p->name);
			return NULL;
		}
		a->base.reg = 0;	/* rax */
		type = site->btf_ret;
	} else {
		for (int i = 0; i < site->ntargs; i++)
			if (strcmp(site->targs[i].name, name) == 0)
				t = &site->targs[i];
		if (!t) {
			verr(v, l, "unable to find parameter '$%s' of %s in "
			     "the kernel's BTF (locals need the debuginfo: "
			     "install the %s package)", name, site->function,
			     dwarf_package(v->s));
			return NULL;
		}
		if (!t->ctype) {
			verr(v, l, "cannot read '$%s' without the kernel's "
			     "debuginfo: %s does not get it in a register "
			     "(install the %s package)", name, site->function,
			     dwarf_package(v->s));
			return NULL;
		}
		/* a parameter in a return probe is its value at entry */
		if (site->is_return && !v->in_entry && !v->trial)
			elab_warn(v->e, l, "confusing usage, value is captured "
				  "as @entry($%s) in .return probe", name);
		a->at_entry = site->is_return;
		a->base.reg = (int)t->slot;
		type = t->btf_type;
	}
	if (addr && !chain) {
		verr(v, l, "cannot take the address of '$%s': it is held in a "
		     "register", name);
		return NULL;
	}
	a->base.kind = DWARF_LOC_REG;
	return btf_access(&r, a, type, chain, addr, l);
}

/* A tracepoint's argument typed by BTF (btf.c). */
static struct dwarf_access *btf_target(struct vctx *v, struct dwarf_access *a,
				       const char *name,
				       const struct chain *chain, bool addr,
				       const struct loc *l)
{
	struct btf_ref r = { .s = v->s, .err = btf_err, .arg = v,
			      .site = v->site };
	int i = 0;

	if (!v->site->tracepoint)
		return btf_param(v, a, name, chain, addr, l);
	while (i < v->site->ntargs && strcmp(v->site->targs[i].name, name))
		i++;
	if (i == v->site->ntargs) {
		unknown_tracepoint_var(v, name, l);
		return NULL;
	}
	slot_base(v, a, v->site->targs[i].slot);
	return btf_arg_access(&r, a, &v->site->targs[i], chain, addr, l);
}

/* A tracepoint's argument: memory at slot * 8 from the handler's
 * array of them (struct trace_arg), through sp. */
static struct dwarf_access *tracepoint_arg(struct vctx *v,
					   struct dwarf_access *a,
					   const char *name, Dwarf_Die *type,
					   const struct chain *chain,
					   bool addr, const struct loc *l)
{
	int i = 0;

	while (i < v->site->ntargs && strcmp(v->site->targs[i].name, name))
		i++;
	if (i == v->site->ntargs) {
		verr(v, l, "tracepoint variable '$%s' has a type the handler "
		     "cannot take", name);
		return NULL;
	}
	slot_base(v, a, v->site->targs[i].slot);
	return build(v, a, type, true, chain, addr, l);
}

/* $name (with its chain) at the site. */
struct dwarf_access *target(struct vctx *v, const char *name,
				   const struct chain *chain, bool addr,
				   const struct loc *l)
{
	struct dwarf_access *a = ANEW(&v->s->arena, struct dwarf_access);
	Dwarf_Die var, type;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	const char *why;
	const char *head = arena_printf(&v->s->arena, "%s$%s",
					addr ? "&" : "", name);
	int r;

	a->text = head;		/* $name alone: 2500 of them for $$parms */
	if (chain) {
		char *text = chain_text(head, chain);

		a->text = arena_strdup(&v->s->arena, text);
		free(text);
	}
	a->site = v->site;
	if (v->site->btf)
		return btf_target(v, a, name, chain, addr, l);
	if (strcmp(name, "return") == 0 && v->site->is_return) {
		Dwarf_Die fn;

		if (!dwarf_offdie(v->u->dw, v->site->die, &fn) ||
		    !die_type(&fn, &type)) {
			verr(v, l, "'$return' is not available: %s returns "
			     "void (probe point %s)", v->site->function,
			     v->p->name);
			return NULL;
		}
		a->base.kind = DWARF_LOC_REG;
		a->base.reg = 0;	/* rax */
		return build(v, a, &type, false, chain, addr, l);
	}
	if (!find_var(v, name, &var)) {
		if (v->site->tracepoint)
			unknown_tracepoint_var(v, name, l);
		else
			verr(v, l, "unable to find local '%s', %s "
			     "(alternatives: %s)", name, where(v),
			     alternatives(v));
		return NULL;
	}
	if (!die_type(&var, &type)) {
		verr(v, l, "'$%s' has no type %s", name, where(v));
		return NULL;
	}
	if (v->site->tracepoint)
		return tracepoint_arg(v, a, name, &type, chain, addr, l);
	/* a parameter in a return probe is its value at entry */
	if (v->site->is_return && !v->in_entry && !v->atvar) {
		if (!v->trial)
			elab_warn(v->e, l, "confusing usage, value is captured "
				  "as @entry($%s) in .return probe", name);
		a->at_entry = true;
	}
	a->at_entry |= v->in_entry;
	r = var_ops(&var, a->at_entry ? entry_var_pc(v->site) : read_pc(v),
		    &attr, &ops, &nops);
	if (r < 0) {
		Dwarf_Attribute cv;
		Dwarf_Sword sval;

		if (dwarf_attr_integrate(&var, DW_AT_const_value, &cv) &&
		    dwarf_formsdata(&cv, &sval) == 0) {
			a->base.kind = DWARF_LOC_CONST;
			a->base.value = sval;
			return build(v, a, &type, false, chain, addr, l);
		}
		/* a kernel global this CU only declares: at its symbol's
		 * address, as @var finds it */
		if (!v->u->dwfl && dwarf_hasattr_integrate(&var,
							   DW_AT_declaration)) {
			why = symbol_loc(v, v->u, name, &a->base);
			if (why) {
				verr(v, l, "cannot read '$%s': %s, %s", name,
				     why, where(v));
				return NULL;
			}
			return build(v, a, &type, true, chain, addr, l);
		}
		if (v->s->skip_badvars)
			goto skip;
		verr(v, l, "'$%s' was optimized away: it has no location, %s",
		     name, where(v));
		return NULL;
	}
	if (r == 0) {
		if (v->s->skip_badvars)
			goto skip;
		verr(v, l, "'$%s' is not accessible at this address (pc: "
		     "%#llx): optimized away there, %s", name,
		     (unsigned long long)(a->at_entry ?
					  entry_var_pc(v->site) : read_pc(v)),
		     where(v));
		return NULL;
	}
	why = translate(v, &attr, ops, nops,
			a->at_entry ? entry_var_pc(v->site) : read_pc(v),
			&a->base);
	if (!why && a->base.reloc)
		why = relocate(v, v->u, &a->base);
	for (int i = 0; !why && a->base.kind == DWARF_LOC_PIECES &&
	     i < a->base.npieces; i++)
		if (a->base.pieces[i].loc.reloc)
			why = relocate(v, v->u, (struct dwarf_loc *)
				       &a->base.pieces[i].loc);
	if (why) {
		if (v->s->skip_badvars)
			goto skip;
		verr(v, l, "cannot read '$%s': %s, %s", name, why, where(v));
		return NULL;
	}
	if (a->base.kind == DWARF_LOC_PIECES) {
		switch (pieces_access(v, a, name, &type, chain, addr, l)) {
		case 0:
			return NULL;
		case 1:
			return a;
		default:
			goto skip;
		}
	}
	return build(v, a, &type, a->base.kind == DWARF_LOC_MEM, chain, addr,
		     l);
skip:
	/* --skip-badvars: the value is 0 */
	memset(&a->base, 0, sizeof(a->base));
	a->base.kind = DWARF_LOC_CONST;
	a->steps = NULL;	/* pieces_access() may have walked a chain */
	a->nsteps = 0;
	a->result = DWARF_RES_INT;
	a->size = 8;
	a->type = dwt_name(v->s, &type);
	return a;
}

/* @cast(ptr, "type"[, "module"]) with its chain: the base is the OBJECT
 * at ptr's value. Without a module, the type is the probe's module's in
 * a module's DWARF probe (and only that module's, as in stap), else the
 * kernel's. */
struct dwarf_access *cast(struct vctx *v, struct expr *x)
{
	struct dwarf_access *a = ANEW(&v->s->arena, struct dwarf_access);
	const char *mod = x->str2;
	struct dwarf_unit *u;
	Dwarf_Die type;
	char *text;

	if (mod && (strncmp(mod, "kernel", 6) == 0 && (!mod[6] || mod[6] == '<')))
		mod = NULL;
	else if (!mod && v->site && strcmp(v->site->module, "kernel") != 0)
		mod = v->site->module;
	text = chain_text(arena_printf(&v->s->arena, "@cast(..., \"%s\")",
				       x->str), x->chain);
	a->text = arena_strdup(&v->s->arena, text);
	free(text);
	a->site = v->site;
	a->cast = x->a;
	u = dwarf_unit_for(v->s, mod);
	if (!u && !mod && btf_available(v->s)) {
		struct btf_ref r = { .s = v->s, .err = btf_err, .arg = v,
				     .cast_base = true };
		uint32_t id;

		if (!btf_find_type(v->s, x->str, &id)) {
			verr(v, &x->loc, "type definition '%s' not found in the "
			     "kernel's BTF", x->str);
			return NULL;
		}
		return btf_access(&r, a, id, x->chain, x->addr, &x->loc);
	}
	if (!u) {
		verr(v, &x->loc, "@cast type '%s' needs debuginfo for '%s': "
		     "install the %s package", x->str, mod ? mod : "kernel",
		     dwarf_package(v->s));
		return NULL;
	}
	if (!dwt_find(v->s, u, x->str, &type)) {
		verr(v, &x->loc, "type definition '%s' not found in '%s'",
		     x->str, mod ? mod : "kernel");
		return NULL;
	}
	return build_chain(v, a, &type, true, true, x->chain, x->addr,
			   &x->loc);
}

struct dwarf_access *autocast(struct vctx *v, struct expr *x,
			      const struct dwarf_access *base)
{
	struct dwarf_access *a = ANEW(&v->s->arena, struct dwarf_access);
	char *head = NULL, *text;
	size_t len = 0;
	FILE *f = open_memstream(&head, &len);

	if (!f)
		out_of_memory();
	switch (x->a->kind) {
	case E_VAR: case E_INDEX: case E_CALL: case E_TARGET: case E_CAST:
	case E_ATVAR: case E_AUTOCAST:
		print_expr(f, x->a);
		break;
	default:
		fputc('(', f);
		print_expr(f, x->a);
		fputc(')', f);
	}
	fclose(f);
	text = chain_text(head, x->chain);
	a->text = arena_strdup(&v->s->arena, text);
	free(text);
	free(head);
	a->site = v->site;
	a->cast = x->a;
	return build_chain(v, a, (Dwarf_Die *)base->obj, true, true, x->chain,
			   x->addr, &x->loc);
}

const struct dwarf_access *dwarf_named_type(struct session *s,
					    const char *type)
{
	struct dwarf_unit *u = dwarf_unit_for(s, NULL);
	struct dwarf_access *a;
	Dwarf_Die t, *d;

	if (!u || !dwt_find(s, u, type, &t))
		return NULL;
	a = ANEW(&s->arena, struct dwarf_access);
	d = ANEW(&s->arena, Dwarf_Die);
	*d = t;
	a->text = type;
	a->obj = d;
	a->obj_name = dwt_name(s, d);
	a->pointer = true;
	return a;
}

bool dwarf_autocast(struct elab *e, struct dprobe *p, struct expr *x,
		    const struct dwarf_access *base)
{
	struct vctx v;
	struct dwarf_access *a;

	ctx_init(&v, e, p);
	a = autocast(&v, x, base);
	free(v.scopes);
	if (a)
		x->ref = a;
	return a != NULL;
}

/* Does file (a glob, or the last components of a path) name path? */
static bool file_is(const char *file, const char *path)
{
	size_t fl = strlen(file), pl = path ? strlen(path) : 0;

	if (!path)
		return false;
	if (fnmatch(file, path, 0) == 0)
		return true;
	return pl > fl && strcmp(path + pl - fl, file) == 0 &&
	       path[pl - fl - 1] == '/';
}

/* A global variable of the CU: a definition with a location (decl
 * false), or else a declaration (decl true: the address comes from the
 * symbol table). file: the CU's or the declaration's file. */
static bool global_in_cu(Dwarf_Die *cu, const char *name, const char *file,
			 bool decl, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (file && !file_is(file, dwarf_diename(cu)))
		return false;
	if (dwarf_child(cu, &c) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&c) != DW_TAG_variable ||
		    !(n = die_name(&c)) || strcmp(n, name) != 0)
			continue;
		if (decl ? !dwarf_hasattr(&c, DW_AT_declaration) :
			   !dwarf_hasattr(&c, DW_AT_location))
			continue;
		*out = c;
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The link-time address of a data symbol of the unit's ELF file. */
static bool data_symbol(struct dwarf_unit *u, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;

	while (u->elf && (scn = elf_nextscn(u->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    sym.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(sym.st_info) != STT_OBJECT &&
			     GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
			    !(n = elf_strptr(u->elf, sh.sh_link, sym.st_name)) ||
			    strcmp(n, name) != 0)
				continue;
			*addr = sym.st_value;
			return true;
		}
	}
	return false;
}

/* ---- global and static variables: DW_OP_addr ---- */

/* The name of the allocated section of vmlinux holding addr. */
static const char *kernel_data_section(struct dwarf_unit *u, uint64_t addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!u->elf || elf_getshdrstrndx(u->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(u->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) &&
		    sh.sh_type != SHT_NOTE && addr >= sh.sh_addr &&
		    addr < sh.sh_addr + sh.sh_size)
			return elf_strptr(u->elf, shstrndx, sh.sh_name);
	}
	return NULL;
}

static bool c_identifier(const char *n)
{
	if (!*n || (*n >= '0' && *n <= '9'))
		return false;
	for (; *n; n++)
		if (!(*n == '_' || (*n >= 'a' && *n <= 'z') ||
		      (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9')))
			return false;
	return true;
}

/* Is name the name of one symbol only in the module's table (so that
 * "mod:name" finds that one at run time)? */
static bool module_symbol_unique(struct dwarf_unit *u, int nsyms,
				 const char *name)
{
	int seen = 0;

	for (int i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *n = dwfl_module_getsym_info(u->mod, i, &sym, &a,
							NULL, NULL, NULL);

		if (n && strcmp(n, name) == 0 && ++seen > 1)
			return false;
	}
	return seen == 1;
}

/*
 * A module's variable at DWARF address addr (as libdwfl laid the .ko
 * out): a symbol the kernel's kallsyms will know in the same section,
 * preferably the variable's own, whose run-time address gives the
 * section's. NULL, or why not.
 */
static const char *module_anchor(struct vctx *v, struct dwarf_unit *u,
				 uint64_t addr, struct dwarf_loc *l)
{
	Dwarf_Addr off = addr + u->bias;
	Elf32_Word shndx = 0;
	int ri = dwfl_module_relocate_address(u->mod, &off);
	const char *sec = ri < 0 ? NULL :
		dwfl_module_relocation_info(u->mod, (unsigned)ri, &shndx);
	int nsyms = dwfl_module_getsymtab(u->mod);

	if (!sec)
		return "its address is in no section of the module";
	if (strcmp(sec, ".data..percpu") == 0)
		return "per-CPU variables are not supported yet";
	/* init sections are freed once the module is loaded */
	if (strncmp(sec, ".init", 5) == 0 || strncmp(sec, ".exit", 5) == 0)
		return arena_printf(&v->s->arena, "it is in the module's %s "
				    "section, gone once the module is loaded",
				    sec);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 1; i < nsyms; i++) {
			GElf_Sym sym;
			GElf_Addr a;
			GElf_Word sx = 0;
			const char *n = dwfl_module_getsym_info(u->mod, i, &sym,
							&a, &sx, NULL, NULL);
			int t = GELF_ST_TYPE(sym.st_info);

			if (!n || sx != shndx || !c_identifier(n) ||
			    (t != STT_OBJECT && t != STT_FUNC &&
			     t != STT_NOTYPE))
				continue;
			/* first the variable's own symbol, then any */
			if (pass == 0 && a != addr + u->bias)
				continue;
			if (!module_symbol_unique(u, nsyms, n))
				continue;
			l->reloc_sym = arena_printf(&v->s->arena, "%s:%s",
						    u->name, n);
			l->reloc_link = a - u->bias;
			return NULL;
		}
	}
	return arena_printf(&v->s->arena, "the module has no symbol in its "
			    "%s section to locate it by", sec);
}

/*
 * l holds DW_OP_addr operands of unit u: name the symbol that locates
 * them at run time (dwarf-api.h). NULL, or why it cannot be read.
 */
static const char *relocate(struct vctx *v, struct dwarf_unit *u,
			    struct dwarf_loc *l)
{
	for (int i = 0; i < l->nops; i++) {
		uint64_t addr = l->ops[i].n1;
		const char *why, *sym;
		uint64_t link;

		if (l->ops[i].atom != DW_OP_addr)
			continue;
		if (u->user) {
			/* a program linked at its address: none to find */
			if (u->user_pie)
				return "globals of position-independent "
				       "programs are not supported yet";
			l->reloc = false;
			continue;
		}
		if (!u->dwfl) {
			const char *s = kernel_data_section(u, addr);

			if (s && strcmp(s, ".data..percpu") == 0)
				return "per-CPU variables are not supported yet";
			if (s && strncmp(s, ".init.", 6) == 0)
				return arena_printf(&v->s->arena, "it is in "
						    "the kernel's %s section, "
						    "freed after boot", s);
			(void)dwarf_symbol_at(u, 0);	/* loads u->stext */
			if (!u->stext)
				return "the kernel's _stext symbol is unknown";
			l->reloc_sym = "_stext";
			l->reloc_link = u->stext;
			continue;
		}
		sym = l->reloc_sym;
		link = l->reloc_link;
		if ((why = module_anchor(v, u, addr, l)))
			return why;
		/* one anchor for the whole expression: every operand in
		 * the same section */
		if (sym && strcmp(sym, l->reloc_sym) != 0) {
			Dwarf_Addr a = addr + u->bias, b = link + u->bias;
			int ra = dwfl_module_relocate_address(u->mod, &a);
			int rb = dwfl_module_relocate_address(u->mod, &b);

			if (ra != rb)
				return "its location spans sections";
			l->reloc_sym = sym;
			l->reloc_link = link;
		}
	}
	return NULL;
}

/* The location of a global at its data symbol's address (a variable
 * the DWARF only declares: jiffies comes from the linker script). NULL,
 * or why not. */
static const char *symbol_loc(struct vctx *v, struct dwarf_unit *u,
			      const char *name, struct dwarf_loc *l)
{
	struct dwarf_op *op;
	uint64_t addr;

	if (!data_symbol(u, name, &addr))
		return "it is only declared here, and no symbol has its name";
	op = arena_alloc(&v->s->arena, sizeof(*op));
	op->atom = DW_OP_addr;
	op->n1 = addr;
	memset(l, 0, sizeof(*l));
	l->kind = DWARF_LOC_MEM;
	l->simple = l->reloc = true;
	l->reg = -1;
	l->offset = (int64_t)addr;
	l->ops = op;
	l->nops = 1;
	return relocate(v, u, l);
}

/* @var("name[@file]"[, "module"]): in a DWARF probe without @file, the
 * variable the probe's scopes see; else a global of the kernel (or the
 * module) with a static address, from the first CU that defines one. */
struct dwarf_access *atvar(struct vctx *v, struct expr *x)
{
	const char *name = x->str, *at = strchr(name, '@');
	const char *file = at ? at + 1 : NULL;
	const char *mod = x->str2;
	struct dwarf_unit *u;
	struct dwarf_access *a;
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die var, type;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	const char *why = NULL;
	char *text;
	bool found = false, is_decl = false;
	uint64_t addr = 0;

	if (at)
		name = arena_strndup(&v->s->arena, name, (size_t)(at - name));
	if (!file && v->site && !x->str2) {
		v->atvar = true;
		found = find_var(v, name, &var);
		a = found ? target(v, name, x->chain, x->addr, &x->loc) : NULL;
		v->atvar = false;
		if (a) {
			text = chain_text(arena_printf(&v->s->arena,
					  "@var(\"%s\")", x->str), x->chain);
			a->text = arena_strdup(&v->s->arena, text);
			free(text);
		}
		if (found)
			return a;
	}
	/* as stap: the probe's module by default; a probe without one
	 * (begin, timer, ...) must name it */
	if (!mod && v->site && strcmp(v->site->module, "kernel") != 0)
		mod = v->site->module;
	if (!mod && !v->site) {
		verr(v, &x->loc, "unresolved @var() expression: outside "
		     "kernel and module function probes, @var(\"%s\") needs "
		     "its module (\"kernel\" for the kernel's variables)",
		     x->str);
		return NULL;
	}
	if (mod && strcmp(mod, "kernel") == 0)
		mod = NULL;
	u = dwarf_unit_for(v->s, mod);
	if (!u) {
		verr(v, &x->loc, "@var(\"%s\") needs debuginfo for '%s': "
		     "install the %s package", x->str,
		     mod ? mod : "kernel", dwarf_package(v->s));
		return NULL;
	}
	/* a definition first; else a declaration (jiffies is one: the
	 * linker script defines it) at its symbol's address */
	for (int decl = 0; !found && decl < 2; decl++) {
		for (off = 0; !found && dwarf_nextcu(u->dw, off, &next, &hsize,
						     NULL, NULL, NULL) == 0;
		     off = next) {
			Dwarf_Die cu;

			found = dwarf_offdie(u->dw, off + hsize, &cu) &&
				global_in_cu(&cu, name, file, decl, &var);
		}
		is_decl = decl;
	}
	if (!found || (is_decl && !data_symbol(u, name, &addr))) {
		verr(v, &x->loc, "unable to find global '%s' in %s%s%s", name,
		     mod ? mod : "kernel", file ? ", file " : "",
		     file ? file : "");
		return NULL;
	}
	a = ANEW(&v->s->arena, struct dwarf_access);
	text = chain_text(arena_printf(&v->s->arena, "@var(\"%s\")", x->str),
			  x->chain);
	a->text = arena_strdup(&v->s->arena, text);
	free(text);
	a->site = v->site;
	if (!die_type(&var, &type)) {
		verr(v, &x->loc, "global '%s' has no type", name);
		return NULL;
	}
	if (is_decl) {
		if ((why = symbol_loc(v, u, name, &a->base))) {
			verr(v, &x->loc, "cannot read global '%s': %s", name,
			     why);
			return NULL;
		}
	} else if (var_ops(&var, 0, &attr, &ops, &nops) <= 0 ||
		   (why = translate(v, &attr, ops, nops, 0, &a->base))) {
		verr(v, &x->loc, "cannot read global '%s': %s", name,
		     why ? why : "it has no usable location");
		return NULL;
	}
	if (!is_decl && a->base.reloc && (why = relocate(v, u, &a->base))) {
		verr(v, &x->loc, "cannot read global '%s': %s", name, why);
		return NULL;
	}
	return build(v, a, &type, a->base.kind == DWARF_LOC_MEM, x->chain,
		     x->addr, &x->loc);
}
