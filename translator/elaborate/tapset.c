/* tapset.c - the tapset library: find, index, load on first use.
 *
 * The path is the installed library, then each -I DIR; in each root the
 * generic files and every subfolder (one per subsystem, linux/ for the
 * kernel runtime, the target architecture's own; other architectures'
 * folders are skipped). Every file is indexed by what it defines; a
 * file's definitions join the program only when the script needs one of
 * them.
 *
 * Parsing the whole library (50,000 lines) was most of a small script's
 * pass 2, so the index is kept in the cache, CACHE/tapsets/index-KEY.list:
 * each file's identity (inode, size, mtime) and the names it defines
 * (functions, globals, the first components of its aliases). KEY hashes
 * what parsing a file can depend on besides the file: tapir itself, the
 * target kernel (release, arch, .config: the preprocessor's conditions),
 * the library macros (.stpm), -g and -w/-W (a file that mentions the
 * script's arguments is parsed every time). A
 * file the cache names as it is now is parsed only when a name it
 * defines is needed: a function or global of it is called for, a probe
 * point has the first component of one of its aliases (a wildcard there
 * parses all); listings of the whole library parse all. A file that is
 * new or changed is parsed at once, and the cache written anew; one whose
 * parsing said anything (a warning, an error: skipped) is parsed every
 * time, so the same is said. Aliases stay in the order of the library's
 * files whatever order their files were parsed in.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elab-internal.h"
#include "build/kfeature.h"
#include "build/sha256.h"
#include "debuginfo/kconfig.h"
#include "parse/parse.h"
#include "xalloc.h"

#define INDEX_MAGIC "tapir-tapsets 1"

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

static const char *file_id(struct session *s, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return NULL;
	return arena_printf(&s->arena, "%llu.%lld.%lld.%ld",
			    (unsigned long long)st.st_ino,
			    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			    (long)st.st_mtim.tv_nsec);
}

static void add_name(struct session *s, struct tapset_file *f, char kind,
		     const char *name)
{
	size_t len = strlen(name);
	char *n = arena_alloc(&s->arena, len + 2);

	if (f->nnames == f->capnames) {
		int cap = f->capnames ? f->capnames * 2 : 8;
		const char **v = arena_alloc(&s->arena,
					     (size_t)cap * sizeof(*v));

		if (f->nnames)
			memcpy(v, f->names, (size_t)f->nnames * sizeof(*v));
		f->names = v;
		f->capnames = cap;
	}
	n[0] = kind;
	memcpy(n + 1, name, len + 1);
	f->names[f->nnames++] = n;
}

static bool mentions_arguments(const char *text)
{
	for (const char *p = text; (p = strpbrk(p, "$@")); p++)
		if ((p[1] >= '0' && p[1] <= '9') || p[1] == '#')
			return true;
	return false;
}

/* Parse f; false (with a warning) when it has errors: left out. */
static bool parse_file(struct session *s, struct tapset_file *f)
{
	struct srcfile *src = session_read_file(s, f->path, true);
	int errors = s->errors, warnings = s->warnings;
	struct script *sc;

	if (!src)
		return false;
	sc = parse_source(s, src);
	/* what it said, or what the script's arguments make of it
	 * ($1, @2, $#: maybe in a comment), is not in the cache */
	if (s->warnings > warnings || mentions_arguments(src->text))
		f->eager = true;
	/* As stap: a library file that does not parse is left out with a
	 * warning, unless -W makes that an error. */
	if (s->errors > errors && !s->warnings_fatal) {
		s->errors = errors;
		f->eager = true;
		if (!s->no_warnings) {
			fprintf(s->err, "%s: warning: tapset has errors, and "
				"will be skipped\n", f->path);
			s->warnings++;
		}
		return false;
	}
	if (s->errors > errors)
		f->eager = true;
	f->src = src;
	f->script = sc;
	return true;
}

/* f in the library's order (what the cache keeps), and when listed
 * among the files that can join the program (not one skipped). */
static void add_file(struct session *s, struct tapset_index *idx,
		     struct tapset_file *f, bool listed)
{
	struct tapset_file **v = arena_alloc(&s->arena,
					     (size_t)(idx->nfiles + 1) *
					     sizeof(*v));

	if (idx->nfiles)
		memcpy(v, idx->order, (size_t)idx->nfiles * sizeof(*v));
	v[idx->nfiles++] = f;
	idx->order = v;
	if (listed) {
		f->next = idx->files;
		idx->files = f;
	}
}

/* A file's functions and globals into the index, and (not parsed) the
 * first components of its aliases. */
static void index_names(struct session *s, struct tapset_index *idx,
			struct tapset_file *f)
{
	for (int i = 0; i < f->nnames; i++) {
		const char *n = f->names[i] + 1;

		switch (f->names[i][0]) {
		case 'F':
			strmap_add(&s->arena, &idx->functions, n, f);
			break;
		case 'G':
			strmap_add(&s->arena, &idx->globals, n, f);
			break;
		case 'A':
			if (!f->script)
				strmap_add(&s->arena, &idx->lazy_first, n, f);
			break;
		}
	}
}

