// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * map.c - preallocated associative arrays (map.h).
 * Same source for the module and the user-space unit tests (compat.h).
 */
#include "map.h"

static unsigned char *field(const struct tp_map *m, u32 e, u32 off)
{
	return m->pool + (size_t)e * m->entry_size + off;
}

static u32 align8(u32 n)
{
	return (n + 7) & ~7u;
}

static size_t value_size(const struct tp_map_desc *d)
{
	switch (d->val) {
	case TP_VAL_LONG:
		return sizeof(s64);
	case TP_VAL_STRING:
		return MAXSTRINGLEN;
	default:
		return tp_stat_cell_size(d->stat);
	}
}

/* Put every pool entry on the free list; empty the buckets. */
static void reset(struct tp_map *m)
{
	u32 i;

	for (i = 0; i < m->nbuckets; i++)
		m->buckets[i] = TP_MAP_NONE;
	for (i = 0; i < m->desc->capacity; i++)
		tp_map_ent(m, i)->chain = i + 1 < m->desc->capacity ? i + 1 : TP_MAP_NONE;
	m->free = m->desc->capacity ? 0 : TP_MAP_NONE;
	m->oldest = m->newest = TP_MAP_NONE;
	m->count = 0;
}

/* What the map's buckets and pool hold (module_size()) */
static size_t map_bytes(const struct tp_map *m)
{
	return (size_t)m->nbuckets * sizeof(u32) +
	       (size_t)m->desc->capacity * m->entry_size;
}

int tp_map_init(struct tp_map *m, const struct tp_map_desc *d)
{
	u32 off = sizeof(struct tp_map_ent);
	int i;

	memset(m, 0, sizeof(*m));
	if (d->nkeys < 1 || d->nkeys > TP_MAP_MAX_KEYS || !d->capacity ||
	    d->capacity > (1u << 24) || (d->val == TP_VAL_STAT &&
	    (!d->stat || tp_stat_desc_check(d->stat))))
		return -EINVAL;
	m->desc = d;
	tp_lock_init(&m->add_lock);
	for (i = 0; i < d->nkeys; i++) {
		m->key_off[i] = off;
		off = align8(off + (d->keys[i] == TP_KEY_LONG ?
				    sizeof(s64) : MAXSTRINGLEN));
	}
	m->val_off = off;
	m->entry_size = align8(off + (u32)value_size(d));
	for (m->nbuckets = 1; m->nbuckets < d->capacity; m->nbuckets <<= 1)
		;
	m->buckets = tp_zalloc(m->nbuckets * sizeof(u32));
	m->pool = tp_zalloc((size_t)d->capacity * m->entry_size);
	if (!m->buckets || !m->pool) {
		tp_map_free(m);
		return -ENOMEM;
	}
	tp_data_account((long)map_bytes(m));
	reset(m);
	return 0;
}

void tp_map_free(struct tp_map *m)
{
	if (m->buckets && m->pool)
		tp_data_account(-(long)map_bytes(m));
	tp_free(m->buckets);
	tp_free(m->pool);
	m->buckets = NULL;
	m->pool = NULL;
}

/* The bytes of a string as stored: cut at MAXSTRINGLEN - 1. */
static size_t stored_len(const char *s)
{
	size_t n = 0;

	while (n < MAXSTRINGLEN - 1 && s[n])
		n++;
	return n;
}

u64 tp_map_hash_str_slow(u64 h, const char *s, u32 *len)
{
	const unsigned char *b = (const unsigned char *)s;
	u32 n = 0;

	/* as tp_map_hash_str(): words of 8 bytes, little-endian, the last
	 * one partial (perhaps empty) */
	for (;;) {
		u64 w = 0;
		u32 k = 0;

		while (k < 8 && n + k < MAXSTRINGLEN - 1 && b[n + k]) {
			w |= (u64)b[n + k] << (8 * k);
			k++;
		}
		if (k < 8) {
			*len = n + k;
			return (h ^ w) * TP_MAP_MIX;
		}
		h = (h ^ w) * TP_MAP_MIX;
		n += 8;
	}
}

static bool key_equal(const struct tp_map *m, u32 e, int i,
		      const union tp_key *k)
{
	const unsigned char *f = field(m, e, m->key_off[i]);
	size_t n;

	if (m->desc->keys[i] == TP_KEY_LONG)
		return *(const s64 *)f == k->l;
	n = stored_len(k->s);
	return !memcmp(f, k->s, n) && f[n] == '\0';
}

