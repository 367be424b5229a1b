/* ast.h - the tree every pass after parsing works on.
 *
 * Tagged unions: each kind's comment names the fields it uses. Every node
 * has a location (its principal token: the operator of a binary
 * expression, the keyword of a statement, the name of a call). Nodes are
 * allocated from the session arena and never freed singly.
 */
#ifndef TAPIR_AST_H
#define TAPIR_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct session;

enum vtype { TYPE_UNKNOWN, TYPE_LONG, TYPE_STRING, TYPE_STATS };

enum op {
	OP_NONE,
	/* binary arithmetic and logic */
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_SHL, OP_SHR, OP_USHR,
	OP_BAND, OP_BOR, OP_BXOR, OP_LAND, OP_LOR, OP_CONCAT,
	/* comparisons */
	OP_LT, OP_GT, OP_LE, OP_GE, OP_EQ, OP_NE, OP_MATCH, OP_NOMATCH,
	/* unary */
	OP_NEG, OP_PLUS, OP_NOT, OP_BNOT, OP_ADDR,
	/* assignment: OP_ASSIGN, or OP_ASSIGN + compound operator */
	OP_ASSIGN, OP_AGG,		/* =  <<< */
	OP_INC, OP_DEC,
	OP__COUNT
};

/* @-operators with a fixed meaning (E_AT). */
enum atop {
	AT_OP_ENTRY, AT_OP_DEFINED, AT_OP_PROBEWRITE, AT_OP_CONST,
	AT_OP_KREGISTER, AT_OP_UREGISTER, AT_OP_KDEREF, AT_OP_UDEREF,
	AT_OP_PERF,			/* @perf("counter") */
	AT_OP__COUNT
};

/* Statistics extractors (E_STAT) and histograms (E_HIST). */
enum statop { STAT_COUNT, STAT_SUM, STAT_MIN, STAT_MAX, STAT_AVG,
	      STAT_VARIANCE, STAT__COUNT };
enum histop { HIST_LINEAR, HIST_LOG };

/* One step of a target-variable chain: ->name or [index]. */
struct chain {
	const char *field;	/* NULL for an index step */
	struct expr *index;
	struct loc loc;
	struct chain *next;
};

enum expr_kind {
	E_NUM,		/* num */
	E_STR,		/* str, len (decoded bytes) */
	E_VAR,		/* str: a local or global scalar or array name */
	E_INDEX,	/* str: array; args: index list (E_WILD for '*') */
	E_WILD,		/* '*' in an index list */
	E_CALL,		/* str: function; args */
	E_BINARY,	/* op; a, b (OP_MATCH: b is an E_STR) */
	E_UNARY,	/* op; a */
	E_CREMENT,	/* op (OP_INC/OP_DEC), prefix; a */
	E_TERNARY,	/* a ? b : c */
	E_ASSIGN,	/* op (OP_ASSIGN, OP_AGG or a compound op); a = b */
	E_IN,		/* args: index list; str: array */
	E_EMBEDDED,	/* str: C code between %{ and %} */
	E_TARGET,	/* str: name without '$'; chain, pretty, addr */
	E_CTXVAR,	/* str: vars, locals, parms, return...; pretty */
	E_CAST,		/* a: pointer; str: type; str2: module or NULL;
			   chain, pretty, addr */
	E_ATVAR,	/* str: "name@file"; str2: module or NULL; chain, ... */
	E_AUTOCAST,	/* a: a typed value (var, call, ...); chain (starts
			   with ->), pretty, addr */
	E_AT,		/* atop; args */
	E_STAT,		/* statop; a */
	E_HIST,		/* histop; a; args: lo, hi, width for linear */
	E_BUCKET,	/* a: an E_HIST; b: bucket index */
};

