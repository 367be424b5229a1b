// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hwbkpt.c - kernel.data(ADDRESS|"SYMBOL").length(N).write/.rw: hardware
 * watchpoints.
 *
 * Each TP_PROBE_HWBKPT probe gets one wide kernel breakpoint (a perf
 * event of type PERF_TYPE_BREAKPOINT on every online CPU) made with
 * register_wide_hw_breakpoint() when the session starts; the CPU raises
 * a debug exception after an instruction wrote the watched bytes (.rw:
 * read or wrote them), and the event's handler runs the probe with the
 * registers of that moment (their ip is the next instruction's) in
 * that exception's context (NMI-like on x86: tp_run_probe() only
 * disables preemption and never sleeps).
 *
 * A probe on a symbol looks its address up now (kcore_lookup_name():
 * vmlinux or a loaded module, wherever KASLR put it). The length is
 * rounded up to a size the breakpoint can have: 1, 2, 4, else 8 (0 and
 * more than 8 too), as SystemTap 4.8 does.
 *
 * Failures are SystemTap 4.8's, which it prints with the same words:
 * - a symbol the kernel lacks: "Probe PP registration skipped: invalid
 *   symbol NAME " (a warning), the other probes go on;
 * - a breakpoint the kernel refuses (-ENOSPC: more than the CPU's debug
 *   registers, four on x86, less those in use; -EINVAL: an address not
 *   aligned to the length): "Hwbkpt probe PP: registration error [man
 *   warning::pass5] RC, addr ADDR, name NAME" (a warning; ADDR in hex,
 *   where stap prints the kernel's hashed %p). As in stap,
 *   only the result of the last breakpoint tried decides whether the
 *   session fails ("probe PP registration error ... (rc RC)", PP the
 *   last one tried): a refused breakpoint before it is only that
 *   warning.
 * At the end each breakpoint is unregistered (process context: it may
 * sleep); the session then waits for handlers still running.
 *
 * The kernel's API for this is the same on 6.1 and 6.12.
 */
#include <linux/err.h>
#include <linux/hw_breakpoint.h>
#include <linux/kprobes.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "core.h"
#include "kcore.h"
#include "transport.h"

static struct perf_event *__percpu **tp_hw_events;	/* [probe] */
static const struct tp_probe **tp_hw_probes;
static unsigned int tp_nhw;
static char tp_hw_msg[512];

static void tp_hw_hit(struct perf_event *bp, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	unsigned long ip = regs && !user_mode(regs) ?
			   instruction_pointer(regs) : 0;

	tp_run_probe(bp->overflow_handler_context, regs, ip, NULL);
}
NOKPROBE_SYMBOL(tp_hw_hit);

static __printf(1, 2) void tp_hw_warn(const char *fmt, ...)
{
	va_list ap;
	int n;

	n = scnprintf(tp_hw_msg, sizeof(tp_hw_msg), "WARNING: ");
	va_start(ap, fmt);
	n += vscnprintf(tp_hw_msg + n, sizeof(tp_hw_msg) - n, fmt, ap);
	va_end(ap);
	n += scnprintf(tp_hw_msg + n, sizeof(tp_hw_msg) - n, "\n");
	tp_transport_stderr(tp_hw_msg, n);
}

int tp_hwbkpt_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, n = tp_probes_count(TP_PROBE_HWBKPT);

	if (!n)
		return 0;
	tp_hw_probes = kcalloc(n, sizeof(*tp_hw_probes), GFP_KERNEL);
	tp_hw_events = kcalloc(n, sizeof(*tp_hw_events), GFP_KERNEL);
	if (!tp_hw_probes || !tp_hw_events) {
		tp_hwbkpt_free();
		return -ENOMEM;
	}
	for (i = 0; i < tapir_module.nprobes; i++)
		if (v[i].kind == TP_PROBE_HWBKPT)
			tp_hw_probes[tp_nhw++] = &v[i];
	return 0;
}

static u64 tp_hw_len(unsigned int len)
{
	switch (len) {
	case 1:
		return HW_BREAKPOINT_LEN_1;
	case 2:
		return HW_BREAKPOINT_LEN_2;
	case 3:
	case 4:
		return HW_BREAKPOINT_LEN_4;
	default:
		return HW_BREAKPOINT_LEN_8;
	}
}

int tp_hwbkpt_start(const char **failed)
{
	const char *last = NULL;
	unsigned int i;
	int rc = 0;

	for (i = 0; i < tp_nhw; i++) {
		const struct tp_probe *p = tp_hw_probes[i];
		struct perf_event *__percpu *ev;
		struct perf_event_attr attr;
		unsigned long addr = p->hw_address;

		hw_breakpoint_init(&attr);
		if (p->hw_symbol) {
			addr = kcore_lookup_name(p->hw_symbol);
			if (!addr) {
				tp_hw_warn("Probe %s registration skipped: "
					   "invalid symbol %s ", p->pp,
					   p->hw_symbol);
				continue;
			}
		}
		attr.bp_addr = addr;
		attr.bp_type = HW_BREAKPOINT_W | (p->hw_rw ? HW_BREAKPOINT_R : 0);
		attr.bp_len = tp_hw_len(p->hw_len);
		last = p->pp;
		ev = register_wide_hw_breakpoint(&attr, tp_hw_hit, (void *)p);
		rc = 0;
		if (IS_ERR((void __force *)ev)) {
			rc = PTR_ERR((void __force *)ev);
			/* stap's words, but the address in hex where stap
			 * prints the kernel's hashed %p of it: the probe's
			 * own address (0 for a symbol), its symbol ("(null)"
			 * for an address) */
			tp_hw_warn("Hwbkpt probe %s: registration error [man "
				   "warning::pass5] %d, addr 0x%lx, name %s",
				   p->pp, rc, p->hw_address,
				   p->hw_symbol ? p->hw_symbol : "(null)");
			continue;
		}
		tp_hw_events[i] = ev;
	}
	if (rc) {
		*failed = last;
		tp_hwbkpt_stop();
	}
	return rc;
}

void tp_hwbkpt_stop(void)
{
	unsigned int i;

	for (i = 0; i < tp_nhw; i++) {
		if (!tp_hw_events[i])
			continue;
		unregister_wide_hw_breakpoint(tp_hw_events[i]);
		tp_hw_events[i] = NULL;
	}
}

void tp_hwbkpt_free(void)
{
	kfree(tp_hw_events);
	kfree(tp_hw_probes);
	tp_hw_events = NULL;
	tp_hw_probes = NULL;
	tp_nhw = 0;
}
