/* emit-expr.c - expressions: arithmetic, strings, assignment, calls and
 * the print family.
 *
 * Operands are evaluated left to right. An operand's value is a C
 * expression that later operands' side effects could change (a variable)
 * is copied to a temporary first when a later operand has side effects.
 * Longs wrap (arithmetic in u64); division and modulo by zero are
 * runtime errors; shift counts are masked to 63; strings are cut at
 * MAXSTRINGLEN - 1 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "emit-internal.h"
#include "regex-compile.h"
#include "xalloc.h"

struct val mkval(const char *c, enum vtype t, bool stable)
{
	struct val v = { .c = c, .type = t, .stable = stable };

	return v;
}

static const char *num_literal(struct em *em, int64_t n)
{
	if (n == INT64_MIN)
		return "S64_MIN";
	if (n < 0)
		return em_printf(em, "(%lldLL)", (long long)n);
	if (n > 0x7fffffff)
		return em_printf(em, "%lldLL", (long long)n);
	return em_printf(em, "%lld", (long long)n);
}

/* Can evaluating x change a variable or an array? */
bool has_side_effects(const struct expr *x)
{
	if (!x)
		return false;
	switch (x->kind) {
	case E_ASSIGN:
	case E_CREMENT:
	case E_EMBEDDED:
		return true;
	case E_CALL: {
		const struct function *fn = x->ref;

		if (fn && !(fn->decl->code && fn->pure))
			return true;
		break;
	}
	default:
		break;
	}
	if (has_side_effects(x->a) || has_side_effects(x->b) ||
	    has_side_effects(x->c))
		return true;
	for (const struct expr *a = x->args; a; a = a->next)
		if (has_side_effects(a))
			return true;
	return false;
}

/* Can evaluating x assign to a local variable? (Nothing else can change
 * a local: functions have their own frames.) */
static bool writes_locals(const struct expr *x)
{
	if (!x)
		return false;
	if ((x->kind == E_ASSIGN || x->kind == E_CREMENT) && x->a &&
	    x->a->kind == E_VAR && x->a->ref &&
	    !((const struct symbol *)x->a->ref)->global)
		return true;
	if (writes_locals(x->a) || writes_locals(x->b) || writes_locals(x->c))
		return true;
	for (const struct expr *a = x->args; a; a = a->next)
		if (writes_locals(a))
			return true;
	return false;
}

/* v, copied to a temporary if evaluating later could change it. */
struct val protect(struct body *b, struct val v, const struct expr *later)
{
	if (v.stable || !later)
		return v;
	if (v.local ? writes_locals(later) : has_side_effects(later))
		return materialize(b, v);
	return v;
}

/* Copy a value that could change into a temporary. */
struct val materialize(struct body *b, struct val v)
{
	const char *t;

	if (v.stable)
		return v;
	if (v.type == TYPE_STRING) {
		t = tmp_new(b, TMP_STR);
		out(b, "tp_str_copy(%s, %s);", t, v.c);
	} else {
		t = tmp_new(b, TMP_LONG);
		out(b, "%s = %s;", t, v.c);
	}
	return mkval(t, v.type, true);
}

/* dst = v, for a frame or global location of type t. */
void assign_to(struct body *b, const char *dst, enum vtype t, struct val v)
{
	if (strcmp(dst, v.c) == 0)
		return;
	if (t == TYPE_STRING)
		out(b, "tp_str_copy(%s, %s);", dst, v.c);
	else
		out(b, "%s = %s;", dst, v.c);
}

/* Evaluate a list of operands left to right; values that later operands
 * could change are copied. */
static int eval_list(struct body *b, struct expr *list, struct val *v,
		     int max)
{
	int n = 0;

	for (struct expr *a = list; a && n < max; a = a->next) {
		for (int i = 0; i < n; i++)
			v[i] = protect(b, v[i], a);
		v[n++] = emit_expr(b, a);
	}
	return n;
}

/* ---- array keys ---- */

static struct val emit_call(struct body *b, struct expr *x, bool in_place);

/* Keys left to right; with last_in_place, the last one may be left in
 * the frame of the function that returned it (emit_call()): the caller
 * uses the keys before anything else is evaluated. */
int eval_keys(struct body *b, struct expr *args, struct val *keys,
	      bool allow_wild, unsigned *wild, bool last_in_place)
{
	int n = 0;

	if (wild)
		*wild = 0;
	for (struct expr *a = args; a && n < MAX_ARITY; a = a->next, n++) {
		if (a->kind == E_WILD) {
			if (!allow_wild)
				em_error(b->em, &a->loc, "'*' is allowed only "
					 "in delete, foreach and 'in'");
			else if (wild)
				*wild |= 1u << n;
			keys[n] = mkval("0", TYPE_LONG, true);
			continue;
		}
		for (int i = 0; i < n; i++)
			keys[i] = protect(b, keys[i], a);
		if (last_in_place && !a->next && a->kind == E_CALL && a->ref)
			keys[n] = emit_call(b, a, true);
		else
			keys[n] = emit_expr(b, a);
	}
	return n;
}

