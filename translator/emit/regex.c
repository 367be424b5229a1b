// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * regex.c - compile the regular expression of `s =~ "re"` at translate
 * time (regex-compile.h): parse into a small tree, then generate the Pike VM
 * program that runtime/regex.c runs.
 *
 * Syntax (POSIX ERE as SystemTap 4.8 accepts it, checked with stap):
 *   alternation a|b (empty alternatives allowed), groups ( ), the atoms
 *   c . [set] ^ $ and \c (any escaped byte is itself: \t is 't'),
 *   the postfix * + ? {m} {m,} {m,n}, stackable (a**, a{2}{3}).
 *   A quantifier with nothing before it is an error, so is one after
 *   ^ or $. '{' after an atom always starts a count; '}' alone is a
 *   literal. In a set, ']' first is literal, '-' first or last is
 *   literal, \c is c, and [:name:] is a character class of the C locale.
 *   One unmatched ')' at the very end is ignored, as stap does. "(?:re)"
 *   is a group that matched() does not count, whose ':' stap 4.8 keeps
 *   as a literal (it matches ":re"); other "(?" forms are errors.
 * Messages follow stap's wording; positions count the regex's bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex-compile.h"
#include "xalloc.h"

enum node_kind { N_EMPTY, N_CHAR, N_ANY, N_SET, N_BOL, N_EOL, N_GROUP,
		 N_CAT, N_ALT, N_REP };

struct node {
	enum node_kind kind;
	int c;			/* N_CHAR byte, N_SET index, N_GROUP number */
	int a, b;		/* children (N_CAT, N_ALT: pairs), -1 none */
	int min, max;		/* N_REP; max -1: unbounded */
};

struct rxp {
	const unsigned char *s;
	size_t len, i;
	struct node *nodes;
	size_t nnodes, cap;
	struct rx_prog *prog;
	struct rx_error *err;
	int depth;
	bool failed;
};

#define RX_MAX_COUNT 16382	/* larger {m,n} counts: "N is too large" */
#define RX_MAX_DEPTH 200	/* nested groups */

