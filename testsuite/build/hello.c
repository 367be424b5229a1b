// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hello.c - a hand-written stand-in for pass 3's output: greets at load
 * and counts getppid() calls through a kprobe (hits, a module parameter).
 */
#include <linux/kprobes.h>
#include <linux/module.h>

#include "helper.h"

static unsigned long hits;
module_param(hits, ulong, 0444);

static int hello_pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static struct kprobe hello_kp = {
#ifdef HAVE_KPROBE_SYMBOL_NAME
	.symbol_name = "__x64_sys_getppid",
#endif
	.pre_handler = hello_pre,
};

static int __init hello_init(void)
{
	int rc = register_kprobe(&hello_kp);

	if (rc) {
		pr_err("%s: register_kprobe: %d\n", KBUILD_MODNAME, rc);
		return rc;
	}
	pr_info("%s: %s, probing %s\n", KBUILD_MODNAME, tapir_test_greeting(),
		hello_kp.symbol_name);
	return 0;
}

static void __exit hello_exit(void)
{
	unregister_kprobe(&hello_kp);
	pr_info("%s: unloaded after %lu hits\n", KBUILD_MODNAME, hits);
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
