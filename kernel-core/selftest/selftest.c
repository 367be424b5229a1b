// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * selftest.c - the probe core's self-test module (kcore_selftest.ko).
 *
 * Loading it runs every check from module init, on functions of its own
 * (noipa, so calls and arguments stay as the ABI says) and on two kernel
 * functions; unloading it checks a probe left registered until exit. Each
 * check prints one line, "kcore: PASS name" or "kcore: FAIL name: why",
 * and init ends with "kcore: DONE N passed, N failed" (exit with
 * "kcore: EXIT N passed, N failed"). kernel-core/selftest/run builds it,
 * loads and unloads it in a qemu guest and turns the lines into test
 * results. Handlers only count and record; all printing happens in init
 * and exit.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kcore.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir probe core self-test");

#define KST_MOD		"kcore_selftest"
/* test targets: real calls, real arguments, no clones or inlining */
#define KST_FN		static __attribute__((noipa)) noinline __used

static int kst_npass, kst_nfail;

static __printf(3, 4) bool kst_check(const char *name, bool ok,
				     const char *fmt, ...)
{
	struct va_format vaf;
	va_list ap;

	if (ok) {
		kst_npass++;
		pr_info("kcore: PASS %s\n", name);
		return true;
	}
	kst_nfail++;
	va_start(ap, fmt);
	vaf.fmt = fmt;
	vaf.va = &ap;
	pr_info("kcore: FAIL %s: %pV\n", name, &vaf);
	va_end(ap);
	return false;
}

/* ---- warnings from the core ---- */

#define KST_NWARN	16
static char *kst_warns[KST_NWARN];
static int kst_nwarns;

static void kst_warn(const char *msg)
{
	pr_info("kcore: warning: %s\n", msg);
	if (kst_nwarns < KST_NWARN)
		kst_warns[kst_nwarns] = kstrdup(msg, GFP_KERNEL);
	kst_nwarns++;
}

static void kst_clear_warns(void)
{
	int i;

	for (i = 0; i < min(kst_nwarns, KST_NWARN); i++)
		kfree(kst_warns[i]);
	kst_nwarns = 0;
}

static bool kst_warned(const char *msg)
{
	int i;

	for (i = 0; i < min(kst_nwarns, KST_NWARN); i++)
		if (kst_warns[i] && !strcmp(kst_warns[i], msg))
			return true;
	return false;
}

/* ---- the probed functions ---- */

static volatile long kst_sink;
static long kst_data = 42;		/* not text: unprobeable */

KST_FN long kst_target(long x)
{
	kst_sink = x;
	return x * 3 + 1;
}

KST_FN long kst_addr_fn(long x)
{
	kst_sink = x;
	return x + 2;
}

KST_FN long kst_mod_fn(long x)
{
	kst_sink = x;
	return x + 3;
}

KST_FN long kst_both_fn(long x)
{
	kst_sink = x;
	return x + 4;
}

KST_FN long kst_toggle_fn(long x)
{
	kst_sink = x;
	return x + 5;
}

KST_FN long kst_many_fn(long x)
{
	kst_sink = x;
	return x + 6;
}

KST_FN long kst_post_fn(long x)
{
	kst_sink = x;
	return x + 11;
}

KST_FN long kst_batch_fn(long x)
{
	kst_sink = x;
	return x + 7;
}

/* A kprobe at kst_mark, an instruction boundary inside kst_offset_fn. */
#if defined(CONFIG_X86) || defined(CONFIG_ARM64)
extern const unsigned long kst_mark;
KST_FN long kst_offset_fn(long x)
{
	kst_sink = x;
	asm volatile("1:	nop\n"
		     "	.pushsection .rodata\n"
		     "	.balign 8\n"
		     "kst_mark:\n"
		     "	.quad 1b\n"
		     "	.popsection\n");
	return x + 8;
}
#define KST_HAVE_MARK	1
#endif

KST_FN long kst_raw_fn(long x)
{
	kst_sink = x;
	return x + 12;
}

static unsigned long kst_ret_caller;

KST_FN long kst_ret_fn(long a, long b)
{
	kst_ret_caller = (unsigned long)__builtin_return_address(0);
	kst_sink = a;
	return a * b + 7;
}

KST_FN long kst_sleep_fn(long ms)
{
	msleep(ms);
	return ms;
}

/* notrace: no ftrace site, so a kprobe here is an int3 (then a jump) */
KST_FN notrace long kst_inner(long x)
{
	kst_sink = x;
	return x + 9;
}

KST_FN long kst_outer(long x)
{
	kst_sink = x;
	return x + 10;
}

KST_FN long kst_args6(long a1, long a2, long a3, long a4, long a5, long a6)
{
	kst_sink = a1 + a2 + a3 + a4 + a5 + a6;
	return kst_sink;
}

KST_FN long kst_args8(long a1, long a2, long a3, long a4, long a5, long a6,
		      long a7, long a8)
{
	kst_sink = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
	return kst_sink;
}

KST_FN notrace long kst_args8_int3(long a1, long a2, long a3, long a4,
				   long a5, long a6, long a7, long a8)
{
	kst_sink = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
	return kst_sink;
}

/* ---- handlers: count and record, nothing else ---- */

struct kst_counts {
	atomic_t entry;
	atomic_t post;
	atomic_t ret;
	unsigned long ip;	/* regs->ip (pc) seen by the last entry */
	unsigned long args[9];	/* kcore_arg(regs, 1..8) at the last entry */
	int argerr;		/* kcore_get_arg()'s first error */
	int bad;		/* a handler saw something wrong */
	long seq;		/* order of events */
	long seq_entry, seq_ret;
};

static atomic_t kst_seq = ATOMIC_INIT(0);
static struct task_struct *kst_task;	/* the init thread: filters kernel hits */

static void kst_reset(struct kst_counts *c)
{
	memset(c, 0, sizeof(*c));
}

