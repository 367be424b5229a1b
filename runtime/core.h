/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * core.h - private to the runtime core's .c files (context.c, session.c,
 * print.c, timer.c, kprobes.c, tapset-api.c): the session state, the
 * counters reported at exit, the runtime-private part of a context and
 * the path every probe hit takes, tp_run_probe() (inline, at the end).
 * The generated code never includes this; its API is tapir.h.
 *
 * Session states follow SystemTap's: STARTING while the begin probes run,
 * RUNNING, then STOPPING after exit() (end probes run) or ERROR after
 * MAXERRORS / MAXSKIPPED (error probes run instead of end probes), and
 * STOPPED once the session is over. A probe runs only in the state its
 * kind wants: begin in STARTING, end in STOPPING, error in ERROR, all
 * others in RUNNING.
 */
#ifndef TAPIR_RUNTIME_CORE_H
#define TAPIR_RUNTIME_CORE_H

#include "tapir.h"

#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/timex.h>

enum tp_state {
	TP_STATE_STARTING,
	TP_STATE_RUNNING,
	TP_STATE_ERROR,
	TP_STATE_STOPPING,
	TP_STATE_STOPPED,
};

extern atomic_t tp_state;

/* What the final "WARNING: Number of errors: N, skipped probes: M" and
 * the lines after it report. */
struct tp_counters {
	atomic_t errors;		/* runtime errors reported (or, with
					 * STAP_SUPPRESS_HANDLER_ERRORS,
					 * suppressed) */
	atomic_t skipped;		/* skipped probes, vs MAXSKIPPED: low
					 * stack, lock timeouts, kprobe misses */
	atomic_t reentrant;		/* skipped: this CPU's context was busy
					 * (stap -t's "Skipped due to
					 * reentrancy"; not vs MAXSKIPPED) */
	atomic_t print_cut;		/* one print bigger than the buffer */
	atomic_t lowstack;		/* skipped (also in skipped): too
					 * little stack left */
};

extern struct tp_counters tp_count;

/* Microseconds between tries of a global's lock (stap's TRYLOCKDELAY). */
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10
#endif

/* One CPU's print buffer: flushed at handler end, or when full. */
#ifndef TP_PRINT_BUFSIZE
#define TP_PRINT_BUFSIZE 8192
#endif

/* --json (json.c): the room for one object's pieces in struct tp_rt. */
#define TP_JSON_SCRATCH 1536
/* The print buffer as "output" objects, one per line (--json). */
void tp_json_flush(struct tp_context *c);
/* print(@hist_*(s)) as a "hist" object (the aggregate is not empty). */
void tp_json_hist(struct tp_context *c, const struct tp_stat_desc *d,
		  const struct tp_stat_cell *cell);

/* Frames walked for a backtrace: the runtime's and kprobes' own frames
 * come first and are dropped. */
#define TP_BT_WALK (MAXBACKTRACE + 48)

/* "ERROR: <msg> near <stmt>\n" and "WARNING: <msg>\n" lines. */
#define TP_MSG_SIZE (MAXSTRINGLEN + 512)

/* -t: one probe's handler runs on one CPU. */
struct tp_timing {
	u64 count, sum, sumsq, min, max;	/* cycles */
};

/* The runtime-private part of a context (c->rt). */
struct tp_rt {
#ifdef STP_TIMING
	struct tp_timing *timing;	/* [tapir_module.nprobes] */
#endif
	size_t print_len;		/* bytes in print_buf */
	u64 fault_addr;			/* %m's unreadable address */
	bool fault;
	bool bt_done;			/* bt[] holds this hit's backtrace */
	unsigned int bt_n;
	unsigned long bt[TP_BT_WALK];
	char msg[TP_MSG_SIZE];
	char str[MAXSTRINGLEN];		/* sprintf() before the copy out */
	char sym[KSYM_SYMBOL_LEN];
	char print_buf[TP_PRINT_BUFSIZE];
	u64 json[TP_JSON_SCRATCH / 8];	/* --json: the object being made */
};

/* A context's allocation (context.c): struct tp_context, struct tp_rt,
 * the frames, each TP_ALIGN-aligned. */
#define TP_ALIGN 64
#define TP_RT_OFFSET ALIGN(sizeof(struct tp_context), TP_ALIGN)

/* (c->rt too, but a constant offset spares the hit's path a load) */
static inline struct tp_rt *tp_rt(const struct tp_context *c)
{
	return (struct tp_rt *)((char *)c + TP_RT_OFFSET);
}

/* ---- context.c ---- */
int tp_contexts_alloc(size_t locals_size);
void tp_contexts_free(void);
size_t tp_contexts_bytes(void);	/* all CPUs' contexts */
/* Wait (process context) until no CPU runs a handler. */
void tp_contexts_wait(void);

