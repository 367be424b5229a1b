/* timer.c - timer.{jiffies,s,ms,us,ns,hz}(N)[.randomize(M)], profile. */
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
	if (n) {
		/* the ranges SystemTap takes: at least 100us, at most a day */
		static const struct { const char *unit; int64_t lo, hi; } ranges[] = {
			{ "jiffies", 1, 1000000 },
			{ "s", 1, 86400 }, { "sec", 1, 86400 },
			{ "ms", 1, 86400000LL }, { "msec", 1, 86400000LL },
			{ "us", 100, 86400000000LL }, { "usec", 100, 86400000000LL },
			{ "ns", 100000, 86400000000000LL },
			{ "nsec", 100000, 86400000000000LL },
			{ "hz", 1, 10000 },
		};

		for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
			if (strcmp(unit, ranges[i].unit) == 0 &&
			    (n->num < ranges[i].lo || n->num > ranges[i].hi)) {
				elab_error(e, &pp->comps->next->loc, "invalid "
					   "interval %lld for timer.%s: it must "
					   "be from %lld to %lld", (long long)n->num,
					   unit, (long long)ranges[i].lo,
					   (long long)ranges[i].hi);
				return -1;
			}
	}
	if (r && (r->num < 0 || r->num > n->num)) {
		elab_error(e, &pp->comps->next->next->loc, "randomize value "
			   "must be from 0 to the interval (%lld)",
			   (long long)n->num);
		return -1;
	}
	p = probe_emit(e, tmpl, pp);
	/* timer.profile[.tick] has no unit: it is the per-CPU tick
	 * (emit.c: TP_PROBE_PROFILE), not an interval timer */
	p->unit = n ? unit : NULL;
	p->interval = n ? n->num : 0;
	p->randomize = r ? r->num : 0;
	return 1;
}

const struct provider pp_timer = {
	.name = "timer",
	.patterns = patterns,
	.resolve = resolve,
};
