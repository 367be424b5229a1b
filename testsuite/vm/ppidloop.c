// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ppidloop N: call getppid() N times (a raw system call each time) and
 * say so. Linked statically to run in the VM tier's busybox guest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	printf("ppidloop: %ld calls\n", n);
	return 0;
}
