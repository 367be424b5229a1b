// SPDX-License-Identifier: GPL-2.0
/*
 * bare_uprobe - the user-space baseline of bench/overhead: a uprobe on
 * the file path= at file offset offset= (getppid-loop's ucall_fn) whose
 * handler bumps a per-CPU counter, the least a uprobe tool pays.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/percpu.h>
#include <linux/uprobes.h>
#include <linux/version.h>

static DEFINE_PER_CPU(unsigned long, hits);

static char *path = "/root/getppid-loop";
module_param(path, charp, 0444);
static unsigned long offset;
module_param(offset, ulong, 0444);

static struct inode *inode;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static struct uprobe *up;
#endif

static int on_hit(struct uprobe_consumer *uc, struct pt_regs *regs
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
		  , __u64 *data
#endif
		  )
{
	this_cpu_inc(hits);
	return 0;
}

static struct uprobe_consumer uc = { .handler = on_hit };

static int __init bare_init(void)
{
	struct path p;
	int rc = kern_path(path, LOOKUP_FOLLOW, &p);

	if (rc)
		return rc;
	inode = igrab(d_inode(p.dentry));
	path_put(&p);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	up = uprobe_register(inode, offset, 0, &uc);
	rc = IS_ERR(up) ? PTR_ERR(up) : 0;
#else
	rc = uprobe_register(inode, offset, &uc);
#endif
	if (rc)
		iput(inode);
	return rc;
}

static void __exit bare_exit(void)
{
	unsigned long n = 0;
	int cpu;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(up, &uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(inode, offset, &uc);
#endif
	iput(inode);
	for_each_possible_cpu(cpu)
		n += per_cpu(hits, cpu);
	pr_info("bare_uprobe: %lu hits\n", n);
}

module_init(bare_init);
module_exit(bare_exit);
MODULE_LICENSE("GPL");
