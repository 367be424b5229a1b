// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uprobes.c - user-space probes and the task finder.
 *
 * TP_PROBE_UPROBE: process("PATH").function("f")[.return],
 * .statement(ADDR). One uprobe consumer per probe on PATH's inode at the
 * instruction's file offset (the kernel's uprobes: every process mapping
 * the file, now or later, takes the breakpoint), registered when the
 * session starts and unregistered when it stops; a return probe is a
 * consumer with only a ret_handler. The handlers run in the probed task
 * with preemption enabled; the probe body runs as every other's
 * (tp_run_probe: preemption off, never sleeps). A probe that cannot be
 * placed is reported as stap does ("WARNING: probe PP inode-offset ...
 * registration error (rc N)") and the rest runs. uprobe_register() and
 * uprobe_unregister() take the uprobes' own locks and may sleep: process
 * context only, which the session's start and stop are.
 *
 * TP_PROBE_PROCESS: process[("PATH")|(PID)].begin/.end/.thread.begin/
 * .thread.end, from three scheduler tracepoints:
 *   sched_process_exec  (the task, after the new image is in): the old
 *                       image's process.end probes run, then a task
 *                       running PATH starts being followed, and its
 *                       process.begin probes run right there;
 *   sched_process_fork  (the parent): a child process of a followed one
 *                       is followed too; process.begin (a new process)
 *                       or process.thread.begin (a new thread) run in
 *                       the child, through task_work, before it first
 *                       returns to user space;
 *   sched_process_exit  (the exiting task, its mm gone already):
 *                       process.thread.end, or process.end for the last
 *                       thread of the group; it is no longer followed.
 * Processes running when the session starts are found by walking the
 * task list: their process.begin probes run in them through task_work
 * (TWA_SIGNAL: a sleeping task runs it at once and restarts its system
 * call). Followed processes live in a preallocated table (TP_TF_MAX
 * thread groups, a spinlock); each probe on a path has a bit in a
 * group's mask. Pending task works are counted, and stopping waits until
 * they have all run (a task runs its works before it returns to user
 * space or exits), since their callback is this module's code.
 *
 * TP_PROBE_PROCESS also has process[("PATH")|(PID)].syscall[.return],
 * from the raw_syscalls tracepoints sys_enter and sys_exit, registered
 * only when a script has one (registering them makes every thread take
 * the slow system-call path): they run in the calling thread, in the
 * process the task finder follows for PATH, the thread group PID, or
 * any user thread; with c->regs the thread's user registers, from which
 * the tapset's __usys_* functions read $syscall, $argN and $return.
 */
#include <linux/binfmts.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <asm/syscall.h>
#include <asm/unistd.h>
/* (the kernel's tracepoint.h has a struct tp_module of its own, which
 * this file does not use: renamed here, away from tapir.h's) */
#define tp_module tp_kernel_tracepoint_module
#include <linux/tracepoint.h>
#undef tp_module

#include "core.h"
#include "transport.h"

/* ---- uprobes ---- */

struct tp_uprobe {
	struct uprobe_consumer uc;
	const struct tp_probe *p;
	struct inode *inode;
	struct inode *exe;		/* p->exe's, when set */
#ifdef HAVE_UPROBE_REGISTER_HANDLE
	struct uprobe *up;
#endif
	bool registered;
};

static struct tp_uprobe *tp_ups;
static unsigned int tp_nup;
static char tp_up_msg[TP_MSG_SIZE];	/* process context only */
static char tp_up_text[TP_MSG_SIZE];	/* its text, before the prefix */

/* Does the current process run u's program? A library's uprobe fires in
 * every process that maps the library; process("P").library(...) wants
 * P's only. */
static bool tp_up_exe_ok(const struct tp_uprobe *u)
{
	struct mm_struct *mm = current->mm;
	struct file *f;
	bool ok;

	if (!u->exe)
		return true;
	if (!mm)
		return false;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	ok = f && (file_inode(f) == u->exe ||
		   d_real_inode(f->f_path.dentry) == u->exe);
	rcu_read_unlock();
	return ok;
}

static int tp_up_entry(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct tp_uprobe *u = container_of(uc, struct tp_uprobe, uc);

	if (u->p->pid && task_tgid_nr(current) != u->p->pid)
		return 0;
	if (!tp_up_exe_ok(u))
		return 0;
	tp_run_probe(u->p, regs, instruction_pointer(regs), NULL);
	return 0;
}

static int tp_up_return(struct uprobe_consumer *uc, unsigned long func,
			struct pt_regs *regs)
{
	struct tp_uprobe *u = container_of(uc, struct tp_uprobe, uc);

	if (u->p->pid && task_tgid_nr(current) != u->p->pid)
		return 0;
	if (!tp_up_exe_ok(u))
		return 0;
	tp_run_probe(u->p, regs, func, NULL);
	return 0;
}

/* The inode of a path, with a reference; NULL when it is not there. */
static struct inode *tp_path_inode(const char *name)
{
	struct path path;
	struct inode *inode;

	if (kern_path(name, LOOKUP_FOLLOW, &path))
		return NULL;
	inode = igrab(d_real_inode(path.dentry));
	path_put(&path);
	return inode;
}

static void tp_up_warn(const struct tp_probe *p, long rc)
{
	/* (tp_stderr_line writes buf from text: not the same buffer) */
	snprintf(tp_up_text, sizeof(tp_up_text), "probe %s inode-offset "
		 "%#lx registration error (rc %ld)", p->pp, p->uoffset, rc);
	tp_stderr_line(tp_up_msg, sizeof(tp_up_msg), "WARNING: ",
		       tp_up_text, NULL);
}

static int tp_up_register(struct tp_uprobe *u)
{
	const struct tp_probe *p = u->p;
	long rc = 0;

	u->inode = tp_path_inode(p->path);
	if (!u->inode) {
		rc = -ENOENT;
		goto fail;
	}
	if (p->exe) {
		u->exe = tp_path_inode(p->exe);
		if (!u->exe) {
			iput(u->inode);
			u->inode = NULL;
			rc = -ENOENT;
			goto fail;
		}
	}
	if (p->is_return)
		u->uc.ret_handler = tp_up_return;
	else
		u->uc.handler = tp_up_entry;
#ifdef HAVE_UPROBE_REGISTER_HANDLE
	u->up = uprobe_register(u->inode, p->uoffset, 0, &u->uc);
	if (IS_ERR(u->up))
		rc = PTR_ERR(u->up);
#else
	rc = uprobe_register(u->inode, p->uoffset, &u->uc);
#endif
	if (!rc) {
		u->registered = true;
		return 0;
	}
	iput(u->inode);
	u->inode = NULL;
	if (u->exe)
		iput(u->exe);
	u->exe = NULL;
fail:
	/* a library that is not there is never mapped: as stap, whose
	 * library probes wait for the mapping, no warning */
	if (!p->optional && !(p->exe && rc == -ENOENT))
		tp_up_warn(p, rc);
	return rc;
}

static void tp_uprobes_stop_probes(void)
{
	unsigned int i;

	for (i = 0; i < tp_nup; i++) {
		struct tp_uprobe *u = &tp_ups[i];

		if (!u->registered)
			continue;
#ifdef HAVE_UPROBE_REGISTER_HANDLE
		uprobe_unregister_nosync(u->up, &u->uc);
#else
		/* (waits for the consumer's running handlers) */
		uprobe_unregister(u->inode, u->p->uoffset, &u->uc);
#endif
	}
#ifdef HAVE_UPROBE_REGISTER_HANDLE
	uprobe_unregister_sync();
#endif
	for (i = 0; i < tp_nup; i++) {
		struct tp_uprobe *u = &tp_ups[i];

		if (u->registered) {
			iput(u->inode);
			if (u->exe)
				iput(u->exe);
		}
		u->registered = false;
		u->inode = NULL;
		u->exe = NULL;
	}
}

/* ---- the task finder ---- */

#ifndef TP_TF_MAX
#define TP_TF_MAX 1024		/* followed thread groups */
#endif
#define TP_TF_WORKS 256		/* task works in flight */
#define TP_TF_TARGETS 32	/* paths of process events */

struct tp_tf_group {
	pid_t tgid;		/* 0: a free slot */
	u32 mask;		/* the targets it runs */
};

struct tp_tf_work {
	struct callback_head cb;
	enum tp_proc_event event;
	u32 mask;
	bool busy;
};

static const struct tp_probe **tp_tf_probes;	/* TP_PROBE_PROCESS */
static unsigned int tp_ntf;
static struct inode *tp_tf_inode[TP_TF_TARGETS];
static const char *tp_tf_path[TP_TF_TARGETS];
static unsigned int tp_ntargets;
static u8 *tp_tf_target;		/* per probe: its target, or 0xff */
static struct tp_tf_group *tp_tf_groups;
static struct tp_tf_work *tp_tf_works;
static DEFINE_SPINLOCK(tp_tf_lock);
static atomic_t tp_tf_pending = ATOMIC_INIT(0);
static bool tp_tf_on;			/* tracepoints registered */

static struct tracepoint *tp_tp_exec, *tp_tp_fork, *tp_tp_exit;
static struct tracepoint *tp_tp_sys_enter, *tp_tp_sys_exit;
static unsigned int tp_nsys;		/* .syscall[.return] probes */
static bool tp_sys_path;		/* one of them on a PATH */
static bool tp_sys_on;

/* The group's mask, 0 when it is not followed. */
static u32 tp_tf_mask(pid_t tgid)
{
	unsigned long flags;
	u32 m = 0;
	int i;

	spin_lock_irqsave(&tp_tf_lock, flags);
	for (i = 0; i < TP_TF_MAX; i++)
		if (tp_tf_groups[i].tgid == tgid) {
			m = tp_tf_groups[i].mask;
			break;
		}
	spin_unlock_irqrestore(&tp_tf_lock, flags);
	return m;
}

/* Follow tgid with mask (0: forget it). */
static void tp_tf_set(pid_t tgid, u32 mask)
{
	unsigned long flags;
	int i, free = -1;

	spin_lock_irqsave(&tp_tf_lock, flags);
	for (i = 0; i < TP_TF_MAX; i++) {
		if (tp_tf_groups[i].tgid == tgid) {
			tp_tf_groups[i].mask = mask;
			if (!mask)
				tp_tf_groups[i].tgid = 0;
			goto out;
		}
		if (!tp_tf_groups[i].tgid && free < 0)
			free = i;
	}
	if (mask && free >= 0) {
		tp_tf_groups[free].tgid = tgid;
		tp_tf_groups[free].mask = mask;
	} else if (mask) {
		atomic_inc(&tp_count.skipped);
	}
out:
	spin_unlock_irqrestore(&tp_tf_lock, flags);
}

/* The targets (bits) whose file is inode. */
static u32 tp_tf_match(struct inode *inode)
{
	u32 m = 0;
	unsigned int t;

	for (t = 0; inode && t < tp_ntargets; t++)
		if (tp_tf_inode[t] == inode)
			m |= 1U << t;
	return m;
}

/* Is the current task the target process (-c, -x) or a descendant of
 * it, or is there no target? */
static bool tp_tf_in_target(void)
{
	pid_t target = tp_transport_target_pid();
	struct task_struct *t;
	bool in = false;

	if (target <= 0)
		return true;
	rcu_read_lock();
	for (t = current; t->pid; t = rcu_dereference(t->real_parent))
		if (task_tgid_nr(t) == target) {
			in = true;
			break;
		}
	rcu_read_unlock();
	return in;
}

/* Run the probes of event for the current task, whose group runs the
 * targets in mask; regs: the user registers (system calls), or NULL.
 * Under -c or -x, a probe of any process (process.begin, .end, .thread.*)
 * and a system call probe of a PID fire only in the target's process
 * tree, as stap's (uprobe-run any-tree, syscall-pid). */
static void tp_tf_fire_regs(enum tp_proc_event event, u32 mask,
			    struct pt_regs *regs)
{
	pid_t tgid = task_tgid_nr(current);
	int in_target = -1;		/* not looked at yet */
	unsigned int i;

	for (i = 0; i < tp_ntf; i++) {
		const struct tp_probe *p = tp_tf_probes[i];

		if (p->event != event)
			continue;
		if (p->path ? !(tp_tf_target[i] != 0xff &&
				(mask & (1U << tp_tf_target[i]))) :
			      p->pid && p->pid != tgid)
			continue;
		if (!p->path && (regs || !p->pid)) {
			if (in_target < 0)
				in_target = tp_tf_in_target();
			if (!in_target)
				continue;
		}
		tp_run_probe(p, regs, regs ? instruction_pointer(regs) : 0,
			     NULL);
	}
}

static void tp_tf_fire(enum tp_proc_event event, u32 mask)
{
	tp_tf_fire_regs(event, mask, NULL);
}

/* Does any probe of event apply to a group with mask? */
static bool tp_tf_wanted(enum tp_proc_event event, u32 mask, pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < tp_ntf; i++) {
		const struct tp_probe *p = tp_tf_probes[i];

		if (p->event != event)
			continue;
		if (p->path ? tp_tf_target[i] != 0xff &&
			      (mask & (1U << tp_tf_target[i])) :
			      !p->pid || p->pid == tgid)
			return true;
	}
	return false;
}

