// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stat.c - statistics and histograms (stat.h).
 * Same source for the module and the user-space unit tests (compat.h).
 */
#include "stat.h"
#include "out.h"

#define HIST_BAR_WIDTH 50	/* the '@' column */
#define HIST_CONTEXT 2		/* empty buckets shown around a used one */
#define LINEAR_MAX_BUCKETS 1000000

int tp_stat_desc_check(const struct tp_stat_desc *d)
{
	if (d->bit_shift < 0 || d->bit_shift > 31)
		return -EINVAL;
	if (d->hist != TP_HIST_LINEAR)
		return 0;
	if (d->width <= 0 || d->lo >= d->hi)
		return -EINVAL;
	/* (hi - lo) in u64: no overflow for any lo < hi */
	if (((u64)d->hi - (u64)d->lo) / (u64)d->width >= LINEAR_MAX_BUCKETS)
		return -EINVAL;
	return 0;
}

int tp_stat_buckets(const struct tp_stat_desc *d)
{
	switch (d->hist) {
	case TP_HIST_LOG:
		return TP_HIST_LOG_BUCKETS;
	case TP_HIST_LINEAR:
		return (int)(((u64)d->hi - (u64)d->lo) / (u64)d->width) + 3;
	default:
		return 0;
	}
}

size_t tp_stat_cell_size(const struct tp_stat_desc *d)
{
	return sizeof(struct tp_stat_cell) +
	       (size_t)tp_stat_buckets(d) * sizeof(s64);
}

/* Index of the highest set bit of a non-zero value. */
static int msb64(u64 v)
{
	return 63 - __builtin_clzll(v);
}

int tp_stat_bucket_of(const struct tp_stat_desc *d, s64 v)
{
	int nb = tp_stat_buckets(d);
	u64 k;

	if (d->hist == TP_HIST_LOG) {
		if (v == 0)
			return TP_HIST_LOG_ZERO;
		if (v > 0)
			return TP_HIST_LOG_ZERO + 1 + msb64((u64)v);
		return TP_HIST_LOG_ZERO - 1 - msb64(-(u64)v);
	}
	if (v < d->lo)
		return 0;
	k = ((u64)v - (u64)d->lo) / (u64)d->width;
	return k >= (u64)(nb - 2) ? nb - 1 : (int)k + 1;
}

void tp_stat_cell_clear(const struct tp_stat_desc *d, struct tp_stat_cell *c)
{
	memset(c, 0, tp_stat_cell_size(d));
}

void tp_stat_cell_add(const struct tp_stat_desc *d, struct tp_stat_cell *c,
		      s64 v)
{
	tp_stat_cell_add_in(d, c, v);
}

