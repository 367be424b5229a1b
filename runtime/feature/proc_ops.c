/*
 * HAVE_PROC_OPS: proc_create() takes a struct proc_ops (5.6; before: a
 * struct file_operations).
 */
#include <linux/proc_fs.h>

static const struct proc_ops tapir_ops __attribute__((used)) = {
	.proc_lseek = NULL,
};

struct proc_dir_entry *tapir_feature(void);
struct proc_dir_entry *tapir_feature(void)
{
	return proc_create("tapir", 0400, NULL, &tapir_ops);
}
