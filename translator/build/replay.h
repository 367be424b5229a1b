/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * replay.h - translator/build/replay.c: a module's kbuild commands, kept
 * from one make run and run again without make for the next modules of
 * the same objects key (build.c decides when; see build.h).
 */
#ifndef TAPIR_REPLAY_H
#define TAPIR_REPLAY_H

#include <stdbool.h>
#include <stdio.h>

#include "kfeature.h"

/* The dump of make's environment for its commands (env -0) that the
 * captured build's Kbuild file makes (replay_kbuild_rule). */
#define REPLAY_ENV_FILE "tapir-kbuild.env"
#define REPLAY_KBUILD_RULE \
	"always-y += " REPLAY_ENV_FILE "\n" \
	"$(obj)/" REPLAY_ENV_FILE ": FORCE\n\t@env -0 > $@\n"

struct replay_capture {
	const char *dir;	/* the build folder kbuild has just built */
	const char *name;	/* the module's name: nothing is kept when
				 * it is also a part of other words there */
	const char *cwd;	/* where make ran the commands */
	const char *const *skip;	/* .cmd files that are not kbuild's */
	const char *recipe;	/* write the commands here */
	int verbose;		/* say why nothing was kept */
};

/* Keep the commands of C->dir's .cmd files, in the order they ran, in
 * C->recipe (replaced with rename()). 0, or -1 (nothing written). */
int replay_capture(const struct replay_capture *c, FILE *err);

struct replay_job {
	const char *recipe;	/* replay_capture()'s file */
	const char *dir;	/* this module's build folder */
	const char *name;	/* and its name */
	const char *log;	/* the commands' output */
};

/* Run the commands for J; the exit status of the first that fails (0
 * when all succeed), or -1 when the recipe cannot be read or run. */
int replay_run(const struct replay_job *j, FILE *err);

/* Remove the .cmd files replay_run() writes (after it failed, or when its
 * module is left to kbuild anyway): kbuild then makes every target. */
void replay_forget(const struct replay_job *j);

#endif /* TAPIR_REPLAY_H */
