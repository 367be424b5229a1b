/* parser.y - the grammar of the script language.
 *
 * A pure, reentrant LALR(1) parser with locations and no conflicts. The
 * feeder (feed.c) hands it preprocessed tokens, probe-point components
 * already glued into PP_NAME. Statements need no separator, as in
 * SystemTap: an expression statement ends where no operator can continue
 * it; the STMT_END precedence below says exactly that to Bison.
 * On a syntax error the parser skips to the next top-level keyword and
 * goes on, so that one run reports every independent error.
 */
%define api.pure full
%define parse.error custom
%define lr.type canonical-lr
%define lr.default-reduction accepting
%locations
%define api.location.type {const struct loc *}
%param {struct parser *p}
%expect 0

%code requires {
#include "parse/ast.h"
#include "parse/token.h"
struct parser;

/* One alternative spelling of a probe point while braces expand. */
struct pp_alt {
	struct pp_comp *comps;
	int flags;		/* 1: ?, 2: ! written inside a brace group */
	struct pp_alt *next;
};

struct pp_alts {
	struct pp_alt *head, *tail;
	int n;
};

struct pp_list {
	struct probe_point *head, *tail;
};
}


%code {
#include <string.h>

#include "parse/feed.h"
#include "parse/lexer.h"
#include "session.h"

#define YYLLOC_DEFAULT(cur, rhs, n) \
	do { (cur) = (n) ? YYRHSLOC(rhs, 1) : YYRHSLOC(rhs, 0); } while (0)

#define S (p->s)

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p);
static void yyerror(const YYLTYPE *l, struct parser *p, const char *msg);

static void perror_at(struct parser *p, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_decl(struct parser *p, struct decl *d);
static struct expr *binary(struct parser *p, int op, struct expr *a,
			   struct expr *b, const struct loc *l);
static struct expr *grown(struct parser *p, struct expr *e);
static struct expr *assign(struct parser *p, int op, struct expr *a,
			   struct expr *b, const struct loc *l);
static struct expr *literal(struct parser *p, const struct token *t, bool neg);
static const char *name_of(struct parser *p, const struct token *t);
static struct expr *call(struct parser *p, const struct token *name,
			 struct expr *args);
static void check_embedded(struct parser *p, const struct token *t,
			   const char *what);
static struct stmt *simple(struct parser *p, enum stmt_kind k,
			   const struct loc *l, struct expr *e);
static struct expr *target(struct parser *p, struct expr *e,
			   struct chain *chain, int pretty);
static void foreach_sort(struct parser *p, struct foreach *fe, int by,
			 int dir, const struct loc *l);
static struct pp_alts pp_single(struct parser *p, struct pp_comp *c);
static void one_alias_name(struct parser *p, const struct pp_list *names,
			   const struct loc *eq);
static struct pp_alts pp_product(struct parser *p, const struct pp_alts *a,
				 const struct pp_alts *b, const struct loc *l);
static struct pp_list make_points(struct parser *p, const struct pp_alts *a,
				  int flags, struct expr *cond,
				  const struct loc *l);
static struct stmt *foreach_finish(struct parser *p, struct foreach *fe,
				   struct expr *array, int dir,
				   const struct loc *dirloc, int agg_op,
				   int agg_dir, const struct loc *agg_loc,
				   struct expr *limit, const struct loc *l);
}

%union {
	const struct token *tok;
	struct expr *expr;
	struct stmt *stmt;
	struct probe_point *pp;
	struct pp_comp *comp;
	struct chain *chain;
	struct foreach *fe;
	struct param *param;
	struct { struct expr *head, *tail; int n; } elist;
	struct { struct stmt *head, *tail; } slist;
	struct pp_list plist;
	struct pp_alts alts;
	struct { struct chain *head, *tail; } chlist;
	struct { struct param *head, *tail; } parlist;
	struct { struct expr *var; int dir; } sortvar;
	struct { int op, dir; const struct token *tok; } agg;
	int num;
}

%token END 0 "end of input"
%token <tok> IDENT "identifier" NUMBER "number" STRING "string"
%token <tok> EMBEDDED "'%{'" TVAR "target variable"
%token <tok> CTXVAR "context variable" PP_NAME "probe point name"
%token <tok> AT_CAST "'@cast'" AT_VAR "'@var'" AT_OP "@-operator"
%token <tok> AT_STAT "statistics operator" AT_HIST_LINEAR "'@hist_linear'"
%token <tok> AT_HIST_LOG "'@hist_log'" AT_UNKNOWN "unknown @-operator"
%token <tok> AT_NAME "@name"
%token <tok> PP_LBRACE "brace '{'" PP_RBRACE "brace '}'"
%token <tok> PRINT_FN "print function"
%token <tok> K_PROBE "'probe'" K_GLOBAL "'global'" K_PRIVATE "'private'"
%token <tok> K_FUNCTION "'function'" K_IF "'if'" K_ELSE "'else'"
%token <tok> K_FOR "'for'" K_FOREACH "'foreach'" K_IN "'in'"
%token <tok> K_LIMIT "'limit'" K_RETURN "'return'" K_DELETE "'delete'"
%token <tok> K_WHILE "'while'" K_BREAK "'break'" K_CONTINUE "'continue'"
%token <tok> K_NEXT "'next'" K_STRING "'string'" K_LONG "'long'"
%token <tok> K_TRY "'try'" K_CATCH "'catch'"
%token <tok> INC "'++'" DEC "'--'" ANDAND "'&&'" OROR "'||'" EQ "'=='"
%token <tok> NE "'!='" LE "'<='" GE "'>='" SHL "'<<'" SHR "'>>'"
%token <tok> USHR "'>>>'" MATCH "'=~'" NOMATCH "'!~'" AGG "'<<<'"
%token <tok> ARROW "'->'" DOLLAR "'$'" DOLLAR2 "'$$'"
%token <tok> ADD_ASSIGN "'+='" SUB_ASSIGN "'-='" MUL_ASSIGN "'*='"
%token <tok> DIV_ASSIGN "'/='" MOD_ASSIGN "'%='" SHL_ASSIGN "'<<='"
%token <tok> SHR_ASSIGN "'>>='" AND_ASSIGN "'&='" XOR_ASSIGN "'^='"
%token <tok> OR_ASSIGN "'|='" CONCAT_ASSIGN "'.='"
/* preprocessor tokens: consumed before the grammar sees the stream */
%token <tok> PP_IF "'%('" PP_THEN "'%?'" PP_ELSE "'%:'" PP_END "'%)'"
%token <tok> PP_DEFINE "'@define'" ARG_DOLLAR "'$N'" ARG_AT "'@N'"
%token <tok> ARGC_DOLLAR "'$#'" ARGC_AT "'@#'"
%token <tok> '+' '-' '*' '/' '%' '<' '>' '=' '!' '~' '&' '|' '^' '?' ':'
%token <tok> ',' ';' '.' '(' ')' '[' ']' '{' '}'

