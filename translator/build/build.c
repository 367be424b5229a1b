// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * build.c - pass 4: kbuild the generated C with the runtime and
 * kernel-core trees into NAME.ko, through the module cache.
 *
 *   build_module
 *     kernel_target_resolve    -r: the kbuild tree and its identity
 *     get_features             the cached HAVE_* header (kfeature.c)
 *     collect_inputs           generated C, tree files, object list
 *     hash_inputs              SHA-256 of all of it and the options
 *     cache_lookup             CACHE/modules/HASH/NAME.ko: done
 *     assemble                 a temporary folder with the sources
 *     objects_prepare          the trees' objects: CACHE/objects/KEY, or
 *                              one kbuild run and ld -r to make it
 *     run_kbuild               the module's make run (again without the
 *                              prebuilt object if it fails to link)
 *     report_log               compiler errors with the user's paths
 *     cache_store              publish with rename()
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "replay.h"

#define BUILD_VERSION "tapir-build 2"
#define MAIN_NAME "tapir-main"		/* never a module name: it has '-' */
#define FEATURES_NAME "tapir-features.h"
#define MODULE_NAME_MAX 55		/* MODULE_NAME_LEN - 1 */

/* The objects cache. */
#define OBJECTS_VERSION "tapir-objects 1"
#define PREBUILT_NAME MAIN_NAME "-prebuilt"	/* no tree can be named so */
/* The module name of the objects build: an object holding it depends on
 * the module's name. */
#define PROBE_NAME "tapir_objects_modname_probe"
/* What stap leaves out of -Werror for the C it generates, which a
 * script's embedded C (-g) is written against: unused names, unknown
 * pragmas, recursion, address tests and pointer/integer casts. Only a
 * module with such code gets them; ours is held to every warning. */
#define EMBEDDED_CFLAGS "-Wno-unused -Wno-pragmas -Wno-infinite-recursion " \
			"-Wno-address $(call cc-option,-Wno-pointer-to-int-cast) " \
			"$(call cc-option,-Wno-int-to-pointer-cast)"
#define LD_MARK "TAPIR_LD="
#define DIR_MARK "@TAPIR_BUILD_DIR@"	/* the build folder in kept messages */

struct input {
	char *rel;		/* name in the build folder: runtime/map.c */
	char *from;		/* where it came from */
	char *text;
	size_t len;
};

struct inputs {
	struct input *v;
	size_t n;
	char *source_text;	/* the generated C */
	size_t source_len;
	char **objects;		/* .c files relative to the build folder */
	size_t nobjects;
};

/* The trees' objects for this build. */
struct objects {
	char **prebuilt;	/* .c (rel) in PREBUILT_NAME.o */
	size_t nprebuilt;
	char **per_module;	/* .c (rel) compiled in the module */
	char **reasons;		/* why, for each per_module */
	size_t nper;
	char *messages;		/* compiler messages of the objects build,
				 * DIR_MARK for its folder */
	bool use;		/* the module links PREBUILT_NAME.o */
	char *failed;		/* the objects path failed: why (the
				 * module is built without it) */
	bool lasting;		/* because of the kernel's kbuild or
				 * toolchain: KEY.unusable if the module
				 * then builds without it */
	char *dir;		/* the objects build folder (kept with -k) */
};

struct build {
	const struct build_opts *o;
	struct build_result *res;
	FILE *err;
	struct inputs in;
	char *cache_dir;	/* the cache folder */
	bool use_cache;		/* for the module (features always) */
	char *dir;		/* the build folder */
	struct objects oc;
	bool replayed;		/* the module's commands ran without make */
};

/* ---- checks ---- */

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

bool build_module_name_ok(const char *name)
{
	size_t i;

	for (i = 0; name[i]; i++)
		if (!ident_char(name[i], i == 0))
			return false;
	return i > 0 && i <= MODULE_NAME_MAX;
}

/* NAME[=VAL] (-D) or NAME=VAL (-B): NAME an identifier, no newline. */
static bool assignment_ok(const char *s, bool need_value)
{
	size_t i;

	for (i = 0; s[i] && s[i] != '='; i++)
		if (!ident_char(s[i], i == 0))
			return false;
	if (i == 0 || (need_value && s[i] != '='))
		return false;
	return strchr(s, '\n') == NULL;
}

static int check_opts(struct build *b)
{
	const struct build_opts *o = b->o;
	size_t i;

	if (!o->source) {
		fprintf(b->err, "tapir: pass 4: no generated C file to build\n");
		return -1;
	}
	if (o->module_name && !build_module_name_ok(o->module_name)) {
		fprintf(b->err, "tapir: invalid module name '%s': use letters, digits "
			"and '_', not starting with a digit, at most %d characters\n",
			o->module_name, MODULE_NAME_MAX);
		return -1;
	}
	for (i = 0; o->defines && o->defines[i]; i++) {
		if (!assignment_ok(o->defines[i], false)) {
			fprintf(b->err, "tapir: invalid -D '%s': expected NAME or NAME=VALUE\n",
				o->defines[i]);
			return -1;
		}
	}
	for (i = 0; o->make_vars && o->make_vars[i]; i++) {
		if (!assignment_ok(o->make_vars[i], true)) {
			fprintf(b->err, "tapir: invalid -B '%s': expected NAME=VALUE\n",
				o->make_vars[i]);
			return -1;
		}
	}
	return 0;
}

/* ---- inputs ---- */

static void add_input(struct inputs *in, char *rel, char *from, char *text, size_t len)
{
	in->v = realloc(in->v, (in->n + 1) * sizeof(*in->v));
	if (!in->v) {
		fputs("tapir: out of memory\n", stderr);
		exit(2);
	}
	in->v[in->n].rel = rel;
	in->v[in->n].from = from;
	in->v[in->n].text = text;
	in->v[in->n].len = len;
	in->n++;
}

static bool wanted_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 2 && name[n - 2] == '.' &&
	       (name[n - 1] == 'c' || name[n - 1] == 'h');
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a folder, sorted; NULL-terminated. */
static char **list_dir(const char *dir, FILE *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	if (!d) {
		fprintf(err, "tapir: cannot read %s: %s\n", dir, strerror(errno));
		return NULL;
	}
	v = xmalloc(sizeof(*v));
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		v = realloc(v, (n + 2) * sizeof(*v));
		if (!v) {
			fputs("tapir: out of memory\n", stderr);
			exit(2);
		}
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof(*v), strp_cmp);
	v[n] = NULL;
	return v;
}

static void free_strv(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Every *.c and *.h under DIR (REL in the build folder), sorted. */
static int collect_tree(struct build *b, const char *dir, const char *rel, bool top)
{
	char **names = list_dir(dir, b->err);
	size_t i;
	int r = 0;

	if (!names)
		return -1;
	for (i = 0; names[i] && r == 0; i++) {
		char *from = xasprintf("%s/%s", dir, names[i]);
		char *to = xasprintf("%s/%s", rel, names[i]);
		struct stat st;

		if (stat(from, &st) < 0) {
			fprintf(b->err, "tapir: cannot read %s: %s\n", from, strerror(errno));
			r = -1;
		} else if (S_ISDIR(st.st_mode)) {
			/* Feature tests, the probe core's self-test and the
			 * user-space loader are not part of a module. */
			if (!(top && (!strcmp(names[i], "feature") ||
				      !strcmp(names[i], "selftest") ||
				      !strcmp(names[i], "loader"))))
				r = collect_tree(b, from, to, false);
		} else if (S_ISREG(st.st_mode) && wanted_file(names[i])) {
			size_t len;
			char *text = kf_read_file(from, &len);

			if (!text) {
				fprintf(b->err, "tapir: cannot read %s: %s\n", from,
					strerror(errno));
				r = -1;
			} else {
				add_input(&b->in, to, from, text, len);
				continue;	/* the input owns from and to */
			}
		}
		free(from);
		free(to);
	}
	free_strv(names);
	return r;
}

static void add_object(struct inputs *in, const char *rel)
{
	in->objects = realloc(in->objects, (in->nobjects + 1) * sizeof(char *));
	if (!in->objects) {
		fputs("tapir: out of memory\n", stderr);
		exit(2);
	}
	in->objects[in->nobjects++] = xstrdup(rel);
}

static const struct input *find_input(const struct inputs *in, const char *rel)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->v[i].rel, rel))
			return &in->v[i];
	return NULL;
}

