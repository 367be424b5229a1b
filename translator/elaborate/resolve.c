/* resolve.c - pass 2 driver and name resolution.
 *
 * elaborate() reads as the pass: index the library, add the script's
 * definitions, expand every probe point into derived probes (probes.c),
 * resolve each body and, from a worklist, each function called, then
 * infer types (types.c), check, and elide what is unused (optimize.c).
 *
 * In a body an identifier is, in this order: a parameter, a local already
 * seen, a global in scope (the script's, or a loaded tapset's), a global
 * some tapset defines (which loads that tapset), else a new local. Arrays
 * and statistics are global only.
 */
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dwarf-api.h"
#include "elab-internal.h"
#include "providers/provider.h"
#include "xalloc.h"

void elab_error(struct elab *e, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	/* walks repeat (type inference runs to a fixpoint): say each
	 * thing once per place */
	if (l && e->last_error.file == l->file && e->last_error.line == l->line &&
	    e->last_error.col == l->col)
		return;
	if (l)
		e->last_error = *l;
	va_start(ap, fmt);
	diag_vat(e->s, l, "semantic error", fmt, ap);
	va_end(ap);
	e->s->errors++;
}

void elab_warn(struct elab *e, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	if (e->s->no_warnings)
		return;
	va_start(ap, fmt);
	diag_vat(e->s, l, e->s->warnings_fatal ? "semantic error" : "warning",
		 fmt, ap);
	va_end(ap);
	if (e->s->warnings_fatal)
		e->s->errors++;
	else
		e->s->warnings++;
}

void elab_note(struct elab *e, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	if (e->s->max_errors > 0 && e->s->errors > e->s->max_errors)
		return;
	va_start(ap, fmt);
	diag_vat(e->s, l, "note", fmt, ap);
	va_end(ap);
}

/* ---- "did you mean" ---- */

static int distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[64], prev, tmp;

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* The five names nearest to word within limit edits (limit < 0: any),
 * by distance then name; word itself counts only when exact is set. */
static const char *nearest(struct session *s, const char *word,
			   const char *const *names, int n, int limit,
			   bool exact)
{
	const char *best[5];
	int bestd[5], nbest = 0;
	char *out;
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		int d = distance(word, names[i]), k;
		bool dup = false;

		if ((limit >= 0 && d > limit) || (d == 0 && !exact))
			continue;
		for (k = 0; k < nbest; k++)
			if (strcmp(best[k], names[i]) == 0)
				dup = true;
		if (dup)
			continue;
		/* insertion into the five best, by distance then name */
		for (k = nbest; k > 0 && (bestd[k - 1] > d ||
			(bestd[k - 1] == d && strcmp(best[k - 1], names[i]) > 0));
		     k--) {
			if (k < 5) {
				best[k] = best[k - 1];
				bestd[k] = bestd[k - 1];
			}
		}
		if (k < 5) {
			best[k] = names[i];
			bestd[k] = d;
			if (nbest < 5)
				nbest++;
		}
	}
	if (!nbest)
		return NULL;
	for (int k = 0; k < nbest; k++)
		len += strlen(best[k]) + 2;
	out = arena_alloc(&s->arena, len + 1);
	for (int k = 0; k < nbest; k++) {
		strcat(out, best[k]);
		if (k + 1 < nbest)
			strcat(out, ", ");
	}
	return out;
}

const char *similar_names(struct session *s, const char *word,
			  const char *const *names, int n)
{
	int limit = (int)strlen(word) / 3 + 1;

	return nearest(s, word, names, n, limit > 4 ? 4 : limit, false);
}

const char *nearest_names(struct session *s, const char *word,
			  const char *const *names, int n, bool self)
{
	return nearest(s, word, names, n, -1, self);
}

/* ---- scopes ---- */

static bool visible(const struct elab *e, const struct decl *d)
{
	return !d || !d->private_ || d->loc.file == e->file;
}

/*
 * Whether code of the file being resolved sees global 'd' of the script:
 * tapset code does not. A tapset function's undeclared variables are its
 * locals, and a script's `global n` (or s, p, i, ...) must not capture
 * them, or merely using an alias or function that has such a local would
 * fail to elaborate ("array 'n' used as a scalar") or share state with
 * the script. Tapset code reaches the tapsets' own globals only.
 */
static bool script_global_hidden(const struct elab *e, const struct decl *d)
{
	return d && e->file && e->file->privileged && d->loc.file &&
	       !d->loc.file->privileged;
}

struct symbol *global_lookup(struct elab *e, const char *name)
{
	struct strmap_entry *it = NULL;
	struct tapset_file *f;

