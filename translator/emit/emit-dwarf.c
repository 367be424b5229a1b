/* emit-dwarf.c - pass 3 for the DWARF probes: kernel.function,
 * module().function and kernel.statement points, and the target-variable
 * accesses pass 2 resolved (struct dwarf_access, dwarf-api.h) into C.
 *
 * An access becomes straight-line C over the probe's saved registers and
 * the fault-tolerant reads of runtime/dwarf.h: the base location (a
 * register, register plus offset, or a small DWARF expression compiled
 * op by op onto a C array used as the stack, or the bytes of a variable
 * held in pieces gathered from its registers, values and memory), then
 * the DEREF, OFFSET and INDEX steps, then the result (an integer of 1-8
 * bytes sign- or zero-extended, a bitfield, an address). A read that
 * faults raises SystemTap's catchable "read fault [man error::fault] at
 * 0x..." with the access's "near" text.
 *
 * In a .return probe, accesses read at entry (parameters, @entry()) are
 * computed by the kretprobe's entry handler (probe_N_dwentry, generated
 * here) into one struct tp_dw_slot each of the per-instance data; the
 * handler reads the slot, and raises the fault the entry read met.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <stdarg.h>
#include <string.h>
#include <stdlib.h>

#include "emit-internal.h"
#include "debuginfo/dwarf-api.h"
#include "xalloc.h"

/* DW_OP_* values (the DWARF standard; not including elfutils' dwarf.h
 * here, whose name the translator's own headers would not shadow but
 * which pass 3 does not otherwise need). */
enum {
	OP_addr = 0x03, OP_deref = 0x06,
	OP_const1u = 0x08, OP_const1s, OP_const2u, OP_const2s, OP_const4u,
	OP_const4s, OP_const8u, OP_const8s, OP_constu, OP_consts,
	OP_dup = 0x12, OP_drop, OP_over, OP_pick, OP_swap,
	OP_and = 0x1a, OP_minus = 0x1c, OP_mul = 0x1e, OP_neg, OP_not,
	OP_or, OP_plus, OP_plus_uconst, OP_shl, OP_shr, OP_shra, OP_xor,
	OP_lit0 = 0x30, OP_lit31 = 0x4f, OP_reg0 = 0x50, OP_reg31 = 0x6f,
	OP_breg0 = 0x70, OP_breg31 = 0x8f, OP_regx = 0x90, OP_bregx = 0x92,
	OP_piece = 0x93, OP_deref_size = 0x94, OP_nop = 0x96,
	OP_stack_value = 0x9f,
};

/* x86_64 DWARF register numbers -> struct pt_regs members. */
static const char *const regname[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ip",
};
#define NREGS ((int)(sizeof(regname) / sizeof(regname[0])))

/* ---- per-probe state: the slots read at entry ---- */

struct dwprobe {
	const struct em *em;
	const struct body *b;
	const struct dwarf_access **slots;
	const struct expr **slot_x;
	int nslots;
	struct dwprobe *next;
};

static struct dwprobe *dwprobes;
static const struct em *dw_em;		/* the program dwprobes belong to */
static bool dw_included;
static bool dw_needed;		/* some body reads through runtime/dwarf.h */

/* The state belongs to program em from now on. */
static void dw_switch(const struct em *em)
{
	struct dwprobe *d;

	if (dw_em == em)
		return;
	while (dwprobes) {
		d = dwprobes->next;
		free(dwprobes->slots);
		free(dwprobes->slot_x);
		free(dwprobes);
		dwprobes = d;
	}
	dw_em = em;
	dw_included = false;
	dw_needed = false;
}

static struct dwprobe *dwprobe_of(const struct body *b, bool create)
{
	struct dwprobe *d;

	dw_switch(b->em);
	for (d = dwprobes; d; d = d->next)
		if (d->b == b)
			return d;
	if (!create)
		return NULL;
	d = xcalloc(1, sizeof(*d));
	d->em = b->em;
	d->b = b;
	d->next = dwprobes;
	dwprobes = d;
	return d;
}

/* ---- the symbols that locate global variables (DW_OP_addr) ----
 *
 * Each is looked up once when the session starts (struct tp_reloc,
 * runtime/tapir.h) into tpg_reloc_N; 0 when it is not there (the module
 * is not loaded). */

static struct {
	const struct em *em;
	const char **names;
	int n;
} relocs;

static int reloc_index(const struct em *em, const char *name)
{
	if (relocs.em != em) {
		free(relocs.names);
		relocs.names = NULL;
		relocs.n = 0;
		relocs.em = em;
	}
	for (int i = 0; i < relocs.n; i++)
		if (strcmp(relocs.names[i], name) == 0)
			return i;
	relocs.names = xrealloc(relocs.names, (size_t)(relocs.n + 1) *
				sizeof(*relocs.names));
	relocs.names[relocs.n] = name;
	return relocs.n++;
}

