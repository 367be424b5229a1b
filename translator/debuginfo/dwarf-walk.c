/* dwarf-walk.c - the body of a DWARF probe: @defined folded, $$vars and
 * pretty printing ($var$, $var$$) rewritten into sprintf() over plain
 * accesses, each $var, @cast and @var resolved (dwarf-vars.c) onto its
 * node, writes checked.
 *
 * Pretty printing follows stap's: a structure prints member by member
 * as "{.a=%i, .b=%p, .c={...}, .d=[...]}", one level deep for $var$ and
 * every level for $var$$ (anonymous members as <union>= and <class>=);
 * an array, where expanded, as its first element and "...", or a char
 * array as its quoted string, as a char pointer is; a pointer to a
 * number in the number's format, other pointers as %p, a member or
 * variable that cannot be read as '?'.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "elaborate/elab-internal.h"
#include "xalloc.h"

/* ---- pretty printing and $$vars ---- */

/* the depth of $var$$: every level (what C types nest is finite) */
#define PRETTY_FULL	1000

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
	call->pretty = 1;	/* any number of values */
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

/* c followed by ->field, or by [index] when field is NULL */
static struct chain *chain_add(struct vctx *v, const struct chain *c,
			       const char *field, struct expr *index)
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
	(*tail)->index = index;
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
			pretty_value(v, m, name, chain_add(v, ch, mn, NULL),
				     &mt, depth - 1, l);
		} while (dwarf_siblingof(&mem, &mem) == 0);
	}
	fputc('}', m->f);
}

/* The access name->chain, or NULL (having printed '?') when it cannot
 * be made: a failure of one member prints '?', as stap's does. */
static struct dwarf_access *pretty_access(struct vctx *v, struct fmt *m,
					  const char *name,
					  const struct chain *ch,
					  const struct loc *l)
{
	struct dwarf_access *a;
	bool saved = v->trial, failed = v->failed;

	v->trial = true;
	v->failed = false;
	a = target(v, name, ch, false, l);
	v->trial = saved;
	if (!a || v->failed) {
		v->failed = failed;
		fputs("?", m->f);
		return NULL;
	}
	v->failed = failed;
	return a;
}

/* "%s" with kernel_string_quoted(addr) for the chars at a (in a
 * user-space probe, user_string_quoted(addr)) */
static void pretty_chars(struct vctx *v, struct fmt *m,
			 struct dwarf_access *a, const struct loc *l)
{
	struct expr *call = new_expr(v, E_CALL, l);

	call->str = v->site && v->site->unit && v->site->unit->user ?
		    "user_string_quoted" : "kernel_string_quoted";
	call->args = access_expr(v, a, l);
	fputs("%s", m->f);
	fmt_arg(m, call);
}

/* An array, when still expanded: its chars as a quoted string, or its
 * first element and "..." ("[100, ...]", whatever the array's length,
 * as stap prints one), the element one level deeper. */
static void pretty_array(struct vctx *v, struct fmt *m, const char *name,
			 const struct chain *ch, Dwarf_Die *arr, int depth,
			 const struct loc *l)
{
	Dwarf_Die elem;
	struct dwarf_access *a;
	struct expr *zero;

	if (!die_type(arr, &elem)) {
		fputs("?", m->f);
		return;
	}
	if (char_type(&elem)) {
		if ((a = pretty_access(v, m, name, ch, l)))
			pretty_chars(v, m, a, l);
		return;
	}
	zero = new_expr(v, E_NUM, l);
	zero->num = 0;
	zero->type = TYPE_LONG;
	fputc('[', m->f);
	pretty_value(v, m, name, chain_add(v, ch, NULL, zero), &elem,
		     depth - 1, l);
	fputs(", ...]", m->f);
}