/* The objects: as given, or every *.c at the top of each tree. */
static int collect_objects(struct build *b)
{
	const struct build_opts *o = b->o;
	size_t i, k;

	if (o->objects) {
		for (i = 0; o->objects[i]; i++) {
			size_t n = strlen(o->objects[i]);

			if (n < 3 || strcmp(o->objects[i] + n - 2, ".c") ||
			    !find_input(&b->in, o->objects[i])) {
				fprintf(b->err, "tapir: object %s is not a .c file of "
					"the runtime trees\n", o->objects[i]);
				return -1;
			}
			add_object(&b->in, o->objects[i]);
		}
		return 0;
	}
	for (k = 0; o->trees && o->trees[k].dir; k++) {
		size_t pre = strlen(o->trees[k].name);

		for (i = 0; i < b->in.n; i++) {
			const char *rel = b->in.v[i].rel;
			size_t n = strlen(rel);

			if (!strncmp(rel, o->trees[k].name, pre) && rel[pre] == '/' &&
			    !strchr(rel + pre + 1, '/') && rel[n - 1] == 'c')
				add_object(&b->in, rel);
		}
	}
	return 0;
}

static bool tree_name_ok(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") &&
	       strcmp(name, "..") && strncmp(name, MAIN_NAME, strlen(MAIN_NAME));
}

static int collect_inputs(struct build *b)
{
	const struct build_opts *o = b->o;
	size_t k;

	b->in.source_text = kf_read_file(o->source, &b->in.source_len);
	if (!b->in.source_text) {
		fprintf(b->err, "tapir: cannot read the generated C %s: %s\n",
			o->source, strerror(errno));
		return -1;
	}
	for (k = 0; o->trees && o->trees[k].dir; k++) {
		if (!tree_name_ok(o->trees[k].name)) {
			fprintf(b->err, "tapir: bad name '%s' for the source tree %s\n",
				o->trees[k].name ? o->trees[k].name : "",
				o->trees[k].dir);
			return -1;
		}
		if (collect_tree(b, o->trees[k].dir, o->trees[k].name, true) < 0)
			return -1;
	}
	return collect_objects(b);
}

static void free_inputs(struct inputs *in)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		free(in->v[i].rel);
		free(in->v[i].from);
		free(in->v[i].text);
	}
	free(in->v);
	for (i = 0; i < in->nobjects; i++)
		free(in->objects[i]);
	free(in->objects);
	free(in->source_text);
	memset(in, 0, sizeof(*in));
}

/* ---- features ---- */

static char *default_feature_dir(const struct build_opts *o)
{
	size_t k;

	for (k = 0; o->trees && o->trees[k].dir; k++) {
		if (!strcmp(o->trees[k].name, "runtime")) {
			char *p = xasprintf("%s/feature", o->trees[k].dir);
			struct stat st;

			if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
				return p;
			free(p);
		}
	}
	return NULL;
}

/* A header given with features_file: its compiler is in its comments. */
static int features_from_file(struct build *b)
{
	struct kfeatures *f = &b->res->features;
	const char *p;

	f->header = kf_read_file(b->o->features_file, NULL);
	if (!f->header) {
		fprintf(b->err, "tapir: cannot read the feature header %s: %s\n",
			b->o->features_file, strerror(errno));
		return -1;
	}
	p = strstr(f->header, "/* cc: ");
	f->cc = p ? strndup(p + 7, strcspn(p + 7, " \n")) : xstrdup("gcc");
	f->cc_version = xasprintf("(from %s)", b->o->features_file);
	return 0;
}

static int get_features(struct build *b)
{
	struct kfeature_opts fo = { 0 };
	char *dir;
	int r;

	if (b->o->features_file)
		return features_from_file(b);
	dir = b->o->feature_dir ? xstrdup(b->o->feature_dir) : default_feature_dir(b->o);
	if (!dir) {
		/* No runtime yet: an empty header; the compiler still counts. */
		struct kfeatures *f = &b->res->features;

		f->header = xstrdup("/* tapir-features.h: no feature tests */\n");
		f->cc = xstrdup("gcc");
		f->cc_version = kf_capture("gcc --version");
		if (!f->cc_version)
			f->cc_version = xstrdup("unknown");
		return 0;
	}
	fo.kernel = &b->res->kernel;
	fo.feature_dir = dir;
	fo.make_vars = b->o->make_vars;
	fo.cache_dir = b->cache_dir;
	fo.tmp_parent = b->o->tmp_parent;
	fo.jobs = b->o->jobs;
	fo.verbose = b->o->verbose;
	fo.keep = b->o->keep;
	fo.err = b->err;
	r = kfeature_get(&fo, &b->res->features);
	free(dir);
	return r;
}

/* ---- the hash ---- */

/* What the module and the objects cache both depend on: the trees and
 * their files, the objects, the features, the kernel and its compiler,
 * -D and -B, in this order. */
static void hash_common(const struct build *b, struct sha256 *c)
{
	const struct build_opts *o = b->o;
	const struct build_result *res = b->res;
	size_t i;

	for (i = 0; o->trees && o->trees[i].dir; i++)
		sha256_field_str(c, "tree", o->trees[i].name);
	for (i = 0; i < b->in.n; i++) {
		sha256_field_str(c, "file", b->in.v[i].rel);
		sha256_field(c, "text", b->in.v[i].text, b->in.v[i].len);
	}
	for (i = 0; i < b->in.nobjects; i++)
		sha256_field_str(c, "object", b->in.objects[i]);
	sha256_field_str(c, "features", res->features.header);
	sha256_field_str(c, "kernel", res->kernel.identity);
	sha256_field_str(c, "cc", res->features.cc);
	sha256_field_str(c, "cc-version", res->features.cc_version);
	for (i = 0; o->defines && o->defines[i]; i++)
		sha256_field_str(c, "define", o->defines[i]);
	for (i = 0; o->make_vars && o->make_vars[i]; i++)
		sha256_field_str(c, "make-var", o->make_vars[i]);
}

static void hash_inputs(struct build *b)
{
	struct sha256 c;

	sha256_init(&c);
	sha256_field_str(&c, "version", BUILD_VERSION);
	sha256_field(&c, "source", b->in.source_text, b->in.source_len);
	hash_common(b, &c);
	sha256_field_str(&c, "name", b->o->module_name);
	if (b->o->omit_werror)
		sha256_field_str(&c, "omit-werror", "1");
	if (b->o->embedded_c)
		sha256_field_str(&c, "embedded-c", "1");
	sha256_final_hex(&c, b->res->hash);
}

/* ---- the cache ---- */

static char *cache_entry(const struct build *b)
{
	return xasprintf("%s/modules/%s", b->cache_dir, b->res->hash);
}

/* Copy KO to DIR/NAME.ko; res->ko becomes that copy. */
static int copy_out(struct build *b, const char *ko, const char *dir)
{
	char *to = xasprintf("%s/%s.ko", dir, b->res->module_name);
	char *real;

	if (kf_copy_file(ko, to) < 0) {
		fprintf(b->err, "tapir: cannot copy the module to %s: %s\n", to,
			strerror(errno));
		free(to);
		return -1;
	}
	real = realpath(to, NULL);
	free(b->res->ko);
	b->res->ko = real ? real : to;
	if (real)
		free(to);
	return 0;
}

