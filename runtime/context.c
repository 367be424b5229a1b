// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * context.c - the per-CPU probe contexts and tp_run_probe(), the one
 * path every probe hit takes (begin/end/error, timers, kprobes).
 *
 * A context is allocated per possible CPU at load: struct tp_context,
 * then the runtime's struct tp_rt (print buffer, scratch buffers), then
 * tapir_module.locals_size bytes of generated frames. Handlers never use
 * the kernel stack for script data.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

static DEFINE_PER_CPU(struct tp_context *, tp_ctx);

struct tp_counters tp_count;

#define TP_ALIGN 64

int tp_contexts_alloc(size_t locals_size)
{
	size_t head = ALIGN(sizeof(struct tp_context), TP_ALIGN);
	size_t rt = ALIGN(sizeof(struct tp_rt), TP_ALIGN);
	size_t size = head + rt + ALIGN(locals_size, TP_ALIGN);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tp_context *c;

		c = kvzalloc_node(size, GFP_KERNEL, cpu_to_node(cpu));
		if (!c) {
			pr_err("no memory for the probe contexts (%zu bytes per CPU)\n",
			       size);
			tp_contexts_free();
			return -ENOMEM;
		}
		atomic_set(&c->busy, 0);
		c->rt = (char *)c + head;
		c->locals = locals_size ? (char *)c + head + rt : NULL;
		per_cpu(tp_ctx, cpu) = c;
	}
	return 0;
}

void tp_contexts_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu(tp_ctx, cpu));
		per_cpu(tp_ctx, cpu) = NULL;
	}
}

void tp_contexts_wait(void)
{
	int cpu, tries;

	for_each_possible_cpu(cpu) {
		struct tp_context *c = per_cpu(tp_ctx, cpu);

		/* Handlers run with preemption off and the probes are gone
		 * (an RCU grace period has passed): this ends at once unless
		 * a handler is looping in embedded C. */
		for (tries = 0; c && atomic_read(&c->busy) && tries < 10000; tries++)
			msleep(1);
	}
}

struct tp_context *tp_current(void)
{
	struct tp_context *c = this_cpu_read(tp_ctx);

	return c && atomic_read(&c->busy) ? c : NULL;
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

/* The state a probe of this kind runs in. */
static int tp_state_for(enum tp_probe_kind kind)
{
	switch (kind) {
	case TP_PROBE_BEGIN:
		return TP_STATE_STARTING;
	case TP_PROBE_END:
		return TP_STATE_STOPPING;
	case TP_PROBE_ERROR:
		return TP_STATE_ERROR;
	case TP_PROBE_NEVER:
		return -1;
	default:
		return TP_STATE_RUNNING;
	}
}

/*
 * Too little stack left for a handler (MINSTACKSPACE). Only the task's
 * own stack is measured: interrupt and exception stacks are entered
 * fresh and are not THREAD_SIZE-aligned (so stap's "offset into an
 * aligned stack" test would misjudge them).
 */
static __always_inline bool tp_low_stack(void)
{
	unsigned long sp = (unsigned long)__builtin_frame_address(0);
	unsigned long base = (unsigned long)task_stack_page(current);

	return sp >= base && sp < base + THREAD_SIZE && sp - base < MINSTACKSPACE;
}

static void tp_unlock(const struct tp_lock_use *l, unsigned int n)
{
	while (n--) {
		if (l[n].write)
			write_unlock(&l[n].lock->lock);
		else
			read_unlock(&l[n].lock->lock);
	}
}

/* All of the probe's global locks or none: MAXTRYLOCK tries each. */
static bool tp_lock(const struct tp_probe *p)
{
	const struct tp_lock_use *l = p->locks;
	unsigned int i;

	for (i = 0; i < p->nlocks; i++) {
		int tries = 0;

		for (;;) {
			if (l[i].write ? write_trylock(&l[i].lock->lock)
				       : read_trylock(&l[i].lock->lock))
				break;
			if (++tries >= MAXTRYLOCK) {
				tp_unlock(l, i);
				return false;
			}
			udelay(TRYLOCKDELAY);
		}
	}
	return true;
}

static void tp_report_error(struct tp_context *c)
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

static void tp_check_skipped(void)
{
#ifndef STAP_SUPPRESS_HANDLER_ERRORS
	if (unlikely(atomic_read(&tp_count.skipped) > MAXSKIPPED))
		tp_fatal("ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.\n");
#endif
}

void tp_run_probe(const struct tp_probe *p, struct pt_regs *regs,
		  unsigned long addr, void *data)
{
	struct tp_context *c;

	preempt_disable();
	if (unlikely(tp_low_stack())) {
		atomic_inc(&tp_count.skipped);
		goto epilogue;
	}
	if (atomic_read(&tp_state) != tp_state_for(p->kind))
		goto out;
	c = this_cpu_read(tp_ctx);
	if (unlikely(!c))
		goto out;
	/* Only this CPU claims its context (an interrupt or NMI may race
	 * with us, another CPU never): no bus lock needed. */
	if (cmpxchg_local(&c->busy.counter, 0, 1) != 0) {
		atomic_inc(&tp_count.reentrant);
		goto out;
	}

	c->probe = p;
	c->regs = regs;
	c->addr = addr;
	c->data = data;
	c->actions = 0;
	c->max_actions = MAXACTION_INTERRUPTIBLE;
	c->nesting = 0;
	c->aborted = false;
	c->last_error = NULL;
	c->last_stmt = NULL;
	tp_print_reset(c);

	if (unlikely(!tp_lock(p))) {
		atomic_inc(&tp_count.skipped);
		goto release;
	}
	p->handler(c);
	tp_unlock(p->locks, p->nlocks);

	if (tp_rt(c)->print_len)
		tp_print_flush(c);
	if (unlikely(c->last_error) && !c->aborted)
		tp_report_error(c);
release:
	c->probe = NULL;
	c->regs = NULL;
	atomic_set_release(&c->busy, 0);
epilogue:
	tp_check_skipped();
out:
	preempt_enable();
}
