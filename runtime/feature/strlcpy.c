/* HAVE_STRLCPY: strlcpy() exists (removed in 6.8: use strscpy()). */
#include <linux/string.h>

size_t tapir_feature(char *d, const char *s, size_t n);
size_t tapir_feature(char *d, const char *s, size_t n)
{
	return strlcpy(d, s, n);
}
