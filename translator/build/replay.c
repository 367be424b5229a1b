// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replay.c - the module's kbuild commands without make.
 *
 * A module build's make run spends most of its time in make itself: the
 * kernel's Makefile, parsed again by each of its four make processes,
 * runs its $(call cc-option) tests (about 130 compiler runs on 6.1)
 * before it compiles anything. What kbuild then runs for a module whose
 * trees come prebuilt is the same for every module of one objects key
 * but for the build folder and the module's name: it saves each command
 * in the target's .cmd file (cmd_TARGET := ..., savedcmd_ since 6.3).
 * replay_capture() takes those commands from a folder kbuild has just
 * built, in the order they ran (the .cmd files' times: kbuild writes one
 * when its command has succeeded, before the targets that depend on it
 * start), with the folder and the name turned into placeholders;
 * replay_run() runs them for another module with sh -c in the folder
 * make ran them in, in the environment make gave them: the variables the
 * kernel's Makefile exports (SRCARCH, which objtool reads on 6.12, the
 * locale, ...) are taken from an env dump the captured run made
 * (REPLAY_ENV_FILE in the folder, a rule of the module's Kbuild file).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

#define REPLAY_VERSION "tapir-replay 3"
#define NAME_MARK "@TAPIR_MODULE_NAME@"
#define FOLDER_MARK "@TAPIR_MODULE_DIR@"

struct saved {
	char *cmd;		/* the command */
	char *file;		/* its .cmd file's name */
	char *line;		/* and first line (modpost reads them) */
	struct timespec when;
};

static int saved_cmp(const void *a, const void *b)
{
	const struct saved *x = a, *y = b;

	if (x->when.tv_sec != y->when.tv_sec)
		return x->when.tv_sec < y->when.tv_sec ? -1 : 1;
	if (x->when.tv_nsec != y->when.tv_nsec)
		return x->when.tv_nsec < y->when.tv_nsec ? -1 : 1;
	return strcmp(x->cmd, y->cmd);
}

/* The command of a .cmd file's first line, make's quoting undone ($$ is
 * $, $(pound) is #); NULL when the line is not one, or holds another
 * make reference. */
static char *saved_command(const char *text)
{
	size_t len = strcspn(text, "\n"), i;
	const char *p = text, *end = text + len;
	char *out, *q;

	if (!strncmp(p, "savedcmd_", 9))
		p += 9;
	else if (!strncmp(p, "cmd_", 4))
		p += 4;
	else
		return NULL;
	p = memmem(p, (size_t)(end - p), " := ", 4);
	if (!p)
		return NULL;
	p += 4;
	out = q = xmalloc((size_t)(end - p) + 1);
	for (i = 0; p + i < end; i++) {
		if (p[i] != '$') {
			*q++ = p[i];
		} else if (p + i + 1 < end && p[i + 1] == '$') {
			*q++ = '$';
			i++;
		} else if ((size_t)(end - p - i) >= 8 && !strncmp(p + i, "$(pound)", 8)) {
			*q++ = '#';
			i += 7;
		} else {
			free(out);
			return NULL;
		}
	}
	*q = '\0';
	return out;
}

extern char **environ;

/* make's own variables: not for the replayed commands */
static bool make_var(const char *name, size_t len)
{
	static const char *const v[] = { "MAKEFLAGS", "MAKELEVEL", "MFLAGS",
		"MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR", "_", NULL };
	size_t i;

	for (i = 0; v[i]; i++)
		if (strlen(v[i]) == len && !strncmp(v[i], name, len))
			return true;
	return false;
}

/* Is NAME=VALUE (ENTRY) in environ as it is? */
static bool in_environ(const char *entry)
{
	char **e;

	for (e = environ; *e; e++)
		if (!strcmp(*e, entry))
			return true;
	return false;
}

/* Does the NUL-separated DUMP (LEN bytes) set NAME (LEN bytes)? */
static bool dump_has(const char *dump, size_t len, const char *name, size_t nl)
{
	const char *p = dump;

	while (p < dump + len) {
		size_t l = strlen(p);

		if (l > nl && p[nl] == '=' && !strncmp(p, name, nl))
			return true;
		p += l + 1;
	}
	return false;
}

/* S with the folder and the name as placeholders: the folder first, the
 * name may be a part of its path. */
static char *templ(const struct replay_capture *c, const char *s)
{
	char *a = kf_replace_all(s, c->dir, FOLDER_MARK), *r = kf_replace_all(a, c->name, NAME_MARK);

	free(a);
	return r;
}

/* The recipe's "env NAME=VALUE" and "unset NAME" lines: what the dump of
 * make's environment for its commands changes in ours. -1 when a value
 * holds a newline (a recipe line cannot). */
static int put_env(FILE *f, const struct replay_capture *c, const char *dump, size_t len)
{
	const char *p;
	char **e, *t;

	for (p = dump; p < dump + len; p += strlen(p) + 1) {
		size_t nl = strcspn(p, "=");

		if (!p[nl] || make_var(p, nl) || in_environ(p))
			continue;
		if (strchr(p, '\n'))
			return -1;
		t = templ(c, p);	/* M=, KBUILD_EXTMOD=, ... */
		fprintf(f, "env %s\n", t);
		free(t);
	}
	for (e = environ; *e; e++) {
		size_t nl = strcspn(*e, "=");

		if ((*e)[nl] && !make_var(*e, nl) && !dump_has(dump, len, *e, nl))
			fprintf(f, "unset %.*s\n", (int)nl, *e);
	}
	return 0;
}

static void put_line(FILE *f, const char *tag, const char *s)
{
	fprintf(f, "%s %s\n", tag, s);
}


static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static bool ends_with(const char *s, const char *end, const char *tail)
{
	size_t n = strlen(tail);

	return (size_t)(end - s) >= n && !memcmp(end - n, tail, n);
}

/* Does P (just after a NAME_MARK) name one of the module's files:
 * NAME.ko, NAME.mod, NAME.o, then a character no name goes on with? */
static bool file_suffix(const char *p)
{
	static const char *const sfx[] = { ".ko", ".mod", ".o", NULL };
	size_t i, n;

	for (i = 0; sfx[i]; i++) {
		n = strlen(sfx[i]);
		if (!strncmp(p, sfx[i], n) && !ident_char(p[n]))
			return true;
	}
	return false;
}

/* Is every NAME_MARK of the recipe TEXT where kbuild writes the module's
 * name, and nowhere else? The name replaced is any the user gave (-m):
 * "t" or "include" are also parts of flags and paths, and a recipe made
 * with such a name would put another module's name there. */
static bool marks_in_place(const char *text)
{
	const char *p = text, *after;

	while ((p = strstr(p, NAME_MARK))) {
		after = p + strlen(NAME_MARK);
		if (ends_with(text, p, "KBUILD_MODNAME='\"") ? strncmp(after, "\"'", 2) :
		    ends_with(text, p, "KBUILD_BASENAME='\"") ? strncmp(after, ".mod\"'", 6) :
		    ends_with(text, p, "KBUILD_MODNAME=kmod_") ? ident_char(*after) :
		    ends_with(text, p, FOLDER_MARK "/") || ends_with(text, p, FOLDER_MARK "/.") ||
		    ends_with(text, p, "save .") ? !file_suffix(after) : true)
			return false;
		p = after;
	}
	return true;
}

int replay_capture(const struct replay_capture *c, FILE *err)
{
	DIR *d = opendir(c->dir);
	struct dirent *e;
	struct saved *v = NULL;
	size_t n = 0, i, len = 0;
	char *buf = NULL, *dump = NULL, *path;
	size_t dlen = 0;
	const char *why = NULL;
	FILE *f;
	int r = -1;

	if (!d) {
		why = strerror(errno);
		goto out;
	}
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);
		char *text, *cmd;
		struct stat st;
		bool ours = false;

		if (e->d_name[0] != '.' || nl < 5 || strcmp(e->d_name + nl - 4, ".cmd"))
			continue;
		for (i = 0; c->skip && c->skip[i]; i++)
			ours |= !strcmp(e->d_name, c->skip[i]);
		if (ours)
			continue;
		path = xasprintf("%s/%s", c->dir, e->d_name);
		text = stat(path, &st) == 0 ? kf_read_file(path, NULL) : NULL;
		free(path);
		cmd = text ? saved_command(text) : NULL;
		if (!cmd) {
			free(text);
			why = "a .cmd file without a command";
			break;
		}
		text[strcspn(text, "\n")] = '\0';
		v = xrealloc(v, (n + 1) * sizeof(*v));
		v[n].cmd = templ(c, cmd);
		v[n].line = templ(c, text);
		v[n].file = templ(c, e->d_name);
		v[n++].when = st.st_mtim;
		free(cmd);
		free(text);
	}
	if (d)
		closedir(d);
	if (why)
		goto out;
	if (n == 0) {
		why = "no commands";
		goto out;
	}
	path = xasprintf("%s/%s", c->dir, REPLAY_ENV_FILE);
	dump = kf_read_file(path, &dlen);
	free(path);
	if (!dump) {
		why = "no dump of make's environment";
		goto out;
	}
	qsort(v, n, sizeof(*v), saved_cmp);
	f = open_memstream(&buf, &len);
	if (!f)
		out_of_memory();
	fprintf(f, "%s\n", REPLAY_VERSION);
	put_line(f, "cwd", c->cwd);
	if (put_env(f, c, dump, dlen) < 0)
		why = "a newline in make's environment";
	for (i = 0; i < n; i++) {
		put_line(f, "cmd", v[i].cmd);
		fprintf(f, "save %s %s\n", v[i].file, v[i].line);
	}
	fclose(f);
	if (!why && !marks_in_place(buf))
		why = "the module's name is also a part of other words in its commands";
	if (why)
		goto out;
	/* through a temporary name: a reader never sees a part */
	if (kf_write_file(c->recipe, buf, len) < 0) {
		why = strerror(errno);
		goto out;
	}
	r = 0;
