/* dwarf.c - the target kernel's debuginfo and the probe sites of the
 * DWARF probe points.
 *
 * The kernel's debuginfo is Debian's linux-image-RELEASE-dbg vmlinux (or
 * a build tree's vmlinux), read with libdw directly: it is an executable,
 * so nothing needs relocating. Modules come from the same package (or a
 * build tree) as relocatable .ko files, which libdwfl lays out and
 * relocates.
 *
 * Matching a point must not read all 160 MB of the kernel's .debug_info:
 * a first use builds an index of every function definition (name, decl
 * file and line, DIE), sorted by name, and keeps it in the cache folder
 * keyed by the vmlinux's identity; later runs map it in and only open
 * the DIEs that match. Inline instances are found by one walk of each CU
 * that holds a matching inline function.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <dirent.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "kconfig.h"
#include "build/kfeature.h"
#include "providers/provider.h"
#include "build/sha256.h"
#include "xalloc.h"

#define INDEX_MAGIC "TPRDWIX8"

static bool has_wild(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

/* ---- the context ---- */

struct dwarf_ctx *dwarf_ctx(struct session *s)
{
	if (!s->dwarf)
		s->dwarf = xcalloc(1, sizeof(*s->dwarf));
	return s->dwarf;
}

static void unit_free(struct dwarf_unit *u)
{
	if (u->idx.map)
		munmap(u->idx.map, u->idx.map_len);
	else {
		free(u->idx.v);
		free(u->idx.files);
		free(u->idx.strs);
	}
	free(u->syms);
	free(u->covered);
	free(u->blacklist);
	/* a program's .eh_frame CFI is ours (dwarf_getcfi_elf); the others
	 * belong to their Dwarf or Dwfl */
	if (u->user && u->cfi && !u->dwfl)
		dwarf_cfi_end(u->cfi);
	if (u->dwfl) {
		dwfl_end(u->dwfl);
	} else {
		if (u->dw)
			dwarf_end(u->dw);
		if (u->elf)
			elf_end(u->elf);
		if (u->fd >= 0)
			close(u->fd);
	}
	free(u->name);
	free(u->path);
	free(u);
}

static void free_btf_modules(struct dwarf_ctx *c);

void dwarf_free(struct session *s)
{
	dwarf_tpsys_save(s);
	btf_free(s);
	struct dwarf_ctx *c = s->dwarf;

	if (!c)
		return;
	if (c->kernel)
		unit_free(c->kernel);
	while (c->modules) {
		struct dwarf_unit *n = c->modules->next;

		unit_free(c->modules);
		c->modules = n;
	}
	for (size_t i = 0; i < c->nmods; i++) {
		free(c->mod_names[i]);
		free(c->mod_paths[i]);
	}
	free(c->mod_names);
	free(c->mod_paths);
	for (size_t i = 0; i < c->ntp_mods; i++) {
		for (char **p = c->tp_mod_iters[i]; p && *p; p++)
			free(*p);
		for (char **p = c->tp_mod_sysstrs[i]; p && *p; p++)
			free(*p);
		free(c->tp_mod_iters[i]);
		free(c->tp_mod_sysstrs[i]);
	}
	free(c->tp_mods);
	free(c->tp_mod_iters);
	free(c->tp_mod_sysstrs);
	free_btf_modules(c);
	if (c->bl_ready) {
		regfree(&c->bl_fn);
		regfree(&c->bl_fn_ret);
		regfree(&c->bl_file);
		regfree(&c->bl_section);
	}
	free(c);
	s->dwarf = NULL;
}

const char *dwarf_package(struct session *s)
{
	return arena_printf(&s->arena, "linux-image-%s-dbg",
			    kconfig_get(s)->release);
}

/* ---- opening files ---- */

static bool has_debug_info(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && strcmp(n, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS)
			return true;
	}
	return false;
}

static struct dwarf_unit *open_kernel_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct dwarf_unit *u;
	Elf *elf;
	Dwarf *dw;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !has_debug_info(elf) || !(dw = dwarf_begin_elf(elf,
							DWARF_C_READ, NULL))) {
		if (elf)
			elf_end(elf);
		close(fd);
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->name = xstrdup("kernel");
	u->path = xstrdup(path);
	u->fd = fd;
	u->elf = elf;
	u->dw = dw;
	return u;
}

/*
 * The folders holding debuginfo: those SYSTEMTAP_DEBUGINFO_PATH lists
 * (':'-separated, as stap and elfutils read it; its entries that are not
 * absolute folders, "+" and ".debug", name places beside the binaries,
 * which kernels do not use), else /usr/lib/debug. Pointing it at an
 * empty folder hides the kernel's debuginfo (the BTF path then serves).
 * NULL-terminated, malloc'd.
 */
static char **debug_roots(void)
{
	const char *env = getenv("SYSTEMTAP_DEBUGINFO_PATH");
	char **v = xcalloc(2, sizeof(*v));
	int n = 0;

	if (!env) {
		v[0] = xstrdup("/usr/lib/debug");
		return v;
	}
	for (const char *p = env; *p;) {
		size_t len = strcspn(p, ":");

		if (len && p[0] == '/') {
			v = xrealloc(v, (size_t)(n + 2) * sizeof(*v));
			v[n++] = xasprintf("%.*s", (int)len, p);
			v[n] = NULL;
		}
		p += len;
		if (*p)
			p++;
	}
	return v;
}

static void free_roots(char **v)
{
	for (int i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

static void open_kernel(struct session *s, struct dwarf_ctx *c)
{
	struct kconfig *k = kconfig_get(s);
	char **roots = debug_roots();
	char **tries;
	int n = 0, nroots = 0;

	while (roots[nroots])
		nroots++;
	tries = xcalloc((size_t)(2 * nroots + 2), sizeof(*tries));
	if (k->build_dir)
		tries[n++] = xasprintf("%s/vmlinux", k->build_dir);
	for (int i = 0; i < nroots; i++) {
		tries[n++] = xasprintf("%s/boot/vmlinux-%s", roots[i],
				       k->release);
		tries[n++] = xasprintf("%s/lib/modules/%s/vmlinux", roots[i],
				       k->release);
	}
	free_roots(roots);
	for (int i = 0; i < n; i++) {
		if (!c->kernel)
			c->kernel = open_kernel_file(tries[i]);
		free(tries[i]);
	}
	free(tries);
	if (c->kernel && s->verbose)
		fprintf(s->err, "tapir: kernel debuginfo from %s\n",
			c->kernel->path);
}

/* "ext4", "nf_conntrack": module names with '-' as '_'. */
static char *module_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	char *n = xstrdup(b ? b + 1 : path);
	char *dot = strstr(n, ".ko");

	if (dot)
		*dot = '\0';
	for (char *p = n; *p; p++)
		if (*p == '-')
			*p = '_';
	return n;
}

static void add_module(struct dwarf_ctx *c, const char *path)
{
	char *name = module_name_of(path);

	for (size_t i = 0; i < c->nmods; i++)
		if (strcmp(c->mod_names[i], name) == 0) {
			free(name);
			return;
		}
	c->mod_names = xrealloc(c->mod_names, (c->nmods + 1) * sizeof(char *));
	c->mod_paths = xrealloc(c->mod_paths, (c->nmods + 1) * sizeof(char *));
	c->mod_names[c->nmods] = name;
	c->mod_paths[c->nmods] = kmod_file(path, NULL);
	if (c->mod_paths[c->nmods])
		c->nmods++;
	else
		free(name);
}

/* add(c, PATH) for every NAME.ko (or NAME.ko.xz) under dir. */
static void find_modules(struct dwarf_ctx *c, const char *dir, int depth,
			 void (*add)(struct dwarf_ctx *c, const char *path))
{
	DIR *d;
	struct dirent *de;

	if (depth > 8 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		char *p;
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if ((len > 3 && strcmp(de->d_name + len - 3, ".ko") == 0) ||
		    kmod_compressed(de->d_name))
			add(c, p);
		else if (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN)
			find_modules(c, p, depth + 1, add);
		free(p);
	}
	closedir(d);
}

static void list_modules(struct session *s, struct dwarf_ctx *c)
{
	struct kconfig *k = kconfig_get(s);
	char **roots, *p;

	if (c->mods_listed)
		return;
	c->mods_listed = true;
	roots = debug_roots();
	for (int i = 0; roots[i]; i++) {
		p = xasprintf("%s/lib/modules/%s/kernel", roots[i], k->release);
		find_modules(c, p, 0, add_module);
		free(p);
	}
	free_roots(roots);
	/* a build tree's own modules, unstripped */
	if (k->build_dir)
		find_modules(c, k->build_dir, 4, add_module);
}

struct prefixed {
	const char *pre;
	size_t len, n;
	char ***v;
};

static void add_prefixed(void *arg, const GElf_Sym *sym, const char *name)
{
	struct prefixed *w = arg;

	(void)sym;
	if (strncmp(name, w->pre, w->len) != 0)
		return;
	*w->v = xrealloc(*w->v, (w->n + 2) * sizeof(**w->v));
	(*w->v)[w->n++] = xstrdup(name + w->len);
	(*w->v)[w->n] = NULL;
}

/* The names of the symbols of elf's symbol table that start with pre
 * (without it), into *v, NULL-terminated (NULL: none). */
static void symbols_with(Elf *elf, const char *pre, char ***v)
{
	struct prefixed w = { pre, strlen(pre), 0, v };

	dwarf_each_symbol(elf, add_prefixed, &w);
}

/* Does the .ko at path define tracepoints (a __tracepoints_ptrs
 * section)? Only its section headers are read; and when it does and
 * iters is not NULL, the names of its tracepoints' iterators (its
 * symbol table's __traceiter_NAME) into *iters and its trace systems'
 * strings (str__SYSTEM__trace_system_name, less "str__") into *systems,
 * NULL-terminated. */
static bool elf_defines_tracepoints(Elf *elf, char ***iters,
				    char ***systems)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;

	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0)
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *nm;

			found = gelf_getshdr(scn, &sh) &&
				(nm = elf_strptr(elf, shstrndx, sh.sh_name)) &&
				strcmp(nm, "__tracepoints_ptrs") == 0;
		}
	if (found && iters) {
		symbols_with(elf, "__traceiter_", iters);
		symbols_with(elf, "str__", systems);
	}
	return found;
}

bool dwarf_with_elf(const char *path, bool (*fn)(Elf *elf, void *arg),
		    void *arg)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool r;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	r = fn(elf, arg);
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}

struct tp_lists {
	char ***iters, ***systems;
};

static bool elf_tp_lists(Elf *elf, void *arg)
{
	struct tp_lists *l = arg;

	return elf_defines_tracepoints(elf, l->iters, l->systems);
}

static bool defines_tracepoints(const char *path, char ***iters,
				char ***systems)
{
	struct tp_lists l = { iters, systems };

	return dwarf_with_elf(path, elf_tp_lists, &l);
}

