// SPDX-License-Identifier: GPL-2.0-or-later
/* asuser UID CMD [ARG...]: run CMD as UID (gid UID, no groups); the guest's
 * busybox has no su without a passwd file. For the non-root test. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;

	if (argc < 3) {
		fputs("usage: asuser UID CMD [ARG...]\n", stderr);
		return 2;
	}
	id = (uid_t)atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("asuser");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
