/* ast.c - node constructors and operator names. */
#include <string.h>

#include "ast.h"
#include "session.h"

struct expr *ast_expr(struct session *s, enum expr_kind k,
		      const struct loc *l)
{
	struct expr *e = ANEW(&s->arena, struct expr);

	e->kind = k;
	e->loc = *l;
	return e;
}

struct stmt *ast_stmt(struct session *s, enum stmt_kind k,
		      const struct loc *l)
{
	struct stmt *st = ANEW(&s->arena, struct stmt);

	st->kind = k;
	st->loc = *l;
	return st;
}

struct decl *ast_decl(struct session *s, enum decl_kind k,
		      const struct loc *l)
{
	struct decl *d = ANEW(&s->arena, struct decl);

	d->kind = k;
	d->loc = *l;
	return d;
}

static const char *const op_names[OP__COUNT] = {
	[OP_NONE] = "",
	[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*", [OP_DIV] = "/",
	[OP_MOD] = "%", [OP_SHL] = "<<", [OP_SHR] = ">>", [OP_USHR] = ">>>",
	[OP_BAND] = "&", [OP_BOR] = "|", [OP_BXOR] = "^",
	[OP_LAND] = "&&", [OP_LOR] = "||", [OP_CONCAT] = ".",
	[OP_LT] = "<", [OP_GT] = ">", [OP_LE] = "<=", [OP_GE] = ">=",
	[OP_EQ] = "==", [OP_NE] = "!=", [OP_MATCH] = "=~",
	[OP_NOMATCH] = "!~",
	[OP_NEG] = "-", [OP_PLUS] = "+", [OP_NOT] = "!", [OP_BNOT] = "~", [OP_ADDR] = "&",
	[OP_ASSIGN] = "=", [OP_AGG] = "<<<",
	[OP_INC] = "++", [OP_DEC] = "--",
};

const char *ast_op_name(int op)
{
	return op >= 0 && op < OP__COUNT ? op_names[op] : "?";
}

static const char *const atop_names[AT_OP__COUNT] = {
	[AT_OP_ENTRY] = "entry", [AT_OP_DEFINED] = "defined",
	[AT_OP_PROBEWRITE] = "probewrite", [AT_OP_CONST] = "const",
	[AT_OP_KREGISTER] = "kregister", [AT_OP_UREGISTER] = "uregister",
	[AT_OP_KDEREF] = "kderef", [AT_OP_UDEREF] = "uderef",
	[AT_OP_PERF] = "perf",
};

const char *ast_atop_name(int atop)
{
	return atop >= 0 && atop < AT_OP__COUNT ? atop_names[atop] : "?";
}

static const char *const statop_names[STAT__COUNT] = {
	[STAT_COUNT] = "count", [STAT_SUM] = "sum", [STAT_MIN] = "min",
	[STAT_MAX] = "max", [STAT_AVG] = "avg", [STAT_VARIANCE] = "variance",
};

const char *ast_statop_name(int statop)
{
	return statop >= 0 && statop < STAT__COUNT ? statop_names[statop] : "?";
}

int ast_statop_lookup(const char *name, size_t len)
{
	for (int i = 0; i < STAT__COUNT; i++)
		if (strlen(statop_names[i]) == len &&
		    memcmp(statop_names[i], name, len) == 0)
			return i;
	return -1;
}

const char *ast_type_name(enum vtype t)
{
	switch (t) {
	case TYPE_LONG: return "long";
	case TYPE_STRING: return "string";
	case TYPE_STATS: return "stats";
	default: return "unknown";
	}
}

static struct chain *clone_chain(struct session *s, const struct chain *c)
{
	struct chain *head = NULL, **tail = &head;

	for (; c; c = c->next) {
		struct chain *n = ANEW(&s->arena, struct chain);

		*n = *c;
		n->index = ast_clone_expr(s, c->index);
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	return head;
}

static struct expr *clone_list(struct session *s, const struct expr *e)
{
	struct expr *head = NULL, **tail = &head;

	for (; e; e = e->next) {
		*tail = ast_clone_expr(s, e);
		tail = &(*tail)->next;
	}
	return head;
}

struct expr *ast_clone_expr(struct session *s, const struct expr *e)
{
	struct expr *n;

	if (!e)
		return NULL;
	n = ANEW(&s->arena, struct expr);
	*n = *e;
	n->next = NULL;
	n->a = ast_clone_expr(s, e->a);
	n->b = ast_clone_expr(s, e->b);
	n->c = ast_clone_expr(s, e->c);
	n->args = clone_list(s, e->args);
	n->chain = clone_chain(s, e->chain);
	return n;
}

struct stmt *ast_clone_stmt(struct session *s, const struct stmt *st)
{
	struct stmt *n, *head = NULL, **tail;

	if (!st)
		return NULL;
	n = ANEW(&s->arena, struct stmt);
	*n = *st;
	n->next = NULL;
	n->e = ast_clone_expr(s, st->e);
	n->init = ast_clone_expr(s, st->init);
	n->incr = ast_clone_expr(s, st->incr);
	n->else_body = ast_clone_stmt(s, st->else_body);
	tail = &head;
	for (const struct stmt *c = st->body; c; c = c->next) {
		*tail = ast_clone_stmt(s, c);
		tail = &(*tail)->next;
	}
	n->body = head;
	if (st->fe) {
		struct foreach *fe = ANEW(&s->arena, struct foreach);

		*fe = *st->fe;
		fe->value = ast_clone_expr(s, st->fe->value);
		fe->keys = clone_list(s, st->fe->keys);
		fe->array = ast_clone_expr(s, st->fe->array);
		fe->limit = ast_clone_expr(s, st->fe->limit);
		n->fe = fe;
	}
	return n;
}
