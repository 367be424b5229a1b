// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kfeature.c - the target kernel for pass 4: its kbuild tree and
 * identity, kbuild runs, and the cached kernel-API feature tests.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kfeature.h"
#include "sha256.h"
#include "sha256.h"

#define KFEATURE_VERSION "tapir-features 1"
#define CC_MARK "TAPIR_CC="

/* ---- small helpers (also used by build.c) ---- */

double kf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

char *kf_read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 8192;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				out_of_memory();
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int kf_write_file(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmpXXXXXX", path);
	int fd = mkstemp(tmp), e;

	if (fd < 0)
		goto fail;
	if (write_all(fd, data, len) < 0 || fchmod(fd, 0644) < 0) {
		close(fd);
		goto fail_unlink;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0)
		goto fail_unlink;
	free(tmp);
	return 0;
fail_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
fail:
	free(tmp);
	return -1;
}

int kf_copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = kf_read_file(from, &len);
	int r;

	if (!data)
		return -1;
	r = kf_write_file(to, data, len);
	free(data);
	return r;
}

int kf_mkdirs(const char *path)
{
	char *p = xstrdup(path), *s, c;
	int r = 0;

	for (s = p + 1; ; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -1;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return r;
}

int kf_rmtree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int r = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, e->d_name);
		if (kf_rmtree(sub) < 0)
			r = -1;
		free(sub);
	}
	closedir(d);
	if (rmdir(path) < 0)
		r = -1;
	return r;
}

char *kf_mkdtemp(const char *parent, const char *prefix, FILE *err)
{
	const char *tmp = getenv("TMPDIR");
	char *p;

	if (!parent)
		parent = tmp && *tmp ? tmp : "/tmp";
	p = xasprintf("%s/%s.XXXXXX", parent, prefix);
	if (!mkdtemp(p)) {
		fprintf(err, "tapir: cannot create a folder in %s: %s\n",
			parent, strerror(errno));
		free(p);
		return NULL;
	}
	return p;
}

void kf_unset_make_env(void)
{
	unsetenv("MAKEFLAGS");
	unsetenv("MFLAGS");
	unsetenv("MAKELEVEL");
	unsetenv("MAKEOVERRIDES");
}

int kf_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

char *kf_replace_all(const char *text, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	const char *p, *e;
	char *out, *q;

	for (p = text; (p = strstr(p, from)); p += fl)
		n++;
	out = xmalloc(strlen(text) + n * tl + 1);
	for (p = text, q = out; (e = strstr(p, from)); p = e + fl) {
		memcpy(q, p, (size_t)(e - p));
		q += e - p;
		memcpy(q, to, tl);
		q += tl;
	}
	strcpy(q, p);
	return out;
}

