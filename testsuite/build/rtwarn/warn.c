// SPDX-License-Identifier: GPL-2.0-or-later
/* warn.c - a tree file with one compiler warning (line 7). */
#include <linux/kernel.h>

int tapir_test_warn(void)
{
	int tapir_unused;

	return 0;
}