static bool cache_lookup(struct build *b)
{
	char *entry = cache_entry(b);
	char *ko = xasprintf("%s/%s.ko", entry, b->res->module_name);
	struct stat st;

	if (stat(ko, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		build_cache_touch(entry);	/* used now: trimmed last */
		free(entry);
		b->res->ko = ko;
		return true;
	}
	free(entry);
	free(ko);
	return false;
}

/* Publish BUILT (NAME.ko) as CACHE/modules/HASH/NAME.ko. */
static int cache_store(struct build *b, const char *built)
{
	char *modules = xasprintf("%s/modules", b->cache_dir);
	char *entry = cache_entry(b), *tmp = NULL, *ko = NULL;
	int r = -1;

	if (kf_mkdirs(modules) < 0)
		goto out;
	tmp = xasprintf("%s.tmpXXXXXX", entry);
	if (!mkdtemp(tmp))
		goto out;
	ko = xasprintf("%s/%s.ko", tmp, b->res->module_name);
	if (kf_copy_file(built, ko) < 0)
		goto out;
	if (rename(tmp, entry) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		goto out;
	r = 0;
out:
	if (r < 0)
		fprintf(b->err, "tapir: warning: cannot cache the module in %s: %s\n",
			modules, strerror(errno));
	if (tmp)
		kf_rmtree(tmp);		/* gone after the rename, or lost it */
	free(ko);
	free(tmp);
	free(entry);
	free(modules);
	return r;
}

int build_clean_cache(const char *cache_dir, FILE *err)
{
	char *dir = cache_dir ? xstrdup(cache_dir) : tapir_cache_dir(), *stamp;
	/* the build's entries, and pass 2's: the decompressed modules
	 * (debuginfo/kmod.c), the function indexes and trace systems
	 * (debuginfo/dwarf.c, tpsys.c) and the tapset library's index
	 * (elaborate/tapset.c) */
	const char *sub[] = { "modules", "features", "objects", "kmod",
			      "dwarf", "tapsets" };
	int r = 0;
	size_t i;

	if (!err)
		err = stderr;
	for (i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		char *p = xasprintf("%s/%s", dir, sub[i]);

		if (kf_rmtree(p) < 0) {
			fprintf(err, "tapir: cannot remove %s: %s\n", p, strerror(errno));
			r = -1;
		}
		free(p);
	}
	stamp = xasprintf("%s/.last-trim", dir);
	unlink(stamp);
	free(stamp);
	free(dir);
	return r;
}

/* ---- the build folder ---- */

/* VAL as one shell word inside a Makefile: '...' with $ and # escaped. */
static void put_make_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '$')
			fputs("$$", f);
		else if (*s == '#')
			fputs("\\#", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void put_object(FILE *f, const char *rel)
{
	fprintf(f, " \\\n\t%.*s.o", (int)(strlen(rel) - 2), rel);
}

/*
 * The Kbuild file of module NAME: tapir-main.o (with main), the OBJS
 * (.c files relative to the folder) and, with prebuilt, PREBUILT_NAME.o.
 * The compiler flags are the same for every build of these inputs: the
 * objects build compiles exactly what a module build would.
 */
static char *kbuild_text(const struct build *b, const char *name, bool main,
			 char *const *objs, size_t nobjs, bool prebuilt)
{
	const struct build_opts *o = b->o;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		fputs("tapir: out of memory\n", stderr);
		exit(2);
	}
	if (main) {
		fprintf(f, "# Kbuild for the Tapir module %s (generated).\n", name);
	} else {
		fputs("# Kbuild for Tapir's runtime objects (generated): kbuild\n"
		      "# compiles them as parts of a module; they are linked with\n"
		      "# $(LD) -r, printed here.\n"
		      "$(info " LD_MARK "$(LD) $(KBUILD_LDFLAGS))\n", f);
	}
	fprintf(f, "obj-m := %s.o\n%s-y :=", name, name);
	if (main)
		fprintf(f, " %s.o", MAIN_NAME);
	for (i = 0; i < nobjs; i++)
		put_object(f, objs[i]);
	if (prebuilt)
		fputs(" \\\n\t" PREBUILT_NAME ".o", f);
	fputs("\nccflags-y := -I$(src)", f);
	for (i = 0; o->trees && o->trees[i].dir; i++)
		fprintf(f, " -I$(src)/%s", o->trees[i].name);
	fputs(" -include $(src)/" FEATURES_NAME "\n", f);
	/* the generated C's warnings are errors, as with stap; the trees
	 * (the runtime's own files) keep theirs as warnings */
	if (main && !o->omit_werror)
		fputs("CFLAGS_" MAIN_NAME ".o := -Werror\n", f);
	if (main && o->embedded_c)
		fputs("CFLAGS_" MAIN_NAME ".o += " EMBEDDED_CFLAGS "\n", f);
	for (i = 0; o->defines && o->defines[i]; i++) {
		fputs("ccflags-y += -D", f);
		put_make_word(f, o->defines[i]);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

static int write_in(struct build *b, const char *dir, const char *rel, const char *text,
		    size_t len)
{
	char *p = xasprintf("%s/%s", dir, rel);
	char *slash = strrchr(p, '/');
	int r;

	*slash = '\0';
	r = kf_mkdirs(p);
	*slash = '/';
	if (r == 0)
		r = kf_write_file(p, text, len);
	if (r < 0)
		fprintf(b->err, "tapir: cannot write %s: %s\n", p, strerror(errno));
	free(p);
	return r;
}

/* The feature header and the trees into DIR. */
static int write_trees(struct build *b, const char *dir)
{
	size_t i;

	if (write_in(b, dir, FEATURES_NAME, b->res->features.header,
		     strlen(b->res->features.header)) < 0)
		return -1;
	for (i = 0; i < b->in.n; i++)
		if (write_in(b, dir, b->in.v[i].rel, b->in.v[i].text, b->in.v[i].len) < 0)
			return -1;
	return 0;
}

/* The build folder without its Kbuild (write_kbuild). */
static int assemble(struct build *b)
{
	b->dir = kf_mkdtemp(b->o->tmp_parent, "tapir-build", b->err);
	if (!b->dir)
		return -1;
	if (write_in(b, b->dir, MAIN_NAME ".c", b->in.source_text, b->in.source_len) < 0)
		return -1;
	return write_trees(b, b->dir);
}

/* ---- kbuild's commands without make (replay.c) ---- */

static bool replay_disabled(const struct build *b)
{
	const char *env = getenv("TAPIR_NO_REPLAY");

	return b->o->no_replay || b->o->verbose >= 2 ||
	       (env && *env && strcmp(env, "0") != 0);
}

/* The commands are the same for every module of the objects key when the
 * trees come prebuilt and nothing of them is compiled in the module. */
static char *replay_recipe(const struct build *b)
{
	if (replay_disabled(b) || !b->oc.use || b->oc.nper || !*b->res->objects_key)
		return NULL;
	/* its commands hold the main file's flags: -Werror or not */
	return xasprintf("%s/objects/%s%s%s.replay", b->cache_dir, b->res->objects_key,
			 b->o->omit_werror ? "-omit-werror" : "",
			 b->o->embedded_c ? "-embedded-c" : "");
}

/* Replay the kept commands in b->dir; true when the module was built so.
 * Whatever fails is left to kbuild, in the same folder (without the .cmd
 * files the replay wrote: kbuild makes every target again). */
static bool replay_module(struct build *b, const char *log)
{
	char *recipe = replay_recipe(b), *o, *text;
	struct replay_job j = { 0 };
	size_t len;
	bool ok;
	int st;

	if (!recipe || access(recipe, R_OK) < 0) {
		free(recipe);
		return false;
	}
	j.recipe = recipe;
	j.dir = b->dir;
	j.name = b->res->module_name;
	j.log = log;
	st = replay_run(&j, b->err);
	/* exports need kbuild's symbol versions (genksyms) */
	o = xasprintf("%s/%s.o", b->dir, MAIN_NAME);
	text = st == 0 ? kf_read_file(o, &len) : NULL;
	ok = text && !memmem(text, len, "__ksymtab", 9);
	free(text);
	free(o);
	o = xasprintf("%s/%s.ko", b->dir, b->res->module_name);
	ok = ok && access(o, R_OK) == 0;
	if (!ok) {
		unlink(o);
		replay_forget(&j);
	}
	free(o);
	if (b->o->verbose)
		fprintf(b->err, ok ? "tapir: pass 4: kbuild's commands replayed from %s\n" :
			"tapir: pass 4: replaying %s failed (status %d); running kbuild\n",
			recipe, st);
	free(recipe);
	return ok;
}

/* The recipe this kbuild run should leave for the next builds, or NULL:
 * there is none yet. A module named with -m leaves it too (replay.c
 * keeps nothing when the name is also a part of a flag or a path). */
static char *replay_capturing(const struct build *b)
{
	char *recipe = replay_recipe(b);

	if (recipe && access(recipe, R_OK) < 0)
		return recipe;
	free(recipe);
	return NULL;
}

/* After kbuild built the module: keep its commands for the next ones. */
static void replay_keep(struct build *b)
{
	static const char *const skip[] = { "." PREBUILT_NAME ".o.cmd", NULL };
	char *recipe = replay_capturing(b);
	struct replay_capture c = { 0 };

	if (recipe) {
		c.dir = b->dir;
		c.name = b->res->module_name;
		c.cwd = b->res->kernel.build_dir;
		c.skip = skip;
		c.recipe = recipe;
		c.verbose = b->o->verbose;
		replay_capture(&c, b->err);
	}
	free(recipe);
}

/* The module's Kbuild: with the prebuilt object when b->oc.use. */
static int write_kbuild(struct build *b)
{
	const struct objects *oc = &b->oc;
	char *kb, *recipe;
	int r;

	if (oc->use)
		kb = kbuild_text(b, b->res->module_name, true, oc->per_module,
				 oc->nper, true);
	else
		kb = kbuild_text(b, b->res->module_name, true, b->in.objects,
				 b->in.nobjects, false);
	recipe = replay_capturing(b);
	if (recipe) {
		/* make's environment for the recipe (replay.c) */
		char *all = xasprintf("%s%s", kb, REPLAY_KBUILD_RULE);

		free(kb);
		kb = all;
	}
	free(recipe);
	r = write_in(b, b->dir, "Kbuild", kb, strlen(kb));
	free(kb);
	return r;
}

/* ---- kbuild's output ---- */

struct subst {
	char *from, *to;
};

/* Paths of the build folder DIR back to the user's: absolute, and
 * relative. */
static struct subst *path_substs(const struct build *b, const char *dir, size_t *np)
{
	const struct build_opts *o = b->o;
	size_t n = 0, k, cap = 4;
	struct subst *s;

	for (k = 0; o->trees && o->trees[k].dir; k++)
		cap += 2;
	cap++;
	s = xmalloc(cap * sizeof(*s));
	s[n].from = xasprintf("%s/%s.c", dir, MAIN_NAME);
	s[n++].to = xstrdup(o->source);
	s[n].from = xasprintf("%s.c", MAIN_NAME);
	s[n++].to = xstrdup(o->source);
	for (k = 0; o->trees && o->trees[k].dir; k++) {
		s[n].from = xasprintf("%s/%s/", dir, o->trees[k].name);
		s[n++].to = xasprintf("%s/", o->trees[k].dir);
		s[n].from = xasprintf("%s/", o->trees[k].name);
		s[n++].to = xasprintf("%s/", o->trees[k].dir);
	}
	s[n].from = xasprintf("%s/", dir);	/* [NAME.ko] for modpost */
	s[n++].to = xstrdup("");
	*np = n;
	return s;
}

/* Relative names (the 'from's without a '/' at the front) only match at
 * the start of a word. */
static void put_line(FILE *f, const char *p, size_t len, const struct subst *s, size_t ns)
{
	size_t i = 0, k;

	while (i < len) {
		bool word = i == 0 || p[i - 1] == ' ' || p[i - 1] == '\t' || p[i - 1] == '[';

		for (k = 0; k < ns; k++) {
			size_t fl = strlen(s[k].from);

			if ((s[k].from[0] == '/' || word) && fl <= len - i &&
			    !memcmp(p + i, s[k].from, fl))
				break;
		}
		if (k < ns) {
			fputs(s[k].to, f);
			i += strlen(s[k].from);
		} else {
			fputc(p[i++], f);
		}
	}
	fputc('\n', f);
}

/* kbuild's progress lines ("  CC [M]  x.o") and make's own chatter. */
static bool noise(const char *p, size_t len)
{
	if (len > 3 && p[0] == ' ' && p[1] == ' ' && p[2] >= 'A' && p[2] <= 'Z')
		return true;
	return (len >= 5 && !strncmp(p, "make[", 5)) || (len >= 5 && !strncmp(p, "make:", 5));
}

/* Print the messages worth reading of a make run in DIR; returns how many
 * lines were shown and counts the warnings. */
static int report_log(struct build *b, const char *dir, const char *log, FILE *f)
{
	size_t ns, k;
	struct subst *s = path_substs(b, dir, &ns);
	const char *p = log;
	int shown = 0;

	b->res->nwarnings = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");

		if (!noise(p, len) && len > 0) {
			if (memmem(p, len, "warning:", 8))
				b->res->nwarnings++;
			if (f)
				put_line(f, p, len, s, ns);
			shown++;
		}
		p += len + (p[len] == '\n');
	}
	for (k = 0; k < ns; k++) {
		free(s[k].from);
		free(s[k].to);
	}
	free(s);
	return shown;
}

static void report_failure(struct build *b, const char *dir, int status, const char *log)
{
	fprintf(b->err, "tapir: pass 4: building module %s against %s (%s) failed "
		"(make exit status %d):\n", b->res->module_name, b->res->kernel.release,
		b->res->kernel.build_dir, status);
	if (!log) {
		fprintf(b->err, "tapir: no kbuild log\n");
		return;
	}
	if (report_log(b, dir, log, b->err) == 0)
		fputs(log, b->err);	/* nothing recognised: all of it */
	if (!b->o->keep)
		fputs("tapir: (-k keeps the build folder to look at)\n", b->err);
}

/* Is this line a compiler's error (FILE:LINE[:COL]: [fatal ]error: ...)? */
static bool compiler_error_line(const char *p, size_t len)
{
	static const char *const kinds[] = { ": error: ", ": fatal error: " };
	size_t k;

	for (k = 0; k < 2; k++) {
		const char *e = memmem(p, len, kinds[k], strlen(kinds[k]));
		int ncolon = 0;

		/* back over ":COL" and ":LINE" */
		while (e && e > p && ncolon < 2) {
			const char *d = e;

			while (d > p && d[-1] >= '0' && d[-1] <= '9')
				d--;
			if (d == e || d == p || d[-1] != ':')
				break;
			e = d - 1;
			ncolon++;
		}
		if (ncolon > 0 && e > p)
			return true;
	}
	return false;
}

static bool has_compiler_error(const char *log)
{
	const char *p = log;

	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (compiler_error_line(p, len))
			return true;
		p += len + (p[len] == '\n');
	}
	return false;
}

/*
 * The module's make run. Returns 0 with res->ko set, -1 after a report,
 * or 1 (nothing reported) when it failed with the prebuilt object but
 * not at a compiler error: the caller tries again without it.
 */
static int run_kbuild(struct build *b)
{
	struct kbuild_run r = { 0 };
	char *log = xasprintf("%s/build.log", b->dir);
	char *text, *ko;
	double t0 = kf_now();
	int st;

	r.build_dir = b->res->kernel.build_dir;
	r.dir = b->dir;
	r.make_vars = b->o->make_vars;
	r.log = log;
	r.jobs = b->o->jobs;
	r.verbose = b->o->verbose;
	b->replayed = replay_module(b, log);
	b->res->replayed = b->replayed;
	st = b->replayed ? 0 : kbuild_make(&r, b->err);
	b->res->kbuild_seconds += kf_now() - t0;
	if (st == 0 && !b->replayed)
		replay_keep(b);
	text = kf_read_file(log, NULL);
	if (text && b->oc.use && b->oc.messages && *b->oc.messages) {
		/* The objects' compiler messages, as if compiled here. */
		char *pre = kf_replace_all(b->oc.messages, DIR_MARK, b->dir);
		char *all = xasprintf("%s%s", pre, text);

		kf_write_file(log, all, strlen(all));
		free(pre);
		free(text);
		text = all;
	}
	free(log);
	if (st > 0 && st < 128 && b->oc.use && !(text && has_compiler_error(text))) {
		if (b->o->verbose)
			fprintf(b->err, "tapir: the module did not build with the prebuilt "
				"runtime objects (make exit status %d); building them in the "
				"module\n", st);
		free(b->oc.failed);
		b->oc.failed = xasprintf("the module did not link with the prebuilt "
					 "objects (make exit status %d)", st);
		b->oc.lasting = true;
		free(text);
		return 1;
	}
	if (st != 0) {
		if (st > 0)
			report_failure(b, b->dir, st, text);
		free(text);
		return -1;
	}
	if (text)
		report_log(b, b->dir, text, b->o->verbose ? b->err : NULL);
	free(text);
	ko = xasprintf("%s/%s.ko", b->dir, b->res->module_name);
	if (access(ko, R_OK) < 0) {
		fprintf(b->err, "tapir: kbuild succeeded but made no %s\n", ko);
		free(ko);
		return -1;
	}
	b->res->ko = ko;
	return 0;
}

/* ---- the objects cache ---- */

static void push_str(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static void free_strn(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Forget the object lists (what was found or built so far). */
static void objects_clear(struct objects *oc)
{
	free_strn(oc->prebuilt, oc->nprebuilt);
	free_strn(oc->per_module, oc->nper);
	free_strn(oc->reasons, oc->nper);
	free(oc->messages);
	oc->prebuilt = oc->per_module = oc->reasons = NULL;
	oc->nprebuilt = oc->nper = 0;
	oc->messages = NULL;
	oc->use = false;
}

static void objects_free(struct objects *oc)
{
	objects_clear(oc);
	free(oc->failed);
	free(oc->dir);
	memset(oc, 0, sizeof(*oc));
}

static ssize_t input_index(const struct inputs *in, const char *rel)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->v[i].rel, rel))
			return (ssize_t)i;
	return -1;
}

