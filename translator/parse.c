/* parse.c - pass 1 glue: lexer -> preprocessor -> feeder -> grammar. */
#include <string.h>

#include "feed.h"
#include "lexer.h"
#include "parse.h"
#include "parser.h"
#include "preproc.h"

struct script *parse_source(struct session *s, const struct srcfile *f)
{
	struct tokvec raw = { 0 };
	struct parser p;
	struct script *sc = ANEW(&s->arena, struct script);

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.file = f;
	lex_file(s, f, &raw);
	preprocess(s, &raw, &p.toks);
	yyparse(&p);
	tokptrs_free(&p.toks);
	tokvec_free(&raw);
	sc->file = f;
	sc->decls = p.decls;
	return sc;
}

struct script *parse_text(struct session *s, const char *name,
			  const char *text, size_t len, bool privileged)
{
	return parse_source(s, session_add_source(s, name, text, len,
						  privileged));
}
