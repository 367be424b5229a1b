/* trace.c - kernel.trace("NAME") and kernel.trace("SYSTEM:NAME").
 *
 * A point names tracepoints by a glob of their names, optionally after
 * a glob of their systems ("sched:*", "*:sched_switch"). They resolve
 * through the kernel's debuginfo (dwarf-trace.c: each tracepoint's
 * iterator gives its arguments), or without it through the kernel's BTF
 * (btf.c: the same iterators' prototypes), the tracepoints of modules
 * through their debuginfo, or with the kernel's BTF through theirs (the
 * .ko's .BTF), one probe per tracepoint, named as
 * SystemTap names them: kernel.trace("sched:sched_switch"). The probe
 * is no kprobe: its handler, with the tracepoint's prototype, is
 * registered on the tracepoint found by name when the session starts
 * (runtime/tracepoint.c), and its $ARGS are what the handler gets.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo/btf-api.h"
#include "debuginfo/dwarf-api.h"
#include "provider.h"
#include "xalloc.h"

static const char *const patterns[] = {
	"kernel.trace(s)",
	NULL
};

static bool wild(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* The tracepoints named like glob (and in a system like sys, maybe
 * others: the caller filters): the kernel's from its debuginfo,
 * then those of the modules whose debuginfo is there; else the kernel's
 * from its BTF, then those of the installed modules from theirs (each
 * module's sorted by name). */
static int tracepoints(struct session *s, const char *sys, const char *glob,
		       struct dwarf_site ***out, const char **why)
{
	const char *const *mods, *const *paths = NULL;
	/* BTF first, even beside the debuginfo: the same prototypes and
	 * types, without opening (and relocating) the DWARF of every
	 * module that defines tracepoints */
	bool dwarf = !btf_tracepoints_available(s) &&
		    dwarf_available(s, NULL), kernel_ok;
	size_t nmods = dwarf ? dwarf_tracepoint_modules(s, &mods) :
		       dwarf_btf_tracepoint_modules(s, &mods, &paths);
	struct dwarf_site **v, **all;
	int n, total;

	if (dwarf)
		n = dwarf_tracepoints(s, NULL, glob, out, why);
	else
		n = btf_tracepoints(s, glob, out, why);
	if (!nmods)
		return n;
	kernel_ok = n >= 0;
	if (!kernel_ok)		/* neither: the modules' alone */
		n = 0;
	total = n;
	all = xcalloc((size_t)n + 1, sizeof(*all));
	if (n)
		memcpy(all, *out, (size_t)n * sizeof(*all));
	for (size_t i = 0; i < nmods; i++) {
		const char *mwhy;
		int m;

		if (dwarf ? !dwarf_module_may_trace(s, mods[i], sys, glob) :
			    !dwarf_btf_module_may_trace(s, i, glob))
			continue;
		m = dwarf ? dwarf_tracepoints(s, mods[i], glob, &v, &mwhy) :
			btf_module_tracepoints(s, mods[i], paths[i], glob, &v,
					       &mwhy);
		if (m <= 0)
			continue;
		all = xrealloc(all, (size_t)(total + m + 1) * sizeof(*all));
		memcpy(all + total, v, (size_t)m * sizeof(*all));
		total += m;
	}
	if (!total && !kernel_ok) {
		free(all);
		return -1;	/* *why: the kernel's */
	}
	*out = arena_alloc(&s->arena, (size_t)(total + 1) * sizeof(*all));
	memcpy(*out, all, (size_t)total * sizeof(*all));
	free(all);
	return total;
}

/* Up to five tracepoints named like name, for the error. */
static const char *similar(struct elab *e, const char *name)
{
	struct dwarf_site **all;
	const char *why, *sim, **names;
	int n = tracepoints(e->s, "*", "*", &all, &why);

	if (n <= 0)
		return NULL;
	names = xcalloc((size_t)n, sizeof(*names));
	for (int i = 0; i < n; i++)
		names[i] = all[i]->tracepoint;
	sim = similar_names(e->s, name, names, n);
	free(names);
	return sim;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	struct session *s = e->s;
	const struct pp_comp *tc = pp->comps->next;
	const char *arg = tc->arg->str, *colon = strchr(arg, ':');
	const char *sys = colon ? arena_strndup(&s->arena, arg,
						(size_t)(colon - arg)) : "*";
	const char *name = colon ? colon + 1 : arg, *why, *sim;
	struct dwarf_site **sites;
	int n, made = 0;

	(void)pattern;
	if (!*name || !*sys) {
		elab_error(e, &tc->arg->loc, "a tracepoint is named NAME or "
			   "SYSTEM:NAME");
		return -1;
	}
	n = tracepoints(s, sys, name, &sites, &why);
	if (n < 0) {
		elab_error(e, &tc->arg->loc, "%s", why);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		const char *text;
		struct dprobe *p;

		if (fnmatch(sys, site->tp_system, 0) != 0)
			continue;
		text = arena_printf(&s->arena, "%s:%s", site->tp_system,
				    site->tracepoint);
		p = probe_emit(e, tmpl, pp_concrete(s, pp, tc, text, NULL,
						    NULL));
		p->dwarf = site;
		p->tracepoint = site->tracepoint;
		made++;
	}
	if (made)
		return made;
	if (!wild(name) && (sim = similar(e, name)))
		elab_error(e, &tc->arg->loc, "no match for tracepoint '%s' "
			   "(similar tracepoints: %s)", arg, sim);
	else
		elab_error(e, &tc->arg->loc, "no match for tracepoint '%s'",
			   arg);
	return -1;
}

const struct provider pp_trace = {
	.name = "kernel.trace",
	.patterns = patterns,
	.resolve = resolve,
	.has_targets = true,
};
