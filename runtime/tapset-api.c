// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tapset-api.c - the tapir_* functions the tapsets' embedded C calls
 * (tapsets/README.md, "Runtime API the tapsets need"). All of them run
 * inside a probe handler, in any context including NMI: no locks, no
 * sleeping, scratch space in the running context.
 */
#include <linux/kallsyms.h>
#include <linux/cred.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "core.h"
#include "transport.h"
#include "kcore.h"

const char *tapir_probe_point(void)
{
	struct tp_context *c = tp_current();

	return c && c->probe && c->probe->pp ? c->probe->pp : "";
}

const char *tapir_probe_name(void)
{
	struct tp_context *c = tp_current();

	return c && c->probe && c->probe->pn ? c->probe->pn : "";
}

unsigned long tapir_probe_addr(void)
{
	struct tp_context *c = tp_current();

	return c ? c->addr : 0;
}

int tapir_is_return(void)
{
	struct tp_context *c = tp_current();

	return c && c->probe && c->probe->kind == TP_PROBE_KPROBE &&
	       c->probe->is_return;
}

struct pt_regs *tapir_regs(void)
{
	struct tp_context *c = tp_current();

	return c ? c->regs : NULL;
}

struct pt_regs *tapir_syscall_regs(void)
{
	struct tp_context *c = tp_current();

	return c ? c->sregs : NULL;
}

void tapir_set_syscall_regs(struct pt_regs *regs)
{
	struct tp_context *c = tp_current();

	if (c)
		c->sregs = regs;
}

long tapir_target_pid(void)
{
	return tp_transport_target_pid();
}

long tapir_loader_pid(void)
{
	return tp_transport_loader_pid();
}

/*
 * module_size(): the module's data and text, the probe contexts, the
 * transport's buffers and the script's maps and statistics, in KiB, as
 * "NNdata/NNtext/NNctx/NNnet/NNalloc kb" (stap's format).
 */
void tapir_module_size(char *buf, size_t len)
{
#ifdef HAVE_MODULE_MEM
	const struct module_memory *mem = THIS_MODULE->mem;
	unsigned long text = mem[MOD_TEXT].size;
	unsigned long data = mem[MOD_DATA].size + mem[MOD_RODATA].size +
			     mem[MOD_RO_AFTER_INIT].size;
#else
	unsigned long text = THIS_MODULE->core_layout.text_size;
	unsigned long data = THIS_MODULE->core_layout.size - text;
#endif

	snprintf(buf, len, "%ludata/%lutext/%zuctx/%zunet/%lualloc kb",
		 data / 1024, text / 1024, tp_contexts_bytes() / 1024,
		 tp_transport_bytes() / 1024,
		 atomic_long_read(&tp_data_bytes) / 1024);
}

/* Whether the current task's effective uid is the loader's real uid (the
 * user who started the script), as stap's is_myproc(). */
bool tapir_is_myproc(void)
{
	return from_kuid_munged(&init_user_ns, current_euid()) ==
	       tp_transport_loader_uid();
}

int tapir_tz_gmtoff(void)
{
	return tp_transport_tz_gmtoff();
}

const char *tapir_tz_name(void)
{
	return tp_transport_tz_name();
}

void tapir_request_exit(void)
{
	tp_request_exit();
}

void tapir_abort(void)
{
	struct tp_context *c = tp_current();

	tp_request_exit();
	if (c) {
		c->aborted = true;
		c->last_stmt = NULL;
	}
}

void tapir_warn(const char *msg)
{
	struct tp_context *c = tp_current();
	char small[128];

	if (c)
		tp_stderr_line(tp_rt(c)->msg, TP_MSG_SIZE, "WARNING: ", msg,
			       NULL);
	else
		tp_stderr_line(small, sizeof(small), "WARNING: ", msg, NULL);
}

void tapir_system(const char *cmd)
{
	tp_transport_system(cmd, strlen(cmd));
}

