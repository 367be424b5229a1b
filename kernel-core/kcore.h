/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kcore.h - the probe core: kprobes, jprobes and kretprobes for the code
 * Tapir generates and for its module runtime.
 *
 * The caller describes each probe in a struct kcore_probe (usually static,
 * one per script probe point) and registers an array of pointers to them
 * in one call. The core places them with the kernel's kprobes:
 *
 *   KCORE_KPROBE     a kprobe at symbol+offset or addr+offset, with a
 *                    pre-handler (entry) and an optional post-handler;
 *   KCORE_JPROBE     a kprobe at a function's entry (offset 0) whose
 *                    handler reads the function's arguments with
 *                    kcore_arg() (the kernel lost its jprobe API in 4.15);
 *   KCORE_KRETPROBE  a kretprobe: an optional entry handler and a return
 *                    handler sharing data_size bytes of per-call data.
 *
 * Several kcore_probes may name the same address (a script's entry and
 * return probes on one function, or two probes on one symbol): each is
 * its own kernel kprobe and the kernel chains them (an aggregate kprobe),
 * so every handler runs on every hit. Handlers run newest first.
 *
 * A probe that cannot be placed (unknown symbol, blacklisted, not kernel
 * text, not an instruction boundary, module not loaded) is refused with a
 * warning naming its probe point, in SystemTap's words, and the others
 * keep running; as in SystemTap, probes marked optional and probes in
 * modules are refused quietly. With KCORE_ALL_OR_NOTHING any failure
 * undoes the batch.
 *
 * Calling context
 *   kcore_register(), kcore_unregister(), kcore_enable(), kcore_disable()
 *   and kcore_lookup_name() take mutexes and wait for RCU: process
 *   context only (module init/exit, a workqueue), never from a handler.
 *   Handlers run in kprobe context: preemption disabled, interrupts maybe
 *   disabled, possibly interrupting any kernel code. They must not sleep,
 *   allocate with GFP_KERNEL, take mutexes or call printk on a hot path.
 *   A handler never runs inside another handler on the same CPU: a probe
 *   hit while a handler runs is dropped and counted in nmissed.
 *
 * Every function here is GPL-only in the kernel: MODULE_LICENSE("GPL").
 */
#ifndef KCORE_H
#define KCORE_H

#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/types.h>

/* struct kcore_probe.kind */
#define KCORE_KPROBE		1
#define KCORE_KRETPROBE		2
#define KCORE_JPROBE		3

/* struct kcore_probe.flags */
#define KCORE_OPTIONAL		0x1	/* the script's "?": a probe that
					 * cannot be placed is skipped
					 * without a warning */
#define KCORE_DISABLED		0x2	/* registered disarmed: handlers do
					 * not run until kcore_enable() */
#define KCORE_WARN_ADDR		0x4	/* the refusal warning names the
					 * address the symbol resolved to,
					 * not symbol+offset (when it did
					 * resolve) */

/* kcore_register() flags */
#define KCORE_ALL_OR_NOTHING	0x1	/* any failure unregisters the
					 * probes this call registered */

/*
 * SystemTap's default maxactive for return probes (its KRETACTIVE):
 * concurrent calls of one function whose return can be caught. Override
 * with -DKRETACTIVE=N as with stap.
 */
#ifndef KRETACTIVE
#define KRETACTIVE		(max(15, 6 * (int)num_possible_cpus()))
#endif

struct kcore_probe;

/*
 * Entry handler: a kprobe's or jprobe's pre-handler, or a kretprobe's
 * entry handler. data is the kretprobe call's per-instance data
 * (data_size bytes, uninitialized), NULL for kprobes and jprobes. The
 * return value matters only for kretprobes: non-zero means "do not catch
 * this call's return" (the return handler will not run for it and the
 * instance is recycled). kprobe and jprobe handlers should return 0.
 */
typedef int (*kcore_entry_fn)(struct kcore_probe *p, struct pt_regs *regs,
			      void *data);

/*
 * Post-handler: runs after the probed instruction was executed (single
 * stepped or emulated), with the instruction pointer after it. flags is
 * always 0. A post-handler keeps the kernel from optimizing the probe
 * into a jump and makes registration slower, so only set it when the
 * script needs it. At an ftrace site (a function's entry on kernels with
 * KPROBES_ON_FTRACE) the core calls it right after this probe's entry
 * handler.
 */
