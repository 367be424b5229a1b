// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ttest.c - a hand-written module that uses the transport alone
 * (runtime/transport.c), standing in for the runtime core: module_init
 * and module_exit set the transport up and down, tp_session_start() and
 * tp_session_stop() write output and messages the ways the tests and
 * bench/transport need. Everything is chosen with module parameters,
 * which tapir-run passes as var=val.
 *
 *   lines=N        each online CPU writes N lines "SEQ cCPU PAD\n" from a
 *                  work item, SEQ 1, 2, 3... under one lock, so that the
 *                  merged output must be 1..N*CPUs in order
 *   linelen=N      pad lines to N bytes
 *   irq=1          the lines come from a per-CPU hrtimer (hard irq) instead
 *   big=N          one write of N bytes ("B" lines) at start
 *   stderr_n=N     N "WARNING: ttest line I" messages at start
 *   stderr_dup=N   "WARNING: ttest same" N times, "WARNING: ttest other"
 *                  once in between (the loader prints each once, as stapio)
 *   error=1        an "ERROR: ttest error" message at start
 *   fail_start=E   tp_session_start() says "ERROR: ttest cannot start" and
 *                  returns -E
 *   target=1       print "target=PID" at start
 *   say=TEXT       print "say=TEXT" at start (a string parameter)
 *   exit=1         request exit when the lines are written (default); with
 *                  exit=0 the run lasts until STOP (SIGINT, -T, -c)
 *   nmi_exit=1     request exit from an NMI-like path: irqs off, from a
 *                  hard irq timer (the irq_work path)
 *   flood_ms=M     a kthread per CPU writes LINELEN-byte lines flat out for
 *                  M ms (bench, loss tests)
 *   rate_kb=R      with flood_ms: at most R KB per second per CPU, written
 *                  every millisecond from an hrtimer
 *   micro=N        time N writes, memcpys, atomics, irq save/restore
 *                  pairs at start, report ns per operation on stderr
 *   kp=1|2         a kprobe on __x64_sys_getppid that counts (1) or also
 *                  writes the same LINELEN-byte line per hit (2): the cost
 *                  of a write in probe context (bench/transport), and
 *                  output from the int3 trap (NMI-like context)
 *   slow=N         a thread on CPU 0 writes N lines "slow K", one at a
 *                  time: after each it waits (up to 10 s) until the loader
 *                  has read the sub-buffer holding it, and counts the
 *                  flushes of CPU 0 in between; at stop "ttest: slow N
 *                  lines, flushes per line MIN..MAX, waits W" on stderr
 *                  (W: lines the loader had not read within 10 s). The
 *                  latency of a slow script's output, counted in flushes
 *                  rather than time
 *   hp=1           a thread writes "SEQ cCPU" lines on every online CPU
 *                  (through an IPI, hard irq) every 2 ms until stop, and a
 *                  line "cpus N" whenever the number of online CPUs
 *                  changes: CPU hotplug during a run
 *   switch_every=K after every K-th line of lines=N, switch_file() (under
 *                  the lock, so that the switch has its place in SEQ order)
 * At stop: "end" on stdout and "WARNING: ttest stop" on stderr, then the
 * counts "ttest: written W lost L" on stderr.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "runtime/transport.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir transport test module");

static int lines;
module_param(lines, int, 0);
static int linelen = 16;
module_param(linelen, int, 0);
static bool irq;
module_param(irq, bool, 0);
static int big;
module_param(big, int, 0);
static int stderr_n;
module_param(stderr_n, int, 0);
static int stderr_dup;
module_param(stderr_dup, int, 0);
static bool error;
module_param(error, bool, 0);
static int fail_start;
module_param(fail_start, int, 0);
static bool target;
module_param(target, bool, 0);
static bool exit_when_done = true;
module_param_named(exit, exit_when_done, bool, 0);
static bool nmi_exit;
module_param(nmi_exit, bool, 0);
static int flood_ms;
module_param(flood_ms, int, 0);
static int rate_kb;
module_param(rate_kb, int, 0);
static char *say;
module_param(say, charp, 0);
static int kp;
module_param(kp, int, 0);
static int micro;
module_param(micro, int, 0);
static int slow;
module_param(slow, int, 0);
static bool hp;
module_param(hp, bool, 0);
static int switch_every;
module_param(switch_every, int, 0);

static DEFINE_RAW_SPINLOCK(seq_lock);
static long seq;
static atomic_t cpus_left;
static atomic64_t written, lost;

