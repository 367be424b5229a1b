/* core.c - begin, end, error (with an optional priority) and never. */
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"begin", "begin(n)", "end", "end(n)", "error", "error(n)", "never",
	NULL
};

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	struct dprobe *p = probe_emit(e, tmpl, pp);
	const struct expr *prio = pp_arg(pp, 0);

	(void)pattern;
	p->priority = prio ? prio->num : 0;
	return 1;
}

const struct provider pp_core = {
	.name = "begin/end/error/never",
	.patterns = patterns,
	.resolve = resolve,
};

/* Families Tapir knows by name but does not build yet: a clear error
 * rather than a "mismatch". */
static const char *const later[] = {
	"process", "process(s)", "process(n)",
	"kernel.mark(s)", "java(s)", "python2",
	"python3", NULL
};

int pp_not_yet(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	(void)e;
	(void)pp;
	(void)pattern;
	(void)tmpl;
	return -1;
}

const struct provider pp_unsupported = {
	.name = "not yet supported",
	.patterns = later,
	.resolve = pp_not_yet,
	.unsupported = "this probe family is not supported by Tapir yet",
};
