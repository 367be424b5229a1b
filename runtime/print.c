// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * print.c - the print family into this CPU's print buffer (in the
 * running handler's context), and the string helpers.
 *
 * The buffer goes to the transport when the handler ends, when log()
 * asks, and whenever it is full: output is never dropped here (the
 * transport counts what it cannot take). One print bigger than the whole
 * buffer (TP_PRINT_BUFSIZE, -D to change) is cut there and counted; the
 * count is reported at exit.
 */
#include <linux/kernel.h>
#include <linux/stdarg.h>
#include <linux/string.h>

#include "core.h"
#include "transport.h"

void tp_print_flush(struct tp_context *c)
{
	struct tp_rt *rt = tp_rt(c);

	if (!rt->print_len)
		return;
	if (unlikely(tp_json_mode)) {
		tp_json_flush(c);
		return;
	}
	/* -ENOSPC: the transport counted the loss. */
	tp_transport_write(rt->print_buf, rt->print_len);
	rt->print_len = 0;
}

void tp_print_n(struct tp_context *c, const char *s, size_t n)
{
	struct tp_rt *rt = tp_rt(c);

	while (n) {
		size_t room = TP_PRINT_BUFSIZE - rt->print_len;
		size_t k = min(n, room);

		if (!room) {
			tp_print_flush(c);
			continue;
		}
		memcpy(rt->print_buf + rt->print_len, s, k);
		rt->print_len += k;
		s += k;
		n -= k;
	}
}

void tp_print(struct tp_context *c, const char *s)
{
	tp_print_n(c, s, strlen(s));
}

void tp_print_long(struct tp_context *c, s64 v)
{
	char tmp[24];
	int n = scnprintf(tmp, sizeof(tmp), "%lld", (long long)v);

	tp_print_n(c, tmp, n);
}

/*
 * A formatter wrote @n bytes (its full length) at the buffer's end, or
 * would have: take them if they fit; else flush and let @again redo it
 * at the start of the empty buffer, and cut what still does not fit.
 */
static void tp_print_commit(struct tp_context *c, long n,
			    long (*again)(struct tp_context *c, void *arg),
			    void *arg)
{
	struct tp_rt *rt = tp_rt(c);

	if (n <= (long)(TP_PRINT_BUFSIZE - rt->print_len)) {
		rt->print_len += n;
		return;
	}
	tp_print_flush(c);
	n = again(c, arg);
	if (n < 0)
		return;
	if (n > TP_PRINT_BUFSIZE) {
		atomic_inc(&tp_count.print_cut);
		n = TP_PRINT_BUFSIZE;
	}
	rt->print_len = n;
}

/* %m/%M reads: remember the failing address for the error message. */
static int tp_print_memread(void *dst, u64 addr, size_t n)
{
	int r = tp_format_read_kernel(dst, addr, n);

	if (r) {
		struct tp_context *c = tp_current();

		if (c && !tp_rt(c)->fault) {
			tp_rt(c)->fault = true;
			tp_rt(c)->fault_addr = addr;
		}
	}
	return r;
}

/* A tp_format() failure as the runtime error it is. */
static void tp_format_error(struct tp_context *c, long err)
{
	if (err == -EFAULT && tp_rt(c)->fault)
		tp_error(c, "read fault [man error::fault] at 0x%lx",
			 (unsigned long)tp_rt(c)->fault_addr);
	else if (err == -EFAULT)
		tp_error(c, "read fault [man error::fault]");
	else
		tp_error(c, "invalid print format or arguments");
}

struct tp_printf_args {
	const char *fmt;
	const struct tp_arg *args;
	int nargs;
};

static long tp_printf_again(struct tp_context *c, void *arg)
{
	struct tp_printf_args *a = arg;
	struct tp_rt *rt = tp_rt(c);

	return tp_format(rt->print_buf, TP_PRINT_BUFSIZE, a->fmt, a->args,
			 a->nargs, tp_print_memread);
}

void tp_printf(struct tp_context *c, const char *fmt,
	       const struct tp_arg *args, int nargs)
{
	struct tp_printf_args a = { fmt, args, nargs };
	struct tp_rt *rt = tp_rt(c);
	long n;

	n = tp_format(rt->print_buf + rt->print_len,
		      TP_PRINT_BUFSIZE - rt->print_len, fmt, args, nargs,
		      tp_print_memread);
	if (n < 0) {
		tp_format_error(c, n);
		return;
	}
	tp_print_commit(c, n, tp_printf_again, &a);
}