/* lowest first */
%precedence STMT_END
%precedence LOWER_THAN_ELSE
%precedence K_ELSE
%precedence ';'
%right '=' AGG ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN
       SHL_ASSIGN SHR_ASSIGN AND_ASSIGN XOR_ASSIGN OR_ASSIGN CONCAT_ASSIGN
%right '?' ':'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%precedence K_IN
%left EQ NE '<' '>' LE GE MATCH NOMATCH
%left SHL SHR USHR
%left '.'
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY '!' '~'
%precedence INC DEC
%precedence '(' '['
/* tokens that can start an expression: `return x` takes x */
%precedence IDENT NUMBER STRING EMBEDDED TVAR CTXVAR AT_CAST AT_VAR AT_OP
	    AT_STAT AT_HIST_LINEAR AT_HIST_LOG AT_UNKNOWN PRINT_FN

%type <expr> expr primary literal_value opt_expr index target hist
%type <expr> value
%type <elist> args arg_list index_list
%type <stmt> stmt block simple_stmt foreach_stmt
%type <slist> stmts
%type <plist> points point
%type <comp> component
%type <alts> pp_seq pp_elem pp_alts pp_alt
%type <chain> chain_step
%type <chlist> chain
%type <num> pretty point_flags type opt_type sort_opt
%type <param> param
%type <parlist> params param_list
%type <fe> foreach_head foreach_keys
%type <sortvar> foreach_key
%type <elist> foreach_key_list
%type <expr> point_cond foreach_limit
%type <tok> fn_priority
%type <agg> foreach_agg
%type <stmt> fn_body

%%

script
	: %empty
	| script toplevel
	;

toplevel
	: probe_decl
	| kw_global globals opt_semicolon
	| kw_private kw_global private_globals opt_semicolon
	| kw_private private_globals opt_semicolon
	| function_decl
	| kw_private function_decl
		{ p->last_decl->private_ = true; }
	| EMBEDDED
		{
			struct decl *d = ast_decl(S, D_EMBEDDED, @1);

			check_embedded(p, $1, "embedded code");
			d->code = arena_strndup(&S->arena, $1->str, $1->slen);
			add_decl(p, d);
		}
	| error
	;

opt_semicolon: %empty | ';' ;

/* Error recovery resumes reporting once a declaration has begun. */
kw_probe: K_PROBE { yyerrok; p->in_function = false; } ;
kw_global: K_GLOBAL { yyerrok; } ;
kw_private: K_PRIVATE { yyerrok; } ;
kw_function: K_FUNCTION { yyerrok; } ;

/* ---- probes and aliases ---- */

probe_decl
	: kw_probe points block
		{
			struct decl *d = ast_decl(S, D_PROBE, @1);

			d->points = $2.head;
			d->body = $3;
			add_decl(p, d);
		}
	| kw_probe points '=' points block
		{
			struct decl *d = ast_decl(S, D_ALIAS, @1);

			one_alias_name(p, &$2, @3);
			d->names = $2.head;
			d->points = $4.head;
			d->body = $5;
			add_decl(p, d);
		}
	| kw_probe points '=' points block ',' block
		{
			struct decl *d = ast_decl(S, D_ALIAS, @1);

			one_alias_name(p, &$2, @3);
			d->names = $2.head;
			d->points = $4.head;
			d->body = $5;
			d->epilogue = $7;
			add_decl(p, d);
		}
	| kw_probe points ADD_ASSIGN points block
		{
			struct decl *d = ast_decl(S, D_ALIAS, @1);

			one_alias_name(p, &$2, @3);
			d->names = $2.head;
			d->points = $4.head;
			d->body = $5;
			d->append = true;
			add_decl(p, d);
		}
	;

points
	: point
	| points ',' point	{ $$ = $1; $$.tail->next = $3.head; $$.tail = $3.tail; }
	;

/* One point as written; brace groups make it several. */
point
	: pp_seq point_flags point_cond
		{ $$ = make_points(p, &$1, $2, $3, @1); }
	;

point_flags
	: %empty	{ $$ = 0; }
	| '?'		{ $$ = 1; }
	| '!'		{ $$ = 2; }
	;

point_cond
	: %empty		{ $$ = NULL; }
	| K_IF '(' expr ')'	{ $$ = $3; }
	;

/* Alternative component sequences: a.{b,c.d}.e is a.b.e and a.c.d.e */
pp_seq
	: pp_elem
	| pp_seq '.' pp_elem	{ $$ = pp_product(p, &$1, &$3, @3); }
	;

pp_elem
	: component		{ $$ = pp_single(p, $1); }
	| PP_LBRACE pp_alts PP_RBRACE	{ $$ = $2; }
	;

pp_alts
	: pp_alt
	| pp_alts ',' pp_alt
		{
			$$ = $1;
			if ($3.head) {
				if ($$.tail)
					$$.tail->next = $3.head;
				else
					$$.head = $3.head;
				$$.tail = $3.tail;
				$$.n += $3.n;
			}
		}
	;

/* kernel.{trace("a")!, trace("b")}: flags may follow an alternative */
pp_alt
	: pp_seq point_flags
		{
			$$ = $1;
			for (struct pp_alt *a = $$.head; a; a = a->next)
				if ($2 > a->flags)
					a->flags = $2;
		}
	;

component
	: PP_NAME
		{
			$$ = ANEW(&S->arena, struct pp_comp);
			$$->name = name_of(p, $1);
			$$->loc = *@1;
		}
	| PP_NAME '(' literal_value ')'
		{
			$$ = ANEW(&S->arena, struct pp_comp);
			$$->name = name_of(p, $1);
			$$->arg = $3;
			$$->loc = *@1;
		}
	;

literal_value
	: NUMBER	{ $$ = literal(p, $1, false); }
	| '-' NUMBER	{ $$ = literal(p, $2, true); }
	| STRING	{ $$ = literal(p, $1, false); }
	;

/* ---- globals ---- */

globals
	: global
	| globals ',' global
	;

private_globals
	: private_global
	| private_globals ',' private_global
	;

