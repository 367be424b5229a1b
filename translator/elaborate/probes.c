/* probes.c - from the probe points a script names to derived probes.
 *
 * A point (brace groups were expanded by the parser) is matched against
 * the probe aliases (the script's and the library's; wildcards in the
 * point match alias names, '**' across dots; an alias may take a suffix:
 * `foo.return` through alias `foo` becomes each of foo's points plus
 * `.return`), recursively, and finally against the provider families. Each concrete point becomes a
 * struct dprobe whose body is its own copy of the alias prologues, the
 * script's body and the alias epilogues.
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parse/print.h"
#include "providers/provider.h"
#include "xalloc.h"

#define MAX_ALIAS_DEPTH 32

static const struct provider *const providers[] = {
	&pp_core, &pp_timer, &pp_kprobe, &pp_kernel, &pp_trace, &pp_process,
	&pp_netfilter, &pp_perf, &pp_perf_process, &pp_procfs, &pp_hwbkpt,
	&pp_unsupported, NULL
};

/* The parts of a derived body, in order. */
struct part {
	const struct stmt *block;
	struct part *next;
};

const char *pp_text(struct session *s, const struct probe_point *pp)
{
	char *buf = probe_point_name_text(pp);
	const char *out = arena_strdup(&s->arena, buf);

	free(buf);
	return out;
}

const struct expr *pp_arg(const struct probe_point *pp, int i)
{
	const struct pp_comp *c = pp->comps;

	while (c && i-- > 0)
		c = c->next;
	return c ? c->arg : NULL;
}

bool pp_has(const struct probe_point *pp, const char *name)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (strcmp(c->name, name) == 0)
			return true;
	return false;
}

static int ncomps(const struct probe_point *pp)
{
	int n = 0;

	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		n++;
	return n;
}

static struct pp_comp *copy_comps(struct session *s, const struct pp_comp *c,
				  struct pp_comp *suffix)
{
	struct pp_comp *head = NULL, **tail = &head;

	for (; c; c = c->next) {
		struct pp_comp *n = ANEW(&s->arena, struct pp_comp);

		*n = *c;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	*tail = suffix;
	return head;
}

/*
 * An alias on FUNCTION.call (the function's out-of-line instances) with
 * the suffix .return, or a wildcard, in a script: .call.return is no
 * probe point (stap: "invalid suffix for probe"), and a return probe
 * only ever fires for the out-of-line instances, so the suffix goes
 * onto FUNCTION itself: signal.wakeup.return is the function's .return,
 * and signal.wakeup.* lists its .call, .callee(...), .return, ... as
 * stap lists an alias on the plain function.
 */
static void drop_call_before(struct probe_point *np, struct pp_comp *suffix)
{
	struct pp_comp **c;

	if (!suffix || (strcmp(suffix->name, "return") != 0 &&
			!strpbrk(suffix->name, "*?[{")))
		return;
	for (c = &np->comps; *c && (*c)->next != suffix; c = &(*c)->next)
		;
	if (*c && !(*c)->arg && !strcmp((*c)->name, "call") && c != &np->comps)
		*c = suffix;
}

/* ---- matching ---- */

static bool same_arg(const struct expr *a, const struct expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind)
		return false;
	if (a->kind == E_NUM)
		return a->num == b->num;
	return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
}

/* Does the first k components of point match alias name? */
static bool alias_match(const struct probe_point *pp,
			const struct probe_point *name, int k)
{
	const struct pp_comp *c = pp->comps, *a = name->comps;

	for (; k > 0 && c && a; k--, c = c->next, a = a->next) {
		if (strcmp(c->name, a->name) != 0 &&
		    (!strpbrk(c->name, "*?[") || fnmatch(c->name, a->name, 0)))
			return false;
		if (!same_arg(c->arg, a->arg))
			return false;
	}
	return k == 0 && !a;
}

struct expand {
	struct elab *e;
	struct dprobe tmpl;	/* decl, user point, cond */
	int depth;
};

static int expand_point(struct expand *x, const struct probe_point *pp,
			struct part *parts, struct expr *cond);

static struct part *part_new(struct session *s, const struct stmt *b,
			     struct part *next)
{
	struct part *p = ANEW(&s->arena, struct part);

