// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapir-main.c - a hand-written "generated" module for the runtime core's
 * tests (testsuite/runtime/run): what pass 3 would emit for the script
 * below, written against runtime/tapir.h. The module parameter
 * `scenario` picks the case:
 *
 *   0  global count, hits, rets, prof, sym
 *      probe begin(-1) { println("begin -1") }
 *      probe begin { printf("begin %d %s\n", 0, "zero") }
 *      probe begin(5) { println("begin 5") }
 *      probe timer.ms(20) {
 *              if ((++count >= 25 && nhits >= 100) || count == 500) exit() }
 *      probe timer.jiffies(2).randomize(1) { jiff++ }
 *      probe timer.profile { prof <<< 1 }
 *      probe kprobe.function("__x64_sys_getppid") {
 *              nhits++; hits[execname()]++; sym = symname(addr()) ... }
 *      probe kprobe.function("__x64_sys_getppid").return {
 *              if (execname() == "ppidloop") rets <<< (returnval() > 0) }
 *      probe end { ... println("end") }
 *      probe error { println("error probe") }
 *   1  timer: 1/0 -> ERROR near ..., the error probe instead of end
 *   2  begin { exit() }: the later begin(5) does not run, end does
 *   3  timer: print, abort(), (not reached): end runs, no error
 *   4  timer: warn("careful"), log("logged"), error("boom") caught by
 *      the MAXERRORS=0 limit -> error probe
 *   5  timer: 16,000 bytes of output in one handler (buffer flushes)
 *   6  (built with -DMAXTRYLOCK=1 -DMAXSKIPPED=2 -DSTP_TIMING) a
 *      timer.profile probe holds a global's lock 3 ms: the other CPU's
 *      tick skips, and past MAXSKIPPED the run ends with stap's "Skipped
 *      too many probes"; stap -t's hit report and the lock timeout of
 *      that global come after
 *   7  begin(-1) { error("begin failed") }: no other begin runs, the
 *      error probe does
 *   8  (built with a MAXSKIPPED no run reaches) stress: every probe runs
 *      while the test calls getppid() on both CPUs and takes CPU 1
 *      offline and online again (timer.profile follows the CPU), until
 *      the test says CPU 1 is back (stress_done=1) and getppid() was
 *      probed 1000 times; the kernel log must stay clean. Nothing
 *      depends on time: a vCPU the host deschedules while it holds a
 *      global's lock makes the other CPU's probes time out on it and
 *      skip, as many as the host's load makes them, which is why they do
 *      not end the run here
 */
#include "tapir.h"
#include "runtime/entry.h"
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

static int scenario;
module_param(scenario, int, 0444);
static int stress_done;			/* scenario 8: CPU 1 is back online */
module_param(stress_done, int, 0644);

/* ---- globals ---- */
static struct tp_global_lock g_count_lock = TP_GLOBAL_LOCK_INIT(g_count_lock);
static s64 g_count;
static struct tp_global_lock g_jiff_lock = TP_GLOBAL_LOCK_INIT(g_jiff_lock);
static s64 g_jiff;
static struct tp_global_lock g_spin_lock = TP_GLOBAL_LOCK_INIT(g_spin_lock);
static struct tp_global_lock g_hits_lock = TP_GLOBAL_LOCK_INIT(g_hits_lock);
static struct tp_map g_hits;
static s64 g_nhits;
static const struct tp_map_desc g_hits_desc = {
	.nkeys = 1, .keys = { TP_KEY_STRING }, .val = TP_VAL_LONG,
	.capacity = MAXMAPENTRIES,
};
static struct tp_global_lock g_sym_lock = TP_GLOBAL_LOCK_INIT(g_sym_lock);
static char g_sym[MAXSTRINGLEN];
static char g_symdata[MAXSTRINGLEN];
static s64 g_bt_n;
static s64 g_pbt;			/* a profile sample's backtrace */
static s64 g_rbt;			/* return probe's backtrace: 1 ok */
static char tp_rt_scratch[MAXSTRINGLEN];
static struct tp_global_lock g_rets_lock = TP_GLOBAL_LOCK_INIT(g_rets_lock);
static const struct tp_stat_desc g_rets_desc = { .hist = TP_HIST_LOG };
static struct tp_stat g_rets;
static struct tp_global_lock g_prof_lock = TP_GLOBAL_LOCK_INIT(g_prof_lock);
static const struct tp_stat_desc g_prof_desc = { .hist = TP_HIST_NONE };
static struct tp_stat g_prof;