/* The same of a module decompressed in memory (kmod_file()'s want). */
static bool image_defines_tracepoints(void *data, size_t len)
{
	Elf *elf;
	bool found;

	elf_version(EV_CURRENT);
	elf = elf_memory(data, len);
	found = elf_defines_tracepoints(elf, NULL, NULL);
	if (elf)
		elf_end(elf);
	return found;
}

size_t dwarf_tracepoint_modules(struct session *s, const char *const **names)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->tp_mods_listed) {
		c->tp_mods_listed = true;
		list_modules(s, c);
		for (size_t i = 0; i < c->nmods; i++) {
			char **iters = NULL, **systems = NULL;

			if (!defines_tracepoints(c->mod_paths[i], &iters,
						 &systems))
				continue;
			c->tp_mods = xrealloc(c->tp_mods, (c->ntp_mods + 1) *
					      sizeof(*c->tp_mods));
			c->tp_mod_iters = xrealloc(c->tp_mod_iters,
				(c->ntp_mods + 1) * sizeof(*c->tp_mod_iters));
			c->tp_mod_sysstrs = xrealloc(c->tp_mod_sysstrs,
				(c->ntp_mods + 1) * sizeof(*c->tp_mod_sysstrs));
			c->tp_mod_iters[c->ntp_mods] = iters;
			c->tp_mod_sysstrs[c->ntp_mods] = systems;
			c->tp_mods[c->ntp_mods++] = c->mod_names[i];
		}
	}
	*names = (const char *const *)c->tp_mods;
	return c->ntp_mods;
}

/* Does one of systems ("SYS__trace_system_name") match glob? */
static bool system_matches(char **systems, const char *glob)
{
	static const char post[] = "__trace_system_name";

	for (char **p = systems; *p; p++) {
		size_t len = strlen(*p);
		char *sys;
		bool m;

		if (len < sizeof(post) ||
		    strcmp(*p + len - sizeof(post) + 1, post) != 0)
			continue;
		sys = xasprintf("%.*s", (int)(len - sizeof(post) + 1), *p);
		m = fnmatch(glob, sys, 0) == 0;
		free(sys);
		if (m)
			return true;
	}
	return false;
}

/* Whether a name of iters (NULL: not known) is like glob. */
static bool iters_match(char *const *iters, const char *glob)
{
	if (!iters)
		return true;
	for (; *iters; iters++)
		if (fnmatch(glob, *iters, 0) == 0)
			return true;
	return false;
}

bool dwarf_module_may_trace(struct session *s, const char *module,
			    const char *sys, const char *glob)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	for (size_t i = 0; i < c->ntp_mods; i++) {
		if (strcmp(c->tp_mods[i], module) != 0)
			continue;
		/* without a symbol table, or a system string (tracepoints
		 * without events), maybe */
		if (c->tp_mod_sysstrs[i] && strcmp(sys, "*") != 0 &&
		    !system_matches(c->tp_mod_sysstrs[i], sys))
			return false;
		return iters_match(c->tp_mod_iters[i], glob);
	}
	return true;
}

/* One installed module with tracepoints: its name, the file it was
 * found as (path: NAME.ko or NAME.ko.xz), the plain ELF file to read
 * (file) and its tracepoints' names (iters, NULL-terminated). */
static void push_btf_module(struct dwarf_ctx *c, char *name, char *path,
			    char *file, char **iters)
{
	size_t n = c->nbtf_mods + 1;

	c->btf_mod_names = xrealloc(c->btf_mod_names, n * sizeof(char *));
	c->btf_mod_paths = xrealloc(c->btf_mod_paths, n * sizeof(char *));
	c->btf_mod_found = xrealloc(c->btf_mod_found, n * sizeof(char *));
	c->btf_mod_iters = xrealloc(c->btf_mod_iters, n * sizeof(char **));
	c->btf_mod_names[c->nbtf_mods] = name;
	c->btf_mod_found[c->nbtf_mods] = path;
	c->btf_mod_paths[c->nbtf_mods] = file;
	c->btf_mod_iters[c->nbtf_mods++] = iters;
}

static void add_btf_module(struct dwarf_ctx *c, const char *path)
{
	char *file = kmod_file(path, image_defines_tracepoints);
	char **iters = NULL, **systems = NULL;

	if (!file || !defines_tracepoints(file, &iters, &systems)) {
		free(file);
		return;
	}
	for (char **p = systems; p && *p; p++)
		free(*p);
	free(systems);
	push_btf_module(c, module_name_of(path), xstrdup(path), file, iters);
}

const char *dwarf_installed_module(struct session *s, const char *module)
{
	const char *rel = kconfig_get(s)->release;
	char *path = xasprintf("/lib/modules/%s/modules.dep", rel);
	FILE *f = fopen(path, "r");
	const char *found = NULL;
	char line[4096];

	free(path);
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *name;

		if (!colon)
			continue;
		*colon = '\0';
		name = module_name_of(line);
		if (strcmp(name, module) == 0 && strstr(line, ".ko")) {
			char *full = xasprintf("/lib/modules/%s/%s", rel, line);
			char *file = kmod_file(full, NULL);	/* .ko.xz */

			found = file ? arena_strdup(&s->arena, file) : NULL;
			free(file);
			free(full);
		}
		free(name);
	}
	if (f)
		fclose(f);
	return found;
}

struct mod_rank {
	size_t rank, i;
};

static int rank_cmp(const void *a, const void *b)
{
	const struct mod_rank *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Put the i-th of v where v's ranks put it. */
static void permute(void *v, size_t size, const struct mod_rank *r,
		    size_t n)
{
	char *tmp = xmalloc(n * size);

	for (size_t i = 0; i < n; i++)
		memcpy(tmp + i * size, (char *)v + r[i].i * size, size);
	memcpy(v, tmp, n * size);
	free(tmp);
}

/* Beside the kernel's debuginfo, the installed modules in the order of
 * the debuginfo's (list_modules()), the order their tracepoints came in
 * when they were read from the modules' DWARF; those it lacks last. */
static void order_like_debuginfo(struct session *s, struct dwarf_ctx *c)
{
	struct strmap rank;
	struct mod_rank *v;

	if (c->nbtf_mods < 2 || !dwarf_unit_for(s, NULL))
		return;
	list_modules(s, c);
	memset(&rank, 0, sizeof(rank));
	for (size_t i = 0; i < c->nmods; i++)
		if (!strmap_get(&rank, c->mod_names[i]))
			strmap_add(&s->arena, &rank, c->mod_names[i],
				   (void *)(i + 1));
	v = xcalloc(c->nbtf_mods, sizeof(*v));
	for (size_t i = 0; i < c->nbtf_mods; i++) {
		size_t r = (size_t)strmap_get(&rank, c->btf_mod_names[i]);

		v[i].rank = r ? r : c->nmods + 1 + i;
		v[i].i = i;
	}
	qsort(v, c->nbtf_mods, sizeof(*v), rank_cmp);
	permute(c->btf_mod_names, sizeof(char *), v, c->nbtf_mods);
	permute(c->btf_mod_paths, sizeof(char *), v, c->nbtf_mods);
	permute(c->btf_mod_found, sizeof(char *), v, c->nbtf_mods);
	permute(c->btf_mod_iters, sizeof(char **), v, c->nbtf_mods);
	free(v);
}

/* The list of the installed modules with tracepoints stays what it was
 * from one session to the next until a kernel package changes the
 * modules (depmod rewrites modules.dep) or the debuginfo that orders
 * the list: it is kept in CACHE/dwarf/tpmods-KEY.list, KEY a hash of
 * those files' identities, so that a session names the hundred or so
 * modules with tracepoints (and their tracepoints) without opening the
 * thousand and more that are installed. A line a module:
 * NAME<tab>PATH<tab>TRACEPOINT TRACEPOINT... */
#define TPMODS_MAGIC "tapir-tpmods 1"

void dwarf_hash_modules(struct session *s, struct sha256 *h,
			const char *format)
{
	struct kconfig *k = kconfig_get(s);
	char *p;

	sha256_field_str(h, "format", format);
	sha256_field_str(h, "release", k->release);
	p = xasprintf("/lib/modules/%s/modules.dep", k->release);
	kf_hash_file_id(h, p);
	free(p);
	p = xasprintf("/lib/modules/%s/kernel", k->release);
	kf_hash_file_id(h, p);
	free(p);
}

char *dwarf_cache_file(struct sha256 *h, const char *name, const char *ext)
{
	char hex[SHA256_HEX_SIZE], *dir, *p;

	sha256_final_hex(h, hex);
	dir = tapir_cache_dir();
	p = xasprintf("%s/dwarf/%s-%.32s.%s", dir, name, hex, ext);
	free(dir);
	return p;
}

static char *tpmods_cache_path(struct session *s, bool ordered)
{
	struct kconfig *k = kconfig_get(s);
	struct sha256 h;
	char *p;

	sha256_init(&h);
	dwarf_hash_modules(s, &h, TPMODS_MAGIC);
	if (ordered) {
		char **roots = debug_roots();

		for (int i = 0; roots[i]; i++) {
			p = xasprintf("%s/lib/modules/%s/kernel", roots[i],
				      k->release);
			kf_hash_file_id(&h, p);
			free(p);
		}
		free_roots(roots);
		if (k->build_dir)
			kf_hash_file_id(&h, k->build_dir);
	}
	return dwarf_cache_file(&h, "tpmods", "list");
}

static bool tpmods_load(struct dwarf_ctx *c, const char *cache)
{
	FILE *f = fopen(cache, "r");
	char *line = NULL;
	size_t cap = 0;
	bool ok;

	if (!f)
		return false;
	ok = getline(&line, &cap, f) > 0 &&
	     strcmp(line, TPMODS_MAGIC "\n") == 0;
	while (ok && getline(&line, &cap, f) > 0) {
		char *name = line, *path, *list, *file, **iters, *tok, *save;
		size_t n = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!(path = strchr(name, '\t')) ||
		    !(list = strchr(path + 1, '\t'))) {
			ok = false;
			break;
		}
		*path++ = '\0';
		*list++ = '\0';
		file = kmod_file(path, image_defines_tracepoints);
		if (!file)		/* gone since: as a walk would */
			continue;
		iters = xcalloc(strlen(list) / 2 + 2, sizeof(*iters));
		for (tok = strtok_r(list, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			iters[n++] = xstrdup(tok);
		push_btf_module(c, xstrdup(name), xstrdup(path), file, iters);
	}
	free(line);
	fclose(f);
	return ok;
}

static void tpmods_save(struct session *s, struct dwarf_ctx *c,
			const char *cache)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	fputs(TPMODS_MAGIC "\n", m);
	for (size_t i = 0; i < c->nbtf_mods; i++) {
		if (strpbrk(c->btf_mod_names[i], "\t\n ") ||
		    strpbrk(c->btf_mod_found[i], "\t\n")) {
			fclose(m);	/* cannot be written down: not kept */
			free(buf);
			return;
		}
		fprintf(m, "%s\t%s\t", c->btf_mod_names[i],
			c->btf_mod_found[i]);
		for (char **p = c->btf_mod_iters[i]; p && *p; p++)
			fprintf(m, "%s%s", *p, p[1] ? " " : "");
		fputc('\n', m);
	}
	fclose(m);
	dwarf_cache_write(s, cache, buf, len);
	free(buf);
}

void dwarf_cache_write(struct session *s, const char *path, const void *buf,
		       size_t len)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash)
		*slash = '\0';
	/* a cache that cannot be written only costs time */
	if ((kf_mkdirs(dir) != 0 || kf_write_file(path, buf, len) != 0) &&
	    s->verbose)
		fprintf(s->err, "tapir: cannot write %s: %s\n", path,
			strerror(errno));
	free(dir);
}