	p->block = b;
	p->next = next;
	return p;
}

static struct part *parts_append(struct session *s, struct part *list,
				 const struct stmt *b)
{
	struct part *head = NULL, **tail = &head;

	for (; list; list = list->next) {
		*tail = part_new(s, list->block, NULL);
		tail = &(*tail)->next;
	}
	*tail = part_new(s, b, NULL);
	return head;
}

/* ---- @probewrite(x) ----
 *
 * In an alias's prologue or epilogue, @probewrite(x) is 1 when the body
 * that uses the alias (the script's, with the outer aliases' parts:
 * what the alias expands around) writes the local x, else 0, as stap
 * evaluates it; the alias's own writes do not count. The syscall aliases
 * write an argument back with set_*_arg() only then. Elsewhere it stays,
 * and resolution reports it. */

static bool is_var(const struct expr *x, const char *name)
{
	return x && x->kind == E_VAR && strcmp(x->str, name) == 0;
}

static bool expr_writes(const struct expr *x, const char *name);

static bool list_writes(const struct expr *x, const char *name)
{
	for (; x; x = x->next)
		if (expr_writes(x, name))
			return true;
	return false;
}

static bool expr_writes(const struct expr *x, const char *name)
{
	if (!x)
		return false;
	if ((x->kind == E_ASSIGN || x->kind == E_CREMENT) &&
	    is_var(x->a, name))
		return true;
	if (x->kind == E_NUM || x->kind == E_STR)
		return false;	/* (str is num's) */
	if (expr_writes(x->a, name) || expr_writes(x->b, name) ||
	    expr_writes(x->c, name) || list_writes(x->args, name))
		return true;
	for (const struct chain *c = x->chain; c; c = c->next)
		if (expr_writes(c->index, name))
			return true;
	return false;
}

static bool stmts_write(const struct stmt *st, const char *name)
{
	for (; st; st = st->next) {
		const struct foreach *fe = st->fe;

		if (expr_writes(st->e, name) || expr_writes(st->init, name) ||
		    expr_writes(st->incr, name) ||
		    stmts_write(st->body, name) ||
		    stmts_write(st->else_body, name))
			return true;
		if (st->kind == S_TRY && is_var(st->e, name))
			return true;	/* the catch variable */
		if (fe && (is_var(fe->value, name) ||
			   list_writes(fe->keys, name) ||
			   expr_writes(fe->limit, name)))
			return true;
	}
	return false;
}

static bool parts_write(const struct part *p, const char *name)
{
	for (; p; p = p->next)
		if (stmts_write(p->block, name))
			return true;
	return false;
}

/* Replaces each @probewrite(VAR) under x (a list when list) by its
 * value for the body use (with use NULL, only looks); returns whether
 * there was one. */
static bool subst_expr(struct expr *x, const struct part *use, bool list)
{
	bool any = false;

	for (; x; x = list ? x->next : NULL) {
		if (x->kind == E_AT && x->op == AT_OP_PROBEWRITE &&
		    x->args && x->args->kind == E_VAR && !x->args->next) {
			if (!use)
				return true;
			x->kind = E_NUM;
			x->num = parts_write(use, x->args->str);
			x->args = NULL;
			any = true;
			continue;
		}
		if (x->kind == E_NUM || x->kind == E_STR)
			continue;
		any |= subst_expr(x->a, use, false);
		any |= subst_expr(x->b, use, false);
		any |= subst_expr(x->c, use, false);
		any |= subst_expr(x->args, use, true);
		for (struct chain *c = x->chain; c; c = c->next)
			any |= subst_expr(c->index, use, false);
	}
	return any;
}

static bool subst_stmts(struct stmt *st, const struct part *use)
{
	bool any = false;

	for (; st; st = st->next) {
		any |= subst_expr(st->e, use, false);
		any |= subst_expr(st->init, use, false);
		any |= subst_expr(st->incr, use, false);
		any |= subst_stmts(st->body, use);
		any |= subst_stmts(st->else_body, use);
		if (st->fe)
			any |= subst_expr(st->fe->limit, use, false);
	}
	return any;
}

/* An alias part b for the body use: b itself, or its copy with the
 * @probewrite()s evaluated. */
