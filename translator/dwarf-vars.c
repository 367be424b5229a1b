/* dwarf-vars.c - target variables of the DWARF probes.
 *
 * For each kernel.function/module().function/kernel.statement probe, the
 * body is walked twice before pass 2 resolves it: first @defined() is
 * decided (does its operand resolve here?) and folded to 0 or 1, with the
 * ?:, if, !, && and || it decides folded too, so that the branch not
 * taken may name variables this probe point lacks (as in SystemTap);
 * then every remaining $var, $var->chain, $$vars, @cast and @var is
 * resolved against the DWARF at the probe's address into a struct
 * dwarf_access (dwarf-api.h) on the node, with SystemTap's diagnostics.
 *
 * The variables of a site are those of the scopes holding its DIE (the
 * function, or the inline instance and the blocks and functions around
 * it), innermost first, in DIE order; -L lists those that have a
 * location at the probe address and a type with a name.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <dwarf.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf-internal.h"
#include "elab-internal.h"
#include "kconfig.h"
#include "print.h"
#include "provider.h"
#include "xalloc.h"

#define MAX_STEPS 64

struct vctx {
	struct elab *e;
	struct session *s;
	struct dprobe *p;
	const struct dwarf_site *site;	/* NULL: no debuginfo here */
	struct dwarf_unit *u;
	Dwarf_Die *scopes;		/* innermost first, the CU last */
	int nscopes;
	Dwarf_Die func;			/* the function holding pc */
	bool have_func;
	bool in_entry;			/* inside @entry() */
	bool trial;			/* @defined: say nothing */
	bool failed;			/* the trial failed */
};

/* ---- diagnostics ---- */

static void verr(struct vctx *v, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void verr(struct vctx *v, const struct loc *l, const char *fmt, ...)
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
	elab_error(v->e, l, "%s", msg);
	free(msg);
}

/* "vfs_read at fs/read_write.c:450 (kernel.function(...))" */
static const char *where(struct vctx *v)
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
	if (site->line)
		return block_scopes(&cu, &top, site->die, site->pc, out);
	return scopes_to(&cu, &top, site->die, out);
}

/* The scopes are found on first need: many probes use no variable. */
static void ensure_scopes(struct vctx *v)
{
	if (v->scopes || !v->site)
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

static void ctx_init(struct vctx *v, struct elab *e, struct dprobe *p)
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

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

static bool die_type(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, t) != NULL;
}

/* Calls fn for each variable of the scopes (not the CU's), innermost
 * first; stops when fn returns true. */
