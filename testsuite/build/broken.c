// SPDX-License-Identifier: GPL-2.0-or-later
/* broken.c - does not compile: line 9 uses an undeclared name. */
#include <linux/module.h>

#include "helper.h"

static int __init broken_init(void)
{
	return tapir_no_such_variable;
}

module_init(broken_init);
MODULE_LICENSE("GPL");
