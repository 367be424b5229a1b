// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit.c - unit tests of runtime/format, runtime/stat, runtime/map and
 * runtime/regex (with the translator's regex compiler, translator/emit/regex.c)
 * in user space. Prints "PASS name" or "FAIL name: why" per test; run by the
 * `unit` tier of testsuite/run-tests. Expected texts come from stap 4.8
 * run in the guest (oracle/: the scripts and their captured output).
 * usage: unit ORACLE-DIR
 */
#include <stdarg.h>
#include <stdio.h>

#include "format.h"
#include "map.h"
#include "regex.h"
#include "emit/regex-compile.h"
#include "stat.h"

int tp_compat_cpu;
static const char *oracle_dir;
static int failures;

static void pass(const char *name)
{
	printf("PASS %s\n", name);
}

static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failures++;
}

static void check(const char *name, bool ok, const char *why)
{
	if (ok)
		pass(name);
	else
		fail(name, "%s", why);
}

/* The section "== NAME" of an oracle output file, up to the next one. */
static char *oracle_section(const char *file, const char *name, size_t *len)
{
	static char text[1 << 20];
	char path[512], head[128], *p, *end;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", oracle_dir, file);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	snprintf(head, sizeof(head), "== %s\n", name);
	p = strstr(text, head);
	if (!p)
		return NULL;
	p += strlen(head);
	end = strstr(p, "\n== ");
	*len = end ? (size_t)(end - p) + 1 : strlen(p);
	return p;
}

/* ---- format ---- */

static const char memory[] = "Hello, world!\x01\x7f\xff";
#define MEMADDR 0xffffffffa0001000ull

static int memread(void *dst, u64 addr, size_t n)
{
	if (addr < MEMADDR || addr - MEMADDR + n > sizeof(memory))
		return -EFAULT;
	memcpy(dst, memory + (addr - MEMADDR), n);
	return 0;
}

#define L(v) { .type = TP_ARG_LONG, .l = (s64)(v) }
#define S(v) { .type = TP_ARG_STRING, .s = (v) }
#define A MEMADDR

struct fcase {
	const char *fmt;
	struct tp_arg args[12];
	int nargs;
};

/* testsuite/unit/oracle/fmt.stp, line by line. */
static const struct fcase fmt_cases[] = {
	{ "1[%d][%5d][%-5d|][%05d][%+d][% d][%i]\n", { L(42), L(42), L(42), L(-42), L(42), L(42), L(-7) }, 7 },
	{ "2[%x][%X][%#x][%#X][%o][%#o][%u]\n", { L(255), L(255), L(255), L(255), L(8), L(8), L(-1) }, 7 },
	{ "3[%x][%o][%d][%u]\n", { L(-1), L(-1), L(INT64_MIN), L(INT64_MAX) }, 4 },
	{ "4[%#x][%#o][%#X][%+u][% u]\n", { L(0), L(0), L(0), L(5), L(5) }, 5 },
	{ "5[%.5d][%8.4x][%-8.3d|][%08.3d][%.0d][%5.0d][%+.3d]\n", { L(42), L(255), L(7), L(7), L(0), L(0), L(3) }, 7 },
	{ "6[%p][%p][%20p][%-20p|][%#p][%5p]\n", { L(0x1234), L(0), L(0xffffffff81000000ull), L(1), L(0x10), L(0xabc) }, 6 },
	{ "7[%s][%10s][%-10s|][%.3s][%*s][%.*s][%-*.*s|]\n", { S("hello"), S("hi"), S("hi"), S("abcdef"), L(6), S("ab"), L(2), S("xyz"), L(5), L(2), S("pqr") }, 11 },
	{ "8[%c][%3c][%-3c|][%%]\n", { L(65), L(66), L(67) }, 3 },
	{ "9[%ld][%lx][%lu][%lc][%ls][%lp]\n", { L(-3), L(255), L(3), L(66), S("s"), L(17) }, 6 },
	{ "10[%*d][%-*d|][%0*d][%.*d]\n", { L(6), L(1), L(6), L(2), L(6), L(-3), L(4), L(5) }, 8 },
	{ "11[%+x][% x][%+o][%#5x][%#05x][%-8x|][%#.4x]\n", { L(10), L(10), L(10), L(10), L(10), L(10), L(10) }, 7 },
	{ "12[%#o][%#5o][%#.3o][%#08o]\n", { L(1), L(1), L(1), L(1) }, 4 },
	{ "13[%+5d][%-5d|][% 05d][%+05d][%-05d|]\n", { L(3), L(3), L(3), L(-3), L(3) }, 5 },
	{ "14[%X][%#X][%lX]\n", { L(3735928559), L(-1), L(48879) }, 3 },
	{ "15[%s][%5s][%-5s|][%.0s][%3.1s]\n", { S(""), S(""), S(""), S("abc"), S("abc") }, 5 },
	{ "16[%c][%c]\n", { L(256 + 65), L(97) }, 2 },
	{ "17[%.3m][%5m][%.5M][%-8.2m|][%M]\n", { L(A), L(A), L(A), L(A), L(A) }, 5 },
	{ "18[%.2M][%10.2M][%-10.2M|][%.14M]\n", { L(A), L(A), L(A), L(A) }, 4 },
	{ "19[%20.3m][%.16M]\n", { L(A), L(A) }, 2 },
	{ "20[%5.2d][%-05d|][%x][%X]\n", { L(-3), L(4), L(4294967296), L(-81985529216486896) }, 4 },
	{ "21[%.2s][%.10s][%+d]\n", { S("abc"), S("abc"), L(0) }, 3 },
	{ "22[%d%%][%%%d]\n", { L(50), L(7) }, 2 },
	{ "25[%p][%#x][%#o]\n", { L(-1), L(-1), L(-1) }, 3 },
	{ "26[%020d][%-020d|][%+020d][% 020d]\n", { L(-1), L(-1), L(1), L(1) }, 4 },
	{ "27[%.20d][%.20x][%#.20x][%#20x]\n", { L(-1), L(255), L(255), L(255) }, 4 },
};

/* The oracle line that starts with the case's number and '['. */
static bool oracle_line(const char *fmt, char *line, size_t size)
{
	char path[512], prefix[16];
	size_t n = strcspn(fmt, "[") + 1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fmt.out", oracle_dir);
	snprintf(prefix, sizeof(prefix), "%.*s", (int)n, fmt);
	f = fopen(path, "rb");
	if (!f)
		return false;
	while (fgets(line, (int)size, f))
		if (!strncmp(line, prefix, n)) {
			fclose(f);
			return true;
		}
	fclose(f);
	return false;
}

