/* cache-order.h - the order stap 4.8 meets a CU's functions in (see
 * cache-order.c). */
#ifndef TAPIR_CACHE_ORDER_H
#define TAPIR_CACHE_ORDER_H

#include <stddef.h>

/* order[0..n): the indexes of names[], inserted in index order into a
 * libstdc++ std::unordered_multimap<std::string_view, ...>, in its
 * iteration order. */
void cache_order(const char *const *names, size_t n, size_t *order);

#endif
