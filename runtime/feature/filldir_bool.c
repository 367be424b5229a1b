/*
 * HAVE_FILLDIR_BOOL: a struct dir_context actor returns bool, true to go
 * on (6.1; before: int, 0 to go on).
 */
#include <linux/fs.h>

static bool tapir_actor(struct dir_context *ctx, const char *name, int len,
			loff_t off, u64 ino, unsigned int type)
{
	return true;
}

const struct dir_context tapir_feature = { .actor = tapir_actor };