out:
	if (r < 0 && c->verbose)
		fprintf(err, "tapir: kbuild's commands not kept for later builds: %s\n", why);
	for (i = 0; i < n; i++) {
		free(v[i].cmd);
		free(v[i].file);
		free(v[i].line);
	}
	free(v);
	free(buf);
	free(dump);
	return r;
}

/* S of the recipe for J's folder and name. */
static char *instance(const struct replay_job *j, const char *s)
{
	char *a = kf_replace_all(s, FOLDER_MARK, j->dir), *r = kf_replace_all(a, NAME_MARK, j->name);

	free(a);
	return r;
}

/* sh -c CMD in CWD with the recipe's ENV changes (NULL-terminated "env
 * NAME=VALUE", "unset NAME" lines) for J, its output appended to the
 * open FD. */
static int run_in(const struct replay_job *j, const char *cwd, char **env,
		  const char *cmd, int fd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* make's environment for its commands */
		kf_unset_make_env();
		for (; env && *env; env++) {
			if (!strncmp(*env, "env ", 4))
				putenv(instance(j, *env + 4));
			else
				unsetenv(*env + 6);
		}
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(cwd) < 0) {
			dprintf(2, "tapir: cannot enter %s: %s\n", cwd, strerror(errno));
			_exit(127);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid < 0 ? -1 : kf_wait(pid);
}

