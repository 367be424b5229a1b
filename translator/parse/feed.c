/* feed.c - the feeder between the preprocessor and the grammar. */
#include <string.h>

#include "feed.h"
#include "lexer.h"
#include "parse/parser.h"
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

/* A component is expected after these. */
static bool component_expected(int prev)
{
	return prev == K_PROBE || prev == '.' || prev == ',' || prev == '=' ||
	       prev == ADD_ASSIGN || prev == PP_LBRACE;
}

/* Adjacent name parts (no space between) make one component name:
 * sys_*, foo**, function. A number may continue a name, not start one. */
static const struct token *glue_name(struct parser *p,
				     const struct token *first)
{
	struct token *t = arena_alloc(&p->s->arena, sizeof(*t));
	size_t i = p->pos, len = first->len;
	char *buf;

	while (i < p->toks.n && is_name_part(p->toks.v[i]->type) &&
	       !p->toks.v[i]->space_before)
		len += p->toks.v[i++]->len;
	buf = arena_alloc(&p->s->arena, len + 1);
	len = 0;
	for (size_t k = p->pos - 1; k < i; k++) {
		memcpy(buf + len, p->toks.v[k]->text, p->toks.v[k]->len);
		len += p->toks.v[k]->len;
	}
	*t = *first;
	t->type = PP_NAME;
	t->text = buf;
	t->len = (unsigned)len;
	t->str = buf;
	t->slen = (unsigned)len;
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
	{ "perf", AT_OP, AT_OP_PERF },
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

static const struct token *retyped(struct parser *p, const struct token *t,
				   int type)
{
	struct token *c = arena_alloc(&p->s->arena, sizeof(*c));

	*c = *t;
	c->type = (unsigned short)type;
	return c;
}

static bool is_print_name(const struct token *t)
{
	static const char *const names[] = {
		"print", "println", "printd", "printdln", "printf", "sprint",
		"sprintln", "sprintd", "sprintdln", "sprintf", NULL
	};

	if (t->len < 5 || (t->text[0] != 'p' && t->text[0] != 's'))
		return false;
	for (int i = 0; names[i]; i++)
		if (strlen(names[i]) == t->len &&
		    memcmp(names[i], t->text, t->len) == 0)
			return true;
	return false;
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
		p->pp_braces = 0;
	} else if (p->pp_mode && p->pp_paren == 0) {
		if (component_expected(p->prev) && t->type == '{') {
			t = retyped(p, t, PP_LBRACE);
			p->pp_braces++;
		} else if (p->pp_braces > 0 && t->type == '}') {
			t = retyped(p, t, PP_RBRACE);
			p->pp_braces--;
		} else if (component_expected(p->prev) &&
			   is_name_part(t->type) && t->type != NUMBER) {
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
		} else if (t->type == IDENT && is_print_name(t)) {
			/* the print family are operators: they need '(' */
			t = retyped(p, t, PRINT_FN);
		} else if (t->type == STRING) {
			t = join_strings(p, t);
		}
	}
	p->prev = t->type;
	p->cur = t;
	return t;
}
