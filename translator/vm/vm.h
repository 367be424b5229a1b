/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm.h - translator/vm/: run shell jobs in a qemu guest booting an installed kernel.
 *
 * vm_run() writes an initramfs (the static guest agent as /init,
 * busybox-static with its applet links, the files asked for, the virtio
 * console modules of the guest kernel), boots qemu-system-x86_64 on it
 * (KVM when /dev/kvm works, else TCG), and runs the job scripts one after
 * the other in that one boot. Each job's standard output and error, its
 * exit status and the kernel log lines written while it ran come back
 * separately; guest kernel messages never reach the job's output. The
 * runner is independent of the translator's parser and session.
 *
 * Environment: TAPIR_VM_KERNEL (default kernel), TAPIR_VM_ACCEL (kvm|tcg),
 * TAPIR_VM_QEMU, TAPIR_VM_BUSYBOX, TAPIR_VM_AGENT (programs to use), and
 * TAPIR_VM_CHANNEL=serial (use ttyS1 even where virtio_console exists).
 */
#ifndef TAPIR_VM_H
#define TAPIR_VM_H

#include <signal.h>
#include <stddef.h>

struct vm_job {
	const char *kernel;	/* vmlinuz; NULL: vm_default_kernel() */
	int mem_mb;		/* guest memory; 0: 512 */
	int cpus;		/* guest CPUs; 0: 2 */
	const char **files;	/* NULL-terminated "HOST[:GUEST]": copied
				 * into the initramfs (directories too);
				 * a relative or missing GUEST is relative
				 * to the jobs' directory, /root */
	const char *script;	/* one job: shell script text */
	const char **scripts;	/* or a batch: NULL-terminated scripts,
				 * run in order in one boot */
	const char **modules;	/* NULL-terminated .ko paths (host) to load
				 * in the guest before the jobs run */
	const char *append;	/* more kernel command line, e.g. "nokaslr" */
	const char *outbox;	/* a host directory: the regular files the
				 * jobs leave in the guest's VM_GUEST_OUTBOX
				 * (vm-proto.h) are written here after the
				 * last job, replacing files of the same
				 * name; NULL: they are dropped */
	const char *accel;	/* "kvm", "tcg"; NULL: kvm if usable */
	int timeout;		/* seconds per job; 0: none */
	int boot_timeout;	/* seconds until the agent is up; 0: 120 */
	volatile sig_atomic_t *interrupt; /* a counter the caller's SIGINT
				 * handler bumps: each bump sends SIGINT to
				 * the running job (and runs no further
				 * jobs); a third kills the guest */
	int log_fd;		/* if > 0: the guest console (kernel messages
				 * of level warning and worse, all of an oops)
				 * and qemu's own messages are copied here as
				 * they arrive (0 is never used: stdin) */
	unsigned int flags;	/* VM_* below */
};

#define VM_CAPTURE 1u	/* keep each job's stdout/stderr in the result */
#define VM_KEEP_TMP 2u	/* leave the temporary directory (named in res) */

/* How a job ended. */
enum vm_job_state {
	VM_JOB_NOT_RUN,		/* never started: batch stopped, guest died */
	VM_JOB_EXITED,		/* exited on its own, or killed by a signal */
	VM_JOB_TIMEOUT,		/* killed: timeout expired */
	VM_JOB_CRASHED,		/* the guest kernel panicked or vanished */
};

struct vm_buf {
	char *data;		/* NUL-terminated; NULL while empty */
	size_t len;
};

struct vm_job_result {
	enum vm_job_state state;
	int status;		/* exit code, or 128 + signal number */
	int signal;		/* the killing signal, or 0 */
	int interrupted;	/* SIGINT was forwarded to it */
	double seconds;		/* wall time in the guest */
	struct vm_buf out, err;	/* with VM_CAPTURE */
	struct vm_buf dmesg;	/* kernel log lines written while it ran */
	struct vm_buf bad;	/* the lines of dmesg that show a problem */
	int nbad;
};

struct vm_result {
	int njobs;
	struct vm_job_result *jobs;	/* one per script, in order */
	int status;		/* the last job that ran: its status;
				 * 125 when the VM itself failed */
	int failed;		/* the VM failed: see error */
	int panicked;		/* the guest kernel oopsed or panicked */
	int interrupted;	/* the caller's interrupt reached the guest */
	char *error;		/* what failed, e.g. "guest kernel panic
				 * during job 3"; NULL if nothing */
	char *oops;		/* the panic/oops text from the console */
	struct vm_buf console;	/* everything the guest console printed */
	struct vm_buf bootlog;	/* kernel log up to the first job */
	struct vm_buf boot_bad;	/* its lines that show a problem (e.g. from
				 * job->modules); a clean boot has none */
	int nboot_bad;
	int nfetched;		/* files written into job->outbox */
	char *kernel;		/* the vmlinuz that was booted */
	char accel[8];		/* "kvm" or "tcg" */
	char *tmpdir;		/* with VM_KEEP_TMP */
	double boot_seconds;	/* qemu start to the agent's hello */
	double total_seconds;	/* qemu start to its exit */
};

/*
 * Boot one guest and run the job's script(s). Standard output and error
 * of the jobs stream to out_fd and err_fd as they arrive (skipped when
 * negative). Returns 0 when the guest ran every job it was asked to and
 * powered off (look at each job's state, status and nbad), -1 when the
 * VM failed (res->error says why; res->oops holds a guest oops). res is
 * always filled in; release it with vm_result_free().
 */
int vm_run(const struct vm_job *job, int out_fd, int err_fd,
	   struct vm_result *res);
void vm_result_free(struct vm_result *res);

/* Does this kernel log line show a kernel problem (BUG:, WARNING:, ...)? */
int vm_dmesg_line_bad(const char *line, size_t len);

/*
 * The newest /boot/vmlinuz-* whose headers are installed (malloc'd), or
 * NULL. Honours $TAPIR_VM_KERNEL.
 */
char *vm_default_kernel(void);

/*
 * The image that boots RELEASE, for a module built against it:
 * /boot/vmlinuz-RELEASE (malloc'd). NULL when it is not installed, with
 * *why (malloc'd) saying so and naming the Debian package to install.
 */
char *vm_release_kernel(const char *release, char **why);

/* The release of a bzImage ("6.1.0-57-cloud-amd64"), from its header. */
int vm_kernel_release(const char *vmlinuz, char *buf, size_t size);

/* The kbuild directory of a release (malloc'd), or NULL if none. */
char *vm_kernel_headers(const char *release);

/* Can this process use /dev/kvm? */
int vm_kvm_usable(void);

/* Will the guest be emulated (tcg: TAPIR_VM_ACCEL, else no usable KVM)? */
int vm_emulated(void);

/* Why vm_default_kernel() etc. failed, or why the runner cannot work
 * here at all (no qemu, no busybox-static, no agent): NULL if it can. */
const char *vm_unavailable(void);

#endif /* TAPIR_VM_H */
