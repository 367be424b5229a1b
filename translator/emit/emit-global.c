/* emit-global.c - globals: scalars, arrays, statistics, foreach, delete,
 * their initialization, module parameters and the print at exit of
 * globals that are written but never read.
 *
 * Arrays are struct tp_map (runtime/map.h) with a constant descriptor;
 * statistics are struct tp_stat (runtime/stat.h): one cell per CPU, read
 * by merging them into a cell of the frame. Every global has a lock in
 * tpg_locks; a probe lists the locks of what it and its callees touch.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "emit-internal.h"

static const char *type_key(enum vtype t)
{
	return t == TYPE_STRING ? "TP_KEY_STRING" : "TP_KEY_LONG";
}

static const char *stat_desc(struct em *em, const struct gvar *g)
{
	return em_printf(em, "%s_stat", g->cname);
}

const char *overflow_text(struct em *em, const struct symbol *sym)
{
	if (sym->size)
		return em_printf(em, "Array overflow, check size limit (%lld)",
				 (long long)sym->size);
	return "Array overflow, check MAXMAPENTRIES";
}

static bool is_array(const struct symbol *sym)
{
	return sym->arity > 0;
}

/* ---- declarations ---- */

static void stat_desc_decl(struct em *em, const struct gvar *g, FILE *o)
{
	const struct expr *h = g->sym->hist;

	fprintf(o, "static const struct tp_stat_desc %s = {\n", stat_desc(em, g));
	if (h && h->op == HIST_LOG) {
		fputs("\t.hist = TP_HIST_LOG,\n", o);
	} else if (h) {
		fprintf(o, "\t.hist = TP_HIST_LINEAR,\n\t.lo = %lldLL,\n"
			"\t.hi = %lldLL,\n\t.width = %lldLL,\n",
			(long long)h->args->num, (long long)h->args->next->num,
			(long long)h->args->next->next->num);
	} else {
		fputs("\t.hist = TP_HIST_NONE,\n", o);
	}
	if (g->shift)
		fprintf(o, "\t.bit_shift = %d,\n", g->shift);
	if (!g->variance)
		fputs("\t.no_variance = true,\n", o);
	fputs("};\n", o);
}

/* The initial value of a scalar: -G, the declaration's, or none. */
static const char *initial_value(struct em *em, const struct gvar *g)
{
	const struct expr *init = g->sym->decl ? g->sym->decl->init : NULL;

	if (!init)
		return NULL;
	if (init->kind == E_STR)
		return c_string(em, init->str, init->len);
	if (init->num == INT64_MIN)
		return "S64_MIN";
	return em_printf(em, "%lldLL", (long long)init->num);
}

void emit_globals_decl(struct em *em, FILE *o)
{
	if (!em->nglobals && !em->nidx)
		return;
	fputs("/* ---- globals ---- */\n\n", o);
	for (int i = 0; i < em->nglobals; i++) {
		struct gvar *g = em->globals[i];
		struct symbol *sym = g->sym;
		const char *init;

		fprintf(o, "/* global %s at %s */\n", sym->name,
			loc_text(em, &sym->loc));
		if (sym->type == TYPE_STATS)
			stat_desc_decl(em, g, o);
		if (is_array(sym)) {
			fprintf(o, "static const struct tp_map_desc %s_desc = {\n"
				"\t.nkeys = %d,\n\t.keys = { ", g->cname,
				sym->arity);
			for (int k = 0; k < sym->arity; k++)
				fprintf(o, "%s%s", k ? ", " : "",
					type_key(sym->key[k]));
			fprintf(o, " },\n\t.val = %s,\n",
				sym->type == TYPE_STRING ? "TP_VAL_STRING" :
				sym->type == TYPE_STATS ? "TP_VAL_STAT" :
				"TP_VAL_LONG");
			if (sym->type == TYPE_STATS)
				fprintf(o, "\t.stat = &%s,\n", stat_desc(em, g));
			if (sym->size)
				fprintf(o, "\t.capacity = %lld,\n",
					(long long)sym->size);
			else
				fputs("\t.capacity = MAXMAPENTRIES,\n", o);
			if (sym->wrap)
				fputs("\t.wrap = true,\n", o);
			fprintf(o, "};\nstatic struct tp_map %s __maybe_unused;\n\n",
				g->cname);
			continue;
		}
		if (sym->type == TYPE_STATS) {
			fprintf(o, "static struct tp_stat %s __maybe_unused;\n\n",
				g->cname);
			continue;
		}
		init = initial_value(em, g);
		if (sym->type == TYPE_STRING)
			fprintf(o, "static char %s[MAXSTRINGLEN] __maybe_unused%s%s;"
				"\n\n", g->cname, init ? " = " : "",
				init ? init : "");
		else
			fprintf(o, "static s64 %s __maybe_unused%s%s;\n\n",
				g->cname, init ? " = " : "", init ? init : "");
	}
	for (int i = 0; i < em->nidx; i++)
		fprintf(o, "/* the order of a sorted foreach over %s */\n"
			"static u32 *tpg_idx_%d;\n\n", em->idxbufs[i].map, i);
	if (!em->nglobals)
		return;
	fputs("/* One lock per global, in this order (the order probes take "
	      "them in). */\nstatic struct {\n", o);
	for (int i = 0; i < em->nglobals; i++)
		fprintf(o, "\tstruct tp_global_lock %s;\n", em->globals[i]->cname);
	fputs("} tpg_locks __maybe_unused = {\n", o);
	for (int i = 0; i < em->nglobals; i++)
		fprintf(o, "\t.%s = TP_GLOBAL_LOCK_INIT(tpg_locks.%s),\n",
			em->globals[i]->cname, em->globals[i]->cname);
	fputs("};\n\n", o);
}