/* One value, as stap's pretty printer writes it. */
static void pretty_value(struct vctx *v, struct fmt *m, const char *name,
			 const struct chain *ch, Dwarf_Die *type, int depth,
			 const struct loc *l)
{
	Dwarf_Die t, pt;
	struct dwarf_access *a;
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
		if (depth <= 0)
			fputs("[...]", m->f);
		else
			pretty_array(v, m, name, ch, &t, depth, l);
		return;
	}
	if (!(a = pretty_access(v, m, name, ch, l)))
		return;
	if (tag == DW_TAG_pointer_type) {
		Dwarf_Die pp;

		if (die_type(&t, &pt) && char_type(&pt)) {
			pretty_chars(v, m, a, l);
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
	int depth = x->pretty == 2 ? PRETTY_FULL : 1;

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
		pretty_members(v, &m, x->str, ch, &pt, depth, &x->loc);
	} else if (dwt_peel(&type, &t) && is_aggregate(dwarf_tag(&t))) {
		pretty_members(v, &m, x->str, ch, &t, depth, &x->loc);
	} else {
		probe = target(v, x->str, ch, false, &x->loc);
		if (!probe) {
			fclose(m.f);
			free(m.buf);
			return NULL;
		}
		pretty_value(v, &m, x->str, ch, &type, depth, &x->loc);
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

/* $$name, $$vars and $$parms of a tracepoint typed by BTF: each
 * argument's value, {...} for a structure passed by value. */
static struct expr *btf_ctxvar(struct vctx *v, struct expr *x)
{
	const struct dwarf_site *site = v->site;
	struct fmt m;

	if (strcmp(x->str, "name") == 0)
		return str_expr(v, site->tracepoint, &x->loc);
	if (strcmp(x->str, "vars") && strcmp(x->str, "parms")) {
		verr(v, &x->loc, "unknown context variable '$$%s' (expected "
		     "$$name, $$vars or $$parms)", x->str);
		return NULL;
	}
	if (x->pretty) {
		verr(v, &x->loc, "pretty printing '$$%s$' needs the kernel's "
		     "debuginfo: install the %s package", x->str,
		     dwarf_package(v->s));
		return NULL;
	}
	fmt_open(&m);
	for (int i = 0; i < site->ntargs; i++) {
		const char *n = site->targs[i].name;
		struct dwarf_access *a;
		bool saved = v->trial, failed = v->failed;

		fprintf(m.f, "%s%s=", i ? " " : "", n);
		if (btf_arg_is_aggregate(v->s, site, &site->targs[i])) {
			fputs("{...}", m.f);
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
	return fmt_close(v, &m, &x->loc);
}

/* $$vars, $$parms, $$locals, $$return (pretty: $$vars$ ...). */
static struct expr *ctxvar(struct vctx *v, struct expr *x)
{
	struct list_arg la = { .v = v };
	struct fmt m;
	bool first = true;
	Dwarf_Die own;

	if (v->site->tracepoint) {
		if (strcmp(x->str, "name") == 0)
			return str_expr(v, v->site->tracepoint, &x->loc);
		if (strcmp(x->str, "vars") && strcmp(x->str, "parms")) {
			verr(v, &x->loc, "unknown context variable '$$%s' "
			     "(expected $$name, $$vars or $$parms)", x->str);
			return NULL;
		}
	}
	if (strcmp(x->str, "return") == 0) {
		Dwarf_Die fn, type, peeled;

		fmt_open(&m);
		/* nothing for void, nor for a struct returned by value
		 * (as stap 4.8 prints that) */
		if (dwarf_offdie(v->u->dw, v->site->die, &fn) &&
		    die_type(&fn, &type) && (x->pretty ||
		    !dwt_peel(&type, &peeled) ||
		    !is_aggregate(dwarf_tag(&peeled)))) {
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
static bool fold_expr(struct vctx *v, struct expr *x);

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
		if (v->site->btf && x->pretty) {
			verr(v, &x->loc, "pretty printing '$%s$' needs the "
			     "kernel's debuginfo (its BTF has the types, not "
			     "the printing): install the %s package", x->str,
			     dwarf_package(v->s));
			return false;
		}
		if (!v->site->decl_file && !v->site->btf) {
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
		if (v->site->btf) {
			r = btf_ctxvar(v, x);
			if (!r)
				return false;
			replace(x, r);
			return true;
		}
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
	case E_AUTOCAST:
		/* only @defined() comes here: its value's type must show
		 * without the rounds over locals and functions (autocast.c) */
		fold_expr(v, x->a);
		walk_expr(v, x->a, false);
		{
			const struct expr *base = x->a;
			const struct dwarf_access *t = NULL;

			while (base && base->kind == E_TERNARY)
				base = base->b && base->b->ref ? base->b : base->c;
			if (base && (base->kind == E_TARGET ||
				     base->kind == E_CAST ||
				     base->kind == E_ATVAR ||
				     base->kind == E_AUTOCAST) && !base->pretty)
				t = base->ref;
			if (!t || !t->obj) {
				v->failed = true;
				return false;
			}
			a = autocast(v, x, t);
		}
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
	if (!a->cast && a->base.kind == DWARF_LOC_PIECES && !a->nsteps) {
		verr(v, &x->loc, "cannot write to '%s': it is split in pieces "
		     "(DW_OP_piece)", a->text);
		return;
	}
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
		/* a function's $vars are its calling probe's: not here */
		if (!v->p)
			return;
		/* fall through */
	case E_CAST:
	case E_ATVAR:
		if (!x->ref) {
			const struct expr *outer = v->defer;

			/* a probe body's errors wait for the dead stores
			 * to go (as stap's), an inner access's with its
			 * outermost one */
			if (v->p && !outer)
				v->defer = x;
			resolve_node(v, x);
			v->defer = outer;
		}
		return;
	case E_AUTOCAST:
		/* its base and indexes here; the member access once the
		 * types are known (elaborate/autocast.c) */
		walk_expr(v, x->a, false);
		for (struct chain *c = x->chain; c; c = c->next)
			walk_expr(v, c->index, false);
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

/* The @cast and @var accesses of a script function: they need no probe
 * point (a function's $vars, which are its caller's, are not resolved
 * here; @defined() of one is 0, of a @cast decided as in a probe). */
void dwarf_resolve_function(struct elab *e, struct stmt *body)
{
	struct vctx v;

	ctx_init(&v, e, NULL);
	fold_stmts(&v, body);
	walk_stmts(&v, body, false);
	free(v.scopes);
}

/* Does x use what a tracepoint's BTF resolves otherwise than its
 * DWARF: a target's members, elements or address (the DWARF's
 * diagnostics name the types' files and list members the DWARF's way),
 * pretty printing (DWARF only), an autocast (DWARF types)? A plain $arg,
 * $$name, $$vars and $$parms come out the same from both. */
static bool btf_differs(const struct expr *x)
{
	if (!x)
		return false;
	if ((x->kind == E_TARGET && (x->chain || x->addr || x->pretty)) ||
	    (x->kind == E_CTXVAR && x->pretty) || x->kind == E_AUTOCAST)
		return true;
	if (btf_differs(x->a) || btf_differs(x->b) || btf_differs(x->c))
		return true;
	for (const struct expr *a = x->args; a; a = a->next)
		if (btf_differs(a))
			return true;
	for (const struct chain *c = x->chain; c; c = c->next)
		if (btf_differs(c->index))
			return true;
	return false;
}

static bool btf_differs_stmts(const struct stmt *st)
{
	for (; st; st = st->next)
		if (btf_differs(st->init) || btf_differs(st->e) ||
		    btf_differs(st->incr) ||
		    (st->fe && (btf_differs(st->fe->array) ||
				btf_differs(st->fe->limit))) ||
		    btf_differs_stmts(st->body) ||
		    btf_differs_stmts(st->else_body))
			return true;
	return false;
}

void dwarf_resolve_probe(struct elab *e, struct dprobe *p)
{
	struct vctx v;

	/* a tracepoint found through the BTF beside the debuginfo
	 * (providers/trace.c) takes its DWARF site when the body needs
	 * more than its arguments' values */
	if (p->dwarf && p->dwarf->btf && p->dwarf->tracepoint &&
	    btf_differs_stmts(p->body)) {
		const struct dwarf_site *d = dwarf_tracepoint_site(e->s,
								    p->dwarf);

		if (d)
			p->dwarf = d;
	}
	ctx_init(&v, e, p);
	fold_stmts(&v, p->body);
	walk_stmts(&v, p->body, false);
	free(v.scopes);
}
