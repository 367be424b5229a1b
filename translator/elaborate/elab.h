/* elab.h - translator/elaborate/, pass 2: a parsed script plus the tapset library become one
 * resolved, typed program.
 *
 *   tapset.c    the tapset path, an index of what each library file
 *               defines, loading files on first use
 *   probes.c    probe points: aliases, wildcards, providers (providers/)
 *   resolve.c   names: locals, globals, functions, overloads; checks
 *   types.c     type inference to a fixpoint; print-format checks
 *   optimize.c  elision of what is never used, with warnings
 *   dump.c      -p2, -l, -L and the --dump-* listings
 */
#ifndef TAPIR_ELAB_H
#define TAPIR_ELAB_H

#include "parse/ast.h"
#include "session.h"

#define MAX_ARITY 9

struct symbol {
	const char *name;
	enum vtype type;		/* scalar, or an array's values */
	struct loc type_loc;		/* where the type was first inferred */
	int arity;			/* 0 scalar, N keys, -1 not yet known */
	enum vtype key[MAX_ARITY];
	struct loc key_loc[MAX_ARITY];
	struct loc loc;			/* declaration, or first use */
	bool global, param, mismatch_reported;
	const struct decl *decl;	/* D_GLOBAL, or NULL */
	const struct srcfile *file;	/* for private */
	int64_t size;			/* global a[N] */
	bool wrap;
	unsigned reads, writes;
	unsigned dead_reads, dead_writes;	/* of those, in if (0) code */
	unsigned pragma_reads;		/* of the reads, embedded C's
					 * pragma:read (which keeps the
					 * global but, as in stap 4.8, does
					 * not stop it printing at exit) */
	/* for the never-assigned warnings: uses anywhere, if (0) code too */
	bool assigned;
	unsigned first_read;		/* 1 + the order of its first read */
	struct loc read_loc;		/* where it is first read */
	bool print_at_exit;		/* a global written but never read */
	const struct expr *hist;	/* the histogram it is used with */
	/* autocast (autocast.c): the typed value assigned to it (a struct
	 * dwarf_access), unless two assignments disagree (dwmixed) */
	const void *dwtype;
	bool dwmixed;
	struct symbol *next;
};

struct function {
	const char *name;
	const struct decl *decl;
	int nparams;
	struct symbol *params, *locals;
	enum vtype type;
	struct loc type_loc;
	bool used, resolved, tapset, mismatch_reported;
	/* embedded-C pragmas: comments in the body */
	bool pure, stable, unprivileged, guru, unmangled;
	bool uses_targets;		/* $vars of the calling probe */
	struct symbol **writes;		/* globals written directly */
	int nwrites;
	struct function **callees;
	int ncallees;
	unsigned mark;			/* graph walks */
	signed char no_effect;		/* optimize.c: 0 not known yet,
					 * 1 none, -1 some, 2 being looked at */
	const void *dwtype;		/* autocast: its returns' type */
	bool dwmixed;
	struct function *overload;	/* lower priority, same name and arity */
	struct function *next;
};

struct provider;
struct dwarf_site;
struct umark;

/* One concrete probe point with its body: what the emitter will see. */
/* The task finder's events (process.begin, ...). */
enum proc_event {
	PROC_NONE,
	PROC_BEGIN,
	PROC_END,
	PROC_THREAD_BEGIN,
	PROC_THREAD_END,
	PROC_SYSCALL,			/* .syscall */
	PROC_SYSCALL_RETURN,		/* .syscall.return */
};

/* An error found resolving a target access of a probe body (a $var the
 * site lacks, a bad member, @cast type), held as stap 4.8 holds it: it
 * is an error only if the node is still in the body once the stores to
 * locals no one reads are gone. */
struct deferred_error {
	const struct expr *node;
	struct loc loc;
	const char *msg;
	struct deferred_error *next;
};