/* Allocation at load, release at unload, unwinding on failure. */
void emit_globals_init(struct em *em, FILE *o)
{
	const char **undo = calloc((size_t)(em->nglobals + em->nidx) + 1,
				   sizeof(*undo));
	const char **label = calloc((size_t)(em->nglobals + em->nidx) + 1,
				    sizeof(*label));
	int n = 0;

	if (!undo || !label)
		abort();
	fputs("static int tpg_init_globals(void)\n{\n", o);
	for (int i = 0; i < em->nglobals; i++) {
		const struct gvar *g = em->globals[i];

		if (is_array(g->sym) || g->sym->type == TYPE_STATS)
			n++;
	}
	if (n + em->nidx)
		fputs("\tint rc;\n\n", o);
	n = 0;
	for (int i = 0; i < em->nglobals; i++) {
		const struct gvar *g = em->globals[i];
		bool arr = is_array(g->sym);

		if (!arr && g->sym->type != TYPE_STATS)
			continue;
		if (arr)
			fprintf(o, "\trc = tp_map_init(&%s, &%s_desc);\n", g->cname,
				g->cname);
		else
			fprintf(o, "\trc = tp_stat_init(&%s, &%s);\n", g->cname,
				stat_desc(em, g));
		fprintf(o, "\tif (rc)\n\t\tgoto %s;\n", n ? label[n - 1] : "out");
		undo[n] = em_printf(em, "%s(&%s);", arr ? "tp_map_free" :
				    "tp_stat_free", g->cname);
		label[n] = em_printf(em, "free_%s", g->cname);
		n++;
	}
	for (int i = 0; i < em->nidx; i++) {
		fprintf(o, "\ttpg_idx_%d = tp_zalloc(sizeof(u32) * %s_desc.capacity);\n"
			"\tif (!tpg_idx_%d) {\n\t\trc = -ENOMEM;\n\t\tgoto %s;\n\t}\n",
			i, em->idxbufs[i].map, i, n ? label[n - 1] : "out");
		undo[n] = em_printf(em, "tp_free(tpg_idx_%d);", i);
		label[n] = em_printf(em, "free_idx_%d", i);
		n++;
	}
	fputs("\treturn 0;\n", o);
	if (n) {
		for (int i = n - 2; i >= 0; i--)
			fprintf(o, "%s:\n\t%s\n", label[i], undo[i]);
		fputs("out:\n\treturn rc;\n", o);
	}
	fputs("}\n\nstatic void tpg_free_globals(void)\n{\n", o);
	for (int i = n - 1; i >= 0; i--)
		fprintf(o, "\t%s\n", undo[i]);
	fputs("}\n\n", o);
	free(undo);
	free(label);
}

/* Names a module parameter cannot have: object-like kernel macros. */
static bool param_name_ok(const char *name)
{
	static const char *const bad[] = {
		"current", "NULL", "true", "false", "bool", "jiffies", NULL
	};
	bool upper = true;

	for (int i = 0; bad[i]; i++)
		if (strcmp(name, bad[i]) == 0)
			return false;
	for (const char *p = name; *p; p++)
		if (islower((unsigned char)*p))
			upper = false;
	return !upper;
}

void emit_globals_params(struct em *em, FILE *o)
{
	bool any = false;

	for (int i = 0; i < em->nglobals; i++) {
		const struct gvar *g = em->globals[i];

		if (!g->param || !param_name_ok(g->sym->name))
			continue;
		if (!any)
			fputs("/* Globals the loader may set: tapir-run MODULE.ko "
			      "NAME=VALUE. */\n", o);
		any = true;
		if (g->sym->type == TYPE_STRING)
			fprintf(o, "module_param_string(%s, %s, MAXSTRINGLEN, 0);\n",
				g->sym->name, g->cname);
		else
			fprintf(o, "module_param_cb(%s, &param_ops_long, &%s, 0);\n",
				g->sym->name, g->cname);
	}
	if (any)
		fputc('\n', o);
}

/* ---- elements ---- */

static struct gvar *array_of(struct body *b, const struct expr *x)
{
	struct gvar *g = em_global(b->em, x->ref);

	if (!g || !is_array(g->sym)) {
		em_error(b->em, &x->loc, "'%s' is not a global array", x->str);
		return NULL;
	}
	return g;
}

