/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kfeature.h - the target kernel as pass 4 sees it: where its kbuild
 * tree is, what identifies it, how to run kbuild against it, and which
 * kernel APIs it has (feature tests).
 *
 * Feature tests are small C files, one per API, in a folder (the
 * runtime's feature/ folder): NAME.c defines HAVE_NAME (upper case) in
 * the generated header when it compiles with -Werror against the target
 * headers and, when its comment has a line "exports: SYM ...", when every
 * SYM is exported in the kernel's Module.symvers. All tests compile in
 * one kbuild run (make -k -jN), and the header is cached per kernel
 * identity, make variables and test sources; a cached header is reused
 * only while the kernel's compiler still prints the same version.
 */
#ifndef TAPIR_KFEATURE_H
#define TAPIR_KFEATURE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "xalloc.h"

/* The kernel a module is built for. */
struct kernel_target {
	char *release;		/* 6.1.0-57-cloud-amd64 */
	char *build_dir;	/* its kbuild tree (canonical path) */
	char *identity;		/* release, tree and the size/mtime of its
				 * .config, Module.symvers, utsrelease.h,
				 * autoconf.h and modpost: one "key value"
				 * per line */
};

/*
 * Resolve -r RELEASE|BUILDDIR (NULL: uname -r). A RELEASE uses
 * /lib/modules/R/build, else /usr/src/linux-headers-R. Returns 0, or -1
 * after a message on err naming what is missing.
 */
int kernel_target_resolve(const char *spec, struct kernel_target *t, FILE *err);
void kernel_target_free(struct kernel_target *t);

/*
 * The release the kbuild tree at dir was configured for (malloc'd), or
 * NULL: its utsrelease.h's UTS_RELEASE (what modules' vermagic carries),
 * else include/config/kernel.release (on Debian the upstream version).
 */
char *kernel_tree_release(const char *dir);

/* One kbuild run: make -C build_dir M=dir [-k] -jN [V=1] VARS... GOALS... */
struct kbuild_run {
	const char *build_dir;
	const char *dir;		/* M= (absolute) */
	const char **goals;		/* NULL-terminated; NULL: "modules" */
	const char **make_vars;		/* NULL-terminated "NAME=VAL" (-B) */
	const char *log;		/* stdout and stderr go here */
	int jobs;			/* 0: the number of online CPUs */
	bool keep_going;		/* make -k */
	int verbose;			/* >= 2: V=1 */
};

/* Returns make's exit status, or -1 (message on err) if it did not run. */
int kbuild_make(const struct kbuild_run *r, FILE *err);

struct kfeature_opts {
	const struct kernel_target *kernel;
	const char *feature_dir;	/* the NAME.c tests */
	const char **make_vars;		/* -B NAME=VAL, NULL-terminated */
	const char *cache_dir;		/* NULL: never cached */
	const char *tmp_parent;		/* NULL: $TMPDIR or /tmp */
	int jobs;
	int verbose;			/* > 0: say what runs and how long */
	bool keep;			/* keep the test folder; say where */
	FILE *err;
};

struct kfeatures {
	char *header;		/* the generated header's text */
	char *cc;		/* the kernel toolchain's $(CC) */
	char *cc_version;	/* the output of $(CC) --version */
	char *cache_path;	/* where the header is cached, or NULL */
	bool cache_hit;
	int ntests, nhave;
	double seconds;		/* time spent (0 on a cache hit) */
};

/* Returns 0 with *f filled in, or -1 after a message on o->err. */
int kfeature_get(const struct kfeature_opts *o, struct kfeatures *f);
void kfeatures_free(struct kfeatures *f);
/* Does the header define MACRO (HAVE_...)? */
bool kfeature_have(const struct kfeatures *f, const char *macro);

/* $TAPIR_CACHE, else $XDG_CACHE_HOME/tapir, else ~/.cache/tapir (malloc'd). */
char *tapir_cache_dir(void);

/* Helpers shared with build.c. */
double kf_now(void);
/* Read a whole file (NUL-terminated); NULL with errno set. */
char *kf_read_file(const char *path, size_t *len);
/* Write a file through a temporary name and rename(); -1 with errno. */
int kf_write_file(const char *path, const void *data, size_t len);
int kf_copy_file(const char *from, const char *to);
struct sha256;
/* Hash path and its identity (inode, size, mtime; zeros if absent):
 * what a cache key names a file it was made from by. */
void kf_hash_file_id(struct sha256 *h, const char *path);
/* ... the same for each file of dir whose name ends in suffix, in name
 * order (dir's own first: a file added or removed changes it). */
void kf_hash_dir_ids(struct sha256 *h, const char *dir, const char *suffix);
/* Each line (its newline cut) of the cache file at path after its
 * first, which must be magic: fn(arg, line), line writable. False when
 * the file is not there or is not of that format. */
bool kf_read_lines(const char *path, const char *magic,
		   void (*fn)(void *arg, char *line), void *arg);
/* mkdir -p; -1 with errno. */
int kf_mkdirs(const char *path);
/* rm -rf; -1 if something stayed. */
int kf_rmtree(const char *path);
/* A new folder PARENT/PREFIX.XXXXXX (parent NULL: $TMPDIR or /tmp). */
char *kf_mkdtemp(const char *parent, const char *prefix, FILE *err);
/* Run sh -c CMD and capture its standard output; NULL if it failed. */
char *kf_capture(const char *cmd);
/* In a child about to run make or its commands: an outer make's
 * jobserver and flags are not for them. */
void kf_unset_make_env(void);
/* Wait for PID: its exit status, 128 + the signal that killed it, or -1. */
int kf_wait(pid_t pid);
/* TEXT with every FROM replaced by TO (malloc'd). */
char *kf_replace_all(const char *text, const char *from, const char *to);

#endif /* TAPIR_KFEATURE_H */
