/* perf.c - perf.type(T).config(C)[.sample(N)|.hz(N)]: perf events.
 *
 * A probe is one kernel perf event (struct perf_event_attr's type and
 * config, <uapi/linux/perf_event.h>) per online CPU, made with
 * perf_event_create_kernel_counter() when the session starts
 * (runtime/perf.c), whose overflow handler runs the probe every N
 * events (.sample(N), default 1000000) or N times a second (.hz(N)).
 * The kernel checks type and config: an event the machine does not have
 * (hardware events under qemu's TCG) is the session's registration
 * error. The tapset (tapsets/perf.stp) names the usual events:
 * perf.sw.page_faults, perf.hw.cpu_cycles, ...
 *
 * Points are named as stap names them, with the period:
 * perf.type(1).config(2).sample(1000000) (a .hz(N) probe too shows
 * .sample(N) there). The per-process variants, .process("PATH") and
 * .counter("NAME") read by @perf("NAME"), are not built yet.
 */
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"perf.type(n).config(n)",
	"perf.type(n).config(n).sample(n)",
	"perf.type(n).config(n).hz(n)",
	NULL
};

/* Known by name, not built yet. */
static const char *const later[] = {
	"perf.type(n).config(n).process",
	"perf.type(n).config(n).process(s)",
	"perf.type(n).config(n).counter(s)",
	"perf.type(n).config(n).process.counter(s)",
	"perf.type(n).config(n).process(s).counter(s)",
	"perf.type(n).config(n).sample(n).process",
	"perf.type(n).config(n).sample(n).process(s)",
	"perf.type(n).config(n).hz(n).process",
	"perf.type(n).config(n).hz(n).process(s)",
	NULL
};

#define DEFAULT_PERIOD 1000000

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	struct session *s = e->s;
	const struct pp_comp *tc = pp->comps->next, *cc = tc->next,
			     *nc = cc->next;
	int64_t type = tc->arg->num, config = cc->arg->num;
	int64_t n = nc ? nc->arg->num : DEFAULT_PERIOD;
	struct probe_point *cp;
	struct pp_comp *sc;
	struct dprobe *p;

	if (type < 0 || type > 0xffffffffLL) {
		elab_error(e, &tc->arg->loc, "invalid perf event type %lld",
			   (long long)type);
		return -1;
	}
	if (n <= 0) {
		elab_error(e, &nc->arg->loc, "invalid perf %s %lld: it must be "
			   "positive", pattern == 2 ? "frequency" :
			   "sample period", (long long)n);
		return -1;
	}
	/* the canonical point: .sample(N) always */
	cp = ANEW(&s->arena, struct probe_point);
	*cp = *pp;
	cp->comps = NULL;
	{
		struct pp_comp **tail = &cp->comps;

		for (const struct pp_comp *c = pp->comps; c != nc && c;
		     c = c->next) {
			struct pp_comp *k = ANEW(&s->arena, struct pp_comp);

			*k = *c;
			k->next = NULL;
			*tail = k;
			tail = &k->next;
		}
		sc = ANEW(&s->arena, struct pp_comp);
		sc->name = "sample";
		sc->loc = nc ? nc->loc : cc->loc;
		sc->arg = ANEW(&s->arena, struct expr);
		sc->arg->kind = E_NUM;
		sc->arg->num = n;
		sc->arg->loc = sc->loc;
		*tail = sc;
	}
	p = probe_emit(e, tmpl, cp);
	p->perf = true;
	p->perf_type = type;
	p->perf_config = config;
	p->perf_period = n;
	p->perf_freq = pattern == 2;
	return 1;
}

const struct provider pp_perf = {
	.name = "perf",
	.patterns = patterns,
	.resolve = resolve,
};

const struct provider pp_perf_process = {
	.name = "perf (per process)",
	.patterns = later,
	.resolve = pp_not_yet,
	.unsupported = "per-process perf events (.process, .counter and "
		       "@perf) are not supported by Tapir yet",
};