const char *keys_literal(struct body *b, struct expr *args,
			 const struct symbol *arr, struct val *keys, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char *r;
	int i = 0;

	(void)args;
	fputs("(const union tp_key[]){ ", m);
	for (i = 0; i < n; i++)
		fprintf(m, "%s%s(%s)", i ? ", " : "",
			arr->key[i] == TYPE_STRING ? "TPG_SKEY" : "TPG_LKEY",
			arr->key[i] == TYPE_STRING && strcmp(keys[i].c, "0") == 0 ?
			"\"\"" : keys[i].c);
	fputs(" }", m);
	fclose(m);
	r = em_printf(b->em, "%s", buf);
	free(buf);
	return r;
}

/* c without one pair of parentheses around all of it. */
static const char *bare(struct em *em, const char *c)
{
	size_t n = strlen(c);
	int depth = 0;

	if (n < 2 || c[0] != '(' || c[n - 1] != ')')
		return c;
	for (size_t i = 0; i < n; i++) {
		if (c[i] == '"' || c[i] == '\'') {
			/* a literal: skip to its end */
			char q = c[i];

			for (i++; i < n && c[i] != q; i++)
				if (c[i] == '\\')
					i++;
			continue;
		}
		if (c[i] == '(')
			depth++;
		else if (c[i] == ')' && --depth == 0 && i != n - 1)
			return c;
	}
	return em_printf(em, "%.*s", (int)(n - 2), c + 1);
}

/* ---- operators ---- */

static struct val emit_logical(struct body *b, struct expr *x)
{
	bool and = x->op == OP_LAND;
	struct val a = emit_expr(b, x->a), bv;
	FILE *saved;
	char *buf, *text;
	size_t len;
	const char *t;

	capture_begin(b, &saved, &buf, &len);
	b->ind++;
	bv = emit_expr(b, x->b);
	b->ind--;
	text = capture_end(b, saved, &buf, &len);
	if (!*text) {
		free(text);
		return mkval(em_printf(b->em, "(%s %s %s)", a.c, and ? "&&" : "||",
				       bv.c), TYPE_LONG, a.stable && bv.stable);
	}
	t = tmp_new(b, TMP_LONG);
	out(b, "%s = %d;", t, and ? 0 : 1);
	if (and)
		out(b, "if (%s) {", bare(b->em, a.c));
	else
		out(b, "if (!%s) {", a.c);
	out_raw(b, text);
	out(b, "\t%s = !!%s;", t, bv.c);
	out(b, "}");
	free(text);
	return mkval(t, TYPE_LONG, true);
}

static struct val emit_ternary(struct body *b, struct expr *x)
{
	struct val cv = emit_expr(b, x->a), v1, v2;
	FILE *saved;
	char *buf1, *buf2, *t1, *t2;
	size_t len;
	enum vtype t = x->type == TYPE_STRING ? TYPE_STRING : TYPE_LONG;
	const char *r;

	capture_begin(b, &saved, &buf1, &len);
	b->ind++;
	v1 = emit_expr(b, x->b);
	b->ind--;
	t1 = capture_end(b, saved, &buf1, &len);
	capture_begin(b, &saved, &buf2, &len);
	b->ind++;
	v2 = emit_expr(b, x->c);
	b->ind--;
	t2 = capture_end(b, saved, &buf2, &len);
	if (!*t1 && !*t2) {
		free(t1);
		free(t2);
		return mkval(em_printf(b->em, "(%s ? %s : %s)", cv.c, v1.c, v2.c),
			     t, cv.stable && v1.stable && v2.stable);
	}
	r = tmp_new(b, t == TYPE_STRING ? TMP_STR : TMP_LONG);
	out(b, "if (%s) {", bare(b->em, cv.c));
	out_raw(b, t1);
	b->ind++;
	assign_to(b, r, t, v1);
	b->ind--;
	out(b, "} else {");
	out_raw(b, t2);
	b->ind++;
	assign_to(b, r, t, v2);
	b->ind--;
	out(b, "}");
	free(t1);
	free(t2);
	return mkval(r, t, true);
}

/* The check before / and %: the divisor is an atom. SystemTap names
 * the operator of a / b, and the right-hand side's own token for x /= e. */
static void div_check(struct body *b, const struct expr *x, const char *d,
		      const char *opname)
{
	struct em *em = b->em;
	const char *near = opname ? near_text(em, "operator", opname, &x->loc) :
			   expr_near(em, x->b);

	out(b, "if (unlikely(%s == 0)) {", d);
	out(b, "\tc->last_error = \"division by 0\";");
	out(b, "\tc->last_stmt = %s;", c_string(em, near, strlen(near)));
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
}

