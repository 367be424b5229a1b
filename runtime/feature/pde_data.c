/* HAVE_PDE_DATA: pde_data() (5.17; before: PDE_DATA()). */
#include <linux/proc_fs.h>

void *tapir_feature(const struct inode *inode);
void *tapir_feature(const struct inode *inode)
{
	return pde_data(inode);
}
