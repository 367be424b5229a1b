/* kernel.c - kernel.function, module().function, kernel.statement,
 * and the labels of functions (.label: a kprobe at the label's address,
 * as a statement).
 *
 * These are the DWARF probes: a point resolves through the kernel's (or
 * the module's) debuginfo (dwarf.c) to one probe per site, an
 * out-of-line function or each inline instance, named as SystemTap
 * names it: kernel.function("vfs_read@fs/read_write.c:450"). Without
 * debuginfo, a point that names only functions resolves through the
 * kernel's symbol table instead (entry and return probes, as
 * SystemTap's symbol-table fallback does); source files, lines, inline
 * instances, statements and $target variables say which package to
 * install.
 */
#include <string.h>

#include "debuginfo/btf-api.h"
#include "debuginfo/dwarf-api.h"
#include "debuginfo/kconfig.h"
#include "provider.h"

static const char *const patterns[] = {
	"kernel.function(s)",
	"kernel.function(s).call",
	"kernel.function(s).exported",
	"kernel.function(s).return",
	"kernel.function(s).return.maxactive(n)",
	"kernel.function(s).inline",
	"kernel.function(s).callee(s)",
	"kernel.function(s).callee(s).call",
	"kernel.function(s).callee(s).return",
	"kernel.function(s).callees",
	"kernel.function(s).callees(n)",
	"kernel.function(s).label(s)",
	"kernel.statement(s)",
	"kernel.statement(n).absolute",
	"module(s).function(s)",
	"module(s).function(s).call",
	"module(s).function(s).exported",
	"module(s).function(s).return",
	"module(s).function(s).return.maxactive(n)",
	"module(s).function(s).inline",
	"module(s).function(s).callee(s)",
	"module(s).function(s).callee(s).call",
	"module(s).function(s).callee(s).return",
	"module(s).function(s).callees",
	"module(s).function(s).callees(n)",
	"module(s).function(s).label(s)",
	"module(s).statement(s)",
	NULL
};

