/* scdrive.c - the syscall-run tier's workload: raw system calls with
 * known arguments, one group per command word.
 *
 *	scdrive files errors proc mem time net sig misc more trace more2 more3 ipc last
 *		sigsock timex quota x86 utime
 *
 * Every buffer and struct handed to the kernel lives in one mapping at a
 * fixed address (AREA), so the addresses that argstr prints are the same
 * on every run; the calls go through syscall(2), never through a libc
 * wrapper that might pick another call (open -> openat). It prints
 * nothing; failures are expected where a case wants an errno.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fanotify.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/quota.h>
#include <linux/dqblk_xfs.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/timex.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AREA 0x10000000UL
#define AREA_SIZE 0x10000UL

/* slots in the area */
#define A_PATH   (AREA + 0x000)	/* "/tmp/sc-a" */
#define A_PATH2  (AREA + 0x040)	/* "/tmp/sc-b" */
#define A_DIR    (AREA + 0x080)	/* "/tmp/sc-d" */
#define A_NOENT  (AREA + 0x0c0)	/* "/no/such/file" */
#define A_TMP    (AREA + 0x0e0)	/* "/tmp" */
#define A_QUOTE  (AREA + 0x100)	/* a name with a tab, a quote, UTF-8 */
#define A_DATA   (AREA + 0x200)	/* bytes written */
#define A_BUF    (AREA + 0x400)	/* bytes read */
#define A_IOV    (AREA + 0x800)	/* struct iovec[2] */
#define A_STRUCT (AREA + 0x900)	/* timespecs, rlimits, sigsets, ... */
#define A_ADDR   (AREA + 0xa00)	/* socket addresses */
#define A_ARGV   (AREA + 0xb00)	/* argv for execve */
#define A_INT    (AREA + 0xc00)	/* int results */
#define A_LONG   (AREA + 0x3000)	/* a 64-byte-long buffer */
#define A_NAMES  (AREA + 0x3100)	/* more names: see setup() */
#define A_FSTYPE (A_NAMES + 0x00)	/* "tmpfs" */
#define A_OPTS   (A_NAMES + 0x20)	/* "size=1m,mode=0755" */
#define A_KTYPE  (A_NAMES + 0x40)	/* "no-such-type" */
#define A_KDESC  (A_NAMES + 0x60)	/* "tapir:key" */
#define A_MOD    (A_NAMES + 0x80)	/* "no_such_module" */
#define A_HOST   (A_NAMES + 0xa0)	/* "tapir-guest" */
#define A_MEMFD  (A_NAMES + 0xc0)	/* "sc-memfd" */
#define A_KUSER  (A_NAMES + 0xe0)	/* "user" */
#define A_MQ     (A_NAMES + 0x100)	/* "/tapir-mq" */
#define A_XNAME  (A_NAMES + 0x120)	/* "user.tapir" */
#define A_MORE   (AREA + 0x4000)	/* structs of more(), zeroed */

static long sc(long n, long a, long b, long c, long d, long e, long f)
{
	return syscall(n, a, b, c, d, e, f);
}

#define SC0(n) sc(n, 0, 0, 0, 0, 0, 0)
#define SC1(n, a) sc(n, (long)(a), 0, 0, 0, 0, 0)
#define SC2(n, a, b) sc(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define SC3(n, a, b, c) sc(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define SC4(n, a, b, c, d) sc(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define SC5(n, a, b, c, d, e) \
	sc(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)
