/* ksyms.c - the target kernel's function names.
 *
 * In order: a real System.map (the build directory's, the -dbg package's,
 * /boot's unless it is Debian's placeholder), then /proc/kallsyms when the
 * target is the running kernel. Text symbols only; compiler-made copies
 * (names with a '.') are left out.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kconfig.h"
#include "provider.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool load_map(struct kconfig *k, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0, n = 0, w = 0;
	char **v = NULL;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (strstr(line, "The real System.map is in")) {
			/* Debian's placeholder */
			n = 0;
			break;
		}
		if (type != 't' && type != 'T' && type != 'W')
			continue;
		if (strchr(name, '.') || strchr(name, '['))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(v, cap * sizeof(*v));
			if (!v) {
				fputs("tapir: out of memory\n", stderr);
				exit(2);
			}
		}
		v[n] = strdup(name);
		if (!v[n]) {
			fputs("tapir: out of memory\n", stderr);
			exit(2);
		}
		n++;
	}
	fclose(f);
	if (!n) {
		free(v);
		return false;
	}
	qsort(v, n, sizeof(*v), cmp);
	for (size_t i = 0; i < n; i++) {
		if (w && strcmp(v[w - 1], v[i]) == 0)
			free(v[i]);
		else
			v[w++] = v[i];
	}
	v = realloc(v, (w + 1) * sizeof(*v));
	v[w] = NULL;
	k->funcs = v;
	k->nfuncs = w;
	k->sym_source = strdup(path);
	return true;
}

const char *const *ksyms_functions(struct session *s, size_t *n,
				   const char **source)
{
	struct kconfig *k = kconfig_get(s);

	if (!k->syms_loaded) {
		struct utsname u;
		const char *tries[4];
		int nt = 0;

		k->syms_loaded = true;
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
	}
	*n = k->nfuncs;
	*source = k->sym_source;
	return (const char *const *)k->funcs;
}
