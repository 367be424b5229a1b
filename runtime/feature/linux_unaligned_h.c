/* HAVE_LINUX_UNALIGNED_H: <linux/unaligned.h> (6.12; before: <asm/unaligned.h>). */
#include <linux/unaligned.h>

u32 tapir_feature(const void *p);
u32 tapir_feature(const void *p)
{
	return get_unaligned_le32(p);
}
