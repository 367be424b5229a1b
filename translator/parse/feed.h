/* feed.h - the parser's view of the token stream.
 *
 * Between the preprocessor and the grammar sits the feeder: in probe
 * points it glues adjacent name parts into single PP_NAME tokens (so that
 * `sys_*open` is one component and keywords such as `return` and
 * `function` work as components) and tells brace groups ({open,close})
 * from probe bodies; everywhere it joins adjacent string literals, turns
 * keywords after `->` into field names, marks the print family (which
 * needs '(') and maps @names to the @-operator tokens.
 */
#ifndef TAPIR_FEED_H
#define TAPIR_FEED_H

#include <stdbool.h>

#include "ast.h"
#include "token.h"

struct session;

struct parser {
	struct session *s;
	const struct srcfile *file;
	struct tokptrs toks;		/* preprocessed, ends with END */
	size_t pos;
	const struct token *cur;	/* the token last handed out */

	/* feeder state */
	bool pp_mode;			/* inside a probe point list */
	int pp_paren;			/* depth inside `if (...)` of a point */
	int pp_braces;			/* depth of {a,b} brace groups */
	bool pp_cond;			/* the next '(' opens a condition */
	int prev;			/* type of the token last handed out */

	/* grammar state */
	bool in_function;
	struct decl *decls, *last_decl;
};

/* The next token for the grammar, with its value and location. */
const struct token *feed_next(struct parser *p);

#endif
