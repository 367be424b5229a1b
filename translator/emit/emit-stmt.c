/* emit-stmt.c - statements, try/catch, and the action budget.
 *
 * MAXACTION is counted as SystemTap 4.8 counts it, so that scripts stop
 * at the same statement with the same message: every statement is one
 * action, a loop iteration is one more, a call to a loop-free function
 * costs what its body costs. A body without loops is only checked once,
 * on entry, against the budget left (nothing is charged); a body with
 * loops charges what it has counted at every branch, jump, loop
 * iteration and call, "near" the statement that charges.
 */
#include <stdlib.h>
#include <string.h>

#include "emit-internal.h"

/* ---- the tokens SystemTap names in its messages ---- */

static const struct stmt *only_stmt(const struct stmt *st)
{
	const struct stmt *one = NULL;

	for (const struct stmt *c = st->body; c; c = c->next) {
		if (c->kind == S_NULL)
			continue;
		if (one)
			return NULL;
		one = c;
	}
	return one;
}

const char *expr_first_near(struct em *em, const struct expr *x)
{
	switch (x->kind) {
	case E_NUM:
		return near_text(em, "number", em_printf(em, "%lld",
					(long long)x->num), &x->loc);
	case E_STR:
		return near_text(em, "string", x->str, &x->loc);
	case E_VAR:
	case E_INDEX:
	case E_CALL:
		return near_text(em, "identifier", x->str, &x->loc);
	case E_IN:
		if (x->args && !x->args->next && x->args->kind != E_WILD &&
		    x->args->loc.line == x->loc.line &&
		    x->args->loc.col < x->loc.col)
			return expr_first_near(em, x->args);
		return near_text(em, "operator", "[", &x->loc);
	case E_BINARY:
	case E_ASSIGN:
	case E_TERNARY:
	case E_BUCKET:
		return expr_first_near(em, x->a);
	case E_CREMENT:
		if (!x->prefix)
			return expr_first_near(em, x->a);
		return near_text(em, "operator", ast_op_name(x->op), &x->loc);
	case E_UNARY:
		return near_text(em, "operator", ast_op_name(x->op), &x->loc);
	case E_STAT:
		return near_text(em, "operator", em_printf(em, "@%s",
					ast_statop_name(x->op)), &x->loc);
	case E_HIST:
		return near_text(em, "operator", x->op == HIST_LOG ?
				 "@hist_log" : "@hist_linear", &x->loc);
	case E_EMBEDDED:
		return near_text(em, "embedded-code", NULL, &x->loc);
	case E_AT:
		return near_text(em, "operator", em_printf(em, "@%s",
					ast_atop_name(x->op)), &x->loc);
	default:
		return near_text(em, "identifier", x->str ? x->str : "?",
				 &x->loc);
	}
}

/* The token SystemTap keeps for an expression node itself: the operator
 * of a binary expression, the name of a variable or call. */
const char *expr_near(struct em *em, const struct expr *x)
{
	switch (x->kind) {
	case E_BINARY:
	case E_ASSIGN:
	case E_CREMENT:
		return near_text(em, "operator", x->kind == E_ASSIGN &&
				 x->op != OP_ASSIGN && x->op != OP_AGG ?
				 em_printf(em, "%s=", ast_op_name(x->op)) :
				 ast_op_name(x->op), &x->loc);
	case E_TERNARY:
		return near_text(em, "operator", "?", &x->loc);
	case E_IN:
		return near_text(em, "keyword", NULL, &x->loc);
	case E_BUCKET:
		return near_text(em, "operator", "[", &x->loc);
	default:
		return expr_first_near(em, x);
	}
}

/* The token of a statement: a block of one statement stands for it. */
const char *stmt_near(struct em *em, const struct stmt *st)
{
	switch (st->kind) {
	case S_BLOCK: {
		const struct stmt *one = only_stmt(st);

		if (one)
			return stmt_near(em, one);
		return near_text(em, "operator", "{", &st->loc);
	}
	case S_NULL:
		return near_text(em, "operator", ";", &st->loc);
	case S_EXPR:
		return expr_first_near(em, st->e);
	default:
		return near_text(em, "keyword", NULL, &st->loc);
	}
}

