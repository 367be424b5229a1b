// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracepoint.c - kernel.trace("name"): the probes' handlers on the
 * kernel's tracepoints.
 *
 * Each TP_PROBE_TRACEPOINT probe names its tracepoint and brings a
 * handler with that tracepoint's prototype (the generated code's). When
 * the session starts the kernel's tracepoints are walked once
 * (for_each_kernel_tracepoint()) to find each probe's by name, and the
 * handlers are registered in script order, so that several probes on
 * one tracepoint run in script order, as in stap. A tracepoint that is
 * not there, or a refused registration, is a warning naming the probe
 * ("WARNING: probe kernel.trace("sched:x") registration error [man
 * warning::pass5] (rc N)"; silent for an optional `?` probe) and the rest
 * runs. At the end every handler is unregistered, then
 * tracepoint_synchronize_unregister() waits for the ones still running.
 * A probe on a tracepoint of a module (tp_module) is registered by
 * tpoint.c's module notifier whenever that module is loaded, before or
 * during the session, and unregistered when it goes (a module that
 * never comes is no warning, as in stap).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core.h"
#include "tpoint.h"
#include "transport.h"

struct tp_tpoint {
	const struct tp_probe *p;
	bool registered;
};

static struct tp_tpoint *tp_tps;
static const char **tp_tp_names;
static void **tp_tp_found;		/* struct tracepoint * */
static unsigned int tp_ntp;
/* the probes on tracepoints of modules (tpoint.c registers them) */
static const struct tp_probe **tp_tpm_probes;
static const char **tp_tpm_mods, **tp_tpm_names;
static void **tp_tpm_handlers;
static unsigned int tp_ntpm;
static bool tp_tp_started;
static char tp_tp_msg[TP_MSG_SIZE];	/* process context only */

int tp_tracepoints_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, n = tp_probes_count(TP_PROBE_TRACEPOINT);

	if (!n)
		return 0;
	tp_tps = kcalloc(n, sizeof(*tp_tps), GFP_KERNEL);
	tp_tp_names = kcalloc(n, sizeof(*tp_tp_names), GFP_KERNEL);
	tp_tp_found = kcalloc(n, sizeof(*tp_tp_found), GFP_KERNEL);
	tp_tpm_probes = kcalloc(n, sizeof(*tp_tpm_probes), GFP_KERNEL);
	tp_tpm_mods = kcalloc(n, sizeof(*tp_tpm_mods), GFP_KERNEL);
	tp_tpm_names = kcalloc(n, sizeof(*tp_tpm_names), GFP_KERNEL);
	tp_tpm_handlers = kcalloc(n, sizeof(*tp_tpm_handlers), GFP_KERNEL);
	if (!tp_tps || !tp_tp_names || !tp_tp_found || !tp_tpm_probes ||
	    !tp_tpm_mods || !tp_tpm_names || !tp_tpm_handlers) {
		tp_tracepoints_free();
		return -ENOMEM;
	}
	for (i = 0; i < tapir_module.nprobes; i++) {
		if (v[i].kind != TP_PROBE_TRACEPOINT)
			continue;
		if (v[i].tp_module) {
			tp_tpm_probes[tp_ntpm] = &v[i];
			tp_tpm_mods[tp_ntpm] = v[i].tp_module;
			tp_tpm_names[tp_ntpm] = v[i].tracepoint;
			tp_tpm_handlers[tp_ntpm++] = v[i].tp_handler;
			continue;
		}
		tp_tp_names[tp_ntp] = v[i].tracepoint;
		tp_tps[tp_ntp++].p = &v[i];
	}
	return 0;
}

static void tp_tp_refused(const struct tp_probe *p, int rc)
{
	if (p->optional)
		return;
	scnprintf(tp_tp_msg, sizeof(tp_tp_msg), "WARNING: probe %s "
		  "registration error [man warning::pass5] (rc %d)\n",
		  p->pp, rc);
	tp_transport_stderr(tp_tp_msg, strlen(tp_tp_msg));
}

/* a probe on a module's tracepoint refused when its module came */
static void tp_tpm_refused(unsigned int i, int rc)
{
	tp_tp_refused(tp_tpm_probes[i], rc);
}

int tp_tracepoints_start(void)
{
	unsigned int i;
	int rc;

	if (!tp_ntp && !tp_ntpm)
		return 0;
	if (tp_ntp)
		tp_tpoint_lookup(tp_tp_names, tp_tp_found, tp_ntp);
	tp_tp_started = true;
	for (i = 0; i < tp_ntp; i++) {
		struct tp_tpoint *t = &tp_tps[i];

		rc = tp_tp_found[i] ?
		     tp_tpoint_register(tp_tp_found[i], t->p->tp_handler) :
		     -ENOENT;
		if (rc == 0)
			t->registered = true;
		else
			tp_tp_refused(t->p, rc);
	}
	/* a module not loaded yet is no error: its probes wait for it */
	if (tp_ntpm) {
		rc = tp_tpoint_modules_start(tp_tpm_mods, tp_tpm_names,
					     tp_tpm_handlers, tp_ntpm,
					     tp_tpm_refused);
		if (rc)
			for (i = 0; i < tp_ntpm; i++)
				tp_tp_refused(tp_tpm_probes[i], rc);
	}
	return 0;
}

void tp_tracepoints_stop(void)
{
	unsigned int i;

	if (!tp_tp_started)
		return;
	for (i = 0; i < tp_ntp; i++) {
		struct tp_tpoint *t = &tp_tps[i];

		if (!t->registered)
			continue;
		tp_tpoint_unregister(tp_tp_found[i], t->p->tp_handler);
		t->registered = false;
	}
	tp_tpoint_modules_stop();
	tp_tp_started = false;
	tp_tpoint_sync();
}

void tp_tracepoints_free(void)
{
	kfree(tp_tps);
	kfree(tp_tp_names);
	kfree(tp_tp_found);
	kfree(tp_tpm_probes);
	kfree(tp_tpm_mods);
	kfree(tp_tpm_names);
	kfree(tp_tpm_handlers);
	tp_tps = NULL;
	tp_tp_names = NULL;
	tp_tp_found = NULL;
	tp_tpm_probes = NULL;
	tp_tpm_mods = NULL;
	tp_tpm_names = NULL;
	tp_tpm_handlers = NULL;
	tp_ntp = 0;
	tp_ntpm = 0;
}