/* ---- locals (per-CPU frames) ---- */
struct tp_frame_end {
	u32 idx[MAXMAPENTRIES];
	char key[MAXSTRINGLEN];
	union { struct tp_stat_cell cell; char cellbuf[1200]; };
};
union tp_locals {
	struct tp_frame_end end;
};

#define ERR_OUT(c) do { if (unlikely((c)->last_error || (c)->aborted)) goto out; } while (0)

/* probe begin(-1) at t.stp:1:1 */
static void probe_0(struct tp_context *c)
{
	tp_print(c, "begin -1\n");
	if (scenario == 2)
		tapir_request_exit();
	if (scenario == 7) {
		c->last_stmt = "identifier 'error' at t.stp:1:20";
		tp_error(c, "begin failed");
	}
}

/* probe begin at t.stp:2:1 */
static void probe_1(struct tp_context *c)
{
	struct tp_arg a[2] = { { .type = TP_ARG_LONG, .l = 0 },
			       { .type = TP_ARG_STRING, .s = "zero" } };

	tp_printf(c, "begin %d %s\n", a, 2);
}

/* probe begin(5) at t.stp:3:1 */
static void probe_2(struct tp_context *c)
{
	tp_print(c, "begin 5\n");
}

/* scenario 8: probing while the test loads both CPUs and takes CPU 1
 * offline and back, until it says so and every probe has run */
static void tp_stress_exit(void)
{
	if (READ_ONCE(stress_done) && READ_ONCE(g_nhits) >= 1000 &&
	    READ_ONCE(g_jiff) > 0 && READ_ONCE(g_count) > 0)
		tapir_request_exit();
}

/* probe timer.ms(20) at t.stp:4:1 */
static void probe_3(struct tp_context *c)
{
	s64 n = ++g_count;

	switch (scenario) {
	case 1:
		c->last_stmt = "operator '/' at t.stp:4:30";
		tp_error(c, "division by zero");
		ERR_OUT(c);
		tp_print(c, "not reached\n");
		break;
	case 3:
		tp_print(c, "before abort\n");
		tapir_abort();
		ERR_OUT(c);
		tp_print(c, "not reached\n");
		break;
	case 4:
		tp_print(c, "printed first\n");
		tapir_warn("careful");
		tapir_log("logged");
		tp_error(c, "%s", "boom");
		ERR_OUT(c);
		break;
	case 5: {
		int i;

		for (i = 0; i < 1000; i++)
			tp_kprintf(c, "%04d 0123456789\n", i);	/* 16 bytes */
		tapir_request_exit();
		break;
	}
	case 8:
		tp_stress_exit();
		break;
	default:
		/* at least 0.5 s, and until getppid() was probed 100 times
		 * (the test starts its caller), but at most 10 s */
		if ((n >= 25 && g_nhits >= 100) || n == 500)
			tapir_request_exit();
	}
out:
	return;
}

/* probe timer.jiffies(2).randomize(1) at t.stp:5:1 */
static void probe_4(struct tp_context *c)
{
	g_jiff++;
}

/* probe timer.profile at t.stp:6:1 */
static void probe_5(struct tp_context *c)
{
	unsigned long pcs[4];

	tp_stat_add(&g_prof, 1);
	/* a sample of kernel code: the interrupted instruction, then the
	 * frames below it (a benign race: every writer stores 1) */
	if (tapir_probe_addr() && tapir_backtrace(pcs, 4) >= 2 &&
	    pcs[0] == tapir_probe_addr())
		WRITE_ONCE(g_pbt, 1);
}

/* probe timer.profile at t.stp:6:30 (scenario 6: holds a global's write
 * lock for 3 ms, so the other CPU's tick times out on it) */
static void probe_10(struct tp_context *c)
{
	if (scenario == 6)
		mdelay(3);
}

/* probe kprobe.function("__x64_sys_getppid") at t.stp:7:1 */
static void probe_6(struct tp_context *c)
{
	union tp_key k[1] = { { .s = current->comm } };
	unsigned long pcs[MAXBACKTRACE];

	g_nhits++;
	if (scenario == 8)
		tp_stress_exit();
	if (tp_map_add_long(&g_hits, k, 1, NULL)) {
		c->last_stmt = "operator '++' at t.stp:7:50";
		tp_error(c, "Array overflow, check MAXMAPENTRIES");
		return;
	}
	if (!g_sym[0]) {
		if (tapir_symname(tapir_probe_addr(), g_sym, sizeof(g_sym)))
			tp_str_copy(g_sym, "?");
		if (tapir_symdata(tapir_probe_addr(), g_symdata, sizeof(g_symdata)))
			tp_str_copy(g_symdata, "?");
		g_bt_n = tapir_backtrace(pcs, MAXBACKTRACE);
		if (g_bt_n > 1 && tapir_symname(pcs[1], g_symdata + strlen(g_symdata) + 1,
						sizeof(g_symdata) - strlen(g_symdata) - 1) == 0)
			g_symdata[strlen(g_symdata)] = ' ';
	}
}