/* The slow paths of tp_run_probe(), out of line. */
bool tp_lock_slow(const struct tp_probe *p, unsigned int i);
void tp_report_error(struct tp_context *c);
void tp_skipped(struct tp_context *c);
void tp_skipped_claimed(void);
/* How many of the module's probes are of @kind (a family's init sizes
 * its tables by it). */
unsigned int tp_probes_count(enum tp_probe_kind kind);
void tp_too_many_skipped(void);

/* Each CPU's context: allocated for every possible CPU before any probe
 * is registered (module init fails otherwise) and freed after the last
 * is gone, so never NULL where a handler runs. */
DECLARE_PER_CPU(struct tp_context *, tp_ctx);
/* 1 while a handler runs on this CPU (its context is claimed). */
DECLARE_PER_CPU(int, tp_busy);

/* Claim this CPU's context: false when a handler runs here already (an
 * interrupt or NMI hit a probe inside one). Only this CPU claims its own
 * flag, so no bus lock is needed. */
static __always_inline bool tp_claim_cpu(void)
{
	return this_cpu_cmpxchg(tp_busy, 0, 1) == 0;
}

/* The end of the claim, with release order: tp_contexts_wait() on
 * another CPU sees every store of the handler before it. */
static __always_inline void tp_release_cpu(void)
{
#ifdef CONFIG_X86
	/* x86 keeps stores in order: the compiler barrier is the release */
	barrier();
	this_cpu_write(tp_busy, 0);
#else
	smp_store_release(this_cpu_ptr(&tp_busy), 0);
#endif
}

/* ---- session.c ---- */
/* exit(): STARTING/RUNNING -> STOPPING, and tell the loader. */
void tp_request_exit(void);
/* A runtime-internal error, not counted: @line ("ERROR: ...\n") goes to
 * the loader once and the session goes to ERROR (from RUNNING or
 * STARTING) and ends. Any context. */
void tp_fatal(const char *line);
/* Send "<prefix><text>\n" to the loader's stderr through @buf (@size
 * bytes): the newline only when @text lacks one. */
void tp_stderr_line(char *buf, size_t size, const char *prefix,
		    const char *text, const char *near);

/* ---- print.c ---- */
/* A new hit: nothing cached. */
static inline void tp_print_reset(struct tp_context *c)
{
	struct tp_rt *rt = tp_rt(c);

	/* (print_len is 0: every hit ends with a flush) */
	rt->fault = false;
	rt->bt_done = false;
}

/* ---- timer.c ---- */
int tp_timers_init(void);		/* module init: allocation */
int tp_timers_start(const char **failed); /* session start */
void tp_timers_stop(void);		/* session stop: no callback runs
					 * afterwards */
void tp_timers_free(void);

/* ---- kprobes.c ---- */
int tp_kprobes_init(void);
int tp_kprobes_start(void);
void tp_kprobes_stop(void);		/* adds the misses to skipped */
void tp_kprobes_free(void);

/* ---- uprobes.c: uprobes and the task finder ---- */
int tp_uprobes_init(void);
int tp_uprobes_start(void);		/* may sleep */
void tp_uprobes_running(void);		/* once RUNNING: the processes
					 * there already */
void tp_uprobes_stop(void);		/* no handler runs afterwards */
void tp_uprobes_free(void);

/* ---- usym.c: user-space symbols and backtraces ---- */
void tp_usym_start(void);		/* may sleep: the binaries' inodes */
void tp_usym_stop(void);		/* module exit: drop them */
/* ---- tracepoint.c ---- */
int tp_tracepoints_init(void);		/* module init: allocation */
int tp_tracepoints_start(void);		/* session start: refusals warn */
void tp_tracepoints_stop(void);		/* session stop: no handler runs
					 * after it */
void tp_tracepoints_free(void);
/* ---- procfs.c ---- */
int tp_procfs_init(void);		/* module init: the files */
int tp_procfs_start(const char **failed);	/* session start: made */
void tp_procfs_stop(void);		/* removed: no handler runs after */
void tp_procfs_free(void);

/* ---- netfilter.c ---- */
int tp_netfilter_init(void);		/* module init: allocation */
int tp_netfilter_start(const char **failed); /* session start (sleeps) */
void tp_netfilter_stop(void);		/* session stop: no hook runs
					 * after it */
void tp_netfilter_free(void);

/* ---- perf.c ---- */
int tp_perf_init(void);			/* module init: allocation */
int tp_perf_start(const char **failed);	/* session start (sleeps) */
void tp_perf_stop(void);		/* session stop: no handler runs
					 * after it */
void tp_perf_free(void);

/* ---- hwbkpt.c ---- */
int tp_hwbkpt_init(void);		/* module init: allocation */
int tp_hwbkpt_start(const char **failed); /* session start (sleeps) */
void tp_hwbkpt_stop(void);		/* session stop: no handler runs
					 * after it */
void tp_hwbkpt_free(void);

/* ---- tp_run_probe(): the path of every probe hit, inline ---- */