private_global: global { p->last_decl->private_ = true; } ;

global
	: IDENT
		{
			struct decl *d = ast_decl(S, D_GLOBAL, @1);

			d->name = name_of(p, $1);
			add_decl(p, d);
		}
	| IDENT '=' literal_value
		{
			struct decl *d = ast_decl(S, D_GLOBAL, @1);

			d->name = name_of(p, $1);
			d->init = $3;
			add_decl(p, d);
		}
	| IDENT '[' NUMBER ']'
		{
			struct decl *d = ast_decl(S, D_GLOBAL, @1);

			d->name = name_of(p, $1);
			d->size = $3->num;
			if (d->size <= 0)
				perror_at(p, @3, "array size must be positive");
			add_decl(p, d);
		}
	| IDENT '%'
		{
			struct decl *d = ast_decl(S, D_GLOBAL, @1);

			d->name = name_of(p, $1);
			d->wrap = true;
			add_decl(p, d);
		}
	| IDENT '%' '[' NUMBER ']'
		{
			struct decl *d = ast_decl(S, D_GLOBAL, @1);

			d->name = name_of(p, $1);
			d->wrap = true;
			d->size = $4->num;
			if (d->size <= 0)
				perror_at(p, @4, "array size must be positive");
			add_decl(p, d);
		}
	;

/* ---- functions ---- */

function_decl
	: kw_function IDENT opt_type '(' params ')' fn_priority
		{
			struct decl *d = ast_decl(S, D_FUNCTION, @2);

			d->name = name_of(p, $2);
			d->type = $3;
			d->params = $5.head;
			d->priority = $7 && $7->num > 0 ? $7->num : 0;
			add_decl(p, d);
			p->in_function = true;
		}
	  fn_body
		{
			p->in_function = false;
		}
	;

fn_priority
	: %empty		{ $$ = NULL; }
	| ':' NUMBER
		{
			$$ = $2;
			if ($2->num <= 0)
				perror_at(p, @2, "specified priority must be > 0");
		}
	| ':' '-' NUMBER
		{
			$$ = NULL;
			perror_at(p, @3, "specified priority must be > 0");
		}
	;

fn_body
	: block
		{ p->last_decl->body = $1; $$ = $1; }
	| EMBEDDED
		{
			check_embedded(p, $1, "embedded code");
			p->last_decl->code = arena_strndup(&S->arena, $1->str,
							   $1->slen);
			$$ = NULL;
		}
	;

opt_type
	: %empty	{ $$ = TYPE_UNKNOWN; }
	| ':' type	{ $$ = $2; }
	;

type
	: K_LONG	{ $$ = TYPE_LONG; }
	| K_STRING	{ $$ = TYPE_STRING; }
	;

params
	: %empty	{ $$.head = $$.tail = NULL; }
	| param_list
	;

param_list
	: param			{ $$.head = $$.tail = $1; }
	| param_list ',' param
		{
			for (const struct param *q = $1.head; q; q = q->next)
				if (strcmp(q->name, $3->name) == 0)
					perror_at(p, &$3->loc, "duplicate "
						  "parameter name '%s'",
						  $3->name);
			$$ = $1;
			$$.tail->next = $3;
			$$.tail = $3;
		}
	;

param
	: IDENT opt_type
		{
			$$ = ANEW(&S->arena, struct param);
			$$->name = name_of(p, $1);
			$$->type = $2;
			$$->loc = *@1;
		}
	;

/* ---- statements ---- */

block
	: '{' stmts '}'
		{
			$$ = ast_stmt(S, S_BLOCK, @1);
			$$->body = $2.head;
		}
	;

stmts
	: %empty	{ $$.head = $$.tail = NULL; }
	| stmts stmt
		{
			$$ = $1;
			if ($$.tail)
				$$.tail->next = $2;
			else
				$$.head = $2;
			$$.tail = $2;
		}
	;

stmt
	: block
	| ';'			{ $$ = ast_stmt(S, S_NULL, @1); }
	| simple_stmt %prec STMT_END
	| simple_stmt ';'
	| K_IF '(' expr ')' stmt %prec LOWER_THAN_ELSE
		{
			$$ = ast_stmt(S, S_IF, @1);
			$$->e = $3;
			$$->body = $5;
		}
	| K_IF '(' expr ')' stmt K_ELSE stmt
		{
			$$ = ast_stmt(S, S_IF, @1);
			$$->e = $3;
			$$->body = $5;
			$$->else_body = $7;
		}
	| K_WHILE '(' expr ')' stmt
		{
			$$ = ast_stmt(S, S_WHILE, @1);
			$$->e = $3;
			$$->body = $5;
		}
	| K_FOR '(' opt_expr ';' opt_expr ';' opt_expr ')' stmt
		{
			$$ = ast_stmt(S, S_FOR, @1);
			$$->init = $3;
			$$->e = $5;
			$$->incr = $7;
			$$->body = $9;
		}
	| foreach_stmt
	| K_TRY block K_CATCH block
		{
			$$ = ast_stmt(S, S_TRY, @1);
			$$->body = $2;
			$$->else_body = $4;
		}
	| K_TRY block K_CATCH '(' IDENT ')' block
		{
			$$ = ast_stmt(S, S_TRY, @1);
			$$->body = $2;
			$$->e = ast_expr(S, E_VAR, @5);
			$$->e->str = name_of(p, $5);
			$$->else_body = $7;
		}
	;

simple_stmt
	: expr %prec STMT_END	{ $$ = simple(p, S_EXPR, @1, $1); }
	| K_BREAK		{ $$ = simple(p, S_BREAK, @1, NULL); }
	| K_CONTINUE		{ $$ = simple(p, S_CONTINUE, @1, NULL); }
	| K_NEXT		{ $$ = simple(p, S_NEXT, @1, NULL); }
	| K_RETURN %prec STMT_END
		{
			$$ = simple(p, S_RETURN, @1, NULL);
			if (!p->in_function)
				perror_at(p, @1, "found 'return' not in function context");
		}
	| K_RETURN expr %prec STMT_END
		{
			$$ = simple(p, S_RETURN, @1, $2);
			if (!p->in_function)
				perror_at(p, @1, "found 'return' not in function context");
		}
	| K_DELETE expr %prec STMT_END
		{ $$ = simple(p, S_DELETE, @1, $2); }
	;

opt_expr
	: %empty	{ $$ = NULL; }
	| expr
	;

