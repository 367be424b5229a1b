/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tapir.h - the runtime API the generated C (pass 3) is written against.
 *
 * The generated file (tapir-main.c in the build folder) includes this
 * header first, then the tapsets' top-level %{ %} blocks, then defines the
 * script's globals, functions and probe handlers, and finally one
 * `const struct tp_module tapir_module` that describes all of it. The
 * runtime's own .c files (separate Kbuild objects in the same module) own
 * module_init/module_exit, the per-CPU contexts, the session state, the
 * print buffers, error reporting, probe registration (begin/end/error,
 * timers, kprobes through kernel-core) and the transport to the loader.
 *
 * Execution model of one probe hit (tp_run_probe):
 *   claim this CPU's context (busy: count a skipped probe, return)
 *   -> check the session state (only `end`/`error` probes run while
 *      stopping) -> take the probe's global locks (trylock, MAXTRYLOCK
 *      tries, else skip) -> reset the action count, nesting, error
 *   -> call probe->handler(c) -> release the locks -> report an error
 *   -> flush this CPU's print buffer -> release the context.
 * Handlers run with preemption disabled and never sleep.
 */
#ifndef TAPIR_RUNTIME_TAPIR_H
#define TAPIR_RUNTIME_TAPIR_H

#include "compat.h"
#include "format.h"
#include "stat.h"
#include "map.h"
#include "regex.h"

#ifdef __KERNEL__
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/compiler.h>
#include <linux/version.h>	/* KERNEL_VERSION() for embedded C */
#endif

/* ---- Limits (SystemTap's names and defaults; -D NAME=VAL overrides) ---- */
#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 1000
#endif
#ifndef MINSTACKSPACE
#define MINSTACKSPACE 1024
#endif
#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

/*
 * Other -D switches the runtime reads (stap's names):
 *   STAP_SUPPRESS_HANDLER_ERRORS  --suppress-handler-errors: runtime
 *       errors are counted, not printed, and neither MAXERRORS nor
 *       MAXSKIPPED ends the run
 *   STP_TIMING  -t: each probe's hits and cycles are counted, and the
 *       end of the run prints stap's "----- probe hit report:" (a line
 *       per probe that ran) and the global locks' contention on standard
 *       output, then with the skipped probes the cause of each: "Skipped
 *       due to global '__global_NAME' lock timeout: N", "... low stack",
 *       "... reentrancy" (probes that hit while their CPU ran a handler;
 *       without -t they are counted silently, as stap does) and the
 *       kprobe and kretprobe misses of each probe point
 *   TRYLOCKDELAY  microseconds between tries of a global's lock (10)
 *   TP_PRINT_BUFSIZE  bytes of each CPU's print buffer (8192)
 */

/* ---- The per-CPU probe context ---- */
struct tp_probe;

struct tp_context {
	const struct tp_probe *probe;	/* the running probe */
	struct pt_regs *regs;		/* NULL: begin/end/error/timers */
	struct pt_regs *sregs;		/* a system call's own registers, set
					 * by the syscall aliases: NULL at
					 * each hit's start */
	unsigned long addr;		/* tapir_probe_addr() */
	void *data;			/* kretprobe per-instance data */
	long actions;			/* statements run: tp_run_probe sets 0 */
	long max_actions;		/* this hit's budget: the generated code
					 * raises "MAXACTION exceeded" once
					 * actions > max_actions. stap 4.8 runs
					 * every probe "interruptible" and so
					 * gives each MAXACTION_INTERRUPTIBLE;
					 * the runtime sets that (constant) */
	int nesting;			/* function call depth, vs MAXNESTING */
	bool aborted;			/* abort(): stop, report nothing */
	const char *last_error;		/* NULL: none; else error_buf or a
					 * string literal */
	const char *last_stmt;		/* "near" text: "operator '/' at
					 * t.stp:3:11"; may be NULL */
	char error_buf[MAXSTRINGLEN];
	void *locals;			/* tapir_module.locals_size bytes of
					 * this CPU (the generated frames) */
	struct tp_regex_last *regex;	/* the hit's last =~ or !~ (in the
					 * frames), NULL before the first:
					 * matched(), ngroups(); the probe
					 * handlers of a program with =~ reset
					 * it (others never set it) */
	/* runtime-private below: the print buffer, the backtrace cache... */
	void *rt;
};