/* ---- the generator: handler mode (into a body) or entry mode ---- */

struct dgen {
	struct em *em;
	struct body *b;		/* handler mode; NULL: entry mode */
	FILE *o;		/* entry mode */
	int slot;		/* entry mode: the slot written */
	bool label_used;	/* entry mode: slot_N_done jumped to */
	const char *regs;	/* C of the struct pt_regs pointer */
	const char *near;	/* C string literal of the near text */
	const struct loc *loc;
	const char *text;	/* the access, for messages */
	int sp, maxsp;		/* the DWARF stack of a compiled expression */
	bool pieces;		/* __dwp (a piece's bytes) is used */
	const char *load;	/* tp_dw_load, or tp_dw_uload for the
				 * memory of a user-space probe */
};

static void gline(struct dgen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void gline(struct dgen *g, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	if (g->b)
		out(g->b, "%s", s);
	else
		fprintf(g->o, "\t\t%s\n", s);
	free(s);
}

/* After "if (unlikely(READ FAILS)) {": the fault at addr. */
static void gfault(struct dgen *g, const char *addr)
{
	if (g->b) {
		gline(g, "\ttp_error(c, \"read fault [man error::fault] at "
		      "0x%%lx\", (unsigned long)(%s));", addr);
		gline(g, "\tc->last_stmt = %s;", g->near);
		g->b->ind++;
		err_jump(g->b);
		g->b->ind--;
	} else {
		gline(g, "\ts[%d].bad = true;", g->slot);
		gline(g, "\ts[%d].fault = (unsigned long)(%s);", g->slot, addr);
		gline(g, "\tgoto slot_%d_done;", g->slot);
		g->label_used = true;
	}
	gline(g, "}");
}

static bool unsupported(struct dgen *g, const char *what)
{
	em_error(g->em, g->loc, "cannot translate '%s': %s are not supported "
		 "yet", g->text, what);
	return false;
}

static const char *reg(struct dgen *g, uint64_t n)
{
	if (n >= (uint64_t)NREGS) {
		unsupported(g, "DWARF registers above 16 (x86_64 rip)");
		return NULL;
	}
	return em_printf(g->em, "%s->%s", g->regs, regname[n]);
}

static const char *push(struct dgen *g)
{
	const char *s = em_printf(g->em, "__dws[%d]", g->sp++);

	if (g->sp > g->maxsp)
		g->maxsp = g->sp;
	return s;
}

static const char *top(struct dgen *g, int i)
{
	return em_printf(g->em, "__dws[%d]", g->sp - 1 - i);
}

/* Compile a DWARF expression; its value is top(g, 0). Returns false
 * after an error. *is_reg: a lone DW_OP_regN (the value is the
 * register). */
static bool gen_ops(struct dgen *g, const struct dwarf_loc *l)
{
	for (int i = 0; i < l->nops; i++) {
		const struct dwarf_op *op = &l->ops[i];
		unsigned a = op->atom;
		const char *r;

		if (a >= OP_lit0 && a <= OP_lit31) {
			gline(g, "%s = %uUL;", push(g), a - OP_lit0);
			continue;
		}
		if ((a >= OP_breg0 && a <= OP_breg31) || a == OP_bregx) {
			uint64_t n = a == OP_bregx ? op->n1 : (uint64_t)(a - OP_breg0);
			int64_t off = (int64_t)(a == OP_bregx ? op->n2 : op->n1);

			if (!(r = reg(g, n)))
				return false;
			gline(g, "%s = %s + (%lldL);", push(g), r, (long long)off);
			continue;
		}
		if ((a >= OP_reg0 && a <= OP_reg31) || a == OP_regx) {
			uint64_t n = a == OP_regx ? op->n1 : (uint64_t)(a - OP_reg0);

			if (l->nops != 1)
				return unsupported(g, "registers within a "
						   "composite location (pieces)");
			if (!(r = reg(g, n)))
				return false;
			gline(g, "%s = %s;", push(g), r);
			continue;
		}
		if (a == OP_stack_value || a == OP_nop)
			continue;
		switch (a) {
		case OP_const1u: case OP_const2u: case OP_const4u:
		case OP_const8u: case OP_constu:
			gline(g, "%s = %lluUL;", push(g),
			      (unsigned long long)op->n1);
			continue;
		case OP_const1s: case OP_const2s: case OP_const4s:
		case OP_const8s: case OP_consts:
			gline(g, "%s = (unsigned long)(%lldL);", push(g),
			      (long long)op->n1);
			continue;
		case OP_addr:
			if (!l->reloc_sym)
				return unsupported(g, "global and static "
						   "variables without a symbol "
						   "to locate them by");
			gline(g, "%s = tpg_reloc_%d + (unsigned long)(%lldL);",
			      push(g), reloc_index(g->em, l->reloc_sym),
			      (long long)(op->n1 - l->reloc_link));
			continue;
		case OP_piece:
			return unsupported(g, "variables split into pieces "
					   "(DW_OP_piece)");
		default:
			break;
		}
		/* operators on the stack */
		{
			int need = a == OP_dup || a == OP_drop || a == OP_neg ||
				   a == OP_not || a == OP_plus_uconst ||
				   a == OP_deref || a == OP_deref_size ||
				   a == OP_pick ? 1 : 2;
			const char *x, *y;

			if (a != OP_and && a != OP_minus && a != OP_mul &&
			    a != OP_neg && a != OP_not && a != OP_or &&
			    a != OP_plus && a != OP_plus_uconst && a != OP_shl &&
			    a != OP_shr && a != OP_shra && a != OP_xor &&
			    a != OP_dup && a != OP_drop && a != OP_over &&
			    a != OP_swap && a != OP_deref &&
			    a != OP_deref_size) {
				char what[96];

				snprintf(what, sizeof(what), "DWARF location "
					 "operations like DW_OP 0x%02x", a);
				return unsupported(g, em_printf(g->em, "%s",
								what));
			}
			if (g->sp < need) {
				em_error(g->em, g->loc, "cannot translate "
					 "'%s': malformed DWARF location "
					 "expression", g->text);
				return false;
			}
			x = top(g, 0);
			y = g->sp >= 2 ? top(g, 1) : NULL;
			switch (a) {
			case OP_dup: gline(g, "%s = %s;", push(g), x); break;
			case OP_over: gline(g, "%s = %s;", push(g), y); break;
			case OP_drop: g->sp--; break;
			case OP_swap:
				gline(g, "__dwv = %s; %s = %s; %s = __dwv;", x,
				      x, y, y);
				break;
			case OP_neg: gline(g, "%s = -%s;", x, x); break;
			case OP_not: gline(g, "%s = ~%s;", x, x); break;
			case OP_plus_uconst:
				gline(g, "%s += %lluUL;", x,
				      (unsigned long long)op->n1);
				break;
			case OP_deref:
			case OP_deref_size: {
				unsigned n = a == OP_deref ? 8 : (unsigned)op->n1;

				if (n != 1 && n != 2 && n != 4 && n != 8)
					return unsupported(g, "DW_OP_deref_size "
							   "of odd sizes");
				gline(g, "if (unlikely(%s(&__dwv, %s, "
				      "%u))) {", g->load, x, n);
				gfault(g, x);
				gline(g, "%s = (unsigned long)__dwv;", x);
				break;
			}
			default: {
				const char *cop = a == OP_and ? "&" :
					a == OP_minus ? "-" : a == OP_mul ? "*" :
					a == OP_or ? "|" : a == OP_plus ? "+" :
					a == OP_shl ? "<<" : a == OP_shr ? ">>" :
					a == OP_xor ? "^" : NULL;

				if (cop)
					gline(g, "%s = %s %s %s;", y, y, cop, x);
				else	/* shra */
					gline(g, "%s = (unsigned long)((long)%s "
					      ">> %s);", y, y, x);
				g->sp--;
				break;
			}
			}
		}
	}
	if (g->sp < 1) {
		em_error(g->em, g->loc, "cannot translate '%s': empty DWARF "
			 "location expression", g->text);
		return false;
	}
	return true;
}

static const char *extend(struct dgen *g, unsigned size, bool sign,
			  const char *v)
{
	static const char *const st[] = { NULL, "s8", "s16", NULL, "s32",
		NULL, NULL, NULL, "s64" };
	static const char *const ut[] = { NULL, "u8", "u16", NULL, "u32",
		NULL, NULL, NULL, "u64" };

	if (size > 8 || !st[size]) {
		unsupported(g, em_printf(g->em, "values of %u bytes", size));
		return NULL;
	}
	return em_printf(g->em, "(s64)(%s)%s", sign ? st[size] : ut[size], v);
}

/* Before a DW_OP_addr location: its symbol was found when the session
 * started. At a return probe's entry, a fault at 0 instead. */
static bool gen_reloc_check(struct dgen *g, const struct dwarf_loc *l)
{
	const char *colon;
	const char *msg;

	if (!l->reloc_sym)
		return unsupported(g, "global and static variables without a "
				   "symbol to locate them by");
	colon = strchr(l->reloc_sym, ':');
	msg = colon ? em_printf(g->em, "global variable address unknown: "
				"module '%.*s' is not loaded",
				(int)(colon - l->reloc_sym), l->reloc_sym) :
		em_printf(g->em, "global variable address unknown: kernel "
			  "symbol '%s' not found", l->reloc_sym);
	gline(g, "if (unlikely(!tpg_reloc_%d)) {",
	      reloc_index(g->em, l->reloc_sym));
	if (g->b) {
		gline(g, "\ttp_error(c, \"%%s\", %s);",
		      c_string(g->em, msg, strlen(msg)));
		gline(g, "\tc->last_stmt = %s;", g->near);
		g->b->ind++;
		err_jump(g->b);
		g->b->ind--;
		gline(g, "}");
	} else {
		gfault(g, "0UL");
	}
	return true;
}

/* A composite location (DWARF_LOC_PIECES): the l->piece_size bytes at
 * byte l->piece_off of the variable into __dwv, each piece covering some
 * of them giving its part (little-endian): a register's or a value's
 * bytes shifted down to the offset within the piece, or memory at the
 * piece's address plus that offset through the fault-tolerant loads. */
static bool gen_pieces(struct dgen *g, const struct dwarf_loc *l)
{
	uint64_t lo = l->piece_off, hi = lo + l->piece_size, pos = 0;

	g->pieces = true;
	gline(g, "__dwv = 0;");
	for (int i = 0; i < l->npieces; pos += l->pieces[i++].size) {
		const struct dwarf_piece *p = &l->pieces[i];
		const struct dwarf_loc *pl = &p->loc;
		uint64_t from = lo > pos ? lo : pos;
		uint64_t to = hi < pos + p->size ? hi : pos + p->size;
		unsigned n, d, sh;
		const char *r;

		if (from >= to)
			continue;
		if (p->empty) {	/* pass 2 refuses these reads */
			em_error(g->em, g->loc, "cannot translate '%s': part "
				 "of it was optimized away", g->text);
			return false;
		}
		n = (unsigned)(to - from);
		d = (unsigned)(from - pos);
		sh = (unsigned)(from - lo) * 8;
		if (pl->reloc && !gen_reloc_check(g, pl))
			return false;
		g->sp = 0;
		if (pl->kind == DWARF_LOC_MEM) {
			if (pl->reloc && pl->simple) {
				gline(g, "__dwa = tpg_reloc_%d + (unsigned "
				      "long)(%lldL);",
				      reloc_index(g->em, pl->reloc_sym),
				      (long long)((uint64_t)pl->offset -
						  pl->reloc_link));
			} else if (pl->simple) {
				r = pl->reg < 0 ? "0UL" :
				    reg(g, (uint64_t)pl->reg);
				if (!r)
					return false;
				gline(g, "__dwa = %s + (%lldL);", r,
				      (long long)pl->offset);
			} else {
				if (!gen_ops(g, pl))
					return false;
				gline(g, "__dwa = %s;", top(g, 0));
			}
			if (d)
				gline(g, "__dwa += %uUL;", d);
			if (n == 1 || n == 2 || n == 4 || n == 8) {
				gline(g, "if (unlikely(%s(&__dwp, __dwa, "
				      "%u))) {", g->load, n);
				gfault(g, "__dwa");
				if (sh)
					gline(g, "__dwv |= __dwp << %u;", sh);
				else
					gline(g, "__dwv |= __dwp;");
				continue;
			}
			for (unsigned j = 0; j < n; j++) {
				gline(g, "if (unlikely(%s(&__dwp, __dwa "
				      "+ %uUL, 1))) {", g->load, j);
				gfault(g, em_printf(g->em, "__dwa + %uUL", j));
				gline(g, "__dwv |= __dwp << %u;", sh + 8 * j);
			}
			continue;
		}
		if (d + n > 8)
			return unsupported(g, "pieces of more than 8 bytes "
					   "held in registers or values");
		switch (pl->kind) {
		case DWARF_LOC_REG:
			if (!(r = reg(g, (uint64_t)pl->reg)))
				return false;
			gline(g, "__dwp = %s;", r);
			break;
		case DWARF_LOC_CONST:
			gline(g, "__dwp = (u64)(%lldLL);", (long long)pl->value);
			break;
		default:	/* VALUE */
			if (pl->simple) {
				r = pl->reg < 0 ? "0UL" :
				    reg(g, (uint64_t)pl->reg);
				if (!r)
					return false;
				gline(g, "__dwp = %s + (%lldL);", r,
				      (long long)pl->offset);
			} else {
				if (!gen_ops(g, pl))
					return false;
				gline(g, "__dwp = %s;", top(g, 0));
			}
			break;
		}
		if (n == 8)
			gline(g, "__dwv |= __dwp;");
		else if (d)
			gline(g, "__dwv |= ((__dwp >> %u) & 0x%llxULL) << %u;",
			      d * 8, (1ULL << (n * 8)) - 1, sh);
		else if (sh)
			gline(g, "__dwv |= (__dwp & 0x%llxULL) << %u;",
			      (1ULL << (n * 8)) - 1, sh);
		else
			gline(g, "__dwv |= __dwp & 0x%llxULL;",
			      (1ULL << (n * 8)) - 1);
	}
	return true;
}

/* The access a into dst (an s64 lvalue). castv: @cast's pointer value;
 * idx: the C values of the INDEX steps' expressions, in step order. */
static bool gen_access(struct dgen *g, const struct dwarf_access *a,
		       const char *dst, const char *castv, const char **idx,
		       const char *store)
{
	bool obj = false, ok = false;
	const char *v;
	char *saved = NULL, *text = NULL;
	size_t len = 0;
	FILE *so = NULL;
	int k = 0, errors = g->em->errors;

	/* the block's text is captured so that the stack's size is known
	 * when its declaration is written */
	if (g->b)
		capture_begin(g->b, &so, &text, &len);
	else {
		so = g->o;
		g->o = open_memstream(&text, &len);
	}
	g->sp = g->maxsp = 0;
	g->pieces = false;
	if (a->cast) {
		gline(g, "__dwa = (unsigned long)(%s);", castv);
		obj = true;
	} else {
		const struct dwarf_loc *l = &a->base;

		if (l->kind == DWARF_LOC_PIECES) {
			gen_pieces(g, l);
		} else if (l->reloc && !gen_reloc_check(g, l)) {
			/* reported */
		} else if (l->reloc && l->simple) {
			gline(g, "%s = tpg_reloc_%d + (unsigned long)(%lldL);",
			      l->kind == DWARF_LOC_MEM ? "__dwa" : "__dwv",
			      reloc_index(g->em, l->reloc_sym),
			      (long long)((uint64_t)l->offset - l->reloc_link));
		} else if (l->kind == DWARF_LOC_CONST)
			gline(g, "__dwv = (u64)(%lldLL);", (long long)l->value);
		else if (l->kind == DWARF_LOC_REG) {
			const char *r = reg(g, (uint64_t)l->reg);

			if (r)
				gline(g, "__dwv = %s;", r);
		} else if (l->simple) {
			const char *r = l->reg < 0 ? "0UL" :
					reg(g, (uint64_t)l->reg);

			if (r)
				gline(g, "%s = %s + (%lldL);",
				      l->kind == DWARF_LOC_MEM ? "__dwa" : "__dwv",
				      r, (long long)l->offset);
		} else if (gen_ops(g, l)) {
			gline(g, "%s = %s;", l->kind == DWARF_LOC_MEM ? "__dwa" :
			      "__dwv", top(g, 0));
		}
		obj = l->kind == DWARF_LOC_MEM;
	}
	if (g->em->errors != errors)
		goto out;
	for (int i = 0; i < a->nsteps; i++) {
		const struct dwarf_step *s = &a->steps[i];

		switch (s->kind) {
		case DWARF_STEP_DEREF:
			if (!obj) {
				gline(g, "__dwa = (unsigned long)__dwv;");
				obj = true;
				break;
			}
			gline(g, "if (unlikely(%s(&__dwv, __dwa, 8))) {", g->load);
			gfault(g, "__dwa");
			gline(g, "__dwa = (unsigned long)__dwv;");
			break;
		case DWARF_STEP_OFFSET:
		case DWARF_STEP_INDEX:
			if (!obj) {
				unsupported(g, "members of values held in "
					    "registers");
				goto out;
			}
			if (s->kind == DWARF_STEP_OFFSET)
				gline(g, "__dwa += (unsigned long)(%lldL);",
				      (long long)s->offset);
			else
				gline(g, "__dwa += (unsigned long)(%s) * %lluUL;",
				      idx[k++], (unsigned long long)s->stride);
			break;
		}
	}
	if (store) {
		/* -g: the low 'size' bytes into memory or the saved register */
		if (a->result != DWARF_RES_INT || a->size < 1 || a->size > 8 ||
		    (a->size & (a->size - 1))) {
			unsupported(g, "writes of anything but integers of 1, "
				    "2, 4 or 8 bytes");
			goto out;
		}
		if (obj && g->b->probe->process) {
			unsupported(g, "writes to user-space memory");
			goto out;
		}
		if (obj) {
			gline(g, "if (unlikely(tp_dw_store(__dwa, (u64)(%s), "
			      "%u))) {", store, a->size);
			gline(g, "	tp_error(c, \"write fault [man error::fault] "
			      "at 0x%%lx\", (unsigned long)__dwa);");
			gline(g, "	c->last_stmt = %s;", g->near);
			g->b->ind++;
			err_jump(g->b);
			g->b->ind--;
			gline(g, "}");
		} else if (a->base.kind == DWARF_LOC_REG && !a->nsteps &&
			   !a->cast) {
			const char *r = reg(g, (uint64_t)a->base.reg);
			unsigned long long mask = a->size == 8 ? ~0ULL :
				(1ULL << (a->size * 8)) - 1;

			if (!r)
				goto out;
			gline(g, "%s = (%s & ~0x%llxUL) | ((unsigned long)(%s) & "
			      "0x%llxUL);", r, r, mask, store, mask);
		} else {
			unsupported(g, "writes to computed values");
			goto out;
		}
		ok = true;
		goto out;
	}
	switch (a->result) {
	case DWARF_RES_ADDRESS:
		if (!obj) {
			unsupported(g, "addresses of values held in registers");
			goto out;
		}
		gline(g, "%s = (s64)__dwa;", dst);
		break;
	case DWARF_RES_INT:
	case DWARF_RES_BITFIELD:
		if (a->size < 1 || a->size > 8 || (a->size & (a->size - 1))) {
			unsupported(g, em_printf(g->em, "values of %u bytes",
						 a->size));
			goto out;
		}
		if (obj) {
			gline(g, "if (unlikely(%s(&__dwv, __dwa, %u))) {", g->load,
			      a->size);
			gfault(g, "__dwa");
		}
		if (a->result == DWARF_RES_INT) {
			if (!(v = extend(g, a->size, a->is_signed, "__dwv")))
				goto out;
			gline(g, "%s = %s;", dst, v);
		} else {
			unsigned hi = a->bit_offset + a->bit_size;

			if (!a->bit_size || hi > 64) {
				unsupported(g, "bitfields outside 64 bits");
				goto out;
			}
			gline(g, "%s = (s64)((%s)(__dwv << %u) >> %u);", dst,
			      a->is_signed ? "s64" : "u64", 64 - hi,
			      64 - a->bit_size);
		}
		break;
	}
	ok = true;
out:
	if (g->b) {
		saved = capture_end(g->b, so, &text, &len);
		out(g->b, "{");
		g->b->ind++;
		out(g->b, "unsigned long __dwa = 0;");
		out(g->b, "u64 __dwv = 0;");
		if (g->pieces)
			out(g->b, "u64 __dwp;");
		if (g->maxsp)
			out(g->b, "unsigned long __dws[%d];", g->maxsp);
		out(g->b, "(void)__dwa;");
		out(g->b, "(void)__dwv;");
		g->b->ind--;
		out_captured(g->b, saved);
		out(g->b, "}");
		free(saved);
	} else {
		fclose(g->o);
		g->o = so;
		fprintf(g->o, "\t{\n\t\tunsigned long __dwa = 0;\n"
			"\t\tu64 __dwv = 0;\n");
		if (g->pieces)
			fprintf(g->o, "\t\tu64 __dwp;\n");
		if (g->maxsp)
			fprintf(g->o, "\t\tunsigned long __dws[%d];\n", g->maxsp);
		fprintf(g->o, "\n\t\t(void)__dwa;\n\t\t(void)__dwv;\n%s\t}\n",
			text ? text : "");
		free(text);
	}
	return ok;
}

/* ---- hooks called by the rest of pass 3 ---- */

static const char *access_near(struct em *em, const struct expr *x)
{
	const char *n;

	switch (x->kind) {
	case E_CAST:
		n = near_text(em, "operator", "@cast", &x->loc);
		break;
	case E_ATVAR:
		n = near_text(em, "operator", "@var", &x->loc);
		break;
	default:
		n = near_text(em, "identifier",
			      em_printf(em, "$%s", x->str ? x->str : ""),
			      &x->loc);
		break;
	}
	return c_string(em, n, strlen(n));
}

static struct val target(struct body *b, struct expr *x, const char *store);

/* E_TARGET, E_CTXVAR, E_CAST, E_ATVAR, E_AUTOCAST: a read. */
struct val emit_dwarf_target(struct body *b, struct expr *x)
{
	return target(b, x, NULL);
}

/* $target = value (-g; pass 2 allowed it). */
struct val emit_dwarf_assign(struct body *b, struct expr *x)
{
	struct val v;

	if (x->op != OP_ASSIGN) {
		em_error(b->em, &x->loc, "cannot translate this write to '%s': "
			 "only '=' to a target variable is supported yet",
			 x->a->ref ? ((const struct dwarf_access *)
				      x->a->ref)->text : "$?");
		return mkval("0", TYPE_LONG, true);
	}
	v = materialize(b, emit_expr(b, x->b));
	target(b, x->a, v.c);
	return v;
}

static struct val target(struct body *b, struct expr *x, const char *store)
{
	struct em *em = b->em;
	const struct dwarf_access *a = x->ref;
	struct dgen g;
	const char *dst, *castv = NULL;
	const char **idx = NULL;
	int nidx = 0;

	if (!a) {
		em_error(em, &x->loc, "this target variable cannot be "
			 "translated: pass 2 did not resolve it");
		return mkval("0", TYPE_LONG, true);
	}
	if (x->type == TYPE_STRING) {
		em_error(em, &x->loc, "cannot translate '%s': target values "
			 "as strings are not supported yet", a->text);
		return mkval("\"\"", TYPE_STRING, true);
	}
	/* @cast and @var need no probe point: a function's, a begin
	 * probe's are read like any other */
	if (!b->probe && !a->cast && x->kind != E_ATVAR) {
		em_error(em, &x->loc, "cannot translate '%s': target variables "
			 "outside a probe's body are not supported", a->text);
		return mkval("0", TYPE_LONG, true);
	}
	dw_switch(em);
	dw_needed = true;
	memset(&g, 0, sizeof(g));
	g.em = em;
	g.b = b;
	/* a function's @cast reads kernel memory; a process probe's reads
	 * user memory, a tracepoint's arguments are its handler's
	 * (emit-trace.c) */
	g.load = b->probe && b->probe->process ? "tp_dw_uload" : "tp_dw_load";
	g.regs = b->probe && b->probe->tracepoint ?
		 "((struct pt_regs *)c->data)" : "c->regs";
	g.near = access_near(em, x);
	g.loc = &x->loc;
	g.text = a->text;
	dst = tmp_new(b, TMP_LONG);

	if (a->at_entry && !store) {
		struct dwprobe *d = dwprobe_of(b, true);
		int k = d->nslots++;
		const char *slot;

		if (a->cast) {
			em_error(em, &x->loc, "cannot translate '%s': @cast "
				 "read at function entry is not supported yet",
				 a->text);
			return mkval("0", TYPE_LONG, true);
		}
		d->slots = xrealloc(d->slots, (size_t)d->nslots *
				    sizeof(*d->slots));
		d->slot_x = xrealloc(d->slot_x, (size_t)d->nslots *
				     sizeof(*d->slot_x));
		d->slots[k] = a;
		d->slot_x[k] = x;
		slot = em_printf(em, "((struct tp_dw_slot *)c->data)[%d]", k);
		out(b, "if (unlikely(%s.bad)) {", slot);
		out(b, "\ttp_error(c, \"read fault [man error::fault] at "
		    "0x%%lx\", %s.fault);", slot);
		out(b, "\tc->last_stmt = %s;", g.near);
		b->ind++;
		err_jump(b);
		b->ind--;
		out(b, "}");
		out(b, "%s = %s.v;", dst, slot);
		return mkval(dst, TYPE_LONG, true);
	}
	if (a->cast) {
		struct val cv = emit_expr(b, (struct expr *)a->cast);

		castv = cv.c;
	}
	for (int i = 0; i < a->nsteps; i++)
		if (a->steps[i].kind == DWARF_STEP_INDEX)
			nidx++;
	if (nidx) {
		int k = 0;

		idx = xcalloc((size_t)nidx, sizeof(*idx));
		for (int i = 0; i < a->nsteps; i++)
			if (a->steps[i].kind == DWARF_STEP_INDEX)
				idx[k++] = materialize(b, emit_expr(b,
						a->steps[i].index)).c;
	}
	gen_access(&g, a, dst, castv, idx, store);
	free(idx);
	return mkval(dst, TYPE_LONG, true);
}

/* @entry(expr) in a return probe: pass 2 marked the targets inside as
 * read at entry; the rest is computed at return. */
struct val emit_dwarf_entry(struct body *b, struct expr *x)
{
	if (!b->probe || !b->probe->dwarf || !x->args || x->args->next ||
	    !entry_expr_pure(x->args)) {
		em_error(b->em, &x->loc, "'@entry' of anything but target "
			 "variables, literals and operators on them is not "
			 "supported yet");
		return mkval("0", TYPE_LONG, true);
	}
	return emit_expr(b, x->args);
}

/* Before the functions: runtime/dwarf.h when a function (or any body)
 * reads target memory (@cast, @var outside a DWARF probe). */
void emit_dwarf_include(struct em *em, FILE *o)
{
	dw_switch(em);
	if (dw_needed && !dw_included) {
		fputs("#include \"runtime/dwarf.h\"\n\n", o);
		dw_included = true;
	}
}

/* Before a probe's handler: runtime/dwarf.h, and the kretprobe's entry
 * handler of a .return probe that reads values at entry. */
void emit_dwarf_probe_code(struct em *em, struct body *b, const char *handler,
			   FILE *o)
{
	struct dwprobe *d;

	if (!b || !b->probe || !b->probe->dwarf)
		return;
	d = dwprobe_of(b, false);
	if (b->probe->process && d && d->nslots) {
		em_error(em, &d->slot_x[0]->loc, "cannot translate '%s': "
			 "values read at the entry of a process(...) return "
			 "probe (parameters, @entry) are not supported yet",
			 d->slots[0]->text);
		return;
	}
	if (!dw_included) {
		fputs("#include \"runtime/dwarf.h\"\n\n", o);
		dw_included = true;
	}
	if (!d || !d->nslots)
		return;
	fprintf(o, "/* %s: the values read at the function's entry */\n"
		"static int %s_dwentry(struct kcore_probe *kp, struct pt_regs "
		"*regs, void *data)\n{\n\tstruct tp_dw_slot *s = data;\n\n"
		"\t(void)kp;\n", b->probe->name, handler);
	for (int k = 0; k < d->nslots; k++) {
		struct dgen g;
		const struct dwarf_access *a = d->slots[k];
		const char **idx = NULL;
		int nidx = 0;

		memset(&g, 0, sizeof(g));
		g.em = em;
		g.load = "tp_dw_load";
		g.o = o;
		g.slot = k;
		g.regs = "regs";
		g.loc = &d->slot_x[k]->loc;
		g.text = a->text;
		for (int i = 0; i < a->nsteps; i++)
			if (a->steps[i].kind == DWARF_STEP_INDEX)
				nidx++;
		idx = xcalloc((size_t)nidx + 1, sizeof(*idx));
		nidx = 0;
		for (int i = 0; i < a->nsteps; i++) {
			const struct expr *ix = a->steps[i].index;

			if (a->steps[i].kind != DWARF_STEP_INDEX)
				continue;
			if (ix->kind != E_NUM) {
				em_error(em, g.loc, "cannot translate '%s': an "
					 "index computed by the script, read "
					 "at function entry, is not supported "
					 "yet", a->text);
				free(idx);
				goto next;
			}
			idx[nidx++] = em_printf(em, "%lldL", (long long)ix->num);
		}
		fprintf(o, "\ts[%d].bad = false;\n", k);
		gen_access(&g, a, em_printf(em, "s[%d].v", k), NULL, idx, NULL);
		free(idx);
		if (g.label_used)
			fprintf(o, "slot_%d_done:;\n", k);
next:		;
	}
	fputs("\treturn 0;\n}\n\n", o);
}

/* In the probe's struct tp_probe: where it goes, and its entry handler
 * and data. */
void emit_dwarf_probe_fields(struct em *em, struct body *b,
			     const struct dprobe *p, const char *handler,
			     FILE *o)
{
	const struct dwarf_site *site = p->dwarf;
	struct dwprobe *d;

	if (!site || p->process)
		return;
	/* stap places a kernel's DWARF probes by address, and its
	 * registration warnings say which */
	if (!p->module && !site->btf)
		fputs("\t\t.warn_address = true,\n", o);
	if (!p->symbol) {
		unsigned long long offset = site->symbol_offset;

		emit_kprobe_fields(em, p, site->symbol, &offset, o);
	}
	d = b ? dwprobe_of(b, false) : NULL;
	if (d && d->nslots)
		fprintf(o, "\t\t.kret_entry = %s_dwentry,\n"
			"\t\t.data_size = %d * sizeof(struct tp_dw_slot),\n",
			handler, d->nslots);
}

/* Before the probes: the variables the symbols' addresses go into, and
 * the table the runtime fills in when the session starts. */
void emit_dwarf_relocs(struct em *em, FILE *o)
{
	if (relocs.em != em || !relocs.n)
		return;
	/* the reads' helpers, for probes without DWARF (begin) too */
	dw_switch(em);
	if (!dw_included) {
		fputs("#include \"runtime/dwarf.h\"\n\n", o);
		dw_included = true;
	}
	fputs("/* ---- where global variables are: run-time addresses of "
	      "symbols, looked\n * up when the session starts (0: not "
	      "there) ---- */\n\n", o);
	for (int i = 0; i < relocs.n; i++)
		fprintf(o, "static unsigned long tpg_reloc_%d;\n", i);
	fputs("\nstatic const struct tp_reloc tpg_relocs[] = {\n", o);
	for (int i = 0; i < relocs.n; i++)
		fprintf(o, "\t{ %s, &tpg_reloc_%d },\n",
			c_string(em, relocs.names[i], strlen(relocs.names[i])),
			i);
	fputs("};\n\n", o);
}

/* In struct tp_module: the table above. */
void emit_dwarf_module_fields(struct em *em, FILE *o)
{
	if (relocs.em == em && relocs.n)
		fputs("\t.relocs = tpg_relocs,\n"
		      "\t.nrelocs = ARRAY_SIZE(tpg_relocs),\n", o);
	free(relocs.names);
	relocs.names = NULL;
	relocs.n = 0;
	relocs.em = NULL;
}
