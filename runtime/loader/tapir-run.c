// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapir-run - load a Tapir module, run its session, stream its output,
 * unload it: Tapir's staprun. Plain C and libc, linked statically so that
 * it can be copied into any guest.
 *
 *   tapir-run [-o FILE] [-S MB[,N]] [-B] [-c CMD] [-x PID] [-T SECS]
 *             [-b MB] [--json] [-v] MODULE.ko [VAR=VAL...]
 *
 * The steps (the protocol is runtime/transport-proto.h):
 *   1. finit_module(MODULE.ko, "VAR=VAL ... [_tapir_bufsize=MB]")
 *   2. open tapir-NAME/ctl (debugfs, else procfs) and read HELLO: magic,
 *      version, how many traceN files, the sub-buffers; open and mmap
 *      them (each CPU's relay buffer)
 *   3. with -c: fork the command, held until the start succeeded
 *   4. START (target pid) -> STARTED; release the command with SIGUSR1,
 *      which it catches, as staprun's command does (so the target's
 *      signal probes see that signal delivered and handled, as in stap)
 *   5. loop: take the completed sub-buffers of every CPU (poll says when
 *      one completes; the module completes partly filled ones every few
 *      ms), tell the module with CONSUMED, print their frames in sequence
 *      order; print STDERR texts as they come; open the file of a CPU
 *      that comes online (CPU_ONLINE); REQUEST_EXIT, SIGINT, SIGTERM,
 *      -T's deadline or the command's exit -> STOP
 *   6. DONE: take what is left in the buffers, report lost output, unmap,
 *      close, delete_module.
 * With -B (bulk, stap -b) each CPU's output goes to a file of its own,
 * FILE_CPU (-o FILE) or stpd_cpuCPU, in the order written on that CPU:
 * plain text, without the sequence numbers that order it across CPUs.
 * With -S MB[,N] (staprun's) the output goes to FILE.0, FILE.1, ...: the
 * next file when the next frame would take this one past MB megabytes,
 * and only the last N files are kept (with -B, FILE_cpuCPU.0, ... for
 * each CPU). switch_file() in the script and SIGUSR2 go on to the next
 * file too (see struct outfile for the names).
 * With --json the module writes the script's output as JSON objects, one
 * per line (runtime/json.c; the loader only sets _tapir_json=1).
 * Exit status: 0, or 1 after an "ERROR:" from the module, a failed start,
 * a command that failed, or any failure here (as staprun).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "../transport-proto.h"

#define POLL_MS		100	/* for -T and the gaps; poll() wakes us for
				 * every completed sub-buffer */
#define STALL_SECS	1.0	/* how long a sequence gap may last */
#define OUTBUF_SIZE	(256 * 1024)

/*
 * An output file: the merged output (stdout or -o FILE) or, with -B, one
 * CPU's. Its name is numbered from the second file on (switch_file(),
 * SIGUSR2) or from the first with -S, as staprun names them:
 *
 *              first file      next files
 *   -o F       F               F.1, F.2, ...
 *   -o F -S    F.0             F.1, F.2, ...
 *   -B -o F    F_CPU           F_cpuCPU.1, F_cpuCPU.2, ...
 *   -B -o F -S F_cpuCPU.0      F_cpuCPU.1, F_cpuCPU.2, ...
 *
 * Without -o (stdout, or -B's stpd_cpuCPU) there is no next file.
 */
struct outfile {
	int fd;
	int cpu;		/* -B: the CPU; -1: the merged output */
	char *buf;		/* written, not flushed yet */
	size_t len;
	uint64_t size;		/* bytes in the current file */
	unsigned int fnum;	/* the current file's number */
};

struct cpubuf {
	int cpu;
	int fd;
	const char *map;	/* the CPU's relay buffer, read only */
	uint64_t next;		/* the next sub-buffer to take */
	char *buf;		/* the frames taken, not printed yet */
	size_t len, off, cap;
	uint64_t base;		/* stream offset of buf[0] */
	bool bad;		/* framing broken: ignore the rest */
	struct outfile bulk;	/* -B: this CPU's output file */
};

static struct {
	/* options */
	const char *output, *cmd, *ko;
	bool bulk;
	bool json;		/* --json: the module writes JSON objects */
	uint64_t fsize_max;	/* -S: bytes per output file, 0: no limit */
	unsigned int fnum_max;	/* -S's N: files kept, 0: all */
	long xpid;
	double timeout;
	unsigned int bufsize_mb;
	int verbose;
	char **params;
	int nparams;

	/* the run */
	char name[256];		/* the module's name */
	bool loaded;
	int ctl;
	char dir[PATH_MAX];
	struct tp_proto_hello hello;
	struct cpubuf *cpus;	/* hello.ncpus of room, ncpus used */
	int ncpus;
	bool cpus_added;	/* poll()'s list must be made again */
	size_t map_size;	/* n_subbufs * subbuf_size */
	struct outfile out;	/* the merged output (not with -B) */
	bool out_failed;
	int out_cpu;		/* the CPU of the frame being printed */
	uint64_t next_seq;
	double stall_since;	/* 0: no gap being waited for */
	uint64_t gaps;
	uint64_t delivered;	/* output bytes printed */
	pid_t child;
	int child_pipe;		/* write end: open while the command waits */
	int status;		/* exit status */
	bool error_seen;	/* an "ERROR:" line from the module */
} R = { .ctl = -1, .child = -1, .child_pipe = -1, .next_seq = 1 };

static int sigpipe_fds[2] = { -1, -1 };

/* ---- messages ---- */

static __attribute__((format(printf, 1, 2))) void err(const char *fmt, ...)
{
	va_list ap;

	fputs("ERROR: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	R.status = 1;
}

static __attribute__((format(printf, 1, 2))) void verbose(const char *fmt, ...)
{
	va_list ap;

	if (!R.verbose)
		return;
	fputs("tapir-run: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fputs("usage: tapir-run [-o FILE] [-S MB[,N]] [-B] [-c CMD] [-x PID] [-T SECS]\n"
	      "                 [-b MB] [--json] [-v] MODULE.ko [VAR=VAL...]\n"
	      "Load a module built by tapir, run it and print its output.\n\n"
	      "  -o FILE   write the output to FILE instead of standard output\n"
	      "  -S MB[,N] with -o: FILE.0, FILE.1, ... of at most MB megabytes each,\n"
	      "            the last N of them kept (-B: FILE_cpuCPU.0, ... per CPU)\n"
	      "  -B        bulk: each CPU's output to a file of its own, FILE_CPU\n"
	      "            (stpd_cpuCPU without -o), in that CPU's order\n"
	      "  -c CMD    run CMD once the probes are in; target() is its pid and\n"
	      "            the run ends when it exits\n"
	      "  -x PID    target() is PID\n"
	      "  -T SECS   end the run after SECS seconds\n"
	      "  -b MB     output buffer per CPU in MB (1-4095; default 16)\n"
	      "  --json    the output as JSON objects, one per line (tapir(1))\n"
	      "  -v        say what happens\n"
	      "  VAR=VAL   set the script's global VAR (a module parameter)\n", f);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fputs("ERROR: Memory allocation failed.\n", stderr);
		exit(1);
	}
	return p;
}

/* ---- output ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void out_name(const struct outfile *o, unsigned int n, char *path,
		     size_t size)
{
	if (!R.output)
		snprintf(path, size, "stpd_cpu%d", o->cpu);
	else if (o->cpu < 0 && (n || R.fsize_max))
		snprintf(path, size, "%s.%u", R.output, n);
	else if (o->cpu < 0)
		snprintf(path, size, "%s", R.output);
	else if (n || R.fsize_max)
		snprintf(path, size, "%s_cpu%d.%u", R.output, o->cpu, n);
	else
		snprintf(path, size, "%s_%d", R.output, o->cpu);
}

/* Open @o's file number @n: 0, or -1 after the message. */
static int out_open(struct outfile *o, unsigned int n)
{
	char path[PATH_MAX + 32];
	int fd;

	out_name(o, n, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		err("Couldn't open output file %s: %s", path, strerror(errno));
		return -1;
	}
	verbose("output%s%.0d: %s", o->cpu < 0 ? "" : " of cpu ",
		o->cpu < 0 ? 0 : o->cpu, path);
	o->fd = fd;
	o->fnum = n;
	o->size = 0;
	return 0;
}

static void out_init(struct outfile *o, int cpu)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->cpu = cpu;
	o->buf = xrealloc(NULL, OUTBUF_SIZE);
}

