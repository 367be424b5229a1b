// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpoint.c - the kernel's tracepoint calls for tracepoint.c (see
 * tpoint.h for why they are apart).
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "tpoint.h"

struct tp_tpoint_want {
	const char *const *names;
	void **found;
	unsigned int n;
};

static void tp_tpoint_match(struct tracepoint *tp, void *priv)
{
	struct tp_tpoint_want *w = priv;
	unsigned int i;

	for (i = 0; i < w->n; i++)
		if (!w->found[i] && strcmp(tp->name, w->names[i]) == 0)
			w->found[i] = tp;
}

void tp_tpoint_lookup(const char *const *names, void **found, unsigned int n)
{
	struct tp_tpoint_want w = { .names = names, .found = found, .n = n };

	for_each_kernel_tracepoint(tp_tpoint_match, &w);
}

int tp_tpoint_register(void *tp, void *probe)
{
	return tracepoint_probe_register(tp, probe, NULL);
}

void tp_tpoint_unregister(void *tp, void *probe)
{
	tracepoint_probe_unregister(tp, probe, NULL);
}

void tp_tpoint_sync(void)
{
	tracepoint_synchronize_unregister();
}