bool dwarf_btf_module_may_trace(struct session *s, size_t i,
				const char *glob)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	return i >= c->nbtf_mods || iters_match(c->btf_mod_iters[i], glob);
}

static void free_btf_modules(struct dwarf_ctx *c)
{
	for (size_t i = 0; i < c->nbtf_mods; i++) {
		free(c->btf_mod_names[i]);
		free(c->btf_mod_paths[i]);
		free(c->btf_mod_found[i]);
		for (char **p = c->btf_mod_iters[i]; p && *p; p++)
			free(*p);
		free(c->btf_mod_iters[i]);
	}
	free(c->btf_mod_names);
	free(c->btf_mod_paths);
	free(c->btf_mod_found);
	free(c->btf_mod_iters);
	c->btf_mod_names = c->btf_mod_paths = c->btf_mod_found = NULL;
	c->btf_mod_iters = NULL;
	c->nbtf_mods = 0;
}

size_t dwarf_btf_tracepoint_modules(struct session *s,
				    const char *const **names,
				    const char *const **paths)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->btf_mods_listed) {
		char *dir = xasprintf("/lib/modules/%s/kernel",
				      kconfig_get(s)->release);
		char *cache = tpmods_cache_path(s, dwarf_unit_for(s, NULL));

		c->btf_mods_listed = true;
		if (!tpmods_load(c, cache)) {
			free_btf_modules(c);
			find_modules(c, dir, 0, add_btf_module);
			order_like_debuginfo(s, c);
			tpmods_save(s, c, cache);
		}
		free(cache);
		free(dir);
	}
	*names = (const char *const *)c->btf_mod_names;
	*paths = (const char *const *)c->btf_mod_paths;
	return c->nbtf_mods;
}

static int find_no_debuginfo(Dwfl_Module *m, void **u, const char *mn,
			     Dwarf_Addr a, const char *file, const char *link,
			     GElf_Word crc, char **dpath)
{
	/* the .ko carries its own debuginfo: no separate file */
	(void)m; (void)u; (void)mn; (void)a; (void)file; (void)link;
	(void)crc; (void)dpath;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = find_no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static struct dwarf_unit *open_module(const char *name, const char *path)
{
	Dwfl *dwfl = dwfl_begin(&offline_callbacks);
	Dwfl_Module *m;
	Dwarf *dw;
	Dwarf_Addr bias;
	struct dwarf_unit *u;

	if (!dwfl)
		return NULL;
	m = dwfl_report_offline(dwfl, name, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!m || !(dw = dwfl_module_getdwarf(m, &bias))) {
		dwfl_end(dwfl);
		return NULL;
	}
	u = xcalloc(1, sizeof(*u));
	u->name = xstrdup(name);
	u->path = xstrdup(path);
	u->fd = -1;
	u->dwfl = dwfl;
	u->mod = m;
	u->dw = dw;
	u->bias = bias;
	u->elf = dwfl_module_getelf(m, &bias);
	return u;
}

Elf *dwarf_kernel_elf(struct session *s)
{
	struct dwarf_unit *u = dwarf_unit_for(s, NULL);

	return u ? u->elf : NULL;
}

struct dwarf_unit *dwarf_unit_for(struct session *s, const char *module)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->opened) {
		c->opened = true;
		open_kernel(s, c);
	}
	if (!module || strcmp(module, "kernel") == 0)
		return c->kernel;
	for (struct dwarf_unit *u = c->modules; u; u = u->next)
		if (strcmp(u->name, module) == 0)
			return u;
	list_modules(s, c);
	for (size_t i = 0; i < c->nmods; i++) {
		struct dwarf_unit *u;

		if (strcmp(c->mod_names[i], module) != 0)
			continue;
		u = open_module(c->mod_names[i], c->mod_paths[i]);
		if (!u)
			return NULL;
		u->next = c->modules;
		c->modules = u;
		return u;
	}
	return NULL;
}

/*
 * The separate debuginfo of a user-space file, as elfutils' standard
 * finder looks for it (dwfl_standard_find_debuginfo: by build ID under
 * .build-id/, then by .gnu_debuglink beside the file, in its .debug/
 * and under the debug roots), along SYSTEMTAP_DEBUGINFO_PATH when set,
 * as stap; else its default path (/usr/lib/debug). NULL when the file
 * has DWARF of its own or none is found; else malloc'd.
 */
char *dwarf_user_debugfile(const char *path)
{
	char *dipath = getenv("SYSTEMTAP_DEBUGINFO_PATH");
	const Dwfl_Callbacks cb = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = dipath ? &dipath : NULL,
	};
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *m;
	Dwarf_Addr bias;
	const char *dbg = NULL;
	char *r = NULL;

	if (!dwfl)
		return NULL;
	m = dwfl_report_offline(dwfl, path, path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (m && dwfl_module_getdwarf(m, &bias) &&
	    dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, &dbg) &&
	    dbg && strcmp(dbg, path) != 0)
		r = xstrdup(dbg);
	dwfl_end(dwfl);
	return r;
}

struct dwarf_unit *dwarf_user_unit(struct session *s, const char *path)
{
	struct dwarf_ctx *c = dwarf_ctx(s);
	struct dwarf_unit *u;
	GElf_Ehdr eh;

	for (u = c->modules; u; u = u->next)
		if (u->user && strcmp(u->path, path) == 0)
			return u;
	u = open_kernel_file(path);
	if (!u) {
		/* a stripped file: its -dbg package's DWARF (the same
		 * addresses), under the file's own name */
		char *dbg = dwarf_user_debugfile(path);

		if (dbg)
			u = open_kernel_file(dbg);
		free(dbg);
		if (!u)
			return NULL;
		free(u->path);
		u->path = xstrdup(path);
	}
	free(u->name);
	u->name = xstrdup(path);
	u->user = true;
	u->user_pie = gelf_getehdr(u->elf, &eh) && eh.e_type == ET_DYN;
	u->next = c->modules;
	c->modules = u;
	return u;
}

bool dwarf_available(struct session *s, const char *module)
{
	return dwarf_unit_for(s, module) != NULL;
}

/* ---- symbols, the kernel's blacklist ---- */

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address, names without compiler suffixes first */
	return (strchr(x->name, '.') != NULL) - (strchr(y->name, '.') != NULL);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The bytes at a link-time address of an ET_EXEC file. */
bool dwarf_read_addr(Elf *elf, uint64_t addr, void *buf, size_t n)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || addr < sh.sh_addr ||
		    addr + n > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + n > d->d_size)
			return false;
		memcpy(buf, (char *)d->d_buf + (addr - sh.sh_addr), n);
		return true;
	}
	return false;
}

static void add_range(struct dwarf_unit *u, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return;
	u->blacklist = xrealloc(u->blacklist, (u->nblacklist + 1) *
				sizeof(*u->blacklist));
	u->blacklist[u->nblacklist].lo = lo;
	u->blacklist[u->nblacklist].hi = hi;
	u->nblacklist++;
}

/*
 * The kernel refuses kprobes on: functions listed by NOKPROBE_SYMBOL()
 * (their addresses, in the _kprobe_blacklist section between
 * __start_kprobe_blacklist and __stop_kprobe_blacklist), __kprobes text,
 * noinstr text and (x86) the entry text.
 */
static void load_blacklist(struct dwarf_unit *u, uint64_t start_bl,
			   uint64_t stop_bl, const uint64_t *ranges)
{
	for (int i = 0; i < 6; i += 2)
		add_range(u, ranges[i], ranges[i + 1]);
	for (uint64_t a = start_bl; a && a + 8 <= stop_bl; a += 8) {
		uint64_t fn;
		const struct fsym *f;

		if (!dwarf_read_addr(u->elf, a, &fn, 8))
			break;
		f = dwarf_symbol_at(u, fn);
		if (f && f->addr == fn)
			add_range(u, fn, fn + (f->size ? f->size : 1));
	}
	if (u->nblacklist)
		qsort(u->blacklist, u->nblacklist, sizeof(*u->blacklist),
		      range_cmp);
}

static void load_symbols(struct dwarf_unit *u)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	uint64_t start_bl = 0, stop_bl = 0, ranges[6] = { 0 };
	static const char *const names[6] = {
		"__kprobes_text_start", "__kprobes_text_end",
		"__noinstr_text_start", "__noinstr_text_end",
		"__entry_text_start", "__entry_text_end",
	};

	u->syms_loaded = true;
	while (u->elf && (scn = elf_nextscn(u->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			uint64_t addr;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(u->elf, sh.sh_link, sym.st_name)))
				continue;
			addr = sym.st_value;
			if (u->dwfl) {
				/* a module: the address libdwfl gave the
				 * symbol's section */
				GElf_Addr a;
				GElf_Sym s2;
				const char *n2 = dwfl_module_getsym_info(u->mod,
					(int)i, &s2, &a, NULL, NULL, NULL);

				if (!n2)
					continue;
				addr = a - u->bias;
			}
			if (!u->dwfl) {
				if (strcmp(name, "_stext") == 0)
					u->stext = addr;
				else if (strcmp(name, "__start_kprobe_blacklist") == 0)
					start_bl = addr;
				else if (strcmp(name, "__stop_kprobe_blacklist") == 0)
					stop_bl = addr;
				for (int k = 0; k < 6; k++)
					if (strcmp(name, names[k]) == 0)
						ranges[k] = addr;
			}
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			if (u->nsyms == cap) {
				cap = cap ? cap * 2 : 4096;
				u->syms = xrealloc(u->syms, cap * sizeof(*u->syms));
			}
			u->syms[u->nsyms].addr = addr;
			u->syms[u->nsyms].size = sym.st_size;
			u->syms[u->nsyms].name = name;
			u->nsyms++;
		}
	}
	if (u->nsyms)
		qsort(u->syms, u->nsyms, sizeof(*u->syms), fsym_cmp);
	if (!u->dwfl)
		load_blacklist(u, start_bl, stop_bl, ranges);
}

