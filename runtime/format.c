// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * format.c - the print family's formatting engine (format.h).
 * Same source for the module and the user-space unit tests (compat.h).
 */
#include "format.h"
#include "out.h"

#ifdef __KERNEL__
#include <linux/uaccess.h>
#endif

enum {
	F_LEFT = 1,	/* - */
	F_PLUS = 2,	/* + */
	F_SPACE = 4,	/* space */
	F_SPECIAL = 8,	/* # */
	F_ZERO = 16,	/* 0 */
};

/* One parsed conversion. width/prec -1: absent; -2: taken from `*`. */
struct spec {
	int flags;
	int width;
	int prec;
	char conv;
};


static int flag_of(char c)
{
	switch (c) {
	case '-': return F_LEFT;
	case '+': return F_PLUS;
	case ' ': return F_SPACE;
	case '#': return F_SPECIAL;
	case '0': return F_ZERO;
	}
	return 0;
}

/* Digits or `*` (-2); -1 when neither. Values past 65535 are refused. */
static int parse_num(const char **p)
{
	int n = 0;

	if (**p == '*') {
		(*p)++;
		return -2;
	}
	if (**p < '0' || **p > '9')
		return -1;
	while (**p >= '0' && **p <= '9') {
		n = n * 10 + (**p - '0');
		if (n > 65535)
			return -3;
		(*p)++;
	}
	return n;
}

/* Parse the conversion after a '%'; *p moves past it. */
static int parse_spec(const char **p, struct spec *s)
{
	const char *q = *p;

	s->flags = flag_of(*q);
	if (s->flags)
		q++;
	s->width = parse_num(&q);
	s->prec = -1;
	if (*q == '.') {
		q++;
		s->prec = parse_num(&q);
		if (s->prec == -1)
			s->prec = 0;
	}
	if (s->width == -3 || s->prec == -3)
		return -EINVAL;
	if (*q == 'l')
		q++;
	switch (*q) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
	case 'p': case 's': case 'c': case 'b': case 'm': case 'M':
		break;
	case '%':
		if (s->flags || s->width != -1 || s->prec != -1 || q[-1] == 'l')
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	s->conv = *q;
	*p = q + 1;
	return 0;
}

/* The argument type a conversion takes. */
static enum tp_arg_type conv_type(char conv)
{
	return conv == 's' ? TP_ARG_STRING : TP_ARG_LONG;
}

int tp_format_check(const char *fmt, enum tp_arg_type *types, int max)
{
	struct spec s;
	int n = 0;

	while (*fmt) {
		if (*fmt++ != '%')
			continue;
		if (parse_spec(&fmt, &s))
			return -EINVAL;
		if (s.conv == '%')
			continue;
		if (s.width == -2 && n < max && types)
			types[n] = TP_ARG_LONG;
		n += s.width == -2;
		if (s.prec == -2 && n < max && types)
			types[n] = TP_ARG_LONG;
		n += s.prec == -2;
		if (n < max && types)
			types[n] = conv_type(s.conv);
		n++;
	}
	return n;
}

/* Width padding before a field of @len bytes (right-aligned). */
static void pad_before(struct out *o, const struct spec *s, long len)
{
	if (!(s->flags & F_LEFT))
		put_n(o, ' ', s->width - len);
}

static void pad_after(struct out *o, const struct spec *s, long len)
{
	if (s->flags & F_LEFT)
		put_n(o, ' ', s->width - len);
}

/* d i u o x X p: the kernel-style number with sign, prefix, precision. */
static void fmt_number(struct out *o, const struct spec *s, s64 val)
{
	static const char lower[] = "0123456789abcdef";
	static const char upper[] = "0123456789ABCDEF";
	const char *digits = s->conv == 'X' ? upper : lower;
	unsigned int base = 10;
	char tmp[24], sign = 0;
	const char *prefix = "";
	long n = 0, len, prec = s->prec < 0 ? 1 : s->prec;
	u64 u = (u64)val;

	if (s->conv == 'o')
		base = 8;
	else if (s->conv == 'x' || s->conv == 'X' || s->conv == 'p')
		base = 16;
	if (s->conv == 'd' || s->conv == 'i') {
		if (val < 0) {
			sign = '-';
			u = -(u64)val;
		} else if (s->flags & F_PLUS) {
			sign = '+';
		} else if (s->flags & F_SPACE) {
			sign = ' ';
		}
	}
	if (s->conv == 'p' || (s->flags & F_SPECIAL))
		prefix = base == 8 ? "0" : base == 16 ?
			 (s->conv == 'X' ? "0X" : "0x") : "";
	do {
		tmp[n++] = digits[u % base];
		u /= base;
	} while (u);
	if (prec < n)
		prec = n;
	len = (sign != 0) + (long)strlen(prefix) + prec;
	if (!(s->flags & (F_LEFT | F_ZERO)))
		put_n(o, ' ', s->width - len);
	if (sign)
		put(o, sign);
	while (*prefix)
		put(o, *prefix++);
	if (s->flags & F_ZERO)
		put_n(o, '0', s->width - len);
	put_n(o, '0', prec - n);
	while (n)
		put(o, tmp[--n]);
	pad_after(o, s, len);
}

