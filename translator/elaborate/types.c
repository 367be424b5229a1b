/* types.c - type inference over long, string and statistics.
 *
 * Every body is walked again and again, each expression told the type its
 * context wants, until nothing new is learned. A symbol takes the first
 * type it is given and remembers where; a later, different type is a
 * mismatch reported at both places. A last walk reports what stayed
 * unknown and checks print formats against their arguments.
 */
#include <string.h>

#include "elab-internal.h"
#include "emit/regex-compile.h"

static enum vtype infer(struct elab *e, struct expr *x, enum vtype want);
static void infer_stmt(struct elab *e, struct stmt *st);

static const char *tname(enum vtype t)
{
	return ast_type_name(t);
}

static void mismatch(struct elab *e, struct symbol *sym, enum vtype t,
		     const struct loc *l)
{
	if (sym->mismatch_reported)
		return;
	sym->mismatch_reported = true;
	elab_error(e, l, "type mismatch (%s vs. %s) for '%s'", tname(t),
		   tname(sym->type), sym->name);
	elab_note(e, &sym->type_loc, "the type of '%s' was first inferred "
		  "here (%s)", sym->name, tname(sym->type));
}

static void sym_type(struct elab *e, struct symbol *sym, enum vtype t,
		     const struct loc *l)
{
	if (!sym || t == TYPE_UNKNOWN)
		return;
	if (sym->type == TYPE_UNKNOWN) {
		sym->type = t;
		sym->type_loc = *l;
		e->changed = true;
	} else if (sym->type != t) {
		mismatch(e, sym, t, l);
	}
}

static void sym_key(struct elab *e, struct symbol *sym, int i, enum vtype t,
		    const struct loc *l)
{
	if (!sym || t == TYPE_UNKNOWN || i >= MAX_ARITY)
		return;
	if (sym->key[i] == TYPE_UNKNOWN) {
		sym->key[i] = t;
		sym->key_loc[i] = *l;
		e->changed = true;
	} else if (sym->key[i] != t && !sym->mismatch_reported) {
		sym->mismatch_reported = true;
		elab_error(e, l, "type mismatch (%s vs. %s) for index %d of "
			   "'%s'", tname(t), tname(sym->key[i]), i + 1,
			   sym->name);
		elab_note(e, &sym->key_loc[i], "the type of that index was "
			  "first inferred here (%s)", tname(sym->key[i]));
	}
}

static bool sym_arity(struct elab *e, struct symbol *sym, int n,
		      const struct loc *l)
{
	if (!sym)
		return false;
	if (n > MAX_ARITY) {
		if (!sym->mismatch_reported)
			elab_error(e, l, "array '%s' has %d indexes; at most %d "
				   "are allowed", sym->name, n, MAX_ARITY);
		sym->mismatch_reported = true;
		return false;
	}
	/* global a[N] and global a% declare arrays: as stap, a scalar use
	 * is an error, whichever use comes first. */
	if (n == 0 && sym->global && (sym->size || sym->wrap)) {
		if (!sym->mismatch_reported) {
			if (sym->wrap)
				elab_error(e, &sym->loc, "wrapping not "
					   "supported for scalars: '%s'",
					   sym->name);
			else
				elab_error(e, l, "array '%s' used as a scalar",
					   sym->name);
			elab_note(e, sym->wrap ? l : &sym->loc, sym->wrap ?
				  "'%s' is used as a scalar here" :
				  "'%s' was declared as an array here",
				  sym->name);
		}
		sym->mismatch_reported = true;
		return false;
	}
	if (sym->arity < 0) {
		sym->arity = n;
		e->changed = true;
		return true;
	}
	if (sym->arity != n) {
		if (!sym->mismatch_reported) {
			if (n == 0)
				elab_error(e, l, "array '%s' used as a scalar",
					   sym->name);
			else if (sym->arity == 0)
				elab_error(e, l, "scalar '%s' used as an array",
					   sym->name);
			else
				elab_error(e, l, "array '%s' used with %d "
					   "index%s here but %d elsewhere",
					   sym->name, n, n == 1 ? "" : "es",
					   sym->arity);
		}
		sym->mismatch_reported = true;
		return false;
	}
	return true;
}

/* got is what x turned out to be; want what the context needs. */
static void expect(struct elab *e, const struct expr *x, enum vtype got,
		   enum vtype want)
{
	if (got != TYPE_UNKNOWN && want != TYPE_UNKNOWN && got != want)
		elab_error(e, &x->loc, "type mismatch: expected %s but found %s",
			   tname(want), tname(got));
}