foreach_stmt
	: K_FOREACH '(' foreach_head K_IN IDENT sort_opt foreach_agg
	  foreach_limit ')' stmt
		{
			struct expr *a = ast_expr(S, E_VAR, @5);

			a->str = name_of(p, $5);
			$$ = foreach_finish(p, $3, a, $6, @6, $7.op, $7.dir,
					    $7.tok ? &$7.tok->loc : NULL, $8, @1);
			$$->body = $10;
		}
	| K_FOREACH '(' foreach_head K_IN IDENT '[' index_list ']' sort_opt
	  foreach_agg foreach_limit ')' stmt
		{
			struct expr *a = ast_expr(S, E_INDEX, @5);

			a->str = name_of(p, $5);
			a->args = $7.head;
			$$ = foreach_finish(p, $3, a, $9, @9, $10.op, $10.dir,
					    $10.tok ? &$10.tok->loc : NULL, $11, @1);
			$$->body = $13;
		}
	| K_FOREACH '(' foreach_head K_IN hist foreach_limit ')' stmt
		{
			$$ = foreach_finish(p, $3, $5, 0, @5, -1, 0, @5, $6,
					    @1);
			$$->body = $8;
		}
	;

foreach_head
	: foreach_keys
	| IDENT sort_opt '=' foreach_keys
		{
			$$ = $4;
			$$->value = ast_expr(S, E_VAR, @1);
			$$->value->str = name_of(p, $1);
			if ($2)
				foreach_sort(p, $$, -1, $2, @2);
		}
	;

foreach_keys
	: foreach_key
		{
			$$ = ANEW(&S->arena, struct foreach);
			$$->agg = -1;
			$$->keys = $1.var;
			$$->nkeys = 1;
			if ($1.dir)
				foreach_sort(p, $$, 1, $1.dir, &$1.var->loc);
		}
	| '[' foreach_key_list ']'
		{
			int i = 1;

			$$ = ANEW(&S->arena, struct foreach);
			$$->agg = -1;
			$$->keys = $2.head;
			$$->nkeys = $2.n;
			$$->bracketed = true;
			/* the sort marker of each key waits in its op */
			for (struct expr *k = $2.head; k; k = k->next, i++)
				if (k->op) {
					foreach_sort(p, $$, i, k->op == 1 ? 1 : -1,
						     &k->loc);
					k->op = 0;
				}
		}
	;

foreach_key_list
	: foreach_key
		{
			$$.head = $$.tail = $1.var;
			$$.n = 1;
			$1.var->op = (unsigned char)($1.dir == 1 ? 1 : $1.dir ? 2 : 0);
		}
	| foreach_key_list ',' foreach_key
		{
			$$ = $1;
			$$.tail->next = $3.var;
			$$.tail = $3.var;
			$$.n++;
			$3.var->op = (unsigned char)($3.dir == 1 ? 1 : $3.dir ? 2 : 0);
		}
	;

foreach_key
	: IDENT sort_opt
		{
			$$.var = ast_expr(S, E_VAR, @1);
			$$.var->str = name_of(p, $1);
			$$.dir = $2;
		}
	;

sort_opt
	: %empty	{ $$ = 0; }
	| '+'		{ $$ = 1; }
	| '-'		{ $$ = -1; }
	;

foreach_agg
	: %empty	{ $$.op = -1; $$.dir = 0; $$.tok = NULL; }
	| AT_STAT '+'	{ $$.op = (int)$1->num; $$.dir = 1; $$.tok = $1; }
	| AT_STAT '-'	{ $$.op = (int)$1->num; $$.dir = -1; $$.tok = $1; }
	;

foreach_limit
	: %empty	{ $$ = NULL; }
	| K_LIMIT expr	{ $$ = $2; }
	;

/* ---- expressions ---- */

