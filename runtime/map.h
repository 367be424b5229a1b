/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map.h - associative arrays: up to 9 keys (long or string), a long,
 * string or statistics value, preallocated at load.
 *
 * Every entry comes from a pool allocated by tp_map_init(); nothing is
 * allocated afterwards. Lookups hash the keys into a power-of-two bucket
 * table (chains of pool indices): O(1) on average. Entries also sit on a
 * list in insertion order: iteration follows it, and a `%` (wrap) array
 * that is full replaces its oldest entry; otherwise inserting into a full
 * array fails with -ENOSPC ("Array overflow, check MAXMAPENTRIES").
 * Strings (keys and values) are kept cut at MAXSTRINGLEN - 1 bytes.
 * A statistics value is one cell (stat.h) per entry. The map does not
 * lock: the caller serializes access as for any global.
 */
#ifndef TAPIR_RUNTIME_MAP_H
#define TAPIR_RUNTIME_MAP_H

#include "compat.h"
#include "stat.h"

#define TP_MAP_MAX_KEYS 9
#define TP_MAP_NONE 0xffffffffu

enum tp_key_type {
	TP_KEY_LONG,
	TP_KEY_STRING,
};

enum tp_val_type {
	TP_VAL_LONG,
	TP_VAL_STRING,
	TP_VAL_STAT,
};

/* One key or a lookup's key: the member the key's type says. */
union tp_key {
	s64 l;
	const char *s;
};

struct tp_map_desc {
	int nkeys;
	enum tp_key_type keys[TP_MAP_MAX_KEYS];
	enum tp_val_type val;
	const struct tp_stat_desc *stat;	/* TP_VAL_STAT */
	u32 capacity;		/* MAXMAPENTRIES or the declared size */
	bool wrap;		/* global a%[N] */
};

struct tp_map {
	const struct tp_map_desc *desc;
	u32 key_off[TP_MAP_MAX_KEYS];	/* within an entry */
	u32 val_off;
	u32 entry_size;
	u32 nbuckets;			/* power of two */
	u32 *buckets;			/* chain heads */
	unsigned char *pool;		/* capacity entries */
	u32 free;			/* free list head */
	u32 oldest, newest;		/* insertion-order list */
	u32 count;
	u64 seq;			/* insertion counter */
	/* Statistics arrays: probes add to them (a[k] <<< v) under the
	 * global's shared lock, as stap's per-CPU aggregates are added
	 * to, so the adds exclude one another with this (held for one
	 * lookup and one cell update; a CPU holds it only inside a
	 * handler, whose context a nested hit on it cannot claim). Every
	 * other use holds the global's exclusive lock. */
	tp_lock_t add_lock;
};

/* The head of every pool entry; keys and the value follow. */
struct tp_map_ent {
	u32 chain;		/* next in the hash bucket, or free list */
	u32 older, newer;	/* insertion-order list */
	u32 hash;
	u64 seq;		/* insertion number: ties keep this order */
};

int tp_map_init(struct tp_map *m, const struct tp_map_desc *d);
void tp_map_free(struct tp_map *m);

/* An entry is a pool index; TP_MAP_NONE is "no entry". */
u32 tp_map_find(const struct tp_map *m, const union tp_key *keys);
bool tp_map_exists(const struct tp_map *m, const union tp_key *keys);

/* Reads: an absent entry reads 0 / "" (a NULL cell for statistics). */
s64 tp_map_get_long(const struct tp_map *m, const union tp_key *keys);
const char *tp_map_get_string(const struct tp_map *m, const union tp_key *keys);

/* Writes create the entry; -ENOSPC when full (and not wrapping). */
int tp_map_set_long(struct tp_map *m, const union tp_key *keys, s64 v);
int tp_map_add_long(struct tp_map *m, const union tp_key *keys, s64 delta,
		    s64 *result);
int tp_map_set_string(struct tp_map *m, const union tp_key *keys,
		      const char *v);
int tp_map_stat_add(struct tp_map *m, const union tp_key *keys, s64 v);

/* delete a[k...]: 0, or -ENOENT when absent. */
int tp_map_delete(struct tp_map *m, const union tp_key *keys);
/* delete a */
void tp_map_clear(struct tp_map *m);
/* delete a[k, *, ...]: key i is a wildcard when bit i of @wild is set.
 * Returns the number of entries deleted. */
u32 tp_map_delete_slice(struct tp_map *m, const union tp_key *keys, u32 wild);
bool tp_map_matches(const struct tp_map *m, u32 e, const union tp_key *keys,
		    u32 wild);

