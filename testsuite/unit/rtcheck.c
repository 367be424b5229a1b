// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtcheck.c - a module that links runtime/{format,stat,map}.c so that the
 * kernel build (W=1) checks them. Built by kbuild-check, never loaded.
 */
#include <linux/module.h>
#include "format.h"
#include "map.h"
#include "stat.h"

atomic_long_t tp_data_bytes;	/* the runtime's, in context.c */

static int __init rtcheck_init(void)
{
	static const struct tp_stat_desc sd = { .hist = TP_HIST_LOG };
	static const struct tp_map_desc md = { .nkeys = 1,
		.keys = { TP_KEY_LONG }, .val = TP_VAL_STAT, .stat = &sd,
		.capacity = 16 };
	struct tp_arg a = { .type = TP_ARG_LONG, .l = 1 };
	union tp_key k = { .l = 1 };
	struct tp_map m;
	char buf[64];
	int err;

	err = tp_map_init(&m, &md);
	if (err)
		return err;
	tp_map_stat_add(&m, &k, 1);
	tp_hist_print(&sd, tp_map_value_stat(&m, tp_map_find(&m, &k)),
		      buf, sizeof(buf));
	tp_sprintf(buf, sizeof(buf), "%d %M", &a, 1, tp_format_read_kernel);
	tp_map_free(&m);
	return 0;
}

static void __exit rtcheck_exit(void)
{
}

module_init(rtcheck_init);
module_exit(rtcheck_exit);
MODULE_LICENSE("GPL");