static int kst_count_entry(struct kcore_probe *p, struct pt_regs *regs,
			   void *data)
{
	struct kst_counts *c = p->owner;

	atomic_inc(&c->entry);
	c->ip = instruction_pointer(regs);
	c->seq_entry = atomic_inc_return(&kst_seq);
	return 0;
}

static int kst_current_entry(struct kcore_probe *p, struct pt_regs *regs,
			     void *data)
{
	if (current != kst_task)
		return 0;
	return kst_count_entry(p, regs, data);
}

static void kst_count_post(struct kcore_probe *p, struct pt_regs *regs,
			   unsigned long flags)
{
	struct kst_counts *c = p->owner;

	if (p->kind == KCORE_KPROBE && current == kst_task)
		atomic_inc(&c->post);
}

static void kst_count_ret(struct kcore_probe *p, struct pt_regs *regs,
			  void *data)
{
	struct kst_counts *c = p->owner;

	atomic_inc(&c->ret);
	c->seq_ret = atomic_inc_return(&kst_seq);
}

static int kst_args_entry(struct kcore_probe *p, struct pt_regs *regs,
			  void *data)
{
	struct kst_counts *c = p->owner;
	unsigned int i;
	int err;

	atomic_inc(&c->entry);
	for (i = 1; i <= 8; i++) {
		err = kcore_get_arg(regs, i, &c->args[i]);
		if (err && !c->argerr)
			c->argerr = err;
	}
	if (kcore_get_arg(regs, 0, &c->args[0]) != -EINVAL)
		c->bad = 1;
	return 0;
}

/* kretprobe with data: the entry saves its arguments, the return checks */
struct kst_ret_data {
	long a, b;
	unsigned long magic;
	unsigned long ra;	/* the return address, read at the entry */
};

#define KST_MAGIC	0x6b636f7265UL	/* "kcore" */

static int kst_ret_entry(struct kcore_probe *p, struct pt_regs *regs,
			 void *data)
{
	struct kst_counts *c = p->owner;
	struct kst_ret_data *d = data;

	atomic_inc(&c->entry);
	d->a = kcore_arg(regs, 1);
	d->b = kcore_arg(regs, 2);
	d->magic = KST_MAGIC;
	d->ra = 0;
#if defined(CONFIG_X86_64)
	if (copy_from_kernel_nofault(&d->ra, (void *)regs->sp, sizeof(d->ra)))
		d->ra = 0;
#elif defined(CONFIG_ARM64)
	d->ra = regs->regs[30];
#endif
	return d->a == 0;	/* a == 0: do not catch the return */
}

static void kst_ret_ret(struct kcore_probe *p, struct pt_regs *regs,
			void *data)
{
	struct kst_counts *c = p->owner;
	struct kst_ret_data *d = data;

	atomic_inc(&c->ret);
	if (d->magic != KST_MAGIC ||
	    (long)kcore_return_value(regs) != d->a * d->b + 7)
		c->bad |= 1;
	c->args[1] = kcore_ret_addr(data);
	c->args[2] = d->ra;
}

/* kprobe on kst_outer calls kst_inner: the probe there is missed */
static int kst_outer_entry(struct kcore_probe *p, struct pt_regs *regs,
			   void *data)
{
	kst_count_entry(p, regs, data);
	kst_inner(1);
	return 0;
}

/* raw handlers: the kernel calls them directly, with its own types */
static int kst_raw_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kcore_probe *p = kcore_of_kprobe(kp);
	struct kst_counts *c = p->owner;

	atomic_inc(&c->entry);
	c->ip = kcore_probe_addr(p);
	c->seq_entry = atomic_inc_return(&kst_seq);
	return 0;
}

static int kst_raw_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kcore_probe *p = kcore_of_instance(ri);
	struct kst_counts *c;
	long *d = (long *)ri->data;

	if (!p)
		return 0;
	c = p->owner;
	atomic_inc(&c->ret);
	if (*d != 5 || (long)kcore_return_value(regs) != 5 + 12)
		c->bad = 1;
	c->seq_ret = atomic_inc_return(&kst_seq);
	return 0;
}

static int kst_raw_ret_entry(struct kcore_probe *p, struct pt_regs *regs,
			     void *data)
{
	*(long *)data = kcore_arg(regs, 1);
	return 0;
}

/* ---- probe setup helpers ---- */

static void kst_kprobe(struct kcore_probe *p, const char *name,
		       const char *symbol, struct kst_counts *c)
{
	memset(p, 0, sizeof(*p));
	p->kind = KCORE_KPROBE;
	p->name = name;
	p->symbol = symbol;
	p->entry = kst_count_entry;
	p->owner = c;
}

static void kst_kretprobe(struct kcore_probe *p, const char *name,
			  const char *symbol, struct kst_counts *c)
{
	memset(p, 0, sizeof(*p));
	p->kind = KCORE_KRETPROBE;
	p->name = name;
	p->symbol = symbol;
	p->entry = kst_count_entry;
	p->ret = kst_count_ret;
	p->owner = c;
}

/* Is addr the entry of fn (past its ENDBR with indirect branch tracking)? */
static bool kst_at_entry(unsigned long addr, void *fn)
{
	return addr == (unsigned long)fn ||
	       (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && addr == (unsigned long)fn + 4);
}

/* The first code byte at a registered probe: which path it takes. */
static const char *kst_path(struct kcore_probe *p)
{
	u8 op = 0;

	if (copy_from_kernel_nofault(&op, (void *)kcore_probe_addr(p), 1))
		return "unreadable";
#ifdef CONFIG_X86
	switch (op) {
	case 0xcc:
		return "int3";
	case 0xe9:
		return "optimized";
	case 0xe8:
		return "ftrace";
	}
#endif
	return "other";
}

/* ---- the checks ---- */