/* a op b on longs; the result may need a temporary (division). */
struct val arith(struct body *b, const struct expr *x, int op,
			struct val a, struct val v, const char *opname)
{
	struct em *em = b->em;
	const char *r;
	bool st = a.stable && v.stable;

	switch (op) {
	case OP_ADD:
		return mkval(em_printf(em, "(s64)((u64)%s + (u64)%s)", a.c, v.c),
			     TYPE_LONG, st);
	case OP_SUB:
		return mkval(em_printf(em, "(s64)((u64)%s - (u64)%s)", a.c, v.c),
			     TYPE_LONG, st);
	case OP_MUL:
		return mkval(em_printf(em, "(s64)((u64)%s * (u64)%s)", a.c, v.c),
			     TYPE_LONG, st);
	case OP_DIV:
	case OP_MOD: {
		bool literal = x->b && x->b->kind == E_NUM && x->b->num != 0 &&
			       op == x->op;

		if (!literal)
			div_check(b, x, v.c, opname);
		r = tmp_new(b, TMP_LONG);
		out(b, "%s = tpg_%s(%s, %s);", r, op == OP_DIV ? "div" : "mod",
		    a.c, v.c);
		return mkval(r, TYPE_LONG, true);
	}
	case OP_SHL:
		return mkval(em_printf(em, "(s64)((u64)%s << (%s & 63))", a.c,
				       v.c), TYPE_LONG, st);
	case OP_SHR:
		return mkval(em_printf(em, "(%s >> (%s & 63))", a.c, v.c),
			     TYPE_LONG, st);
	case OP_USHR:
		return mkval(em_printf(em, "(s64)((u64)%s >> (%s & 63))", a.c,
				       v.c), TYPE_LONG, st);
	case OP_BAND:
		return mkval(em_printf(em, "(%s & %s)", a.c, v.c), TYPE_LONG, st);
	case OP_BOR:
		return mkval(em_printf(em, "(%s | %s)", a.c, v.c), TYPE_LONG, st);
	case OP_BXOR:
		return mkval(em_printf(em, "(%s ^ %s)", a.c, v.c), TYPE_LONG, st);
	default:
		em_error(em, &x->loc, "operator '%s' cannot be translated",
			 ast_op_name(op));
		return mkval("0", TYPE_LONG, true);
	}
}

/* ---- regular expressions ---- */

/* The index of x's compiled regex in em->regexes (added once). */
static int regex_index(struct em *em, const struct expr *x)
{
	const struct rx_prog *prog = x->ref;
	int i;

	for (i = 0; i < em->nregexes; i++)
		if (em->regexes[i].prog == prog)
			return i;
	em->regexes = xrealloc(em->regexes, (size_t)(em->nregexes + 1) *
			       sizeof(*em->regexes));
	em->regexes[i].prog = prog;
	em->regexes[i].where = loc_text(em, &x->b->loc);
	em->regexes[i].text = c_string(em, x->b->str, x->b->len);
	return em->nregexes++;
}

/* s =~ "re" (s !~ "re"): the runtime's matcher over the program compiled
 * in pass 2; it also records the match for matched() and ngroups(). */
static struct val emit_regex(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	const struct rx_prog *prog = x->ref;
	const char *r;
	struct val s;
	int k;

	if (!prog || !prog->insn) {
		em_error(em, &x->loc, "regular expression matching needs the "
			 "regex compiled by pass 2");
		return mkval("0", TYPE_LONG, true);
	}
	k = regex_index(em, x);
	s = emit_expr(b, x->a);
	r = tmp_new(b, TMP_LONG);
	out(b, "%s = %stp_regex_match(c, &tpg_re_%d, %s, &TPG_FRAMES(c)->re.last,",
	    r, x->op == OP_NOMATCH ? "!" : "", k, s.c);
	out(b, "\tTPG_FRAMES(c)->re.span, TPG_FRAMES(c)->re.work.re_%d);", k);
	return mkval(r, TYPE_LONG, true);
}