/* The path of a "save" line's .cmd file, the line (after the path) in
 * *rest; NULL when the line is not one. */
static char *saved_path(const struct replay_job *j, char *line, char **rest)
{
	char *sp = strchr(line + 5, ' '), *sl = strchr(line + 5, '/'), *a, *path;

	if (strncmp(line, "save ", 5) || !sp || (sl && sl < sp))
		return NULL;
	*sp = '\0';
	a = xasprintf("%s/%s", j->dir, line + 5);
	path = instance(j, a);
	free(a);
	*rest = sp + 1;
	return path;
}

void replay_forget(const struct replay_job *j)
{
	char *text = kf_read_file(j->recipe, NULL), *line, *save = NULL, *rest;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *path = saved_path(j, line, &rest);

		if (path)
			unlink(path);
		free(path);
	}
	free(text);
}

int replay_run(const struct replay_job *j, FILE *err)
{
	char *text = kf_read_file(j->recipe, NULL), *line, *save = NULL, *cwd = NULL;
	char **env = xcalloc(1, sizeof(*env));
	size_t nenv = 0;
	int fd, st = -1;
	bool first = true;

	if (!text)
		return -1;
	fd = open(j->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(err, "tapir: cannot write %s: %s\n", j->log, strerror(errno));
		free(text);
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a, *cmd;

		if (first) {
			first = false;
			if (strcmp(line, REPLAY_VERSION))
				break;
			continue;
		}
		if (!strncmp(line, "cwd ", 4)) {
			cwd = line + 4;
			continue;
		}
		if (!strncmp(line, "env ", 4) || !strncmp(line, "unset ", 6)) {
			env = xrealloc(env, (nenv + 2) * sizeof(*env));
			env[nenv++] = line;
			env[nenv] = NULL;
			continue;
		}
		if (!strncmp(line, "save ", 5)) {
			/* the command's .cmd file, as kbuild writes it */
			char *rest, *path = saved_path(j, line, &rest), *saved;

			if (!path) {
				st = -1;
				break;
			}
			saved = instance(j, rest);
			a = xasprintf("%s\n", saved);
			st = kf_write_file(path, a, strlen(a)) < 0 ? -1 : 0;
			free(a);
			free(saved);
			free(path);
			if (st != 0)
				break;
			continue;
		}
		if (strncmp(line, "cmd ", 4) || !cwd) {
			st = -1;
			break;
		}
		cmd = instance(j, line + 4);
		st = run_in(j, cwd, env, cmd, fd);
		free(cmd);
		if (st != 0)
			break;
	}
	close(fd);
	free(env);
	free(text);
	if (st != 0)
		replay_forget(j);	/* kbuild makes every target again */
	return st;
}