void tp_kprintf(struct tp_context *c, const char *fmt, ...)
{
	struct tp_rt *rt = tp_rt(c);
	size_t room = TP_PRINT_BUFSIZE - rt->print_len;
	va_list ap;
	long n;

	/* vsnprintf() always NUL-terminates: it gets room for that byte
	 * and we keep only the text. */
	va_start(ap, fmt);
	n = vsnprintf(rt->print_buf + rt->print_len, room, fmt, ap);
	va_end(ap);
	if (n < (long)room) {
		rt->print_len += n;
		return;
	}
	tp_print_flush(c);
	va_start(ap, fmt);
	n = vsnprintf(rt->print_buf, TP_PRINT_BUFSIZE, fmt, ap);
	va_end(ap);
	if (n >= TP_PRINT_BUFSIZE) {
		atomic_inc(&tp_count.print_cut);
		n = TP_PRINT_BUFSIZE - 1;
	}
	rt->print_len = n;
}

struct tp_hist_args {
	const struct tp_stat_desc *d;
	const struct tp_stat_cell *cell;
};

static long tp_hist_again(struct tp_context *c, void *arg)
{
	struct tp_hist_args *a = arg;

	return tp_hist_print(a->d, a->cell, tp_rt(c)->print_buf, TP_PRINT_BUFSIZE);
}

void tp_print_hist(struct tp_context *c, const struct tp_stat_desc *d,
		   const struct tp_stat_cell *cell)
{
	struct tp_hist_args a = { d, cell };
	struct tp_rt *rt = tp_rt(c);
	long n;

	if (unlikely(tp_json_mode) && cell->count) {
		tp_json_hist(c, d, cell);
		return;
	}
	n = tp_hist_print(d, cell, rt->print_buf + rt->print_len,
			  TP_PRINT_BUFSIZE - rt->print_len);
	if (n == -ENODATA) {
		/* stap 4.8: printing an empty aggregate's histogram is an
		 * error (testsuite/run/hist-log-empty) */
		tp_error(c, "empty aggregate");
		return;
	}
	if (n < 0) {
		tp_error(c, "invalid histogram");
		return;
	}
	tp_print_commit(c, n, tp_hist_again, &a);
}

/* sprint(@hist_*(s)): the chart, cut at MAXSTRINGLEN - 1 bytes as stap's;
 * the caller has checked that it is not empty */
void tp_sprint_hist(char *dst, const struct tp_stat_desc *d,
		    const struct tp_stat_cell *cell)
{
	long n = tp_hist_print(d, cell, dst, MAXSTRINGLEN - 1);

	dst[n < 0 ? 0 : min_t(long, n, MAXSTRINGLEN - 1)] = '\0';
}

/* ---- strings ---- */

void tp_str_copy(char *dst, const char *src)
{
	size_t n = strnlen(src, MAXSTRINGLEN - 1);

	memmove(dst, src, n);
	dst[n] = '\0';
}

void tp_str_cat(char *dst, const char *src)
{
	size_t dl = strnlen(dst, MAXSTRINGLEN - 1);
	size_t n = strnlen(src, MAXSTRINGLEN - 1 - dl);

	memmove(dst + dl, src, n);
	dst[dl + n] = '\0';
}

void tp_str_long(char *dst, s64 v)
{
	snprintf(dst, MAXSTRINGLEN, "%lld", (long long)v);
}

void tp_sprintf_str(struct tp_context *c, char *dst, const char *fmt,
		    const struct tp_arg *args, int nargs)
{
	/* Through a scratch string: dst may be one of the arguments. */
	char *tmp = tp_rt(c)->str;
	long n;

	n = tp_sprintf(tmp, MAXSTRINGLEN, fmt, args, nargs, tp_print_memread);
	if (n < 0) {
		dst[0] = '\0';
		tp_format_error(c, n);
		return;
	}
	memcpy(dst, tmp, n + 1);
}

/* ---- log() ---- */

void tapir_log(const char *msg)
{
	struct tp_context *c = tp_current();
	size_t n = strlen(msg);

	if (!c)
		return;
	tp_print_n(c, msg, n);
	if (!n || msg[n - 1] != '\n')
		tp_print_n(c, "\n", 1);
	tp_print_flush(c);
}