static void test_format_oracle(void)
{
	char name[64], want[4096], got[4096];
	size_t i;
	long n;

	for (i = 0; i < sizeof(fmt_cases) / sizeof(fmt_cases[0]); i++) {
		const struct fcase *c = &fmt_cases[i];

		snprintf(name, sizeof(name), "format/oracle-%.*s",
			 (int)strcspn(c->fmt, "["), c->fmt);
		if (!oracle_line(c->fmt, want, sizeof(want))) {
			fail(name, "no oracle line");
			continue;
		}
		n = tp_format(got, sizeof(got) - 1, c->fmt, c->args, c->nargs,
			      memread);
		if (n < 0) {
			fail(name, "error %ld", n);
			continue;
		}
		got[n] = '\0';
		if (strcmp(got, want))
			fail(name, "got '%s' want '%s'", got, want);
		else
			pass(name);
	}
}

static void test_format_truncation(void)
{
	struct tp_arg a[] = { S("x") }, b[] = { L(5) };
	char buf[MAXSTRINGLEN], small[8];
	long n;

	/* oracle 23 and 24: sprintf results are cut at MAXSTRINGLEN - 1 */
	n = tp_sprintf(buf, sizeof(buf), "%1000s|", a, 1, NULL);
	check("format/sprintf-cut-width", n == 511 && strlen(buf) == 511 &&
	      buf[510] == ' ', "not cut at 511");
	n = tp_sprintf(buf, sizeof(buf), "[%-1000d]", b, 1, NULL);
	check("format/sprintf-cut-left", n == 511 && buf[1] == '5', "not cut at 511");
	memset(small, 'Z', sizeof(small));
	n = tp_format(small, 4, "abcdefgh", NULL, 0, NULL);
	check("format/buffer-size", n == 8 && !memcmp(small, "abcdZZZZ", 8),
	      "wrote past the size or wrong length");
}

static void test_format_errors(void)
{
	struct tp_arg s[] = { S("x") }, l[] = { L(1) };
	enum tp_arg_type t[4];
	char buf[64];

	check("format/err-missing-arg", tp_format(buf, 64, "%d %d", l, 1, NULL) == -EINVAL, "accepted");
	check("format/err-wrong-type", tp_format(buf, 64, "%d", s, 1, NULL) == -EINVAL, "accepted");
	check("format/err-bad-conv", tp_format(buf, 64, "%q", l, 1, NULL) == -EINVAL, "accepted");
	check("format/err-mem-fault", tp_format(buf, 64, "%.4m", l, 1, memread) == -EFAULT, "no -EFAULT");
	/* stap's parser takes one flag only and no %5% or %lld */
	check("format/check-two-flags", tp_format_check("%-+d", NULL, 0) == -EINVAL &&
	      tp_format_check("%0#8o", NULL, 0) == -EINVAL &&
	      tp_format_check("%5%", NULL, 0) == -EINVAL &&
	      tp_format_check("%lld", NULL, 0) == -EINVAL, "accepted");
	check("format/check-types", tp_format_check("%-*.*s %d%%", t, 4) == 4 &&
	      t[0] == TP_ARG_LONG && t[1] == TP_ARG_LONG &&
	      t[2] == TP_ARG_STRING && t[3] == TP_ARG_LONG, "wrong types");
}

/* oracle/bin.stp: printf %b writes raw bytes (bin.od is od -tx1 of it). */
static void test_format_binary(void)
{
	static const struct fcase cases[] = {
		{ "%b", { L(0x0102030405060708) }, 1 },
		{ "%1b%2b%4b%8b", { L(0x41), L(0x4243), L(0x44454647), L(0x48494a4b4c4d4e4f) }, 4 },
		{ "[%3b][%.2b][%-4b|][%04b][%b]", { L(0x41), L(0x4243), L(0x44), L(0x45), L(-1) }, 5 },
		{ "[%5b][%016b][%c]", { L(0x41), L(0x42), L(0) }, 3 },
	};
	unsigned char want[512], got[512];
	size_t nwant = 0, i;
	unsigned int byte;
	char path[512];
	long n = 0, k;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bin.od", oracle_dir);
	f = fopen(path, "r");
	if (!f) {
		fail("format/binary", "no oracle");
		return;
	}
	while (nwant < sizeof(want) && fscanf(f, "%x", &byte) == 1)
		want[nwant++] = (unsigned char)byte;
	fclose(f);
	for (i = 0; i < 4; i++) {
		k = tp_format((char *)got + n, sizeof(got) - (size_t)n,
			      cases[i].fmt, cases[i].args, cases[i].nargs, NULL);
		if (k < 0) {
			fail("format/binary", "error %ld", k);
			return;
		}
		n += k;
	}
	check("format/binary", (size_t)n == nwant && !memcmp(got, want, nwant),
	      "bytes differ from the oracle");
}

/* ---- statistics and histograms ---- */

struct hcase {
	const char *file, *name;
	enum tp_hist_type type;
	s64 lo, hi, width;
	void (*fill)(const struct tp_stat_desc *d, struct tp_stat_cell *c);
};

static void add(const struct tp_stat_desc *d, struct tp_stat_cell *c, s64 v,
		int times)
{
	while (times-- > 0)
		tp_stat_cell_add(d, c, v);
}

#define FILL(name, body) \
	static void fill_##name(const struct tp_stat_desc *d, struct tp_stat_cell *c) \
	{ body }