	while ((it = strmap_next(&e->globals, name, it))) {
		const struct decl *d = ((struct symbol *)it->value)->decl;

		if (visible(e, d) && !script_global_hidden(e, d))
			return it->value;
	}
	/* a tapset global: loading its file brings it in */
	it = NULL;
	while ((it = strmap_next(&e->idx->globals, name, it))) {
		f = it->value;
		if (!f->loaded) {
			tapset_load(e, f);
			return global_lookup(e, name);
		}
	}
	return NULL;
}

static int cmp_priority(const void *a, const void *b)
{
	const struct function *x = *(struct function *const *)a;
	const struct function *y = *(struct function *const *)b;
	int64_t px = x->decl->priority ? x->decl->priority : 1;
	int64_t py = y->decl->priority ? y->decl->priority : 1;

	if (px != py)
		return px < py ? -1 : 1;
	/* the script's own before the library's, then by place */
	if (x->tapset != y->tapset)
		return x->tapset ? 1 : -1;
	return x->decl->loc.line - y->decl->loc.line;
}

struct function *function_lookup(struct elab *e, const char *name, int arity,
				 bool *other_arity)
{
	struct strmap_entry *it = NULL;
	struct function *v[64];
	int n = 0;

	bool script_has = false, own_private = false;

	/* a private function of the calling file comes first; a function of
	 * the script hides the library's of that arity; otherwise every
	 * library file defining the name joins the program */
	while ((it = strmap_next(&e->functions, name, it))) {
		struct function *fn = it->value;

		if (fn->nparams != arity)
			continue;
		if (fn->decl->private_ && fn->decl->loc.file == e->file)
			own_private = true;
		else if (!fn->tapset && !fn->decl->private_)
			script_has = true;
	}
	script_has |= own_private;
	it = NULL;
	while (!script_has && (it = strmap_next(&e->idx->functions, name, it)))
		tapset_load(e, it->value);
	it = NULL;
	*other_arity = false;
	while ((it = strmap_next(&e->functions, name, it))) {
		struct function *fn = it->value;

		if (!visible(e, fn->decl) ||
		    (own_private && !fn->decl->private_ && fn->nparams == arity) ||
		    (!own_private && script_has && fn->tapset))
			continue;
		if (fn->nparams != arity) {
			*other_arity = true;
			continue;
		}
		if (n < 64)
			v[n++] = fn;
	}
	if (!n)
		return NULL;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_priority);
	for (int i = 0; i + 1 < n; i++)
		v[i]->overload = v[i + 1];
	v[n - 1]->overload = NULL;
	return v[0];
}

static struct symbol *find_sym(struct symbol *list, const char *name)
{
	for (; list; list = list->next)
		if (strcmp(list->name, name) == 0)
			return list;
	return NULL;
}

static struct symbol *new_local(struct elab *e, const char *name,
				const struct loc *l)
{
	struct symbol *sym = ANEW(&e->s->arena, struct symbol);

	sym->name = name;
	sym->loc = *l;
	sym->arity = 0;
	sym->next = *e->locals;
	*e->locals = sym;
	return sym;
}

/*
 * The symbol an identifier names. 'arity' is 0 for a scalar use and the
 * number of indexes for an array use.
 */
static struct symbol *resolve_name(struct elab *e, const char *name,
				   const struct loc *l, int arity)
{
	struct symbol *sym = NULL;

	/* private names are seen from code of their own file, wherever
	 * that code ended up (alias bodies are copied into probes) */
	e->file = l->file;
	if (e->fn)
		sym = find_sym(e->fn->params, name);
	if (!sym)
		sym = find_sym(*e->locals, name);
	if (!sym)
		sym = global_lookup(e, name);
	if (sym) {
		if (!sym->global && arity > 0) {
			elab_error(e, l, "%s '%s' used as an array; arrays "
				   "must be declared global", sym->param ?
				   "parameter" : "local variable", name);
			return NULL;
		}
		return sym;
	}
	if (arity > 0) {
		const char **names = xcalloc(e->globals.count + 1, sizeof(*names));
		const char *sim;
		int n = 0;

		for (struct symbol *g = e->prog->globals; g; g = g->next)
			if ((size_t)n < e->globals.count)
				names[n++] = g->name;
		sim = similar_names(e->s, name, names, n);
		free(names);
		if (sim)
			elab_error(e, l, "unresolved arity-%d global array %s, "
				   "missing global declaration? (similar: %s)",
				   arity, name, sim);
		else
			elab_error(e, l, "unresolved arity-%d global array %s, "
				   "missing global declaration?", arity, name);
		return NULL;
	}
	return new_local(e, name, l);
}