static const struct stmt *alias_part(struct session *s, const struct stmt *b,
				     const struct part *use)
{
	struct stmt *copy;

	/* (cast: with use NULL nothing is written) */
	if (!b || !use || !subst_stmts((struct stmt *)b, NULL))
		return b;
	copy = ast_clone_stmt(s, b);
	subst_stmts(copy, use);
	return copy;
}

static struct expr *and_cond(struct session *s, struct expr *a,
			     const struct expr *b)
{
	struct expr *x;

	if (!b)
		return a;
	if (!a)
		return ast_clone_expr(s, b);
	x = ast_expr(s, E_BINARY, &b->loc);
	x->op = OP_LAND;
	x->a = a;
	x->b = ast_clone_expr(s, b);
	return x;
}

static int expand_alias(struct expand *x, const struct probe_point *pp,
			const struct alias_def *al, int k,
			struct part *parts, struct expr *cond)
{
	struct session *s = x->e->s;
	const struct decl *d = al->decl;
	struct pp_comp *suffix = NULL;
	const char *outer = x->tmpl.derived;
	int n = 0;

	if (al->file)
		tapset_load(x->e, al->file);
	/* the suffix after the alias name goes onto each of its points */
	{
		const struct pp_comp *c = pp->comps;

		for (int i = 0; i < k; i++)
			c = c->next;
		suffix = c ? copy_comps(s, c, NULL) : NULL;
	}
	if (d->append) {
		parts = parts_append(s, parts, alias_part(s, d->body, parts));
	} else {
		const struct part *use = parts;

		if (d->epilogue)
			parts = parts_append(s, parts,
					     alias_part(s, d->epilogue, use));
		parts = part_new(s, alias_part(s, d->body, use), parts);
	}
	/* -p2's derivation: "NAME = POINT, POINT", then the outer ones;
	 * NAME as the alias defines it (stap prints job.fast for a script's
	 * job.*, fast for its fast.randomize(5)) */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (f) {
			print_probe_point_name(f, al->name);
			print_alias_points(f, d);
			if (outer)
				fprintf(f, " <- %s", outer);
			fclose(f);
			x->tmpl.derived = arena_strdup(&s->arena, buf);
			free(buf);
		}
	}
	/* pn() names the outermost alias, as the script's point matched it */
	if (x->depth == 0) {
		struct probe_point *named = ANEW(&s->arena, struct probe_point);

		*named = *al->name;
		named->next = NULL;
		named->comps = copy_comps(s, al->name->comps, suffix ?
					  copy_comps(s, suffix, NULL) : NULL);
		x->tmpl.pn = pp_text(s, named);
	}
	if (x->depth == 1 && !suffix)
		x->tmpl.via = pp_text(s, al->name);
	x->depth++;
	for (const struct probe_point *r = d->points; r; r = r->next) {
		struct probe_point *np = ANEW(&s->arena, struct probe_point);
		struct pp_comp *sfx = suffix ? copy_comps(s, suffix, NULL) : NULL;
		int got;

		*np = *r;
		np->next = NULL;
		np->comps = copy_comps(s, r->comps, sfx);
		drop_call_before(np, sfx);
		got = expand_point(x, np, parts, and_cond(s, cond, r->cond));
		if (got < 0) {
			x->depth--;
			x->tmpl.derived = outer;
			if (x->depth == 1)
				x->tmpl.via = NULL;
			return -1;
		}
		n += got;
		if (got > 0 && r->sufficient)
			break;
	}
	x->depth--;
	if (x->depth == 0)
		x->tmpl.pn = NULL;
	if (x->depth == 1)
		x->tmpl.via = NULL;
	x->tmpl.derived = outer;
	return n;
}

/* Glob over a dotted name: '*' and '?' stay within a component, '**'
 * crosses dots. */
static bool globstar(const char *pat, const char *str)
{
	if (!*pat)
		return !*str;
	if (pat[0] == '*' && pat[1] == '*') {
		for (const char *t = str;; t++) {
			if (globstar(pat + 2, t))
				return true;
			if (!*t)
				return false;
		}
	}
	if (*pat == '*') {
		for (const char *t = str;; t++) {
			if (globstar(pat + 1, t))
				return true;
			if (!*t || *t == '.')
				return false;
		}
	}
	if (!*str || (*pat == '?' ? *str == '.' : *pat != *str))
		return false;
	return globstar(pat + 1, str + 1);
}