static void tp_tf_work_run(struct callback_head *cb)
{
	struct tp_tf_work *w = container_of(cb, struct tp_tf_work, cb);
	enum tp_proc_event event = w->event;
	u32 mask = w->mask;

	WRITE_ONCE(w->busy, false);
	if (!(current->flags & PF_EXITING))
		tp_tf_fire(event, mask);
	/* last: stopping waits for this before the module goes */
	atomic_dec(&tp_tf_pending);
}

/* Run event's probes in task t, as soon as it runs (any context). */
static void tp_tf_queue(struct task_struct *t, enum tp_proc_event event,
			u32 mask, enum task_work_notify_mode how)
{
	unsigned int i;

	for (i = 0; i < TP_TF_WORKS; i++) {
		struct tp_tf_work *w = &tp_tf_works[i];

		if (READ_ONCE(w->busy) || cmpxchg(&w->busy, false, true))
			continue;
		w->event = event;
		w->mask = mask;
		init_task_work(&w->cb, tp_tf_work_run);
		atomic_inc(&tp_tf_pending);
		if (task_work_add(t, &w->cb, how)) {
			/* the task is exiting */
			atomic_dec(&tp_tf_pending);
			WRITE_ONCE(w->busy, false);
		}
		return;
	}
	atomic_inc(&tp_count.skipped);
}