/* Iteration in insertion order: for (e = tp_map_first(m); e !=
 * TP_MAP_NONE; e = tp_map_next(m, e)). */
u32 tp_map_first(const struct tp_map *m);
u32 tp_map_next(const struct tp_map *m, u32 e);

/* An entry's parts. */
s64 tp_map_key_long(const struct tp_map *m, u32 e, int i);
const char *tp_map_key_string(const struct tp_map *m, u32 e, int i);
s64 tp_map_value_long(const struct tp_map *m, u32 e);
const char *tp_map_value_string(const struct tp_map *m, u32 e);
struct tp_stat_cell *tp_map_value_stat(const struct tp_map *m, u32 e);

enum tp_stat_agg {
	TP_AGG_COUNT,
	TP_AGG_SUM,
	TP_AGG_MIN,
	TP_AGG_MAX,
	TP_AGG_AVG,
};

/* foreach's order: by the value (by == 0) or key `by` (1..nkeys),
 * ascending (dir > 0) or descending (dir < 0); dir == 0 is insertion
 * order. Entries comparing equal stay in insertion order. */
struct tp_map_sort {
	int by;
	int dir;
	enum tp_stat_agg agg;	/* statistics values */
	s64 limit;		/* < 0: none */
	const union tp_key *keys;	/* a slice to visit (NULL: all) */
	u32 wild;
};

/*
 * tp_map_sort - fill @idx (room for the map's capacity; allocate it at
 * init, never on the probe path) with the entries foreach visits.
 * Returns how many. No allocation; O(n log n) (heap sort).
 */
u32 tp_map_sort(const struct tp_map *m, const struct tp_map_sort *s, u32 *idx);

/* ---- the hit path, inline ----
 *
 * The generated code updates an element through these, giving the map's
 * descriptor (a compile-time constant) as @d == m->desc: the key loop
 * unrolls and each key's type is known. Keys are hashed once per hit;
 * string keys a word at a time where they are 8-byte aligned (a frame's
 * string, a stored key, current->comm), and compared against the stored
 * keys (aligned, zero after their bytes) a word at a time. Only a miss
 * leaves the inline path (tp_map_insert()).
 */

#ifndef __KERNEL__
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#endif

/* A lookup's keys hashed: the hash and each string key's stored length. */
struct tp_map_hashed {
	u32 hash;
	u32 len[TP_MAP_MAX_KEYS];
};

#define TP_MAP_MIX 0x9e3779b97f4a7c15ull	/* 2^64 / phi */
#define TP_MAP_ONES 0x0101010101010101ull
#define TP_MAP_HIGHS 0x8080808080808080ull

/*
 * The 8 bytes at @p (8-aligned) as a little-endian word, up to the first
 * NUL at least: the bytes after it are masked off by the callers. An
 * aligned word never crosses a page, so the kernel reads it whole; the
 * user-space build stops at the NUL (and leaves zeros after it).
 */
static __always_inline u64 tp_map_load(const char *p)
{
#ifdef __KERNEL__
	return le64_to_cpu((__force __le64)read_word_at_a_time(p));
#else
	const unsigned char *b = (const unsigned char *)p;
	u64 w = 0;
	int i;

	for (i = 0; i < 8 && b[i]; i++)
		w |= (u64)b[i] << (8 * i);
	return w;
#endif
}

/* The low @k bytes of @w (k < 8). */
static __always_inline u64 tp_map_low(u64 w, u32 k)
{
	return k ? w & (~0ull >> (64 - 8 * k)) : 0;
}

/* The string's bytes as stored (cut at MAXSTRINGLEN - 1) into the hash,
 * 8 at a time; their number in *len. map.c: the same for any alignment. */
u64 tp_map_hash_str_slow(u64 h, const char *s, u32 *len);

static __always_inline u64 tp_map_hash_str(u64 h, const char *s, u32 *len)
{
	u32 n = 0;

	if (unlikely((unsigned long)s & 7))
		return tp_map_hash_str_slow(h, s, len);
	for (;;) {
		u64 w = tp_map_load(s + n);
		u64 z = (w - TP_MAP_ONES) & ~w & TP_MAP_HIGHS;
		u32 k = z ? (u32)__builtin_ctzll(z) >> 3 : 8;

		if (k > MAXSTRINGLEN - 1 - n)
			k = MAXSTRINGLEN - 1 - n;
		if (k < 8) {
			*len = n + k;
			return (h ^ tp_map_low(w, k)) * TP_MAP_MIX;
		}
		h = (h ^ w) * TP_MAP_MIX;
		n += 8;
	}
}

