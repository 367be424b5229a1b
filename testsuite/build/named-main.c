// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * named-main.c - the generated C's stand-in for the "named" tree: a
 * module printing the strings its tree files made of its name.
 */
#include <linux/module.h>

#include "api.h"

static int __init named_init(void)
{
	tapir_test_dyn();
	pr_info("%s|%s|%d\n", tapir_test_named(), tapir_test_via_header(),
		tapir_test_plain(21));
	return 0;
}

static void __exit named_exit(void)
{
}

module_init(named_init);
module_exit(named_exit);
MODULE_LICENSE("GPL");
