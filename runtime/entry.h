/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * entry.h - for the generated code: kprobe handlers specialized for one
 * probe. The runtime's generic kprobe handlers are reached through the
 * probe core's (kcore_pre, kcore_ret) and reach a probe's body through two
 * pointers (struct tp_probe's handler and its locks); a specialized one
 * is installed as the kernel's own handler (the probe core's raw_pre /
 * raw_ret) and is compiled where the probe table is visible, so the
 * compiler calls the body directly (usually inlines it) and folds the
 * probe's lock list.
 *
 * In the generated file, after tapir.h:
 *
 *	#include "runtime/entry.h"
 *	TP_KPROBE_ENTRY_DECL(probe_2_kentry);		(before the table)
 *	TP_KPROBE_RETURN_DECL(probe_3_kreturn);
 *	static const struct tp_probe tpg_probes[] = {
 *		...
 *		[2] = { .kind = TP_PROBE_KPROBE, ..., .kentry = probe_2_kentry },
 *		[3] = { ... .is_return = true, .kreturn = probe_3_kreturn },
 *	};
 *	TP_KPROBE_ENTRY(probe_2_kentry, tpg_probes[2]);	(after it)
 *	TP_KPROBE_RETURN(probe_3_kreturn, tpg_probes[3]);
 *
 * The table must be `static const` (its entries are read at compile
 * time). Everything else about the probe stays as without them.
 * TP_KPROBE_ENTRY_LIGHT / TP_KPROBE_RETURN_LIGHT: the same for a light
 * probe (tp_run_light_in() below).
 */
#ifndef TAPIR_RUNTIME_ENTRY_H
#define TAPIR_RUNTIME_ENTRY_H

#include "core.h"
#include "kcore.h"

/* notrace: a kprobe handler needs no ftrace call site of its own (one
 * instruction a hit, and no way to trace the tracer) */
#define TP_KPROBE_ENTRY_DECL(fn) \
	static notrace int fn(struct kprobe *kp, struct pt_regs *regs)

#define TP_KPROBE_RETURN_DECL(fn) \
	static notrace int fn(struct kretprobe_instance *ri,		\
			      struct pt_regs *regs)

/* The kernel's kprobe pre-handler: always 0, as the probe core's. The
 * handler sees the probed address as the instruction pointer
 * (tp_run_kprobe_in()). */
#define TP_KPROBE_ENTRY(fn, probe)					\
	TP_KPROBE_ENTRY_DECL(fn)					\
	{								\
		tp_run_kprobe_in(&(probe), regs,			\
				 kcore_probe_addr(kcore_of_kprobe(kp))); \
		return 0;						\
	}

/* The kernel's kretprobe handler; nothing when the kretprobe is going
 * away (as the probe core's). */
#define TP_KPROBE_RETURN(fn, probe)					\
	TP_KPROBE_RETURN_DECL(fn)					\
	{								\
		struct kcore_probe *kp = kcore_of_instance(ri);		\
									\
		if (likely(kp))						\
			tp_run_probe_in(&(probe), TP_STATE_RUNNING, regs, \
					kcore_probe_addr(kp), ri->data); \
		return 0;						\
	}

/*
 * A light probe's hit (translator/emit/emit.c, light_probe(): the emitter
 * proved that its code reads nothing of the context but its frames, the
 * nesting and the error fields, never prints and has no loop): as
 * tp_run_probe_in() without setting c->probe, regs, addr and data, the
 * action count (the probe checks its constant budget itself), the
 * nesting (every call restores it: it is 0 between hits) and the print
 * state, and without the print flush. The MAXSKIPPED test after the hit
 * is left to tp_skipped(), which makes it whenever a skip is counted.
 * @may_fail (a constant): false when the emitter proved that the probe
 * never sets c->last_error (abort() is not light either), and the error
 * fields are then neither cleared nor looked at.
 */
static __always_inline void tp_run_light_in(const struct tp_probe *p,
					    int state, bool may_fail)
{
	struct tp_context *c;

	if (unlikely(tp_low_stack())) {
		tp_skipped(NULL);
		return;
	}
	if (atomic_read(&tp_state) != state)
		return;
	if (unlikely(!tp_claim_cpu())) {
		atomic_inc(&tp_count.reentrant);
		return;
	}
	/* (raw: preemption is off here; and not volatile, so a handler
	 * that never looks at its context does not even load it) */
	c = raw_cpu_read(tp_ctx);
	if (may_fail) {
		c->aborted = false;
		c->last_error = NULL;
		c->last_stmt = NULL;
	}
	if (unlikely(!tp_lock(p))) {
		tp_skipped_claimed();
		return;
	}
	p->handler(c);
	tp_unlock(p->locks, p->nlocks);
	if (may_fail && unlikely(c->last_error) && !c->aborted)
		tp_report_error(c);
	tp_release_cpu();
}

#define TP_KPROBE_ENTRY_LIGHT(fn, probe, may_fail)			\
	TP_KPROBE_ENTRY_DECL(fn)					\
	{								\
		tp_run_light_in(&(probe), TP_STATE_RUNNING, (may_fail)); \
		return 0;						\
	}

#define TP_KPROBE_RETURN_LIGHT(fn, probe, may_fail)			\
	TP_KPROBE_RETURN_DECL(fn)					\
	{								\
		if (likely(kcore_of_instance(ri)))			\
			tp_run_light_in(&(probe), TP_STATE_RUNNING,	\
					(may_fail));			\
		return 0;						\
	}

#endif /* TAPIR_RUNTIME_ENTRY_H */
