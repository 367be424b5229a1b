/* fuzz_parse.c - libFuzzer harness for pass 1 (lexer, preprocessor, parser,
 * printer) with a round-trip oracle.
 *
 * Each input is parsed as a script. When it parses without errors, the tree
 * is printed (the -p1 canonical form), the printout is parsed again in a
 * fresh session and printed again: the second parse must succeed and the
 * two printouts must be identical, or the harness aborts. Diagnostics go to
 * /dev/null (set FUZZ_VERBOSE=1 to see them and both printouts, which is
 * what you want when reproducing a finding).
 *
 * Options vary with the input's length so that no input byte is spent on
 * them and every seed keeps its meaning: odd lengths run in guru mode (-g),
 * lengths with bit 1 set parse as a privileged tapset file. Three script
 * arguments are always given ($1 = 42, $2 = foo, $3 = "str"), so $4 and
 * beyond exercise the missing-argument error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/kconfig.h"
#include "parse/parse.h"
#include "parse/print.h"
#include "session.h"

static FILE *sink;
static bool verbose;
static struct kconfig *kconfig;	/* resolved once, shared by all sessions */
static const char *args[] = { "42", "foo", "\"str\"" };

static struct session *new_session(bool guru)
{
	struct session *s = session_new();

	s->err = verbose ? stderr : sink;
	s->guru = guru;
	s->last_pass = 1;
	s->args = args;
	s->nargs = 3;
	s->kconfig = kconfig;
	return s;
}

static void free_session(struct session *s)
{
	s->kconfig = NULL;	/* shared: kept for the next input */
	session_free(s);
}

/* Print sc into a malloc'ed, NUL-terminated buffer. */
static char *print_to_memory(const struct script *sc, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		abort();
	print_script(m, sc);
	if (fclose(m) != 0)
		abort();
	return buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *v = getenv("FUZZ_VERBOSE");
	struct session *s;

	(void)argc;
	(void)argv;
	verbose = v && *v && strcmp(v, "0") != 0;
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	s = session_new();
	s->err = sink;
	kconfig = kconfig_get(s);
	s->kconfig = NULL;
	session_free(s);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool guru = size & 1, privileged = size & 2;
	struct session *s1 = new_session(guru), *s2;
	struct script *sc;
	char *out1, *out2;
	size_t len1, len2;

	sc = parse_text(s1, "<fuzz>", (const char *)data, size, privileged);
	if (s1->errors) {
		free_session(s1);
		return 0;
	}
	out1 = print_to_memory(sc, &len1);
	free_session(s1);

	s2 = new_session(guru);
	sc = parse_text(s2, "<printed>", out1, len1, privileged);
	if (s2->errors) {
		fprintf(stderr, "fuzz_parse: the printout does not parse "
			"(%d errors):\n%s\n", s2->errors, out1);
		abort();
	}
	out2 = print_to_memory(sc, &len2);
	free_session(s2);
	if (len1 != len2 || memcmp(out1, out2, len1) != 0) {
		fprintf(stderr, "fuzz_parse: printing is not stable\n"
			"--- first printout\n%s\n--- second printout\n%s\n",
			out1, out2);
		abort();
	}
	if (verbose)
		fprintf(stderr, "--- printout\n%s", out1);
	free(out1);
	free(out2);
	return 0;
}
