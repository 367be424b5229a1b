/* print.c - print the tree back as source, in one canonical layout. */
#include <inttypes.h>
#include <string.h>

#include "print.h"

enum {
	PREC_ASSIGN = 1, PREC_TERNARY, PREC_LOR, PREC_LAND, PREC_BOR,
	PREC_BXOR, PREC_BAND, PREC_IN, PREC_COMPARE, PREC_SHIFT,
	PREC_CONCAT, PREC_ADD, PREC_MUL, PREC_UNARY, PREC_POSTFIX,
	PREC_PRIMARY
};

static int binary_prec(int op)
{
	switch (op) {
	case OP_LOR: return PREC_LOR;
	case OP_LAND: return PREC_LAND;
	case OP_BOR: return PREC_BOR;
	case OP_BXOR: return PREC_BXOR;
	case OP_BAND: return PREC_BAND;
	case OP_SHL: case OP_SHR: case OP_USHR: return PREC_SHIFT;
	case OP_CONCAT: return PREC_CONCAT;
	case OP_ADD: case OP_SUB: return PREC_ADD;
	case OP_MUL: case OP_DIV: case OP_MOD: return PREC_MUL;
	default: return PREC_COMPARE;
	}
}

static int prec(const struct expr *e)
{
	switch (e->kind) {
	case E_ASSIGN: return PREC_ASSIGN;
	case E_TERNARY: return PREC_TERNARY;
	case E_BINARY: return binary_prec(e->op);
	case E_IN: return PREC_IN;
	case E_UNARY: return PREC_UNARY;
	case E_CREMENT: return e->prefix ? PREC_UNARY : PREC_POSTFIX;
	case E_NUM: return e->num < 0 ? PREC_UNARY : PREC_PRIMARY;
	case E_TARGET: case E_CAST: case E_ATVAR: case E_AUTOCAST:
		return e->addr ? PREC_UNARY : PREC_PRIMARY;
	default: return PREC_PRIMARY;
	}
}

/* The first character e prints, where it matters: '-' or '+'. */
static char first_char(const struct expr *e)
{
	switch (e->kind) {
	case E_NUM: return e->num < 0 ? '-' : 0;
	case E_TARGET: case E_CAST: case E_ATVAR: case E_AUTOCAST:
		return e->addr ? '&' : 0;
	case E_UNARY: return ast_op_name(e->op)[0];
	case E_CREMENT:
		return e->prefix ? ast_op_name(e->op)[0] : first_char(e->a);
	default: return 0;
	}
}

static void expr_at(FILE *out, const struct expr *e, int min);

