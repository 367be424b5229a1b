/* entry.c - @entry(expr) of any expression in a return probe.
 *
 * @entry of target variables, literals and operators on them is read by
 * the kretprobe's entry handler (debuginfo/, emit/emit-dwarf.c). Any other
 * expression (a function call, a global, a local) needs script code to
 * run when the function is entered, so pass 2 splits the probe as
 * SystemTap does: each such @entry(E) gets private globals keyed by the
 * thread and its depth of calls into the function (recursion), an entry
 * twin of the return probe (listed before it, .call for DWARF points)
 * sets them,
 *
 *	__entry_N_ctr[tid()]++
 *	__entry_N[tid(), __entry_N_ctr[tid()]] = E
 *
 * and the return probe takes the value out before its body runs:
 *
 *	__entry_val_N = __entry_N[tid(), __entry_N_ctr[tid()]]
 *	delete __entry_N[tid(), __entry_N_ctr[tid()]]
 *	if (!--__entry_N_ctr[tid()]) delete __entry_N_ctr[tid()]
 *
 * with @entry(E) itself replaced by __entry_val_N. A thread that entered
 * the function before the script started reads 0 or "", as in stap.
 */
#include <string.h>

#include "debuginfo/dwarf-api.h"
#include "elab-internal.h"
#include "providers/provider.h"
#include "xalloc.h"

/* Can the kretprobe's entry handler compute x by itself? */
bool entry_expr_pure(const struct expr *x)
{
	if (!x)
		return true;
	switch (x->kind) {
	case E_NUM:
	case E_TARGET:
	case E_CTXVAR:
	case E_ATVAR:
		return true;
	case E_BINARY:
	case E_UNARY:
	case E_TERNARY:
		return entry_expr_pure(x->a) && entry_expr_pure(x->b) &&
		       entry_expr_pure(x->c);
	case E_AT:
		return x->op == AT_OP_ENTRY && entry_expr_pure(x->args);
	default:
		return false;
	}
}

struct split {
	struct elab *e;
	struct dprobe *p;
	struct stmt *twin_body, **twin_tail;	/* the entry twin's */
	struct stmt *take, **take_tail;		/* before the return body */
	int n;
};

static struct expr *var(struct session *s, const char *name,
			const struct loc *l)
{
	struct expr *v = ast_expr(s, E_VAR, l);

	v->str = name;
	return v;
}

static struct expr *tid_call(struct session *s, const struct loc *l);

/* name[tid()] */
static struct expr *by_tid(struct session *s, const char *name,
			   const struct loc *l)
{
	struct expr *x = ast_expr(s, E_INDEX, l);

	x->str = name;
	x->args = tid_call(s, l);
	return x;
}

static struct stmt *expr_stmt(struct session *s, struct expr *x)
{
	struct stmt *st = ast_stmt(s, S_EXPR, &x->loc);

	st->e = x;
	return st;
}

static struct expr *assign(struct session *s, struct expr *to,
			   struct expr *from)
{
	struct expr *x = ast_expr(s, E_ASSIGN, &to->loc);

	x->op = OP_ASSIGN;
	x->a = to;
	x->b = from;
	return x;
}

static void add_global(struct elab *e, const char *name, const struct loc *l)
{
	struct symbol *g = ANEW(&e->s->arena, struct symbol);
	struct decl *d = ast_decl(e->s, D_GLOBAL, l);

	d->name = name;
	g->decl = d;
	g->name = name;
	g->global = true;
	g->loc = *l;
	g->file = l->file;
	g->arity = -1;
	g->next = e->prog->globals;
	e->prog->globals = g;
	strmap_add(&e->s->arena, &e->globals, name, g);
}

static struct expr *tid_call(struct session *s, const struct loc *l)
{
	struct expr *call = ast_expr(s, E_CALL, l);

	call->str = "tid";
	return call;
}

/* name[tid(), ctr[tid()]] */
static struct expr *by_depth(struct session *s, const char *name,
			     const char *ctr, const struct loc *l)
{
	struct expr *x = by_tid(s, name, l);

	x->args->next = by_tid(s, ctr, l);
	return x;
}

static struct expr *crement(struct session *s, struct expr *x, int op,
			    bool prefix)
{
	struct expr *c = ast_expr(s, E_CREMENT, &x->loc);

	c->op = (unsigned char)op;
	c->prefix = prefix;
	c->a = x;
	return c;
}

static void append(struct stmt ***tail, struct stmt *st)
{
	**tail = st;
	*tail = &st->next;
}

/* Replaces x, an @entry(E), by the value its twin saved. */
static void split_one(struct split *sp, struct expr *x)
{
	struct session *s = sp->e->s;
	const struct loc *l = &x->loc;
	int k = sp->e->nentry++;
	const char *g = arena_printf(&s->arena, "__entry_%d", k);
	const char *ctr = arena_printf(&s->arena, "__entry_%d_ctr", k);
	const char *val = arena_printf(&s->arena, "__entry_val_%d", k);
	struct stmt *del = ast_stmt(s, S_DELETE, l);
	struct stmt *last = ast_stmt(s, S_IF, l), *del_ctr = ast_stmt(s, S_DELETE, l);
	struct expr *not = ast_expr(s, E_UNARY, l);

	add_global(sp->e, g, l);
	add_global(sp->e, ctr, l);
	append(&sp->twin_tail, expr_stmt(s, crement(s, by_tid(s, ctr, l),
						    OP_INC, false)));
	append(&sp->twin_tail, expr_stmt(s, assign(s, by_depth(s, g, ctr, l),
						   x->args)));
	append(&sp->take_tail, expr_stmt(s, assign(s, var(s, val, l),
						   by_depth(s, g, ctr, l))));
	del->e = by_depth(s, g, ctr, l);
	append(&sp->take_tail, del);
	not->op = OP_NOT;
	not->a = crement(s, by_tid(s, ctr, l), OP_DEC, true);
	last->e = not;
	del_ctr->e = by_tid(s, ctr, l);
	last->body = del_ctr;
	append(&sp->take_tail, last);
	{
		struct expr *next = x->next;	/* x may be an argument */
		struct loc at = *l;

		memset(x, 0, sizeof(*x));
		x->kind = E_VAR;
		x->loc = at;
		x->str = val;
		x->next = next;
	}
	sp->n++;
}

