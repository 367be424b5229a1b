/* print.h - the canonical form of a parsed script (-p1).
 *
 * Printing is faithful: parsing the output again gives the same tree, and
 * printing that tree gives the same text. Parentheses appear only where
 * precedence needs them.
 */
#ifndef TAPIR_PRINT_H
#define TAPIR_PRINT_H

#include <stdio.h>

#include "ast.h"

void print_script(FILE *out, const struct script *sc);
void print_expr(FILE *out, const struct expr *e);
void print_probe_point(FILE *out, const struct probe_point *pp);
/* Its components alone, without ?, ! or a condition. */
void print_probe_point_name(FILE *out, const struct probe_point *pp);
/* ... as a string (malloc'd). */
char *probe_point_name_text(const struct probe_point *pp);
void print_string_literal(FILE *out, const char *s, size_t len);

#endif
