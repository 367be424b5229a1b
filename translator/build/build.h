/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * build.h - translator/build/, pass 4: turn the generated C into a kernel module.
 *
 * build_module() assembles a kbuild folder (a temporary one, kept with
 * keep): the generated C as tapir-main.c, every *.c and *.h of each source
 * tree (the runtime, kernel-core) under the tree's name, the feature
 * header tapir-features.h (forced into every object with -include), and a
 * Kbuild file linking them into one module NAME.ko. It runs
 *   make -C BUILDDIR M=FOLDER -jN [-B vars] modules
 * quietly, and on failure prints the compiler's and modpost's messages
 * with the folder's paths turned back into the generated C's and the
 * trees' own paths (file:line:col as the user's files have them).
 *
 * The module cache: every input (the generated C, every tree file, the
 * object list, the feature header, the kernel's identity, its compiler's
 * --version, -D, -B, -m) is hashed with SHA-256; CACHE/modules/HASH/
 * NAME.ko is returned without running kbuild when it exists. Entries are
 * published with rename(), so a partial build is never found.
 *
 * The objects cache: the trees' objects do not depend on the generated C
 * or on the module's name, so they are compiled once per key (the same
 * inputs as the module's hash but the generated C and -m) by a kbuild run
 * of their own, partially linked with the kernel's $(LD) -r into
 * CACHE/objects/KEY/tapir-main-prebuilt.o, and every later module links
 * that object beside tapir-main.o: its kbuild compiles only the generated
 * C. A tree file whose object would hold the module's name (it, or a tree
 * header it includes, uses KBUILD_MODNAME; or its object holds the name
 * the objects build gave it, as pr_debug's does; or it exports symbols)
 * is compiled in each module as before. The compiler's messages from the
 * objects build are kept in the entry and replayed into each module's
 * build.log (so -v and the warning count see them on a hit). Concurrent
 * builds of one key wait on CACHE/objects/KEY.lock; entries are published
 * with rename() and checked (SHA-256 of the object) on use. Whatever goes
 * wrong on this path (a kbuild that differs, ld, a corrupt entry) falls
 * back to compiling the trees in the module, except the trees' own
 * compile errors, which are reported at their own file:line. When the
 * module links only without the prebuilt object, CACHE/objects/
 * KEY.unusable records it and later builds of that key compile in the
 * module. The module cache and --disable-cache do not change any of this;
 * build_opts.no_objects_cache or TAPIR_NO_OBJCACHE=1 (debugging,
 * benchmarks) compile the trees in every module as before.
 *
 * Without make (replay.c): with the trees prebuilt and none of their
 * objects compiled in the module, the commands kbuild runs for a module
 * differ only in the build folder and the module's name. The first such
 * build of an objects key (with a tapir_HASH name) keeps them from the
 * folder's .cmd files in CACHE/objects/KEY.replay; the later ones run
 * them with sh -c where make ran them (the kernel's build tree), without
 * the make runs' parsing and compiler-option tests (about half of a
 * build's time). A command that fails, or an object that exports
 * symbols, hands the build back to kbuild in the same folder.
 * build_opts.no_replay, TAPIR_NO_REPLAY=1 and -vv (kbuild's V=1 output)
 * run kbuild every time.
 *
 * Cache folder: build_opts.cache_dir, else $TAPIR_CACHE, else
 * $XDG_CACHE_HOME/tapir, else ~/.cache/tapir.
 *
 * Size: a hit marks its entry used (its folder's time); after a build
 * stores a module, at most every CACHE/cache_clean_interval_s seconds
 * (default 300), the least recently used entries of modules/ and
 * objects/ are removed until both hold at most CACHE/cache_mb_limit
 * megabytes (default 256), SystemTap's two settings; entries used in the
 * last minute are kept (translator/build/cache-trim.c).
 */
#ifndef TAPIR_BUILD_H
#define TAPIR_BUILD_H

#include <stdbool.h>
#include <stdio.h>

#include "kfeature.h"
#include "sha256.h"

/* A folder of C linked into every module (runtime/, kernel-core/). */
struct build_tree {
	const char *dir;	/* where it is: $(pkgdatadir)/runtime */
	const char *name;	/* its name in the build folder and for
				 * -I$(src)/NAME: "runtime" */
};

struct build_opts {
	const char *source;		/* the generated C (pass 3's output) */
	const char *target;		/* -r RELEASE|BUILDDIR; NULL: uname -r */
	const char *module_name;	/* -m NAME; NULL: tapir_<hash prefix> */
	const struct build_tree *trees;	/* ended by { NULL }; may be NULL.
					 * Their feature/ folders are not
					 * copied: they are the feature tests */
	const char **objects;		/* NULL-terminated .c files relative
					 * to the build folder, linked besides
					 * tapir-main.c ("runtime/map.c");
					 * NULL: every *.c at the top of each
					 * tree */
	const char *feature_dir;	/* NULL: DIR/feature of the tree named
					 * "runtime", if it exists; no folder:
					 * an empty feature header */
	const char *features_file;	/* use this header instead of running
					 * the feature tests (debugging) */
	const char **defines;		/* -D NAME[=VAL]: -DNAME[=VAL] in the
					 * module's ccflags */
	const char **make_vars;		/* -B NAME=VAL: passed to make */
	const char *cache_dir;		/* NULL: tapir_cache_dir() */
	const char *out_dir;		/* also copy NAME.ko here; with the
					 * cache disabled NULL means "." */
	const char *tmp_parent;		/* NULL: $TMPDIR or /tmp */
	bool disable_cache;		/* --disable-cache: neither read nor
					 * write the module cache (the feature
					 * header and the trees' objects still
					 * come from theirs) */
	bool no_objects_cache;		/* compile the trees in the module
					 * (also TAPIR_NO_OBJCACHE=1) */
	bool no_replay;			/* always run make (also
					 * TAPIR_NO_REPLAY=1) */
	bool omit_werror;		/* --omit-werror: the generated C's
					 * warnings are not errors (they are
					 * by default, as with stap) */
	bool embedded_c;		/* the script's own embedded C is in
					 * the generated C: its warnings that
					 * stap does not make errors
					 * (EMBEDDED_CFLAGS) are not ours */
	bool keep;			/* -k: keep the build folder, say where */
	bool hash_only;			/* stop after computing the hash */
	int jobs;			/* make -jN; 0: online CPUs */
	int verbose;			/* 1: say what happens and times;
					 * 2: and kbuild's V=1 output */
	FILE *err;			/* messages; NULL: stderr */
};

struct build_result {
	char *ko;			/* the module (in the cache, or in
					 * out_dir without cache) */
	char *module_name;
	char hash[SHA256_HEX_SIZE];	/* of every input */
	char *build_dir;		/* the kept build folder, or NULL */
	struct kernel_target kernel;	/* what -r resolved to */
	struct kfeatures features;
	bool cache_hit;			/* no kbuild ran for the module */
	const char *objects;		/* the trees' objects: "hit", "built"
					 * (this run), "off" (not asked for, no
					 * trees), "fallback" (compiled in the
					 * module: objects_why says why), or
					 * NULL (no kbuild ran) */
	char *objects_why;		/* why not prebuilt, or NULL */
	char objects_key[SHA256_HEX_SIZE];	/* "" when off */
	int nprebuilt;			/* tree objects linked prebuilt */
	int nper_module;		/* tree objects compiled in the module */
	double objects_seconds;		/* finding or building them */
	int nwarnings;			/* compiler warnings in the build */
	double seconds;			/* everything */
	double kbuild_seconds;		/* the module's make run (or its
					 * commands' replay) */
	bool replayed;			/* kbuild's commands ran without make */
};

/*
 * Build (or find in the cache) the module. Returns 0 with res filled in,
 * or -1 after messages on o->err; res is always safe to free.
 */
int build_module(const struct build_opts *o, struct build_result *res);
void build_result_free(struct build_result *res);

/* Mark a cache entry (folder) used now. */
void build_cache_touch(const char *entry);
/* Trim the cache as described above (force: whatever the interval);
 * returns the number of entries removed. Warnings go to err (may be
 * NULL). */
int build_cache_trim(const char *cache_dir, bool force, FILE *err);

/* --clean-cache: remove every cached module, feature header and
 * objects entry. */
int build_clean_cache(const char *cache_dir, FILE *err);

/* Is NAME a usable module name ([A-Za-z_][A-Za-z0-9_]*, < 56 bytes)? */
bool build_module_name_ok(const char *name);

#endif /* TAPIR_BUILD_H */