static void kst_lookup(void)
{
	unsigned long a = kcore_lookup_name("vfs_read");
	unsigned long b = kcore_lookup_name("kst_addr_fn");
	unsigned long c = kcore_lookup_name(KST_MOD ":kst_addr_fn");
	unsigned long d = kcore_lookup_name("kst_no_such_symbol");

	kst_check("lookup-name", a && b == (unsigned long)kst_addr_fn &&
		  c == b && !d,
		  "vfs_read 0x%lx, kst_addr_fn 0x%lx (%ps), module 0x%lx, unknown 0x%lx",
		  a, b, (void *)kst_addr_fn, c, d);
}

/* kprobe with pre- and post-handler on a vmlinux symbol */
static void kst_vmlinux_symbol(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	bool res;
	int n, err;

	kst_reset(&c);
	kst_kprobe(&p, "kprobe.function(\"kstrtobool\")", "kstrtobool", &c);
	p.entry = kst_current_entry;
	p.post = kst_count_post;
	n = kcore_register(v, 1, 0);
	err = kstrtobool("y", &res);
	err |= kstrtobool("n", &res);
	kcore_unregister(v, 1);
	err |= kstrtobool("y", &res);
	kst_check("kprobe-vmlinux-symbol-pre-post",
		  n == 1 && atomic_read(&c.entry) == 2 &&
		  atomic_read(&c.post) == 2 && !p.registered && !p.error && !err,
		  "registered %d (error %d), pre %d, post %d, want 2 and 2",
		  n, p.error, atomic_read(&c.entry), atomic_read(&c.post));
}

/* kprobe with pre- and post-handler on a module symbol */
static void kst_module_symbol(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	int n;

	kst_reset(&c);
	kst_kprobe(&p, "kprobe.module(\"" KST_MOD "\").function(\"kst_mod_fn\")",
		   "kst_mod_fn", &c);
	p.module = KST_MOD;
	p.post = kst_count_post;
	n = kcore_register(v, 1, 0);
	kst_mod_fn(1);
	kst_check("kprobe-module-symbol-pre-post",
		  n == 1 && atomic_read(&c.entry) == 1 &&
		  atomic_read(&c.post) == 1 &&
		  kst_at_entry(kcore_probe_addr(&p), kst_mod_fn),
		  "registered %d (error %d), pre %d, post %d, at 0x%lx not %px",
		  n, p.error, atomic_read(&c.entry), atomic_read(&c.post),
		  kcore_probe_addr(&p), (void *)kst_mod_fn);
	kcore_unregister(v, 1);
}

/* kprobe at symbol+offset (an int3 in the middle of a function) */
static void kst_symbol_offset(void)
{
#ifdef KST_HAVE_MARK
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	unsigned long off = kst_mark - (unsigned long)kst_offset_fn;
	int n;

	kst_reset(&c);
	kst_kprobe(&p, "kprobe.function(\"kst_offset_fn\")+off", "kst_offset_fn", &c);
	p.offset = off;
	p.post = kst_count_post;
	n = kcore_register(v, 1, 0);
	kst_offset_fn(1);
	kst_offset_fn(2);
	kst_check("kprobe-symbol-offset",
		  n == 1 && atomic_read(&c.entry) == 2 &&
		  atomic_read(&c.post) == 2 &&
		  kcore_probe_addr(&p) == kst_mark &&
		  c.ip == kst_mark + (IS_ENABLED(CONFIG_X86) ? 1 : 0),
		  "registered %d (error %d) at +%lu, pre %d, post %d, ip 0x%lx, mark 0x%lx",
		  n, p.error, off, atomic_read(&c.entry), atomic_read(&c.post),
		  c.ip, kst_mark);
	kcore_unregister(v, 1);
#else
	kst_check("kprobe-symbol-offset", true, "no mark on this architecture");
#endif
}

/* kprobe on an address found with kcore_lookup_name() */
static void kst_address(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	int n;

	kst_reset(&c);
	kst_kprobe(&p, "kprobe.statement(addr).absolute", NULL, &c);
	p.addr = kcore_lookup_name("kst_addr_fn");
	n = kcore_register(v, 1, 0);
	kst_addr_fn(1);
	kst_check("kprobe-address",
		  n == 1 && atomic_read(&c.entry) == 1 &&
		  kst_at_entry(kcore_probe_addr(&p), kst_addr_fn),
		  "registered %d (error %d) at 0x%lx, hits %d", n, p.error,
		  p.addr, atomic_read(&c.entry));
	kcore_unregister(v, 1);
}

/* two kprobes and two kretprobes on one function: all run */
static void kst_colocated(void)
{
	static struct kst_counts c[4];
	static struct kcore_probe p[4];
	struct kcore_probe *v[] = { &p[0], &p[1], &p[2], &p[3] };
	int n, i;
	bool ok;

	for (i = 0; i < 4; i++)
		kst_reset(&c[i]);
	kst_kprobe(&p[0], "kprobe.function(\"kst_target\") #1", "kst_target", &c[0]);
	kst_kprobe(&p[1], "kprobe.function(\"kst_target\") #2", "kst_target", &c[1]);
	kst_kretprobe(&p[2], "kprobe.function(\"kst_target\").return #1", "kst_target", &c[2]);
	kst_kretprobe(&p[3], "kprobe.function(\"kst_target\").return #2", "kst_target", &c[3]);
	p[1].post = kst_count_post;
	n = kcore_register(v, 4, 0);
	kst_target(1);
	kst_target(2);
	kst_target(3);
	ok = n == 4;
	for (i = 0; i < 4; i++)
		ok = ok && atomic_read(&c[i].entry) == 3 &&
		     atomic_read(&c[i].ret) == (i >= 2 ? 3 : 0);
	kst_check("colocated-kprobes-kretprobes", ok && atomic_read(&c[1].post) == 3,
		  "registered %d; entries %d %d %d %d, returns %d %d, post %d; want 3 each",
		  n, atomic_read(&c[0].entry), atomic_read(&c[1].entry),
		  atomic_read(&c[2].entry), atomic_read(&c[3].entry),
		  atomic_read(&c[2].ret), atomic_read(&c[3].ret),
		  atomic_read(&c[1].post));
	kcore_unregister(v, 4);
}

