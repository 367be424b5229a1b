/* getppid-loop - the workload of bench/overhead: calls getppid() N times
 * and prints the mean nanoseconds per call; "getppid-loop u N" calls
 * ucall_fn() instead (the user-space probe variants u and v). Linked
 * statically so that it runs in the guest's busybox initramfs as it is. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile long ucall_sink;

/* the user-space variants' probed function: not inlined, nothing in it
 * but a store */
__attribute__((noinline)) void ucall_fn(long i)
{
	ucall_sink = i;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int user = argc > 1 && !strcmp(argv[1], "u");
	long n = argc > 1 + user ? atol(argv[1 + user]) : 100000, i;
	double t0, t1;

	if (n <= 0)
		n = 1;
	t0 = now_ns();
	if (user)
		for (i = 0; i < n; i++)
			ucall_fn(i);
	else
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
	t1 = now_ns();
	printf("%.1f\n", (t1 - t0) / n);
	return 0;
}
