// SPDX-License-Identifier: GPL-2.0
/*
 * bare_tracepoint - the tracepoint baseline of bench/overhead: a probe on
 * raw_syscalls:sys_enter (found by name) whose handler bumps a per-CPU
 * counter, the least a tracepoint probe can do.
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

static DEFINE_PER_CPU(unsigned long, hits);
static struct tracepoint *tp;

static void on_sys_enter(void *data, struct pt_regs *regs, long id)
{
	this_cpu_inc(hits);
}

static void find(struct tracepoint *t, void *priv)
{
	if (strcmp(t->name, "sys_enter") == 0)
		tp = t;
}

static int __init bare_init(void)
{
	for_each_kernel_tracepoint(find, NULL);
	if (!tp)
		return -ENOENT;
	return tracepoint_probe_register(tp, on_sys_enter, NULL);
}

static void __exit bare_exit(void)
{
	unsigned long sum = 0;
	int cpu;

	tracepoint_probe_unregister(tp, on_sys_enter, NULL);
	tracepoint_synchronize_unregister();
	for_each_possible_cpu(cpu)
		sum += per_cpu(hits, cpu);
	pr_info("bare_tracepoint: %lu hits\n", sum);
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_LICENSE("GPL");
