/* parse.c - pass 1 glue: lexer -> preprocessor -> feeder -> grammar. */
#include <string.h>

#include "feed.h"
#include "lexer.h"
#include "parse.h"
#include "parse/parser.h"
#include "preproc.h"
#include "diag.h"
#include "strmap.h"

/* A file declares each global once, as stap checks while parsing: twice
 * is an error, and so is a global that is also private. */
static void duplicate_globals(struct session *s, const struct decl *decls)
{
	struct strmap seen = { 0 };

	for (const struct decl *d = decls; d; d = d->next) {
		const struct decl *first;

		if (d->kind != D_GLOBAL)
			continue;
		first = strmap_get(&seen, d->name);
		if (!first) {
			strmap_add(&s->arena, &seen, d->name, (void *)d);
			continue;
		}
		if (first->private_ != d->private_)
			diag_at(s, &d->loc, "parse error", "global and private "
				"declarations of '%s' conflict (the first is on "
				"line %d)", d->name, first->loc.line);
		else
			diag_at(s, &d->loc, "parse error", "duplicate global "
				"variable '%s' (first declared on line %d)",
				d->name, first->loc.line);
	}
}

struct script *parse_source(struct session *s, const struct srcfile *f)
{
	struct tokvec raw = { 0 };
	struct parser p;
	struct script *sc = ANEW(&s->arena, struct script);

	int errors = s->errors;
	bool held = !s->dbuf;

	memset(&p, 0, sizeof(p));
	p.s = s;
	p.file = f;
	if (held)
		diag_hold(s);
	lex_file(s, f, &raw);
	preprocess(s, &raw, &p.toks);
	yyparse(&p);
	duplicate_globals(s, p.decls);
	/* a script must declare something (a library file may not) */
	if (!f->privileged && !p.decls && s->errors == errors) {
		struct loc l = { .file = f, .line = 1, .col = 1 };

		diag_at(s, &l, "parse error", raw.n > 1 ? "the script is empty "
			"after preprocessing" : "the script is empty");
	}
	if (held)
		diag_release(s);
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