expr
	: expr '=' expr			{ $$ = assign(p, OP_ASSIGN, $1, $3, @2); }
	| expr AGG expr			{ $$ = assign(p, OP_AGG, $1, $3, @2); }
	| expr ADD_ASSIGN expr		{ $$ = assign(p, OP_ADD, $1, $3, @2); }
	| expr SUB_ASSIGN expr		{ $$ = assign(p, OP_SUB, $1, $3, @2); }
	| expr MUL_ASSIGN expr		{ $$ = assign(p, OP_MUL, $1, $3, @2); }
	| expr DIV_ASSIGN expr		{ $$ = assign(p, OP_DIV, $1, $3, @2); }
	| expr MOD_ASSIGN expr		{ $$ = assign(p, OP_MOD, $1, $3, @2); }
	| expr SHL_ASSIGN expr		{ $$ = assign(p, OP_SHL, $1, $3, @2); }
	| expr SHR_ASSIGN expr		{ $$ = assign(p, OP_SHR, $1, $3, @2); }
	| expr AND_ASSIGN expr		{ $$ = assign(p, OP_BAND, $1, $3, @2); }
	| expr XOR_ASSIGN expr		{ $$ = assign(p, OP_BXOR, $1, $3, @2); }
	| expr OR_ASSIGN expr		{ $$ = assign(p, OP_BOR, $1, $3, @2); }
	| expr CONCAT_ASSIGN expr	{ $$ = assign(p, OP_CONCAT, $1, $3, @2); }
	| expr '?' expr ':' expr
		{
			$$ = ast_expr(S, E_TERNARY, @2);
			$$->a = $1;
			$$->b = $3;
			$$->c = $5;
			$$ = grown(p, $$);
		}
	| expr OROR expr		{ $$ = binary(p, OP_LOR, $1, $3, @2); }
	| expr ANDAND expr		{ $$ = binary(p, OP_LAND, $1, $3, @2); }
	| expr '|' expr			{ $$ = binary(p, OP_BOR, $1, $3, @2); }
	| expr '^' expr			{ $$ = binary(p, OP_BXOR, $1, $3, @2); }
	| expr '&' expr			{ $$ = binary(p, OP_BAND, $1, $3, @2); }
	| expr K_IN IDENT
		{
			$$ = ast_expr(S, E_IN, @2);
			$$->args = $1;
			$$->str = name_of(p, $3);
		}
	| '[' index_list ']' K_IN IDENT
		{
			$$ = ast_expr(S, E_IN, @4);
			$$->args = $2.head;
			$$->str = name_of(p, $5);
		}
	| expr EQ expr			{ $$ = binary(p, OP_EQ, $1, $3, @2); }
	| expr NE expr			{ $$ = binary(p, OP_NE, $1, $3, @2); }
	| expr '<' expr			{ $$ = binary(p, OP_LT, $1, $3, @2); }
	| expr '>' expr			{ $$ = binary(p, OP_GT, $1, $3, @2); }
	| expr LE expr			{ $$ = binary(p, OP_LE, $1, $3, @2); }
	| expr GE expr			{ $$ = binary(p, OP_GE, $1, $3, @2); }
	| expr MATCH STRING
		{ $$ = binary(p, OP_MATCH, $1, literal(p, $3, false), @2); }
	| expr NOMATCH STRING
		{ $$ = binary(p, OP_NOMATCH, $1, literal(p, $3, false), @2); }
	| expr SHL expr			{ $$ = binary(p, OP_SHL, $1, $3, @2); }
	| expr SHR expr			{ $$ = binary(p, OP_SHR, $1, $3, @2); }
	| expr USHR expr		{ $$ = binary(p, OP_USHR, $1, $3, @2); }
	| expr '.' expr			{ $$ = binary(p, OP_CONCAT, $1, $3, @2); }
	| expr '+' expr			{ $$ = binary(p, OP_ADD, $1, $3, @2); }
	| expr '-' expr			{ $$ = binary(p, OP_SUB, $1, $3, @2); }
	| expr '*' expr			{ $$ = binary(p, OP_MUL, $1, $3, @2); }
	| expr '/' expr			{ $$ = binary(p, OP_DIV, $1, $3, @2); }
	| expr '%' expr			{ $$ = binary(p, OP_MOD, $1, $3, @2); }
	| '-' expr %prec UNARY
		{
			if ($2->kind == E_NUM) {
				/* -5 is a literal, so that printing
				 * round-trips */
				$$ = $2;
				$$->num = (int64_t)(0 - (uint64_t)$2->num);
				$$->loc = *@1;
			} else {
				$$ = ast_expr(S, E_UNARY, @1);
				$$->op = OP_NEG;
				$$->a = $2;
				$$ = grown(p, $$);
			}
		}
	| '+' expr %prec UNARY
		{
			$$ = ast_expr(S, E_UNARY, @1);
			$$->op = OP_PLUS;
			$$->a = $2;
			$$ = grown(p, $$);
		}
	| '!' expr
		{
			$$ = ast_expr(S, E_UNARY, @1);
			$$->op = OP_NOT;
			$$->a = $2;
			$$ = grown(p, $$);
		}
	| '~' expr
		{
			$$ = ast_expr(S, E_UNARY, @1);
			$$->op = OP_BNOT;
			$$->a = $2;
			$$ = grown(p, $$);
		}
	/* ++ and -- apply to a primary, once: `i++` then `++i` on the next
	 * line are two statements */
	| INC primary
		{
			$$ = ast_expr(S, E_CREMENT, @1);
			$$->op = OP_INC;
			$$->prefix = true;
			$$->a = $2;
		}
	| DEC primary
		{
			$$ = ast_expr(S, E_CREMENT, @1);
			$$->op = OP_DEC;
			$$->prefix = true;
			$$->a = $2;
		}
	| primary INC
		{ $$ = ast_expr(S, E_CREMENT, @2); $$->op = OP_INC; $$->a = $1; }
	| primary DEC
		{ $$ = ast_expr(S, E_CREMENT, @2); $$->op = OP_DEC; $$->a = $1; }
	| '&' expr %prec UNARY
		{
			if (($2->kind == E_TARGET || $2->kind == E_CAST ||
			     $2->kind == E_ATVAR || $2->kind == E_AUTOCAST) &&
			    !$2->addr) {
				$$ = $2;
				$$->addr = true;
				$$->loc = *@1;
			} else if (!$2->addr) {
				/* & before any other value: the address of
				 * an autocast without members, as in stap */
				$$ = ast_expr(S, E_AUTOCAST, @1);
				$$->a = $2;
				$$->addr = true;
			} else {
				$$ = ast_expr(S, E_UNARY, @1);
				$$->op = OP_ADDR;
				$$->a = $2;
				$$ = grown(p, $$);
			}
		}
	| primary %prec STMT_END
	;

/* A value followed by ->field, [index], $ or $$ without a $var or @cast
 * before it is an autocast: its type comes from where the value was
 * assigned (stap 2.6 and later take any value here, literals too). */
primary
	: value %prec STMT_END
	| value chain_step chain pretty
		{
			$2->next = $3.head;
			$$ = ast_expr(S, E_AUTOCAST, @2);
			$$->a = $1;
			$$ = target(p, $$, $2, $4);
		}
	| value DOLLAR
		{
			$$ = ast_expr(S, E_AUTOCAST, @2);
			$$->a = $1;
			$$ = target(p, $$, NULL, 1);
		}
	| value DOLLAR2
		{
			$$ = ast_expr(S, E_AUTOCAST, @2);
			$$->a = $1;
			$$ = target(p, $$, NULL, 2);
		}
	| target
	| CTXVAR pretty
		{
			$$ = ast_expr(S, E_CTXVAR, @1);
			$$->str = arena_strndup(&S->arena, $1->text + 2,
						$1->len - 2);
			$$->pretty = (unsigned char)$2;
		}
	;

