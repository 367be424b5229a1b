/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.c - passes 4 and 5 for the driver.
 *
 * Pass 4 hands the generated C to build_module() with the runtime and
 * kernel-core trees of this installation. Pass 5 runs the loader,
 * tapir-run, which does the real work (finit_module, relay, control
 * channel, end probes, unload): on this machine as a child process, or
 * inside a qemu guest booting the target kernel, where it is copied into
 * the initramfs together with the module.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "build/kfeature.h"
#include "run.h"
#include "session.h"
#include "vm/vm.h"
#include "vm/vm-proto.h"
#include "xalloc.h"

/* Is the running program the build tree's (not an installed copy)? */
static bool in_build_tree(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	return strncmp(exe, TAPIR_BUILDDIR "/", strlen(TAPIR_BUILDDIR) + 1) == 0;
}

/* Where the runtime/ and kernel-core/ trees are: $TAPIR_DATADIR, the
 * source tree for the build tree's tapir, else the installed data. */
static const char *data_dir(void)
{
	const char *env = getenv("TAPIR_DATADIR");

	if (env && *env)
		return env;
	return in_build_tree() ? TAPIR_SRCDIR : TAPIR_PKGDATADIR;
}

/* The loader: $TAPIR_RUN, the build tree's, else the installed one. */
static char *find_loader(void)
{
	const char *env = getenv("TAPIR_RUN");

	if (env && *env)
		return xstrdup(env);
	if (in_build_tree())
		return xstrdup(TAPIR_BUILDDIR "/runtime/tapir-run");
	return xstrdup(TAPIR_BINDIR "/tapir-run");
}

/*
 * The image that boots the kernel -r names (malloc'd), or NULL after an
 * error message: /boot/vmlinuz-RELEASE for a release or a tree of one;
 * a self-built tree's own arch/x86/boot/bzImage first.
 */
static char *target_kernel(const char *target)
{
	char *rel, *kernel, *why;

	if (strchr(target, '/')) {
		kernel = xasprintf("%s/arch/x86/boot/bzImage", target);
		if (access(kernel, R_OK) == 0)
			return kernel;
		free(kernel);
		rel = kernel_tree_release(target);
		if (!rel) {
			fprintf(stderr, "tapir: --vm: cannot tell the release "
				"of kernel tree '%s'; give --vm-kernel\n", target);
			return NULL;
		}
	} else {
		rel = xstrdup(target);
	}
	kernel = vm_release_kernel(rel, &why);
	if (!kernel)
		fprintf(stderr, "tapir: --vm: %s, or give --vm-kernel\n", why);
	free(why);
	free(rel);
	return kernel;
}

int run_vm_target(struct session *s, struct run_opts *o)
{
	char release[256], *kernel, *headers;
	const char *why = vm_unavailable();

	if (why) {
		fprintf(stderr, "tapir: --vm cannot run here: %s\n", why);
		return -1;
	}
	/* --vm-kernel, else the kernel the module is built for (-r), else
	 * the newest one with headers */
	if (o->vm_kernel)
		kernel = xstrdup(o->vm_kernel);
	else if (s->target)
		kernel = target_kernel(s->target);
	else
		kernel = vm_default_kernel();
	if (!kernel) {
		if (!s->target)
			fputs("tapir: --vm: no installed kernel (/boot/vmlinuz-*) "
			      "has its headers installed; install "
			      "linux-image-RELEASE and linux-headers-RELEASE, or "
			      "give --vm-kernel\n", stderr);
		return -1;
	}
	if (vm_kernel_release(kernel, release, sizeof(release)) < 0) {
		fprintf(stderr, "tapir: --vm: cannot read the release of "
			"kernel image '%s'\n", kernel);
		free(kernel);
		return -1;
	}
	o->vm_kernel = arena_strdup(&s->arena, kernel);
	free(kernel);
	if (s->target)		/* -r names the headers to build against */
		return 0;
	headers = vm_kernel_headers(release);
	if (!headers) {
		fprintf(stderr, "tapir: --vm: the headers of %s are not "
			"installed (linux-headers-%s)\n", release, release);
		return -1;
	}
	s->target = arena_strdup(&s->arena, headers);
	free(headers);
	return 0;
}