char *kf_capture(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[1024];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				out_of_memory();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	if (pclose(f) != 0 || !buf) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

char *tapir_cache_dir(void)
{
	const char *v = getenv("TAPIR_CACHE");

	if (v && *v)
		return xstrdup(v);
	v = getenv("XDG_CACHE_HOME");
	if (v && *v == '/')
		return xasprintf("%s/tapir", v);
	v = getenv("HOME");
	return xasprintf("%s/.cache/tapir", v && *v ? v : "/tmp");
}

/* ---- the target kernel ---- */

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *first_line(const char *path)
{
	char *s = kf_read_file(path, NULL);

	if (!s)
		return NULL;
	s[strcspn(s, "\r\n")] = '\0';
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* UTS_RELEASE of a kbuild tree's utsrelease.h, or NULL. */
static char *uts_release(const char *dir)
{
	char *p = xasprintf("%s/include/generated/utsrelease.h", dir);
	char *text = kf_read_file(p, NULL), *q, *e;

	free(p);
	if (!text)
		return NULL;
	q = strstr(text, "UTS_RELEASE");
	q = q ? strchr(q, '"') : NULL;
	e = q ? strchr(q + 1, '"') : NULL;
	p = e && e > q + 1 ? strndup(q + 1, (size_t)(e - q - 1)) : NULL;
	free(text);
	return p;
}

/*
 * The release a kbuild tree was configured for: UTS_RELEASE first (what
 * the modules' vermagic says; Debian's include/config/kernel.release
 * holds the upstream version instead).
 */
char *kernel_tree_release(const char *dir)
{
	char *rel = uts_release(dir), *p;

	if (rel)
		return rel;
	p = xasprintf("%s/include/config/kernel.release", dir);
	rel = first_line(p);
	free(p);
	return rel;
}

static void identity_file(FILE *f, const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;

	if (stat(p, &st) == 0)
		fprintf(f, "%s %lld %lld.%09ld\n", name, (long long)st.st_size,
			(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		fprintf(f, "%s missing\n", name);
	free(p);
}

static char *make_identity(const struct kernel_target *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		out_of_memory();
	fprintf(f, "release %s\ntree %s\n", t->release, t->build_dir);
	identity_file(f, t->build_dir, ".config");
	identity_file(f, t->build_dir, "Module.symvers");
	identity_file(f, t->build_dir, "include/generated/utsrelease.h");
	identity_file(f, t->build_dir, "include/generated/autoconf.h");
	identity_file(f, t->build_dir, "scripts/mod/modpost");
	fclose(f);
	return buf;
}

static char *find_tree(const char *release)
{
	char *p = xasprintf("/lib/modules/%s/build", release);

	if (is_dir(p))
		return p;
	free(p);
	p = xasprintf("/usr/src/linux-headers-%s", release);
	if (is_dir(p))
		return p;
	free(p);
	return NULL;
}

int kernel_target_resolve(const char *spec, struct kernel_target *t, FILE *err)
{
	struct utsname u;
	char *dir, *mk, *real;

	memset(t, 0, sizeof(*t));
	if (!spec) {
		uname(&u);
		spec = u.release;
	}
	if (strchr(spec, '/')) {
		dir = xstrdup(spec);
	} else {
		dir = find_tree(spec);
		if (!dir) {
			fprintf(err, "tapir: no kernel headers for %s: neither "
				"/lib/modules/%s/build nor /usr/src/linux-headers-%s "
				"exists (install linux-headers-%s, or give -r BUILDDIR)\n",
				spec, spec, spec, spec);
			return -1;
		}
	}
	mk = xasprintf("%s/Makefile", dir);
	real = realpath(dir, NULL);
	if (!real || access(mk, R_OK) < 0) {
		fprintf(err, "tapir: %s is not a kernel build tree (no Makefile)\n", dir);
		free(mk);
		free(dir);
		free(real);
		return -1;
	}
	free(mk);
	free(dir);
	t->build_dir = real;
	t->release = kernel_tree_release(real);
	if (!t->release)
		t->release = xstrdup(strchr(spec, '/') ? "unknown" : spec);
	t->identity = make_identity(t);
	return 0;
}

void kernel_target_free(struct kernel_target *t)
{
	free(t->release);
	free(t->build_dir);
	free(t->identity);
	memset(t, 0, sizeof(*t));
}

/* ---- kbuild runs ---- */

static long online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

static char **make_argv(const struct kbuild_run *r)
{
	static const char *modules[] = { "modules", NULL };
	const char **goals = r->goals ? r->goals : modules;
	size_t n = 9, i = 0, k;
	char **av;

	for (k = 0; r->make_vars && r->make_vars[k]; k++)
		n++;
	for (k = 0; goals[k]; k++)
		n++;
	av = xmalloc(n * sizeof(*av));
	av[i++] = xstrdup("make");
	av[i++] = xasprintf("-C%s", r->build_dir);
	av[i++] = xasprintf("M=%s", r->dir);
	av[i++] = xasprintf("-j%ld", r->jobs > 0 ? (long)r->jobs : online_cpus());
	/*
	 * No BTF for the module: in a tree that holds a vmlinux (a
	 * self-built kernel, or headers with the -dbg vmlinux linked in)
	 * kbuild would run pahole and tools/bpf/resolve_btfids on it, which
	 * a headers package does not ship. Nothing reads a probe module's
	 * BTF; -B can still set the variable back.
	 */
	av[i++] = xstrdup("CONFIG_DEBUG_INFO_BTF_MODULES=");
	if (r->keep_going)
		av[i++] = xstrdup("-k");
	if (r->verbose >= 2)
		av[i++] = xstrdup("V=1");
	for (k = 0; r->make_vars && r->make_vars[k]; k++)
		av[i++] = xstrdup(r->make_vars[k]);
	for (k = 0; goals[k]; k++)
		av[i++] = xstrdup(goals[k]);
	av[i] = NULL;
	return av;
}

static void free_argv(char **av)
{
	size_t i;

	for (i = 0; av[i]; i++)
		free(av[i]);
	free(av);
}

int kbuild_make(const struct kbuild_run *r, FILE *err)
{
	char **av = make_argv(r);
	int fd, status;
	pid_t pid;

	fd = open(r->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(err, "tapir: cannot write %s: %s\n", r->log, strerror(errno));
		free_argv(av);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		kf_unset_make_env();
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(av[0], av);
		dprintf(2, "tapir: cannot run make: %s\n", strerror(errno));
		_exit(127);
	}
	close(fd);
	if (pid < 0) {
		fprintf(err, "tapir: cannot start make: %s\n", strerror(errno));
		free_argv(av);
		return -1;
	}
	free_argv(av);
	status = kf_wait(pid);
	if (status < 0)
		fprintf(err, "tapir: waiting for make: %s\n", strerror(errno));
	return status;
}

/* ---- feature tests ---- */

struct ftest {
	char *name;		/* file name, NAME.c */
	char *macro;		/* HAVE_NAME */
	char *text;		/* its source */
	size_t len;
	char **exports;		/* "exports:" symbols, NULL-terminated */
	bool have;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ftest *)a)->name, ((const struct ftest *)b)->name);
}

static bool good_test_name(const char *n, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9') ||
		      n[i] == '_'))
			return false;
	return len > 0;
}

