/* provider.h - translator/providers/: the probe point families.
 *
 * Each family lives in its own file of this folder and describes the point shapes it
 * takes as patterns ("timer.ms(n)", "kprobe.function(s).return"): (n) is a
 * number argument, (s) a string. probes.c matches a point against every
 * pattern, then the family's resolve() checks the arguments and adds one
 * derived probe per concrete point with probe_emit().
 */
#ifndef TAPIR_PROVIDER_H
#define TAPIR_PROVIDER_H

#include "elaborate/elab-internal.h"

struct provider {
	const char *name;
	const char *const *patterns;	/* NULL-terminated */
	/* 'pattern' indexes patterns; returns probes added, -1 on error */
	int (*resolve)(struct elab *e, const struct probe_point *pp,
		       int pattern, const struct dprobe *tmpl);
	const char *unsupported;	/* a family known but not built yet */
	bool has_targets;		/* its probes have $target variables */
};

extern const struct provider pp_core, pp_timer, pp_kprobe, pp_kernel,
	pp_trace, pp_process, pp_netfilter, pp_perf, pp_perf_process, pp_procfs,
	pp_hwbkpt,
	pp_unsupported;

/* The resolve() of families known by name but not built yet: -1. */
int pp_not_yet(struct elab *e, const struct probe_point *pp, int pattern,
	       const struct dprobe *tmpl);

/* Free what process() probes read (providers/process.c). */
void process_free(struct session *s);
/* In a .mark() probe, $argN, $$name and $$provider become plain
 * expressions (in place); true when x was one of them (an error was
 * reported if it could not be done). */
bool process_mark_target(struct elab *e, struct expr *x);
/* $syscall, $argN, $return of process(...).syscall[.return] */
bool process_syscall_target(struct elab *e, struct expr *x);
bool process_is_syscall(const struct dprobe *p);
/* In a netfilter probe, $hooknum, $skb, ... become the probe's locals
 * __nf_hooknum, __nf_skb, ... (in place: x is then an unresolved E_VAR);
 * true when x was a context variable of the probe (an error was reported
 * if it could not be done). */
bool netfilter_target(struct elab *e, struct expr *x);
/* Is name one of those locals? *slot: its place in struct tp_nf_hit. */
bool netfilter_local(const char *name, int *slot);
/* A .mark() probe's $argN count (-L), else 0. */
int process_mark_nargs(const struct dprobe *p);
/* twin, a copy of a process(...).function(...).return probe, becomes
 * its .call (site: its copy of the DWARF site), placed and reading its
 * variables where the function's entry probe does (past the prologue
 * of -O0 code). */
void process_entry_twin(struct session *s, struct dprobe *twin,
			struct dwarf_site *site);

/* Add a derived probe for the concrete point pp (a copy of tmpl with its
 * own body); the caller fills in the provider details of the result. */
struct dprobe *probe_emit(struct elab *e, const struct dprobe *tmpl,
			  const struct probe_point *pp);

/* The point pp with the component 'where' taking the argument text
 * (and modc, when not NULL, taking module), arena-allocated
 * (kernel.c). */
struct probe_point *pp_concrete(struct session *s,
				const struct probe_point *pp,
				const struct pp_comp *where, const char *text,
				const struct pp_comp *modc, const char *module);

/* A .label point (its last component), concrete as full: full takes the
 * label's name, and the result is full without the label, what pp()
 * names; label_names() then names p by full for -l, pn() and pnlabel()
 * (kernel.c). */
struct probe_point *pp_label_split(struct session *s, struct probe_point *full,
				   const char *label);
void label_names(struct session *s, struct dprobe *p,
		 const struct dprobe *tmpl, const struct probe_point *full,
		 const char *label);

/* The argument of component i (0-based), or NULL. */
const struct expr *pp_arg(const struct probe_point *pp, int i);
bool pp_has(const struct probe_point *pp, const char *name);

/* Shared by the kprobe and kernel families (kprobe.c). A probe per
 * kernel function matching 'pat' (exact names need no symbol table: the
 * kernel checks them when the probe is registered). */
int kernel_functions(struct elab *e, const struct probe_point *pp,
		     const struct pp_comp *where, const char *pat,
		     const struct dprobe *tmpl, bool is_return,
		     int64_t maxactive, bool exported);
bool maxactive_ok(struct elab *e, const struct expr *max);

/* Probes on an absolute address (kprobe.c), for guru mode. */
int absolute_address(struct elab *e, const struct probe_point *pp,
		     const struct dprobe *tmpl);

/* Kernel symbols (ksyms.c): NULL-terminated sorted text symbols of the
 * target kernel, or NULL when no symbol table was found. */
const char *const *ksyms_functions(struct session *s, size_t *n,
				   const char **source);
/* 1 if the kernel exports name to modules, 0 if not, -1 if unknown. */
int ksyms_exported(struct session *s, const char *name);

#endif