int run_build(struct session *s, const struct run_opts *o,
	      const char *c_file, struct build_result *res)
{
	const char *dir = data_dir();
	struct build_tree trees[] = {
		{ arena_printf(&s->arena, "%s/runtime", dir), "runtime" },
		{ arena_printf(&s->arena, "%s/kernel-core", dir), "kernel-core" },
		{ NULL, NULL },
	};
	struct build_opts bo = {
		.source = c_file,
		.target = s->target,
		.module_name = o->module_name,
		.trees = trees,
		.defines = o->defines,
		.make_vars = o->make_vars,
		/* -p4 -m NAME leaves NAME.ko here, as stap does (build
		 * here, run there) */
		.out_dir = s->last_pass == 4 && o->module_name ? "." : NULL,
		.disable_cache = o->disable_cache,
		.omit_werror = o->omit_werror,
		.embedded_c = s->user_embedded,
		.keep = o->keep,
		.verbose = s->verbose,
		.err = stderr,
	};
	struct stat st;

	/* An installation without kernel-core (it is optional until the
	 * probe core lands) links the runtime alone. */
	if (stat(trees[1].dir, &st) != 0)
		trees[1] = trees[2];
	if (build_module(&bo, res) != 0) {
		fputs("Pass 4: compilation failed.  [man error::pass4]\n",
		      stderr);
		return -1;
	}
	return 0;
}

/* The loader's argument vector: tapir-run [opts] KO [VAR=VAL...]. */
static const char **loader_argv(const struct run_opts *o, const char *loader,
				const char *ko)
{
	size_t n = 20, i = 0, k;
	const char **argv;

	for (k = 0; o->params && o->params[k]; k++)
		n++;
	argv = xcalloc(n, sizeof(*argv));
	argv[i++] = loader;
	if (o->cmd) {
		argv[i++] = "-c";
		argv[i++] = o->cmd;
	}
	if (o->xpid) {
		argv[i++] = "-x";
		argv[i++] = o->xpid;
	}
	if (o->timeout) {
		argv[i++] = "-T";
		argv[i++] = o->timeout;
	}
	if (o->output) {
		argv[i++] = "-o";
		argv[i++] = o->output;
	}
	if (o->bulk)
		argv[i++] = "-B";
	if (o->fsize) {
		argv[i++] = "-S";
		argv[i++] = o->fsize;
	}
	if (o->bufsize) {
		argv[i++] = "-b";
		argv[i++] = o->bufsize;
	}
	if (o->json)
		argv[i++] = "--json";
	argv[i++] = ko;
	for (k = 0; o->params && o->params[k]; k++)
		argv[i++] = o->params[k];
	argv[i] = NULL;
	return argv;
}

static int run_host(const struct run_opts *o, const char *ko)
{
	char *loader = find_loader();
	const char **argv = loader_argv(o, loader, ko);
	struct sigaction ign = { .sa_handler = SIG_IGN }, oldint, oldterm;
	int status = 1, wst;
	pid_t pid;

	if (access(loader, X_OK) != 0) {
		fprintf(stderr, "tapir: cannot run the loader '%s': %s\n",
			loader, strerror(errno));
		goto out;
	}
	/* Ctrl-C reaches the loader through the terminal's process group;
	 * tapir waits for it to run the end probes and drain. */
	sigaction(SIGINT, &ign, &oldint);
	sigaction(SIGTERM, &ign, &oldterm);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oldint, NULL);
		sigaction(SIGTERM, &oldterm, NULL);
		execv(loader, (char *const *)argv);
		fprintf(stderr, "tapir: cannot run the loader '%s': %s\n",
			loader, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "tapir: fork: %s\n", strerror(errno));
	} else {
		while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
			;
		status = WIFEXITED(wst) ? WEXITSTATUS(wst) :
			 128 + WTERMSIG(wst);
	}
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGTERM, &oldterm, NULL);
out:
	free(argv);
	free(loader);
	return status;
}

static volatile sig_atomic_t vm_interrupts;

static void on_interrupt(int sig)
{
	(void)sig;
	vm_interrupts++;
}

/* Quote a word for the guest's /bin/sh. */
static char *sh_quote(const char *w)
{
	size_t n = 3;
	const char *p;
	char *q, *r;

	for (p = w; *p; p++)
		n += *p == '\'' ? 4 : 1;
	r = q = xmalloc(n);
	*q++ = '\'';
	for (p = w; *p; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *p;
		}
	}
	*q++ = '\'';
	*q = '\0';
	return r;
}

