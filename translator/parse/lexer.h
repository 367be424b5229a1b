/* lexer.h - turn a source file (or a command-line argument) into tokens. */
#ifndef TAPIR_LEXER_H
#define TAPIR_LEXER_H

#include "token.h"

struct session;

/* Append f's tokens and a final END token to out. */
void lex_file(struct session *s, const struct srcfile *f, struct tokvec *out);

/* Tokens of a script argument pasted with $N: they all take location
 * 'at'. No END token is appended. Returns false after a diagnostic. */
bool lex_argument(struct session *s, const char *text, const struct loc *at,
		  struct tokvec *out);

/* "identifier 'foo'", "number '5'", "end of input" ... */
const char *token_describe(struct session *s, const struct token *t);

#endif
