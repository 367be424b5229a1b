/* arena.c - bump allocation in large chunks; nothing is freed singly. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

struct arena_chunk {
	struct arena_chunk *next;
	max_align_t data[];
};

#define ARENA_CHUNK (256 * 1024)

void arena_init(struct arena *a)
{
	memset(a, 0, sizeof(*a));
}

void arena_free(struct arena *a)
{
	struct arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(a, 0, sizeof(*a));
}

static void arena_grow(struct arena *a, size_t n)
{
	size_t size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
	struct arena_chunk *c = malloc(sizeof(*c) + size);

	if (!c) {
		fputs("tapir: out of memory\n", stderr);
		exit(2);
	}
	a->total += sizeof(*c) + size;
	c->next = a->head;
	a->head = c;
	a->cur = (char *)c->data;
	a->end = a->cur + size;
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
	memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

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
