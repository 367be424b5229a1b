/* tapir.c - the driver.
 *
 * Roadmap: a script goes through numbered passes, and -p N stops after
 * pass N, printing what that pass made.
 *
 *   1 parse      lexer.l, preproc.c, feed.c, parser.y -> ast.h   (-p1 prints
 *                the script back in canonical form, print.c)
 *   2 elaborate  tapset.c, probes.c + pp_*.c, resolve.c, types.c,
 *                optimize.c -> elab.h   (-p2 prints the program, dump.c)
 *   3 translate  emit C for the runtime and kernel-core          (planned)
 *   4 build      kbuild against the target kernel, cache         (planned)
 *   5 run        load and stream output, host or --vm guest      (planned)
 *
 * Everything a pass needs travels in one struct session.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "elab.h"
#include "parse.h"
#include "print.h"
#include "session.h"

static void usage(FILE *out)
{
	fputs("Usage: tapir [OPTIONS] FILE [ARGS...]\n"
	      "       tapir [OPTIONS] -e SCRIPT [ARGS...]\n"
	      "       tapir [OPTIONS] - [ARGS...]      (script on standard input)\n"
	      "\n"
	      "Compile a SystemTap-language script into a kernel module and run it.\n"
	      "\n"
	      "Options:\n"
	      "  -e SCRIPT      run the script given on the command line\n"
	      "  -p NUM         stop after pass NUM (1 parse, 2 elaborate, 3 translate,\n"
	      "                 4 build, 5 run)\n"
	      "  -g             guru mode: allow embedded C in the script\n"
	      "  -I DIR         add DIR to the tapset search path\n"
	      "  -r RELEASE|DIR target kernel release or build directory\n"
	      "                 (default: the running kernel)\n"
	      "  -u             keep unused code (no elision)\n"
	      "  -w             no warnings\n"
	      "  -W             warnings are errors\n"
	      "  -l PATTERN     list the probe points matching PATTERN\n"
	      "  -L PATTERN     the same, with each point's variables\n"
	      "  --dump-functions, --dump-probe-types, --dump-probe-aliases\n"
	      "                 list the tapset library's functions, the probe\n"
	      "                 point families, the probe aliases\n"
	      "  -v             more verbose\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "ARGS are the script's $1..$N (tokens) and @1..@N (strings).\n"
	      "This version implements passes 1 and 2; passes 3 to 5 are being built.\n",
	      out);
}

int main(int argc, char **argv)
{
	enum { OPT_DUMP_FUNCTIONS = 256, OPT_DUMP_TYPES, OPT_DUMP_ALIASES,
	       OPT_SKIP_BADVARS };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
		{ "dump-probe-types", no_argument, NULL, OPT_DUMP_TYPES },
		{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_ALIASES },
		{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
		{ NULL, 0, NULL, 0 },
	};
	const char *list = NULL;
	bool list_vars = false;
	int dump = 0;
	struct program *prog;
	struct session *s = session_new();
	const char *script_text = NULL, *script_file = NULL;
	struct srcfile *f;
	struct script *sc;
	int c, status;

	while ((c = getopt_long(argc, argv, "+e:p:gI:r:vuwWl:L:hV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			script_text = optarg;
			break;
		case 'p': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 5) {
				fprintf(stderr, "tapir: invalid pass number '%s' "
					"(expected 1 to 5)\n", optarg);
				return 1;
			}
			s->last_pass = (int)n;
			break;
		}
		case 'g':
			s->guru = true;
			break;
		case 'I':
			session_add_include(s, optarg);
			break;
		case 'r':
			s->target = optarg;
			break;
		case 'v':
			s->verbose++;
			break;
		case 'u':
			s->keep_unused = true;
			break;
		case 'w':
			s->no_warnings = true;
			break;
		case 'W':
			s->warnings_fatal = true;
			break;
		case 'l':
		case 'L':
			list = optarg;
			list_vars = c == 'L';
			break;
		case OPT_DUMP_FUNCTIONS:
		case OPT_DUMP_TYPES:
		case OPT_DUMP_ALIASES:
			dump = c;
			break;
		case OPT_SKIP_BADVARS:
			s->skip_badvars = true;
			break;
		case 'h':
			usage(stdout);
			session_free(s);
			return 0;
		case 'V':
			printf("Tapir %s (SystemTap language %s)\n",
			       PACKAGE_VERSION, TAPIR_STAP_COMPAT);
			session_free(s);
			return 0;
		default:
			usage(stderr);
			session_free(s);
			return 1;
		}
	}
	if (list || dump) {
		status = list ? list_probes(s, list, list_vars) :
			 dump == OPT_DUMP_FUNCTIONS ? dump_functions(s, stdout) :
			 dump == OPT_DUMP_TYPES ? dump_probe_types(s, stdout) :
			 dump_probe_aliases(s, stdout);
		if (fflush(stdout) != 0)
			status = 1;
		session_free(s);
		return status;
	}
	if (!script_text) {
		if (optind >= argc) {
			fputs("tapir: no script given (a FILE, '-' or -e SCRIPT)\n",
			      stderr);
			usage(stderr);
			session_free(s);
			return 1;
		}
		script_file = argv[optind++];
	}
	s->args = (const char **)argv + optind;
	s->nargs = argc - optind;

	if (s->last_pass > 2) {
		fprintf(stderr, "tapir: pass %d is not available yet; this "
			"version stops after pass 2 (use -p1 or -p2)\n",
			s->last_pass);
		session_free(s);
		return 1;
	}

	/* Pass 1: parse. */
	if (script_text)
		f = session_add_source(s, "<input>", script_text,
				       strlen(script_text), false);
	else
		f = session_read_file(s, script_file, false);
	if (!f) {
		session_free(s);
		return 1;
	}
	sc = parse_source(s, f);
	prog = NULL;
	if (!s->errors && s->last_pass >= 2)
		prog = elaborate(s, sc);
	if (s->errors > s->max_errors)
		fprintf(stderr, "tapir: %d errors in all; only the first %d "
			"are shown\n", s->errors, s->max_errors);
	if (s->errors) {
		status = 1;
	} else {
		if (s->last_pass == 1)
			print_script(stdout, sc);
		else
			dump_program(stdout, prog);
		status = 0;
	}
	if (fflush(stdout) != 0)
		status = 1;
	if (s->verbose > 1)
		fprintf(stderr, "tapir: %zu bytes of arena memory\n",
			s->arena.total);
	session_free(s);
	return status;
}
