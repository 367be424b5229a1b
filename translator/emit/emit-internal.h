/* emit-internal.h - state shared by the files of pass 3.
 *
 *   emit.c         the program: analysis, frames, functions, probes, the
 *                  module description
 *   emit-stmt.c    statements, the action budget (MAXACTION), try/catch
 *   emit-expr.c    expressions, calls, the print family
 *   emit-global.c  globals: scalars, arrays, statistics, foreach, delete,
 *                  initialization, module parameters, print at exit
 *
 * A body (probe handler or function) is written to a buffer first, so
 * that its frame (locals and temporaries) can be declared before it. An
 * expression is emitted as C statements plus a value: a C expression that
 * is cheap and free of side effects, valid until the end of the script
 * statement that contains it.
 */
#ifndef TAPIR_EMIT_INTERNAL_H
#define TAPIR_EMIT_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "elaborate/elab-internal.h"
#include "emit.h"

/* Kinds of temporaries in a frame. */
enum tmp_kind {
	TMP_LONG,	/* s64 __lN */
	TMP_STR,	/* char __sN[MAXSTRINGLEN] */
	TMP_PTR,	/* const char *__pN */
	TMP_CELL,	/* s64 __cN[...]: a merged statistics cell */
	TMP_ARGS,	/* struct tp_arg __aN[...]: a long print's arguments */
	TMP__COUNT
};

/* What the emitter knows about one global. */
struct gvar {
	struct symbol *sym;
	const char *cname;		/* g_NAME */
	int index;			/* in em->globals: lock order */
	int shift;			/* @variance bit shift */
	bool shift_set;
	bool variance;			/* some @variance reads it */
	bool param;			/* a module parameter */
	int first_use;			/* order of first mention in the
					 * probes, then the functions */
};

/* What the emitter knows about one script function. */
struct fninfo {
	struct function *fn;
	const char *cname;		/* fn_NAME */
	enum vtype type;		/* of the value it returns */
	bool embedded;
	bool called;			/* some emitted code calls it */
	bool has_loops;			/* charges actions itself */
	bool uses_next;			/* `next`: try the next overload */
	bool may_fail;			/* can set c->last_error */
	bool may_abort;			/* can call tapir_abort() */
	int state;			/* 0 new, 1 being emitted, 2 done */
	int actions;			/* charged to callers (loop-free) */
	struct body *body;		/* its emitted body */
};

/* Where a failure jumps to. */
struct errtarget {
	const char *label;		/* NULL: return from the body */
	bool used;
	struct errtarget *outer;
};

struct loopctx {
	int id;
	bool brk_used, cont_used;
	bool c_loop;			/* a C loop: break/continue work */
	struct loopctx *outer;
};

struct body {
	struct em *em;
	const char *name;		/* probe_N / fn_NAME */
	struct dprobe *probe;		/* or NULL */
	struct fninfo *fn;		/* or NULL */
	struct symbol *locals;
	FILE *o;			/* the body's text */
	char *text;
	size_t len;
	int ind;			/* indentation, in tabs */

	int ntmp[TMP__COUNT], maxtmp[TMP__COUNT];
	int *cellwords;			/* per cell temporary, its size */
	int ncellcap;
	int *argcount;			/* per arguments temporary, its size */
	int nargcap;

	struct errtarget *err;		/* innermost failure target */
	struct loopctx *loop;
	int labels;

	/* the action budget (as SystemTap counts it) */
	bool flush_mode;		/* the body has loops */
	int pending;			/* actions not yet charged */
	int total;			/* loop-free: all actions */

	/* globals touched: 0 none, 1 read, 2 write; functions called */
	unsigned char *use;
	struct fninfo **calls;
	int ncalls;
};

struct em {
	struct session *s;
	struct program *prog;
	int errors;

	struct gvar **globals;		/* declaration order */
	int nglobals;
	struct fninfo **fns;
	int nfns;
	/* pointer -> info */
	const void **pkeys;
	void **pvals;
	size_t pcap, pcount;

	/* names */
	const char **cnames;
	int ncnames, capcnames;

	/* sorted foreach loops need an index buffer each */
	struct {
		const char *map;	/* g_NAME */
	} *idxbufs;
	int nidx;

	int nprobes_emitted;

	/* the regexes of =~ and !~ (struct rx_prog), emitted as tpg_re_N */
	struct em_regex {
		const struct rx_prog *prog;
		const char *where;	/* "t.stp:3:14" */
		const char *text;	/* the literal, as C */
	} *regexes;
	int nregexes;
};

/* A value: a C expression of a script type. */
struct val {
	const char *c;
	enum vtype type;
	bool stable;		/* a literal or a temporary: later side effects
				 * of the same statement cannot change it */
	bool local;		/* a local variable: only assignments in this
				 * body can change it */
};

/* emit-expr.c */
struct rx_prog;
void emit_regex_tables(struct em *em, FILE *o);
void emit_regex_frame(struct em *em, FILE *o);