static void index_file(struct session *s, struct tapset_index *idx,
		       const char *path)
{
	const struct tapset_file *cached = strmap_get(&idx->cached, path);
	struct tapset_file *f = ANEW(&s->arena, struct tapset_file);
	bool same;

	f->path = path;
	f->id = file_id(s, path);
	same = cached && f->id && strcmp(cached->id, f->id) == 0;
	if (same && !cached->eager) {
		f->names = cached->names;
		f->nnames = f->capnames = cached->nnames;
		add_file(s, idx, f, true);
		index_names(s, idx, f);
		return;
	}
	if (!same)
		idx->dirty = true;
	if (!parse_file(s, f)) {
		if (f->eager && f->id)	/* kept: skipped again, said again */
			add_file(s, idx, f, false);
		return;
	}
	add_file(s, idx, f, true);
	for (const struct decl *d = f->script->decls; d; d = d->next) {
		switch (d->kind) {
		case D_FUNCTION:
			add_name(s, f, 'F', d->name);
			break;
		case D_GLOBAL:
			add_name(s, f, 'G', d->name);
			break;
		case D_ALIAS:
			for (const struct probe_point *n = d->names; n;
			     n = n->next)
				add_name(s, f, 'A', n->comps->name);
			add_alias(s, idx, d, f);
			break;
		default:
			break;
		}
	}
	index_names(s, idx, f);
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

/* What parsing a library file can depend on besides the file itself. */
static void hash_setting(struct sha256 *h, const char *tag, const char *v)
{
	sha256_field_str(h, tag, v ? v : "");
}

/* The library macros (preproc.c's load_library_root()). */
static void hash_macros(struct session *s, struct sha256 *h, const char *root)
{
	const char *arch = kconfig_get(s)->arch;

	kf_hash_dir_ids(h, root, ".stpm");
	kf_hash_dir_ids(h, arena_printf(&s->arena, "%s/%s", root, arch),
			".stpm");
	kf_hash_dir_ids(h, arena_printf(&s->arena, "%s/linux", root), ".stpm");
	kf_hash_dir_ids(h, arena_printf(&s->arena, "%s/linux/%s", root, arch),
			".stpm");
}

/* The cache's file, named by the hash of what picks a library and how
 * it reads (the paths, the target kernel, the flags), one a setting so
 * that they do not thrash; key: the hash of what changes with a build of
 * tapir or an edit of the macros, kept inside (a file of another key is
 * written anew). Script arguments are in neither: a file that mentions
 * them is parsed every time (parse_file()). */
static char *cache_path(struct session *s, char key[SHA256_HEX_SIZE])
{
	struct kconfig *k = kconfig_get(s);
	char hex[SHA256_HEX_SIZE], exe[4096], *dir, *p;
	struct sha256 h, kh;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;	/* tapir itself unknown: no cache */
	exe[n] = '\0';
	sha256_init(&h);
	sha256_init(&kh);
	hash_setting(&h, "format", INDEX_MAGIC);
	kf_hash_file_id(&kh, exe);
	hash_setting(&h, "release", k->release);
	hash_setting(&h, "version", k->version);
	hash_setting(&h, "arch", k->arch);
	kf_hash_file_id(&h, k->config_path ? k->config_path : "");
	hash_setting(&h, "flags", arena_printf(&s->arena, "%d %d %d",
					       s->guru, s->no_warnings,
					       s->warnings_fatal));
	hash_setting(&h, "root", session_tapset_dir(s));
	hash_macros(s, &kh, session_tapset_dir(s));
	for (int i = 0; i < s->ninclude; i++) {
		hash_setting(&h, "root", s->include_dirs[i]);
		hash_macros(s, &kh, s->include_dirs[i]);
	}
	sha256_final_hex(&h, hex);
	sha256_final_hex(&kh, key);
	dir = tapir_cache_dir();
	p = xasprintf("%s/tapsets/index-%.32s.list", dir, hex);
	free(dir);
	return p;
}

/* The cache: a line "K<tab>KEY", then a line "P<tab>PATH<tab>ID<tab>
 * lazy|eager" a file, each followed by a line a name it defines (its kind
 * letter first). */
struct reading {
	struct session *s;
	struct tapset_index *idx;
	const char *key;
	bool valid;			/* the file's key is key */
	struct tapset_file *cur;	/* the file being read */
};

static void read_line(void *arg, char *line)
{
	struct reading *r = arg;
	struct session *s = r->s;
	char *p2, *p3;

	if (line[0] == 'K' && line[1] == '\t') {
		r->valid = strcmp(line + 2, r->key) == 0;
	} else if (!r->valid) {
		return;
	} else if (line[0] == 'P' && line[1] == '\t' &&
	    (p2 = strchr(line + 2, '\t')) && (p3 = strchr(p2 + 1, '\t'))) {
		*p2++ = '\0';
		*p3++ = '\0';
		r->cur = ANEW(&s->arena, struct tapset_file);
		r->cur->path = arena_strdup(&s->arena, line + 2);
		r->cur->id = arena_strdup(&s->arena, p2);
		r->cur->eager = strcmp(p3, "lazy") != 0;
		strmap_add(&s->arena, &r->idx->cached, r->cur->path, r->cur);
	} else if (r->cur && line[0] && strchr("FGA", line[0])) {
		add_name(s, r->cur, line[0], line + 1);
	}
}

static void write_cache(struct session *s, struct tapset_index *idx,
			const char *path, const char *key)
{
	char *buf = NULL, *dir, *slash;
	size_t len = 0;
	FILE *m;

	if (!path || !(m = open_memstream(&buf, &len)))
		return;
	fprintf(m, INDEX_MAGIC "\nK\t%s\n", key);
	for (int i = 0; i < idx->nfiles; i++) {
		const struct tapset_file *f = idx->order[i];

		if (!f->id || strpbrk(f->path, "\t\n"))
			continue;	/* cannot be written: parsed again */
		fprintf(m, "P\t%s\t%s\t%s\n", f->path, f->id,
			f->eager ? "eager" : "lazy");
		for (int j = 0; j < f->nnames; j++)
			fprintf(m, "%s\n", f->names[j]);
	}
	fclose(m);
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	/* a cache that cannot be written only costs time */
	if ((kf_mkdirs(dir) != 0 || kf_write_file(path, buf, len) != 0) &&
	    s->verbose)
		fprintf(s->err, "tapir: cannot write %s: %s\n", path,
			strerror(errno));
	free(dir);
	free(buf);
}

struct tapset_index *tapset_index_build(struct session *s)
{
	struct tapset_index *idx = ANEW(&s->arena, struct tapset_index);
	char key[SHA256_HEX_SIZE] = "";
	char *cache = cache_path(s, key);
	struct reading r = { s, idx, key, false, NULL };

	kf_read_lines(cache, INDEX_MAGIC, read_line, &r);
	index_tree(s, idx, session_tapset_dir(s), 0);
	for (int i = 0; i < s->ninclude; i++)
		index_tree(s, idx, s->include_dirs[i], 0);
	if (idx->dirty || idx->cached.count != (size_t)idx->nfiles)
		write_cache(s, idx, cache, key);
	free(cache);
	return idx;
}

/* The aliases anew in the order of the library's files, then the
 * user's: as if every file had been parsed when the index was made. */
static void rebuild_aliases(struct session *s, struct tapset_index *idx)
{
	idx->aliases = NULL;
	idx->naliases = idx->cap = 0;
	memset(&idx->alias_first, 0, sizeof(idx->alias_first));
	for (int i = 0; i < idx->nfiles; i++) {
		struct tapset_file *f = idx->order[i];

		for (const struct decl *d = f->script ? f->script->decls :
		     NULL; d; d = d->next)
			if (d->kind == D_ALIAS)
				add_alias(s, idx, d, f);
	}
	for (int i = 0; i < idx->nuser; i++)
		add_alias(s, idx, idx->user[i], NULL);
}

static bool parse_later(struct session *s, struct tapset_file *f)
{
	if (f->script || f->eager)
		return false;
	if (s->verbose > 1)
		fprintf(s->err, "tapir: parsing tapset %s\n", f->path);
	if (!parse_file(s, f))
		f->eager = true;	/* changed since: left out */
	return true;
}

void tapset_need_aliases(struct session *s, struct tapset_index *idx,
			 const char *first)
{
	bool any = false;

	if (idx->complete)
		return;
	if (!first) {
		for (int i = 0; i < idx->nfiles; i++)
			any |= parse_later(s, idx->order[i]);
		idx->complete = true;
	} else {
		struct strmap_entry *it = NULL;

		while ((it = strmap_next(&idx->lazy_first, first, it)))
			any |= parse_later(s, it->value);
	}
	if (any)
		rebuild_aliases(s, idx);
}

void check_library(struct session *s)
{
	tapset_need_aliases(s, tapset_index_build(s), NULL);
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
			/* the library's aliases were indexed with their
			 * files: those of the same names come first */
			const struct decl **v = arena_alloc(&s->arena,
				(size_t)(e->idx->nuser + 1) * sizeof(*v));

			for (const struct probe_point *n = d->names; n;
			     n = n->next)
				tapset_need_aliases(s, e->idx, n->comps->name);
			if (e->idx->nuser)
				memcpy(v, e->idx->user,
				       (size_t)e->idx->nuser * sizeof(*v));
			v[e->idx->nuser++] = d;
			e->idx->user = v;
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
	if (!f->script) {
		parse_later(e->s, f);
		if (!f->script)
			return;
		for (int i = 0; i < f->nnames; i++)
			if (f->names[i][0] == 'A') {
				rebuild_aliases(e->s, e->idx);
				break;
			}
	}
	if (e->s->verbose > 1)
		fprintf(e->s->err, "tapir: loading tapset %s\n", f->path);
	elab_add_script(e, f->script, f);
}

/* A loaded file's own probes (not its aliases) join the program, as in
 * stap: json.stp's procfs file metadata.json comes with its functions.
 * Returns whether any was added. */
bool tapset_add_probes(struct elab *e)
{
	bool any = false;

	for (struct tapset_file *f = e->idx->files; f; f = f->next) {
		if (!f->loaded || !f->script || f->probes_added)
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