static bool wild(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int needs_debuginfo(struct elab *e, const struct probe_point *pp,
			   const char *what)
{
	elab_error(e, &pp->loc, "probe point '%s' needs %s debuginfo, which "
		   "is not installed: install the %s package",
		   pp_text(e->s, pp), what, dwarf_package(e->s));
	return -1;
}

struct probe_point *pp_concrete(struct session *s,
				    const struct probe_point *pp,
				    const struct pp_comp *where,
				    const char *text,
				    const struct pp_comp *modc,
				    const char *module)
{
	struct probe_point *cp = ANEW(&s->arena, struct probe_point);
	struct pp_comp **tail = &cp->comps;

	*cp = *pp;
	cp->comps = NULL;
	for (const struct pp_comp *o = pp->comps; o; o = o->next) {
		struct pp_comp *c = ANEW(&s->arena, struct pp_comp);
		const char *arg = o == where ? text : o == modc ? module : NULL;

		*c = *o;
		c->next = NULL;
		if (arg) {
			c->arg = ast_expr(s, E_STR, &o->arg->loc);
			c->arg->str = arg;
			c->arg->len = (unsigned)strlen(arg);
		}
		*tail = c;
		tail = &c->next;
	}
	return cp;
}

/* Without debuginfo: functions by name from the symbol table. */
static int fallback(struct elab *e, const struct probe_point *pp,
		    const struct dwarf_query *q, const struct pp_comp *fc,
		    const char *pat, const struct dprobe *tmpl, int64_t max)
{
	struct dprobe *p;

	if (q->statement || q->label || q->inline_only || q->file)
		return needs_debuginfo(e, pp, q->module ? "module" : "kernel");
	if (!q->module)
		return kernel_functions(e, pp, fc, pat, tmpl, q->is_return, max,
					q->exported);
	if (wild(pat) || wild(q->module))
		return needs_debuginfo(e, pp, "module");
	p = probe_emit(e, tmpl, pp);
	p->module = q->module;
	p->symbol = pat;
	p->is_return = q->is_return;
	p->maxactive = max;
	/* its parameters by the module's BTF prototype, when it has BTF */
	if (p->has_targets)
		p->dwarf = btf_module_function_site(e->s, q->module, pat,
						    q->is_return);
	return 1;
}

static int no_match(struct elab *e, const struct pp_comp *fc,
		    const struct dwarf_query *q, const char *pat,
		    const char *why)
{
	struct session *s = e->s;
	size_t n;
	const char *source;
	const char *const *syms;
	const char *sim = NULL;

	if (why && !wild(pat))
		elab_warn(e, &fc->arg->loc, "%s", why);
	if (q->exported) {
		elab_error(e, &fc->arg->loc, "no exported %s function matches "
			   "'%s'", q->module ? "module" : "kernel", pat);
		return -1;
	}
	if (q->label) {
		/* the functions are there, without such a label? */
		struct dwarf_query fq = *q;
		struct dwarf_site **sites;

		fq.label = NULL;
		if (dwarf_find_sites(s, &fq, &sites, &why) > 0) {
			elab_error(e, &fc->next->arg->loc, "no label matches "
				   "'%s' in %s function '%s'", q->label,
				   q->module ? "module" : "kernel", pat);
			return -1;
		}
	}
	if (!q->module && !wild(q->function) &&
	    (syms = ksyms_functions(s, &n, &source)))
		sim = similar_names(s, q->function, syms, (int)n);
	if (sim)
		elab_error(e, &fc->arg->loc, "no match for %s %s '%s' "
			   "(similar: %s)", q->module ? "module" : "kernel",
			   q->statement ? "statement" : "function", pat, sim);
	else
		elab_error(e, &fc->arg->loc, "no match for %s %s '%s'",
			   q->module ? "module" : "kernel",
			   q->statement ? "statement" : "function", pat);
	return -1;
}

/*
 * A label's probe, as stap names it: pp() and the -p2 name are the
 * function's point with the label's line, without the label
 * (kernel.function("do_sendfile@fs/read_write.c:1286")); pn(), which
 * pnlabel() reads, and the -l listing add the label (.label("out")).
 */
struct probe_point *pp_label_split(struct session *s, struct probe_point *full,
				   const char *label)
{
	struct probe_point *bare = ANEW(&s->arena, struct probe_point);
	struct pp_comp *lc = full->comps, **tail;

	while (lc->next)
		lc = lc->next;
	lc->arg = ast_expr(s, E_STR, &lc->arg->loc);
	lc->arg->str = label;
	lc->arg->len = (unsigned)strlen(label);
	*bare = *full;
	bare->comps = pp_concrete(s, full, NULL, NULL, NULL, NULL)->comps;
	for (tail = &bare->comps; (*tail)->next; tail = &(*tail)->next)
		;
	*tail = NULL;
	return bare;
}

void label_names(struct session *s, struct dprobe *p,
		 const struct dprobe *tmpl, const struct probe_point *full,
		 const char *label)
{
	p->listed_as = pp_text(s, full);
	if (!tmpl->pn)
		p->pn = p->listed_as;
	p->label = label;
}

static struct dprobe *label_probe(struct elab *e, const struct probe_point *pp,
				  const struct dprobe *tmpl, const char *text,
				  const struct dwarf_site *site)
{
	struct session *s = e->s;
	bool module = strcmp(pp->comps->name, "module") == 0;
	struct probe_point *full = pp_concrete(s, pp, pp->comps->next, text,
					       module ? pp->comps : NULL,
					       site->module);
	struct dprobe *p;

	p = probe_emit(e, tmpl, pp_label_split(s, full, site->label));
	label_names(s, p, tmpl, full, site->label);
	return p;
}

/* A site as its point names it: "vfs_read@fs/read_write.c:450". */
static const char *site_text(struct session *s, const struct dwarf_site *site,
			     int line)
{
	if (!site->decl_file)
		return site->function;
	if (!line)
		return arena_printf(&s->arena, "%s@%s", site->function,
				    site->decl_file);
	return arena_printf(&s->arena, "%s@%s:%d", site->function,
			    site->decl_file, line);
}

/*
 * .callee(PAT), .callees, .callees(DEPTH): a probe on each inline
 * instance of a matching callee inside the callers' code (dwarf.c says
 * which stap 4.8 finds). As stap names them, the probe and pp() are the
 * callee's own point (kernel.function("add_rchar@...").return), and -l,
 * pn() and the -p2 derivation its point under its caller:
 * kernel.function("vfs_read@...").callee("add_rchar@...").return.
 */
static int callee_probes(struct elab *e, const struct probe_point *pp,
			 const struct dprobe *tmpl, struct dwarf_query *q,
			 struct dwarf_site **callers, int ncallers)
{
	struct session *s = e->s;
	bool module = strcmp(pp->comps->name, "module") == 0;
	const struct pp_comp *modc = module ? pp->comps : NULL;
	const struct pp_comp *fc = pp->comps->next, *cc = fc->next;
	bool many = strcmp(cc->name, "callees") == 0;
	const char *pat = many ? "*" : cc->arg->str;
	int depth = many && cc->arg ? (int)cc->arg->num : 1;
	struct dwarf_site **sites;
	int n;

	if (depth < 1) {
		elab_error(e, &cc->arg->loc, "the depth of .callees(N) must "
			   "be at least 1");
		return -1;
	}
	n = dwarf_find_callees(s, q, callers, ncallers, pat, depth, &sites);
	if (n == 0) {
		elab_error(e, many ? &fc->arg->loc : &cc->arg->loc, "no "
			   "inline callee of %s function '%s' matches '%s'",
			   module ? "module" : "kernel", fc->arg->str, pat);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const struct dwarf_site *site = sites[i];
		const char *text = site_text(s, site, site->decl_line);
		struct probe_point *own, *under;
		struct pp_comp **cp, *c;
		struct dprobe *p;

		/* the callee's own point: without the .callee component */
		own = pp_concrete(s, pp, fc, text, modc, site->module);
		for (cp = &own->comps->next; strcmp((*cp)->name, cc->name);
		     cp = &(*cp)->next)
			;
		*cp = (*cp)->next;
		/* under its caller: .callee("CALLEE"), also for .callees */
		under = pp_concrete(s, pp, fc, site_text(s, site->caller,
				    site->caller->decl_line), modc,
				    site->module);
		for (c = under->comps->next; strcmp(c->name, cc->name);
		     c = c->next)
			;
		c->name = "callee";
		c->arg = ast_expr(s, E_STR, &cc->loc);
		c->arg->str = text;
		c->arg->len = (unsigned)strlen(text);
		p = probe_emit(e, tmpl, own);
		p->listed_as = pp_text(s, under);
		if (!tmpl->pn)
			p->pn = p->listed_as;
		p->dwarf = site;
		p->symbol = site->symbol_offset ? NULL : site->symbol;
		p->module = module ? site->module : NULL;
		p->is_return = q->is_return;
		p->maxactive = -1;
	}
	return n;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	struct session *s = e->s;
	bool module = strcmp(pp->comps->name, "module") == 0;
	const struct pp_comp *modc = module ? pp->comps : NULL;
	const struct pp_comp *fc = pp->comps->next;
	const char *pat = fc->arg->str, *why = NULL;
	const struct expr *max = pp_has(pp, "maxactive") ? pp_arg(pp, 3) :
				 NULL;
	struct dwarf_query q;
	struct dwarf_site **sites;
	bool callee;
	int n;

	(void)pattern;	/* the components say which */
	if (pp_has(pp, "absolute"))
		return absolute_address(e, pp, tmpl);
	if (!maxactive_ok(e, max))
		return -1;
	memset(&q, 0, sizeof(q));
	q.module = module ? pp_arg(pp, 0)->str : NULL;
	q.statement = pp_has(pp, "statement");
	q.call = pp_has(pp, "call");
	q.inline_only = pp_has(pp, "inline");
	q.exported = pp_has(pp, "exported");
	q.is_return = pp_has(pp, "return");
	q.label = pp_has(pp, "label") ? pp_arg(pp, 2)->str : NULL;
	callee = pp_has(pp, "callee") || pp_has(pp, "callees");
	if (callee) {
		/* .call and .return are the callee's; the callers are every
		 * site of the function */
		if (!dwarf_available(s, NULL))
			return needs_debuginfo(e, pp, module ? "module" :
					       "kernel");
		q.call = q.is_return = false;
	}
	if (!dwarf_parse_pattern(s, pat, &q, &why)) {
		elab_error(e, &fc->arg->loc, "%s", why);
		return -1;
	}
	/* without debuginfo .exported goes by Module.symvers */
	if (q.exported && !dwarf_available(s, NULL) &&
	    ksyms_exported(s, "") < 0) {
		/* (an empty name only asks whether the list exists) */
		elab_error(e, &pp->loc, "'.exported' needs the kernel's "
			   "Module.symvers, which the build directory lacks");
		return -1;
	}
	/* (a label's line selects the label) */
	if (!q.statement && !q.label && (q.line_lo || q.line_any)) {
		elab_warn(e, &pp->loc, "For probing a particular line, use a "
			  ".statement() probe, not .function()");
		q.line_lo = q.line_hi = 0;
		q.line_any = false;
	}
	if (q.statement && !q.file) {
		elab_error(e, &fc->arg->loc, "a statement probe needs a "
			   "source file and line: FUNC@FILE:LINE");
		return -1;
	}
	if (!dwarf_available(s, NULL))
		return fallback(e, pp, &q, fc, pat, tmpl, max ? max->num : -1);
	n = dwarf_find_sites(s, &q, &sites, &why);
	if (n < 0) {
		elab_error(e, module ? &modc->arg->loc : &fc->arg->loc, "%s",
			   why);
		return -1;
	}
	if (n == 0)
		return no_match(e, fc, &q, pat, why);
	if (callee) {
		q.is_return = pp_has(pp, "return");
		return callee_probes(e, pp, tmpl, &q, sites, n);
	}
	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		struct dprobe *p;
		const char *text = site_text(s, site, q.statement || q.label ?
					     site->line : site->decl_line);
		if (site->label) {
			p = label_probe(e, pp, tmpl, text, site);
		} else {
			p = probe_emit(e, tmpl, pp_concrete(s, pp, fc, text,
							 modc, site->module));
		}
		/* the address is the site's (symbol + offset, or relative
		 * to _stext); symbol alone means the function's entry, so it
		 * is set only for a site there */
		p->dwarf = site;
		p->symbol = site->symbol_offset ? NULL : site->symbol;
		p->module = module ? site->module : NULL;
		p->is_return = q.is_return;
		p->maxactive = max ? max->num : -1;
		if (site->blacklisted && !wild(pat) && (!q.module ||
							!wild(q.module)))
			elab_warn(e, &pp->loc, "probe point '%s' is on the "
				  "kernel's kprobe blacklist: registering it "
				  "will fail", p->name);
	}
	return n;
}

const struct provider pp_kernel = {
	.name = "kernel",
	.patterns = patterns,
	.resolve = resolve,
	.has_targets = true,
};