#define SC6(n, a, b, c, d, e, f) \
	sc(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

static void put(unsigned long at, const void *p, size_t n)
{
	memcpy((void *)at, p, n);
}

static void files(void)
{
	struct iovec *iov = (struct iovec *)A_IOV;
	long fd, fd2;

	SC1(SYS_unlink, A_PATH);
	fd = SC3(SYS_open, A_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	SC3(SYS_write, fd, A_DATA, 14);
	SC4(SYS_pwrite64, fd, A_DATA, 5, 100);
	SC3(SYS_write, fd, A_LONG, 64);
	SC3(SYS_lseek, fd, 0, SEEK_SET);
	SC3(SYS_lseek, fd, -2, SEEK_END);
	SC1(SYS_fsync, fd);
	SC2(SYS_ftruncate, fd, 12);
	SC1(SYS_close, fd);
	fd = SC4(SYS_openat, AT_FDCWD, A_PATH, O_RDONLY | O_CLOEXEC, 0);
	SC3(SYS_read, fd, A_BUF, 100);
	SC4(SYS_pread64, fd, A_BUF, 4, 2);
	iov[0].iov_base = (void *)A_BUF;
	iov[0].iov_len = 3;
	iov[1].iov_base = (void *)(A_BUF + 8);
	iov[1].iov_len = 5;
	SC3(SYS_readv, fd, A_IOV, 2);
	SC2(SYS_fstat, fd, A_STRUCT);
	fd2 = SC1(SYS_dup, fd);
	SC2(SYS_dup2, fd, 10);
	SC3(SYS_dup3, fd, 11, O_CLOEXEC);
	SC3(SYS_fcntl, fd, F_GETFD, 0);
	SC3(SYS_fcntl, fd, F_SETFL, O_NONBLOCK);
	SC3(SYS_ioctl, fd, 0x5401, A_STRUCT);	/* TCGETS: -ENOTTY */
	SC1(SYS_close, 11);
	SC1(SYS_close, 10);
	SC1(SYS_close, fd2);
	SC1(SYS_close, fd);
	SC2(SYS_access, A_PATH, R_OK | W_OK);
	SC2(SYS_access, A_PATH, F_OK);
	SC3(SYS_faccessat, AT_FDCWD, A_PATH, X_OK);
	SC2(SYS_stat, A_PATH, A_STRUCT);
	SC2(SYS_lstat, A_PATH, A_STRUCT);
	SC4(SYS_newfstatat, AT_FDCWD, A_PATH, A_STRUCT, AT_SYMLINK_NOFOLLOW);
	SC2(SYS_chmod, A_PATH, 0600);
	SC2(SYS_truncate, A_PATH, 3);
	SC2(SYS_rename, A_PATH, A_PATH2);
	SC4(SYS_renameat, AT_FDCWD, A_PATH2, AT_FDCWD, A_PATH);
	SC2(SYS_creat, A_PATH2, 0640);
	SC1(SYS_unlink, A_PATH2);
	SC2(SYS_mkdir, A_DIR, 0755);
	SC1(SYS_chdir, A_DIR);
	SC2(SYS_getcwd, A_BUF, 64);
	SC1(SYS_chdir, A_TMP);
	SC1(SYS_rmdir, A_DIR);
	SC3(SYS_mkdirat, AT_FDCWD, A_DIR, 0700);
	SC3(SYS_unlinkat, AT_FDCWD, A_DIR, AT_REMOVEDIR);
	SC3(SYS_unlinkat, AT_FDCWD, A_PATH, 0);
	SC1(SYS_umask, 022);
	SC3(SYS_readlink, A_PATH, A_BUF, 32);
}

static void errors(void)
{
	SC3(SYS_open, A_NOENT, O_RDONLY, 0);
	SC3(SYS_open, A_QUOTE, O_RDWR | O_APPEND | O_EXCL | O_CREAT | O_DIRECTORY, 0755);
	SC3(SYS_open, 1, O_RDONLY, 0);		/* EFAULT: argstr shows 0x1 */
	SC1(SYS_close, 99);
	SC3(SYS_read, -1, A_BUF, 10);
	SC3(SYS_write, 1, 0, 10);
	SC2(SYS_mkdir, "/", 0777);
	SC2(SYS_access, A_NOENT, X_OK);
	SC1(SYS_unlink, A_NOENT);
	SC1(SYS_chdir, A_NOENT);
	SC2(SYS_kill, 99999, 0);
	SC3(SYS_lseek, 99, 0, 7);
	SC3(SYS_fcntl, 99, 99, 0);
}

static void proc(void)
{
	long child;

	SC0(SYS_getpid);
	SC0(SYS_getppid);
	SC0(SYS_getuid);
	SC0(SYS_geteuid);
	SC0(SYS_getgid);
	SC0(SYS_getegid);
	SC0(SYS_sched_yield);
	SC1(SYS_uname, A_STRUCT);
	SC1(SYS_alarm, 0);
	SC2(SYS_kill, SC0(SYS_getpid), 0);
	SC3(SYS_tgkill, SC0(SYS_getpid), SC0(SYS_gettid), 0);
	child = SC0(SYS_fork);
	if (child == 0)
		SC1(SYS_exit_group, 3);
	SC4(SYS_wait4, child, A_INT, 0, 0);
	child = SC0(SYS_fork);
	if (child == 0)
		SC1(SYS_exit, 0);
	SC4(SYS_wait4, -1, A_INT, __WALL, 0);
	SC4(SYS_wait4, -1, A_INT, WNOHANG, 0);	/* ECHILD */
	child = SC0(SYS_fork);
	if (child == 0) {
		SC3(SYS_execve, A_NOENT, A_ARGV, A_ARGV + 0x80);
		SC1(SYS_exit_group, 7);
	}
	SC4(SYS_wait4, child, A_INT, 0, 0);
}

static void mem(void)
{
	long p;

	p = SC6(SYS_mmap, AREA + AREA_SIZE, 8192, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	SC3(SYS_mprotect, p, 4096, PROT_READ);
	SC3(SYS_mprotect, p, 4096, PROT_NONE);
	SC2(SYS_munmap, p, 8192);
	SC6(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED, 99, 4096);	/* EBADF */
	SC1(SYS_brk, 0);
}

static void times(void)
{
	struct timespec *ts = (struct timespec *)A_STRUCT;

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = 2000000;
	SC2(SYS_nanosleep, A_STRUCT, 0);
	ts[1].tv_sec = 0;
	ts[1].tv_nsec = 1000;
	SC4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, A_STRUCT + 16, A_STRUCT + 32);
	SC2(SYS_clock_gettime, CLOCK_REALTIME, A_STRUCT + 64);
	SC2(SYS_clock_gettime, 99, A_STRUCT + 64);
	SC2(SYS_gettimeofday, A_STRUCT + 64, 0);
	SC1(SYS_time, 0);
	ts[0].tv_nsec = 2000000000;		/* EINVAL */
	SC2(SYS_nanosleep, A_STRUCT, 0);
}

static void net(void)
{
	struct sockaddr_in *in = (struct sockaddr_in *)A_ADDR;
	struct sockaddr_un *un = (struct sockaddr_un *)(A_ADDR + 0x40);
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(A_ADDR + 0xc0);
	long s, u, s6;

	s = SC3(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	in->sin_family = AF_INET;
	in->sin_port = htons(4242);
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	SC3(SYS_bind, s, A_ADDR, sizeof(*in));
	SC2(SYS_listen, s, 5);
	SC4(SYS_accept4, s, 0, 0, SOCK_NONBLOCK);
	SC3(SYS_accept, 99, 0, 0);
	SC1(SYS_close, s);
	u = SC3(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	un->sun_family = AF_UNIX;
	strcpy(un->sun_path, "/tmp/no-such-socket");
	SC3(SYS_connect, u, A_ADDR + 0x40, sizeof(*un));
	SC6(SYS_sendto, u, A_DATA, 5, MSG_DONTWAIT | MSG_NOSIGNAL,
	    A_ADDR + 0x40, sizeof(*un));
	SC6(SYS_recvfrom, u, A_BUF, 16, MSG_DONTWAIT, 0, 0);
	SC3(SYS_sendmsg, u, 0, MSG_DONTWAIT);
	SC3(SYS_recvmsg, u, 0, MSG_PEEK | MSG_WAITALL);
	SC1(SYS_close, u);
	s6 = SC3(SYS_socket, AF_INET6, SOCK_DGRAM, 0);
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(53);
	in6->sin6_addr.s6_addr[15] = 1;
	SC3(SYS_connect, s6, A_ADDR + 0xc0, sizeof(*in6));
	SC1(SYS_close, s6);
	SC3(SYS_socket, 12345, 77, 0);
}

static void sig(void)
{
	struct {
		unsigned long handler, flags, restorer, mask;
	} *act = (void *)A_STRUCT;
	unsigned long *set = (unsigned long *)(A_STRUCT + 0x80);

	act->handler = (unsigned long)SIG_IGN;
	SC4(SYS_rt_sigaction, SIGUSR1, A_STRUCT, 0, 8);
	act->handler = 0x401000;
	act->flags = SA_RESTART | SA_SIGINFO | 0x04000000;	/* SA_RESTORER */
	act->restorer = 0x402000;
	act->mask = 1UL << (SIGTERM - 1) | 1UL << (SIGINT - 1);
	SC4(SYS_rt_sigaction, SIGUSR2, A_STRUCT, A_STRUCT + 0x40, 8);
	SC4(SYS_rt_sigaction, SIGKILL, A_STRUCT, 0, 8);		/* EINVAL */
	act->handler = (unsigned long)SIG_DFL;
	SC4(SYS_rt_sigaction, SIGUSR2, A_STRUCT, 0, 8);
	*set = 1UL << (SIGUSR1 - 1) | 1UL << (SIGHUP - 1);
	SC4(SYS_rt_sigprocmask, SIG_BLOCK, A_STRUCT + 0x80, 0, 8);
	*set = 0;
	SC4(SYS_rt_sigprocmask, SIG_SETMASK, A_STRUCT + 0x80, A_STRUCT + 0x88, 8);
	SC4(SYS_rt_sigprocmask, 7, 0, 0, 8);			/* EINVAL */
	SC2(SYS_tkill, SC0(SYS_gettid), 0);
}

static void misc(void)
{
	struct pollfd *pfd = (struct pollfd *)A_STRUCT;
	struct rlimit *rl = (struct rlimit *)(A_STRUCT + 0x40);
	struct timeval *tv = (struct timeval *)(A_STRUCT + 0x60);
	int *fds = (int *)A_INT;
	long ep;

	SC2(SYS_pipe, A_INT, 0);
	pfd->fd = fds[0];
	pfd->events = POLLIN;
	SC3(SYS_poll, A_STRUCT, 1, 0);
	tv->tv_sec = 0;
	tv->tv_usec = 500;
	SC5(SYS_select, 0, 0, 0, 0, A_STRUCT + 0x60);
	SC1(SYS_close, fds[0]);
	SC1(SYS_close, fds[1]);
	SC2(SYS_pipe2, A_INT, O_CLOEXEC | O_NONBLOCK);
	ep = SC1(SYS_epoll_create1, EPOLL_CLOEXEC);
	SC4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, fds[0], A_STRUCT + 0x80);
	SC4(SYS_epoll_wait, ep, A_STRUCT + 0x100, 4, 0);
	SC6(SYS_epoll_pwait, ep, A_STRUCT + 0x100, 4, 0, 0, 8);
	SC4(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, 99, 0);
	SC1(SYS_close, ep);
	SC1(SYS_close, fds[0]);
	SC1(SYS_close, fds[1]);
	SC1(SYS_epoll_create, 4);
	SC2(SYS_getrlimit, RLIMIT_NOFILE, A_STRUCT + 0x40);
	rl->rlim_cur = 64;
	rl->rlim_max = 128;
	SC2(SYS_setrlimit, RLIMIT_CORE, A_STRUCT + 0x40);
	SC4(SYS_prlimit64, 0, RLIMIT_CORE, A_STRUCT + 0x40, A_STRUCT + 0x50);
	SC4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, A_STRUCT + 0x50);
	*(int *)(A_STRUCT + 0x200) = 5;
	SC6(SYS_futex, A_STRUCT + 0x200, FUTEX_WAKE, 1, 0, 0, 0);
	SC6(SYS_futex, A_STRUCT + 0x200, FUTEX_WAIT, 4, A_STRUCT, 0, 0);
	SC6(SYS_futex, A_STRUCT + 0x200, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
}

/* the calls of the newer aliases: aio, modules, the *at calls, splice,
 * notification descriptors, mounts, namespaces, keys, scheduling, memory
 * locking, timers; most fail with a known errno */
static void more(void)
{
	struct timespec *ts = (struct timespec *)A_MORE;
	long fd, fd2;

	SC2(SYS_io_setup, 4, A_MORE + 0x100);
	SC3(SYS_io_submit, 0, 1, A_MORE + 0x108);		/* EINVAL */
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = 5000;
	SC5(SYS_io_getevents, 0, 1, 2, A_BUF, A_MORE);	/* EINVAL */
	SC3(SYS_io_cancel, 0, A_MORE + 0x108, A_BUF);	/* EINVAL */
	SC1(SYS_io_destroy, 0);				/* EINVAL */
	SC2(SYS_delete_module, A_MOD, O_NONBLOCK);	/* ENOENT */
	SC3(SYS_finit_module, 99, A_PATH, 3);		/* EBADF */
	SC3(SYS_init_module, A_DATA, 0, A_PATH2);	/* ENOEXEC */
	SC4(SYS_faccessat2, AT_FDCWD, A_NOENT, R_OK | W_OK, 0x200);	/* ENOENT */
	SC1(SYS_unlink, A_PATH);
	SC4(SYS_mknodat, AT_FDCWD, A_PATH, S_IFIFO | 0644, 0);
	SC3(SYS_mknod, A_NOENT, S_IFCHR | 0600, 0x103);	/* ENOENT */
	SC5(SYS_renameat2, AT_FDCWD, A_PATH, AT_FDCWD, A_PATH2, 1);	/* RENAME_NOREPLACE */
	ts[1].tv_sec = 0;
	ts[1].tv_nsec = UTIME_NOW;
	ts[2].tv_sec = 1;
	ts[2].tv_nsec = UTIME_OMIT;
	SC4(SYS_utimensat, AT_FDCWD, A_PATH2, A_MORE + 16, AT_SYMLINK_NOFOLLOW);
	SC3(SYS_futimesat, AT_FDCWD, A_PATH2, 0);
	SC5(SYS_statx, AT_FDCWD, A_PATH2, AT_SYMLINK_NOFOLLOW, 0x7ff, A_MORE + 0x200);
	SC1(SYS_unlink, A_PATH2);
	SC5(SYS_execveat, AT_FDCWD, A_NOENT, A_ARGV, A_ARGV + 0x80, 0);	/* ENOENT */
	SC4(SYS_sendfile, 99, 98, 0, 10);			/* EBADF */
	SC6(SYS_splice, 99, 0, 98, 0, 10, 2 | 4);		/* EBADF */
	SC4(SYS_tee, 99, 98, 10, 0);				/* EBADF */
	SC4(SYS_vmsplice, 99, A_IOV, 1, 8);			/* EBADF */
	SC6(SYS_copy_file_range, 99, 0, 98, 0, 10, 0);		/* EBADF */
	fd = SC1(SYS_inotify_init1, IN_CLOEXEC);
	SC3(SYS_inotify_add_watch, fd, A_TMP, IN_CREATE | IN_DELETE | IN_ONLYDIR);
	SC2(SYS_inotify_rm_watch, fd, 1);
	SC2(SYS_inotify_rm_watch, fd, 7);			/* EINVAL */
	SC1(SYS_close, fd);
	fd = SC2(SYS_eventfd2, 3, EFD_CLOEXEC | EFD_NONBLOCK);
	SC1(SYS_close, fd);
	fd = SC2(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC);
	ts[4].tv_sec = 1;
	ts[4].tv_nsec = 2000;
	ts[5].tv_sec = 5;
	ts[5].tv_nsec = 300;
	SC4(SYS_timerfd_settime, fd, 0, A_MORE + 64, 0);
	SC2(SYS_timerfd_gettime, fd, A_MORE + 0x300);
	SC1(SYS_close, fd);
	*(unsigned long *)(A_MORE + 0x80) = 1UL << (SIGUSR1 - 1);
	fd = SC4(SYS_signalfd4, -1, A_MORE + 0x80, 8, SFD_NONBLOCK);
	SC1(SYS_close, fd);
	fd = SC2(SYS_fanotify_init, FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
	SC5(SYS_fanotify_mark, fd, FAN_MARK_ADD, FAN_OPEN | FAN_ACCESS, AT_FDCWD, A_TMP);
	SC1(SYS_close, fd);
	SC5(SYS_mount, A_TMP, A_NOENT, A_FSTYPE, MS_RDONLY | MS_NOSUID, A_OPTS);	/* ENOENT */
	SC2(SYS_umount2, A_NOENT, MNT_DETACH);			/* ENOENT */
	SC2(SYS_setns, 99, CLONE_NEWNET);			/* EBADF */
	SC1(SYS_unshare, CLONE_NEWUTS);
	SC2(SYS_sethostname, A_HOST, 11);
	SC5(SYS_add_key, A_KTYPE, A_KDESC, A_DATA, 5, -2);	/* ENODEV */
	SC4(SYS_request_key, A_KUSER, A_KDESC, 0, 0);		/* ENOKEY */
	SC3(SYS_bpf, 99, 0, 0);					/* EINVAL */
	SC5(SYS_perf_event_open, 0, 0, -1, -1, 8);		/* EFAULT */
	SC3(SYS_getrandom, A_MORE + 0x400, 8, GRND_NONBLOCK | 4);	/* GRND_INSECURE */
	fd2 = SC2(SYS_memfd_create, A_MEMFD, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	SC1(SYS_close, fd2);
	SC3(SYS_sched_getaffinity, 0, 8, A_MORE + 0x500);
	SC3(SYS_sched_setscheduler, 0, 99, A_MORE + 0x510);	/* EINVAL */
	SC4(SYS_sched_getattr, 0, A_MORE + 0x600, 48, 0);
	SC3(SYS_getcpu, 0, 0, 0);
	SC2(SYS_mlock, AREA, 4096);
	SC2(SYS_munlock, AREA, 4096);
	SC3(SYS_mincore, AREA, 4096, A_MORE + 0x700);
	SC3(SYS_madvise, AREA + 0x8000, 4096, MADV_DONTNEED);
	SC3(SYS_msync, AREA, 4096, MS_SYNC | MS_INVALIDATE);
	SC3(SYS_timer_create, CLOCK_MONOTONIC, 0, A_MORE + 0x710);
	SC2(SYS_timer_gettime, 99, A_MORE + 0x720);		/* EINVAL */
	SC1(SYS_timer_delete, 0);
	SC2(SYS_clock_getres, CLOCK_MONOTONIC, A_MORE + 0x740);
	SC2(SYS_getitimer, ITIMER_REAL, A_MORE + 0x760);
	SC2(SYS_statfs, A_TMP, A_MORE + 0x800);
	SC2(SYS_fstatfs, 99, A_MORE + 0x800);			/* EBADF */
	SC2(SYS_rt_sigpending, A_MORE + 0x900, 8);
}

/* ptrace and keyctl requests, on a process and keys that do not exist */
static void trace(void)
{
	SC4(SYS_ptrace, PTRACE_PEEKDATA, 99999, AREA, A_INT);	/* ESRCH */
	SC4(SYS_ptrace, PTRACE_CONT, 99999, 0, SIGUSR1);	/* ESRCH */
	SC4(SYS_ptrace, PTRACE_SETOPTIONS, 99999, 0,
	    PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL);		/* ESRCH */
	SC4(SYS_ptrace, PTRACE_GETREGSET, 99999, 1, A_IOV);	/* ESRCH */
	SC4(SYS_ptrace, PTRACE_ARCH_PRCTL, 99999, A_INT, 0x1003); /* ESRCH */
	SC4(SYS_ptrace, 0x7777, 99999, 0, 0);			/* ESRCH */
	SC2(SYS_keyctl, KEYCTL_REVOKE, 12345);			/* ENOKEY */
	SC3(SYS_keyctl, KEYCTL_SETPERM, 12345, 0x3f010000);	/* ENOKEY */
	SC4(SYS_keyctl, KEYCTL_READ, -4, A_BUF, 16);		/* ENOKEY */
	SC5(SYS_keyctl, KEYCTL_SEARCH, 12345, A_KUSER, A_KDESC, 0);	/* ENOKEY */
	SC5(SYS_keyctl, 99, 1, 2, 3, 4);			/* EOPNOTSUPP */
}

/* extended attributes, more file I/O, clocks and timers, waits, I/O
 * priorities, message queues */
static void more2(void)
{
	struct iovec *iov = (struct iovec *)A_IOV;
	struct timespec *ts = (struct timespec *)A_MORE;
	long fd;

	SC1(SYS_unlink, A_PATH);
	fd = SC2(SYS_creat, A_PATH, 0644);
	SC5(SYS_setxattr, A_PATH, A_XNAME, A_DATA, 5, 1);	/* XATTR_CREATE */
	SC4(SYS_getxattr, A_PATH, A_XNAME, A_BUF, 16);
	SC4(SYS_lgetxattr, A_NOENT, A_XNAME, A_BUF, 16);	/* ENOENT */
	SC4(SYS_fgetxattr, fd, A_XNAME, A_BUF, 16);
	SC3(SYS_listxattr, A_PATH, A_BUF, 64);
	SC3(SYS_llistxattr, A_PATH, 0, 0);
	SC3(SYS_flistxattr, 99, A_BUF, 64);			/* EBADF */
	SC5(SYS_lsetxattr, A_PATH, A_XNAME, A_QUOTE, 10, 2);	/* XATTR_REPLACE */
	SC5(SYS_fsetxattr, fd, A_XNAME, A_QUOTE, 4, 3);
	SC2(SYS_removexattr, A_PATH, A_XNAME);
	SC2(SYS_lremovexattr, A_PATH, A_XNAME);
	SC2(SYS_fremovexattr, fd, A_XNAME);
	SC4(SYS_fallocate, fd, 1, 0, 4096);			/* KEEP_SIZE */
	SC4(SYS_fadvise64, fd, 0, 0, 4);			/* DONTNEED */
	SC3(SYS_readahead, fd, 0, 4096);
	SC4(SYS_sync_file_range, fd, 0, 0, 2);			/* WRITE */
	iov[0].iov_base = (void *)A_DATA;
	iov[0].iov_len = 5;
	iov[1].iov_base = (void *)(A_DATA + 6);
	iov[1].iov_len = 3;
	SC5(SYS_pwritev, fd, A_IOV, 2, 16, 0);
	SC5(SYS_preadv, fd, A_IOV, 2, 0, 0);			/* EBADF: write-only */
	SC6(SYS_preadv2, fd, A_IOV, 1, 0, 0, 1);		/* RWF_HIPRI */
	SC6(SYS_pwritev2, fd, A_IOV, 1, 0, 0, 0x10);		/* RWF_APPEND */
	SC1(SYS_close, fd);
	SC1(SYS_unlink, A_PATH);
	SC2(SYS_utimes, A_NOENT, 0);				/* ENOENT */
	ts[0].tv_sec = 7;
	ts[0].tv_nsec = 0;
	SC2(SYS_clock_settime, CLOCK_MONOTONIC, A_MORE);	/* EINVAL */
	ts[1].tv_sec = 0;
	ts[1].tv_nsec = 2000000;
	SC2(SYS_settimeofday, A_MORE + 16, 0);			/* EINVAL */
	ts[2].tv_sec = 1;
	ts[2].tv_nsec = 500;
	ts[3].tv_sec = 2;
	ts[3].tv_nsec = 0;
	SC3(SYS_setitimer, 99, A_MORE + 32, 0);			/* EINVAL */
	SC4(SYS_timer_settime, 99, 0, A_MORE + 32, 0);		/* EINVAL */
	SC1(SYS_sysinfo, A_MORE + 0x100);
	ts[4].tv_sec = 0;
	ts[4].tv_nsec = 1000;
	SC5(SYS_ppoll, 0, 0, A_MORE + 64, 0, 8);
	SC6(SYS_pselect6, 0, 0, 0, 0, A_MORE + 64, 0);
	SC2(SYS_rt_sigsuspend, A_MORE + 0x200, 4);		/* EINVAL */
	SC5(SYS_waitid, P_PID, 99999, A_MORE + 0x300, WEXITED | WNOHANG, 0);	/* ECHILD */
	SC3(SYS_ioprio_set, 1, 0, 2 << 13 | 4);			/* BE, 4 */
	SC2(SYS_ioprio_get, 1, 0);
	fd = SC1(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	SC1(SYS_close, fd);
	SC4(SYS_pkey_mprotect, AREA + 0x8000, 4096, PROT_READ | PROT_WRITE, -1);
	SC4(SYS_migrate_pages, 0, 0, 0, 0);
	fd = SC4(SYS_mq_open, A_MQ, O_CREAT | O_RDWR, 0600, 0);
	SC5(SYS_mq_timedsend, fd, A_DATA, 5, 1, 0);
	SC5(SYS_mq_timedreceive, fd, A_BUF, 16, A_INT, 0);	/* EMSGSIZE */
	SC2(SYS_mq_notify, fd, 0);
	SC3(SYS_mq_getsetattr, fd, 0, A_MORE + 0x400);
	SC1(SYS_close, fd);
	SC1(SYS_mq_unlink, A_MQ);
	SC4(SYS_mq_open, A_MQ, O_RDONLY, 0, 0);			/* ENOENT */
}

/* NUMA policies, page moves, protection keys, seccomp and reboot, the
 * last two refused */
static void more3(void)
{
	SC5(SYS_get_mempolicy, A_INT, 0, 0, 0, 0);
	SC3(SYS_set_mempolicy, 0, 0, 0);			/* MPOL_DEFAULT */
	SC6(SYS_mbind, AREA + 0x8000, 4096, 2 | 1 << 15, 0, 0, 0);	/* EINVAL */
	SC6(SYS_move_pages, 0, 0, 0, 0, 0, 0);
	SC5(SYS_remap_file_pages, AREA, 4096, 0, 0, 0);		/* EINVAL */
	SC2(SYS_pkey_alloc, 0, 2);				/* PKEY_DISABLE_WRITE */
	SC3(SYS_seccomp, 99, 0, 0);				/* EINVAL */
	SC4(SYS_reboot, 0xfee1dead, 1, 0xcdef0123, 0);		/* EINVAL: magic2 */
}

/* System V shared memory, semaphores and message queues */
static void ipc(void)
{
	struct sembuf *sops = (struct sembuf *)A_MORE;
	struct timespec *ts = (struct timespec *)(A_MORE + 0x40);
	long *msg = (long *)(A_MORE + 0x80);
	long id;

	id = SC3(SYS_shmget, IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	SC3(SYS_shmat, id, AREA + 0x8000, SHM_RDONLY | SHM_REMAP);
	SC1(SYS_shmdt, AREA + 0x8000);
	SC3(SYS_shmctl, id, IPC_RMID, 0);
	SC3(SYS_shmctl, 99, IPC_STAT | 0x100, A_BUF);		/* IPC_64: EINVAL */
	id = SC3(SYS_semget, IPC_PRIVATE, 1, IPC_CREAT | 0600);
	SC4(SYS_semctl, id, 0, GETVAL, 0);
	sops[0].sem_num = 0;
	sops[0].sem_op = 1;
	sops[0].sem_flg = 0;
	SC3(SYS_semop, id, A_MORE, 1);
	sops[1].sem_num = 0;
	sops[1].sem_op = -2;
	sops[1].sem_flg = IPC_NOWAIT;
	ts->tv_sec = 0;
	ts->tv_nsec = 1000;
	SC4(SYS_semtimedop, id, A_MORE + sizeof(*sops), 1, A_MORE + 0x40);	/* EAGAIN */
	SC4(SYS_semctl, id, 0, IPC_RMID, 0);
	id = SC2(SYS_msgget, IPC_PRIVATE, IPC_CREAT | 0600);
	msg[0] = 1;
	memcpy(&msg[1], "hi", 2);
	SC4(SYS_msgsnd, id, A_MORE + 0x80, 2, IPC_NOWAIT);
	SC5(SYS_msgrcv, id, A_MORE + 0x100, 16, 0, IPC_NOWAIT | MSG_NOERROR);
	SC5(SYS_msgrcv, id, A_MORE + 0x100, 16, 0, IPC_NOWAIT);	/* ENOMSG */
	SC3(SYS_msgctl, id, IPC_RMID, 0);
	SC3(SYS_msgctl, 99, IPC_STAT | 0x100, A_BUF);		/* IPC_64: EINVAL */
}

/* batched socket messages, the alternate signal stack, old calls */
static void last(void)
{
	stack_t *ss = (stack_t *)(A_MORE + 0x40);
	struct timespec *ts = (struct timespec *)A_MORE;

	SC4(SYS_sendmmsg, 99, A_MORE + 0x100, 1, MSG_DONTWAIT);	/* EBADF */
	ts->tv_sec = 0;
	ts->tv_nsec = 1000;
	SC5(SYS_recvmmsg, 99, A_MORE + 0x100, 2, MSG_DONTWAIT, A_MORE);	/* EBADF */
	ss->ss_sp = (void *)(AREA + 0x8000);
	ss->ss_flags = 0;
	ss->ss_size = 65536;
	SC2(SYS_sigaltstack, A_MORE + 0x40, A_MORE + 0x80);
	ss->ss_flags = SS_DISABLE;
	SC2(SYS_sigaltstack, A_MORE + 0x40, 0);
	SC2(SYS_sigaltstack, 0, A_MORE + 0x80);
	SC2(SYS_ustat, 0x12345, A_BUF);
	SC1(SYS_uselib, A_NOENT);
}

/* socket options, queued and awaited signals, prctl */
static void sigsock(void)
{
	int *one = (int *)A_MORE, *len = (int *)(A_MORE + 0x10);
	unsigned long *set = (unsigned long *)(A_MORE + 0x20);
	struct timespec *ts = (struct timespec *)(A_MORE + 0x40);
	siginfo_t *si = (siginfo_t *)(A_MORE + 0x100);
	siginfo_t *got = (siginfo_t *)(A_MORE + 0x200);
	long s;

	*one = 1;
	*len = 4;
	s = SC3(SYS_socket, AF_INET, SOCK_DGRAM, 0);
	SC5(SYS_setsockopt, s, SOL_SOCKET, SO_REUSEADDR, A_MORE, 4);
	SC5(SYS_getsockopt, s, SOL_SOCKET, SO_TYPE, A_MORE + 0x08, A_MORE + 0x10);
	SC5(SYS_setsockopt, s, IPPROTO_TCP, 1, A_MORE, 4);	/* ENOPROTOOPT */
	SC5(SYS_getsockopt, 99, 12345, 999, A_MORE + 0x08, A_MORE + 0x10);
	SC1(SYS_close, s);
	/* SIGUSR2 is not pending: a zero timeout fails with EAGAIN at once */
	*set = 1UL << (SIGUSR2 - 1) | 1UL << (SIGHUP - 1);
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
	SC4(SYS_rt_sigtimedwait, A_MORE + 0x20, 0, A_MORE + 0x40, 8);
	SC4(SYS_rt_sigtimedwait, A_MORE + 0x20, A_MORE + 0x200, A_MORE + 0x40, 8);
	SC4(SYS_rt_sigtimedwait, A_MORE + 0x20, 0, 0, 4);	/* EINVAL */
	memset(got, 0, sizeof(*got));
	si->si_signo = SIGUSR1;
	si->si_code = SI_QUEUE;
	si->si_pid = 1;
	si->si_uid = 0;
	SC3(SYS_rt_sigqueueinfo, 99999, SIGUSR1, A_MORE + 0x100);	/* ESRCH */
	SC4(SYS_rt_tgsigqueueinfo, 99999, 99999, SIGUSR1, A_MORE + 0x100);
	si->si_signo = SIGCHLD;
	si->si_code = CLD_EXITED;
	si->si_pid = 5;
	si->si_uid = 6;
	si->si_status = 3;
	SC3(SYS_rt_sigqueueinfo, 99999, SIGCHLD, A_MORE + 0x100);	/* EPERM */
	si->si_code = CLD_KILLED;
	si->si_status = SIGKILL;
	SC4(SYS_rt_tgsigqueueinfo, 99999, 99999, SIGCHLD, A_MORE + 0x100);
	si->si_signo = SIGSEGV;
	si->si_code = SEGV_MAPERR;
	si->si_addr = (void *)0x1234;
	SC3(SYS_rt_sigqueueinfo, 99999, SIGSEGV, A_MORE + 0x100);
	SC3(SYS_rt_sigqueueinfo, 99999, SIGUSR1, 0x8);		/* EFAULT */
	SC1(SYS_prctl, PR_GET_DUMPABLE);
	SC2(SYS_prctl, PR_SET_TIMERSLACK, 50000);
	SC2(SYS_prctl, PR_CAPBSET_READ, 21);			/* CAP_SYS_ADMIN */
	SC2(SYS_prctl, PR_SET_PDEATHSIG, 0);
	SC2(SYS_prctl, PR_SET_UNALIGN, 2);			/* EINVAL on x86 */
	SC3(SYS_prctl, PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_DEFAULT);
	SC2(SYS_prctl, PR_SET_SECUREBITS, 0x10 | 0x100);	/* EPERM or 0 */
	SC3(SYS_prctl, PR_SET_MM, 999, 0x1000);			/* EINVAL */
	SC5(SYS_prctl, 12345, 1, 2, 3, 4);			/* EINVAL */
}

/* the kernel clock's tuning: reads, and values it refuses */
static void timex(void)
{
	struct timex *tx = (struct timex *)(A_MORE + 0x400);

	SC1(SYS_adjtimex, A_MORE + 0x400);			/* a read */
	tx->modes = ADJ_TICK | ADJ_FREQUENCY;
	tx->freq = 0x7fff0000L;
	tx->tick = 1;
	SC1(SYS_adjtimex, A_MORE + 0x400);			/* EINVAL */
	SC1(SYS_adjtimex, 0x8);					/* EFAULT */
	memset(tx, 0, sizeof(*tx));
	SC2(SYS_clock_adjtime, CLOCK_REALTIME, A_MORE + 0x400);
	SC2(SYS_clock_adjtime, CLOCK_MONOTONIC, A_MORE + 0x400);	/* EOPNOTSUPP */
	SC2(SYS_clock_adjtime, 99, A_MORE + 0x400);		/* EINVAL */
}

/* disk quotas: each argstr layout, on paths that are no block device */
static void quota(void)
{
	memset((void *)(A_MORE + 0x500), 0, 0x100);
	SC4(SYS_quotactl, QCMD(Q_SYNC, USRQUOTA), 0, 0, 0);
	SC4(SYS_quotactl, QCMD(Q_GETQUOTA, USRQUOTA), A_NOENT, 0, A_MORE + 0x500);
	SC4(SYS_quotactl, QCMD(Q_QUOTAON, GRPQUOTA), A_NOENT, QFMT_VFS_V0, A_PATH);
	SC4(SYS_quotactl, QCMD(Q_GETINFO, 5), A_TMP, 0, A_MORE + 0x500);
	SC4(SYS_quotactl, QCMD(Q_GETFMT, USRQUOTA), A_TMP, 0, A_MORE + 0x500);
	SC4(SYS_quotactl, QCMD(Q_QUOTAOFF, GRPQUOTA), A_TMP, 0, 0);
	SC4(SYS_quotactl, QCMD(Q_XGETQSTAT, USRQUOTA), A_TMP, 0, A_MORE + 0x500);
	SC4(SYS_quotactl, QCMD(0x1234, USRQUOTA), A_TMP, 7, A_BUF);
}

/* x86's own calls and rare ones; a table gap (335) for ni_syscall;
 * kexec with arguments it refuses */
static void x86(void)
{
	SC2(SYS_arch_prctl, 0x1003, A_MORE);			/* ARCH_GET_FS */
	SC2(SYS_arch_prctl, 0x1004, A_MORE + 8);		/* ARCH_GET_GS */
	SC2(SYS_arch_prctl, 0x9999, 0);				/* EINVAL */
	SC3(SYS_ioperm, 0x80, 1, 0);
	SC3(SYS_ioperm, 0x10000, 8, 1);				/* EINVAL */
	SC1(SYS_iopl, 0);
	SC1(SYS_iopl, 5);					/* EINVAL */
	SC3(SYS_modify_ldt, 0, A_BUF, 16);
	SC3(SYS_modify_ldt, 99, 0, 0);				/* ENOSYS */
	SC1(447, 0x1234);				/* memfd_secret: EINVAL */
	SC2(SYS_sysfs, 1, A_FSTYPE);
	SC3(SYS_sysfs, 2, 0, A_BUF);
	SC1(SYS_sysfs, 99);					/* EINVAL */
	SC0(SYS_restart_syscall);				/* EINTR */
	SC3(SYS_lookup_dcookie, 0x1234, A_BUF, 16);
	SC0(335);						/* ENOSYS */
	SC4(SYS_kexec_load, 0, 0, 0, 0x140000);		/* KEXEC_ARCH_PPC: EINVAL */
	SC4(SYS_kexec_load, 0x1000, 17, A_BUF, 0x3e0001);	/* EINVAL */
	SC5(SYS_kexec_file_load, 99, 99, 5, A_TMP, 4);		/* EBADF */
	SC5(SYS_kexec_file_load, -1, -1, 0, 0, 0x1 | 0x8);	/* EINVAL */
}

/* utime: times to set, now (NULL), an unreadable struct */
static void utime(void)
{
	long *t = (long *)(A_MORE + 0x700);

	t[0] = 1;
	t[1] = 86400 * 365;
	SC2(SYS_utime, A_TMP, A_MORE + 0x700);
	SC2(SYS_utime, A_NOENT, 0);				/* ENOENT */
	SC2(SYS_utime, A_TMP, 0x8);				/* EFAULT */
}

/* nobody: the rest of the commands run as uid and gid 65534 */
static void nobody(void)
{
	SC3(SYS_setresgid, 65534, 65534, 65534);
	SC3(SYS_setresuid, 65534, 65534, 65534);
}

static void setup(void)
{
	static const char data[] = "hello\n\tworld\0x";
	static const char quote[] = "sc\t\"q\"\xc3\xa9";
	char **argv = (char **)A_ARGV;

	if (mmap((void *)AREA, AREA_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		exit(2);
	put(A_PATH, "/tmp/sc-a", 10);
	put(A_PATH2, "/tmp/sc-b", 10);
	put(A_DIR, "/tmp/sc-d", 10);
	put(A_NOENT, "/no/such/file", 14);
	put(A_TMP, "/tmp", 5);
	put(A_QUOTE, quote, sizeof(quote));
	put(A_DATA, data, sizeof(data) - 1);
	memset((void *)A_LONG, 'z', 64);
	put(A_FSTYPE, "tmpfs", 6);
	put(A_OPTS, "size=1m,mode=0755", 18);
	put(A_KTYPE, "no-such-type", 13);
	put(A_KDESC, "tapir:key", 10);
	put(A_MOD, "no_such_module", 15);
	put(A_HOST, "tapir-guest", 12);
	put(A_MEMFD, "sc-memfd", 9);
	put(A_KUSER, "user", 5);
	put(A_MQ, "/tapir-mq", 10);
	put(A_XNAME, "user.tapir", 11);
	argv[0] = (char *)A_NOENT;
	argv[1] = (char *)A_PATH;
	argv[2] = NULL;
	argv[16] = (char *)A_PATH2;	/* the environment, at A_ARGV + 0x80 */
	argv[17] = NULL;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cmds[] = {
		{ "files", files }, { "errors", errors }, { "proc", proc },
		{ "mem", mem }, { "time", times }, { "net", net },
		{ "sig", sig }, { "misc", misc }, { "more", more },
		{ "trace", trace }, { "more2", more2 },
		{ "more3", more3 }, { "ipc", ipc },
		{ "last", last }, { "sigsock", sigsock },
		{ "timex", timex }, { "quota", quota },
		{ "x86", x86 }, { "utime", utime }, { "nobody", nobody },
	};

	setup();
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "getppid") == 0 && i + 1 < argc) {
			long n = atol(argv[++i]);

			while (n-- > 0)
				SC0(SYS_getppid);
			continue;
		}
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
			if (strcmp(argv[i], cmds[k].name) == 0)
				cmds[k].fn();
	}
	return 0;
}
