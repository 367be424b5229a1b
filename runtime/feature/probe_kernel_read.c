/*
 * HAVE_PROBE_KERNEL_READ: the old name of copy_from_kernel_nofault()
 * (renamed in 5.8).
 */
#include <linux/uaccess.h>

long tapir_feature(void *dst, const void *src, size_t n);
long tapir_feature(void *dst, const void *src, size_t n)
{
	return probe_kernel_read(dst, src, n);
}
