// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpoint.c - the kernel's tracepoint calls for tracepoint.c (see
 * tpoint.h for why they are apart).
 */
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/slab.h>
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

/*
 * Tracepoints of modules: the tracepoint module notifier is told of
 * every module with tracepoints that is there when it is registered and
 * of every one that comes later (MODULE_STATE_COMING, before the
 * module's init runs), and of each going away (MODULE_STATE_GOING,
 * also for every module still there when it is unregistered), always
 * under the kernel's tracepoint_module_list_mutex: calls never overlap,
 * and a module's tracepoints stay valid for the length of one. A probe
 * is registered on its tracepoint when its module comes and
 * unregistered when it goes, before the kernel checks that no probe is
 * left on the going module's tracepoints; unregistering the notifier
 * at the end unregisters the rest.
 */
struct tp_tpoint_mods {
	const char *const *mods, *const *names;
	void *const *probes;
	unsigned int n;
	void (*refused)(unsigned int i, int rc);
	struct tracepoint **tp;		/* registered on, or NULL */
	struct module **owner;		/* tp's module */
};

static struct tp_tpoint_mods tp_tpm;

static void tp_tpoint_coming(struct module *mod)
{
	struct tp_tpoint_mods *w = &tp_tpm;
	unsigned int k, i;

	for (k = 0; k < mod->num_tracepoints; k++) {
		struct tracepoint *tp =
			tracepoint_ptr_deref(&mod->tracepoints_ptrs[k]);

		for (i = 0; i < w->n; i++) {
			int rc;

			if (w->tp[i] || strcmp(w->mods[i], mod->name) != 0 ||
			    strcmp(w->names[i], tp->name) != 0)
				continue;
			rc = tracepoint_probe_register(tp, w->probes[i], NULL);
			if (rc) {
				w->refused(i, rc);
				continue;
			}
			w->tp[i] = tp;
			w->owner[i] = mod;
		}
	}
}

static void tp_tpoint_going(struct module *mod)
{
	struct tp_tpoint_mods *w = &tp_tpm;
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		if (!w->tp[i] || w->owner[i] != mod)
			continue;
		tracepoint_probe_unregister(w->tp[i], w->probes[i], NULL);
		w->tp[i] = NULL;
		w->owner[i] = NULL;
	}
}

static int tp_tpoint_notify(struct notifier_block *nb, unsigned long state,
			    void *data)
{
	struct tp_module *tpm = data;

	if (state == MODULE_STATE_COMING)
		tp_tpoint_coming(tpm->mod);
	else if (state == MODULE_STATE_GOING)
		tp_tpoint_going(tpm->mod);
	return NOTIFY_OK;
}

static struct notifier_block tp_tpoint_nb = {
	.notifier_call = tp_tpoint_notify,
};

int tp_tpoint_modules_start(const char *const *mods, const char *const *names,
			    void *const *probes, unsigned int n,
			    void (*refused)(unsigned int i, int rc))
{
	struct tp_tpoint_mods *w = &tp_tpm;
	int rc;

	w->tp = kcalloc(n, sizeof(*w->tp), GFP_KERNEL);
	w->owner = kcalloc(n, sizeof(*w->owner), GFP_KERNEL);
	if (!w->tp || !w->owner) {
		kfree(w->tp);
		kfree(w->owner);
		w->tp = NULL;
		w->owner = NULL;
		return -ENOMEM;
	}
	w->mods = mods;
	w->names = names;
	w->probes = probes;
	w->n = n;
	w->refused = refused;
	rc = register_tracepoint_module_notifier(&tp_tpoint_nb);
	if (rc) {
		kfree(w->tp);
		kfree(w->owner);
		w->tp = NULL;
		w->owner = NULL;
		w->n = 0;
	}
	return rc;
}

void tp_tpoint_modules_stop(void)
{
	struct tp_tpoint_mods *w = &tp_tpm;

	if (!w->tp)
		return;
	unregister_tracepoint_module_notifier(&tp_tpoint_nb);
	kfree(w->tp);
	kfree(w->owner);
	w->tp = NULL;
	w->owner = NULL;
	w->n = 0;
}