FILL(h1, add(d, c, 5, 1);)
FILL(h2, for (int i = 0; i <= 1000; i++) add(d, c, i, 1);)
FILL(h3, add(d, c, -1, 1); add(d, c, -5, 1); add(d, c, -100, 1); add(d, c, 3, 1); add(d, c, 1000000, 1);)
FILL(h4, add(d, c, 1, 1); add(d, c, 1099511627776, 1);)
FILL(h5, add(d, c, 0, 1);)
FILL(h6, add(d, c, 64, 200); add(d, c, 1, 1); add(d, c, 2, 1);)
FILL(h7, add(d, c, 4611686018427387904, 1); add(d, c, -4611686018427387904, 1); add(d, c, INT64_MAX, 1); add(d, c, INT64_MIN, 1);)
FILL(h8, add(d, c, 2, 1); add(d, c, 3, 1); add(d, c, 8, 1); add(d, c, 16, 1); add(d, c, 17, 1); add(d, c, 128, 1);)
FILL(l1, add(d, c, 5, 1); add(d, c, 15, 2); add(d, c, 55, 1);)
FILL(l2, add(d, c, -5, 1); add(d, c, 150, 1); add(d, c, 50, 1);)
FILL(l3, add(d, c, 0, 1); add(d, c, 990, 1);)
FILL(l4, add(d, c, -50, 1); add(d, c, -1, 1); add(d, c, 0, 1); add(d, c, 49, 1); add(d, c, 50, 1); add(d, c, -51, 1);)
FILL(l6, add(d, c, 20, 1000); add(d, c, 40, 1); add(d, c, 70, 1);)
FILL(l7, add(d, c, 33, 1);)
FILL(l8, for (int i = 0; i < 30; i++) add(d, c, i * 7, 1);)
FILL(l9, add(d, c, 0, 1); add(d, c, 10, 1); add(d, c, 30, 1); add(d, c, 50, 1); add(d, c, 90, 1);)
FILL(l9b, fill_l9(d, c); add(d, c, 123456, 1);)
FILL(l9c, add(d, c, 0, 1); add(d, c, -10, 1); add(d, c, 30, 1); add(d, c, 999999999, 1); add(d, c, 1000000000, 1);)
FILL(n1, add(d, c, -5, 1);)
FILL(n2, add(d, c, -1, 1);)
FILL(n3, add(d, c, INT64_MIN, 1);)
FILL(n4, add(d, c, -5, 1); add(d, c, 0, 1);)
FILL(g4, add(d, c, 1, 1); add(d, c, 64, 1);)
FILL(g5, add(d, c, 1, 1); add(d, c, 128, 1);)
FILL(s50, add(d, c, 1, 50);)
FILL(s51, add(d, c, 1, 51); add(d, c, 4, 1);)
FILL(s99, add(d, c, 1, 99); add(d, c, 4, 1);)
FILL(s100, add(d, c, 1, 100); add(d, c, 4, 1);)
FILL(s101, add(d, c, 1, 101); add(d, c, 4, 3);)
FILL(u1, add(d, c, -20000, 1); add(d, c, -5000, 1);)
FILL(o1, add(d, c, 200000, 1); add(d, c, 5, 1);)
FILL(z1, add(d, c, 0, 1); add(d, c, 50, 1);)
FILL(z2, add(d, c, 0, 1); add(d, c, 60, 1);)

#define LOG(file, n) { file, #n, TP_HIST_LOG, 0, 0, 0, fill_##n }
#define LIN(file, n, lo, hi, w) { file, #n, TP_HIST_LINEAR, lo, hi, w, fill_##n }

static const struct hcase hist_cases[] = {
	LOG("hist.out", h1), LOG("hist.out", h2), LOG("hist.out", h3),
	LOG("hist.out", h4), LOG("hist.out", h5), LOG("hist.out", h6),
	LOG("hist.out", h7), LOG("hist.out", h8),
	LIN("hist.out", l1, 0, 100, 10), LIN("hist.out", l2, 0, 100, 10),
	LIN("hist.out", l3, 0, 1000, 10), LIN("hist.out", l4, -50, 50, 10),
	LIN("hist.out", l6, 0, 100, 10), LIN("hist.out", l7, 0, 100, 10),
	LIN("hist.out", l8, 0, 200, 5), LIN("hist.out", l9, 0, 100, 10),
	LIN("hist.out", l9b, 0, 1000000, 100000),
	LIN("hist.out", l9c, -1000000000, 1000000000, 500000000),
	LOG("hist2.out", n1), LOG("hist2.out", n2), LOG("hist2.out", n3),
	LOG("hist2.out", n4), LOG("hist2.out", g4), LOG("hist2.out", g5),
	LOG("hist2.out", s50), LOG("hist2.out", s51), LOG("hist2.out", s99),
	LOG("hist2.out", s100), LOG("hist2.out", s101),
	LIN("hist2.out", u1, -10000, 0, 1000),
	LIN("hist2.out", o1, 0, 100000, 10000),
	LIN("hist2.out", z1, 0, 100, 10), LIN("hist2.out", z2, 0, 100, 10),
};

static void test_hist_oracle(void)
{
	static char got[1 << 16];
	char name[64];
	size_t i, wlen;

	for (i = 0; i < sizeof(hist_cases) / sizeof(hist_cases[0]); i++) {
		const struct hcase *h = &hist_cases[i];
		struct tp_stat_desc d = { .hist = h->type, .lo = h->lo,
					  .hi = h->hi, .width = h->width };
		struct tp_stat_cell *c = calloc(1, tp_stat_cell_size(&d));
		const char *want = oracle_section(h->file, h->name, &wlen);
		long n;

		snprintf(name, sizeof(name), "hist/oracle-%s", h->name);
		h->fill(&d, c);
		n = tp_hist_print(&d, c, got, sizeof(got));
		free(c);
		if (!want)
			fail(name, "no oracle section");
		else if (n < 0)
			fail(name, "error %ld", n);
		else if ((size_t)n != wlen || memcmp(got, want, wlen))
			fail(name, "chart differs:\n%.*s", (int)n, got);
		else
			pass(name);
	}
}

static void test_hist_misc(void)
{
	struct tp_stat_desc log = { .hist = TP_HIST_LOG };
	struct tp_stat_desc lin = { .hist = TP_HIST_LINEAR, .lo = -50, .hi = 50, .width = 10 };
	struct tp_stat_cell *c = calloc(1, tp_stat_cell_size(&log));
	struct tp_stat_cell *l = calloc(1, tp_stat_cell_size(&lin));
	/* oracle "buckets": foreach over @hist_log(h3) / @hist_linear(l4) */
	static const int log3[] = { 57, 61, 63, 66, 84 };
	static const int lin4[] = { 0, 1, 5, 6, 10, 11 };
	char buf[64];
	bool ok = true;
	s64 v;
	int i;

	check("hist/empty", tp_hist_print(&log, c, buf, sizeof(buf)) == -ENODATA,
	      "no -ENODATA");
	fill_h3(&log, c);
	for (i = 0; i < TP_HIST_LOG_BUCKETS; i++) {
		bool used = false;

		for (size_t j = 0; j < 5; j++)
			used |= log3[j] == i;
		tp_stat_bucket(&log, c, i, &v);
		ok &= v == used;
	}
	check("hist/log-buckets", ok, "bucket counts differ from the oracle");
	fill_l4(&lin, l);
	ok = tp_stat_buckets(&lin) == 13;
	for (i = 0; i < 13; i++) {
		bool used = false;

		for (size_t j = 0; j < 6; j++)
			used |= lin4[j] == i;
		tp_stat_bucket(&lin, l, i, &v);
		ok &= v == used;
	}
	check("hist/linear-buckets", ok, "bucket counts differ from the oracle");
	check("hist/bucket-range", tp_stat_bucket(&lin, l, 13, &v) == -ERANGE &&
	      tp_stat_bucket(&lin, l, -1, &v) == -ERANGE, "no -ERANGE");
	lin.width = 0;
	check("hist/bad-desc", tp_stat_desc_check(&lin) == -EINVAL, "accepted");
	free(c);
	free(l);
}

