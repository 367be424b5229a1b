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

#endif /* TAPIR_RUNTIME_MAP_H */