bool stmt_has_loops(const struct stmt *st)
{
	for (; st; st = st->next) {
		if (st->kind == S_WHILE || st->kind == S_FOR ||
		    st->kind == S_FOREACH)
			return true;
		if (stmt_has_loops(st->body) || stmt_has_loops(st->else_body))
			return true;
	}
	return false;
}

bool stmt_returns_value(const struct stmt *st)
{
	for (; st; st = st->next) {
		if (st->kind == S_RETURN && st->e)
			return true;
		if (stmt_returns_value(st->body) ||
		    stmt_returns_value(st->else_body))
			return true;
	}
	return false;
}

bool stmt_has_next(const struct stmt *st)
{
	for (; st; st = st->next) {
		if (st->kind == S_NEXT)
			return true;
		if (stmt_has_next(st->body) || stmt_has_next(st->else_body))
			return true;
	}
	return false;
}

/* ---- the action budget ---- */

void record_actions(struct body *b, int n, const char *near, bool update)
{
	b->pending += n;
	if (!b->flush_mode) {
		b->total += n;
		b->pending = 0;
		return;
	}
	if ((update && b->pending > 0) || b->pending >= 10) {
		out(b, "if (tpg_actions(c, %d, %s))", b->pending,
		    c_string(b->em, near, strlen(near)));
		b->ind++;
		err_jump(b);
		b->ind--;
		b->pending = 0;
	}
}

/* ---- statements ---- */

static void expr_stmt(struct body *b, struct expr *x)
{
	if (x->kind == E_CREMENT && !x->prefix) {
		/* the old value is not wanted */
		x->prefix = true;
		emit_expr(b, x);
		x->prefix = false;
	} else if (x->kind == E_CALL && !x->ref) {
		emit_print_call(b, x, NULL);
	} else {
		emit_expr(b, x);
	}
}

static void emit_if(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	struct val v;

	record_actions(b, 1, stmt_near(em, st), true);
	v = emit_cond(b, st->e);
	out(b, "if (%s) {", v.c);
	b->ind++;
	emit_stmt(b, st->body);
	record_actions(b, 0, stmt_near(em, st->body), true);
	b->ind--;
	if (st->else_body) {
		out(b, "} else {");
		b->ind++;
		emit_stmt(b, st->else_body);
		record_actions(b, 0, stmt_near(em, st->else_body), true);
		b->ind--;
	}
	out(b, "}");
}

/* while (e) body; for (init; e; incr) body. */
static void emit_loop(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	const char *near = stmt_near(em, st);
	struct loopctx loop = { .id = b->labels++, .outer = b->loop,
				.c_loop = !st->incr };
	int mark[TMP__COUNT];

	if (st->init) {
		memcpy(mark, b->ntmp, sizeof(mark));
		expr_stmt(b, st->init);
		record_actions(b, 1, expr_first_near(em, st->init), false);
		memcpy(b->ntmp, mark, sizeof(mark));
	}
	record_actions(b, 1, near, true);
	out(b, "for (;;) {");
	b->ind++;
	record_actions(b, 1, near, false);
	if (st->e) {
		struct val v;

		memcpy(mark, b->ntmp, sizeof(mark));
		v = emit_cond(b, st->e);
		out(b, "if (!(%s))", v.c);
		out(b, "\tbreak;");
		memcpy(b->ntmp, mark, sizeof(mark));
	}
	b->loop = &loop;
	emit_stmt(b, st->body);
	record_actions(b, 0, stmt_near(em, st->body), true);
	b->loop = loop.outer;
	if (st->incr) {
		if (loop.cont_used) {
			b->ind--;
			out(b, "continue_%d:", loop.id);
			b->ind++;
		}
		memcpy(mark, b->ntmp, sizeof(mark));
		expr_stmt(b, st->incr);
		record_actions(b, 1, expr_first_near(em, st->incr), false);
		memcpy(b->ntmp, mark, sizeof(mark));
		if (loop.cont_used)
			out(b, ";");
	}
	b->ind--;
	out(b, "}");
	(void)loop.brk_used;
}