/*
 * At an ftrace site, a probe with a post-handler joins one without, then
 * they leave one by one: both handlers run, and the kernel disarms the
 * site cleanly (see kcore.c on the kernel's ftrace_ops bookkeeping).
 */
static void kst_post_joins(void)
{
	static struct kst_counts ca, cb;
	static struct kcore_probe pa, pb;
	struct kcore_probe *va[] = { &pa };
	struct kcore_probe *vb[] = { &pb };
	int na, nb, a1, b1, bp1, a2, b2, bp2, b3;

	kst_reset(&ca);
	kst_reset(&cb);
	kst_kprobe(&pa, "kprobe.function(\"kst_post_fn\") plain", "kst_post_fn", &ca);
	kst_kprobe(&pb, "kprobe.function(\"kst_post_fn\") post", "kst_post_fn", &cb);
	pb.post = kst_count_post;
	na = kcore_register(va, 1, 0);
	nb = kcore_register(vb, 1, 0);
	kst_post_fn(1);
	a1 = atomic_read(&ca.entry);
	b1 = atomic_read(&cb.entry);
	bp1 = atomic_read(&cb.post);
	kcore_unregister(va, 1);
	kst_post_fn(2);
	a2 = atomic_read(&ca.entry);
	b2 = atomic_read(&cb.entry);
	bp2 = atomic_read(&cb.post);
	kcore_unregister(vb, 1);
	kst_post_fn(3);
	b3 = atomic_read(&cb.entry) + atomic_read(&cb.post);
	kst_check("post-handler-joins-ftrace-site",
		  na == 1 && nb == 1 && a1 == 1 && b1 == 1 && bp1 == 1 &&
		  a2 == 1 && b2 == 2 && bp2 == 2 && b3 == 4,
		  "registered %d %d (path %s); hits plain %d %d, post probe %d/%d %d/%d %d",
		  na, nb, kst_path(&pb), a1, a2, b1, bp1, b2, bp2, b3);
}

/* a kprobe and a kretprobe on one function: entry before return */
static void kst_kprobe_kretprobe(void)
{
	static struct kst_counts ce, cr;
	static struct kcore_probe pe, pr;
	struct kcore_probe *v[] = { &pe, &pr };
	int n;

	kst_reset(&ce);
	kst_reset(&cr);
	kst_kprobe(&pe, "kprobe.function(\"kst_both_fn\")", "kst_both_fn", &ce);
	kst_kretprobe(&pr, "kprobe.function(\"kst_both_fn\").return", "kst_both_fn", &cr);
	pr.entry = NULL;
	n = kcore_register(v, 2, 0);
	kst_both_fn(1);
	kst_check("kprobe-and-kretprobe-same-function",
		  n == 2 && atomic_read(&ce.entry) == 1 &&
		  atomic_read(&cr.entry) == 0 && atomic_read(&cr.ret) == 1 &&
		  ce.seq_entry < cr.seq_ret,
		  "registered %d, entry %d, return %d, order %ld/%ld",
		  n, atomic_read(&ce.entry), atomic_read(&cr.ret),
		  ce.seq_entry, cr.seq_ret);
	kcore_unregister(v, 2);
}

/* kretprobe: entry handler, per-call data, return value, return address */
static void kst_kretprobe_data(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	unsigned long caller, ret_addr, in_fn;
	int n;

	kst_reset(&c);
	memset(&p, 0, sizeof(p));
	p.kind = KCORE_KRETPROBE;
	p.name = "kprobe.function(\"kst_ret_fn\").return";
	p.symbol = "kst_ret_fn";
	p.entry = kst_ret_entry;
	p.ret = kst_ret_ret;
	p.data_size = sizeof(struct kst_ret_data);
	p.owner = &c;
	n = kcore_register(v, 1, 0);
	kst_ret_fn(6, 7);
	ret_addr = c.args[1];
	caller = c.args[2];
	in_fn = kst_ret_caller;
	kst_ret_fn(-3, 5);
	kst_ret_fn(0, 5);	/* the entry handler declines this one */
	kst_check("kretprobe-entry-data-retval",
		  n == 1 && atomic_read(&c.entry) == 3 &&
		  atomic_read(&c.ret) == 2 && !c.bad,
		  "registered %d (error %d), entries %d (want 3), returns %d (want 2), bad %d",
		  n, p.error, atomic_read(&c.entry), atomic_read(&c.ret), c.bad);
	/* the function itself sees the return trampoline instead */
	kst_check("kretprobe-ret-addr", ret_addr && ret_addr == caller &&
		  in_fn != caller,
		  "kcore_ret_addr 0x%lx (%pS), at entry 0x%lx (%pS), in the function 0x%lx (%pS)",
		  ret_addr, (void *)ret_addr, caller, (void *)caller,
		  in_fn, (void *)in_fn);
	kst_check("kretprobe-maxactive-default", p.krp.maxactive == KRETACTIVE,
		  "maxactive %d, KRETACTIVE %d", p.krp.maxactive, KRETACTIVE);
	kcore_unregister(v, 1);
}

