// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context.c - the per-CPU probe contexts, and the slow paths of
 * tp_run_probe() (core.h, inline): lock retries, error reports, skips.
 *
 * A context is allocated per possible CPU at load: struct tp_context,
 * then the runtime's struct tp_rt (print buffer, scratch buffers), then
 * tapir_module.locals_size bytes of generated frames. Handlers never use
 * the kernel stack for script data.
 */
/* Messages name the module themselves (THIS_MODULE->name) rather than
 * through pr_fmt and the build's module-name macro, so that this object
 * does not depend on the module's name and is built once for every
 * module (pass 4's objects cache). */

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "core.h"
#include "transport.h"

DEFINE_PER_CPU(struct tp_context *, tp_ctx);
DEFINE_PER_CPU(int, tp_busy);

struct tp_counters tp_count;
atomic_long_t tp_data_bytes;
static size_t tp_ctx_bytes;	/* module_size()'s "ctx" */

int tp_contexts_alloc(size_t locals_size)
{
	size_t head = TP_RT_OFFSET;
	size_t rt = ALIGN(sizeof(struct tp_rt), TP_ALIGN);
	size_t size = head + rt + ALIGN(locals_size, TP_ALIGN);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tp_context *c;

		c = kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));
		if (!c) {
			pr_err("%s: no memory for the probe contexts (%zu bytes per CPU)\n",
			       THIS_MODULE->name, size);
			tp_contexts_free();
			return -ENOMEM;
		}
		c->max_actions = MAXACTION_INTERRUPTIBLE;
		c->rt = (char *)c + head;
#ifdef STP_TIMING
		if (tapir_module.nprobes)
			tp_rt(c)->timing = kvzalloc_node(array_size(tapir_module.nprobes,
				sizeof(struct tp_timing)), GFP_KERNEL, cpu_to_node(cpu));
#endif
		c->locals = locals_size ? (char *)c + head + rt : NULL;
		per_cpu(tp_ctx, cpu) = c;
	}
	tp_ctx_bytes = size * num_possible_cpus();
	return 0;
}

void tp_contexts_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
#ifdef STP_TIMING
		if (per_cpu(tp_ctx, cpu))
			kvfree(tp_rt(per_cpu(tp_ctx, cpu))->timing);
#endif
		kvfree(per_cpu(tp_ctx, cpu));
		per_cpu(tp_ctx, cpu) = NULL;
	}
}

size_t tp_contexts_bytes(void)
{
	return tp_ctx_bytes;
}

static void tp_skip_count(void)
{
	atomic_inc(&tp_count.skipped);
#ifndef STAP_SUPPRESS_HANDLER_ERRORS
	if (atomic_read(&tp_count.skipped) > MAXSKIPPED)
		tp_too_many_skipped();
#endif
}

void tp_contexts_wait(void)
{
	int cpu, tries;

	for_each_possible_cpu(cpu) {
		/* Handlers run with preemption off and the probes are gone
		 * (an RCU grace period has passed): this ends at once unless
		 * a handler is looping in embedded C. */
		for (tries = 0; smp_load_acquire(per_cpu_ptr(&tp_busy, cpu)) &&
				tries < 10000; tries++)
			msleep(1);
	}
}

struct tp_context *tp_current(void)
{
	struct tp_context *c = this_cpu_read(tp_ctx);

	return this_cpu_read(tp_busy) ? c : NULL;
}

void tp_error(struct tp_context *c, const char *fmt, ...)
{
	va_list ap;

	if (c->last_error)
		return;
	va_start(ap, fmt);
	vsnprintf(c->error_buf, sizeof(c->error_buf), fmt, ap);
	va_end(ap);
	c->last_error = c->error_buf;
}

/* Lock @i of @p was busy: try it (and the rest) MAXTRYLOCK times each,
 * TRYLOCKDELAY us apart; on failure release the ones taken. */
bool tp_lock_slow(const struct tp_probe *p, unsigned int i)
{
#ifdef STP_TIMING
	atomic_inc(&p->locks[i].lock->contended);
#endif
	for (; i < p->nlocks; i++) {
		int tries = 1;

		while (!tp_trylock(&p->locks[i])) {
			if (++tries > MAXTRYLOCK) {
				atomic_inc(&p->locks[i].lock->skipped);
				tp_unlock(p->locks, i);
				return false;
			}
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

void tp_report_error(struct tp_context *c)
{
#ifdef STAP_SUPPRESS_HANDLER_ERRORS
	atomic_inc(&tp_count.errors);
#else
	struct tp_rt *rt = tp_rt(c);

	tp_stderr_line(rt->msg, sizeof(rt->msg), "ERROR: ", c->last_error,
		       c->last_stmt);
	if (atomic_inc_return(&tp_count.errors) > MAXERRORS) {
		atomic_set(&tp_state, TP_STATE_ERROR);
		tp_transport_request_exit();
	}
#endif
}

void tp_too_many_skipped(void)
{
	tp_fatal("ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n");
}

unsigned int tp_probes_count(enum tp_probe_kind kind)
{
	unsigned int i, n = 0;

	for (i = 0; i < tapir_module.nprobes; i++)
		if (tapir_module.probes[i].kind == kind)
			n++;
	return n;
}

/* A probe skipped (low stack, @c NULL; a lock timeout, @c claimed). */
void tp_skipped(struct tp_context *c)
{
	if (c)
		tp_release_cpu();
	else
		atomic_inc(&tp_count.lowstack);
	tp_skip_count();
}

/* A probe skipped on a lock timeout, this CPU claimed. */
void tp_skipped_claimed(void)
{
	tp_release_cpu();
	tp_skip_count();
}