bool tp_map_matches(const struct tp_map *m, u32 e, const union tp_key *keys,
		    u32 wild)
{
	int i;

	for (i = 0; i < m->desc->nkeys; i++)
		if (!(wild & (1u << i)) && !key_equal(m, e, i, &keys[i]))
			return false;
	return true;
}

u32 tp_map_find(const struct tp_map *m, const union tp_key *keys)
{
	struct tp_map_hashed hk;

	tp_map_hash_in(m->desc, keys, &hk);
	return tp_map_find_in(m, m->desc, keys, &hk);
}

bool tp_map_exists(const struct tp_map *m, const union tp_key *keys)
{
	return tp_map_find(m, keys) != TP_MAP_NONE;
}

/* Unlink entry @e from its bucket and the order list; free it. */
static void remove_entry(struct tp_map *m, u32 e)
{
	struct tp_map_ent *x = tp_map_ent(m, e);
	u32 *p = &m->buckets[x->hash & (m->nbuckets - 1)];

	while (*p != e)
		p = &tp_map_ent(m, *p)->chain;
	*p = x->chain;
	if (x->older != TP_MAP_NONE)
		tp_map_ent(m, x->older)->newer = x->newer;
	else
		m->oldest = x->newer;
	if (x->newer != TP_MAP_NONE)
		tp_map_ent(m, x->newer)->older = x->older;
	else
		m->newest = x->older;
	x->chain = m->free;
	m->free = e;
	m->count--;
}

int tp_map_insert(struct tp_map *m, const union tp_key *keys,
		  const struct tp_map_hashed *hk, u32 *out)
{
	u32 h = hk->hash, e;
	struct tp_map_ent *x;
	int i;

	if (m->free == TP_MAP_NONE) {
		if (!m->desc->wrap)
			return -ENOSPC;
		remove_entry(m, m->oldest);
	}
	e = m->free;
	x = tp_map_ent(m, e);
	m->free = x->chain;
	memset(m->pool + (size_t)e * m->entry_size, 0, m->entry_size);
	x->hash = h;
	x->seq = m->seq++;
	x->chain = m->buckets[h & (m->nbuckets - 1)];
	m->buckets[h & (m->nbuckets - 1)] = e;
	x->older = m->newest;
	x->newer = TP_MAP_NONE;
	if (m->newest != TP_MAP_NONE)
		tp_map_ent(m, m->newest)->newer = e;
	else
		m->oldest = e;
	m->newest = e;
	m->count++;
	for (i = 0; i < m->desc->nkeys; i++) {
		unsigned char *f = field(m, e, m->key_off[i]);

		if (m->desc->keys[i] == TP_KEY_LONG)
			*(s64 *)f = keys[i].l;
		else
			memcpy(f, keys[i].s, hk->len[i]);
	}
	*out = e;
	return 0;
}

/* Find or create the entry for @keys; a new entry's value is 0/""/empty. */
static int lookup_or_add(struct tp_map *m, const union tp_key *keys, u32 *out)
{
	return tp_map_lookup_in(m, m->desc, keys, out);
}

s64 tp_map_get_long(const struct tp_map *m, const union tp_key *keys)
{
	u32 e = tp_map_find(m, keys);

	return e == TP_MAP_NONE ? 0 : tp_map_value_long(m, e);
}

const char *tp_map_get_string(const struct tp_map *m, const union tp_key *keys)
{
	u32 e = tp_map_find(m, keys);

	return e == TP_MAP_NONE ? "" : tp_map_value_string(m, e);
}

int tp_map_set_long(struct tp_map *m, const union tp_key *keys, s64 v)
{
	u32 e;
	int err = lookup_or_add(m, keys, &e);

	if (!err)
		*(s64 *)field(m, e, m->val_off) = v;
	return err;
}

int tp_map_add_long(struct tp_map *m, const union tp_key *keys, s64 delta,
		    s64 *result)
{
	return tp_map_add_long_in(m, m->desc, keys, delta, result);
}

int tp_map_set_string(struct tp_map *m, const union tp_key *keys,
		      const char *v)
{
	u32 e;
	int err = lookup_or_add(m, keys, &e);
	char *f;
	size_t n;

	if (err)
		return err;
	f = (char *)field(m, e, m->val_off);
	n = stored_len(v);
	memmove(f, v, n);
	f[n] = '\0';
	return 0;
}

int tp_map_stat_add(struct tp_map *m, const union tp_key *keys, s64 v)
{
	return tp_map_stat_add_in(m, m->desc, keys, v);
}

int tp_map_delete(struct tp_map *m, const union tp_key *keys)
{
	u32 e = tp_map_find(m, keys);

	if (e == TP_MAP_NONE)
		return -ENOENT;
	remove_entry(m, e);
	return 0;
}

