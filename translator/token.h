/* token.h - tokens as the lexer makes them and the preprocessor and
 * parser consume them. Token types are the parser's token codes. */
#ifndef TAPIR_TOKEN_H
#define TAPIR_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct token {
	int type;		/* a parser token code (parser.h) */
	bool space_before;	/* whitespace or a comment precedes it */
	bool truncated;		/* an end of input forced by a lexer error */
	struct loc loc;
	const char *text;	/* source spelling (not NUL terminated) */
	size_t len;
	const char *str;	/* STRING: decoded bytes; EMBEDDED: code */
	size_t slen;
	int64_t num;		/* NUMBER value; $N/@N index */
};

struct tokvec {
	struct token *v;
	size_t n, cap;
};

void tokvec_push(struct tokvec *tv, const struct token *t);
void tokvec_free(struct tokvec *tv);

#endif
