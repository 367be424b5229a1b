// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c - the module's life: module_init/module_exit, and the
 * session the loader drives through the transport (transport.h):
 *
 *   load     contexts, timers, kprobes and tracepoint probes allocated,
 *            globals initialized, transport up; state STARTING
 *   START    tp_session_start(): the begin probes run (ascending
 *            priority, then script order), then timers, kprobes and
 *            tracepoint probes are placed; state RUNNING (unless a
 *            begin probe ended the run)
 *   exit()   state STOPPING (MAXERRORS, MAXSKIPPED: ERROR); the loader
 *            is asked to stop
 *   STOP     tp_session_stop(): every probe removed and running handlers
 *            waited for, then the end probes run (state STOPPING) or,
 *            after an error-triggered stop, the error probes (ERROR);
 *            "WARNING: Number of errors: N, skipped probes: M" when
 *            either is non-zero; state STOPPED
 *   unload   a session not stopped yet is stopped first.
 *
 * These are SystemTap's semantics (stapprobes(3stap), BEGIN/END/ERROR:
 * "In the case of an error-triggered shutdown, end probes are not run").
 */
/* Messages name the module themselves (THIS_MODULE->name) rather than
 * through pr_fmt and the build's module-name macro, so that this object
 * does not depend on the module's name and is built once for every
 * module (pass 4's objects cache). */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "core.h"
#include "kcore.h"
#include "transport.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir probe module");

atomic_t tp_state = ATOMIC_INIT(TP_STATE_STOPPED);

static DEFINE_MUTEX(tp_session_mutex);
static bool tp_started;
/* Messages from process context (under tp_session_mutex). */
static char tp_session_msg[TP_MSG_SIZE];

void tp_stderr_line(char *buf, size_t size, const char *prefix,
		    const char *text, const char *near)
{
	int n;

	if (near)
		n = scnprintf(buf, size, "%s%s near %s", prefix, text, near);
	else
		n = scnprintf(buf, size, "%s%s", prefix, text);
	if (n == 0 || buf[n - 1] != '\n') {
		if ((size_t)n + 1 >= size)
			n = (int)size - 2;
		buf[n++] = '\n';
		buf[n] = '\0';
	}
	tp_transport_stderr(buf, n);
}

void tp_request_exit(void)
{
	if (atomic_cmpxchg(&tp_state, TP_STATE_RUNNING, TP_STATE_STOPPING) !=
	    TP_STATE_RUNNING)
		atomic_cmpxchg(&tp_state, TP_STATE_STARTING, TP_STATE_STOPPING);
	tp_transport_request_exit();
}

void tp_fatal(const char *line)
{
	int old = atomic_cmpxchg(&tp_state, TP_STATE_RUNNING, TP_STATE_ERROR);

	if (old == TP_STATE_STARTING)
		old = atomic_cmpxchg(&tp_state, TP_STATE_STARTING, TP_STATE_ERROR);
	if (old != TP_STATE_RUNNING && old != TP_STATE_STARTING)
		return;		/* said once; the session is ending anyway */
	tp_transport_stderr(line, strlen(line));
	tp_transport_request_exit();
}

/*
 * Run the probes of @kind in ascending priority, ties in script order
 * (the order of tapir_module.probes). Each checks the session state
 * itself, so an error in one keeps the rest of its kind from running.
 */
static void tp_run_ordered(enum tp_probe_kind kind)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int n = tapir_module.nprobes, i;
	const struct tp_probe *last = NULL;

	for (;;) {
		const struct tp_probe *next = NULL;

		for (i = 0; i < n; i++) {
			const struct tp_probe *p = &v[i];

			if (p->kind != kind)
				continue;
			if (last && (p->priority < last->priority ||
				     (p->priority == last->priority && p <= last)))
				continue;
			if (!next || p->priority < next->priority)
				next = p;
		}
		if (!next)
			return;
		tp_run_probe(next, NULL, 0, NULL);
		last = next;
	}
}

/* Where the script's global variables are (struct tp_reloc). */
static void tp_relocs_resolve(void)
{
	unsigned int i;

	for (i = 0; i < tapir_module.nrelocs; i++)
		*tapir_module.relocs[i].addr =
			kcore_lookup_name(tapir_module.relocs[i].name);
}

