/* tapset.c - the tapset library: find, index, load on first use.
 *
 * The path is the installed library, then each -I DIR; in each root the
 * generic files and every subfolder (one per subsystem, linux/ for the
 * kernel runtime, the target architecture's own; other architectures'
 * folders are skipped). Every
 * file is parsed to learn what it defines (parsing is cheap); a file's
 * definitions join the program only when the script needs one of them.
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elab-internal.h"
#include "debuginfo/kconfig.h"
#include "parse/parse.h"

static void add_alias(struct session *s, struct tapset_index *idx,
		      const struct decl *d, struct tapset_file *f)
{
	for (const struct probe_point *n = d->names; n; n = n->next) {
		if (idx->naliases == idx->cap) {
			int cap = idx->cap ? idx->cap * 2 : 64;
			struct alias_def *v = arena_alloc(&s->arena,
							  (size_t)cap * sizeof(*v));

			if (idx->naliases)
				memcpy(v, idx->aliases,
				       (size_t)idx->naliases * sizeof(*v));
			idx->aliases = v;
			idx->cap = cap;
		}
		idx->aliases[idx->naliases].name = n;
		idx->aliases[idx->naliases].decl = d;
		idx->aliases[idx->naliases].file = f;
		idx->naliases++;
		strmap_add(&s->arena, &idx->alias_first, n->comps->name,
			   (void *)(intptr_t)idx->naliases);
	}
}

static void index_file(struct session *s, struct tapset_index *idx,
		       const char *path)
{
	struct srcfile *src = session_read_file(s, path, true);
	struct tapset_file *f;
	int errors = s->errors;
	struct script *sc;

	if (!src)
		return;
	sc = parse_source(s, src);
	/* As stap: a library file that does not parse is left out with a
	 * warning, unless -W makes that an error. */
	if (s->errors > errors && !s->warnings_fatal) {
		s->errors = errors;
		if (!s->no_warnings) {
			fprintf(s->err, "%s: warning: tapset has errors, and "
				"will be skipped\n", path);
			s->warnings++;
		}
		return;
	}
	f = ANEW(&s->arena, struct tapset_file);
	f->src = src;
	f->script = sc;
	f->next = idx->files;
	idx->files = f;
	for (const struct decl *d = f->script->decls; d; d = d->next) {
		switch (d->kind) {
		case D_FUNCTION:
			strmap_add(&s->arena, &idx->functions, d->name, f);
			break;
		case D_GLOBAL:
			strmap_add(&s->arena, &idx->globals, d->name, f);
			break;
		case D_ALIAS:
			add_alias(s, idx, d, f);
			break;
		default:
			break;
		}
	}
}

static int stp_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && strcmp(d->d_name + n - 4, ".stp") == 0;
}

static void index_dir(struct session *s, struct tapset_index *idx,
		      const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, stp_filter, alphasort);

	for (int i = 0; i < n; i++) {
		index_file(s, idx, arena_printf(&s->arena, "%s/%s", dir,
						names[i]->d_name));
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* Folders named after an architecture hold that architecture's files. */
static bool foreign_arch(const char *name, const char *arch)
{
	static const char *const arches[] = {
		"x86_64", "i386", "arm64", "arm", "powerpc", "s390", "mips",
		"riscv", "ia64", "sparc", "loongarch",
	};

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (strcmp(name, arches[i]) == 0)
			return strcmp(name, arch) != 0;
	return false;
}

static int subdir_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' &&
	       (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

/* A root's files, then its subfolders (a subsystem each: syscall/, net/,
 * ...; linux/ for the kernel runtime; the target architecture's folder),
 * depth first in name order. Other architectures' folders are skipped. */
static void index_tree(struct session *s, struct tapset_index *idx,
		       const char *dir, int depth)
{
	struct dirent **names;
	int n;

	index_dir(s, idx, dir);
	if (depth >= 4)
		return;
	n = scandir(dir, &names, subdir_filter, alphasort);
	for (int i = 0; i < n; i++) {
		const char *sub = names[i]->d_name;
		const char *path = arena_printf(&s->arena, "%s/%s", dir, sub);
		struct stat st;

		if (!foreign_arch(sub, kconfig_get(s)->arch) &&
		    stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			index_tree(s, idx, path, depth + 1);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

struct tapset_index *tapset_index_build(struct session *s)
{
	struct tapset_index *idx = ANEW(&s->arena, struct tapset_index);

	index_tree(s, idx, session_tapset_dir(s), 0);
	for (int i = 0; i < s->ninclude; i++)
		index_tree(s, idx, s->include_dirs[i], 0);
	return idx;
}

void check_library(struct session *s)
{
	tapset_index_build(s);
}

/* Definitions of a script (the user's, or a tapset's when f is set). */
void elab_add_script(struct elab *e, struct script *sc, struct tapset_file *f)
{
	struct session *s = e->s;

	for (const struct decl *d = sc->decls; d; d = d->next) {
		if (d->kind == D_GLOBAL) {
			struct symbol *g = strmap_get(&e->globals, d->name);

			if (g && (g->file == sc->file || !f)) {
				if (g->file == sc->file) {
					elab_error(e, &d->loc, "duplicate "
						   "global variable '%s'",
						   d->name);
					elab_note(e, &g->loc, "'%s' was "
						  "declared here", d->name);
				}
				continue;
			}
			g = ANEW(&s->arena, struct symbol);
			g->name = d->name;
			g->global = true;
			g->decl = d;
			g->file = sc->file;
			g->loc = d->loc;
			g->arity = -1;
			g->size = d->size;
			g->wrap = d->wrap;
			if (d->init) {
				g->type = d->init->kind == E_STR ? TYPE_STRING :
					  TYPE_LONG;
				g->type_loc = d->init->loc;
				g->arity = 0;
				g->writes++;
				g->assigned = true;
			}
			g->next = e->prog->globals;
			e->prog->globals = g;
			strmap_add(&s->arena, &e->globals, g->name, g);
		} else if (d->kind == D_ALIAS && !f) {
			/* the library's aliases were indexed with their files */
			add_alias(s, e->idx, d, NULL);
		} else if (d->kind == D_FUNCTION) {
			struct function *fn = ANEW(&s->arena, struct function);

			fn->name = d->name;
			fn->decl = d;
			fn->tapset = f != NULL;
			fn->type = d->type;
			if (d->type != TYPE_UNKNOWN)
				fn->type_loc = d->loc;
			for (const struct param *p = d->params; p; p = p->next)
				fn->nparams++;
			fn->next = e->prog->functions;
			e->prog->functions = fn;
			strmap_add(&s->arena, &e->functions, fn->name, fn);
		}
	}
}

void tapset_load(struct elab *e, struct tapset_file *f)
{
	if (f->loaded)
		return;
	f->loaded = true;
	if (e->s->verbose > 1)
		fprintf(e->s->err, "tapir: loading tapset %s\n", f->src->name);
	elab_add_script(e, f->script, f);
}

/* A loaded file's own probes (not its aliases) join the program, as in
 * stap: json.stp's procfs file metadata.json comes with its functions.
 * Returns whether any was added. */
bool tapset_add_probes(struct elab *e)
{
	bool any = false;

	for (struct tapset_file *f = e->idx->files; f; f = f->next) {
		if (!f->loaded || f->probes_added)
			continue;
		f->probes_added = true;
		for (const struct decl *d = f->script->decls; d; d = d->next)
			if (d->kind == D_PROBE) {
				probes_expand(e, d);
				any = true;
			}
	}
	return any;
}