/* PATH with "." and "x/.." taken out; NULL if it climbs out of the top. */
static char *normalize_path(const char *path)
{
	char *copy = xstrdup(path), *out = xmalloc(strlen(path) + 1), *tok, *save;
	size_t len = 0;

	out[0] = '\0';
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			char *slash;

			if (!len) {
				free(copy);
				free(out);
				return NULL;
			}
			slash = strrchr(out, '/');
			len = slash ? (size_t)(slash - out) : 0;
			out[len] = '\0';
			continue;
		}
		len += (size_t)sprintf(out + len, "%s%s", len ? "/" : "", tok);
	}
	free(copy);
	return out;
}

/* The tree file that #include NAME in the tree file FROM reads: from
 * FROM's folder, a tree's top or the build folder's top (the -I paths
 * of the Kbuild file); -1 if none (a kernel header). */
static ssize_t resolve_include(const struct build *b, const char *from, const char *name)
{
	const struct build_opts *o = b->o;
	const char *slash = strrchr(from, '/');
	ssize_t idx = -1;
	size_t k;
	char *p, *n;

	p = slash ? xasprintf("%.*s/%s", (int)(slash - from), from, name) : xstrdup(name);
	n = normalize_path(p);
	if (n)
		idx = input_index(&b->in, n);
	free(n);
	free(p);
	for (k = 0; idx < 0 && o->trees && o->trees[k].dir; k++) {
		p = xasprintf("%s/%s", o->trees[k].name, name);
		n = normalize_path(p);
		if (n)
			idx = input_index(&b->in, n);
		free(n);
		free(p);
	}
	if (idx < 0) {
		n = normalize_path(name);
		if (n)
			idx = input_index(&b->in, n);
		free(n);
	}
	return idx;
}

