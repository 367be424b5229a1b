// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes.c - kprobe.function("f")[.return[.maxactive(N)]] and
 * kprobe.module("m").function("f") through the probe core
 * (kernel-core/kcore.h).
 *
 * All kprobes of the script are registered in one batch when the session
 * starts, last probe first as stap registers them: the kernel runs the
 * handlers of the kprobes on one address newest first, so colocated entry
 * handlers run in script order and return handlers (the newest call's
 * instance first) in reverse, as in stap, and refusal warnings come out
 * last probe first, as stap's. A probe that cannot be placed does not
 * stop the run: a non-optional one in the kernel is reported as
 * "WARNING: probe kprobe.function("f") (f+0x0) registration error
 * [man warning::pass5] (rc N)", one in a module or marked `?` silently.
 * Hits the kernel dropped (another kprobe handler running on that CPU)
 * and returns not caught (all maxactive instances in use) are added to
 * the skipped probes reported at exit, as stap does.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core.h"
#include "transport.h"
#include "kcore.h"

static struct kcore_probe *tp_kps;
static struct kcore_probe **tp_kpp;
static unsigned int tp_nkp;
static bool tp_kp_registered;
static char tp_kp_msg[TP_MSG_SIZE];	/* process context only */

static int tp_kp_entry(struct kcore_probe *kp, struct pt_regs *regs,
		       void *data)
{
	tp_run_kprobe_in(kp->owner, regs, kcore_probe_addr(kp));
	return 0;
}

static void tp_kp_return(struct kcore_probe *kp, struct pt_regs *regs,
			 void *data)
{
	tp_run_probe_in(kp->owner, TP_STATE_RUNNING, regs, kcore_probe_addr(kp),
			data);
}

/* The core's refusal warnings (process context, during registration). */
static void tp_kp_warn(const char *msg)
{
	tp_stderr_line(tp_kp_msg, sizeof(tp_kp_msg), "WARNING: ", msg, NULL);
}

#ifdef STP_TIMING
static void tp_kp_missed(const char *what, const char *pp, unsigned long n)
{
	int len = scnprintf(tp_kp_msg, sizeof(tp_kp_msg),
			    "WARNING: Skipped due to missed %s on '%s': %lu\n",
			    what, pp, n);

	tp_transport_stderr(tp_kp_msg, len);
}
#endif

int tp_kprobes_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, n = tp_probes_count(TP_PROBE_KPROBE);

	if (!n)
		return 0;
	tp_kps = kcalloc(n, sizeof(*tp_kps), GFP_KERNEL);
	tp_kpp = kcalloc(n, sizeof(*tp_kpp), GFP_KERNEL);
	if (!tp_kps || !tp_kpp) {
		tp_kprobes_free();
		return -ENOMEM;
	}
	for (i = 0; i < tapir_module.nprobes; i++) {
		const struct tp_probe *p = &v[i];
		struct kcore_probe *kp;

		if (p->kind != TP_PROBE_KPROBE)
			continue;
		kp = &tp_kps[tp_nkp];
		/* registered last to first: see above */
		tp_kpp[n - 1 - tp_nkp++] = kp;
		kp->symbol = p->symbol;
		kp->module = p->module;
		kp->offset = p->offset;
		kp->addr = p->address;
		kp->flags = (p->optional ? KCORE_OPTIONAL : 0) |
			    (p->warn_address ? KCORE_WARN_ADDR : 0);
		kp->name = p->pp;
		kp->owner = (void *)p;
		if (p->is_return) {
			kp->kind = KCORE_KRETPROBE;
			if (p->kreturn)
				kp->raw_ret = p->kreturn;
			else
				kp->ret = tp_kp_return;
			kp->maxactive = p->maxactive;
			kp->entry = p->kret_entry;
			kp->data_size = p->data_size;
		} else {
			kp->kind = KCORE_KPROBE;
			if (p->kentry)
				kp->raw_pre = p->kentry;
			else
				kp->entry = tp_kp_entry;
		}
	}
	return 0;
}

int tp_kprobes_start(void)
{
	int rc;

	if (!tp_nkp)
		return 0;
	kcore_set_warn(tp_kp_warn);
	rc = kcore_register(tp_kpp, tp_nkp, 0);
	tp_kp_registered = true;
	/* Refused probes were reported; only a failure of the whole batch
	 * (no memory) is an error. */
	return rc < 0 ? rc : 0;
}

void tp_kprobes_stop(void)
{
	unsigned int i;

	if (!tp_kp_registered)
		return;
	kcore_unregister(tp_kpp, tp_nkp);
	tp_kp_registered = false;
	for (i = 0; i < tp_nkp; i++) {
		const struct kcore_probe *kp = &tp_kps[i];
		const struct tp_probe *p __maybe_unused = kp->owner;

		atomic_add((int)(kp->nmissed + kp->nmissed_ret),
			   &tp_count.skipped);
#ifdef STP_TIMING
		/* As stap -t: returns not caught (every maxactive instance
		 * in use), then hits the kernel dropped. */
		if (p->is_return && kp->nmissed_ret)
			tp_kp_missed("kretprobe/1", p->pp, kp->nmissed_ret);
		if (kp->nmissed)
			tp_kp_missed(p->is_return ? "kretprobe/2" : "kprobe",
				     p->pp, kp->nmissed);
#endif
	}
}

void tp_kprobes_free(void)
{
	kfree(tp_kps);
	kfree(tp_kpp);
	tp_kps = NULL;
	tp_kpp = NULL;
	tp_nkp = 0;
}
