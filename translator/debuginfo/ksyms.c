/* ksyms.c - the target kernel's function names.
 *
 * In order: the symbol table of the debuginfo vmlinux (Debian's
 * linux-image-*-dbg, or the build directory's vmlinux), a real System.map
 * (the build directory's, the -dbg package's, /boot's unless it is
 * Debian's placeholder), then /proc/kallsyms when the target is the
 * running kernel. Text symbols only; compiler-made copies (names with a
 * '.') are left out.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kconfig.h"
#include "providers/provider.h"
#include "xalloc.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *nv, const char *name)
{
	if (strchr(name, '.') || strchr(name, '[') || !*name)
		return;
	if (nv->n == nv->cap) {
		nv->cap = nv->cap ? nv->cap * 2 : 4096;
		nv->v = xrealloc(nv->v, nv->cap * sizeof(*nv->v));
	}
	nv->v[nv->n] = xstrdup(name);
	nv->n++;
}

/* Sort, drop duplicates, hand over to k. */
static bool names_done(struct kconfig *k, struct names *nv, const char *path)
{
	size_t w = 0;

	if (!nv->n) {
		free(nv->v);
		return false;
	}
	qsort(nv->v, nv->n, sizeof(*nv->v), cmp);
	for (size_t i = 0; i < nv->n; i++) {
		if (w && strcmp(nv->v[w - 1], nv->v[i]) == 0)
			free(nv->v[i]);
		else
			nv->v[w++] = nv->v[i];
	}
	nv->v = realloc(nv->v, (w + 1) * sizeof(*nv->v));
	nv->v[w] = NULL;
	k->funcs = nv->v;
	k->nfuncs = w;
	k->sym_source = strdup(path);
	return true;
}

/* STT_FUNC symbols of an ELF file's .symtab. */
static bool load_elf(struct kconfig *k, const char *path)
{
	int fd = open(path, O_RDONLY);
	struct names nv = { 0 };
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name)
				names_add(&nv, name);
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return names_done(k, &nv, path);
}

static bool load_map(struct kconfig *k, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	struct names nv = { 0 };

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strstr(line, "The real System.map is in")) {
			/* Debian's placeholder */
			for (size_t i = 0; i < nv.n; i++)
				free(nv.v[i]);
			nv.n = 0;
			break;
		}
		if (type == 't' || type == 'T' || type == 'W')
			names_add(&nv, name);
	}
	fclose(f);
	return names_done(k, &nv, path);
}

const char *const *ksyms_functions(struct session *s, size_t *n,
				   const char **source)
{
	struct kconfig *k = kconfig_get(s);

	if (!k->syms_loaded) {
		struct utsname u;
		const char *tries[4], *elves[3];
		int nt = 0, ne = 0;

		k->syms_loaded = true;
		if (k->build_dir)
			elves[ne++] = arena_printf(&s->arena, "%s/vmlinux",
						   k->build_dir);
		elves[ne++] = arena_printf(&s->arena,
					   "/usr/lib/debug/boot/vmlinux-%s",
					   k->release);
		elves[ne++] = arena_printf(&s->arena,
					   "/usr/lib/debug/lib/modules/%s/vmlinux",
					   k->release);
		for (int i = 0; i < ne && !k->funcs; i++)
			load_elf(k, elves[i]);
		if (k->build_dir)
			tries[nt++] = arena_printf(&s->arena, "%s/System.map",
						   k->build_dir);
		tries[nt++] = arena_printf(&s->arena,
					   "/usr/lib/debug/boot/System.map-%s",
					   k->release);
		tries[nt++] = arena_printf(&s->arena, "/boot/System.map-%s",
					   k->release);
		uname(&u);
		if (strcmp(u.release, k->release) == 0)
			tries[nt++] = "/proc/kallsyms";
		for (int i = 0; i < nt && !k->funcs; i++)
			load_map(k, tries[i]);
		if (s->verbose && k->funcs)
			fprintf(s->err, "tapir: %zu kernel functions from %s\n",
				k->nfuncs, k->sym_source);
	}
	*n = k->nfuncs;
	*source = k->sym_source;
	return (const char *const *)k->funcs;
}

/* Is name exported to modules (EXPORT_SYMBOL*)? -1 when unknown. */
int ksyms_exported(struct session *s, const char *name)
{
	struct kconfig *k = kconfig_get(s);

	if (!k->exports_loaded) {
		FILE *f;
		char line[512];
		struct names nv = { 0 };

		k->exports_loaded = true;
		f = k->build_dir ? fopen(arena_printf(&s->arena,
					 "%s/Module.symvers", k->build_dir), "r") :
				   NULL;
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f)) {
			char crc[32], sym[256];

			if (sscanf(line, "%31s %255s", crc, sym) == 2)
				names_add(&nv, sym);
		}
		fclose(f);
		if (nv.n)
			qsort(nv.v, nv.n, sizeof(*nv.v), cmp);
		k->exports = nv.v;
		k->nexports = nv.n;
		if (!k->exports) {
			k->exports = xcalloc(1, sizeof(char *));
		}
	}
	if (!k->exports)
		return -1;
	return bsearch(&name, k->exports, k->nexports, sizeof(char *), cmp) != NULL;
}