/* probe kprobe.function("__x64_sys_getppid").return at t.stp:8:1 */
static void probe_7(struct tp_context *c)
{
	if (!tapir_is_return() || !tapir_regs()) {
		tp_error(c, "not a return probe");
		return;
	}
	if (strcmp(current->comm, "ppidloop") == 0)
		tp_stat_add(&g_rets, (s64)regs_return_value(tapir_regs()) > 0 ? 1 : 0);
	if (!g_rbt) {
		unsigned long pcs[MAXBACKTRACE];
		char *name = tp_rt_scratch;
		unsigned int n = tapir_backtrace(pcs, MAXBACKTRACE);

		/* the probed function, then its caller */
		g_rbt = n > 1 && pcs[0] == tapir_probe_addr() &&
			tapir_symname(pcs[1], name, MAXSTRINGLEN) == 0 &&
			strstr(name, "do_syscall") ? 1 : 2;
	}
}

/* probe end at t.stp:9:1 */
static void probe_8(struct tp_context *c)
{
	struct tp_frame_end *f = &((union tp_locals *)c->locals)->end;
	struct tp_map_sort s = { .by = 1, .dir = 1, .limit = -1 };
	u32 i, n;
	s64 v;

	if (scenario == 8) {
		tp_stat_read(&g_prof, &f->cell);
		if (g_count > 0 && g_nhits >= 1000 && f->cell.count > 0 && g_jiff > 0)
			tp_print(c, "stress: ok\n");
		else
			tp_printf(c, "stress: bad: count %d, getppid %d, profile %d, jiffies %d\n",
				  (struct tp_arg[]){ { .l = g_count }, { .l = g_nhits },
				  { .l = f->cell.count }, { .l = g_jiff } }, 4);
		return;
	}
	if (scenario != 0) {
		tp_print(c, "count = ");
		tp_print_long(c, g_count);
		tp_print(c, "\nend\n");
		return;
	}
	n = tp_map_sort(&g_hits, &s, f->idx);
	for (i = 0; i < n; i++) {
		const char *k = tp_map_key_string(&g_hits, f->idx[i], 0);

		if (strcmp(k, "ppidloop") == 0) {
			struct tp_arg a[2] = { { .type = TP_ARG_STRING, .s = k },
				{ .type = TP_ARG_LONG,
				  .l = tp_map_value_long(&g_hits, f->idx[i]) } };

			tp_printf(c, "hits[%s] = %d\n", a, 2);
		}
	}
	tp_print(c, g_count >= 25 ? "count: ok\n" : "count: low\n");
	tp_printf(c, "jiffies timer ran: %s\n", (struct tp_arg[]){
		{ .type = TP_ARG_STRING, .s = g_jiff > 0 ? "yes" : "no" } }, 1);
	tp_stat_read(&g_prof, &f->cell);
	tp_printf(c, "profile ran: %s, backtrace %s\n", (struct tp_arg[]){
		{ .type = TP_ARG_STRING, .s = f->cell.count > 0 ? "yes" : "no" },
		{ .type = TP_ARG_STRING, .s = g_pbt ? "ok" : "bad" } }, 2);
	/* __x64_sys_getppid or an alias at its address (__do_sys_getppid),
	 * offset 0, in vmlinux; its caller is the syscall entry */
	tp_printf(c, "symname: %s\nsymdata: %s\nbacktrace: %s\n", (struct tp_arg[]){
		{ .type = TP_ARG_STRING, .s = strstr(g_sym, "sys_getppid") ? "ok" : g_sym },
		{ .type = TP_ARG_STRING, .s = strstr(g_symdata, "sys_getppid+0x0/0x") &&
		  strstr(g_symdata, " [kernel]") ? "ok" : g_symdata },
		{ .type = TP_ARG_STRING, .s = g_bt_n > 1 && strstr(g_symdata, "do_syscall") ?
		  "ok" : "bad" } }, 3);
	tp_print(c, g_rbt == 1 ? "return backtrace: ok\n" : "return backtrace: bad\n");
	tp_stat_read(&g_rets, &f->cell);
	tp_print(c, "returns: ");
	tp_print_long(c, f->cell.count);
	tp_print(c, "\n");
	tp_print_hist(c, &g_rets_desc, &f->cell);
	if (tp_stat_avg(&f->cell, &v) == 0)
		tp_print(c, "avg ok\n");
	tp_print(c, "end\n");
}

