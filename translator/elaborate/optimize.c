/* optimize.c - elide what a script never uses, and say so (-u keeps all).
 *
 * Functions never called and globals never touched are dropped (the
 * library's quietly, the script's with a warning); expression statements
 * without side effects are dropped, and so are assignments to locals no
 * one reads, again until nothing changes (a value only read by a dropped
 * assignment goes too: an alias's argstr and the strings it was made
 * of); a probe left with nothing to do is dropped. Globals written but
 * never read are marked to be printed when the script ends.
 *
 * A call has no side effect when it calls a pure embedded-C function, a
 * script function whose body writes no global, prints nothing and calls
 * only such functions (a runtime error is not a side effect: SystemTap
 * elides an unused user_string() too), or the sprint family; an
 * embedded-C expression has none when it says so with a pure pragma.
 */
#include <string.h>

#include "elab-internal.h"

static bool effect(const struct expr *x, bool in_fn);
static void unread(struct expr *x);
static bool stmt_effect(const struct stmt *st);

/* Does calling fn have side effects of its own? */
static bool fn_effect(struct function *fn)
{
	if (fn->overload)
		return true;
	if (fn->decl->code)
		return !fn->pure;
	if (fn->no_effect == 0) {
		fn->no_effect = 2;	/* recursion: assume an effect */
		fn->no_effect = stmt_effect(fn->decl->body) ? -1 : 1;
	}
	return fn->no_effect != 1;
}

static bool stmt_effect(const struct stmt *st)
{
	for (; st; st = st->next) {
		switch (st->kind) {
		case S_NULL:
		case S_BREAK:
		case S_CONTINUE:
			break;
		case S_BLOCK:
		case S_IF:
		case S_WHILE:
		case S_FOR:
		case S_TRY:
		case S_EXPR:
		case S_RETURN:
			if (effect(st->e, true) || effect(st->init, true) ||
			    effect(st->incr, true) || stmt_effect(st->body) ||
			    stmt_effect(st->else_body))
				return true;
			break;
		default:	/* foreach, delete, next */
			return true;
		}
	}
	return false;
}

/* An assignment or ++/-- whose target is a local scalar. */
static bool local_target(const struct expr *a)
{
	const struct symbol *sym = a ? a->ref : NULL;

	return a && a->kind == E_VAR && sym && !sym->global;
}

/* Side effects of x; in_fn: in a function body being judged, where
 * assigning a local is none (it is gone when the function returns). */
static bool effect(const struct expr *x, bool in_fn)
{
	if (!x)
		return false;
	switch (x->kind) {
	case E_CALL: {
		const struct function *fn = x->ref;

		/* a pure embedded-C function has none of its own, nor has
		 * the sprint family (a string, not output: an unused
		 * `s = sprintf(...)` must not become a printf) */
		if ((fn && !fn_effect((struct function *)fn)) ||
		    (!fn && x->str && strncmp(x->str, "sprint", 6) == 0)) {
			for (const struct expr *a = x->args; a; a = a->next)
				if (effect(a, in_fn))
					return true;
			return false;
		}
		return true;
	}
	case E_ASSIGN:
	case E_CREMENT:
		if (!in_fn || !local_target(x->a))
			return true;
		return x->kind == E_ASSIGN && effect(x->b, true);
	case E_EMBEDDED:
		/* an embedded expression marked pure has none */
		return !strstr(x->str, "/* pure */");
	case E_IN:
	case E_INDEX:
		for (const struct expr *a = x->args; a; a = a->next)
			if (effect(a, in_fn))
				return true;
		return false;
	default:
		return effect(x->a, in_fn) || effect(x->b, in_fn) ||
		       effect(x->c, in_fn);
	}
}

static bool has_effect(const struct expr *x)
{
	return effect(x, false);
}

/* `x = e` where x is a local nobody reads: keep e only for its effects. */
static bool dead_store(const struct expr *x)
{
	const struct symbol *sym;

	if (x->kind != E_ASSIGN || x->op != OP_ASSIGN || x->a->kind != E_VAR)
		return false;
	sym = x->a->ref;
	return sym && !sym->global && !sym->param && !sym->reads;
}

static void unread_one(struct expr *x)
{
	if (x) {
		struct expr *next = x->next;

		x->next = NULL;
		unread(x);
		x->next = next;
	}
}

/* The reads of locals in the list x, dropped with it. */
static void unread(struct expr *x)
{
	for (; x; x = x->next) {
		struct symbol *sym = x->ref;

		if (x->kind == E_VAR && sym && !sym->global && sym->reads)
			sym->reads--;
		if (x->kind != E_CALL && x->kind != E_INDEX && x->kind != E_IN)
			unread_one(x->a), unread_one(x->b), unread_one(x->c);
		else
			unread(x->args);
	}
}

/* Returns true when the statement still does something; *changed when
 * it dropped something. */