/* raw_pre and raw_ret: called directly, and they find their kcore_probe */
static void kst_raw(void)
{
	static struct kst_counts ce, cr;
	static struct kcore_probe pe, pr, bad1, bad2, bad3;
	struct kcore_probe *v[] = { &pe, &pr };
	struct kcore_probe *b[] = { &bad1, &bad2, &bad3 };
	int n, nb;

	kst_reset(&ce);
	kst_reset(&cr);
	kst_kprobe(&pe, "kprobe.function(\"kst_raw_fn\")", "kst_raw_fn", &ce);
	pe.entry = NULL;
	pe.raw_pre = kst_raw_pre;
	kst_kretprobe(&pr, "kprobe.function(\"kst_raw_fn\").return",
		      "kst_raw_fn", &cr);
	pr.entry = kst_raw_ret_entry;
	pr.ret = NULL;
	pr.raw_ret = kst_raw_ret;
	pr.data_size = sizeof(long);
	n = kcore_register(v, 2, 0);
	kst_raw_fn(5);
	kst_check("raw-handlers",
		  n == 2 && atomic_read(&ce.entry) == 1 &&
		  kst_at_entry(ce.ip, kst_raw_fn) && pe.krp.kp.pre_handler ==
		  kst_raw_pre && pr.krp.handler == kst_raw_ret &&
		  atomic_read(&cr.ret) == 1 && !cr.bad &&
		  ce.seq_entry < cr.seq_ret,
		  "registered %d, entry %d at %pS, return %d, bad %d",
		  n, atomic_read(&ce.entry), (void *)ce.ip,
		  atomic_read(&cr.ret), cr.bad);
	kcore_unregister(v, 2);

	/* refused: raw_pre with a post-handler, raw_pre on a kretprobe,
	 * raw_ret on a kprobe */
	kst_kprobe(&bad1, "raw pre with post", "kst_raw_fn", &ce);
	bad1.raw_pre = kst_raw_pre;
	bad1.post = kst_count_post;
	kst_kretprobe(&bad2, "raw pre on a kretprobe", "kst_raw_fn", &cr);
	bad2.raw_pre = kst_raw_pre;
	kst_kprobe(&bad3, "raw ret on a kprobe", "kst_raw_fn", &ce);
	bad3.raw_ret = kst_raw_ret;
	bad1.flags = bad2.flags = bad3.flags = KCORE_OPTIONAL;
	nb = kcore_register(b, 3, 0);
	kst_check("raw-handlers-refused",
		  nb == 0 && bad1.error == -EINVAL && bad2.error == -EINVAL &&
		  bad3.error == -EINVAL,
		  "registered %d, errors %d %d %d", nb, bad1.error,
		  bad2.error, bad3.error);
	kcore_unregister(b, 3);
}

/* maxactive 1 and four callers sleeping 300 ms at once: misses are counted */
struct kst_sleeper {
	struct completion go, done;
	long ms;
};

static int kst_sleeper_fn(void *arg)
{
	struct kst_sleeper *s = arg;

	wait_for_completion(&s->go);
	kst_sleep_fn(s->ms);
	complete(&s->done);
	return 0;
}

#define KST_NSLEEPERS	4

static void kst_maxactive(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	static struct kst_sleeper s[KST_NSLEEPERS];
	struct kcore_probe *v[] = { &p };
	struct task_struct *t;
	unsigned long miss, miss_ret;
	int n, i, started = 0;

	kst_reset(&c);
	kst_kretprobe(&p, "kernel.function(\"kst_sleep_fn\").return.maxactive(1)",
		      "kst_sleep_fn", &c);
	p.maxactive = 1;
	n = kcore_register(v, 1, 0);
	for (i = 0; i < KST_NSLEEPERS; i++) {
		init_completion(&s[i].go);
		init_completion(&s[i].done);
		s[i].ms = 300;
		t = kthread_run(kst_sleeper_fn, &s[i], "kst_sleeper/%d", i);
		if (IS_ERR(t))
			break;
		started++;
	}
	for (i = 0; i < started; i++)
		complete(&s[i].go);
	for (i = 0; i < started; i++)
		wait_for_completion(&s[i].done);
	/* a kthread returns after complete(): let it leave kst_sleep_fn */
	msleep(20);
	kcore_missed(&p, &miss, &miss_ret);
	kcore_unregister(v, 1);
	kst_check("kretprobe-maxactive-nmissed",
		  n == 1 && started == KST_NSLEEPERS && miss_ret >= 1 &&
		  p.nmissed_ret == miss_ret &&
		  atomic_read(&c.ret) + miss_ret == KST_NSLEEPERS &&
		  atomic_read(&c.entry) == atomic_read(&c.ret),
		  "registered %d, threads %d, entries %d, returns %d, nmissed_ret %lu (after unregister %lu)",
		  n, started, atomic_read(&c.entry), atomic_read(&c.ret),
		  miss_ret, p.nmissed_ret);
}

/* a call in flight when its kretprobe goes: its return handler never runs */
static void kst_pending_return(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	static struct kst_sleeper s;
	struct kcore_probe *v[] = { &p };
	struct task_struct *t;
	int n, i, entered;
	bool early;

	kst_reset(&c);
	kst_kretprobe(&p, "kernel.function(\"kst_sleep_fn\").return pending",
		      "kst_sleep_fn", &c);
	n = kcore_register(v, 1, 0);
	init_completion(&s.go);
	init_completion(&s.done);
	s.ms = 1000;
	t = kthread_run(kst_sleeper_fn, &s, "kst_pending");
	if (IS_ERR(t)) {
		kcore_unregister(v, 1);
		kst_check("kretprobe-pending-at-unregister", false,
			  "no thread: %ld", PTR_ERR(t));
		return;
	}
	complete(&s.go);
	for (i = 0; i < 100 && !atomic_read(&c.entry); i++)
		msleep(5);
	entered = atomic_read(&c.entry);
	kcore_unregister(v, 1);		/* the thread still sleeps inside */
	early = completion_done(&s.done);
	wait_for_completion(&s.done);
	/* unregistration took less than the sleep? else this proves nothing */
	kst_check("kretprobe-pending-at-unregister",
		  n == 1 && entered == 1 && atomic_read(&c.ret) == 0 && !early,
		  "registered %d, entered %d, returns %d, returned before unregistration %d",
		  n, entered, atomic_read(&c.ret), early);
}

