/*
 * HAVE_COPY_FROM_KERNEL_NOFAULT: safe kernel reads by
 * copy_from_kernel_nofault() (5.8; before: probe_kernel_read()).
 * exports: copy_from_kernel_nofault
 */
#include <linux/uaccess.h>

long tapir_feature(void *dst, const void *src, size_t n);
long tapir_feature(void *dst, const void *src, size_t n)
{
	return copy_from_kernel_nofault(dst, src, n);
}
