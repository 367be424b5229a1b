/* pp_kernel.c - kernel.function, module().function, kernel.statement.
 *
 * These are the DWARF probes. Until the debuginfo reader lands, a point
 * that names only a function resolves through the kernel's symbol table
 * (entry and return probes, as SystemTap's symbol-table fallback does);
 * source files, lines, inline instances and statements need debuginfo
 * and say so.
 */
#include <string.h>

#include "kconfig.h"
#include "provider.h"

static const char *const patterns[] = {
	"kernel.function(s)",				/* 0 */
	"kernel.function(s).call",
	"kernel.function(s).exported",
	"kernel.function(s).return",
	"kernel.function(s).return.maxactive(n)",
	"kernel.function(s).call.return",		/* 5 */
	"kernel.function(s).inline",
	"kernel.statement(s)",				/* 7 */
	"kernel.statement(n).absolute",
	"module(s).function(s)",			/* 9 */
	"module(s).function(s).call",
	"module(s).function(s).exported",
	"module(s).function(s).return",
	"module(s).function(s).return.maxactive(n)",
	"module(s).function(s).inline",			/* 14 */
	"module(s).statement(s)",
	NULL
};


static int needs_debuginfo(struct elab *e, const struct probe_point *pp,
			   const char *what)
{
	elab_error(e, &pp->loc, "probe point '%s' needs %s debuginfo, which "
		   "Tapir cannot read yet (it will come from the "
		   "linux-image-%s-dbg package)", pp_text(e->s, pp), what,
		   kconfig_get(e->s)->release);
	return -1;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	bool module = pattern >= 9;
	const struct pp_comp *fc = module ? pp->comps->next : pp->comps->next;
	const char *pat = fc->arg->str;
	const struct expr *max = pattern == 4 ? pp_arg(pp, 3) :
				 pattern == 13 ? pp_arg(pp, 4) : NULL;
	struct dprobe *p;

	if (pattern == 8)
		return absolute_address(e, pp, tmpl);
	if (!maxactive_ok(e, max))
		return -1;
	if (pattern == 7 || pattern == 15 || pattern == 6 || pattern == 14 ||
	    strchr(pat, '@'))
		return needs_debuginfo(e, pp, module ? "module" : "kernel");
	if (module) {
		const char *mod = pp_arg(pp, 0)->str;

		if (strpbrk(pat, "*?[") || strpbrk(mod, "*?["))
			return needs_debuginfo(e, pp, "module");
		p = probe_emit(e, tmpl, pp);
		p->module = mod;
		p->symbol = pat;
		p->is_return = pp_has(pp, "return");
		p->maxactive = max ? max->num : -1;
		return 1;
	}
	return kernel_functions(e, pp, fc, pat, tmpl, pp_has(pp, "return"),
				max ? max->num : -1, pp_has(pp, "exported"));
}

const struct provider pp_kernel = {
	.name = "kernel",
	.patterns = patterns,
	.resolve = resolve,
	.has_targets = true,
};
