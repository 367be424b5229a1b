/* kconfig.h - the target kernel as the preprocessor sees it:
 * release (kernel_vr), version (kernel_v), arch and CONFIG_* values.
 */
#ifndef TAPIR_KCONFIG_H
#define TAPIR_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

struct session;

struct kconfig {
	char *release;		/* kernel_vr: 6.1.0-57-cloud-amd64 */
	char *version;		/* kernel_v: 6.1.0 */
	char *arch;		/* x86_64, arm64, ... */
	char *build_dir;	/* NULL when no headers were found */
	char *config_path;	/* the .config read, or NULL */
	char **names, **values;	/* CONFIG_ entries, sorted by name */
	unsigned long nconfig;

	/* kernel text symbols (ksyms.c), loaded on first use */
	bool syms_loaded;
	char **funcs;		/* sorted, unique, NULL-terminated */
	size_t nfuncs;
	char *sym_source;	/* the file they came from */

	/* exported symbols, from the build directory's Module.symvers */
	bool exports_loaded;
	char **exports;		/* sorted, NULL when there is no file */
	size_t nexports;
};

/* Resolve -r (or uname -r) once; never NULL. */
struct kconfig *kconfig_get(struct session *s);
void kconfig_free(struct kconfig *k);
/* "y", "m", a string's contents or a number; NULL when unset. */
const char *kconfig_value(const struct kconfig *k, const char *name);
/* Compare dotted versions numerically: "6.10" > "6.9". */
int version_compare(const char *a, const char *b);

#endif
