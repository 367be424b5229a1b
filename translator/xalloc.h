/* xalloc.h - allocation that cannot fail: out of memory ends the run
 * with a message (the translator has nothing sensible to fall back to). */
#ifndef TAPIR_XALLOC_H
#define TAPIR_XALLOC_H

#include <stddef.h>

void out_of_memory(void) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
