/* scdrive32.c - the syscall-run tier's 32-bit (ia32) workload: the calls
 * that only an ia32 task makes on x86_64, through int $0x80.
 *
 *	scdrive32
 *
 * Freestanding (no libc: the host has no 32-bit one), static, not
 * position-independent, so its buffers' addresses are the same on every
 * run of the same build. It makes socketcall(2)'s SYS_SEND and SYS_RECV
 * on a pair of datagram sockets, and on fd 99, then the old calls of the
 * ia32 table that x86_64's lacks (waitpid, sgetmask, signal, _llseek,
 * sigpending, sigprocmask, statfs64, fstatfs64, get_thread_area,
 * set_thread_area, stime, readdir, ustat), then the calls the compat_*
 * aliases see: the ia32 entry points with 32-bit time structs (nanosleep,
 * clock_nanosleep, getitimer, setitimer, _newselect, pselect6, ppoll,
 * futex, utime, utimes, utimensat, futimesat, recvmmsg, adjtimex,
 * settimeofday), 64-bit values split over two registers (truncate64,
 * ftruncate64, fadvise64, fadvise64_64, fallocate, readahead, pwrite64),
 * execve's 32-bit vectors, vmsplice, the System V IPC calls through
 * ipc(2), sendmsg and recvmsg through socketcall(2), ssetmask, sigaction,
 * rt_sigaction, signalfd4, the gone sysctl and bdflush, and
 * sched_yield, write, close;
 * most fail with a known errno (fd 99, id 99999, a missing path). It
 * prints nothing.
 */
#define NR_exit		1
#define NR_waitpid	7
#define NR_stime	25
#define NR_signal	48
#define NR_ustat	62
#define NR_readdir	89
#define NR_sgetmask	68
#define NR_sigpending	73
#define NR_sigprocmask	126
#define NR__llseek	140
#define NR_set_thread_area 243
#define NR_get_thread_area 244
#define NR_statfs64	268
#define NR_fstatfs64	269
#define NR_socketcall	102
#define NR_write	4
#define NR_close	6
#define NR_execve	11
#define NR_sched_yield	158
#define NR_utime	30
#define NR_sigaction	67
#define NR_ssetmask	69
#define NR_settimeofday	79
#define NR_setitimer	104
#define NR_getitimer	105
#define NR_ipc		117
#define NR_adjtimex	124
#define NR_bdflush	134
#define NR__newselect	142
#define NR__sysctl	149
#define NR_nanosleep	162
#define NR_rt_sigaction	174
#define NR_pwrite64	181
#define NR_truncate64	193
#define NR_ftruncate64	194
#define NR_readahead	225
#define NR_futex	240
#define NR_fadvise64	250
#define NR_clock_nanosleep 267
#define NR_utimes	271
#define NR_fadvise64_64	272
#define NR_futimesat	299
#define NR_pselect6	308
#define NR_ppoll	309
#define NR_vmsplice	316
#define NR_utimensat	320
#define NR_signalfd	321
#define NR_fallocate	324
#define NR_signalfd4	327
#define NR_recvmmsg	337
#define SYS_SENDMSG	16
#define SYS_RECVMSG	17
#define SEMCTL		3
#define SEMTIMEDOP	4
#define MSGSND		11
#define MSGRCV		12
#define MSGCTL		14
#define SHMAT		21
#define SHMCTL		24
#define SYS_SOCKETPAIR	8
#define SYS_SEND	9
#define SYS_RECV	10
#define AF_UNIX		1
#define SOCK_DGRAM	2
#define MSG_DONTWAIT	0x40
#define MSG_PEEK	0x2

static long sc2(long n, long a, long b)
{
	long r;

	__asm__ volatile ("int $0x80" : "=a"(r) : "0"(n), "b"(a), "c"(b)
			  : "memory");
	return r;
}

static long sc5(long n, long a, long b, long c, long d, long e)
{
	long r;

	__asm__ volatile ("int $0x80" : "=a"(r) : "0"(n), "b"(a), "c"(b),
			  "d"(c), "S"(d), "D"(e) : "memory");
	return r;
}

static long arg6;	/* a static: %ebp is loaded from its absolute address */

static long sc6(long n, long a, long b, long c, long d, long e, long f)
{
	long r;

	arg6 = f;
	__asm__ volatile ("push %%ebp\n\tmov %7, %%ebp\n\tint $0x80\n\tpop %%ebp"
			  : "=a"(r) : "0"(n), "b"(a), "c"(b), "d"(c), "S"(d),
			  "D"(e), "m"(arg6) : "memory");
	return r;
}