/* The keys of x[...]; later: what is evaluated after them, before use. */
static const char *keys_of(struct body *b, struct expr *x, struct gvar *g,
			   bool allow_wild, unsigned *wild,
			   const struct expr *later)
{
	struct val keys[MAX_ARITY];
	int n = eval_keys(b, x->args, keys, allow_wild, wild, later == NULL);

	for (int i = 0; i < n; i++)
		keys[i] = protect(b, keys[i], later);
	return keys_literal(b, x->args, g->sym, keys, n);
}

struct val emit_index_read(struct body *b, struct expr *x)
{
	struct gvar *g = array_of(b, x);
	const char *k, *t;

	if (!g)
		return mkval("0", TYPE_LONG, true);
	if (g->sym->type == TYPE_STATS) {
		em_error(b->em, &x->loc, "an element of the statistics array "
			 "'%s' is not a value; use an extractor such as "
			 "@count", x->str);
		return mkval("0", TYPE_LONG, true);
	}
	k = keys_of(b, x, g, false, NULL, NULL);
	use_global(b, g, false);
	if (g->sym->type == TYPE_STRING) {
		t = tmp_new(b, TMP_PTR);
		out(b, "%s = tp_map_get_string(&%s, %s);", t, g->cname, k);
		return mkval(t, TYPE_STRING, false);
	}
	t = tmp_new(b, TMP_LONG);
	out(b, "%s = tp_map_get_long(&%s, %s);", t, g->cname, k);
	return mkval(t, TYPE_LONG, true);
}

static void overflow_check(struct body *b, const struct gvar *g,
			   const char *call)
{
	const char *msg = overflow_text(b->em, g->sym);

	out(b, "if (unlikely(%s)) {", call);
	out(b, "\tc->last_error = %s;", c_string(b->em, msg, strlen(msg)));
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
}

/* a[k] = v, a[k] op= v, a[k]++ and friends. */
struct val emit_index_assign(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	struct expr *lhs = x->a;
	struct gvar *g = array_of(b, lhs);
	const char *k, *near, *t;
	struct val v = mkval("1", TYPE_LONG, true);
	int op = x->kind == E_CREMENT ? (x->op == OP_INC ? OP_ADD : OP_SUB) :
		 x->op;
	bool postfix = x->kind == E_CREMENT && !x->prefix;

	if (!g)
		return mkval("0", TYPE_LONG, true);
	k = keys_of(b, lhs, g, false, NULL, x->kind == E_ASSIGN ? x->b : NULL);
	if (x->kind == E_ASSIGN) {
		v = emit_expr(b, x->b);
		/* a string of an array may be the very entry replaced */
		if (v.type == TYPE_STRING && !v.stable &&
		    strncmp(v.c, "l->__p", 6) == 0)
			v = materialize(b, v);
	}
	use_global(b, g, true);
	near = near_text(em, "identifier", lhs->str, &lhs->loc);
	out(b, "c->last_stmt = %s;", c_string(em, near, strlen(near)));
	if (op == OP_ASSIGN) {
		if (g->sym->type == TYPE_STRING)
			overflow_check(b, g, em_printf(em, "tp_map_set_string(&%s, "
						       "%s, %s)", g->cname, k, v.c));
		else
			overflow_check(b, g, em_printf(em, "tp_map_set_long(&%s, "
						       "%s, %s)", g->cname, k, v.c));
		return v;
	}
	if (op == OP_CONCAT) {
		t = tmp_new(b, TMP_STR);
		out(b, "tp_str_copy(%s, tp_map_get_string(&%s, %s));", t,
		    g->cname, k);
		out(b, "tp_str_cat(%s, %s);", t, v.c);
		overflow_check(b, g, em_printf(em, "tp_map_set_string(&%s, %s, %s)",
					       g->cname, k, t));
		return mkval(t, TYPE_STRING, true);
	}
	if (op == OP_ADD || op == OP_SUB) {
		const char *delta = op == OP_ADD ? v.c :
				    em_printf(em, "(s64)(0 - (u64)%s)", v.c);

		t = tmp_new(b, TMP_LONG);
		overflow_check(b, g, em_printf(em, "tp_map_add_long_in(&%s, "
					       "&%s_desc, %s, %s, &%s)",
					       g->cname, g->cname, k, delta, t));
		if (postfix)
			return mkval(em_printf(em, "(s64)((u64)%s %s 1)", t,
					       op == OP_ADD ? "-" : "+"),
				     TYPE_LONG, true);
		return mkval(t, TYPE_LONG, true);
	}
	{
		const char *old = tmp_new(b, TMP_LONG);
		struct val r;

		out(b, "%s = tp_map_get_long(&%s, %s);", old, g->cname, k);
		v = materialize(b, v);
		r = materialize(b, arith(b, x, op, mkval(old, TYPE_LONG, true), v,
					 NULL));
		overflow_check(b, g, em_printf(em, "tp_map_set_long(&%s, %s, %s)",
					       g->cname, k, r.c));
		return r;
	}
}

