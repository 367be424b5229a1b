// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usym.c - user-space symbols and backtraces.
 *
 * Pass 3 writes, for each binary of interest (-d PATH, the
 * process("PATH") probes' programs, and their shared libraries with
 * --ldd), a struct tp_ubin: its PT_LOAD segments, its
 * function and object symbols sorted by address, and an unwind table
 * (tapir.h). The unwind table is computed at translate time from the
 * binary's .eh_frame through libdw's CFI interpreter (one row per range
 * of addresses where the CFA and the saved %rbp and return address keep
 * the same rule), so that the module never interprets DWARF call frame
 * instructions: a lookup is a binary search, an unwinding step three
 * user reads at most, and a binary the tables do not describe ends the
 * backtrace instead of being guessed at.
 *
 * A task's address maps to a binary through the task's VMA covering it:
 * the file mapped there (compared by inode with the binaries', which
 * are looked up when the session starts) and the file offset, which
 * the binary's segments turn into a link-time address. Handlers run in
 * atomic context, so the VMA is looked up under mmap_read_trylock()
 * only: a task whose mappings are being changed right then gets no
 * answer (-EBUSY; the address prints in hex), never a wait. In NMI
 * context (perf probes) nothing is looked up. User memory is read with
 * copy_from_user_nofault(), which fails instead of faulting pages in.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "core.h"

/* The binaries' inodes, in tapir_module.ubins' order (NULL: not there). */
static struct inode **tp_ubin_inodes;

/* "Missing unwind data" once per binary of a session (the first few). */
static const char *tp_uwarned[8];
static DEFINE_SPINLOCK(tp_uwarn_lock);

/* Without memory for the table, no address is known: they print in hex. */
void tp_usym_start(void)
{
	unsigned int i;

	if (!tapir_module.nubins)
		return;
	tp_ubin_inodes = kcalloc(tapir_module.nubins, sizeof(*tp_ubin_inodes),
				 GFP_KERNEL);
	if (!tp_ubin_inodes)
		return;
	for (i = 0; i < tapir_module.nubins; i++) {
		struct path path;

		if (kern_path(tapir_module.ubins[i].path, LOOKUP_FOLLOW, &path))
			continue;
		tp_ubin_inodes[i] = igrab(d_inode(path.dentry));
		path_put(&path);
	}
}

void tp_usym_stop(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tp_uwarned); i++) {
		kfree(tp_uwarned[i]);
		tp_uwarned[i] = NULL;
	}
	if (!tp_ubin_inodes)
		return;
	for (i = 0; i < tapir_module.nubins; i++)
		if (tp_ubin_inodes[i])
			iput(tp_ubin_inodes[i]);
	kfree(tp_ubin_inodes);
	tp_ubin_inodes = NULL;
}

/* Where addr is in the current task: the file mapped there (its path,
 * the address's offset from the file's lowest mapping, the span of its
 * mappings) and, for a binary of the tables, the binary and the
 * link-time address. */
struct tp_uloc {
	const struct tp_ubin *bin;	/* NULL: not in the tables */
	unsigned long vaddr;
	const char *path;
	unsigned long modoff, modsize;
};

/* Room for a path of a file not in the tables (d_path), per CPU: the
 * handlers run with preemption off and do not nest on a CPU. */
#define TP_UPATH_LEN 256
static DEFINE_PER_CPU(char[TP_UPATH_LEN], tp_upath);

static const struct tp_ubin *tp_ubin_of(struct inode *inode, unsigned long off,
					unsigned long *vaddr)
{
	unsigned int i, k;

	for (i = 0; i < tapir_module.nubins; i++) {
		const struct tp_ubin *b = &tapir_module.ubins[i];

		if (tp_ubin_inodes[i] != inode)
			continue;
		for (k = 0; k < b->nsegs; k++) {
			const struct tp_useg *s = &b->segs[k];

			if (off >= s->offset && off - s->offset < s->filesz) {
				*vaddr = off - s->offset + s->vaddr;
				return b;
			}
		}
		return NULL;
	}
	return NULL;
}

/* span: also the file's offset and span (a walk over the task's VMAs);
 * the unwinder needs neither. */
static int tp_ulocate(unsigned long addr, struct tp_uloc *l, bool span)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma, *v;
	struct inode *inode;
	unsigned long lo, hi;
	int rc = -ENOENT;

	if (!mm || (current->flags & PF_KTHREAD))
		return -ENOENT;
	if (in_nmi() || !mmap_read_trylock(mm))
		return -EBUSY;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || !vma->vm_file)
		goto out;
	inode = file_inode(vma->vm_file);
	/* the file's mappings: the binary's segments */
	lo = vma->vm_start;
	hi = vma->vm_end;
	if (span) {
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, v)
			if (v->vm_file && file_inode(v->vm_file) == inode) {
				lo = min(lo, v->vm_start);
				hi = max(hi, v->vm_end);
			}
	}
	l->modoff = addr - lo;
	l->modsize = hi - lo;
	l->bin = tp_ubin_inodes ? tp_ubin_of(inode, addr - vma->vm_start +
					     (vma->vm_pgoff << PAGE_SHIFT),
					     &l->vaddr) : NULL;
	if (l->bin) {
		l->path = l->bin->path;
	} else {
		char *buf = this_cpu_ptr(tp_upath), *p;

		p = d_path(&vma->vm_file->f_path, buf, TP_UPATH_LEN);
		if (IS_ERR(p))
			goto out;
		l->path = p;
	}
	rc = 0;