static void fail_at(struct rxp *p, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail_at(struct rxp *p, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	p->err->has_pos = pos != (size_t)-1;
	p->err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
}

static int node(struct rxp *p, enum node_kind k, int c, int a, int b)
{
	struct node *n;

	if (p->nnodes == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->nodes = xrealloc(p->nodes, p->cap * sizeof(*p->nodes));
	}
	n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = k;
	n->c = c;
	n->a = a;
	n->b = b;
	return (int)p->nnodes++;
}

static bool at_end(const struct rxp *p)
{
	return p->i >= p->len;
}

static int peek(const struct rxp *p)
{
	return at_end(p) ? -1 : p->s[p->i];
}

/* ---- bracket expressions ---- */

static bool class_has(const char *name, int ch)
{
	bool upper = ch >= 'A' && ch <= 'Z', lower = ch >= 'a' && ch <= 'z';
	bool digit = ch >= '0' && ch <= '9';
	bool print = ch >= 0x20 && ch < 0x7f;

	if (!strcmp(name, "alpha"))
		return upper || lower;
	if (!strcmp(name, "digit"))
		return digit;
	if (!strcmp(name, "alnum"))
		return upper || lower || digit;
	if (!strcmp(name, "upper"))
		return upper;
	if (!strcmp(name, "lower"))
		return lower;
	if (!strcmp(name, "space"))
		return ch == ' ' || (ch >= '\t' && ch <= '\r');
	if (!strcmp(name, "blank"))
		return ch == ' ' || ch == '\t';
	if (!strcmp(name, "punct"))
		return print && ch != ' ' && !upper && !lower && !digit;
	if (!strcmp(name, "xdigit"))
		return digit || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
	if (!strcmp(name, "cntrl"))
		return ch < 0x20 || ch == 0x7f;
	if (!strcmp(name, "graph"))
		return print && ch != ' ';
	return print;		/* "print" */
}

static bool class_known(const char *name)
{
	static const char *const names[] = { "alpha", "digit", "alnum",
		"upper", "lower", "space", "blank", "punct", "xdigit", "cntrl",
		"graph", "print" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return true;
	return false;
}

static void set_add(unsigned char *set, int lo, int hi)
{
	for (int ch = lo; ch <= hi; ch++)
		set[ch >> 3] |= (unsigned char)(1u << (ch & 7));
}

/* [:name:] at p->i (just after its '['): add it to set. */
static void bracket_class(struct rxp *p, unsigned char *set)
{
	size_t open = p->i - 1, k;
	char name[16];

	/* stap does not see a ":]" that ends the regex (the set would
	 * be unclosed anyway) */
	for (k = p->i + 1; k + 2 < p->len; k++)
		if (p->s[k] == ':' && p->s[k + 1] == ']')
			break;
	if (k + 2 >= p->len) {
		size_t n = p->len - 1 > open ? p->len - 1 - open : 0;

		if (n < 2)
			n = 2;
		fail_at(p, p->len, "unclosed character class '%.*s'", (int)n,
			(const char *)p->s + open);
		return;
	}
	if (k - (p->i + 1) >= sizeof(name)) {
		fail_at(p, (size_t)-1, "unknown character class '%.*s'",
			(int)(k - (p->i + 1)), (const char *)p->s + p->i + 1);
		return;
	}
	memcpy(name, p->s + p->i + 1, k - (p->i + 1));
	name[k - (p->i + 1)] = '\0';
	if (!class_known(name)) {
		fail_at(p, (size_t)-1, "unknown character class '%s'", name);
		return;
	}
	for (int ch = 1; ch < 256; ch++)
		if (class_has(name, ch))
			set_add(set, ch, ch);
	p->i = k + 2;
}

/* [...] with p->i just after the '['. */
static int bracket(struct rxp *p)
{
	unsigned char set[32];
	bool negate = false, first = true;
	struct rx_prog *g = p->prog;

	memset(set, 0, sizeof(set));
	if (peek(p) == '^') {
		negate = true;
		p->i++;
	}
	for (;;) {
		int lo, hi;

		if (at_end(p)) {
			fail_at(p, p->len ? p->len - 1 : 0, "unclosed character class");
			return -1;
		}
		lo = p->s[p->i];
		if (lo == ']' && !first) {
			p->i++;
			break;
		}
		first = false;
		if (lo == '[' && p->i + 1 < p->len && p->s[p->i + 1] == ':') {
			p->i++;
			bracket_class(p, set);
			if (p->failed)
				return -1;
			continue;
		}
		p->i++;
		if (lo == '\\') {
			if (at_end(p))
				continue;	/* reported as unclosed */
			lo = p->s[p->i++];
		}
		hi = lo;
		if (peek(p) == '-' && p->i + 1 < p->len && p->s[p->i + 1] != ']') {
			hi = p->s[p->i + 1];
			p->i += 2;
			if (hi < lo) {
				fail_at(p, p->i, "Inverted character range %c-%c",
					lo, hi);
				return -1;
			}
		}
		set_add(set, lo, hi);
	}
	if (negate)
		for (int k = 0; k < 32; k++)
			set[k] = (unsigned char)~set[k];
	set[0] &= (unsigned char)~1u;	/* never the terminating NUL */
	g->sets = xrealloc(g->sets, (g->nsets + 1) * sizeof(*g->sets));
	memcpy(g->sets[g->nsets], set, sizeof(set));
	return node(p, N_SET, (int)g->nsets++, -1, -1);
}

/* ---- the grammar ---- */

static int alternation(struct rxp *p);

/* A number of a {m,n} count, or -1 (not a digit). */
static long count(struct rxp *p)
{
	long v = 0;

	if (at_end(p) || p->s[p->i] < '0' || p->s[p->i] > '9')
		return -1;
	while (!at_end(p) && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
		if (v < 1000000)
			v = v * 10 + (p->s[p->i] - '0');
		p->i++;
	}
	return v;
}

/* {m}, {m,} or {m,n} with p->i just after the '{': 0, or -1. */
static int bound(struct rxp *p, int *min, int *max)
{
	long m, n = -2;

	m = count(p);
	if (m < 0) {
		fail_at(p, at_end(p) ? p->len : p->i + 1, "expected number");
		return -1;
	}
	if (at_end(p)) {
		fail_at(p, p->len, "unexpected end of regex");
		return -1;
	}
	if (p->s[p->i] == ',') {
		p->i++;
		if (peek(p) == '}') {
			n = -1;
		} else {
			n = count(p);
			if (n < 0) {
				fail_at(p, at_end(p) ? p->len : p->i + 1,
					"expected '}' or number");
				return -1;
			}
			if (at_end(p)) {
				fail_at(p, p->len - 1, "expected }, found end of regex");
				return -1;
			}
			if (p->s[p->i] != '}') {
				fail_at(p, p->i, "expected }, found %c", p->s[p->i]);
				return -1;
			}
		}
	} else if (p->s[p->i] != '}') {
		fail_at(p, p->i, "expected ',' or '}'");
		return -1;
	}
	p->i++;		/* '}' */
	if (m > RX_MAX_COUNT || n > RX_MAX_COUNT) {
		fail_at(p, p->i, "%ld is too large", m > RX_MAX_COUNT ? m : n);
		return -1;
	}
	if (n == -2)
		n = m;
	if (n >= 0 && n < m) {
		fail_at(p, p->i, "invalid count range {%ld,%ld}: the maximum is "
			"less than the minimum", m, n);
		return -1;
	}
	*min = (int)m;
	*max = (int)n;
	return 0;
}

static bool is_postfix(int ch)
{
	return ch == '*' || ch == '+' || ch == '?' || ch == '{';
}

/* An atom and its postfix operators, or -1. */
static int repeat(struct rxp *p)
{
	int ch = p->s[p->i], n;
	size_t at = p->i++;

	switch (ch) {
	case '(':
		if (++p->depth > RX_MAX_DEPTH) {
			fail_at(p, at, "groups nested too deeply");
			return -1;
		}
		if (peek(p) == '?') {
			/* stap 4.8: "(?" starts a group that is not counted,
			 * and only "(?:" is accepted, its ':' then being the
			 * group's first literal byte */
			p->i++;
			if (at_end(p)) {
				fail_at(p, at + 1, "unexpected '(?");
				return -1;
			}
			if (p->s[p->i] != ':') {
				fail_at(p, p->i, "unexpected '(?%c'", p->s[p->i]);
				return -1;
			}
			n = alternation(p);
		} else {
			int body;

			n = node(p, N_GROUP, (int)p->prog->ngroups++, -1, -1);
			body = alternation(p);
			if (body < 0)
				return -1;
			p->nodes[n].a = body;
		}
		if (n < 0)
			return -1;
		if (peek(p) != ')') {
			fail_at(p, p->len ? p->len - 1 : 0,
				"expected ), found end of regex");
			return -1;
		}
		p->i++;
		p->depth--;
		break;
	case '[':
		n = bracket(p);
		if (n < 0)
			return -1;
		break;
	case '.':
		n = node(p, N_ANY, 0, -1, -1);
		break;
	case '^':
	case '$':
		n = node(p, ch == '^' ? N_BOL : N_EOL, 0, -1, -1);
		if (!at_end(p) && is_postfix(p->s[p->i])) {
			fail_at(p, p->i, "postfix closure '%c' applied to "
				"anchoring operator", p->s[p->i]);
			return -1;
		}
		return n;
	case '\\':
		if (at_end(p)) {
			fail_at(p, p->len, "unexpected end of regex");
			return -1;
		}
		n = node(p, N_CHAR, p->s[p->i++], -1, -1);
		break;
	case '*':
	case '+':
	case '?':
	case '{':
		fail_at(p, at, "unexpected '%c'", ch);
		return -1;
	default:
		n = node(p, N_CHAR, ch, -1, -1);
		break;
	}
	while (!at_end(p) && is_postfix(p->s[p->i])) {
		int min = 0, max = -1, r;

		switch (p->s[p->i++]) {
		case '*':
			break;
		case '+':
			min = 1;
			break;
		case '?':
			max = 1;
			break;
		default:
			if (bound(p, &min, &max) < 0)
				return -1;
			break;
		}
		r = node(p, N_REP, 0, n, -1);
		p->nodes[r].min = min;
		p->nodes[r].max = max;
		n = r;
	}
	return n;
}

/* A sequence up to '|', ')' or the end (possibly empty). */
static int concatenation(struct rxp *p)
{
	int seq = node(p, N_EMPTY, 0, -1, -1);

	while (!at_end(p) && p->s[p->i] != '|' && p->s[p->i] != ')') {
		int r = repeat(p);

		if (r < 0)
			return -1;
		seq = node(p, N_CAT, 0, seq, r);
	}
	return seq;
}

static int alternation(struct rxp *p)
{
	int n = concatenation(p);

	while (n >= 0 && peek(p) == '|') {
		int r;

		p->i++;
		r = concatenation(p);
		if (r < 0)
			return -1;
		n = node(p, N_ALT, 0, n, r);
	}
	return n;
}

/* ---- code generation ---- */

/* Instructions node n needs, saturating above RX_MAX_INSN. */
static size_t size_of(const struct rxp *p, int n)
{
	const struct node *x = &p->nodes[n];
	size_t body, total;

	switch (x->kind) {
	case N_EMPTY:
		return 0;
	case N_GROUP:
		return size_of(p, x->a) + 2;
	case N_CAT:
		total = size_of(p, x->a) + size_of(p, x->b);
		break;
	case N_ALT:
		total = size_of(p, x->a) + size_of(p, x->b) + 2;
		break;
	case N_REP:
		body = size_of(p, x->a);
		if (x->max < 0)
			total = body * (size_t)x->min + body + 2;
		else
			total = body * (size_t)x->max + (size_t)(x->max - x->min);
		break;
	default:
		return 1;
	}
	return total > RX_MAX_INSN ? RX_MAX_INSN + 1 : total;
}

static unsigned int emit(struct rx_prog *g, int op, int c, unsigned x,
			 unsigned y)
{
	struct rx_insn *in = &g->insn[g->ninsn];

	in->op = (unsigned char)op;
	in->c = (unsigned char)c;
	in->x = (unsigned short)x;
	in->y = (unsigned short)y;
	return g->ninsn++;
}

static void gen(struct rxp *p, int n)
{
	const struct node *x = &p->nodes[n];
	struct rx_prog *g = p->prog;
	unsigned int at, loop;

	switch (x->kind) {
	case N_EMPTY:
		break;
	case N_CHAR:
		emit(g, RX_CHAR, x->c, 0, 0);
		break;
	case N_ANY:
		emit(g, RX_ANY, 0, 0, 0);
		break;
	case N_SET:
		emit(g, RX_SET, 0, (unsigned)x->c, 0);
		break;
	case N_BOL:
		emit(g, RX_BOL, 0, 0, 0);
		break;
	case N_EOL:
		emit(g, RX_EOL, 0, 0, 0);
		break;
	case N_GROUP:
		emit(g, RX_SAVE, 2 * x->c, 0, 0);
		gen(p, x->a);
		emit(g, RX_SAVE, 2 * x->c + 1, 0, 0);
		break;
	case N_CAT:
		gen(p, x->a);
		gen(p, x->b);
		break;
	case N_ALT:
		/* split L1, L2; L1: a; jmp end; L2: b; end: */
		at = emit(g, RX_SPLIT, 0, 0, 0);
		g->insn[at].x = (unsigned short)g->ninsn;
		gen(p, x->a);
		loop = emit(g, RX_JMP, 0, 0, 0);
		g->insn[at].y = (unsigned short)g->ninsn;
		gen(p, x->b);
		g->insn[loop].x = (unsigned short)g->ninsn;
		break;
	case N_REP: {
		unsigned int *splits, ns = 0;

		for (int k = 0; k < x->min; k++)
			gen(p, x->a);
		if (x->max < 0) {
			/* loop: split body, out; body; jmp loop; out: */
			loop = emit(g, RX_SPLIT, 0, 0, 0);
			g->insn[loop].x = (unsigned short)g->ninsn;
			gen(p, x->a);
			emit(g, RX_JMP, 0, loop, 0);
			g->insn[loop].y = (unsigned short)g->ninsn;
			break;
		}
		/* up to max - min more, each optional: split body, out */
		splits = xcalloc((size_t)(x->max - x->min) + 1, sizeof(*splits));
		for (int k = x->min; k < x->max; k++) {
			splits[ns] = emit(g, RX_SPLIT, 0, 0, 0);
			g->insn[splits[ns]].x = (unsigned short)g->ninsn;
			ns++;
			gen(p, x->a);
		}
		while (ns)
			g->insn[splits[--ns]].y = (unsigned short)g->ninsn;
		free(splits);
		break;
	}
	}
}

int rx_compile(const char *re, size_t len, struct rx_prog *prog,
	       struct rx_error *err)
{
	struct rxp p;
	int root;
	size_t need;

	memset(prog, 0, sizeof(*prog));
	memset(err, 0, sizeof(*err));
	memset(&p, 0, sizeof(p));
	p.s = (const unsigned char *)re;
	p.len = len;
	p.prog = prog;
	p.err = err;
	prog->ngroups = 1;

	if (len > 4 * RX_MAX_INSN) {
		fail_at(&p, (size_t)-1, "the regex is too large (more than %d "
			"bytes)", 4 * RX_MAX_INSN);
		return -1;
	}
	root = alternation(&p);
	if (root >= 0 && peek(&p) == ')') {
		/* stap ignores one unmatched ')' at the very end */
		p.i++;
		if (!at_end(&p))
			fail_at(&p, p.i, "unbalanced ')'");
	}
	if (p.failed || root < 0)
		goto bad;
	if (prog->ngroups > RX_MAX_GROUPS) {
		fail_at(&p, (size_t)-1, "too many groups (%u; at most %d)",
			prog->ngroups - 1, RX_MAX_GROUPS - 1);
		goto bad;
	}
	need = size_of(&p, root) + 3;
	if (need > RX_MAX_INSN ||
	    need * (1 + 2 * (size_t)prog->ngroups) > RX_MAX_CELLS) {
		fail_at(&p, (size_t)-1, "the regex is too large to match in "
			"bounded time and memory (%zu instructions, %u groups)",
			need, prog->ngroups - 1);
		goto bad;
	}
	prog->insn = xcalloc(need, sizeof(*prog->insn));
	emit(prog, RX_SAVE, 0, 0, 0);
	gen(&p, root);
	emit(prog, RX_SAVE, 1, 0, 0);
	emit(prog, RX_MATCH, 0, 0, 0);
	free(p.nodes);
	return 0;
bad:
	free(p.nodes);
	rx_free(prog);
	return -1;
}

void rx_free(struct rx_prog *prog)
{
	free(prog->insn);
	free(prog->sets);
	memset(prog, 0, sizeof(*prog));
}

const char *rx_op_name(int op)
{
	static const char *const names[] = {
		[RX_CHAR] = "TP_RX_CHAR", [RX_ANY] = "TP_RX_ANY",
		[RX_SET] = "TP_RX_SET", [RX_BOL] = "TP_RX_BOL",
		[RX_EOL] = "TP_RX_EOL", [RX_SPLIT] = "TP_RX_SPLIT",
		[RX_JMP] = "TP_RX_JMP", [RX_SAVE] = "TP_RX_SAVE",
		[RX_MATCH] = "TP_RX_MATCH",
	};

	return op >= 0 && op <= RX_MATCH ? names[op] : "?";
}
