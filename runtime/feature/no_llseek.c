/* HAVE_NO_LLSEEK: no_llseek() exists (removed in 6.12: use noop_llseek). */
#include <linux/fs.h>

static const struct file_operations tapir_fops __attribute__((used)) = {
	.llseek = no_llseek,
};