/* The programs, at file scope: one table each, named after its place. */
void emit_regex_tables(struct em *em, FILE *o)
{
	if (!em->nregexes)
		return;
	fputs("/* ---- regular expressions (runtime/regex.h) ---- */\n\n", o);
	for (int k = 0; k < em->nregexes; k++) {
		const struct rx_prog *g = em->regexes[k].prog;

		fputs("/* ", o);
		for (const char *t = em->regexes[k].text; *t; t++) {
			fputc(*t, o);
			if (t[0] == '*' && t[1] == '/')
				fputc('\\', o);	/* no end of comment */
		}
		fprintf(o, " at %s */\n", em->regexes[k].where);
		if (g->nsets) {
			fprintf(o, "static const u8 tpg_re_%d_sets[%u][32] = {\n",
				k, g->nsets);
			for (unsigned int i = 0; i < g->nsets; i++) {
				fputs("\t{", o);
				for (int j = 0; j < 32; j++)
					fprintf(o, "%s0x%02x", j ? (j % 8 ? ", " :
						",\n\t ") : " ", g->sets[i][j]);
				fputs(" },\n", o);
			}
			fputs("};\n", o);
		}
		fprintf(o, "static const struct tp_regex_insn tpg_re_%d_insn[%u] = {\n",
			k, g->ninsn);
		for (unsigned int i = 0; i < g->ninsn; i++) {
			const struct rx_insn *in = &g->insn[i];

			fprintf(o, "\t/* %3u */ { %s, %u, %u, %u },\n", i,
				rx_op_name(in->op), in->c, in->x, in->y);
		}
		fputs("};\n", o);
		fprintf(o, "static const struct tp_regex tpg_re_%d = {\n"
			"\t.insn = tpg_re_%d_insn,\n", k, k);
		if (g->nsets)
			fprintf(o, "\t.sets = tpg_re_%d_sets,\n", k);
		fprintf(o, "\t.ninsn = %u,\n\t.ngroups = %u,\n};\n\n",
			g->ninsn, g->ngroups);
	}
}

/* The frames' part for matching: the last match and the scratch. */
void emit_regex_frame(struct em *em, FILE *o)
{
	unsigned int groups = 1;

	if (!em->nregexes)
		return;
	for (int k = 0; k < em->nregexes; k++)
		if (em->regexes[k].prog->ngroups > groups)
			groups = em->regexes[k].prog->ngroups;
	fprintf(o, "\tstruct {\t\t/* =~ and !~: the hit's last match, "
		"the scratch */\n"
		"\t\tstruct tp_regex_last last;\n"
		"\t\tu16 span[%u];\n\t\tunion {\n", 2 * groups);
	for (int k = 0; k < em->nregexes; k++)
		fprintf(o, "\t\t\tu16 re_%d[TP_REGEX_WORK(%u, %u)];\n", k,
			em->regexes[k].prog->ninsn,
			2 * em->regexes[k].prog->ngroups);
	fputs("\t\t} work;\n\t} re;\n", o);
}

/* a . b into a string temporary (reusing a's when it is one). */
static struct val concat(struct body *b, struct val a, struct val v,
			 bool a_owned)
{
	const char *t;

	if (a_owned) {
		t = a.c;
	} else {
		t = tmp_new(b, TMP_STR);
		out(b, "tp_str_copy(%s, %s);", t, a.c);
	}
	out(b, "tp_str_cat(%s, %s);", t, v.c);
	return mkval(t, TYPE_STRING, true);
}

/* Is x a concatenation whose value is a temporary we may extend? */
static bool owned_concat(const struct expr *x)
{
	return x->kind == E_BINARY && x->op == OP_CONCAT;
}

static struct val emit_binary(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	struct val a, v;
	const char *cmp;

	switch (x->op) {
	case OP_LAND:
	case OP_LOR:
		return emit_logical(b, x);
	case OP_MATCH:
	case OP_NOMATCH:
		return emit_regex(b, x);
	default:
		break;
	}
	a = protect(b, emit_expr(b, x->a), x->b);
	v = emit_expr(b, x->b);
	switch (x->op) {
	case OP_CONCAT:
		return concat(b, a, v, owned_concat(x->a));
	case OP_LT: cmp = "<"; break;
	case OP_GT: cmp = ">"; break;
	case OP_LE: cmp = "<="; break;
	case OP_GE: cmp = ">="; break;
	case OP_EQ: cmp = "=="; break;
	case OP_NE: cmp = "!="; break;
	default:
		return arith(b, x, x->op, a, v, ast_op_name(x->op));
	}
	if (x->a->type == TYPE_STRING)
		return mkval(em_printf(em, "(strcmp(%s, %s) %s 0)", a.c, v.c, cmp),
			     TYPE_LONG, a.stable && v.stable);
	return mkval(em_printf(em, "(%s %s %s)", a.c, cmp, v.c), TYPE_LONG,
		     a.stable && v.stable);
}

static struct val emit_unary(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	struct val a;

	if (x->op == OP_ADDR) {
		em_error(em, &x->loc, "'&' needs a target variable, which "
			 "Tapir cannot translate yet");
		return mkval("0", TYPE_LONG, true);
	}
	a = emit_expr(b, x->a);
	switch (x->op) {
	case OP_NEG:
		return mkval(em_printf(em, "(s64)(0 - (u64)%s)", a.c), TYPE_LONG,
			     a.stable);
	case OP_NOT:
		return mkval(em_printf(em, "(s64)!%s", a.c), TYPE_LONG, a.stable);
	case OP_BNOT:
		return mkval(em_printf(em, "(~%s)", a.c), TYPE_LONG, a.stable);
	default:
		return a;
	}
}

/* ---- assignment ---- */

