// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm.c - run shell jobs in a qemu guest (see vm.h; protocol in vm-proto.h).
 *
 * The pieces, in the order vm_run() uses them:
 *   - finding things: the kernel image and its release, its headers, qemu,
 *     busybox-static, the guest agent, whether KVM works;
 *   - the initramfs (cpio "newc" from vm-initramfs.c, uncompressed: the
 *     guest unpacks it faster than it would gunzip it under TCG);
 *   - starting qemu with two Unix-socket character devices, the console
 *     (ttyS0: kernel messages only) and the agent's channel (a virtio
 *     serial port, or ttyS1 when the guest kernel lacks virtio_console);
 *   - an event loop that splits the agent's frames into the jobs' results,
 *     keeps the console, enforces time limits and forwards interrupts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/kvm.h>

#include "vm.h"
#include "vm-initramfs.h"
#include "vm-proto.h"

#define DEFAULT_MEM_MB 512
#define DEFAULT_CPUS 2
#define DEFAULT_BOOT_TIMEOUT 120
#define IDLE_TIMEOUT 60.0	/* agent silent between jobs */
#define KILL_GRACE 10.0		/* after a timeout, before killing qemu */
#define EXIT_GRACE 15.0		/* after DONE, for qemu to power off */
#define CONSOLE_MAX (8u << 20)
#define OOPS_MAX (32u << 10)
/* no_timer_check: under software emulation on a loaded host the boot's
 * IO-APIC timer check can miss its ticks and panic ("IO-APIC + timer
 * doesn't work"); the guest's timer works, the check is what fails. */
#define KERNEL_CMDLINE "console=ttyS0 quiet panic=-1 oops=panic no_timer_check"

/* ------------------------------------------------------------------ */
/* small helpers                                                        */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

static int buf_add(struct vm_buf *b, const void *p, size_t n)
{
	char *d;

	if (!n)
		return 0;
	d = realloc(b->data, b->len + n + 1);
	if (!d)
		return -1;
	memcpy(d + b->len, p, n);
	b->len += n;
	d[b->len] = '\0';
	b->data = d;
	return 0;
}

static void buf_free(struct vm_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= w;
	}
	return 0;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* An executable NAME in $PATH (malloc'd), or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		char *cand;

		end = strchrnul(p, ':');
		cand = xasprintf("%.*s/%s", (int)(end - p), p, name);
		if (cand && is_file(cand) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the kernel, its headers, KVM                                         */

int vm_kernel_release(const char *vmlinuz, char *buf, size_t size)
{
	unsigned char hdr[0x210];
	char ver[256];
	unsigned int off;
	int fd = open(vmlinuz, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	off = (hdr[0x20e] | hdr[0x20f] << 8) + 0x200;
	n = pread(fd, ver, sizeof(ver) - 1, off);
	close(fd);
	if (n <= 0) {
		errno = ENOEXEC;
		return -1;
	}
	ver[n] = '\0';
	ver[strcspn(ver, " ")] = '\0';
	if (!ver[0] || strlen(ver) >= size) {
		errno = ENOEXEC;
		return -1;
	}
	strcpy(buf, ver);
	return 0;
}

char *vm_kernel_headers(const char *release)
{
	char *dirs[2] = {
		xasprintf("/lib/modules/%s/build", release),
		xasprintf("/usr/src/linux-headers-%s", release),
	};
	char *found = NULL;
	int i;

	for (i = 0; i < 2; i++) {
		char *mk = dirs[i] ? xasprintf("%s/Makefile", dirs[i]) : NULL;

		if (!found && mk && is_file(mk)) {
			found = dirs[i];
			dirs[i] = NULL;
		}
		free(mk);
		free(dirs[i]);
	}
	return found;
}

char *vm_release_kernel(const char *release, char **why)
{
	char *path;

	*why = NULL;
	if (!*release || strchr(release, '/')) {
		*why = xasprintf("'%s' is not a kernel release", release);
		return NULL;
	}
	path = xasprintf("/boot/vmlinuz-%s", release);
	if (path && !is_file(path)) {
		*why = xasprintf("no kernel image for %s (%s): install "
				 "linux-image-%s", release, path, release);
		free(path);
		return NULL;
	}
	return path;
}

char *vm_default_kernel(void)
{
	const char *env = getenv("TAPIR_VM_KERNEL");
	char best[256] = "";
	struct dirent *e;
	DIR *d;

	if (env && *env)
		return strdup(env);
	d = opendir("/boot");
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		const char *rel = e->d_name + strlen("vmlinuz-");
		char *hd;

		if (strncmp(e->d_name, "vmlinuz-", 8) || strlen(rel) >= sizeof(best))
			continue;
		hd = vm_kernel_headers(rel);
		if (hd && (!best[0] || strverscmp(rel, best) > 0))
			strcpy(best, rel);
		free(hd);
	}
	closedir(d);
	return best[0] ? xasprintf("/boot/vmlinuz-%s", best) : NULL;
}

/* Does the CPU offer hardware virtualization (vmx or svm) to this host? */
static int cpu_has_hw_virt(void)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = 0;

	while (f && !found && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5))
			continue;
		found = strstr(line, " vmx") || strstr(line, " svm");
		break;
	}
	free(line);
	if (f)
		fclose(f);
	return found;
}

