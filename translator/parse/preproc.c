/* preproc.c - the preprocessor: macros, conditionals and script arguments.
 *
 *   @define NAME %( body %)          @define NAME(a, b) %( ... @a ... %)
 *   %( cond %? tokens [%: tokens] %)  cond: a op b joined by && || ( )
 *   $N pastes argument N as tokens, @N as a string; $# and @# count them.
 *
 * Each token stream is walked once; a macro use is substituted (parameters
 * replaced by the argument tokens) and the result walked again, so that
 * conditionals and macros inside macros work. Depth and output size are
 * bounded: a recursive or exploding macro is an error, never a hang.
 */
#include "config.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "debuginfo/kconfig.h"
#include "lexer.h"
#include "parse/parser.h"
#include "preproc.h"
#include "session.h"
#include "xalloc.h"

#define PP_MAX_DEPTH 64

struct macro {
	const char *name;
	size_t nlen;
	struct token *params;
	int nparams;
	struct token *body;
	size_t nbody;
	struct loc loc;
	struct macro *next;	/* every macro of the table, newest first */
	struct macro *hnext;	/* same hash bucket */
};

/* Macros by name: a chained hash table in the arena. */
struct macro_table {
	struct macro *head;
	struct macro **buckets;
	size_t nbuckets, count;
};

struct pp {
	struct session *s;
	struct macro_table local;
	size_t budget;		/* tokens this file may still produce */
	bool over;
};

static void pp_run(struct pp *pp, const struct token *tok, size_t n,
		   struct tokptrs *out, const struct expansion *exp, int depth);