/* The C lvalue of a scalar variable (local, parameter or global). */
static const char *scalar_ref(struct body *b, const struct expr *x,
			      bool write)
{
	struct symbol *sym = x->ref;
	struct gvar *g = em_global(b->em, sym);

	if (g) {
		use_global(b, g, write);
		return g->cname;
	}
	return local_ref(b, sym);
}

static bool is_scalar(const struct expr *x)
{
	const struct symbol *sym = x->ref;

	return x->kind == E_VAR && sym && (!sym->global || sym->arity == 0);
}

/* $value of a procfs probe (runtime/procfs.c): = and .= in a read probe
 * fill the file's buffer, a write probe reads what was written. */
static struct val emit_procfs_assign(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	bool append = x->op == OP_CONCAT;
	const struct loc *l = append ? em->prog->procfs_append :
				       em->prog->procfs_set;
	const char *near = near_text(em, "identifier", "$value",
				     l ? l : &x->a->loc);
	struct val v = emit_expr(b, x->b);

	out(b, "if (tp_procfs_set(c, %s, %s)) {", v.c,
	    append ? "true" : "false");
	out(b, "	c->last_stmt = %s;", c_string(em, near, strlen(near)));
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
	return v;
}

static struct val emit_procfs_value(struct body *b)
{
	const char *t = tmp_new(b, TMP_STR);

	out(b, "tp_procfs_get(c, %s);", t);
	return mkval(t, TYPE_STRING, true);
}

static struct val emit_assign(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	struct expr *lhs = x->a;
	struct val v, r;
	const char *dst;

	if (x->op == OP_AGG) {
		v = emit_expr(b, x->b);
		emit_agg_add(b, lhs, v);
		return v;
	}
	if (lhs->kind == E_INDEX)
		return emit_index_assign(b, x);
	if (lhs->kind == E_TARGET && b->probe && b->probe->procfs)
		return emit_procfs_assign(b, x);
	if (lhs->kind == E_TARGET || lhs->kind == E_CAST ||
	    lhs->kind == E_ATVAR)
		return emit_dwarf_assign(b, x);
	if (!is_scalar(lhs)) {
		em_error(em, &lhs->loc, "assignment to this kind of "
			 "expression cannot be translated yet");
		return mkval("0", TYPE_LONG, true);
	}
	v = emit_expr(b, x->b);
	dst = scalar_ref(b, lhs, true);
	if (x->op == OP_ASSIGN) {
		assign_to(b, dst, lhs->type, v);
		return mkval(dst, lhs->type, false);
	}
	if (x->op == OP_CONCAT) {
		/* s .= s would append a string to itself while reading it */
		if (strcmp(dst, v.c) == 0) {
			v.stable = false;
			v = materialize(b, v);
		}
		out(b, "tp_str_cat(%s, %s);", dst, v.c);
		return mkval(dst, TYPE_STRING, false);
	}
	v = materialize(b, v);
	r = arith(b, x, x->op, mkval(dst, TYPE_LONG, false), v, NULL);
	out(b, "%s = %s;", dst, r.c);
	return mkval(dst, TYPE_LONG, false);
}

static struct val emit_crement(struct body *b, struct expr *x)
{
	struct expr *lhs = x->a;
	const char *dst, *t;
	int delta = x->op == OP_INC ? 1 : -1;

	if (lhs->kind == E_INDEX)
		return emit_index_assign(b, x);
	if (lhs->kind == E_TARGET || lhs->kind == E_CAST ||
	    lhs->kind == E_ATVAR)
		return emit_dwarf_assign(b, x);
	if (!is_scalar(lhs)) {
		em_error(b->em, &lhs->loc, "'%s' on this kind of expression "
			 "cannot be translated yet", ast_op_name(x->op));
		return mkval("0", TYPE_LONG, true);
	}
	dst = scalar_ref(b, lhs, true);
	if (x->prefix) {
		out(b, "%s = (s64)((u64)%s %s 1);", dst, dst, delta > 0 ? "+" : "-");
		return mkval(dst, TYPE_LONG, false);
	}
	t = tmp_new(b, TMP_LONG);
	out(b, "%s = %s;", t, dst);
	out(b, "%s = (s64)((u64)%s %s 1);", dst, t, delta > 0 ? "+" : "-");
	return mkval(t, TYPE_LONG, true);
}

/* ---- calls ---- */

static const char *frame_of(struct body *b, const struct fninfo *fi)
{
	return em_printf(b->em, "TPG_FRAMES(c)->fn[c->nesting].%s", fi->cname);
}

/* One overload: fill its frame, call, check. */
static void call_one(struct body *b, struct expr *x, struct fninfo *fi,
		     struct val *args, const char *result)
{
	struct em *em = b->em;
	const struct function *fn = fi->fn;
	const struct symbol *p = fn->params;
	const char *callnear = near_text(em, "identifier", x->str, &x->loc);
	const char *decl = near_text(em, "identifier", fn->name, &fn->decl->loc);