/* The words after "exports:" on any line of the test's text. */
static char **parse_exports(const char *text)
{
	char **v = xmalloc(sizeof(*v));
	size_t n = 0;
	const char *p = text;

	v[0] = NULL;
	while ((p = strstr(p, "exports:"))) {
		const char *e = p + strcspn(p, "\n");

		p += 8;
		while (p < e) {
			size_t w;

			p += strspn(p, " \t");
			w = strcspn(p, " \t\n");
			if (!w || (w == 2 && !strncmp(p, "*/", 2)))
				break;
			v = realloc(v, (n + 2) * sizeof(*v));
			if (!v)
				out_of_memory();
			v[n++] = strndup(p, w);
			v[n] = NULL;
			p += w;
		}
	}
	return v;
}

static void free_tests(struct ftest *t, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		free(t[i].name);
		free(t[i].macro);
		free(t[i].text);
		for (k = 0; t[i].exports && t[i].exports[k]; k++)
			free(t[i].exports[k]);
		free(t[i].exports);
	}
	free(t);
}

static int load_tests(const char *dir, struct ftest **out, size_t *nout, FILE *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct ftest *t = NULL;
	size_t n = 0, k;

	if (!d) {
		fprintf(err, "tapir: cannot read the feature tests in %s: %s\n",
			dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char *path;

		if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
			continue;
		if (!good_test_name(e->d_name, len - 2)) {
			fprintf(err, "tapir: feature test %s/%s: names are [a-z0-9_]+.c\n",
				dir, e->d_name);
			continue;
		}
		t = realloc(t, (n + 1) * sizeof(*t));
		if (!t)
			out_of_memory();
		memset(&t[n], 0, sizeof(*t));
		t[n].name = xstrdup(e->d_name);
		t[n].macro = xasprintf("HAVE_%.*s", (int)(len - 2), e->d_name);
		for (k = 5; t[n].macro[k]; k++)
			if (t[n].macro[k] >= 'a' && t[n].macro[k] <= 'z')
				t[n].macro[k] -= 'a' - 'A';
		path = xasprintf("%s/%s", dir, e->d_name);
		t[n].text = kf_read_file(path, &t[n].len);
		free(path);
		if (!t[n].text) {
			fprintf(err, "tapir: cannot read %s/%s: %s\n", dir, e->d_name,
				strerror(errno));
			closedir(d);
			free_tests(t, n + 1);
			return -1;
		}
		t[n].exports = parse_exports(t[n].text);
		n++;
	}
	closedir(d);
	if (n)
		qsort(t, n, sizeof(*t), name_cmp);
	*out = t;
	*nout = n;
	return 0;
}

/* The cache key: kernel identity, make variables, the tests' sources. */
static void features_key(const struct kfeature_opts *o, const struct ftest *t,
			 size_t n, char hex[SHA256_HEX_SIZE])
{
	struct sha256 c;
	size_t i;

	sha256_init(&c);
	sha256_field_str(&c, "version", KFEATURE_VERSION);
	sha256_field_str(&c, "kernel", o->kernel->identity);
	for (i = 0; o->make_vars && o->make_vars[i]; i++)
		sha256_field_str(&c, "make-var", o->make_vars[i]);
	for (i = 0; i < n; i++) {
		sha256_field_str(&c, "test", t[i].name);
		sha256_field(&c, "text", t[i].text, t[i].len);
	}
	sha256_final_hex(&c, hex);
}

/* The value of a "/ * KEY: VALUE * /" line of a header, or NULL. */
static char *header_comment(const char *h, const char *key)
{
	char *pat = xasprintf("/* %s: ", key);
	const char *p = strstr(h, pat), *e;
	char *v = NULL;

	if (p) {
		p += strlen(pat);
		e = strstr(p, " */");
		if (e && !memchr(p, '\n', (size_t)(e - p)))
			v = strndup(p, (size_t)(e - p));
	}
	free(pat);
	return v;
}

static char *cc_version_of(const char *cc)
{
	char *cmd = xasprintf("%s --version 2>/dev/null", cc);
	char *v = kf_capture(cmd);

	free(cmd);
	return v;
}

static char *first_line_of(const char *s)
{
	return strndup(s, strcspn(s, "\n"));
}

/* A cached header whose compiler still prints the same version. */
static bool cache_lookup(const struct kfeature_opts *o, struct kfeatures *f)
{
	char *h = kf_read_file(f->cache_path, NULL);
	char *cc, *ver, *now = NULL, *line = NULL;

	if (!h)
		return false;
	cc = header_comment(h, "cc");
	ver = header_comment(h, "cc-version");
	if (cc && ver)
		now = cc_version_of(cc);
	if (now)
		line = first_line_of(now);
	if (!line || strcmp(line, ver) != 0) {
		if (o->verbose)
			fprintf(o->err, "tapir: feature cache %s: the compiler %s changed\n",
				f->cache_path, cc ? cc : "(unknown)");
		free(h);
		free(cc);
		free(ver);
		free(now);
		free(line);
		return false;
	}
	free(ver);
	free(line);
	f->header = h;
	f->cc = cc;
	f->cc_version = now;
	return true;
}

static int write_kbuild(const char *dir, const struct ftest *t, size_t n, FILE *err)
{
	char *buf = NULL, *path;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);
	int r;

	if (!m)
		out_of_memory();
	fputs("# Tapir's kernel-API feature tests (generated).\n"
	      "$(info " CC_MARK "$(CC))\n"
	      "ccflags-y := -Werror\n", m);
	for (i = 0; i < n; i++)
		fprintf(m, "obj-m += %.*s.o\n", (int)(strlen(t[i].name) - 2), t[i].name);
	fclose(m);
	path = xasprintf("%s/Kbuild", dir);
	r = kf_write_file(path, buf, len);
	if (r < 0)
		fprintf(err, "tapir: cannot write %s: %s\n", path, strerror(errno));
	free(path);
	free(buf);
	return r;
}