struct val emit_in(struct body *b, struct expr *x)
{
	struct gvar *g = array_of(b, x);
	unsigned wild = 0;
	const char *k, *t, *e;

	if (!g)
		return mkval("0", TYPE_LONG, true);
	k = keys_of(b, x, g, true, &wild, NULL);
	use_global(b, g, false);
	t = tmp_new(b, TMP_LONG);
	if (!wild) {
		out(b, "%s = tp_map_exists(&%s, %s);", t, g->cname, k);
		return mkval(t, TYPE_LONG, true);
	}
	e = tmp_new(b, TMP_LONG);
	out(b, "%s = 0;", t);
	out(b, "for (%s = tp_map_first(&%s); %s != TP_MAP_NONE;", e, g->cname, e);
	out(b, "     %s = tp_map_next(&%s, (u32)%s)) {", e, g->cname, e);
	out(b, "\tif (tp_map_matches(&%s, (u32)%s, %s, %uu)) {", g->cname, e, k,
	    wild);
	out(b, "\t\t%s = 1;", t);
	out(b, "\t\tbreak;");
	out(b, "\t}");
	out(b, "}");
	return mkval(t, TYPE_LONG, true);
}

/* ---- statistics ---- */

static struct gvar *stats_of(struct body *b, const struct expr *x)
{
	struct gvar *g = em_global(b->em, x->ref);

	if (!g || g->sym->type != TYPE_STATS) {
		em_error(b->em, &x->loc, "'%s' is not a statistics variable",
			 x->str ? x->str : "?");
		return NULL;
	}
	return g;
}

void emit_agg_add(struct body *b, struct expr *target, struct val v)
{
	struct em *em = b->em;
	struct gvar *g = stats_of(b, target);

	if (!g)
		return;
	if (target->kind == E_VAR) {
		use_global(b, g, false);
		out(b, "tp_stat_add_in(&%s, &%s, %s);", g->cname,
		    stat_desc(em, g), v.c);
		return;
	}
	{
		const char *k = keys_of(b, target, g, false, NULL, NULL);
		const char *near = near_text(em, "identifier", target->str,
					     &target->loc);

		use_global_add(b, g);
		out(b, "c->last_stmt = %s;", c_string(em, near, strlen(near)));
		overflow_check(b, g, em_printf(em, "tp_map_stat_add_in(&%s, "
					       "&%s_desc, %s, %s)", g->cname,
					       g->cname, k, v.c));
	}
}

/* The merged cell of a statistics scalar or array element, in a frame
 * temporary; returns a `struct tp_stat_cell *` expression. */
const char *stat_cell_of(struct body *b, struct expr *target)
{
	struct em *em = b->em;
	struct gvar *g = stats_of(b, target);
	const char *cell, *ptr;

	if (!g)
		return "NULL";
	cell = cell_tmp(b, g);
	ptr = em_printf(em, "((struct tp_stat_cell *)%s)", cell);
	if (target->kind == E_VAR) {
		/* reading excludes the probes adding to it */
		use_global(b, g, true);
		out(b, "tp_stat_read(&%s, %s);", g->cname, ptr);
		return ptr;
	}
	{
		const char *k = keys_of(b, target, g, false, NULL, NULL);
		const char *e = tmp_new(b, TMP_LONG);

		use_global(b, g, false);
		out(b, "%s = tp_map_find(&%s, %s);", e, g->cname, k);
		out(b, "if (%s != TP_MAP_NONE)", e);
		out(b, "\tmemcpy(%s, tp_map_value_stat(&%s, (u32)%s), "
		    "tp_stat_cell_size(&%s));", cell, g->cname, e,
		    stat_desc(em, g));
		out(b, "else");
		out(b, "\ttp_stat_cell_clear(&%s, %s);", stat_desc(em, g), ptr);
	}
	return ptr;
}

/* if (cond): the "empty aggregate" error near the text near */
static void empty_error(struct body *b, const char *cond, const char *near)
{
	struct em *em = b->em;

	out(b, "if (unlikely(%s)) {", cond);
	out(b, "\tc->last_error = \"empty aggregate\";");
	out(b, "\tc->last_stmt = %s;", c_string(em, near, strlen(near)));
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
}

static void empty_check(struct body *b, const struct expr *x, const char *cond)
{
	struct em *em = b->em;

	empty_error(b, cond, near_text(em, "operator", em_printf(em, "@%s",
					ast_statop_name(x->op)), &x->loc));
}