static void walk_stmt(struct split *sp, struct stmt *st);

/* A target variable of a process(...) return probe, which is read at
 * the function's entry as in any return probe ($return is not). */
static bool user_entry_var(const struct split *sp, const struct expr *x)
{
	if (!sp->p->process || !sp->p->dwarf)
		return false;
	if (x->kind == E_TARGET)
		return strcmp(x->str, "return") != 0;
	return x->kind == E_CTXVAR && strncmp(x->str, "return", 6) != 0;
}

/* x becomes @entry(x). */
static void wrap_entry(struct session *s, struct expr *x)
{
	struct expr *v = ast_expr(s, x->kind, &x->loc);
	struct expr *next = x->next;

	*v = *x;
	v->next = NULL;
	memset(x, 0, sizeof(*x));
	x->kind = E_AT;
	x->op = AT_OP_ENTRY;
	x->loc = v->loc;
	x->args = v;
	x->next = next;
}

static void walk_expr(struct split *sp, struct expr *x)
{
	if (!x)
		return;
	/* @defined($x) and its kin look at the variable, not its value */
	if (x->kind == E_AT && x->op != AT_OP_ENTRY && sp->p->process)
		return;
	if (user_entry_var(sp, x))
		wrap_entry(sp->e->s, x);
	/* A uretprobe has no entry handler to read values into: in a
	 * process(...) return probe every @entry goes through a twin. */
	if (x->kind == E_AT && x->op == AT_OP_ENTRY && x->args &&
	    !x->args->next &&
	    (!sp->p->dwarf || sp->p->process || !entry_expr_pure(x->args))) {
		split_one(sp, x);
		return;
	}
	walk_expr(sp, x->a);
	walk_expr(sp, x->b);
	walk_expr(sp, x->c);
	for (struct expr *a = x->args; a; a = a->next)
		walk_expr(sp, a);
	for (struct chain *c = x->chain; c; c = c->next)
		walk_expr(sp, c->index);
}

static void walk_stmt(struct split *sp, struct stmt *st)
{
	for (; st; st = st->next) {
		walk_expr(sp, st->init);
		walk_expr(sp, st->e);
		walk_expr(sp, st->incr);
		if (st->fe) {
			walk_expr(sp, st->fe->array);
			walk_expr(sp, st->fe->limit);
		}
		walk_stmt(sp, st->body);
		walk_stmt(sp, st->else_body);
	}
}

/* The point of a return probe with its .return (and .maxactive(N)) cut. */
static struct probe_point *entry_point(struct session *s,
				       const struct probe_point *pp,
				       bool dwarf)
{
	struct probe_point *q = ANEW(&s->arena, struct probe_point);
	struct pp_comp **tail = &q->comps;

	*q = *pp;
	q->next = NULL;
	q->cond = NULL;
	q->comps = NULL;
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		if (strcmp(c->name, "return") == 0 ||
		    strcmp(c->name, "maxactive") == 0)
			continue;
		*tail = ANEW(&s->arena, struct pp_comp);
		**tail = *c;
		(*tail)->next = NULL;
		tail = &(*tail)->next;
	}
	if (dwarf) {
		*tail = ANEW(&s->arena, struct pp_comp);
		(*tail)->name = "call";
		(*tail)->loc = pp->loc;
	}
	return q;
}

void entry_split_probes(struct elab *e)
{
	struct session *s = e->s;

	for (struct dprobe **at = &e->prog->probes; *at; at = &(*at)->next) {
		struct dprobe *p = *at, *twin;
		struct split sp = { .e = e, .p = p };
		struct stmt *block;

		if (!p->is_return)
			continue;
		sp.twin_tail = &sp.twin_body;
		sp.take_tail = &sp.take;
		walk_stmt(&sp, p->body);
		if (!sp.n)
			continue;
		/* the return body: take the values, then run */
		*sp.take_tail = p->body;
		block = ast_stmt(s, S_BLOCK, &p->body->loc);
		block->body = sp.take;
		p->body = block;
		/* the entry twin, just before it */
		twin = ANEW(&s->arena, struct dprobe);
		*twin = *p;
		twin->is_return = false;
		twin->maxactive = 0;
		twin->point = entry_point(s, p->point, p->dwarf != NULL);
		twin->name = pp_text(s, twin->point);
		if (p->dwarf) {	/* the same place, read as at an entry */
			struct dwarf_site *site = ANEW(&s->arena,
						       struct dwarf_site);

			*site = *p->dwarf;
			site->is_return = false;
			twin->dwarf = site;
			if (p->process)
				process_entry_twin(s, twin, site);
		}
		twin->cond = NULL;
		twin->locals = NULL;
		block = ast_stmt(s, S_BLOCK, &p->decl->loc);
		block->body = sp.twin_body;
		twin->body = block;
		twin->next = p;
		*at = twin;
		at = &twin->next;	/* then p, then on */
		e->prog->nprobes++;
	}
}