/*
 * /dev/kvm must answer, and the CPU must have vmx or svm: some nested
 * hosts offer a /dev/kvm (e.g. kvm-pvm) that only boots kernels built
 * for it, and a stock kernel then hangs silently at boot.
 */
int vm_kvm_usable(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int ok = 0, vm;

	if (fd < 0)
		return 0;
	if (ioctl(fd, KVM_GET_API_VERSION, 0) == KVM_API_VERSION) {
		vm = ioctl(fd, KVM_CREATE_VM, 0);
		if (vm >= 0) {
			close(vm);
			ok = 1;
		}
	}
	close(fd);
	return ok && cpu_has_hw_virt();
}

/* ------------------------------------------------------------------ */
/* the helpers the guest needs                                          */

/* Is path a statically linked ELF executable (no PT_INTERP)? */
static int is_static_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int i, ok = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	    !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64) {
		ok = 1;
		for (i = 0; i < eh.e_phnum; i++) {
			if (pread(fd, &ph, sizeof(ph), eh.e_phoff +
				  (off_t)i * eh.e_phentsize) != sizeof(ph) ||
			    ph.p_type == PT_INTERP) {
				ok = 0;
				break;
			}
		}
	}
	close(fd);
	return ok;
}

static char *find_busybox(void)
{
	static const char *const cands[] = { "/bin/busybox", "/usr/bin/busybox" };
	const char *env = getenv("TAPIR_VM_BUSYBOX");
	size_t i;

	if (env && *env)
		return strdup(env);
	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (is_static_elf(cands[i]))
			return strdup(cands[i]);
	return NULL;
}

/*
 * The agent: $TAPIR_VM_AGENT; next to the build tree's programs when the
 * running program lives in the build tree; else the installed one.
 */
static char *find_agent(void)
{
	const char *env = getenv("TAPIR_VM_AGENT");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return strdup(env);
#ifdef TAPIR_BUILDDIR
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (!strncmp(exe, TAPIR_BUILDDIR "/", strlen(TAPIR_BUILDDIR) + 1))
			return strdup(TAPIR_BUILDDIR "/translator/tapir-vm-agent");
	}
#else
	(void)exe;
	(void)n;
#endif
#ifdef TAPIR_PKGLIBEXECDIR
	return strdup(TAPIR_PKGLIBEXECDIR "/tapir-vm-agent");
#else
	return NULL;
#endif
}

static char *find_qemu(void)
{
	const char *env = getenv("TAPIR_VM_QEMU");

	return find_in_path(env && *env ? env : "qemu-system-x86_64");
}

const char *vm_unavailable(void)
{
	static char why[512];
	char *p, *k;

	p = find_qemu();
	if (!p)
		return "qemu-system-x86_64 not found (install qemu-system-x86)";
	free(p);
	p = find_busybox();
	if (!p)
		return "no statically linked busybox (install busybox-static)";
	free(p);
	p = find_agent();
	if (!p || !is_static_elf(p)) {
		snprintf(why, sizeof(why), "guest agent %s missing or not static "
			 "(build it with make, or set TAPIR_VM_AGENT)",
			 p ? p : "tapir-vm-agent");
		free(p);
		return why;
	}
	free(p);
	k = vm_default_kernel();
	if (!k)
		return "no /boot/vmlinuz-* with installed headers "
		       "(install linux-image-RELEASE and linux-headers-RELEASE)";
	if (access(k, R_OK) < 0) {
		snprintf(why, sizeof(why), "cannot read kernel %s: %s", k,
			 strerror(errno));
		free(k);
		return why;
	}
	free(k);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* the initramfs                                                        */

struct run {
	const struct vm_job *job;
	struct vm_result *res;
	const char *const *scripts;
	int njobs;
	char *tmpdir, *initrd, *con_sock, *chan_sock;
	char *qemu, *busybox, *agent;
	char release[128];
	int virtio;		/* channel is a virtio port, else ttyS1 */
	pid_t pid;		/* qemu */
	int con, chan, qout;	/* console, agent channel, qemu's output */
	int lcon, lchan;	/* listening sockets */
	int out_fd, err_fd;
	unsigned char *fbuf;	/* partial frame from the channel */
	size_t flen;
	struct vm_buf qmsg;	/* qemu's own stdout/stderr */
	double t0, job_t0;
	double last;		/* the latest frame from the agent */
	int cur;		/* running job, or -1 */
	int hello, done, killed, timeout_sent;
	int file_fd;		/* the outbox file being received, or -1 */
	double timeout_at;
	sig_atomic_t seen_int;
	int nint;
};

static void add_busybox(struct run *r, struct cpio *c)
{
	char *argv[] = { r->busybox, "--list-full", NULL };
	char *line = NULL;
	size_t cap = 0;
	int p[2], n = 0;
	pid_t pid;
	FILE *f;

	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execv(r->busybox, argv);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	while (f && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line || *line == '/' || !strcmp(line, "linuxrc") ||
		    !strcmp(line, "bin/busybox"))
			continue;
		cpio_symlink(c, line, "/bin/busybox");
		n++;
	}
	free(line);
	if (f)
		fclose(f);
	else
		close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	/* A busybox without --list-full still gets a shell. */
	if (!n)
		cpio_symlink(c, "bin/sh", "/bin/busybox");
}

