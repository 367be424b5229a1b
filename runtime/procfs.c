// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs.c - procfs("path").read/.write: files under
 * /proc/systemtap/MODULE that run a probe when they are read or written.
 *
 * As SystemTap 4.8 does, observed in the guest:
 *   - the module's folder is /proc/systemtap/MODULE (0555); /proc/systemtap
 *     is made by the first module that needs it and shared with others
 *     (stap's modules too): it goes with the last one that leaves it
 *     empty;
 *   - a file is 0400 with a read probe, 0200 with a write probe, 0600 with
 *     both; .umask(N) makes a read probe's bits 0444 & ~N and a write
 *     probe's 0222 & ~N (a file left with no bit is 0444, the kernel's
 *     rule for proc files);
 *   - a path with a '/' is refused when the session starts ("Could not
 *     create path ..., contains subdirectories"), a registration error;
 *   - reading: the read probe runs once per open file, at its first
 *     read(); its $value (at most .maxsize(N) - 1 bytes, by default
 *     STP_PROCFS_BUFSIZE - 1) is what that open file reads;
 *   - writing: each write() hands the write probes (any number, run in
 *     script order; the first one's .umask() sets the mode) at most
 *     MAXSTRINGLEN - 1 bytes as $value and returns how many it took;
 *   - a read of a file without a read probe, or a write of one without a
 *     write probe, fails with EIO (the permissions do not stop root).
 * The probes run in the reader's or writer's process context, with
 * preemption disabled like begin and end, through tp_run_probe(); the
 * buffer they fill or read is the open file's, passed as c->data.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "core.h"
#include "transport.h"

#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE MAXSTRINGLEN
#endif

#define TP_PROCFS_ROOT "systemtap"

/* One file: its read probe and its first write probe (either may be
 * NULL; the other write probes on the path follow in the table). */
struct tp_procfs_file {
	const char *path;
	const struct tp_probe *read, *write;
	struct proc_dir_entry *pde;
};

/* for each write probe p of f, in script order */
#define tp_procfs_for_writes(f, p)					\
	for (p = (f)->write; p && p < tapir_module.probes +		\
	     tapir_module.nprobes; p++)					\
		if (p->kind == TP_PROBE_PROCFS && p->procfs_write &&	\
		    strcmp(p->procfs, (f)->path) == 0)

/* An open file's buffer: c->data while its probe runs. */
struct tp_procfs_buf {
	struct mutex lock;		/* one read() or write() at a time */
	bool filled;			/* reads: the probe ran */
	size_t len, size;		/* size: bytes of data, NUL included */
	char data[];
};

static struct tp_procfs_file *tp_pfiles;
static unsigned int tp_npfiles;
static struct proc_dir_entry *tp_procfs_dir;	/* systemtap/MODULE */
static char tp_procfs_name[sizeof(TP_PROCFS_ROOT) + MODULE_NAME_LEN + 1];

int tp_procfs_set(struct tp_context *c, const char *s, bool append)
{
	struct tp_procfs_buf *b = c->data;
	size_t from = append ? b->len : 0, n = strlen(s), room;

	room = b->size - 1 - from;
	if (n > room) {
		memcpy(b->data + from, s, room);
		b->len = b->size - 1;
		b->data[b->len] = '\0';
		tp_error(c, "buffer size exceeded, consider .maxsize(%zu).",
			 from + n + 1);
		return -1;
	}
	memcpy(b->data + from, s, n + 1);
	b->len = from + n;
	return 0;
}

void tp_procfs_get(struct tp_context *c, char *dst)
{
	const struct tp_procfs_buf *b = c->data;

	tp_str_copy(dst, b->data);
}

static int tp_procfs_open(struct inode *inode, struct file *filp)
{
	const struct tp_procfs_file *f = pde_data(inode);
	struct tp_procfs_buf *b;
	size_t size = MAXSTRINGLEN;

	if (f->read && (filp->f_mode & FMODE_READ))
		size = f->read->procfs_maxsize ? f->read->procfs_maxsize :
		       STP_PROCFS_BUFSIZE;
	if (size < 1)
		size = 1;
	b = kvmalloc(sizeof(*b) + size, GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	mutex_init(&b->lock);
	b->filled = false;
	b->len = 0;
	b->size = size;
	b->data[0] = '\0';
	filp->private_data = b;
	return 0;
}

static int tp_procfs_release(struct inode *inode, struct file *filp)
{
	kvfree(filp->private_data);
	return 0;
}

static ssize_t tp_procfs_read(struct file *filp, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	const struct tp_procfs_file *f = pde_data(file_inode(filp));
	struct tp_procfs_buf *b = filp->private_data;
	ssize_t rc;

	if (!f->read || !(filp->f_mode & FMODE_READ))
		return -EIO;
	mutex_lock(&b->lock);
	if (!b->filled) {
		b->filled = true;
		tp_run_probe(f->read, NULL, 0, b);
	}
	rc = simple_read_from_buffer(ubuf, count, ppos, b->data, b->len);
	mutex_unlock(&b->lock);
	return rc;
}

static ssize_t tp_procfs_write(struct file *filp, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	const struct tp_procfs_file *f = pde_data(file_inode(filp));
	struct tp_procfs_buf *b = filp->private_data;
	size_t n = min_t(size_t, count, min_t(size_t, b->size, MAXSTRINGLEN) - 1);
	const struct tp_probe *p;

	if (!f->write)
		return -EIO;
	if (!count)
		return 0;
	mutex_lock(&b->lock);
	if (copy_from_user(b->data, ubuf, n)) {
		mutex_unlock(&b->lock);
		return -EFAULT;
	}
	b->data[n] = '\0';
	b->len = n;
	tp_procfs_for_writes(f, p)
		tp_run_probe(p, NULL, 0, b);
	mutex_unlock(&b->lock);
	*ppos += n;
	return n;
}

static const struct proc_ops tp_procfs_ops = {
	.proc_open = tp_procfs_open,
	.proc_read = tp_procfs_read,
	.proc_write = tp_procfs_write,
	.proc_lseek = default_llseek,
	.proc_release = tp_procfs_release,
};

int tp_procfs_init(void)
{
	const struct tp_probe *v = tapir_module.probes;
	unsigned int i, j, n = tp_probes_count(TP_PROBE_PROCFS);

	if (!n)
		return 0;
	tp_pfiles = kcalloc(n, sizeof(*tp_pfiles), GFP_KERNEL);
	if (!tp_pfiles)
		return -ENOMEM;
	for (i = 0; i < tapir_module.nprobes; i++) {
		const struct tp_probe *p = &v[i];
		struct tp_procfs_file *f = NULL;

		if (p->kind != TP_PROBE_PROCFS)
			continue;
		for (j = 0; j < tp_npfiles; j++)
			if (strcmp(tp_pfiles[j].path, p->procfs) == 0)
				f = &tp_pfiles[j];
		if (!f) {
			f = &tp_pfiles[tp_npfiles++];
			f->path = p->procfs;
		}
		if (p->procfs_write) {
			if (!f->write)
				f->write = p;
		} else
			f->read = p;
	}
	return 0;
}

/* Is /proc/systemtap there (another module's)? */
static bool tp_procfs_root_exists(void)
{
	struct path path;

	if (kern_path("/proc/" TP_PROCFS_ROOT, LOOKUP_DIRECTORY, &path))
		return false;
	path_put(&path);
	return true;
}

struct tp_dir_count {
	struct dir_context ctx;
	unsigned int n;
};

#ifdef HAVE_FILLDIR_BOOL
static bool tp_count_entry(struct dir_context *ctx, const char *name,
			   int len, loff_t off, u64 ino, unsigned int type)
#else
static int tp_count_entry(struct dir_context *ctx, const char *name,
			  int len, loff_t off, u64 ino, unsigned int type)
#endif
{
	struct tp_dir_count *d = container_of(ctx, struct tp_dir_count, ctx);

	if (!(len == 1 && name[0] == '.') &&
	    !(len == 2 && name[0] == '.' && name[1] == '.'))
		d->n++;
#ifdef HAVE_FILLDIR_BOOL
	return true;
#else
	return 0;
#endif
}

/* Has /proc/systemtap no entry left? */
static bool tp_procfs_root_empty(void)
{
	struct tp_dir_count d = { .ctx.actor = tp_count_entry };
	struct file *dir;

	dir = filp_open("/proc/" TP_PROCFS_ROOT, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(dir))
		return false;
	if (iterate_dir(dir, &d.ctx))
		d.n = 1;
	filp_close(dir, NULL);
	return d.n == 0;
}

static umode_t tp_procfs_bits(const struct tp_probe *p, umode_t bits)
{
	return bits & ~(p->procfs_umask >= 0 ? (umode_t)p->procfs_umask : 0077);
}

/* The write bits are the first write probe's (stap 4.8's: a later one's
 * .umask() changes nothing). */
static umode_t tp_procfs_mode(const struct tp_procfs_file *f)
{
	umode_t mode = 0;

	if (f->read)
		mode |= tp_procfs_bits(f->read, 0444);
	if (f->write)
		mode |= tp_procfs_bits(f->write, 0222);
	return S_IFREG | mode;
}

int tp_procfs_start(const char **failed)
{
	static char msg[MAXSTRINGLEN];
	unsigned int i;

	if (!tp_npfiles)
		return 0;
	if (!tp_procfs_root_exists() && !proc_mkdir(TP_PROCFS_ROOT, NULL))
		goto nodir;
	snprintf(tp_procfs_name, sizeof(tp_procfs_name), "%s/%s",
		 TP_PROCFS_ROOT, module_name(THIS_MODULE));
	tp_procfs_dir = proc_mkdir(tp_procfs_name, NULL);
	if (!tp_procfs_dir)
		goto nodir;
	for (i = 0; i < tp_npfiles; i++) {
		struct tp_procfs_file *f = &tp_pfiles[i];

		if (strchr(f->path, '/')) {
			scnprintf(msg, sizeof(msg), "ERROR: Could not create "
				  "path \"%s\", contains subdirectories\n",
				  f->path);
			tp_transport_stderr(msg, strlen(msg));
			*failed = (f->read ? f->read : f->write)->pp;
			return -EPERM;
		}
		f->pde = proc_create_data(f->path, tp_procfs_mode(f),
					  tp_procfs_dir, &tp_procfs_ops, f);
		if (!f->pde) {
			*failed = (f->read ? f->read : f->write)->pp;
			return -ENOMEM;
		}
	}
	return 0;

nodir:
	*failed = tp_pfiles[0].read ? tp_pfiles[0].read->pp :
		  tp_pfiles[0].write->pp;
	return -ENOMEM;
}

void tp_procfs_stop(void)
{
	unsigned int i;

	if (!tp_procfs_dir)
		return;
	/* proc_remove() waits for the reads and writes under way */
	proc_remove(tp_procfs_dir);
	tp_procfs_dir = NULL;
	for (i = 0; i < tp_npfiles; i++)
		tp_pfiles[i].pde = NULL;
	if (tp_procfs_root_empty())
		remove_proc_entry(TP_PROCFS_ROOT, NULL);
}

void tp_procfs_free(void)
{
	kfree(tp_pfiles);
	tp_pfiles = NULL;
	tp_npfiles = 0;
}