/* Output that cannot be written (a closed pipe, a full disk) ends the
 * run, as staprun's: its message (an ERROR that leaves the exit status
 * alone, as staprun's does), then STOP, the rest thrown away. */
static void out_failed(const struct outfile *o)
{
	fprintf(stderr, "ERROR: Couldn't write to output %d for cpu %d, exiting.: %s\n",
		o->fd, o->cpu < 0 ? R.out_cpu : o->cpu, strerror(errno));
	R.out_failed = true;
}

static void out_flush1(struct outfile *o)
{
	if (o->len && !R.out_failed && write_all(o->fd, o->buf, o->len) < 0)
		out_failed(o);
	o->size += o->len;
	o->len = 0;
}

/* On to @o's next file, the oldest one beyond -S's N removed. */
static void out_rotate(struct outfile *o)
{
	char path[PATH_MAX + 32];
	int fd = o->fd;

	out_flush1(o);
	if (R.out_failed)
		return;
	if (out_open(o, o->fnum + 1) < 0) {
		R.out_failed = true;
		return;
	}
	if (close(fd) < 0) {
		int nfd = o->fd;

		o->fd = fd;
		out_failed(o);
		o->fd = nfd;
	}
	if (R.fnum_max && o->fnum >= R.fnum_max) {
		out_name(o, o->fnum - R.fnum_max, path, sizeof(path));
		unlink(path);
	}
}

static void out_put(struct outfile *o, const char *p, size_t n)
{
	if (R.out_failed)
		return;
	if (R.fsize_max && o->size + o->len + n > R.fsize_max &&
	    o->size + o->len > 0)
		out_rotate(o);
	if (o->len + n > OUTBUF_SIZE) {
		out_flush1(o);
		if (n > OUTBUF_SIZE) {
			if (!R.out_failed && write_all(o->fd, p, n) < 0)
				out_failed(o);
			o->size += n;
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* Everything written so far to its file. */
static void out_flush(void)
{
	int i;

	if (!R.bulk)
		out_flush1(&R.out);
	for (i = 0; i < R.ncpus && R.bulk; i++)
		out_flush1(&R.cpus[i].bulk);
}

/* switch_file(), SIGUSR2: every output file to its next one (-o only). */
static void out_switch(void)
{
	int i;

	if (!R.output)
		return;
	verbose("switching output files");
	if (!R.bulk)
		out_rotate(&R.out);
	for (i = 0; i < R.ncpus && R.bulk; i++)
		out_rotate(&R.cpus[i].bulk);
}

/* ---- signals ---- */

static void on_signal(int sig)
{
	unsigned char c = (unsigned char)sig;
	int e = errno;

	if (write(sigpipe_fds[1], &c, 1) < 0) {
		/* full: a wakeup is pending anyway */
	}
	errno = e;
}

/* In the -c command's child: the signals as staprun 4.8's -c command
 * has them, all default but SIGPIPE and SIGUSR2, which stay ignored
 * across exec (a writer to a closed pipe gets EPIPE, not the signal;
 * /proc/PID/status shows SigIgn 0x1800 under both). */
static void default_signals(void)
{
	sigset_t none;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Every descriptor from 3 up closes on exec: the -c command gets none of
 * those the loader inherited or opened, as under staprun 4.8. */
static void close_extra_fds(void)
{
	int fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
		return;
#endif
	for (fd = 3; fd < 1024; fd++)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* In system()'s child: as staprun 4.8's, SIGHUP, SIGINT, SIGQUIT,
 * SIGPIPE and SIGTERM ignored and blocked (SigIgn and SigBlk 0x5007),
 * the rest default. */
static void system_signals(void)
{
	static const int quiet[] = { SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM };
	sigset_t set;
	size_t i;

	default_signals();
	signal(SIGUSR2, SIG_DFL);
	sigemptyset(&set);
	for (i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++) {
		signal(quiet[i], SIG_IGN);
		sigaddset(&set, quiet[i]);
	}
	sigprocmask(SIG_SETMASK, &set, NULL);
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };
	int i;

	if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < 2; i++)
		fcntl(sigpipe_fds[i], F_SETFD, FD_CLOEXEC);
	return 0;
}

/* ---- the module file ---- */

/* The module's name from its .modinfo "name=" (else the file name). */
static void module_name(const char *path, int fd)
{
	struct stat st;
	const char *base;
	char *data = NULL;
	size_t i, n;

	R.name[0] = '\0';
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr) &&
	    st.st_size < (off_t)1 << 30) {
		data = malloc((size_t)st.st_size);
		if (data && pread(fd, data, (size_t)st.st_size, 0) == st.st_size) {
			const Elf64_Ehdr *eh = (const void *)data;
			size_t size = (size_t)st.st_size;

			if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
			    eh->e_ident[EI_CLASS] == ELFCLASS64 &&
			    eh->e_shentsize == sizeof(Elf64_Shdr) &&
			    eh->e_shoff < size &&
			    eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr) &&
			    eh->e_shstrndx < eh->e_shnum) {
				const Elf64_Shdr *sh = (const void *)(data + eh->e_shoff);
				const Elf64_Shdr *strs = &sh[eh->e_shstrndx];

				for (i = 0; i < eh->e_shnum && !R.name[0]; i++) {
					const char *sec, *p, *end;

					if (strs->sh_offset >= size ||
					    sh[i].sh_name >= size - strs->sh_offset ||
					    sh[i].sh_offset > size ||
					    sh[i].sh_size > size - sh[i].sh_offset)
						continue;
					sec = data + strs->sh_offset + sh[i].sh_name;
					if (strnlen(sec, size - (size_t)(sec - data)) ==
					    size - (size_t)(sec - data) ||
					    strcmp(sec, ".modinfo"))
						continue;
					p = data + sh[i].sh_offset;
					end = p + sh[i].sh_size;
					while (p < end) {
						size_t l = strnlen(p, (size_t)(end - p));

						if (l > 5 && l < sizeof(R.name) + 5 &&
						    !strncmp(p, "name=", 5)) {
							memcpy(R.name, p + 5, l - 5);
							R.name[l - 5] = '\0';
							break;
						}
						p += l + 1;
					}
				}
			}
		}
	}
	free(data);
	if (R.name[0])
		return;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	n = strnlen(base, sizeof(R.name) - 1);
	memcpy(R.name, base, n);
	R.name[n] = '\0';
	if (n > 3 && !strcmp(R.name + n - 3, ".ko"))
		R.name[n - 3] = '\0';
	for (i = 0; R.name[i]; i++)
		if (R.name[i] == '-')
			R.name[i] = '_';
}