/* Does tree file I, or a tree header it includes, use KBUILD_MODNAME
 * (which the kernel's flags define as the module's name)? */
static bool uses_modname(const struct build *b, size_t i, unsigned char *seen)
{
	const struct input *in = &b->in.v[i];
	const char *p = in->text, *end = in->text + in->len;

	if (seen[i])
		return false;
	seen[i] = 1;
	if (memmem(in->text, in->len, "KBUILD_MODNAME", 14))
		return true;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p)), *q = p, *name;
		ssize_t k;

		if (!e)
			e = end;
		p = e + 1;
		q += strspn(q, " \t");
		if (q >= e || *q != '#')
			continue;
		q++;
		q += strspn(q, " \t");
		if (e - q < 8 || strncmp(q, "include", 7))
			continue;
		q += 7;
		q += strspn(q, " \t");
		if (q >= e || (*q != '"' && *q != '<'))
			continue;
		name = ++q;
		while (q < e && *q != '"' && *q != '>')
			q++;
		if (q >= e || q == name)
			continue;
		{
			char *n = strndup(name, (size_t)(q - name));

			k = resolve_include(b, in->rel, n);
			free(n);
		}
		if (k >= 0 && uses_modname(b, (size_t)k, seen))
			return true;
	}
	return false;
}

/* Every input of the trees' objects: the module's hash but the
 * generated C and the module name. */
static void objects_key(const struct build *b, char hex[SHA256_HEX_SIZE])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_field_str(&c, "version", OBJECTS_VERSION);
	hash_common(b, &c);
	sha256_final_hex(&c, hex);
}

static bool file_sha256(const char *path, char hex[SHA256_HEX_SIZE])
{
	size_t len;
	char *data = kf_read_file(path, &len);
	struct sha256 c;

	if (!data)
		return false;
	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final_hex(&c, hex);
	free(data);
	return true;
}

/* FROM as TO: a hard link when both are on one file system, else a copy. */
static int place_file(const char *from, const char *to)
{
	unlink(to);
	if (link(from, to) == 0)
		return 0;
	return kf_copy_file(from, to);
}

/* The .cmd file kbuild reads for every object of a module (6.1's
 * modpost takes the symbol versions of exports from it: there are none,
 * objects with exports are compiled in the module). */
static int write_prebuilt_cmd(struct build *b)
{
	static const char text[] =
		"# " PREBUILT_NAME ".o: the runtime trees' objects, compiled and linked\n"
		"# once by tapir (CACHE/objects/); no source here, no symbol versions.\n";

	return write_in(b, b->dir, "." PREBUILT_NAME ".o.cmd", text, strlen(text));
}

/* Take the object lists of CACHE/objects/KEY and its object (checked
 * against the manifest's SHA-256) into the build folder. 0, or -1 when the
 * entry is missing, incomplete or corrupt. */
