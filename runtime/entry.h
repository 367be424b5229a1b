/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * entry.h - optional, for the generated code: kprobe handlers specialized
 * for one probe. The runtime's generic kprobe handlers reach a probe's
 * body through two pointers (struct tp_probe's handler and its locks);
 * a specialized one is compiled where the probe table is visible, so the
 * compiler calls the body directly (usually inlines it) and folds the
 * probe's lock list: about 50 instructions less per hit.
 *
 * In the generated file, after tapir.h:
 *
 *	#include "runtime/entry.h"
 *	TP_KPROBE_ENTRY_DECL(probe_2_kentry);		(before the table)
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
 */
#ifndef TAPIR_RUNTIME_ENTRY_H
#define TAPIR_RUNTIME_ENTRY_H

#include "core.h"
#include "kcore.h"

#define TP_KPROBE_ENTRY_DECL(fn) \
	static int fn(struct kcore_probe *kp, struct pt_regs *regs, void *data)

#define TP_KPROBE_RETURN_DECL(fn) \
	static void fn(struct kcore_probe *kp, struct pt_regs *regs, void *data)

#define TP_KPROBE_ENTRY(fn, probe)					\
	TP_KPROBE_ENTRY_DECL(fn)					\
	{								\
		tp_run_probe_in(&(probe), TP_STATE_RUNNING, regs,	\
				kcore_probe_addr(kp), NULL);		\
		return 0;						\
	}

#define TP_KPROBE_RETURN(fn, probe)					\
	TP_KPROBE_RETURN_DECL(fn)					\
	{								\
		tp_run_probe_in(&(probe), TP_STATE_RUNNING, regs,	\
				kcore_probe_addr(kp), data);		\
	}

#endif /* TAPIR_RUNTIME_ENTRY_H */