int tp_session_start(void)
{
	const char *failed = NULL;
	int rc;

	mutex_lock(&tp_session_mutex);
	if (tp_started || atomic_read(&tp_state) != TP_STATE_STARTING) {
		mutex_unlock(&tp_session_mutex);
		return -EBUSY;
	}
	tp_started = true;

	tp_relocs_resolve();
	tp_usym_start();
	tp_run_ordered(TP_PROBE_BEGIN);

	rc = tp_timers_start(&failed);
	if (rc == 0)
		rc = tp_kprobes_start();
	if (rc == 0)
		rc = tp_uprobes_start();
	if (rc == 0)
		rc = tp_tracepoints_start();
	if (rc == 0)
		rc = tp_netfilter_start(&failed);
	if (rc == 0)
		rc = tp_perf_start(&failed);
	if (rc == 0)
		rc = tp_hwbkpt_start(&failed);
	if (rc == 0)
		rc = tp_procfs_start(&failed);
	if (rc) {
		/* As stap when a probe cannot be placed: say which, undo,
		 * run the error probes; the run is over. */
		scnprintf(tp_session_msg, sizeof(tp_session_msg),
			  "ERROR: probe %s registration error [man warning::pass5] (rc %d)\n",
			  failed ? failed : "?", rc);
		tp_transport_stderr(tp_session_msg, strlen(tp_session_msg));
		atomic_set(&tp_state, TP_STATE_ERROR);
		tp_timers_stop();
		tp_kprobes_stop();
		tp_uprobes_stop();
		tp_tracepoints_stop();
		tp_netfilter_stop();
		tp_perf_stop();
		tp_hwbkpt_stop();
		tp_procfs_stop();
		synchronize_rcu();
		tp_contexts_wait();
		tp_run_ordered(TP_PROBE_ERROR);
		atomic_set(&tp_state, TP_STATE_STOPPED);
		mutex_unlock(&tp_session_mutex);
		return rc;
	}
	atomic_cmpxchg(&tp_state, TP_STATE_STARTING, TP_STATE_RUNNING);
	tp_uprobes_running();
	mutex_unlock(&tp_session_mutex);
	return 0;
}

static __printf(1, 2) void tp_warnf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(tp_session_msg, sizeof(tp_session_msg), fmt, ap);
	va_end(ap);
	tp_transport_stderr(tp_session_msg, n);
}

#ifdef STP_TIMING
/* A line of the -t report: standard output, as stap's. */
static __printf(1, 2) void tp_outf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vscnprintf(tp_session_msg, sizeof(tp_session_msg), fmt, ap);
	va_end(ap);
	tp_transport_write(tp_session_msg, n);
}

/* "----- probe hit report:" as stap -t prints it: the probes that ran,
 * their hits and the cycles of their handlers (lock, body, output) over
 * every CPU. */
static void tp_hit_report(void)
{
	unsigned int i;
	int cpu;

	tp_outf("----- probe hit report: \n");
	for (i = 0; i < tapir_module.nprobes; i++) {
		const struct tp_probe *p = &tapir_module.probes[i];
		struct tp_timing t = { 0 };
		u64 var = 0;

		for_each_possible_cpu(cpu) {
			struct tp_context *c = per_cpu(tp_ctx, cpu);
			const struct tp_timing *u;

			if (!c || !tp_rt(c)->timing)
				continue;
			u = &tp_rt(c)->timing[i];
			if (!u->count)
				continue;
			if (!t.count || u->min < t.min)
				t.min = u->min;
			t.max = max(t.max, u->max);
			t.count += u->count;
			t.sum += u->sum;
			t.sumsq += u->sumsq;
		}
		if (!t.count)
			continue;
		/* the sample variance, as @variance: (n sum x^2 - (sum x)^2)
		 * / (n (n - 1)), here as (sum x^2 - (sum x)^2 / n) / (n - 1) */
		if (t.count > 1)
			var = div64_u64(t.sumsq - div64_u64(t.sum * t.sum, t.count),
					t.count - 1);
		tp_outf("%s, (%s), hits: %llu, cycles: %llumin/%lluavg/%llumax, variance: %llu, from: %s, index: %u\n",
			p->pp, p->location, t.count, t.min,
			div64_u64(t.sum, t.count), t.max, var, p->pp, i);
	}
	tp_outf("----- refresh report:\n");
}

static int tp_lock_cmp(const void *a, const void *b)
{
	const struct tp_global_lock *x = *(const struct tp_global_lock *const *)a;
	const struct tp_global_lock *y = *(const struct tp_global_lock *const *)b;

	return x < y ? -1 : x > y;
}

/* The globals' locks, each once, in the order of the globals (their
 * locks' addresses); NULL when there is none. *@n: how many. */
static struct tp_global_lock **tp_locks(unsigned int *n)
{
	struct tp_global_lock **v;
	unsigned int i, j, k = 0, total = 0;

