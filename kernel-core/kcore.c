// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kcore.c - registration of kprobes, emulated jprobes and kretprobes,
 * their handlers, batch unregistration and miss counts.
 *
 * Every struct kcore_probe owns one struct kretprobe; kprobes and
 * jprobes use only its embedded struct kprobe. Probes on one address are
 * separate kernel kprobes that the kernel chains into an aggregate probe,
 * so each one's handlers run on every hit; the core's pre-handlers always
 * return 0 so that none of them hides the others.
 *
 * Post-handlers at ftrace sites. With KPROBES_ON_FTRACE a kprobe on a
 * function's fentry call is armed in one of two ftrace_ops, chosen by
 * whether the (aggregate) probe has a post-handler when it is armed and
 * again when it is disarmed. Adding a probe with a post-handler to an
 * address already armed without one flips the aggregate's post_handler
 * but not its ftrace_ops (add_new_kprobe() in 6.1 to 6.18), so the last
 * unregistration fails ("Failed to disarm kprobe-ftrace ... (error -2)",
 * a WARN) and leaves the probe hashed: a use-after-free once the module
 * is gone. At an ftrace site the kernel only emulates the single step and
 * calls the post-handler right after the pre-handler anyway, so the core
 * never hands the kernel a post-handler there: it registers such a probe
 * disarmed and without one, and if the kernel put it on ftrace it calls
 * the post-handler itself, the way kprobe_ftrace_handler() would;
 * otherwise it registers it again with the post-handler.
 */
#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "kcore.h"

#ifndef KRETPROBE_MAX_DATA_SIZE
#define KRETPROBE_MAX_DATA_SIZE	4096
#endif

/* Unregistration batches fall back to this size without memory. */
#define KCORE_UNREG_CHUNK	16

static void (*kcore_warn_fn)(const char *msg);

void kcore_set_warn(void (*warn)(const char *msg))
{
	WRITE_ONCE(kcore_warn_fn, warn);
}

static __printf(1, 2) void kcore_warn(const char *fmt, ...)
{
	void (*warn)(const char *msg) = READ_ONCE(kcore_warn_fn);
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = kvasprintf(GFP_KERNEL, fmt, ap);
	va_end(ap);
	if (!msg) {
		pr_warn("kcore: a probe was refused (no memory for the warning)\n");
		return;
	}
	if (warn)
		warn(msg);
	else
		pr_warn("kcore: %s\n", msg);
	kfree(msg);
}

/* ---- handlers (kprobe context) ---- */

static int kcore_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct kcore_probe *p = container_of(kp, struct kcore_probe, krp.kp);

	p->entry(p, regs, NULL);
#ifdef MCOUNT_INSN_SIZE
	if (unlikely(p->post_emulated)) {
		/* as kprobe_ftrace_handler(): the call site is "stepped" */
		unsigned long ip = instruction_pointer(regs);

		instruction_pointer_set(regs, (unsigned long)kp->addr +
					MCOUNT_INSN_SIZE);
		p->post(p, regs, 0);
		instruction_pointer_set(regs, ip);
	}
#endif
	return 0;	/* never skip the other probes at this address */
}
NOKPROBE_SYMBOL(kcore_pre);

static void kcore_post(struct kprobe *kp, struct pt_regs *regs,
		       unsigned long flags)
{
	struct kcore_probe *p = container_of(kp, struct kcore_probe, krp.kp);

	p->post(p, regs, flags);
}
NOKPROBE_SYMBOL(kcore_post);

static int kcore_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kcore_probe *p = kcore_of_instance(ri);

	if (!p)
		return 1;
	return p->entry(p, regs, ri->data);
}
NOKPROBE_SYMBOL(kcore_ret_entry);

static int kcore_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kcore_probe *p = kcore_of_instance(ri);

	if (p)
		p->ret(p, regs, ri->data);
	return 0;
}
NOKPROBE_SYMBOL(kcore_ret);

unsigned long kcore_ret_addr(void *data)
{
	struct kretprobe_instance *ri = (void *)((char *)data -
		offsetof(struct kretprobe_instance, data));

#ifdef HAVE_GET_KRETPROBE_RETADDR
	return get_kretprobe_retaddr(ri);
#else
	return (unsigned long)ri->ret_addr;
#endif
}
NOKPROBE_SYMBOL(kcore_ret_addr);

/* ---- registration (process context) ---- */

