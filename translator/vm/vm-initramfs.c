// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vm-initramfs.c - what the VM runner's initramfs is made of: a writer for
 * the cpio "newc" format the kernel unpacks, and the lookup of the guest
 * kernel modules the agent's virtio console channel needs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "vm-initramfs.h"

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* ------------------------------------------------------------------ */
/* cpio "newc" writer                                                   */

static void cpio_pad(struct cpio *c)
{
	static const char zero[4];
	long pos = ftell(c->f);

	if (pos > 0 && pos % 4)
		fwrite(zero, 1, 4 - pos % 4, c->f);
}

static void cpio_header(struct cpio *c, const char *name, unsigned int mode,
			size_t size, unsigned int rmaj, unsigned int rmin)
{
	size_t nlen = strlen(name) + 1;

	fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		++c->ino, mode, 0, 0, S_ISDIR(mode) ? 2 : 1, 0, size, 0, 0,
		rmaj, rmin, nlen, 0);
	fwrite(name, 1, nlen, c->f);
	cpio_pad(c);
}

int cpio_has_dir(struct cpio *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->ndirs; i++)
		if (!strcmp(c->dirs[i], name))
			return 1;
	return 0;
}

/* A directory and, first, its missing parents. name has no leading '/'. */
void cpio_dir(struct cpio *c, const char *name)
{
	char *slash, *copy;
	char **d;

	if (!*name || cpio_has_dir(c, name))
		return;
	copy = strdup(name);
	if (!copy) {
		c->failed = 1;
		return;
	}
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		cpio_dir(c, copy);
		*slash = '/';
	}
	d = realloc(c->dirs, (c->ndirs + 1) * sizeof(*d));
	if (!d) {
		free(copy);
		c->failed = 1;
		return;
	}
	c->dirs = d;
	c->dirs[c->ndirs++] = copy;
	cpio_header(c, name, S_IFDIR | 0755, 0, 0, 0);
}

static void cpio_parent(struct cpio *c, const char *name)
{
	const char *slash = strrchr(name, '/');
	char *dir;

	if (!slash)
		return;
	dir = strndup(name, slash - name);
	if (!dir) {
		c->failed = 1;
		return;
	}
	cpio_dir(c, dir);
	free(dir);
}

void cpio_data(struct cpio *c, const char *name, unsigned int mode,
		      const void *data, size_t len)
{
	cpio_parent(c, name);
	cpio_header(c, name, mode, len, 0, 0);
	fwrite(data, 1, len, c->f);
	cpio_pad(c);
}

void cpio_symlink(struct cpio *c, const char *name, const char *target)
{
	cpio_data(c, name, S_IFLNK | 0777, target, strlen(target));
}

void cpio_node(struct cpio *c, const char *name, unsigned int mode,
		      unsigned int maj, unsigned int min)
{
	cpio_parent(c, name);
	cpio_header(c, name, mode, 0, maj, min);
}

