// SPDX-License-Identifier: GPL-2.0-or-later
/* bad.c - a tree file that does not compile: line 7 uses an undeclared name. */
#include <linux/kernel.h>

int tapir_test_bad(void)
{
	return tapir_no_such_thing;
}
