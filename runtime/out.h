/* out.h - a bounded output buffer shared by the formatting code: bytes
 * beyond size are counted, not written, so callers learn the full length. */
#ifndef TAPIR_RUNTIME_OUT_H
#define TAPIR_RUNTIME_OUT_H

#include "compat.h"

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static inline void put(struct out *o, char c)
{
	if (o->len < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static inline void put_n(struct out *o, char c, long n)
{
	while (n-- > 0)
		put(o, c);
}

#endif