static void tp_tf_exec(void *data, struct task_struct *p, pid_t old_pid,
		       struct linux_binprm *bprm)
{
	pid_t tgid = task_tgid_nr(p);
	u32 mask;

	/* the old image ends (as in stap: the task has the new name) */
	tp_tf_fire(TP_PROC_END, tp_tf_mask(tgid));
	mask = bprm->file ? tp_tf_match(file_inode(bprm->file)) : 0;
	tp_tf_set(tgid, mask);
	tp_tf_fire(TP_PROC_BEGIN, mask);
}

static void tp_tf_fork(void *data, struct task_struct *parent,
		       struct task_struct *child)
{
	pid_t tgid = task_tgid_nr(child);
	bool thread = tgid == task_tgid_nr(parent);
	u32 mask = tp_tf_mask(task_tgid_nr(parent));
	enum tp_proc_event ev = thread ? TP_PROC_THREAD_BEGIN : TP_PROC_BEGIN;

	if (child->flags & PF_KTHREAD)
		return;
	if (!thread && mask)
		tp_tf_set(tgid, mask);
	if (tp_tf_wanted(ev, mask, tgid))
		tp_tf_queue(child, ev, mask, TWA_RESUME);
}

static void tp_tf_exit(void *data, struct task_struct *p)
{
	pid_t tgid = task_tgid_nr(p);
	bool last = atomic_read(&p->signal->live) == 0;
	u32 mask;

	if (p->flags & PF_KTHREAD)
		return;
	mask = tp_tf_mask(tgid);
	tp_tf_fire(last ? TP_PROC_END : TP_PROC_THREAD_END, mask);
	if (last && mask)
		tp_tf_set(tgid, 0);
}