static int write_tests(const char *dir, const struct ftest *t, size_t n, FILE *err)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, t[i].name);
		int r = kf_write_file(p, t[i].text, t[i].len);

		if (r < 0)
			fprintf(err, "tapir: cannot write %s: %s\n", p, strerror(errno));
		free(p);
		if (r < 0)
			return -1;
	}
	return write_kbuild(dir, t, n, err);
}

/* The $(CC) the Kbuild file printed, trimmed; NULL if none. */
static char *cc_from_log(const char *log)
{
	const char *p = strstr(log, CC_MARK);
	size_t n;

	if (!p)
		return NULL;
	p += strlen(CC_MARK);
	p += strspn(p, " \t");
	n = strcspn(p, "\n");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	return n ? strndup(p, n) : NULL;
}

static bool exported(const char *symvers, const char *sym)
{
	char *pat;
	bool yes;

	if (!symvers)
		return true;	/* no Module.symvers: the compile decides */
	pat = xasprintf("\t%s\t", sym);
	yes = strstr(symvers, pat) != NULL;
	free(pat);
	return yes;
}

static void judge_tests(const struct kfeature_opts *o, const char *dir,
			struct ftest *t, size_t n)
{
	char *sv = xasprintf("%s/Module.symvers", o->kernel->build_dir);
	char *symvers = kf_read_file(sv, NULL);
	size_t i, k;