/* "VAR=VAL ..." for the kernel (values with blanks in double quotes). */
static char *param_string(void)
{
	size_t n = 64;
	char *s, *p;
	int i;

	for (i = 0; i < R.nparams; i++)
		n += strlen(R.params[i]) + 3;
	s = p = xrealloc(NULL, n);
	*p = '\0';
	for (i = 0; i < R.nparams; i++) {
		const char *a = R.params[i], *eq = strchr(a, '=');

		if (p != s)
			*p++ = ' ';
		if (eq && strpbrk(eq + 1, " \t\n") && eq[1] != '"')
			p += sprintf(p, "%.*s\"%s\"", (int)(eq - a + 1), a, eq + 1);
		else
			p += sprintf(p, "%s", a);
	}
	if (R.bufsize_mb)
		p += sprintf(p, "%s_tapir_bufsize=%u", p != s ? " " : "", R.bufsize_mb);
	if (R.json)
		p += sprintf(p, "%s_tapir_json=1", p != s ? " " : "");
	return s;
}

/* init_module's errors as modprobe (and staprun) word them. */
static const char *moderror(int e)
{
	switch (e) {
	case ENOEXEC:
		return "Invalid module format";
	case ENOENT:
		return "Unknown symbol in module";
	case ESRCH:
		return "Module has wrong symbol version";
	case EINVAL:
		return "Invalid parameters";
	default:
		return strerror(e);
	}
}

static void remove_module(void)
{
	int tries;

	if (!R.loaded)
		return;
	for (tries = 0; ; tries++) {
		if (syscall(SYS_delete_module, R.name, O_NONBLOCK) == 0)
			break;
		if ((errno == EAGAIN || errno == EBUSY || errno == EINTR) &&
		    tries < 100) {
			usleep(50 * 1000);
			continue;
		}
		err("Couldn't remove module '%s': %s.", R.name, strerror(errno));
		return;
	}
	R.loaded = false;
	verbose("removed module %s", R.name);
}

/* ---- the files ---- */

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int find_dir(void)
{
	char dbg[PATH_MAX], prc[PATH_MAX];
	int attempt;

	snprintf(dbg, sizeof(dbg), TP_PROTO_DEBUGFS_DIR "%s", R.name);
	snprintf(prc, sizeof(prc), TP_PROTO_PROCFS_DIR "%s", R.name);
	for (attempt = 0; attempt < 2; attempt++) {
		if (is_dir(dbg)) {
			snprintf(R.dir, sizeof(R.dir), "%s", dbg);
			return 0;
		}
		if (is_dir(prc)) {
			snprintf(R.dir, sizeof(R.dir), "%s", prc);
			return 0;
		}
		/* debugfs may just not be mounted */
		if (attempt == 0 &&
		    mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) == 0)
			verbose("mounted debugfs on /sys/kernel/debug");
	}
	return -1;
}