/* probe error at t.stp:10:1 */
static void probe_9(struct tp_context *c)
{
	tp_print(c, "error probe\n");
}

static const struct tp_lock_use locks_count[] = {
	{ &g_count_lock, true }, { &g_hits_lock, false } };
static const struct tp_lock_use locks_jiff[] = { { &g_jiff_lock, true } };
static const struct tp_lock_use locks_prof[] = { { &g_prof_lock, false } };
static const struct tp_lock_use locks_spin[] = { { &g_spin_lock, true } };
static const struct tp_lock_use locks_kp[] = {
	{ &g_hits_lock, true }, { &g_sym_lock, true } };
static const struct tp_lock_use locks_ret[] = {
	{ &g_sym_lock, true }, { &g_rets_lock, false } };
static const struct tp_lock_use locks_end[] = {
	{ &g_count_lock, false }, { &g_jiff_lock, false }, { &g_hits_lock, false },
	{ &g_sym_lock, false }, { &g_rets_lock, false }, { &g_prof_lock, false } };

/* the entry probe through its own handler (entry.h), the return probe
 * through the runtime's generic one: both paths are tested */
TP_KPROBE_ENTRY_DECL(probe_6_kentry);

static const struct tp_probe probes[] = {
	{ .kind = TP_PROBE_BEGIN, .pp = "begin(-1)", .location = "t.stp:1:1",
	  .handler = probe_0, .priority = -1 },
	{ .kind = TP_PROBE_BEGIN, .pp = "begin", .location = "t.stp:2:1",
	  .handler = probe_1 },
	{ .kind = TP_PROBE_BEGIN, .pp = "begin(5)", .location = "t.stp:3:1",
	  .handler = probe_2, .priority = 5 },
	{ .kind = TP_PROBE_TIMER, .pp = "timer.ms(20)", .location = "t.stp:4:1",
	  .handler = probe_3, .locks = locks_count, .nlocks = 2,
	  .hrtimer = true, .interval = 20000000 },
	{ .kind = TP_PROBE_TIMER, .pp = "timer.jiffies(2).randomize(1)",
	  .location = "t.stp:5:1", .handler = probe_4, .locks = locks_jiff,
	  .nlocks = 1, .interval = 2, .randomize = 1 },
	{ .kind = TP_PROBE_PROFILE, .pp = "timer.profile", .location = "t.stp:6:1",
	  .handler = probe_5, .locks = locks_prof, .nlocks = 1 },
	{ .kind = TP_PROBE_PROFILE, .pp = "timer.profile", .location = "t.stp:6:30",
	  .handler = probe_10, .locks = locks_spin, .nlocks = 1 },
	{ .kind = TP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"__x64_sys_getppid\")", .location = "t.stp:7:1",
	  .handler = probe_6, .locks = locks_kp, .nlocks = 2,
	  .symbol = "__x64_sys_getppid", .kentry = probe_6_kentry },
	{ .kind = TP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"__x64_sys_getppid\").return",
	  .location = "t.stp:8:1", .handler = probe_7, .locks = locks_ret,
	  .nlocks = 2, .symbol = "__x64_sys_getppid", .is_return = true },
	{ .kind = TP_PROBE_KPROBE,
	  .pp = "kprobe.function(\"no_such_function_tapir\")?",
	  .location = "t.stp:9:1", .handler = probe_9,
	  .symbol = "no_such_function_tapir", .optional = true },
	{ .kind = TP_PROBE_END, .pp = "end", .location = "t.stp:10:1",
	  .handler = probe_8, .locks = locks_end, .nlocks = 6 },
	{ .kind = TP_PROBE_ERROR, .pp = "error", .location = "t.stp:11:1",
	  .handler = probe_9 },
};

TP_KPROBE_ENTRY(probe_6_kentry, probes[7]);	/* probe_6 */

static int init_globals(void)
{
	int rc;

	rc = tp_map_init(&g_hits, &g_hits_desc);
	if (!rc)
		rc = tp_stat_init(&g_rets, &g_rets_desc);
	if (!rc)
		rc = tp_stat_init(&g_prof, &g_prof_desc);
	return rc;
}

static void free_globals(void)
{
	tp_map_free(&g_hits);
	tp_stat_free(&g_rets);
	tp_stat_free(&g_prof);
}

const struct tp_module tapir_module = {
	.script = "t.stp",
	.probes = probes,
	.nprobes = ARRAY_SIZE(probes),
	.locals_size = sizeof(union tp_locals),
	.init_globals = init_globals,
	.free_globals = free_globals,
};