static __always_inline void tp_map_hash_in(const struct tp_map_desc *d,
					   const union tp_key *keys,
					   struct tp_map_hashed *hk)
{
	u64 h = 0xcbf29ce484222325ull;
	int i;

	for (i = 0; i < d->nkeys; i++) {
		if (d->keys[i] == TP_KEY_LONG)
			h = (h ^ (u64)keys[i].l) * TP_MAP_MIX;
		else
			h = tp_map_hash_str(h, keys[i].s, &hk->len[i]);
	}
	h ^= h >> 29;
	hk->hash = (u32)(h ^ (h >> 32));
}

/* Stored key @f (8-aligned, zeros after its bytes) is @s of stored
 * length @n. */
static __always_inline bool tp_map_str_eq(const char *f, const char *s, u32 n)
{
	u32 i;

	if (unlikely((unsigned long)s & 7))
		return !memcmp(f, s, n) && f[n] == '\0';
	for (i = 0; i + 8 <= n; i += 8)
		if (tp_map_load(f + i) != tp_map_load(s + i))
			return false;
	/* the word holding the NUL: f's has zeros from n on */
	return tp_map_load(f + i) == tp_map_low(tp_map_load(s + i), n - i);
}

static __always_inline struct tp_map_ent *tp_map_ent(const struct tp_map *m,
						     u32 e)
{
	return (struct tp_map_ent *)(m->pool + (size_t)e * m->entry_size);
}

static __always_inline u32 tp_map_find_in(const struct tp_map *m,
					  const struct tp_map_desc *d,
					  const union tp_key *keys,
					  const struct tp_map_hashed *hk)
{
	u32 e;
	int i;

	for (e = m->buckets[hk->hash & (m->nbuckets - 1)]; e != TP_MAP_NONE;
	     e = tp_map_ent(m, e)->chain) {
		const char *x = (const char *)tp_map_ent(m, e);

		if (tp_map_ent(m, e)->hash != hk->hash)
			continue;
		for (i = 0; i < d->nkeys; i++) {
			const char *f = x + m->key_off[i];

			if (d->keys[i] == TP_KEY_LONG ?
			    *(const s64 *)f != keys[i].l :
			    !tp_map_str_eq(f, keys[i].s, hk->len[i]))
				break;
		}
		if (i == d->nkeys)
			return e;
	}
	return TP_MAP_NONE;
}

/* A miss: add the entry (0/""/empty); -ENOSPC when full, not wrapping. */
int tp_map_insert(struct tp_map *m, const union tp_key *keys,
		  const struct tp_map_hashed *hk, u32 *out);

static __always_inline int tp_map_lookup_in(struct tp_map *m,
					    const struct tp_map_desc *d,
					    const union tp_key *keys, u32 *out)
{
	struct tp_map_hashed hk;

	tp_map_hash_in(d, keys, &hk);
	*out = tp_map_find_in(m, d, keys, &hk);
	if (likely(*out != TP_MAP_NONE))
		return 0;
	return tp_map_insert(m, keys, &hk, out);
}

/* a[k] += delta (++, --, -=: the caller negates), one lookup. */
static __always_inline int tp_map_add_long_in(struct tp_map *m,
					      const struct tp_map_desc *d,
					      const union tp_key *keys,
					      s64 delta, s64 *result)
{
	u32 e;
	int err = tp_map_lookup_in(m, d, keys, &e);
	s64 *v;

	if (unlikely(err))
		return err;
	v = (s64 *)((char *)tp_map_ent(m, e) + m->val_off);
	*v = (s64)((u64)*v + (u64)delta);
	if (result)
		*result = *v;
	return 0;
}

/* a[k] <<< v */
static __always_inline int tp_map_stat_add_in(struct tp_map *m,
					      const struct tp_map_desc *d,
					      const union tp_key *keys, s64 v)
{
	u32 e;
	int err;

	tp_spin_lock(&m->add_lock);
	err = tp_map_lookup_in(m, d, keys, &e);
	if (likely(!err))
		tp_stat_cell_add_in(d->stat, (struct tp_stat_cell *)
				    ((char *)tp_map_ent(m, e) + m->val_off), v);
	tp_spin_unlock(&m->add_lock);
	return err;
}

#endif /* TAPIR_RUNTIME_MAP_H */
