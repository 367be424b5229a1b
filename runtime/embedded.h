/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * embedded.h - what SystemTap's runtime offers the embedded C (%{ %}) of
 * scripts and tapsets besides CONTEXT, THIS, STAP_ARG_* and STAP_RETVALUE
 * (those are defined around each function by translator/emit/emit.c):
 *
 *   kread(ptr)                  the value *ptr, read without oopsing
 *   kwrite(ptr, v)              *ptr = v, the same way (guru mode; a
 *                               1, 2, 4 or 8 byte *ptr)
 *   kderef(size, addr)          the 1, 2, 4 or 8 byte integer at addr,
 *                               zero-extended
 *   store_kderef(size, addr, v) its store; deref()/store_deref() are the
 *                               older names of both
 *   kderef_buffer(dst, addr, n) n bytes at addr into dst, or only checks
 *                               that they can be read when dst is NULL
 *   CATCH_DEREF_FAULT()         where a fault of the above jumps to
 *
 * A fault raises the run-time error "read fault [man error::fault] at
 * 0xADDR" (a store: "write fault ...") on CONTEXT and jumps to the label
 * `deref_fault` that CATCH_DEREF_FAULT() places, usually just before the
 * function's cleanup, as in
 *
 *	if ((files = kread(&task->files)))
 *		STAP_RETVALUE = !!fcheck_files(files, STAP_ARG_fd);
 *	CATCH_DEREF_FAULT();
 *	rcu_read_unlock();
 *
 * so every function using them needs CONTEXT (an embedded function has it)
 * and one CATCH_DEREF_FAULT().
 *
 * Also here: the STAPCONF_* results of SystemTap's kernel feature tests
 * that the example scripts test and that hold on every kernel Tapir
 * builds for.  (Kernel functions that are gone, such as fcheck_files()
 * and kernel_getsockopt() of process/pfiles.stp, get no stand-ins: as in
 * SystemTap 4.8, such a script does not build on 6.1.)
 */
#ifndef TAPIR_RUNTIME_EMBEDDED_H
#define TAPIR_RUNTIME_EMBEDDED_H

#include <linux/version.h>
#include <linux/string.h>

/*
 * strlcpy() left the kernel in 6.8 (strscpy() replaces it); embedded C
 * written for older kernels, such as SystemTap's io/ttyspy.stp, still
 * calls it. A plain string helper, not a kernel interface, so kernels
 * without it get one with its contract: copy what fits, NUL-terminate
 * (size > 0), return strlen(src).
 */
#ifndef HAVE_STRLCPY
static inline size_t tp_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy tp_strlcpy
#endif
#include "dwarf.h"

#define DEREF_FAULT(addr) do {						\
		tp_error(CONTEXT, "read fault [man error::fault] at 0x%lx", \
			 (unsigned long)(addr));			\
		goto deref_fault;					\
	} while (0)

#define STORE_DEREF_FAULT(addr) do {					\
		tp_error(CONTEXT, "write fault [man error::fault] at 0x%lx", \
			 (unsigned long)(addr));			\
		goto deref_fault;					\
	} while (0)

#define CATCH_DEREF_FAULT()						\
	if (0) {							\
deref_fault: __attribute__((unused));					\
	}

#define kread(ptr) ({							\
		__unqual_scalar_typeof(*(ptr)) __tp_kr;			\
									\
		if (tp_dw_read(&__tp_kr, (unsigned long)(ptr),		\
			       sizeof(__tp_kr)))			\
			DEREF_FAULT(ptr);				\
		__tp_kr;						\
	})

#define kwrite(ptr, v) do {						\
		BUILD_BUG_ON(sizeof(*(ptr)) != 1 && sizeof(*(ptr)) != 2 && \
			     sizeof(*(ptr)) != 4 && sizeof(*(ptr)) != 8); \
		if (tp_dw_store((unsigned long)(ptr), (u64)(v),		\
				sizeof(*(ptr))))			\
			STORE_DEREF_FAULT(ptr);				\
	} while (0)

#define kderef(size, addr) ({						\
		u64 __tp_kd;						\
									\
		if (tp_dw_load(&__tp_kd, (unsigned long)(addr), (size))) \
			DEREF_FAULT(addr);				\
		__tp_kd;						\
	})

#define store_kderef(size, addr, v) do {				\
		if (tp_dw_store((unsigned long)(addr), (u64)(v), (size))) \
			STORE_DEREF_FAULT(addr);			\
	} while (0)

/* n bytes at addr into dst; with no dst, one byte of every page they
 * touch is read: 0, or -EFAULT */
static inline int tp_kderef_buffer(void *dst, unsigned long addr, size_t n)
{
	unsigned long end = addr + n, p;
	char byte;

	if (dst)
		return tp_dw_read(dst, addr, n);
	if (!n)
		return 0;
	if (end < addr)
		return -EFAULT;
	for (p = addr; p < end; p = (p & PAGE_MASK) + PAGE_SIZE)
		if (tp_dw_read(&byte, p, 1))
			return -EFAULT;
	return 0;
}

#define kderef_buffer(dst, addr, n) do {				\
		if (tp_kderef_buffer((dst), (unsigned long)(addr), (n))) \
			DEREF_FAULT(addr);				\
	} while (0)

#define deref(size, addr)		kderef((size), (addr))
#define store_deref(size, addr, v)	store_kderef((size), (addr), (v))

/* struct file's f_path (2.6.20) and <linux/uidgid.h> (3.5) */
#define STAPCONF_DPATH_PATH		1
#define STAPCONF_LINUX_UIDGID_H		1

#endif /* TAPIR_RUNTIME_EMBEDDED_H */