value
	: NUMBER		{ $$ = literal(p, $1, false); }
	| STRING		{ $$ = literal(p, $1, false); }
	| IDENT %prec STMT_END
		{
			$$ = ast_expr(S, E_VAR, @1);
			$$->str = name_of(p, $1);
		}
	| IDENT '[' index_list ']'
		{
			$$ = ast_expr(S, E_INDEX, @1);
			$$->str = name_of(p, $1);
			$$->args = $3.head;
		}
	| IDENT '(' args ')'	{ $$ = call(p, $1, $3.head); }
	| PRINT_FN '(' args ')'	{ $$ = call(p, $1, $3.head); }
	| '(' expr ')' %prec STMT_END	{ $$ = $2; }
	| EMBEDDED
		{
			check_embedded(p, $1, "embedded expression code");
			$$ = ast_expr(S, E_EMBEDDED, @1);
			$$->str = arena_strndup(&S->arena, $1->str, $1->slen);
		}
	| AT_STAT '(' expr ')'
		{
			$$ = ast_expr(S, E_STAT, @1);
			$$->op = (unsigned char)$1->num;
			$$->a = $3;
		}
	| AT_STAT '(' expr ',' NUMBER ')'
		{
			/* @variance(s, N): N bits of extra precision */
			$$ = ast_expr(S, E_STAT, @1);
			$$->op = (unsigned char)$1->num;
			$$->a = $3;
			$$->b = literal(p, $5, false);
			if ($1->num != STAT_VARIANCE)
				perror_at(p, @4, "only @variance takes a "
					  "second argument");
		}
	| hist %prec STMT_END
	| hist '[' expr ']'
		{
			$$ = ast_expr(S, E_BUCKET, @2);
			$$->a = $1;
			$$->b = $3;
		}
	| AT_OP '(' args ')'
		{
			static const int arity[AT_OP__COUNT] = {
				[AT_OP_KDEREF] = 2, [AT_OP_UDEREF] = 2,
			};
			int want = arity[$1->num] ? arity[$1->num] : 1;

			$$ = ast_expr(S, E_AT, @1);
			$$->op = (unsigned char)$1->num;
			$$->args = $3.head;
			if ($3.n != want)
				perror_at(p, @1, "'%.*s' takes %d argument%s, "
					  "%d given", (int)$1->len, $1->text,
					  want, want == 1 ? "" : "s", $3.n);
			else if (($1->num == AT_OP_CONST ||
				  $1->num == AT_OP_PERF) &&
				 $3.head->kind != E_STR)
				perror_at(p, &$3.head->loc, "expected literal string");
			if (($1->num == AT_OP_CONST || $1->num == AT_OP_KREGISTER ||
			     $1->num == AT_OP_KDEREF) && !S->guru &&
			    !(@1->file && @1->file->privileged))
				perror_at(p, @1, "using '%.*s' is not permitted; "
					  "need -g (guru mode)", (int)$1->len,
					  $1->text);
		}
	| AT_UNKNOWN
		{
			perror_at(p, @1, "unknown operator or macro '%.*s'",
				  (int)$1->len, $1->text);
			$$ = ast_expr(S, E_NUM, @1);
		}
	;

hist
	: AT_HIST_LINEAR '(' expr ',' expr ',' expr ',' expr ')'
		{
			$$ = ast_expr(S, E_HIST, @1);
			$$->op = HIST_LINEAR;
			$$->a = $3;
			$$->args = $5;
			$5->next = $7;
			$7->next = $9;
		}
	| AT_HIST_LOG '(' expr ')'
		{
			$$ = ast_expr(S, E_HIST, @1);
			$$->op = HIST_LOG;
			$$->a = $3;
		}
	;

target
	: TVAR chain pretty
		{
			$$ = ast_expr(S, E_TARGET, @1);
			$$->str = arena_strndup(&S->arena, $1->text + 1,
						$1->len - 1);
			$$ = target(p, $$, $2.head, $3);
		}
	| AT_CAST '(' expr ',' STRING ')' chain pretty
		{
			$$ = ast_expr(S, E_CAST, @1);
			$$->a = $3;
			$$->str = arena_strndup(&S->arena, $5->str, $5->slen);
			$$ = target(p, $$, $7.head, $8);
		}
	| AT_CAST '(' expr ',' STRING ',' STRING ')' chain pretty
		{
			$$ = ast_expr(S, E_CAST, @1);
			$$->a = $3;
			$$->str = arena_strndup(&S->arena, $5->str, $5->slen);
			$$->str2 = arena_strndup(&S->arena, $7->str, $7->slen);
			$$ = target(p, $$, $9.head, $10);
		}
	| AT_VAR '(' STRING ')' chain pretty
		{
			$$ = ast_expr(S, E_ATVAR, @1);
			$$->str = arena_strndup(&S->arena, $3->str, $3->slen);
			$$ = target(p, $$, $5.head, $6);
		}
	| AT_VAR '(' STRING ',' STRING ')' chain pretty
		{
			$$ = ast_expr(S, E_ATVAR, @1);
			$$->str = arena_strndup(&S->arena, $3->str, $3->slen);
			$$->str2 = arena_strndup(&S->arena, $5->str, $5->slen);
			$$ = target(p, $$, $7.head, $8);
		}
	;

chain
	: %empty		{ $$.head = $$.tail = NULL; }
	| chain chain_step
		{
			$$ = $1;
			if ($$.tail)
				$$.tail->next = $2;
			else
				$$.head = $2;
			$$.tail = $2;
		}
	;

chain_step
	: ARROW IDENT
		{
			$$ = ANEW(&S->arena, struct chain);
			$$->field = name_of(p, $2);
			$$->loc = *@2;
		}
	| '[' expr ']'
		{
			$$ = ANEW(&S->arena, struct chain);
			$$->index = $2;
			$$->loc = *@1;
		}
	;

pretty
	: %empty %prec STMT_END	{ $$ = 0; }
	| DOLLAR		{ $$ = 1; }
	| DOLLAR2		{ $$ = 2; }
	;

args
	: %empty	{ $$.head = $$.tail = NULL; $$.n = 0; }
	| arg_list
	;

arg_list
	: expr			{ $$.head = $$.tail = $1; $$.n = 1; }
	| arg_list ',' expr
		{ $$ = $1; $$.tail->next = $3; $$.tail = $3; $$.n++; }
	;

index_list
	: index			{ $$.head = $$.tail = $1; $$.n = 1; }
	| index_list ',' index
		{ $$ = $1; $$.tail->next = $3; $$.tail = $3; $$.n++; }
	;

index
	: expr
	| '*'		{ $$ = ast_expr(S, E_WILD, @1); }
	;

%%

static int yylex(YYSTYPE *lval, YYLTYPE *lloc, struct parser *p)
{
	const struct token *t = feed_next(p);

	lval->tok = t;
	*lloc = &t->loc;
	return t->type;
}

static void yyerror(const YYLTYPE *l, struct parser *p, const char *msg)
{
	if (strcmp(msg, "memory exhausted") == 0)
		perror_at(p, &p->cur->loc, "the script nests too deeply here "
			  "(more than %d levels)", YYMAXDEPTH / 8);
	else
		perror_at(p, *l, "%s", msg);
}

static void perror_at(struct parser *p, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(p->s, l, "parse error", fmt, ap);
	va_end(ap);
	p->s->errors++;
}

/* Names of expected tokens, with expression and statement starts folded
 * into one word each so that the list stays readable. */
static const char *expected_name(struct parser *p, yysymbol_kind_t k)
{
	const char *n = yysymbol_name(k);
	size_t len = strlen(n);

	if (len >= 2 && n[0] == '"' && n[len - 1] == '"')
		return arena_strndup(&p->s->arena, n + 1, len - 2);
	return n;
}

