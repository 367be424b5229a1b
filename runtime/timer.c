// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.c - timer.s/ms/us/ns/hz(N), timer.jiffies(N) (with
 * .randomize(M)) and timer.profile.
 *
 * As in SystemTap: each interval timer is one timer, not one per CPU
 * (its handler runs on whichever CPU the timer fires on); the time units
 * and timer.hz use an hrtimer, timer.jiffies a timer_list. With
 * .randomize(M) every interval is N plus a uniform random value in
 * [-M, M] (at least the timer's resolution: one jiffy, or
 * hrtimer_resolution). timer.profile runs on every online CPU at each
 * tick (HZ per second) with the interrupted registers: a per-CPU pinned
 * hrtimer, started and stopped with the CPU (cpuhp), in hard interrupt
 * context where get_irq_regs() holds what was interrupted.
 */
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <asm/irq_regs.h>

#include "core.h"

#ifndef HAVE_TIMER_SETUP
#error "timer_setup() is needed (Linux 4.15 or later)"
#endif

#ifdef HAVE_TIMER_CONTAINER_OF
#define tp_timer_of(var, t, field) timer_container_of(var, t, field)
#else
#define tp_timer_of(var, t, field) from_timer(var, t, field)
#endif

#ifdef HAVE_TIMER_DELETE_SYNC
#define tp_timer_delete_sync(t) timer_delete_sync(t)
#else
#define tp_timer_delete_sync(t) del_timer_sync(t)
#endif

static void tp_hrtimer_setup(struct hrtimer *t,
			     enum hrtimer_restart (*fn)(struct hrtimer *),
			     enum hrtimer_mode mode)
{
#ifdef HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, mode);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, mode);
	t->function = fn;
#endif
}

struct tp_timer {
	const struct tp_probe *probe;
	bool hr;			/* hrtimer (ns) or timer_list (jiffies) */
	bool armed;
	u64 period;			/* ns or jiffies */
	u64 rnd;			/* same unit */
	struct hrtimer hrt;
	struct timer_list tl;
};

static struct tp_timer *tp_timers;
static unsigned int tp_ntimers;

/* timer.profile: the probes, and one hrtimer per CPU for all of them. */
static const struct tp_probe **tp_prof;
static unsigned int tp_nprof;
static struct hrtimer __percpu *tp_prof_timers;
static int tp_prof_hp = -1;		/* the cpuhp state while running */

static bool tp_timers_live(void)
{
	int s = atomic_read(&tp_state);

	return s == TP_STATE_RUNNING || s == TP_STATE_STARTING;
}

/* The next interval: period +- rnd, at least @min. */
static u64 tp_interval(const struct tp_timer *t, u64 min)
{
	s64 v = (s64)t->period;

	if (t->rnd) {
		u64 span = 2 * t->rnd + 1;

		v += (s64)(get_random_u64() % span) - (s64)t->rnd;
	}
	return v < (s64)min ? min : (u64)v;
}

static enum hrtimer_restart tp_hrtimer_fn(struct hrtimer *h)
{
	struct tp_timer *t = container_of(h, struct tp_timer, hrt);
	enum hrtimer_restart rc = HRTIMER_NORESTART;

	if (tp_timers_live()) {
		hrtimer_forward_now(h, ns_to_ktime(tp_interval(t, hrtimer_resolution)));
		rc = HRTIMER_RESTART;
	}
	tp_run_probe_in(t->probe, TP_STATE_RUNNING, NULL, 0, NULL);
	return rc;
}

static void tp_jiffies_fn(struct timer_list *tl)
{
	struct tp_timer *t = tp_timer_of(t, tl, tl);

	if (tp_timers_live())
		mod_timer(&t->tl, jiffies + (unsigned long)tp_interval(t, 1));
	tp_run_probe_in(t->probe, TP_STATE_RUNNING, NULL, 0, NULL);
}

static enum hrtimer_restart tp_prof_fn(struct hrtimer *h)
{
	struct pt_regs *regs = get_irq_regs();
	unsigned long addr = regs && !user_mode(regs) ? instruction_pointer(regs) : 0;
	enum hrtimer_restart rc = HRTIMER_NORESTART;
	unsigned int i;