static bool has_globstar(const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (strstr(c->name, "**"))
			return true;
	return false;
}

/* pp has '**': match whole alias names as text. */
static int match_aliases_globstar(struct expand *x, const struct probe_point *pp,
				  struct part *parts, struct expr *cond,
				  bool *matched)
{
	struct tapset_index *idx = x->e->idx;
	const char *pat = pp_text(x->e->s, pp);
	int n = 0;

	*matched = false;
	tapset_need_aliases(x->e->s, idx, NULL);
	for (int i = 0; i < idx->naliases; i++) {
		const struct alias_def *al = &idx->aliases[i];
		int got;

		if (!globstar(pat, pp_text(x->e->s, al->name)))
			continue;
		*matched = true;
		got = expand_alias(x, al->name, al, ncomps(al->name), parts,
				   cond);
		if (got < 0)
			return -1;
		n += got;
	}
	return n;
}

/* One alias a point matched; the same name defined twice keeps the
 * order the index gave (seq). */
struct alias_hit {
	const struct alias_def *al;
	const char *name;
	int seq;
};

static int alias_hit_cmp(const void *a, const void *b)
{
	const struct alias_hit *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->seq - y->seq;
}

static bool is_wild(const char *name)
{
	return strpbrk(name, "*?[") != NULL;
}

static bool wild_point(const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next)
		if (is_wild(c->name))
			return true;
	return false;
}

/* Does an alias have this (wildcard-free) point's whole name? */
static bool alias_named(struct expand *x, const struct probe_point *pp)
{
	struct tapset_index *idx = x->e->idx;

	tapset_need_aliases(x->e->s, idx, pp->comps->name);
	for (int i = 0; i < idx->naliases; i++)
		if (alias_match(pp, idx->aliases[i].name, ncomps(pp)))
			return true;
	return false;
}

/*
 * A wildcard point is also each alias a prefix of it names, with the rest
 * of the point as the suffix, where no alias has a name the whole point
 * matches that way: "tcp.*.return" is tcp.receive.return through
 * tcp.receive, "tcp.*.*" tcp.receive's points with ".*", as stap's match
 * tree takes it. Each is left out quietly when it makes
 * nothing (a suffix its points do not take).
 */
static int match_alias_suffixes(struct expand *x, const struct probe_point *pp,
				struct part *parts, struct expr *cond,
				bool *matched)
{
	struct session *s = x->e->s;
	struct tapset_index *idx = x->e->idx;
	int n = 0, len = ncomps(pp);

	tapset_need_aliases(s, idx, NULL);
	for (int k = len - 1; k > 0; k--) {
		const struct pp_comp *rest = pp->comps;

		for (int i = 0; i < k; i++)
			rest = rest->next;
		for (int i = 0; i < idx->naliases; i++) {
			const struct alias_def *al = &idx->aliases[i];
			struct probe_point *one;
			int errors = s->errors, got;

			if (ncomps(al->name) != k ||
			    !alias_match(pp, al->name, k))
				continue;
			one = ANEW(&s->arena, struct probe_point);
			*one = *pp;
			one->comps = copy_comps(s, al->name->comps,
						copy_comps(s, rest, NULL));
			if (alias_named(x, one))
				continue;
			*matched = true;
			s->quiet++;
			got = expand_alias(x, one, al, k, parts, cond);
			s->quiet--;
			if (s->errors > errors || got < 0) {
				s->errors = errors;
				continue;
			}
			n += got;
		}
	}
	return n;
}

/* whole: only aliases named by the whole point; else only those named by
 * a prefix of it (the suffix form), longest first */