void tp_map_clear(struct tp_map *m)
{
	reset(m);
}

u32 tp_map_delete_slice(struct tp_map *m, const union tp_key *keys, u32 wild)
{
	u32 e = m->oldest, next, n = 0;

	while (e != TP_MAP_NONE) {
		next = tp_map_ent(m, e)->newer;
		if (tp_map_matches(m, e, keys, wild)) {
			remove_entry(m, e);
			n++;
		}
		e = next;
	}
	return n;
}

u32 tp_map_first(const struct tp_map *m)
{
	return m->oldest;
}

u32 tp_map_next(const struct tp_map *m, u32 e)
{
	return tp_map_ent(m, e)->newer;
}

s64 tp_map_key_long(const struct tp_map *m, u32 e, int i)
{
	return *(const s64 *)field(m, e, m->key_off[i]);
}

const char *tp_map_key_string(const struct tp_map *m, u32 e, int i)
{
	return (const char *)field(m, e, m->key_off[i]);
}

s64 tp_map_value_long(const struct tp_map *m, u32 e)
{
	return *(const s64 *)field(m, e, m->val_off);
}

const char *tp_map_value_string(const struct tp_map *m, u32 e)
{
	return (const char *)field(m, e, m->val_off);
}

struct tp_stat_cell *tp_map_value_stat(const struct tp_map *m, u32 e)
{
	return (struct tp_stat_cell *)field(m, e, m->val_off);
}

/* ---- foreach order ---- */

static s64 agg_of(const struct tp_stat_cell *c, enum tp_stat_agg agg)
{
	s64 avg = 0;

	switch (agg) {
	case TP_AGG_SUM:
		return c->sum;
	case TP_AGG_MIN:
		return c->min;
	case TP_AGG_MAX:
		return c->max;
	case TP_AGG_AVG:
		tp_stat_avg(c, &avg);
		return avg;
	default:
		return c->count;
	}
}

static int cmp_s64(s64 a, s64 b)
{
	return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
	int r = strcmp(a, b);

	return r < 0 ? -1 : r > 0;
}

/* Compare two entries in the order requested; ties by insertion. */
static int compare(const struct tp_map *m, const struct tp_map_sort *s,
		   u32 a, u32 b)
{
	int r = 0, k = s->by - 1;

	if (s->by > 0 && m->desc->keys[k] == TP_KEY_LONG)
		r = cmp_s64(tp_map_key_long(m, a, k), tp_map_key_long(m, b, k));
	else if (s->by > 0)
		r = cmp_str(tp_map_key_string(m, a, k),
			    tp_map_key_string(m, b, k));
	else if (m->desc->val == TP_VAL_LONG)
		r = cmp_s64(tp_map_value_long(m, a), tp_map_value_long(m, b));
	else if (m->desc->val == TP_VAL_STRING)
		r = cmp_str(tp_map_value_string(m, a),
			    tp_map_value_string(m, b));
	else
		r = cmp_s64(agg_of(tp_map_value_stat(m, a), s->agg),
			    agg_of(tp_map_value_stat(m, b), s->agg));
	r = s->dir < 0 ? -r : s->dir > 0 ? r : 0;
	return r ? r : cmp_s64((s64)tp_map_ent(m, a)->seq, (s64)tp_map_ent(m, b)->seq);
}

static void sift_down(const struct tp_map *m, const struct tp_map_sort *s,
		      u32 *idx, u32 root, u32 n)
{
	u32 child, t;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && compare(m, s, idx[child], idx[child + 1]) < 0)
			child++;
		if (compare(m, s, idx[root], idx[child]) >= 0)
			return;
		t = idx[root];
		idx[root] = idx[child];
		idx[child] = t;
		root = child;
	}
}

u32 tp_map_sort(const struct tp_map *m, const struct tp_map_sort *s, u32 *idx)
{
	u32 n = 0, i, t, e;

	for (e = m->oldest; e != TP_MAP_NONE; e = tp_map_ent(m, e)->newer)
		if (!s->keys || tp_map_matches(m, e, s->keys, s->wild))
			idx[n++] = e;
	if (s->dir && n > 1) {
		for (i = n / 2; i-- > 0;)
			sift_down(m, s, idx, i, n);
		for (i = n - 1; i > 0; i--) {
			t = idx[0];
			idx[0] = idx[i];
			idx[i] = t;
			sift_down(m, s, idx, 0, i);
		}
	}
	if (s->limit >= 0 && (u64)s->limit < n)
		n = (u32)s->limit;
	return n;
}
