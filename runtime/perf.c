// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.c - perf.type(T).config(C).sample(N): perf events on every CPU.
 *
 * Each TP_PROBE_PERF probe gets one kernel perf event per CPU online
 * when the session starts, made with perf_event_create_kernel_counter()
 * (attr: the probe's type and config, a sample period of N events, or a
 * frequency of N Hz with perf_freq), whose overflow handler runs the
 * probe with the registers the event interrupted (c->regs). Hardware
 * events run it in NMI context, software ones where the event happens
 * (a page fault's task, the scheduler, an hrtimer): tp_run_probe()
 * only disables preemption and never sleeps. An event the kernel
 * refuses (a hardware event on a machine without a PMU, such as qemu's
 * TCG) is the session's registration error naming the probe, and the
 * events made so far are released. At the end each event is released
 * (perf_event_release_kernel(), which may sleep: the session's stop is
 * process context); the session then waits for handlers still running.
 * CPUs brought online during the session get no events.
 *
 * The kernel's API for this is the same on 6.1 and 6.12.
 */
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "core.h"

static struct perf_event **tp_perf_events;	/* [probe][cpu] */
static const struct tp_probe **tp_perf_probes;
static unsigned int tp_nperf;

static void tp_perf_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	tp_run_probe(event->overflow_handler_context, regs, 0, NULL);
}

int tp_perf_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, n = tp_probes_count(TP_PROBE_PERF);

	if (!n)
		return 0;
	tp_perf_probes = kcalloc(n, sizeof(*tp_perf_probes), GFP_KERNEL);
	tp_perf_events = kcalloc((size_t)n * nr_cpu_ids,
				 sizeof(*tp_perf_events), GFP_KERNEL);
	if (!tp_perf_probes || !tp_perf_events) {
		tp_perf_free();
		return -ENOMEM;
	}
	for (i = 0; i < tapir_module.nprobes; i++)
		if (v[i].kind == TP_PROBE_PERF)
			tp_perf_probes[tp_nperf++] = &v[i];
	return 0;
}

static struct perf_event **tp_perf_slot(unsigned int i, unsigned int cpu)
{
	return &tp_perf_events[(size_t)i * nr_cpu_ids + cpu];
}

int tp_perf_start(const char **failed)
{
	unsigned int i, cpu;

	for (i = 0; i < tp_nperf; i++) {
		const struct tp_probe *p = tp_perf_probes[i];
		struct perf_event_attr attr = {
			.type = p->perf_type,
			.size = sizeof(attr),
			.config = p->perf_config,
			.freq = p->perf_freq,
		};

		if (p->perf_freq)
			attr.sample_freq = p->perf_period;
		else
			attr.sample_period = p->perf_period;
		for_each_online_cpu(cpu) {
			struct perf_event *ev;

			ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
							      tp_perf_overflow,
							      (void *)p);
			if (IS_ERR(ev)) {
				*failed = p->pp;
				tp_perf_stop();
				return PTR_ERR(ev);
			}
			*tp_perf_slot(i, cpu) = ev;
		}
	}
	return 0;
}

void tp_perf_stop(void)
{
	unsigned int i, cpu;

	for (i = 0; i < tp_nperf; i++)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct perf_event **ev = tp_perf_slot(i, cpu);

			if (!*ev)
				continue;
			perf_event_release_kernel(*ev);
			*ev = NULL;
		}
}

void tp_perf_free(void)
{
	kfree(tp_perf_events);
	kfree(tp_perf_probes);
	tp_perf_events = NULL;
	tp_perf_probes = NULL;
	tp_nperf = 0;
}
