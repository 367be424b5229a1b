/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dwarf.h - for the generated code of DWARF probes (kernel.function,
 * module().function, kernel.statement, and process(...).function):
 * fault-tolerant reads and writes of kernel memory (and reads of the
 * probed task's user memory) for $target variables and @cast, and the per-instance
 * data of a return probe that reads values at the function's entry
 * (parameters in .return, @entry()).
 *
 * The translator (translator/emit/emit-dwarf.c) turns each access into
 * straight-line C over the probe's saved registers (c->regs) and these
 * helpers. A failed read raises SystemTap's catchable error
 * "read fault [man error::fault] at 0xADDR".
 */
#ifndef TAPIR_RUNTIME_DWARF_H
#define TAPIR_RUNTIME_DWARF_H

#include <linux/uaccess.h>
#include <linux/string.h>

/* Copy n bytes of kernel memory at addr; 0, or -EFAULT when it faults
 * (never oopses: a NULL or user address is refused). */
static inline int tp_dw_read(void *dst, unsigned long addr, size_t n)
{
	return copy_from_kernel_nofault(dst, (const void *)addr, n) ? -EFAULT : 0;
}

/* The same of the current task's user memory (user-space probes): 0,
 * or -EFAULT when the page is not there (never sleeps to fault it in). */
static inline int tp_dw_uread(void *dst, unsigned long addr, size_t n)
{
	return copy_from_user_nofault(dst, (const void __user *)addr, n) ?
	       -EFAULT : 0;
}

/* Load a 1, 2, 4 or 8 byte integer at addr, zero-extended into *v. */
static __always_inline int tp_dw_load_from(u64 *v, unsigned long addr,
					    unsigned int n, bool user)
{
	union { u8 b; u16 w; u32 d; u64 q; } u;

	if (user ? tp_dw_uread(&u, addr, n) : tp_dw_read(&u, addr, n))
		return -EFAULT;
	switch (n) {
	case 1: *v = u.b; break;
	case 2: *v = u.w; break;
	case 4: *v = u.d; break;
	default: *v = u.q; break;
	}
	return 0;
}

static inline int tp_dw_load(u64 *v, unsigned long addr, unsigned int n)
{
	return tp_dw_load_from(v, addr, n, false);
}

/* The same from the current task's user memory. */
static inline int tp_dw_uload(u64 *v, unsigned long addr, unsigned int n)
{
	return tp_dw_load_from(v, addr, n, true);
}

/* Store the low n bytes of v at addr (-g): 0, or -EFAULT. The kernel
 * exports no copy_to_kernel_nofault(): this is its core, the exception-
 * table store with page faults disabled, refusing user addresses. */
static inline int tp_dw_store(unsigned long addr, u64 v, unsigned int n)
{
	union { u8 b; u16 w; u32 d; u64 q; } u;

	if (addr < TASK_SIZE_MAX)
		return -EFAULT;
	pagefault_disable();
	switch (n) {
	case 1:
		u.b = (u8)v;
		__put_kernel_nofault((void *)addr, &u, u8, fault);
		break;
	case 2:
		u.w = (u16)v;
		__put_kernel_nofault((void *)addr, &u, u16, fault);
		break;
	case 4:
		u.d = (u32)v;
		__put_kernel_nofault((void *)addr, &u, u32, fault);
		break;
	default:
		u.q = v;
		__put_kernel_nofault((void *)addr, &u, u64, fault);
		break;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}

/* One value read at a return probe's function entry, kept in the
 * kretprobe's per-instance data (struct tp_probe.data_size). */
struct tp_dw_slot {
	s64 v;
	unsigned long fault;	/* the address that faulted */
	bool bad;		/* the read faulted: raise the error at return */
};

#endif /* TAPIR_RUNTIME_DWARF_H */