struct ttest_cpu {
	struct work_struct work;
	struct hrtimer timer;
	struct task_struct *thread;
	int cpu;
	int done;		/* lines written (irq mode) */
	u64 start_ns;
	u64 sent;		/* bytes (rate mode) */
};
static struct ttest_cpu __percpu *pcpu;
static bool started;
static struct task_struct *slow_thread, *hp_thread;
static u64 slow_min = U64_MAX, slow_max, slow_waits, slow_lines;

static void out(const char *buf, size_t len)
{
	if (tp_transport_write(buf, len))
		atomic64_inc(&lost);
	else
		atomic64_inc(&written);
}

static void outs(const char *s)
{
	unsigned long flags;

	local_irq_save(flags);
	out(s, strlen(s));
	local_irq_restore(flags);
}

static void msg(const char *s)
{
	tp_transport_stderr(s, strlen(s));
}

/* One line "SEQ cCPU PAD\n" padded to linelen; SEQ in write order. */
static void one_line(void)
{
	char buf[256];
	unsigned long flags;
	int n;

	raw_spin_lock_irqsave(&seq_lock, flags);
	n = scnprintf(buf, sizeof(buf), "%ld c%d", ++seq, smp_processor_id());
	while (n < linelen - 1 && n < (int)sizeof(buf) - 2)
		buf[n++] = '.';
	buf[n++] = '\n';
	out(buf, n);
	if (switch_every > 0 && seq % switch_every == 0)
		tp_transport_switch_file();
	raw_spin_unlock_irqrestore(&seq_lock, flags);
}

static void cpu_finished(void)
{
	if (atomic_dec_and_test(&cpus_left) && exit_when_done)
		tp_transport_request_exit();
}

static void lines_work(struct work_struct *w)
{
	int i;

	for (i = 0; i < lines; i++) {
		one_line();
		if ((i & 63) == 63)
			cond_resched();
	}
	cpu_finished();
}

static enum hrtimer_restart lines_timer(struct hrtimer *t)
{
	struct ttest_cpu *c = container_of(t, struct ttest_cpu, timer);
	int i;

	for (i = 0; i < 8 && c->done < lines; i++, c->done++)
		one_line();
	if (c->done < lines) {
		hrtimer_forward_now(t, ns_to_ktime(100000));
		return HRTIMER_RESTART;
	}
	if (nmi_exit) {
		/* hard irq, irqs off: the irq_work path of request_exit */
		if (atomic_dec_and_test(&cpus_left))
			tp_transport_request_exit();
		return HRTIMER_NORESTART;
	}
	cpu_finished();
	return HRTIMER_NORESTART;
}

static void fill_line(char *buf, int len, u64 n)
{
	int k = scnprintf(buf, len, "%llu", n);

	while (k < len - 1)
		buf[k++] = 'x';
	buf[len - 1] = '\n';
}

static int flood_thread(void *arg)
{
	u64 end = ktime_get_ns() + (u64)flood_ms * NSEC_PER_MSEC;
	char buf[256];
	u64 n = 0;
	int len = clamp(linelen, 2, 256);

	while (!kthread_should_stop() && ktime_get_ns() < end) {
		unsigned long flags;
		int i;

		for (i = 0; i < 64; i++) {
			fill_line(buf, len, n++);
			local_irq_save(flags);
			out(buf, len);
			local_irq_restore(flags);
		}
		cond_resched();
	}
	cpu_finished();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* rate mode: every ms, catch up to rate_kb KB/s of LINELEN lines. */
static enum hrtimer_restart rate_timer(struct hrtimer *t)
{
	struct ttest_cpu *c = container_of(t, struct ttest_cpu, timer);
	u64 now = ktime_get_ns(), el = now - c->start_ns;
	u64 due = div_u64(el * (u64)rate_kb * 1024, NSEC_PER_SEC);
	int len = clamp(linelen, 2, 256);
	char buf[256];

	if (el >= (u64)flood_ms * NSEC_PER_MSEC) {
		cpu_finished();
		return HRTIMER_NORESTART;
	}
	while (c->sent + len <= due) {
		fill_line(buf, len, c->sent);
		out(buf, len);
		c->sent += len;
	}
	hrtimer_forward_now(t, ns_to_ktime(NSEC_PER_MSEC));
	return HRTIMER_RESTART;
}

static void timer_setup_fn(struct hrtimer *t,
			   enum hrtimer_restart (*fn)(struct hrtimer *))
{
#ifdef HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	t->function = fn;
#endif
}

static atomic64_t kp_hits;
static char kp_line[256];

/* kp=2 writes the same line every time: the write alone is measured,
 * not the formatting. */
static int kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&kp_hits);
	if (kp == 2)
		out(kp_line, clamp(linelen, 2, 256));
	return 0;
}

