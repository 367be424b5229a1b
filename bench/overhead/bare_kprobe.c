// SPDX-License-Identifier: GPL-2.0
/*
 * bare_kprobe - the baseline of bench/overhead: the least a probe can do,
 * a kprobe (or, with retprobe=1, a kretprobe) on __x64_sys_getppid whose
 * handler bumps a per-CPU counter.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned long, hits);

static bool retprobe;
module_param(retprobe, bool, 0444);

static int on_entry(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(hits);
	return 0;
}

static int on_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_inc(hits);
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "__x64_sys_getppid",
	.pre_handler = on_entry,
};

static struct kretprobe krp = {
	.kp.symbol_name = "__x64_sys_getppid",
	.handler = on_return,
	.maxactive = 20,
};

static int __init bare_init(void)
{
	return retprobe ? register_kretprobe(&krp) : register_kprobe(&kp);
}

static void __exit bare_exit(void)
{
	unsigned long sum = 0;
	int cpu;

	if (retprobe)
		unregister_kretprobe(&krp);
	else
		unregister_kprobe(&kp);
	for_each_possible_cpu(cpu)
		sum += per_cpu(hits, cpu);
	pr_info("bare_kprobe: %lu hits\n", sum);
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("bench/overhead baseline: a counting kprobe");