/* "HOST[:GUEST]" into the cpio name of GUEST (malloc'd) and HOST. */
static char *guest_name(const char *spec, char **host)
{
	const char *colon = strrchr(spec, ':');
	const char *base, *guest = colon ? colon + 1 : "";
	char *h, *name;

	h = colon ? strndup(spec, colon - spec) : strdup(spec);
	if (!h)
		return NULL;
	while (strlen(h) > 1 && h[strlen(h) - 1] == '/')
		h[strlen(h) - 1] = '\0';
	base = strrchr(h, '/') ? strrchr(h, '/') + 1 : h;
	if (!*guest)
		name = xasprintf("%s/%s", VM_GUEST_CWD + 1, base);
	else if (guest[strlen(guest) - 1] == '/')
		name = xasprintf("%s%s%s", *guest == '/' ? "" : VM_GUEST_CWD "/",
				 guest, base);
	else
		name = xasprintf("%s%s", *guest == '/' ? "" : VM_GUEST_CWD "/", guest);
	while (name && *name == '/')
		memmove(name, name + 1, strlen(name));
	*host = h;
	return name;
}

static int add_files(struct run *r, struct cpio *c, char **err)
{
	const char **f;

	for (f = r->job->files; f && *f; f++) {
		char *host = NULL, *name = guest_name(*f, &host);
		int ret = name ? cpio_tree(c, name, host, err) : -1;

		free(name);
		free(host);
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* Modules the caller wants loaded at boot: /tapir/mod/NAME.ko. */
static int add_user_modules(struct run *r, struct cpio *c, FILE *conf, char **err)
{
	const char **m;

	for (m = r->job->modules; m && *m; m++) {
		const char *base = strrchr(*m, '/') ? strrchr(*m, '/') + 1 : *m;
		char *name = xasprintf("tapir/mod/%s", base);

		if (!name || cpio_file(c, name, *m, S_IFREG | 0644, err) < 0) {
			free(name);
			return -1;
		}
		fprintf(conf, "module /%s\n", name);
		free(name);
	}
	return 0;
}

static int add_kernel_modules(struct run *r, struct cpio *c, FILE *conf, char **err)
{
	struct modlist mods = { .n = 0 };
	int i, ret = 0;
	const char *chan = getenv("TAPIR_VM_CHANNEL");	/* "serial": test ttyS1 */

	r->virtio = !(chan && !strcmp(chan, "serial")) &&
		    vm_virtio_modules(r->release, &mods) == 0;
	for (i = 0; r->virtio && i < mods.n && !ret; i++) {
		char *name = xasprintf("lib/modules/%s/%s", r->release, mods.path[i]);
		char *host = xasprintf("/%s", name);

		ret = name && host ? cpio_file(c, name, host, S_IFREG | 0644, err) : -1;
		if (!ret)
			fprintf(conf, "module /%s\n", name);
		free(name);
		free(host);
	}
	modlist_free(&mods);
	fprintf(conf, "port %s\n", r->virtio ? "virtio" : "/dev/ttyS1");
	return ret;
}

static int add_config(struct run *r, struct cpio *c, char **err)
{
	char *text = NULL;
	size_t len = 0;
	FILE *conf = open_memstream(&text, &len);
	int i, ret;

	if (!conf) {
		*err = xasprintf("open_memstream: %s", strerror(errno));
		return -1;
	}
	fprintf(conf, "version %d\njobs %d\n", VM_PROTO_VERSION, r->njobs);
	ret = add_kernel_modules(r, c, conf, err);
	if (!ret)
		ret = add_user_modules(r, c, conf, err);
	fclose(conf);
	if (!ret)
		cpio_data(c, VM_GUEST_CONFIG + 1, S_IFREG | 0644, text, len);
	free(text);
	for (i = 0; !ret && i < r->njobs; i++) {
		char *name = xasprintf("%s/%d", VM_GUEST_JOBDIR + 1, i);

		if (!name)
			return -1;
		cpio_data(c, name, S_IFREG | 0755, r->scripts[i], strlen(r->scripts[i]));
		free(name);
	}
	return ret;
}

static int write_initramfs(struct run *r, char **err)
{
	static const char *const dirs[] = {
		"bin", "sbin", "usr/bin", "usr/sbin", "dev", "proc", "sys",
		"tmp", "root", "etc", "tapir/job",
	};
	struct cpio c;
	size_t i;

	if (cpio_open(&c, r->initrd) < 0) {
		*err = xasprintf("cannot create %s: %s", r->initrd, strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cpio_dir(&c, dirs[i]);
	cpio_node(&c, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_node(&c, "dev/null", S_IFCHR | 0666, 1, 3);
	cpio_data(&c, "etc/passwd", S_IFREG | 0644, "root:x:0:0:root:/root:/bin/sh\n", 30);
	cpio_data(&c, "etc/group", S_IFREG | 0644, "root:x:0:\n", 10);
	if (cpio_file(&c, "init", r->agent, S_IFREG | 0755, err) < 0 ||
	    cpio_file(&c, "bin/busybox", r->busybox, S_IFREG | 0755, err) < 0)
		goto fail;
	add_busybox(r, &c);
	if (add_config(r, &c, err) < 0 || add_files(r, &c, err) < 0)
		goto fail;
	return cpio_close(&c, err);
fail:
	{
		char *ignore = NULL;

		cpio_close(&c, &ignore);
		free(ignore);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* starting qemu                                                        */

static int listen_unix(const char *path, char **err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		*err = xasprintf("socket path too long: %s (set TMPDIR shorter)", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 1) < 0) {
		*err = xasprintf("cannot listen on %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* qemu's option syntax doubles commas inside values. */
static char *qemu_escape(const char *s)
{
	char *out = malloc(2 * strlen(s) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		*o++ = *s;
		if (*s == ',')
			*o++ = ',';
	}
	*o = '\0';
	return out;
}

struct argv {
	char *v[48];
	int n;
};

static void arg(struct argv *a, char *s)	/* takes ownership */
{
	if (a->n < (int)(sizeof(a->v) / sizeof(a->v[0])) - 1)
		a->v[a->n++] = s;
	else
		free(s);
}

static void args(struct argv *a, const char *opt, char *val)
{
	arg(a, strdup(opt));
	arg(a, val);
}

/* The accelerator without a job's own: TAPIR_VM_ACCEL, else KVM when
 * usable, else tcg. */
static const char *default_accel(void)
{
	const char *env = getenv("TAPIR_VM_ACCEL");

	if (env && *env)
		return env;
	return vm_kvm_usable() ? "kvm" : "tcg";
}

int vm_emulated(void)
{
	return strcmp(default_accel(), "kvm") != 0;
}

static const char *choose_accel(const struct vm_job *job)
{
	if (job->accel && *job->accel)
		return job->accel;
	return default_accel();
}

static void qemu_argv(struct run *r, struct argv *a)
{
	const struct vm_job *job = r->job;
	const char *accel = choose_accel(job);

	snprintf(r->res->accel, sizeof(r->res->accel), "%s", accel);
	char *con = qemu_escape(r->con_sock), *chan = qemu_escape(r->chan_sock);

	arg(a, strdup(r->qemu));
	arg(a, strdup("-nodefaults"));
	arg(a, strdup("-no-user-config"));
	arg(a, strdup("-no-reboot"));
	args(a, "-display", strdup("none"));
	/*
	 * Software emulation runs the vCPUs on one host thread. With one
	 * thread per vCPU (qemu 7.2's default), a guest that rewrites code
	 * another vCPU is executing crashes: disarming an ftrace-based
	 * kprobe (text_poke_bp) while the other vCPU calls the function
	 * jumps to address 0, with a bare 30-line kprobe module too.
	 */
	if (!strcmp(accel, "tcg"))
		args(a, "-accel", strdup("tcg,thread=single"));
	else
		args(a, "-accel", strdup(accel));
	if (!strcmp(accel, "kvm"))
		args(a, "-cpu", strdup("host"));
	args(a, "-m", xasprintf("%d", job->mem_mb > 0 ? job->mem_mb : DEFAULT_MEM_MB));
	args(a, "-smp", xasprintf("%d", job->cpus > 0 ? job->cpus : DEFAULT_CPUS));
	args(a, "-kernel", strdup(r->res->kernel));
	args(a, "-initrd", strdup(r->initrd));
	args(a, "-append", xasprintf("%s%s%s", KERNEL_CMDLINE,
				     job->append ? " " : "", job->append ? job->append : ""));
	args(a, "-chardev", xasprintf("socket,id=con,path=%s", con));
	args(a, "-serial", strdup("chardev:con"));
	args(a, "-chardev", xasprintf("socket,id=chan,path=%s", chan));
	if (r->virtio) {
		args(a, "-device", strdup("virtio-serial-pci,id=vs"));
		args(a, "-device", strdup("virtserialport,bus=vs.0,chardev=chan,name="
					  VM_PORT_NAME));
	} else {
		args(a, "-serial", strdup("chardev:chan"));
	}
	a->v[a->n] = NULL;
	free(con);
	free(chan);
}

static void close_fds_from(int lowest)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd;

	if (!d) {
		for (fd = lowest; fd < 1024; fd++)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		fd = atoi(e->d_name);
		if (fd >= lowest && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

static int spawn_qemu(struct run *r, char **err)
{
	struct argv a = { .n = 0 };
	int p[2], i;

	qemu_argv(r, &a);
	if (pipe2(p, O_CLOEXEC) < 0) {
		*err = xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	r->t0 = now();
	r->pid = fork();
	if (r->pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 || dup2(p[1], 2) < 0)
			_exit(127);
		close_fds_from(3);
		execv(a.v[0], a.v);
		dprintf(2, "cannot run %s: %s\n", a.v[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	r->qout = p[0];
	if (r->pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		close(p[0]);
		r->qout = -1;
	}
out:
	for (i = 0; i < a.n; i++)
		free(a.v[i]);
	return r->pid > 0 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* the event loop                                                       */

static void fail(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	r->res->failed = 1;
	if (r->res->error)
		return;		/* the first cause is the one to tell */
	va_start(ap, fmt);
	r->res->error = xvasprintf(fmt, ap);
	va_end(ap);
}

static void kill_qemu(struct run *r)
{
	if (r->pid > 0 && !r->killed) {
		kill(r->pid, SIGKILL);
		r->killed = 1;
	}
}

static void send_ctl(struct run *r, char c)
{
	if (r->chan >= 0 && send(r->chan, &c, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		kill_qemu(r);
}

int vm_dmesg_line_bad(const char *line, size_t len)
{
	static const char *const pats[] = {
		"BUG:", "WARNING:", "Oops", "general protection", "RIP:",
		"refcount_t", "list_del corruption",
		"sleeping function called from invalid context",
	};
	size_t i;

	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (memmem(line, len, pats[i], strlen(pats[i])))
			return 1;
	return 0;
}

/* Collect the lines of kernel log text that show trouble. */
static void scan_bad(struct vm_buf *bad, int *nbad, const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (vm_dmesg_line_bad(p, n)) {
			buf_add(bad, p, n);
			if (!nl)
				buf_add(bad, "\n", 1);
			(*nbad)++;
		}
		p += n;
	}
}

static void add_dmesg(struct vm_job_result *j, const char *p, size_t len)
{
	buf_add(&j->dmesg, p, len);
	scan_bad(&j->bad, &j->nbad, p, len);
}

static void stream(struct run *r, int *fd, struct vm_buf *keep, const char *p, size_t n)
{
	if (*fd >= 0 && write_all(*fd, p, n) < 0)
		*fd = -1;	/* the reader went away: keep running */
	if (r->job->flags & VM_CAPTURE)
		buf_add(keep, p, n);
}

static void on_exit_frame(struct run *r, struct vm_job_result *j, const char *p,
			  size_t len)
{
	struct vm_exit ex;

	if (len < sizeof(ex)) {
		fail(r, "guest agent sent a short exit record");
		kill_qemu(r);
		return;
	}
	memcpy(&ex, p, sizeof(ex));
	j->seconds = ex.usec / 1e6;
	j->interrupted = !!(ex.flags & VM_EXIT_INTERRUPTED);
	j->state = ex.flags & VM_EXIT_TIMEOUT ? VM_JOB_TIMEOUT : VM_JOB_EXITED;
	if (WIFSIGNALED(ex.wstatus)) {
		j->signal = WTERMSIG(ex.wstatus);
		j->status = 128 + j->signal;
	} else {
		j->status = WEXITSTATUS(ex.wstatus);
	}
	r->res->status = j->status;
	r->cur = -1;
}

/* A file of the guest's outbox follows: create it in job->outbox. */
static void open_fetched(struct run *r, const char *name, size_t len)
{
	char *path;

	if (r->file_fd >= 0)
		close(r->file_fd);
	r->file_fd = -1;
	if (!r->job->outbox)
		return;
	if (!len || memchr(name, '/', len) || memchr(name, '\0', len) ||
	    (len == 1 && name[0] == '.') || (len == 2 && !memcmp(name, "..", 2))) {
		fail(r, "guest agent sent a bad file name");
		return;
	}
	path = xasprintf("%s/%.*s", r->job->outbox, (int)len, name);
	if (!path)
		return;
	r->file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r->file_fd < 0)
		fail(r, "cannot write '%s': %s", path, strerror(errno));
	else
		r->res->nfetched++;
	free(path);
}

static void on_frame(struct run *r, const struct vm_frame *h, const char *p)
{
	struct vm_result *res = r->res;
	struct vm_job_result *j = h->job < r->njobs ? &res->jobs[h->job] : NULL;

	if (!j && h->type >= VM_F_START && h->type <= VM_F_EXIT) {
		fail(r, "guest agent sent a frame for unknown job %u", h->job);
		kill_qemu(r);
		return;
	}
	switch (h->type) {
	case VM_F_HELLO:
		r->hello = 1;
		res->boot_seconds = now() - r->t0;
		break;
	case VM_F_BOOTLOG:
		buf_add(&res->bootlog, p, h->len);
		scan_bad(&res->boot_bad, &res->nboot_bad, p, h->len);
		break;
	case VM_F_START:
		r->cur = h->job;
		r->job_t0 = now();
		r->timeout_sent = 0;
		break;
	case VM_F_STDOUT:
		stream(r, &r->out_fd, &j->out, p, h->len);
		break;
	case VM_F_STDERR:
		stream(r, &r->err_fd, &j->err, p, h->len);
		break;
	case VM_F_KMSG:
		add_dmesg(j, p, h->len);
		break;
	case VM_F_EXIT:
		on_exit_frame(r, j, p, h->len);
		break;
	case VM_F_AGENT:
		if (r->err_fd >= 0)
			dprintf(r->err_fd, "tapir-vm: guest agent: %.*s\n", (int)h->len, p);
		if (j)
			buf_add(&j->err, p, h->len);
		break;
	case VM_F_FILE:
		open_fetched(r, p, h->len);
		break;
	case VM_F_FILEDATA:
		if (r->file_fd >= 0 && write_all(r->file_fd, p, h->len) < 0) {
			fail(r, "writing a file from the guest: %s", strerror(errno));
			close(r->file_fd);
			r->file_fd = -1;
		}
		break;
	case VM_F_DONE:
		r->done = 1;
		if (r->file_fd >= 0)
			close(r->file_fd);
		r->file_fd = -1;
		break;
	default:
		fail(r, "guest agent sent an unknown frame type %u", h->type);
		kill_qemu(r);
	}
}

static void read_chan(struct run *r)
{
	const size_t cap = sizeof(struct vm_frame) + VM_FRAME_MAX;
	ssize_t n = read(r->chan, r->fbuf + r->flen, cap - r->flen);
	size_t off = 0;

	if (n <= 0) {
		if (n < 0 && errno == EINTR)
			return;
		close(r->chan);
		r->chan = -1;
		return;
	}
	r->flen += n;
	while (r->flen - off >= sizeof(struct vm_frame)) {
		struct vm_frame h;

		memcpy(&h, r->fbuf + off, sizeof(h));
		if (h.len > VM_FRAME_MAX) {
			fail(r, "guest agent sent a %u-byte frame (protocol error)", h.len);
			kill_qemu(r);
			r->flen = 0;
			return;
		}
		if (r->flen - off < sizeof(h) + h.len)
			break;
		on_frame(r, &h, (char *)r->fbuf + off + sizeof(h));
		off += sizeof(h) + h.len;
		r->last = now();
	}
	memmove(r->fbuf, r->fbuf + off, r->flen - off);
	r->flen -= off;
}

static void read_into(int *fd, struct vm_buf *b, size_t max, int copy_fd)
{
	char buf[16384];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (b->len + n <= max)
		buf_add(b, buf, n);
	if (copy_fd > 0)
		write_all(copy_fd, buf, n);
}

static int accept_one(int *lfd)
{
	int fd = accept4(*lfd, NULL, NULL, SOCK_CLOEXEC);

	close(*lfd);
	*lfd = -1;
	return fd;
}

static void check_interrupt(struct run *r)
{
	sig_atomic_t v;

	if (!r->job->interrupt)
		return;
	v = *r->job->interrupt;
	while (r->seen_int != v) {
		r->seen_int++;
		r->res->interrupted = 1;
		if (++r->nint >= 3) {
			fail(r, "interrupted");
			kill_qemu(r);
		} else {
			send_ctl(r, VM_CTL_INT);
		}
	}
}

/* The time at which something must happen (0: none). */
static double deadline(struct run *r)
{
	const struct vm_job *job = r->job;

	if (r->killed)
		return 0;
	if (r->done)
		return r->last + EXIT_GRACE;
	if (!r->hello)
		return r->t0 + (job->boot_timeout > 0 ? job->boot_timeout :
				DEFAULT_BOOT_TIMEOUT);
	if (r->cur < 0)
		return r->last + IDLE_TIMEOUT;
	if (r->timeout_sent)
		return r->timeout_at + KILL_GRACE;
	return job->timeout > 0 ? r->job_t0 + job->timeout : 0;
}

static void on_deadline(struct run *r)
{
	const struct vm_job *job = r->job;

	if (r->done) {
		kill_qemu(r);	/* results are complete: not an error */
	} else if (!r->hello) {
		fail(r, "the guest did not start its agent within %d s",
		     job->boot_timeout > 0 ? job->boot_timeout : DEFAULT_BOOT_TIMEOUT);
		kill_qemu(r);
	} else if (r->cur < 0) {
		fail(r, "the guest agent fell silent between jobs");
		kill_qemu(r);
	} else if (!r->timeout_sent) {
		send_ctl(r, VM_CTL_TIMEOUT);
		r->timeout_sent = 1;
		r->timeout_at = now();
	} else {
		fail(r, "job %d timed out and the guest did not stop it", r->cur);
		r->res->jobs[r->cur].state = VM_JOB_TIMEOUT;
		kill_qemu(r);
	}
}

/* Wait for qemu: events until it exits and its output is drained. */
static void event_loop(struct run *r)
{
	int exited = 0;
	double gone = 0;

	r->last = now();
	while (r->con >= 0 || r->chan >= 0 || r->qout >= 0 || !exited) {
		struct pollfd p[5] = {
			{ .fd = r->con, .events = POLLIN },
			{ .fd = r->chan, .events = POLLIN },
			{ .fd = r->qout, .events = POLLIN },
			{ .fd = r->lcon, .events = POLLIN },
			{ .fd = r->lchan, .events = POLLIN },
		};
		double d = deadline(r), t = now();
		int ms = 200;

		if (d > 0 && (d - t) * 1000 < ms)
			ms = d > t ? (int)((d - t) * 1000) + 1 : 0;
		if (poll(p, 5, ms) < 0 && errno != EINTR)
			break;
		check_interrupt(r);
		if (p[3].revents)
			r->con = accept_one(&r->lcon);
		if (p[4].revents)
			r->chan = accept_one(&r->lchan);
		if (p[0].revents)
			read_into(&r->con, &r->res->console, CONSOLE_MAX, r->job->log_fd);
		if (p[1].revents)
			read_chan(r);
		if (p[2].revents)
			read_into(&r->qout, &r->qmsg, 65536, r->job->log_fd);
		d = deadline(r);
		if (d > 0 && now() >= d)
			on_deadline(r);
		if (!exited && waitpid(r->pid, NULL, WNOHANG) == r->pid) {
			exited = 1;
			gone = now();
			r->pid = 0;
			if (r->lcon >= 0)
				close(r->lcon);
			if (r->lchan >= 0)
				close(r->lchan);
			r->lcon = r->lchan = -1;
		}
		if (exited && now() - gone > 5)
			break;	/* a child of qemu kept its output open */
	}
	r->res->total_seconds = now() - r->t0;
}

/* ------------------------------------------------------------------ */
/* results                                                              */

static void strip_cr(struct vm_buf *b)
{
	size_t i, o = 0;

	for (i = 0; i < b->len; i++)
		if (b->data[i] != '\r')
			b->data[o++] = b->data[i];
	b->len = o;
	if (b->data)
		b->data[o] = '\0';
}

/* The console from the first line that shows an oops or a panic, or NULL. */
static const char *find_oops(const struct vm_buf *con)
{
	const char *p = con->data, *end = p + con->len;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (vm_dmesg_line_bad(p, n) || memmem(p, n, "Kernel panic", 12))
			return p;
		p += n + 1;
	}
	return NULL;
}

/* The last n lines of a buffer (a pointer into it), or "". */
static const char *tail_lines(const struct vm_buf *b, int n)
{
	const char *p;

	if (!b->len)
		return "";
	p = b->data + b->len - 1;
	while (p > b->data && (*p == '\n' || n > 0)) {
		if (*--p == '\n')
			n--;
	}
	return p == b->data ? p : p + 1;
}

/* Add the console's lines the job's kernel log does not have yet. */
static void add_new_lines(struct vm_job_result *j, const char *p)
{
	while (*p) {
		size_t n = strcspn(p, "\n");

		if (p[n] == '\n')
			n++;
		if (!j->dmesg.data || !memmem(j->dmesg.data, j->dmesg.len, p, n))
			add_dmesg(j, p, n);
		p += n;
	}
}

static void finish(struct run *r)
{
	struct vm_result *res = r->res;
	const char *oops;

	strip_cr(&res->console);
	if (r->done)
		return;
	oops = find_oops(&res->console);
	if (oops) {
		res->panicked = 1;
		res->oops = strndup(oops, OOPS_MAX);
	}
	if (r->cur >= 0 && res->jobs[r->cur].state == VM_JOB_NOT_RUN) {
		res->jobs[r->cur].state = VM_JOB_CRASHED;
		res->jobs[r->cur].status = 125;
		if (oops)
			add_new_lines(&res->jobs[r->cur], oops);
	}
	if (oops && r->cur >= 0)
		fail(r, "guest kernel crashed during job %d:\n%s", r->cur, res->oops);
	else if (oops)
		fail(r, "guest kernel crashed %s:\n%s",
		     r->hello ? "between jobs" : "while booting", res->oops);
	else if (!r->hello)
		fail(r, "the guest did not start; its console ends with:\n%s%s",
		     tail_lines(&res->console, 8), tail_lines(&r->qmsg, 8));
	else
		fail(r, "the guest stopped before finishing its jobs; "
		     "its console ends with:\n%s%s",
		     tail_lines(&res->console, 8), tail_lines(&r->qmsg, 8));
	res->status = 125;
}

static int prepare_tools(struct run *r, char **err)
{
	struct vm_result *res = r->res;

	res->kernel = r->job->kernel ? strdup(r->job->kernel) : vm_default_kernel();
	if (!res->kernel) {
		*err = xasprintf("no kernel to boot: no /boot/vmlinuz-* has its "
				 "headers installed (give one, or install "
				 "linux-image-RELEASE and linux-headers-RELEASE)");
		return -1;
	}
	if (vm_kernel_release(res->kernel, r->release, sizeof(r->release)) < 0) {
		*err = xasprintf("cannot use kernel %s: %s", res->kernel,
				 errno == ENOEXEC ? "not an x86 bzImage" : strerror(errno));
		return -1;
	}
	r->qemu = find_qemu();
	if (!r->qemu) {
		*err = xasprintf("qemu-system-x86_64 not found (install qemu-system-x86, "
				 "or set TAPIR_VM_QEMU)");
		return -1;
	}
	r->busybox = find_busybox();
	if (!r->busybox || !is_static_elf(r->busybox)) {
		*err = xasprintf("%s%s (install busybox-static, or set TAPIR_VM_BUSYBOX)",
				 r->busybox ? r->busybox : "no statically linked busybox",
				 r->busybox ? " is not a statically linked program" : "");
		return -1;
	}
	r->agent = find_agent();
	if (!r->agent || !is_static_elf(r->agent)) {
		*err = xasprintf("guest agent %s is missing or not statically linked "
				 "(run make, or set TAPIR_VM_AGENT)",
				 r->agent ? r->agent : "tapir-vm-agent");
		return -1;
	}
	return 0;
}

static int prepare(struct run *r, char **err)
{
	const struct vm_job *job = r->job;
	const char *tmp = getenv("TMPDIR");

	if (job->scripts) {
		r->scripts = job->scripts;
		while (r->scripts[r->njobs])
			r->njobs++;
	} else if (job->script) {
		r->scripts = &job->script;
		r->njobs = 1;
	}
	if (r->njobs < 1 || r->njobs > 65535) {
		*err = xasprintf("%s", r->njobs ? "more than 65535 jobs" : "no job script given");
		return -1;
	}
	r->res->njobs = r->njobs;
	r->res->jobs = calloc(r->njobs, sizeof(*r->res->jobs));
	r->fbuf = malloc(sizeof(struct vm_frame) + VM_FRAME_MAX);
	if (!r->res->jobs || !r->fbuf) {
		*err = xasprintf("out of memory");
		return -1;
	}
	if (prepare_tools(r, err) < 0)
		return -1;
	r->tmpdir = xasprintf("%s/tapir-vm.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!r->tmpdir || !mkdtemp(r->tmpdir)) {
		*err = xasprintf("cannot make a temporary directory %s: %s",
				 r->tmpdir ? r->tmpdir : "", strerror(errno));
		free(r->tmpdir);
		r->tmpdir = NULL;
		return -1;
	}
	r->initrd = xasprintf("%s/initrd.cpio", r->tmpdir);
	r->con_sock = xasprintf("%s/console.sock", r->tmpdir);
	r->chan_sock = xasprintf("%s/channel.sock", r->tmpdir);
	if (write_initramfs(r, err) < 0)
		return -1;
	r->lcon = listen_unix(r->con_sock, err);
	if (r->lcon < 0)
		return -1;
	r->lchan = listen_unix(r->chan_sock, err);
	return r->lchan < 0 ? -1 : 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void cleanup(struct run *r)
{
	close_fd(&r->con);
	close_fd(&r->chan);
	close_fd(&r->qout);
	close_fd(&r->lcon);
	close_fd(&r->lchan);
	if (r->pid > 0) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
	}
	if (r->tmpdir && !(r->job->flags & VM_KEEP_TMP)) {
		unlink(r->initrd);
		unlink(r->con_sock);
		unlink(r->chan_sock);
		rmdir(r->tmpdir);
	} else if (r->tmpdir) {
		r->res->tmpdir = strdup(r->tmpdir);
	}
	free(r->tmpdir);
	free(r->initrd);
	free(r->con_sock);
	free(r->chan_sock);
	free(r->qemu);
	free(r->busybox);
	free(r->agent);
	free(r->fbuf);
	buf_free(&r->qmsg);
	if (r->file_fd >= 0)
		close(r->file_fd);
}

int vm_run(const struct vm_job *job, int out_fd, int err_fd, struct vm_result *res)
{
	struct run r = {
		.job = job, .res = res, .out_fd = out_fd, .err_fd = err_fd,
		.con = -1, .chan = -1, .qout = -1, .lcon = -1, .lchan = -1,
		.cur = -1, .file_fd = -1,
	};
	char *err = NULL;

	memset(res, 0, sizeof(*res));
	res->status = 125;
	if (job->interrupt)
		r.seen_int = *job->interrupt;
	if (prepare(&r, &err) < 0 || spawn_qemu(&r, &err) < 0) {
		fail(&r, "%s", err ? err : "out of memory");
	} else {
		event_loop(&r);
		finish(&r);
	}
	free(err);
	cleanup(&r);
	return res->failed ? -1 : 0;
}

void vm_result_free(struct vm_result *res)
{
	int i;

	for (i = 0; i < res->njobs && res->jobs; i++) {
		buf_free(&res->jobs[i].out);
		buf_free(&res->jobs[i].err);
		buf_free(&res->jobs[i].dmesg);
		buf_free(&res->jobs[i].bad);
	}
	free(res->jobs);
	free(res->error);
	free(res->oops);
	buf_free(&res->console);
	buf_free(&res->bootlog);
	buf_free(&res->boot_bad);
	free(res->kernel);
	free(res->tmpdir);
	memset(res, 0, sizeof(*res));
}
