// SPDX-License-Identifier: GPL-2.0-or-later
/* dyn.c - nothing here names the module, but pr_debug's descriptor holds
 * the module's name (CONFIG_DYNAMIC_DEBUG): only its object tells. */
#include <linux/kernel.h>
#include <linux/printk.h>
#include "api.h"

void tapir_test_dyn(void)
{
	pr_debug("tapir dyn\n");
}
