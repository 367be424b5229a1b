/* emit.h - translator/emit/, pass 3: the elaborated program as C for the module runtime.
 *
 * The C is written against runtime/tapir.h (the generated file includes
 * "runtime/tapir.h"; the build folder holds runtime/ and kernel-core/ as
 * subfolders). One probe handler per derived probe, one C function per
 * script function, the globals, and `const struct tp_module tapir_module`
 * describing them. Constructs Tapir cannot translate yet are reported as
 * errors at their location.
 */
#ifndef TAPIR_EMIT_H
#define TAPIR_EMIT_H

#include <stdio.h>

#include "elaborate/elab.h"
#include "session.h"

/* Write the C of prog to out. Returns 0, or -1 after reporting errors
 * (nothing useful is written then). */
int emit_program(struct session *s, struct program *prog, FILE *out);

#endif
