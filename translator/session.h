/* session.h - the one compile context every pass receives.
 *
 * Nothing in the translator keeps global state: options, the arena, the
 * loaded files, macros and diagnostics counters all live here.
 */
#ifndef TAPIR_SESSION_H
#define TAPIR_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"

struct kconfig;
struct dwarf_ctx;
struct uprog;
struct macro_table;

/* Where a DWARF function probe goes (--prologue-searching): past the
 * prologue when the code was built without optimization (auto), never
 * past it, or always. */
enum { PROLOGUE_AUTO, PROLOGUE_NEVER, PROLOGUE_ALWAYS };

struct session {
	struct arena arena;
	FILE *err;			/* diagnostics go here */
	int errors, warnings;
	int max_errors;			/* stop reporting after this many */
	int quiet;			/* > 0: count diagnostics, print none */
	const char *quiet_why;		/* the first message held back then */
	struct loc quiet_where;
	struct diag_buffer *dbuf;	/* set: hold diagnostics to sort them */

	/* options */
	int last_pass;			/* -p N (5: run) */
	bool guru;			/* -g */
	bool user_embedded;		/* a script file (not a tapset) has
					 * embedded C: pass 4 relaxes the
					 * warnings stap relaxes for it */
	int verbose;			/* -v */
	bool no_warnings;		/* -w */
	bool warnings_fatal;		/* -W */
	bool keep_unused;		/* -u: no elision */
	bool skip_badvars;		/* --skip-badvars */
	int prologue;			/* --prologue-searching: PROLOGUE_* */
	const char **args;		/* script arguments $1..$N */
	int nargs;
	const char **include_dirs;	/* -I DIR, in order */
	int ninclude;
	const char *target;		/* -r RELEASE|BUILDDIR, or NULL */
	const char **usym_paths;	/* -d PATH: binaries whose symbol and
					 * unwind tables go in the module */
	int nusym_paths;
	bool ldd;			/* --ldd: their shared libraries too */
	const char *target_cmd;		/* -c CMD: process.plt's program */
	const char *target_pid;		/* -x PID: or its process's */

	/* the target kernel, resolved on first use */
	struct kconfig *kconfig;
	struct dwarf_ctx *dwarf;	/* its debuginfo (dwarf.c), on first use */
	struct uprog *uprogs;		/* programs process() probes read
					 * (providers/process.c) */

	/* library macros from .stpm files on the tapset path */
	struct macro_table *lib_macros;
	bool lib_macros_loaded;

	struct srcfile *files;		/* every file read, for diagnostics */
};

struct session *session_new(void);
void session_free(struct session *s);
void session_add_include(struct session *s, const char *dir);
void session_add_usym_path(struct session *s, const char *path);

/* Register a file's text with the session; the text is copied. */
struct srcfile *session_add_source(struct session *s, const char *name,
				   const char *text, size_t len,
				   bool privileged);
/* Read a file (or "-" for standard input); NULL after a diagnostic. */
struct srcfile *session_read_file(struct session *s, const char *path,
				  bool privileged);

/* The tapset library directory (installed, or the source tree's). */
const char *session_tapset_dir(struct session *s);
bool session_past_prologue(const struct session *s, bool optimized);

#endif
