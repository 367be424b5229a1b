/*
 * HAVE_COPY_FROM_USER_NOFAULT: copy_from_user_nofault() (5.8; before:
 * probe_user_read()).
 * exports: copy_from_user_nofault
 */
#include <linux/uaccess.h>

long tapir_feature(void *dst, const void __user *src, size_t n);
long tapir_feature(void *dst, const void __user *src, size_t n)
{
	return copy_from_user_nofault(dst, src, n);
}
