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
 *     assemble, kbuild_make    a temporary folder and one make run
 *     report_log               compiler errors with the user's paths
 *     cache_store              publish with rename()
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"

#define BUILD_VERSION "tapir-build 1"
#define MAIN_NAME "tapir-main"		/* never a module name: it has '-' */
#define FEATURES_NAME "tapir-features.h"
#define MODULE_NAME_MAX 55		/* MODULE_NAME_LEN - 1 */

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

struct build {
	const struct build_opts *o;
	struct build_result *res;
	FILE *err;
	struct inputs in;
	char *cache_dir;	/* the cache folder */
	bool use_cache;		/* for the module (features always) */
	char *dir;		/* the build folder */
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

static void hash_inputs(struct build *b)
{
	const struct build_opts *o = b->o;
	struct build_result *res = b->res;
	struct sha256 c;
	size_t i;

	sha256_init(&c);
	sha256_field_str(&c, "version", BUILD_VERSION);
	sha256_field(&c, "source", b->in.source_text, b->in.source_len);
	for (i = 0; o->trees && o->trees[i].dir; i++)
		sha256_field_str(&c, "tree", o->trees[i].name);
	for (i = 0; i < b->in.n; i++) {
		sha256_field_str(&c, "file", b->in.v[i].rel);
		sha256_field(&c, "text", b->in.v[i].text, b->in.v[i].len);
	}
	for (i = 0; i < b->in.nobjects; i++)
		sha256_field_str(&c, "object", b->in.objects[i]);
	sha256_field_str(&c, "features", res->features.header);
	sha256_field_str(&c, "kernel", res->kernel.identity);
	sha256_field_str(&c, "cc", res->features.cc);
	sha256_field_str(&c, "cc-version", res->features.cc_version);
	for (i = 0; o->defines && o->defines[i]; i++)
		sha256_field_str(&c, "define", o->defines[i]);
	for (i = 0; o->make_vars && o->make_vars[i]; i++)
		sha256_field_str(&c, "make-var", o->make_vars[i]);
	sha256_field_str(&c, "name", o->module_name);
	sha256_final_hex(&c, res->hash);
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

	free(entry);
	if (stat(ko, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		b->res->ko = ko;
		return true;
	}
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
	char *dir = cache_dir ? xstrdup(cache_dir) : tapir_cache_dir();
	const char *sub[] = { "modules", "features" };
	int r = 0;
	size_t i;

	if (!err)
		err = stderr;
	for (i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s", dir, sub[i]);

		if (kf_rmtree(p) < 0) {
			fprintf(err, "tapir: cannot remove %s: %s\n", p, strerror(errno));
			r = -1;
		}
		free(p);
	}
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

static char *kbuild_text(const struct build *b)
{
	const struct build_opts *o = b->o;
	const char *name = b->res->module_name;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		fputs("tapir: out of memory\n", stderr);
		exit(2);
	}
	fprintf(f, "# Kbuild for the Tapir module %s (generated).\n", name);
	fprintf(f, "obj-m := %s.o\n%s-y := %s.o", name, name, MAIN_NAME);
	for (i = 0; i < b->in.nobjects; i++)
		put_object(f, b->in.objects[i]);
	fputs("\nccflags-y := -I$(src)", f);
	for (i = 0; o->trees && o->trees[i].dir; i++)
		fprintf(f, " -I$(src)/%s", o->trees[i].name);
	fputs(" -include $(src)/" FEATURES_NAME "\n", f);
	for (i = 0; o->defines && o->defines[i]; i++) {
		fputs("ccflags-y += -D", f);
		put_make_word(f, o->defines[i]);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

static int write_in(struct build *b, const char *rel, const char *text, size_t len)
{
	char *p = xasprintf("%s/%s", b->dir, rel);
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

static int assemble(struct build *b)
{
	char *kb;
	size_t i;
	int r;

	b->dir = kf_mkdtemp(b->o->tmp_parent, "tapir-build", b->err);
	if (!b->dir)
		return -1;
	if (write_in(b, MAIN_NAME ".c", b->in.source_text, b->in.source_len) < 0 ||
	    write_in(b, FEATURES_NAME, b->res->features.header,
		     strlen(b->res->features.header)) < 0)
		return -1;
	for (i = 0; i < b->in.n; i++)
		if (write_in(b, b->in.v[i].rel, b->in.v[i].text, b->in.v[i].len) < 0)
			return -1;
	kb = kbuild_text(b);
	r = write_in(b, "Kbuild", kb, strlen(kb));
	free(kb);
	return r;
}

/* ---- kbuild's output ---- */

struct subst {
	char *from, *to;
};

/* Build-folder paths back to the user's: absolute, and relative. */
static struct subst *path_substs(const struct build *b, size_t *np)
{
	const struct build_opts *o = b->o;
	size_t n = 0, k, cap = 4;
	struct subst *s;

	for (k = 0; o->trees && o->trees[k].dir; k++)
		cap += 2;
	cap++;
	s = xmalloc(cap * sizeof(*s));
	s[n].from = xasprintf("%s/%s.c", b->dir, MAIN_NAME);
	s[n++].to = xstrdup(o->source);
	s[n].from = xasprintf("%s.c", MAIN_NAME);
	s[n++].to = xstrdup(o->source);
	for (k = 0; o->trees && o->trees[k].dir; k++) {
		s[n].from = xasprintf("%s/%s/", b->dir, o->trees[k].name);
		s[n++].to = xasprintf("%s/", o->trees[k].dir);
		s[n].from = xasprintf("%s/", o->trees[k].name);
		s[n++].to = xasprintf("%s/", o->trees[k].dir);
	}
	s[n].from = xasprintf("%s/", b->dir);	/* [NAME.ko] for modpost */
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

/* Print the messages worth reading; returns how many lines were shown
 * and counts the warnings. */
static int report_log(struct build *b, const char *log, FILE *f)
{
	size_t ns, k;
	struct subst *s = path_substs(b, &ns);
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

static void report_failure(struct build *b, int status, const char *log)
{
	fprintf(b->err, "tapir: pass 4: building module %s against %s (%s) failed "
		"(make exit status %d):\n", b->res->module_name, b->res->kernel.release,
		b->res->kernel.build_dir, status);
	if (!log) {
		fprintf(b->err, "tapir: no kbuild log\n");
		return;
	}
	if (report_log(b, log, b->err) == 0)
		fputs(log, b->err);	/* nothing recognised: all of it */
	if (!b->o->keep)
		fputs("tapir: (-k keeps the build folder to look at)\n", b->err);
}

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
	st = kbuild_make(&r, b->err);
	b->res->kbuild_seconds = kf_now() - t0;
	text = kf_read_file(log, NULL);
	free(log);
	if (st != 0) {
		if (st > 0)
			report_failure(b, st, text);
		free(text);
		return -1;
	}
	if (text)
		report_log(b, text, b->o->verbose ? b->err : NULL);
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

	if (assemble(b) < 0 || run_kbuild(b) < 0)
		return -1;
	built = b->res->ko;
	b->res->ko = NULL;
	cached = b->use_cache && cache_store(b, built) == 0 && cache_lookup(b);
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
	if (b.dir && o->keep) {
		fprintf(b.err, "tapir: keeping the build folder %s\n", b.dir);
		res->build_dir = b.dir;
	} else if (b.dir) {
		kf_rmtree(b.dir);
		free(b.dir);
	}
	if (o->verbose && r == 0 && !o->hash_only)
		fprintf(b.err, "tapir: pass 4: %s %s in %.2f s (kbuild %.2f s, "
			"feature tests %s)\n", res->cache_hit ? "cache hit for" : "built",
			res->module_name, res->seconds, res->kbuild_seconds,
			res->features.cache_hit ? "cached" : "run");
	free_inputs(&b.in);
	free(b.cache_dir);
	return r;
}

void build_result_free(struct build_result *res)
{
	free(res->ko);
	free(res->module_name);
	free(res->build_dir);
	kernel_target_free(&res->kernel);
	kfeatures_free(&res->features);
	memset(res, 0, sizeof(*res));
}