	em_emit_function(em, fi);
	fi->called = true;
	out(b, "if (unlikely(c->nesting >= MAXNESTING)) {");
	out(b, "\tc->last_error = \"MAXNESTING exceeded\";");
	out(b, "\tc->last_stmt = %s;", c_string(em, decl, strlen(decl)));
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
	for (int i = 0; p; p = p->next, i++) {
		const char *dst = em_printf(em, "%s.l_%s", frame_of(b, fi), p->name);

		assign_to(b, dst, p->type, args[i]);
	}
	out(b, "c->nesting++;");
	out(b, "%s(c);", fi->cname);
	out(b, "c->nesting--;");
	if (fi->may_fail || fi->may_abort) {
		if (fi->may_abort)
			out(b, "if (unlikely(c->last_error || c->aborted))");
		else
			out(b, "if (unlikely(c->last_error))");
		b->ind++;
		err_jump(b);
		b->ind--;
	}
	if (result)
		assign_to(b, result, fi->type,
			  mkval(em_printf(em, "%s.__retvalue", frame_of(b, fi)),
				fi->type, false));
	/* the caller of a loop-free function pays for its statements */
	record_actions(b, fi->actions, callnear, true);
	/* the functions a body calls, for its lock set */
	for (int i = 0; i < b->ncalls; i++)
		if (b->calls[i] == fi)
			return;
	b->calls = realloc(b->calls, (size_t)(b->ncalls + 1) * sizeof(*b->calls));
	if (!b->calls)
		abort();
	b->calls[b->ncalls++] = fi;
}

static void call_overloads(struct body *b, struct expr *x, struct function *fn,
			   struct val *args, const char *result)
{
	struct fninfo *fi = em_fn(b->em, fn);

	call_one(b, x, fi, args, result);
	if (fn->overload && fi->uses_next) {
		out(b, "if (%s.__next) {", frame_of(b, fi));
		b->ind++;
		call_overloads(b, x, fn->overload, args, result);
		b->ind--;
		out(b, "}");
	}
}

/* A call's value, in a temporary; or, in_place, a string left in the
 * callee's frame (no copy), valid until the next call: for an operand
 * that is used before anything else is evaluated. */
static struct val emit_call(struct body *b, struct expr *x, bool in_place)
{
	struct function *fn = x->ref;
	struct fninfo *fi = em_fn(b->em, fn);
	enum vtype t = fi->type;
	struct val args[MAX_ARITY + 1];
	const char *result = NULL;

	eval_list(b, x->args, args, MAX_ARITY);
	if (in_place && t == TYPE_STRING && !fn->overload) {
		call_one(b, x, fi, args, NULL);
		return mkval(em_printf(b->em, "%s.__retvalue", frame_of(b, fi)),
			     t, false);
	}
	if (t == TYPE_LONG)
		result = tmp_new(b, TMP_LONG);
	else if (t == TYPE_STRING)
		result = tmp_new(b, TMP_STR);
	call_overloads(b, x, fn, args, result);
	if (!result)
		return mkval("0", TYPE_LONG, true);
	return mkval(result, t, true);
}

/* ---- the print family ---- */

static void fmt_append(char **fmt, size_t *len, size_t *cap, const char *s,
		       size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*fmt = realloc(*fmt, *cap);
		if (!*fmt)
			abort();
	}
	memcpy(*fmt + *len, s, n);
	*len += n;
	(*fmt)[*len] = '\0';
}

/* A literal's bytes in a format: '%' doubled. */
static void fmt_literal(char **fmt, size_t *len, size_t *cap, const char *s,
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fmt_append(fmt, len, cap, s + i, 1);
		if (s[i] == '%')
			fmt_append(fmt, len, cap, "%", 1);
	}
}

/* More arguments than this go in the frame, not on the kernel stack (a
 * compound literal each: 64 of them took 1 KiB, and a probe that prints
 * a big struct's $$vars more than -Wframe-larger-than allows). */
#define ARGS_ON_STACK 8

/* The arguments of a print: a compound literal, or a frame temporary
 * filled here. */
static const char *args_literal(struct body *b, struct val *v, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	const char *r;

	if (n > ARGS_ON_STACK) {
		const char *t = args_tmp(b, n);

		for (int i = 0; i < n; i++)
			out(b, "%s[%d] = (struct tp_arg)%s(%s);", t, i,
			    v[i].type == TYPE_STRING ? "TPG_SARG" : "TPG_LARG",
			    v[i].c);
		return t;
	}
	m = open_memstream(&buf, &len);
	fputs("(const struct tp_arg[]){ ", m);
	for (int i = 0; i < n; i++)
		fprintf(m, "%s%s(%s)", i ? ", " : "",
			v[i].type == TYPE_STRING ? "TPG_SARG" : "TPG_LARG", v[i].c);
	fputs(" }", m);
	fclose(m);
	r = em_printf(b->em, "%s", buf);
	free(buf);
	return r;
}

