// SPDX-License-Identifier: GPL-2.0
/*
 * hello.ko - the VM tier's smoke-test module: says hello, counts calls of
 * getppid() with a kprobe on __x64_sys_getppid, shows the count in
 * /sys/module/hello/parameters/hits and says goodbye with it.
 *
 * comm=NAME counts only the calls of tasks called NAME (the shell calls
 * getppid() too); without it every call counts.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>

static char *comm = "";
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "count only calls from tasks with this name");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&hits));
}

static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits, &hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "getppid() calls seen");

static int hello_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!comm[0] || !strncmp(current->comm, comm, TASK_COMM_LEN))
		atomic_long_inc(&hits);
	return 0;
}

static struct kprobe hello_kp = {
	.symbol_name = "__x64_sys_getppid",
	.pre_handler = hello_pre,
};

static int __init hello_init(void)
{
	int ret = register_kprobe(&hello_kp);

	if (ret < 0) {
		pr_err("hello: register_kprobe(%s) failed: %d\n",
		       hello_kp.symbol_name, ret);
		return ret;
	}
	pr_info("hello: loaded, probing %s\n", hello_kp.symbol_name);
	return 0;
}

static void __exit hello_exit(void)
{
	unregister_kprobe(&hello_kp);
	pr_info("hello: unloaded after %ld hits\n", atomic_long_read(&hits));
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir VM tier smoke test: a counting kprobe");
