/* diag.h - source files, locations and diagnostics.
 *
 * Every token and AST node carries a struct loc. A location produced by a
 * macro expansion also points at the expansion (the use site), so that a
 * diagnostic can show both the macro body and where the macro was used.
 */
#ifndef TAPIR_DIAG_H
#define TAPIR_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct session;

struct srcfile {
	const char *name;	/* as printed in diagnostics */
	const char *text;	/* whole contents, NUL terminated */
	size_t len;
	bool privileged;	/* a tapset: embedded C allowed */
	struct srcfile *next;
};

struct expansion;

struct loc {
	const struct srcfile *file;
	int line, col;
	const struct expansion *exp;	/* macro use site, or NULL */
};

struct expansion {
	struct loc site;	/* where @name(...) was written */
	const char *macro;
	int depth;		/* nesting of expansions */
};

/* "parse error", "semantic error", "warning" ... */
void diag_at(struct session *s, const struct loc *l, const char *kind,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void diag_vat(struct session *s, const struct loc *l, const char *kind,
	      const char *fmt, va_list ap);
/* An error that has no place in a script (options, files). */
void diag_plain(struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Between these two, diagnostics are held back and then printed in
 * source order (the lexer and preprocessor run ahead of the parser). */
void diag_hold(struct session *s);
void diag_release(struct session *s);

/* Show the source line of l and a caret under its column. */
void diag_show_line(struct session *s, const struct loc *l);

#endif