/* Is the description usable? -EINVAL (or -E2BIG for data) if not. */
static int kcore_check(const struct kcore_probe *p)
{
	if (!p->symbol && !p->addr)
		return -EINVAL;
	if (p->offset > UINT_MAX)
		return -EINVAL;
	if (p->kind != KCORE_KPROBE && p->raw_pre)
		return -EINVAL;
	if (p->kind != KCORE_KRETPROBE && p->raw_ret)
		return -EINVAL;
	switch (p->kind) {
	case KCORE_KPROBE:
		if (p->raw_pre)
			/* the post-handler emulation lives in kcore_pre() */
			return p->post ? -EINVAL : 0;
		return p->entry ? 0 : -EINVAL;
	case KCORE_JPROBE:
		/* the arguments are where the ABI says only at the entry */
		return p->entry && !p->post && !p->offset ? 0 : -EINVAL;
	case KCORE_KRETPROBE:
		if (!(p->ret || p->raw_ret) || p->post || p->maxactive < 0)
			return -EINVAL;
		return p->data_size <= KRETPROBE_MAX_DATA_SIZE ? 0 : -E2BIG;
	}
	return -EINVAL;
}

/*
 * Fill in the kernel's structures afresh: register_kprobe() leaves the
 * resolved address and flags behind even when it fails, and a retry with
 * both symbol_name and addr set would be refused.
 */
static int kcore_prepare(struct kcore_probe *p)
{
	struct kretprobe *rp = &p->krp;
	struct kprobe *kp = &rp->kp;
	int ret = kcore_check(p);

	if (ret)
		return ret;
	memset(rp, 0, sizeof(*rp));
	p->modsym = NULL;
	p->post_emulated = false;
	if (p->symbol) {
		if (p->module && strcmp(p->module, "kernel")) {
			p->modsym = kasprintf(GFP_KERNEL, "%s:%s", p->module,
					      p->symbol);
			if (!p->modsym)
				return -ENOMEM;
			kp->symbol_name = p->modsym;
		} else {
			kp->symbol_name = p->symbol;
		}
		kp->offset = p->offset;
	} else {
		kp->addr = (kprobe_opcode_t *)(p->addr + p->offset);
	}
	if (p->flags & KCORE_DISABLED)
		kp->flags = KPROBE_FLAG_DISABLED;

	if (p->kind == KCORE_KRETPROBE) {
		rp->handler = p->raw_ret ? p->raw_ret : kcore_ret;
		rp->entry_handler = p->entry ? kcore_ret_entry : NULL;
		rp->data_size = p->data_size;
		rp->maxactive = p->maxactive ? p->maxactive : KRETACTIVE;
	} else {
		kp->pre_handler = p->raw_pre ? p->raw_pre : kcore_pre;
		kp->post_handler = p->post ? kcore_post : NULL;
	}
	return 0;
}

static void kcore_release(struct kcore_probe *p)
{
	kfree(p->modsym);
	p->modsym = NULL;
}

/*
 * SystemTap's wording, so that scripts' expected output carries over; and
 * like SystemTap, quiet for optional probes and for probes in modules
 * (the module may simply not be loaded).
 */
static void kcore_refused(const struct kcore_probe *p)
{
	const char *name = p->name ? p->name : "(unnamed)";
	/* register_kprobe() leaves what the symbol resolved to */
	unsigned long at = (unsigned long)p->krp.kp.addr;

	if (p->flags & KCORE_OPTIONAL)
		return;
	if (p->symbol && p->module && strcmp(p->module, "kernel"))
		return;
	if (p->symbol && (p->flags & KCORE_WARN_ADDR) && at)
		kcore_warn("probe %s (address 0x%lx) registration error [man warning::pass5] (rc %d)",
			   name, at, p->error);
	else if (p->symbol)
		kcore_warn("probe %s (%s+%lu) registration error [man warning::pass5] (rc %d)",
			   name, p->symbol, p->offset, p->error);
	else
		kcore_warn("probe %s (address 0x%lx) registration error [man warning::pass5] (rc %d)",
			   name, p->addr + p->offset, p->error);
}

/*
 * A kprobe with a post-handler: first disarmed and without it, to learn
 * whether the kernel puts it on an ftrace site (see the top of the file).
 */
static int kcore_register_post(struct kcore_probe *p)
{
	struct kprobe *kp = &p->krp.kp;
	int ret;

	kp->post_handler = NULL;
	kp->flags = KPROBE_FLAG_DISABLED;
	ret = register_kprobe(kp);
	if (ret)
		return ret;
#ifdef MCOUNT_INSN_SIZE
	if (kp->flags & KPROBE_FLAG_FTRACE) {
		p->post_emulated = true;
		if (p->flags & KCORE_DISABLED)
			return 0;
		ret = enable_kprobe(kp);
		if (ret)
			unregister_kprobe(kp);
		return ret;
	}
#endif
	unregister_kprobe(kp);
	kcore_release(p);
	ret = kcore_prepare(p);
	return ret ? ret : register_kprobe(kp);
}

static int kcore_register_one(struct kcore_probe *p)
{
	int ret = kcore_prepare(p);

	if (!ret) {
		if (p->kind == KCORE_KRETPROBE)
			ret = register_kretprobe(&p->krp);
		else if (p->post)
			ret = kcore_register_post(p);
		else
			ret = register_kprobe(&p->krp.kp);
	}
	p->error = ret;
	if (ret) {
		kcore_refused(p);
		kcore_release(p);
		p->krp.kp.addr = NULL;	/* the kernel may have set it */
		return ret;
	}
	p->nmissed = 0;
	p->nmissed_ret = 0;
	p->registered = true;
	return 0;
}

