/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * format.h - the print family's formatting engine.
 *
 * A format is `%[flag][width][.prec][l]conv` as SystemTap parses it: at
 * most ONE flag out of `- + space # 0` (a `0` after another flag is the
 * first digit of the width, so "%+05d" pads with spaces), width and
 * precision digits or `*`, an ignored `l`, and one of `d i u o x X p s c
 * b m M %`. Values are 64-bit. Results follow stap 4.8's runtime (checked
 * in a guest, testsuite/unit/oracle/fmt.*): `#` gives "0x0" and "00" for
 * zero, `0` pads even with a precision, `%.0d` of 0 prints "0", `%p` is
 * "0x" and the hex digits without leading zeros, `%b` writes the value's
 * raw bytes (little endian; width or precision 1, 2, 4 or 8 chooses the
 * size, else 8), `%m` copies `precision` bytes (default 1) from the address
 * and `%M` writes them as lowercase hex.
 */
#ifndef TAPIR_RUNTIME_FORMAT_H
#define TAPIR_RUNTIME_FORMAT_H

#include "compat.h"

enum tp_arg_type {
	TP_ARG_LONG,
	TP_ARG_STRING,
};

/* One argument of a print-family call. */
struct tp_arg {
	enum tp_arg_type type;
	union {
		s64 l;
		const char *s;
	};
};

/*
 * Reads @n bytes at kernel address @addr for %m/%M into @dst; returns 0
 * or -EFAULT. In the kernel, tp_format_read_kernel() (a nofault copy).
 */
typedef int (*tp_memread_fn)(void *dst, u64 addr, size_t n);

#ifdef __KERNEL__
int tp_format_read_kernel(void *dst, u64 addr, size_t n);
#endif

/*
 * tp_format - format @fmt with @args into @buf (@size bytes; no NUL is
 * added and nothing is written past @size).
 * Returns the full length the output would have had (> @size means it
 * was cut), or -EINVAL (a bad format, a missing argument or one of the
 * wrong type), or the error of @memread (NULL: %m/%M give -EFAULT).
 */
long tp_format(char *buf, size_t size, const char *fmt,
	       const struct tp_arg *args, int nargs, tp_memread_fn memread);

/*
 * tp_sprintf - the same into a string: cut at @size - 1 bytes (as stap
 * cuts at MAXSTRINGLEN - 1) and NUL-terminated. Returns the string's
 * length or the negative error of tp_format().
 */
long tp_sprintf(char *buf, size_t size, const char *fmt,
		const struct tp_arg *args, int nargs, tp_memread_fn memread);

/*
 * tp_format_check - does @fmt parse as stap parses it? Returns the number
 * of arguments it takes (`*` counts) or -EINVAL; @types (may be NULL,
 * @max entries) receives the type each argument must have.
 */
int tp_format_check(const char *fmt, enum tp_arg_type *types, int max);

#endif /* TAPIR_RUNTIME_FORMAT_H */