static enum vtype infer_as(struct elab *e, struct expr *x, enum vtype want)
{
	enum vtype t = infer(e, x, want);

	expect(e, x, t, want);
	return t;
}

static bool is_print(const char *name)
{
	return strncmp(name, "print", 5) == 0 || strncmp(name, "sprint", 6) == 0;
}

/* ---- print formats ---- */

/* A width or precision: digits, or '*' taking a long argument. */
static const char *format_count(const char *p, const char *end, char *types,
				int max, int *n)
{
	if (p < end && *p == '*') {
		if (*n < max)
			types[*n] = 'l';
		(*n)++;
		return p + 1;
	}
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* The conversions of a format, as the types their arguments must have;
 * 'w' marks a '*' width or precision (a long). Returns the count, or -1
 * after reporting a malformed format. */
static int format_types(struct elab *e, const struct expr *fmt, char *types,
			int max)
{
	const char *p = fmt->str, *end = fmt->str + fmt->len;
	int n = 0;

	while (p < end) {
		const char *start = p;

		if (*p++ != '%')
			continue;
		if (p < end && *p == '%') {
			p++;
			continue;
		}
		/* as SystemTap: one flag at most ('0' after another flag
		 * is the width's), then width, precision, one 'l' */
		if (p < end && strchr("-+ #0", *p))
			p++;
		p = format_count(p, end, types, max, &n);	/* width */
		if (p < end && *p == '.')
			p = format_count(p + 1, end, types, max, &n);
		if (p < end && *p == 'l')
			p++;
		if (p >= end) {
			elab_error(e, &fmt->loc, "format string ends inside a "
				   "conversion");
			return -1;
		}
		if (strchr("diouxXpcbmM", *p)) {
			if (n < max)
				types[n] = 'l';
		} else if (*p == 's') {
			if (n < max)
				types[n] = 's';
		} else {
			elab_error(e, &fmt->loc, "invalid conversion '%.*s' in "
				   "format string (at most one flag, then width, "
				   "precision, one 'l' and one of diouxXpcbmMs)",
				   (int)(p - start + 1), start);
			return -1;
		}
		n++;
		p++;
	}
	return n;
}

static void check_format(struct elab *e, struct expr *call)
{
	struct expr *fmt = call->args, *a;
	char types[64];
	int n = format_types(e, fmt, types, 64), nargs = 0, i = 0;

	if (n < 0)
		return;
	for (a = fmt->next; a; a = a->next)
		nargs++;
	if (n != nargs) {
		elab_error(e, &call->loc, "wrong number of arguments to '%s': "
			   "the format takes %d, %d given", call->str, n, nargs);
		return;
	}
	for (a = fmt->next; a && i < 64; a = a->next, i++) {
		enum vtype want = types[i] == 's' ? TYPE_STRING : TYPE_LONG;
		enum vtype got = infer(e, a, want);

		if (got == TYPE_STATS || (got != TYPE_UNKNOWN && got != want))
			elab_error(e, &a->loc, "type mismatch: the format "
				   "wants a %s here, but this is a %s",
				   tname(want), tname(got));
	}
}

static enum vtype infer_print(struct elab *e, struct expr *x)
{
	const char *n = x->str;
	bool to_string = n[0] == 's';

	for (struct expr *a = x->args; a; a = a->next) {
		enum vtype t;

		if (a->kind == E_HIST && !strcmp(n + to_string, "print")) {
			infer(e, a, TYPE_UNKNOWN);
			continue;
		}
		t = infer(e, a, TYPE_UNKNOWN);
		if (t == TYPE_STATS)
			elab_error(e, &a->loc, "a statistics value cannot be "
				   "printed; use an extractor such as @count");
		/* (printf's format types its arguments itself) */
		else if (e->report_void && t == TYPE_UNKNOWN &&
			 a->kind == E_CALL && a->ref && !strstr(n, "printf"))
			elab_error(e, &a->loc, "unresolved type for the value of "
				   "'%s': the function returns no value",
				   ((struct function *)a->ref)->name);
	}
	if (e->final && strstr(n, "printf"))
		check_format(e, x);
	else if (e->final && (strstr(n, "printd")) && x->args)
		infer_as(e, x->args, TYPE_STRING);
	return to_string ? TYPE_STRING : TYPE_UNKNOWN;
}

static enum vtype infer_call(struct elab *e, struct expr *x, enum vtype want)
{
	struct function *fn = x->ref;
	enum vtype t = TYPE_UNKNOWN;

	if (is_print(x->str) && !fn)
		return infer_print(e, x);
	if (!fn)
		return TYPE_UNKNOWN;
	for (struct function *o = fn; o; o = o->overload) {
		struct expr *a = x->args;

		for (struct symbol *p = o->params; p && a; p = p->next,
		     a = a->next) {
			enum vtype at = infer(e, a, p->type);

			if (at == TYPE_STATS)
				elab_error(e, &a->loc, "a statistics value "
					   "cannot be passed to a function");
			else if (p->type != TYPE_UNKNOWN && at != TYPE_UNKNOWN &&
				 at != p->type)
				elab_error(e, &a->loc, "type mismatch: "
					   "parameter '%s' of '%s' is %s, the "
					   "argument is %s", p->name, o->name,
					   tname(p->type), tname(at));
			else
				sym_type(e, p, at, &a->loc);
		}
		if (o->type == TYPE_UNKNOWN && want != TYPE_UNKNOWN) {
			o->type = want;
			o->type_loc = x->loc;
			e->changed = true;
		}
		if (t == TYPE_UNKNOWN)
			t = o->type;
	}
	/* overloads stand for one another: one return type for all */
	for (struct function *o = fn->overload; o; o = o->overload)
		if (o->type != TYPE_UNKNOWN && fn->type != TYPE_UNKNOWN &&
		    o->type != fn->type && !o->mismatch_reported) {
			o->mismatch_reported = true;
			elab_error(e, &o->decl->loc, "overloads of '%s' return "
				   "different types (%s and %s)", o->name,
				   tname(o->type), tname(fn->type));
			elab_note(e, &fn->decl->loc, "the other overload is "
				  "here");
		}
	return t;
}

/* The statistics operand of @count(...), @hist_log(...), <<<. */
static void need_stats(struct elab *e, struct expr *x, const char *what)
{
	struct symbol *sym = x->ref;

	if ((x->kind != E_VAR && x->kind != E_INDEX) || !sym) {
		elab_error(e, &x->loc, "%s needs a statistics variable", what);
		return;
	}
	if (!sym->global) {
		elab_error(e, &x->loc, "%s needs a global statistics variable; "
			   "'%s' is local", what, sym->name);
		return;
	}
	if (sym->type != TYPE_UNKNOWN && sym->type != TYPE_STATS) {
		if (!sym->mismatch_reported)
			elab_error(e, &x->loc, "%s needs a statistics value, "
				   "but '%s' is %s", what, sym->name,
				   tname(sym->type));
		sym->mismatch_reported = true;
		return;
	}
	infer(e, x, TYPE_STATS);
}

/* A statistics variable keeps one kind of histogram (and one set of
 * @hist_linear parameters): the runtime keeps its buckets with it. */
static void same_histogram(struct elab *e, struct expr *x)
{
	struct symbol *sym = x->a ? x->a->ref : NULL;
	const struct expr *first;

	if (!sym || (x->a->kind != E_VAR && x->a->kind != E_INDEX))
		return;
	first = sym->hist;
	if (!first) {
		sym->hist = x;
		return;
	}
	if (first == x)
		return;
	if (first->op == x->op) {
		const struct expr *a = first->args, *b = x->args;

		for (; a && b; a = a->next, b = b->next)
			if (a->kind != E_NUM || b->kind != E_NUM ||
			    a->num != b->num)
				break;
		if (!a && !b)
			return;
	}
	if (!sym->mismatch_reported) {
		sym->mismatch_reported = true;
		elab_error(e, &x->loc, "'%s' is used with a different "
			   "histogram here", sym->name);
		elab_note(e, &first->loc, "its histogram was first given "
			  "here");
	}
}

static enum vtype infer_assign(struct elab *e, struct expr *x)
{
	enum vtype tl, tr;

	if (x->op == OP_AGG) {
		need_stats(e, x->a, "'<<<'");
		infer_as(e, x->b, TYPE_LONG);
		return TYPE_UNKNOWN;
	}
	if (x->op != OP_ASSIGN) {
		enum vtype t = x->op == OP_CONCAT ? TYPE_STRING : TYPE_LONG;

		infer_as(e, x->a, t);
		infer_as(e, x->b, t);
		return t;
	}
	tl = infer(e, x->a, TYPE_UNKNOWN);
	if (tl == TYPE_STATS) {
		elab_error(e, &x->loc, "cannot assign to a statistics value; "
			   "use '<<<'");
		return TYPE_UNKNOWN;
	}
	tr = infer(e, x->b, tl);
	if (tr == TYPE_STATS) {
		elab_error(e, &x->b->loc, "a statistics value cannot be "
			   "assigned; use an extractor such as @count");
		return TYPE_UNKNOWN;
	}
	if (tl == TYPE_UNKNOWN && tr != TYPE_UNKNOWN)
		tl = infer(e, x->a, tr);
	if (tl != TYPE_UNKNOWN && tr != TYPE_UNKNOWN && tl != tr) {
		struct symbol *sym = x->a->ref;

		if (sym && (x->a->kind == E_VAR || x->a->kind == E_INDEX))
			mismatch(e, sym, tr, &x->b->loc);
		else
			expect(e, x->b, tr, tl);
	}
	return tl != TYPE_UNKNOWN ? tl : tr;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One byte of a string literal as written at r (the lexer's escapes):
 * its value, r moved past it. */
static char literal_byte(const char **r, const char *end)
{
	const char *p = *r;
	char c = *p++;
	int v, k;

	if (c == '\\' && p < end) {
		c = *p++;
		switch (c) {
		case 'n': c = '\n'; break;
		case 't': c = '\t'; break;
		case 'r': c = '\r'; break;
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'v': c = '\v'; break;
		case 'x':
			for (v = 0, k = 0; k < 2 && p < end && hex_digit(*p) >= 0; k++)
				v = v * 16 + hex_digit(*p++);
			c = k ? (char)v : 'x';
			break;
		default:
			if (c >= '0' && c <= '7') {
				for (v = c - '0', k = 1; k < 3 && p < end &&
				     *p >= '0' && *p <= '7'; k++)
					v = v * 8 + (*p++ - '0');
				c = (char)v;
			}
		}
	}
	*r = p;
	return c;
}

/* stap counts a regex error's position in the literal as written, its
 * escapes not decoded: the byte pos of the decoded literal lit, so
 * counted. When the source does not hold lit as one literal at its place
 * (adjacent literals, a macro, an argument): pos itself. */
static size_t regex_written_pos(const struct expr *lit, size_t pos)
{
	const struct loc *l = &lit->loc;
	const char *p, *end, *raw;
	size_t n = 0;
	int line = 1;

	if (!l->file || l->exp || l->line <= 0 || l->col <= 0)
		return pos;
	p = l->file->text;
	end = p + l->file->len;
	for (; p < end && line < l->line; p++)
		if (*p == '\n')
			line++;
	if (line != l->line || end - p < l->col || p[l->col - 1] != '"')
		return pos;
	raw = p + l->col;
	for (p = raw; p < end && *p != '"' && *p != '\n'; n++) {
		if (n == pos)
			return (size_t)(p - raw);
		if (n >= lit->len || literal_byte(&p, end) != lit->str[n])
			return pos;
	}
	if (p >= end || *p != '"' || n != lit->len || pos < n)
		return pos;
	return (size_t)(p - raw) + (pos - n);
}

/* The regex literal of x =~ "re": compile it once, into x->ref (an
 * rx_prog in the arena; with no instructions when it failed, so that it
 * is reported once), for pass 3. Malformed: an error at the literal,
 * worded as stap's. */
static void compile_regex(struct elab *e, struct expr *x)
{
	struct rx_prog tmp, *prog;
	struct rx_error err;

	if (x->ref || !x->b || x->b->kind != E_STR)
		return;
	if (rx_compile(x->b->str, x->b->len, &tmp, &err) < 0) {
		x->ref = ANEW(&e->s->arena, struct rx_prog);
		if (err.has_pos)
			elab_error(e, &x->b->loc, "regex compilation error (at "
				   "position %zu): %s",
				   regex_written_pos(x->b, err.pos), err.msg);
		else
			elab_error(e, &x->b->loc, "regex compilation error: %s",
				   err.msg);
		return;
	}
	prog = ANEW(&e->s->arena, struct rx_prog);
	*prog = tmp;
	prog->insn = arena_alloc(&e->s->arena, tmp.ninsn * sizeof(*tmp.insn));
	memcpy(prog->insn, tmp.insn, tmp.ninsn * sizeof(*tmp.insn));
	prog->sets = NULL;
	if (tmp.nsets) {
		prog->sets = arena_alloc(&e->s->arena, tmp.nsets * sizeof(*tmp.sets));
		memcpy(prog->sets, tmp.sets, tmp.nsets * sizeof(*tmp.sets));
	}
	rx_free(&tmp);
	x->ref = prog;
}

static enum vtype infer_binary(struct elab *e, struct expr *x)
{
	enum vtype ta, tb;

	switch (x->op) {
	case OP_CONCAT:
		infer_as(e, x->a, TYPE_STRING);
		infer_as(e, x->b, TYPE_STRING);
		return TYPE_STRING;
	case OP_MATCH:
	case OP_NOMATCH:
		infer_as(e, x->a, TYPE_STRING);
		compile_regex(e, x);
		return TYPE_LONG;
	case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ:
	case OP_NE:
		ta = infer(e, x->a, TYPE_UNKNOWN);
		tb = infer(e, x->b, ta);
		if (ta == TYPE_UNKNOWN && tb != TYPE_UNKNOWN)
			ta = infer(e, x->a, tb);
		if (ta == TYPE_STATS || tb == TYPE_STATS)
			elab_error(e, &x->loc, "statistics values cannot be "
				   "compared; use an extractor such as @count");
		else if (ta != TYPE_UNKNOWN && tb != TYPE_UNKNOWN && ta != tb)
			elab_error(e, &x->loc, "type mismatch: comparing %s "
				   "with %s", tname(ta), tname(tb));
		return TYPE_LONG;
	default:
		infer_as(e, x->a, TYPE_LONG);
		infer_as(e, x->b, TYPE_LONG);
		return TYPE_LONG;
	}
}

static enum vtype infer_index(struct elab *e, struct expr *x, enum vtype want,
			      bool membership)
{
	struct symbol *sym = x->ref;
	int i = 0;

	if (!sym)
		return TYPE_UNKNOWN;
	for (struct expr *a = x->args; a; a = a->next)
		i++;
	if (!sym_arity(e, sym, i, &x->loc))
		return TYPE_UNKNOWN;
	i = 0;
	for (struct expr *a = x->args; a; a = a->next, i++) {
		enum vtype t;

		if (a->kind == E_WILD)
			continue;
		t = infer(e, a, sym->key[i]);
		if (t == TYPE_STATS)
			elab_error(e, &a->loc, "a statistics value cannot be "
				   "an array index");
		else
			sym_key(e, sym, i, t, &a->loc);
	}
	if (membership)
		return TYPE_LONG;
	sym_type(e, sym, want, &x->loc);
	return sym->type;
}

static enum vtype infer(struct elab *e, struct expr *x, enum vtype want)
{
	struct symbol *sym;
	enum vtype t = TYPE_UNKNOWN, tb, tc;

	if (!x)
		return TYPE_UNKNOWN;
	switch (x->kind) {
	case E_NUM:
		t = TYPE_LONG;
		break;
	case E_STR:
		t = TYPE_STRING;
		break;
	case E_WILD:
		break;
	case E_VAR:
		sym = x->ref;
		if (!sym)
			break;
		if (sym->global && !sym_arity(e, sym, 0, &x->loc))
			break;
		sym_type(e, sym, want, &x->loc);
		t = sym->type;
		break;
	case E_INDEX:
		t = infer_index(e, x, want, false);
		break;
	case E_IN:
		t = infer_index(e, x, TYPE_UNKNOWN, true);
		break;
	case E_CALL:
		t = infer_call(e, x, want);
		break;
	case E_BINARY:
		t = infer_binary(e, x);
		break;
	case E_UNARY:
		infer_as(e, x->a, TYPE_LONG);
		t = TYPE_LONG;
		break;
	case E_CREMENT:
		infer_as(e, x->a, TYPE_LONG);
		t = TYPE_LONG;
		break;
	case E_TERNARY:
		infer_as(e, x->a, TYPE_LONG);
		tb = infer(e, x->b, want);
		tc = infer(e, x->c, tb != TYPE_UNKNOWN ? tb : want);
		if (tb == TYPE_UNKNOWN && tc != TYPE_UNKNOWN)
			tb = infer(e, x->b, tc);
		if (tb != TYPE_UNKNOWN && tc != TYPE_UNKNOWN && tb != tc)
			elab_error(e, &x->loc, "type mismatch: the branches "
				   "of '?:' are %s and %s", tname(tb), tname(tc));
		t = tb != TYPE_UNKNOWN ? tb : tc;
		break;
	case E_ASSIGN:
		t = infer_assign(e, x);
		break;
	case E_EMBEDDED:
		/* a "string" or "long" pragma comment gives the type of
		 * embedded code; else the context does */
		if (strstr(x->str, "/* string */"))
			t = TYPE_STRING;
		else if (strstr(x->str, "/* long */"))
			t = TYPE_LONG;
		else
			t = want != TYPE_UNKNOWN ? want : TYPE_LONG;
		break;
	case E_TARGET:
		if (e->probe && e->probe->procfs) {
			t = TYPE_STRING;	/* $value */
			break;
		}
		/* fall through */
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
		if (x->a)
			infer_as(e, x->a, TYPE_LONG);
		for (struct chain *c = x->chain; c; c = c->next)
			if (c->index)
				infer_as(e, c->index, TYPE_LONG);
		t = x->pretty ? TYPE_STRING : TYPE_LONG;
		break;
	case E_CTXVAR:
		t = TYPE_STRING;
		break;
	case E_AT:
		switch (x->op) {
		case AT_OP_ENTRY:
			t = infer(e, x->args, want);
			break;
		case AT_OP_DEFINED:
		case AT_OP_PROBEWRITE:
		case AT_OP_CONST:
		case AT_OP_PERF:
			t = TYPE_LONG;
			break;
		default:
			for (struct expr *a = x->args; a; a = a->next)
				infer_as(e, a, TYPE_LONG);
			t = TYPE_LONG;
		}
		break;
	case E_STAT:
		need_stats(e, x->a, "an extractor");
		t = TYPE_LONG;
		break;
	case E_HIST:
		need_stats(e, x->a, "a histogram");
		same_histogram(e, x);
		for (struct expr *a = x->args; a; a = a->next)
			if (a->kind != E_NUM)
				elab_error(e, &a->loc, "@hist_linear takes "
					   "literal numbers");
		break;
	case E_BUCKET:
		infer(e, x->a, TYPE_UNKNOWN);
		infer_as(e, x->b, TYPE_LONG);
		t = TYPE_LONG;
		break;
	}
	x->type = (unsigned char)t;
	return t;
}

static void infer_cond(struct elab *e, struct expr *x)
{
	enum vtype t = infer(e, x, TYPE_LONG);

	if (t == TYPE_STRING || t == TYPE_STATS)
		elab_error(e, &x->loc, "a condition must be a long, not a %s",
			   tname(t));
}

static void infer_foreach(struct elab *e, struct foreach *fe)
{
	struct expr *arr = fe->array;
	struct symbol *sym = arr->ref, *k;
	int i = 0;

	if (arr->kind == E_HIST) {
		infer(e, arr, TYPE_UNKNOWN);
		for (struct expr *key = fe->keys; key; key = key->next)
			sym_type(e, key->ref, TYPE_LONG, &key->loc);
		if (fe->value)
			sym_type(e, fe->value->ref, TYPE_LONG, &fe->value->loc);
		infer_as(e, fe->limit, TYPE_LONG);
		return;
	}
	if (!sym)
		return;
	if (!sym->global) {
		elab_error(e, &arr->loc, "foreach needs a global array; '%s' "
			   "is local", sym->name);
		return;
	}
	if (!sym_arity(e, sym, fe->nkeys, &arr->loc))
		return;
	if (arr->kind == E_INDEX)
		infer_index(e, arr, TYPE_UNKNOWN, true);
	for (struct expr *key = fe->keys; key; key = key->next, i++) {
		k = key->ref;
		if (!k)
			continue;
		sym_type(e, k, sym->key[i], &key->loc);
		sym_key(e, sym, i, k->type, &key->loc);
	}
	if (fe->value && fe->value->ref) {
		k = fe->value->ref;
		if (sym->type == TYPE_STATS)
			elab_error(e, &fe->value->loc, "the value of a "
				   "statistics array cannot be assigned to "
				   "'%s'; use an extractor", k->name);
		else {
			sym_type(e, k, sym->type, &fe->value->loc);
			sym_type(e, sym, k->type, &fe->value->loc);
		}
	}
	if (fe->agg >= 0 && sym->type != TYPE_UNKNOWN &&
	    sym->type != TYPE_STATS)
		elab_error(e, &arr->loc, "'@%s' sorting needs a statistics "
			   "array; '%s' holds %s values",
			   ast_statop_name(fe->agg), sym->name, tname(sym->type));
	infer_as(e, fe->limit, TYPE_LONG);
}



static void infer_stmt(struct elab *e, struct stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case S_BLOCK:
		for (struct stmt *c = st->body; c; c = c->next)
			infer_stmt(e, c);
		break;
	case S_EXPR:
		infer(e, st->e, TYPE_UNKNOWN);
		break;
	case S_IF:
		infer_cond(e, st->e);
		infer_stmt(e, st->body);
		infer_stmt(e, st->else_body);
		break;
	case S_WHILE:
		infer_cond(e, st->e);
		infer_stmt(e, st->body);
		break;
	case S_FOR:
		infer(e, st->init, TYPE_UNKNOWN);
		if (st->e)
			infer_cond(e, st->e);
		infer(e, st->incr, TYPE_UNKNOWN);
		infer_stmt(e, st->body);
		break;
	case S_FOREACH:
		infer_foreach(e, st->fe);
		infer_stmt(e, st->body);
		break;
	case S_RETURN:
		if (st->e && e->fn) {
			struct function *fn = e->fn;
			enum vtype t = infer(e, st->e, fn->type);

			if (t == TYPE_STATS)
				elab_error(e, &st->e->loc, "a statistics value "
					   "cannot be returned");
			else if (fn->type == TYPE_UNKNOWN && t != TYPE_UNKNOWN) {
				fn->type = t;
				fn->type_loc = st->e->loc;
				e->changed = true;
			} else if (t != TYPE_UNKNOWN && t != fn->type) {
				elab_error(e, &st->e->loc, "type mismatch: "
					   "function '%s' returns %s, this is "
					   "%s", fn->name, tname(fn->type),
					   tname(t));
				elab_note(e, &fn->type_loc, "the return type "
					  "was first inferred here");
			}
		}
		break;
	case S_DELETE:
		if (st->e->kind == E_INDEX)
			infer_index(e, st->e, TYPE_UNKNOWN, true);
		break;
	case S_TRY:
		infer_stmt(e, st->body);
		infer_stmt(e, st->else_body);
		break;
	default:
		break;
	}
}

static void walk_all(struct elab *e)
{
	for (struct dprobe *p = e->prog->probes; p; p = p->next) {
		e->fn = NULL;
		e->probe = p;
		infer_stmt(e, p->body);
		if (p->cond)
			infer_cond(e, p->cond);
	}
	e->probe = NULL;
	for (struct function *fn = e->prog->functions; fn; fn = fn->next) {
		if (!fn->used || !fn->decl->body)
			continue;
		e->fn = fn;
		infer_stmt(e, fn->decl->body);
	}
	e->fn = NULL;
}

static void unresolved(struct elab *e, struct symbol *list, const char *what)
{
	for (struct symbol *sym = list; sym; sym = sym->next)
		if (sym->type == TYPE_UNKNOWN && (sym->reads || sym->writes) &&
		    !sym->mismatch_reported)
			elab_error(e, &sym->loc, "unresolved type for %s '%s'",
				   what, sym->name);
}

void types_infer(struct elab *e)
{
	int errors = e->s->errors;

	for (int round = 0; round < 64; round++) {
		e->changed = false;
		walk_all(e);
		if (!e->changed || e->s->errors > errors)
			break;
	}
	if (e->s->errors > errors)
		return;
	/* the final walks type by the print formats too, and what a format
	 * gives a local can give an array's index another walk needs, as
	 * in printf("%d %s", @max(a[k]), k) (no error: nothing to repeat) */
	e->final = true;
	for (int round = 0; round < 64; round++) {
		e->changed = false;
		walk_all(e);
		if (!e->changed || e->s->errors > errors)
			break;
	}
	/* what no round could type: a function without a return value
	 * printed (as stap, which only types a call by its use) */
	if (e->s->errors == errors) {
		e->report_void = true;
		walk_all(e);
		e->report_void = false;
	}
	for (struct dprobe *p = e->prog->probes; p; p = p->next)
		unresolved(e, p->locals, "local variable");
	for (struct function *fn = e->prog->functions; fn; fn = fn->next) {
		if (!fn->used)
			continue;
		unresolved(e, fn->locals, "local variable");
		unresolved(e, fn->params, "parameter");
	}
	unresolved(e, e->prog->globals, "global variable");
}
