/* arena.c - bump allocation in large chunks; nothing is freed singly. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "xalloc.h"

struct arena_chunk {
	struct arena_chunk *next;
	size_t size;		/* of the whole chunk */
	max_align_t data[];
};

/* Chunks start small (most scripts are small) and double up to 2 MiB,
 * the size of a transparent huge page. */
#define ARENA_FIRST (64 * 1024)
#define ARENA_MAX (2 * 1024 * 1024)

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		if (c->size >= ARENA_MAX)
			munmap(c, c->size);
		else
			free(c);
	}
	memset(a, 0, sizeof(*a));
}

/* Chunks come zeroed (mmap, or calloc for small ones) so that
 * arena_alloc need not clear what it hands out. */
static void arena_grow(struct arena *a, size_t n)
{
	size_t size = a->next_size ? a->next_size : ARENA_FIRST;
	struct arena_chunk *c;

	if (size < ARENA_MAX)
		a->next_size = size * 2;
	if (n > size / 4)
		size = n;
	size += sizeof(*c);
	if (size >= ARENA_MAX) {
		size = (size + ARENA_MAX - 1) & ~(size_t)(ARENA_MAX - 1);
		c = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c == MAP_FAILED)
			c = NULL;
		else
			madvise(c, size, MADV_HUGEPAGE);
	} else {
		c = calloc(1, size);
	}
	if (!c) {
		out_of_memory();
	}
	a->total += size;
	c->size = size;
	c->next = a->head;
	a->head = c;
	a->cur = (char *)c->data;
	a->end = (char *)c + size;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (n == 0)
		n = sizeof(max_align_t);
	if ((size_t)(a->end - a->cur) < n)
		arena_grow(a, n);
	p = a->cur;
	a->cur += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);	/* zeroed: the NUL is there */

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = arena_alloc(a, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