/* A use that counts toward printing at exit and eliding: none in code
 * that pass 2 drops (e->dead), as SystemTap drops it before counting. */
static void note_read(struct elab *e, struct symbol *sym,
		      const struct loc *l)
{
	if (sym && !sym->first_read) {
		sym->first_read = ++e->nreads;
		sym->read_loc = *l;
	}
	if (sym && !e->dead) {
		sym->reads++;
		if (e->untaken)
			sym->dead_reads++;
	}
}

static void record_write(struct elab *e, struct symbol *sym,
			 const struct loc *l)
{
	if (sym)
		sym->assigned = true;
	if (!sym || e->dead)
		return;
	sym->writes++;
	if (e->untaken)
		sym->dead_writes++;
	if (sym->global) {
		for (int i = 0; i < e->niterating; i++)
			if (strcmp(e->iterating[i], sym->name) == 0)
				elab_error(e, l, "invalid modification of "
					   "array '%s' inside a foreach loop "
					   "over it", sym->name);
		if (e->fn) {
			struct function *fn = e->fn;

			for (int i = 0; i < fn->nwrites; i++)
				if (fn->writes[i] == sym)
					return;
			fn->writes = xrealloc(fn->writes, (size_t)(fn->nwrites + 1) *
					     sizeof(*fn->writes));
			fn->writes[fn->nwrites++] = sym;
		}
	}
}

/* ---- expressions ---- */

