/* kmod.c - the installed modules' files, decompressed.
 *
 * Debian's 6.12 kernels install their modules as NAME.ko.xz (6.1's as
 * NAME.ko; no Debian 12 kernel here uses .ko.zst or .ko.gz). libelf and
 * libbpf read plain ELF files only, so a compressed module is
 * decompressed once (liblzma) into the cache: CACHE/kmod/NAME-KEY.ko,
 * KEY a hash of the module's path, mtime and size, so that a new
 * kernel package (same path, new file) gets a new copy. A module that a
 * scan found useless (kmod_file()'s want) leaves only an empty marker,
 * NAME-KEY.no, instead of its copy. Copies are published with rename(),
 * so that concurrent sessions never see half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/kfeature.h"
#include "build/sha256.h"
#include "dwarf-internal.h"
#include "xalloc.h"

bool kmod_compressed(const char *name)
{
	size_t len = strlen(name);

	return len > 6 && strcmp(name + len - 6, ".ko.xz") == 0;
}

/* The whole of file fd, read. */
static unsigned char *slurp(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = xmalloc(cap);
	ssize_t r;

	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The .xz data in[0..inlen) decompressed (malloc'd), or NULL. */
static unsigned char *unxz(const unsigned char *in, size_t inlen,
			   size_t *outlen)
{
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = inlen * 4 + 4096;
	unsigned char *out;
	lzma_ret r;

	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return NULL;
	out = xmalloc(cap);
	z.next_in = in;
	z.avail_in = inlen;
	z.next_out = out;
	z.avail_out = cap;
	do {
		if (!z.avail_out) {
			out = xrealloc(out, cap * 2);
			z.next_out = out + cap;
			z.avail_out = cap;
			cap *= 2;
		}
		r = lzma_code(&z, LZMA_FINISH);
	} while (r == LZMA_OK);
	*outlen = cap - z.avail_out;
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

/* Write data[0..len) to path through a temporary file and rename(). */
static bool publish(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp);
	bool ok = fd >= 0;

	for (size_t off = 0; ok && off < len;) {
		ssize_t w = write(fd, (const char *)data + off, len - off);

		ok = w > 0;
		off += ok ? (size_t)w : 0;
	}
	if (fd >= 0 && close(fd) < 0)
		ok = false;
	if (ok && (fchmodat(AT_FDCWD, tmp, 0644, 0) < 0 ||
		   rename(tmp, path) < 0))
		ok = false;
	if (!ok && fd >= 0)
		unlink(tmp);
	free(tmp);
	return ok;
}

/* CACHE/kmod/NAME-KEY (malloc'd; the folder made), or NULL. */
static char *cache_stem(const char *path, const struct stat *st)
{
	char *cache = tapir_cache_dir(), *dir = xasprintf("%s/kmod", cache);
	const char *base = strrchr(path, '/');
	char hex[SHA256_HEX_SIZE], *stem = NULL;
	struct sha256 h;
	int64_t mtime = (int64_t)st->st_mtime, size = (int64_t)st->st_size;

	base = base ? base + 1 : path;
	sha256_init(&h);
	sha256_field_str(&h, "path", path);
	sha256_field(&h, "mtime", &mtime, sizeof(mtime));
	sha256_field(&h, "size", &size, sizeof(size));
	sha256_final_hex(&h, hex);
	if ((mkdir(cache, 0755) == 0 || errno == EEXIST) &&
	    (mkdir(dir, 0755) == 0 || errno == EEXIST))
		stem = xasprintf("%s/%.*s-%.16s", dir,
				 (int)(strlen(base) - 6), base, hex);
	free(cache);
	free(dir);
	return stem;
}

char *kmod_file(const char *path, bool (*want)(void *, size_t))
{
	unsigned char *in, *out = NULL;
	size_t inlen = 0, outlen = 0;
	char *stem, *ko, *no, *res = NULL;
	struct stat st;
	int fd;

	if (!kmod_compressed(path))
		return xstrdup(path);
	if (stat(path, &st) < 0 || !(stem = cache_stem(path, &st)))
		return NULL;
	ko = xasprintf("%s.ko", stem);
	no = xasprintf("%s.no", stem);
	free(stem);
	if (access(ko, R_OK) == 0) {
		res = ko;
		ko = NULL;
		goto out;
	}
	if (want && access(no, F_OK) == 0)
		goto out;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	in = fd >= 0 ? slurp(fd, &inlen) : NULL;
	if (fd >= 0)
		close(fd);
	out = in ? unxz(in, inlen, &outlen) : NULL;
	free(in);
	if (!out)
		goto out;
	if (want && !want(out, outlen)) {
		publish(no, "", 0);
		goto out;
	}
	if (publish(ko, out, outlen)) {
		res = ko;
		ko = NULL;
	}
out:
	free(out);
	free(ko);
	free(no);
	return res;
}
