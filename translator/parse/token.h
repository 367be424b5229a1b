/* token.h - tokens as the lexer makes them and the preprocessor and
 * parser consume them. Token types are the parser's token codes. */
#ifndef TAPIR_TOKEN_H
#define TAPIR_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

struct token {
	unsigned short type;	/* a parser token code (parser.h) */
	bool space_before;	/* whitespace or a comment precedes it */
	bool truncated;		/* an end of input forced by a lexer error */
	unsigned int len;	/* length of the source spelling */
	struct loc loc;
	const char *text;	/* source spelling (not NUL terminated) */
	union {
		const char *str;	/* STRING: decoded bytes; EMBEDDED: code */
		int64_t num;		/* NUMBER value; $N/@N index */
	};
	unsigned int slen;	/* length of str */
};

struct tokvec {
	struct token *v;
	size_t n, cap;
	bool mapped;		/* reserved with mmap: never grows */
};

/* Reserve room for a file of 'bytes' bytes: it has at most that many
 * tokens, and untouched pages cost nothing. */
void tokvec_reserve_for(struct tokvec *tv, size_t bytes);

/* The preprocessor's output: pointers to tokens that stay where they are
 * (the lexer's vector, macro bodies and expansions in the arena). */
struct tokptrs {
	const struct token **v;
	size_t n, cap;
};

void tokvec_push(struct tokvec *tv, const struct token *t);
void tokvec_free(struct tokvec *tv);
void tokptrs_grow(struct tokptrs *tp);

static inline void tokptrs_push(struct tokptrs *tp, const struct token *t)
{
	if (tp->n == tp->cap)
		tokptrs_grow(tp);
	tp->v[tp->n++] = t;
}
void tokptrs_free(struct tokptrs *tp);

#endif