/* emit.c */
const char *em_printf(struct em *em, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void em_error(struct em *em, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void *em_lookup(struct em *em, const void *key);
struct gvar *em_global(struct em *em, const struct symbol *sym);
struct fninfo *em_fn(struct em *em, const struct function *fn);
void em_emit_function(struct em *em, struct fninfo *fi);
const char *c_string(struct em *em, const char *s, size_t len);
const char *near_text(struct em *em, const char *kind, const char *text,
		      const struct loc *l);
const char *loc_text(struct em *em, const struct loc *l);

/* output helpers (emit.c) */
void out(struct body *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void out_raw(struct body *b, const char *text);
const char *tmp_new(struct body *b, enum tmp_kind k);
const char *cell_tmp(struct body *b, const struct gvar *g);
/* An arguments temporary of n struct tp_arg. */
const char *args_tmp(struct body *b, int n);
void err_jump(struct body *b);
void use_global(struct body *b, const struct gvar *g, bool write);
void use_global_add(struct body *b, const struct gvar *g);
void capture_begin(struct body *b, FILE **saved, char **buf, size_t *len);
char *capture_end(struct body *b, FILE *saved, char **buf, size_t *len);
void out_captured(struct body *b, const char *text);

/* emit-stmt.c */
void emit_stmt(struct body *b, struct stmt *st);
void record_actions(struct body *b, int n, const char *near, bool update);
const char *stmt_near(struct em *em, const struct stmt *st);
const char *expr_first_near(struct em *em, const struct expr *x);
const char *expr_near(struct em *em, const struct expr *x);
bool stmt_has_loops(const struct stmt *st);
bool stmt_has_next(const struct stmt *st);
bool stmt_returns_value(const struct stmt *st);

/* emit-expr.c */
struct val emit_expr(struct body *b, struct expr *x);
struct val materialize(struct body *b, struct val v);
struct val protect(struct body *b, struct val v, const struct expr *later);
struct val emit_cond(struct body *b, struct expr *x);
bool has_side_effects(const struct expr *x);
void emit_print_call(struct body *b, struct expr *x, const char *dst);
const char *local_ref(struct body *b, const struct symbol *sym);
void assign_to(struct body *b, const char *dst, enum vtype t, struct val v);
const char *keys_literal(struct body *b, struct expr *args,
			 const struct symbol *arr, struct val *keys, int n);
int eval_keys(struct body *b, struct expr *args, struct val *keys,
	      bool allow_wild, unsigned *wild, bool last_in_place);

/* emit-global.c */
void emit_globals_decl(struct em *em, FILE *o);
void emit_globals_init(struct em *em, FILE *o);
void emit_globals_params(struct em *em, FILE *o);
struct val emit_index_read(struct body *b, struct expr *x);
struct val emit_index_assign(struct body *b, struct expr *x);
struct val arith(struct body *b, const struct expr *x, int op, struct val a,
		 struct val v, const char *opname);
struct val mkval(const char *c, enum vtype t, bool stable);
struct val emit_stat_op(struct body *b, struct expr *x);
struct val emit_bucket(struct body *b, struct expr *x);
struct val emit_in(struct body *b, struct expr *x);
void emit_agg_add(struct body *b, struct expr *target, struct val v);
void emit_delete(struct body *b, struct stmt *st);
void emit_foreach(struct body *b, struct stmt *st);
/* A probe table entry's kprobe fields: .symbol (when symbol is not
 * NULL), .offset (when offset is not NULL), .module, .is_return,
 * .maxactive, .optional. */
void emit_kprobe_fields(struct em *em, const struct dprobe *p,
			const char *symbol, const unsigned long long *offset,
			FILE *o);

/* print(@hist_*(s)), or with dst (a string buffer) sprint()'s */
void emit_hist_print(struct body *b, struct expr *h, struct expr *call,
		     const char *dst);
const char *overflow_text(struct em *em, const struct symbol *sym);
const char *stat_cell_of(struct body *b, struct expr *target);
void emit_print_at_exit(struct body *b, struct gvar *g);

/* emit-dwarf.c: DWARF probes and target variables */
struct val emit_dwarf_target(struct body *b, struct expr *x);
struct val emit_dwarf_entry(struct body *b, struct expr *x);
struct val emit_dwarf_assign(struct body *b, struct expr *x);
void emit_dwarf_include(struct em *em, FILE *o);
void emit_dwarf_probe_code(struct em *em, struct body *b, const char *handler,
			   FILE *o);
void emit_dwarf_probe_fields(struct em *em, struct body *b,
			     const struct dprobe *p, const char *handler,
			     FILE *o);
/* The symbols that locate global variables (before the probes), and
 * the struct tp_module fields of their table (at the end). */
void emit_dwarf_relocs(struct em *em, FILE *o);
void emit_dwarf_module_fields(struct em *em, FILE *o);

/* emit-trace.c: kernel.trace handlers, declared before the probe table
 * and defined after it, and the table entry's fields */
void emit_trace_handler_decl(const struct dprobe *p, const char *handler,
			     FILE *o);
void emit_trace_handler_def(const struct dprobe *p, const char *handler,
			    int index, const char *light_may_fail, FILE *o);
void emit_trace_fields(struct em *em, const struct dprobe *p,
		       const char *handler, FILE *o);

/* emit-usym.c: the user-space binaries' symbol and unwind tables, for
 * a program calling embedded C that says pragma:usyms */
void emit_usym_tables(struct em *em, FILE *o);
void emit_kline_table(struct em *em, FILE *o);
void emit_usym_module_fields(struct em *em, FILE *o);

#endif