static bool prune(struct elab *e, struct stmt *st, bool *changed)
{
	bool live = false;

	if (!st)
		return false;
	switch (st->kind) {
	case S_BLOCK:
		for (struct stmt *c = st->body; c; c = c->next)
			live |= prune(e, c, changed);
		return live;
	case S_NULL:
		return false;
	case S_EXPR:
		if (dead_store(st->e)) {
			/* the library's code is not the user's business */
			if (!st->e->loc.file->privileged)
				elab_warn(e, &st->e->loc, "eliding assignment "
					  "to '%s', which is never read",
					  st->e->a->str);
			st->e = st->e->b;
			*changed = true;
			if (has_effect(st->e))
				return true;
			unread_one(st->e);
			st->kind = S_NULL;
			st->e = NULL;
			return false;
		}
		if (has_effect(st->e))
			return true;
		if (!st->e->loc.file->privileged)
			elab_warn(e, &st->e->loc, "eliding side-effect-free "
				  "expression");
		/* (its reads are kept: pass 2 did not count those of a
		 * plainly pure statement; an overcount only keeps more) */
		*changed = true;
		st->kind = S_NULL;
		st->e = NULL;
		return false;
	case S_IF:
		if (st->e && st->e->kind == E_NUM) {
			/* only the branch taken stays (see resolve_if()) */
			struct stmt *taken = st->e->num ? st->body : st->else_body;

			st->kind = taken ? S_BLOCK : S_NULL;
			st->body = taken;
			st->else_body = NULL;
			st->e = NULL;
			return prune(e, taken, changed);
		}
		live = prune(e, st->body, changed);
		live |= prune(e, st->else_body, changed);
		if (live || has_effect(st->e))
			return true;
		/* both branches empty: the test goes too */
		unread_one(st->e);
		*changed = true;
		st->kind = S_NULL;
		st->e = NULL;
		st->body = st->else_body = NULL;
		return false;
	case S_TRY:
		live = prune(e, st->body, changed);
		prune(e, st->else_body, changed);
		return live;
	case S_WHILE:
	case S_FOR:
		/* a loop that does nothing goes, as in SystemTap, even one
		 * that would never end (`while (j < 5);`) */
		if (prune(e, st->body, changed) || has_effect(st->e) ||
		    has_effect(st->init) || has_effect(st->incr))
			return true;
		st->kind = S_NULL;
		st->body = NULL;
		st->e = st->init = st->incr = NULL;
		return false;
	default:
		if (st->body)
			prune(e, st->body, changed);
		return true;
	}
}

/* Locals only named in code pass 2 dropped: as if never declared. */
static void drop_unused_locals(struct symbol **lp)
{
	while (*lp) {
		if ((*lp)->reads || (*lp)->writes)
			lp = &(*lp)->next;
		else
			*lp = (*lp)->next;
	}
}

void optimize_program(struct elab *e)
{
	struct program *prog = e->prog;
	struct function **fp = &prog->functions;
	struct symbol **gp = &prog->globals;
	struct dprobe **pp = &prog->probes;
	const struct probe_point *warned = NULL;

	for (struct symbol *g = prog->globals; g; g = g->next)
		if (g->writes - g->dead_writes > (g->decl->init ? 1u : 0u) &&
		    g->reads == g->dead_reads &&
		    !g->decl->loc.file->privileged)
			g->print_at_exit = true;
	if (e->s->keep_unused)
		return;
	for (struct dprobe *p = prog->probes; p; p = p->next)
		drop_unused_locals(&p->locals);
	for (struct function *fn = prog->functions; fn; fn = fn->next)
		drop_unused_locals(&fn->locals);
	while (*fp) {
		struct function *fn = *fp;

		if (fn->used) {
			fp = &fn->next;
			continue;
		}
		if (!fn->tapset)
			elab_warn(e, &fn->decl->loc, "eliding unused function "
				  "'%s'", fn->name);
		*fp = fn->next;
	}
	while (*gp) {
		struct symbol *g = *gp;

		if (g->reads || g->writes > (g->decl->init ? 1u : 0u)) {
			gp = &g->next;
			continue;
		}
		if (!g->decl->loc.file->privileged)
			elab_warn(e, &g->loc, "eliding unused variable '%s'",
				  g->name);
		*gp = g->next;
	}
	while (*pp) {
		struct dprobe *p = *pp;
		bool live, changed;

		do {
			changed = false;
			live = prune(e, p->body, &changed);
		} while (changed);
		if (live || p->cond) {
			pp = &p->next;
			continue;
		}
		/* one warning per point of the script, however many probes
		 * it resolved to */
		if (p->user != warned)
			elab_warn(e, &p->user->loc, "probe '%s' has been elided: "
				  "it does nothing", p->user == p->point ?
				  p->name : pp_text(e->s, p->user));
		warned = p->user;
		*pp = p->next;
		prog->nprobes--;
	}
}
