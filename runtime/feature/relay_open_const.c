/*
 * HAVE_RELAY_OPEN_CONST: relay_open() takes a const struct
 * rchan_callbacks * and create_buf_file/remove_buf_file (5.11).
 * exports: relay_open
 */
#include <linux/relay.h>

struct rchan *tapir_feature(const struct rchan_callbacks *cb);
struct rchan *tapir_feature(const struct rchan_callbacks *cb)
{
	struct rchan *(*open)(const char *, struct dentry *, size_t, size_t,
			      const struct rchan_callbacks *, void *) = relay_open;

	return open("tapir", NULL, 4096, 4, cb, NULL);
}