static bool is_print(const char *name)
{
	static const char *const names[] = {
		"print", "println", "printd", "printdln", "printf", "sprint",
		"sprintln", "sprintd", "sprintdln", "sprintf", NULL
	};

	for (int i = 0; names[i]; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

static void function_names(const char *key, void *value, void *arg)
{
	struct { const char **v; int n, cap; } *acc = arg;

	(void)value;
	if (acc->n < acc->cap)
		acc->v[acc->n++] = key;
}

static void unresolved_function(struct elab *e, const struct expr *x,
				bool other_arity, int nargs)
{
	struct { const char **v; int n, cap; } acc;
	const char *sim;

	if (other_arity) {
		elab_error(e, &x->loc, "no overload of function '%s' takes "
			   "%d argument%s", x->str, nargs, nargs == 1 ? "" : "s");
		return;
	}
	acc.cap = (int)(e->functions.count + e->idx->functions.count) + 16;
	acc.v = xcalloc((size_t)acc.cap, sizeof(*acc.v));
	acc.n = 0;
	strmap_each(&e->functions, function_names, &acc);
	strmap_each(&e->idx->functions, function_names, &acc);
	sim = similar_names(e->s, x->str, acc.v, acc.n);
	free(acc.v);
	if (sim)
		elab_error(e, &x->loc, "unresolved function '%s' (similar: %s)",
			   x->str, sim);
	else
		elab_error(e, &x->loc, "unresolved function '%s'", x->str);
}

static void push_work(struct elab *e, struct function *fn)
{
	if (e->nwork == e->capwork) {
		e->capwork = e->capwork ? e->capwork * 2 : 32;
		e->work = xrealloc(e->work, (size_t)e->capwork * sizeof(*e->work));
	}
	e->work[e->nwork++] = fn;
}

static void add_callee(struct function *caller, struct function *fn)
{
	for (int i = 0; i < caller->ncallees; i++)
		if (caller->callees[i] == fn)
			return;
	caller->callees = xrealloc(caller->callees, (size_t)(caller->ncallees + 1) *
				  sizeof(*caller->callees));
	caller->callees[caller->ncallees++] = fn;
}

static void call_function(struct elab *e, struct expr *x)
{
	int nargs = 0;
	bool other;
	struct function *fn;

	for (struct expr *a = x->args; a; a = a->next) {
		resolve_expr(e, a);
		nargs++;
	}
	if (is_print(x->str))
		return;
	e->file = x->loc.file;
	fn = function_lookup(e, x->str, nargs, &other);
	if (!fn) {
		unresolved_function(e, x, other, nargs);
		return;
	}
	x->ref = fn;
	if (e->fn)
		add_callee(e->fn, fn);
	if (fn->decl->code && strstr(fn->decl->code, "/* guru */") &&
	    !e->s->guru && !x->loc.file->privileged)
		elab_error(e, &x->loc, "function '%s' is for guru mode only; "
			   "need -g", fn->name);
	if (e->niterating) {
		struct call_check *c;

		e->checks = xrealloc(e->checks, (size_t)(e->nchecks + 1) *
				    sizeof(*e->checks));
		c = &e->checks[e->nchecks++];
		c->fn = fn;
		c->narrays = e->niterating;
		c->arrays = arena_alloc(&e->s->arena, (size_t)e->niterating *
					sizeof(*c->arrays));
		memcpy(c->arrays, e->iterating, (size_t)e->niterating *
		       sizeof(*c->arrays));
		c->loc = x->loc;
	}
	for (struct function *o = fn; o; o = o->overload) {
		if (o->used)
			continue;
		o->used = true;
		push_work(e, o);
	}
}

/* $value of a procfs probe (providers/procfs.c): a string, the only
 * target variable there; written (= and .=) in a read probe, read in a
 * write probe. @store: x is the left side of an assignment whose
 * operator is op. False when x is not the probe's (an error was
 * reported). */
static bool procfs_value(struct elab *e, struct expr *x, bool store, int op)
{
	const struct dprobe *p = e->probe;

	if (x->kind != E_TARGET || strcmp(x->str, "value") != 0) {
		elab_error(e, &x->loc, "invalid target symbol for procfs probe, "
			   "$value expected");
		return false;
	}
	if (x->chain) {
		elab_error(e, &x->chain->loc, "procfs variable '$value' may not "
			   "be used as %s", x->chain->field ? "a structure" :
			   "array");
		return false;
	}
	if (x->pretty || x->addr) {
		elab_error(e, &x->loc, "procfs variable '$value' is a string: "
			   "'%s' does not apply", x->addr ? "&" : "$");
		return false;
	}
	if (store && p->procfs_write) {
		elab_error(e, &x->loc, "procfs $value variable is read-only in "
			   "a procfs write probe");
		return false;
	}
	if (store && op != OP_ASSIGN && op != OP_CONCAT) {
		elab_error(e, &x->loc, "Only the following assign operators "
			   "are implemented on procfs read target variables: "
			   "'=', '.='");
		return false;
	}
	if (!store && !p->procfs_write) {
		elab_error(e, &x->loc, "procfs $value variable cannot be read "
			   "in a procfs read probe");
		return false;
	}
	return true;
}

/* Where a value may be stored. Target variables need -g to be written. */
static struct symbol *lvalue(struct elab *e, struct expr *x,
			     const struct loc *op)
{
	switch (x->kind) {
	case E_VAR:
	case E_INDEX:
		resolve_expr(e, x);
		/* being stored to is not being read */
		if (x->ref && !e->dead) {
			((struct symbol *)x->ref)->reads--;
			if (e->untaken)
				((struct symbol *)x->ref)->dead_reads--;
		}
		return x->ref;
	case E_TARGET:
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
		if (e->probe && e->probe->procfs && x->kind == E_TARGET) {
			/* = and .= do not come here: ++, -- */
			procfs_value(e, x, true, OP_INC);
			return NULL;
		}
		resolve_expr(e, x);
		if (x->kind == E_VAR)	/* a netfilter probe's $verdict */
			return x->ref;
		if (!e->s->guru)
			elab_error(e, &x->loc, "writing to a target variable "
				   "needs -g (guru mode)");
		return NULL;
	default:
		resolve_expr(e, x);
		elab_error(e, op, "expecting an lvalue for assignment");
		return NULL;
	}
}

static void resolve_chain(struct elab *e, struct chain *c)
{
	for (; c; c = c->next)
		if (c->index)
			resolve_expr(e, c->index);
}

static void target_use(struct elab *e, struct expr *x)
{
	if (e->fn)
		e->fn->uses_targets = true;
	if (e->probe && e->probe->procfs &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR)) {
		procfs_value(e, x, false, 0);
		return;
	}
	if (e->probe && process_is_syscall(e->probe) &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR)) {
		if (process_syscall_target(e, x))
			resolve_expr(e, x);
		return;
	}
	if ((x->kind == E_TARGET || x->kind == E_CTXVAR) &&
	    strcmp(x->str, "return") == 0 && e->probe &&
	    !e->probe->is_return) {
		elab_error(e, &x->loc, "'$%s' is only available in return "
			   "probes, not in '%s'", x->kind == E_CTXVAR ?
			   "$return" : "return", e->probe->name);
		return;
	}
	/* $vars and $$vars come from debuginfo: only the DWARF probes
	 * (kernel.function, module().function) have them; @cast and @var
	 * work anywhere */
	if (e->probe && e->probe->mark &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR) &&
	    process_mark_target(e, x)) {
		if (x->kind != E_TARGET && x->kind != E_CTXVAR)
			resolve_expr(e, x);
		return;
	}
	if (e->probe && e->probe->netfilter &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR) &&
	    netfilter_target(e, x)) {
		struct symbol *sym;

		if (x->kind != E_VAR)
			return;
		resolve_expr(e, x);
		/* set by the handler's prologue (emit.c) */
		sym = x->ref;
		if (sym && sym->type == TYPE_UNKNOWN) {
			sym->type = TYPE_LONG;
			sym->type_loc = x->loc;
			sym->writes++;
			sym->assigned = true;
		}
		return;
	}
	if (e->probe && e->probe->process && !e->probe->dwarf &&
	    e->probe->process_event == PROC_NONE &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR)) {
		elab_error(e, &x->loc, "target variable '$%s%s' of a "
			   "process(...) probe: '%s' has no DWARF for it",
			   x->kind == E_CTXVAR ? "$" : "", x->str,
			   e->probe->name);
		return;
	}
	if (e->probe && !e->probe->has_targets &&
	    (x->kind == E_TARGET || x->kind == E_CTXVAR)) {
		elab_error(e, &x->loc, "target variable '$%s%s' is not "
			   "available in '%s'%s", x->kind == E_CTXVAR ? "$" : "",
			   x->str, e->probe->name,
			   e->probe->prov && e->probe->prov->name &&
			   strcmp(e->probe->prov->name, "kprobe") == 0 ?
			   " (kprobe probes have none: use int_arg(), "
			   "pointer_arg(), returnval() and friends)" : "");
		return;
	}
	if (x->a)
		resolve_expr(e, x->a);
	resolve_chain(e, x->chain);
}