static int objects_use_entry(struct build *b, const char *entry)
{
	struct objects *oc = &b->oc;
	char *mpath = xasprintf("%s/manifest", entry);
	char *text = kf_read_file(mpath, NULL), *line, *save = NULL;
	char want[SHA256_HEX_SIZE] = "", got[SHA256_HEX_SIZE];
	bool ok;
	size_t i;

	free(mpath);
	objects_clear(oc);
	if (!text)
		return -1;
	build_cache_touch(entry);
	line = strtok_r(text, "\n", &save);
	ok = line && !strcmp(line, OBJECTS_VERSION);
	while (ok && (line = strtok_r(NULL, "\n", &save))) {
		char *tab = strchr(line, '\t'), *rel, *why;

		if (!strncmp(line, "sha256 ", 7) && strlen(line + 7) == SHA256_HEX_SIZE - 1) {
			strcpy(want, line + 7);
			continue;
		}
		if (!tab)
			continue;	/* ld, a comment */
		*tab = '\0';
		rel = tab + 1;
		why = strchr(rel, '\t');
		if (why)
			*why++ = '\0';
		if (!find_input(&b->in, rel)) {
			ok = false;
		} else if (!strcmp(line, "prebuilt")) {
			push_str(&oc->prebuilt, &oc->nprebuilt, xstrdup(rel));
		} else if (!strcmp(line, "per-module")) {
			push_str(&oc->per_module, &oc->nper, xstrdup(rel));
			oc->reasons = xrealloc(oc->reasons, oc->nper * sizeof(char *));
			oc->reasons[oc->nper - 1] = xstrdup(why ? why : "");
		}
	}
	free(text);
	/* the lists are the objects asked for, each once (the key holds
	 * the object list: anything else is damage) */
	ok = ok && oc->nprebuilt + oc->nper == b->in.nobjects;
	for (i = 0; ok && i < b->in.nobjects; i++) {
		size_t k, n = 0;

		for (k = 0; k < oc->nprebuilt; k++)
			n += !strcmp(oc->prebuilt[k], b->in.objects[i]);
		for (k = 0; k < oc->nper; k++)
			n += !strcmp(oc->per_module[k], b->in.objects[i]);
		ok = n == 1;
	}
	if (ok && oc->nprebuilt) {
		char *from = xasprintf("%s/%s.o", entry, PREBUILT_NAME);
		char *to = xasprintf("%s/%s.o", b->dir, PREBUILT_NAME);

		ok = *want && place_file(from, to) == 0 && file_sha256(to, got) &&
		     !strcmp(got, want) && write_prebuilt_cmd(b) == 0;
		if (!ok)
			unlink(to);
		free(from);
		free(to);
	}
	if (!ok) {
		objects_clear(oc);
		return -1;
	}
	mpath = xasprintf("%s/messages", entry);
	oc->messages = kf_read_file(mpath, NULL);
	free(mpath);
	oc->use = oc->nprebuilt > 0;
	return 0;
}

/* Run sh -c CMD with its output in LOG; its exit status, or -1. */
static int run_shell(const char *cmd, const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;

	if (fd < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fd);
	return pid < 0 ? -1 : kf_wait(pid);
}