	*n = 0;
	for (i = 0; i < tapir_module.nprobes; i++)
		total += tapir_module.probes[i].nlocks;
	if (!total)
		return NULL;
	v = kmalloc_array(total, sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	for (i = 0; i < tapir_module.nprobes; i++)
		for (j = 0; j < tapir_module.probes[i].nlocks; j++)
			v[k++] = tapir_module.probes[i].locks[j].lock;
	sort(v, k, sizeof(*v), tp_lock_cmp, NULL);
	for (i = 0, j = 0; i < k; i++)
		if (!j || v[j - 1] != v[i])
			v[j++] = v[i];
	*n = j;
	return v;
}

/* The script's name of the global whose lock is @l ("tpg_locks.g_NAME"). */
static const char *tp_lock_name(const struct tp_global_lock *l)
{
	const char *s = l->name ? l->name : "?";

	if (strrchr(s, '.'))
		s = strrchr(s, '.') + 1;
	return strncmp(s, "g_", 2) ? s : s + 2;
}
#endif

void tp_session_stop(void)
{
	int errors, skipped, cut;
#ifdef STP_TIMING
	int reentrant;
	struct tp_global_lock **locks;
	unsigned int nlocks = 0, i;
#endif

	mutex_lock(&tp_session_mutex);
	if (atomic_read(&tp_state) == TP_STATE_STOPPED) {
		mutex_unlock(&tp_session_mutex);
		return;
	}
	if (!tp_started) {
		/* Never started: no probe ran, none to remove. */
		atomic_set(&tp_state, TP_STATE_STOPPED);
		mutex_unlock(&tp_session_mutex);
		return;
	}
	atomic_cmpxchg(&tp_state, TP_STATE_RUNNING, TP_STATE_STOPPING);

	/* No handler starts or runs past this. */
	tp_timers_stop();
	tp_kprobes_stop();
	tp_uprobes_stop();
	tp_tracepoints_stop();
	tp_netfilter_stop();
	tp_perf_stop();
	tp_hwbkpt_stop();
	tp_procfs_stop();
	synchronize_rcu();
	tp_contexts_wait();

	tp_run_ordered(TP_PROBE_END);
	tp_run_ordered(TP_PROBE_ERROR);

	errors = atomic_read(&tp_count.errors);
	skipped = atomic_read(&tp_count.skipped);
	cut = atomic_read(&tp_count.print_cut);
#ifdef STP_TIMING
	reentrant = atomic_read(&tp_count.reentrant);
	tp_hit_report();
	locks = tp_locks(&nlocks);
	for (i = 0; i < nlocks; i++)
		if (atomic_read(&locks[i]->contended))
			tp_outf("'__global_%s' lock contention occurred %d times\n",
				tp_lock_name(locks[i]),
				atomic_read(&locks[i]->contended));
	if (errors || skipped || reentrant) {
		tp_warnf("WARNING: Number of errors: %d, skipped probes: %d\n",
			 errors, skipped);
		for (i = 0; i < nlocks; i++)
			if (atomic_read(&locks[i]->skipped))
				tp_warnf("WARNING: Skipped due to global '__global_%s' lock timeout: %d\n",
					 tp_lock_name(locks[i]),
					 atomic_read(&locks[i]->skipped));
		if (atomic_read(&tp_count.lowstack))
			tp_warnf("WARNING: Skipped due to low stack: %d\n",
				 atomic_read(&tp_count.lowstack));
		if (reentrant)
			tp_warnf("WARNING: Skipped due to reentrancy: %d\n",
				 reentrant);
	}
	kfree(locks);
#else
	/* As stap without -t: probes skipped because this CPU was already
	 * running a handler (an interrupt during a handler) are counted but
	 * neither reported nor counted toward MAXSKIPPED. */
	if (errors || skipped)
		tp_warnf("WARNING: Number of errors: %d, skipped probes: %d\n",
			 errors, skipped);
#endif
	if (cut)
		tp_warnf("WARNING: Output of %d print calls was cut at %d bytes\n",
			 cut, TP_PRINT_BUFSIZE);

	atomic_set(&tp_state, TP_STATE_STOPPED);
	mutex_unlock(&tp_session_mutex);
}

static void tp_free_all(void)
{
	tp_hwbkpt_free();
	tp_perf_free();
	tp_netfilter_free();
	tp_uprobes_free();
	tp_usym_stop();
	tp_tracepoints_free();
	tp_procfs_free();
	tp_kprobes_free();
	tp_timers_free();
	tp_contexts_free();
}

static int __init tp_module_init(void)
{
	int rc;

	rc = tp_contexts_alloc(tapir_module.locals_size);
	if (rc)
		return rc;
	rc = tp_timers_init();
	if (rc == 0)
		rc = tp_kprobes_init();
	if (rc == 0)
		rc = tp_uprobes_init();
	if (rc == 0)
		rc = tp_tracepoints_init();
	if (rc == 0)
		rc = tp_netfilter_init();
	if (rc == 0)
		rc = tp_perf_init();
	if (rc == 0)
		rc = tp_hwbkpt_init();
	if (rc == 0)
		rc = tp_procfs_init();
	if (rc)
		goto fail;
	if (tapir_module.init_globals) {
		rc = tapir_module.init_globals();
		if (rc) {
			pr_err("%s: cannot initialize the script's globals (%d)\n",
			       THIS_MODULE->name, rc);
			goto fail;
		}
	}
	rc = tp_transport_init(module_name(THIS_MODULE));
	if (rc) {
		pr_err("%s: cannot set up the transport (%d)\n",
		       THIS_MODULE->name, rc);
		goto fail_globals;
	}
	atomic_set(&tp_state, TP_STATE_STARTING);
	return 0;

fail_globals:
	if (tapir_module.free_globals)
		tapir_module.free_globals();
fail:
	tp_free_all();
	return rc;
}

static void __exit tp_module_exit(void)
{
	tp_session_stop();
	tp_transport_exit();
	if (tapir_module.free_globals)
		tapir_module.free_globals();
	tp_free_all();
}

module_init(tp_module_init);
module_exit(tp_module_exit);
