/* pp_timer.c - timer.{jiffies,s,ms,us,ns,hz}(N)[.randomize(M)], profile. */
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"timer.jiffies(n)", "timer.jiffies(n).randomize(n)",
	"timer.s(n)", "timer.s(n).randomize(n)",
	"timer.sec(n)", "timer.sec(n).randomize(n)",
	"timer.ms(n)", "timer.ms(n).randomize(n)",
	"timer.msec(n)", "timer.msec(n).randomize(n)",
	"timer.us(n)", "timer.us(n).randomize(n)",
	"timer.usec(n)", "timer.usec(n).randomize(n)",
	"timer.ns(n)", "timer.ns(n).randomize(n)",
	"timer.nsec(n)", "timer.nsec(n).randomize(n)",
	"timer.hz(n)", "timer.profile", "timer.profile.tick",
	NULL
};

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const struct expr *n = pp_arg(pp, 1), *r = pp_arg(pp, 2);
	const char *unit = pp->comps->next->name;
	struct dprobe *p;

	(void)pattern;
	if (n && n->num <= 0) {
		elab_error(e, &pp->comps->next->loc, "timer interval must be "
			   "positive, not %lld", (long long)n->num);
		return -1;
	}
	if (n && strcmp(unit, "ns") == 0 && n->num < 100000) {
		elab_error(e, &pp->comps->next->loc, "timer.ns interval must "
			   "be at least 100000 (100us)");
		return -1;
	}
	if (n && strcmp(unit, "hz") == 0 && n->num > 1000000000) {
		elab_error(e, &pp->comps->next->loc, "timer.hz rate %lld is "
			   "too high", (long long)n->num);
		return -1;
	}
	if (r && (r->num < 0 || r->num >= n->num)) {
		elab_error(e, &pp->comps->next->next->loc, "randomize value "
			   "must be at least 0 and smaller than the interval");
		return -1;
	}
	p = probe_emit(e, tmpl, pp);
	p->unit = unit;
	p->interval = n ? n->num : 0;
	p->randomize = r ? r->num : 0;
	return 1;
}

const struct provider pp_timer = {
	.name = "timer",
	.patterns = patterns,
	.resolve = resolve,
};