/* oracle "stats" sections: the values stap printed that we reproduce. */
static void test_stat_values(void)
{
	struct tp_stat_desc d = { .hist = TP_HIST_NONE }, d3 = { .bit_shift = 3 };
	struct tp_stat_cell c = { 0 }, e = { 0 };
	s64 avg, var;

	fill_h3(&d, &c);	/* st in hist2.stp: the same values */
	tp_stat_avg(&c, &avg);
	tp_stat_variance(&d, &c, &var);
	check("stat/aggregates", c.count == 5 && c.sum == 999897 && c.min == -100 &&
	      c.max == 1000000 && avg == 199979 && var == 200010451990,
	      "differs from stap");
	memset(&c, 0, sizeof(c));
	fill_l1(&d, &c);	/* sv */
	tp_stat_avg(&c, &avg);
	tp_stat_variance(&d, &c, &var);
	check("stat/avg-variance", avg == 22 && var == 507, "differs from stap");
	memset(&c, 0, sizeof(c));
	fill_l1(&d3, &c);	/* sv3: @variance(sv3, 3) */
	tp_stat_variance(&d3, &c, &var);
	check("stat/variance-shift", var == 494, "differs from stap");
	memset(&c, 0, sizeof(c));
	fill_s51(&d, &c);
	tp_stat_variance(&d, &c, &var);
	check("stat/variance-small", var == 0, "differs from stap");
	memset(&c, 0, sizeof(c));
	fill_n4(&d, &c);
	tp_stat_avg(&c, &avg);
	check("stat/avg-truncates", avg == -2, "differs from stap");
	check("stat/empty", tp_stat_avg(&e, &avg) == -ENODATA &&
	      tp_stat_variance(&d, &e, &var) == -ENODATA, "no -ENODATA");
}

/* Values spread over the CPUs merge to what one CPU would hold. */
static void test_stat_percpu(void)
{
	struct tp_stat_desc d = { .hist = TP_HIST_LOG };
	struct tp_stat_cell *one = calloc(1, tp_stat_cell_size(&d));
	struct tp_stat_cell *all = calloc(1, tp_stat_cell_size(&d));
	struct tp_stat s;
	s64 v1, v2;
	int i;

	if (tp_stat_init(&s, &d)) {
		fail("stat/percpu-merge", "init failed");
		return;
	}
	for (i = 0; i < 1000; i++) {
		tp_compat_cpu = i % TP_COMPAT_NR_CPUS;
		tp_stat_add(&s, i * 3 - 700);
		tp_stat_cell_add(&d, one, i * 3 - 700);
	}
	tp_stat_read(&s, all);
	check("stat/percpu-merge", all->count == one->count && all->sum == one->sum &&
	      all->min == one->min && all->max == one->max &&
	      !memcmp(all->hist, one->hist, TP_HIST_LOG_BUCKETS * sizeof(s64)),
	      "merged cell differs");
	tp_stat_variance(&d, one, &v1);
	tp_stat_variance(&d, all, &v2);
	if (getenv("UNIT_DEBUG"))
		printf("variance one %lld merged %lld\n", (long long)v1, (long long)v2);
	/* one running integer mean drifts on a rising sequence (stap's does
	 * too); the merge of four shorter runs stays within 0.1% of 750750 */
	check("stat/percpu-variance", v2 > 750000 && v2 < 751500,
	      "merged variance far off");
	tp_stat_clear(&s);
	tp_stat_read(&s, all);
	check("stat/percpu-clear", all->count == 0, "not cleared");
	tp_stat_free(&s);
	free(one);
	free(all);
}

/* ---- maps ---- */

static const struct tp_map_desc map1 = { .nkeys = 1, .keys = { TP_KEY_LONG },
					 .val = TP_VAL_LONG, .capacity = 4 };

static union tp_key K(s64 l)
{
	union tp_key k = { .l = l };

	return k;
}

static void test_map_basic(void)
{
	struct tp_map m;
	union tp_key k;
	s64 r;

	tp_map_init(&m, &map1);
	k = K(7);
	check("map/unset-reads-zero", tp_map_get_long(&m, &k) == 0 &&
	      !tp_map_exists(&m, &k) && m.count == 0, "unset element");
	tp_map_set_long(&m, &k, 5);
	tp_map_add_long(&m, &k, 3, &r);
	check("map/set-add", r == 8 && tp_map_get_long(&m, &k) == 8 &&
	      tp_map_exists(&m, &k), "wrong value");
	tp_map_set_long(&m, &k, 0);
	check("map/zero-kept", tp_map_exists(&m, &k), "a[k] = 0 deleted the entry");
	for (int i = 1; i <= 3; i++) {
		k = K(i);
		tp_map_set_long(&m, &k, i);
	}
	k = K(100);
	check("map/full-error", tp_map_set_long(&m, &k, 1) == -ENOSPC &&
	      m.count == 4 && !tp_map_exists(&m, &k), "no -ENOSPC");
	k = K(2);
	check("map/delete", tp_map_delete(&m, &k) == 0 && !tp_map_exists(&m, &k) &&
	      tp_map_delete(&m, &k) == -ENOENT && m.count == 3, "delete");
	k = K(100);
	check("map/reuse-freed", tp_map_set_long(&m, &k, 1) == 0 && m.count == 4,
	      "freed entry not reused");
	tp_map_clear(&m);
	k = K(7);
	check("map/clear", m.count == 0 && !tp_map_exists(&m, &k) &&
	      tp_map_first(&m) == TP_MAP_NONE, "not empty");
	tp_map_free(&m);
}

static void test_map_wrap(void)
{
	struct tp_map_desc d = map1;
	struct tp_map m;
	union tp_key k;
	bool ok;

	d.wrap = true;
	tp_map_init(&m, &d);
	for (int i = 1; i <= 6; i++) {
		k = K(i);
		tp_map_set_long(&m, &k, i * 10);
	}
	k = K(1);
	ok = !tp_map_exists(&m, &k);
	k = K(2);
	ok &= !tp_map_exists(&m, &k);
	k = K(3);
	ok &= tp_map_get_long(&m, &k) == 30 && m.count == 4;
	/* updating an entry does not make it younger */
	tp_map_set_long(&m, &k, 31);
	k = K(7);
	tp_map_set_long(&m, &k, 70);
	k = K(3);
	ok &= !tp_map_exists(&m, &k);
	check("map/wrap-oldest", ok, "wrong entry replaced");
	tp_map_free(&m);
}