	if (tp_timers_live()) {
		hrtimer_forward_now(h, ns_to_ktime(TICK_NSEC));
		rc = HRTIMER_RESTART;
	}
	for (i = 0; i < tp_nprof; i++)
		tp_run_probe_in(tp_prof[i], TP_STATE_RUNNING, regs, addr, NULL);
	return rc;
}

/* cpuhp callbacks: they run on @cpu itself. */
static int tp_prof_online(unsigned int cpu)
{
	struct hrtimer *h = per_cpu_ptr(tp_prof_timers, cpu);

	tp_hrtimer_setup(h, tp_prof_fn, HRTIMER_MODE_REL_PINNED);
	hrtimer_start(h, ns_to_ktime(TICK_NSEC), HRTIMER_MODE_REL_PINNED);
	return 0;
}

static int tp_prof_offline(unsigned int cpu)
{
	hrtimer_cancel(per_cpu_ptr(tp_prof_timers, cpu));
	return 0;
}

int tp_timers_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, nt = 0, np = 0;

	for (i = 0; i < tapir_module.nprobes; i++) {
		if (v[i].kind == TP_PROBE_TIMER)
			nt++;
		else if (v[i].kind == TP_PROBE_PROFILE)
			np++;
	}
	if (nt) {
		tp_timers = kcalloc(nt, sizeof(*tp_timers), GFP_KERNEL);
		if (!tp_timers)
			return -ENOMEM;
	}
	if (np) {
		tp_prof = kcalloc(np, sizeof(*tp_prof), GFP_KERNEL);
		tp_prof_timers = alloc_percpu(struct hrtimer);
		if (!tp_prof || !tp_prof_timers) {
			tp_timers_free();
			return -ENOMEM;
		}
	}
	for (i = 0; i < tapir_module.nprobes; i++) {
		const struct tp_probe *p = &v[i];

		if (p->kind == TP_PROBE_PROFILE) {
			tp_prof[tp_nprof++] = p;
		} else if (p->kind == TP_PROBE_TIMER) {
			struct tp_timer *t = &tp_timers[tp_ntimers++];

			t->probe = p;
			if (p->hz) {
				/* timer.hz(N): an hrtimer of 1/N s (stap:
				 * no randomization for hz) */
				t->hr = true;
				t->period = p->interval ?
					div64_u64(NSEC_PER_SEC, p->interval) : 0;
			} else {
				t->hr = p->hrtimer;
				t->period = p->interval;
				t->rnd = p->randomize;
			}
			if (!t->period)
				t->period = 1;
			if (t->hr)
				tp_hrtimer_setup(&t->hrt, tp_hrtimer_fn,
						 HRTIMER_MODE_REL);
			else
				timer_setup(&t->tl, tp_jiffies_fn, 0);
		}
	}
	return 0;
}

int tp_timers_start(const char **failed)
{
	unsigned int i;
	int rc;

	for (i = 0; i < tp_ntimers; i++) {
		struct tp_timer *t = &tp_timers[i];

		if (t->hr)
			hrtimer_start(&t->hrt,
				      ns_to_ktime(tp_interval(t, hrtimer_resolution)),
				      HRTIMER_MODE_REL);
		else
			mod_timer(&t->tl, jiffies + (unsigned long)tp_interval(t, 1));
		t->armed = true;
	}
	if (tp_nprof) {
		rc = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tapir/profile:online",
				       tp_prof_online, tp_prof_offline);
		if (rc < 0) {
			*failed = tp_prof[0]->pp;
			return rc;
		}
		tp_prof_hp = rc;
	}
	return 0;
}

void tp_timers_stop(void)
{
	unsigned int i;

	/* The state is no longer RUNNING: callbacks do not re-arm; the
	 * _sync/cancel calls wait for one that is running. */
	for (i = 0; i < tp_ntimers; i++) {
		struct tp_timer *t = &tp_timers[i];

		if (!t->armed)
			continue;
		if (t->hr)
			hrtimer_cancel(&t->hrt);
		else
			tp_timer_delete_sync(&t->tl);
		t->armed = false;
	}
	if (tp_prof_hp >= 0) {
		cpuhp_remove_state(tp_prof_hp);
		tp_prof_hp = -1;
	}
}

void tp_timers_free(void)
{
	kfree(tp_timers);
	tp_timers = NULL;
	tp_ntimers = 0;
	kfree(tp_prof);
	tp_prof = NULL;
	tp_nprof = 0;
	free_percpu(tp_prof_timers);
	tp_prof_timers = NULL;
}