static void fmt_string(struct out *o, const struct spec *s, const char *str)
{
	long len = (long)strlen(str);

	if (s->prec >= 0 && s->prec < len)
		len = s->prec;
	pad_before(o, s, len);
	for (long i = 0; i < len; i++)
		put(o, str[i]);
	pad_after(o, s, len);
}

static void fmt_char(struct out *o, const struct spec *s, s64 val)
{
	pad_before(o, s, 1);
	put(o, (char)(u8)val);
	pad_after(o, s, 1);
}

static bool is_binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8;
}

/* %b: the value's bytes, least significant first. */
static void fmt_binary(struct out *o, const struct spec *s, s64 val)
{
	u64 u = (u64)val;
	int n = 8;

	if (is_binary_size(s->width))
		n = s->width;
	else if (is_binary_size(s->prec))
		n = s->prec;
	if (s->width > 8)
		put_n(o, (s->flags & F_ZERO) ? '\0' : ' ', s->width - 8);
	while (n--) {
		put(o, (char)(u & 0xff));
		u >>= 8;
	}
}

/* %m and %M: @prec bytes (default 1) read from address @val. */
static int fmt_memory(struct out *o, const struct spec *s, s64 val,
		      tp_memread_fn memread)
{
	static const char hex[] = "0123456789abcdef";
	long n = s->prec < 0 ? 1 : s->prec;
	long len = s->conv == 'M' ? 2 * n : n;
	unsigned char chunk[64];
	u64 addr = (u64)val;
	int err;

	if (!memread)
		return -EFAULT;
	pad_before(o, s, len);
	while (n > 0) {
		size_t k = n < (long)sizeof(chunk) ? (size_t)n : sizeof(chunk);

		err = memread(chunk, addr, k);
		if (err)
			return err;
		for (size_t i = 0; i < k; i++) {
			if (s->conv == 'm') {
				put(o, (char)chunk[i]);
				continue;
			}
			put(o, hex[chunk[i] >> 4]);
			put(o, hex[chunk[i] & 15]);
		}
		addr += k;
		n -= (long)k;
	}
	pad_after(o, s, len);
	return 0;
}

/* Take the next argument, which must have type @t. */
static const struct tp_arg *take_arg(const struct tp_arg *args, int nargs,
				     int *i, enum tp_arg_type t)
{
	if (*i >= nargs || args[*i].type != t)
		return NULL;
	return &args[(*i)++];
}

/* Resolve a `*` width or precision from the arguments. */
static int star(int *v, const struct tp_arg *args, int nargs, int *i)
{
	const struct tp_arg *a;

	if (*v != -2)
		return 0;
	a = take_arg(args, nargs, i, TP_ARG_LONG);
	if (!a)
		return -EINVAL;
	*v = a->l < 0 ? -1 : a->l > 65535 ? 65535 : (int)a->l;
	return 0;
}

static int fmt_one(struct out *o, struct spec *s, const struct tp_arg *args,
		   int nargs, int *i, tp_memread_fn memread)
{
	const struct tp_arg *a;

	if (s->conv == '%') {
		put(o, '%');
		return 0;
	}
	if (star(&s->width, args, nargs, i) || star(&s->prec, args, nargs, i))
		return -EINVAL;
	a = take_arg(args, nargs, i, conv_type(s->conv));
	if (!a)
		return -EINVAL;
	switch (s->conv) {
	case 's':
		fmt_string(o, s, a->s ? a->s : "");
		return 0;
	case 'c':
		fmt_char(o, s, a->l);
		return 0;
	case 'b':
		fmt_binary(o, s, a->l);
		return 0;
	case 'm':
	case 'M':
		return fmt_memory(o, s, a->l, memread);
	}
	fmt_number(o, s, a->l);
	return 0;
}

long tp_format(char *buf, size_t size, const char *fmt,
	       const struct tp_arg *args, int nargs, tp_memread_fn memread)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	struct spec s;
	int i = 0, err;

	while (*fmt) {
		if (*fmt != '%') {
			put(&o, *fmt++);
			continue;
		}
		fmt++;
		if (parse_spec(&fmt, &s))
			return -EINVAL;
		err = fmt_one(&o, &s, args, nargs, &i, memread);
		if (err)
			return err;
	}
	return (long)o.len;
}

long tp_sprintf(char *buf, size_t size, const char *fmt,
		const struct tp_arg *args, int nargs, tp_memread_fn memread)
{
	long n;

	if (!size)
		return -EINVAL;
	n = tp_format(buf, size - 1, fmt, args, nargs, memread);
	if (n < 0) {
		buf[0] = '\0';
		return n;
	}
	if ((size_t)n > size - 1)
		n = (long)(size - 1);
	buf[n] = '\0';
	return n;
}

#ifdef __KERNEL__
int tp_format_read_kernel(void *dst, u64 addr, size_t n)
{
	return copy_from_kernel_nofault(dst, (const void *)(uintptr_t)addr, n)
	       ? -EFAULT : 0;
}
#endif