static void test_map_strings(void)
{
	static const struct tp_map_desc d = { .nkeys = 2,
		.keys = { TP_KEY_STRING, TP_KEY_LONG }, .val = TP_VAL_STRING,
		.capacity = 16 };
	char longs[MAXSTRINGLEN + 10], other[MAXSTRINGLEN + 10];
	union tp_key k[2];
	struct tp_map m;
	u32 e;

	tp_map_init(&m, &d);
	k[0].s = "a";
	k[1].l = 1;
	check("map/unset-string", !strcmp(tp_map_get_string(&m, k), ""), "not empty");
	tp_map_set_string(&m, k, "hello");
	k[1].l = 2;
	check("map/two-keys", !strcmp(tp_map_get_string(&m, k), "") &&
	      !tp_map_exists(&m, k), "keys mixed up");
	memset(longs, 'x', sizeof(longs));
	longs[sizeof(longs) - 1] = '\0';
	memcpy(other, longs, sizeof(other));
	other[MAXSTRINGLEN] = 'y';	/* differs after the cut only */
	k[0].s = longs;
	tp_map_set_string(&m, k, longs);
	k[0].s = other;
	e = tp_map_find(&m, k);
	check("map/string-cut", e != TP_MAP_NONE &&
	      strlen(tp_map_key_string(&m, e, 0)) == MAXSTRINGLEN - 1 &&
	      strlen(tp_map_value_string(&m, e)) == MAXSTRINGLEN - 1,
	      "keys/values not cut at MAXSTRINGLEN - 1");
	tp_map_free(&m);
}

static void test_map_slice(void)
{
	static const struct tp_map_desc d = { .nkeys = 2,
		.keys = { TP_KEY_LONG, TP_KEY_STRING }, .val = TP_VAL_LONG,
		.capacity = 32 };
	static const char *names[] = { "a", "b", "c" };
	struct tp_map_sort s = { .by = 0, .dir = 0, .limit = -1 };
	union tp_key k[2];
	struct tp_map m;
	u32 idx[32], n;

	tp_map_init(&m, &d);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 3; j++) {
			k[0].l = i;
			k[1].s = names[j];
			tp_map_set_long(&m, k, i * 10 + j);
		}
	k[1].s = "b";
	s.keys = k;
	s.wild = 1;		/* a[*, "b"] */
	n = tp_map_sort(&m, &s, idx);
	check("map/foreach-slice", n == 4 && tp_map_value_long(&m, idx[0]) == 1 &&
	      tp_map_value_long(&m, idx[3]) == 31, "wrong entries");
	n = tp_map_delete_slice(&m, k, 1);
	check("map/delete-slice", n == 4 && m.count == 8, "wrong count");
	k[0].l = 2;
	n = tp_map_delete_slice(&m, k, 2);	/* a[2, *] */
	check("map/delete-slice-2", n == 2 && m.count == 6, "wrong count");
	n = tp_map_delete_slice(&m, k, 3);	/* a[*, *] */
	check("map/delete-slice-all", n == 6 && m.count == 0, "wrong count");
	tp_map_free(&m);
}

static void test_map_sort(void)
{
	static const struct tp_map_desc d = { .nkeys = 2,
		.keys = { TP_KEY_STRING, TP_KEY_LONG }, .val = TP_VAL_LONG,
		.capacity = 8 };
	static const struct { const char *s; s64 l, v; } in[] = {
		{ "pear", 3, 5 }, { "apple", 9, 1 }, { "fig", -2, 5 },
		{ "kiwi", 0, 7 }, { "date", 9, 5 },
	};
	struct tp_map_sort s = { .limit = -1 };
	union tp_key k[2];
	struct tp_map m;
	u32 idx[8], n, i;
	char got[128];

	tp_map_init(&m, &d);
	for (i = 0; i < 5; i++) {
		k[0].s = in[i].s;
		k[1].l = in[i].l;
		tp_map_set_long(&m, k, in[i].v);
	}
#define ORDER(name, BY, DIR, LIMIT, want) do { \
		size_t len = 0; \
		s.by = BY; s.dir = DIR; s.limit = LIMIT; \
		n = tp_map_sort(&m, &s, idx); \
		got[0] = '\0'; \
		for (i = 0; i < n; i++) \
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s ", \
					tp_map_key_string(&m, idx[i], 0)); \
		if (strcmp(got, want)) \
			fail(name, "got '%s' want '%s'", got, want); \
		else \
			pass(name); \
	} while (0)
	ORDER("map/sort-none", 0, 0, -1, "pear apple fig kiwi date ");
	ORDER("map/sort-key1-asc", 1, 1, -1, "apple date fig kiwi pear ");
	ORDER("map/sort-key1-desc", 1, -1, -1, "pear kiwi fig date apple ");
	ORDER("map/sort-key2-asc-ties", 2, 1, -1, "fig kiwi pear apple date ");
	ORDER("map/sort-key2-desc-ties", 2, -1, -1, "apple date pear kiwi fig ");
	ORDER("map/sort-value-asc-ties", 0, 1, -1, "apple pear fig date kiwi ");
	ORDER("map/sort-value-desc-ties", 0, -1, -1, "kiwi pear fig date apple ");
	ORDER("map/sort-limit", 0, -1, 2, "kiwi pear ");
	ORDER("map/sort-limit-0", 0, 1, 0, "");
	ORDER("map/sort-limit-big", 1, 1, 100, "apple date fig kiwi pear ");
	tp_map_free(&m);
}