void resolve_expr(struct elab *e, struct expr *x)
{
	struct symbol *sym;
	int n = 0;

	if (!x)
		return;
	switch (x->kind) {
	case E_NUM:
	case E_STR:
	case E_WILD:
	case E_EMBEDDED:
		break;
	case E_VAR:
		x->ref = sym = resolve_name(e, x->str, &x->loc, 0);
		note_read(e, sym, &x->loc);
		break;
	case E_INDEX:
	case E_IN:
		for (struct expr *a = x->args; a; a = a->next, n++)
			resolve_expr(e, a);
		x->ref = sym = resolve_name(e, x->str, &x->loc, n);
		note_read(e, sym, &x->loc);
		break;
	case E_CALL:
		call_function(e, x);
		break;
	case E_ASSIGN:
		resolve_expr(e, x->b);
		if (e->probe && e->probe->procfs &&
		    (x->a->kind == E_TARGET || x->a->kind == E_CTXVAR)) {
			if (procfs_value(e, x->a, true, x->op)) {
				const struct loc **first = x->op == OP_ASSIGN ?
					&e->prog->procfs_set :
					&e->prog->procfs_append;

				if (!*first)
					*first = &x->a->loc;
			}
			break;
		}
		sym = lvalue(e, x->a, &x->loc);
		record_write(e, sym, &x->loc);
		break;
	case E_CREMENT:
		if (e->probe && e->probe->procfs &&
		    (x->a->kind == E_TARGET || x->a->kind == E_CTXVAR)) {
			procfs_value(e, x->a, true, x->op);
			break;
		}
		/* x++ whose value is used reads x (see resolve_effect) */
		sym = lvalue(e, x->a, &x->loc);
		record_write(e, sym, &x->loc);
		note_read(e, sym, &x->loc);
		break;
	case E_TARGET:
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
	case E_CTXVAR:
		target_use(e, x);
		break;
	case E_AT:
		for (struct expr *a = x->args; a; a = a->next)
			resolve_expr(e, a);
		if (x->op == AT_OP_ENTRY && e->probe && !e->probe->is_return)
			elab_error(e, &x->loc, "'@entry' is only available in "
				   "return probes, not in '%s'", e->probe->name);
		/* a counter's value needs a perf.*.counter("name")
		 * probe, which tapir does not have yet */
		if (x->op == AT_OP_PERF)
			elab_error(e, &x->loc, "cannot translate general "
				   "@perf expression");
		/* those of alias bodies are numbers by now (probes.c) */
		if (x->op == AT_OP_PROBEWRITE && x->args &&
		    x->args->kind != E_VAR)
			elab_error(e, &x->args->loc, "'@probewrite' takes a "
				   "variable");
		else if (x->op == AT_OP_PROBEWRITE)
			elab_error(e, &x->loc, "unexpected @probewrite");
		break;
	default:
		resolve_expr(e, x->a);
		resolve_expr(e, x->b);
		resolve_expr(e, x->c);
		for (struct expr *a = x->args; a; a = a->next)
			resolve_expr(e, a);
		break;
	}
}