static int match_aliases(struct expand *x, const struct probe_point *pp,
			 struct part *parts, struct expr *cond, bool whole,
			 bool *matched)
{
	struct tapset_index *idx = x->e->idx;
	int n = 0, len = ncomps(pp);

	const char *first = pp->comps->name;
	bool wild = strpbrk(first, "*?[") != NULL;

	tapset_need_aliases(x->e->s, idx, wild ? NULL : first);

	if (has_globstar(pp)) {
		if (!whole) {
			*matched = false;
			return 0;
		}
		return match_aliases_globstar(x, pp, parts, cond, matched);
	}
	*matched = false;
	/* whole-name matches first; else the longest prefix (suffix form);
	 * without a wildcard in the first component only aliases with that
	 * first name can match */
	for (int k = whole ? len : len - 1; k > 0 && !*matched;
	     k = whole ? 0 : k - 1) {
		struct strmap_entry *it = NULL;
		struct alias_hit *hits;
		int nhits = 0;

		hits = xcalloc((size_t)idx->naliases + 1, sizeof(*hits));
		for (int i = 0; i < idx->naliases; i++) {
			const struct alias_def *al;

			if (!wild) {
				it = strmap_next(&idx->alias_first, first, it);
				if (!it)
					break;
				al = &idx->aliases[(intptr_t)it->value - 1];
			} else {
				al = &idx->aliases[i];
			}
			if (!alias_match(pp, al->name, k))
				continue;
			hits[nhits].al = al;
			hits[nhits].name = pp_text(x->e->s, al->name);
			hits[nhits].seq = nhits;
			nhits++;
		}
		/* a wildcard's matches in name order, as stap 4.8 takes
		 * them (job.* is job.b, job.fast, job.slow) */
		qsort(hits, (size_t)nhits, sizeof(*hits), alias_hit_cmp);
		for (int i = 0; i < nhits; i++) {
			int got;

			*matched = true;
			got = expand_alias(x, pp, hits[i].al, k, parts, cond);
			if (got < 0) {
				free(hits);
				return -1;
			}
			n += got;
		}
		free(hits);
	}
	if (whole && wild_point(pp)) {
		bool more = false;
		int got = match_alias_suffixes(x, pp, parts, cond, &more);

		*matched |= more;
		n = got < 0 ? -1 : n + got;
	}
	return n;
}

/* One component of a provider pattern: "ms(n)" is name "ms", kind 'n'. */
struct pat_comp {
	const char *name;
	char kind;		/* 0, 'n' or 's' */
};

static int pat_split(struct session *s, const char *pat, struct pat_comp *out,
		     int max)
{
	int n = 0;

	while (*pat && n < max) {
		size_t len = strcspn(pat, ".(");

		out[n].name = arena_strndup(&s->arena, pat, len);
		out[n].kind = 0;
		pat += len;
		if (*pat == '(') {
			out[n].kind = pat[1];
			pat += 3;
		}
		if (*pat == '.')
			pat++;
		n++;
	}
	return n;
}

static bool arg_fits(char kind, const struct expr *arg)
{
	if (!kind)
		return !arg;
	if (!arg)
		return false;
	return kind == 'n' ? arg->kind == E_NUM : arg->kind == E_STR;
}

/*
 * Components c against pattern components p[0..np). A literal name
 * matches its own component, its argument checked apart (*args_ok); a
 * wildcard name matches only components that take an argument exactly
 * when it has one ("timer.*" is timer.profile, not timer.ms(n)), as
 * stap's match tree does; "**" stands for one or more components
 * without arguments. On a match, *out is the point's components named
 * as the pattern names them (the point's own arguments).
 */
static bool comps_match(struct session *s, const struct pat_comp *p, int np,
			const struct pp_comp *c, bool *args_ok,
			struct pp_comp **out)
{
	struct pp_comp *n;

	if (!c)
		return np == 0;
	if (np == 0)
		return false;
	if (strcmp(c->name, "**") == 0 && !c->arg) {
		for (int k = 1; k <= np && !p[k - 1].kind; k++) {
			struct pp_comp *rest = NULL, **tail = out;

			if (!comps_match(s, p + k, np - k, c->next, args_ok,
					 &rest))
				continue;
			for (int i = 0; i < k; i++) {
				n = ANEW(&s->arena, struct pp_comp);
				n->name = p[i].name;
				n->loc = c->loc;
				*tail = n;
				tail = &n->next;
			}
			*tail = rest;
			return true;
		}
		return false;
	}
	if (strcmp(c->name, p->name) == 0) {
		if (!arg_fits(p->kind, c->arg))
			*args_ok = false;
	} else if (!is_wild(c->name) || fnmatch(c->name, p->name, 0) != 0 ||
		   !arg_fits(p->kind, c->arg)) {
		return false;
	}
	n = ANEW(&s->arena, struct pp_comp);
	*n = *c;
	n->name = p->name;
	n->next = NULL;
	*out = n;
	return comps_match(s, p + 1, np - 1, c->next, args_ok, &n->next);
}