static void test_map_stats(void)
{
	static const struct tp_stat_desc sd = { .hist = TP_HIST_LINEAR,
		.lo = 0, .hi = 100, .width = 10 };
	static const struct tp_map_desc d = { .nkeys = 1,
		.keys = { TP_KEY_STRING }, .val = TP_VAL_STAT, .stat = &sd,
		.capacity = 8 };
	static const char *names[] = { "x", "y", "z" };
	struct tp_map_sort s = { .by = 0, .dir = -1, .limit = -1 };
	struct tp_map m;
	union tp_key k;
	u32 idx[8], n;
	char got[64] = "";
	size_t len = 0;
	static char chart[4096];
	const char *want;
	size_t wlen;
	long c;

	tp_map_init(&m, &d);
	for (int i = 0; i < 3; i++) {
		k.s = names[i];
		for (int j = 0; j <= i; j++)
			tp_map_stat_add(&m, &k, 100 - 40 * i + j);
	}
	/* counts 1 2 3, sums 100, 121, 63 */
	s.agg = TP_AGG_COUNT;
	n = tp_map_sort(&m, &s, idx);
	for (u32 i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s",
					tp_map_key_string(&m, idx[i], 0));
	s.agg = TP_AGG_SUM;
	n = tp_map_sort(&m, &s, idx);
	for (u32 i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s",
					tp_map_key_string(&m, idx[i], 0));
	s.agg = TP_AGG_MIN;
	s.dir = 1;
	n = tp_map_sort(&m, &s, idx);
	for (u32 i = 0; i < n; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s",
					tp_map_key_string(&m, idx[i], 0));
	check("map/sort-aggregates", !strcmp(got, "zyxyxzzyx"), got);
	/* a map's statistics chart like a scalar's: oracle l1's data */
	k.s = "l1";
	tp_map_stat_add(&m, &k, 5);
	tp_map_stat_add(&m, &k, 15);
	tp_map_stat_add(&m, &k, 15);
	tp_map_stat_add(&m, &k, 55);
	c = tp_hist_print(&sd, tp_map_value_stat(&m, tp_map_find(&m, &k)),
			  chart, sizeof(chart));
	want = oracle_section("hist.out", "l1", &wlen);
	check("map/stat-chart", want && c == (long)wlen && !memcmp(chart, want, wlen),
	      "chart differs");
	tp_map_free(&m);
}

static void test_map_many(void)
{
	static const struct tp_map_desc d = { .nkeys = 1, .keys = { TP_KEY_LONG },
		.val = TP_VAL_LONG, .capacity = MAXMAPENTRIES };
	struct tp_map m;
	union tp_key k;
	bool ok = true;
	s64 i;

	tp_map_init(&m, &d);
	for (i = 0; i < MAXMAPENTRIES; i++) {
		k = K(i * 7919);
		ok &= tp_map_set_long(&m, &k, i) == 0;
	}
	for (i = 0; i < MAXMAPENTRIES; i += 2) {
		k = K(i * 7919);
		ok &= tp_map_delete(&m, &k) == 0;
	}
	for (i = 0; i < MAXMAPENTRIES; i++) {
		k = K(i * 7919);
		ok &= tp_map_get_long(&m, &k) == (i % 2 ? i : 0);
	}
	check("map/many", ok && m.count == MAXMAPENTRIES / 2, "lost entries");
	tp_map_free(&m);
}

/* ---- regex (translator/emit/regex.c compiles, runtime/regex.c matches) ---- */

struct rcase {
	const char *s, *re;
};

/* testsuite/unit/oracle/regex.stp, line by line. */
static const struct rcase regex_cases[] = {
	{ "an example string", "str(ing)" },
	{ "xabcabcy", "(abc)+" },
	{ "aaa", "a*" },
	{ "baaa", "a*" },
	{ "abcd", "(a|ab)(c|bcd)(d*)" },
	{ "abab", "(ab|a)(bab)?" },
	{ "aaa", "(a*)*" },
	{ "abc", "(a)|(b)" },
	{ "bc", "(a)|(b)" },
	{ "foobar", "o+" },
	{ "foobar", "o+?" },
	{ "abcabc", "(a(b)c)*" },
	{ "xy", "x(z)?y" },
	{ "xy", "()" },
	{ "", "^$" },
	{ "abc", "^abc$" },
	{ "abc", "b$" },
	{ "abc", "c$" },
	{ "a\nb", "a$" },
	{ "a\nb", "^b" },
	{ "a.c", "a\\.c" },
	{ "abc", "a\\.c" },
	{ "abc", "a.c" },
	{ "a\nc", "a.c" },
	{ "aaaa", "a{2}" },
	{ "aaaa", "a{2,}" },
	{ "aaaa", "a{1,3}" },
	{ "aaaa", "^a{5}" },
	{ "ab", "a{0}b" },
	{ "a}", "a}" },
	{ "a)", "a)" },
	{ "x", "a)" },
	{ "xy", ")" },
	{ "abab", "(ab){2}" },
	{ "Hello World", "[[:upper:]][[:lower:]]+" },
	{ "x 12", "[[:digit:]]+" },
	{ "ab-c", "[^a-b]" },
	{ "a]b", "[]]" },
	{ "a-b", "[a-]+" },
	{ "a^b", "[b^]+" },
	{ "ABC", "abc" },
	{ "tab\there", "\\t" },
	{ "tab\there", "\t" },
	{ "a|b", "a\\|b" },
	{ "a+b", "a\\+b" },
	{ "anb", "a\\nb" },
	{ "a\nb", "a\\nb" },
	{ "adb", "a\\db" },
	{ "a5b", "a\\db" },
	{ "a_b", "a\\wb" },
	{ "zzz", "a||b" },
	{ "zzz", "|a" },
	{ "ab", "a**" },
	{ "a\\b", "a\\\\b" },
	{ "abcabd", "ab(c|d)$" },
	{ "xaaay", "a+|x" },
	{ "xaaay", "x|xa+" },
	{ "xaaay", "xa*|x" },
	{ "abcd", "(a|ab)(c|bcd)" },
	{ "abcd", "(ab|a)(c|bcd)" },
	{ "aaab", "(a*)(a*)b" },
	{ "aaab", "(a*?)(a*)b" },
	{ "abab", "(a|b)*" },
	{ "ab", "(a)(b)?" },
	{ "a", "(a)(b)?" },
	{ "aa", "(a?)((ab)?)" },
	{ "foo=bar", "^([a-z]+)=(.*)$" },
	{ "xx", "x*y*" },
	{ "yx", "x*" },
	{ "AbC", "[[:alpha:]]+" },
	{ "a1 b", "[[:alnum:]]+" },
	{ "a,.!b", "[[:punct:]]+" },
	{ "zzBEEFq", "[[:xdigit:]]+" },
	{ "a \tb", "[[:space:]]+" },
	{ "a \tb", "[[:blank:]]+" },
	{ "ab\001c", "[[:cntrl:]]" },
	{ "ab c", "[[:graph:]]+" },
	{ "ab c", "[[:print:]]+" },
	{ "\177", "[[:print:]]" },
	{ "\200\377", "." },
	{ "\351t\351", "[^a-z]" },
	{ "\303\251", "[[:alpha:]]" },
	{ "\303\251", "[^[:alpha:]]" },
	{ "a.b", "[.]" },
	{ "ab", "[\\n]" },
	{ "n", "[\\n]" },
	{ "a*b", "a[*]b" },
	{ "x-y", "[x\\-y]+" },
	{ "a", "a|" },
	{ "b", "a|" },
	{ "a", "(|a)" },
	{ "xay", "x(a|)y" },
	{ "abc", "$" },
	{ "abc", "^" },
	{ "abc", "a^b" },
	{ "abc", "a$b" },
	{ "abc", "(^a)" },
	{ "bab", "(^a|b)" },
	{ "ba", "b(^a)" },
	{ "ab", "x*" },
	{ "aaaa", "a{2}{2}" },
	{ "aaa", "(a){2,3}" },
	{ "abcabc", "(abc){0,1}" },
	{ "a{1}", "a\\{1}" },
	{ "a{x", "a[{]x" },
	{ "xy", "x{1}y" },
	{ "a", "[[=a=]]" },
	{ "a=]", "[[=a=]]" },
	{ "a]", "[^]a]" },
	{ "a]b", "[^]a]" },
	{ "-", "[a-]" },
	{ ".-/", "[--/]+" },
	{ "xaaa", "a?*" },
	{ "aaa", "a{0,0}" },
	{ "abc", ".{3}" },
	{ "ab", ".{3}" },
	{ "abcabc", "(a|b|c){4}" },
	{ "abcabc", "((a)|(b)|(c))+" },
	{ "abab", "(a(b)?)+" },
	{ "aba", "(a(b)?)+" },
	{ "ab", "(a|ab)(b*)" },
	{ "abb", "(a|ab)(b*)c|." },
	{ "xabcx", "(a|ab)(bc|c)" },
	{ "aaa", "(a+)(a*)" },
	{ "aaa", "(a*)(a+)" },
	{ "aaa", "(a?)(a?)(a?)(a?)" },
	{ "abcd", "(a|ab|abc)(.*)" },
	{ "ab", "((a)|b)+" },
	{ "aXbXc", "(.*)X(.*)" },
	{ "aXbXc", "([^X]*)X" },
	{ "abcbd", "a(b|c)*d" },
	{ "ab1", "[a-z]+([0-9])?" },
	{ "xababy", "(ab)*y" },
	{ "xy", "(a*)+y" },
	{ "aab", "(a*)b" },
	{ "zzz", "(a)*" },
	{ "aba", "(a|b)(a|b)?$" },
	{ "Ab", "[[:upper:][:digit:]]" },
	{ "b", "[a-cx-z]" },
	{ "abcd", "abcd|c" },
	{ "xabcdy", "bcd|c|abcde" },
	{ "key: value", "^([^:]+):[[:space:]]*(.*)$" },
	{ "/usr/lib/libc.so.6", "([^/]*)\\.so(\\.[0-9]+)*$" },
	{ "2026-12-01", "^([0-9]{4})-([0-9]{2})-([0-9]{2})$" },
	{ "x=1,y=22", "y=([0-9]+)" },
	{ "aaa", "a{1,2}a" },
	{ "abab", "(ab)+$" },
	{ "ba", "(a|b)*a" },
	{ "mississippi", "(ss)i(p*)" },
	{ "mississippi", "s+i?" },
	{ "baab", ".+..|a" },
	{ "baabab", "[ab]+bb?|a" },
	{ "abbaaab", ".+*aa[ab]|b" },
	{ "bbababb", "[ab]*.ab|a" },
};

