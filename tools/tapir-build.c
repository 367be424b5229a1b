// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapir-build - pass 4 alone (translator/build/build.h): build a kernel module
 * from a C file, the way tapir builds generated C. For tests and
 * maintainers.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/build.h"

#ifndef TAPIR_SRCDIR
#define TAPIR_SRCDIR "."
#endif

struct cli {
	struct build_opts o;
	struct build_tree *trees;
	const char **defines, **make_vars, **objects;
	int ntrees, ndefines, nmake_vars, nobjects;
	bool clean, features, hash, report;
};

static void usage(FILE *f)
{
	fputs(
"usage: tapir-build [OPTION]... FILE.c\n"
"Build FILE.c (generated C) into a kernel module with kbuild, through the\n"
"module cache, and print the module's path.\n"
"\n"
"  -r RELEASE|BUILDDIR  target kernel (default: uname -r)\n"
"  -m NAME              module name (default: tapir_<hash>)\n"
"  -k                   keep the build folder and print its path\n"
"  -D NAME[=VAL]        -DNAME=VAL in the module's ccflags\n"
"  -B NAME=VAL          pass NAME=VAL to make\n"
"  -o DIR               also copy NAME.ko into DIR\n"
"  -j N                 make -jN (default: online CPUs)\n"
"  -v                   say what happens (-vv: kbuild V=1)\n"
"  --tree NAME=DIR      link DIR's *.c into the module as NAME/ (repeatable)\n"
"  --object NAME/F.c    link only these tree files (repeatable)\n"
"  --feature-dir DIR    feature tests (default: the source tree's runtime/feature)\n"
"  --features-file H    use header H instead of running the feature tests\n"
"  --cache-dir DIR      cache folder (default: $TAPIR_CACHE or ~/.cache/tapir)\n"
"  --disable-cache      neither use nor fill the module cache (the feature\n"
"                       header and the trees' objects still come from theirs)\n"
"  --no-objects-cache   compile the trees in the module instead of linking\n"
"                       their objects prebuilt (also TAPIR_NO_OBJCACHE=1)\n"
"  --clean-cache        empty the cache (then build FILE.c, if given)\n"
"  --features           print the feature header for the kernel and exit\n"
"  --hash               print the hash of the inputs and exit\n"
"  --report             print hash, cache and times as 'key: value' lines\n"
"                       on stderr\n", f);
}

