/* runstat.c - run a command several times; report time and peak memory.
 *
 * Usage: runstat RUNS COMMAND [ARGS...]
 * The command's standard output goes to /dev/null. Prints one line:
 *   <best seconds> <median seconds> <max RSS in KiB> <exit status>
 * where the exit status is that of the first failing run, or 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0, status = 0;
	long maxrss = 0;
	double *t;

	if (runs < 1) {
		fprintf(stderr, "usage: runstat RUNS COMMAND [ARGS...]\n");
		return 2;
	}
	t = calloc((size_t)runs, sizeof *t);
	if (!t)
		return 2;
	for (int i = 0; i < runs; i++) {
		struct rusage ru;
		double t0 = now();
		int st;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0)
				dup2(fd, 1);
			execvp(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (wait4(pid, &st, 0, &ru) < 0) {
			perror("wait4");
			return 2;
		}
		t[i] = now() - t0;
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
		if (!status && st)
			status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	qsort(t, (size_t)runs, sizeof *t, cmp);
	printf("%.6f %.6f %ld %d\n", t[0], t[runs / 2], maxrss, status);
	return 0;
}
