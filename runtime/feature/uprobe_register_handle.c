/*
 * HAVE_UPROBE_REGISTER_HANDLE: uprobe_register(inode, offset, ref_ctr,
 * uc) returns the struct uprobe * that uprobe_unregister_nosync() takes,
 * and uprobe_unregister_sync() ends a batch (6.12; before: an int, and
 * uprobe_unregister(inode, offset, uc)).
 * exports: uprobe_register uprobe_unregister_nosync uprobe_unregister_sync
 */
#include <linux/uprobes.h>

struct uprobe *tapir_feature(struct inode *i, struct uprobe_consumer *uc);
struct uprobe *tapir_feature(struct inode *i, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(i, 0, 0, uc);

	if (!IS_ERR(u))
		uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
	return u;
}