static bool tp_tf_is_exec(long nr)
{
#if defined(CONFIG_X86_64) && defined(CONFIG_IA32_EMULATION)
	if (in_ia32_syscall())
		return nr == 11 || nr == 358;	/* ia32 execve, execveat */
#endif
	return nr == __NR_execve || nr == __NR_execveat;
}

/* raw_syscalls:sys_enter and sys_exit (any context a system call
 * enters or leaves in: preemption may be on). */
static void tp_tf_syscall(enum tp_proc_event event, struct pt_regs *regs)
{
	u32 mask = 0;

	if (current->flags & PF_KTHREAD)
		return;
	if (tp_sys_path)
		mask = tp_tf_mask(task_tgid_nr(current));
	/* A successful exec does not return to the old image, and a
	 * process("PATH") is followed from its new image on: PATH's
	 * .syscall.return probes do not see it (as stap's). */
	if (mask && event == TP_PROC_SYSCALL_RETURN &&
	    tp_tf_is_exec(syscall_get_nr(current, regs)) &&
	    syscall_get_return_value(current, regs) == 0)
		mask = 0;
	tp_tf_fire_regs(event, mask, regs);
}

static void tp_tf_sys_enter(void *data, struct pt_regs *regs, long id)
{
	tp_tf_syscall(TP_PROC_SYSCALL, regs);
}