/* Compile re for the runtime as the emitter writes it. */
static bool regex_build(const char *re, struct rx_prog *g, struct tp_regex *r,
			struct tp_regex_insn **insn, struct rx_error *err)
{
	if (rx_compile(re, strlen(re), g, err) < 0)
		return false;
	*insn = calloc(g->ninsn, sizeof(**insn));
	for (unsigned int i = 0; i < g->ninsn; i++) {
		(*insn)[i].op = g->insn[i].op;
		(*insn)[i].c = g->insn[i].c;
		(*insn)[i].x = g->insn[i].x;
		(*insn)[i].y = g->insn[i].y;
	}
	r->insn = *insn;
	r->sets = (const u8 (*)[32])g->sets;
	r->ninsn = (u16)g->ninsn;
	r->ngroups = (u16)g->ngroups;
	return true;
}

/* One line as regex.stp prints it. */
static void regex_line(const struct rcase *k, char *out, size_t size)
{
	static u16 work[TP_REGEX_WORK(RX_MAX_INSN, 2 * RX_MAX_GROUPS)];
	u16 span[2 * RX_MAX_GROUPS];
	struct tp_regex_insn *insn = NULL;
	struct rx_prog g;
	struct rx_error err;
	struct tp_regex r;
	size_t n;
	bool m;

	if (!regex_build(k->re, &g, &r, &insn, &err)) {
		snprintf(out, size, "compile error: %s\n", err.msg);
		return;
	}
	m = tp_regex_exec(&r, k->s, strlen(k->s), span, work);
	n = (size_t)snprintf(out, size, "%s ~ %s -> %d", k->s, k->re, m);
	if (m) {
		n += (size_t)snprintf(out + n, size - n, " ng=%u", r.ngroups);
		for (unsigned int i = 0; i < r.ngroups; i++) {
			u16 a = span[2 * i], b = span[2 * i + 1];
			int len = a == TP_REGEX_UNSET || b == TP_REGEX_UNSET ? 0 : b - a;

			n += (size_t)snprintf(out + n, size - n, " [%u]='%.*s'", i,
					      len, len ? k->s + a : "");
		}
	}
	snprintf(out + n, size - n, "\n");
	free(insn);
	rx_free(&g);
}

#define NCASES (sizeof(regex_cases) / sizeof(regex_cases[0]))

static void test_regex_oracle(void)
{
	size_t len, off = 0;
	const char *want = oracle_section("regex.out", "regex", &len);
	char got[4096], name[64];

	if (!want) {
		fail("regex/oracle", "no section '== regex' in %s/regex.out",
		     oracle_dir);
		return;
	}
	for (size_t i = 0; i < NCASES; i++) {
		char next[512];
		const char *end = want + len;
		size_t wl;

		/* this case's text runs up to the next case's "S ~ RE -> " (a
		 * subject may hold a newline) */
		snprintf(name, sizeof(name), "regex/%zu", i + 1);
		regex_line(&regex_cases[i], got, sizeof(got));
		if (i + 1 < NCASES) {
			snprintf(next, sizeof(next), "\n%s ~ %s -> ",
				 regex_cases[i + 1].s, regex_cases[i + 1].re);
			end = strstr(want + off + 1, next);
			end = end ? end + 1 : want + len;
		}
		wl = (size_t)(end - (want + off));
		if (strlen(got) == wl && !memcmp(want + off, got, wl))
			pass(name);
		else
			fail(name, "got: %s     want: %.*s", got, (int)wl, want + off);
		off += wl;
	}
}

/* oracle/regex-random.stp: its t("S", "RE", ...) lines (no escapes in
 * them) against regex-random.out, line by line. */