struct val emit_stat_op(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	const char *cell = stat_cell_of(b, x->a);
	struct gvar *g = em_global(em, x->a->ref);
	const char *t = tmp_new(b, TMP_LONG);

	if (!g)
		return mkval("0", TYPE_LONG, true);
	switch (x->op) {
	case STAT_COUNT:
		out(b, "%s = %s->count;", t, cell);
		break;
	case STAT_SUM:
		out(b, "%s = %s->sum;", t, cell);
		break;
	case STAT_MIN:
	case STAT_MAX:
		empty_check(b, x, em_printf(em, "%s->count == 0", cell));
		out(b, "%s = %s->%s;", t, cell, x->op == STAT_MIN ? "min" : "max");
		break;
	case STAT_AVG:
		empty_check(b, x, em_printf(em, "tp_stat_avg(%s, &%s)", cell, t));
		break;
	case STAT_VARIANCE:
		/* its descriptor keeps the running mean only when the
		 * scan before the declarations saw this @variance */
		if (!g->variance)
			em_error(em, &x->loc, "internal error: @variance of "
				 "'%s' missed by the scan", g->sym->name);
		empty_check(b, x, em_printf(em, "tp_stat_variance(&%s, %s, &%s)",
					    stat_desc(em, g), cell, t));
		break;
	}
	return mkval(t, TYPE_LONG, true);
}

struct val emit_bucket(struct body *b, struct expr *x)
{
	struct em *em = b->em;
	struct val i = emit_expr(b, x->b);
	struct gvar *g;
	const char *cell, *t;

	i = materialize(b, i);
	if (x->a->kind != E_HIST)
		return mkval("0", TYPE_LONG, true);
	g = em_global(em, x->a->a->ref);
	cell = stat_cell_of(b, x->a->a);
	if (!g)
		return mkval("0", TYPE_LONG, true);
	t = tmp_new(b, TMP_LONG);
	out(b, "if (unlikely(tp_stat_bucket(&%s, %s, %s, &%s))) {",
	    stat_desc(em, g), cell, i.c, t);
	out(b, "\tc->last_error = \"histogram index out of range\";");
	b->ind++;
	err_jump(b);
	b->ind--;
	out(b, "}");
	return mkval(t, TYPE_LONG, true);
}

/* print(@hist_*(s)): the chart; an empty statistic is an error. */
void emit_hist_print(struct body *b, struct expr *h, struct expr *call,
		     const char *dst)
{
	struct em *em = b->em;
	struct gvar *g = em_global(em, h->a->ref);
	const char *cell = stat_cell_of(b, h->a);

	if (!g)
		return;
	empty_error(b, em_printf(em, "%s->count == 0", cell),
		    near_text(em, "identifier", call->str, &call->loc));
	if (dst)
		out(b, "tp_sprint_hist(%s, &%s, %s);", dst, stat_desc(em, g), cell);
	else
		out(b, "tp_print_hist(c, &%s, %s);", stat_desc(em, g), cell);
}

/* ---- delete ---- */

void emit_delete(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	struct expr *x = st->e;
	struct symbol *sym = x->ref;
	struct gvar *g = em_global(em, sym);

	if (!sym)
		return;
	if (x->kind == E_INDEX) {
		unsigned wild = 0;
		const char *k;

		if (!(g = array_of(b, x)))
			return;
		k = keys_of(b, x, g, true, &wild, NULL);
		use_global(b, g, true);
		if (wild)
			out(b, "tp_map_delete_slice(&%s, %s, %uu);", g->cname, k,
			    wild);
		else
			out(b, "tp_map_delete(&%s, %s);", g->cname, k);
		return;
	}
	if (g) {
		use_global(b, g, true);
		if (is_array(sym))
			out(b, "tp_map_clear(&%s);", g->cname);
		else if (sym->type == TYPE_STATS)
			out(b, "tp_stat_clear(&%s);", g->cname);
		else if (sym->type == TYPE_STRING)
			out(b, "%s[0] = '\\0';", g->cname);
		else
			out(b, "%s = 0;", g->cname);
		return;
	}
	if (sym->type == TYPE_STRING)
		out(b, "%s[0] = '\\0';", local_ref(b, sym));
	else
		out(b, "%s = 0;", local_ref(b, sym));
}

/* ---- foreach ---- */

/* var = value, var being a local or a global scalar. */
static void store(struct body *b, struct expr *var, enum vtype t,
		  const char *value)
{
	struct symbol *sym = var->ref;
	struct gvar *g = em_global(b->em, sym);
	const char *dst;

	if (!sym)
		return;
	if (g) {
		use_global(b, g, true);
		dst = g->cname;
	} else {
		dst = local_ref(b, sym);
	}
	assign_to(b, dst, t, mkval(value, t, true));
}

static int new_idx(struct em *em, const char *map)
{
	em->idxbufs = realloc(em->idxbufs, (size_t)(em->nidx + 1) *
			      sizeof(*em->idxbufs));
	if (!em->idxbufs)
		abort();
	em->idxbufs[em->nidx].map = map;
	return em->nidx++;
}

static void loop_body(struct body *b, struct stmt *st, const char *near)
{
	struct loopctx loop = { .id = b->labels++, .outer = b->loop,
				.c_loop = true };

	b->loop = &loop;
	emit_stmt(b, st->body);
	record_actions(b, 0, stmt_near(b->em, st->body), true);
	b->loop = loop.outer;
	(void)near;
}

