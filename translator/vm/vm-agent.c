// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-agent.c - the /init of a Tapir VM guest (linked statically).
 *
 * It mounts the pseudo file systems, loads the kernel modules the host
 * listed, opens the channel to the host (vm-proto.h), and runs the jobs
 * VM_GUEST_JOBDIR/0, 1, ... one after the other with /bin/sh. Each job's
 * standard output and error, its exit status and the kernel log lines
 * written while it ran go to the host in separate frames. Control bytes
 * from the host interrupt or kill the running job. At the end it powers
 * the machine off.
 *
 * Nothing may leave PID 1 without powering off: an exiting init panics
 * the kernel, which the host would report as a crash of the guest.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vm-proto.h"

#define MAX_MODULES 64
#define KMSG_RECORD 8192
#define LEFTOVER_MS 2000	/* wait for a job's pipes after it exited */

struct agent {
	int chan;		/* to the host */
	int chan_is_tty;
	int kmsg;		/* /dev/kmsg, non-blocking; -1 if unavailable */
	int sigfd;		/* SIGCHLD */
	int njobs;
	int stop;		/* run no further jobs */
	const char *port;	/* "virtio" or a device path */
	char *modules[MAX_MODULES];
	int nmodules;
};

struct job {
	int idx;
	pid_t pid;
	int out, err;		/* read ends; -1 once at EOF */
	int exited;
	int wstatus;
	unsigned int flags;	/* VM_EXIT_* */
	struct timespec t0, t_exit;
};

static struct agent ag = { .chan = -1, .kmsg = -1, .sigfd = -1 };
static unsigned char frame_buf[sizeof(struct vm_frame) + VM_FRAME_MAX];

