/* feed.c - the feeder between the preprocessor and the grammar. */
#include <string.h>

#include "feed.h"
#include "lexer.h"
#include "parser.h"
#include "session.h"

static bool is_keyword(int type)
{
	switch (type) {
	case K_PROBE: case K_GLOBAL: case K_PRIVATE: case K_FUNCTION:
	case K_IF: case K_ELSE: case K_FOR: case K_FOREACH: case K_IN:
	case K_LIMIT: case K_RETURN: case K_DELETE: case K_WHILE:
	case K_BREAK: case K_CONTINUE: case K_NEXT: case K_STRING:
	case K_LONG: case K_TRY: case K_CATCH:
		return true;
	default:
		return false;
	}
}

static bool is_name_part(int type)
{
	return type == IDENT || type == '*' || type == NUMBER ||
	       is_keyword(type);
}

/*
 * Is the '{' at index i a brace expansion such as {open,close}? Only names,
 * wildcards, dots, commas and nested braces may appear in it, and it needs
 * a comma: anything else is a probe body.
 */
static bool brace_group(const struct parser *p, size_t i, size_t *end)
{
	int depth = 0;
	bool comma = false;

	for (; i < p->toks.n; i++) {
		int ty = p->toks.v[i]->type;

		if (ty == '{') {
			depth++;
		} else if (ty == '}') {
			if (--depth == 0) {
				*end = i;
				return comma;
			}
		} else if (ty == ',') {
			comma = true;
		} else if (ty != '.' && !is_name_part(ty)) {
			return false;
		}
	}
	return false;
}

/* A component is expected after these. */
static bool component_expected(int prev)
{
	return prev == K_PROBE || prev == '.' || prev == ',' || prev == '=' ||
	       prev == ADD_ASSIGN;
}

static const struct token *glue_name(struct parser *p,
				     const struct token *first)
{
	struct token *t = arena_alloc(&p->s->arena, sizeof(*t));
	size_t i = p->pos, end, len = 0, cap = 64;
	char *buf = arena_alloc(&p->s->arena, cap);

	*t = *first;
	t->type = PP_NAME;
	i = p->pos - 1;
	for (;;) {
		const struct token *u = p->toks.v[i];
		size_t last;

		if (u->type == '{' && brace_group(p, i, &end))
			last = end;
		else if (is_name_part(u->type))
			last = i;
		else
			break;
		for (size_t k = i; k <= last; k++) {
			const struct token *v = p->toks.v[k];

			if (len + v->len + 1 > cap) {
				char *nb;

				cap = (len + v->len + 1) * 2;
				nb = arena_alloc(&p->s->arena, cap);
				memcpy(nb, buf, len);
				buf = nb;
			}
			memcpy(buf + len, v->text, v->len);
			len += v->len;
		}
		i = last + 1;
		if (p->toks.v[i]->space_before)
			break;
	}
	buf[len] = '\0';
	t->text = buf;
	t->len = len;
	t->str = buf;
	t->slen = len;
	p->pos = i;
	return t;
}

static const struct {
	const char *name;
	int type, op;
} at_ops[] = {
	{ "cast", AT_CAST, 0 },
	{ "var", AT_VAR, 0 },
	{ "entry", AT_OP, AT_OP_ENTRY },
	{ "defined", AT_OP, AT_OP_DEFINED },
	{ "probewrite", AT_OP, AT_OP_PROBEWRITE },
	{ "const", AT_OP, AT_OP_CONST },
	{ "kregister", AT_OP, AT_OP_KREGISTER },
	{ "uregister", AT_OP, AT_OP_UREGISTER },
	{ "kderef", AT_OP, AT_OP_KDEREF },
	{ "uderef", AT_OP, AT_OP_UDEREF },
	{ "count", AT_STAT, STAT_COUNT },
	{ "sum", AT_STAT, STAT_SUM },
	{ "min", AT_STAT, STAT_MIN },
	{ "max", AT_STAT, STAT_MAX },
	{ "avg", AT_STAT, STAT_AVG },
	{ "variance", AT_STAT, STAT_VARIANCE },
	{ "hist_linear", AT_HIST_LINEAR, HIST_LINEAR },
	{ "hist_log", AT_HIST_LOG, HIST_LOG },
};

static const struct token *at_operator(struct parser *p, const struct token *t)
{
	struct token *c = arena_alloc(&p->s->arena, sizeof(*c));

	*c = *t;
	c->type = AT_UNKNOWN;
	for (size_t i = 0; i < sizeof(at_ops) / sizeof(at_ops[0]); i++)
		if (strlen(at_ops[i].name) == t->len - 1 &&
		    memcmp(at_ops[i].name, t->text + 1, t->len - 1) == 0) {
			c->type = at_ops[i].type;
			c->num = at_ops[i].op;
		}
	return c;
}

/* "a" "b" is "ab" */
static const struct token *join_strings(struct parser *p,
					const struct token *first)
{
	struct token *t;
	size_t n = 0, i;
	char *buf;

	for (i = p->pos; p->toks.v[i]->type == STRING; i++)
		n += p->toks.v[i]->slen;
	if (i == p->pos)
		return first;
	t = arena_alloc(&p->s->arena, sizeof(*t));
	*t = *first;
	n += first->slen;
	buf = arena_alloc(&p->s->arena, n + 1);
	memcpy(buf, first->str, first->slen);
	n = first->slen;
	for (; p->pos < i; p->pos++) {
		memcpy(buf + n, p->toks.v[p->pos]->str, p->toks.v[p->pos]->slen);
		n += p->toks.v[p->pos]->slen;
	}
	buf[n] = '\0';
	t->str = buf;
	t->slen = n;
	return t;
}

const struct token *feed_next(struct parser *p)
{
	const struct token *t = p->toks.v[p->pos];

	if (t->type != END)
		p->pos++;
	if (t->type == K_PROBE) {
		p->pp_mode = true;
		p->pp_paren = 0;
		p->pp_cond = false;
	} else if (p->pp_mode && p->pp_paren == 0) {
		if (component_expected(p->prev) &&
		    (is_name_part(t->type) || t->type == '{')) {
			size_t end;

			if (t->type != '{' ||
			    brace_group(p, p->pos - 1, &end))
				t = glue_name(p, t);
		} else if (t->type == K_IF) {
			p->pp_cond = true;
		} else if (t->type == '(' && p->pp_cond) {
			p->pp_cond = false;
			p->pp_paren = 1;
		} else if (t->type == '{' || t->type == K_GLOBAL ||
			   t->type == K_FUNCTION || t->type == K_PRIVATE) {
			p->pp_mode = false;
		}
	} else if (p->pp_mode) {
		/* inside the condition of a probe point */
		if (t->type == '(')
			p->pp_paren++;
		else if (t->type == ')')
			p->pp_paren--;
	}

	if (t->type != PP_NAME) {
		if (p->prev == ARROW && is_keyword(t->type)) {
			struct token *c = arena_alloc(&p->s->arena, sizeof(*c));

			*c = *t;
			c->type = IDENT;
			t = c;
		} else if (t->type == AT_NAME) {
			t = at_operator(p, t);
		} else if (t->type == STRING) {
			t = join_strings(p, t);
		}
	}
	p->prev = t->type;
	p->cur = t;
	return t;
}