/* The state a probe of this kind runs in. */
static __always_inline int tp_state_for(enum tp_probe_kind kind)
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
	/* (the register itself: __builtin_frame_address() would make the
	 * handler set up a frame pointer, three instructions a hit) */
	unsigned long sp = current_stack_pointer;
	unsigned long base = (unsigned long)task_stack_page(current);

	/* unsigned: below the stack wraps to a huge value, above it is
	 * more than MINSTACKSPACE too */
	return sp - base < MINSTACKSPACE;
}

/* One try of one global's lock. */
static __always_inline bool tp_trylock(const struct tp_lock_use *l)
{
	atomic_t *a = &l->lock->cnt;
	int v;

	if (l->write) {
		v = 0;
		return atomic_try_cmpxchg_acquire(a, &v, -1);
	}
	v = atomic_read(a);
	while (v >= 0)
		if (atomic_try_cmpxchg_acquire(a, &v, v + 1))
			return true;
	return false;
}

static __always_inline void tp_unlock(const struct tp_lock_use *l,
				      unsigned int n)
{
	while (n--) {
		if (l[n].write)
			atomic_set_release(&l[n].lock->cnt, 0);
		else
			atomic_fetch_sub_release(1, &l[n].lock->cnt);
	}
}

/* All of the probe's global locks or none (tp_lock_slow() retries). */
static __always_inline bool tp_lock(const struct tp_probe *p)
{
	unsigned int i;

	for (i = 0; i < p->nlocks; i++)
		if (unlikely(!tp_trylock(&p->locks[i])))
			return tp_lock_slow(p, i);
	return true;
}

/*
 * Run @p's handler on this CPU if the session is in @state, in any
 * context (NMI too) with preemption disabled (kprobe, hrtimer and timer
 * callbacks): the execution model in tapir.h. @regs/@addr/@data become
 * c->regs, c->addr, c->data. Inline, so that a kprobe hit costs one call
 * (the handler) beyond the probe core's.
 */
#ifdef STP_TIMING
static __always_inline void tp_timing_add(struct tp_context *c,
					  const struct tp_probe *p, u64 d)
{
	struct tp_timing *t = tp_rt(c)->timing;

	if (!t)
		return;
	/* (this CPU's, while its context is claimed: nothing races) */
	t += p - tapir_module.probes;
	if (!t->count || d < t->min)
		t->min = d;
	if (d > t->max)
		t->max = d;
	t->count++;
	t->sum += d;
	t->sumsq += d * d;
}
#endif

static __always_inline void tp_run_probe_in(const struct tp_probe *p,
					    int state, struct pt_regs *regs,
					    unsigned long addr, void *data)
{
	struct tp_context *c;
#ifdef STP_TIMING
	cycles_t t0;
#endif

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
	c = this_cpu_read(tp_ctx);

	/* (probe and regs stay as they are after the hit: a context is
	 * only looked at while busy) */
	c->probe = p;
	c->regs = regs;
	c->sregs = NULL;
	c->addr = addr;
	c->data = data;
	c->actions = 0;
	c->nesting = 0;
	c->aborted = false;
	c->last_error = NULL;
	c->last_stmt = NULL;
	tp_print_reset(c);

#ifdef STP_TIMING
	t0 = get_cycles();
#endif
	if (unlikely(!tp_lock(p))) {
		tp_skipped(c);
		return;
	}
	p->handler(c);
	tp_unlock(p->locks, p->nlocks);

	if (tp_rt(c)->print_len)
		tp_print_flush(c);
#ifdef STP_TIMING
	tp_timing_add(c, p, get_cycles() - t0);
#endif
	if (unlikely(c->last_error) && !c->aborted)
		tp_report_error(c);
	tp_release_cpu();
#ifndef STAP_SUPPRESS_HANDLER_ERRORS
	if (unlikely(atomic_read(&tp_count.skipped) > MAXSKIPPED))
		tp_too_many_skipped();
#endif
}

/*
 * A kprobe's entry hit: the handler runs with the probed address as the
 * instruction pointer (the kernel gives the one after the int3, or after
 * the fentry call), as stap's handlers see it: register("ip"),
 * print_regs() and the unwinder's first frame are the probe point. The
 * kernel's value is put back before kprobes goes on (single-step or
 * ftrace return).
 */
static __always_inline void tp_run_kprobe_in(const struct tp_probe *p,
					     struct pt_regs *regs,
					     unsigned long addr)
{
	unsigned long ip = instruction_pointer(regs);

	instruction_pointer_set(regs, addr);
	tp_run_probe_in(p, TP_STATE_RUNNING, regs, addr, NULL);
	instruction_pointer_set(regs, ip);
}

/* The same from any context (begin/end/error run in process context). */
static __always_inline void tp_run_probe(const struct tp_probe *p,
					 struct pt_regs *regs,
					 unsigned long addr, void *data)
{
	preempt_disable();
	tp_run_probe_in(p, tp_state_for(p->kind), regs, addr, data);
	preempt_enable();
}

#endif /* TAPIR_RUNTIME_CORE_H */