	free(sv);
	for (i = 0; i < n; i++) {
		char *obj = xasprintf("%s/%.*s.o", dir, (int)(strlen(t[i].name) - 2),
					 t[i].name);

		t[i].have = access(obj, F_OK) == 0;
		for (k = 0; t[i].have && t[i].exports[k]; k++)
			t[i].have = exported(symvers, t[i].exports[k]);
		free(obj);
	}
	free(symvers);
}

static char *make_header(const struct kfeature_opts *o, const char *key,
			 const char *cc, const char *cc_line,
			 const struct ftest *t, size_t n)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		out_of_memory();
	fprintf(m, "/* tapir-features.h: kernel-API feature tests (generated). */\n"
		"/* release: %s */\n/* key: %s */\n/* cc: %s */\n/* cc-version: %s */\n"
		"#ifndef TAPIR_FEATURES_H\n#define TAPIR_FEATURES_H\n",
		o->kernel->release, key, cc, cc_line);
	for (i = 0; i < n; i++) {
		if (t[i].have)
			fprintf(m, "#define %s 1\n", t[i].macro);
		else
			fprintf(m, "/* #undef %s */\n", t[i].macro);
	}
	fputs("#endif\n", m);
	fclose(m);
	return buf;
}

static int run_tests(const struct kfeature_opts *o, struct ftest *t, size_t n,
		     const char *key, struct kfeatures *f)
{
	const char **goals = xmalloc((n + 1) * sizeof(*goals));
	struct kbuild_run r = { 0 };
	char *dir, *log = NULL, *logtext = NULL, *line = NULL;
	size_t i;
	int rc = -1, st;

	dir = kf_mkdtemp(o->tmp_parent, "tapir-features", o->err);
	if (!dir) {
		free(goals);
		return -1;
	}
	if (write_tests(dir, t, n, o->err) < 0)
		goto out;
	for (i = 0; i < n; i++)
		goals[i] = xasprintf("%.*s.o", (int)(strlen(t[i].name) - 2), t[i].name);
	goals[n] = NULL;
	log = xasprintf("%s/build.log", dir);
	r.build_dir = o->kernel->build_dir;
	r.dir = dir;
	r.goals = goals;
	r.make_vars = o->make_vars;
	r.log = log;
	r.jobs = o->jobs;
	r.keep_going = true;
	r.verbose = o->verbose;
	st = kbuild_make(&r, o->err);
	if (st < 0)
		goto out;
	logtext = kf_read_file(log, NULL);
	f->cc = logtext ? cc_from_log(logtext) : NULL;
	if (!f->cc) {
		fprintf(o->err, "tapir: the feature tests' kbuild run against %s "
			"did not start (exit status %d); its log:\n%s",
			o->kernel->build_dir, st, logtext ? logtext : "(none)\n");
		goto out;
	}
	f->cc_version = cc_version_of(f->cc);
	if (!f->cc_version) {
		fprintf(o->err, "tapir: the kernel's compiler '%s' does not run "
			"(%s --version failed)\n", f->cc, f->cc);
		goto out;
	}
	judge_tests(o, dir, t, n);
	line = first_line_of(f->cc_version);
	f->header = make_header(o, key, f->cc, line, t, n);
	rc = 0;
out:
	if (o->keep)
		fprintf(o->err, "tapir: keeping the feature test folder %s\n", dir);
	else
		kf_rmtree(dir);
	for (i = 0; i < n && goals[i]; i++)
		free((char *)goals[i]);
	free(goals);
	free(line);
	free(logtext);
	free(log);
	free(dir);
	return rc;
}

