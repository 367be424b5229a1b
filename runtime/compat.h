/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - the little the runtime's data structures need from their
 * environment: fixed-size integer types, errno values, string functions,
 * per-CPU storage, a lock and init-time memory. Kernel builds map these to
 * the kernel's API; user-space builds (the unit tests) to libc, with the
 * "current CPU" a variable the test sets.
 *
 * Nothing here may sleep except tp_zalloc()/tp_free() and the per-CPU
 * allocation, which are for load time (init) and unload only.
 */
#ifndef TAPIR_RUNTIME_COMPAT_H
#define TAPIR_RUNTIME_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#define tp_zalloc(size)			vzalloc(size)
#define tp_free(ptr)			vfree(ptr)

/* The bytes the script's maps and statistics hold (module_size()'s
 * "alloc"); changed only at start-up and exit. */
extern atomic_long_t tp_data_bytes;
#define tp_data_account(bytes)		atomic_long_add((bytes), &tp_data_bytes)

#define tp_percpu_zalloc(size)		__alloc_percpu((size), sizeof(u64))
#define tp_percpu_free(ptr)		free_percpu(ptr)
#define tp_per_cpu_ptr(ptr, cpu)	per_cpu_ptr((ptr), (cpu))
#define tp_this_cpu_ptr(ptr)		this_cpu_ptr(ptr)
#define tp_for_each_cpu(cpu)		for_each_possible_cpu(cpu)
#define tp_nr_cpus()			num_possible_cpus()
#define TP_PERCPU			__percpu

typedef raw_spinlock_t tp_lock_t;
#define tp_lock_init(l)			raw_spin_lock_init(l)
#define tp_lock_irqsave(l, f)		raw_spin_lock_irqsave((l), (f))
#define tp_unlock_irqrestore(l, f)	raw_spin_unlock_irqrestore((l), (f))
#define tp_spin_lock(l)			raw_spin_lock(l)
#define tp_spin_unlock(l)		raw_spin_unlock(l)

#else /* user space: unit tests */

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int8_t s8;
typedef uint8_t u8;
typedef int16_t s16;
typedef uint16_t u16;
typedef int32_t s32;
typedef uint32_t u32;
typedef int64_t s64;
typedef uint64_t u64;

#ifndef S64_MAX
#define S64_MAX INT64_MAX
#define S64_MIN INT64_MIN
#endif

#define tp_zalloc(size)			calloc(1, (size))
#define tp_free(ptr)			free(ptr)
#define tp_data_account(bytes)		((void)(bytes))

/* Per-CPU storage: TP_COMPAT_NR_CPUS copies side by side. */
#define TP_COMPAT_NR_CPUS 4
extern int tp_compat_cpu;		/* the "current CPU", set by tests */
struct tp_compat_percpu {
	size_t size;
	unsigned char data[];
};
static inline void *tp_percpu_zalloc(size_t size)
{
	struct tp_compat_percpu *p;

	size = (size + 7) & ~(size_t)7;
	p = calloc(1, sizeof(*p) + size * TP_COMPAT_NR_CPUS);
	if (!p)
		return NULL;
	p->size = size;
	return p->data;
}
static inline void tp_percpu_free(void *ptr)
{
	if (ptr)
		free((unsigned char *)ptr - offsetof(struct tp_compat_percpu, data));
}
static inline void *tp_compat_cpu_ptr(void *ptr, int cpu)
{
	struct tp_compat_percpu *p = (void *)((unsigned char *)ptr -
				      offsetof(struct tp_compat_percpu, data));

	return p->data + p->size * (size_t)cpu;
}
#define tp_per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))tp_compat_cpu_ptr((ptr), (cpu)))
#define tp_this_cpu_ptr(ptr)		tp_per_cpu_ptr((ptr), tp_compat_cpu)
#define tp_nr_cpus()			TP_COMPAT_NR_CPUS
#define tp_for_each_cpu(cpu) \
	for ((cpu) = 0; (cpu) < TP_COMPAT_NR_CPUS; (cpu)++)
#define TP_PERCPU

typedef int tp_lock_t;
#define tp_lock_init(l)			(*(l) = 0)
#define tp_lock_irqsave(l, f)		((void)(f), (*(l))++)
#define tp_unlock_irqrestore(l, f)	((void)(f), (*(l))--)
#define tp_spin_lock(l)			((*(l))++)
#define tp_spin_unlock(l)		((*(l))--)

/* Truncating signed division, as the kernel's div64_s64. */
static inline s64 div64_s64(s64 a, s64 b)
{
	return a / b;
}

#endif /* __KERNEL__ */

/* The script language's limits (overridable with -D). */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif

#endif /* TAPIR_RUNTIME_COMPAT_H */