static int run_vm(struct session *s, const struct run_opts *o, const char *ko)
{
	char *loader = find_loader();
	const char **argv, **files;
	const char *base = strrchr(ko, '/') ? strrchr(ko, '/') + 1 : ko;
	size_t nfiles = 0, i, len = 0;
	struct vm_job job = { 0 };
	struct vm_result res;
	struct sigaction sa = { .sa_handler = on_interrupt }, oldint, oldterm;
	char *script, *guest_ko;
	const char *pre = "cd /root && exec", *post = "";
	struct run_opts gopt;
	int status;

	if (access(loader, R_OK) != 0) {
		fprintf(stderr, "tapir: --vm: no loader '%s': %s\n", loader,
			strerror(errno));
		free(loader);
		return 1;
	}
	for (i = 0; o->vm_files && o->vm_files[i]; i++)
		nfiles++;
	files = xcalloc(nfiles + 3, sizeof(*files));
	files[0] = arena_printf(&s->arena, "%s:/bin/tapir-run", loader);
	files[1] = arena_printf(&s->arena, "%s:/root/%s", ko, base);
	for (i = 0; i < nfiles; i++)
		files[i + 2] = o->vm_files[i];

	/* The job: cd /root; exec tapir-run [opts] /root/NAME.ko [VAR=VAL].
	 * Output files come back through the guest's outbox: -o FILE
	 * writes OUTBOX/BASENAME (and its _CPU, .N siblings), which land
	 * next to FILE here; -B without -o leaves stpd_cpuCPU in /root,
	 * moved there once the loader is done (the shell catches SIGINT
	 * so that it survives the loader's end probes). */
	guest_ko = arena_printf(&s->arena, "/root/%s", base);
	gopt = *o;
	if (o->output) {
		const char *slash = strrchr(o->output, '/');

		gopt.output = arena_printf(&s->arena, VM_GUEST_OUTBOX "/%s",
					   slash ? slash + 1 : o->output);
		job.outbox = slash ? arena_printf(&s->arena, "%.*s",
				(int)(slash - o->output + (slash == o->output)),
				o->output) : ".";
	} else if (o->bulk) {
		job.outbox = ".";
		pre = "trap : INT TERM; cd /root &&";
		post = "; st=$?; mv -f stpd_cpu* " VM_GUEST_OUTBOX
		       "/ 2>/dev/null; exit $st";
	}
	if (job.outbox && access(job.outbox, W_OK) != 0) {
		fprintf(stderr, "tapir: --vm: cannot write output files in '%s': %s\n",
			job.outbox, strerror(errno));
		free(files);
		free(loader);
		return 1;
	}
	argv = loader_argv(&gopt, "tapir-run", guest_ko);
	for (i = 0; argv[i]; i++) {
		char *q = sh_quote(argv[i]);

		len += strlen(q) + 1;
		free(q);
	}
	script = xmalloc(len + strlen(pre) + strlen(post) + 1);
	strcpy(script, pre);
	for (i = 0; argv[i]; i++) {
		char *q = sh_quote(argv[i]);

		strcat(script, " ");
		strcat(script, q);
		free(q);
	}
	strcat(script, post);
	free(argv);

	job.kernel = o->vm_kernel;
	job.mem_mb = o->vm_mem;
	job.cpus = o->vm_cpus;
	job.files = files;
	job.script = script;
	job.interrupt = &vm_interrupts;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oldint);
	sigaction(SIGTERM, &sa, &oldterm);
	if (vm_run(&job, STDOUT_FILENO, STDERR_FILENO, &res) != 0) {
		fprintf(stderr, "tapir: --vm: %s\n",
			res.error ? res.error : "the guest failed");
		if (res.oops)
			fprintf(stderr, "%s", res.oops);
		status = 125;
	} else if (res.njobs < 1 || res.jobs[0].state != VM_JOB_EXITED) {
		fprintf(stderr, "tapir: --vm: the run %s\n",
			res.njobs && res.jobs[0].state == VM_JOB_TIMEOUT ?
			"timed out" : "did not finish");
		status = 125;
	} else {
		status = res.jobs[0].status;
		if (res.jobs[0].nbad) {
			fprintf(stderr, "tapir: --vm: the guest kernel reported "
				"a problem while the script ran:\n%s",
				res.jobs[0].bad.data ? res.jobs[0].bad.data : "");
			if (status == 0)
				status = 1;
		}
	}
	sigaction(SIGINT, &oldint, NULL);
	sigaction(SIGTERM, &oldterm, NULL);
	vm_result_free(&res);
	free(script);
	free(files);
	free(loader);
	return status;
}

int run_module(struct session *s, const struct run_opts *o, const char *ko)
{
	if (o->vm)
		return run_vm(s, o, ko);
	if (geteuid() != 0) {
		fputs("tapir: running a module needs root (or use --vm to run "
		      "it in a guest, or -p4 to stop after building it)\n",
		      stderr);
		return 1;
	}
	return run_host(o, ko);
}