void tp_stat_cell_merge(const struct tp_stat_desc *d, struct tp_stat_cell *into,
			const struct tp_stat_cell *from)
{
	int i, nb = tp_stat_buckets(d);
	s64 n, delta;

	if (from->count == 0)
		return;
	for (i = 0; i < nb; i++)
		into->hist[i] += from->hist[i];
	if (into->count == 0) {
		into->count = from->count;
		into->sum = from->sum;
		into->min = from->min;
		into->max = from->max;
		into->avg_s = from->avg_s;
		into->m2 = from->m2;
		return;
	}
	n = into->count + from->count;
	delta = (s64)((u64)from->avg_s - (u64)into->avg_s);
	into->m2 = (s64)((u64)into->m2 + (u64)from->m2 +
			 (u64)div64_s64((s64)((u64)delta * (u64)delta), n) *
			 (u64)into->count * (u64)from->count);
	into->avg_s = (s64)((u64)into->avg_s +
		(u64)div64_s64((s64)((u64)delta * (u64)from->count), n));
	into->count = n;
	into->sum += from->sum;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

int tp_stat_avg(const struct tp_stat_cell *c, s64 *out)
{
	if (!c->count)
		return -ENODATA;
	*out = div64_s64(c->sum, c->count);
	return 0;
}

int tp_stat_variance(const struct tp_stat_desc *d,
		     const struct tp_stat_cell *c, s64 *out)
{
	int shift = 2 * d->bit_shift;
	s64 v;

	if (!c->count)
		return -ENODATA;
	if (c->count < 2) {
		*out = 0;
		return 0;
	}
	v = div64_s64(c->m2, c->count - 1);
	if (shift)
		v = (v + ((s64)1 << (shift - 1))) >> shift;
	*out = v;
	return 0;
}

int tp_stat_bucket(const struct tp_stat_desc *d, const struct tp_stat_cell *c,
		   s64 i, s64 *out)
{
	if (i < 0 || i >= tp_stat_buckets(d))
		return -ERANGE;
	*out = c->hist[i];
	return 0;
}

/* ---- the chart ---- */


static void put_s(struct out *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

/* Decimal text of @v into @buf (at least 22 bytes) after @prefix. */
static int decimal(char *buf, const char *prefix, s64 v)
{
	char tmp[24];
	u64 u = v < 0 ? -(u64)v : (u64)v;
	int n = 0, len = 0;

	while (*prefix)
		buf[len++] = *prefix++;
	if (v < 0)
		buf[len++] = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		buf[len++] = tmp[--n];
	buf[len] = '\0';
	return len;
}

s64 tp_stat_bucket_value(const struct tp_stat_desc *d, int b)
{
	if (d->hist == TP_HIST_LOG) {
		if (b == TP_HIST_LOG_ZERO)
			return 0;
		if (b > TP_HIST_LOG_ZERO)
			return (s64)1 << (b - TP_HIST_LOG_ZERO - 1);
		return (s64)(0 - ((u64)1 << (63 - b)));
	}
	if (b == 0)
		return d->lo;
	if (b == tp_stat_buckets(d) - 1)
		return d->hi;
	return d->lo + (s64)(b - 1) * d->width;
}

/* The label of bucket @b: "<lo", ">hi" or the bucket's value. */
static int bucket_label(const struct tp_stat_desc *d, int nb, int b, char *buf)
{
	const char *pre = "";

	if (d->hist == TP_HIST_LINEAR && b == 0)
		pre = "<";
	else if (d->hist == TP_HIST_LINEAR && b == nb - 1)
		pre = ">";
	return decimal(buf, pre, tp_stat_bucket_value(d, b));
}

/* The rows drawn: two empty buckets around the used ones; a log chart of
 * non-negative values starts at 0; unused "<lo" and ">hi" rows are not
 * drawn. Returns -ENODATA when no bucket is used. */
static int hist_range(const struct tp_stat_desc *d, const s64 *h, int nb,
		      int *low, int *high)
{
	int first = -1, last = -1, i;

	for (i = 0; i < nb; i++) {
		if (!h[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	if (first < 0)
		return -ENODATA;
	*low = first - HIST_CONTEXT < 0 ? 0 : first - HIST_CONTEXT;
	*high = last + HIST_CONTEXT >= nb ? nb - 1 : last + HIST_CONTEXT;
	if (d->hist == TP_HIST_LOG && first >= TP_HIST_LOG_ZERO &&
	    *low < TP_HIST_LOG_ZERO)
		*low = TP_HIST_LOG_ZERO;
	if (d->hist == TP_HIST_LINEAR) {
		if (*low == 0 && !h[0])
			*low = 1;
		if (*high == nb - 1 && !h[nb - 1])
			*high = nb - 2;
	}
	return 0;
}

/* Is bucket @i used or within HIST_CONTEXT of a used one? */
static bool hist_shown(const s64 *h, int nb, int i)
{
	int j;

	for (j = i - HIST_CONTEXT; j <= i + HIST_CONTEXT; j++)
		if (j >= 0 && j < nb && h[j])
			return true;
	return false;
}

static int digits(s64 v)
{
	char buf[24];

	return decimal(buf, "", v);
}

static void hist_row(struct out *o, const char *label, int vw, s64 count,
		     s64 scale, int cw)
{
	long bars = (long)div64_s64(count, scale);
	char num[24];
	int n = decimal(num, "", count);

	put_n(o, ' ', vw - (long)strlen(label));
	put_s(o, label);
	put_s(o, " |");
	put_n(o, '@', bars);
	put_n(o, ' ', HIST_BAR_WIDTH - bars + 1 + cw - n);
	put_s(o, num);
	put(o, '\n');
}

long tp_hist_print(const struct tp_stat_desc *d, const struct tp_stat_cell *c,
		   char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	int nb = tp_stat_buckets(d), low, high, i, vw = 5, cw = 1;
	s64 max = 0, scale = 1;
	bool elided = false;
	char label[32];

	if (!nb)
		return -EINVAL;
	if (hist_range(d, c->hist, nb, &low, &high))
		return -ENODATA;
	for (i = low; i <= high; i++) {
		int w = bucket_label(d, nb, i, label);

		if (w > vw)
			vw = w;
		if (c->hist[i] > max)
			max = c->hist[i];
	}
	cw = digits(max);
	if (max > HIST_BAR_WIDTH)
		scale = div64_s64(max + HIST_BAR_WIDTH - 1, HIST_BAR_WIDTH);
	put_n(&o, ' ', vw - 5);
	put_s(&o, "value |");
	put_n(&o, '-', HIST_BAR_WIDTH);
	put_s(&o, " count\n");
	for (i = low; i <= high; i++) {
		if (!hist_shown(c->hist, nb, i)) {
			if (!elided) {
				put_n(&o, ' ', vw + 1);
				put_s(&o, "~\n");
			}
			elided = true;
			continue;
		}
		elided = false;
		bucket_label(d, nb, i, label);
		hist_row(&o, label, vw, c->hist[i], scale, cw);
	}
	put(&o, '\n');
	return (long)o.len;
}

/* ---- per-CPU statistics ---- */

/* What the statistic's per-CPU cells hold (module_size()) */
static size_t stat_bytes(const struct tp_stat *s)
{
	return s->cell_size * (size_t)tp_nr_cpus();
}

int tp_stat_init(struct tp_stat *s, const struct tp_stat_desc *d)
{
	int err = tp_stat_desc_check(d);

	if (err)
		return err;
	s->desc = d;
	s->cell_size = tp_stat_cell_size(d);
	s->cells = tp_percpu_zalloc(s->cell_size);
	if (!s->cells)
		return -ENOMEM;
	tp_data_account((long)stat_bytes(s));
	return 0;
}

void tp_stat_free(struct tp_stat *s)
{
	if (s->cells)
		tp_data_account(-(long)stat_bytes(s));
	tp_percpu_free(s->cells);
	s->cells = NULL;
}

void tp_stat_add(struct tp_stat *s, s64 v)
{
	tp_stat_add_in(s, s->desc, v);
}

void tp_stat_clear(struct tp_stat *s)
{
	int cpu;

	tp_for_each_cpu(cpu)
		tp_stat_cell_clear(s->desc, tp_per_cpu_ptr(s->cells, cpu));
}

/*
 * As stap 4.8 reads a statistic: the mean is recomputed from the sum, and
 * the variance by the Total Variance formula over every CPU's running
 * (Welford) mean and variance, with stap's integer truncations, even when
 * a single CPU has values (so @variance of 2 4 4 4 5 5 7 9 is 13, not 9).
 * out->m2 is left such that m2 / (count - 1) is stap's variance_s.
 */
void tp_stat_read(struct tp_stat *s, struct tp_stat_cell *out)
{
	const struct tp_stat_desc *d = s->desc;
	u64 total = 0;
	s64 avg;
	int cpu;

	tp_stat_cell_clear(d, out);
	tp_for_each_cpu(cpu)
		tp_stat_cell_merge(d, out, tp_per_cpu_ptr(s->cells, cpu));
	if (!out->count)
		return;
	avg = div64_s64(tp_stat_scaled(out->sum, d->bit_shift), out->count);
	tp_for_each_cpu(cpu) {
		const struct tp_stat_cell *c = tp_per_cpu_ptr(s->cells, cpu);
		u64 dev;
		s64 var;

		if (!c->count)
			continue;
		dev = (u64)c->avg_s - (u64)avg;
		var = c->count < 2 ? -1 : div64_s64(c->m2, c->count - 1);
		total += (u64)c->count * dev * dev + (u64)(c->count - 1) * (u64)var;
	}
	out->avg_s = avg;
	out->m2 = (s64)total;
}