static void push(const char ***v, int *n, const char *s)
{
	*v = realloc(*v, (size_t)(*n + 2) * sizeof(**v));
	if (!*v) {
		fputs("tapir-build: out of memory\n", stderr);
		exit(2);
	}
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

static int add_tree(struct cli *c, char *spec)
{
	char *eq = strchr(spec, '=');

	if (!eq) {
		fprintf(stderr, "tapir-build: --tree wants NAME=DIR, not '%s'\n", spec);
		return -1;
	}
	*eq = '\0';
	c->trees = realloc(c->trees, (size_t)(c->ntrees + 2) * sizeof(*c->trees));
	if (!c->trees) {
		fputs("tapir-build: out of memory\n", stderr);
		exit(2);
	}
	c->trees[c->ntrees].name = spec;
	c->trees[c->ntrees++].dir = eq + 1;
	c->trees[c->ntrees].name = NULL;
	c->trees[c->ntrees].dir = NULL;
	return 0;
}

enum { OPT_TREE = 256, OPT_OBJECT, OPT_FDIR, OPT_FFILE, OPT_CACHE, OPT_NOCACHE,
       OPT_NOOBJ, OPT_CLEAN, OPT_FEATURES, OPT_HASH, OPT_REPORT };

static int parse(struct cli *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "tree", 1, NULL, OPT_TREE }, { "object", 1, NULL, OPT_OBJECT },
		{ "feature-dir", 1, NULL, OPT_FDIR },
		{ "features-file", 1, NULL, OPT_FFILE },
		{ "cache-dir", 1, NULL, OPT_CACHE },
		{ "disable-cache", 0, NULL, OPT_NOCACHE },
		{ "no-objects-cache", 0, NULL, OPT_NOOBJ },
		{ "clean-cache", 0, NULL, OPT_CLEAN },
		{ "features", 0, NULL, OPT_FEATURES }, { "hash", 0, NULL, OPT_HASH },
		{ "report", 0, NULL, OPT_REPORT }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "r:m:kD:B:o:j:vh", lo, NULL)) != -1) {
		switch (ch) {
		case 'r': c->o.target = optarg; break;
		case 'm': c->o.module_name = optarg; break;
		case 'k': c->o.keep = true; break;
		case 'D': push(&c->defines, &c->ndefines, optarg); break;
		case 'B': push(&c->make_vars, &c->nmake_vars, optarg); break;
		case 'o': c->o.out_dir = optarg; break;
		case 'j': c->o.jobs = atoi(optarg); break;
		case 'v': c->o.verbose++; break;
		case OPT_TREE: if (add_tree(c, optarg) < 0) return -1; break;
		case OPT_OBJECT: push(&c->objects, &c->nobjects, optarg); break;
		case OPT_FDIR: c->o.feature_dir = optarg; break;
		case OPT_FFILE: c->o.features_file = optarg; break;
		case OPT_CACHE: c->o.cache_dir = optarg; break;
		case OPT_NOCACHE: c->o.disable_cache = true; break;
		case OPT_NOOBJ: c->o.no_objects_cache = true; break;
		case OPT_CLEAN: c->clean = true; break;
		case OPT_FEATURES: c->features = true; break;
		case OPT_HASH: c->hash = true; break;
		case OPT_REPORT: c->report = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	return 0;
}

/* --features: the header for -r's kernel. */
static int print_features(struct cli *c)
{
	struct kernel_target t;
	struct kfeature_opts fo = { 0 };
	struct kfeatures f;
	char *cache;
	int r;

	if (kernel_target_resolve(c->o.target, &t, stderr) < 0)
		return 1;
	cache = c->o.cache_dir ? strdup(c->o.cache_dir) : tapir_cache_dir();
	fo.kernel = &t;
	fo.feature_dir = c->o.feature_dir;
	fo.make_vars = c->make_vars;
	fo.cache_dir = cache;
	fo.jobs = c->o.jobs;
	fo.verbose = c->o.verbose;
	fo.keep = c->o.keep;
	fo.err = stderr;
	r = kfeature_get(&fo, &f);
	if (r == 0) {
		fputs(f.header, stdout);
		if (c->report)
			fprintf(stderr, "features: %s\nfeature-tests: %d\nhave: %d\n"
				"feature-seconds: %.3f\n", f.cache_hit ? "hit" : "miss",
				f.ntests, f.nhave, f.seconds);
		kfeatures_free(&f);
	}
	free(cache);
	kernel_target_free(&t);
	return r == 0 ? 0 : 1;
}

static void report(const struct build_result *res)
{
	fprintf(stderr, "hash: %s\nmodule: %s\ncache: %s\nfeatures: %s\n"
		"warnings: %d\nseconds: %.3f\nkbuild-seconds: %.3f\n"
		"feature-seconds: %.3f\n", res->hash, res->module_name,
		res->cache_hit ? "hit" : "miss",
		res->features.cache_hit ? "hit" : "miss", res->nwarnings,
		res->seconds, res->kbuild_seconds, res->features.seconds);
	if (!res->objects)
		return;		/* the module came from its cache */
	fprintf(stderr, "objects: %s\nobjects-key: %s\nprebuilt: %d\n"
		"per-module: %d\nobjects-seconds: %.3f\n", res->objects,
		*res->objects_key ? res->objects_key : "-", res->nprebuilt,
		res->nper_module, res->objects_seconds);
	if (res->objects_why)
		fprintf(stderr, "objects-why: %s\n", res->objects_why);
	fprintf(stderr, "replayed: %s\n", res->replayed ? "yes" : "no");
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	struct build_result res;
	int r;

	if (parse(&c, argc, argv) < 0)
		return 2;
	c.o.defines = c.defines;
	c.o.make_vars = c.make_vars;
	c.o.objects = c.objects;
	c.o.trees = c.trees;
	c.o.hash_only = c.hash;
	c.o.err = stderr;
	if (!c.o.feature_dir)
		c.o.feature_dir = TAPIR_SRCDIR "/runtime/feature";
	if (c.clean && build_clean_cache(c.o.cache_dir, stderr) < 0)
		return 1;
	if (c.features)
		return print_features(&c);
	if (optind == argc && c.clean)
		return 0;
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	c.o.source = argv[optind];
	r = build_module(&c.o, &res);
	if (r == 0 && c.report)
		report(&res);
	if (r == 0)
		puts(c.hash ? res.hash : res.ko);
	build_result_free(&res);
	free(c.trees);
	free(c.defines);
	free(c.make_vars);
	free(c.objects);
	return r == 0 ? 0 : 1;
}
