/* parse.h - translator/parse/, pass 1: a source file to a tree (lex,
 * preprocess, parse).
 *
 * The public face of the front end, used by the driver, the fuzzers and
 * the benches. Diagnostics go to s->err and are counted in s->errors; a
 * tree is returned even after errors (with the declarations that parsed).
 */
#ifndef TAPIR_PARSE_H
#define TAPIR_PARSE_H

#include "ast.h"
#include "session.h"

struct script *parse_source(struct session *s, const struct srcfile *f);
struct script *parse_text(struct session *s, const char *name,
			  const char *text, size_t len, bool privileged);

#endif
