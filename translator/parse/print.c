/* print.c - print the tree back as source, in one canonical layout. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"
#include "xalloc.h"

/* Output goes through a local buffer: -p1 prints as much as it reads.
 * Without a FILE (f NULL) the buffer grows and is the text made. */
struct obuf {
	FILE *f;
	size_t n, cap;
	char *buf;
};

static void ob_flush(struct obuf *o)
{
	if (!o->f)
		return;
	fwrite(o->buf, 1, o->n, o->f);
	o->n = 0;
}

/* Room for len more bytes in the buffer; false: write them directly. */
static bool ob_room(struct obuf *o, size_t len)
{
	if (o->n + len <= o->cap)
		return true;
	if (o->f) {
		ob_flush(o);
		return len <= o->cap;
	}
	o->cap = o->cap * 2 > o->n + len ? o->cap * 2 : o->n + len;
	o->buf = xrealloc(o->buf, o->cap);
	return true;
}

static void ob_mem(struct obuf *o, const char *s, size_t len)
{
	if (!ob_room(o, len)) {
		fwrite(s, 1, len, o->f);
		return;
	}
	memcpy(o->buf + o->n, s, len);
	o->n += len;
}

static void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static void ob_ch(struct obuf *o, int c)
{
	ob_room(o, 1);
	o->buf[o->n++] = (char)c;
}