struct dprobe {
	bool reads_sregs;			/* reaches a reader of the
						 * syscall registers (optimize.c) */
	const struct provider *prov;
	const struct probe_point *point;	/* concrete, no wildcards */
	const char *name;			/* its canonical text */
	const struct probe_point *user;		/* as written in the script */
	const char *pn;				/* pn(): the alias matched, with
						 * its suffix; NULL: user's text */
	const char *derived;			/* -p2: the aliases it came
						 * through, innermost first
						 * ("a = p1, p2 <- b = a"), or
						 * NULL */
	const char *via;			/* -l: the alias a wildcard suffix
						 * of the script's alias reached
						 * by its whole name
						 * (kprocess.exec.* reaches
						 * syscall.execve.return) */
	const struct probe_point *written;	/* the point as last written
						 * (alias or script): -p2 adds
						 * its '?' or '!' to the name */
	const struct decl *decl;		/* the script's probe */
	struct stmt *body;			/* cloned: prologue, body, epilogue */
	struct expr *cond;			/* probe point condition */
	struct symbol *locals;
	struct deferred_error *deferred;	/* $var errors, said only if
						 * their node outlives the
						 * dead stores (optimize.c) */
	/* provider details */
	bool is_return;			/* $return and @entry allowed */
	bool has_targets;		/* $vars: the DWARF probes */
	int64_t priority;		/* begin(N), end(N), error(N) */
	int64_t interval, randomize;	/* timers, in their own unit */
	const char *unit;
	const char *symbol, *module;	/* kprobes and DWARF probes */
	int64_t maxactive;
	uint64_t address;
	const struct dwarf_site *dwarf;		/* DWARF probes (dwarf-api.h) */
	/* process(...) probes (providers/process.c) */
	const char *process;			/* the program's path, or NULL */
	const char *process_exe;		/* .library(): the program whose
						 * processes it fires in */
	int64_t pid;				/* process(PID), else 0 */
	enum proc_event process_event;		/* begin/end/thread..., or
						 * PROC_NONE: a uprobe */
	uint64_t uprobe_vaddr;			/* uprobes: link-time address, */
	uint64_t uprobe_offset;			/* its file offset, */
	uint64_t uprobe_pc;			/* and stap's -p2 pc= offset */
	bool uprobe_pie;			/* in an ET_DYN file: -p2 says
						 * pc=.dynamic+ */
	const struct umark *mark;		/* .mark(): its SDT note */
	bool uprobe_resolved;			/* -p2 derives it from its own
						 * point, as a DWARF probe (a
						 * symbol's, a PLT stub's) */
	const char *tracepoint;			/* kernel.trace: its name */
	/* netfilter probes (providers/netfilter.c) */
	bool netfilter;
	int nf_pf, nf_hook;			/* NFPROTO_*, its NF_*_ hook */
	int64_t nf_priority;
	/* perf probes (providers/perf.c) */
	bool perf;
	bool perf_freq;				/* perf_period is in Hz */
	int64_t perf_type, perf_config, perf_period;
	/* procfs("path").read/.write (providers/procfs.c) */
	const char *procfs;			/* the path, or NULL */
	bool procfs_write;
	int64_t procfs_umask;			/* .umask(N), else -1 */
	int64_t procfs_maxsize;			/* .maxsize(N), else 0 */
	/* kernel.data(...) watchpoints (providers/hwbkpt.c) */
	bool hwbkpt;
	bool hw_rw;				/* .rw, else .write */
	uint64_t hw_address;			/* when hw_symbol is NULL */
	const char *hw_symbol;
	unsigned int hw_len;			/* .length(N), else 1 */
	const char *label;			/* .label("NAME") probes: NAME
						 * (listed_as and pn() have
						 * it, name not) */
	const char *listed_as;			/* -l/-L's name, when not
						 * name (stap lists a
						 * kernel.data() point without
						 * its default .length(1)) */
	struct dprobe *next;
};

struct program {
	struct script *user;
	struct symbol *globals;
	struct function *functions;
	struct dprobe *probes;
	int nprobes;
	struct tapset_index *tapsets;
	/* the first `$value =` and `$value .=` of the procfs probes: as in
	 * SystemTap, where each is one function for the whole program,
	 * their run-time errors name these */
	const struct loc *procfs_set, *procfs_append;
};

/* Pass 2. Returns NULL when errors were reported. */
struct program *elaborate(struct session *s, struct script *user);
/* Pass 1 under -W: parse the library (and -I folders) as stap does, so
 * that a tapset with errors is an error, not a skipped file. */
void check_library(struct session *s);

/* Listings: -p2, -l, -L, --dump-*. */
void dump_program(FILE *out, const struct program *prog);
int list_probes(struct session *s, const char *pattern, bool vars);
int dump_functions(struct session *s, FILE *out);
int dump_probe_aliases(struct session *s, FILE *out);
/* " = POINT, POINT" (" += " for an epilogue alias): an alias's points as
 * -p2 and --dump-probe-aliases print them after its name */
void print_alias_points(FILE *out, const struct decl *d);
int dump_probe_types(struct session *s, FILE *out);

#endif