/* "timer.ms(n)" against a point: 1 match, 0 no, -1 arguments differ; on
 * a match *concrete is the point named as the pattern names it */
static int pattern_match(struct session *s, const char *pat,
			 const struct probe_point *pp,
			 struct probe_point **concrete)
{
	struct pat_comp p[16];
	int np = pat_split(s, pat, p, 16);
	bool args_ok = true;
	struct pp_comp *comps = NULL;

	if (!comps_match(s, p, np, pp->comps, &args_ok, &comps))
		return 0;
	if (!args_ok)
		return -1;
	*concrete = ANEW(&s->arena, struct probe_point);
	**concrete = *pp;
	(*concrete)->comps = comps;
	return 1;
}

/*
 * A point with wildcard components is every provider point it matches
 * (begin, end, process.begin, ... for "*", "process.*"), each resolved
 * on its own and left out quietly when it makes nothing, as stap
 * expands a wildcard; a point an alias of that name already covers is
 * the alias's (timer.profile).
 */
static int match_providers_wild(struct expand *x, const struct probe_point *pp,
				bool *matched)
{
	struct session *s = x->e->s;
	int total = 0;

	*matched = false;
	for (int i = 0; providers[i]; i++) {
		const struct provider *pv = providers[i];

		for (int j = 0; pv->patterns[j]; j++) {
			struct probe_point *one;
			struct dprobe tmpl;
			int errors = s->errors, got;

			if (pattern_match(s, pv->patterns[j], pp, &one) <= 0 ||
			    pv->unsupported || alias_named(x, one))
				continue;
			*matched = true;
			tmpl = x->tmpl;
			tmpl.prov = pv;
			tmpl.has_targets = pv->has_targets;
			s->quiet++;
			got = pv->resolve(x->e, one, j, &tmpl);
			s->quiet--;
			if (s->errors > errors || got < 0) {
				s->errors = errors;
				continue;
			}
			total += got;
		}
	}
	return total;
}

static int match_providers(struct expand *x, const struct probe_point *pp,
			   bool *matched)
{
	struct session *s = x->e->s;
	const char *bad = NULL;
	struct dprobe tmpl;

	if (wild_point(pp))
		return match_providers_wild(x, pp, matched);
	*matched = false;
	for (int i = 0; providers[i]; i++) {
		const struct provider *pv = providers[i];

		for (int j = 0; pv->patterns[j]; j++) {
			struct probe_point *one;
			int m = pattern_match(s, pv->patterns[j], pp, &one);

			if (m < 0)
				bad = pv->patterns[j];
			if (m <= 0)
				continue;
			*matched = true;
			if (pv->unsupported) {
				elab_error(x->e, &pp->loc, "probe point "
					   "'%s': %s", pp_text(s, pp),
					   pv->unsupported);
				return -1;
			}
			tmpl = x->tmpl;
			tmpl.prov = pv;
			tmpl.has_targets = pv->has_targets;
			return pv->resolve(x->e, one, j, &tmpl);
		}
	}
	if (bad) {
		*matched = true;
		elab_error(x->e, &pp->loc, "probe point '%s' has the wrong "
			   "argument types; expected '%s' (n: a number, s: a "
			   "string)", pp_text(s, pp), bad);
		return -1;
	}
	return 0;
}

/* Families Tapir does not build yet, known by their first components. */
static bool unsupported_family(struct expand *x, const struct probe_point *pp)
{
	static const char *const first[] = {
		"process", "java", "python2",
		"python3", NULL
	};
	static const char *const kernel_second[] = {
		"trace", "mark", NULL
	};
	const char *a = pp->comps->name;
	const char *b = pp->comps->next ? pp->comps->next->name : "";

	for (int i = 0; first[i]; i++)
		if (strcmp(a, first[i]) == 0)
			goto unsupported;
	if (strcmp(a, "kernel") == 0)
		for (int i = 0; kernel_second[i]; i++)
			if (strcmp(b, kernel_second[i]) == 0)
				goto unsupported;
	return false;
unsupported:
	elab_error(x->e, &pp->loc, "probe point '%s': this probe family is "
		   "not supported by Tapir yet", pp_text(x->e->s, pp));
	return true;
}