/* Is k one of set? Names there are written without Bison's quotes. */
static bool name_in(yysymbol_kind_t k, const char *const *set)
{
	const char *n = yysymbol_name(k);
	size_t len = strlen(n);

	if (len >= 2 && n[0] == '"' && n[len - 1] == '"') {
		n++;
		len -= 2;
	}
	for (; *set; set++)
		if (strlen(*set) == len && strncmp(n, *set, len) == 0)
			return true;
	return false;
}

static bool starts_expression(yysymbol_kind_t k)
{
	static const char *const set[] = {
		"identifier", "number", "string", "'%{'",
		"target variable", "context variable", "'@cast'", "'@var'",
		"@-operator", "statistics operator", "'@hist_linear'",
		"'@hist_log'", "unknown @-operator", "print function", "'++'",
		"'--'", "'('",
		"'-'", "'+'", "'!'", "'~'", "'&'", "'['", NULL
	};

	return name_in(k, set);
}

static bool starts_statement(yysymbol_kind_t k)
{
	static const char *const set[] = {
		"'if'", "'while'", "'for'", "'foreach'", "'break'",
		"'continue'", "'next'", "'return'", "'delete'", "'try'",
		"'{'", "';'", NULL
	};

	return name_in(k, set) || starts_expression(k);
}

/* Binary and assignment operators: folded into "operator" when many. */
static bool is_operator(yysymbol_kind_t k)
{
	static const char *const set[] = {
		"'='", "'<<<'", "'+='", "'-='", "'*='", "'/='", "'%='",
		"'<<='", "'>>='", "'&='", "'^='", "'|='", "'.='", "'?'",
		"'||'", "'&&'", "'|'", "'^'", "'&'", "'in'", "'=='", "'!='",
		"'<'", "'>'", "'<='", "'>='", "'=~'", "'!~'", "'<<'", "'>>'",
		"'>>>'", "'.'", "'+'", "'-'", "'*'", "'/'", "'%'", "'++'",
		"'--'", NULL
	};

	return name_in(k, set);
}

static bool is_postfix(yysymbol_kind_t k)
{
	static const char *const set[] = { "'->'", "'('", "'['", "'$'", "'$$'",
					   NULL };

	return name_in(k, set);
}