/* slow=N: one line at a time on CPU 0, each read by the loader before
 * the next is written. */
static int slow_fn(void *arg)
{
	char buf[64];
	int k;

	for (k = 1; k <= slow && !kthread_should_stop(); k++) {
		unsigned long flags;
		u64 sub, f0, f1;
		int tries;

		snprintf(buf, sizeof(buf), "slow %d\n", k);
		local_irq_save(flags);
		out(buf, strlen(buf));
		/* the sub-buffer being written holds the line */
		sub = tp_transport_produced(0);
		f0 = tp_transport_flushes(0);
		local_irq_restore(flags);
		for (tries = 0; tp_transport_consumed(0) <= sub; tries++) {
			if (tries == 10000 || kthread_should_stop()) {
				slow_waits++;
				break;
			}
			usleep_range(1000, 1100);
		}
		f1 = tp_transport_flushes(0);
		slow_min = min(slow_min, f1 - f0);
		slow_max = max(slow_max, f1 - f0);
		slow_lines++;
	}
	cpu_finished();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void hp_line(void *arg)
{
	one_line();
}

/* hp=1: lines on every online CPU until stop. */
static int hp_fn(void *arg)
{
	unsigned int last = 0;

	while (!kthread_should_stop()) {
		unsigned int n = num_online_cpus(), cpu;

		if (n != last) {
			char buf[32];

			snprintf(buf, sizeof(buf), "cpus %u\n", n);
			outs(buf);
			last = n;
		}
		for_each_online_cpu(cpu)
			smp_call_function_single(cpu, hp_line, NULL, 1);
		usleep_range(2000, 2200);
	}
	return 0;
}

static void micro_bench(void)
{
	static atomic64_t a;
	char line[64], buf[160];
	char *v = vmalloc(1 << 20);
	unsigned long flags;
	u64 t[5];
	int i;

	if (!v)
		return;
	memset(line, 'm', sizeof(line));
	line[59] = '\n';
	preempt_disable();
	t[0] = ktime_get_ns();
	for (i = 0; i < micro; i++)
		tp_transport_write(line, 60);
	t[1] = ktime_get_ns();
	for (i = 0; i < micro; i++)
		memcpy(v + (i * 64 & ((1 << 20) - 1)), line, 60);
	t[2] = ktime_get_ns();
	for (i = 0; i < micro; i++)
		atomic64_inc_return(&a);
	t[3] = ktime_get_ns();
	for (i = 0; i < micro; i++) {
		local_irq_save(flags);
		local_irq_restore(flags);
	}
	t[4] = ktime_get_ns();
	preempt_enable();
	vfree(v);
	snprintf(buf, sizeof(buf), "micro: write %llu memcpy %llu atomic %llu irqsave %llu ns\n",
		 div_u64(t[1] - t[0], micro), div_u64(t[2] - t[1], micro),
		 div_u64(t[3] - t[2], micro), div_u64(t[4] - t[3], micro));
	msg(buf);
}

static struct kprobe ttest_kp = {
	.symbol_name = "__x64_sys_getppid",
	.pre_handler = kp_pre,
};
static bool kp_registered;

static void start_timer_on(void *arg)
{
	struct ttest_cpu *c = arg;

	c->start_ns = ktime_get_ns();
	hrtimer_start(&c->timer, ns_to_ktime(100000), HRTIMER_MODE_REL_PINNED);
}

int tp_session_start(void)
{
	char buf[128];
	int i, cpu;

	if (target) {
		snprintf(buf, sizeof(buf), "target=%ld\n", tp_transport_target_pid());
		outs(buf);
	}
	for (i = 1; i <= stderr_n; i++) {
		snprintf(buf, sizeof(buf), "WARNING: ttest line %d\n", i);
		msg(buf);
	}
	for (i = 1; i <= stderr_dup; i++) {
		msg("WARNING: ttest same\n");
		if (i == 1)
			msg("WARNING: ttest other\n");
	}
	if (error)
		msg("ERROR: ttest error\n");
	if (fail_start) {
		msg("ERROR: ttest cannot start\n");
		return -fail_start;
	}
	started = true;
	if (say) {
		snprintf(buf, sizeof(buf), "say=%s\n", say);
		outs(buf);
	}
	if (big > 0) {
		char *b = vmalloc(big);
		int k = 0;

		if (!b)
			return -ENOMEM;
		while (k < big) {
			int n = min(big - k, 64);

			memset(b + k, 'B', n);
			b[k + n - 1] = '\n';
			k += n;
		}
		outs("big:\n");
		preempt_disable();
		out(b, big);
		preempt_enable();
		vfree(b);
	}
	outs("begin\n");
	if (micro > 0)
		micro_bench();
	if (kp) {
		int rc;

		fill_line(kp_line, clamp(linelen, 2, 256), 42);
		rc = register_kprobe(&ttest_kp);

		if (rc) {
			msg("ERROR: ttest cannot register its kprobe\n");
			return rc;
		}
		kp_registered = true;
	}

	if (slow) {
		atomic_set(&cpus_left, 1);
		slow_thread = kthread_create_on_cpu(slow_fn, NULL, 0, "ttest-slow");
		if (IS_ERR(slow_thread)) {
			slow_thread = NULL;
			return -ENOMEM;
		}
		wake_up_process(slow_thread);
		return 0;
	}
	if (hp) {
		hp_thread = kthread_run(hp_fn, NULL, "ttest-hp");
		if (IS_ERR(hp_thread)) {
			hp_thread = NULL;
			return -ENOMEM;
		}
		return 0;
	}
	cpus_read_lock();
	atomic_set(&cpus_left, num_online_cpus());
	for_each_online_cpu(cpu) {
		struct ttest_cpu *c = per_cpu_ptr(pcpu, cpu);

		c->cpu = cpu;
		if (flood_ms && rate_kb) {
			timer_setup_fn(&c->timer, rate_timer);
			smp_call_function_single(cpu, start_timer_on, c, 1);
		} else if (flood_ms) {
			c->thread = kthread_create_on_cpu(flood_thread, c, cpu,
							  "ttest/%u");
			if (!IS_ERR(c->thread))
				wake_up_process(c->thread);
			else
				c->thread = NULL;
		} else if (lines && irq) {
			timer_setup_fn(&c->timer, lines_timer);
			smp_call_function_single(cpu, start_timer_on, c, 1);
		} else if (lines) {
			INIT_WORK(&c->work, lines_work);
			schedule_work_on(cpu, &c->work);
		} else {
			cpu_finished();
		}
	}
	cpus_read_unlock();
	return 0;
}

void tp_session_stop(void)
{
	char buf[96];
	int cpu;

	if (!started)
		return;
	started = false;
	if (kp_registered) {
		unregister_kprobe(&ttest_kp);
		kp_registered = false;
	}
	if (slow_thread)
		kthread_stop(slow_thread);
	if (hp_thread)
		kthread_stop(hp_thread);
	slow_thread = hp_thread = NULL;
	for_each_possible_cpu(cpu) {
		struct ttest_cpu *c = per_cpu_ptr(pcpu, cpu);

		if (c->thread)
			kthread_stop(c->thread);
		c->thread = NULL;
		if (c->timer.function)
			hrtimer_cancel(&c->timer);
		if (c->work.func)
			cancel_work_sync(&c->work);
	}
	outs("end\n");
	msg("WARNING: ttest stop\n");
	if (slow) {
		snprintf(buf, sizeof(buf), "ttest: slow %llu lines, flushes per line %llu..%llu, waits %llu\n",
			 slow_lines, slow_lines ? slow_min : 0, slow_max, slow_waits);
		msg(buf);
	}
	snprintf(buf, sizeof(buf), "ttest: written %lld lost %lld\n",
		 (long long)atomic64_read(&written), (long long)atomic64_read(&lost));
	msg(buf);
}

static int __init ttest_init(void)
{
	int rc;

	pcpu = alloc_percpu(struct ttest_cpu);
	if (!pcpu)
		return -ENOMEM;
	rc = tp_transport_init(module_name(THIS_MODULE));
	if (rc)
		free_percpu(pcpu);
	return rc;
}

static void __exit ttest_exit(void)
{
	tp_transport_exit();
	free_percpu(pcpu);
}

module_init(ttest_init);
module_exit(ttest_exit);
