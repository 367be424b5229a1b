/* session.c - compile context lifetime, source registry, data paths. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session.h"
#include "debuginfo/dwarf-api.h"
#include "providers/provider.h"
#include "debuginfo/kconfig.h"
#include "xalloc.h"

struct session *session_new(void)
{
	struct session *s = xcalloc(1, sizeof(*s));

	arena_init(&s->arena);
	s->err = stderr;
	s->max_errors = 50;
	s->last_pass = 5;
	return s;
}

void session_free(struct session *s)
{
	if (!s)
		return;
	free(s->include_dirs);
	free(s->usym_paths);
	dwarf_free(s);
	process_free(s);
	kconfig_free(s->kconfig);
	arena_free(&s->arena);
	free(s);
}

void session_add_include(struct session *s, const char *dir)
{
	const char **v = xrealloc(s->include_dirs,
				 sizeof(*v) * (size_t)(s->ninclude + 1));

	v[s->ninclude++] = dir;
	s->include_dirs = v;
}

void session_add_usym_path(struct session *s, const char *path)
{
	const char **v = xrealloc(s->usym_paths,
				 sizeof(*v) * (size_t)(s->nusym_paths + 1));

	v[s->nusym_paths++] = path;
	s->usym_paths = v;
}

struct srcfile *session_add_source(struct session *s, const char *name,
				   const char *text, size_t len,
				   bool privileged)
{
	struct srcfile *f = ANEW(&s->arena, struct srcfile);

	f->name = arena_strdup(&s->arena, name);
	f->text = arena_strndup(&s->arena, text, len);
	f->len = len;
	f->privileged = privileged;
	f->next = s->files;
	s->files = f;
	return f;
}

struct srcfile *session_read_file(struct session *s, const char *path,
				  bool privileged)
{
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	struct srcfile *f;
	struct stat st;
	char *buf;
	size_t len = 0, cap, n;

	if (!fp) {
		diag_plain(s, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	/* read straight into the arena; grow (by copying) only when the
	 * size was not known up front (a pipe) */
	cap = fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) ?
	      (size_t)st.st_size + 2 : 65536;
	buf = arena_alloc(&s->arena, cap);
	for (;;) {
		n = fread(buf + len, 1, cap - len - 1, fp);
		len += n;
		if (n == 0)
			break;
		if (cap - len - 1 == 0) {
			char *nb = arena_alloc(&s->arena, cap * 2);

			memcpy(nb, buf, len);
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(fp)) {
		diag_plain(s, "cannot read '%s': %s", path, strerror(errno));
		if (fp != stdin)
			fclose(fp);
		return NULL;
	}
	if (fp != stdin)
		fclose(fp);
	buf[len] = '\0';
	f = ANEW(&s->arena, struct srcfile);
	f->name = arena_strdup(&s->arena, strcmp(path, "-") == 0 ? "<input>" :
			       path);
	f->text = buf;
	f->len = len;
	f->privileged = privileged;
	f->next = s->files;
	s->files = f;
	return f;
}

/* Does a function probe of code built with (optimized) or without
 * optimization go past the function's prologue? */
bool session_past_prologue(const struct session *s, bool optimized)
{
	return s->prologue == PROLOGUE_ALWAYS ||
	       (s->prologue == PROLOGUE_AUTO && !optimized);
}

/*
 * An uninstalled tapir (run from its build tree) uses the source tree's
 * tapsets; an installed one uses $(pkgdatadir)/tapsets. TAPIR_DATADIR
 * overrides both, and SYSTEMTAP_TAPSET, which names the tapset folder
 * itself as it does for stap, overrides TAPIR_DATADIR.
 */
const char *session_tapset_dir(struct session *s)
{
	const char *env = getenv("TAPIR_DATADIR");
	const char *tapset = getenv("SYSTEMTAP_TAPSET");
	char exe[PATH_MAX];
	ssize_t n;

	if (tapset && *tapset)
		return tapset;
	if (env && *env)
		return arena_printf(&s->arena, "%s/tapsets", env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if (strncmp(exe, TAPIR_BUILDDIR "/", strlen(TAPIR_BUILDDIR) + 1) == 0)
			return TAPIR_SRCDIR "/tapsets";
	}
	return TAPIR_PKGDATADIR "/tapsets";
}