/*
 * tp_error - raise a runtime error: the first one of a hit wins (later
 * calls do nothing), printf-style message into c->error_buf, then
 * c->last_error points at it. The generated code checks c->last_error
 * after anything that can fail and jumps out (or to a catch block).
 * When the handler returns with c->last_error set (and c->aborted not),
 * tp_run_probe prints "ERROR: <last_error> near <last_stmt>" (without
 * " near ..." when last_stmt is NULL) and counts it toward MAXERRORS.
 */
__printf(2, 3) void tp_error(struct tp_context *c, const char *fmt, ...);

/* The context of the running handler on this CPU, or NULL. */
struct tp_context *tp_current(void);

/* ---- Global locks ---- */

/*
 * One per script global that probes touch. A probe lists the globals it
 * uses (sorted by address, so lock order is global) with read or write
 * intent; tp_run_probe takes them all before the body and drops them
 * after. A statistics scalar that the probe only adds to (<<<) is taken
 * for read: its cells are per CPU.
 */
struct tp_global_lock {
	atomic_t cnt;		/* 0 free, > 0 readers, -1 a writer; only
				 * ever tried (inline, runtime/core.h),
				 * never waited on */
	atomic_t contended;	/* hits that found it taken (-t) */
	atomic_t skipped;	/* hits skipped: MAXTRYLOCK tries failed */
	const char *name;	/* "tpg_locks.g_NAME": -t's reports name
				 * the global NAME */
};
#define TP_GLOBAL_LOCK_INIT(nm) { .cnt = ATOMIC_INIT(0), .name = #nm }

struct tp_lock_use {
	struct tp_global_lock *lock;
	bool write;
};

/* ---- Probes ---- */

struct kcore_probe;
struct kprobe;
struct kretprobe_instance;

enum tp_probe_kind {
	TP_PROBE_BEGIN,
	TP_PROBE_END,
	TP_PROBE_ERROR,
	TP_PROBE_TIMER,			/* timer.s/ms/us/ns/hz/jiffies */
	TP_PROBE_PROFILE,		/* timer.profile */
	TP_PROBE_KPROBE,		/* kprobe.function(...)[.return] */
	TP_PROBE_NEVER,
	TP_PROBE_UPROBE,		/* process("p").function("f")[.return],
					 * .statement(ADDR) */
	TP_PROBE_PROCESS,		/* process.begin/end/thread.begin/... */
	TP_PROBE_TRACEPOINT,		/* kernel.trace("name") */
	TP_PROBE_NETFILTER,		/* netfilter.pf("P").hook("H") */
	TP_PROBE_PERF,			/* perf.type(T).config(C).sample(N) */
	TP_PROBE_PROCFS,		/* procfs("path").read/.write */
	TP_PROBE_HWBKPT,		/* kernel.data(A).length(N).write/.rw */
};

/* The task finder's events (runtime/uprobes.c). */
enum tp_proc_event {
	TP_PROC_BEGIN = 1,
	TP_PROC_END,
	TP_PROC_THREAD_BEGIN,
	TP_PROC_THREAD_END,
	TP_PROC_SYSCALL,		/* a followed thread enters a system
					 * call (raw_syscalls:sys_enter) */
	TP_PROC_SYSCALL_RETURN,		/* ... returns from one (sys_exit) */
};

struct tp_probe {
	enum tp_probe_kind kind;
	const char *pp;			/* pp(): `kprobe.function("x").return` */
	const char *pn;			/* pn(): the script's point, aliases
					 * and wildcards expanded: `vfs.read` */
	const char *location;		/* "t.stp:3:1", for messages */
	void (*handler)(struct tp_context *c);
	const struct tp_lock_use *locks;
	unsigned int nlocks;

	/* TP_PROBE_BEGIN/END/ERROR */
	s64 priority;			/* begin(-1): run in ascending order,
					 * then in script order */

	/* TP_PROBE_TIMER */
	bool hrtimer;			/* .s/.ms/.us/.ns: hrtimer; .hz and
					 * .jiffies: timer_list */
	u64 interval;			/* nanoseconds (hrtimer) or jiffies */
	u64 randomize;			/* same unit; 0: none */
	bool hz;			/* interval is a frequency (timer.hz) */

