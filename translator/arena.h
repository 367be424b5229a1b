/* arena.h - one bump allocator per compile, freed in one sweep. */
#ifndef TAPIR_ARENA_H
#define TAPIR_ARENA_H

#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head;
	char *cur, *end;
	size_t total;		/* bytes obtained from malloc, for benches */
	size_t next_size;	/* size of the next chunk */
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);		/* zeroed */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define ANEW(a, type) ((type *)arena_alloc((a), sizeof(type)))

#endif