static void mismatch(struct expand *x, const struct probe_point *pp)
{
	struct session *s = x->e->s;
	struct tapset_index *idx = x->e->idx;
	const char **names;
	int n = 0;
	const char *word = pp->comps->name, *sim;
	int cap;

	tapset_need_aliases(s, idx, NULL);
	cap = idx->naliases * 2;

	for (int i = 0; providers[i]; i++)
		for (int j = 0; providers[i]->patterns[j]; j++)
			cap++;
	names = xcalloc((size_t)cap + 1, sizeof(*names));
	for (int i = 0; providers[i]; i++)
		for (int j = 0; providers[i]->patterns[j]; j++) {
			const char *p = providers[i]->patterns[j];

			names[n++] = arena_strndup(&s->arena, p,
						   strcspn(p, ".("));
		}
	for (int i = 0; i < idx->naliases; i++) {
		names[n++] = idx->aliases[i].name->comps->name;
		names[n++] = pp_text(s, idx->aliases[i].name);
	}
	if (ncomps(pp) > 1)
		word = pp_text(s, pp);
	sim = similar_names(s, word, names, n);
	if (!sim && ncomps(pp) > 1)
		sim = similar_names(s, pp->comps->name, names, n);
	free(names);
	if (sim)
		elab_error(x->e, &pp->loc, "probe point mismatch: '%s' "
			   "(similar: %s)", pp_text(s, pp), sim);
	else
		elab_error(x->e, &pp->loc, "probe point mismatch: '%s'",
			   pp_text(s, pp));
}

static int expand_point_loud(struct expand *x, const struct probe_point *pp,
			     struct part *parts, struct expr *cond);

/* Every alternative of a point was optional and failed quietly: say why
 * the first one failed. */
static void why_alternatives_failed(struct elab *e)
{
	struct session *s = e->s;

	if (!s->quiet_why)
		return;
	elab_note(e, s->quiet_where.file ? &s->quiet_where : NULL,
		  "an optional alternative failed: %s", s->quiet_why);
	s->quiet_why = NULL;
}

/* An optional point that fails for any reason is simply left out. */
static int expand_point(struct expand *x, const struct probe_point *pp,
			struct part *parts, struct expr *cond)
{
	struct session *s = x->e->s;
	int errors = s->errors, got;

	x->tmpl.written = pp;
	if (!pp->optional)
		return expand_point_loud(x, pp, parts, cond);
	s->quiet++;
	got = expand_point_loud(x, pp, parts, cond);
	s->quiet--;
	if (s->errors > errors || got < 0) {
		s->errors = errors;
		return 0;
	}
	return got;
}

static int expand_point_loud(struct expand *x, const struct probe_point *pp,
			     struct part *parts, struct expr *cond)
{
	struct session *s = x->e->s;
	int total = 0;
	bool any_match = false, matched;
	struct dprobe saved = x->tmpl;

	if (x->depth > MAX_ALIAS_DEPTH) {
		elab_error(x->e, &pp->loc, "probe alias expansion too deep at "
			   "'%s' (a recursive alias?)", pp_text(s, pp));
		return -1;
	}

	x->tmpl.body = (struct stmt *)parts;	/* see probe_emit */
	x->tmpl.cond = cond;
	/* an alias of the whole name, else a provider (timer.profile.tick
	 * is the timer family's even when an alias timer.profile exists),
	 * else an alias of a prefix with the rest as a suffix */
	total = match_aliases(x, pp, parts, cond, true, &matched);
	if (total >= 0 && !matched) {
		total = match_providers(x, pp, &matched);
	} else if (total >= 0 && wild_point(pp)) {
		/* a wildcard is the aliases and the provider points it
		 * matches ("*": begin, end, ... and syscall_any) */
		bool prov;
		int got = match_providers(x, pp, &prov);

		total = got < 0 ? -1 : total + got;
	}
	if (total >= 0 && !matched)
		total = match_aliases(x, pp, parts, cond, false, &matched);
	x->tmpl = saved;
	if (total < 0)
		return -1;
	any_match = matched;
	if (!total && !any_match && !pp->optional) {
		if (!unsupported_family(x, pp))
			mismatch(x, pp);
		return -1;
	}
	if (!total && any_match && !pp->optional && x->depth == 0) {
		elab_error(x->e, &pp->loc, "probe point '%s' matches nothing",
			   pp_text(s, pp));
		why_alternatives_failed(x->e);
		return -1;
	}
	return total;
}