static void tp_tf_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	tp_tf_syscall(TP_PROC_SYSCALL_RETURN, regs);
}

static void tp_tf_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		tp_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		tp_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		tp_tp_exit = tp;
	else if (!strcmp(tp->name, "sys_enter"))
		tp_tp_sys_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		tp_tp_sys_exit = tp;
}

/* The processes running when the session starts. */
static void tp_tf_existing(void)
{
	struct task_struct *t;

	rcu_read_lock();
	for_each_process(t) {
		struct file *exe = NULL;
		u32 mask = 0;

		if (t->flags & (PF_KTHREAD | PF_EXITING))
			continue;
		task_lock(t);
		if (t->mm)
			exe = rcu_dereference(t->mm->exe_file);
		if (exe)
			mask = tp_tf_match(file_inode(exe));
		task_unlock(t);
		if (mask)
			tp_tf_set(task_tgid_nr(t), mask);
		if (tp_tf_wanted(TP_PROC_BEGIN, mask, task_tgid_nr(t)))
			tp_tf_queue(t, TP_PROC_BEGIN, mask, TWA_SIGNAL);
	}
	rcu_read_unlock();
}

static int tp_tf_start(void)
{
	int rc;

	if (!tp_ntf)
		return 0;
	for_each_kernel_tracepoint(tp_tf_find, NULL);
	if (!tp_tp_exec || !tp_tp_fork || !tp_tp_exit) {
		tp_fatal("ERROR: the scheduler's process tracepoints are "
			 "missing: process probes cannot run\n");
		return -ENOENT;
	}
	rc = tracepoint_probe_register(tp_tp_exec, tp_tf_exec, NULL);
	if (rc)
		return rc;
	rc = tracepoint_probe_register(tp_tp_fork, tp_tf_fork, NULL);
	if (rc)
		goto no_fork;
	rc = tracepoint_probe_register(tp_tp_exit, tp_tf_exit, NULL);
	if (rc)
		goto no_exit;
	tp_tf_on = true;
	if (!tp_nsys)
		return 0;
	if (!tp_tp_sys_enter || !tp_tp_sys_exit) {
		tp_fatal("ERROR: the raw_syscalls tracepoints are missing: "
			 "process(...).syscall probes cannot run\n");
		return -ENOENT;
	}
	rc = tracepoint_probe_register(tp_tp_sys_enter, tp_tf_sys_enter, NULL);
	if (rc)
		return rc;
	rc = tracepoint_probe_register(tp_tp_sys_exit, tp_tf_sys_exit, NULL);
	if (rc) {
		tracepoint_probe_unregister(tp_tp_sys_enter, tp_tf_sys_enter,
					    NULL);
		tracepoint_synchronize_unregister();
		return rc;
	}
	tp_sys_on = true;
	return 0;
no_exit:
	tracepoint_probe_unregister(tp_tp_fork, tp_tf_fork, NULL);
no_fork:
	tracepoint_probe_unregister(tp_tp_exec, tp_tf_exec, NULL);
	tracepoint_synchronize_unregister();
	return rc;
}

static void tp_tf_stop(void)
{
	if (tp_sys_on) {
		tracepoint_probe_unregister(tp_tp_sys_exit, tp_tf_sys_exit,
					    NULL);
		tracepoint_probe_unregister(tp_tp_sys_enter, tp_tf_sys_enter,
					    NULL);
		tp_sys_on = false;
	}
	if (tp_tf_on) {
		tracepoint_probe_unregister(tp_tp_exit, tp_tf_exit, NULL);
		tracepoint_probe_unregister(tp_tp_fork, tp_tf_fork, NULL);
		tracepoint_probe_unregister(tp_tp_exec, tp_tf_exec, NULL);
		tracepoint_synchronize_unregister();
		tp_tf_on = false;
	}
	/* every queued work runs before its task returns to user space or
	 * exits; none is queued any more */
	while (atomic_read(&tp_tf_pending))
		msleep(1);
}