/* Does st do nothing (after the optimizer's elisions)? */
static bool stmt_empty(const struct stmt *st)
{
	if (!st)
		return true;
	if (st->kind == S_NULL)
		return true;
	if (st->kind != S_BLOCK)
		return false;
	for (const struct stmt *c = st->body; c; c = c->next)
		if (!stmt_empty(c))
			return false;
	return true;
}

static void emit_try(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	int id;
	struct errtarget t = { .outer = b->err };
	FILE *saved;
	char *buf;
	size_t len;
	char *text;

	/* nothing can fail in an empty body: SystemTap drops the try */
	if (stmt_empty(st->body))
		return;
	id = b->labels++;
	t.label = em_printf(em, "catch_%d", id);
	b->err = &t;
	emit_stmt(b, st->body);
	record_actions(b, 0, stmt_near(em, st->body), true);
	b->err = t.outer;

	/* the catch part, kept only when something can fail in the body */
	capture_begin(b, &saved, &buf, &len);
	out(b, "if (c->aborted || c->actions >= c->max_actions)");
	b->ind++;
	err_jump(b);
	b->ind--;
	if (st->e) {
		struct symbol *sym = st->e->ref;
		struct gvar *g = em_global(em, sym);

		if (g) {
			use_global(b, g, true);
			out(b, "tp_str_copy(%s, c->last_error);", g->cname);
		} else if (sym) {
			out(b, "tp_str_copy(%s, c->last_error);",
			    local_ref(b, sym));
		}
	}
	out(b, "c->last_error = NULL;");
	record_actions(b, 1, stmt_near(em, st), true);
	emit_stmt(b, st->else_body);
	record_actions(b, 0, stmt_near(em, st->else_body), true);
	text = capture_end(b, saved, &buf, &len);
	if (t.used) {
		out(b, "goto try_%d_end;", id);
		b->ind--;
		out(b, "catch_%d:", id);
		b->ind++;
		out_raw(b, text);
		b->ind--;
		out(b, "try_%d_end:", id);
		b->ind++;
		out(b, ";");
	}
	free(text);
}

static void emit_return(struct body *b, struct stmt *st)
{
	struct em *em = b->em;

	if (st->e && b->fn) {
		struct val v = emit_expr(b, st->e);

		assign_to(b, "l->__retvalue", b->fn->type, v);
	} else if (st->e) {
		emit_expr(b, st->e);
	}
	record_actions(b, 1, stmt_near(em, st), true);
	out(b, "return;");
}

void emit_stmt(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	int mark[TMP__COUNT];

	if (!st)
		return;
	memcpy(mark, b->ntmp, sizeof(mark));
	switch (st->kind) {
	case S_BLOCK:
		for (struct stmt *c = st->body; c; c = c->next)
			emit_stmt(b, c);
		break;
	case S_NULL:
		break;
	case S_EXPR:
		expr_stmt(b, st->e);
		record_actions(b, 1, stmt_near(em, st), false);
		break;
	case S_IF:
		emit_if(b, st);
		break;
	case S_WHILE:
	case S_FOR:
		emit_loop(b, st);
		break;
	case S_FOREACH:
		emit_foreach(b, st);
		break;
	case S_BREAK:
	case S_CONTINUE:
		record_actions(b, 1, stmt_near(em, st), true);
		if (!b->loop) {
			em_error(em, &st->loc, "'%s' outside a loop",
				 st->kind == S_BREAK ? "break" : "continue");
		} else if (st->kind == S_BREAK) {
			b->loop->brk_used = true;
			out(b, "break;");
		} else {
			b->loop->cont_used = true;
			/* a for loop's increment sits behind a label */
			if (b->loop->c_loop)
				out(b, "continue;");
			else
				out(b, "goto continue_%d;", b->loop->id);
		}
		break;
	case S_NEXT:
		record_actions(b, 1, stmt_near(em, st), true);
		if (b->fn && b->fn->uses_next)
			out(b, "l->__next = true;");
		out(b, "return;");
		break;
	case S_RETURN:
		emit_return(b, st);
		break;
	case S_DELETE:
		emit_delete(b, st);
		record_actions(b, 1, stmt_near(em, st), false);
		break;
	case S_TRY:
		emit_try(b, st);
		break;
	}
	memcpy(b->ntmp, mark, sizeof(mark));
}
