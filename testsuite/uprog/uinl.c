/*
 * uinl: the program of the inline cases, built by ./build with -g -O2
 * (dynamic, run path /tmp/tapir-uprog) as /tmp/tapir-uprog/uinl; it
 * loads libuinl.so (uinl-lib.c). "uinl N" runs ul_run(N) and counts N
 * through its own inline function, ui_step (inline instances in the
 * executable). Prints nothing; waits 300 ms before it exits, as uprog
 * does, so that the loader reads what the probes printed first.
 */
#include <stdlib.h>
#include <unistd.h>

long ul_run(int n);
volatile long ui_sink;

static inline __attribute__((always_inline)) void ui_step(int i)
{
	ui_sink = i;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	ui_step(n);
	ui_sink = ul_run(n);
	ui_step(-n);
	usleep(300000);
	return 0;
}