	/* TP_PROBE_KPROBE */
	const char *symbol;
	const char *module;		/* NULL: the kernel */
	unsigned long offset;
	unsigned long address;		/* .absolute (-g): symbol is NULL */
	bool is_return;
	int maxactive;			/* 0: default (KRETACTIVE) */
	bool optional;			/* `?`: failure to place is silent */
	bool warn_address;		/* a refusal warning names the
					 * address, as stap's for the DWARF
					 * probes it places by address */
	/* Optional: this probe's own kprobe pre-handler or kretprobe
	 * handler, made with TP_KPROBE_ENTRY / TP_KPROBE_RETURN
	 * (runtime/entry.h): the kernel calls it directly (the probe
	 * core's raw_pre / raw_ret) and it calls the probe's handler
	 * directly, usually inlined, instead of through the runtime's
	 * generic ones. NULL: the generic ones. */
	int (*kentry)(struct kprobe *kp, struct pt_regs *regs);
	int (*kreturn)(struct kretprobe_instance *ri, struct pt_regs *regs);
	/* .return only, optional: the kretprobe's entry handler (values
	 * read at the function's entry, e.g. @entry() of DWARF probes) and
	 * the size of the per-instance data it fills, which the return
	 * handler sees as c->data. */
	int (*kret_entry)(struct kcore_probe *kp, struct pt_regs *regs,
			  void *data);
	size_t data_size;

	/* TP_PROBE_UPROBE (is_return and optional too), TP_PROBE_PROCESS */
	const char *path;		/* the program; NULL: any (events) */
	const char *exe;		/* UPROBE on a library of it: only in
					 * processes running this program */
	unsigned long uoffset;		/* UPROBE: the instruction's file
					 * offset in path */
	long pid;			/* process(PID), else 0: its events,
					 * or its hits of PATH's uprobes */
	enum tp_proc_event event;	/* PROCESS */
	/* TP_PROBE_TRACEPOINT: the tracepoint named tracepoint
	 * (optional: `?`, no warning when it is not there), and the
	 * generated handler with its exact prototype, void (*)(void
	 * *data, ARGS), which hands the probe its ARGS (c->regs NULL,
	 * c->data: a struct pt_regs whose sp points at them) */
	const char *tracepoint;
	void *tp_handler;
	/* ... of the module named tp_module (NULL: the kernel's own),
	 * registered whenever that module is there */
	const char *tp_module;

	/* TP_PROBE_NETFILTER: a hook of protocol family nf_pf (NFPROTO_*)
	 * at nf_hooknum with nf_priority, in every network namespace; the
	 * handler finds the hit's struct tp_nf_hit in c->data */
	int nf_pf;
	int nf_hooknum;
	int nf_priority;

	/* TP_PROBE_PERF: a perf event (perf_event_attr's type and config)
	 * on every online CPU, the handler run every perf_period events,
	 * or perf_period times a second with perf_freq; c->regs: the
	 * registers the event interrupted */
	u32 perf_type;
	u64 perf_config;
	u64 perf_period;
	bool perf_freq;

	/* TP_PROBE_PROCFS: /proc/systemtap/MODULE/procfs, read (the
	 * handler fills the file with $value) or written (the handler
	 * reads what was written, in pieces of MAXSTRINGLEN - 1 bytes);
	 * .umask(N), else -1 (the file is 0400 or 0200); .maxsize(N) of a
	 * read, else 0 (STP_PROCFS_BUFSIZE) */
	const char *procfs;
	bool procfs_write;
	int procfs_umask;
	unsigned int procfs_maxsize;

	/* TP_PROBE_HWBKPT: a hardware watchpoint on every online CPU over
	 * hw_len bytes (rounded up to 1, 2, 4 or 8) at hw_address, or at
	 * hw_symbol's address when hw_symbol is set; written, or with
	 * hw_rw read or written; c->regs: the registers after the access */
	unsigned long hw_address;
	const char *hw_symbol;
	unsigned int hw_len;
	bool hw_rw;
};

/* A netfilter hit (runtime/netfilter.c): the hook's arguments as the
 * script's $hooknum, $skb, $in, $out and $okfn see them, and $verdict,
 * what the hook returns (NF_ACCEPT unless the handler changes it). */
struct tp_nf_hit {
	s64 hooknum;
	s64 skb;			/* struct sk_buff * */
	s64 in, out;			/* struct net_device *, or 0 */
	s64 okfn;
	s64 verdict;
};

/* ---- The module, as the generated code describes it ---- */

/*
 * A symbol whose run-time address locates global variables (DW_OP_addr
 * addresses of the debuginfo): the kernel's _stext, which moves with the
 * whole image (KASLR), or a symbol in a module's section ("mod:sym"),
 * which moves with that section. Looked up when the session starts,
 * before the begin probes; *addr stays 0 when it is not there (the
 * module is not loaded), and the reads then fail with an error.
 */
