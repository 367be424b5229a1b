/* optimize.c - elide what a script never uses, and say so (-u keeps all).
 *
 * Functions never called and globals never touched are dropped (the
 * library's quietly, the script's with a warning); expression statements
 * without side effects are dropped; a probe left with nothing to do is
 * dropped. Globals written but never read are marked to be printed when
 * the script ends.
 */
#include <string.h>

#include "elab-internal.h"

static bool has_effect(const struct expr *x)
{
	if (!x)
		return false;
	switch (x->kind) {
	case E_CALL: {
		const struct function *fn = x->ref;

		/* a pure embedded-C function has none of its own, nor has
		 * the sprint family (a string, not output: an unused
		 * `s = sprintf(...)` must not become a printf) */
		if ((fn && fn->pure && !fn->overload) ||
		    (!fn && x->str && strncmp(x->str, "sprint", 6) == 0)) {
			for (const struct expr *a = x->args; a; a = a->next)
				if (has_effect(a))
					return true;
			return false;
		}
		return true;
	}
	case E_ASSIGN:
	case E_CREMENT:
	case E_EMBEDDED:
		return true;
	case E_IN:
	case E_INDEX:
		for (const struct expr *a = x->args; a; a = a->next)
			if (has_effect(a))
				return true;
		return false;
	default:
		return has_effect(x->a) || has_effect(x->b) ||
		       has_effect(x->c);
	}
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

/* Returns true when the statement still does something. */
static bool prune(struct elab *e, struct stmt *st)
{
	bool live = false;

	if (!st)
		return false;
	switch (st->kind) {
	case S_BLOCK:
		for (struct stmt *c = st->body; c; c = c->next)
			live |= prune(e, c);
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
			if (has_effect(st->e))
				return true;
			st->kind = S_NULL;
			st->e = NULL;
			return false;
		}
		if (has_effect(st->e))
			return true;
		if (!st->e->loc.file->privileged)
			elab_warn(e, &st->e->loc, "eliding side-effect-free "
				  "expression");
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
			return prune(e, taken);
		}
		live = prune(e, st->body);
		live |= prune(e, st->else_body);
		return live || has_effect(st->e);
	case S_TRY:
		live = prune(e, st->body);
		prune(e, st->else_body);
		return live;
	case S_WHILE:
	case S_FOR:
		/* a loop that does nothing goes, as in SystemTap, even one
		 * that would never end (`while (j < 5);`) */
		if (prune(e, st->body) || has_effect(st->e) ||
		    has_effect(st->init) || has_effect(st->incr))
			return true;
		st->kind = S_NULL;
		st->body = NULL;
		st->e = st->init = st->incr = NULL;
		return false;
	default:
		if (st->body)
			prune(e, st->body);
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

		if (prune(e, p->body) || p->cond) {
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
