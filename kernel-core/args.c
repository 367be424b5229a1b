// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * args.c - a probed function's arguments at its entry, as jprobes once
 * handed them to their handlers.
 *
 * At the first instruction of a function (which is where an entry kprobe
 * sits, whether it is an int3, an optimized jump or an ftrace call site)
 * the registers still hold the register arguments, and regs->sp points
 * at the return address with the stack arguments right above it.
 */
#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>

#include "kcore.h"

/* One stack slot, read without risking a fault. */
static int kcore_read_slot(unsigned long addr, unsigned long *val)
{
#if defined(HAVE_COPY_FROM_KERNEL_NOFAULT)
	return copy_from_kernel_nofault(val, (void *)addr, sizeof(*val)) ?
	       -EFAULT : 0;
#elif defined(HAVE_PROBE_KERNEL_READ)
	return probe_kernel_read(val, (void *)addr, sizeof(*val)) ?
	       -EFAULT : 0;
#else
	return -EOPNOTSUPP;
#endif
}
NOKPROBE_SYMBOL(kcore_read_slot);

int kcore_get_arg(struct pt_regs *regs, unsigned int n, unsigned long *val)
{
	if (!n)
		return -EINVAL;
#if defined(CONFIG_X86_64)
	/* SysV: rdi, rsi, rdx, rcx, r8, r9, then 8-byte stack slots */
	switch (n) {
	case 1:
		*val = regs->di;
		return 0;
	case 2:
		*val = regs->si;
		return 0;
	case 3:
		*val = regs->dx;
		return 0;
	case 4:
		*val = regs->cx;
		return 0;
	case 5:
		*val = regs->r8;
		return 0;
	case 6:
		*val = regs->r9;
		return 0;
	}
	return kcore_read_slot(regs->sp + 8 * (n - 6), val);
#elif defined(CONFIG_ARM64)
	/* AAPCS64: x0-x7, then 8-byte slots from sp (no return address) */
	if (n <= 8) {
		*val = regs->regs[n - 1];
		return 0;
	}
	return kcore_read_slot(regs->sp + 8 * (n - 9), val);
#elif defined(HAVE_REGS_GET_KERNEL_ARGUMENT)
	/* the architecture's own guess; stack slots are range checked */
	*val = regs_get_kernel_argument(regs, n - 1);
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}
NOKPROBE_SYMBOL(kcore_get_arg);