struct tp_reloc {
	const char *name;
	unsigned long *addr;
};

/*
 * The user-space binaries whose symbols and unwind rules pass 3 put in
 * the module (runtime/usym.c): the -d programs and libraries, every
 * process("PATH") probe's, and with --ldd their shared libraries. Addresses are the binary's link-time ones; the
 * runtime maps a task's address to one through the task's mapping of
 * the file and the binary's PT_LOAD segments.
 */
struct tp_useg {			/* a PT_LOAD segment */
	unsigned long offset, vaddr, filesz;
};

struct tp_usym {			/* a function or object symbol */
	unsigned long addr, size;
	const char *name;
};

/* How to find the caller's frame from pc on until the next row: the
 * CFA is cfa_reg + cfa_off, the return address is at CFA + ra_off and
 * %rbp, when bp_off is not 0, was saved at CFA + bp_off (else it is
 * unchanged). TP_UCFI_NONE: no rule (no FDE covers pc, or one this
 * table cannot express); ra_off 0: the return address is undefined
 * (the outermost frame). */
enum { TP_UCFI_NONE, TP_UCFI_SP, TP_UCFI_BP };

struct tp_ucfi {
	u32 pc;				/* link-time address - tp_ubin.base */
	s32 cfa_off;
	s16 ra_off, bp_off;
	u8 cfa_reg;			/* TP_UCFI_* */
};

/* A row of the line table: from pc on until the next row, the source
 * line of files[file]; line 0: none (the end of a sequence). */
struct tp_uline {
	u32 pc;				/* link-time address - tp_ubin.base */
	u32 line;
	u32 file;
};

struct tp_ubin {
	const char *path;		/* absolute, no symbolic links */
	const struct tp_useg *segs;
	unsigned int nsegs;
	const struct tp_usym *syms;	/* by addr */
	unsigned int nsyms;
	unsigned long base;		/* the lowest segment's vaddr */
	const char *build_id;		/* in hex, or NULL: none */
	const struct tp_ucfi *cfi;	/* by pc */
	unsigned int ncfi;
	const struct tp_uline *lines;	/* by pc; only for a program that
					 * asks for lines (usymfileline) */
	unsigned int nlines;
	const char *const *files;
};

struct tp_module {
	const char *script;		/* the script's file name, or "<input>" */
	const struct tp_probe *probes;	/* every probe, any order */
	unsigned int nprobes;
	size_t locals_size;		/* bytes of per-CPU locals (frames) */
	int (*init_globals)(void);	/* allocate maps and stats, set
					 * initial values; 0 or -errno */
	void (*free_globals)(void);
	const struct tp_reloc *relocs;	/* global variables' anchors */
	unsigned int nrelocs;
	const struct tp_ubin *ubins;	/* user-space symbols and unwind */
	unsigned int nubins;
};

extern const struct tp_module tapir_module;

/* ---- Printing (this CPU's print buffer, flushed at handler end) ---- */

void tp_print_n(struct tp_context *c, const char *s, size_t n);
void tp_print(struct tp_context *c, const char *s);
void tp_print_long(struct tp_context *c, s64 v);	/* "%d" */
/* printf with a translator-checked format; args as format.h. */
void tp_printf(struct tp_context *c, const char *fmt,
	       const struct tp_arg *args, int nargs);
/* STAP_PRINTF: the kernel's printf format. */
__printf(2, 3) void tp_kprintf(struct tp_context *c, const char *fmt, ...);
/* print(@hist_log(s)) and friends: the chart; for an empty aggregate
 * the runtime error "empty aggregate", as stap 4.8 does. */
void tp_print_hist(struct tp_context *c, const struct tp_stat_desc *d,
		   const struct tp_stat_cell *cell);
void tp_sprint_hist(char *dst, const struct tp_stat_desc *d,
		    const struct tp_stat_cell *cell);
/* Send this CPU's buffer to the transport now (log(), handler end). */
void tp_print_flush(struct tp_context *c);

/* ---- Strings: every string is a char[MAXSTRINGLEN], NUL-terminated ---- */

/* Copy/append, cutting at MAXSTRINGLEN - 1 bytes. */
void tp_str_copy(char *dst, const char *src);
void tp_str_cat(char *dst, const char *src);
/* sprintf() into a string value. */
void tp_sprintf_str(struct tp_context *c, char *dst, const char *fmt,
		    const struct tp_arg *args, int nargs);
/* sprint of a long ("%d") into a string value. */
void tp_str_long(char *dst, s64 v);