static void put_sh_word(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

/* The compiler's messages of the objects build in DIR, to replay in the
 * modules: lines naming the folder or starting an include chain, and what
 * follows them (the notes and source excerpts of one diagnostic), DIR
 * replaced by DIR_MARK. Not make's own messages. */
static char *objects_messages(const char *log, const char *dir)
{
	char *buf = NULL, *mark, *out;
	size_t len = 0, dl = strlen(dir);
	FILE *f = open_memstream(&buf, &len);
	const char *p = log;
	bool in_block = false;

	if (!f)
		out_of_memory();
	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n == 0 || noise(p, n) || !strncmp(p, LD_MARK, strlen(LD_MARK)))
			in_block = false;
		else if (memmem(p, n, dir, dl) || !strncmp(p, "In file included from ", 22))
			in_block = true;
		if (in_block)
			fprintf(f, "%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	fclose(f);
	mark = xasprintf("%s/", dir);
	out = kf_replace_all(buf, mark, DIR_MARK "/");
	free(mark);
	free(buf);
	return out;
}

/*
 * Compile CANDS (tree .c files) in a new objects folder (oc->dir) with one
 * kbuild run. Returns 0 with *ld (the kernel's $(LD) and its flags) and
 * *log, 1 when it did not work for another reason than the trees' code
 * (oc->failed says why), -1 after reporting the trees' compile errors.
 */
static int objects_compile(struct build *b, char **cands, size_t n, char **ld, char **log)
{
	struct objects *oc = &b->oc;
	struct kbuild_run r = { 0 };
	const char **goals;
	char *kb, *logpath, *text, *p;
	size_t i;
	int st;

	*ld = *log = NULL;
	if (oc->dir) {
		kf_rmtree(oc->dir);
		free(oc->dir);
	}
	oc->dir = kf_mkdtemp(b->o->tmp_parent, "tapir-objects", b->err);
	if (!oc->dir) {
		oc->failed = xstrdup("no folder for the objects build");
		oc->lasting = false;
		return 1;
	}
	kb = kbuild_text(b, PROBE_NAME, false, cands, n, false);
	st = write_trees(b, oc->dir) < 0 ? -1 : write_in(b, oc->dir, "Kbuild", kb, strlen(kb));
	free(kb);
	if (st < 0) {
		oc->failed = xstrdup("cannot write the objects build folder");
		oc->lasting = false;
		return 1;
	}
	goals = xcalloc(n + 1, sizeof(*goals));
	for (i = 0; i < n; i++)
		goals[i] = xasprintf("%.*s.o", (int)(strlen(cands[i]) - 2), cands[i]);
	logpath = xasprintf("%s/build.log", oc->dir);
	r.build_dir = b->res->kernel.build_dir;
	r.dir = oc->dir;
	r.goals = goals;
	r.make_vars = b->o->make_vars;
	r.log = logpath;
	r.jobs = b->o->jobs;
	st = kbuild_make(&r, b->err);
	for (i = 0; i < n; i++)
		free((char *)goals[i]);
	free(goals);
	text = kf_read_file(logpath, NULL);
	free(logpath);
	if (st != 0) {
		if (st > 0 && text && has_compiler_error(text)) {
			report_failure(b, oc->dir, st, text);
			free(text);
			return -1;
		}
		oc->failed = xasprintf("the objects' kbuild run failed (make exit status %d)", st);
		oc->lasting = st > 0 && st < 128;	/* not killed */
		if (b->o->verbose && text)
			fprintf(b->err, "tapir: the runtime objects' kbuild log:\n%s", text);
		free(text);
		return 1;
	}
	p = text ? strstr(text, LD_MARK) : NULL;
	if (!p || (p != text && p[-1] != '\n')) {
		oc->failed = xstrdup("the objects' kbuild run did not print $(LD)");
		free(text);
		return 1;
	}
	p += strlen(LD_MARK);
	*ld = strndup(p, strcspn(p, "\n"));
	*log = text;
	return 0;
}

/* Partially link the prebuilt objects in oc->dir with the kernel's LD. */
static int objects_link(struct build *b, const char *ld)
{
	struct objects *oc = &b->oc;
	char *cmd = NULL, *log;
	size_t len = 0, i;
	FILE *f = open_memstream(&cmd, &len);
	int st;

	if (!f)
		out_of_memory();
	fputs("cd ", f);
	put_sh_word(f, oc->dir);
	fprintf(f, " && %s -r -o %s.o", ld, PREBUILT_NAME);
	for (i = 0; i < oc->nprebuilt; i++) {
		char *o = xasprintf("%.*s.o", (int)(strlen(oc->prebuilt[i]) - 2),
				    oc->prebuilt[i]);

		fputc(' ', f);
		put_sh_word(f, o);
		free(o);
	}
	fclose(f);
	log = xasprintf("%s/ld.log", oc->dir);
	st = run_shell(cmd, log);
	if (st != 0) {
		char *text = kf_read_file(log, NULL);

		oc->failed = xasprintf("'%s -r' failed (exit status %d): %.*s", ld, st,
				       text ? (int)strcspn(text, "\n") : 0, text ? text : "");
		free(text);
	}
	free(log);
	free(cmd);
	return st == 0 ? 0 : 1;
}

/* Publish what oc->dir holds as CACHE/objects/KEY (best effort). */
static void objects_publish(struct build *b, const char *entry, const char *ld)
{
	struct objects *oc = &b->oc;
	char *tmp = xasprintf("%s.tmpXXXXXX", entry), *buf = NULL, *p;
	char hex[SHA256_HEX_SIZE];
	size_t len = 0, i;
	FILE *f;
	int r = -1;

	if (!mkdtemp(tmp))
		goto out;
	if (oc->nprebuilt) {
		char *from = xasprintf("%s/%s.o", oc->dir, PREBUILT_NAME);
		char *to = xasprintf("%s/%s.o", tmp, PREBUILT_NAME);
		bool ok = place_file(from, to) == 0 && file_sha256(to, hex);

		free(from);
		free(to);
		if (!ok)
			goto out;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		out_of_memory();
	fprintf(f, "%s\nld %s\n", OBJECTS_VERSION, ld ? ld : "-");
	if (oc->nprebuilt)
		fprintf(f, "sha256 %s\n", hex);
	for (i = 0; i < oc->nprebuilt; i++)
		fprintf(f, "prebuilt\t%s\n", oc->prebuilt[i]);
	for (i = 0; i < oc->nper; i++)
		fprintf(f, "per-module\t%s\t%s\n", oc->per_module[i], oc->reasons[i]);
	fclose(f);
	p = xasprintf("%s/messages", tmp);
	r = kf_write_file(p, oc->messages ? oc->messages : "",
			  oc->messages ? strlen(oc->messages) : 0);
	free(p);
	p = xasprintf("%s/manifest", tmp);	/* last: it makes the entry */
	if (r == 0)
		r = kf_write_file(p, buf, len);
	free(p);
	free(buf);
	if (r == 0 && rename(tmp, entry) < 0 && errno != EEXIST && errno != ENOTEMPTY)
		r = -1;
out:
	if (r < 0)
		fprintf(b->err, "tapir: warning: cannot cache the runtime objects in %s: %s\n",
			entry, strerror(errno));
	kf_rmtree(tmp);
	free(tmp);
}

/*
 * Build the trees' objects: the ones that would hold the module's name
 * are compiled in each module; the others in one kbuild run here, then
 * linked into PREBUILT_NAME.o, published and taken into the build folder.
 * Returns 0, 1 (fall back: oc->failed says why) or -1 (compile errors
 * reported).
 */
static int objects_build(struct build *b, const char *entry)
{
	struct objects *oc = &b->oc;
	size_t nobj = b->in.nobjects, i, ncand;
	char **why = xcalloc(nobj, sizeof(*why)), **cands = xcalloc(nobj + 1, sizeof(*cands));
	unsigned char *seen = xcalloc(b->in.n ? b->in.n : 1, 1);
	char *ld = NULL, *log = NULL;
	int r = 0;

	for (i = 0; i < nobj; i++) {
		ssize_t k = input_index(&b->in, b->in.objects[i]);

		memset(seen, 0, b->in.n);
		if (k >= 0 && uses_modname(b, (size_t)k, seen))
			why[i] = xstrdup("it uses KBUILD_MODNAME");
	}
	for (;;) {
		bool moved = false;

		for (i = ncand = 0; i < nobj; i++)
			if (!why[i])
				cands[ncand++] = b->in.objects[i];
		free(ld);
		free(log);
		ld = log = NULL;
		if (!ncand)
			break;
		r = objects_compile(b, cands, ncand, &ld, &log);
		if (r)
			goto out;
		for (i = 0; i < nobj; i++) {
			char *o, *text;
			size_t len;

			if (why[i])
				continue;
			o = xasprintf("%s/%.*s.o", oc->dir, (int)(strlen(b->in.objects[i]) - 2),
				      b->in.objects[i]);
			text = kf_read_file(o, &len);
			free(o);
			if (!text) {
				oc->failed = xasprintf("the objects' kbuild run made no object "
						       "for %s", b->in.objects[i]);
				r = 1;
				goto out;
			}
			if (memmem(text, len, PROBE_NAME, strlen(PROBE_NAME)))
				why[i] = xstrdup("its object holds the module's name");
			else if (memmem(text, len, "__ksymtab", 9))
				why[i] = xstrdup("it exports symbols");
			moved |= why[i] != NULL;
			free(text);
		}
		if (!moved)
			break;
		/* once more without them: their messages are the module's */
	}
	objects_clear(oc);
	for (i = 0; i < nobj; i++) {
		if (why[i]) {
			push_str(&oc->per_module, &oc->nper, xstrdup(b->in.objects[i]));
			oc->reasons = xrealloc(oc->reasons, oc->nper * sizeof(char *));
			oc->reasons[oc->nper - 1] = xstrdup(why[i]);
		} else {
			push_str(&oc->prebuilt, &oc->nprebuilt, xstrdup(b->in.objects[i]));
		}
	}
	if (oc->nprebuilt) {
		r = objects_link(b, ld);
		if (r)
			goto out;
		oc->messages = objects_messages(log, oc->dir);
	}
	objects_publish(b, entry, ld);
	if (oc->nprebuilt) {
		char *from = xasprintf("%s/%s.o", oc->dir, PREBUILT_NAME);
		char *to = xasprintf("%s/%s.o", b->dir, PREBUILT_NAME);

		if (place_file(from, to) < 0 || write_prebuilt_cmd(b) < 0) {
			oc->failed = xasprintf("cannot copy %s into the build folder", from);
			oc->lasting = false;
			r = 1;
		}
		free(from);
		free(to);
	}
	oc->use = r == 0 && oc->nprebuilt > 0;
out:
	if (r)
		objects_clear(oc);
	for (i = 0; i < nobj; i++)
		free(why[i]);
	free(why);
	free(cands);
	free(seen);
	free(ld);
	free(log);
	return r;
}

/* The kernel's objects are LLVM bitcode (clang LTO): ld -r is not for them. */
static bool kernel_lto(const struct build *b)
{
	char *p = xasprintf("%s/include/config/auto.conf", b->res->kernel.build_dir);
	char *conf = kf_read_file(p, NULL);
	bool lto;

	free(p);
	if (!conf) {
		p = xasprintf("%s/.config", b->res->kernel.build_dir);
		conf = kf_read_file(p, NULL);
		free(p);
	}
	lto = conf && strstr(conf, "\nCONFIG_LTO_CLANG=y");
	free(conf);
	return lto;
}

static bool objects_disabled(const struct build *b)
{
	const char *env = getenv("TAPIR_NO_OBJCACHE");

	return b->o->no_objects_cache || (env && *env && strcmp(env, "0") != 0);
}

static char *objects_entry(const struct build *b)
{
	return xasprintf("%s/objects/%s", b->cache_dir, b->res->objects_key);
}

static int lock_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static void say_objects(struct build *b)
{
	const struct objects *oc = &b->oc;
	const struct build_result *res = b->res;
	size_t i;

	if (!b->o->verbose)
		return;
	if (!strcmp(res->objects, "off")) {
		fputs("tapir: runtime objects: compiled in the module (objects cache off)\n",
		      b->err);
		return;
	}
	if (!strcmp(res->objects, "fallback")) {
		fprintf(b->err, "tapir: runtime objects: compiled in the module: %s\n",
			res->objects_why ? res->objects_why : "");
		return;
	}
	fprintf(b->err, "tapir: runtime objects: %s %.16s in %.2f s: %zu prebuilt",
		!strcmp(res->objects, "hit") ? "cached" : "built", res->objects_key,
		res->objects_seconds, oc->nprebuilt);
	for (i = 0; i < oc->nper; i++)
		fprintf(b->err, "%s%s (%s)", i ? ", " : "; compiled in the module: ",
			oc->per_module[i], oc->reasons[i]);
	fputc('\n', b->err);
}

/*
 * The trees' objects for the module in b->dir: from the objects cache, or
 * built into it. Returns 0 (b->oc.use says whether the module links the
 * prebuilt object), or -1 after reporting the trees' compile errors.
 */
static int objects_prepare(struct build *b)
{
	struct build_result *res = b->res;
	struct objects *oc = &b->oc;
	char *entry, *marker, *dir, *lock, *why;
	double t0 = kf_now();
	int fd, r = 0;

	res->objects = "off";
	res->nper_module = (int)b->in.nobjects;
	oc->lasting = true;	/* unless a failure says otherwise */
	if (objects_disabled(b) || b->in.nobjects == 0) {
		say_objects(b);
		return 0;
	}
	if (kernel_lto(b)) {
		res->objects = "fallback";
		res->objects_why = xstrdup("the kernel's objects are LLVM bitcode (clang LTO)");
		say_objects(b);
		return 0;
	}
	objects_key(b, res->objects_key);
	entry = objects_entry(b);
	marker = xasprintf("%s.unusable", entry);
	why = kf_read_file(marker, NULL);
	if (why) {
		why[strcspn(why, "\n")] = '\0';
		res->objects = "fallback";
		res->objects_why = xasprintf("%s (%s)", why, marker);
		free(why);
		goto out;
	}
	res->objects = "hit";
	if (objects_use_entry(b, entry) == 0)
		goto out;
	/* One build per key at a time: the others wait, then find it. */
	dir = xasprintf("%s/objects", b->cache_dir);
	lock = xasprintf("%s.lock", entry);
	fd = kf_mkdirs(dir) == 0 ? lock_file(lock) : -1;
	if (objects_use_entry(b, entry) != 0) {
		kf_rmtree(entry);	/* corrupt or incomplete */
		res->objects = "built";
		r = objects_build(b, entry);
	}
	if (fd >= 0)
		close(fd);
	free(lock);
	free(dir);
	if (r > 0) {
		res->objects = "fallback";
		res->objects_why = xstrdup(oc->failed);
		r = 0;
	}
out:
	res->objects_seconds = kf_now() - t0;
	res->nprebuilt = (int)oc->nprebuilt;
	res->nper_module = oc->use ? (int)oc->nper : (int)b->in.nobjects;
	if (r == 0)
		say_objects(b);
	free(marker);
	free(entry);
	return r;
}

/* The module built without the prebuilt object after it failed with it:
 * later builds of this key compile in the module at once. */
static void objects_mark_unusable(struct build *b)
{
	char *entry = objects_entry(b), *marker = xasprintf("%s.unusable", entry);
	char *text = xasprintf("%s\n", b->oc.failed);
	char *dir = xasprintf("%s/objects", b->cache_dir);

	if (kf_mkdirs(dir) < 0 || kf_write_file(marker, text, strlen(text)) < 0)
		fprintf(b->err, "tapir: warning: cannot write %s: %s\n", marker,
			strerror(errno));
	else if (b->o->verbose)
		fprintf(b->err, "tapir: runtime objects: %s; %s says so for later builds\n",
			b->oc.failed, marker);
	free(dir);
	free(text);
	free(marker);
	free(entry);
}

/* Back to compiling the trees in the module (after a failed link). */
static int objects_drop(struct build *b)
{
	char *p = xasprintf("%s/%s.o", b->dir, PREBUILT_NAME);
	char *c = xasprintf("%s/.%s.o.cmd", b->dir, PREBUILT_NAME);

	unlink(p);
	unlink(c);
	free(p);
	free(c);
	b->oc.use = false;
	b->res->objects = "fallback";
	free(b->res->objects_why);
	b->res->objects_why = xstrdup(b->oc.failed);
	b->res->nper_module = (int)b->in.nobjects;
	return write_kbuild(b);
}

/* ---- the pass ---- */

/*
 * Build; the module goes into the cache, and into out_dir if asked (or
 * "." when it could not be cached: the build folder does not stay).
 */
static int build_miss(struct build *b)
{
	const char *dir = b->o->out_dir;
	bool cached;
	char *built;
	int r = 0;

	if (assemble(b) < 0 || objects_prepare(b) < 0 || write_kbuild(b) < 0)
		return -1;
	r = run_kbuild(b);
	if (r > 0) {
		/* It did not link with the prebuilt object: without it, in
		 * the same folder (kbuild keeps what it compiled). */
		if (objects_drop(b) < 0)
			return -1;
		r = run_kbuild(b);
	}
	if (r != 0)
		return -1;
	if (b->oc.failed && b->oc.lasting)
		objects_mark_unusable(b);
	built = b->res->ko;
	b->res->ko = NULL;
	cached = b->use_cache && cache_store(b, built) == 0 && cache_lookup(b);
	if (cached)
		build_cache_trim(b->cache_dir, false, b->err);
	if (!dir && !cached)
		dir = ".";
	if (dir)
		r = copy_out(b, built, dir);
	free(built);
	return r;
}

static void set_module_name(struct build *b)
{
	if (b->o->module_name)
		b->res->module_name = xstrdup(b->o->module_name);
	else
		b->res->module_name = xasprintf("tapir_%.16s", b->res->hash);
}

static int build_steps(struct build *b)
{
	if (check_opts(b) < 0 ||
	    kernel_target_resolve(b->o->target, &b->res->kernel, b->err) < 0 ||
	    get_features(b) < 0 || collect_inputs(b) < 0)
		return -1;
	hash_inputs(b);
	set_module_name(b);
	if (b->o->hash_only)
		return 0;
	if (b->use_cache && cache_lookup(b)) {
		b->res->cache_hit = true;
		return b->o->out_dir ? copy_out(b, b->res->ko, b->o->out_dir) : 0;
	}
	return build_miss(b);
}

int build_module(const struct build_opts *o, struct build_result *res)
{
	struct build b = { .o = o, .res = res, .err = o->err ? o->err : stderr };
	double t0 = kf_now();
	int r;

	memset(res, 0, sizeof(*res));
	b.cache_dir = o->cache_dir ? xstrdup(o->cache_dir) : tapir_cache_dir();
	b.use_cache = !o->disable_cache;
	r = build_steps(&b);
	res->seconds = kf_now() - t0;
	if (b.oc.dir && o->keep) {
		fprintf(b.err, "tapir: keeping the runtime objects folder %s\n", b.oc.dir);
	} else if (b.oc.dir) {
		kf_rmtree(b.oc.dir);
	}
	if (b.dir && o->keep) {
		fprintf(b.err, "tapir: keeping the build folder %s\n", b.dir);
		res->build_dir = b.dir;
	} else if (b.dir) {
		kf_rmtree(b.dir);
		free(b.dir);
	}
	if (o->verbose && r == 0 && !o->hash_only)
		fprintf(b.err, "tapir: pass 4: %s %s in %.2f s (kbuild %.2f s%s, "
			"feature tests %s)\n", res->cache_hit ? "cache hit for" : "built",
			res->module_name, res->seconds, res->kbuild_seconds,
			b.replayed ? ", replayed" : "",
			res->features.cache_hit ? "cached" : "run");
	free_inputs(&b.in);
	objects_free(&b.oc);
	free(b.cache_dir);
	return r;
}

void build_result_free(struct build_result *res)
{
	free(res->ko);
	free(res->module_name);
	free(res->build_dir);
	free(res->objects_why);
	kernel_target_free(&res->kernel);
	kfeatures_free(&res->features);
	memset(res, 0, sizeof(*res));
}