static void pp_error(struct pp *pp, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pp_error(struct pp *pp, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(pp->s, l, "parse error", fmt, ap);
	va_end(ap);
	pp->s->errors++;
}

static void out_push(struct pp *pp, struct tokptrs *out, const struct token *t)
{
	if (pp->budget == 0) {
		if (!pp->over)
			pp_error(pp, &t->loc, "macro expansion produces too much "
				 "output (runaway macro?)");
		pp->over = true;
		return;
	}
	pp->budget--;
	tokptrs_push(out, t);
}

/* A token made here (an argument's value, a count) lives in the arena. */
static const struct token *new_token(struct pp *pp, const struct token *t)
{
	struct token *c = ANEW(&pp->s->arena, struct token);

	*c = *t;
	return c;
}

static size_t name_hash(const char *name, size_t nlen)
{
	size_t h = 2166136261u;

	for (size_t i = 0; i < nlen; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static struct macro *table_find(struct macro_table *t, const char *name,
				size_t nlen)
{
	struct macro *m;

	if (!t || !t->nbuckets)
		return NULL;
	m = t->buckets[name_hash(name, nlen) & (t->nbuckets - 1)];
	for (; m; m = m->hnext)
		if (m->nlen == nlen && memcmp(m->name, name, nlen) == 0)
			return m;
	return NULL;
}

static void table_add(struct session *s, struct macro_table *t,
		      struct macro *m)
{
	size_t b;

	if (t->count >= t->nbuckets) {
		size_t n = t->nbuckets ? t->nbuckets * 2 : 64;
		struct macro **v = arena_alloc(&s->arena, n * sizeof(*v));

		for (struct macro *o = t->head; o; o = o->next) {
			b = name_hash(o->name, o->nlen) & (n - 1);
			o->hnext = v[b];
			v[b] = o;
		}
		t->buckets = v;
		t->nbuckets = n;
	}
	b = name_hash(m->name, m->nlen) & (t->nbuckets - 1);
	m->hnext = t->buckets[b];
	t->buckets[b] = m;
	m->next = t->head;
	t->head = m;
	t->count++;
}

/* Library macros: every .stpm file on the tapset path, loaded once. */
static void load_library_dir(struct session *s, const char *dir,
			     struct macro_table *lib)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		size_t len = strlen(names[i]->d_name);

		if (len > 5 && strcmp(names[i]->d_name + len - 5, ".stpm") == 0) {
			char *path = arena_printf(&s->arena, "%s/%s", dir,
						  names[i]->d_name);
			struct srcfile *f = session_read_file(s, path, true);

			if (f) {
				struct tokvec raw = { 0 };
				struct tokptrs cooked = { 0 };
				struct pp pp = { .s = s, .budget = 1000000 };

				lex_file(s, f, &raw);
				pp_run(&pp, raw.v, raw.n, &cooked, NULL, 0);
				/* only the definitions matter */
				for (struct macro *m = pp.local.head, *nx; m;
				     m = nx) {
					nx = m->next;
					if (!table_find(lib, m->name, m->nlen))
						table_add(s, lib, m);
				}
				tokvec_free(&raw);
				tokptrs_free(&cooked);
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* A tapset root holds generic files, then the kernel runtime's (linux/),
 * each with an architecture subfolder for the target. */
static void load_library_root(struct session *s, const char *root,
			      struct macro_table *lib)
{
	const char *arch = kconfig_get(s)->arch;
	struct arena *a = &s->arena;

	load_library_dir(s, root, lib);
	load_library_dir(s, arena_printf(a, "%s/%s", root, arch), lib);
	load_library_dir(s, arena_printf(a, "%s/linux", root), lib);
	load_library_dir(s, arena_printf(a, "%s/linux/%s", root, arch), lib);
}

static struct macro_table *library(struct session *s)
{
	if (!s->lib_macros_loaded) {
		struct macro_table *lib = ANEW(&s->arena, struct macro_table);

		s->lib_macros_loaded = true;
		s->lib_macros = lib;
		load_library_root(s, session_tapset_dir(s), lib);
		for (int i = 0; i < s->ninclude; i++)
			load_library_root(s, s->include_dirs[i], lib);
	}
	return s->lib_macros;
}

static struct token *copy_tokens(struct session *s, const struct token *t,
				 size_t n)
{
	struct token *v = arena_alloc(&s->arena, (n ? n : 1) * sizeof(*v));

	if (n)
		memcpy(v, t, n * sizeof(*v));
	return v;
}

/* Token j of a slice; past its end, an END token (slices of a branch or
 * a condition have no END of their own). */
static const struct token *tk(const struct token *tok, size_t n, size_t j)
{
	static const struct token end = { .type = END };

	return j < n ? &tok[j] : &end;
}

/* Index of the PP_END matching the PP_IF at i, or n when there is none. */
static size_t match_end(const struct token *tok, size_t n, size_t i)
{
	int depth = 0;

	for (; i < n && tok[i].type != END; i++) {
		if (tok[i].type == PP_IF)
			depth++;
		else if (tok[i].type == PP_END && --depth == 0)
			return i;
	}
	return n;
}

/* @define NAME[(a, b)] %( body %); returns the index after it (> i) */
static size_t define(struct pp *pp, const struct token *tok, size_t n,
		     size_t i)
{
	const struct token *name = tk(tok, n, i + 1);
	struct macro *m;
	struct tokvec params = { 0 };
	size_t j = i + 2, end;

	bool redefine = name->type == IDENT && name->len == 6 &&
			memcmp(name->text, "define", 6) == 0;

	if (name->type != IDENT || redefine) {
		if (redefine)
			pp_error(pp, &name->loc,
				 "attempt to redefine '@define'");
		else
			pp_error(pp, name->type == END ? &tok[i].loc :
				 &name->loc, "expected macro name after "
				 "'@define', saw %s",
				 token_describe(pp->s, name));
		if (name->type == END)
			return i + 1;
		/* skip the body too, if there is one */
		if (tk(tok, n, i + 2)->type == PP_IF) {
			end = match_end(tok, n, i + 2);
			return end < n ? end + 1 : n;
		}
		return i + 2;
	}
	if (tk(tok, n, j)->type == '(') {
		j++;
		while (tk(tok, n, j)->type == IDENT) {
			tokvec_push(&params, &tok[j]);
			j++;
			if (tk(tok, n, j)->type != ',')
				break;
			j++;
		}
		if (tk(tok, n, j)->type != ')') {
			pp_error(pp, j < n ? &tok[j].loc : &name->loc,
				 "expected macro parameter name or ')', saw %s",
				 token_describe(pp->s, tk(tok, n, j)));
			tokvec_free(&params);
			return j < n ? j + 1 : n;
		}
		j++;
	}
	if (tk(tok, n, j)->type != PP_IF) {
		pp_error(pp, j < n ? &tok[j].loc : &name->loc, "expected '%%(' "
			 "to open the body of macro '@%.*s', saw %s",
			 (int)name->len, name->text,
			 token_describe(pp->s, tk(tok, n, j)));
		tokvec_free(&params);
		return j < n ? j + 1 : n;
	}
	end = match_end(tok, n, j);
	if (end >= n || tok[end].type != PP_END) {
		pp_error(pp, &tok[j].loc, "unterminated body of macro '@%.*s'; "
			 "expected '%%)'", (int)name->len, name->text);
		tokvec_free(&params);
		return n;
	}
	if (table_find(&pp->local, name->text, name->len))
		pp_error(pp, &name->loc, "macro '@%.*s' is already defined",
			 (int)name->len, name->text);
	m = ANEW(&pp->s->arena, struct macro);
	m->name = name->text;
	m->nlen = name->len;
	m->params = copy_tokens(pp->s, params.v, params.n);
	m->nparams = (int)params.n;
	m->body = copy_tokens(pp->s, tok + j + 1, end - j - 1);
	m->nbody = end - j - 1;
	m->loc = name->loc;
	table_add(pp->s, &pp->local, m);
	tokvec_free(&params);
	return end + 1;
}

/* A failed macro use stands as a literal 0, so that parsing goes on
 * without a second error about the same place. */
static void placeholder(struct pp *pp, const struct token *use,
			struct tokptrs *out)
{
	struct token c = *use;

	c.type = NUMBER;
	c.num = 0;
	out_push(pp, out, new_token(pp, &c));
}

static int param_index(const struct macro *m, const struct token *b)
{
	if (b->type != AT_NAME)
		return -1;
	for (int q = 0; q < m->nparams; q++)
		if (m->params[q].len == b->len - 1 &&
		    memcmp(m->params[q].text, b->text + 1, b->len - 1) == 0)
			return q;
	return -1;
}

/* @NAME or @NAME(args): substitute and preprocess the body. */
static size_t expand(struct pp *pp, const struct macro *m,
		     const struct token *tok, size_t n, size_t i,
		     struct tokptrs *out, const struct expansion *exp, int depth)
{
	const struct token *use = &tok[i];
	size_t j = i + 1, *start = NULL, *len = NULL, nbody = 0;
	int nargs = 0, level = 0;
	struct token *body;
	struct expansion *e;

	if (depth >= PP_MAX_DEPTH) {
		pp_error(pp, &use->loc, "macro '@%s' expands too deeply "
			 "(recursive macro?)", arena_strndup(&pp->s->arena,
							     m->name, m->nlen));
		pp->over = true;	/* nothing sensible can follow */
		return n;
	}
	if (m->nparams > 0) {
		if (tk(tok, n, j)->type != '(') {
			pp_error(pp, j < n ? &tok[j].loc : &use->loc,
				 "macro '@%.*s' takes %d "
				 "parameter%s; expected '(', saw %s",
				 (int)m->nlen, m->name, m->nparams,
				 m->nparams == 1 ? "" : "s",
				 token_describe(pp->s, tk(tok, n, j)));
			placeholder(pp, use, out);
			return j;
		}
		start = xcalloc((size_t)m->nparams + 1, sizeof(*start));
		len = xcalloc((size_t)m->nparams + 1, sizeof(*len));
		j++;
		if (tk(tok, n, j)->type != ')') {
			size_t arg = j;

			for (; j < n && tok[j].type != END; j++) {
				int ty = tok[j].type;

				if (ty == '(' || ty == '[' || ty == '{')
					level++;
				else if ((ty == ')' || ty == ']' || ty == '}') &&
					 level > 0)
					level--;
				else if ((ty == ',' || ty == ')') && level == 0) {
					if (nargs < m->nparams) {
						start[nargs] = arg;
						len[nargs] = j - arg;
					}
					nargs++;
					arg = j + 1;
					if (ty == ')')
						break;
				}
			}
		} else {
			/* no arguments */
		}
		if (tk(tok, n, j)->type != ')') {
			pp_error(pp, &tok[i].loc, "unterminated argument list "
				 "of macro '@%.*s'", (int)m->nlen, m->name);
			free(start);
			free(len);
			pp->over = true;
			return j;
		}
		j++;
		if (nargs != m->nparams) {
			pp_error(pp, &use->loc, "macro '@%.*s' takes %d "
				 "parameter%s, %d given", (int)m->nlen, m->name,
				 m->nparams, m->nparams == 1 ? "" : "s", nargs);
			free(start);
			free(len);
			placeholder(pp, use, out);
			return j;
		}
	}
	/* the expansion lives in the arena: the output points into it */
	for (size_t k = 0; k < m->nbody; k++) {
		const struct token *b = &m->body[k];
		int p = param_index(m, b);

		nbody += p >= 0 ? len[p] : 1;
	}
	/* substitution is work too: a macro that doubles its argument at
	 * every level must hit the budget, not the memory limit */
	if (nbody > pp->budget) {
		pp_error(pp, &use->loc, "macro '@%.*s' expands to too much "
			 "(runaway macro?)", (int)m->nlen, m->name);
		pp->over = true;
		free(start);
		free(len);
		return n;
	}
	pp->budget -= nbody;
	body = arena_alloc(&pp->s->arena, (nbody ? nbody : 1) * sizeof(*body));
	e = ANEW(&pp->s->arena, struct expansion);
	e->site = use->loc;
	e->site.exp = use->loc.exp ? use->loc.exp : exp;
	e->macro = arena_strndup(&pp->s->arena, m->name, m->nlen);
	e->depth = depth + 1;
	nbody = 0;
	for (size_t k = 0; k < m->nbody; k++) {
		const struct token *b = &m->body[k];
		int p = param_index(m, b);

		if (p >= 0) {
			/* arguments keep the place they were written */
			for (size_t a = 0; a < len[p]; a++)
				body[nbody++] = tok[start[p] + a];
		} else {
			/* body tokens were defined elsewhere: mark them as
			 * expanded here */
			body[nbody] = *b;
			if (!body[nbody].loc.exp)
				body[nbody].loc.exp = e;
			nbody++;
		}
	}
	free(start);
	free(len);
	pp_run(pp, body, nbody, out, e, depth + 1);
	return j;
}

/* ---- conditions ---- */

struct cond {
	struct pp *pp;
	const struct token *const *t;
	size_t i, n;
	const struct token *stop;	/* the %? (or %)) ending the condition */
	bool failed;
};

static void cond_error(struct cond *c, const char *what)
{
	const struct token *t = c->i < c->n ? c->t[c->i] : c->stop;

	if (!c->failed)
		pp_error(c->pp, &t->loc, "%s, saw %s", what,
			 token_describe(c->pp->s, t));
	c->failed = true;
}

static int cond_peek(struct cond *c)
{
	return c->i < c->n ? c->t[c->i]->type : c->stop->type;
}

static bool is_compare(int ty)
{
	return ty == EQ || ty == NE || ty == '<' || ty == '>' || ty == LE ||
	       ty == GE;
}

static bool compare_result(int op, int c)
{
	switch (op) {
	case EQ: return c == 0;
	case NE: return c != 0;
	case '<': return c < 0;
	case '>': return c > 0;
	case LE: return c <= 0;
	default: return c >= 0;
	}
}

/* Strings: == and != match globs; the others compare. */
static bool string_compare(int op, const char *a, const char *b, bool version)
{
	if (op == EQ || op == NE) {
		bool eq = fnmatch(b, a, 0) == 0;

		return op == EQ ? eq : !eq;
	}
	return compare_result(op, version ? version_compare(a, b) : strcmp(a, b));
}

/* One side of a comparison: a literal or a name the target defines. */
struct atom {
	bool is_num;
	int64_t num;
	const char *str;
	bool name;		/* kernel_v, arch, CONFIG_..., not a literal */
	bool version;		/* compare as versions */
	bool config;		/* CONFIG_*: a number or a string as needed */
	const struct token *tok;
};

static bool cond_atom(struct cond *c, struct atom *v)
{
	struct session *s = c->pp->s;
	const struct token *t = c->t[c->i < c->n ? c->i : c->n - 1];
	bool neg = false;

	memset(v, 0, sizeof(*v));
	v->tok = t;
	if (cond_peek(c) == IDENT) {
		char *name = arena_strndup(&s->arena, t->text, t->len);

		v->name = true;
		if (strcmp(name, "kernel_v") == 0 ||
		    strcmp(name, "kernel_vr") == 0) {
			struct kconfig *k = kconfig_get(s);

			v->str = name[8] == 'r' ? k->release : k->version;
			v->version = true;
		} else if (strcmp(name, "systemtap_v") == 0) {
			v->str = TAPIR_STAP_COMPAT;
			v->version = true;
		} else if (strcmp(name, "arch") == 0) {
			v->str = kconfig_get(s)->arch;
		} else if (strcmp(name, "runtime") == 0) {
			v->str = "kernel";
		} else if (strcmp(name, "systemtap_privilege") == 0) {
			v->str = "stapdev";
		} else if (strcmp(name, "guru_mode") == 0) {
			v->is_num = true;
			v->num = s->guru;
		} else if (strncmp(name, "CONFIG_", 7) == 0) {
			const char *val = kconfig_value(kconfig_get(s), name);

			v->config = true;
			v->str = val ? val : "";
			v->num = strtoll(v->str, NULL, 0);
		} else {
			cond_error(c, "expected 'arch', 'runtime', 'kernel_v', "
				   "'kernel_vr', 'systemtap_v', "
				   "'systemtap_privilege', 'guru_mode', "
				   "'CONFIG_...' or a literal");
			return false;
		}
		c->i++;
		return true;
	}
	if (cond_peek(c) == '-') {
		neg = true;
		c->i++;
		t = c->t[c->i < c->n ? c->i : c->n - 1];
	}
	if (cond_peek(c) == NUMBER) {
		v->is_num = true;
		v->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
		c->i++;
		return true;
	}
	if (cond_peek(c) == STRING && !neg) {
		v->str = arena_strndup(&s->arena, t->str, t->slen);
		c->i++;
		return true;
	}
	cond_error(c, "expected a number or a string");
	return false;
}

static bool cond_comparison(struct cond *c)
{
	struct atom l, r;
	size_t op_at;
	int op;

	if (!cond_atom(c, &l))
		return false;
	op = cond_peek(c);
	if (!is_compare(op)) {
		cond_error(c, "expected a comparison operator");
		return false;
	}
	op_at = c->i++;
	if (!cond_atom(c, &r))
		return false;
	/* CONFIG_ values take the type of the other side */
	if (l.config && (r.is_num || (r.config && !r.str[0])))
		l.is_num = true;
	if (r.config && (l.is_num || (l.config && !l.str[0])))
		r.is_num = true;
	if (l.config && r.config && *l.str && *r.str) {
		char *e1, *e2;

		strtoll(l.str, &e1, 0);
		strtoll(r.str, &e2, 0);
		l.is_num = r.is_num = !*e1 && !*e2;
	}
	if (l.is_num != r.is_num) {
		c->i--;
		cond_error(c, l.is_num ? "expected a number" : "expected a string");
		return false;
	}
	/* arch, runtime, systemtap_privilege, guru_mode and CONFIG_ strings
	 * have no order: only versions, literals and CONFIG_ numbers do, as
	 * in stap. */
	if (op != EQ && op != NE &&
	    ((l.name && !l.version && (!l.config || !l.is_num)) ||
	     (r.name && !r.version && (!r.config || !r.is_num)))) {
		c->i = op_at;
		cond_error(c, "expected '==' or '!='");
		return false;
	}
	if (l.is_num)
		return compare_result(op, l.num < r.num ? -1 : l.num > r.num);
	if (l.name || r.name)
		return string_compare(op, l.str, r.str, l.version || r.version);
	return compare_result(op, strcmp(l.str, r.str));
}

static bool cond_or(struct cond *c, int depth);

static bool cond_primary(struct cond *c, int depth)
{
	(void)depth;
	return cond_comparison(c);
}

static bool cond_and(struct cond *c, int depth)
{
	bool v = cond_primary(c, depth);

	while (!c->failed && cond_peek(c) == ANDAND) {
		c->i++;
		v = cond_primary(c, depth) && v;
	}
	return v;
}

static bool cond_or(struct cond *c, int depth)
{
	bool v = cond_and(c, depth);

	while (!c->failed && cond_peek(c) == OROR) {
		c->i++;
		v = cond_and(c, depth) || v;
	}
	return v;
}

/* %( cond %? then [%: else] %) */
static size_t conditional(struct pp *pp, const struct token *tok, size_t n,
			  size_t i, struct tokptrs *out,
			  const struct expansion *exp, int depth)
{
	size_t then = 0, els = 0, dup = 0, end, j;
	int level = 0;
	struct tokptrs ctoks = { 0 };
	struct cond c = { .pp = pp };
	bool value;

	for (j = i + 1; j < n && tok[j].type != END; j++) {
		int ty = tok[j].type;

		if (ty == PP_IF) {
			level++;
		} else if (ty == PP_END) {
			if (level-- == 0)
				break;
		} else if (level == 0 && ty == PP_THEN && !then) {
			then = j;
		} else if (level == 0 && ty == PP_ELSE && then && !els) {
			els = j;
		} else if (level == 0 && ty == PP_ELSE && then && !dup) {
			dup = j;
		}
	}
	end = j;
	if (end >= n || tok[end].type != PP_END) {
		pp_error(pp, &tok[i].loc, "unterminated conditional; expected "
			 "'%%)'");
		return end;
	}
	if (dup) {
		pp_error(pp, &tok[dup].loc, "invalid conditional: duplicate "
			 "'%%:'");
		return end + 1;
	}
	/* the condition runs to the %?, or (when it is missing) to the %) */
	pp_run(pp, tok + i + 1, (then ? then : end) - i - 1, &ctoks, exp, depth);
	c.t = ctoks.v;
	c.n = ctoks.n;
	c.stop = &tok[then ? then : end];
	if (c.n == 0) {
		cond_error(&c, "expected a condition");
		value = false;
	} else {
		value = cond_or(&c, 0);
		if (!c.failed && c.i < c.n)
			cond_error(&c, then ? "expected '&&', '||' or '%?'" :
				   "expected '&&', '||' or '%?'");
		else if (!c.failed && !then)
			cond_error(&c, "expected '%?'");
	}
	tokptrs_free(&ctoks);
	if (c.failed)
		return end + 1;
	if (value)
		pp_run(pp, tok + then + 1, (els ? els : end) - then - 1, out,
		       exp, depth);
	else if (els)
		pp_run(pp, tok + els + 1, end - els - 1, out, exp, depth);
	return end + 1;
}

/* ---- arguments ---- */

static void argument(struct pp *pp, const struct token *t, struct tokptrs *out)
{
	struct session *s = pp->s;
	struct token c = *t;

	if (t->type == ARGC_DOLLAR || t->type == ARGC_AT) {
		if (t->type == ARGC_DOLLAR) {
			c.type = NUMBER;
			c.num = s->nargs;
			c.text = arena_printf(&s->arena, "%d", s->nargs);
			c.len = strlen(c.text);
		} else {
			c.type = STRING;
			c.str = arena_printf(&s->arena, "%d", s->nargs);
			c.slen = strlen(c.str);
			c.text = arena_printf(&s->arena, "\"%s\"", c.str);
			c.len = c.slen + 2;
		}
		out_push(pp, out, new_token(pp, &c));
		return;
	}
	if (t->num < 1 || t->num > s->nargs) {
		pp_error(pp, &t->loc, "command line argument out of range "
			 "[1-%d]", s->nargs);
		/* stand in with a literal so that parsing goes on quietly */
		c.type = t->type == ARG_AT ? STRING : NUMBER;
		c.num = 0;
		c.str = "";
		c.slen = 0;
		out_push(pp, out, new_token(pp, &c));
		return;
	}
	if (t->type == ARG_AT) {
		const char *a = s->args[t->num - 1];

		c.type = STRING;
		c.str = a;
		c.slen = strlen(a);
		c.text = arena_printf(&s->arena, "\"%s\"", a);
		c.len = strlen(c.text);
		out_push(pp, out, new_token(pp, &c));
	} else {
		struct tokvec v = { 0 };

		lex_argument(s, s->args[t->num - 1], &t->loc, &v);
		for (size_t k = 0; k < v.n; k++) {
			v.v[k].space_before = k ? v.v[k].space_before :
						  t->space_before;
			out_push(pp, out, new_token(pp, &v.v[k]));
		}
		tokvec_free(&v);
	}
}

static bool plain(int type)
{
	switch (type) {
	case END: case PP_DEFINE: case AT_NAME: case PP_IF: case PP_THEN:
	case PP_ELSE: case PP_END: case ARG_DOLLAR: case ARG_AT:
	case ARGC_DOLLAR: case ARGC_AT:
		return false;
	default:
		return true;
	}
}

static void pp_run(struct pp *pp, const struct token *tok, size_t n,
		   struct tokptrs *out, const struct expansion *exp, int depth)
{
	size_t i = 0;

	while (i < n && !pp->over) {
		const struct token *t = &tok[i];
		struct macro *m;

		switch (t->type) {
		case END:
			return;
		case PP_DEFINE:
			i = define(pp, tok, n, i);
			break;
		case AT_NAME:
			m = table_find(&pp->local, t->text + 1, t->len - 1);
			if (!m)
				m = table_find(library(pp->s), t->text + 1,
					       t->len - 1);
			if (m) {
				i = expand(pp, m, tok, n, i, out, exp, depth);
			} else {
				out_push(pp, out, t);
				i++;
			}
			break;
		case PP_IF:
			i = conditional(pp, tok, n, i, out, exp, depth);
			break;
		case PP_THEN:
		case PP_ELSE:
		case PP_END:
			pp_error(pp, &t->loc, "'%.*s' without a matching '%%('",
				 (int)t->len, t->text);
			i++;
			break;
		case ARG_DOLLAR:
		case ARG_AT:
		case ARGC_DOLLAR:
		case ARGC_AT:
			argument(pp, t, out);
			i++;
			break;
		default: {
			/* the common case: a run of ordinary tokens */
			size_t j = i + 1;

			while (j < n && plain(tok[j].type))
				j++;
			if (pp->budget < j - i) {
				out_push(pp, out, t);
				i++;
				break;
			}
			pp->budget -= j - i;
			for (; i < j; i++)
				tokptrs_push(out, &tok[i]);
		}
		}
	}
}

void preprocess(struct session *s, const struct tokvec *in,
		struct tokptrs *out)
{
	struct pp pp = { .s = s, .budget = 1000000 + 64 * in->n };

	/* usually about as many tokens come out as went in: no regrowing */
	if (!out->cap) {
		out->v = xmalloc((in->n + 16) * sizeof(*out->v));
		out->cap = in->n + 16;
	}
	pp_run(&pp, in->v, in->n, out, NULL, 0);
	if (pp.over) {
		/* the input was cut short: the parser must not complain
		 * about its end as well */
		struct token end = in->v[in->n - 1];

		end.truncated = true;
		tokptrs_push(out, new_token(&pp, &end));
	} else {
		tokptrs_push(out, &in->v[in->n - 1]);
	}
}
