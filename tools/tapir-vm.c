// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapir-vm - run shell commands in a qemu guest booting an installed
 * kernel (translator/vm/vm.h). For tests and maintainers; `tapir --vm` uses
 * the same library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/vm.h"

#define EXIT_TIMEOUT 124
#define EXIT_VMFAIL 125
#define EXIT_DMESG 123

static volatile sig_atomic_t interrupts;

struct opts {
	struct vm_job job;
	const char **files, **modules, **scripts;
	int nfiles, nmodules, nscripts;
	const char *results, *release;
	char *joined, *kernel;	/* the words after the options; --release's image */		/* the words after the options */
	int print_dmesg, strict, timing, check, info;
};

static void usage(FILE *f)
{
	fputs(
"usage: tapir-vm [OPTION]... [--] [COMMAND WORDS...]\n"
"Boot a qemu guest on an installed kernel and run shell commands in it.\n"
"The words after the options form one job (joined with spaces); --job\n"
"adds jobs before it. All jobs run one after the other in one boot.\n"
"\n"
"  --kernel VMLINUZ     kernel image (default: newest /boot/vmlinuz-* with headers)\n"
"  -r, --release R      boot /boot/vmlinuz-R (the kernel a module was built for)\n"
"  --mem MB             guest memory (default 512)\n"
"  --cpus N             guest CPUs (default 2)\n"
"  --file HOST[:GUEST]  copy a file or directory in (default GUEST: /root/NAME)\n"
"  --module KO          load this kernel module at boot, before the jobs\n"
"  --append ARGS        more kernel command line\n"
"  --accel kvm|tcg      accelerator (default: kvm when /dev/kvm works)\n"
"  --timeout SECS       time limit per job\n"
"  --job COMMAND        one more job (repeatable)\n"
"  --results DIR        write each job's N.out N.err N.status N.dmesg N.bad and\n"
"                       console, bootlog, bootlog.bad into DIR instead of\n"
"                       streaming output\n"
"  --console            copy the guest console (kernel messages) to stderr\n"
"  --dmesg              print each job's kernel log to stderr at the end\n"
"  --strict             kernel log problems (BUG:, WARNING:, ...) fail the run\n"
"  --time               print boot and total times to stderr\n"
"  --keep               keep the temporary directory (initramfs)\n"
"  --check              say whether the runner can work here; exit 0 if so\n"
"  --info               print the kernel, its release, its headers, the accel\n"
"\n"
"Exit status: the first failing job's status (0 if all succeeded),\n"
"124 if a job timed out, 125 if the VM failed (no boot, guest crash),\n"
"130 if interrupted and no job failed,\n"
"123 with --strict when the kernel log shows a problem.\n", f);
}

/* kernel PATH, release R, headers DIR (or "none"), accel A */
static int print_info(const char *kernel)
{
	char *k = kernel ? strdup(kernel) : vm_default_kernel();
	char rel[128], *hd;
	const char *accel = getenv("TAPIR_VM_ACCEL");

	if (!k || vm_kernel_release(k, rel, sizeof(rel)) < 0) {
		fprintf(stderr, "tapir-vm: %s%s\n", k ? "not a bzImage kernel: " :
			"no /boot/vmlinuz-* with installed headers", k ? k : "");
		free(k);
		return 1;
	}
	hd = vm_kernel_headers(rel);
	printf("kernel %s\nrelease %s\nheaders %s\naccel %s\n", k, rel,
	       hd ? hd : "none",
	       accel && *accel ? accel : vm_kvm_usable() ? "kvm" : "tcg");
	free(hd);
	free(k);
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	interrupts++;
}

static void push(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv) {
		fprintf(stderr, "tapir-vm: out of memory\n");
		exit(EXIT_VMFAIL);
	}
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
}

static int number(const char *opt, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0 || v > 1000000) {
		fprintf(stderr, "tapir-vm: %s wants a number, not '%s'\n", opt, s);
		exit(2);
	}
	return (int)v;
}

