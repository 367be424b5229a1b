/* tapir.c - the driver.
 *
 * Roadmap: a script goes through numbered passes, and -p N stops after
 * pass N, printing what that pass made.
 *
 *   1 parse      parse/: lexer.l, preproc.c, feed.c, parser.y -> ast.h
 *                (-p1 prints the script back in canonical form, print.c)
 *   2 elaborate  elaborate/: tapset.c, probes.c + providers/ (one file per
 *                probe family), resolve.c, types.c, optimize.c -> elab.h,
 *                with debuginfo/ (DWARF, symbols, kconfig)  (-p2 prints
 *                the program, dump.c)
 *   3 translate  emit/ -> C for runtime/tapir.h  (-p3 prints it)
 *   4 build      build/: kbuild against the target kernel, module cache
 *                (-p4 prints the module's path)
 *   5 run        run.c: the loader tapir-run on this machine, or in a qemu
 *                guest with --vm (vm/)
 *
 * Everything a pass needs travels in one struct session (session.h, with
 * diag, arena, strmap and xalloc here at the top).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "elaborate/elab.h"
#include "emit/emit.h"
#include "parse/parse.h"
#include "parse/print.h"
#include "run.h"
#include "session.h"
#include "vm/vm.h"
#include "xalloc.h"

/* A growable NULL-terminated list of option values. */
struct strlist {
	const char **v;
	size_t n;
};

static void strlist_add(struct strlist *l, const char *str)
{
	l->v = xrealloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = str;
	l->v[l->n] = NULL;
}

/* Does -D define NAME (NAME or NAME=VALUE)? */
static bool has_define(const struct strlist *l, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], name, len) &&
		    (l->v[i][len] == '\0' || l->v[i][len] == '='))
			return true;
	return false;
}

/*
 * Passes 4 and 5: write the C into a private temporary folder, build it
 * (or find it in the module cache), then run it; or, at -p4, leave
 * NAME.ko in the current folder with -m NAME, else print the module's
 * path.
 */
static int build_and_run(struct session *s, struct program *prog,
			 const struct run_opts *ro)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX], cfile[PATH_MAX + 16];
	struct build_result res = { 0 };
	FILE *f;
	int status = 1;

	snprintf(dir, sizeof(dir), "%s/tapir-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "tapir: cannot create a folder in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return 1;
	}
	snprintf(cfile, sizeof(cfile), "%s/tapir-main.c", dir);
	f = fopen(cfile, "w");
	if (!f) {
		fprintf(stderr, "tapir: cannot write %s: %s\n", cfile,
			strerror(errno));
		goto out;
	}
	if (emit_program(s, prog, f) != 0) {
		fclose(f);
		goto out;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "tapir: cannot write %s: %s\n", cfile,
			strerror(errno));
		goto out;
	}
	if (run_build(s, ro, cfile, &res) != 0)
		goto out;
	if (s->last_pass == 4) {
		/* with -m NAME, NAME.ko is in the current folder and, as
		 * with stap, nothing is said; else where the module is */
		if (!ro->module_name)
			printf("%s\n", res.ko);
		status = 0;
	} else {
		fflush(stdout);
		status = run_module(s, ro, res.ko);
	}
out:
	build_result_free(&res);
	unlink(cfile);
	rmdir(dir);
	return status;
}

/*
 * $TMPDIR must be a folder that kbuild can build in: passes 4 and 5 make
 * their folders there, and make splits paths at blanks and takes '$',
 * ':' and '#' for its own. As stap, refuse a bad one before any pass.
 */
