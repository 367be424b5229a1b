/*
 * uprog: the workload of the uprobe-run tier and the program the
 * process(...) cases of the dwarf tier list, a static program built with
 * -g -O0 (testsuite/uprog/build). It prints nothing on success, so that
 * its output never races a script's; errors go to stderr, exit status 1.
 *
 *   uprog ints              up_ints(-7, 123456789012)
 *   uprog str TEXT          up_str(TEXT)
 *   uprog struct            up_struct(&{ .id = 42, .name = "point", .x = 3,
 *                           .y = -4 })
 *   uprog recurse N         up_recurse(N): returns N + (N-1) + ... + 1
 *   uprog loop N            up_leaf(i) for i in 0 .. N-1
 *   uprog fork              fork(); the child runs "ints", the parent waits
 *   uprog thread            a second thread runs "ints", main joins it
 *   uprog A... + B...       several commands, one after the other
 *
 * It has USDT marks (provider "uprog"), as <sys/sdt.h> would make them,
 * written here with UP_MARK (see below): "start" in main (argc as a
 * 4-byte signed register argument, argv as 8 bytes), "leaf" in up_leaf
 * (i and the running sum: a register and a memory operand) and "none"
 * (no arguments) in up_ints.
 *
 * After the last command uprog waits 300 ms before it exits (as the
 * dwarf tier's drive does), so that the loader has read what the probes
 * printed before it hears that its -c command ended.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct up_point {
	int id;
	const char *name;
	long x, y;
};

volatile long up_sink;

/*
 * A USDT mark: a nop, and a note in .note.stapsdt (owner "stapsdt",
 * type 3) whose description is the nop's address, the address of
 * _.stapsdt.base (a one-byte section that lets a tool see how far the
 * file was moved after linking), the semaphore's address (0: none),
 * then the provider, the name and the arguments' description ("SIZE@
 * OPERAND" each, in the assembler's syntax; a negative size is signed),
 * each NUL-terminated. ARGS is that string with %0, %1... for the asm
 * operands that follow it.
 */
#define UP_MARK(name, args, ...)						\
	__asm__ __volatile__(						\
		"990:	nop\n"						\
		"	.pushsection .note.stapsdt,\"?\",\"note\"\n"	\
		"	.balign 4\n"						\
		"	.4byte 992f-991f, 994f-993f, 3\n"			\
		"991:	.asciz \"stapsdt\"\n"				\
		"992:	.balign 4\n"						\
		"993:	.8byte 990b, _.stapsdt.base, 0\n"			\
		"	.asciz \"uprog\"\n"					\
		"	.asciz \"" name "\"\n"				\
		"	.asciz \"" args "\"\n"				\
		"994:	.balign 4\n"						\
		"	.popsection\n"					\
		"	.ifndef _.stapsdt.base\n"				\
		"	.pushsection .stapsdt.base,\"aG\",\"progbits\","	\
		".stapsdt.base,comdat\n"					\
		"	.weak _.stapsdt.base\n"				\
		"	.hidden _.stapsdt.base\n"				\
		"_.stapsdt.base: .space 1\n"				\
		"	.size _.stapsdt.base, 1\n"				\
		"	.popsection\n"					\
		"	.endif\n"						\
		: : __VA_ARGS__)

__attribute__((noinline)) long up_ints(int a, long b)
{
	UP_MARK("none", "");
	up_sink = a + b;
	return a * 2 + b;
}

__attribute__((noinline)) int up_str(const char *s)
{
	up_sink = (long)strlen(s);
	return (int)up_sink;
}

__attribute__((noinline)) long up_struct(struct up_point *p)
{
	up_sink = p->x * p->y;
	return p->id;
}

__attribute__((noinline)) int up_recurse(int n)
{
	if (n <= 0)
		return 0;
	return n + up_recurse(n - 1);
}

__attribute__((noinline)) int up_leaf(int i)
{
	up_sink += i;
	UP_MARK("leaf", "-4@%0 8@%1", "r"(i), "m"(up_sink));
	return i + 1;
}

static void *up_thread(void *arg)
{
	(void)arg;
	up_ints(-7, 123456789012);
	return NULL;
}

static int command(int argc, char **argv)
{
	const char *c = argv[0];

	if (!strcmp(c, "ints") && argc == 1) {
		up_ints(-7, 123456789012);
	} else if (!strcmp(c, "str") && argc == 2) {
		up_str(argv[1]);
	} else if (!strcmp(c, "struct") && argc == 1) {
		struct up_point pt = { .id = 42, .name = "point", .x = 3, .y = -4 };

		up_struct(&pt);
	} else if (!strcmp(c, "recurse") && argc == 2) {
		up_recurse(atoi(argv[1]));
	} else if (!strcmp(c, "loop") && argc == 2) {
		int n = atoi(argv[1]);

		for (int i = 0; i < n; i++)
			up_leaf(i);
	} else if (!strcmp(c, "fork") && argc == 1) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("uprog: fork");
			return 1;
		}
		if (pid == 0) {
			up_ints(-7, 123456789012);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	} else if (!strcmp(c, "thread") && argc == 1) {
		pthread_t t;

		if (pthread_create(&t, NULL, up_thread, NULL)) {
			fprintf(stderr, "uprog: pthread_create failed\n");
			return 1;
		}
		pthread_join(t, NULL);
	} else {
		fprintf(stderr, "usage: uprog ints | str TEXT | struct | "
			"recurse N | loop N | fork | thread [+ ...]\n");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 300 * 1000 * 1000 };
	int i = 1;

	UP_MARK("start", "-4@%0 8@%1", "r"(argc), "r"(argv));
	while (i < argc) {
		int j = i, rc;

		while (j < argc && strcmp(argv[j], "+"))
			j++;
		rc = command(j - i, argv + i);
		if (rc)
			return rc;
		i = j + 1;
	}
	if (argc < 2)
		return command(0, (char *[]){ "", NULL });
	nanosleep(&pause, NULL);
	return 0;
}