static bool each_var(Dwarf_Die *scopes, int n,
		     bool (*fn)(Dwarf_Die *var, void *arg), void *arg)
{
	for (int i = 0; i < n; i++) {
		Dwarf_Die c;

		if (dwarf_tag(&scopes[i]) == DW_TAG_compile_unit)
			break;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			if (is_var(&c) && fn(&c, arg))
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
static bool find_var(struct vctx *v, const char *name, Dwarf_Die *out)
{
	struct find_arg f = { .name = name };
	Dwarf_Die cu, c;

	ensure_scopes(v);
	if (each_var(v->scopes, v->nscopes, find_cb, &f)) {
		*out = f.found;
		return true;
	}
	if (!cu_die(v->u, v->site, &cu) || dwarf_child(&cu, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) == DW_TAG_variable && find_cb(&c, &f)) {
			*out = f.found;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
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
static const char *alternatives(struct vctx *v)
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
static int var_ops(Dwarf_Die *var, Dwarf_Addr pc, Dwarf_Attribute *attr,
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

/* The base location of var (attr/ops at pc) into out; NULL or why not. */
static const char *translate(struct vctx *v, Dwarf_Attribute *attr,
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
		case DW_OP_piece:
		case DW_OP_bit_piece:
			free(b.v);
			return "it is split in pieces";
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

/* The function entry's lookup address (past __fentry__). */
static Dwarf_Addr entry_var_pc(const struct dwarf_site *s)
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

static bool is_aggregate(int tag)
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

	if (!dwt_peel(&b->type, &t))
		goto invalid;
	if (dwarf_tag(&t) == DW_TAG_pointer_type) {
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

static bool signed_type(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	Dwarf_Die p = *t, u;

	if (dwarf_tag(&p) == DW_TAG_enumeration_type) {
		/* the enum's underlying type, when recorded */
		if (!die_type(&p, &u) || !dwt_peel(&u, &p))
			return false;
	}
	if (dwarf_tag(&p) != DW_TAG_base_type ||
	    !dwarf_attr(&p, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* The result of the access: a value loaded, a bitfield, or an address. */
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

static char *chain_text(const char *head, const struct chain *c)
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

/* Walk chain c from a value of type 'type' (an OBJECT if object). */
static struct dwarf_access *build(struct vctx *v, struct dwarf_access *a,
				  Dwarf_Die *type, bool object,
				  const struct chain *c, bool addr,
				  const struct loc *l)
{
	struct builder *b = xcalloc(1, sizeof(*b));
	bool ok = true;

	b->type = *type;
	b->object = object;
	for (; ok && c; c = c->next)
		ok = c->field ? step_field(v, b, c) : step_index(v, b, c);
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

/* Where locations are read: the probe's, or the function entry's for
 * @entry and return probes' parameters. */
static Dwarf_Addr read_pc(struct vctx *v)
{
	return v->in_entry ? entry_var_pc(v->site) : v->site->var_pc;
}

/* $name (with its chain) at the site. */
static struct dwarf_access *target(struct vctx *v, const char *name,
				   const struct chain *chain, bool addr,
				   const struct loc *l)
{
	struct dwarf_access *a = ANEW(&v->s->arena, struct dwarf_access);
	Dwarf_Die var, type;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	const char *why;
	char *text = chain_text(arena_printf(&v->s->arena, "%s$%s",
					     addr ? "&" : "", name), chain);
	int r;

	a->text = arena_strdup(&v->s->arena, text);
	free(text);
	a->site = v->site;
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
		verr(v, l, "unable to find local '%s', %s (alternatives: %s)",
		     name, where(v), alternatives(v));
		return NULL;
	}
	if (!die_type(&var, &type)) {
		verr(v, l, "'$%s' has no type %s", name, where(v));
		return NULL;
	}
	/* a parameter in a return probe is its value at entry */
	if (v->site->is_return && !v->in_entry) {
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
	if (why) {
		if (v->s->skip_badvars)
			goto skip;
		verr(v, l, "cannot read '$%s': %s, %s", name, why, where(v));
		return NULL;
	}
	return build(v, a, &type, a->base.kind == DWARF_LOC_MEM, chain, addr,
		     l);
skip:
	/* --skip-badvars: the value is 0 */
	memset(&a->base, 0, sizeof(a->base));
	a->base.kind = DWARF_LOC_CONST;
	a->result = DWARF_RES_INT;
	a->size = 8;
	a->type = dwt_name(v->s, &type);
	return a;
}

/* @cast(ptr, "type"[, "module"]) with its chain: the base is the OBJECT
 * at ptr's value. */
static struct dwarf_access *cast(struct vctx *v, struct expr *x)
{
	struct dwarf_access *a = ANEW(&v->s->arena, struct dwarf_access);
	const char *mod = x->str2;
	struct dwarf_unit *u;
	Dwarf_Die type;
	char *text;

	if (mod && (strncmp(mod, "kernel", 6) == 0 && (!mod[6] || mod[6] == '<')))
		mod = NULL;
	u = dwarf_unit_for(v->s, mod);
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
	text = chain_text(arena_printf(&v->s->arena, "@cast(..., \"%s\")",
				       x->str), x->chain);
	a->text = arena_strdup(&v->s->arena, text);
	free(text);
	a->site = v->site;
	a->cast = x->a;
	return build(v, a, &type, true, x->chain, x->addr, &x->loc);
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

/* @var("name[@file]"[, "module"]): in a DWARF probe without @file, the
 * variable the probe's scopes see; else a global of the kernel (or the
 * module) with a static address, from the first CU that defines one. */
static struct dwarf_access *atvar(struct vctx *v, struct expr *x)
{
	const char *name = x->str, *at = strchr(name, '@');
	const char *file = at ? at + 1 : NULL;
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
	if (!file && v->site && !x->str2 && find_var(v, name, &var))
		return target(v, name, x->chain, x->addr, &x->loc);
	u = dwarf_unit_for(v->s, x->str2);
	if (!u) {
		verr(v, &x->loc, "@var(\"%s\") needs debuginfo for '%s': "
		     "install the %s package", x->str,
		     x->str2 ? x->str2 : "kernel", dwarf_package(v->s));
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
		     x->str2 ? x->str2 : "kernel", file ? ", file " : "",
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
		struct dwarf_op *op = arena_alloc(&v->s->arena, sizeof(*op));

		op->atom = DW_OP_addr;
		op->n1 = addr;
		a->base.kind = DWARF_LOC_MEM;
		a->base.simple = a->base.reloc = true;
		a->base.reg = -1;
		a->base.offset = (int64_t)addr;
		a->base.ops = op;
		a->base.nops = 1;
	} else if (var_ops(&var, 0, &attr, &ops, &nops) <= 0 ||
		   (why = translate(v, &attr, ops, nops, 0, &a->base))) {
		verr(v, &x->loc, "cannot read global '%s': %s", name,
		     why ? why : "it has no usable location");
		return NULL;
	}
	return build(v, a, &type, a->base.kind == DWARF_LOC_MEM, x->chain,
		     x->addr, &x->loc);
}

/* ---- pretty printing and $$vars ---- */

static struct expr *new_expr(struct vctx *v, enum expr_kind k,
			     const struct loc *l)
{
	return ast_expr(v->s, k, l);
}

static struct expr *str_expr(struct vctx *v, const char *s,
			     const struct loc *l)
{
	struct expr *x = new_expr(v, E_STR, l);

	x->str = s;
	x->len = (unsigned)strlen(s);
	return x;
}

/* A resolved target node for the access a. */
static struct expr *access_expr(struct vctx *v, struct dwarf_access *a,
				const struct loc *l)
{
	struct expr *x = new_expr(v, E_TARGET, l);

	x->str = a->text[0] == '$' ? a->text + 1 : a->text;
	x->ref = a;
	x->type = TYPE_LONG;
	return x;
}

struct fmt {
	char *buf;
	size_t len;
	FILE *f;
	struct expr *args, **tail;
};

static void fmt_open(struct fmt *m)
{
	memset(m, 0, sizeof(*m));
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f)
		out_of_memory();
	m->tail = &m->args;
}

static void fmt_arg(struct fmt *m, struct expr *x)
{
	*m->tail = x;
	m->tail = &x->next;
}

/* sprintf(format, args...) */
static struct expr *fmt_close(struct vctx *v, struct fmt *m,
			      const struct loc *l)
{
	struct expr *call = new_expr(v, E_CALL, l), *f;

	fclose(m->f);
	f = str_expr(v, arena_strdup(&v->s->arena, m->buf), l);
	free(m->buf);
	f->next = m->args;
	call->str = "sprintf";
	call->args = f;
	return call;
}

/* %u only for unsigned integers: bool, enums and signed ones are %i,
 * as stap's pretty printer has them. */
static bool unsigned_type(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	return dwarf_tag(t) == DW_TAG_base_type &&
	       dwarf_attr(t, DW_AT_encoding, &a) &&
	       dwarf_formudata(&a, &enc) == 0 &&
	       (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char);
}

static bool char_type(Dwarf_Die *t)
{
	Dwarf_Die p;
	Dwarf_Attribute a;
	Dwarf_Word enc;

	return dwt_peel(t, &p) && dwarf_tag(&p) == DW_TAG_base_type &&
	       dwarf_attr(&p, DW_AT_encoding, &a) &&
	       dwarf_formudata(&a, &enc) == 0 && dwt_size(&p) == 1 &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

static void pretty_value(struct vctx *v, struct fmt *m, const char *name,
			 const struct chain *ch, Dwarf_Die *type, int depth,
			 const struct loc *l);

static struct chain *chain_add(struct vctx *v, const struct chain *c,
			       const char *field)
{
	struct chain *head = NULL, **tail = &head;

	for (; c; c = c->next) {
		struct chain *n = ANEW(&v->s->arena, struct chain);

		*n = *c;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	*tail = ANEW(&v->s->arena, struct chain);
	(*tail)->field = field;
	return head;
}

/* "{.a=%d, .b={...}}" for the aggregate at name->chain (a pointer to it
 * or the aggregate itself); depth: levels still to expand. */
static void pretty_members(struct vctx *v, struct fmt *m, const char *name,
			   const struct chain *ch, Dwarf_Die *agg, int depth,
			   const struct loc *l)
{
	Dwarf_Die mem;
	bool first = true;

	fputc('{', m->f);
	if (dwarf_child(agg, &mem) == 0) {
		do {
			const char *mn;
			Dwarf_Die mt, pt;

			if (dwarf_tag(&mem) != DW_TAG_member ||
			    !die_type(&mem, &mt))
				continue;
			mn = dwarf_diename(&mem);
			fputs(first ? "" : ", ", m->f);
			first = false;
			if (!mn) {
				/* anonymous: members read through the parent */
				bool is_union = dwt_peel(&mt, &pt) &&
						dwarf_tag(&pt) == DW_TAG_union_type;

				fprintf(m->f, "%s=", is_union ? "<union>" :
					"<class>");
				if (depth > 1 && dwt_peel(&mt, &pt))
					pretty_members(v, m, name, ch, &pt,
						       depth - 1, l);
				else
					fputs("{...}", m->f);
				continue;
			}
			fprintf(m->f, ".%s=", mn);
			pretty_value(v, m, name, chain_add(v, ch, mn), &mt,
				     depth - 1, l);
		} while (dwarf_siblingof(&mem, &mem) == 0);
	}
	fputc('}', m->f);
}

/* One value, as stap's pretty printer writes it. */
static void pretty_value(struct vctx *v, struct fmt *m, const char *name,
			 const struct chain *ch, Dwarf_Die *type, int depth,
			 const struct loc *l)
{
	Dwarf_Die t, pt;
	struct dwarf_access *a;
	bool saved = v->trial, failed = v->failed;
	int tag;

	if (!dwt_peel(type, &t)) {
		fputs("?", m->f);
		return;
	}
	tag = dwarf_tag(&t);
	if (is_aggregate(tag)) {
		if (depth <= 0)
			fputs("{...}", m->f);
		else
			pretty_members(v, m, name, ch, &t, depth, l);
		return;
	}
	if (tag == DW_TAG_array_type) {
		fputs("[...]", m->f);
		return;
	}
	/* a failure of one member prints '?', as stap's does */
	v->trial = true;
	v->failed = false;
	a = target(v, name, ch, false, l);
	v->trial = saved;
	if (!a || v->failed) {
		v->failed = failed;
		fputs("?", m->f);
		return;
	}
	v->failed = failed;
	if (tag == DW_TAG_pointer_type) {
		Dwarf_Die pp;

		if (die_type(&t, &pt) && char_type(&pt)) {
			struct expr *call = new_expr(v, E_CALL, l);

			call->str = "kernel_string_quoted";
			call->args = access_expr(v, a, l);
			fputs("%s", m->f);
			fmt_arg(m, call);
			return;
		}
		/* a pointer to a number prints (its own value) in the
		 * number's format, as stap's pretty printer does */
		if (die_type(&t, &pt) && dwt_peel(&pt, &pp) &&
		    (dwarf_tag(&pp) == DW_TAG_base_type ||
		     dwarf_tag(&pp) == DW_TAG_enumeration_type))
			fputs(unsigned_type(&pp) ? "%u" : "%i", m->f);
		else
			fputs("%p", m->f);
	} else if (char_type(&t)) {
		fputs("'%#c'", m->f);
	} else {
		fputs(unsigned_type(&t) ? "%u" : "%i", m->f);
	}
	fmt_arg(m, access_expr(v, a, l));
}

/* $var$ / $var$$ (pretty 1 or 2) of a target with its chain. */
static struct expr *pretty_target(struct vctx *v, struct expr *x)
{
	Dwarf_Die var, type, t, pt;
	struct fmt m;
	const struct chain *ch = x->chain;
	struct dwarf_access *probe;

	/* resolve the chain itself first: its errors are the user's */
	if (strcmp(x->str, "return") == 0 && v->site->is_return) {
		Dwarf_Die fn;

		if (!dwarf_offdie(v->u->dw, v->site->die, &fn) ||
		    !die_type(&fn, &type)) {
			verr(v, &x->loc, "'$return' is not available: %s "
			     "returns void", v->site->function);
			return NULL;
		}
	} else if (!find_var(v, x->str, &var) || !die_type(&var, &type)) {
		verr(v, &x->loc, "unable to find local '%s', %s (alternatives: "
		     "%s)", x->str, where(v), alternatives(v));
		return NULL;
	}
	for (const struct chain *c = ch; c; c = c->next) {
		if (!dwt_peel(&type, &t))
			break;
		if (c->field) {
			Dwarf_Die mem;
			int64_t off = 0;

			if (dwarf_tag(&t) == DW_TAG_pointer_type &&
			    die_type(&t, &pt))
				dwt_peel(&pt, &t);
			if (!dwt_member(&t, c->field, &mem, &off) ||
			    !die_type(&mem, &type))
				break;
		} else if (!die_type(&t, &type)) {
			break;
		}
	}
	fmt_open(&m);
	if (dwt_peel(&type, &t) && dwarf_tag(&t) == DW_TAG_pointer_type &&
	    die_type(&t, &pt) && dwt_peel(&pt, &pt) &&
	    is_aggregate(dwarf_tag(&pt))) {
		/* a pointer to a structure prints the structure */
		probe = target(v, x->str, ch, false, &x->loc);
		if (!probe) {
			fclose(m.f);
			free(m.buf);
			return NULL;
		}
		pretty_members(v, &m, x->str, ch, &pt, x->pretty, &x->loc);
	} else if (dwt_peel(&type, &t) && is_aggregate(dwarf_tag(&t))) {
		pretty_members(v, &m, x->str, ch, &t, x->pretty, &x->loc);
	} else {
		probe = target(v, x->str, ch, false, &x->loc);
		if (!probe) {
			fclose(m.f);
			free(m.buf);
			return NULL;
		}
		pretty_value(v, &m, x->str, ch, &type, x->pretty, &x->loc);
	}
	return fmt_close(v, &m, &x->loc);
}

struct list_arg {
	struct vctx *v;
	bool parms, locals;
	Dwarf_Die *vars;
	int n, cap;
};

static bool collect_cb(Dwarf_Die *var, void *arg)
{
	struct list_arg *a = arg;
	bool parm = dwarf_tag(var) == DW_TAG_formal_parameter;

	if (!die_name(var) || (parm ? !a->parms : !a->locals))
		return false;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 16;
		a->vars = xrealloc(a->vars, (size_t)a->cap * sizeof(*a->vars));
	}
	a->vars[a->n++] = *var;
	return false;
}

/* $$vars, $$parms, $$locals, $$return (pretty: $$vars$ ...). */
static struct expr *ctxvar(struct vctx *v, struct expr *x)
{
	struct list_arg la = { .v = v };
	struct fmt m;
	bool first = true;
	Dwarf_Die own;

	if (strcmp(x->str, "return") == 0) {
		Dwarf_Die fn, type;

		fmt_open(&m);
		if (dwarf_offdie(v->u->dw, v->site->die, &fn) &&
		    die_type(&fn, &type)) {
			struct expr t = *x;

			t.kind = E_TARGET;
			t.chain = NULL;
			fputs("return=", m.f);
			if (x->pretty) {
				struct expr *p = pretty_target(v, &t);

				if (p) {
					fputs("%s", m.f);
					fmt_arg(&m, p);
				}
			} else {
				struct dwarf_access *a = target(v, "return",
								NULL, false,
								&x->loc);

				if (!a)
					fputs("?", m.f);
				else {
					fputs("%#x", m.f);
					fmt_arg(&m, access_expr(v, a, &x->loc));
				}
			}
		}
		return fmt_close(v, &m, &x->loc);
	}
	la.parms = strcmp(x->str, "vars") == 0 || strcmp(x->str, "parms") == 0;
	la.locals = strcmp(x->str, "vars") == 0 || strcmp(x->str, "locals") == 0;
	if (!la.parms && !la.locals) {
		verr(v, &x->loc, "unknown context variable '$$%s' (expected "
		     "$$vars, $$parms, $$locals or $$return)", x->str);
		return NULL;
	}
	ensure_scopes(v);
	/* the function's (or the inline instance's) own variables, in
	 * DIE order, each read where the probe is */
	if (!v->site->line && dwarf_offdie(v->u->dw, v->site->die, &own))
		each_var(&own, 1, collect_cb, &la);
	else
		each_var(v->scopes, v->nscopes, collect_cb, &la);
	fmt_open(&m);
	for (int i = 0; i < la.n; i++) {
		const char *n = die_name(&la.vars[i]);
		Dwarf_Die type, t;
		struct dwarf_access *a;
		bool saved = v->trial, failed = v->failed;

		fprintf(m.f, "%s%s=", first ? "" : " ", n);
		first = false;
		if (!die_type(&la.vars[i], &type)) {
			fputs("?", m.f);
			continue;
		}
		if (x->pretty) {
			struct expr t2 = *x;
			struct expr *p;

			t2.kind = E_TARGET;
			t2.str = n;
			t2.chain = NULL;
			v->trial = true;
			p = pretty_target(v, &t2);
			v->trial = saved;
			v->failed = failed;
			if (p) {
				fputs("%s", m.f);
				fmt_arg(&m, p);
			} else {
				fputs("?", m.f);
			}
			continue;
		}
		if (dwt_peel(&type, &t) && is_aggregate(dwarf_tag(&t))) {
			fputs("{...}", m.f);
			continue;
		}
		if (dwt_peel(&type, &t) && dwarf_tag(&t) == DW_TAG_array_type) {
			fputs("[...]", m.f);
			continue;
		}
		v->trial = true;
		a = target(v, n, NULL, false, &x->loc);
		v->trial = saved;
		v->failed = failed;
		if (!a) {
			fputs("?", m.f);
			continue;
		}
		fputs("%#x", m.f);
		fmt_arg(&m, access_expr(v, a, &x->loc));
	}
	free(la.vars);
	return fmt_close(v, &m, &x->loc);
}

/* ---- walking the body ---- */

static void replace(struct expr *x, struct expr *with)
{
	struct expr *next = x->next;

	*x = *with;
	x->next = next;
}

static void set_num(struct expr *x, int64_t n)
{
	struct expr *next = x->next;
	struct loc l = x->loc;

	memset(x, 0, sizeof(*x));
	x->kind = E_NUM;
	x->num = n;
	x->loc = l;
	x->next = next;
}

static bool resolve_node(struct vctx *v, struct expr *x);

/* @defined(e): does e resolve here? Its diagnostics are held back. */
static bool defined(struct vctx *v, struct expr *x)
{
	struct session *s = v->s;
	int errors = s->errors;
	struct loc last = v->e->last_error;
	bool saved = v->trial, ok;

	if (!x)
		return false;
	v->trial = true;
	v->failed = false;
	s->quiet++;
	ok = resolve_node(v, ast_clone_expr(s, x)) && !v->failed;
	s->quiet--;
	s->errors = errors;
	v->e->last_error = last;
	v->trial = saved;
	v->failed = false;
	return ok;
}

static void walk_expr(struct vctx *v, struct expr *x, bool fold);
static void walk_stmt(struct vctx *v, struct stmt *st, bool fold);

static void walk_list(struct vctx *v, struct expr *x, bool fold)
{
	for (; x; x = x->next)
		walk_expr(v, x, fold);
}

/* @defined() becomes 0 or 1, and what that decides is folded: ?:, !,
 * && and ||. Returns whether x is now such a literal (only those fold:
 * "1 ? 2 : \"x\"" stays for the type checks). */
static bool fold_expr(struct vctx *v, struct expr *x)
{
	bool da, db, dc;

	if (!x)
		return false;
	if (x->kind == E_AT && x->op == AT_OP_DEFINED) {
		set_num(x, defined(v, x->args));
		return true;
	}
	da = fold_expr(v, x->a);
	db = fold_expr(v, x->b);
	dc = fold_expr(v, x->c);
	for (struct expr *a = x->args; a; a = a->next)
		fold_expr(v, a);
	for (struct chain *c = x->chain; c; c = c->next)
		fold_expr(v, c->index);
	switch (x->kind) {
	case E_TERNARY:
		if (da) {
			bool taken = x->a->num != 0;

			replace(x, taken ? x->b : x->c);
			return taken ? db : dc;
		}
		break;
	case E_UNARY:
		if (x->op == OP_NOT && da) {
			set_num(x, !x->a->num);
			return true;
		}
		break;
	case E_BINARY:
		if (x->op != OP_LAND && x->op != OP_LOR)
			break;
		if (da && db) {
			set_num(x, x->op == OP_LAND ? (x->a->num && x->b->num) :
						      (x->a->num || x->b->num));
			return true;
		}
		if (da && (x->op == OP_LAND ? !x->a->num : x->a->num != 0)) {
			set_num(x, x->op == OP_LOR);
			return true;
		}
		break;
	default:
		break;
	}
	return false;
}

static void fold_stmts(struct vctx *v, struct stmt *st)
{
	for (; st; st = st->next) {
		bool decided;

		fold_expr(v, st->init);
		decided = fold_expr(v, st->e);
		fold_expr(v, st->incr);
		if (st->fe) {
			fold_expr(v, st->fe->array);
			fold_expr(v, st->fe->limit);
		}
		fold_stmts(v, st->body);
		fold_stmts(v, st->else_body);
		/* if (@defined(...)) keeps one branch */
		if (decided && st->kind == S_IF) {
			struct stmt *keep = st->e->num ? st->body : st->else_body;
			struct stmt *next = st->next;
			struct loc l = st->loc;

			if (keep) {
				*st = *keep;
			} else {
				memset(st, 0, sizeof(*st));
				st->kind = S_NULL;
				st->loc = l;
			}
			st->next = next;
		}
	}
}

static bool is_dwarf_probe(struct vctx *v)
{
	return v->p && v->p->has_targets;
}

static bool resolve_node(struct vctx *v, struct expr *x)
{
	struct dwarf_access *a = NULL;
	struct expr *r;

	switch (x->kind) {
	case E_TARGET:
		if (!is_dwarf_probe(v) || (strcmp(x->str, "return") == 0 &&
					   !v->p->is_return))
			return false;	/* resolve.c says why */
		if (!v->site) {
			verr(v, &x->loc, "target variable '$%s' needs the "
			     "kernel's debuginfo, which is not installed: "
			     "install the %s package", x->str,
			     dwarf_package(v->s));
			return false;
		}
		if (strcmp(x->str, "return") == 0 && !v->site->is_return)
			return false;	/* resolve.c says why */
		if (!v->site->decl_file) {
			verr(v, &x->loc, "debuginfo scope not found for '%s' "
			     "(only its symbol is known), cannot resolve "
			     "context variable '$%s'", v->p->name, x->str);
			return false;
		}
		if (x->pretty) {
			r = pretty_target(v, x);
			if (!r)
				return false;
			walk_list(v, r->args, false);
			replace(x, r);
			return true;
		}
		a = target(v, x->str, x->chain, x->addr, &x->loc);
		break;
	case E_CTXVAR:
		if (!is_dwarf_probe(v) || (strcmp(x->str, "return") == 0 &&
					   !v->p->is_return))
			return false;	/* resolve.c says why */
		if (!v->site) {
			verr(v, &x->loc, "'$$%s' needs the kernel's debuginfo, "
			     "which is not installed: install the %s package",
			     x->str, dwarf_package(v->s));
			return false;
		}
		if (strcmp(x->str, "return") == 0 && !v->site->is_return)
			return false;
		if (!v->site->decl_file) {
			/* a symbol without DWARF: no variables, as in stap */
			r = str_expr(v, "", &x->loc);
			replace(x, r);
			return true;
		}
		r = ctxvar(v, x);
		if (!r)
			return false;
		replace(x, r);
		return true;
	case E_CAST:
		walk_expr(v, x->a, false);
		a = cast(v, x);
		break;
	case E_ATVAR:
		a = atvar(v, x);
		break;
	default:
		return true;
	}
	for (struct chain *c = x->chain; c; c = c->next)
		if (c->index)
			walk_expr(v, c->index, false);
	if (!a)
		return false;
	x->ref = a;
	return true;
}

/* A target written (-g) must be stored somewhere: memory, or a register
 * of the probe's saved registers; not a value DWARF computes, nor one
 * read at entry. */
static void check_writable(struct vctx *v, const struct expr *x)
{
	const struct dwarf_access *a = x->ref;
	bool object = a && (a->cast || a->base.kind == DWARF_LOC_MEM ||
			    a->nsteps > 0);

	if (!a)
		return;
	if (a->at_entry || a->result != DWARF_RES_INT ||
	    (!object && a->base.kind != DWARF_LOC_REG))
		verr(v, &x->loc, "cannot write to '%s': %s", a->text,
		     a->at_entry ? "it is read at function entry" :
		     a->result == DWARF_RES_BITFIELD ? "bitfields are read-only" :
		     a->result == DWARF_RES_ADDRESS ? "it is an address" :
		     "its value is computed, not stored");
}

static void walk_expr(struct vctx *v, struct expr *x, bool folding)
{
	(void)folding;
	if (!x)
		return;
	switch (x->kind) {
	case E_TARGET:
	case E_CTXVAR:
	case E_CAST:
	case E_ATVAR:
		if (!x->ref)
			resolve_node(v, x);
		return;
	case E_AT:
		if (x->op != AT_OP_ENTRY)
			break;
		if (!v->p || !v->p->is_return)
			return;		/* resolve.c says @entry is wrong here */
		{
			bool saved = v->in_entry;

			v->in_entry = true;
			walk_list(v, x->args, false);
			v->in_entry = saved;
			return;
		}
	case E_ASSIGN:
	case E_CREMENT:
		if (x->a->kind != E_TARGET && x->a->kind != E_CAST &&
		    x->a->kind != E_ATVAR)
			break;
		/* a target written outside guru mode: resolve.c says so */
		walk_expr(v, x->b, false);
		if (v->s->guru) {
			walk_expr(v, x->a, false);
			check_writable(v, x->a);
		}
		return;
	default:
		break;
	}
	walk_expr(v, x->a, false);
	walk_expr(v, x->b, false);
	walk_expr(v, x->c, false);
	walk_list(v, x->args, false);
}

static void walk_stmts(struct vctx *v, struct stmt *st, bool folding)
{
	for (; st; st = st->next)
		walk_stmt(v, st, folding);
}

static void walk_stmt(struct vctx *v, struct stmt *st, bool folding)
{
	walk_expr(v, st->init, folding);
	walk_expr(v, st->e, folding);
	walk_expr(v, st->incr, folding);
	if (st->fe) {
		walk_expr(v, st->fe->array, folding);
		walk_expr(v, st->fe->limit, folding);
	}
	walk_stmts(v, st->body, folding);
	walk_stmts(v, st->else_body, folding);
}

void dwarf_resolve_probe(struct elab *e, struct dprobe *p)
{
	struct vctx v;

	ctx_init(&v, e, p);
	fold_stmts(&v, p->body);
	walk_stmts(&v, p->body, false);
	free(v.scopes);
}

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
	if (!n || (var_ops(var, l->pc, &attr, &ops, &nops) <= 0 &&
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
	if (strcmp(site->module, "kernel") == 0)
		fprintf(out, " /* pc=%s+%#llx */", site->reloc_base,
			(unsigned long long)site->reloc_offset);
	else if (site->symbol)
		fprintf(out, " /* pc=<%s:%s+%#llx> */", site->module,
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

void dwarf_print_access(FILE *out, const struct dwarf_access *a)
{
	char *buf = NULL, *tmp = NULL;
	size_t len = 0, tlen = 0;
	FILE *f;
	bool object;
	const struct dwarf_loc *l = &a->base;

	/* build the expression text step by step in buf */
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (a->cast) {
		print_expr(f, a->cast);
		object = true;
	} else {
		switch (l->kind) {
		case DWARF_LOC_REG:
			fprintf(f, "@kregister(%d)", l->reg);
			break;
		case DWARF_LOC_CONST:
			fprintf(f, "%lld", (long long)l->value);
			break;
		default:
			if (l->simple && l->reg >= 0 && l->offset)
				fprintf(f, "(@kregister(%d)) + (%lld)", l->reg,
					(long long)l->offset);
			else if (l->simple && l->reg >= 0)
				fprintf(f, "@kregister(%d)", l->reg);
			else if (l->simple)
				fprintf(f, "%#llx", (unsigned long long)l->offset);
			else
				print_ops(f, l);
		}
		object = l->kind == DWARF_LOC_MEM;
	}
	fclose(f);
	for (int i = 0; i < a->nsteps; i++) {
		const struct dwarf_step *st = &a->steps[i];

		f = open_memstream(&tmp, &tlen);
		if (!f)
			break;
		switch (st->kind) {
		case DWARF_STEP_DEREF:
			if (object)
				fprintf(f, "@kderef(8, %s)", buf);
			else
				fputs(buf, f);
			object = true;
			break;
		case DWARF_STEP_OFFSET:
			if (st->offset)
				fprintf(f, "(%s) + (%lld)", buf,
					(long long)st->offset);
			else
				fputs(buf, f);
			break;
		case DWARF_STEP_INDEX:
			fprintf(f, "(%s) + ((", buf);
			print_expr(f, st->index);
			fprintf(f, ") * (%llu))", (unsigned long long)st->stride);
			break;
		}
		fclose(f);
		free(buf);
		buf = tmp;
		tmp = NULL;
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

static void dump_expr(FILE *out, const struct expr *x);

static void dump_list(FILE *out, const struct expr *x)
{
	for (; x; x = x->next)
		dump_expr(out, x);
}

static void dump_expr(FILE *out, const struct expr *x)
{
	if (!x)
		return;
	if ((x->kind == E_TARGET || x->kind == E_CAST || x->kind == E_ATVAR) &&
	    x->ref) {
		const struct dwarf_access *a = x->ref;

		fprintf(out, "  %s:%s = ", a->text, a->type ? a->type : "?");
		dwarf_print_access(out, a);
		if (a->at_entry)
			fputs("  /* at entry */", out);
		fputc('\n', out);
	}
	dump_expr(out, x->a);
	dump_expr(out, x->b);
	dump_expr(out, x->c);
	dump_list(out, x->args);
	for (const struct chain *c = x->chain; c; c = c->next)
		dump_expr(out, c->index);
}

static void dump_stmts(FILE *out, const struct stmt *st)
{
	for (; st; st = st->next) {
		dump_expr(out, st->init);
		dump_expr(out, st->e);
		dump_expr(out, st->incr);
		if (st->fe) {
			dump_expr(out, st->fe->array);
			dump_expr(out, st->fe->limit);
		}
		dump_stmts(out, st->body);
		dump_stmts(out, st->else_body);
	}
}

void dwarf_dump_targets(FILE *out, const struct dprobe *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	dump_stmts(f, p->body);
	fclose(f);
	if (len)
		fprintf(out, "  # target variables\n%s", buf);
	free(buf);
}