/* ---- statements ---- */

static void resolve_stmt(struct elab *e, struct stmt *st);

/*
 * `if (N)` with a literal N: the branch never taken is resolved and typed
 * like any code, but its uses are also counted apart: SystemTap drops it
 * before deciding which globals are written and never read (printed at
 * exit); optimize.c drops it too.
 */
static void resolve_if(struct elab *e, struct stmt *st)
{
	struct stmt *live, *dead;

	resolve_expr(e, st->e);
	if (!st->e || st->e->kind != E_NUM) {
		resolve_stmt(e, st->body);
		resolve_stmt(e, st->else_body);
		return;
	}
	live = st->e->num ? st->body : st->else_body;
	dead = st->e->num ? st->else_body : st->body;
	resolve_stmt(e, live);
	e->untaken++;
	resolve_stmt(e, dead);
	e->untaken--;
}

/* An expression whose value is not used: x++ alone only writes x (as in
 * SystemTap, where `n++` alone leaves n written but never read, so
 * printed at exit, while `if (++n == 4)` reads it). */
static bool plainly_pure(const struct expr *x)
{
	if (!x)
		return true;
	switch (x->kind) {
	case E_CALL:
	case E_ASSIGN:
	case E_CREMENT:
	case E_EMBEDDED:
	case E_TARGET:
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
	case E_CTXVAR:
	case E_AT:
	case E_STAT:
	case E_HIST:
	case E_BUCKET:
		return false;
	default:
		break;
	}
	for (const struct expr *a = x->args; a; a = a->next)
		if (!plainly_pure(a))
			return false;
	return plainly_pure(x->a) && plainly_pure(x->b) && plainly_pure(x->c);
}

static void resolve_effect(struct elab *e, struct expr *x)
{
	struct symbol *sym;

	/* `x;` or `a[1] + 2;` alone: pass 2 drops it (with a warning, see
	 * optimize.c) before counting uses and inferring types */
	if (x && plainly_pure(x)) {
		e->dead++;
		resolve_expr(e, x);
		e->dead--;
		return;
	}

	if (x && x->kind == E_CREMENT) {
		sym = lvalue(e, x->a, &x->loc);
		record_write(e, sym, &x->loc);
		return;
	}
	resolve_expr(e, x);
}

static void resolve_foreach(struct elab *e, struct stmt *st)
{
	struct foreach *fe = st->fe;
	struct expr *arr = fe->array;
	struct symbol *sym;

	if (arr->kind == E_HIST) {
		resolve_expr(e, arr);
	} else {
		for (struct expr *a = arr->args; a; a = a->next)
			resolve_expr(e, a);
		arr->ref = sym = resolve_name(e, arr->str, &arr->loc,
					      fe->nkeys);
		note_read(e, sym, &arr->loc);
	}
	for (struct expr *k = fe->keys; k; k = k->next) {
		k->ref = sym = resolve_name(e, k->str, &k->loc, 0);
		record_write(e, sym, &k->loc);
	}
	if (fe->value) {
		fe->value->ref = sym = resolve_name(e, fe->value->str,
						    &fe->value->loc, 0);
		record_write(e, sym, &fe->value->loc);
	}
	resolve_expr(e, fe->limit);
	if (arr->kind != E_HIST) {
		e->iterating = xrealloc(e->iterating, (size_t)(e->niterating + 1) *
				       sizeof(*e->iterating));
		e->iterating[e->niterating++] = arr->str;
	}
	e->loop_depth++;
	resolve_stmt(e, st->body);
	e->loop_depth--;
	if (arr->kind != E_HIST)
		e->niterating--;
}

static void resolve_stmt(struct elab *e, struct stmt *st)
{
	struct symbol *sym;

	if (!st)
		return;
	{
		switch (st->kind) {
		case S_BLOCK:
			for (struct stmt *c = st->body; c; c = c->next)
				resolve_stmt(e, c);
			break;
		case S_NULL:
		case S_NEXT:
			break;
		case S_BREAK:
		case S_CONTINUE:
			if (!e->loop_depth)
				elab_error(e, &st->loc, "'%s' outside a loop",
					   st->kind == S_BREAK ? "break" :
					   "continue");
			break;
		case S_EXPR:
			resolve_effect(e, st->e);
			break;
		case S_RETURN:
			resolve_expr(e, st->e);
			break;
		case S_IF:
			resolve_if(e, st);
			break;
		case S_WHILE:
		case S_FOR:
			resolve_effect(e, st->init);
			resolve_expr(e, st->e);
			resolve_effect(e, st->incr);
			e->loop_depth++;
			resolve_stmt(e, st->body);
			e->loop_depth--;
			break;
		case S_FOREACH:
			resolve_foreach(e, st);
			break;
		case S_DELETE:
			sym = lvalue(e, st->e, &st->loc);
			record_write(e, sym, &st->loc);
			/* and a use: stap 4.8 prints no global at exit
			 * that a script deletes */
			if (sym && !e->dead) {
				sym->reads++;
				if (e->untaken)
					sym->dead_reads++;
			}
			break;
		case S_TRY:
			resolve_stmt(e, st->body);
			if (st->e) {
				st->e->ref = sym = resolve_name(e, st->e->str,
								&st->e->loc, 0);
				record_write(e, sym, &st->e->loc);
				if (sym && sym->type == TYPE_UNKNOWN) {
					sym->type = TYPE_STRING;
					sym->type_loc = st->e->loc;
				}
			}
			resolve_stmt(e, st->else_body);
			break;
		}
	}
}