/* ---- the session's calls (core.h) ---- */

int tp_uprobes_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, nup = 0, ntf = 0;

	for (i = 0; i < tapir_module.nprobes; i++) {
		if (v[i].kind == TP_PROBE_UPROBE)
			nup++;
		else if (v[i].kind == TP_PROBE_PROCESS)
			ntf++;
	}
	if (nup) {
		tp_ups = kcalloc(nup, sizeof(*tp_ups), GFP_KERNEL);
		if (!tp_ups)
			goto nomem;
	}
	if (ntf) {
		tp_tf_probes = kcalloc(ntf, sizeof(*tp_tf_probes), GFP_KERNEL);
		tp_tf_target = kcalloc(ntf, 1, GFP_KERNEL);
		tp_tf_groups = kcalloc(TP_TF_MAX, sizeof(*tp_tf_groups),
				       GFP_KERNEL);
		tp_tf_works = kcalloc(TP_TF_WORKS, sizeof(*tp_tf_works),
				      GFP_KERNEL);
		if (!tp_tf_probes || !tp_tf_target || !tp_tf_groups ||
		    !tp_tf_works)
			goto nomem;
	}
	for (i = 0; i < tapir_module.nprobes; i++) {
		const struct tp_probe *p = &v[i];

		if (p->kind == TP_PROBE_UPROBE) {
			tp_ups[tp_nup++].p = p;
		} else if (p->kind == TP_PROBE_PROCESS) {
			unsigned int t;

			tp_tf_target[tp_ntf] = 0xff;
			if (p->path) {
				for (t = 0; t < tp_ntargets; t++)
					if (!strcmp(tp_tf_path[t], p->path))
						break;
				if (t == tp_ntargets && t < TP_TF_TARGETS)
					tp_tf_path[tp_ntargets++] = p->path;
				if (t < tp_ntargets)
					tp_tf_target[tp_ntf] = t;
			}
			if (p->event == TP_PROC_SYSCALL ||
			    p->event == TP_PROC_SYSCALL_RETURN) {
				tp_nsys++;
				if (p->path)
					tp_sys_path = true;
			}
			tp_tf_probes[tp_ntf++] = p;
		}
	}
	return 0;
nomem:
	tp_uprobes_free();
	return -ENOMEM;
}

int tp_uprobes_start(void)
{
	unsigned int i;
	int rc;

	/* (a path not there now is followed by nobody: no error, as stap) */
	for (i = 0; i < tp_ntargets; i++)
		tp_tf_inode[i] = tp_path_inode(tp_tf_path[i]);
	rc = tp_tf_start();
	if (rc)
		return rc;
	/* in probe order: the kernel runs a uprobe's consumers newest
	 * first, so of two probes at one address (a function's inline
	 * copy under .function and .call) the later one fires first, as
	 * stap 4.8's do (uprobe-run inline-any) */
	for (i = 0; i < tp_nup; i++)
		tp_up_register(&tp_ups[i]);
	return 0;
}

void tp_uprobes_running(void)
{
	if (tp_tf_on)
		tp_tf_existing();
}

void tp_uprobes_stop(void)
{
	unsigned int i;

	tp_uprobes_stop_probes();
	tp_tf_stop();
	for (i = 0; i < tp_ntargets; i++) {
		if (tp_tf_inode[i])
			iput(tp_tf_inode[i]);
		tp_tf_inode[i] = NULL;
	}
}

void tp_uprobes_free(void)
{
	kfree(tp_ups);
	kfree(tp_tf_probes);
	kfree(tp_tf_target);
	kfree(tp_tf_groups);
	kfree(tp_tf_works);
	tp_ups = NULL;
	tp_tf_probes = NULL;
	tp_tf_target = NULL;
	tp_tf_groups = NULL;
	tp_tf_works = NULL;
	tp_nup = tp_ntf = tp_ntargets = tp_nsys = 0;
	tp_sys_path = false;
}