static void ob_num(struct obuf *o, int64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	ob_mem(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

static void ob_printf(struct obuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ob_printf(struct obuf *o, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < (int)sizeof(tmp)) {
		ob_mem(o, tmp, (size_t)n);
		return;
	}
	if (!o->f) {		/* a text: made in place */
		ob_room(o, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(o->buf + o->n, (size_t)n + 1, fmt, ap);
		va_end(ap);
		o->n += (size_t)n;
		return;
	}
	ob_flush(o);
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

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

static void expr_at(struct obuf *out, const struct expr *e, int min);
static void expr(struct obuf *out, const struct expr *e);

static void string_literal(struct obuf *out, const char *s, size_t len)
{
	ob_ch(out, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': ob_str(out, "\\\""); break;
		case '\\': ob_str(out, "\\\\"); break;
		case '\n': ob_str(out, "\\n"); break;
		case '\t': ob_str(out, "\\t"); break;
		case '\r': ob_str(out, "\\r"); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				ob_printf(out, "\\%03o", c);
			else
				ob_ch(out, c);
		}
	}
	ob_ch(out, '"');
}

static void list(struct obuf *out, const struct expr *e)
{
	for (; e; e = e->next) {
		expr_at(out, e, PREC_ASSIGN);
		if (e->next)
			ob_str(out, ", ");
	}
}

static void chain_pretty(struct obuf *out, const struct expr *e)
{
	for (const struct chain *c = e->chain; c; c = c->next) {
		if (c->field) {
			ob_str(out, "->");
			ob_str(out, c->field);
		} else {
			ob_ch(out, '[');
			expr_at(out, c->index, PREC_ASSIGN);
			ob_ch(out, ']');
		}
	}
	ob_str(out, e->pretty == 2 ? "$$" : e->pretty == 1 ? "$" : "");
}

static void primary(struct obuf *out, const struct expr *e)
{
	switch (e->kind) {
	case E_NUM:
		ob_num(out, e->num);
		break;
	case E_STR:
		string_literal(out, e->str, e->len);
		break;
	case E_VAR:
		ob_str(out, e->str);
		break;
	case E_WILD:
		ob_ch(out, '*');
		break;
	case E_INDEX:
		ob_str(out, e->str);
		ob_ch(out, '[');
		list(out, e->args);
		ob_ch(out, ']');
		break;
	case E_CALL:
		ob_str(out, e->str);
		ob_ch(out, '(');
		list(out, e->args);
		ob_ch(out, ')');
		break;
	case E_EMBEDDED:
		ob_printf(out, "%%{%s%%}", e->str);
		break;
	case E_TARGET:
		ob_str(out, e->addr ? "&$" : "$");
		ob_str(out, e->str);
		chain_pretty(out, e);
		break;
	case E_CTXVAR:
		ob_printf(out, "$$%s", e->str);
		chain_pretty(out, e);
		break;
	case E_CAST:
		ob_printf(out, "%s@cast(", e->addr ? "&" : "");
		expr_at(out, e->a, PREC_ASSIGN);
		ob_str(out, ", ");
		string_literal(out, e->str, strlen(e->str));
		if (e->str2) {
			ob_str(out, ", ");
			string_literal(out, e->str2, strlen(e->str2));
		}
		ob_ch(out, ')');
		chain_pretty(out, e);
		break;
	case E_ATVAR:
		ob_printf(out, "%s@var(", e->addr ? "&" : "");
		string_literal(out, e->str, strlen(e->str));
		if (e->str2) {
			ob_str(out, ", ");
			string_literal(out, e->str2, strlen(e->str2));
		}
		ob_ch(out, ')');
		chain_pretty(out, e);
		break;
	case E_AUTOCAST:
		if (e->addr)
			ob_ch(out, '&');
		/* only what the grammar takes before -> goes bare */
		if (e->chain && e->chain->field &&
		    (e->a->kind == E_VAR || e->a->kind == E_INDEX ||
		     e->a->kind == E_CALL)) {
			primary(out, e->a);
		} else {
			ob_ch(out, '(');
			expr(out, e->a);
			ob_ch(out, ')');
		}
		chain_pretty(out, e);
		break;
	case E_AT:
		ob_printf(out, "@%s(", ast_atop_name(e->op));
		list(out, e->args);
		ob_ch(out, ')');
		break;
	case E_STAT:
		ob_printf(out, "@%s(", ast_statop_name(e->op));
		expr_at(out, e->a, PREC_ASSIGN);
		if (e->b) {
			ob_str(out, ", ");
			ob_num(out, e->b->num);
		}
		ob_ch(out, ')');
		break;
	case E_HIST:
		ob_str(out, e->op == HIST_LINEAR ? "@hist_linear(" : "@hist_log(");
		expr_at(out, e->a, PREC_ASSIGN);
		if (e->args) {
			ob_str(out, ", ");
			list(out, e->args);
		}
		ob_ch(out, ')');
		break;
	case E_BUCKET:
		primary(out, e->a);
		ob_ch(out, '[');
		expr_at(out, e->b, PREC_ASSIGN);
		ob_ch(out, ']');
		break;
	default:
		break;
	}
}

static void expr_at(struct obuf *out, const struct expr *e, int min)
{
	int p = prec(e);

	if (p < min)
		ob_ch(out, '(');
	switch (e->kind) {
	case E_ASSIGN:
		expr_at(out, e->a, PREC_TERNARY);
		ob_ch(out, ' ');
		ob_str(out, ast_op_name(e->op));
		if (e->op != OP_ASSIGN && e->op != OP_AGG)
			ob_ch(out, '=');
		ob_ch(out, ' ');
		expr_at(out, e->b, PREC_ASSIGN);
		break;
	case E_TERNARY:
		expr_at(out, e->a, PREC_LOR);
		ob_str(out, " ? ");
		expr_at(out, e->b, PREC_ASSIGN);
		ob_str(out, " : ");
		expr_at(out, e->c, PREC_TERNARY);
		break;
	case E_BINARY:
		expr_at(out, e->a, p);
		ob_ch(out, ' ');
		ob_str(out, ast_op_name(e->op));
		ob_ch(out, ' ');
		expr_at(out, e->b, p + 1);
		break;
	case E_IN:
		if (e->args->next || e->args->kind == E_WILD) {
			ob_ch(out, '[');
			list(out, e->args);
			ob_ch(out, ']');
		} else {
			expr_at(out, e->args, PREC_IN + 1);
		}
		ob_str(out, " in ");
		ob_str(out, e->str);
		break;
	case E_UNARY:
		ob_str(out, ast_op_name(e->op));
		/* keep -(-x), &(&x) and !(~x) from printing as --, && or !~ */
		if (first_char(e->a) == ast_op_name(e->op)[0] ||
		    (e->op == OP_NOT && first_char(e->a) == '~') ||
		    prec(e->a) < PREC_UNARY)
			ob_ch(out, ' ');
		expr_at(out, e->a, PREC_UNARY);
		break;
	case E_CREMENT:
		if (e->prefix) {
			ob_str(out, ast_op_name(e->op));
			if (first_char(e->a) == ast_op_name(e->op)[0])
				ob_ch(out, ' ');
			expr_at(out, e->a, PREC_UNARY);
		} else {
			expr_at(out, e->a, PREC_POSTFIX);
			ob_str(out, ast_op_name(e->op));
		}
		break;
	default:
		primary(out, e);
	}
	if (p < min)
		ob_ch(out, ')');
}

static void expr(struct obuf *out, const struct expr *e)
{
	expr_at(out, e, PREC_ASSIGN);
}

static void indent(struct obuf *out, int n)
{
	while (n-- > 0)
		ob_ch(out, '\t');
}

static void stmt(struct obuf *out, const struct stmt *s, int depth);

static void block(struct obuf *out, const struct stmt *b, int depth)
{
	ob_str(out, "{\n");
	for (const struct stmt *s = b->body; s; s = s->next) {
		indent(out, depth + 1);
		stmt(out, s, depth + 1);
		ob_ch(out, '\n');
	}
	indent(out, depth);
	ob_ch(out, '}');
}

/* The body of if/while/for/foreach: a block on the same line, anything
 * else on its own line, one level deeper. */
static void body(struct obuf *out, const struct stmt *s, int depth)
{
	if (s->kind == S_BLOCK) {
		ob_ch(out, ' ');
		block(out, s, depth);
	} else {
		ob_ch(out, '\n');
		indent(out, depth + 1);
		stmt(out, s, depth + 1);
	}
}

static void sort_mark(struct obuf *out, int dir)
{
	ob_str(out, dir > 0 ? "+" : dir < 0 ? "-" : "");
}

static void foreach(struct obuf *out, const struct foreach *fe)
{
	int i = 1;

	ob_str(out, "foreach (");
	if (fe->value)
		ob_printf(out, "%s = ", fe->value->str);
	if (fe->bracketed || fe->nkeys > 1)
		ob_ch(out, '[');
	for (const struct expr *k = fe->keys; k; k = k->next, i++) {
		ob_str(out, k->str);
		if (fe->sort_by == i)
			sort_mark(out, fe->sort_dir);
		if (k->next)
			ob_str(out, ", ");
	}
	if (fe->bracketed || fe->nkeys > 1)
		ob_ch(out, ']');
	ob_str(out, " in ");
	primary(out, fe->array);
	if (fe->sort_by == -1) {
		if (fe->agg >= 0)
			ob_printf(out, " @%s", ast_statop_name(fe->agg));
		sort_mark(out, fe->sort_dir);
	}
	if (fe->limit) {
		ob_str(out, " limit ");
		expr_at(out, fe->limit, PREC_ASSIGN);
	}
	ob_ch(out, ')');
}

static void stmt(struct obuf *out, const struct stmt *s, int depth)
{
	switch (s->kind) {
	case S_BLOCK:
		block(out, s, depth);
		break;
	case S_NULL:
		ob_ch(out, ';');
		break;
	case S_EXPR:
		expr(out, s->e);
		ob_ch(out, ';');
		break;
	case S_IF:
		ob_str(out, "if (");
		expr(out, s->e);
		ob_ch(out, ')');
		body(out, s->body, depth);
		if (s->else_body) {
			ob_ch(out, '\n');
			indent(out, depth);
			ob_str(out, "else");
			if (s->else_body->kind == S_IF) {
				ob_ch(out, ' ');
				stmt(out, s->else_body, depth);
			} else {
				body(out, s->else_body, depth);
			}
		}
		break;
	case S_WHILE:
		ob_str(out, "while (");
		expr(out, s->e);
		ob_ch(out, ')');
		body(out, s->body, depth);
		break;
	case S_FOR:
		ob_str(out, "for (");
		if (s->init)
			expr(out, s->init);
		ob_str(out, "; ");
		if (s->e)
			expr(out, s->e);
		ob_str(out, "; ");
		if (s->incr)
			expr(out, s->incr);
		ob_ch(out, ')');
		body(out, s->body, depth);
		break;
	case S_FOREACH:
		foreach(out, s->fe);
		body(out, s->body, depth);
		break;
	case S_BREAK:
		ob_str(out, "break;");
		break;
	case S_CONTINUE:
		ob_str(out, "continue;");
		break;
	case S_NEXT:
		ob_str(out, "next;");
		break;
	case S_RETURN:
		ob_str(out, "return");
		if (s->e) {
			ob_ch(out, ' ');
			expr(out, s->e);
		}
		ob_ch(out, ';');
		break;
	case S_DELETE:
		ob_str(out, "delete ");
		expr(out, s->e);
		ob_ch(out, ';');
		break;
	case S_TRY:
		ob_str(out, "try ");
		block(out, s->body, depth);
		ob_str(out, " catch ");
		if (s->e)
			ob_printf(out, "(%s) ", s->e->str);
		block(out, s->else_body, depth);
		break;
	}
}

/* The components alone: kernel.function("f").return */
static void point_name(struct obuf *out, const struct probe_point *pp)
{
	for (const struct pp_comp *c = pp->comps; c; c = c->next) {
		ob_str(out, c->name);
		if (c->arg) {
			ob_ch(out, '(');
			/* a kernel address above 2^63 reads best in hex (and
			 * the literal wraps back to the same value) */
			if (c->arg->kind == E_NUM && c->arg->num < 0 &&
			    (!strcmp(c->name, "statement") ||
			     !strcmp(c->name, "data")))
				ob_printf(out, "0x%llx",
					  (unsigned long long)c->arg->num);
			else
				primary(out, c->arg);
			ob_ch(out, ')');
		}
		if (c->next)
			ob_ch(out, '.');
	}
}

static void probe_point(struct obuf *out, const struct probe_point *pp)
{
	point_name(out, pp);
	ob_str(out, pp->sufficient ? "!" : pp->optional ? "?" : "");
	if (pp->cond) {
		ob_str(out, " if (");
		expr(out, pp->cond);
		ob_ch(out, ')');
	}
}

static void points(struct obuf *out, const struct probe_point *pp)
{
	for (; pp; pp = pp->next) {
		probe_point(out, pp);
		if (pp->next)
			ob_str(out, ", ");
	}
}

static void decl(struct obuf *out, const struct decl *d)
{
	switch (d->kind) {
	case D_PROBE:
		ob_str(out, "probe ");
		points(out, d->points);
		ob_ch(out, ' ');
		block(out, d->body, 0);
		break;
	case D_ALIAS:
		ob_str(out, "probe ");
		points(out, d->names);
		ob_str(out, d->append ? " += " : " = ");
		points(out, d->points);
		ob_ch(out, ' ');
		block(out, d->body, 0);
		if (d->epilogue) {
			ob_str(out, ", ");
			block(out, d->epilogue, 0);
		}
		break;
	case D_GLOBAL:
		ob_printf(out, "%sglobal %s%s", d->private_ ? "private " : "",
			d->name, d->wrap ? "%" : "");
		if (d->size)
			ob_printf(out, "[%" PRId64 "]", d->size);
		if (d->init) {
			ob_str(out, " = ");
			primary(out, d->init);
		}
		break;
	case D_FUNCTION:
		ob_printf(out, "%sfunction %s", d->private_ ? "private " : "",
			d->name);
		if (d->type != TYPE_UNKNOWN)
			ob_printf(out, ":%s", ast_type_name(d->type));
		ob_ch(out, '(');
		for (const struct param *pa = d->params; pa; pa = pa->next) {
			ob_str(out, pa->name);
			if (pa->type != TYPE_UNKNOWN)
				ob_printf(out, ":%s", ast_type_name(pa->type));
			if (pa->next)
				ob_str(out, ", ");
		}
		ob_ch(out, ')');
		if (d->priority)
			ob_printf(out, ":%" PRId64, d->priority);
		ob_ch(out, ' ');
		if (d->body)
			block(out, d->body, 0);
		else
			ob_printf(out, "%%{%s%%}", d->code ? d->code : "");
		break;
	case D_EMBEDDED:
		ob_printf(out, "%%{%s%%}", d->code);
		break;
	}
	ob_ch(out, '\n');
}

static struct obuf *ob_new(FILE *f)
{
	struct obuf *o = xmalloc(sizeof(*o));

	o->f = f;
	o->n = 0;
	/* a FILE's: as much as -p1 prints at once; a text's: a name's */
	o->cap = f ? 1 << 16 : 128;
	o->buf = xmalloc(o->cap);
	return o;
}

static void ob_done(struct obuf *o)
{
	ob_flush(o);
	free(o->buf);
	free(o);
}

void print_script(FILE *f, const struct script *sc)
{
	struct obuf *o = ob_new(f);

	for (const struct decl *d = sc->decls; d; d = d->next)
		decl(o, d);
	ob_done(o);
}

void print_expr(FILE *f, const struct expr *e)
{
	struct obuf *o = ob_new(f);

	expr(o, e);
	ob_done(o);
}

void print_probe_point(FILE *f, const struct probe_point *pp)
{
	struct obuf *o = ob_new(f);

	probe_point(o, pp);
	ob_done(o);
}

void print_probe_point_name(FILE *f, const struct probe_point *pp)
{
	struct obuf *o = ob_new(f);

	point_name(o, pp);
	ob_done(o);
}
char *probe_point_name_text(const struct probe_point *pp)
{
	struct obuf *o = ob_new(NULL);
	char *text;

	point_name(o, pp);
	ob_ch(o, '\0');
	text = o->buf;
	free(o);
	return text;
}

void print_string_literal(FILE *f, const char *s, size_t len)
{
	struct obuf *o = ob_new(f);

	string_literal(o, s, len);
	ob_done(o);
}
