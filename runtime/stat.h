/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stat.h - statistics (`<<<`, @count @sum @min @max @avg @variance,
 * @hist_log, @hist_linear) and SystemTap's ASCII histogram chart.
 *
 * A cell is one accumulator: count, sum, min, max, the running mean and
 * M2 for @variance (Welford, values scaled by 2^bit_shift), and the
 * histogram buckets. A statistics scalar keeps one cell per CPU; adding
 * touches only this CPU's cell, reading merges them into a caller's cell.
 * The caller serializes readers against writers as it does for any global.
 */
#ifndef TAPIR_RUNTIME_STAT_H
#define TAPIR_RUNTIME_STAT_H

#include "compat.h"

enum tp_hist_type {
	TP_HIST_NONE,
	TP_HIST_LOG,
	TP_HIST_LINEAR,
};

/* Log histograms: bucket 64 holds 0, 65 + k holds [2^k, 2^(k+1)), 63 - k
 * holds (-2^(k+1), -2^k]. */
#define TP_HIST_LOG_BUCKETS 128
#define TP_HIST_LOG_ZERO 64

/* What the translator knows about one statistics variable. */
struct tp_stat_desc {
	enum tp_hist_type hist;
	s64 lo, hi, width;	/* @hist_linear(v, lo, hi, width) */
	int bit_shift;		/* @variance(v, bit_shift), 0..31 */
	bool no_variance;	/* the script never reads @variance: adding
				 * skips the running mean and M2 (avg_s and
				 * m2 stay 0) */
};

struct tp_stat_cell {
	s64 count, sum, min, max;
	s64 avg_s;		/* running mean << bit_shift */
	s64 m2;			/* sum of squared deviations, << 2*shift */
	s64 hist[];		/* tp_stat_buckets() entries */
};

/* Checks a descriptor (linear: width > 0, lo < hi, at most 1,000,000
 * buckets; shift 0..31). Returns 0 or -EINVAL. */
int tp_stat_desc_check(const struct tp_stat_desc *d);
/* Buckets: 128 (log), (hi - lo) / width + 3 (linear: below lo, the
 * ranges from lo to hi inclusive, above), 0 (none). */
int tp_stat_buckets(const struct tp_stat_desc *d);
/* Bucket @b's value as the chart labels it: a log bucket's value nearest
 * zero (0, 1, 2, 4...; -1, -2, -4...), a linear one's lowest; lo and hi
 * for linear's "<lo" (b == 0) and ">hi" (the last). */
s64 tp_stat_bucket_value(const struct tp_stat_desc *d, int b);
size_t tp_stat_cell_size(const struct tp_stat_desc *d);
/* The bucket a value falls into. */
int tp_stat_bucket_of(const struct tp_stat_desc *d, s64 v);

void tp_stat_cell_clear(const struct tp_stat_desc *d, struct tp_stat_cell *c);
void tp_stat_cell_add(const struct tp_stat_desc *d, struct tp_stat_cell *c,
		      s64 v);
/* tp_stat_cell_add(), inline: the generated code gives a constant @d. */
static inline void tp_stat_cell_add_in(const struct tp_stat_desc *d,
				       struct tp_stat_cell *c, s64 v);
/* Fold @from into @into (count-weighted: Chan et al. for M2). */
void tp_stat_cell_merge(const struct tp_stat_desc *d, struct tp_stat_cell *into,
			const struct tp_stat_cell *from);

/* The aggregates; -ENODATA for an empty cell ("empty aggregate"). */
int tp_stat_avg(const struct tp_stat_cell *c, s64 *out);
int tp_stat_variance(const struct tp_stat_desc *d,
		     const struct tp_stat_cell *c, s64 *out);
/* @hist_*(s)[i]: -ERANGE outside 0 .. buckets-1. */
int tp_stat_bucket(const struct tp_stat_desc *d, const struct tp_stat_cell *c,
		   s64 i, s64 *out);

/*
 * The chart print(@hist_*(s)) draws, byte for byte as stap 4.8 does,
 * ending with an empty line. Written as tp_format() does (at most @size
 * bytes, no NUL); returns the full length or -ENODATA (empty) / -EINVAL.
 */
long tp_hist_print(const struct tp_stat_desc *d, const struct tp_stat_cell *c,
		   char *buf, size_t size);

/* A statistics global: one cell per CPU. */
struct tp_stat {
	const struct tp_stat_desc *desc;
	size_t cell_size;
	struct tp_stat_cell TP_PERCPU *cells;
};

int tp_stat_init(struct tp_stat *s, const struct tp_stat_desc *d);
void tp_stat_free(struct tp_stat *s);
void tp_stat_add(struct tp_stat *s, s64 v);		/* this CPU */
void tp_stat_clear(struct tp_stat *s);			/* delete s */
/* Merge every CPU's cell into @out (tp_stat_cell_size() bytes). */
void tp_stat_read(struct tp_stat *s, struct tp_stat_cell *out);

/* ---- inline ---- */

/* v << shift without shifting a negative value (undefined in C). */
static inline s64 tp_stat_scaled(s64 v, int shift)
{
	return (s64)((u64)v << shift);
}

static inline void tp_stat_cell_add_in(const struct tp_stat_desc *d,
				       struct tp_stat_cell *c, s64 v)
{
	s64 x, delta;

	if (d->hist != TP_HIST_NONE)
		c->hist[tp_stat_bucket_of(d, v)]++;
	if (c->count == 0) {
		c->count = 1;
		c->sum = c->min = c->max = v;
		if (!d->no_variance) {
			c->avg_s = tp_stat_scaled(v, d->bit_shift);
			c->m2 = 0;
		}
		return;
	}
	c->count++;
	c->sum += v;
	if (v < c->min)
		c->min = v;
	if (v > c->max)
		c->max = v;
	if (d->no_variance)
		return;
	/* Welford; 64-bit wrapping arithmetic, as the kernel builds it */
	x = tp_stat_scaled(v, d->bit_shift);
	delta = (s64)((u64)x - (u64)c->avg_s);
	c->avg_s = (s64)((u64)c->avg_s + (u64)div64_s64(delta, c->count));
	c->m2 = (s64)((u64)c->m2 +
		      (u64)delta * ((u64)x - (u64)c->avg_s));
}

/* tp_stat_add(), inline, @d == s->desc a constant. */
static inline void tp_stat_add_in(struct tp_stat *s,
				  const struct tp_stat_desc *d, s64 v)
{
	tp_stat_cell_add_in(d, tp_this_cpu_ptr(s->cells), v);
}

#endif /* TAPIR_RUNTIME_STAT_H */
