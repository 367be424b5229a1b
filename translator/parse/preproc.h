/* preproc.h - %( %? %: %) conditionals, @define macros, $N/@N arguments.
 *
 * Runs over a file's raw tokens and produces the tokens the parser sees.
 * Macros are expanded before conditionals are decided, so a condition or
 * a branch may use macros; only the taken branch is preprocessed, the
 * skipped one only had to lex.
 */
#ifndef TAPIR_PREPROC_H
#define TAPIR_PREPROC_H

#include "token.h"

struct session;

/* Preprocess 'in' (ending with END) into 'out' (ending with END). The
 * output points into 'in', which must outlive it. */
void preprocess(struct session *s, const struct tokvec *in,
		struct tokptrs *out);

#endif