struct expr {
	unsigned char kind;	/* enum expr_kind */
	unsigned char op;	/* enum op, atop, statop or histop */
	unsigned char pretty;	/* 0, 1 for $, 2 for $$; E_CALL: 1 for
				 * the pretty printer's sprintf */
	bool addr;		/* &$var */
	bool prefix;		/* ++x rather than x++ */
	unsigned char type;	/* enum vtype, set by pass 2 */
	unsigned short depth;	/* height of this subtree (bounded) */
	unsigned int len;	/* E_STR: length of str */
	struct loc loc;
	struct expr *next;	/* sibling in an argument or index list */
	union {
		int64_t num;	/* E_NUM */
		const char *str;
	};
	const char *str2;
	struct expr *a, *b, *c;
	struct expr *args;
	struct chain *chain;
	void *ref;		/* pass 2: the struct symbol or function named */
};

enum stmt_kind {
	S_BLOCK,	/* body: list */
	S_NULL,		/* ; */
	S_EXPR,		/* e */
	S_IF,		/* e; body; else_body or NULL */
	S_WHILE,	/* e; body */
	S_FOR,		/* init, e, incr (each may be NULL); body */
	S_FOREACH,	/* fe; body */
	S_BREAK, S_CONTINUE, S_NEXT,
	S_RETURN,	/* e or NULL */
	S_DELETE,	/* e: E_VAR or E_INDEX */
	S_TRY,		/* body; else_body: catch block; e: the catch
			   variable (E_VAR) or NULL */
};

struct foreach {
	struct expr *value;	/* E_VAR or NULL: v = [k] in A */
	struct expr *keys;	/* list of E_VAR */
	int nkeys;
	bool bracketed;		/* [k] rather than k */
	/* sort: 0 none; key i (1-based); -1 the value / the array */
	int sort_by;
	int sort_dir;		/* +1 ascending, -1 descending */
	struct expr *array;	/* E_VAR, E_INDEX (slice) or E_HIST */
	int agg;		/* statop for "A @sum-", or -1 */
	struct expr *limit;
};

struct stmt {
	enum stmt_kind kind;
	struct loc loc;
	struct stmt *next;
	struct expr *e, *init, *incr;
	struct stmt *body, *else_body;
	struct foreach *fe;
	const char *str;
};

/* A probe point: comp.comp(arg)... [?|!] [if (cond)] */
struct pp_comp {
	const char *name;	/* may hold * ** and {a,b} patterns */
	struct expr *arg;	/* E_NUM or E_STR, or NULL */
	struct loc loc;
	struct pp_comp *next;
};

struct probe_point {
	struct pp_comp *comps;
	bool optional, sufficient;
	struct expr *cond;
	struct loc loc;
	struct probe_point *next;
};

struct param {
	const char *name;
	enum vtype type;
	struct loc loc;
	struct param *next;
};

enum decl_kind {
	D_PROBE,	/* points; body */
	D_ALIAS,	/* names; points; body (prologue or epilogue);
			   epilogue: second block of the combined form;
			   append: '+=' */
	D_GLOBAL,	/* name; size (0: default); wrap; init (literal) */
	D_FUNCTION,	/* name; type; params; priority; body or code */
	D_EMBEDDED,	/* code */
};

struct decl {
	enum decl_kind kind;
	struct loc loc;
	struct decl *next;
	bool private_;
	const char *name;
	struct probe_point *names, *points;
	struct stmt *body, *epilogue;
	bool append;
	int64_t size;
	bool wrap;
	struct expr *init;
	enum vtype type;
	struct param *params;
	int64_t priority;
	const char *code;
};

struct script {
	const struct srcfile *file;
	struct decl *decls;
};

/* Constructors used by the grammar. */
struct expr *ast_expr(struct session *s, enum expr_kind k,
		      const struct loc *l);
struct stmt *ast_stmt(struct session *s, enum stmt_kind k,
		      const struct loc *l);
struct decl *ast_decl(struct session *s, enum decl_kind k,
		      const struct loc *l);

/* Deep copies, for derived probes that each own their body. */
struct expr *ast_clone_expr(struct session *s, const struct expr *e);
struct stmt *ast_clone_stmt(struct session *s, const struct stmt *st);

const char *ast_op_name(int op);	/* "+", "<<<", ... */
const char *ast_atop_name(int atop);	/* "entry" for @entry */
const char *ast_statop_name(int statop);
int ast_statop_lookup(const char *name, size_t len);	/* -1 if none */
const char *ast_type_name(enum vtype t);

#endif