static void foreach_hist(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	struct foreach *fe = st->fe;
	struct expr *h = fe->array;
	struct gvar *g = em_global(em, h->a->ref);
	const char *near = stmt_near(em, st), *cell, *i, *lim = NULL;
	const char *val = NULL;

	if (!g)
		return;
	if (fe->limit)
		lim = materialize(b, emit_expr(b, fe->limit)).c;
	cell = stat_cell_of(b, h->a);
	i = tmp_new(b, TMP_LONG);
	if (fe->value)
		val = tmp_new(b, TMP_LONG);
	record_actions(b, 1, near, true);
	out(b, "for (%s = 0; %s < tp_stat_buckets(&%s); %s++) {", i, i,
	    em_printf(em, "%s_stat", g->cname), i);
	b->ind++;
	if (lim) {
		out(b, "if (%s >= %s)", i, lim);
		out(b, "\tbreak;");
	}
	record_actions(b, 1, near, false);
	if (fe->keys)
		store(b, fe->keys, TYPE_LONG, i);
	if (val) {
		out(b, "tp_stat_bucket(&%s_stat, %s, %s, &%s);", g->cname, cell,
		    i, val);
		store(b, fe->value, TYPE_LONG, val);
	}
	loop_body(b, st, near);
	b->ind--;
	out(b, "}");
}

static const char *agg_name(struct em *em, int agg, const struct loc *l)
{
	switch (agg) {
	case -1:
	case STAT_COUNT: return "TP_AGG_COUNT";
	case STAT_SUM: return "TP_AGG_SUM";
	case STAT_MIN: return "TP_AGG_MIN";
	case STAT_MAX: return "TP_AGG_MAX";
	case STAT_AVG: return "TP_AGG_AVG";
	/* stap 4.8 accepts @variance here but orders by @count
	 * (testsuite/run/foreach-sort-variance): same order as stap */
	case STAT_VARIANCE: return "TP_AGG_COUNT";
	default:
		em_error(em, l, "foreach cannot sort on @%s",
			 ast_statop_name(agg));
		return "TP_AGG_COUNT";
	}
}

void emit_foreach(struct body *b, struct stmt *st)
{
	struct em *em = b->em;
	struct foreach *fe = st->fe;
	struct expr *arr = fe->array;
	struct gvar *g;
	const char *near = stmt_near(em, st), *e;
	bool slice = arr->kind == E_INDEX;
	int j = 0;

	if (arr->kind == E_HIST) {
		foreach_hist(b, st);
		return;
	}
	if (!(g = array_of(b, arr)))
		return;
	if (!fe->sort_dir && !fe->limit && !slice) {
		/* insertion order, straight from the map */
		const char *t = tmp_new(b, TMP_LONG);

		use_global(b, g, false);
		record_actions(b, 1, near, true);
		out(b, "for (%s = tp_map_first(&%s); %s != TP_MAP_NONE;", t,
		    g->cname, t);
		out(b, "     %s = tp_map_next(&%s, (u32)%s)) {", t, g->cname, t);
		e = em_printf(em, "(u32)%s", t);
	} else {
		unsigned wild = 0;
		const char *k = "NULL", *lim = "-1", *n, *i;
		int id = new_idx(em, g->cname);

		if (slice)
			k = keys_of(b, arr, g, true, &wild, fe->limit);
		if (fe->limit) {
			if (fe->limit->kind == E_NUM) {
				lim = em_printf(em, "%lld", fe->limit->num < 0 ? 0 :
						(long long)fe->limit->num);
			} else {
				const char *lv = materialize(b, emit_expr(b,
							     fe->limit)).c;

				lim = em_printf(em, "%s < 0 ? 0 : %s", lv, lv);
			}
		}
		/* the index buffer is one for every CPU */
		use_global(b, g, true);
		n = tmp_new(b, TMP_LONG);
		i = tmp_new(b, TMP_LONG);
		out(b, "%s = tp_map_sort(&%s, &(const struct tp_map_sort){", n,
		    g->cname);
		out(b, "\t\t.by = %d, .dir = %d,%s .limit = %s,",
		    fe->sort_by < 0 ? 0 : fe->sort_by, fe->sort_dir,
		    g->sym->type == TYPE_STATS ? em_printf(em, " .agg = %s,",
				agg_name(em, fe->agg, &st->loc)) : "", lim);
		if (slice)
			out(b, "\t\t.keys = %s, .wild = %uu }, tpg_idx_%d);", k,
			    wild, id);
		else
			out(b, "\t\t}, tpg_idx_%d);", id);
		record_actions(b, 1, near, true);
		out(b, "for (%s = 0; %s < %s; %s++) {", i, i, n, i);
		e = em_printf(em, "tpg_idx_%d[%s]", id, i);
	}
	b->ind++;
	record_actions(b, 1, near, false);
	for (struct expr *key = fe->keys; key; key = key->next, j++) {
		if (g->sym->key[j] == TYPE_STRING)
			store(b, key, TYPE_STRING, em_printf(em,
			      "tp_map_key_string(&%s, %s, %d)", g->cname, e, j));
		else
			store(b, key, TYPE_LONG, em_printf(em,
			      "tp_map_key_long(&%s, %s, %d)", g->cname, e, j));
	}
	if (fe->value) {
		if (g->sym->type == TYPE_STRING)
			store(b, fe->value, TYPE_STRING, em_printf(em,
			      "tp_map_value_string(&%s, %s)", g->cname, e));
		else
			store(b, fe->value, TYPE_LONG, em_printf(em,
			      "tp_map_value_long(&%s, %s)", g->cname, e));
	}
	loop_body(b, st, near);
	b->ind--;
	out(b, "}");
}

