/* strmap.c - chained hashing; entries are never removed. */
#include <string.h>

#include "arena.h"
#include "strmap.h"

static size_t hash(const char *s)
{
	size_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void grow(struct arena *a, struct strmap *m)
{
	size_t n = m->nbuckets ? m->nbuckets * 2 : 64;
	struct strmap_entry **v = arena_alloc(a, n * sizeof(*v));

	for (size_t i = 0; i < m->nbuckets; i++) {
		struct strmap_entry *e = m->buckets[i], *next;

		/* keep insertion order within a key: newest first */
		struct strmap_entry *rev = NULL;

		for (; e; e = next) {
			next = e->next;
			e->next = rev;
			rev = e;
		}
		for (e = rev; e; e = next) {
			size_t b = hash(e->key) & (n - 1);

			next = e->next;
			e->next = v[b];
			v[b] = e;
		}
	}
	m->buckets = v;
	m->nbuckets = n;
}

void strmap_add(struct arena *a, struct strmap *m, const char *key, void *value)
{
	struct strmap_entry *e = arena_alloc(a, sizeof(*e));
	size_t b;

	if (m->count >= m->nbuckets)
		grow(a, m);
	b = hash(key) & (m->nbuckets - 1);
	e->key = key;
	e->value = value;
	e->next = m->buckets[b];
	m->buckets[b] = e;
	m->count++;
}

struct strmap_entry *strmap_next(const struct strmap *m, const char *key,
				 struct strmap_entry *prev)
{
	struct strmap_entry *e;

	if (!m->nbuckets)
		return NULL;
	e = prev ? prev->next : m->buckets[hash(key) & (m->nbuckets - 1)];
	for (; e; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e;
	return NULL;
}

void *strmap_get(const struct strmap *m, const char *key)
{
	struct strmap_entry *e = strmap_next(m, key, NULL);

	return e ? e->value : NULL;
}

void strmap_each(const struct strmap *m,
		 void (*fn)(const char *key, void *value, void *arg), void *arg)
{
	for (size_t i = 0; i < m->nbuckets; i++)
		for (struct strmap_entry *e = m->buckets[i]; e; e = e->next)
			fn(e->key, e->value, arg);
}
