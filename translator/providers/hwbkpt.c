/* hwbkpt.c - kernel.data(ADDRESS|"SYMBOL")[.length(N)].write/.rw:
 * hardware watchpoints.
 *
 * A probe is one wide kernel breakpoint (a perf event of type
 * PERF_TYPE_BREAKPOINT on every CPU) made with
 * register_wide_hw_breakpoint() when the session starts
 * (runtime/hwbkpt.c); it runs the probe after each write (.write) or
 * each read or write (.rw) of the watched bytes. .length(N) is the
 * number of bytes (default 1), which the runtime rounds up to the
 * breakpoint sizes the CPU has: 1, 2, 4, 8 (0 and more than 8 become
 * 8), as SystemTap 4.8 does; .length() goes only with an address.
 *
 * A symbol's address is looked up when the session starts (vmlinux and
 * the loaded modules, with KASLR): one the kernel lacks is skipped with
 * SystemTap's warning. The CPU refusing a breakpoint (more than its
 * four debug registers, a misaligned address) is a registration error
 * at run time, as in SystemTap, whose pass 2 checks neither.
 *
 * Points are named as stap names them, with the length:
 * kernel.data(0x1000).length(1).write, kernel.data("jiffies").length(1).rw
 * (-l and -L show them without a .length() the script did not write, as
 * stap does).
 * stap 4.8 names address 0 and symbol "" kernel.length(1).write; Tapir
 * keeps the data component there.
 */
#include <string.h>

#include "provider.h"

static const char *const patterns[] = {
	"kernel.data(n).write",
	"kernel.data(n).rw",
	"kernel.data(n).length(n).write",
	"kernel.data(n).length(n).rw",
	"kernel.data(s).write",
	"kernel.data(s).rw",
	NULL
};

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const struct expr *where = pp_arg(pp, 1);
	const struct pp_comp *lc = pp->comps->next->next;
	bool by_name = pattern >= 4;
	/* stap keeps the length in an unsigned int */
	unsigned int len = pattern == 2 || pattern == 3 ?
			   (unsigned int)lc->arg->num : 1;
	const char *access = pp_has(pp, "rw") ? "rw" : "write";
	struct arena *a = &e->s->arena;
	struct dprobe *p;

	p = probe_emit(e, tmpl, pp);
	p->hwbkpt = true;
	p->hw_rw = strcmp(access, "rw") == 0;
	p->hw_len = len;
	if (by_name) {
		p->hw_symbol = where->str;
		p->name = arena_printf(a, "kernel.data(\"%s\").length(%u).%s",
				       where->str, len, access);
		p->listed_as = arena_printf(a, "kernel.data(\"%s\").%s",
					    where->str, access);
	} else {
		p->hw_address = (uint64_t)where->num;
		p->name = arena_printf(a, "kernel.data(0x%llx).length(%u).%s",
				       (unsigned long long)p->hw_address, len,
				       access);
		if (pattern < 2)
			p->listed_as = arena_printf(a, "kernel.data(0x%llx).%s",
						    (unsigned long long)
						    p->hw_address, access);
	}
	return 1;
}

const struct provider pp_hwbkpt = {
	.name = "kernel.data",
	.patterns = patterns,
	.resolve = resolve,
};
