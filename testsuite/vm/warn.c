// SPDX-License-Identifier: GPL-2.0
/*
 * warn.ko - a negative test: WARN_ON() on load. The module loads fine;
 * the VM runner must still report the run as a kernel log failure.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit warn_exit(void)
{
}

module_init(warn_init);
module_exit(warn_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir VM tier: a deliberate WARN_ON on load");