/* The function symbol whose code holds addr (the last one at or before
 * it), or NULL. */
const struct fsym *dwarf_symbol_at(struct dwarf_unit *u, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!u->syms_loaded)
		load_symbols(u);
	hi = u->nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (u->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* the first of the symbols at that address */
	while (lo > 1 && u->syms[lo - 2].addr == u->syms[lo - 1].addr)
		lo--;
	return &u->syms[lo - 1];
}

static bool kernel_blacklisted(struct dwarf_unit *u, uint64_t pc)
{
	if (!u->syms_loaded)
		load_symbols(u);
	for (size_t i = 0; i < u->nblacklist; i++)
		if (pc >= u->blacklist[i].lo && pc < u->blacklist[i].hi)
			return true;
	return false;
}

Dwarf_CFI *dwarf_unit_cfi(struct dwarf_unit *u)
{
	if (!u->cfi_tried) {
		u->cfi_tried = true;
		if (u->dwfl) {
			Dwarf_Addr bias;

			u->cfi = dwfl_module_dwarf_cfi(u->mod, &bias);
		} else if (u->user) {
			u->cfi = dwarf_getcfi_elf(u->elf);
		} else {
			u->cfi = dwarf_getcfi(u->dw);
		}
	}
	return u->cfi;
}

/* ---- the function index ---- */

struct builder {
	struct fn_entry *v;
	size_t n, cap;
	char *strs;
	size_t nstrs, capstrs;
	/* interning: open addressing over string offsets + 1 */
	uint32_t *slots;
	size_t nslots, nused;
	uint32_t *files;		/* file id -> string offset */
	size_t nfiles, capfiles;
	uint32_t *file_slots;		/* string offset + 1 -> file id + 1 */
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void grow_slots(struct builder *b)
{
	size_t n = b->nslots ? b->nslots * 2 : 1 << 16;
	uint32_t *slots = xcalloc(n, sizeof(*slots));
	uint32_t *fslots = xcalloc(n, sizeof(*fslots));

	for (size_t i = 0; i < b->nslots; i++) {
		uint32_t off = b->slots[i];
		size_t j;

		if (!off)
			continue;
		j = hash_str(b->strs + off - 1) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = off;
		fslots[j] = b->file_slots[i];
	}
	free(b->slots);
	free(b->file_slots);
	b->slots = slots;
	b->file_slots = fslots;
	b->nslots = n;
}

/* The string's offset in the table, added if new; *slot its hash slot. */
static uint32_t intern(struct builder *b, const char *s, size_t *slot)
{
	size_t len = strlen(s), j;
	uint32_t off;

	if ((b->nused + 1) * 2 > b->nslots)
		grow_slots(b);
	j = hash_str(s) & (b->nslots - 1);
	while (b->slots[j]) {
		if (strcmp(b->strs + b->slots[j] - 1, s) == 0) {
			*slot = j;
			return b->slots[j] - 1;
		}
		j = (j + 1) & (b->nslots - 1);
	}
	if (b->nstrs + len + 1 > b->capstrs) {
		b->capstrs = (b->nstrs + len + 1) * 2;
		b->strs = xrealloc(b->strs, b->capstrs);
	}
	off = (uint32_t)b->nstrs;
	memcpy(b->strs + off, s, len + 1);
	b->nstrs += len + 1;
	b->slots[j] = off + 1;
	b->nused++;
	*slot = j;
	return off;
}

static uint32_t intern_file(struct builder *b, const char *s)
{
	size_t slot;
	uint32_t off = intern(b, s, &slot);

	if (!b->file_slots[slot]) {
		if (b->nfiles == b->capfiles) {
			b->capfiles = b->capfiles ? b->capfiles * 2 : 4096;
			b->files = xrealloc(b->files, b->capfiles *
					    sizeof(*b->files));
		}
		b->files[b->nfiles] = off;
		b->file_slots[slot] = (uint32_t)++b->nfiles;
	}
	return b->file_slots[slot] - 1;
}

static const char *attr_string(Dwarf_Die *d, int name)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, name, &a));
}

static bool die_entry(Dwarf_Die *d, Dwarf_Addr *pc);