static void test_regex_random(void)
{
	char path[512], line[512], got[4096], name[64];
	size_t len, off = 0, n = 0;
	const char *want = oracle_section("regex-random.out", "random", &len);
	FILE *f;

	snprintf(path, sizeof(path), "%s/regex-random.stp", oracle_dir);
	f = fopen(path, "r");
	if (!want || !f) {
		fail("regex/random", "no %s or its .out", path);
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char s[128], re[128];
		struct rcase k = { s, re };
		size_t wl;
		const char *nl;

		const char *p = line, *q;

		/* \tt("S", "RE", ...): S and RE may be empty */
		if (strncmp(p, "\tt(\"", 4) || !(q = strchr(p + 4, '"')) ||
		    q - (p + 4) >= (long)sizeof(s) || strncmp(q, "\", \"", 4))
			continue;
		memcpy(s, p + 4, (size_t)(q - (p + 4)));
		s[q - (p + 4)] = '\0';
		p = q + 4;
		if (!(q = strchr(p, '"')) || q - p >= (long)sizeof(re))
			continue;
		memcpy(re, p, (size_t)(q - p));
		re[q - p] = '\0';
		snprintf(name, sizeof(name), "regex/random-%zu", ++n);
		regex_line(&k, got, sizeof(got));
		nl = memchr(want + off, '\n', len - off);
		wl = nl ? (size_t)(nl - (want + off)) + 1 : len - off;
		if (strlen(got) == wl && !memcmp(want + off, got, wl))
			pass(name);
		else
			fail(name, "got: %s     want: %.*s", got, (int)wl, want + off);
		off += wl;
	}
	fclose(f);
	check("regex/random-count", n > 100 && off == len, "not every line of regex-random.out was compared");
}

/* Malformed regexes: stap 4.8's message and position (stap -p2). */
static void test_regex_errors(void)
{
	static const struct {
		const char *re, *msg;
		long pos;		/* -1: none */
	} bad[] = {
		{ "(", "expected ), found end of regex", 0 },
		{ "((a)", "expected ), found end of regex", 3 },
		{ "a|(", "expected ), found end of regex", 2 },
		{ "[a", "unclosed character class", 1 },
		{ "[]", "unclosed character class", 1 },
		{ "[^]", "unclosed character class", 2 },
		{ "*a", "unexpected '*'", 0 },
		{ "a|*b", "unexpected '*'", 2 },
		{ "(*a)", "unexpected '*'", 1 },
		{ "+", "unexpected '+'", 0 },
		{ "?a", "unexpected '?'", 0 },
		{ "{2}", "unexpected '{'", 0 },
		{ "a{2", "unexpected end of regex", 3 },
		{ "a{", "expected number", 2 },
		{ "a{x", "expected number", 3 },
		{ "a{,3}", "expected number", 3 },
		{ "a{1x}", "expected ',' or '}'", 3 },
		{ "a{1,", "expected '}' or number", 4 },
		{ "a{1,x", "expected '}' or number", 5 },
		{ "a{1,2x", "expected }, found x", 5 },
		{ "a{1,2", "expected }, found end of regex", 4 },
		{ "a{16383}", "16383 is too large", 8 },
		{ "[[:foo:]]", "unknown character class 'foo'", -1 },
		{ "[[:alpha:]", "unclosed character class '[:alpha:'", 10 },
		{ "[[:alpha]]", "unclosed character class '[:alpha]'", 10 },
		{ "[[:", "unclosed character class '[:'", 3 },
		{ "[z-a]", "Inverted character range z-a", 4 },
		{ "[a-[:digit:]]", "Inverted character range a-[", 4 },
		{ "^*", "postfix closure '*' applied to anchoring operator", 1 },
		{ "$*", "postfix closure '*' applied to anchoring operator", 1 },
		{ "\\", "unexpected end of regex", 1 },
		{ "a))", "unbalanced ')'", 2 },
		{ "a)b", "unbalanced ')'", 2 },
		{ "(a)b)c", "unbalanced ')'", 5 },
		{ "(?", "unexpected '(?", 1 },
		{ "(?i)x", "unexpected '(?i'", 2 },
		{ "(?=b)", "unexpected '(?='", 2 },
	};
	char name[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rx_prog g;
		struct rx_error err;
		int r = rx_compile(bad[i].re, strlen(bad[i].re), &g, &err);

		snprintf(name, sizeof(name), "regex/error-%zu", i + 1);
		if (r == 0)
			fail(name, "'%s' compiled", bad[i].re);
		else if (strcmp(err.msg, bad[i].msg) ||
			 (bad[i].pos < 0 ? err.has_pos :
			  !err.has_pos || err.pos != (size_t)bad[i].pos))
			fail(name, "'%s': got '%s' at %ld, want '%s' at %ld",
			     bad[i].re, err.msg, err.has_pos ? (long)err.pos : -1L,
			     bad[i].msg, bad[i].pos);
		else
			pass(name);
		rx_free(&g);
	}
}

/* Bounded work: the longest string against a program with many
 * threads, and limits refused at compile time. */
static void test_regex_bounds(void)
{
	static char s[MAXSTRINGLEN];
	struct rcase k = { s, "(a|aa)*(b|a*)*c" };
	struct rx_prog g;
	struct rx_error err;
	char got[2 * MAXSTRINGLEN + 64];

	memset(s, 'a', sizeof(s) - 1);
	regex_line(&k, got, sizeof(got));
	check("regex/long-nomatch", !strncmp(got, "aaaa", 4) &&
	      strstr(got, "-> 0\n") != NULL, got);
	s[sizeof(s) - 2] = 'c';
	k.re = "^(a|aa)*c$";
	regex_line(&k, got, sizeof(got));
	check("regex/long-match", strstr(got, "-> 1 ng=2") != NULL, got);
	check("regex/too-large", rx_compile("(a{100}){100}", 13, &g, &err) < 0 &&
	      strstr(err.msg, "too large") != NULL, err.msg);
	rx_free(&g);
}

int main(int argc, char **argv)
{
	oracle_dir = argc > 1 ? argv[1] : "testsuite/unit/oracle";
	test_format_oracle();
	test_format_truncation();
	test_format_errors();
	test_format_binary();
	test_hist_oracle();
	test_hist_misc();
	test_stat_values();
	test_stat_percpu();
	test_map_basic();
	test_map_wrap();
	test_map_strings();
	test_map_slice();
	test_map_sort();
	test_map_stats();
	test_map_many();
	test_regex_oracle();
	test_regex_random();
	test_regex_errors();
	test_regex_bounds();
	return failures ? 1 : 0;
}
