/* kconfig.c - find the target kernel's release, arch and .config. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "kconfig.h"
#include "build/kfeature.h"
#include "session.h"
#include "xalloc.h"

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

struct entry {
	char *name, *value;
};

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
		      ((const struct entry *)b)->name);
}

static void load_config(struct kconfig *k, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	struct entry *v = NULL;
	unsigned long n = 0, cap = 0, i;

	if (!f)
		return;
	k->config_path = xstrdup(path);
	while (fgets(line, sizeof(line), f)) {
		char *eq, *val, *end;

		if (strncmp(line, "CONFIG_", 7) != 0)
			continue;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		val = eq + 1;
		val[strcspn(val, "\r\n")] = '\0';
		end = val + strlen(val);
		if (*val == '"' && end > val + 1 && end[-1] == '"') {
			end[-1] = '\0';
			val++;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n].name = xstrdup(line);
		v[n].value = xstrdup(val);
		n++;
	}
	fclose(f);
	if (n)
		qsort(v, n, sizeof(*v), entry_cmp);
	k->names = xmalloc((n ? n : 1) * sizeof(char *));
	k->values = xmalloc((n ? n : 1) * sizeof(char *));
	for (i = 0; i < n; i++) {
		k->names[i] = v[i].name;
		k->values[i] = v[i].value;
	}
	k->nconfig = n;
	free(v);
}

static char *normalize_arch(const char *m)
{
	if (strcmp(m, "i686") == 0 || strcmp(m, "i586") == 0 ||
	    strcmp(m, "i486") == 0)
		return xstrdup("i386");
	if (strcmp(m, "aarch64") == 0)
		return xstrdup("arm64");
	if (strncmp(m, "armv", 4) == 0)
		return xstrdup("arm");
	return xstrdup(m);
}

struct kconfig *kconfig_get(struct session *s)
{
	struct kconfig *k;
	struct utsname u;
	char *p;

	if (s->kconfig)
		return s->kconfig;
	k = xcalloc(1, sizeof(*k));
	uname(&u);
	if (s->target && strchr(s->target, '/')) {
		/* -r BUILDDIR */
		k->build_dir = xstrdup(s->target);
		k->release = kernel_tree_release(s->target);
		if (!k->release) {
			const char *base = strrchr(s->target, '/');

			while (base && base[1] == '\0' && base > s->target)
				base--;
			k->release = xstrdup(base ? base + 1 : s->target);
		}
	} else {
		char *dir;

		k->release = xstrdup(s->target ? s->target : u.release);
		dir = xasprintf("%s%s", "/lib/modules/", k->release);
		p = xasprintf("%s%s", dir, "/build");
		free(dir);
		if (is_dir(p)) {
			k->build_dir = p;
		} else {
			free(p);
			p = xasprintf("%s%s", "/usr/src/linux-headers-", k->release);
			if (is_dir(p))
				k->build_dir = p;
			else
				free(p);
		}
	}
	k->version = xstrdup(k->release);
	k->version[strcspn(k->version, "-+_ ")] = '\0';

	if (k->build_dir) {
		p = xasprintf("%s%s", k->build_dir, "/.config");
		load_config(k, p);
		free(p);
	}
	if (!k->config_path) {
		p = xasprintf("%s%s", "/boot/config-", k->release);
		load_config(k, p);
		free(p);
	}
	if (kconfig_value(k, "CONFIG_X86_64"))
		k->arch = xstrdup("x86_64");
	else if (kconfig_value(k, "CONFIG_ARM64"))
		k->arch = xstrdup("arm64");
	else if (kconfig_value(k, "CONFIG_X86_32"))
		k->arch = xstrdup("i386");
	else
		k->arch = normalize_arch(u.machine);
	s->kconfig = k;
	return k;
}

void kconfig_free(struct kconfig *k)
{
	unsigned long i;

	if (!k)
		return;
	for (i = 0; i < k->nconfig; i++) {
		free(k->names[i]);
		free(k->values[i]);
	}
	free(k->names);
	free(k->values);
	for (i = 0; i < k->nfuncs; i++)
		free(k->funcs[i]);
	free(k->funcs);
	free(k->sym_source);
	for (i = 0; i < k->nexports; i++)
		free(k->exports[i]);
	free(k->exports);
	free(k->release);
	free(k->version);
	free(k->arch);
	free(k->build_dir);
	free(k->config_path);
	free(k);
}

const char *kconfig_value(const struct kconfig *k, const char *name)
{
	unsigned long lo = 0, hi = k->nconfig;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;
		int c = strcmp(name, k->names[mid]);

		if (c == 0)
			return k->values[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int version_compare(const char *a, const char *b)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			for (; a < ea; a++, b++)
				if (*a != *b)
					return *a < *b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}
