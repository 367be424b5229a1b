/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * run.h - passes 4 and 5 for the driver: build the generated C into a
 * module (build.h) and run it, on this machine through the loader
 * tapir-run, or in a qemu guest (vm.h) with the same loader inside.
 */
#ifndef TAPIR_RUN_H
#define TAPIR_RUN_H

#include <stdbool.h>

#include "build/build.h"

struct session;

struct run_opts {
	/* pass 4 */
	const char *module_name;	/* -m NAME */
	bool keep;			/* -k */
	bool bulk;			/* -b: the loader's -B */
	const char *fsize;		/* -S MB[,N]: the loader's -S */
	const char **defines;		/* -D NAME[=VAL], NULL-terminated */
	const char **make_vars;		/* -B NAME=VAL */
	bool disable_cache;		/* --disable-cache */
	bool omit_werror;		/* --omit-werror */

	/* pass 5: the loader's options */
	const char *cmd;		/* -c CMD */
	const char *xpid;		/* -x PID */
	const char *timeout;		/* -T SECS */
	const char *output;		/* -o FILE */
	const char *bufsize;		/* -s MB (the loader's -b) */
	bool json;			/* --json */
	const char **params;		/* -G VAR=VAL: module parameters */

	/* --vm */
	bool vm;
	const char *vm_kernel;		/* --vm-kernel VMLINUZ */
	int vm_mem;			/* --vm-mem MB */
	int vm_cpus;			/* --vm-cpus N */
	const char **vm_files;		/* --vm-file HOST[:GUEST] */
};

/*
 * For --vm: choose the guest kernel: opts->vm_kernel; else the one
 * s->target (-r RELEASE or a tree of it) names, /boot/vmlinuz-RELEASE, so
 * that the guest boots the kernel the module is built for; else the
 * newest installed one with headers, and point s->target at its headers
 * so that passes 2 and 4 look at the kernel the guest boots. 0, or -1
 * after a message.
 */
int run_vm_target(struct session *s, struct run_opts *o);

/* Pass 4: build c_file into a module. 0 with res filled in, or -1. */
int run_build(struct session *s, const struct run_opts *o,
	      const char *c_file, struct build_result *res);

/* Pass 5: load and run the module; returns the exit status for tapir. */
int run_module(struct session *s, const struct run_opts *o, const char *ko);

#endif /* TAPIR_RUN_H */