typedef void (*kcore_post_fn)(struct kcore_probe *p, struct pt_regs *regs,
			      unsigned long flags);

/*
 * Return handler of a kretprobe: regs are the registers at the function's
 * return (kcore_return_value(regs) is its return value); data is what the
 * entry handler left in the per-instance data (data_size bytes; never
 * NULL, even when data_size is 0).
 */
typedef void (*kcore_return_fn)(struct kcore_probe *p, struct pt_regs *regs,
				void *data);

struct kcore_probe {
	/* Set by the caller. */
	const char *symbol;	/* "vfs_read"; NULL: addr is the address */
	const char *module;	/* NULL or "kernel": vmlinux; else a loaded
				 * module's name (symbol is looked up in
				 * it; ignored for addr) */
	unsigned long offset;	/* bytes after symbol (or addr) */
	unsigned long addr;	/* with symbol NULL: the address */
	unsigned int kind;	/* KCORE_KPROBE, KCORE_KRETPROBE,
				 * KCORE_JPROBE */
	unsigned int flags;	/* KCORE_OPTIONAL, KCORE_DISABLED */
	kcore_entry_fn entry;	/* kprobe (unless raw_pre), jprobe:
				 * required; kretprobe: optional */
	kcore_post_fn post;	/* kprobe only, optional */
	kcore_return_fn ret;	/* kretprobe: required unless raw_ret */
	size_t data_size;	/* kretprobe per-instance data, at most
				 * KRETPROBE_MAX_DATA_SIZE (4096) bytes */
	int maxactive;		/* kretprobe: calls in flight that can be
				 * caught; 0: KRETACTIVE */
	const char *name;	/* the script's probe point, for warnings:
				 * kprobe.function("vfs_read") */
	void *owner;		/* the caller's own data, untouched */
	/*
	 * Optional, for the hottest paths: the kernel's own handler types,
	 * which the kernel then calls directly instead of through the
	 * core's (one call and one indirect call less per hit). raw_pre
	 * replaces entry of a KCORE_KPROBE (not with post, nor for
	 * jprobes); raw_ret replaces ret of a KCORE_KRETPROBE (entry and
	 * data_size still apply). They get the struct kprobe or struct
	 * kretprobe_instance: kcore_of_kprobe() and kcore_of_instance()
	 * lead back to the kcore_probe. A raw pre-handler must return 0.
	 */
	kprobe_pre_handler_t raw_pre;
	kretprobe_handler_t raw_ret;

	/* Kept by the core: read-only for the caller. */
	int error;		/* the last registration's result: 0 or
				 * -errno (-ENOENT unknown symbol, -EINVAL
				 * blacklisted or not probeable, -EILSEQ
				 * not an instruction boundary, ...) */
	unsigned long nmissed;	/* hits dropped because another kprobe
				 * handler was running on that CPU; set by
				 * kcore_unregister(), live: kcore_missed() */
	unsigned long nmissed_ret; /* kretprobe: calls whose return was not
				 * caught because all maxactive instances
				 * were in use (the entry handler did not
				 * run either); set by kcore_unregister() */

	/* Private to the core. */
	bool registered;
	bool fresh;		/* registered by the running kcore_register() */
	bool post_emulated;	/* at an ftrace site: the core calls post */
	char *modsym;		/* "module:symbol" while registered */
	struct kretprobe krp;	/* krp.kp is the kprobe of every kind */
};

/*
 * Install the function that receives the core's warnings (refused
 * probes). msg is one line without "WARNING: " and without a newline,
 * SystemTap's: 'probe kprobe.function("notify_die") (notify_die+0)
 * registration error [man warning::pass5] (rc -22)', or for an address
 * (or a symbol with KCORE_WARN_ADDR, once resolved) 'probe NAME (address
 * 0xffffffff81234567) registration error [man warning::pass5] (rc -22)'.
 * Not for KCORE_OPTIONAL probes nor for symbols in a module (module set
 * and not "kernel"). It is called from kcore_register() in process
 * context, so it may sleep. NULL (the default) logs with pr_warn().
 */
void kcore_set_warn(void (*warn)(const char *msg));