out:
	mmap_read_unlock(mm);
	return rc;
}

/* The symbol of b covering vaddr: the last one at or below it, when
 * its size reaches vaddr (pass 3 makes a symbol reach up to the next;
 * one of size 0 covers only its own address). */
static const struct tp_usym *tp_usym_find(const struct tp_ubin *b,
					  unsigned long vaddr)
{
	unsigned int lo = 0, hi = b->nsyms;
	const struct tp_usym *s;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (b->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &b->syms[lo - 1];
	if (vaddr - s->addr < s->size || vaddr == s->addr)
		return s;
	return NULL;
}

int tapir_usym(unsigned long addr, struct tapir_usym *u)
{
	const struct tp_usym *s = NULL;
	struct tp_uloc l;
	int rc = tp_ulocate(addr, &l, true);

	if (rc)
		return rc;
	u->path = l.path;
	u->modoff = l.modoff;
	u->modsize = l.modsize;
	if (l.bin)
		s = tp_usym_find(l.bin, l.vaddr);
	u->name = s ? s->name : NULL;
	u->off = s ? l.vaddr - s->addr : 0;
	u->size = s ? s->size : 0;
	u->file = NULL;
	u->line = 0;
	u->build_id = l.bin ? l.bin->build_id : NULL;
	if (l.bin && l.bin->nlines && l.vaddr >= l.bin->base &&
	    l.vaddr - l.bin->base <= U32_MAX) {
		unsigned long pc = l.vaddr - l.bin->base;
		unsigned int lo = 0, hi = l.bin->nlines;

		while (lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (l.bin->lines[mid].pc <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && l.bin->lines[lo - 1].line) {
			u->file = l.bin->files[l.bin->lines[lo - 1].file];
			u->line = l.bin->lines[lo - 1].line;
		}
	}
	return 0;
}

static void tp_uwarn_missing(const char *path)
{
	char msg[TP_UPATH_LEN + 64];
	unsigned long flags;
	unsigned int i;
	bool seen = false;

	spin_lock_irqsave(&tp_uwarn_lock, flags);
	for (i = 0; i < ARRAY_SIZE(tp_uwarned) && tp_uwarned[i]; i++)
		if (!strcmp(tp_uwarned[i], path))
			seen = true;
	if (!seen && i < ARRAY_SIZE(tp_uwarned))
		tp_uwarned[i] = kstrdup(path, GFP_ATOMIC);
	spin_unlock_irqrestore(&tp_uwarn_lock, flags);
	if (seen)
		return;
	snprintf(msg, sizeof(msg), "Missing unwind data for a module, "
		 "rerun with 'stap -d %s'", path);
	tapir_warn(msg);
}

/* The unwind row of b for vaddr, or NULL. */
static const struct tp_ucfi *tp_ucfi_find(const struct tp_ubin *b,
					  unsigned long vaddr)
{
	unsigned int lo = 0, hi = b->ncfi;
	unsigned long pc;

	if (vaddr < b->base || vaddr - b->base > U32_MAX)
		return NULL;
	pc = vaddr - b->base;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (b->cfi[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || b->cfi[lo - 1].cfa_reg == TP_UCFI_NONE)
		return NULL;
	return &b->cfi[lo - 1];
}

static bool tp_uread(unsigned long addr, unsigned long *v)
{
	return !copy_from_user_nofault(v, (const void __user *)addr,
				       sizeof(*v));
}

unsigned int tapir_ubacktrace_at(unsigned long pc, unsigned long sp,
				 unsigned long bp, unsigned long *pcs,
				 unsigned int max)
{
	unsigned int n = 0;

	if (!max || !current->mm || (current->flags & PF_KTHREAD))
		return 0;
	pcs[n++] = pc;
	while (n < max) {
		const struct tp_ucfi *r;
		unsigned long cfa, ra;
		struct tp_uloc l;

		/* a return address is past its call: look up the call's
		 * own instruction, which may end its function */
		if (tp_ulocate(n > 1 ? pc - 1 : pc, &l, false))
			break;
		if (!l.bin || !l.bin->ncfi) {
			tp_uwarn_missing(l.path);
			break;
		}
		r = tp_ucfi_find(l.bin, l.vaddr);
		if (!r || !r->ra_off)
			break;
		cfa = (r->cfa_reg == TP_UCFI_SP ? sp : bp) + r->cfa_off;
		if (!tp_uread(cfa + r->ra_off, &ra) || !ra)
			break;
		if (r->bp_off && !tp_uread(cfa + r->bp_off, &bp))
			break;
		/* the stack grows down: a caller's frame is above */
		if (cfa <= sp)
			break;
		sp = cfa;
		pc = ra;
		pcs[n++] = pc;
	}
	return n;
}

unsigned int tapir_ubacktrace(unsigned long *pcs, unsigned int max)
{
	struct pt_regs *regs = tapir_regs();

	if (!current->mm || (current->flags & PF_KTHREAD))
		return 0;
	if (!regs || !user_mode(regs))
		regs = task_pt_regs(current);
	return tapir_ubacktrace_at(instruction_pointer(regs),
				   user_stack_pointer(regs), regs->bp, pcs, max);
}