struct dprobe *probe_emit(struct elab *e, const struct dprobe *tmpl,
			  const struct probe_point *pp)
{
	struct session *s = e->s;
	struct dprobe *p = ANEW(&s->arena, struct dprobe);
	const struct part *parts = (const struct part *)tmpl->body;
	struct stmt *block, **tail;

	*p = *tmpl;
	p->point = pp;
	p->name = pp_text(s, pp);
	if (!p->pn)
		p->pn = pp_text(s, tmpl->user);
	block = ast_stmt(s, S_BLOCK, &tmpl->decl->body->loc);
	tail = &block->body;
	for (; parts; parts = parts->next) {
		*tail = ast_clone_stmt(s, parts->block);
		tail = &(*tail)->next;
	}
	p->body = block;
	p->cond = ast_clone_expr(s, tmpl->cond);
	p->next = NULL;
	/* keep the script's order: append (a wildcard can make thousands) */
	if (!e->last_probe || e->last_probe->next) {
		struct dprobe **t = &e->prog->probes;

		while (*t)
			t = &(*t)->next;
		*t = p;
	} else {
		e->last_probe->next = p;
	}
	e->last_probe = p;
	e->prog->nprobes++;
	return p;
}

void probes_expand(struct elab *e, const struct decl *d)
{
	for (const struct probe_point *pp = d->points; pp; pp = pp->next) {
		struct expand x;
		int got;

		e->s->quiet_why = NULL;
		memset(&x, 0, sizeof(x));
		x.e = e;
		x.tmpl.decl = d;
		x.tmpl.user = pp;
		got = expand_point(&x, pp, part_new(e->s, d->body, NULL),
				   pp->cond ? ast_clone_expr(e->s, pp->cond) :
				   NULL);
		if (got > 0 && pp->sufficient)
			break;
	}
}

void probes_need_aliases(struct elab *e, const struct probe_point *pp)
{
	tapset_need_aliases(e->s, e->idx, has_globstar(pp) ||
			    is_wild(pp->comps->name) ? NULL : pp->comps->name);
}

/* The aliases whose whole name matches pp (for -l and -L), in index
 * order; returns how many, at most max. */
int probes_matching_aliases(struct elab *e, const struct probe_point *pp,
			    const struct alias_def **out, int max)
{
	struct tapset_index *idx = e->idx;
	const char *text = has_globstar(pp) ? pp_text(e->s, pp) : NULL;
	int n = 0;

	probes_need_aliases(e, pp);

	for (int i = 0; i < idx->naliases && n < max; i++) {
		const struct alias_def *al = &idx->aliases[i];

		if (text ? globstar(text, pp_text(e->s, al->name)) :
			   alias_match(pp, al->name, ncomps(pp)))
			out[n++] = al;
	}
	return n;
}

/* For -l and -L: what the wildcard point of d matches besides the aliases
 * of its whole name (those list under their own names): the provider
 * points and the aliases of a prefix with the rest as a suffix. */
void probes_expand_wild_rest(struct elab *e, const struct decl *d)
{
	const struct probe_point *pp = d->points;
	struct part *parts = part_new(e->s, d->body, NULL);
	struct expand x;
	bool matched;

	if (!wild_point(pp) || has_globstar(pp))
		return;
	memset(&x, 0, sizeof(x));
	x.e = e;
	x.tmpl.decl = d;
	x.tmpl.user = pp;
	x.tmpl.written = pp;
	x.tmpl.body = (struct stmt *)parts;
	match_providers_wild(&x, pp, &matched);
	memset(&x, 0, sizeof(x));
	x.e = e;
	x.tmpl.decl = d;
	x.tmpl.user = pp;
	x.tmpl.written = pp;
	match_alias_suffixes(&x, pp, parts, NULL, &matched);
}