/* a probe hit inside another probe's handler is dropped and counted */
static void kst_recursion(void)
{
	static struct kst_counts co, ci;
	static struct kcore_probe po, pi;
	struct kcore_probe *v[] = { &po, &pi };
	int n;

	kst_reset(&co);
	kst_reset(&ci);
	kst_kprobe(&po, "kprobe.function(\"kst_outer\")", "kst_outer", &co);
	po.entry = kst_outer_entry;
	kst_kprobe(&pi, "kprobe.function(\"kst_inner\")", "kst_inner", &ci);
	n = kcore_register(v, 2, 0);
	kst_outer(1);		/* kst_inner runs in the handler: missed */
	kst_inner(2);		/* counted */
	kcore_unregister(v, 2);
	kst_check("kprobe-nmissed-recursion",
		  n == 2 && atomic_read(&co.entry) == 1 &&
		  atomic_read(&ci.entry) == 1 && pi.nmissed == 1 &&
		  po.nmissed == 0,
		  "registered %d, outer %d, inner %d, inner nmissed %lu (want 1), outer nmissed %lu",
		  n, atomic_read(&co.entry), atomic_read(&ci.entry),
		  pi.nmissed, po.nmissed);
}

static bool kst_args_ok(const struct kst_counts *c, unsigned int nargs,
			long base)
{
	unsigned int i;

	for (i = 1; i <= nargs; i++)
		if (c->args[i] != base + i)
			return false;
	return !c->argerr && !c->bad;
}

/* jprobes: 6 register arguments, 8 with two on the stack, three paths */
static void kst_jprobes(void)
{
	static struct kst_counts c6, c8, ci, ch;
	static struct kcore_probe p6, p8, pi, ph;
	struct kcore_probe *v[] = { &p6, &p8, &pi };
	struct kcore_probe *helper[] = { &ph };
	const char *path6, *path8, *pathi, *pathi2;
	bool ok_int3;
	int n, i;

	kst_reset(&c6);
	kst_reset(&c8);
	kst_reset(&ci);
	kst_kprobe(&p6, "jprobe kst_args6", "kst_args6", &c6);
	kst_kprobe(&p8, "jprobe kst_args8", "kst_args8", &c8);
	kst_kprobe(&pi, "jprobe kst_args8_int3", "kst_args8_int3", &ci);
	p6.kind = p8.kind = pi.kind = KCORE_JPROBE;
	p6.entry = p8.entry = pi.entry = kst_args_entry;
	/* a colocated probe with a post-handler keeps kst_args8_int3 an int3 */
	kst_reset(&ch);
	kst_kprobe(&ph, "kst_args8_int3 helper", "kst_args8_int3", &ch);
	ph.post = kst_count_post;
	kcore_register(helper, 1, 0);
	n = kcore_register(v, 3, 0);
	path6 = kst_path(&p6);
	path8 = kst_path(&p8);
	pathi = kst_path(&pi);
	kst_args6(101, 102, 103, 104, 105, 106);
	kst_args8(201, 202, 203, 204, 205, 206, 207, 208);
	kst_args8_int3(301, 302, 303, 304, 305, 306, 307, 308);
	kst_check("jprobe-args6", n == 3 && atomic_read(&c6.entry) == 1 &&
		  kst_args_ok(&c6, 6, 100),
		  "registered %d, hits %d, path %s, args %ld %ld %ld %ld %ld %ld, err %d",
		  n, atomic_read(&c6.entry), path6, c6.args[1], c6.args[2],
		  c6.args[3], c6.args[4], c6.args[5], c6.args[6], c6.argerr);
	kst_check("jprobe-args8", atomic_read(&c8.entry) == 1 &&
		  kst_args_ok(&c8, 8, 200),
		  "hits %d, path %s, args 1 %ld 6 %ld 7 %ld 8 %ld, err %d",
		  atomic_read(&c8.entry), path8, c8.args[1], c8.args[6],
		  c8.args[7], c8.args[8], c8.argerr);
	ok_int3 = atomic_read(&ci.entry) == 1 && kst_args_ok(&ci, 8, 300);
	kst_check("jprobe-args8-int3", ok_int3 && strcmp(pathi, "ftrace"),
		  "hits %d, path %s, args 1 %ld 6 %ld 7 %ld 8 %ld, err %d",
		  atomic_read(&ci.entry), pathi, ci.args[1], ci.args[6],
		  ci.args[7], ci.args[8], ci.argerr);
	pr_info("kcore: info jprobe paths: args6 %s, args8 %s, args8_int3 %s\n",
		path6, path8, pathi);

	/* alone, the probe is optimized into a jump after a while */
	kcore_unregister(helper, 1);
	for (i = 0; i < 100 && strcmp(kst_path(&pi), "optimized"); i++)
		msleep(20);
	pathi2 = kst_path(&pi);
	kst_reset(&ci);
	kst_args8_int3(401, 402, 403, 404, 405, 406, 407, 408);
	if (IS_ENABLED(CONFIG_OPTPROBES) && !strcmp(pathi2, "optimized"))
		kst_check("jprobe-args8-optimized", atomic_read(&ci.entry) == 1 &&
			  kst_args_ok(&ci, 8, 400),
			  "hits %d, args 1 %ld 6 %ld 7 %ld 8 %ld, err %d",
			  atomic_read(&ci.entry), ci.args[1], ci.args[6],
			  ci.args[7], ci.args[8], ci.argerr);
	else
		pr_info("kcore: info jprobe-args8-optimized not run: path %s\n",
			pathi2);
	kcore_unregister(v, 3);
}

