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
#include <stdlib.h>
#include <string.h>

#include "elab-internal.h"
#include "xalloc.h"

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
	/* (read only in a branch pass 2 drops: the syscall aliases'
	 * `if (@probewrite(fd))` when the script does not write fd) */
	return sym && !sym->global && !sym->param &&
	       sym->reads == sym->dead_reads;
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
 * it dropped something. early: drop only the expression statements
 * without effect and the stores to locals no one reads, not the code of
 * constant conditions nor empty loops (before the types: see
 * elide_dead_stores()). */
static bool prune(struct elab *e, struct stmt *st, bool *changed,
		  bool early)
{
	bool live = false;

	if (!st)
		return false;
	switch (st->kind) {
	case S_BLOCK:
		for (struct stmt *c = st->body; c; c = c->next)
			live |= prune(e, c, changed, early);
		return live;
	case S_NULL:
		return false;
	case S_EXPR:
		/* (before the types, only a local never read, not one read
		 * in dropped code: that code still types it) */
		if (dead_store(st->e) &&
		    (!early ||
		     !((const struct symbol *)st->e->a->ref)->reads)) {
			/* the library's code is not the user's business */
			if (!st->e->loc.file->privileged)
				elab_warn(e, &st->e->loc, "eliding assignment "
					  "to '%s', which is never read",
					  st->e->a->str);
			/* the local loses this write (unused locals go
			 * after the pruning, before the types) */
			((struct symbol *)st->e->a->ref)->writes--;
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
		if (early) {
			prune(e, st->body, changed, true);
			prune(e, st->else_body, changed, true);
			return true;
		}
		if (st->e && st->e->kind == E_NUM) {
			/* only the branch taken stays (see resolve_if()) */
			struct stmt *taken = st->e->num ? st->body : st->else_body;

			st->kind = taken ? S_BLOCK : S_NULL;
			st->body = taken;
			st->else_body = NULL;
			st->e = NULL;
			return prune(e, taken, changed, false);
		}
		live = prune(e, st->body, changed, false);
		live |= prune(e, st->else_body, changed, false);
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
		live = prune(e, st->body, changed, early);
		prune(e, st->else_body, changed, early);
		return live || early;
	case S_WHILE:
	case S_FOR:
		/* a loop that does nothing goes, as in SystemTap, even one
		 * that would never end (`while (j < 5);`) */
		if (prune(e, st->body, changed, early) || early ||
		    has_effect(st->e) ||
		    has_effect(st->init) || has_effect(st->incr))
			return true;
		st->kind = S_NULL;
		st->body = NULL;
		st->e = st->init = st->incr = NULL;
		return false;
	default:
		if (st->body)
			prune(e, st->body, changed, early);
		return true;
	}
}

/* ---- the syscall aliases' __sc_enter() ----
 *
 * It sets the hit's system-call registers (tapir_set_syscall_regs()) for
 * the *_arg() functions, whose embedded C reads them and says
 * "pragma:syscall_regs" (or calls tapir_syscall_regs() itself). A probe
 * that reaches none of those does not need the call: without it, a
 * counting syscall probe costs what it did before the call was there
 * (34 guest instructions a hit, bench/overhead y). */

static bool fn_reads_sregs(struct elab *e, struct function *fn)
{
	for (; fn; fn = fn->overload) {
		if (fn->mark == e->mark)
			continue;
		fn->mark = e->mark;
		if (fn->decl->code &&
		    (strstr(fn->decl->code, "pragma:syscall_regs") ||
		     strstr(fn->decl->code, "tapir_syscall_regs(")))
			return true;
		for (int i = 0; i < fn->ncallees; i++)
			if (fn_reads_sregs(e, fn->callees[i]))
				return true;
	}
	return false;
}

static bool expr_reads_sregs(struct elab *e, const struct expr *x)
{
	for (; x; x = x->next) {
		if (x->kind == E_NUM || x->kind == E_STR)
			continue;	/* (their str is num's) */
		if ((x->kind == E_CALL && x->ref &&
		     fn_reads_sregs(e, x->ref)) ||
		    (x->kind == E_EMBEDDED &&
		     (strstr(x->str, "pragma:syscall_regs") ||
		      strstr(x->str, "tapir_syscall_regs("))) ||
		    expr_reads_sregs(e, x->a) || expr_reads_sregs(e, x->b) ||
		    expr_reads_sregs(e, x->c) || expr_reads_sregs(e, x->args))
			return true;
		for (const struct chain *c = x->chain; c; c = c->next)
			if (expr_reads_sregs(e, c->index))
				return true;
	}
	return false;
}

static bool stmts_read_sregs(struct elab *e, const struct stmt *st)
{
	for (; st; st = st->next) {
		/* not the branch pass 2 drops: an argument write-back
		 * `if (@probewrite(fd))` whose fd the script leaves */
		if (st->kind == S_IF && st->e && st->e->kind == E_NUM) {
			if (stmts_read_sregs(e, st->e->num ? st->body :
					     st->else_body))
				return true;
			continue;
		}
		if (expr_reads_sregs(e, st->e) ||
		    expr_reads_sregs(e, st->init) ||
		    expr_reads_sregs(e, st->incr) ||
		    stmts_read_sregs(e, st->body) ||
		    stmts_read_sregs(e, st->else_body) ||
		    (st->fe && expr_reads_sregs(e, st->fe->limit)))
			return true;
	}
	return false;
}

void note_sregs_readers(struct elab *e)
{
	for (struct dprobe *p = e->prog->probes; p; p = p->next) {
		e->mark++;
		p->reads_sregs = stmts_read_sregs(e, p->body);
	}
}

/* Drops the statements that only call a setter of the registers. */
static void drop_sregs_setters(struct stmt *st)
{
	for (; st; st = st->next) {
		const struct function *fn;

		if (st->kind == S_EXPR && st->e->kind == E_CALL &&
		    (fn = st->e->ref) && fn->decl->code &&
		    strstr(fn->decl->code, "tapir_set_syscall_regs(")) {
			st->kind = S_NULL;
			st->e = NULL;
			continue;
		}
		drop_sregs_setters(st->body);
		drop_sregs_setters(st->else_body);
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

/* ---- never-assigned variables ---- */

struct unassigned {
	struct elab *e;
	const char **names;		/* the candidates for "similar" */
	int n, cap;
	const struct loc **warned;	/* one warning per place */
	int nwarned;
};

static void add_name(struct unassigned *u, const char *name)
{
	if (u->n == u->cap) {
		u->cap = u->cap ? 2 * u->cap : 16;
		u->names = xrealloc(u->names, (size_t)u->cap * sizeof(*u->names));
	}
	u->names[u->n++] = name;
}

static bool never_assigned(const struct symbol *sym)
{
	return sym->first_read && !sym->assigned && !sym->param &&
	       sym->read_loc.file && !sym->read_loc.file->privileged;
}

/* Warn, once per place, about sym, with the nearest of the candidates
 * (the scope's other variables and the globals) as its similar. */
static void warn_one(struct unassigned *u, const struct symbol *sym,
		     const char *kind, const struct loc *l)
{
	const char *sim;

	for (int i = 0; i < u->nwarned; i++)
		if (u->warned[i]->file == l->file &&
		    u->warned[i]->line == l->line && u->warned[i]->col == l->col)
			return;
	u->warned = xrealloc(u->warned, (size_t)(u->nwarned + 1) *
			     sizeof(*u->warned));
	u->warned[u->nwarned++] = l;
	sim = nearest_names(u->e->s, sym->name, u->names, u->n, sym->global);
	if (sim)
		elab_warn(u->e, l, "never-assigned %s variable '%s' (similar: "
			  "%s)", kind, sym->name, sim);
	else
		elab_warn(u->e, l, "never-assigned %s variable '%s'", kind,
			  sym->name);
}

/* The locals of one probe or function that are read but never assigned:
 * similar to the scope's other variables and to the globals (names[0..
 * nglobals)). */
static int by_first_read(const void *a, const void *b)
{
	const struct symbol *x = *(const struct symbol *const *)a;
	const struct symbol *y = *(const struct symbol *const *)b;

	return x->first_read < y->first_read ? -1 : x->first_read > y->first_read;
}

/* The never-assigned among syms, in the order they are first read. */
static int unassigned_of(struct symbol *syms, bool script_globals,
			 struct symbol ***out)
{
	struct symbol **v = NULL;
	int n = 0;

	for (struct symbol *sym = syms; sym; sym = sym->next) {
		if (!never_assigned(sym) ||
		    (script_globals && sym->decl->loc.file->privileged))
			continue;
		v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
		v[n++] = sym;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), by_first_read);
	*out = v;
	return n;
}

static void warn_scope(struct unassigned *u, int nglobals,
		       const struct symbol *params, struct symbol *locals)
{
	struct symbol **v;
	int n = unassigned_of(locals, false, &v);

	for (int i = 0; i < n; i++) {
		u->n = nglobals;
		for (const struct symbol *o = params; o; o = o->next)
			add_name(u, o->name);
		for (const struct symbol *o = locals; o; o = o->next)
			if (o != v[i])
				add_name(u, o->name);
		warn_one(u, v[i], "local", &v[i]->read_loc);
	}
	free(v);
}

/* As SystemTap's optimizer does: a variable the script reads and nothing
 * assigns (not even in code that is dropped) gets a warning with the
 * names it may have meant, locals at their first read, scope by scope,
 * then globals at their declaration, in the order they are first read;
 * before types are inferred (a variable nothing assigns often has none),
 * and not with -u, which keeps the optimizer out. */
void warn_unassigned(struct elab *e)
{
	struct unassigned u = { .e = e };
	struct symbol **g;
	int nglobals, ng;

	for (struct symbol *sym = e->prog->globals; sym; sym = sym->next)
		add_name(&u, sym->name);
	nglobals = u.n;
	for (struct dprobe *p = e->prog->probes; p; p = p->next)
		warn_scope(&u, nglobals, NULL, p->locals);
	for (struct function *fn = e->prog->functions; fn; fn = fn->next)
		if (fn->used)
			warn_scope(&u, nglobals, fn->params, fn->locals);
	u.n = nglobals;
	ng = unassigned_of(e->prog->globals, true, &g);
	for (int i = 0; i < ng; i++)
		warn_one(&u, g[i], "global", &g[i]->decl->loc);
	free(g);
	free(u.names);
	free(u.warned);
}

/* Before the types, as stap 4.8's first optimization: the expression
 * statements without effect and the stores to probe locals that no one
 * reads go (with their warnings), in one pass over each body, and with
 * them the locals they alone used. What they held is then neither typed
 * nor resolved: `x = $gone` with x never read, or `1 + "a";`, is no
 * error, as in stap. A store whose only reader goes in the same pass
 * stays for now (`x = 1 + "a"; y = x` is still x's type error, as in
 * stap); optimize_program() takes it after the types. */
void elide_dead_stores(struct elab *e)
{
	for (struct dprobe *p = e->prog->probes; p; p = p->next) {
		bool changed = false;

		prune(e, p->body, &changed, true);
		drop_unused_locals(&p->locals);
	}
}

static bool expr_holds(const struct expr *x, const struct expr *node)
{
	for (; x; x = x->next) {
		if (x == node || expr_holds(x->a, node) ||
		    expr_holds(x->b, node) || expr_holds(x->c, node) ||
		    expr_holds(x->args, node))
			return true;
		for (const struct chain *c = x->chain; c; c = c->next)
			if (expr_holds(c->index, node))
				return true;
	}
	return false;
}

static bool stmts_hold(const struct stmt *st, const struct expr *node)
{
	for (; st; st = st->next)
		if (expr_holds(st->e, node) || expr_holds(st->init, node) ||
		    expr_holds(st->incr, node) ||
		    (st->fe && (expr_holds(st->fe->array, node) ||
				expr_holds(st->fe->limit, node))) ||
		    stmts_hold(st->body, node) || stmts_hold(st->else_body, node))
			return true;
	return false;
}

/* The deferred $var errors whose access is still in its probe's body:
 * now they are errors. */
void report_deferred_errors(struct elab *e)
{
	for (struct dprobe *p = e->prog->probes; p; p = p->next)
		for (const struct deferred_error *d = p->deferred; d; d = d->next)
			if (stmts_hold(p->body, d->node) ||
			    expr_holds(p->cond, d->node))
				elab_error(e, &d->loc, "%s", d->msg);
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
		    g->reads - g->pragma_reads == g->dead_reads &&
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
		/* quietly, as stap 4.8 does (even at -vvv) */
		*fp = fn->next;
	}
	while (*gp) {
		struct symbol *g = *gp;

		if (g->reads || g->writes > (g->decl->init ? 1u : 0u)) {
			gp = &g->next;
			continue;
		}
		*gp = g->next;		/* quietly too */
	}
	while (*pp) {
		struct dprobe *p = *pp;
		bool live, changed;

		if (!p->reads_sregs)
			drop_sregs_setters(p->body);
		do {
			changed = false;
			live = prune(e, p->body, &changed, false);
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
	for (struct dprobe *p = prog->probes; p; p = p->next)
		drop_unused_locals(&p->locals);
}