void tapir_switch_file(void)
{
	struct tp_context *c = tp_current();

	/* the handler's output so far belongs in the current file */
	if (c)
		tp_print_flush(c);
	tp_transport_switch_file();
}

/* ---- symbols ---- */

/*
 * sprint_symbol(): "name+0xoff/0xsize [module]" (no module part for
 * vmlinux), or "0xaddr" when no symbol covers @addr. Returns the text in
 * the context's scratch buffer, or NULL.
 */
static const char *tp_sym(unsigned long addr)
{
	struct tp_context *c = tp_current();
	char *s;

	if (!c)
		return NULL;
	s = tp_rt(c)->sym;
	sprint_symbol(s, addr);
	return strchr(s, '+') ? s : NULL;
}

static void tp_cut_copy(char *buf, size_t n, const char *s, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

int tapir_symname(unsigned long addr, char *buf, size_t n)
{
	const char *s = tp_sym(addr);

	if (!s)
		return -ENOENT;
	tp_cut_copy(buf, n, s, strcspn(s, "+"));
	return 0;
}

int tapir_symdata(unsigned long addr, char *buf, size_t n)
{
	const char *s = tp_sym(addr);

	if (!s)
		return -ENOENT;
	if (strchr(s, '['))
		tp_cut_copy(buf, n, s, strlen(s));
	else
		snprintf(buf, n, "%s [kernel]", s);
	return 0;
}

/* ---- backtraces ---- */

/*
 * Walk this CPU's stack (ORC, through the kprobe or interrupt frame) and
 * keep the part from the probe point on: pcs[0] is the probe point, then
 * the return addresses of its callers. The walk starts in the runtime;
 * the probed context begins after the entry that matches @mark:
 *   kprobe (int3, optimized)  regs->ip, one byte past the probe address;
 *   kprobe (ftrace, f+0)      the instruction after the fentry call, a
 *                             few bytes into the function;
 *   kretprobe                 the caller's return address (the unwinder
 *                             puts it back in place of the trampoline);
 *   timer.profile             regs->ip, the interrupted instruction.
 * When the walk never reaches it, only the probe point is known.
 */
static unsigned int tp_backtrace_walk(struct tp_context *c)
{
	struct tp_rt *rt = tp_rt(c);
	struct pt_regs *regs = c->regs;
	unsigned long first, lo, hi;
	unsigned int n = 0, i, keep;
	bool ret = false;

	if (!regs || user_mode(regs))
		return 0;
	if (c->probe->kind == TP_PROBE_KPROBE) {
		first = c->addr;
		if (c->probe->is_return && c->data) {
			lo = hi = kcore_ret_addr(c->data);
			ret = true;
		} else {
			lo = c->addr;
			hi = c->addr + 16;
		}
	} else {
		first = instruction_pointer(regs);
		lo = hi = first;
	}
#ifdef HAVE_STACK_TRACE_SAVE
	n = stack_trace_save(rt->bt, TP_BT_WALK, 0);
#endif
	for (i = 0; i < n; i++)
		if (rt->bt[i] >= lo && rt->bt[i] <= hi)
			break;
	rt->bt[0] = first;
	if (i >= n)
		return 1;
	/* a return probe keeps the matched entry (the return address);
	 * the others replace it with the probe point */
	keep = ret ? i : i + 1;
	for (i = 1; keep < n; i++, keep++)
		rt->bt[i] = rt->bt[keep];
	return i;
}

unsigned int tapir_backtrace(unsigned long *pcs, unsigned int max)
{
	struct tp_context *c = tp_current();
	struct tp_rt *rt;
	unsigned int n;

	if (!c || !c->probe)
		return 0;
	rt = c->rt;
	if (!rt->bt_done) {
		rt->bt_n = tp_backtrace_walk(c);
		rt->bt_done = true;
	}
	n = min(max, rt->bt_n);
	memcpy(pcs, rt->bt, n * sizeof(*pcs));
	return n;
}