/* refused probes warn with their probe point; the others keep running */
static void kst_refused(void)
{
#define KST_NREF 10
	static struct kst_counts c;
	static struct kcore_probe p[KST_NREF];
	struct kcore_probe *v[KST_NREF];
	char want[160];
	int n, i;
	unsigned long nd;
	bool w_bl, w_unknown, w_data, w_offset, w_big, w_addr = false;

	kst_reset(&c);
	for (i = 0; i < KST_NREF; i++)
		v[i] = &p[i];
	kst_kprobe(&p[0], "kprobe.function(\"kst_target\")", "kst_target", &c);
	kst_kprobe(&p[1], "kprobe.function(\"notify_die\")", "notify_die", &c);
	kst_kprobe(&p[2], "kprobe.function(\"kst_no_such_function\")",
		   "kst_no_such_function", &c);
	kst_kprobe(&p[3], "kprobe.statement(kst_data).absolute", NULL, &c);
	p[3].addr = (unsigned long)&kst_data;
	kst_kretprobe(&p[4], "kprobe.function(\"kst_both_fn\")+1.return",
		      "kst_both_fn", &c);
	p[4].offset = 1;
	kst_kprobe(&p[5], "kprobe.function(\"kst_optional_missing\")?",
		   "kst_optional_missing", &c);
	p[5].flags = KCORE_OPTIONAL;
	kst_kretprobe(&p[6], "kprobe.function(\"kst_both_fn\").return big",
		      "kst_both_fn", &c);
	p[6].data_size = KRETPROBE_MAX_DATA_SIZE + 1;
	kst_kprobe(&p[7], "kprobe.function(\"atomic_notifier_call_chain\")",
		   "atomic_notifier_call_chain", &c);
	kst_kprobe(&p[8], "kprobe.module(\"" KST_MOD "\").function(\"kst_nope\")",
		   "kst_nope", &c);
	p[8].module = KST_MOD;
	kst_kprobe(&p[9], "kernel.function(\"notify_die\")", "notify_die", &c);
	p[9].flags = KCORE_WARN_ADDR;

	kst_clear_warns();
	n = kcore_register(v, KST_NREF, 0);
	kst_target(1);

	w_bl = kst_warned("probe kprobe.function(\"notify_die\") (notify_die+0) registration error [man warning::pass5] (rc -22)");
	w_unknown = kst_warned("probe kprobe.function(\"kst_no_such_function\") (kst_no_such_function+0) registration error [man warning::pass5] (rc -2)");
	snprintf(want, sizeof(want),
		 "probe kprobe.statement(kst_data).absolute (address 0x%lx) registration error [man warning::pass5] (rc -22)",
		 (unsigned long)&kst_data);
	w_data = kst_warned(want);
	w_offset = kst_warned("probe kprobe.function(\"kst_both_fn\")+1.return (kst_both_fn+1) registration error [man warning::pass5] (rc -22)");
	w_big = kst_warned("probe kprobe.function(\"kst_both_fn\").return big (kst_both_fn+0) registration error [man warning::pass5] (rc -7)");
	/* the address the kernel resolved: past an ENDBR with IBT */
	nd = kcore_lookup_name("notify_die");
	for (i = 0; nd && i <= 4 && !w_addr; i += 4) {
		snprintf(want, sizeof(want),
			 "probe kernel.function(\"notify_die\") (address 0x%lx) registration error [man warning::pass5] (rc -22)",
			 nd + i);
		w_addr = kst_warned(want);
	}

	kst_check("refused-blacklisted", p[1].error == -EINVAL && w_bl &&
		  p[7].error == -EINVAL,
		  "notify_die error %d, warned %d; atomic_notifier_call_chain error %d",
		  p[1].error, w_bl, p[7].error);
	kst_check("refused-unknown-symbol", p[2].error == -ENOENT && w_unknown,
		  "error %d, warned %d", p[2].error, w_unknown);
	kst_check("refused-not-text", p[3].error == -EINVAL && w_data,
		  "error %d, warned %d", p[3].error, w_data);
	kst_check("refused-kretprobe-not-entry", p[4].error == -EINVAL && w_offset,
		  "error %d, warned %d", p[4].error, w_offset);
	kst_check("refused-data-too-big", p[6].error == -E2BIG && w_big,
		  "error %d, warned %d", p[6].error, w_big);
	kst_check("refused-warn-address", p[9].error == -EINVAL && w_addr,
		  "error %d, warned %d (notify_die at 0x%lx)", p[9].error,
		  w_addr, nd);
	kst_check("refused-optional-and-module-quiet", p[5].error == -ENOENT &&
		  p[8].error == -ENOENT && kst_nwarns == 7,
		  "errors %d %d, %d warnings (want 7)", p[5].error, p[8].error,
		  kst_nwarns);
	kst_check("refused-others-run", n == 1 && p[0].registered &&
		  atomic_read(&c.entry) == 1,
		  "registered %d, the good probe hit %d times", n,
		  atomic_read(&c.entry));
	kcore_unregister(v, KST_NREF);
	kst_clear_warns();
#undef KST_NREF
}

/* KCORE_ALL_OR_NOTHING: a failure undoes the call, earlier probes stay */
static void kst_all_or_nothing(void)
{
	static struct kst_counts ca, cb, cc;
	static struct kcore_probe pa, pb, pc, pbad;
	struct kcore_probe *before[] = { &pc };
	struct kcore_probe *batch[] = { &pc, &pa, &pb, &pbad };
	struct kcore_probe *good[] = { &pa, &pb };
	int r1, r2, r3, ha, hb, hc;

	kst_reset(&ca);
	kst_reset(&cb);
	kst_reset(&cc);
	kst_kprobe(&pa, "kprobe.function(\"kst_batch_fn\")", "kst_batch_fn", &ca);
	kst_kretprobe(&pb, "kprobe.function(\"kst_batch_fn\").return",
		      "kst_batch_fn", &cb);
	kst_kprobe(&pc, "kprobe.function(\"kst_target\")", "kst_target", &cc);
	kst_kprobe(&pbad, "kprobe.function(\"notify_die\")", "notify_die", &cc);

	r1 = kcore_register(before, 1, KCORE_ALL_OR_NOTHING);
	kst_clear_warns();
	r2 = kcore_register(batch, 4, KCORE_ALL_OR_NOTHING);
	kst_batch_fn(1);
	kst_target(1);
	ha = atomic_read(&ca.entry);
	hb = atomic_read(&cb.ret);
	hc = atomic_read(&cc.entry);
	kst_check("all-or-nothing-rollback",
		  r1 == 1 && r2 == -EINVAL && !pa.registered && !pb.registered &&
		  pc.registered && !ha && !hb && hc == 1 && kst_nwarns == 1,
		  "before %d, batch %d (want -22), registered %d %d %d, hits %d %d %d, warnings %d",
		  r1, r2, pa.registered, pb.registered, pc.registered, ha, hb,
		  hc, kst_nwarns);

	/* the same structures register cleanly afterwards */
	r3 = kcore_register(good, 2, KCORE_ALL_OR_NOTHING);
	kst_batch_fn(2);
	kst_check("all-or-nothing-retry",
		  r3 == 2 && atomic_read(&ca.entry) == 1 && atomic_read(&cb.ret) == 1,
		  "registered %d (errors %d %d), hits %d %d", r3, pa.error,
		  pb.error, atomic_read(&ca.entry), atomic_read(&cb.ret));
	kcore_unregister(good, 2);
	kcore_unregister(before, 1);
	kst_clear_warns();
}