/* ---- print at exit ---- */

/* An end probe printing a global the script wrote but never read, in
 * SystemTap's format: x=5, s="str", a[1,"k"]=3 (sorted by value, largest
 * first), st @count=3 @min=1 @max=5 @sum=9 @avg=3. */
void emit_print_at_exit(struct body *b, struct gvar *g)
{
	struct em *em = b->em;
	struct symbol *sym = g->sym;
	const char *name = sym->name;
	const char *pnear = near_text(em, "identifier", "printf", &sym->loc);
	const char *knear = near_text(em, "keyword", NULL, &sym->loc);
	const char *cname = c_string(em, name, strlen(name));

	if (sym->arity == 0 && sym->type == TYPE_LONG) {
		out(b, "if (tp_json_mode)");
		out(b, "\ttp_json_global(c, \"scalar\", %s, NULL, 0, "
		    "(const struct tp_arg[]){ TPG_LARG(%s) }, 1);", cname,
		    g->cname);
		out(b, "else");
		out(b, "\ttp_printf(c, %s, (const struct tp_arg[]){ TPG_LARG(%s) }, "
		    "1);", c_string(em, em_printf(em, "%s=%%d\n", name),
				    strlen(name) + 4), g->cname);
		return;
	}
	if (sym->arity == 0 && sym->type == TYPE_STRING) {
		const char *f = em_printf(em, "%s=\"%%#s\"\n", name);

		out(b, "if (tp_json_mode)");
		out(b, "\ttp_json_global(c, \"scalar\", %s, NULL, 0, "
		    "(const struct tp_arg[]){ TPG_SARG(%s) }, 1);", cname,
		    g->cname);
		out(b, "else");
		out(b, "\ttp_printf(c, %s, (const struct tp_arg[]){ TPG_SARG(%s) }, "
		    "1);", c_string(em, f, strlen(f)), g->cname);
		return;
	}
	if (sym->arity == 0) {
		const char *cell = cell_tmp(b, g);
		const char *p = em_printf(em, "((struct tp_stat_cell *)%s)", cell);
		const char *avg = tmp_new(b, TMP_LONG);
		const char *empty = em_printf(em, "%s @count=0x0\n", name);
		const char *f = em_printf(em, "%s @count=%%#d @min=%%#d @max=%%#d "
					  "@sum=%%#d @avg=%%#d\n", name);

		out(b, "tp_stat_read(&%s, %s);", g->cname, p);
		out(b, "if (tp_stat_avg(%s, &%s)) {", p, avg);
		out(b, "\tif (tp_json_mode)");
		out(b, "\t\ttp_json_global(c, \"stats\", %s, NULL, 0, "
		    "(const struct tp_arg[]){ TPG_LARG(0) }, 1);", cname);
		out(b, "\telse");
		out(b, "\t\ttp_print(c, %s);", c_string(em, empty, strlen(empty)));
		out(b, "\treturn;");
		out(b, "}");
		out(b, "if (tp_json_mode) {");
		out(b, "\ttp_json_global(c, \"stats\", %s, NULL, 0, "
		    "(const struct tp_arg[]){", cname);
		out(b, "\t\tTPG_LARG(%s->count), TPG_LARG(%s->min), "
		    "TPG_LARG(%s->max),", p, p, p);
		out(b, "\t\tTPG_LARG(%s->sum), TPG_LARG(%s) }, 5);", p, avg);
		out(b, "\treturn;");
		out(b, "}");
		out(b, "tp_printf(c, %s, (const struct tp_arg[]){", c_string(em, f,
									 strlen(f)));
		out(b, "\tTPG_LARG(%s->count), TPG_LARG(%s->min), "
		    "TPG_LARG(%s->max),", p, p, p);
		out(b, "\tTPG_LARG(%s->sum), TPG_LARG(%s) }, 5);", p, avg);
		return;
	}
	{
		int id = new_idx(em, g->cname);
		const char *n = tmp_new(b, TMP_LONG), *i = tmp_new(b, TMP_LONG);
		const char *e = em_printf(em, "tpg_idx_%d[%s]", id, i);
		char *fmt = NULL, *args = NULL, *kargs = NULL, *vargs = NULL;
		size_t flen = 0, alen = 0, klen = 0, vlen = 0;
		FILE *f = open_memstream(&fmt, &flen);
		FILE *a = open_memstream(&args, &alen);
		FILE *ka = open_memstream(&kargs, &klen);
		FILE *va = open_memstream(&vargs, &vlen);
		int nargs = 0, nvals = 1;

		if (!f || !a || !ka || !va)
			abort();
		fprintf(f, "%s[", name);
		for (int k = 0; k < sym->arity; k++) {
			fputs(k ? "," : "", f);
			if (sym->key[k] == TYPE_STRING) {
				fputs("\"%#s\"", f);
				fprintf(a, "%sTPG_SARG(tp_map_key_string(&%s, %s, %d))",
					nargs ? ", " : "", g->cname, e, k);
				fprintf(ka, "%sTPG_SARG(tp_map_key_string(&%s, %s, %d))",
					nargs ? ", " : "", g->cname, e, k);
			} else {
				fputs("%#d", f);
				fprintf(a, "%sTPG_LARG(tp_map_key_long(&%s, %s, %d))",
					nargs ? ", " : "", g->cname, e, k);
				fprintf(ka, "%sTPG_LARG(tp_map_key_long(&%s, %s, %d))",
					nargs ? ", " : "", g->cname, e, k);
			}
			nargs++;
		}
		fputs("]", f);
		if (sym->type == TYPE_STATS) {
			const char *avg = tmp_new(b, TMP_LONG);
			const char *p = em_printf(em, "tp_map_value_stat(&%s, %s)",
						  g->cname, e);

			fputs(" @count=%#d @min=%#d @max=%#d @sum=%#d @avg=%#d\n", f);
			fprintf(a, ", TPG_LARG(%s->count), TPG_LARG(%s->min), "
				"TPG_LARG(%s->max), TPG_LARG(%s->sum), TPG_LARG(%s)",
				p, p, p, p, avg);
			fprintf(va, "TPG_LARG(%s->count), TPG_LARG(%s->min), "
				"TPG_LARG(%s->max), TPG_LARG(%s->sum), TPG_LARG(%s)",
				p, p, p, p, avg);
			nargs += 5;
			nvals = 5;
			fclose(f);
			fclose(a);
			fclose(ka);
			fclose(va);
			out(b, "%s = tp_map_sort(&%s, &(const struct tp_map_sort){",
			    n, g->cname);
			out(b, "\t\t.dir = -1, .agg = TP_AGG_COUNT, .limit = -1 }, "
			    "tpg_idx_%d);", id);
			out(b, "if (tpg_actions(c, 1, %s))", c_string(em, knear,
								       strlen(knear)));
			out(b, "\treturn;");
			out(b, "for (%s = 0; %s < %s; %s++) {", i, i, n, i);
			out(b, "\tif (tpg_actions(c, 2, %s))", c_string(em, pnear,
									 strlen(pnear)));
			out(b, "\t\treturn;");
			out(b, "\ttp_stat_avg(%s, &%s);", p, avg);
		} else {
			if (sym->type == TYPE_STRING) {
				fputs("=\"%#s\"\n", f);
				fprintf(a, ", TPG_SARG(tp_map_value_string(&%s, %s))",
					g->cname, e);
				fprintf(va, "TPG_SARG(tp_map_value_string(&%s, %s))",
					g->cname, e);
			} else {
				fputs("=%d\n", f);
				fprintf(a, ", TPG_LARG(tp_map_value_long(&%s, %s))",
					g->cname, e);
				fprintf(va, "TPG_LARG(tp_map_value_long(&%s, %s))",
					g->cname, e);
			}
			nargs++;
			fclose(f);
			fclose(a);
			fclose(ka);
			fclose(va);
			out(b, "%s = tp_map_sort(&%s, &(const struct tp_map_sort){",
			    n, g->cname);
			out(b, "\t\t.dir = -1, .limit = -1 }, tpg_idx_%d);", id);
			out(b, "if (tpg_actions(c, 1, %s))", c_string(em, knear,
								       strlen(knear)));
			out(b, "\treturn;");
			out(b, "for (%s = 0; %s < %s; %s++) {", i, i, n, i);
			out(b, "\tif (tpg_actions(c, 2, %s))", c_string(em, pnear,
									 strlen(pnear)));
			out(b, "\t\treturn;");
		}
		out(b, "\tif (tp_json_mode)");
		out(b, "\t\ttp_json_global(c, \"%s\", %s, (const struct tp_arg[]){",
		    sym->type == TYPE_STATS ? "stats" : "map", cname);
		out(b, "\t\t\t%s }, %d, (const struct tp_arg[]){", kargs,
		    sym->arity);
		out(b, "\t\t\t%s }, %d);", vargs, nvals);
		out(b, "\telse");
		out(b, "\t\ttp_printf(c, %s, (const struct tp_arg[]){", c_string(em,
			fmt, flen));
		out(b, "\t\t\t%s }, %d);", args, nargs);
		out(b, "}");
		free(fmt);
		free(args);
		free(kargs);
		free(vargs);
	}
}