/* ---- The tapsets' runtime API: see tapsets/README.md ---- */

const char *tapir_probe_point(void);
const char *tapir_probe_name(void);
unsigned long tapir_probe_addr(void);
int tapir_is_return(void);
struct pt_regs *tapir_regs(void);
/* The registers of the system call the probe is at the entry of (the
 * syscall aliases set them), NULL elsewhere: the *_arg() functions read
 * and write the call's arguments there. */
struct pt_regs *tapir_syscall_regs(void);
void tapir_set_syscall_regs(struct pt_regs *regs);
long tapir_target_pid(void);
long tapir_loader_pid(void);
bool tapir_is_myproc(void);
void tapir_module_size(char *buf, size_t len);
int tapir_tz_gmtoff(void);
const char *tapir_tz_name(void);
void tapir_request_exit(void);
void tapir_abort(void);
void tapir_warn(const char *msg);
void tapir_log(const char *msg);
/* system(): the loader runs cmd with /bin/sh -c in the background, some
 * time after the handler (its output goes to the loader's stdout). */
void tapir_system(const char *cmd);
/* --json: whether the loader asked for it (tapir-run --json), and one
 * global's object of the end-of-run print (json.c): TYPE "scalar",
 * "map" or "stats", NKEYS keys (a map's element), NDATA values (the
 * value; a statistic's count, min, max, sum, avg, or only its count). */
extern bool tp_json_mode;
void tp_json_global(struct tp_context *c, const char *type, const char *name,
		    const struct tp_arg *keys, int nkeys,
		    const struct tp_arg *data, int ndata);
/* switch_file(): the output after this call goes to the loader's next
 * output file (-o FILE: FILE.1, FILE.2, ...; nothing without -o). */
void tapir_switch_file(void);
int tapir_symname(unsigned long addr, char *buf, size_t n);
int tapir_symdata(unsigned long addr, char *buf, size_t n);
unsigned int tapir_backtrace(unsigned long *pcs, unsigned int max);
/* A user address of the current task (runtime/usym.c): the file
 * mapped there (its path, the address's offset from the file's lowest
 * mapping, the span of the file's mappings) and the symbol covering it
 * (name NULL when none of the module's tables does). path stays valid
 * until the handler ends. */
struct tapir_usym {
	const char *path;
	unsigned long modoff, modsize;
	const char *name;
	unsigned long off, size;
	const char *file;		/* the source line there, when the */
	unsigned int line;		/* tables have lines: else NULL, 0 */
	const char *build_id;		/* a binary of the tables' build ID
					 * in hex; else NULL */
};
/* 0 with *u set; -ENOENT when no file is mapped at addr (or the task
 * has no user space); -EBUSY when the task's mappings cannot be looked
 * at without waiting. */
int tapir_usym(unsigned long addr, struct tapir_usym *u);
/* The current task's user stack, innermost first: the address user
 * space was at (the probed instruction in a user-space probe) and the
 * return addresses of the frames the binaries' unwind rules find, at
 * most max of them; 0 without a user space. */
unsigned int tapir_ubacktrace(unsigned long *pcs, unsigned int max);
/* The same walk from the given user pc, stack pointer and %rbp. */
unsigned int tapir_ubacktrace_at(unsigned long pc, unsigned long sp,
				 unsigned long bp, unsigned long *pcs,
				 unsigned int max);
/* matched(n): 0 and group n of the hit's last match in buf (MAXSTRINGLEN
 * bytes; "" for a group that took no part); -ENOENT when that match (or
 * none, before the first) has no group n; -ESRCH when it failed. */
int tapir_regex_group(struct tp_context *c, s64 n, char *buf);
/* ngroups(): the groups of the hit's last match, matched(0) included;
 * -ESRCH when it failed or there was none. */
int tapir_regex_ngroups(struct tp_context *c);

/* ---- procfs probes (runtime/procfs.c) ---- */

/* $value = s (append: $value .= s) in a procfs read probe: 0, or, when
 * the file's buffer is too small, as much as fits and a runtime error
 * naming the .maxsize() needed (-1). */
int tp_procfs_set(struct tp_context *c, const char *s, bool append);
/* $value in a procfs write probe: what was written (dst: MAXSTRINGLEN
 * bytes). */
void tp_procfs_get(struct tp_context *c, char *dst);

#ifdef __KERNEL__
#include "embedded.h"	/* kread() and the rest of SystemTap's embedded-C API */
#endif

#endif /* TAPIR_RUNTIME_TAPIR_H */