static void store(const struct kfeature_opts *o, struct kfeatures *f)
{
	char *dir = xasprintf("%s/features", o->cache_dir);

	if (kf_mkdirs(dir) < 0 ||
	    kf_write_file(f->cache_path, f->header, strlen(f->header)) < 0)
		fprintf(o->err, "tapir: warning: cannot cache the feature header "
			"in %s: %s\n", dir, strerror(errno));
	free(dir);
}

int kfeature_get(const struct kfeature_opts *o, struct kfeatures *f)
{
	char key[SHA256_HEX_SIZE];
	struct ftest *t;
	size_t n, i;
	double t0 = kf_now();

	memset(f, 0, sizeof(*f));
	if (load_tests(o->feature_dir, &t, &n, o->err) < 0)
		return -1;
	features_key(o, t, n, key);
	f->ntests = (int)n;
	if (o->cache_dir) {
		f->cache_path = xasprintf("%s/features/%s-%.16s.h", o->cache_dir,
					     o->kernel->release, key);
		if (cache_lookup(o, f)) {
			f->cache_hit = true;
			goto done;
		}
	}
	if (run_tests(o, t, n, key, f) < 0) {
		free_tests(t, n);
		kfeatures_free(f);
		return -1;
	}
	f->seconds = kf_now() - t0;
	if (o->cache_dir)
		store(o, f);
	if (o->verbose)
		fprintf(o->err, "tapir: %zu feature tests against %s in %.2f s\n",
			n, o->kernel->release, f->seconds);
done:
	for (i = 0; i < n; i++)
		if (kfeature_have(f, t[i].macro))
			f->nhave++;
	free_tests(t, n);
	return 0;
}

void kfeatures_free(struct kfeatures *f)
{
	free(f->header);
	free(f->cc);
	free(f->cc_version);
	free(f->cache_path);
	memset(f, 0, sizeof(*f));
}

bool kfeature_have(const struct kfeatures *f, const char *macro)
{
	char *pat = xasprintf("#define %s 1\n", macro);
	bool yes = f->header && strstr(f->header, pat) != NULL;

	free(pat);
	return yes;
}

void kf_hash_file_id(struct sha256 *h, const char *path)
{
	struct stat st;
	int64_t id[4] = { 0, 0, 0, 0 };

	if (stat(path, &st) == 0) {
		id[0] = (int64_t)st.st_ino;
		id[1] = (int64_t)st.st_size;
		id[2] = (int64_t)st.st_mtim.tv_sec;
		id[3] = (int64_t)st.st_mtim.tv_nsec;
	}
	sha256_field_str(h, "path", path);
	sha256_field(h, "id", id, sizeof(id));
}

static const char *dir_suffix;

static int suffix_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name), k = strlen(dir_suffix);

	return n > k && strcmp(d->d_name + n - k, dir_suffix) == 0;
}

void kf_hash_dir_ids(struct sha256 *h, const char *dir, const char *suffix)
{
	struct dirent **names;
	int n;

	kf_hash_file_id(h, dir);
	dir_suffix = suffix;
	n = scandir(dir, &names, suffix_filter, alphasort);
	for (int i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]->d_name);

		kf_hash_file_id(h, p);
		free(p);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

bool kf_read_lines(const char *path, const char *magic,
		   void (*fn)(void *arg, char *line), void *arg)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool ok;

	if (!f)
		return false;
	len = getline(&line, &cap, f);
	ok = len > 0 && line[len - 1] == '\n' &&
	     strlen(magic) == (size_t)len - 1 &&
	     strncmp(line, magic, (size_t)len - 1) == 0;
	while (ok && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		fn(arg, line);
	}
	free(line);
	fclose(f);
	return ok;
}
