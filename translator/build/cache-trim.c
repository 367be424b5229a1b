// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cache-trim.c - keep the module cache within its size limit (build.h).
 *
 * The entries of CACHE/modules and CACHE/objects are folders; an entry's
 * modification time is its last use (a hit touches it). After a build
 * stores a module, at most once per cache_clean_interval_s seconds, the
 * least recently used entries are removed until the two folders hold at
 * most cache_mb_limit megabytes. Both limits are numbers in files of the
 * cache folder, as SystemTap keeps them (defaults 256 MB and 300 s).
 * Entries used in the last minute stay, whatever the size: another build
 * or run may be using them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "kfeature.h"
#include "xalloc.h"

#define DEFAULT_MB_LIMIT	256
#define DEFAULT_INTERVAL_S	300
#define RECENT_S		60

struct entry {
	char *path;
	time_t used;
	uint64_t bytes;
};

/* A number in CACHE/NAME, else def. */
static long long setting(const char *cache_dir, const char *name, long long def)
{
	char *p = xasprintf("%s/%s", cache_dir, name);
	char *text = kf_read_file(p, NULL), *end;
	long long v = def;

	free(p);
	if (text) {
		errno = 0;
		v = strtoll(text, &end, 10);
		if (errno || end == text || v < 0)
			v = def;
		free(text);
	}
	return v;
}

static uint64_t walk_bytes;

static int add_bytes(const char *path, const struct stat *st, int type,
		     struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		walk_bytes += (uint64_t)st->st_blocks * 512;
	return 0;
}

static uint64_t tree_bytes(const char *path)
{
	walk_bytes = 0;
	nftw(path, add_bytes, 16, FTW_PHYS);
	return walk_bytes;
}

/* Append the entries (folders) of CACHE/SUB to *v. */
static void collect(const char *cache_dir, const char *sub, struct entry **v,
		    size_t *n, size_t *cap)
{
	char *dir = xasprintf("%s/%s", cache_dir, sub);
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		free(dir);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		/* skip ".", "..", X.tmpXXXXXX being published, X.lock */
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) < 0 || !S_ISDIR(st.st_mode)) {
			free(p);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*v = xrealloc(*v, *cap * sizeof(**v));
		}
		(*v)[(*n)++] = (struct entry){ p, st.st_mtime, tree_bytes(p) };
	}
	closedir(d);
	free(dir);
}

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

void build_cache_touch(const char *entry)
{
	utimensat(AT_FDCWD, entry, NULL, 0);
}

int build_cache_trim(const char *cache_dir, bool force, FILE *err)
{
	long long limit = setting(cache_dir, "cache_mb_limit", DEFAULT_MB_LIMIT);
	long long interval = setting(cache_dir, "cache_clean_interval_s",
				     DEFAULT_INTERVAL_S);
	char *stamp = xasprintf("%s/.last-trim", cache_dir);
	struct entry *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t total = 0, max = (uint64_t)limit << 20;
	time_t now = time(NULL);
	struct stat st;
	int fd, removed = 0;
	char *p;

	if (!force && stat(stamp, &st) == 0 && now - st.st_mtime < interval) {
		free(stamp);
		return 0;
	}
	fd = open(stamp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	free(stamp);

	collect(cache_dir, "modules", &v, &n, &cap);
	collect(cache_dir, "objects", &v, &n, &cap);
	for (i = 0; i < n; i++)
		total += v[i].bytes;
	qsort(v, n, sizeof(*v), by_use);
	for (i = 0; i < n && total > max; i++) {
		if (now - v[i].used < RECENT_S)
			break;		/* the rest are newer still */
		if (kf_rmtree(v[i].path) < 0) {
			if (err)
				fprintf(err, "tapir: warning: cannot remove the "
					"cache entry %s: %s\n", v[i].path,
					strerror(errno));
			continue;
		}
		total -= v[i].bytes;
		removed++;
		/* an objects entry's kept kbuild commands (replay.c) go too */
		p = xasprintf("%s.replay", v[i].path);
		unlink(p);
		free(p);
	}
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return removed;
}
