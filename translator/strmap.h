/* strmap.h - string-keyed multimap in the session arena. */
#ifndef TAPIR_STRMAP_H
#define TAPIR_STRMAP_H

#include <stddef.h>

struct arena;

struct strmap_entry {
	const char *key;
	void *value;
	struct strmap_entry *next;	/* same bucket */
};

struct strmap {
	struct strmap_entry **buckets;
	size_t nbuckets, count;
};

void strmap_add(struct arena *a, struct strmap *m, const char *key, void *value);
/* The first value under key (the last added), or NULL. */
void *strmap_get(const struct strmap *m, const char *key);
/* Every entry under key: start with NULL, stop at NULL. */
struct strmap_entry *strmap_next(const struct strmap *m, const char *key,
				 struct strmap_entry *prev);
/* Every entry, in no particular order. */
void strmap_each(const struct strmap *m,
		 void (*fn)(const char *key, void *value, void *arg), void *arg);

#endif