void print_string_literal(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(out, "\\%03o", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

static void list(FILE *out, const struct expr *e)
{
	for (; e; e = e->next) {
		expr_at(out, e, PREC_ASSIGN);
		if (e->next)
			fputs(", ", out);
	}
}

static void chain_pretty(FILE *out, const struct expr *e)
{
	for (const struct chain *c = e->chain; c; c = c->next) {
		if (c->field) {
			fprintf(out, "->%s", c->field);
		} else {
			fputc('[', out);
			expr_at(out, c->index, PREC_ASSIGN);
			fputc(']', out);
		}
	}
	fputs(e->pretty == 2 ? "$$" : e->pretty == 1 ? "$" : "", out);
}

static void primary(FILE *out, const struct expr *e)
{
	switch (e->kind) {
	case E_NUM:
		fprintf(out, "%" PRId64, e->num);
		break;
	case E_STR:
		print_string_literal(out, e->str, e->len);
		break;
	case E_VAR:
		fputs(e->str, out);
		break;
	case E_WILD:
		fputc('*', out);
		break;
	case E_INDEX:
		fprintf(out, "%s[", e->str);
		list(out, e->args);
		fputc(']', out);
		break;
	case E_CALL:
		fprintf(out, "%s(", e->str);
		list(out, e->args);
		fputc(')', out);
		break;
	case E_EMBEDDED:
		fprintf(out, "%%{%s%%}", e->str);
		break;
	case E_TARGET:
		fprintf(out, "%s$%s", e->addr ? "&" : "", e->str);
		chain_pretty(out, e);
		break;
	case E_CTXVAR:
		fprintf(out, "$$%s", e->str);
		chain_pretty(out, e);
		break;
	case E_CAST:
		fprintf(out, "%s@cast(", e->addr ? "&" : "");
		expr_at(out, e->a, PREC_ASSIGN);
		fputs(", ", out);
		print_string_literal(out, e->str, strlen(e->str));
		if (e->str2) {
			fputs(", ", out);
			print_string_literal(out, e->str2, strlen(e->str2));
		}
		fputc(')', out);
		chain_pretty(out, e);
		break;
	case E_ATVAR:
		fprintf(out, "%s@var(", e->addr ? "&" : "");
		print_string_literal(out, e->str, strlen(e->str));
		if (e->str2) {
			fputs(", ", out);
			print_string_literal(out, e->str2, strlen(e->str2));
		}
		fputc(')', out);
		chain_pretty(out, e);
		break;
	case E_AUTOCAST:
		if (e->addr)
			fputc('&', out);
		/* only what the grammar takes before -> goes bare */
		if (e->chain->field && (e->a->kind == E_VAR ||
		    e->a->kind == E_INDEX || e->a->kind == E_CALL)) {
			primary(out, e->a);
		} else {
			fputc('(', out);
			print_expr(out, e->a);
			fputc(')', out);
		}
		chain_pretty(out, e);
		break;
	case E_AT:
		fprintf(out, "@%s(", ast_atop_name(e->op));
		list(out, e->args);
		fputc(')', out);
		break;
	case E_STAT:
		fprintf(out, "@%s(", ast_statop_name(e->op));
		expr_at(out, e->a, PREC_ASSIGN);
		fputc(')', out);
		break;
	case E_HIST:
		fputs(e->op == HIST_LINEAR ? "@hist_linear(" : "@hist_log(", out);
		expr_at(out, e->a, PREC_ASSIGN);
		if (e->args) {
			fputs(", ", out);
			list(out, e->args);
		}
		fputc(')', out);
		break;
	case E_BUCKET:
		primary(out, e->a);
		fputc('[', out);
		expr_at(out, e->b, PREC_ASSIGN);
		fputc(']', out);
		break;
	default:
		break;
	}
}

static void expr_at(FILE *out, const struct expr *e, int min)
{
	int p = prec(e);

	if (p < min)
		fputc('(', out);
	switch (e->kind) {
	case E_ASSIGN:
		expr_at(out, e->a, PREC_TERNARY);
		fprintf(out, " %s%s ", ast_op_name(e->op),
			e->op == OP_ASSIGN || e->op == OP_AGG ? "" : "=");
		expr_at(out, e->b, PREC_ASSIGN);
		break;
	case E_TERNARY:
		expr_at(out, e->a, PREC_LOR);
		fputs(" ? ", out);
		expr_at(out, e->b, PREC_ASSIGN);
		fputs(" : ", out);
		expr_at(out, e->c, PREC_TERNARY);
		break;
	case E_BINARY:
		expr_at(out, e->a, p);
		fprintf(out, " %s ", ast_op_name(e->op));
		expr_at(out, e->b, p + 1);
		break;
	case E_IN:
		if (e->args->next || e->args->kind == E_WILD) {
			fputc('[', out);
			list(out, e->args);
			fputc(']', out);
		} else {
			expr_at(out, e->args, PREC_IN + 1);
		}
		fprintf(out, " in %s", e->str);
		break;
	case E_UNARY:
		fputs(ast_op_name(e->op), out);
		if (first_char(e->a) == ast_op_name(e->op)[0] ||
		    prec(e->a) < PREC_UNARY)
			fputc(' ', out);
		expr_at(out, e->a, PREC_UNARY);
		break;
	case E_CREMENT:
		if (e->prefix) {
			fputs(ast_op_name(e->op), out);
			if (first_char(e->a) == ast_op_name(e->op)[0])
				fputc(' ', out);
			expr_at(out, e->a, PREC_UNARY);
		} else {
			expr_at(out, e->a, PREC_POSTFIX);
			fputs(ast_op_name(e->op), out);
		}
		break;
	default:
		primary(out, e);
	}
	if (p < min)
		fputc(')', out);
}

void print_expr(FILE *out, const struct expr *e)
{
	expr_at(out, e, PREC_ASSIGN);
}

static void indent(FILE *out, int n)
{
	while (n-- > 0)
		fputc('\t', out);
}

static void stmt(FILE *out, const struct stmt *s, int depth);

static void block(FILE *out, const struct stmt *b, int depth)
{
	fputs("{\n", out);
	for (const struct stmt *s = b->body; s; s = s->next) {
		indent(out, depth + 1);
		stmt(out, s, depth + 1);
		fputc('\n', out);
	}
	indent(out, depth);
	fputc('}', out);
}

/* The body of if/while/for/foreach: a block on the same line, anything
 * else on its own line, one level deeper. */
static void body(FILE *out, const struct stmt *s, int depth)
{
	if (s->kind == S_BLOCK) {
		fputc(' ', out);
		block(out, s, depth);
	} else {
		fputc('\n', out);
		indent(out, depth + 1);
		stmt(out, s, depth + 1);
	}
}

static void sort_mark(FILE *out, int dir)
{
	fputs(dir > 0 ? "+" : dir < 0 ? "-" : "", out);
}

static void foreach(FILE *out, const struct foreach *fe)
{
	int i = 1;

	fputs("foreach (", out);
	if (fe->value)
		fprintf(out, "%s = ", fe->value->str);
	if (fe->bracketed || fe->nkeys > 1)
		fputc('[', out);
	for (const struct expr *k = fe->keys; k; k = k->next, i++) {
		fputs(k->str, out);
		if (fe->sort_by == i)
			sort_mark(out, fe->sort_dir);
		if (k->next)
			fputs(", ", out);
	}
	if (fe->bracketed || fe->nkeys > 1)
		fputc(']', out);
	fputs(" in ", out);
	primary(out, fe->array);
	if (fe->sort_by == -1) {
		if (fe->agg >= 0)
			fprintf(out, " @%s", ast_statop_name(fe->agg));
		sort_mark(out, fe->sort_dir);
	}
	if (fe->limit) {
		fputs(" limit ", out);
		expr_at(out, fe->limit, PREC_ASSIGN);
	}
	fputc(')', out);
}

static void stmt(FILE *out, const struct stmt *s, int depth)
{
	switch (s->kind) {
	case S_BLOCK:
		block(out, s, depth);
		break;
	case S_NULL:
		fputc(';', out);
		break;
	case S_EXPR:
		print_expr(out, s->e);
		fputc(';', out);
		break;
	case S_IF:
		fputs("if (", out);
		print_expr(out, s->e);
		fputc(')', out);
		body(out, s->body, depth);
		if (s->else_body) {
			fputc('\n', out);
			indent(out, depth);
			fputs("else", out);
			if (s->else_body->kind == S_IF) {
				fputc(' ', out);
				stmt(out, s->else_body, depth);
			} else {
				body(out, s->else_body, depth);
			}
		}
		break;
	case S_WHILE:
		fputs("while (", out);
		print_expr(out, s->e);
		fputc(')', out);
		body(out, s->body, depth);
		break;
	case S_FOR:
		fputs("for (", out);
		if (s->init)
			print_expr(out, s->init);
		fputs("; ", out);
		if (s->e)
			print_expr(out, s->e);
		fputs("; ", out);
		if (s->incr)
			print_expr(out, s->incr);
		fputc(')', out);
		body(out, s->body, depth);
		break;
	case S_FOREACH:
		foreach(out, s->fe);
		body(out, s->body, depth);
		break;
	case S_BREAK:
		fputs("break;", out);
		break;
	case S_CONTINUE:
		fputs("continue;", out);
		break;
	case S_NEXT:
		fputs("next;", out);
		break;
	case S_RETURN:
		fputs("return", out);
		if (s->e) {
			fputc(' ', out);
			print_expr(out, s->e);
		}
		fputc(';', out);
		break;
	case S_DELETE:
		fputs("delete ", out);
		print_expr(out, s->e);
		fputc(';', out);
		break;
	case S_TRY:
		fputs("try ", out);
		block(out, s->body, depth);
		fputs(" catch ", out);
		if (s->str)
			fprintf(out, "(%s) ", s->str);
		block(out, s->else_body, depth);
		break;
	}
}

void print_probe_point(FILE *out, const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		fputs(c->name, out);
		if (c->arg) {
			fputc('(', out);
			primary(out, c->arg);
			fputc(')', out);
		}
		if (c->next)
			fputc('.', out);
	}
	fputs(pp->sufficient ? "!" : pp->optional ? "?" : "", out);
	if (pp->cond) {
		fputs(" if (", out);
		print_expr(out, pp->cond);
		fputc(')', out);
	}
}

static void points(FILE *out, const struct probe_point *pp)
{
	for (; pp; pp = pp->next) {
		print_probe_point(out, pp);
		if (pp->next)
			fputs(", ", out);
	}
}

static void decl(FILE *out, const struct decl *d)
{
	switch (d->kind) {
	case D_PROBE:
		fputs("probe ", out);
		points(out, d->points);
		fputc(' ', out);
		block(out, d->body, 0);
		break;
	case D_ALIAS:
		fputs("probe ", out);
		points(out, d->names);
		fputs(d->append ? " += " : " = ", out);
		points(out, d->points);
		fputc(' ', out);
		block(out, d->body, 0);
		if (d->epilogue) {
			fputs(", ", out);
			block(out, d->epilogue, 0);
		}
		break;
	case D_GLOBAL:
		fprintf(out, "%sglobal %s%s", d->private_ ? "private " : "",
			d->name, d->wrap ? "%" : "");
		if (d->size)
			fprintf(out, "[%" PRId64 "]", d->size);
		if (d->init) {
			fputs(" = ", out);
			primary(out, d->init);
		}
		break;
	case D_FUNCTION:
		fprintf(out, "%sfunction %s", d->private_ ? "private " : "",
			d->name);
		if (d->type != TYPE_UNKNOWN)
			fprintf(out, ":%s", ast_type_name(d->type));
		fputc('(', out);
		for (const struct param *pa = d->params; pa; pa = pa->next) {
			fputs(pa->name, out);
			if (pa->type != TYPE_UNKNOWN)
				fprintf(out, ":%s", ast_type_name(pa->type));
			if (pa->next)
				fputs(", ", out);
		}
		fputc(')', out);
		if (d->priority)
			fprintf(out, ":%" PRId64, d->priority);
		fputc(' ', out);
		if (d->body)
			block(out, d->body, 0);
		else
			fprintf(out, "%%{%s%%}", d->code ? d->code : "");
		break;
	case D_EMBEDDED:
		fprintf(out, "%%{%s%%}", d->code);
		break;
	}
	fputc('\n', out);
}

void print_script(FILE *out, const struct script *sc)
{
	for (const struct decl *d = sc->decls; d; d = d->next)
		decl(out, d);
}
