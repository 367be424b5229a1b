/* tpsys.c - the trace systems cache: which system each tracepoint is in.
 *
 * A tracepoint's system comes from the vmlinux's events (__event_NAME),
 * from the kernel's trace headers (some 300 of include/trace/events/),
 * and for a module's from its .ko (its one system's string, or its
 * events'): all of it the same from one session to the next until one
 * of those files changes, and reading them was a sixth of a
 * kernel.trace("*") session. So the maps are kept in
 * CACHE/dwarf/tpsys-KEY.map, KEY a hash of the identities (inode, size,
 * mtime) of the files they come from: the kernel's BTF and debuginfo
 * vmlinux, modules.dep and the modules' folder (depmod rewrites the one,
 * a package the other), the source tree and each of its trace headers.
 * btf.c keeps there too the ids of the tracepoints' iterators among the
 * BTF's types (the kernel's and each module's), which took a walk of
 * every type to find.
 * The file holds named maps, each a line "@NAME" then a line an entry,
 * KEY<tab>VALUE. A map the file lacks is read as before, on first need,
 * and the file is written anew when the session ends (dwarf_free()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "build/kfeature.h"
#include "build/sha256.h"
#include "xalloc.h"

#define TPSYS_MAGIC "tapir-tpsys 1"

struct tpsys {
	char *path;			/* NULL: no cache */
	struct strmap file;		/* NAME -> its map as the file had it */
	struct strmap live;		/* NAME -> the map to write back */
	const char **names;		/* every NAME, in the order met */
	size_t nnames;
	bool dirty;
};

static void add_name(struct session *s, struct tpsys *t, const char *name)
{
	if (strmap_get(&t->file, name) || strmap_get(&t->live, name))
		return;
	t->names = xrealloc(t->names, (t->nnames + 1) * sizeof(*t->names));
	t->names[t->nnames++] = arena_strdup(&s->arena, name);
}

static char *cache_path(struct session *s)
{
	struct dwarf_unit *u = dwarf_unit_for(s, NULL);
	const char *tree = dwarf_source_tree(s), *btf = btf_kernel_file(s);
	struct sha256 h;
	char *dir;

	sha256_init(&h);
	dwarf_hash_modules(s, &h, TPSYS_MAGIC);
	kf_hash_file_id(&h, btf ? btf : "");
	kf_hash_file_id(&h, u ? u->path : "");
	kf_hash_file_id(&h, tree ? tree : "");
	dir = xasprintf("%s/include/trace/events", tree ? tree : "");
	kf_hash_dir_ids(&h, dir, ".h");
	free(dir);
	return dwarf_cache_file(&h, "tpsys", "map");
}

/* Read the file at t->path: its text is kept in the arena, split in
 * place into the maps' keys and values (some 6,000 lines, 400 KB for
 * a kernel.trace("*") session: a copy of each was a tenth of it). */
static void read_file(struct session *s, struct tpsys *t)
{
	size_t len = 0, magic = strlen(TPSYS_MAGIC);
	int fd = open(t->path, O_RDONLY | O_CLOEXEC);
	char *text = NULL, *line, *end, *tab;
	struct strmap *m = NULL;
	struct stat st;

	/* read straight into the arena: a copy, or a buffer grown by
	 * doubling, were page faults, which cost here */
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
		text = arena_alloc(&s->arena, (size_t)st.st_size + 1);
		while (len < (size_t)st.st_size) {
			ssize_t n = read(fd, text + len,
					 (size_t)st.st_size - len);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			len += (size_t)n;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!text || len <= magic ||
	    strncmp(text, TPSYS_MAGIC "\n", magic + 1) != 0)
		return;
	text[len] = '\0';
	for (line = text + magic + 1; line < text + len; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text + len - line));
		if (!end)
			end = text + len;	/* the last, cut short */
		*end = '\0';
		if (line[0] == '@') {
			add_name(s, t, line + 1);
			m = ANEW(&s->arena, struct strmap);
			strmap_add(&s->arena, &t->file, line + 1, m);
		} else if (m && (tab = strchr(line, '\t'))) {
			*tab = '\0';
			strmap_add(&s->arena, m, line, tab + 1);
		}
	}
}

static struct tpsys *tpsys(struct session *s)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->tpsys) {
		c->tpsys = xcalloc(1, sizeof(*c->tpsys));
		c->tpsys->path = cache_path(s);
		read_file(s, c->tpsys);
	}
	return c->tpsys;
}

static void copy_entry(const char *key, void *value, void *arg)
{
	void **a = arg;

	strmap_add(a[0], a[1], key, value);
}

bool dwarf_tpsys_load(struct session *s, const char *name,
		      struct strmap *into)
{
	struct tpsys *t = tpsys(s);
	struct strmap *m = strmap_get(&t->file, name);

	add_name(s, t, name);
	if (!strmap_get(&t->live, name))
		strmap_add(&s->arena, &t->live, arena_strdup(&s->arena, name),
			   into);
	if (m) {
		void *a[2] = { &s->arena, into };

		strmap_each(m, copy_entry, a);
		return true;
	}
	t->dirty = true;	/* the caller reads it: worth keeping */
	return false;
}

struct strmap *dwarf_tpsys_map(struct session *s, const char *name,
			       bool *hit)
{
	struct tpsys *t = tpsys(s);
	struct strmap *m = strmap_get(&t->live, name);
	struct strmap *f = strmap_get(&t->file, name);

	*hit = f != NULL;
	if (!m)
		m = f;
	if (!m) {
		m = ANEW(&s->arena, struct strmap);
		t->dirty = true;
	}
	add_name(s, t, name);
	if (!strmap_get(&t->live, name))
		strmap_add(&s->arena, &t->live, arena_strdup(&s->arena, name),
			   m);
	return m;
}

void dwarf_tpsys_changed(struct session *s)
{
	tpsys(s)->dirty = true;
}

static void write_entry(const char *key, void *value, void *arg)
{
	FILE **f = arg;

	if (!*f)
		return;
	if (strpbrk(key, "\t\n") || strchr(value, '\n')) {
		fclose(*f);	/* cannot be written down: not kept */
		*f = NULL;
		return;
	}
	fprintf(*f, "%s\t%s\n", key, (const char *)value);
}

void dwarf_tpsys_save(struct session *s)
{
	struct dwarf_ctx *c = s->dwarf;
	struct tpsys *t = c ? c->tpsys : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	if (!t)
		return;
	if (t->dirty && t->path && (m = open_memstream(&buf, &len))) {
		fputs(TPSYS_MAGIC "\n", m);
		for (size_t i = 0; m && i < t->nnames; i++) {
			struct strmap *map = strmap_get(&t->live, t->names[i]);

			if (!map)
				map = strmap_get(&t->file, t->names[i]);
			fprintf(m, "@%s\n", t->names[i]);
			strmap_each(map, write_entry, &m);
		}
		if (m) {
			fclose(m);
			dwarf_cache_write(s, t->path, buf, len);
		}
		free(buf);
	}
	free(t->path);
	free(t->names);
	free(t);
	c->tpsys = NULL;
}