/* ---- unregistration (process context) ---- */

static bool kcore_pick(const struct kcore_probe *p, bool ret, bool only_fresh)
{
	return p && p->registered && (p->kind == KCORE_KRETPROBE) == ret &&
	       (!only_fresh || p->fresh);
}

/*
 * Unregister the picked kprobes (ret false) or kretprobes (ret true) of
 * probes[0..n-1], as many per kernel call (one RCU synchronization each)
 * as the array kps or rps holds.
 */
static void kcore_unregister_kind(struct kcore_probe **probes, unsigned int n,
				  bool ret, bool only_fresh,
				  struct kprobe **kps, struct kretprobe **rps,
				  unsigned int cap)
{
	unsigned int i = 0, k;

	while (i < n) {
		for (k = 0; i < n && k < cap; i++) {
			struct kcore_probe *p = probes[i];

			if (!kcore_pick(p, ret, only_fresh))
				continue;
			if (ret)
				rps[k++] = &p->krp;
			else
				kps[k++] = &p->krp.kp;
		}
		if (!k)
			break;
		if (ret)
			unregister_kretprobes(rps, k);
		else
			unregister_kprobes(kps, k);
	}
}

static void kcore_unregister_some(struct kcore_probe **probes, unsigned int n,
				  bool only_fresh)
{
	struct kprobe *kchunk[KCORE_UNREG_CHUNK];
	struct kretprobe *rchunk[KCORE_UNREG_CHUNK];
	struct kprobe **kps = kchunk;
	struct kretprobe **rps = rchunk;
	unsigned int i, nk = 0, nr = 0, cap = KCORE_UNREG_CHUNK;

	for (i = 0; i < n; i++) {
		if (kcore_pick(probes[i], false, only_fresh))
			nk++;
		else if (kcore_pick(probes[i], true, only_fresh))
			nr++;
	}
	if (!nk && !nr)
		return;
	if (max(nk, nr) > cap) {
		/* one array serves both kinds: both are arrays of pointers */
		void **all = kmalloc_array(max(nk, nr), sizeof(*all), GFP_KERNEL);

		if (all) {
			kps = (struct kprobe **)all;
			rps = (struct kretprobe **)all;
			cap = max(nk, nr);
		}
	}
	if (nk)
		kcore_unregister_kind(probes, n, false, only_fresh, kps, rps, cap);
	if (nr)
		kcore_unregister_kind(probes, n, true, only_fresh, kps, rps, cap);
	if (kps != kchunk)
		kfree(kps);

	for (i = 0; i < n; i++) {
		struct kcore_probe *p = probes[i];

		if (!kcore_pick(p, p && p->kind == KCORE_KRETPROBE, only_fresh))
			continue;
		kcore_missed(p, &p->nmissed, &p->nmissed_ret);
		p->krp.kp.addr = NULL;
		p->registered = false;
		p->fresh = false;
		kcore_release(p);
	}
}

void kcore_unregister(struct kcore_probe **probes, unsigned int n)
{
	kcore_unregister_some(probes, n, false);
}

int kcore_register(struct kcore_probe **probes, unsigned int n,
		   unsigned int flags)
{
	unsigned int i, nreg = 0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct kcore_probe *p = probes[i];

		if (!p || p->registered)
			continue;
		ret = kcore_register_one(p);
		if (!ret) {
			p->fresh = true;
			nreg++;
		} else if ((flags & KCORE_ALL_OR_NOTHING) &&
			   !(p->flags & KCORE_OPTIONAL)) {
			break;
		} else {
			ret = 0;
		}
	}
	if (ret) {
		/* undo this call's registrations, not the earlier ones */
		kcore_unregister_some(probes, i, true);
		return ret;
	}
	for (i = 0; i < n; i++)
		if (probes[i])
			probes[i]->fresh = false;
	return nreg;
}

int kcore_enable(struct kcore_probe *p)
{
	if (!p->registered)
		return -EINVAL;
	return enable_kprobe(&p->krp.kp);
}

int kcore_disable(struct kcore_probe *p)
{
	if (!p->registered)
		return -EINVAL;
	return disable_kprobe(&p->krp.kp);
}

void kcore_missed(const struct kcore_probe *p, unsigned long *nmissed,
		  unsigned long *nmissed_ret)
{
	if (nmissed)
		*nmissed = READ_ONCE(p->krp.kp.nmissed);
	if (nmissed_ret)
		*nmissed_ret = p->kind == KCORE_KRETPROBE ?
			       (unsigned long)READ_ONCE(p->krp.nmissed) : 0;
}
NOKPROBE_SYMBOL(kcore_missed);