static char *join_words(char **w, int n)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < n; i++)
		len += strlen(w[i]) + 1;
	s = calloc(1, len);
	for (i = 0; s && i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, w[i]);
	}
	return s;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_KERNEL = 256, OPT_MEM, OPT_CPUS, OPT_FILE, OPT_MODULE, OPT_APPEND,
	       OPT_ACCEL, OPT_TIMEOUT, OPT_JOB, OPT_RESULTS, OPT_CONSOLE, OPT_DMESG,
	       OPT_STRICT, OPT_TIME, OPT_KEEP, OPT_CHECK, OPT_INFO,
	       OPT_RELEASE = 'r' };
	static const struct option lo[] = {
		{ "kernel", 1, 0, OPT_KERNEL }, { "mem", 1, 0, OPT_MEM },
		{ "cpus", 1, 0, OPT_CPUS }, { "file", 1, 0, OPT_FILE },
		{ "module", 1, 0, OPT_MODULE }, { "append", 1, 0, OPT_APPEND },
		{ "accel", 1, 0, OPT_ACCEL }, { "timeout", 1, 0, OPT_TIMEOUT },
		{ "job", 1, 0, OPT_JOB }, { "results", 1, 0, OPT_RESULTS },
		{ "console", 0, 0, OPT_CONSOLE }, { "dmesg", 0, 0, OPT_DMESG },
		{ "strict", 0, 0, OPT_STRICT }, { "time", 0, 0, OPT_TIME },
		{ "keep", 0, 0, OPT_KEEP }, { "check", 0, 0, OPT_CHECK },
		{ "info", 0, 0, OPT_INFO }, { "release", 1, 0, OPT_RELEASE },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+hr:", lo, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL: o->job.kernel = optarg; break;
		case OPT_RELEASE: o->release = optarg; break;
		case OPT_MEM: o->job.mem_mb = number("--mem", optarg); break;
		case OPT_CPUS: o->job.cpus = number("--cpus", optarg); break;
		case OPT_FILE: push(&o->files, &o->nfiles, optarg); break;
		case OPT_MODULE: push(&o->modules, &o->nmodules, optarg); break;
		case OPT_APPEND: o->job.append = optarg; break;
		case OPT_ACCEL: o->job.accel = optarg; break;
		case OPT_TIMEOUT: o->job.timeout = number("--timeout", optarg); break;
		case OPT_JOB: push(&o->scripts, &o->nscripts, optarg); break;
		case OPT_RESULTS: o->results = optarg; break;
		case OPT_CONSOLE: o->job.log_fd = 2; break;
		case OPT_DMESG: o->print_dmesg = 1; break;
		case OPT_STRICT: o->strict = 1; break;
		case OPT_TIME: o->timing = 1; break;
		case OPT_KEEP: o->job.flags |= VM_KEEP_TMP; break;
		case OPT_CHECK: o->check = 1; break;
		case OPT_INFO: o->info = 1; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc) {
		o->joined = join_words(argv + optind, argc - optind);
		push(&o->scripts, &o->nscripts, o->joined);
	}
	if (!o->nscripts && !o->check && !o->info) {
		usage(stderr);
		exit(2);
	}
	if (o->release && !o->job.kernel) {	/* --kernel overrides */
		char *why;

		o->kernel = vm_release_kernel(o->release, &why);
		if (!o->kernel) {
			fprintf(stderr, "tapir-vm: %s\n", why);
			free(why);
			exit(EXIT_VMFAIL);
		}
		o->job.kernel = o->kernel;
	}
	o->job.files = o->files;
	o->job.modules = o->modules;
	o->job.scripts = o->scripts;
}