static void index_die(struct builder *b, Dwarf_Die *d, uint64_t cu)
{
	Dwarf_Word inl = 0;
	Dwarf_Attribute a;
	uint32_t flags = 0;
	const char *name, *file;
	int line = 0;
	size_t slot;
	struct fn_entry *e;

	if (dwarf_hasattr(d, DW_AT_declaration))
		return;
	if (dwarf_attr(d, DW_AT_inline, &a) && dwarf_formudata(&a, &inl) == 0 &&
	    (inl == DW_INL_inlined || inl == DW_INL_declared_inlined))
		flags |= FN_ABSTRACT;
	if (dwarf_hasattr(d, DW_AT_low_pc) || dwarf_hasattr(d, DW_AT_ranges))
		flags |= FN_CODE;
	if (!flags)
		return;
	/* a concrete out-of-line copy of an inline function: its name is
	 * its abstract origin's */
	if (dwarf_hasattr(d, DW_AT_abstract_origin) ||
	    dwarf_hasattr(d, DW_AT_specification))
		flags |= FN_ORIGIN;
	if (dwarf_hasattr_integrate(d, DW_AT_external))
		flags |= FN_EXTERNAL;
	name = attr_string(d, DW_AT_name);
	if (!name)
		return;
	file = dwarf_decl_file(d);
	dwarf_decl_line(d, &line);
	if (!file) {
		/* assembly: where the line table puts its first address */
		Dwarf_Addr pc;
		Dwarf_Line *l;
		Dwarf_Die cudie;

		if (dwarf_lowpc(d, &pc) == 0 && dwarf_diecu(d, &cudie, NULL, NULL) &&
		    (l = dwarf_getsrc_die(&cudie, pc))) {
			file = dwarf_linesrc(l, NULL, NULL);
			dwarf_lineno(l, &line);
		}
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 65536;
		b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	e = &b->v[b->n++];
	e->name = intern(b, name, &slot);
	e->file = intern_file(b, file ? file : "<unknown source>");
	e->die = dwarf_dieoffset(d);
	e->cu = cu;
	e->line = line;
	e->flags = flags;
	e->entry = 0;
	if (flags & FN_CODE) {
		Dwarf_Addr pc;

		if (die_entry(d, &pc))
			e->entry = pc;
	}
}

static int entry_cmp(const void *a, const void *b, void *strs)
{
	const struct fn_entry *x = a, *y = b;
	int c = strcmp((const char *)strs + x->name,
		       (const char *)strs + y->name);

	if (c)
		return c;
	return x->die < y->die ? -1 : x->die > y->die;
}

static void index_build(struct dwarf_unit *u, struct fn_index *idx)
{
	struct builder b = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;

		if (dwarf_offdie(u->dw, off + hsize, &cu) &&
		    dwarf_child(&cu, &d) == 0) {
			do {
				if (dwarf_tag(&d) == DW_TAG_subprogram)
					index_die(&b, &d, off + hsize);
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	if (b.n)
		qsort_r(b.v, b.n, sizeof(*b.v), entry_cmp, b.strs);
	free(b.slots);
	free(b.file_slots);
	idx->v = b.v;
	idx->n = b.n;
	idx->files = b.files;
	idx->nfiles = b.nfiles;
	idx->strs = b.strs ? b.strs : xcalloc(1, 1);
	idx->nstrs = b.nstrs;
	idx->built = true;
}

/* The cache file: a header, the entries, the file table, the strings. */
struct index_header {
	char magic[8];
	uint64_t size, mtime, ino;	/* the vmlinux it describes */
	uint64_t n, nfiles, nstrs;
	/* the symbol table, sorted, and the kprobe blacklist */
	uint64_t nsyms, nsymstrs, nblacklist, stext;
};

/* A function symbol in the cache file: name is an offset into the
 * symbol names that end the file. */
struct sym_rec {
	uint64_t addr, size, name;
};

/* Sizes of the parts of a cache file, in order. */
static size_t index_parts(const struct index_header *h, size_t part[6])
{
	part[0] = sizeof(*h);
	part[1] = h->n * sizeof(struct fn_entry);
	part[2] = (h->nfiles * sizeof(uint32_t) + 7) & ~(size_t)7;	/* align */
	part[3] = h->nsyms * sizeof(struct sym_rec);
	part[4] = h->nblacklist * sizeof(struct range);
	part[5] = h->nstrs + h->nsymstrs;
	return part[0] + part[1] + part[2] + part[3] + part[4] + part[5];
}

static char *index_path(struct dwarf_unit *u, const struct stat *st)
{
	struct sha256 h;
	char hex[SHA256_HEX_SIZE];
	char *dir = tapir_cache_dir(), *p;

	sha256_init(&h);
	sha256_field_str(&h, "path", u->path);
	sha256_field(&h, "size", &st->st_size, sizeof(st->st_size));
	sha256_field(&h, "mtime", &st->st_mtim, sizeof(st->st_mtim));
	sha256_final_hex(&h, hex);
	p = xasprintf("%s/dwarf/%.32s.idx", dir, hex);
	free(dir);
	return p;
}

static bool index_load(struct dwarf_unit *u, const char *path,
		       const struct stat *vst)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct index_header h;
	char *m, *p;
	size_t need, part[6];
	const struct sym_rec *syms;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(h)) {
		close(fd);
		return false;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return false;
	memcpy(&h, m, sizeof(h));
	if (memcmp(h.magic, INDEX_MAGIC, 8) != 0 ||
	    h.size != (uint64_t)vst->st_size || h.ino != (uint64_t)vst->st_ino ||
	    h.mtime != (uint64_t)vst->st_mtim.tv_sec * 1000000000u +
		       (uint64_t)vst->st_mtim.tv_nsec ||
	    (need = index_parts(&h, part)) != (size_t)st.st_size) {
		munmap(m, (size_t)st.st_size);
		return false;
	}
	free(u->syms);
	free(u->blacklist);
	p = m + part[0];
	u->idx.map = m;
	u->idx.map_len = (size_t)st.st_size;
	u->idx.v = (struct fn_entry *)p;
	u->idx.n = h.n;
	p += part[1];
	u->idx.files = (uint32_t *)p;
	u->idx.nfiles = h.nfiles;
	p += part[2];
	syms = (const struct sym_rec *)p;
	p += part[3];
	u->blacklist = xmalloc(part[4] + 1);
	memcpy(u->blacklist, p, part[4]);
	u->nblacklist = h.nblacklist;
	p += part[4];
	u->idx.strs = p;
	u->idx.nstrs = h.nstrs;
	/* the symbols, already sorted */
	u->syms = xcalloc(h.nsyms + 1, sizeof(*u->syms));
	for (size_t i = 0; i < h.nsyms; i++) {
		u->syms[i].addr = syms[i].addr;
		u->syms[i].size = syms[i].size;
		u->syms[i].name = p + h.nstrs + syms[i].name;
	}
	u->nsyms = h.nsyms;
	u->stext = h.stext;
	u->syms_loaded = true;
	u->idx.built = true;
	return true;
}

static void index_save(struct session *s, struct dwarf_unit *u,
		       const char *path, const struct stat *vst)
{
	struct index_header h;
	size_t len, part[6];
	char *buf, *dir, *slash, *p, *symstrs;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, INDEX_MAGIC, 8);
	h.size = (uint64_t)vst->st_size;
	h.ino = (uint64_t)vst->st_ino;
	h.mtime = (uint64_t)vst->st_mtim.tv_sec * 1000000000u +
		  (uint64_t)vst->st_mtim.tv_nsec;
	h.n = u->idx.n;
	h.nfiles = u->idx.nfiles;
	h.nstrs = u->idx.nstrs;
	if (!u->syms_loaded)
		load_symbols(u);
	h.nsyms = u->nsyms;
	for (size_t i = 0; i < u->nsyms; i++)
		h.nsymstrs += strlen(u->syms[i].name) + 1;
	h.nblacklist = u->nblacklist;
	h.stext = u->stext;
	len = index_parts(&h, part);
	buf = xcalloc(1, len);		/* (the padding too) */
	p = buf;
	memcpy(p, &h, part[0]);
	p += part[0];
	if (h.n)
		memcpy(p, u->idx.v, part[1]);
	p += part[1];
	if (h.nfiles)
		memcpy(p, u->idx.files, h.nfiles * sizeof(uint32_t));
	p += part[2];
	symstrs = p + part[3] + part[4] + h.nstrs;
	for (size_t i = 0, off = 0; i < u->nsyms; i++) {
		struct sym_rec r = { u->syms[i].addr, u->syms[i].size, off };
		size_t k = strlen(u->syms[i].name) + 1;

		memcpy(p + i * sizeof(r), &r, sizeof(r));
		memcpy(symstrs + off, u->syms[i].name, k);
		off += k;
	}
	p += part[3];
	if (part[4])	/* a user-space file has no blacklist */
		memcpy(p, u->blacklist, part[4]);
	p += part[4];
	if (h.nstrs)
		memcpy(p, u->idx.strs, h.nstrs);
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	/* a cache that cannot be written only costs time */
	if (kf_mkdirs(dir) != 0 || kf_write_file(path, buf, len) != 0) {
		if (s->verbose)
			fprintf(s->err, "tapir: cannot write the DWARF index "
				"%s: %s\n", path, strerror(errno));
	}
	free(dir);
	free(buf);
}

static struct fn_index *unit_index(struct session *s, struct dwarf_unit *u)
{
	struct stat st;
	char *path = NULL;

	if (u->idx.built)
		return &u->idx;
	/* cached, the kernel's and the modules' (kernel.trace("*") opens
	 * every module with tracepoints: building their indices was a
	 * sixth of its time) */
	if (stat(u->path, &st) == 0) {
		path = index_path(u, &st);
		if (index_load(u, path, &st)) {
			if (s->verbose)
				fprintf(s->err, "tapir: DWARF index %s (%zu "
					"functions)\n", path, u->idx.n);
			free(path);
			return &u->idx;
		}
	}
	index_build(u, &u->idx);
	if (s->verbose)
		fprintf(s->err, "tapir: indexed %zu functions of %s\n",
			u->idx.n, u->path);
	if (path) {
		index_save(s, u, path, &st);
		free(path);
	}
	return &u->idx;
}

/* ---- patterns ---- */

/* "func[@file[:N|:N-M|:*|+N]]" */
bool dwarf_parse_pattern(struct session *s, const char *pat,
			 struct dwarf_query *q, const char **why)
{
	const char *at = strchr(pat, '@');
	const char *colon, *plus;
	char *end;

	q->file = NULL;
	q->line_lo = q->line_hi = 0;
	q->line_any = false;
	if (!at) {
		q->function = pat;
		return true;
	}
	q->function = arena_strndup(&s->arena, pat, (size_t)(at - pat));
	colon = strrchr(at, ':');
	plus = strrchr(at, '+');
	if (plus && (!colon || plus > colon))
		colon = plus;
	if (!colon) {
		q->file = at + 1;
		return true;
	}
	q->file = arena_strndup(&s->arena, at + 1, (size_t)(colon - at - 1));
	if (strcmp(colon + 1, "*") == 0 && *colon == ':') {
		q->line_any = true;
		return true;
	}
	errno = 0;
	q->line_lo = (int)strtol(colon + 1, &end, 10);
	q->line_hi = q->line_lo;
	if (*end == '-' && *colon == ':')
		q->line_hi = (int)strtol(end + 1, &end, 10);
	if (end == colon + 1 || *end || q->line_lo < 0 ||
	    q->line_hi < q->line_lo) {
		*why = arena_printf(&s->arena, "malformed line number in '%s' "
				    "(expected FUNC@FILE:N, :N-M, :* or +N)",
				    pat);
		return false;
	}
	if (*colon == '+') {
		/* relative to the function's declaration line */
		q->line_lo = -q->line_lo - 1;
		q->line_hi = q->line_lo;
	}
	return true;
}

/* ---- SystemTap's own blacklist ---- */

/*
 * Beyond the kernel's kprobe blacklist, SystemTap refuses functions that
 * its probe handlers (or the kprobes machinery) run through or that
 * commonly crash a kernel when probed, files of the same kind, and code
 * in sections that are gone after boot. The same lists keep Tapir's
 * wildcards matching what stap matches.
 */
static const char bl_functions[] =
	"^(atomic_notifier_call_chain|default_do_nmi|__die|die_nmi|"
	"do_debug|do_general_protection|do_int3|do_IRQ|do_page_fault|"
	"do_sparc64_fault|do_trap|dummy_nmi_callback|flush_icache_range|"
	"ia64_bad_break|ia64_do_page_fault|ia64_fault|io_check_error|"
	"mem_parity_error|nmi_watchdog_tick|notifier_call_chain|oops_begin|"
	"oops_end|program_check_exception|single_step_exception|sync_regs|"
	"unhandled_fault|unknown_nmi_error|xen_[gs]et_debugreg|xen_irq_.*|"
	"xen_.*_fl_direct.*|check_events|xen_adjust_exception_frame|"
	"xen_iret.*|xen_sysret64.*|test_ti_thread_flag.*|"
	"inat_get_opcode_attribute|system_call_after_swapgs|"
	"HYPERVISOR_[gs]et_debugreg|HYPERVISOR_event_channel_op|hash_64|"
	"hash_ptr|native_set_pte|.*raw_.*_lock.*|.*raw_.*_unlock.*|"
	".*raw_.*_trylock.*|.*read_lock.*|.*read_unlock.*|.*read_trylock.*|"
	".*write_lock.*|.*write_unlock.*|.*write_trylock.*|"
	".*write_seqlock.*|.*write_sequnlock.*|.*spin_lock.*|"
	".*spin_unlock.*|.*spin_trylock.*|.*spin_is_locked.*|rwsem_.*lock.*|"
	".*mutex_.*lock.*|atomic_.*|atomic64_.*|get_bh|put_bh|.*apic.*|"
	".*APIC.*|.*softirq.*|.*IRQ.*|.*_intr.*|__delay|.*kernel_text.*|"
	"get_current|current_.*|.*exception_tables.*|.*setup_rt_frame.*|"
	".*preempt_count.*|preempt_schedule|__switch_to|special_mapping_.*|"
	".*_pte_.*)$";
/* functions that never return: no return probes */
static const char bl_functions_ret[] = "^(do_exit|sys_exit|sys_exit_group)$";
static const char bl_files[] =
	"^(kernel/kprobes\\.c|arch/.*/kernel/kprobes\\.c|"
	".*/include/asm/io\\.h|.*/include/asm/io-defs\\.h|"
	".*/include/asm/io_64\\.h|.*/include/asm/bitops\\.h|"
	"drivers/ide/ide-iops\\.c|arch/.*/kernel/paravirt\\.c|"
	".*/include/asm/paravirt\\.h|fs/seq_file\\.c)$";
static const char bl_sections[] =
	"^(\\.init\\.|\\.exit\\.|\\.devinit\\.|\\.devexit\\.|\\.cpuinit\\.|"
	"\\.cpuexit\\.|\\.meminit\\.|\\.memexit\\.)";

static void blacklist_init(struct dwarf_ctx *c)
{
	if (c->bl_ready)
		return;
	c->bl_ready = true;
	regcomp(&c->bl_fn, bl_functions, REG_EXTENDED | REG_NOSUB);
	regcomp(&c->bl_fn_ret, bl_functions_ret, REG_EXTENDED | REG_NOSUB);
	regcomp(&c->bl_file, bl_files, REG_EXTENDED | REG_NOSUB);
	regcomp(&c->bl_section, bl_sections, REG_EXTENDED | REG_NOSUB);
}

/* The name of the ELF section holding a link-time address. */
static const char *section_of(struct dwarf_unit *u, uint64_t addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (u->dwfl) {
		Dwarf_Addr a = addr + u->bias;
		int i = dwfl_module_relocate_address(u->mod, &a);

		return i < 0 ? NULL : dwfl_module_relocation_info(u->mod,
							(unsigned)i, NULL);
	}
	if (elf_getshdrstrndx(u->elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(u->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    addr >= sh.sh_addr && addr < sh.sh_addr + sh.sh_size)
			return elf_strptr(u->elf, shstrndx, sh.sh_name);
	}
	return NULL;
}

/* Why stap would refuse this site, or NULL. */
static const char *stap_blacklisted(struct session *s, struct dwarf_unit *u,
				    const struct dwarf_site *site)
{
	struct dwarf_ctx *c = dwarf_ctx(s);
	const char *sec;

	if (u->user)	/* the kernel's list: a program's lll_mutex_lock_
			 * optimized is probed, as stap's */
		return NULL;
	blacklist_init(c);
	if (regexec(&c->bl_fn, site->function, 0, NULL, 0) == 0)
		return arena_printf(&s->arena, "function %s is blocklisted",
				    site->function);
	if (site->is_return &&
	    regexec(&c->bl_fn_ret, site->function, 0, NULL, 0) == 0)
		return arena_printf(&s->arena, "function %s return probe is "
				    "blocklisted", site->function);
	if (site->decl_file &&
	    regexec(&c->bl_file, site->decl_file, 0, NULL, 0) == 0)
		return arena_printf(&s->arena, "function %s is in blocklisted "
				    "file %s", site->function, site->decl_file);
	/* (a module's init and exit code stays probeable, as in stap) */
	sec = u->dwfl ? NULL : section_of(u, site->pc);
	if (sec && regexec(&c->bl_section, sec, 0, NULL, 0) == 0)
		return arena_printf(&s->arena, "function %s is in blocklisted "
				    "section %s", site->function, sec);
	return NULL;
}

/* ---- sites ---- */

/* Where a subprogram or inlined subroutine starts. */
static bool die_entry(Dwarf_Die *d, Dwarf_Addr *pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off;

	if (dwarf_entrypc(d, pc) == 0)
		return true;
	off = dwarf_ranges(d, 0, &base, &lo, &hi);
	if (off > 0) {
		*pc = lo;
		return true;
	}
	return false;
}

static bool cu_optimized(Dwarf_Die *cu)
{
	const char *p = attr_string(cu, DW_AT_producer);

	/* gcc records its options: " -O2", " -Os"; no -O (or -O0) means
	 * the prologue must be skipped for the arguments to be right */
	for (; p && (p = strstr(p, " -O")); p += 3)
		if (p[3] != '0')
			return true;
	return false;
}

/* Past the prologue: the line table's first row after the entry that
 * starts a new line, as for code built without optimization. */
static Dwarf_Addr after_prologue(Dwarf_Die *fn, Dwarf_Addr entry)
{
	Dwarf_Addr *bk = NULL;
	int n = dwarf_entry_breakpoints(fn, &bk);
	Dwarf_Addr pc = entry;

	if (n > 0)
		pc = bk[0];
	free(bk);
	return pc;
}

struct finder {
	struct session *s;
	const struct dwarf_query *q;
	struct dwarf_unit *u;
	struct dwarf_site **v;
	int n, cap;
	const char *why;		/* the first refusal */
	/* inline instances of the CU being walked: origin -> instances */
	uint64_t walked_cu;
	uint64_t *inl_origin, *inl_die, *inl_top;
	size_t ninl, capinl;
	bool *file_ok;			/* per file of the index, or NULL */
};

static void site_push(struct finder *f, struct dwarf_site *site)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->v = xrealloc(f->v, (size_t)f->cap * sizeof(*f->v));
	}
	f->v[f->n++] = site;
}