static void console(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_text(int type, int job, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Messages before the channel exists go to the console (ttyS0). */
static void console(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		fd = 2;
	if (write(fd, buf, n) < 0) {
		/* nowhere left to complain */
	}
	if (fd != 2)
		close(fd);
}

static void power_off(void)
{
	if (ag.chan >= 0 && ag.chan_is_tty)
		tcdrain(ag.chan);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	char buf[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console("tapir-vm-agent: fatal: %s", buf);
	power_off();
	__builtin_unreachable();
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1e3 + (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* ---- the channel ---- */

static void write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			die("writing to the host channel: %s", strerror(errno));
		c += w;
		n -= w;
	}
}

static void send_frame(int type, int job, const void *data, size_t len)
{
	struct vm_frame h = { .type = type, .job = job };

	do {
		size_t n = len > VM_FRAME_MAX ? VM_FRAME_MAX : len;

		h.len = n;
		memcpy(frame_buf, &h, sizeof(h));
		if (n)
			memcpy(frame_buf + sizeof(h), data, n);
		write_all(ag.chan, frame_buf, sizeof(h) + n);
		data = (const char *)data + n;
		len -= n;
	} while (len);
}

static void send_text(int type, int job, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	if (n > 0)
		send_frame(type, job, buf, n);
}

/* ---- the kernel log ---- */

/*
 * One /dev/kmsg record, "PRI,SEQ,USEC,FLAGS;TEXT\n KEY=VALUE\n...",
 * becomes a dmesg-style line "[SSSSS.UUUUUU] TEXT\n" at out.
 */
static size_t format_kmsg(const char *rec, size_t len, char *out, size_t room)
{
	unsigned long long usec = 0;
	const char *semi = memchr(rec, ';', len);
	const char *text, *nl;
	int n;

	if (!semi)
		return 0;
	sscanf(rec, "%*u,%*u,%llu", &usec);
	text = semi + 1;
	nl = memchr(text, '\n', rec + len - text);
	if (!nl)
		nl = rec + len;
	n = snprintf(out, room, "[%5llu.%06llu] %.*s\n", usec / 1000000,
		     usec % 1000000, (int)(nl - text), text);
	if (n < 0)
		return 0;
	return (size_t)n < room ? (size_t)n : room - 1;
}

/* Send every kernel log record written so far, attributed to a job. */
static void kmsg_drain(int type, int job)
{
	static char out[VM_FRAME_MAX];
	char rec[KMSG_RECORD];
	size_t used = 0;

	if (ag.kmsg < 0)
		return;
	for (;;) {
		ssize_t n = read(ag.kmsg, rec, sizeof(rec));

		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* records were overwritten: go on */
		if (n <= 0)
			break;
		if (used + 1100 > sizeof(out)) {
			send_frame(type, job, out, used);
			used = 0;
		}
		used += format_kmsg(rec, n, out + used, sizeof(out) - used);
	}
	if (used)
		send_frame(type, job, out, used);
}

/* ---- setting up the guest ---- */

static void mount_one(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) < 0 && errno != EBUSY)
		console("tapir-vm-agent: mount %s on %s: %s", type, dir,
			strerror(errno));
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		console("tapir-vm-agent: writing %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void setup_fs(void)
{
	mount_one("proc", "/proc", "proc");
	mount_one("sysfs", "/sys", "sysfs");
	mount_one("devtmpfs", "/dev", "devtmpfs");
	mount_one("debugfs", "/sys/kernel/debug", "debugfs");
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs");
	mount_one("devpts", "/dev/pts", "devpts");
	mount_one("tmpfs", "/dev/shm", "tmpfs");
	mkdir("/tmp", 01777);
	mkdir(VM_GUEST_CWD, 0700);
	mkdir(VM_GUEST_OUTBOX, 0755);
	symlink("/proc/self/fd", "/dev/fd");
	symlink("/proc/self/fd/0", "/dev/stdin");
	symlink("/proc/self/fd/1", "/dev/stdout");
	symlink("/proc/self/fd/2", "/dev/stderr");
	write_file("/proc/sys/kernel/kptr_restrict", "0\n");
	write_file("/proc/sys/kernel/dmesg_restrict", "0\n");
	sethostname("tapir-vm", 8);

	clearenv();
	setenv("PATH", "/bin:/sbin:/usr/bin:/usr/sbin", 1);
	setenv("HOME", VM_GUEST_CWD, 1);
	setenv("USER", "root", 1);
	setenv("SHELL", "/bin/sh", 1);
	setenv("TERM", "dumb", 1);
}

static void read_config(void)
{
	char line[512];
	FILE *f = fopen(VM_GUEST_CONFIG, "re");
	int version = 0;

	if (!f)
		die("cannot open %s: %s", VM_GUEST_CONFIG, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *val = strchr(line, ' ');

		line[strcspn(line, "\n")] = '\0';
		if (!val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "version"))
			version = atoi(val);
		else if (!strcmp(line, "jobs"))
			ag.njobs = atoi(val);
		else if (!strcmp(line, "port"))
			ag.port = strdup(val);
		else if (!strcmp(line, "module") && ag.nmodules < MAX_MODULES)
			ag.modules[ag.nmodules++] = strdup(val);
	}
	fclose(f);
	if (version != VM_PROTO_VERSION)
		die("%s: protocol version %d, agent speaks %d", VM_GUEST_CONFIG,
		    version, VM_PROTO_VERSION);
	if (!ag.port)
		die("%s names no port", VM_GUEST_CONFIG);
}

static void load_modules(void)
{
	int i;

	for (i = 0; i < ag.nmodules; i++) {
		int fd = open(ag.modules[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die("cannot open module %s: %s", ag.modules[i], strerror(errno));
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			die("cannot load module %s: %s", ag.modules[i], strerror(errno));
		close(fd);
	}
}

/* The /dev name of the virtio port called VM_PORT_NAME, once it exists. */
static int find_virtio_port(char *dev, size_t room)
{
	DIR *d = opendir("/sys/class/virtio-ports");
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		char path[300], name[64] = "";
		int fd;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name",
			 e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
		if (n > 0 && !strncmp(name, VM_PORT_NAME "\n", n)) {
			snprintf(dev, room, "/dev/%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

static void open_tty(const char *dev)
{
	struct termios t;

	ag.chan = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (ag.chan < 0)
		die("cannot open %s: %s", dev, strerror(errno));
	if (tcgetattr(ag.chan, &t) == 0) {
		cfmakeraw(&t);
		cfsetspeed(&t, B115200);
		tcsetattr(ag.chan, TCSANOW, &t);
		ag.chan_is_tty = 1;
	}
}

/* The port's driver probes and devtmpfs makes its node asynchronously. */
static void open_channel(void)
{
	struct timespec t0;
	char dev[300];

	if (strcmp(ag.port, "virtio")) {
		open_tty(ag.port);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		if (find_virtio_port(dev, sizeof(dev))) {
			ag.chan = open(dev, O_RDWR | O_CLOEXEC);
			if (ag.chan >= 0)
				return;
			if (errno != ENOENT)
				die("cannot open %s: %s", dev, strerror(errno));
		}
		if (elapsed_ms(&t0) > 20000)
			die("no virtio port named %s appeared", VM_PORT_NAME);
		usleep(2000);
	}
}

static void setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ag.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ag.sigfd < 0)
		die("signalfd: %s", strerror(errno));
}

/* ---- running one job ---- */

static void exec_job(int idx, int out, int err)
{
	char path[64];
	sigset_t none;
	int null = open("/dev/null", O_RDWR);

	snprintf(path, sizeof(path), "%s/%d", VM_GUEST_JOBDIR, idx);
	setsid();
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (chdir(VM_GUEST_CWD) < 0)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execl("/bin/sh", "sh", path, (char *)NULL);
	dprintf(2, "tapir-vm-agent: cannot run /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

static int start_job(struct job *j, int idx)
{
	int out[2], err[2];

	memset(j, 0, sizeof(*j));
	j->idx = idx;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		send_text(VM_F_AGENT, idx, "pipe: %s", strerror(errno));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &j->t0);
	j->pid = fork();
	if (j->pid < 0) {
		send_text(VM_F_AGENT, idx, "fork: %s", strerror(errno));
		return -1;
	}
	if (j->pid == 0)
		exec_job(idx, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	j->out = out[0];
	j->err = err[0];
	return 0;
}

/* Forward a pipe's data; at EOF close it. */
static void pump(int *fd, int type, int job)
{
	static char buf[VM_FRAME_MAX];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return;
	if (n > 0) {
		send_frame(type, job, buf, n);
		return;
	}
	close(*fd);
	*fd = -1;
}

static void signal_job(struct job *j, int sig)
{
	if (j && j->pid > 0 && kill(-j->pid, sig) < 0 && !j->exited)
		kill(j->pid, sig);
}

static void handle_control(struct job *j)
{
	char buf[64];
	ssize_t n, i;
	struct pollfd p = { .fd = ag.chan, .events = POLLIN };

	if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN))
		return;
	n = read(ag.chan, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		switch (buf[i]) {
		case VM_CTL_INT:
			ag.stop = 1;
			if (j && !j->exited)
				j->flags |= VM_EXIT_INTERRUPTED;
			signal_job(j, SIGINT);
			break;
		case VM_CTL_TIMEOUT:
			if (j && !j->exited)
				j->flags |= VM_EXIT_TIMEOUT;
			signal_job(j, SIGKILL);
			break;
		case VM_CTL_QUIT:
			ag.stop = 1;
			signal_job(j, SIGKILL);
			break;
		}
	}
}

/* Reap every child (init inherits orphans); note the job's status. */
static void reap(struct job *j)
{
	struct signalfd_siginfo si;
	int status;
	pid_t pid;

	while (read(ag.sigfd, &si, sizeof(si)) > 0)
		;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (j && pid == j->pid && !j->exited) {
			j->exited = 1;
			j->wstatus = status;
			clock_gettime(CLOCK_MONOTONIC, &j->t_exit);
			/* Background leftovers of the job die with it. */
			kill(-j->pid, SIGKILL);
		}
	}
}

static void wait_job(struct job *j)
{
	while (!j->exited || j->out >= 0 || j->err >= 0) {
		struct pollfd p[5] = {
			{ .fd = j->out, .events = POLLIN },
			{ .fd = j->err, .events = POLLIN },
			{ .fd = ag.kmsg, .events = POLLIN },
			{ .fd = ag.chan, .events = POLLIN },
			{ .fd = ag.sigfd, .events = POLLIN },
		};
		int timeout = -1;

		if (j->exited) {
			timeout = LEFTOVER_MS - (int)elapsed_ms(&j->t_exit);
			if (timeout <= 0) {	/* a daemon escaped with the pipes */
				if (j->out >= 0)
					close(j->out);
				if (j->err >= 0)
					close(j->err);
				j->out = j->err = -1;
				break;
			}
		}
		if (poll(p, 5, timeout) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		if (p[0].revents)
			pump(&j->out, VM_F_STDOUT, j->idx);
		if (p[1].revents)
			pump(&j->err, VM_F_STDERR, j->idx);
		if (p[2].revents)
			kmsg_drain(VM_F_KMSG, j->idx);
		if (p[3].revents & POLLIN)
			handle_control(j);
		else if (p[3].revents & (POLLHUP | POLLERR))
			die("the host closed the channel");
		if (p[4].revents)
			reap(j);
	}
}

static void run_job(int idx)
{
	struct vm_exit ex = { 0 };
	struct job j;

	send_frame(VM_F_START, idx, NULL, 0);
	if (start_job(&j, idx) < 0) {
		ex.wstatus = 127 << 8;
		send_frame(VM_F_EXIT, idx, &ex, sizeof(ex));
		return;
	}
	wait_job(&j);
	kmsg_drain(VM_F_KMSG, idx);
	ex.wstatus = j.wstatus;
	ex.flags = j.flags;
	ex.usec = (uint64_t)((j.t_exit.tv_sec - j.t0.tv_sec) * 1000000LL +
			     (j.t_exit.tv_nsec - j.t0.tv_nsec) / 1000);
	send_frame(VM_F_EXIT, idx, &ex, sizeof(ex));
}

/* Send back the regular files the jobs left in the outbox. */
static void send_outbox(void)
{
	static char buf[VM_FRAME_MAX];
	DIR *d = opendir(VM_GUEST_OUTBOX);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		struct stat st;
		ssize_t n;
		int fd;

		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		send_frame(VM_F_FILE, 0, e->d_name, strlen(e->d_name));
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			send_frame(VM_F_FILEDATA, 0, buf, n);
		if (n < 0)
			send_text(VM_F_AGENT, 0, "reading %s/%s: %s", VM_GUEST_OUTBOX,
				  e->d_name, strerror(errno));
		close(fd);
	}
	if (d)
		closedir(d);
}

int main(void)
{
	int i;

	setup_fs();
	read_config();
	load_modules();
	setup_signals();
	open_channel();
	ag.kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	send_text(VM_F_HELLO, 0, "%d", VM_PROTO_VERSION);
	if (ag.kmsg < 0)
		send_text(VM_F_AGENT, 0, "cannot open /dev/kmsg: %s", strerror(errno));
	kmsg_drain(VM_F_BOOTLOG, 0);
	for (i = 0; i < ag.njobs; i++) {
		handle_control(NULL);
		if (ag.stop)
			break;
		run_job(i);
		reap(NULL);
	}
	send_outbox();
	send_frame(VM_F_DONE, 0, NULL, 0);
	power_off();
	return 0;
}