/* Print (dst NULL) or format into dst: fmt with n arguments. */
static void print_formatted(struct body *b, const char *fmt, size_t flen,
			    struct val *v, int n, const char *dst)
{
	struct em *em = b->em;

	if (n == 0) {
		/* no conversion left but "%%" */
		char *plain = malloc(flen + 1);
		size_t k = 0;

		if (!plain)
			abort();
		for (size_t i = 0; i < flen; i++) {
			plain[k++] = fmt[i];
			if (fmt[i] == '%' && i + 1 < flen && fmt[i + 1] == '%')
				i++;
		}
		if (dst)
			out(b, "tp_str_copy(%s, %s);", dst, c_string(em, plain, k));
		else if (k)
			out(b, "tp_print(c, %s);", c_string(em, plain, k));
		free(plain);
		return;
	}
	if (dst)
		out(b, "tp_sprintf_str(c, %s, %s, %s, %d);", dst,
		    c_string(em, fmt, flen), args_literal(b, v, n), n);
	else
		out(b, "tp_printf(c, %s, %s, %d);", c_string(em, fmt, flen),
		    args_literal(b, v, n), n);
}

/* A print's values, as stap 4.8 counts them: after printf's format or
 * printd's delimiter. */
static int print_nvalues(const struct expr *x, bool skip_first)
{
	int n = 0;

	for (const struct expr *a = x->args; a; a = a->next)
		n++;
	return n && skip_first ? n - 1 : n;
}

/* stap 4.8 refuses a print of more than this many values at pass 3 */
#define PRINT_MAX_VALUES 32

void emit_print_call(struct body *b, struct expr *x, const char *dst)
{
	struct em *em = b->em;
	const char *name = x->str + (x->str[0] == 's');
	bool ln = strstr(name, "ln") != NULL;
	bool delim = strncmp(name, "printd", 6) == 0;
	bool is_printf = strcmp(name, "printf") == 0;
	int nvalues = print_nvalues(x, is_printf || delim);
	struct val *v, *tmp;
	struct expr *list = x->args;
	char *fmt = NULL;
	size_t flen = 0, cap = 0;
	int n = 0;
	struct val dv = { 0 };
	bool dlit = false;

	/* the pretty printer's own sprintf (x->pretty) takes any number */
	if (nvalues > PRINT_MAX_VALUES && !x->pretty) {
		em_error(em, &x->loc, "too many arguments to print (%d)", nvalues);
		return;
	}
	/* printd's values and, with a computed delimiter, one before each
	 * but the first */
	v = xcalloc(2 * (size_t)nvalues + 1, sizeof(*v));
	if (is_printf) {
		struct expr *f = x->args;

		if (!f || f->kind != E_STR) {
			em_error(em, f ? &f->loc : &x->loc, "the format of '%s' "
				 "must be a literal string", x->str);
			free(v);
			return;
		}
		n = eval_list(b, f->next, v, nvalues);
		print_formatted(b, f->str, f->len, v, n, dst);
		free(v);
		return;
	}
	/* print(@hist_*(s)): the chart; sprint() gives it as a string */
	for (struct expr *a = list; a; a = a->next)
		if (a->kind == E_HIST) {
			if (a != list || a->next) {
				em_error(em, &a->loc, "a histogram can only "
					 "be printed alone, with print()");
				free(v);
				return;
			}
			/* println() adds no newline to it in stap 4.8 */
			emit_hist_print(b, a, x, dst);
			free(v);
			return;
		}
	if (delim) {
		if (!list) {
			em_error(em, &x->loc, "'%s' needs a delimiter", x->str);
			free(v);
			return;
		}
		dlit = list->kind == E_STR;
		if (!dlit) {
			dv = emit_expr(b, list);
			for (struct expr *a = list->next; a; a = a->next)
				dv = protect(b, dv, a);
		}
		list = list->next;
	}
	tmp = xcalloc((size_t)nvalues + 1, sizeof(*tmp));
	{
		int k = eval_list(b, list, tmp, nvalues);
		int i = 0;

		for (struct expr *a = list; a && i < k; a = a->next, i++) {
			if (i && delim) {
				if (dlit) {
					fmt_literal(&fmt, &flen, &cap, x->args->str,
						    x->args->len);
				} else {
					fmt_append(&fmt, &flen, &cap, "%s", 2);
					v[n++] = dv;
				}
			}
			if (tmp[i].type == TYPE_STRING && a->kind == E_STR) {
				fmt_literal(&fmt, &flen, &cap, a->str, a->len);
				continue;
			}
			if (a->kind == E_NUM) {
				char num[24];
				int nl = snprintf(num, sizeof(num), "%lld",
						 (long long)a->num);

				fmt_literal(&fmt, &flen, &cap, num, (size_t)nl);
				continue;
			}
			fmt_append(&fmt, &flen, &cap,
				   tmp[i].type == TYPE_STRING ? "%s" : "%d", 2);
			v[n++] = tmp[i];
		}
	}
	free(tmp);
	if (ln)
		fmt_append(&fmt, &flen, &cap, "\n", 1);
	if (!fmt)
		fmt_append(&fmt, &flen, &cap, "", 0);
	/* the common single-value cases need no format */
	if (n == 1 && flen == 2 && !dst && v[0].type == TYPE_LONG)
		out(b, "tp_print_long(c, %s);", v[0].c);
	else if (n == 1 && flen == 2 && !dst)
		out(b, "tp_print(c, %s);", v[0].c);
	else if (n == 1 && flen == 2 && v[0].type == TYPE_LONG)
		out(b, "tp_str_long(%s, %s);", dst, v[0].c);
	else if (n == 1 && flen == 2)
		out(b, "tp_str_copy(%s, %s);", dst, v[0].c);
	else
		print_formatted(b, fmt, flen, v, n, dst);
	free(fmt);
	free(v);
}