#define SC(n, a, b, c) sc5(n, (long)(a), (long)(b), (long)(c), 0, 0)

static unsigned int args[6];
static char tmp[] = "/tmp";
static char noent[] = "/no/such/file";
static unsigned int word[4];
static char fsbuf[128];
static unsigned int desc[4];	/* struct user_desc */
static int sv[2];
static char data[] = "hello\tworld";
static char buf[32];
static int ts[4];		/* two old_timespec32 / old_timeval32 */
static int tv[8];		/* two old_itimerval32 */
static int timex[52];		/* struct old_timex32 (modes 0: a read) */
static unsigned int act[5];	/* compat struct sigaction / old sigaction */
static unsigned int iov[2];
static char arg_a[] = "a", arg_b[] = "b c";
static unsigned int argv32[3];
static unsigned int envp32[2];

static long socketcall(int call, unsigned int a, unsigned int b,
		       unsigned int c, unsigned int d)
{
	args[0] = a;
	args[1] = b;
	args[2] = c;
	args[3] = d;
	return sc2(NR_socketcall, call, (long)args);
}

void _start(void)
{
	socketcall(SYS_SOCKETPAIR, AF_UNIX, SOCK_DGRAM, 0, (unsigned int)sv);
	socketcall(SYS_SEND, sv[0], (unsigned int)data, 11, MSG_DONTWAIT);
	socketcall(SYS_RECV, sv[1], (unsigned int)buf, 32,
		   MSG_DONTWAIT | MSG_PEEK);
	socketcall(SYS_RECV, sv[1], (unsigned int)buf, 32, MSG_DONTWAIT);
	socketcall(SYS_RECV, sv[1], (unsigned int)buf, 32, MSG_DONTWAIT);
	socketcall(SYS_SEND, 99, (unsigned int)data, 5, 0);	/* EBADF */
	SC(NR_waitpid, -1, word, 1);			/* WNOHANG: ECHILD */
	SC(NR_sgetmask, 0, 0, 0);
	SC(NR_signal, 10, 1, 0);			/* SIGUSR1, SIG_IGN */
	SC(NR_signal, 10, 0x8049000, 0);
	SC(NR_signal, 9, 1, 0);				/* SIGKILL: EINVAL */
	sc5(NR__llseek, sv[0], 1, 0x10, (long)word, 0);	/* ESPIPE */
	sc5(NR__llseek, 99, 0, 0, (long)word, 2);	/* EBADF */
	SC(NR_sigpending, word, 0, 0);
	word[0] = 1u << (10 - 1) | 1u << (1 - 1);	/* SIGUSR1, SIGHUP */
	SC(NR_sigprocmask, 0, word, word + 2);		/* SIG_BLOCK */
	SC(NR_sigprocmask, 7, 0, 0);			/* EINVAL */
	SC(NR_statfs64, tmp, 84, fsbuf);
	SC(NR_statfs64, noent, 84, fsbuf);		/* ENOENT */
	SC(NR_statfs64, tmp, 10, fsbuf);		/* EINVAL */
	SC(NR_fstatfs64, sv[0], 84, fsbuf);
	SC(NR_fstatfs64, 99, 84, fsbuf);		/* EBADF */
	desc[0] = 12;					/* GDT_ENTRY_TLS_MIN */
	SC(NR_get_thread_area, desc, 0, 0);
	desc[0] = 99;
	desc[1] = 0x1000;
	desc[2] = 0xfff;
	SC(NR_set_thread_area, desc, 0, 0);		/* EINVAL */
	SC(NR_get_thread_area, 0x8, 0, 0);		/* EFAULT */
	SC(NR_stime, 0x8, 0, 0);			/* EFAULT */
	SC(NR_readdir, sv[0], fsbuf, 1);		/* ENOTDIR */
	SC(NR_readdir, 99, fsbuf, 1);			/* EBADF */
	SC(NR_ustat, 0x12345, fsbuf, 0);		/* EINVAL */

	/* the compat_* aliases' calls */
	ts[1] = 1000;					/* {0, 1000}: 1 us */
	SC(NR_nanosleep, ts, 0, 0);
	sc5(NR_clock_nanosleep, 1, 0, (long)ts, 0, 0);	/* CLOCK_MONOTONIC */
	SC(NR_getitimer, 0, tv, 0);			/* ITIMER_REAL */
	SC(NR_setitimer, 1, tv + 4, 0);			/* ITIMER_VIRTUAL, off */
	ts[0] = ts[1] = 0;
	sc5(NR__newselect, 0, 0, 0, 0, (long)ts);
	sc6(NR_pselect6, 0, 0, 0, 0, (long)ts, 0);
	sc5(NR_ppoll, 0, 0, (long)ts, 0, 8);
	SC(NR_futex, word, 1, 1);			/* FUTEX_WAKE: 0 */
	ts[0] = 1;
	ts[1] = 2;
	SC(NR_utime, noent, ts, 0);			/* ENOENT */
	SC(NR_utimes, noent, ts, 0);			/* ENOENT */
	sc5(NR_utimensat, -100, (long)noent, (long)ts, 0, 0);
	SC(NR_futimesat, -100, noent, ts);		/* ENOENT */
	sc5(NR_recvmmsg, 99, (long)buf, 1, 0, (long)ts);	/* EBADF */
	SC(NR_adjtimex, timex, 0, 0);			/* TIME_ERROR */
	ts[1] = 2000000;
	SC(NR_settimeofday, ts, 0, 0);			/* usec too big: EINVAL */
	SC(NR_truncate64, noent, 5, 0);			/* ENOENT */
	SC(NR_ftruncate64, 99, 1, 1);			/* EBADF */
	sc5(NR_fadvise64, 99, 0x1000, 0, 4096, 2);	/* EBADF */
	sc6(NR_fadvise64_64, 99, 0x1000, 1, 4096, 0, 1);	/* EBADF */
	sc6(NR_fallocate, 99, 1, 0x1000, 0, 8192, 0);	/* EBADF */
	sc5(NR_readahead, 99, 16, 0, 512, 0);		/* EBADF */
	sc5(NR_pwrite64, 99, (long)data, 5, 7, 0);	/* EBADF */
	iov[0] = (unsigned int)data;
	iov[1] = 5;
	sc5(NR_vmsplice, 99, (long)iov, 1, 0, 0);	/* EBADF */
	argv32[0] = (unsigned int)arg_a;
	argv32[1] = (unsigned int)arg_b;
	envp32[0] = (unsigned int)arg_a;
	SC(NR_execve, noent, argv32, envp32);		/* ENOENT */
	sc6(NR_ipc, MSGCTL, 99999, 2, 0, (long)fsbuf, 0);	/* IPC_STAT */
	sc6(NR_ipc, MSGSND, 99999, 5, 0, (long)fsbuf, 0);
	sc6(NR_ipc, MSGRCV | 1 << 16, 99999, 32, 0x800, (long)fsbuf, 3);
	sc6(NR_ipc, SEMCTL, 99999, 0, 0, 0, 0);		/* IPC_RMID */
	sc6(NR_ipc, SEMTIMEDOP, 99999, 1, 0, (long)fsbuf, (long)ts);
	sc6(NR_ipc, SHMAT, 99999, 0, (long)word, 0, 0);
	sc6(NR_ipc, SHMCTL, 99999, 2, 0, (long)fsbuf, 0);
	socketcall(SYS_SENDMSG, 99, (unsigned int)fsbuf, 0x40, 0);
	socketcall(SYS_RECVMSG, 99, (unsigned int)fsbuf, 0x2, 0);
	SC(NR_ssetmask, 1u << (12 - 1), 0, 0);		/* SIGUSR2 */
	SC(NR_ssetmask, 0, 0, 0);
	act[0] = 0x8049000;				/* handler */
	act[1] = 0x10000000;				/* SA_RESTART */
	act[3] = 1u << (1 - 1);				/* SIGHUP */
	sc5(NR_rt_sigaction, 12, (long)act, 0, 8, 0);
	act[1] = 1u << (1 - 1);				/* old: mask, flags */
	act[2] = 0x10000000;
	act[3] = 0;
	SC(NR_sigaction, 12, act, 0);
	word[0] = 1u << (10 - 1);
	word[1] = 0;
	sc5(NR_signalfd4, -1, (long)word, 8, 0x80000, 0);	/* SFD_CLOEXEC */
	SC(NR__sysctl, fsbuf, 0, 0);			/* ENOSYS */
	SC(NR_bdflush, 2, fsbuf, 0);			/* ENOSYS */
	/* calls the 64-bit aliases have too */
	SC(NR_sched_yield, 0, 0, 0);
	SC(NR_write, 99, data, 5);			/* EBADF */
	SC(NR_close, 99, 0, 0);				/* EBADF */
	sc2(NR_exit, 0, 0);
	for (;;)
		;
}