/*
 * Register n probes (NULL entries are skipped). Probes already registered
 * are left alone; probes that cannot be placed get p->error set and a
 * warning (see kcore_set_warn()) and are skipped. Returns how many probes
 * this call registered, or -errno: with KCORE_ALL_OR_NOTHING the first
 * failure's error (KCORE_OPTIONAL probes do not count as failures) after
 * unregistering every probe this call had registered. Process context
 * only; may take a while (the kernel waits for RCU on some paths).
 */
int kcore_register(struct kcore_probe **probes, unsigned int n,
		   unsigned int flags);

/*
 * Unregister the registered ones of n probes (others are skipped), with
 * one RCU synchronization for all the kprobes and jprobes and one for all
 * the kretprobes. Afterwards no handler of theirs runs or is running, and
 * p->nmissed and p->nmissed_ret hold the final miss counts. Process
 * context only.
 */
void kcore_unregister(struct kcore_probe **probes, unsigned int n);

/*
 * Arm or disarm a registered probe (SystemTap's on-the-fly probes): a
 * disarmed probe stays in place but its handlers do not run. Returns 0
 * or -errno. Process context only.
 */
int kcore_enable(struct kcore_probe *p);
int kcore_disable(struct kcore_probe *p);

/*
 * The live miss counts of a probe (registered or not); either pointer
 * may be NULL. Safe in any context.
 */
void kcore_missed(const struct kcore_probe *p, unsigned long *nmissed,
		  unsigned long *nmissed_ret);

/*
 * The address the probe was placed at (symbol resolved, offset added; on
 * IBT kernels past the ENDBR), or 0 when it is not registered. Valid in
 * every handler, including hits while kcore_register() is still running.
 * Report this rather than regs->ip, which is one byte further on x86.
 */
static inline unsigned long kcore_probe_addr(const struct kcore_probe *p)
{
	return (unsigned long)READ_ONCE(p->krp.kp.addr);
}

/* In a raw_pre handler: the kcore_probe the kernel called it for. */
static inline struct kcore_probe *kcore_of_kprobe(struct kprobe *kp)
{
	return container_of(kp, struct kcore_probe, krp.kp);
}

/*
 * In a raw_ret handler: the kcore_probe of the call that returns, or NULL
 * when its kretprobe is going away (the handler should do nothing then).
 */
static inline struct kcore_probe *
kcore_of_instance(struct kretprobe_instance *ri)
{
#ifdef HAVE_GET_KRETPROBE
	struct kretprobe *rp = get_kretprobe(ri);
#else
	struct kretprobe *rp = ri->rp;
#endif

	return rp ? container_of(rp, struct kcore_probe, krp) : NULL;
}

/*
 * The address of a symbol in vmlinux or in a loaded module ("mod:sym"
 * looks in that module only), 0 if unknown. Works where
 * kallsyms_lookup_name() is not exported (5.7 and later). The first call
 * places a kprobe: process context only.
 */
unsigned long kcore_lookup_name(const char *name);

/*
 * The n-th (1-based) integer or pointer argument of the probed function,
 * valid in an entry handler at the function's entry (a jprobe, a kprobe
 * at offset 0, a kretprobe's entry handler). x86_64: di, si, dx, cx, r8,
 * r9, then the stack (the 7th at regs->sp + 8, the 8th at + 16, ...).
 * arm64: x0-x7, then the stack. Stack slots are read with
 * copy_from_kernel_nofault(): kcore_get_arg() returns -EFAULT when the
 * read faults (-EINVAL for n == 0), kcore_arg() returns 0 then.
 * Arguments wider than a register and structs passed by value are not
 * decoded. For a syscall's __x64_sys_* wrapper the real arguments are in
 * the struct pt_regs that argument 1 points to.
 */
int kcore_get_arg(struct pt_regs *regs, unsigned int n, unsigned long *val);

static inline unsigned long kcore_arg(struct pt_regs *regs, unsigned int n)
{
	unsigned long val;

	return kcore_get_arg(regs, n, &val) ? 0 : val;
}

/* A return handler's view of the function's return value. */
static inline unsigned long kcore_return_value(struct pt_regs *regs)
{
	return regs_return_value(regs);
}

/*
 * In a kretprobe's return handler: the address the probed function
 * returns to (in its caller), from the handler's data pointer. (In the
 * entry handler the return address is still where the ABI puts it: on
 * x86_64 at regs->sp, on arm64 in the link register.)
 */
unsigned long kcore_ret_addr(void *data);

#endif /* KCORE_H */