/* ---- expressions ---- */

/* A value for a test (if, while): without outer parentheses. */
struct val emit_cond(struct body *b, struct expr *x)
{
	struct val v = emit_expr(b, x);

	v.c = bare(b->em, v.c);
	return v;
}

struct val emit_expr(struct body *b, struct expr *x)
{
	struct em *em = b->em;

	switch (x->kind) {
	case E_NUM:
		return mkval(num_literal(em, x->num), TYPE_LONG, true);
	case E_STR:
		return mkval(c_string(em, x->str, x->len), TYPE_STRING, true);
	case E_VAR: {
		struct symbol *sym = x->ref;

		if (!sym || sym->type == TYPE_STATS || (sym->global &&
							sym->arity > 0)) {
			em_error(em, &x->loc, "'%s' cannot be used as a value "
				 "here", x->str);
			return mkval("0", TYPE_LONG, true);
		}
		{
			struct val v = mkval(scalar_ref(b, x, false), sym->type,
					     false);

			v.local = !sym->global;
			return v;
		}
	}
	case E_INDEX:
		return emit_index_read(b, x);
	case E_IN:
		return emit_in(b, x);
	case E_CALL:
		if (!x->ref) {
			const char *t = NULL;

			if (x->str[0] == 's')
				t = tmp_new(b, TMP_STR);
			emit_print_call(b, x, t);
			return t ? mkval(t, TYPE_STRING, true) :
				   mkval("0", TYPE_LONG, true);
		}
		return emit_call(b, x, false);
	case E_BINARY:
		return emit_binary(b, x);
	case E_UNARY:
		return emit_unary(b, x);
	case E_CREMENT:
		return emit_crement(b, x);
	case E_TERNARY:
		return emit_ternary(b, x);
	case E_ASSIGN:
		return emit_assign(b, x);
	case E_EMBEDDED: {
		const char *t;

		if (x->type == TYPE_STRING) {
			t = tmp_new(b, TMP_STR);
			out(b, "tp_str_copy(%s, (%s));", t, x->str);
		} else {
			t = tmp_new(b, TMP_LONG);
			out(b, "%s = (s64)(%s);", t, x->str);
		}
		return mkval(t, x->type == TYPE_STRING ? TYPE_STRING :
			     TYPE_LONG, true);
	}
	case E_STAT:
		return emit_stat_op(b, x);
	case E_BUCKET:
		return emit_bucket(b, x);
	case E_AT:
		if (x->op == AT_OP_DEFINED) {
			const struct expr *a = x->args;
			bool target = a && (a->kind == E_TARGET ||
					    a->kind == E_CTXVAR ||
					    a->kind == E_CAST ||
					    a->kind == E_ATVAR ||
					    a->kind == E_AUTOCAST);

			return mkval(target ? "0" : "1", TYPE_LONG, true);
		}
		if (x->op == AT_OP_ENTRY)
			return emit_dwarf_entry(b, x);
		if (x->op == AT_OP_CONST)	/* -g: a C constant, as is */
			return mkval(em_printf(em, "((s64)(%.*s))",
					       (int)x->args->len, x->args->str),
				     TYPE_LONG, true);
		em_error(em, &x->loc, "'@%s' cannot be translated yet",
			 ast_atop_name(x->op));
		return mkval("0", x->type == TYPE_STRING ? TYPE_STRING :
			     TYPE_LONG, true);
	case E_HIST:
		em_error(em, &x->loc, "a histogram can only be printed or "
			 "iterated over");
		return mkval("0", TYPE_LONG, true);
	case E_TARGET:
		if (b->probe && b->probe->procfs)
			return emit_procfs_value(b);
		/* fall through */
	case E_CTXVAR:
	case E_CAST:
	case E_ATVAR:
	case E_AUTOCAST:
		return emit_dwarf_target(b, x);
	case E_WILD:
	default:
		em_error(em, &x->loc, "'*' cannot be used as a value");
		return mkval("0", TYPE_LONG, true);
	}
}
