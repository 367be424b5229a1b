/* getppid-loop - the workload of bench/overhead: calls getppid() N times
 * and prints the mean nanoseconds per call. Linked statically so that it
 * runs in the guest's busybox initramfs as it is. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	double t0, t1;

	if (n <= 0)
		n = 1;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	printf("%.1f\n", (t1 - t0) / n);
	return 0;
}
