/* autocast.c - translator/elaborate/: member access on typed values.
 *
 * `y->f_flags`, `f(x)->i_ino`, `(c ? $a : $b)->member`: a value followed
 * by -> or [i] without a $ or @cast (E_AUTOCAST) is read as a @cast of
 * that value to the type it carries. A value carries the DWARF type of
 * the pointer it is: a $var, @cast or @var access (or the address of
 * one), a local or global variable whose typed assignments all agree on
 * the type, a function whose typed returns all agree, either branch of
 * ?: and an assignment's value. As in SystemTap 4.8, a function's
 * parameters and @entry(...) carry no type.
 *
 * The types are found by rounds over every resolved body until nothing
 * changes (a function may return a local set from another function's
 * result); the accesses left without a type are then reported.
 */
#include <string.h>

#include "elab-internal.h"
#include "debuginfo/dwarf-api.h"

struct autocast {
	struct elab *e;
	struct dprobe *probe;		/* the body's probe, or NULL */
	struct function *fn;		/* the body's function, or NULL */
	bool changed;
	bool report;			/* last round: say what has no type */
};

/* An access that failed to build: reported once, never retried. */
static const struct dwarf_access failed;

/* An embedded-C function saying what its value points at
 * ("/ * autocast: struct task_struct * /", as task_current()). */
static const struct dwarf_access *embedded_type(struct session *s,
						struct function *fn)
{
	const char *code = fn->decl->code, *t, *end;

	if (fn->dwtype || fn->dwmixed || !code ||
	    !(t = strstr(code, "/* autocast: ")) ||
	    !(end = strstr(t, " */")))
		return fn->dwtype;
	t += strlen("/* autocast: ");
	fn->dwtype = dwarf_named_type(s, arena_strndup(&s->arena, t,
						       (size_t)(end - t)));
	/* asked once: without debuginfo it stays untyped */
	fn->dwmixed = !fn->dwtype;
	return fn->dwtype;
}

static const struct dwarf_access *value_type(struct session *s,
					     const struct expr *x)
{
	const struct dwarf_access *a;
	const struct symbol *sym;
	struct function *fn;

	if (!x)
		return NULL;
	switch (x->kind) {
	case E_TARGET:
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
		a = x->ref;
		return a && a->obj && !x->pretty ? a : NULL;
	case E_VAR:
		sym = x->ref;
		return sym && !sym->dwmixed ? sym->dwtype : NULL;
	case E_CALL:
		fn = x->ref;
		if (fn && !fn->decl->body)
			return embedded_type(s, fn);
		return fn && !fn->dwmixed ? fn->dwtype : NULL;
	case E_TERNARY:
		a = value_type(s, x->b);
		return a ? a : value_type(s, x->c);
	case E_ASSIGN:
		return x->op == OP_ASSIGN ? value_type(s, x->b) : NULL;
	default:
		return NULL;
	}
}

/* One more typed value stored in (or returned by) what *have, *mixed
 * describe. */
static void merge(struct autocast *ac, const void **have, bool *mixed,
		  const struct dwarf_access *t)
{
	const struct dwarf_access *old = *have;

	if (!t || *mixed)
		return;
	if (!old) {
		*have = t;
		ac->changed = true;
	} else if (old != t && (!old->obj_name || !t->obj_name ||
				strcmp(old->obj_name, t->obj_name) != 0)) {
		*mixed = true;
		ac->changed = true;
	}
}

static void member_access(struct autocast *ac, struct expr *x)
{
	const struct dwarf_access *t = value_type(ac->e->s, x->a);

	if (x->ref)
		return;
	if (t && x->pretty) {
		elab_error(ac->e, &x->loc, "pretty printing ('%s' after the "
			   "member) of a typed value is not supported yet: "
			   "print its members", x->pretty == 2 ? "$$" : "$");
		x->ref = (void *)&failed;
		return;
	}
	if (t) {
		if (!dwarf_autocast(ac->e, ac->probe, x, t))
			x->ref = (void *)&failed;
		ac->changed = true;
		return;
	}
	if (ac->report) {
		elab_error(ac->e, &x->loc, "unknown type in dereference");
		x->ref = (void *)&failed;
	}
}

static void walk_expr(struct autocast *ac, struct expr *x);

static void walk_list(struct autocast *ac, struct expr *x)
{
	for (; x; x = x->next)
		walk_expr(ac, x);
}

static void walk_expr(struct autocast *ac, struct expr *x)
{
	if (!x)
		return;
	walk_expr(ac, x->a);
	walk_expr(ac, x->b);
	walk_expr(ac, x->c);
	walk_list(ac, x->args);
	for (struct chain *c = x->chain; c; c = c->next)
		walk_expr(ac, c->index);
	if (x->kind == E_AUTOCAST) {
		member_access(ac, x);
	} else if (x->kind == E_ASSIGN && x->op == OP_ASSIGN &&
		   x->a->kind == E_VAR && x->a->ref) {
		struct symbol *sym = x->a->ref;

		if (!sym->param)
			merge(ac, &sym->dwtype, &sym->dwmixed,
			      value_type(ac->e->s, x->b));
	}
}

static void walk_stmts(struct autocast *ac, struct stmt *st)
{
	for (; st; st = st->next) {
		walk_expr(ac, st->init);
		walk_expr(ac, st->e);
		walk_expr(ac, st->incr);
		if (st->fe) {
			walk_expr(ac, st->fe->array);
			walk_expr(ac, st->fe->limit);
		}
		walk_stmts(ac, st->body);
		walk_stmts(ac, st->else_body);
		if (st->kind == S_RETURN && ac->fn)
			merge(ac, &ac->fn->dwtype, &ac->fn->dwmixed,
			      value_type(ac->e->s, st->e));
	}
}

static void round_over(struct autocast *ac)
{
	struct elab *e = ac->e;

	ac->changed = false;
	for (struct dprobe *p = e->prog->probes; p; p = p->next) {
		ac->probe = p;
		ac->fn = NULL;
		e->probe = p;
		e->fn = NULL;
		e->file = p->decl->loc.file;
		walk_stmts(ac, p->body);
	}
	for (struct function *f = e->prog->functions; f; f = f->next) {
		if (!f->resolved || !f->decl->body)
			continue;
		ac->probe = NULL;
		ac->fn = f;
		e->probe = NULL;
		e->fn = f;
		e->file = f->decl->loc.file;
		walk_stmts(ac, f->decl->body);
	}
	e->probe = NULL;
	e->fn = NULL;
}

void autocast_resolve(struct elab *e)
{
	struct autocast ac = { .e = e };

	do
		round_over(&ac);
	while (ac.changed);
	ac.report = true;
	round_over(&ac);
}
