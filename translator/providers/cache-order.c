/* cache-order.c - the order in which stap 4.8 meets the functions of one
 * compilation unit.
 *
 * stap keeps a CU's functions in a C++ std::unordered_multimap keyed by
 * name (libstdc++), filled in DIE order, and where several DWARF
 * functions share one entry address (glibc's assembly syscall stubs:
 * __fchdir, __GI___fchdir, fchdir, __GI_fchdir) the name it prints for
 * that address is the first other one in that map's iteration order
 * (observed: function("fchdir") lists __GI_fchdir@..., function
 * ("__GI_fchdir") lists fchdir@...). That order is libstdc++'s, not
 * stap's: the hash is _Hash_bytes (a MurmurHash2 variant, seed
 * 0xc70f6907), a new key goes to the front of its bucket's run, or to
 * the front of the whole list when its bucket is empty, and the bucket
 * count grows through 13, 29, 59, 127, ... as the count of keys passes
 * it, each rehash walking the old list in order.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache-order.h"
#include "xalloc.h"

static uint64_t shift_mix(uint64_t v)
{
	return v ^ (v >> 47);
}

static uint64_t hash_bytes(const char *buf, size_t len)
{
	const uint64_t mul = ((uint64_t)0xc6a4a793UL << 32) + 0x5bd1e995UL;
	size_t aligned = len & ~(size_t)7;
	uint64_t h = 0xc70f6907UL ^ (len * mul);

	for (size_t i = 0; i < aligned; i += 8) {
		uint64_t d;

		memcpy(&d, buf + i, 8);	/* little-endian, as the host */
		h ^= shift_mix(d * mul) * mul;
		h *= mul;
	}
	if (len & 7) {
		uint64_t d = 0;

		for (size_t i = len; i-- > aligned;)
			d = (d << 8) + (unsigned char)buf[i];
		h ^= d;
		h *= mul;
	}
	h = shift_mix(h) * mul;
	return shift_mix(h);
}

/* libstdc++'s bucket counts for a growing table: the first insert
 * makes 13, and past each count the next one */
static const size_t bucket_counts[] = {
	13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043,
	85229, 172933, 351061, 712697, 1447153, 2938679,
};

struct table {
	size_t nb;
	size_t *bucket;		/* node before the bucket's first; NONE:
				 * empty, HEAD: the list's head */
	size_t *next;		/* per node; NONE ends the list */
	size_t head;
	const uint64_t *code;
};

#define NONE ((size_t)-1)
#define HEAD ((size_t)-2)

static size_t *next_of(struct table *t, size_t before)
{
	return before == HEAD ? &t->head : &t->next[before];
}

/* _M_insert_bucket_begin */
static void insert_begin(struct table *t, size_t node)
{
	size_t b = t->code[node] % t->nb;

	if (t->bucket[b] != NONE) {
		size_t *p = next_of(t, t->bucket[b]);

		t->next[node] = *p;
		*p = node;
		return;
	}
	t->next[node] = t->head;
	t->head = node;
	if (t->next[node] != NONE)
		t->bucket[t->code[t->next[node]] % t->nb] = node;
	t->bucket[b] = HEAD;
}

/* node went in after others of bucket b: the bucket after it, if
 * another, now starts after node */
static void fix_next_bucket(struct table *t, size_t node, size_t b)
{
	if (t->next[node] != NONE) {
		size_t nb = t->code[t->next[node]] % t->nb;

		if (nb != b)
			t->bucket[nb] = node;
	}
}

/* _M_rehash_aux for equivalent keys: the old list in order, a node that
 * follows one of its own new bucket going right after it */
static void rehash(struct table *t, size_t nb)
{
	size_t p = t->head, prev = NONE, prev_b = 0, bbegin = 0;
	bool check = false;

	free(t->bucket);
	t->nb = nb;
	t->bucket = xmalloc(nb * sizeof(*t->bucket));
	for (size_t i = 0; i < nb; i++)
		t->bucket[i] = NONE;
	t->head = NONE;
	while (p != NONE) {
		size_t nx = t->next[p], b = t->code[p] % nb;

		if (prev != NONE && prev_b == b) {
			t->next[p] = t->next[prev];
			t->next[prev] = p;
			check = true;
		} else {
			if (check)
				fix_next_bucket(t, prev, prev_b);
			check = false;
			if (t->bucket[b] == NONE) {
				t->next[p] = t->head;
				t->head = p;
				t->bucket[b] = HEAD;
				if (t->next[p] != NONE)
					t->bucket[bbegin] = p;
				bbegin = b;
			} else {
				size_t *q = next_of(t, t->bucket[b]);

				t->next[p] = *q;
				*q = p;
			}
		}
		prev = p;
		prev_b = b;
		p = nx;
	}
	if (check)
		fix_next_bucket(t, prev, prev_b);
}

void cache_order(const char *const *names, size_t n, size_t *order)
{
	uint64_t *code = xmalloc((n + 1) * sizeof(*code));
	struct table t = {
		.next = xmalloc((n + 1) * sizeof(size_t)),
		.head = NONE, .code = code,
	};
	size_t grow = 0;

	for (size_t i = 0; i < n; i++) {
		size_t before = HEAD, *p;

		code[i] = hash_bytes(names[i], strlen(names[i]));
		if (i == 0 || (i + 1 > t.nb &&
			       grow + 1 < sizeof(bucket_counts) /
					  sizeof(*bucket_counts)))
			rehash(&t, bucket_counts[i == 0 ? 0 : ++grow]);
		/* an equal key: the new one goes just before it */
		for (size_t q = t.head; q != NONE; before = q, q = t.next[q])
			if (code[q] == code[i] && strcmp(names[q], names[i]) == 0)
				break;
		p = next_of(&t, before);
		if (*p != NONE) {
			/* (before it, in its bucket: the buckets stay) */
			t.next[i] = *p;
			*p = i;
		} else {
			insert_begin(&t, i);
		}
	}
	for (size_t q = t.head, k = 0; q != NONE; q = t.next[q])
		order[k++] = q;
	free(t.bucket);
	free(t.next);
	free(code);
}