/* Copy a host file; a file that changes size meanwhile is cut or padded. */
int cpio_file(struct cpio *c, const char *name, const char *host,
		     unsigned int mode, char **err)
{
	char buf[65536];
	struct stat st;
	size_t left;
	int fd = open(host, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		*err = xasprintf("cannot read %s: %s", host, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!mode)
		mode = S_IFREG | (st.st_mode & 0777);
	cpio_parent(c, name);
	cpio_header(c, name, mode, st.st_size, 0, 0);
	for (left = st.st_size; left;) {
		ssize_t n = read(fd, buf, left < sizeof(buf) ? left : sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			memset(buf, 0, sizeof(buf));
			n = left < sizeof(buf) ? left : sizeof(buf);
		}
		fwrite(buf, 1, n, c->f);
		left -= n;
	}
	close(fd);
	cpio_pad(c);
	return 0;
}

/* Copy a host file, directory (recursively) or symlink. */
int cpio_tree(struct cpio *c, const char *name, const char *host, char **err)
{
	struct dirent *e;
	struct stat st;
	int ret = 0;
	DIR *d;

	if (lstat(host, &st) < 0) {
		*err = xasprintf("cannot read %s: %s", host, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(host, target, sizeof(target) - 1);

		if (n < 0) {
			*err = xasprintf("cannot read link %s: %s", host, strerror(errno));
			return -1;
		}
		target[n] = '\0';
		cpio_symlink(c, name, target);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return cpio_file(c, name, host, 0, err);
	cpio_dir(c, name);
	d = opendir(host);
	if (!d) {
		*err = xasprintf("cannot read directory %s: %s", host, strerror(errno));
		return -1;
	}
	while (!ret && (e = readdir(d))) {
		char *h, *g;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		h = xasprintf("%s/%s", host, e->d_name);
		g = xasprintf("%s/%s", name, e->d_name);
		ret = h && g ? cpio_tree(c, g, h, err) : -1;
		free(h);
		free(g);
	}
	closedir(d);
	return ret;
}

int cpio_open(struct cpio *c, const char *path)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->f = fopen(path, "we");
	return c->f ? 0 : -1;
}

int cpio_close(struct cpio *c, char **err)
{
	size_t i;
	int bad;

	cpio_header(c, "TRAILER!!!", 0, 0, 0, 0);
	bad = c->failed | ferror(c->f);
	if (fclose(c->f) != 0)
		bad = 1;
	for (i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	free(c->dirs);
	if (bad) {
		*err = xasprintf("writing %s failed: %s", c->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* guest kernel modules (virtio console) from /lib/modules/RELEASE       */

static int modlist_has(struct modlist *m, const char *path)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->path[i], path))
			return 1;
	return 0;
}

/* The modules.dep line for module NAME ("virtio_console"), or NULL. */
static char *moddep_line(FILE *f, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	size_t nlen = strlen(name);

	rewind(f);
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		char *base;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		if (!strncmp(base, name, nlen) && !strncmp(base + nlen, ".ko", 3)) {
			*colon = ':';
			return line;
		}
	}
	free(line);
	return NULL;
}

/* Add module PATH's dependencies, then itself (load order). */
static int modlist_add(struct modlist *m, FILE *dep, const char *name, int depth)
{
	char *line = moddep_line(dep, name), *p, *tok, *save = NULL;
	int ret = 0;

	if (!line || depth > 16)
		return free(line), -1;
	line[strcspn(line, "\n")] = '\0';
	p = strchr(line, ':');
	*p++ = '\0';
	for (tok = strtok_r(p, " ", &save); tok && !ret; tok = strtok_r(NULL, " ", &save)) {
		char *base = strrchr(tok, '/'), *dot;

		base = strdup(base ? base + 1 : tok);
		dot = base ? strstr(base, ".ko") : NULL;
		if (dot)
			*dot = '\0';
		ret = base ? modlist_add(m, dep, base, depth + 1) : -1;
		free(base);
	}
	if (!ret && !modlist_has(m, line) && m->n < 32)
		m->path[m->n++] = strdup(line);
	free(line);
	return ret;
}

static int builtin_module(const char *release, const char *name)
{
	char *path = xasprintf("/lib/modules/%s/modules.builtin", release);
	FILE *f = path ? fopen(path, "re") : NULL;
	char line[512], want[128];
	int found = 0;

	snprintf(want, sizeof(want), "/%s.ko\n", name);
	while (f && !found && fgets(line, sizeof(line), f)) {
		size_t l = strlen(line), w = strlen(want);

		found = l >= w && !strcmp(line + l - w, want);
	}
	if (f)
		fclose(f);
	free(path);
	return found;
}

/*
 * The modules needed for the virtio console channel, in load order.
 * Returns -1 when the guest kernel cannot have one (use ttyS1).
 */
int vm_virtio_modules(const char *release, struct modlist *m)
{
	static const char *const need[] = { "virtio_pci", "virtio_console" };
	char *path = xasprintf("/lib/modules/%s/modules.dep", release);
	FILE *dep = path ? fopen(path, "re") : NULL;
	size_t i;
	int ret = 0;

	free(path);
	for (i = 0; i < 2 && !ret; i++) {
		if (builtin_module(release, need[i]))
			continue;
		ret = dep ? modlist_add(m, dep, need[i], 0) : -1;
	}
	if (dep)
		fclose(dep);
	return ret;
}

void modlist_free(struct modlist *m)
{
	while (m->n)
		free(m->path[--m->n]);
}