void resolve_body(struct elab *e, struct stmt *body)
{
	resolve_stmt(e, body);
}

/* A probe condition may read globals only, and call nothing. */
static void check_condition(struct elab *e, const struct expr *x)
{
	if (!x)
		return;
	if (x->kind == E_CALL)
		elab_error(e, &x->loc, "a probe condition cannot call "
			   "functions");
	if ((x->kind == E_VAR || x->kind == E_INDEX) && x->ref &&
	    !((struct symbol *)x->ref)->global)
		elab_error(e, &x->loc, "a probe condition may use only global "
			   "variables, not '%s'", x->str);
	check_condition(e, x->a);
	check_condition(e, x->b);
	check_condition(e, x->c);
	for (const struct expr *a = x->args; a; a = a->next)
		check_condition(e, a);
}

static void resolve_probe(struct elab *e, struct dprobe *p)
{
	e->fn = NULL;
	e->probe = p;
	e->locals = &p->locals;
	e->file = p->decl->loc.file;
	e->loop_depth = 0;
	dwarf_resolve_probe(e, p);	/* $target variables, @defined */
	resolve_body(e, p->body);
	if (p->cond) {
		resolve_expr(e, p->cond);
		check_condition(e, p->cond);
	}
}

/*
 * Comments in an embedded-C body tell what the C does: pure (no side
 * effects), stable, unprivileged, guru (callable only with -g), unmangled,
 * and pragma:read:NAME / pragma:write:NAME for globals it touches.
 */
static void embedded_pragmas(struct elab *e, struct function *fn)
{
	const char *code = fn->decl->code, *p;

	fn->pure = strstr(code, "/* pure */") != NULL;
	fn->stable = strstr(code, "/* stable */") != NULL;
	fn->unprivileged = strstr(code, "/* unprivileged */") != NULL;
	fn->guru = strstr(code, "/* guru */") != NULL;
	fn->unmangled = strstr(code, "/* unmangled */") != NULL;
	for (p = code; (p = strstr(p, "/* pragma:")); ) {
		bool write;
		size_t n;
		const char *name;
		struct symbol *g;

		p += 10;
		write = strncmp(p, "write:", 6) == 0;
		if (!write && strncmp(p, "read:", 5) != 0)
			continue;
		p += write ? 6 : 5;
		n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_");
		name = arena_strndup(&e->s->arena, p, n);
		e->file = fn->decl->loc.file;
		g = global_lookup(e, name);
		if (!g) {
			elab_error(e, &fn->decl->loc, "'pragma:%s:%s' in "
				   "function '%s' names no global variable",
				   write ? "write" : "read", name, fn->name);
			continue;
		}
		if (write)
			record_write(e, g, &fn->decl->loc);
		else {
			g->reads++;
			g->pragma_reads++;
		}
	}
}

static void resolve_function(struct elab *e, struct function *fn)
{
	struct symbol **tail = &fn->params;

	if (fn->resolved)
		return;
	fn->resolved = true;
	for (const struct param *pa = fn->decl->params; pa; pa = pa->next) {
		struct symbol *sym = ANEW(&e->s->arena, struct symbol);

		sym->name = pa->name;
		sym->param = true;
		sym->loc = pa->loc;
		sym->type = pa->type;
		if (pa->type != TYPE_UNKNOWN)
			sym->type_loc = pa->loc;
		sym->writes = 1;
		*tail = sym;
		tail = &sym->next;
	}
	e->fn = fn;
	e->probe = NULL;
	e->locals = &fn->locals;
	e->file = fn->decl->loc.file;
	e->loop_depth = 0;
	if (fn->decl->body) {
		dwarf_resolve_function(e, fn->decl->body);	/* @cast, @var */
		resolve_body(e, fn->decl->body);
	} else
		embedded_pragmas(e, fn);
}

