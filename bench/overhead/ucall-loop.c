/* ucall-loop - the user-space workload of bench/overhead: calls
 * ucall_fn() N times and prints the mean nanoseconds per call; the u and
 * v variants put a uprobe on ucall_fn's entry. Static, as getppid-loop. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile long ucall_sink;

/* the probed function: not inlined, nothing in it but a store */
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
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	double t0, t1;

	if (n <= 0)
		n = 1;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		ucall_fn(i);
	t1 = now_ns();
	printf("%.1f\n", (t1 - t0) / n);
	return 0;
}