/* forty probes on one address, one unregistration call */
#define KST_NMANY	40

static void kst_many(void)
{
	static struct kst_counts c;
	static struct kcore_probe p[KST_NMANY];
	struct kcore_probe **v;
	int n, i, hits, after;

	v = kcalloc(KST_NMANY, sizeof(*v), GFP_KERNEL);
	if (!v) {
		kst_check("many-colocated-batch", false, "no memory");
		return;
	}
	kst_reset(&c);
	for (i = 0; i < KST_NMANY; i++) {
		v[i] = &p[i];
		if (i % 4 == 3)
			kst_kretprobe(&p[i], "many", "kst_many_fn", &c);
		else
			kst_kprobe(&p[i], "many", "kst_many_fn", &c);
	}
	n = kcore_register(v, KST_NMANY, KCORE_ALL_OR_NOTHING);
	kst_many_fn(1);
	hits = atomic_read(&c.entry) + atomic_read(&c.ret);
	kcore_unregister(v, KST_NMANY);
	kst_many_fn(2);
	after = atomic_read(&c.entry) + atomic_read(&c.ret);
	for (i = 0; i < KST_NMANY; i++)
		if (p[i].registered || kcore_probe_addr(&p[i]))
			break;
	kst_check("many-colocated-batch",
		  n == KST_NMANY && hits == KST_NMANY + KST_NMANY / 4 &&
		  after == hits && i == KST_NMANY,
		  "registered %d, hits %d (want %d), after unregistration %d, still registered #%d",
		  n, hits, KST_NMANY + KST_NMANY / 4, after, i);
	kfree(v);
}

/* KCORE_DISABLED, kcore_enable(), kcore_disable(), unregistration */
static void kst_toggle(void)
{
	static struct kst_counts c;
	static struct kcore_probe p;
	struct kcore_probe *v[] = { &p };
	int n, h0, h1, h2, h3, e1, e2;

	kst_reset(&c);
	kst_kprobe(&p, "kprobe.function(\"kst_toggle_fn\")", "kst_toggle_fn", &c);
	p.flags = KCORE_DISABLED;
	n = kcore_register(v, 1, 0);
	kst_toggle_fn(1);
	h0 = atomic_read(&c.entry);
	e1 = kcore_enable(&p);
	kst_toggle_fn(2);
	h1 = atomic_read(&c.entry);
	e2 = kcore_disable(&p);
	kst_toggle_fn(3);
	h2 = atomic_read(&c.entry);
	kcore_enable(&p);
	kcore_unregister(v, 1);
	kst_toggle_fn(4);
	h3 = atomic_read(&c.entry);
	kst_check("disabled-enable-disable", n == 1 && !e1 && !e2 &&
		  h0 == 0 && h1 == 1 && h2 == 1,
		  "registered %d, enable %d, disable %d, hits %d %d %d (want 0 1 1)",
		  n, e1, e2, h0, h1, h2);
	kst_check("unregistered-silent", h3 == 1 && !p.registered &&
		  !kcore_probe_addr(&p) && kcore_enable(&p) == -EINVAL,
		  "hits after unregistration %d, registered %d", h3,
		  p.registered);
}

/* left registered until module exit */
static struct kst_counts kst_exit_counts;
static struct kcore_probe kst_exit_probe;

static int __init kst_init(void)
{
	struct kcore_probe *v[] = { &kst_exit_probe };

	kst_task = current;
	kcore_set_warn(kst_warn);
	pr_info("kcore: START\n");

	kst_lookup();
	kst_vmlinux_symbol();
	kst_module_symbol();
	kst_symbol_offset();
	kst_address();
	kst_colocated();
	kst_kprobe_kretprobe();
	kst_post_joins();
	kst_kretprobe_data();
	kst_raw();
	kst_maxactive();
	kst_pending_return();
	kst_recursion();
	kst_jprobes();
	kst_refused();
	kst_all_or_nothing();
	kst_many();
	kst_toggle();

	kst_reset(&kst_exit_counts);
	kst_kprobe(&kst_exit_probe, "kprobe.function(\"kst_target\") exit",
		   "kst_target", &kst_exit_counts);
	kcore_register(v, 1, 0);

	pr_info("kcore: DONE %d passed, %d failed\n", kst_npass, kst_nfail);
	return 0;
}

static void __exit kst_exit(void)
{
	struct kcore_probe *v[] = { &kst_exit_probe };
	int hits;

	kst_npass = kst_nfail = 0;
	kst_target(1);
	hits = atomic_read(&kst_exit_counts.entry);
	kcore_unregister(v, 1);
	kst_target(2);
	kst_check("exit-unregister", hits == 1 &&
		  atomic_read(&kst_exit_counts.entry) == 1 &&
		  !kst_exit_probe.registered,
		  "hits %d before and %d after unregistration",
		  hits, atomic_read(&kst_exit_counts.entry));
	kst_clear_warns();
	kcore_set_warn(NULL);
	pr_info("kcore: EXIT %d passed, %d failed\n", kst_npass, kst_nfail);
}

module_init(kst_init);
module_exit(kst_exit);
