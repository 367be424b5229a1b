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
 * set_thread_area, stime, readdir, ustat); it prints nothing.
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
	sc2(NR_exit, 0, 0);
	for (;;)
		;
}
