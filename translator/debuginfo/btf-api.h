/* btf-api.h - the kernel's BTF (btf.c, through libbpf): tracepoints and
 * the types of their arguments when the kernel's debuginfo is not
 * installed. Their sites are struct dwarf_site with btf set (no unit,
 * no file or line), whose struct trace_arg carry BTF type ids; the
 * accesses made are the struct dwarf_access of dwarf-api.h.
 */
#ifndef TAPIR_BTF_API_H
#define TAPIR_BTF_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dwarf-api.h"

struct session;
struct loc;
struct chain;

/* The kernel's BTF was found (see btf.c for where it is looked for). */
bool btf_available(struct session *s);
/* The file the kernel's BTF came from, or NULL. */
const char *btf_kernel_path(struct session *s);
/* The file the kernel's BTF would first be read from, or NULL; not
 * parsed (a cache key). */
const char *btf_kernel_file(struct session *s);
/* The kernel's tracepoints can come from BTF: btf_available(), or the
 * tracepoints cache has them (then no BTF is parsed to list them). */
bool btf_tracepoints_available(struct session *s);
void btf_free(struct session *s);

/* Tracepoints whose name matches glob: one site each, sorted by name,
 * or -1 with *why when there is no BTF either. */
int btf_tracepoints(struct session *s, const char *glob,
		    struct dwarf_site ***out, const char **why);

/* The same for the tracepoints of a module from its BTF (the .BTF
 * section of the .ko at path, split over the kernel's): 0 or more
 * sites, -1 with *why when either BTF is not there. */
int btf_module_tracepoints(struct session *s, const char *module,
			   const char *path, const char *glob,
			   struct dwarf_site ***out, const char **why);

/* A kernel function's parameters from its BTF prototype, for a probe
 * on its entry (or return: is_return) placed by symbol without the
 * debuginfo: each in its register (the x86-64 calling convention: the
 * first six integer or pointer arguments), a site with btf set and no
 * tracepoint; NULL when the BTF has no such function. A parameter the
 * registers do not hold (a struct passed by value, the seventh) has no
 * ctype. */
struct dwarf_site *btf_function_site(struct session *s, const char *name,
				     bool is_return);

/* The same for a function of a module, from the BTF of its installed
 * .ko (split over the kernel's); NULL without either. */
struct dwarf_site *btf_module_function_site(struct session *s,
					    const char *module,
					    const char *name, bool is_return);

/* -L: " $prev:struct task_struct* ..." */
void btf_list_vars(struct session *s, FILE *out,
		   const struct dwarf_site *site);

/* Who asks, and where its errors go (none in a trial). */
struct btf_ref {
	struct session *s;
	void (*err)(void *arg, const struct loc *l, const char *msg);
	void *arg;
	bool cast_base;		/* the type is a @cast's: '[i]' first steps by
				 * its size (&@cast(0, "T")[1] is sizeof T) */
	const struct dwarf_site *site;	/* whose BTF (a module's), or NULL:
					 * the kernel's */
};

/* The access a (base set by the caller: an OBJECT of BTF type 'type')
 * through chain, or NULL after an error. */
struct dwarf_access *btf_access(struct btf_ref *r, struct dwarf_access *a,
				uint32_t type, const struct chain *chain,
				bool addr, const struct loc *l);
/* A type by name ("struct file", "task_struct", "pid_t"). */
bool btf_find_type(struct session *s, const char *name, uint32_t *id);
/* The access a (base set by the caller: the slots of site's argument t)
 * through chain, as btf_access(); without a chain, from what t knows
 * when it knows it, which needs no BTF. */
struct dwarf_access *btf_arg_access(struct btf_ref *r, struct dwarf_access *a,
				    const struct trace_arg *t,
				    const struct chain *chain, bool addr,
				    const struct loc *l);
/* Whether site's argument t is a structure or union (after typedefs and
 * qualifiers). */
bool btf_arg_is_aggregate(struct session *s, const struct dwarf_site *site,
			  const struct trace_arg *t);

#endif