static void site_add(struct finder *f, struct dwarf_site *site)
{
	/* an instance nested in another at the same address: one probe */
	for (int i = f->n - 1; i >= 0 && f->v[i]->fn_die == site->fn_die; i--)
		if (f->v[i]->pc == site->pc && f->v[i]->line == site->line)
			return;
	site_push(f, site);
}

static void fill_reloc(struct finder *f, struct dwarf_site *site)
{
	struct dwarf_unit *u = f->u;
	const struct fsym *sym = dwarf_symbol_at(u, site->pc);

	if (sym && (!sym->size || site->pc < sym->addr + sym->size)) {
		site->symbol = sym->name;
		site->symbol_offset = site->pc - sym->addr;
	}
	if (u->dwfl) {
		Dwarf_Addr a = site->pc + u->bias;
		int i = dwfl_module_relocate_address(u->mod, &a);

		site->reloc_base = i < 0 ? ".text" : dwfl_module_relocation_info(
			u->mod, (unsigned)i, NULL);
		site->reloc_offset = a;
	} else {
		site->reloc_base = "_stext";
		site->reloc_offset = site->pc - u->stext;
	}
}

/* n bytes of code at a link-time address. */
static bool read_code(struct dwarf_unit *u, uint64_t addr, void *buf,
		      size_t n)
{
	Dwarf_Addr a = addr + u->bias, bias;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	if (!u->dwfl)
		return dwarf_read_addr(u->elf, addr, buf, n);
	scn = dwfl_module_address_section(u->mod, &a, &bias);
	if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf || a + n > d->d_size)
		return false;
	memcpy(buf, (char *)d->d_buf + a, n);
	return true;
}

/* Past a "call __fentry__" at a function's entry (-mfentry): the kernel
 * has the call's target resolved; a module has it as a relocation, so
 * any call there is the fentry call. */
static uint64_t past_fentry(struct dwarf_unit *u, uint64_t entry)
{
	unsigned char code[5];
	int32_t rel;

	if (!read_code(u, entry, code, 5) || code[0] != 0xe8)
		return entry;
	if (!u->dwfl) {
		const struct fsym *t;

		memcpy(&rel, code + 1, 4);
		t = dwarf_symbol_at(u, entry + 5 + (int64_t)rel);
		if (!t || t->addr != entry + 5 + (uint64_t)(int64_t)rel ||
		    strcmp(t->name, "__fentry__") != 0)
			return entry;
	}
	return entry + 5;
}

/* Make a site; NULL when stap's blacklist refuses it (noted in why). */
static struct dwarf_site *make_site(struct finder *f, Dwarf_Die *cu,
				    Dwarf_Die *fn, Dwarf_Die *die,
				    const struct fn_entry *e, Dwarf_Addr entry,
				    bool inlined)
{
	struct session *s = f->s;
	struct dwarf_site *site = ANEW(&s->arena, struct dwarf_site);
	const char *bl;

	site->module = f->u->name;
	site->function = f->u->idx.strs + e->name;
	site->decl_file = f->u->idx.strs + f->u->idx.files[e->file];
	site->decl_line = e->line;
	site->cu = dwarf_diename(cu);
	site->entry_pc = entry;
	site->optimized = cu_optimized(cu);
	site->prologue_pc = inlined ? entry : after_prologue(die, entry);
	site->pc = session_past_prologue(s, site->optimized) ?
		   site->prologue_pc : entry;
	site->var_pc = !inlined && site->pc == entry ?
		       past_fentry(f->u, entry) : site->pc;
	site->inlined = inlined;
	site->is_return = f->q->is_return;
	site->unit = f->u;
	site->die = dwarf_dieoffset(die);
	site->fn_die = dwarf_dieoffset(fn);
	site->cu_die = dwarf_dieoffset(cu);
	site->top_die = site->die;
	bl = f->q->tracepoints ? NULL : stap_blacklisted(s, f->u, site);
	if (bl) {
		if (!f->why)
			f->why = bl;
		return NULL;
	}
	site->blacklisted = !f->u->dwfl && kernel_blacklisted(f->u, site->pc);
	/* .exported means a global function, as stap takes it */
	site->exported = !inlined && (e->flags & FN_EXTERNAL);
	fill_reloc(f, site);
	return site;
}

/* Collect the CU's inlined subroutines (by abstract origin), with the
 * top-level DIE holding each. */
static void walk_inlines(struct finder *f, Dwarf_Die *d, int depth,
			 uint64_t top)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Die o;

			if (dwarf_attr(&c, DW_AT_abstract_origin, &a) &&
			    dwarf_formref_die(&a, &o)) {
				if (f->ninl == f->capinl) {
					f->capinl = f->capinl ? f->capinl * 2 : 256;
					f->inl_origin = xrealloc(f->inl_origin,
						f->capinl * sizeof(uint64_t));
					f->inl_die = xrealloc(f->inl_die,
						f->capinl * sizeof(uint64_t));
					f->inl_top = xrealloc(f->inl_top,
						f->capinl * sizeof(uint64_t));
				}
				f->inl_origin[f->ninl] = dwarf_dieoffset(&o);
				f->inl_die[f->ninl] = dwarf_dieoffset(&c);
				f->inl_top[f->ninl] = top;
				f->ninl++;
			}
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		    tag == DW_TAG_inlined_subroutine)
			walk_inlines(f, &c, depth + 1,
				     depth ? top : dwarf_dieoffset(&c));
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void inline_sites(struct finder *f, Dwarf_Die *cu, Dwarf_Die *fn,
			 const struct fn_entry *e)
{
	uint64_t cuoff = dwarf_dieoffset(cu);

	if (f->walked_cu != cuoff) {
		f->ninl = 0;
		f->walked_cu = cuoff;
		walk_inlines(f, cu, 0, 0);
	}
	for (size_t i = 0; i < f->ninl; i++) {
		Dwarf_Die inl;
		Dwarf_Addr entry;
		struct dwarf_site *site;

		if (f->inl_origin[i] != e->die ||
		    !dwarf_offdie(f->u->dw, f->inl_die[i], &inl) ||
		    !die_entry(&inl, &entry))
			continue;
		site = make_site(f, cu, fn, &inl, e, entry, true);
		if (site) {
			site->top_die = f->inl_top[i];
			site_add(f, site);
		}
	}
}

/* A site inside the function (or inline instance) die, at pc, for line
 * of its source: a statement or a label. Its $vars are those of the
 * blocks around pc (dwarf-vars.c). NULL when refused. */
static struct dwarf_site *site_at(struct finder *f, Dwarf_Die *cu,
				  Dwarf_Die *fn, Dwarf_Die *die, uint64_t top,
				  const struct fn_entry *e, Dwarf_Addr entry,
				  int line, Dwarf_Addr pc)
{
	struct dwarf_site *site = make_site(f, cu, fn, die, e, entry,
					    die != fn);

	if (!site)
		return NULL;
	site->top_die = top;
	site->line = line;
	site->pc = site->var_pc = pc;
	fill_reloc(f, site);
	site->blacklisted = !f->u->dwfl && kernel_blacklisted(f->u, site->pc);
	site_add(f, site);
	return site;
}

/* The lowest address of each wanted line of the function's decl file
 * inside its code: one statement site per line. */
static void statement_sites(struct finder *f, Dwarf_Die *cu, Dwarf_Die *fn,
			    Dwarf_Die *die, uint64_t top,
			    const struct fn_entry *e, Dwarf_Addr entry)
{
	const struct dwarf_query *q = f->q;
	Dwarf_Lines *lines;
	size_t nl;
	int lo = q->line_lo, hi = q->line_hi;
	const char *file = f->u->idx.strs + f->u->idx.files[e->file];
	int *lnums = NULL;
	Dwarf_Addr *addrs = NULL;
	size_t n = 0;

	if (lo < 0) {		/* +N */
		lo = hi = e->line + (-lo - 1);
	}
	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		int ln;
		const char *src;
		bool found = false;

		if (dwarf_lineaddr(l, &a) != 0 || dwarf_lineno(l, &ln) != 0 ||
		    dwarf_haspc(die, a) <= 0)
			continue;
		if ((!q->line_any && (ln < lo || ln > hi)) || ln <= e->line)
			continue;	/* (lines above it are inlined code) */
		src = dwarf_linesrc(l, NULL, NULL);
		if (!src || strcmp(src, file) != 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (lnums[k] == ln) {
				if (a < addrs[k])
					addrs[k] = a;
				found = true;
			}
		if (found)
			continue;
		lnums = xrealloc(lnums, (n + 1) * sizeof(*lnums));
		addrs = xrealloc(addrs, (n + 1) * sizeof(*addrs));
		lnums[n] = ln;
		addrs[n] = a;
		n++;
	}
	/* by line */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && lnums[j - 1] > lnums[j]; j--) {
			int t = lnums[j];
			Dwarf_Addr ta = addrs[j];

			lnums[j] = lnums[j - 1];
			lnums[j - 1] = t;
			addrs[j] = addrs[j - 1];
			addrs[j - 1] = ta;
		}
	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		/* one probe per address: a line sharing its first address
		 * with an earlier line is that line's */
		for (size_t k = 0; k < i; k++)
			dup |= addrs[k] == addrs[i];
		if (!dup)
			site_at(f, cu, fn, die, top, e, entry, lnums[i],
				addrs[i]);
	}
	free(lnums);
	free(addrs);
}

