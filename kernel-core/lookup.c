// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lookup.c - symbol addresses where kallsyms_lookup_name() is not
 * exported (5.7 and later).
 *
 * A kprobe registered disarmed on "kallsyms_lookup_name" tells where the
 * function is; the core then calls it through a pointer. On kernels with
 * indirect branch tracking the kprobe sits past the function's ENDBR,
 * so the pointer is moved back onto it; a function whose ENDBR was sealed
 * off cannot be called indirectly there, and then each name is looked up
 * with a disarmed kprobe of its own (text symbols only).
 */
#include <linux/errno.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#endif

#include "kcore.h"

#ifndef HAVE_KALLSYMS_LOOKUP_NAME

typedef unsigned long (*kcore_kallsyms_fn)(const char *name);

static kcore_kallsyms_fn kcore_kallsyms;
static bool kcore_kallsyms_tried;
static DEFINE_MUTEX(kcore_lookup_mutex);

#if defined(CONFIG_X86) && defined(X86_FEATURE_IBT)
#define KCORE_ENDBR64	0xfa1e0ff3U	/* f3 0f 1e fa */

/* Is the ENDBR that a kprobe at +0 was moved past right before addr? */
static bool kcore_endbr_before(unsigned long addr)
{
	u32 insn;

	if (copy_from_kernel_nofault(&insn, (void *)(addr - 4), sizeof(insn)))
		return false;
	return insn == KCORE_ENDBR64;
}
#endif

/*
 * The function's entry for a kprobe placed at symbol+0, and whether it
 * can be called through a pointer.
 */
static unsigned long kcore_func_entry(unsigned long addr, bool *callable)
{
	*callable = true;
#if defined(CONFIG_X86) && defined(X86_FEATURE_IBT)
	if (kcore_endbr_before(addr))
		return addr - 4;
	if (cpu_feature_enabled(X86_FEATURE_IBT))
		*callable = false;	/* sealed: an indirect call traps */
#endif
	return addr;
}

/* Where a disarmed kprobe on name+0 would sit; 0 if it cannot. */
static unsigned long kcore_kprobe_addr(const char *name)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

unsigned long kcore_lookup_name(const char *name)
{
	kcore_kallsyms_fn fn = READ_ONCE(kcore_kallsyms);
	unsigned long addr;
	bool callable;

	if (!fn && !READ_ONCE(kcore_kallsyms_tried)) {
		mutex_lock(&kcore_lookup_mutex);
		if (!kcore_kallsyms_tried) {
			addr = kcore_kprobe_addr("kallsyms_lookup_name");
			if (addr) {
				addr = kcore_func_entry(addr, &callable);
				if (callable)
					WRITE_ONCE(kcore_kallsyms,
						   (kcore_kallsyms_fn)addr);
			}
			WRITE_ONCE(kcore_kallsyms_tried, true);
		}
		mutex_unlock(&kcore_lookup_mutex);
		fn = READ_ONCE(kcore_kallsyms);
	}
	if (fn)
		return fn(name);

	addr = kcore_kprobe_addr(name);
	return addr ? kcore_func_entry(addr, &callable) : 0;
}

#else /* HAVE_KALLSYMS_LOOKUP_NAME */

unsigned long kcore_lookup_name(const char *name)
{
	return kallsyms_lookup_name(name);
}

#endif /* HAVE_KALLSYMS_LOOKUP_NAME */