/* Does fn, or anything it calls, write one of the arrays? */
static const char *writes_any(struct elab *e, struct function *fn,
			      const struct call_check *c)
{
	const char *hit;

	for (; fn; fn = fn->overload) {
		if (fn->mark == e->mark)
			continue;
		fn->mark = e->mark;
		for (int i = 0; i < fn->nwrites; i++)
			for (int j = 0; j < c->narrays; j++)
				if (strcmp(fn->writes[i]->name, c->arrays[j]) == 0)
					return c->arrays[j];
		for (int i = 0; i < fn->ncallees; i++)
			if ((hit = writes_any(e, fn->callees[i], c)))
				return hit;
	}
	return NULL;
}

static void check_calls_in_foreach(struct elab *e)
{
	for (int i = 0; i < e->nchecks; i++) {
		const struct call_check *c = &e->checks[i];
		const char *hit;

		e->mark++;
		hit = writes_any(e, c->fn, c);
		if (hit)
			elab_error(e, &c->loc, "invalid modification of array "
				   "'%s' inside a foreach loop over it (through "
				   "'%s')", hit, c->fn->name);
	}
}

static void check_duplicates(struct elab *e)
{
	for (struct function *f = e->prog->functions; f; f = f->next)
		for (struct function *g = f->next; g; g = g->next)
			if (strcmp(f->name, g->name) == 0 &&
			    f->nparams == g->nparams &&
			    f->decl->priority == g->decl->priority &&
			    f->decl->loc.file == g->decl->loc.file) {
				elab_error(e, &f->decl->loc, "duplicate function "
					   "'%s' with %d parameter%s; give "
					   "overloads different priorities",
					   f->name, f->nparams,
					   f->nparams == 1 ? "" : "s");
				elab_note(e, &g->decl->loc, "the other "
					  "definition is here");
			}
}

struct program *elaborate(struct session *s, struct script *user)
{
	struct elab e;
	struct program *prog = ANEW(&s->arena, struct program);
	int errors = s->errors;

	memset(&e, 0, sizeof(e));
	e.s = s;
	e.prog = prog;
	prog->user = user;
	e.idx = tapset_index_build(s);
	prog->tapsets = e.idx;
	elab_add_script(&e, user, NULL);

	/* probes: expand points, then resolve each derived body */
	for (const struct decl *d = user->decls; d; d = d->next)
		if (d->kind == D_PROBE)
			probes_expand(&e, d);
	entry_split_probes(&e);
	for (struct dprobe *p = prog->probes; p; p = p->next)
		resolve_probe(&e, p);
	/* -u keeps (so checks) every function of the script */
	if (s->keep_unused)
		for (struct function *f = prog->functions; f; f = f->next)
			if (!f->tapset && !f->used) {
				f->used = true;
				push_work(&e, f);
			}
	for (int i = 0;;) {
		struct dprobe *last = prog->probes;

		for (; i < e.nwork; i++)
			resolve_function(&e, e.work[i]);
		/* the probes of the tapset files loaded so far, which may
		 * load more files */
		while (last && last->next)
			last = last->next;
		if (!tapset_add_probes(&e))
			break;
		entry_split_probes(&e);
		for (struct dprobe *p = last ? last->next : prog->probes; p;
		     p = p->next)
			resolve_probe(&e, p);
	}
	check_calls_in_foreach(&e);
	note_sregs_readers(&e);
	/* the call graph served its purpose */
	for (struct function *f = prog->functions; f; f = f->next) {
		free(f->writes);
		free(f->callees);
		f->writes = NULL;
		f->callees = NULL;
		f->nwrites = f->ncallees = 0;
	}
	check_duplicates(&e);
	/* as stap 4.8: stores to locals no one reads go before the types
	 * are checked, so a dead store's type error, or its $var that the
	 * probe point lacks, is no error */
	if (s->errors == errors && !s->keep_unused) {
		warn_unassigned(&e);
		elide_dead_stores(&e);
	}
	report_deferred_errors(&e);
	if (s->errors == errors)
		autocast_resolve(&e);	/* ->member of typed values */
	if (s->errors == errors) {
		types_infer(&e);
		if (s->errors == errors)
			optimize_program(&e);
	}
	if (s->errors == errors && !prog->probes)
		elab_error(&e, NULL, "no probes found");
	free(e.checks);
	free(e.work);
	free(e.iterating);
	return s->errors == errors ? prog : NULL;
}