/* Is a label's line one FUNC@FILE:LINE names? (any without a line; N,
 * N-M, *, and +N from the function's declaration, as statements) */
static bool label_line(const struct dwarf_query *q, const struct fn_entry *e,
		       int line)
{
	int lo = q->line_lo, hi = q->line_hi;

	if (q->line_any || (!lo && !hi))
		return true;
	if (lo < 0)
		lo = hi = e->line + (-lo - 1);
	return line >= lo && line <= hi;
}

/* The labels of die's own code matching the query's glob (DW_TAG_label
 * with an address, in its lexical blocks too; not those of the inline
 * instances inside it, which are the inlined function's): one site each,
 * at the label's address, named by its file and line. */
static void label_sites(struct finder *f, Dwarf_Die *cu, Dwarf_Die *fn,
			Dwarf_Die *die, Dwarf_Die *d, uint64_t top,
			const struct fn_entry *e, Dwarf_Addr entry, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c), line = 0;
		const char *name;
		Dwarf_Addr pc;
		struct dwarf_site *site;

		if (tag == DW_TAG_lexical_block)
			label_sites(f, cu, fn, die, &c, top, e, entry,
				    depth + 1);
		if (tag != DW_TAG_label ||
		    !(name = attr_string(&c, DW_AT_name)) ||
		    fnmatch(f->q->label, name, 0) != 0 ||
		    dwarf_lowpc(&c, &pc) != 0)
			continue;
		dwarf_decl_line(&c, &line);
		if (!label_line(f->q, e, line))
			continue;
		site = site_at(f, cu, fn, die, top, e, entry, line, pc);
		if (site) {
			const char *file = dwarf_decl_file(&c);

			site->label = name;
			site->scope_die = dwarf_dieoffset(d);
			/* named by the label's file, as its line: a label
			 * in an #included file is that file's */
			if (file)
				site->decl_file = arena_strdup(&f->s->arena,
							       file);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Statements of each inline instance of e (lines of its own file), or
 * with .label its labels. */
static void inline_statements(struct finder *f, Dwarf_Die *cu, Dwarf_Die *fn,
			      const struct fn_entry *e)
{
	uint64_t cuoff = dwarf_dieoffset(cu);

	if (f->walked_cu != cuoff) {
		f->ninl = 0;
		f->walked_cu = cuoff;
		walk_inlines(f, cu, 0, 0);
	}
	Dwarf_Addr last = 0;

	for (size_t i = 0; i < f->ninl; i++) {
		Dwarf_Die inl;
		Dwarf_Addr entry;

		if (f->inl_origin[i] != e->die ||
		    !dwarf_offdie(f->u->dw, f->inl_die[i], &inl) ||
		    !die_entry(&inl, &entry))
			continue;
		/* an instance nested in one at the same entry is that one,
		 * as for its function probe: stap 4.8 lists no label of it */
		if (f->q->label && entry != last)
			label_sites(f, cu, fn, &inl, &inl, f->inl_top[i], e,
				    entry, 0);
		if (f->q->label)
			last = entry;
		else
			statement_sites(f, cu, fn, &inl, f->inl_top[i], e,
					entry);
	}
}

static bool file_matches(const char *pat, const char *file)
{
	char buf[512];

	if (fnmatch(pat, file, 0) == 0)
		return true;
	/* an implicit leading "*" + "/": the last components suffice */
	if (snprintf(buf, sizeof(buf), "*/%s", pat) >= (int)sizeof(buf))
		return false;
	return fnmatch(buf, file, 0) == 0;
}

/* Does the out-of-line copy e count as its function? (foo,
 * foo.constprop.0, foo.isra.0 do; foo.part.0, a part split off by gcc,
 * lists as a symbol, as in stap) */
static bool origin_counts(struct dwarf_unit *u, const struct fn_entry *e)
{
	const struct fsym *sym = dwarf_symbol_at(u, e->entry);
	const char *fname = u->idx.strs + e->name;
	size_t len = strlen(fname);

	return sym && sym->addr == e->entry &&
	       strncmp(sym->name, fname, len) == 0 &&
	       (!sym->name[len] || (sym->name[len] == '.' &&
				    !strstr(sym->name + len, ".part.")));
}

/* pass 0: the out-of-line function; pass 1: its inline instances. */
static void entry_sites(struct finder *f, const struct fn_entry *e, int pass)
{
	const struct dwarf_query *q = f->q;
	Dwarf_Die cu, fn;
	Dwarf_Addr entry;

	if (!dwarf_offdie(f->u->dw, e->cu, &cu) ||
	    !dwarf_offdie(f->u->dw, e->die, &fn))
		return;
	if (q->statement || q->label) {
		bool own = !pass && (e->flags & FN_CODE) &&
			   die_entry(&fn, &entry) &&
			   (!(e->flags & FN_ORIGIN) || origin_counts(f->u, e));

		if (own && q->label)
			label_sites(f, &cu, &fn, &fn, &fn, e->die, e, entry, 0);
		else if (own)
			statement_sites(f, &cu, &fn, &fn, e->die, e, entry);
		if (pass && (e->flags & FN_ABSTRACT))
			inline_statements(f, &cu, &fn, e);
		return;
	}
	if (!pass && (e->flags & FN_CODE) && !q->inline_only &&
	    die_entry(&fn, &entry)) {
		struct dwarf_site *site;

		if ((e->flags & FN_ORIGIN) && !origin_counts(f->u, e))
			goto inlines;
		site = make_site(f, &cu, &fn, &fn, e, entry, false);
		if (site && q->exported && !site->exported)
			site = NULL;
		if (site)
			site_add(f, site);
	}
inlines:
	/* inline instances: no return point, not exported, not .call */
	if (pass && (e->flags & FN_ABSTRACT) && !q->call && !q->exported &&
	    !q->is_return)
		inline_sites(f, &cu, &fn, e);
}

static int die_cmp(const void *a, const void *b)
{
	const struct fn_entry *x = *(struct fn_entry *const *)a;
	const struct fn_entry *y = *(struct fn_entry *const *)b;

	return x->die < y->die ? -1 : x->die > y->die;
}

/* The index entries whose name matches: a binary search over the
 * literal prefix, then fnmatch. */
static size_t match_names(struct fn_index *idx, const char *pat,
			  const struct fn_entry ***out)
{
	size_t plen = strcspn(pat, "*?[\\"), lo = 0, hi = idx->n, n = 0, cap = 0;
	const struct fn_entry **v = NULL;
	bool wild = pat[plen] != '\0';

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strncmp(idx->strs + idx->v[mid].name, pat, plen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < idx->n; i++) {
		const char *name = idx->strs + idx->v[i].name;

		if (strncmp(name, pat, plen) != 0)
			break;
		if (wild ? fnmatch(pat, name, 0) != 0 : strcmp(pat, name) != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = &idx->v[i];
	}
	*out = v;
	return n;
}

static void symbol_sites(struct finder *f);
static int u64_cmp(const void *a, const void *b);
static bool index_has(const struct fn_index *idx, const char *name);
static void build_covered(struct dwarf_unit *u);

/* The unit's function symbols, and the entries of its DWARF functions. */
static void load_covered(struct dwarf_unit *u)
{
	if (!u->syms_loaded)
		load_symbols(u);
	if (!u->covered_built)
		build_covered(u);
}

static bool name_matches(const char *pat, bool wild, const char *name)
{
	return wild ? fnmatch(pat, name, 0) == 0 : strcmp(pat, name) == 0;
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a;
	uintptr_t y = (uintptr_t)*(const void *const *)b;

	return x < y ? -1 : x > y;
}

/*
 * A symbol that DWARF does not name but whose address starts a DWARF
 * function is another name of that function: x86's SYSCALL_DEFINE0
 * makes __x64_sys_getppid an alias of __do_sys_getppid. As in stap,
 * a pattern that matches the alias probes the function, under its
 * DWARF name and with its variables. Adds those functions' entries to
 * v (n of them), once each; returns the new count.
 */
static size_t alias_entries(struct finder *f, const struct fn_entry ***pv,
			    size_t n)
{
	struct dwarf_unit *u = f->u;
	struct fn_index *idx = &u->idx;
	const char *pat = f->q->function;
	bool wild = has_wild(pat);
	uint64_t *addr = NULL;
	size_t na = 0, acap = 0, cap = n;

	load_covered(u);
	for (size_t i = 0; i < u->nsyms; i++) {
		const struct fsym *sym = &u->syms[i];

		if (!name_matches(pat, wild, sym->name))
			continue;
		if (!bsearch(&sym->addr, u->covered, u->ncovered,
			     sizeof(*u->covered), u64_cmp) ||
		    index_has(idx, sym->name))
			continue;
		if (na == acap) {
			acap = acap ? acap * 2 : 16;
			addr = xrealloc(addr, acap * sizeof(*addr));
		}
		addr[na++] = sym->addr;
	}
	if (!na)
		return n;
	qsort(addr, na, sizeof(*addr), u64_cmp);
	for (size_t i = 0; i < idx->n; i++) {
		const struct fn_entry *e = &idx->v[i];

		if (!(e->flags & FN_CODE) || !e->entry ||
		    ((e->flags & FN_ORIGIN) && !origin_counts(u, e)) ||
		    !bsearch(&e->entry, addr, na, sizeof(*addr), u64_cmp))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*pv = xrealloc(*pv, cap * sizeof(**pv));
		}
		(*pv)[n++] = e;
	}
	free(addr);
	/* once each: the function's own name may have matched too */
	qsort(*pv, n, sizeof(**pv), ptr_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (!w || (*pv)[w - 1] != (*pv)[i])
			(*pv)[w++] = (*pv)[i];
	return w;
}

static void unit_sites(struct finder *f)
{
	struct fn_index *idx = unit_index(f->s, f->u);
	const struct fn_entry **v;
	size_t n = match_names(idx, f->q->function, &v);

	if (!f->q->statement && !f->q->inline_only)
		n = alias_entries(f, &v, n);

	if (f->q->file) {
		size_t w = 0;

		f->file_ok = xcalloc(idx->nfiles, sizeof(bool) * 2);
		for (size_t i = 0; i < n; i++) {
			uint32_t fi = v[i]->file;

			/* [2i]: known, [2i+1]: matches */
			if (!f->file_ok[2 * fi]) {
				f->file_ok[2 * fi] = true;
				f->file_ok[2 * fi + 1] = file_matches(f->q->file,
					idx->strs + idx->files[fi]);
			}
			if (f->file_ok[2 * fi + 1])
				v[w++] = v[i];
		}
		n = w;
		free(f->file_ok);
		f->file_ok = NULL;
	}
	/* in CU and DIE order, as the debuginfo has them */
	if (n)
		qsort(v, n, sizeof(*v), die_cmp);
	/* per CU, the out-of-line functions first, then inline instances,
	 * as stap orders them */
	f->walked_cu = 0;
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && v[j]->cu == v[i]->cu; j++)
			entry_sites(f, v[j], 0);
		for (size_t k = i; k < j; k++)
			entry_sites(f, v[k], 1);
	}
	free(v);
	symbol_sites(f);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Does DWARF know a function of this name? */
static bool index_has(const struct fn_index *idx, const char *name)
{
	size_t lo = 0, hi = idx->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (strcmp(idx->strs + idx->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->n && strcmp(idx->strs + idx->v[lo].name, name) == 0;
}

/* The entry addresses of every DWARF function of the unit. */
static void build_covered(struct dwarf_unit *u)
{
	struct fn_index *idx = &u->idx;

	u->covered_built = true;
	u->covered = xcalloc(idx->n + 1, sizeof(*u->covered));
	for (size_t i = 0; i < idx->n; i++) {
		const struct fn_entry *e = &idx->v[i];

		if ((e->flags & FN_CODE) && e->entry &&
		    (!(e->flags & FN_ORIGIN) || origin_counts(u, e)))
			u->covered[u->ncovered++] = e->entry;
	}
	qsort(u->covered, u->ncovered, sizeof(*u->covered), u64_cmp);
}

/*
 * Function symbols that no DWARF function describes (assembly
 * trampolines, the .cold and .part.N pieces gcc splits off) are probe
 * points too, named without a source file, as stap lists them: entry
 * and return probes by address, without target variables (and, as in
 * stap 4.8, their entry for a .label point too).
 */
static void symbol_sites(struct finder *f)
{
	struct dwarf_unit *u = f->u;
	const struct dwarf_query *q = f->q;
	bool wild = has_wild(q->function);

	if (q->file || q->statement || q->inline_only)
		return;
	load_covered(u);
	for (size_t i = 0; i < u->nsyms; i++) {
		const struct fsym *sym = &u->syms[i];
		struct dwarf_site *site;
		const char *bl;

		if (!name_matches(q->function, wild, sym->name))
			continue;
		if (i && u->syms[i - 1].addr == sym->addr)
			continue;	/* an alias of the previous one */
		if (bsearch(&sym->addr, u->covered, u->ncovered,
			    sizeof(*u->covered), u64_cmp) ||
		    index_has(&u->idx, sym->name))
			continue;
		site = ANEW(&f->s->arena, struct dwarf_site);
		site->module = u->name;
		site->function = sym->name;
		site->entry_pc = site->prologue_pc = site->pc = sym->addr;
		site->var_pc = sym->addr;
		site->is_return = q->is_return;
		/* .label: stap probes such a symbol's entry, named with the
		 * label pattern as written */
		site->label = q->label;
		site->unit = u;
		bl = stap_blacklisted(f->s, u, site);
		if (bl) {
			if (!f->why)
				f->why = bl;
			continue;
		}
		site->blacklisted = !u->dwfl && kernel_blacklisted(u, sym->addr);
		fill_reloc(f, site);
		site_add(f, site);
	}
}

/* Is a module matching pat built into the kernel (modules.builtin)? */
static bool builtin_module(struct session *s, const char *pat)
{
	char *path = xasprintf("/lib/modules/%s/modules.builtin",
			       kconfig_get(s)->release);
	FILE *f = fopen(path, "r");
	char line[512];
	bool found = false;

	free(path);
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *name;

		line[strcspn(line, "\n")] = '\0';
		name = module_name_of(line);
		found = has_wild(pat) ? fnmatch(pat, name, 0) == 0 :
					strcmp(pat, name) == 0;
		free(name);
	}
	if (f)
		fclose(f);
	return found;
}

int dwarf_find_sites(struct session *s, const struct dwarf_query *q,
		     struct dwarf_site ***out, const char **why)
{
	struct dwarf_ctx *c = dwarf_ctx(s);
	struct finder f = { .s = s, .q = q };
	int nunits = 0;

	*why = NULL;
	if (q->user) {
		f.u = dwarf_user_unit(s, q->user);
		if (!f.u) {
			*why = arena_printf(&s->arena, "'%s' has no DWARF",
					    q->user);
			return -1;
		}
		unit_sites(&f);
	} else if (!q->module) {
		f.u = dwarf_unit_for(s, NULL);
		if (!f.u) {
			*why = arena_printf(&s->arena, "no kernel debuginfo for "
					    "%s (install the %s package)",
					    kconfig_get(s)->release,
					    dwarf_package(s));
			return -1;
		}
		unit_sites(&f);
		nunits = 1;
	} else {
		dwarf_unit_for(s, NULL);
		list_modules(s, c);
		for (size_t i = 0; i < c->nmods; i++) {
			if (has_wild(q->module) ?
			    fnmatch(q->module, c->mod_names[i], 0) != 0 :
			    strcmp(q->module, c->mod_names[i]) != 0)
				continue;
			f.u = dwarf_unit_for(s, c->mod_names[i]);
			if (!f.u)
				continue;
			unit_sites(&f);
			nunits++;
		}
		if (!nunits) {
			*why = builtin_module(s, q->module) ?
				arena_printf(&s->arena, "module '%s' is built "
					     "into kernel %s: probe it as "
					     "kernel.function(...)", q->module,
					     kconfig_get(s)->release) :
				arena_printf(&s->arena, "no debuginfo for "
					     "module '%s' of kernel %s (install "
					     "the %s package)", q->module,
					     kconfig_get(s)->release,
					     dwarf_package(s));
			return -1;
		}
	}
	free(f.inl_origin);
	free(f.inl_die);
	free(f.inl_top);
	*out = arena_alloc(&s->arena, (size_t)(f.n + 1) * sizeof(**out));
	if (f.n)
		memcpy(*out, f.v, (size_t)f.n * sizeof(**out));
	free(f.v);
	if (!f.n)
		*why = f.why;
	return f.n;
}

/*
 * .callee(PAT) and .callees(DEPTH): the callees of a caller site that
 * the debuginfo places inside it, as stap 4.8 finds them. Those are the
 * inline instances (DW_TAG_inlined_subroutine) in the caller's code,
 * through its lexical blocks, that have a DW_AT_low_pc (one in several
 * ranges is left out, as stap leaves it); .callees(N) goes on into the instances
 * inside each instance, N levels in all. stap 4.8 also follows gcc's
 * DWARF 4 call sites (DW_TAG_GNU_call_site) to out-of-line callees;
 * the DWARF 5 that Debian's kernels are built with has DW_TAG_call_site
 * instead, which it does not follow, so neither does Tapir (the same
 * points, the same listing).
 */
struct callee_walk {
	struct finder f;
	struct fn_index *idx;
	const char *pat;
	Dwarf_Die cu;
	const struct dwarf_site *top;
};

/* The index entry of an abstract origin (NULL when the index lacks it). */
static const struct fn_entry *origin_entry(struct callee_walk *w,
					   const char *name, uint64_t die)
{
	const struct fn_entry **v, *hit = NULL;
	size_t n = match_names(w->idx, name, &v);

	for (size_t i = 0; i < n && !hit; i++)
		if (v[i]->die == die)
			hit = v[i];
	free(v);
	return hit;
}

static void callees_in(struct callee_walk *w, Dwarf_Die *d,
		       const struct dwarf_site *caller, int depth, int nest)
{
	Dwarf_Die c;

	if (nest > 64 || dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Attribute a;
		Dwarf_Die o;
		Dwarf_Addr entry;
		const struct fn_entry *e;
		const char *name;
		struct dwarf_site *site;

		if (tag == DW_TAG_lexical_block) {
			callees_in(w, &c, caller, depth, nest + 1);
			continue;
		}
		/* (an instance in several ranges, without DW_AT_low_pc,
		 * is not one stap 4.8 finds) */
		if (tag != DW_TAG_inlined_subroutine ||
		    !dwarf_hasattr(&c, DW_AT_low_pc) ||
		    !dwarf_attr(&c, DW_AT_abstract_origin, &a) ||
		    !dwarf_formref_die(&a, &o) || !(name = dwarf_diename(&o)) ||
		    !die_entry(&c, &entry) ||
		    !(e = origin_entry(w, name, dwarf_dieoffset(&o))))
			continue;
		site = NULL;
		if (fnmatch(w->pat, name, 0) == 0) {
			site = make_site(&w->f, &w->cu, &o, &c, e, entry, true);
			/* (each instance is a callee of its own, also one
			 * nested in another of the same function at the same
			 * address, as stap lists them) */
			if (site) {
				site->top_die = w->top->top_die;
				site->caller = caller;
				site_push(&w->f, site);
			}
		}
		if (depth > 1 && site)
			callees_in(w, &c, site, depth - 1, nest + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
}

int dwarf_find_callees(struct session *s, const struct dwarf_query *q,
		       struct dwarf_site *const *callers, int ncallers,
		       const char *pat, int depth, struct dwarf_site ***out)
{
	struct callee_walk w = { .f = { .s = s, .q = q }, .pat = pat };

	for (int i = 0; i < ncallers; i++) {
		const struct dwarf_site *caller = callers[i];
		Dwarf_Die d;

		if (caller->btf || !caller->unit || !caller->unit->dw ||
		    !dwarf_offdie(caller->unit->dw, caller->cu_die, &w.cu) ||
		    !dwarf_offdie(caller->unit->dw, caller->die, &d))
			continue;
		w.f.u = caller->unit;
		w.idx = unit_index(s, caller->unit);
		w.top = caller;
		callees_in(&w, &d, caller, depth, 0);
	}
	*out = arena_alloc(&s->arena, (size_t)(w.f.n + 1) * sizeof(**out));
	if (w.f.n)
		memcpy(*out, w.f.v, (size_t)w.f.n * sizeof(**out));
	free(w.f.v);
	return w.f.n;
}

const char *dwarf_site_point(struct session *s, const struct dwarf_site *site,
			     bool statement)
{
	const char *head = strcmp(site->module, "kernel") == 0 ? "kernel" :
		arena_printf(&s->arena, "module(\"%s\")", site->module);

	int line = statement ? site->line : site->decl_line;

	if (!site->decl_file)	/* a symbol without DWARF */
		return arena_printf(&s->arena, "%s.function(\"%s\")", head,
				    site->function);
	if (!line)	/* no line known */
		return arena_printf(&s->arena, "%s.%s(\"%s@%s\")", head,
				    statement ? "statement" : "function",
				    site->function, site->decl_file);
	return arena_printf(&s->arena, "%s.%s(\"%s@%s:%d\")", head,
			    statement ? "statement" : "function",
			    site->function, site->decl_file, line);
}