static int save(const char *dir, const char *name, const char *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
		fprintf(stderr, "tapir-vm: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static const char *state_word(const struct vm_job_result *j, char *num, size_t size)
{
	switch (j->state) {
	case VM_JOB_NOT_RUN: return "not-run";
	case VM_JOB_TIMEOUT: return "timeout";
	case VM_JOB_CRASHED: return "crashed";
	default: break;
	}
	snprintf(num, size, "%d", j->status);
	return num;
}

static int save_results(const char *dir, const struct vm_result *res)
{
	static const char *const ext[] = { "out", "err", "dmesg", "bad" };
	char name[64], num[16], line[32];
	int i, k, bad = 0;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "tapir-vm: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < res->njobs; i++) {
		const struct vm_job_result *j = &res->jobs[i];
		const struct vm_buf *bufs[] = { &j->out, &j->err, &j->dmesg, &j->bad };
		const char *st = state_word(j, num, sizeof(num));

		for (k = 0; k < 4; k++) {
			snprintf(name, sizeof(name), "%d.%s", i, ext[k]);
			bad |= save(dir, name, bufs[k]->data, bufs[k]->len);
		}
		snprintf(name, sizeof(name), "%d.status", i);
		snprintf(line, sizeof(line), "%s\n", st);
		bad |= save(dir, name, line, strlen(line));
	}
	bad |= save(dir, "console", res->console.data, res->console.len);
	bad |= save(dir, "bootlog", res->bootlog.data, res->bootlog.len);
	bad |= save(dir, "bootlog.bad", res->boot_bad.data, res->boot_bad.len);
	if (res->error)
		bad |= save(dir, "error", res->error, strlen(res->error));
	return bad ? -1 : 0;
}

/* Tell about each job's kernel log; return the exit status for the run. */
static int report(const struct opts *o, const struct vm_result *res)
{
	int i, status = 0, dmesg_bad = 0;

	if (res->nboot_bad) {
		fprintf(stderr, "tapir-vm: the guest kernel log at boot shows problems:\n%s",
			res->boot_bad.data);
		dmesg_bad = 1;
	}
	for (i = 0; i < res->njobs; i++) {
		const struct vm_job_result *j = &res->jobs[i];
		const char *name = res->njobs > 1 ? "job " : "the job";
		char num[16] = "";

		if (res->njobs > 1)
			snprintf(num, sizeof(num), "%d", i);
		if (o->print_dmesg && j->dmesg.len)
			fprintf(stderr, "tapir-vm: %s%s: kernel log:\n%s", name, num, j->dmesg.data);
		if (j->nbad && j->state != VM_JOB_CRASHED) {	/* res->error shows it */
			fprintf(stderr, "tapir-vm: %s%s: the guest kernel log shows problems:\n%s",
				name, num, j->bad.data);
			dmesg_bad = 1;
		}
		if (j->state == VM_JOB_TIMEOUT) {
			fprintf(stderr, "tapir-vm: %s%s timed out after %d s\n", name, num,
				o->job.timeout);
			if (!status)
				status = EXIT_TIMEOUT;
		} else if (j->state == VM_JOB_EXITED && j->status && !status) {
			status = j->status;
		}
	}
	if (res->interrupted && !status)
		status = 130;	/* as a shell reports SIGINT */
	if (res->failed) {
		fprintf(stderr, "tapir-vm: %s\n", res->error);
		return EXIT_VMFAIL;
	}
	if (!status && dmesg_bad && o->strict)
		status = EXIT_DMESG;
	return status;
}

static void print_times(const struct vm_result *res)
{
	int i;

	for (i = 0; res->njobs > 1 && i < res->njobs; i++)
		if (res->jobs[i].state != VM_JOB_NOT_RUN)
			fprintf(stderr, "tapir-vm: job %d: %.3f s\n", i, res->jobs[i].seconds);
	fprintf(stderr, "tapir-vm: %s, %s: boot %.2f s, total %.2f s\n",
		res->kernel ? res->kernel : "?", res->accel[0] ? res->accel : "?",
		res->boot_seconds, res->total_seconds);
}

int main(int argc, char **argv)
{
	struct opts o = { .job = { .interrupt = &interrupts } };
	struct sigaction sa = { .sa_handler = on_signal };
	struct vm_result res;
	int status;

	parse_args(argc, argv, &o);
	if (o.check) {
		const char *why = vm_unavailable();

		printf("%s\n", why ? why : "ok");
		return why ? 1 : 0;
	}
	if (o.info)
		return print_info(o.job.kernel);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.results)
		o.job.flags |= VM_CAPTURE;
	vm_run(&o.job, o.results ? -1 : 1, o.results ? -1 : 2, &res);
	status = report(&o, &res);
	if (o.results && save_results(o.results, &res) < 0 && !status)
		status = EXIT_VMFAIL;
	if (o.timing)
		print_times(&res);
	if (res.tmpdir)
		fprintf(stderr, "tapir-vm: kept %s\n", res.tmpdir);
	vm_result_free(&res);
	free(o.files);
	free(o.modules);
	free(o.scripts);
	free(o.joined);
	free(o.kernel);
	return status;
}