static ssize_t read_retry(int fd, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Open and map CPU @cpu's traceN (once). 1: done, 0: no such file, -1. */
static int open_cpu(int cpu)
{
	char path[PATH_MAX + 32];
	struct cpubuf *c;
	void *map;
	int i, fd;

	for (i = 0; i < R.ncpus; i++)
		if (R.cpus[i].cpu == cpu)
			return 1;
	if (cpu < 0 || cpu >= (int)R.hello.ncpus) {
		err("Module %s names cpu %d, not below %u", R.name, cpu, R.hello.ncpus);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/" TP_PROTO_TRACE "%d", R.dir, cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;	/* CPU offline */
		err("Couldn't open file for cpu %d: %s", cpu, strerror(errno));
		return -1;
	}
	/* (populated now, before the start, rather than a page fault per
	 * page during the first lap over the buffer) */
	map = mmap(NULL, R.map_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		err("Couldn't map the buffer of cpu %d (%zu bytes): %s", cpu,
		    R.map_size, strerror(errno));
		close(fd);
		return -1;
	}
	c = &R.cpus[R.ncpus++];
	memset(c, 0, sizeof(*c));
	c->cpu = cpu;
	c->fd = fd;
	c->map = map;
	if (R.bulk) {
		out_init(&c->bulk, cpu);
		if (out_open(&c->bulk, 0) < 0)
			return -1;
	}
	R.cpus_added = true;
	verbose("cpu %d: %s", cpu, path);
	return 1;
}

static int open_channels(void)
{
	char path[PATH_MAX + 32];
	char buf[TP_PROTO_MSG_MAX];
	struct tp_proto_msg h;
	ssize_t n;
	int i;

	if (find_dir() < 0) {
		err("Cannot attach to module %s control channel; not running?", R.name);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/" TP_PROTO_CTL, R.dir);
	R.ctl = open(path, O_RDWR | O_CLOEXEC);
	if (R.ctl < 0) {
		err("Couldn't open '%s': %s", path, strerror(errno));
		return -1;
	}
	n = read_retry(R.ctl, buf, sizeof(buf));
	if (n < (ssize_t)(sizeof(h) + 8)) {
		err("Couldn't read from '%s': %s", path,
		    n < 0 ? strerror(errno) : "short message");
		return -1;
	}
	memcpy(&h, buf, sizeof(h));
	memset(&R.hello, 0, sizeof(R.hello));
	memcpy(&R.hello, buf + sizeof(h),
	       h.len < sizeof(R.hello) ? h.len : sizeof(R.hello));
	if (h.type != TP_PROTO_HELLO || R.hello.magic != TP_PROTO_MAGIC) {
		err("Module %s is not a tapir module (no greeting on its control channel)",
		    R.name);
		return -1;
	}
	if (R.hello.version != TP_PROTO_VERSION) {
		err("Module %s speaks transport protocol version %u, this tapir-run "
		    "version %u: run it with the tapir-run of the tapir that built it",
		    R.name, R.hello.version, TP_PROTO_VERSION);
		return -1;
	}
	/* from now on poll() says when to read */
	fcntl(R.ctl, F_SETFL, fcntl(R.ctl, F_GETFL) | O_NONBLOCK);
	if (n > (ssize_t)TP_PROTO_MSG_SIZE(h.len)) {
		/* more messages came with HELLO: none is expected before START */
		verbose("ignoring %zd bytes after HELLO",
			n - (ssize_t)TP_PROTO_MSG_SIZE(h.len));
	}
	verbose("module %s: %s in %s, %u CPUs, %llu bytes per CPU", R.name,
		(R.hello.flags & TP_PROTO_HELLO_DEBUGFS) ? "debugfs" : "procfs",
		R.dir, R.hello.ncpus, (unsigned long long)R.hello.bufsize);
	verbose("%u sub-buffers of %llu bytes per CPU, completed every %u ms",
		R.hello.n_subbufs, (unsigned long long)R.hello.subbuf_size,
		R.hello.flush_ms);
	if (R.hello.ncpus == 0 || R.hello.ncpus > 65536) {
		err("Module %s reports %u CPUs", R.name, R.hello.ncpus);
		return -1;
	}
	if (R.hello.n_subbufs < 2 || R.hello.n_subbufs > 65536 ||
	    R.hello.subbuf_size <= sizeof(struct tp_proto_subbuf) ||
	    R.hello.subbuf_size > ((uint64_t)1 << 32) ||
	    (R.hello.subbuf_size & (R.hello.subbuf_size - 1))) {
		err("Module %s reports %u sub-buffers of %llu bytes", R.name,
		    R.hello.n_subbufs, (unsigned long long)R.hello.subbuf_size);
		return -1;
	}
	R.map_size = (size_t)R.hello.n_subbufs * R.hello.subbuf_size;
	R.cpus = calloc(R.hello.ncpus, sizeof(*R.cpus));
	if (!R.cpus) {
		err("Memory allocation failed.");
		return -1;
	}
	for (i = 0; i < (int)R.hello.ncpus; i++)
		if (open_cpu(i) < 0)
			return -1;
	if (!R.ncpus) {
		err("Module %s has no output files in %s", R.name, R.dir);
		return -1;
	}
	return 0;
}

/* ---- output frames ---- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int send_msg(uint32_t type, const void *payload, uint32_t len);

/*
 * Take CPU c's completed sub-buffers (at most a buffer's worth, so that a
 * writer faster than us cannot keep us from the other CPUs and the
 * control channel), then tell the module it may reuse them. A sub-buffer
 * is ours once its `done` says so: the one being written never is.
 * 1: got data, 0: none, -1: error.
 */
static int read_cpu(struct cpubuf *c)
{
	const uint64_t size = R.hello.subbuf_size;
	const uint64_t start = c->next;

	while (!c->bad && c->next - start < R.hello.n_subbufs) {
		const struct tp_proto_subbuf *h = (const void *)
			(c->map + (c->next % R.hello.n_subbufs) * size);
		size_t n;

		if (__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) != c->next + 1)
			break;
		if (h->magic != TP_PROTO_SUBBUF_MAGIC || h->id != c->next + 1 ||
		    h->len < sizeof(*h) || h->len > size) {
			err("The output of cpu %d is corrupt at sub-buffer %llu; the rest of it is lost",
			    c->cpu, (unsigned long long)c->next);
			c->bad = true;
			break;
		}
		n = h->len - sizeof(*h);
		if (c->off && c->off == c->len) {
			c->base += c->off;
			c->off = c->len = 0;
		}
		if (c->cap - c->len < n) {
			if (c->off) {
				memmove(c->buf, c->buf + c->off, c->len - c->off);
				c->base += c->off;
				c->len -= c->off;
				c->off = 0;
			}
			if (c->cap - c->len < n) {
				c->cap = c->len + n + size;
				c->buf = xrealloc(c->buf, c->cap);
			}
		}
		memcpy(c->buf + c->len, (const char *)h + sizeof(*h), n);
		c->len += n;
		c->next++;
	}
	if (c->next != start) {
		struct tp_proto_consumed m = { .cpu = (uint32_t)c->cpu,
					       .subbufs = c->next };

		if (send_msg(TP_PROTO_CONSUMED, &m, sizeof(m)) < 0) {
			err("Couldn't tell the module what was read of cpu %d: %s",
			    c->cpu, strerror(errno));
			return -1;
		}
		return 1;
	}
	return 0;
}

/* CPU c's first whole frame, or NULL. */
static const struct tp_proto_frame *head(struct cpubuf *c, bool *partial)
{
	static struct tp_proto_frame f;

	*partial = false;
	if (c->bad || c->len - c->off < sizeof(f)) {
		*partial = !c->bad && c->len > c->off;
		return NULL;
	}
	memcpy(&f, c->buf + c->off, sizeof(f));
	if (f.magic != TP_PROTO_FRAME_MAGIC &&
	    (f.magic != TP_PROTO_SWITCH_MAGIC || f.len)) {
		err("The output of cpu %d is corrupt at frame %llu; the rest of it is lost",
		    c->cpu, (unsigned long long)R.next_seq);
		c->bad = true;
		if (R.verbose > 1) {
			size_t k, n = c->len - c->off < 64 ? c->len - c->off : 64;

			fprintf(stderr, "tapir-run: cpu %d, stream offset %llu, %zu bytes "
				"buffered:", c->cpu,
				(unsigned long long)(c->base + c->off), c->len - c->off);
			for (k = 0; k < n; k++)
				fprintf(stderr, "%s%02x", k % 16 ? " " : "\n  ",
					(unsigned char)c->buf[c->off + k]);
			fputc('\n', stderr);
		}
		return NULL;
	}
	if (c->len - c->off < sizeof(f) + f.len) {
		*partial = true;
		return NULL;
	}
	return &f;
}

/* Print c's frame f (its output to the merged file, or c's with -B). */
static void put_frame(struct cpubuf *c, const struct tp_proto_frame *f)
{
	R.out_cpu = c->cpu;
	if (f->magic == TP_PROTO_SWITCH_MAGIC)
		out_switch();
	else
		out_put(R.bulk ? &c->bulk : &R.out,
			c->buf + c->off + sizeof(*f), f->len);
	R.delivered += f->len;
	c->off += sizeof(*f) + f->len;
}

/*
 * Print frames in sequence order (with -B too, so that switch_file()
 * switches every CPU's file at its place). A missing number is a frame still being
 * written on another CPU: wait for it, but not forever (a CPU whose file
 * could not be opened); at the end (@final) no more can come.
 */
static void merge(bool final)
{
	for (;;) {
		struct cpubuf *best = NULL;
		uint64_t min_seq = UINT64_MAX;
		bool waiting = false, progress = false;
		int i;

		for (i = 0; i < R.ncpus; i++) {
			struct cpubuf *c = &R.cpus[i];
			const struct tp_proto_frame *f;
			bool partial;

			/* the same CPU's next frame is usually next */
			while ((f = head(c, &partial)) && f->seq == R.next_seq) {
				put_frame(c, f);
				R.next_seq++;
				progress = true;
			}
			if (f && f->seq < min_seq) {
				min_seq = f->seq;
				best = c;
			}
			if (partial)
				waiting = true;
		}
		if (progress) {
			R.stall_since = 0;
			continue;
		}
		if (!best) {
			R.stall_since = 0;
			return;
		}
		if (best && min_seq < R.next_seq) {
			/* cannot happen with a sane module: print it anyway */
			R.next_seq = min_seq;
			continue;
		}
		if (!final) {
			if (!R.stall_since)
				R.stall_since = now();
			if (waiting || now() - R.stall_since < STALL_SECS)
				return;
		}
		R.gaps += min_seq - R.next_seq;
		verbose("frames %llu to %llu are missing",
			(unsigned long long)R.next_seq, (unsigned long long)min_seq - 1);
		R.next_seq = min_seq;
		R.stall_since = 0;
	}
}

static int read_all_cpus(void)
{
	int i, got = 0;

	for (i = 0; i < R.ncpus; i++) {
		int r = read_cpu(&R.cpus[i]);

		if (r < 0)
			return -1;
		got |= r;
	}
	return got;
}

/* ---- the command (-c) ---- */

static volatile sig_atomic_t child_go;

static void on_go(int sig)
{
	(void)sig;
	child_go = 1;
}

/*
 * In the command's process, before exec: wait for the go signal, SIGUSR1,
 * caught by on_go() (installed first thing after the fork, while the
 * signal is still blocked as it was since before the fork: one that comes
 * early only sets child_go early). The pipe's read end reports the
 * loader's end (EOF): the command then never runs.
 */
static void child_wait_go(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t usr1, none;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	while (!child_go) {
		sigset_t pending;

		if (ppoll(&pfd, 1, NULL, &none) <= 0)
			continue;
		/* EOF: the loader ended, unless the signal came with it */
		sigpending(&pending);
		if (!sigismember(&pending, SIGUSR1))
			_exit(1);
		sigsuspend(&none);
	}
	/* What the command's probes see of this, as with staprun: SIGUSR1
	 * back to its default while still blocked, then an empty mask. */
	sigaction(SIGUSR1, &dfl, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static int start_child(void)
{
	sigset_t usr1, old;
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		err("Couldn't create a pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	pid = fork();
	if (pid != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		err("Fork error (%d): %s", errno, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		wordexp_t words;
		char *sh[] = { "sh", "-c", (char *)R.cmd, NULL };
		char **argv = sh;
		const char *path = "/bin/sh";
		struct sigaction go = { .sa_handler = on_go };
		int rc;

		sigaction(SIGUSR1, &go, NULL);
		close(p[1]);
		default_signals();
		/* As staprun: words when the command is plain words, a shell
		 * when it uses the shell's syntax. */
		rc = wordexp(R.cmd, &words, WRDE_NOCMD | WRDE_UNDEF);
		if (rc == 0 && words.we_wordc < 1) {
			fputs("ERROR: empty -c COMMAND\n", stderr);
			_exit(1);
		} else if (rc == 0) {
			argv = words.we_wordv;
			path = NULL;
		} else if (rc == WRDE_SYNTAX) {
			fputs("ERROR: wordexp: syntax error (unmatched quotes?) in -c COMMAND\n",
			      stderr);
			_exit(1);
		} else if (rc != WRDE_BADCHAR && rc != WRDE_CMDSUB) {
			fprintf(stderr, "ERROR: wordexp: parsing error (%d)\n", rc);
			_exit(1);
		}
		/* as under staprun, the command gets only 0, 1 and 2 of
		 * what the loader was given */
		close_extra_fds();
		/* held until the probes are in */
		child_wait_go(p[0]);	/* p[0] closes on exec */
		if (path)
			execv(path, argv);
		else
			execvp(argv[0], argv);
		/* staprun names the whole command */
		fprintf(stderr, "%s: %s\n", R.cmd, strerror(errno));
		_exit(1);
	}
	close(p[0]);
	R.child = pid;
	R.child_pipe = p[1];
	verbose("command pid %d waits for the start", (int)pid);
	return 0;
}

static void release_child(void)
{
	if (R.child_pipe >= 0) {
		if (kill(R.child, SIGUSR1) < 0)
			err("Couldn't start the command: %s", strerror(errno));
		close(R.child_pipe);
		R.child_pipe = -1;
	}
}

static void kill_child(void)
{
	if (R.child > 0 && R.child_pipe >= 0) {
		/* never started: it dies without running the command */
		close(R.child_pipe);
		R.child_pipe = -1;
		kill(R.child, SIGKILL);
		waitpid(R.child, NULL, 0);
		R.child = -1;
	}
}

/* The command ended: 1 (the run should stop), else 0. */
static int reap_child(void)
{
	int st;
	pid_t p;

	if (R.child <= 0)
		return 0;
	p = waitpid(R.child, &st, WNOHANG);
	if (p != R.child)
		return 0;
	R.child = -1;
	if (WIFEXITED(st) && WEXITSTATUS(st)) {
		out_flush();
		fprintf(stderr, "WARNING: Child process exited with status %d\n",
			WEXITSTATUS(st));
		R.status = 1;
	} else if (WIFSIGNALED(st)) {
		out_flush();
		fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
		R.status = 1;
	}
	return 1;
}

/* ---- the control channel ---- */

static int send_msg(uint32_t type, const void *payload, uint32_t len)
{
	char buf[TP_PROTO_MSG_MAX];
	struct tp_proto_msg h = { .type = type, .len = len };
	ssize_t w;

	memcpy(buf, &h, sizeof(h));
	if (len)
		memcpy(buf + sizeof(h), payload, len);
	do
		w = write(R.ctl, buf, sizeof(h) + len);
	while (w < 0 && errno == EINTR);
	return w < 0 ? -1 : 0;
}

struct run_state {
	bool started;		/* STARTED came */
	int start_status;
	bool stop_sent;
	bool done;
	struct tp_proto_done stats;
};

/*
 * A WARNING text seen before is not printed again (as stapio, which keeps
 * a table of them): true if @text was new, or the table is full.
 */
#define WARN_SLOTS 4096		/* a power of 2 */
static bool warning_is_new(const char *text, size_t n)
{
	static char *seen[WARN_SLOTS];
	static unsigned int used;
	static bool full;
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	unsigned int i, k;

	while (n && text[n - 1] == '\n')
		n--;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
	for (k = 0; k < WARN_SLOTS; k++) {
		char **slot = &seen[(h + k) & (WARN_SLOTS - 1)];

		if (!*slot) {
			if (used >= WARN_SLOTS / 2) {
				if (!full)
					fputs("WARNING deduplication table full\n", stderr);
				full = true;
				return true;
			}
			*slot = strndup(text, n);
			used++;
			return true;
		}
		if (strlen(*slot) == n && !memcmp(*slot, text, n))
			return false;
	}
	return true;
}

static void print_stderr(const char *text, size_t n)
{
	out_flush();		/* the output before it, first */
	if (n >= 8 && !memcmp(text, "WARNING:", 8) && !warning_is_new(text, n))
		return;
	if (n >= 6 && !memcmp(text, "ERROR:", 6)) {
		R.error_seen = true;
		R.status = 1;
	}
	if (write_all(STDERR_FILENO, text, n) == 0 &&
	    (n == 0 || text[n - 1] != '\n'))
		write_all(STDERR_FILENO, "\n", 1);
}

/* system(cmd): /bin/sh -c CMD in the background, with the loader's
 * stdout and stderr (the script's output so far goes first). A child
 * that forks the command and exits at once, so that the command is
 * nobody's to wait for here (the -c command's status stays the only one
 * reaped). */
static void run_system(const char *text, size_t n)
{
	char cmd[TP_PROTO_TEXT_MAX + 1];
	pid_t pid;

	memcpy(cmd, text, n);
	cmd[n] = '\0';
	verbose("system: %s", cmd);
	out_flush();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err("Fork error (%d): %s", errno, strerror(errno));
		return;
	}
	if (pid == 0) {
		system_signals();
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "ERROR: system: /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* input.char, input.line: when the module has the procfs file
 * /proc/systemtap/NAME/__stdin (a procfs("__stdin").write probe), the
 * loader's standard input goes to it one byte per write(), as staprun
 * does, until its end. -1 when there is no such file. */
static int open_stdin_file(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", R.name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		verbose("feeding standard input to %s", path);
	return fd;
}

/* Standard input is readable: hand it on. False at its end. */
static bool feed_stdin(int fd)
{
	char buf[4096];
	ssize_t n, i;

	n = read(STDIN_FILENO, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	for (i = 0; i < n; i++)
		while (write(fd, buf + i, 1) < 0 && errno == EINTR)
			;
	return true;
}

/* Read and handle the queued messages. 1: want STOP, 0, -1: error. */
static int ctl_messages(struct run_state *s)
{
	static char buf[64 * 1024];
	int want_stop = 0;
	size_t off = 0;
	ssize_t n;

	n = read_retry(R.ctl, buf, sizeof(buf));
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		err("Couldn't read the control channel: %s", strerror(errno));
		return -1;
	}
	while (off + sizeof(struct tp_proto_msg) <= (size_t)n) {
		struct tp_proto_msg h;
		const char *p = buf + off + sizeof(h);

		memcpy(&h, buf + off, sizeof(h));
		if (off + TP_PROTO_MSG_SIZE(h.len) > (size_t)n) {
			err("Corrupt message on the control channel (type %u, %u bytes)",
			    h.type, h.len);
			return -1;
		}
		switch (h.type) {
		case TP_PROTO_STARTED: {
			struct tp_proto_started st = { 0 };

			memcpy(&st, p, h.len < sizeof(st) ? h.len : sizeof(st));
			s->started = true;
			s->start_status = st.status;
			verbose("started: %d", st.status);
			break;
		}
		case TP_PROTO_STDERR:
			print_stderr(p, h.len);
			break;
		case TP_PROTO_SYSTEM:
			run_system(p, h.len);
			break;
		case TP_PROTO_REQUEST_EXIT:
			verbose("the module asks to stop");
			want_stop = 1;
			break;
		case TP_PROTO_CPU_ONLINE: {
			struct tp_proto_cpu m = { 0 };

			memcpy(&m, p, h.len < sizeof(m) ? h.len : sizeof(m));
			verbose("cpu %u came online", m.cpu);
			if (open_cpu((int)m.cpu) < 0)
				return -1;
			break;
		}
		case TP_PROTO_DONE:
			memset(&s->stats, 0, sizeof(s->stats));
			memcpy(&s->stats, p, h.len < sizeof(s->stats) ?
			       h.len : sizeof(s->stats));
			s->done = true;
			break;
		default:
			verbose("ignoring message type %u", h.type);
		}
		off += TP_PROTO_MSG_SIZE(h.len);
	}
	return want_stop;
}

/* ---- the run ---- */

static void report(const struct run_state *s)
{
	const struct tp_proto_done *d = &s->stats;

	verbose("%llu frames, %llu bytes; lost: %llu writes, %llu bytes, "
		"%llu messages; %llu frames missing",
		(unsigned long long)d->frames, (unsigned long long)d->bytes,
		(unsigned long long)d->lost_writes, (unsigned long long)d->lost_bytes,
		(unsigned long long)d->lost_messages, (unsigned long long)R.gaps);
	if (d->lost_writes) {
		if (R.hello.bufsize_mb)
			fprintf(stderr, "WARNING: There were %llu transport failures. "
				"Try tapir -s to increase the buffer size from %u.\n",
				(unsigned long long)d->lost_writes, R.hello.bufsize_mb);
		else
			fprintf(stderr, "WARNING: There were %llu transport failures "
				"(%llu bytes lost) with a buffer of %llu KB.\n",
				(unsigned long long)d->lost_writes,
				(unsigned long long)d->lost_bytes,
				(unsigned long long)R.hello.bufsize / 1024);
	}
	if (d->lost_messages)
		fprintf(stderr, "WARNING: %llu error and warning messages were lost "
			"(too many at once).\n", (unsigned long long)d->lost_messages);
	if (R.gaps)
		fprintf(stderr, "WARNING: %llu pieces of output were lost in transit.\n",
			(unsigned long long)R.gaps);
}

/* START's facts about the loader: its pid (stp_pid()), real uid
 * (is_myproc()) and local time
 * zone (tz_gmtoff(), tz_name()), as at startup. */
static void start_tz(struct tp_proto_start *st)
{
	time_t t = time(NULL);
	struct tm tm;

	st->loader_pid = getpid();
	st->loader_uid = getuid();
	tzset();
	if (!localtime_r(&t, &tm))
		return;
	st->tz_gmtoff = (int32_t)-tm.tm_gmtoff;
	if (tm.tm_zone)
		snprintf(st->tz_name, sizeof(st->tz_name), "%s", tm.tm_zone);
}

static int run(void)
{
	struct tp_proto_start st = {
		.magic = TP_PROTO_MAGIC,
		.version = TP_PROTO_VERSION,
	};
	struct run_state s = { 0 };
	struct pollfd *pfd;
	double deadline = R.timeout > 0 ? now() + R.timeout : 0;
	bool want_stop = false, stdin_tried = false;
	int stdin_fd = -1, in_slot;
	double t0 = now();
	uint64_t delivered;
	int i, rc;

	if (R.cmd && start_child() < 0)
		return -1;
	if (R.cmd) {
		st.flags |= TP_PROTO_START_TARGET;
		st.target_pid = R.child;
	} else if (R.xpid) {
		st.flags |= TP_PROTO_START_TARGET;
		st.target_pid = R.xpid;
	}
	start_tz(&st);
	if (send_msg(TP_PROTO_START, &st, sizeof(st)) < 0) {
		if (errno == EPROTO)
			err("Module %s refused to start: transport protocol version "
			    "mismatch (tapir-run speaks version %u)", R.name,
			    TP_PROTO_VERSION);
		else
			err("Couldn't start module %s: %s", R.name, strerror(errno));
		kill_child();
		return -1;
	}
	/* room for every CPU that may come online */
	pfd = calloc((size_t)R.hello.ncpus + 3, sizeof(*pfd));
	if (!pfd) {
		err("Memory allocation failed.");
		kill_child();
		return -1;
	}
	R.cpus_added = true;

	while (!s.done) {
		int timeout = POLL_MS;

		if (R.cpus_added) {
			pfd[0].fd = sigpipe_fds[0];
			pfd[1].fd = R.ctl;
			for (i = 0; i < R.ncpus; i++)
				pfd[i + 2].fd = R.cpus[i].fd;
			for (i = 0; i < R.ncpus + 2; i++)
				pfd[i].events = POLLIN;
			R.cpus_added = false;
		}

		if (deadline && !want_stop) {
			double left = deadline - now();

			if (left <= 0)
				want_stop = true;
			else if (left * 1000 < timeout)
				timeout = (int)(left * 1000) + 1;
		}
		if (want_stop && !s.stop_sent)
			timeout = 0;
		/* the last slot: standard input, while it goes to __stdin */
		in_slot = R.ncpus + 2;	/* (CPUs may come online below) */
		pfd[in_slot].fd = stdin_fd >= 0 ? STDIN_FILENO : -1;
		pfd[in_slot].events = POLLIN;
		pfd[in_slot].revents = 0;
		rc = poll(pfd, (nfds_t)in_slot + 1, timeout);
		if (rc < 0 && errno != EINTR) {
			err("poll: %s", strerror(errno));
			break;
		}
		/* signals */
		for (;;) {
			unsigned char sig;

			if (read(sigpipe_fds[0], &sig, 1) != 1)
				break;
			if (sig == SIGCHLD) {
				if (reap_child())
					want_stop = true;
			} else if (sig == SIGUSR2) {
				/* staprun's: the output so far stays */
				out_switch();
			} else {
				verbose("signal %d: stopping", sig);
				want_stop = true;
			}
		}
		/* output first, then the messages that came after it */
		if (read_all_cpus() < 0)
			want_stop = true;
		merge(false);
		out_flush();
		if (R.out_failed)
			want_stop = true;
		rc = ctl_messages(&s);
		if (rc < 0)
			break;
		if (rc > 0)
			want_stop = true;
		if (s.started && s.start_status == 0) {
			/* the begin probes' output before the command's:
			 * the module completed it before STARTED */
			if (R.child_pipe >= 0) {
				if (read_all_cpus() < 0)
					want_stop = true;
				merge(false);
				out_flush();
			}
			release_child();
			if (!stdin_tried) {
				stdin_tried = true;
				stdin_fd = open_stdin_file();
			}
		}
		if (stdin_fd >= 0 &&
		    (pfd[in_slot].revents & (POLLIN | POLLHUP)) &&
		    !feed_stdin(stdin_fd)) {
			close(stdin_fd);
			stdin_fd = -1;
		}
		if (s.started && s.start_status) {
			kill_child();
			want_stop = false;	/* the module stops by itself */
		}
		if (want_stop && s.started && !s.stop_sent && !s.done) {
			verbose("sending STOP");
			if (send_msg(TP_PROTO_STOP, NULL, 0) < 0) {
				err("Couldn't stop module %s: %s", R.name, strerror(errno));
				break;
			}
			s.stop_sent = true;
		}
		out_flush();
	}
	free(pfd);
	if (stdin_fd >= 0)
		close(stdin_fd);
	/* everything written before DONE is in the files now */
	while (read_all_cpus() > 0)
		merge(false);
	merge(true);
	out_flush();
	delivered = R.delivered;
	verbose("delivered %llu bytes in %.3f s", (unsigned long long)delivered,
		now() - t0);
	if (s.started && s.start_status && !R.error_seen)
		err("Module %s failed to start: %s", R.name, strerror(-s.start_status));
	if (s.done)
		report(&s);
	kill_child();
	return s.done ? 0 : -1;
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < R.ncpus; i++) {
		munmap((void *)R.cpus[i].map, R.map_size);
		close(R.cpus[i].fd);
		if (R.bulk) {
			if (close(R.cpus[i].bulk.fd) < 0 && !R.out_failed)
				out_failed(&R.cpus[i].bulk);
			free(R.cpus[i].bulk.buf);
		}
		free(R.cpus[i].buf);
	}
	free(R.cpus);
	R.cpus = NULL;
	R.ncpus = 0;
	if (R.ctl >= 0)
		close(R.ctl);
	R.ctl = -1;
	remove_module();
}

int main(int argc, char **argv)
{
	char *params, *endp;
	char real[PATH_MAX];
	int opt, fd;

	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};

	while ((opt = getopt_long(argc, argv, "+o:S:Bc:x:T:b:vh", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'J':
			R.json = true;
			break;
		case 'o':
			R.output = optarg;
			break;
		case 'B':
			R.bulk = true;
			break;
		case 'S': {
			unsigned long mb = strtoul(optarg, &endp, 10), n = 0;

			if (*endp == ',')
				n = strtoul(endp + 1, &endp, 10);
			if (*endp || mb < 1 || mb > 1ul << 20 || (strchr(optarg, ',') && n < 1) ||
			    n > 1000000) {
				err("Invalid file size '%s' (MB[,N]: MB and N from 1).", optarg);
				return 1;
			}
			R.fsize_max = (uint64_t)mb << 20;
			R.fnum_max = (unsigned int)n;
			break;
		}
		case 'c':
			R.cmd = optarg;
			break;
		case 'x':
			errno = 0;
			R.xpid = strtol(optarg, &endp, 10);
			if (errno || *endp || R.xpid <= 0) {
				err("Invalid target process ID '%s'.", optarg);
				return 1;
			}
			break;
		case 'T':
			R.timeout = strtod(optarg, &endp);
			if (*endp || !(R.timeout > 0)) {
				err("Invalid timeout '%s' (seconds, more than 0).", optarg);
				return 1;
			}
			break;
		case 'b': {
			long b = strtol(optarg, &endp, 10);

			if (*endp || b < 1 || b > TP_PROTO_BUFSIZE_MAX_MB) {
				err("Invalid buffer size '%s' (should be 1-%d).", optarg,
				    TP_PROTO_BUFSIZE_MAX_MB);
				return 1;
			}
			R.bufsize_mb = (unsigned int)b;
			break;
		}
		case 'v':
			R.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind >= argc) {
		err("Need a module name or path to load.");
		usage(stderr);
		return 1;
	}
	if (R.fsize_max && !R.output) {
		err("-S needs -o FILE.");
		return 1;
	}
	if (R.cmd && R.xpid) {
		err("You can't specify the '-c' and '-x' options together.");
		return 1;
	}
	if (R.cmd && !*R.cmd) {
		err("empty -c COMMAND");
		return 1;
	}
	R.ko = argv[optind];
	R.params = argv + optind + 1;
	R.nparams = argc - optind - 1;

	if (geteuid() != 0) {
		fputs("ERROR: You are trying to run tapir-run as a normal user.\n"
		      "You should be root: tapir-run loads a kernel module.\n", stderr);
		return 1;
	}
	if (!realpath(R.ko, real)) {
		err("Unable to canonicalize path \"%s\": %s", R.ko, strerror(errno));
		return 1;
	}
	fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("Couldn't open module file %s: %s", R.ko, strerror(errno));
		return 1;
	}
	module_name(real, fd);
	/* what staprun tells the commands it starts (-c, system()) */
	{
		char v[16];

		snprintf(v, sizeof(v), "%d", R.verbose);
		setenv("SYSTEMTAP_MODULE", R.name, 1);
		setenv("SYSTEMTAP_VERBOSE", v, 1);
	}
	out_init(&R.out, -1);
	if (R.output && !R.bulk) {
		if (out_open(&R.out, 0) < 0)
			return 1;
	} else {
		R.out.fd = STDOUT_FILENO;
	}
	if (setup_signals() < 0) {
		err("Couldn't set up signals: %s", strerror(errno));
		return 1;
	}

	params = param_string();
	verbose("loading %s as %s with \"%s\"", R.ko, R.name, params);
	if (syscall(SYS_finit_module, fd, params, 0) != 0) {
		err("Couldn't insert module '%s': %s", R.ko, moderror(errno));
		return 1;
	}
	R.loaded = true;
	close(fd);
	free(params);

	if (open_channels() == 0)
		run();
	cleanup();
	if (R.out.fd != STDOUT_FILENO && close(R.out.fd) < 0 && !R.out_failed)
		out_failed(&R.out);
	return R.status;
}
