// SPDX-License-Identifier: GPL-2.0
/*
 * crash.ko - a negative test: a NULL dereference on load. With the
 * runner's oops=panic panic=-1 the guest dies at once; the runner must
 * report a crash that shows the oops.
 */
#include <linux/compiler.h>
#include <linux/module.h>

static int __init crash_init(void)
{
	int *volatile p = NULL;

	pr_info("crash: about to dereference NULL\n");
	return READ_ONCE(*p);
}

static void __exit crash_exit(void)
{
}

module_init(crash_init);
module_exit(crash_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir VM tier: a deliberate oops on load");
