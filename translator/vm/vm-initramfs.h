/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-initramfs.h - the VM runner's initramfs pieces (internal to vm.c).
 *
 * A cpio "newc" archive written front to back. Names are paths inside the
 * archive without a leading '/'; missing parent directories are added.
 * Functions that can fail return -1 and set *err to a malloc'd message;
 * the others note failure in c->failed, reported by cpio_close().
 */
#ifndef TAPIR_VM_INITRAMFS_H
#define TAPIR_VM_INITRAMFS_H

#include <stddef.h>
#include <stdio.h>

struct cpio {
	FILE *f;
	const char *path;
	unsigned int ino;
	char **dirs;		/* directories written so far */
	size_t ndirs;
	int failed;
};

int cpio_open(struct cpio *c, const char *path);
int cpio_close(struct cpio *c, char **err);
int cpio_has_dir(struct cpio *c, const char *name);
void cpio_dir(struct cpio *c, const char *name);
void cpio_data(struct cpio *c, const char *name, unsigned int mode,
	       const void *data, size_t len);
void cpio_symlink(struct cpio *c, const char *name, const char *target);
void cpio_node(struct cpio *c, const char *name, unsigned int mode,
	       unsigned int maj, unsigned int min);
/* A host file; mode 0 keeps the file's permission bits. */
int cpio_file(struct cpio *c, const char *name, const char *host,
	      unsigned int mode, char **err);
/* A host file, symlink or directory (recursively). */
int cpio_tree(struct cpio *c, const char *name, const char *host, char **err);

/* Guest kernel modules, as paths relative to /lib/modules/RELEASE. */
struct modlist {
	char *path[32];		/* relative to /lib/modules/RELEASE */
	int n;
};

/*
 * The modules virtio_pci and virtio_console need, dependencies first
 * (none if built in). -1 when the release has no such modules.
 */
int vm_virtio_modules(const char *release, struct modlist *m);
void modlist_free(struct modlist *m);

#endif /* TAPIR_VM_INITRAMFS_H */