static int yyreport_syntax_error(const yypcontext_t *ctx, struct parser *p)
{
	yysymbol_kind_t exp[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
	const char *names[16];

	int count = 0, ops = 0;
	bool stmt = false, expr = false, ident = false, number = false;
	bool fold;
	const struct token *t = p->cur;
	char msg[512];
	size_t len = 0;

	if (t && t->type == END && t->truncated)
		return 0;	/* the lexer already explained */
	for (int i = 0; i < n; i++) {
		const char *name = expected_name(p, exp[i]);

		if (strcmp(name, "identifier") == 0)
			ident = true;
		else if (strcmp(name, "number") == 0)
			number = true;
		else if (strcmp(name, "'if'") == 0)
			stmt = true;
	}
	expr = ident && number;
	stmt = stmt && expr;
	if (stmt)
		names[count++] = "statement";
	else if (expr)
		names[count++] = "expression";
	for (int i = 0; i < n; i++)
		if (!(expr && starts_expression(exp[i])) &&
		    !(stmt && starts_statement(exp[i])) && is_operator(exp[i]))
			ops++;
	/* many operators: the previous token ended an operand, and any
	 * operator or postfix (->, (, [) could follow */
	fold = ops > 6;
	for (int i = 0; i < n && count < 12; i++) {
		if (exp[i] == YYSYMBOL_YYEOF)
			continue;
		if ((expr && starts_expression(exp[i])) ||
		    (stmt && starts_statement(exp[i])))
			continue;
		if ((fold || stmt) && (is_operator(exp[i]) ||
				       is_postfix(exp[i])))
			continue;
		names[count++] = strdup(expected_name(p, exp[i]));
	}
	/* after a complete expression statement almost any operator could
	 * continue it; naming them helps nobody */
	if (fold && !stmt)
		names[count++] = "operator";
	len = (size_t)snprintf(msg, sizeof(msg), "expected ");
	for (int i = 0; i < count && len < sizeof(msg); i++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
					i == 0 ? "" : i == count - 1 ?
					(count > 2 ? ", or " : " or ") : ", ",
					names[i]);
	if (count == 0)
		len = (size_t)snprintf(msg, sizeof(msg), "unexpected token");
	perror_at(p, &t->loc, "%s, saw %s", msg, token_describe(p->s, t));
	for (int i = 0; i < count; i++)
		if (strcmp(names[i], "statement") != 0 &&
		    strcmp(names[i], "expression") != 0 &&
		    strcmp(names[i], "operator") != 0)
			free((char *)names[i]);
	return 0;
}

static void add_decl(struct parser *p, struct decl *d)
{
	if (d->kind == D_ALIAS)
		for (const struct probe_point *n = d->names; n; n = n->next)
			if (n->optional)
				perror_at(p, &n->loc, "probe point alias name "
					  "cannot be optional nor sufficient");
	if (p->last_decl)
		p->last_decl->next = d;
	else
		p->decls = d;
	p->last_decl = d;
}

static const char *name_of(struct parser *p, const struct token *t)
{
	return arena_strndup(&p->s->arena, t->text, t->len);
}

/*
 * Left-associative chains (a + b + c + ...) grow the tree without growing
 * the parser's stack; every later pass walks trees recursively, so their
 * height is bounded here.
 */
#define MAX_EXPR_DEPTH 2000

static struct expr *grown(struct parser *p, struct expr *e)
{
	unsigned d = 0;

	if (e->a && e->a->depth > d)
		d = e->a->depth;
	if (e->b && e->b->depth > d)
		d = e->b->depth;
	if (e->c && e->c->depth > d)
		d = e->c->depth;
	if (d >= MAX_EXPR_DEPTH) {
		/* children past the limit were reported already */
		if (d == MAX_EXPR_DEPTH)
			perror_at(p, &e->loc, "expression nested too deeply "
				  "(more than %d levels)", MAX_EXPR_DEPTH);
		e->depth = MAX_EXPR_DEPTH + 1;
		return e;
	}
	e->depth = (unsigned short)(d + 1);
	return e;
}

static struct expr *binary(struct parser *p, int op, struct expr *a,
			   struct expr *b, const struct loc *l)
{
	struct expr *e = ast_expr(p->s, E_BINARY, l);

	e->op = op;
	e->a = a;
	e->b = b;
	return grown(p, e);
}

static struct expr *assign(struct parser *p, int op, struct expr *a,
			   struct expr *b, const struct loc *l)
{
	struct expr *e = binary(p, op, a, b, l);

	e->kind = E_ASSIGN;
	return e;
}

static struct expr *literal(struct parser *p, const struct token *t, bool neg)
{
	struct expr *e;

	if (t->type == NUMBER) {
		e = ast_expr(p->s, E_NUM, &t->loc);
		e->num = neg ? (int64_t)(0 - (uint64_t)t->num) : t->num;
	} else {
		e = ast_expr(p->s, E_STR, &t->loc);
		e->str = arena_strndup(&p->s->arena, t->str, t->slen);
		e->len = t->slen;
	}
	return e;
}

/* The print family takes a literal format or delimiter first. */
static struct expr *call(struct parser *p, const struct token *name,
			 struct expr *args)
{
	struct expr *e = ast_expr(p->s, E_CALL, &name->loc);
	const char *n = name_of(p, name);

	e->str = n;
	e->args = args;
	if (!strcmp(n, "printf") || !strcmp(n, "sprintf")) {
		if (!args || args->kind != E_STR)
			perror_at(p, args ? &args->loc : &name->loc,
				  "expected literal string as the format of "
				  "'%s'", n);
	} else if (strstr(n, "printd")) {
		int values = 0;

		for (struct expr *a = args ? args->next : NULL; a; a = a->next)
			values++;
		if (!args || args->kind != E_STR)
			perror_at(p, args ? &args->loc : &name->loc,
				  "expected literal string as the delimiter "
				  "of '%s'", n);
		else if (values < 2)
			perror_at(p, &name->loc, "'%s' needs at least two "
				  "values after the delimiter", n);
	} else if ((!strcmp(n, "print") || !strcmp(n, "sprint")) && !args) {
		perror_at(p, &name->loc, "'%s' needs at least one argument", n);
	}
	return e;
}

static void check_embedded(struct parser *p, const struct token *t,
			   const char *what)
{
	const struct srcfile *f = t->loc.file;

	if (f && f->privileged)
		return;
	if (!p->s->guru)
		perror_at(p, &t->loc, "%s in unprivileged script; need -g "
			  "(guru mode)", what);
	p->s->user_embedded = true;
}

static struct stmt *simple(struct parser *p, enum stmt_kind k,
			   const struct loc *l, struct expr *e)
{
	struct stmt *st = ast_stmt(p->s, k, l);

	st->e = e;
	return st;
}

static struct expr *target(struct parser *p, struct expr *e,
			   struct chain *chain, int pretty)
{
	(void)p;
	e->chain = chain;
	e->pretty = (unsigned char)pretty;
	return e;
}

static void foreach_sort(struct parser *p, struct foreach *fe, int by,
			 int dir, const struct loc *l)
{
	if (fe->sort_dir) {
		perror_at(p, l, "multiple sort directives in foreach");
		return;
	}
	fe->sort_by = by;
	fe->sort_dir = dir;
}

/* The array part of a foreach: "A-", "A[*, 1]+", "A @sum-", "limit N". */
static struct stmt *foreach_finish(struct parser *p, struct foreach *fe,
				   struct expr *array, int dir,
				   const struct loc *dirloc, int agg_op,
				   int agg_dir, const struct loc *agg_loc,
				   struct expr *limit, const struct loc *l)
{
	struct stmt *st = ast_stmt(p->s, S_FOREACH, l);

	fe->array = array;
	fe->limit = limit;
	if (dir)
		foreach_sort(p, fe, -1, dir, dirloc);
	if (agg_dir) {
		foreach_sort(p, fe, -1, agg_dir, agg_loc);
		fe->agg = agg_op;
	}
	st->fe = fe;
	return st;
}

/* ---- brace expansion of probe points ---- */

#define MAX_POINT_ALTERNATIVES 10000

static struct pp_comp *copy_comps(struct parser *p, const struct pp_comp *c,
				  struct pp_comp *suffix)
{
	struct pp_comp *head = NULL, **tail = &head;

	for (; c; c = c->next) {
		struct pp_comp *n = ANEW(&p->s->arena, struct pp_comp);

		*n = *c;
		n->next = NULL;
		*tail = n;
		tail = &n->next;
	}
	*tail = suffix;
	return head;
}

static struct pp_alts pp_single(struct parser *p, struct pp_comp *c)
{
	struct pp_alts v;

	v.head = v.tail = ANEW(&p->s->arena, struct pp_alt);
	v.head->comps = c;
	v.n = 1;
	return v;
}

static struct pp_alts pp_product(struct parser *p, const struct pp_alts *a,
				 const struct pp_alts *b, const struct loc *l)
{
	struct pp_alts v = { NULL, NULL, 0 };

	if ((long)a->n * b->n > MAX_POINT_ALTERNATIVES) {
		perror_at(p, l, "brace expansion makes more than %d probe "
			  "points", MAX_POINT_ALTERNATIVES);
		return *a;
	}
	for (const struct pp_alt *x = a->head; x; x = x->next)
		for (const struct pp_alt *y = b->head; y; y = y->next) {
			struct pp_alt *n = ANEW(&p->s->arena, struct pp_alt);

			n->comps = copy_comps(p, x->comps,
					      copy_comps(p, y->comps, NULL));
			n->flags = x->flags > y->flags ? x->flags : y->flags;
			if (v.tail)
				v.tail->next = n;
			else
				v.head = n;
			v.tail = n;
			v.n++;
		}
	return v;
}

static struct pp_list make_points(struct parser *p, const struct pp_alts *a,
				  int flags, struct expr *cond,
				  const struct loc *l)
{
	struct pp_list v = { NULL, NULL };

	for (const struct pp_alt *x = a->head; x; x = x->next) {
		struct probe_point *pp = ANEW(&p->s->arena, struct probe_point);

		pp->loc = x == a->head ? *l : x->comps->loc;
		pp->comps = x->comps;
		pp->optional = flags != 0 || x->flags != 0;
		pp->sufficient = flags == 2 || x->flags == 2;
		pp->cond = x == a->head ? cond : ast_clone_expr(p->s, cond);
		if (v.tail)
			v.tail->next = pp;
		else
			v.head = pp;
		v.tail = pp;
	}
	return v;
}

static void one_alias_name(struct parser *p, const struct pp_list *names,
			   const struct loc *eq)
{
	if (names->head != names->tail)
		perror_at(p, eq, "a probe alias defines one name; write one "
			  "alias per name");
}
