/* elab-internal.h - state shared by the files of pass 2. */
#ifndef TAPIR_ELAB_INTERNAL_H
#define TAPIR_ELAB_INTERNAL_H

#include "elab.h"
#include "strmap.h"

struct tapset_file {
	const char *path;
	const struct srcfile *src;
	struct script *script;		/* NULL: not parsed yet (the index
					 * cache named what it defines) */
	const char **names;		/* what it defines, a kind letter
					 * (F, G, A: an alias's first
					 * component) and the name each */
	int nnames, capnames;
	const char *id;			/* its identity (tapset.c) */
	bool eager;			/* parsed every time (diagnostics) */
	bool loaded;			/* its definitions are in the program */
	bool probes_added;		/* and its own probes */
	struct tapset_file *next;
};

struct alias_def {
	const struct probe_point *name;	/* one name of the alias */
	const struct decl *decl;
	struct tapset_file *file;	/* NULL: the user's script */
};

struct tapset_index {
	struct tapset_file *files;
	struct strmap functions;	/* name -> struct tapset_file */
	struct strmap globals;		/* name -> struct tapset_file */
	struct alias_def *aliases;	/* the library's (in the order of its
					 * files), then the user's */
	int naliases, cap;
	struct strmap alias_first;	/* first component -> index + 1 */
	struct tapset_file **order;	/* the files in the library's order */
	int nfiles;
	struct strmap lazy_first;	/* first component -> a file not
					 * parsed yet with such an alias */
	const struct decl **user;	/* the user's aliases */
	int nuser;
	bool complete;			/* every file parsed */
	struct strmap cached;		/* path -> its file as the cache has
					 * it (tapset.c) */
	bool dirty;			/* the cache is to be written */
};

/* A call inside foreach loops: the callee must not modify the arrays. */
struct call_check {
	struct function *fn;
	const char **arrays;
	int narrays;
	struct loc loc;
};

struct elab {
	struct session *s;
	struct program *prog;
	struct tapset_index *idx;
	struct strmap functions;	/* name -> struct function, all arities */
	struct strmap globals;		/* name -> struct symbol */
	struct function **work;		/* functions to resolve */
	int nwork, capwork;

	/* the body being resolved */
	struct function *fn;
	struct dprobe *probe;
	struct symbol **locals;
	const struct srcfile *file;
	int loop_depth;
	const char **iterating;		/* arrays in active foreach loops */
	int niterating;

	struct dprobe *last_probe;	/* the tail of prog->probes */
	int nentry;			/* @entry values split so far (entry.c) */
	struct call_check *checks;	/* calls made inside foreach loops */
	int nchecks;
	unsigned mark;

	struct loc last_error;		/* where the last error was */
	bool changed;			/* type inference made progress */
	bool final;			/* last round: report what stays unknown */
	bool report_void;		/* after it: a printed call of a
					 * function that returns no value */
	int dead;			/* > 0: code dropped before types */
	int untaken;			/* > 0: in a branch if (N) never takes */
	unsigned nreads;		/* symbols read so far (first_read) */
};

/* tapset.c */
struct tapset_index *tapset_index_build(struct session *s);
void tapset_load(struct elab *e, struct tapset_file *f);
/* Parse the files not parsed yet that define aliases whose first
 * component is first (NULL: every file), so that idx->aliases has all
 * that can match a point of that first name (any point). */
void tapset_need_aliases(struct session *s, struct tapset_index *idx,
			 const char *first);
void elab_add_script(struct elab *e, struct script *sc, struct tapset_file *f);
bool tapset_add_probes(struct elab *e);

/* probes.c */
void probes_expand(struct elab *e, const struct decl *d);
void probes_expand_wild_rest(struct elab *e, const struct decl *d);
const char *pp_text(struct session *s, const struct probe_point *pp);
/* Parse the library files whose aliases a point like pp can match. */
void probes_need_aliases(struct elab *e, const struct probe_point *pp);
int probes_matching_aliases(struct elab *e, const struct probe_point *pp,
			    const struct alias_def **out, int max);

/* resolve.c */
struct function *function_lookup(struct elab *e, const char *name, int arity,
				 bool *other_arity);
struct symbol *global_lookup(struct elab *e, const char *name);
void resolve_body(struct elab *e, struct stmt *body);
void resolve_expr(struct elab *e, struct expr *x);
void elab_error(struct elab *e, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void elab_warn(struct elab *e, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void elab_note(struct elab *e, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Up to five names from 'names' close to 'word', ", "-joined, or NULL. */
const char *similar_names(struct session *s, const char *word,
			  const char *const *names, int n);
/* The same without a distance limit, word itself too when self is set
 * (SystemTap's never-assigned warnings list them so). */
const char *nearest_names(struct session *s, const char *word,
			  const char *const *names, int n, bool self);

/* types.c */
void types_infer(struct elab *e);

/* autocast.c */
void autocast_resolve(struct elab *e);

/* optimize.c */
void optimize_program(struct elab *e);
void elide_dead_stores(struct elab *e);
void report_deferred_errors(struct elab *e);
/* Sets each probe's reads_sregs, while pass 2's call graph is there. */
void note_sregs_readers(struct elab *e);
void warn_unassigned(struct elab *e);

/* entry.c: @entry(expr) that the entry handler cannot compute becomes
 * a thread-keyed global set by an entry twin of the return probe. */
bool entry_expr_pure(const struct expr *x);
void entry_split_probes(struct elab *e);

#endif
