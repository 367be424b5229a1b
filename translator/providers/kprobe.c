/* kprobe.c - kprobe.function/module/statement: symbols, no debuginfo. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "debuginfo/btf-api.h"
#include "provider.h"

static const char *const patterns[] = {
	"kprobe.function(s)",				/* 0 */
	"kprobe.function(s).call",
	"kprobe.function(s).return",
	"kprobe.function(s).return.maxactive(n)",
	"kprobe.module(s).function(s)",			/* 4 */
	"kprobe.module(s).function(s).call",
	"kprobe.module(s).function(s).return",
	"kprobe.module(s).function(s).return.maxactive(n)",
	"kprobe.statement(n).absolute",			/* 8 */
	NULL
};

/* A kernel.function probe (not a kprobe one) placed by symbol reads its
 * parameters by the BTF prototype, when the kernel has BTF. */
static void with_btf(struct session *s, struct dprobe *p)
{
	if (p->has_targets)
		p->dwarf = btf_function_site(s, p->symbol, p->is_return);
}

int kernel_functions(struct elab *e, const struct probe_point *pp,
		     const struct pp_comp *where, const char *pat,
		     const struct dprobe *tmpl, bool is_return,
		     int64_t maxactive, bool exported)
{
	struct session *s = e->s;
	const char *source;
	size_t n;
	const char *const *syms = ksyms_functions(s, &n, &source);
	bool wild = strpbrk(pat, "*?[") != NULL;
	int count = 0;

	/* (an empty name only asks whether the list exists) */
	if (exported && ksyms_exported(s, "") < 0) {
		elab_error(e, &pp->loc, "'.exported' needs the kernel's "
			   "Module.symvers, which the build directory lacks");
		return -1;
	}

	if (!syms) {
		struct dprobe *p;

		if (wild) {
			elab_error(e, &where->loc, "cannot expand '%s': no "
				   "symbol table for the target kernel (install "
				   "its linux-image-*-dbg package, or run on the "
				   "target)", pat);
			return -1;
		}
		if (exported && ksyms_exported(s, pat) != 1) {
			elab_error(e, &where->arg->loc, "kernel function '%s' "
				   "is not exported", pat);
			return -1;
		}
		p = probe_emit(e, tmpl, pp);
		p->symbol = pat;
		p->is_return = is_return;
		p->maxactive = maxactive;
		with_btf(s, p);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct dprobe *p;
		struct probe_point *cp;
		struct pp_comp *c;
		struct expr *arg;

		if (wild ? fnmatch(pat, syms[i], 0) != 0 :
			   strcmp(pat, syms[i]) != 0)
			continue;
		if (exported && ksyms_exported(s, syms[i]) != 1)
			continue;
		/* the concrete point names the function */
		cp = ANEW(&s->arena, struct probe_point);
		*cp = *pp;
		cp->comps = NULL;
		{
			struct pp_comp **tail = &cp->comps;

			for (const struct pp_comp *o = pp->comps; o; o = o->next) {
				c = ANEW(&s->arena, struct pp_comp);
				*c = *o;
				c->next = NULL;
				if (o == where) {
					arg = ast_expr(s, E_STR, &o->arg->loc);
					arg->str = syms[i];
					arg->len = (unsigned)strlen(syms[i]);
					c->arg = arg;
				}
				*tail = c;
				tail = &c->next;
			}
		}
		p = probe_emit(e, tmpl, cp);
		p->symbol = syms[i];
		p->is_return = is_return;
		p->maxactive = maxactive;
		with_btf(s, p);
		count++;
	}
	if (!count && exported) {
		elab_error(e, &where->arg->loc, "no exported kernel function "
			   "matches '%s'", pat);
		return -1;
	}
	if (!count) {
		const char *sim = similar_names(s, pat, syms, (int)n);

		if (sim)
			elab_error(e, &where->arg->loc, "no match for kernel "
				   "function '%s' (similar: %s)", pat, sim);
		else
			elab_error(e, &where->arg->loc, "no match for kernel "
				   "function '%s'", pat);
		return -1;
	}
	return count;
}

bool maxactive_ok(struct elab *e, const struct expr *max)
{
	if (max && (max->num < 0 || max->num > 65535)) {
		elab_error(e, &max->loc, "maxactive must be between 0 and 65535");
		return false;
	}
	return true;
}

/* kprobe.statement(ADDR).absolute, kernel.statement(ADDR).absolute:
 * an address with no symbol to check it against, so guru mode only. */
int absolute_address(struct elab *e, const struct probe_point *pp,
		     const struct dprobe *tmpl)
{
	struct dprobe *p;
	char name[64];

	if (!e->s->guru) {
		elab_error(e, &pp->loc, "%s.statement().absolute needs -g "
			   "(guru mode)", pp->comps->name);
		return -1;
	}
	p = probe_emit(e, tmpl, pp);
	p->address = (uint64_t)pp_arg(pp, 1)->num;
	/* named as stap names it, the address in hex */
	snprintf(name, sizeof(name), "%s.statement(0x%llx).absolute",
		 pp->comps->name, (unsigned long long)p->address);
	p->name = arena_strdup(&e->s->arena, name);
	return 1;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const struct expr *max;
	struct dprobe *p;
	const struct pp_comp *fc;
	bool ret = pp_has(pp, "return");

	max = pattern == 3 ? pp_arg(pp, 3) : pattern == 7 ? pp_arg(pp, 4) : NULL;
	if (!maxactive_ok(e, max))
		return -1;
	if (pattern == 8)
		return absolute_address(e, pp, tmpl);
	if (pattern >= 4) {
		const struct expr *mod = pp_arg(pp, 1), *fn = pp_arg(pp, 2);

		if (strpbrk(fn->str, "*?[") || strpbrk(mod->str, "*?[")) {
			elab_error(e, &fn->loc, "wildcards in kprobe.module() "
				   "points need the module's symbol table, "
				   "which Tapir does not read yet");
			return -1;
		}
		p = probe_emit(e, tmpl, pp);
		p->module = mod->str;
		p->symbol = fn->str;
		p->is_return = ret;
		p->maxactive = max ? max->num : -1;
		return 1;
	}
	fc = pp->comps->next;
	return kernel_functions(e, pp, fc, fc->arg->str, tmpl, ret,
				max ? max->num : -1, false);
}

const struct provider pp_kprobe = {
	.name = "kprobe",
	.patterns = patterns,
	.resolve = resolve,
};