static bool tmpdir_ok(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	if (!tmp || !*tmp)
		return true;
	if (tmp[strspn(tmp, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._+-@,~")]) {
		fprintf(stderr, "tapir: TMPDIR '%s' has characters kbuild "
			"cannot build under (only letters, digits and "
			"-/._+@,~)\n", tmp);
		return false;
	}
	errno = 0;
	if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    access(tmp, W_OK | X_OK) != 0) {
		fprintf(stderr, "tapir: TMPDIR '%s' is not a folder tapir can "
			"write in: %s\n", tmp,
			strerror(errno ? errno : ENOTDIR));
		return false;
	}
	return true;
}

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
	      "  -c CMD         run CMD (with /bin/sh -c); target() is its pid and\n"
	      "                 the script ends when it exits\n"
	      "  -x PID         target() is PID; the script ends when it exits\n"
	      "  -T SECS        end the script after SECS seconds\n"
	      "  -o FILE        write the script's output to FILE (switch_file():\n"
	      "                 on to FILE.1, FILE.2, ...)\n"
	      "  -b             bulk: each CPU's output to a file of its own, FILE_CPU\n"
	      "                 (-o FILE) or stpd_cpuCPU\n"
	      "  -S MB[,N]      with -o: FILE.0, FILE.1, ... of at most MB megabytes,\n"
	      "                 the last N kept (-b: FILE_cpuCPU.0, ...)\n"
	      "  -s MB          output buffer size in megabytes\n"
	      "  --json         the output and the end-of-run print of globals as\n"
	      "                 JSON objects, one per line (tapir(1), JSON OUTPUT)\n"
	      "  -t             per-probe hits and cycles at the end (stap -t), and\n"
	      "                 why probes were skipped (-D STP_TIMING)\n"
	      "  -G VAR=VAL     set global VAR to VAL when the module loads\n"
	      "  -D NAME[=VAL]  define a C macro for the module (MAXACTION=...)\n"
	      "  -B NAME=VAL    pass NAME=VAL to kbuild's make\n"
	      "  -m NAME        name the module NAME (with -p4: write NAME.ko here)\n"
	      "  -k             keep the build folder\n"
	      "  --all-modules  accepted for stap: every loaded module's symbols\n"
	      "                 are always there (kallsyms)\n"
	      "  -d PATH        put the symbol and unwind tables of the program or\n"
	      "                 library PATH in the module (user backtraces); a\n"
	      "                 kernel module's name is accepted (kallsyms)\n"
	      "  --ldd          the same for the shared libraries (ldd) of every\n"
	      "                 -d and process(\"PATH\") program\n"
	      "  --disable-cache  neither use nor fill the module cache\n"
	      "  --omit-werror  the generated C's compiler warnings are not errors\n"
	      "  --clean-cache  empty the cache (modules, objects, indexes)\n"
	      "  --vm           run in a qemu guest booting an installed kernel\n"
	      "  --vm-kernel VMLINUZ, --vm-mem MB, --vm-cpus N\n"
	      "                 the guest's kernel (default: the newest one whose\n"
	      "                 headers are installed), memory and CPUs\n"
	      "  --vm-file HOST[:GUEST]  copy a file into the guest (default\n"
	      "                 GUEST: /root/NAME; the script runs in /root)\n"
	      "  --privilege=stapdev|stapsys|stapusr, --unprivileged (stapusr)\n"
	      "                 stap's privilege level; below stapdev, only\n"
	      "                 with -p1 (the level's checks are not done)\n"
	      "  --prologue-searching[=always|never|auto]\n"
	      "                 DWARF function probes past the prologue always\n"
	      "                 (no WHEN), never, or for unoptimized code (auto)\n"
	      "  -v             more verbose\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n"
	      "\n"
	      "ARGS are the script's $1..$N (tokens) and @1..@N (strings).\n",
	      out);
}

int main(int argc, char **argv)
{
	enum { OPT_DUMP_FUNCTIONS = 256, OPT_DUMP_TYPES, OPT_DUMP_ALIASES,
	       OPT_SKIP_BADVARS, OPT_DISABLE_CACHE, OPT_OMIT_WERROR, OPT_CLEAN_CACHE, OPT_VM,
	       OPT_VM_KERNEL, OPT_VM_MEM, OPT_VM_CPUS, OPT_VM_FILE,
	       OPT_ALL_MODULES, OPT_JSON, OPT_LDD, OPT_UNPRIVILEGED,
	       OPT_PRIVILEGE, OPT_PROLOGUE };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
		{ "dump-probe-types", no_argument, NULL, OPT_DUMP_TYPES },
		{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_ALIASES },
		{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
		{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
		{ "omit-werror", no_argument, NULL, OPT_OMIT_WERROR },
		{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
		{ "vm", no_argument, NULL, OPT_VM },
		{ "vm-kernel", required_argument, NULL, OPT_VM_KERNEL },
		{ "vm-mem", required_argument, NULL, OPT_VM_MEM },
		{ "vm-cpus", required_argument, NULL, OPT_VM_CPUS },
		{ "vm-file", required_argument, NULL, OPT_VM_FILE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "unprivileged", no_argument, NULL, OPT_UNPRIVILEGED },
		{ "privilege", required_argument, NULL, OPT_PRIVILEGE },
		{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE },
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
	struct run_opts ro = { 0 };
	struct strlist defines = { 0 }, make_vars = { 0 }, params = { 0 },
		       vm_files = { 0 };
	bool clean_cache = false;
	const char *privilege = NULL;	/* --privilege=LEVEL, --unprivileged */
	int c, status, nlistings = 0;

	while ((c = getopt_long(argc, argv, "e:p:gI:r:vuwWl:L:hVc:x:T:o:s:S:tbG:D:B:m:kd:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'e':
			if (script_text) {
				fputs("tapir: only one script can be given on "
				      "the command line\n", stderr);
				status = 1;
				goto out;
			}
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
			nlistings++;
			break;
		case OPT_DUMP_FUNCTIONS:
		case OPT_DUMP_TYPES:
		case OPT_DUMP_ALIASES:
			dump = c;
			nlistings++;
			break;
		case OPT_SKIP_BADVARS:
			s->skip_badvars = true;
			break;
		case OPT_ALL_MODULES:
			/* stap's option to carry every module's symbols: the
			 * runtime symbolizes through the kernel's kallsyms,
			 * which holds every loaded module's already. */
			break;
		case 'd':
			session_add_usym_path(s, optarg);
			break;
		case OPT_LDD:
			s->ldd = true;
			break;
		case 'c':
			ro.cmd = optarg;
			s->target_cmd = optarg;
			break;
		case 'x':
			ro.xpid = optarg;
			s->target_pid = optarg;
			break;
		case 'T':
			ro.timeout = optarg;
			break;
		case 'o':
			ro.output = optarg;
			break;
		case 's': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (end == optarg || *end || n < 1 || n > 4095) {
				fprintf(stderr, "tapir: invalid buffer size "
					"'%s' (should be 1-4095)\n", optarg);
				status = 1;
				goto out;
			}
			ro.bufsize = optarg;
			break;
		}
		case 't':
			strlist_add(&defines, "STP_TIMING");
			break;
		case 'b':
			ro.bulk = true;
			break;
		case 'S':
			ro.fsize = optarg;
			break;
		case 'G':
			if (!strchr(optarg, '=')) {
				fprintf(stderr, "tapir: -G wants VAR=VAL, not "
					"'%s'\n", optarg);
				goto bad_usage;
			}
			strlist_add(&params, optarg);
			break;
		case 'D':
			strlist_add(&defines, optarg);
			break;
		case 'B':
			strlist_add(&make_vars, optarg);
			break;
		case 'm':
			if (!build_module_name_ok(optarg)) {
				fprintf(stderr, "tapir: invalid module name '%s' "
					"(letters, digits and _, not starting "
					"with a digit, under 56 bytes)\n", optarg);
				goto bad_usage;
			}
			ro.module_name = optarg;
			break;
		case 'k':
			ro.keep = true;
			break;
		case OPT_DISABLE_CACHE:
			ro.disable_cache = true;
			break;
		case OPT_OMIT_WERROR:
			ro.omit_werror = true;
			break;
		case OPT_CLEAN_CACHE:
			clean_cache = true;
			break;
		case OPT_VM:
			ro.vm = true;
			break;
		case OPT_JSON:
			ro.json = true;
			break;
		case OPT_PROLOGUE:
			if (!optarg || strcmp(optarg, "always") == 0) {
				s->prologue = PROLOGUE_ALWAYS;
			} else if (strcmp(optarg, "never") == 0) {
				s->prologue = PROLOGUE_NEVER;
			} else if (strcmp(optarg, "auto") == 0) {
				s->prologue = PROLOGUE_AUTO;
			} else {
				fprintf(stderr, "tapir: invalid argument '%s' "
					"for --prologue-searching\n", optarg);
				status = 1;
				goto out;
			}
			break;
		case OPT_UNPRIVILEGED:
		case OPT_PRIVILEGE: {
			const char *level = c == OPT_PRIVILEGE ? optarg :
					    "stapusr";

			if (privilege) {
				fputs("tapir: privilege level may be set only "
				      "once\n", stderr);
				status = 1;
				goto out;
			}
			if (strcmp(level, "stapdev") != 0 &&
			    strcmp(level, "stapsys") != 0 &&
			    strcmp(level, "stapusr") != 0) {
				fprintf(stderr, "tapir: invalid argument '%s' "
					"for --privilege\n", level);
				status = 1;
				goto out;
			}
			privilege = level;
			break;
		}
		case OPT_VM_KERNEL:
			ro.vm_kernel = optarg;
			ro.vm = true;
			break;
		case OPT_VM_MEM:
			ro.vm_mem = atoi(optarg);
			ro.vm = true;
			break;
		case OPT_VM_CPUS:
			ro.vm_cpus = atoi(optarg);
			ro.vm = true;
			break;
		case OPT_VM_FILE:
			strlist_add(&vm_files, optarg);
			ro.vm = true;
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
			goto bad_usage;
		}
	}
	if (!tmpdir_ok()) {
		status = 1;
		goto out;
	}
	if (nlistings > 1) {
		fputs("tapir: only one of the -l/-L/--dump-* switches may be "
		      "specified\n", stderr);
		status = 1;
		goto out;
	}
	/* stap's privilege levels below stapdev (the default, everything)
	 * restrict the probes and functions a script may use; tapir parses
	 * such scripts (-p1) but does not check those restrictions, so it
	 * will not analyse or build one rather than build a module the
	 * level does not allow. */
	if (privilege && strcmp(privilege, "stapdev") != 0) {
		if (s->guru) {
			fprintf(stderr, "tapir: you can't specify -g and "
				"--privilege=%s together\n", privilege);
			status = 1;
			goto out;
		}
		if (s->last_pass >= 2 || list || dump) {
			fprintf(stderr, "tapir: --privilege=%s is only taken "
				"with -p1: the checks of what an unprivileged "
				"script may use are not implemented\n",
				privilege);
			status = 1;
			goto out;
		}
	}
	if (ro.cmd && ro.xpid) {
		fputs("tapir: you can't specify -c and -x together\n", stderr);
		status = 1;
		goto out;
	}
	/* --vm under software emulation: the guest's vCPUs take turns on
	 * one host thread, so a handler holding a global's lock can stall
	 * for longer than stap's 10 ms of tries on another vCPU, which then
	 * skips its probe; there a lock is tried for 1 s, unless -D says */
	if (ro.vm && !has_define(&defines, "MAXTRYLOCK") && vm_emulated())
		strlist_add(&defines, "MAXTRYLOCK=100000");
	ro.defines = defines.v;
	ro.make_vars = make_vars.v;
	ro.params = params.v;
	ro.vm_files = vm_files.v;
	if (clean_cache) {
		status = build_clean_cache(NULL, stderr) ? 1 : 0;
		if (optind >= argc && !script_text)
			goto out;
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

	/* --vm: passes 2 and 4 look at the kernel the guest boots. */
	if (ro.vm && s->last_pass >= 2 && run_vm_target(s, &ro) != 0) {
		status = 1;
		goto out;
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
	if (!s->errors && s->last_pass == 1 && s->warnings_fatal)
		check_library(s);
	prog = NULL;
	if (!s->errors && s->last_pass >= 2)
		prog = elaborate(s, sc);
	if (s->errors > s->max_errors)
		fprintf(stderr, "tapir: %d errors in all; only the first %d "
			"are shown\n", s->errors, s->max_errors);
	status = 0;
	if (s->errors)
		status = 1;
	else if (s->last_pass == 1)
		print_script(stdout, sc);
	else if (s->last_pass == 2)
		dump_program(stdout, prog);
	else if (s->last_pass == 3)
		status = emit_program(s, prog, stdout) ? 1 : 0;
	else
		status = build_and_run(s, prog, &ro);
	if (fflush(stdout) != 0)
		status = 1;
	if (s->verbose > 1)
		fprintf(stderr, "tapir: %zu bytes of arena memory\n",
			s->arena.total);
out:
	free(defines.v);
	free(make_vars.v);
	free(params.v);
	free(vm_files.v);
	session_free(s);
	return status;
bad_usage:
	usage(stderr);
	status = 1;
	goto out;
}
