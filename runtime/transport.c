// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport.c - the module's side of the channel to the loader
 * (transport.h for the runtime core, transport-proto.h for the wire):
 *
 *   data     a buffer per CPU, read through tapir-NAME/traceN on debugfs
 *            or, when debugfs cannot be used (not there, kernel lockdown,
 *            or _tapir_procfs=1), on procfs. Every write is one frame with
 *            a global sequence number; all of it goes or none, and what
 *            cannot go is counted.
 *   control  tapir-NAME/ctl: a queue of messages to the loader (HELLO,
 *            STARTED, STDERR texts, REQUEST_EXIT, DONE) filled from any
 *            context, and the loader's commands (START, STOP) handled in
 *            its process context, where the session is started and
 *            stopped.
 *
 * The per-CPU buffers are lockless single-producer rings (the CPU itself,
 * irqs off; an NMI that comes in during a write finds the ring taken and
 * its write is counted as lost) with one reader (the loader), not relay
 * channels: relay's
 * read() races with a sub-buffer switch when the reader has caught up
 * with the writer (relay_file_read_subbuf_avail() takes the write
 * sub-buffer from buf->data, which relay_switch_subbuf() moves only after
 * subbufs_produced, so the reader can take a whole unwritten sub-buffer
 * for data). Seen in the guest as 64 KB of zeros in the middle of a
 * printf-heavy probe's output, whenever the loader kept up. Reading only
 * full sub-buffers would avoid it but hold back a slow script's output
 * until 64 KB pile up, and relay_flush() may not run in probe context.
 *
 * Wakeups of the loader go through irq_work: a probe may run where a
 * wake_up() would deadlock (inside the scheduler, in NMI).
 */
/* Messages name the module themselves (THIS_MODULE->name) rather than
 * through pr_fmt and the build's module-name macro, so that this object
 * does not depend on the module's name and is built once for every
 * module (pass 4's objects cache). */

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "transport.h"
#include "transport-proto.h"

/* ---- Parameters (the loader sets _tapir_bufsize from -b) ---- */

static unsigned int _tapir_bufsize;
module_param(_tapir_bufsize, uint, 0);
MODULE_PARM_DESC(_tapir_bufsize, "output buffer per CPU in MB (default 16)");
static unsigned int _tapir_bufsize_kb;
module_param(_tapir_bufsize_kb, uint, 0);
MODULE_PARM_DESC(_tapir_bufsize_kb, "output buffer per CPU in KB (tests)");
static bool _tapir_procfs;
module_param(_tapir_procfs, bool, 0);
MODULE_PARM_DESC(_tapir_procfs, "use procfs files even if debugfs works");

/* ---- State ---- */

#define TP_QUEUE_SIZE	(64 * 1024)	/* control messages (power of 2) */
#define TP_QUEUE_RESERVE 1024		/* kept for HELLO/STARTED/DONE */
#define TP_BOUNCE_SIZE	(16 * 1024)	/* one read() of the control file */
#define TP_WAKE_BYTES	(256 * 1024)	/* wake the loader when this much
					 * output waits (or a quarter of the
					 * buffer, if less) */

/* One CPU's output buffer: one writer (that CPU, irqs off), one reader
 * (the loader); head and tail only grow. */
struct tp_ring {
	char *data;
	unsigned long mask;
	unsigned long head;		/* written up to (writer) */
	unsigned long tail;		/* read up to (reader) */
	unsigned long writing;		/* a write is under way on this CPU */
};

enum tp_tstate { TP_T_IDLE, TP_T_STARTED, TP_T_STOPPED };

static struct {
	bool ready;			/* writes accepted */
	struct dentry *dir;		/* debugfs tapir-NAME, or */
	struct proc_dir_entry *pdir;	/* procfs tapir-NAME */
	char dirname[64];
	struct tp_ring **rings;		/* [nr_cpu_ids], NULL: no buffer */
	size_t bufsize;			/* bytes per CPU (a power of 2) */
	size_t wake_bytes;
	unsigned int bufsize_mb;

	atomic64_t seq;
	atomic64_t frames, bytes, lost_writes, lost_bytes, lost_messages;

	/* control queue: whole messages, head/tail only grow */
	raw_spinlock_t q_lock;
	char *q;
	unsigned long q_head, q_tail;
	atomic_t exit_requested;	/* set by tp_transport_request_exit */
	bool exit_sent;			/* REQUEST_EXIT went out (read_mutex) */
	char *bounce;			/* read_mutex */
	struct mutex read_mutex;
	wait_queue_head_t ctl_wait;
	struct irq_work ctl_work;

	/* output */
	wait_queue_head_t data_wait;
	struct irq_work data_work;
	struct mutex ring_mutex;	/* one reader at a time */

	struct mutex lock;		/* START, STOP, state */
	enum tp_tstate state;
	atomic_t ctl_open;
	bool closing;			/* unloading: readers stop waiting */
	long target_pid;
} tp;

/* ---- The control queue ---- */

static void tp_ctl_wakeup(struct irq_work *w)
{
	wake_up_interruptible(&tp.ctl_wait);
}

static void tp_q_copy_in(unsigned long pos, const void *src, size_t n)
{
	size_t off = pos & (TP_QUEUE_SIZE - 1);
	size_t first = min_t(size_t, n, TP_QUEUE_SIZE - off);

	memcpy(tp.q + off, src, first);
	if (n > first)
		memcpy(tp.q, (const char *)src + first, n - first);
}

static void tp_q_copy_out(void *dst, unsigned long pos, size_t n)
{
	size_t off = pos & (TP_QUEUE_SIZE - 1);
	size_t first = min_t(size_t, n, TP_QUEUE_SIZE - off);

	memcpy(dst, tp.q + off, first);
	if (n > first)
		memcpy((char *)dst + first, tp.q, n - first);
}

/*
 * Queue a message whose payload is @a then @b. Control messages may use
 * the reserve; STDERR texts may not, so that a flood of warnings never
 * crowds out STARTED or DONE. False when it was not queued.
 */
static bool tp_q_put(u32 type, const void *a, size_t alen,
		     const void *b, size_t blen, bool reserve)
{
	static const char zeros[8];
	struct tp_proto_msg h = { .type = type, .len = alen + blen };
	size_t size = TP_PROTO_MSG_SIZE(alen + blen);
	unsigned long flags, pos;
	bool ok = false;

	if (!tp.q)
		return false;
	if (in_nmi()) {
		if (!raw_spin_trylock(&tp.q_lock))
			return false;
		flags = 0;
	} else {
		raw_spin_lock_irqsave(&tp.q_lock, flags);
	}
	if (TP_QUEUE_SIZE - (tp.q_head - tp.q_tail) >=
	    size + (reserve ? 0 : TP_QUEUE_RESERVE)) {
		pos = tp.q_head;
		tp_q_copy_in(pos, &h, sizeof(h));
		pos += sizeof(h);
		if (alen)
			tp_q_copy_in(pos, a, alen);
		pos += alen;
		if (blen)
			tp_q_copy_in(pos, b, blen);
		pos += blen;
		if (size - sizeof(h) > alen + blen)
			tp_q_copy_in(pos, zeros, size - sizeof(h) - alen - blen);
		tp.q_head += size;
		ok = true;
	}
	if (in_nmi())
		raw_spin_unlock(&tp.q_lock);
	else
		raw_spin_unlock_irqrestore(&tp.q_lock, flags);
	if (ok)
		irq_work_queue(&tp.ctl_work);
	return ok;
}

/* Move whole messages into @buf (at most @size bytes). */
static size_t tp_q_take(char *buf, size_t size)
{
	unsigned long flags;
	size_t n = 0;

	raw_spin_lock_irqsave(&tp.q_lock, flags);
	while (tp.q_tail != tp.q_head) {
		struct tp_proto_msg h;
		size_t m;

		tp_q_copy_out(&h, tp.q_tail, sizeof(h));
		m = TP_PROTO_MSG_SIZE(h.len);
		if (n + m > size)
			break;
		tp_q_copy_out(buf + n, tp.q_tail, m);
		tp.q_tail += m;
		n += m;
	}
	raw_spin_unlock_irqrestore(&tp.q_lock, flags);
	return n;
}

static bool tp_q_pending(void)
{
	return READ_ONCE(tp.q_head) != READ_ONCE(tp.q_tail) ||
	       (atomic_read(&tp.exit_requested) && !tp.exit_sent);
}

/* ---- Output ---- */

static void tp_lost(size_t len)
{
	atomic64_inc(&tp.lost_writes);
	atomic64_add(len, &tp.lost_bytes);
}

static void tp_ring_put(struct tp_ring *r, const void *p, size_t len)
{
	unsigned long head = r->head;

	while (len) {
		size_t off = head & r->mask;
		size_t n = min_t(size_t, len, r->mask + 1 - off);

		memcpy(r->data + off, p, n);
		p = (const char *)p + n;
		head += n;
		len -= n;
	}
	smp_store_release(&r->head, head);
}

int tp_transport_write(const char *buf, size_t len)
{
	struct tp_proto_frame f = { .len = len, .magic = TP_PROTO_FRAME_MAGIC };
	size_t total = sizeof(f) + len;
	struct tp_ring *r;
	unsigned long flags;
	int rc = -ENOSPC;

	if (!len)
		return 0;
	if (unlikely(!READ_ONCE(tp.ready) || len > U32_MAX)) {
		tp_lost(len);
		return -ENOSPC;
	}
	/*
	 * Nothing else writes this CPU's buffer while irqs are off but an
	 * NMI, which finds it taken. NMI context itself is allowed: on x86 a
	 * kprobe that is not on an ftrace site runs its handler from the
	 * int3 trap, which the kernel enters as an NMI (in_nmi() is true),
	 * and its output must go out like any other probe's.
	 */
	local_irq_save(flags);
	r = tp.rings[smp_processor_id()];
	if (r && cmpxchg_local(&r->writing, 0, 1) == 0) {
		unsigned long used = r->head - smp_load_acquire(&r->tail);

		if (tp.bufsize - used >= total) {
			f.seq = atomic64_inc_return(&tp.seq);
			tp_ring_put(r, &f, sizeof(f));
			tp_ring_put(r, buf, len);
			rc = 0;
			if (used < tp.wake_bytes && used + total >= tp.wake_bytes)
				irq_work_queue(&tp.data_work);
		}
		WRITE_ONCE(r->writing, 0);
	}
	local_irq_restore(flags);
	if (rc) {
		tp_lost(len);
	} else {
		atomic64_inc(&tp.frames);
		atomic64_add(len, &tp.bytes);
	}
	return rc;
}

void tp_transport_stderr(const char *text, size_t len)
{
	static const char cut[] = "...\n";

	if (len > TP_PROTO_TEXT_MAX) {
		if (!tp_q_put(TP_PROTO_STDERR, text,
			      TP_PROTO_TEXT_MAX - (sizeof(cut) - 1), cut,
			      sizeof(cut) - 1, false))
			atomic64_inc(&tp.lost_messages);
		return;
	}
	if (!tp_q_put(TP_PROTO_STDERR, text, len, NULL, 0, false))
		atomic64_inc(&tp.lost_messages);
}

void tp_transport_request_exit(void)
{
	if (atomic_cmpxchg(&tp.exit_requested, 0, 1) == 0 && tp.q)
		irq_work_queue(&tp.ctl_work);
}

long tp_transport_target_pid(void)
{
	return READ_ONCE(tp.target_pid);
}

/* ---- Session commands (process context) ---- */

static void tp_stop_locked(void)
{
	struct tp_proto_done d;

	if (tp.state != TP_T_STARTED)
		return;
	tp_session_stop();
	tp.state = TP_T_STOPPED;
	d.frames = atomic64_read(&tp.frames);
	d.bytes = atomic64_read(&tp.bytes);
	d.lost_writes = atomic64_read(&tp.lost_writes);
	d.lost_bytes = atomic64_read(&tp.lost_bytes);
	d.lost_messages = atomic64_read(&tp.lost_messages);
	tp_q_put(TP_PROTO_DONE, &d, sizeof(d), NULL, 0, true);
}

static int tp_cmd_start(const struct tp_proto_start *s)
{
	struct tp_proto_started st = { 0 };

	if (s->magic != TP_PROTO_MAGIC || s->version != TP_PROTO_VERSION)
		return -EPROTO;
	mutex_lock(&tp.lock);
	if (tp.state != TP_T_IDLE) {
		mutex_unlock(&tp.lock);
		return -EBUSY;
	}
	WRITE_ONCE(tp.target_pid,
		   (s->flags & TP_PROTO_START_TARGET) ? (long)s->target_pid : 0);
	tp.state = TP_T_STARTED;
	st.status = tp_session_start();
	tp_q_put(TP_PROTO_STARTED, &st, sizeof(st), NULL, 0, true);
	if (st.status)
		tp_stop_locked();	/* DONE follows STARTED */
	mutex_unlock(&tp.lock);
	return 0;
}

static void tp_cmd_stop(void)
{
	mutex_lock(&tp.lock);
	tp_stop_locked();
	mutex_unlock(&tp.lock);
}

/* ---- The control file ---- */

static int tp_ctl_open(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&tp.ctl_open, 0, 1) != 0)
		return -EBUSY;
	return stream_open(inode, file);
}

static int tp_ctl_release(struct inode *inode, struct file *file)
{
	/* The loader went away without STOP: stop the probes now, nobody
	 * reads their output any more. */
	tp_cmd_stop();
	atomic_set(&tp.ctl_open, 0);
	return 0;
}

static ssize_t tp_ctl_read(struct file *file, char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	size_t n;
	ssize_t rc;

	if (count < TP_PROTO_MSG_MAX)
		return -EINVAL;
	if (mutex_lock_interruptible(&tp.read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		n = tp_q_take(tp.bounce, min_t(size_t, count, TP_BOUNCE_SIZE));
		if (atomic_read(&tp.exit_requested) && !tp.exit_sent &&
		    n + sizeof(struct tp_proto_msg) <= min_t(size_t, count, TP_BOUNCE_SIZE)) {
			struct tp_proto_msg h = { .type = TP_PROTO_REQUEST_EXIT };

			memcpy(tp.bounce + n, &h, sizeof(h));
			n += sizeof(h);
			tp.exit_sent = true;
		}
		if (n)
			break;
		if (file->f_flags & O_NONBLOCK) {
			rc = -EAGAIN;
			goto out;
		}
		if (READ_ONCE(tp.closing)) {
			rc = 0;		/* end of file: the module is going */
			goto out;
		}
		rc = wait_event_interruptible(tp.ctl_wait,
					      tp_q_pending() || READ_ONCE(tp.closing));
		if (rc)
			goto out;
	}
	rc = copy_to_user(ubuf, tp.bounce, n) ? -EFAULT : (ssize_t)n;
out:
	mutex_unlock(&tp.read_mutex);
	return rc;
}

static ssize_t tp_ctl_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	struct tp_proto_msg h;
	struct tp_proto_start s = { 0 };
	int rc;

	if (count < sizeof(h) || count > TP_PROTO_MSG_MAX)
		return -EINVAL;
	if (copy_from_user(&h, ubuf, sizeof(h)))
		return -EFAULT;
	if (sizeof(h) + h.len > count)
		return -EINVAL;
	switch (h.type) {
	case TP_PROTO_START:
		/* magic and version first: they never move */
		if (h.len < 8)
			return -EPROTO;
		if (copy_from_user(&s, ubuf + sizeof(h),
				   min_t(size_t, h.len, sizeof(s))))
			return -EFAULT;
		if (s.magic == TP_PROTO_MAGIC && s.version == TP_PROTO_VERSION &&
		    h.len < sizeof(s))
			return -EINVAL;
		rc = tp_cmd_start(&s);
		break;
	case TP_PROTO_STOP:
		tp_cmd_stop();
		rc = 0;
		break;
	default:
		rc = -EINVAL;
	}
	return rc ? rc : (ssize_t)count;
}

static __poll_t tp_ctl_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &tp.ctl_wait, wait);
	return (tp_q_pending() ? EPOLLIN | EPOLLRDNORM : 0) |
	       EPOLLOUT | EPOLLWRNORM;
}

static const struct file_operations tp_ctl_fops = {
	.owner = THIS_MODULE,
	.open = tp_ctl_open,
	.release = tp_ctl_release,
	.read = tp_ctl_read,
	.write = tp_ctl_write,
	.poll = tp_ctl_poll,
	.llseek = noop_llseek,
};

static const struct proc_ops tp_ctl_proc_ops = {
	.proc_open = tp_ctl_open,
	.proc_release = tp_ctl_release,
	.proc_read = tp_ctl_read,
	.proc_write = tp_ctl_write,
	.proc_poll = tp_ctl_poll,
	.proc_lseek = noop_llseek,
};

/* ---- The files ---- */

static void tp_data_wakeup(struct irq_work *w)
{
	wake_up_interruptible(&tp.data_wait);
}

static int tp_trace_open(struct inode *inode, struct file *file)
{
	file->private_data = tp.pdir ?
#ifdef HAVE_PDE_DATA
		pde_data(inode)
#else
		PDE_DATA(inode)
#endif
		: inode->i_private;
	return stream_open(inode, file);
}

/* Whatever is there, at once: 0 when nothing is (never blocks). */
static ssize_t tp_trace_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct tp_ring *r = file->private_data;
	unsigned long head, tail;
	size_t n, done = 0;

	if (mutex_lock_interruptible(&tp.ring_mutex))
		return -ERESTARTSYS;
	head = smp_load_acquire(&r->head);
	tail = r->tail;
	n = min_t(size_t, count, head - tail);
	while (done < n) {
		size_t off = (tail + done) & r->mask;
		size_t k = min_t(size_t, n - done, r->mask + 1 - off);

		if (copy_to_user(ubuf + done, r->data + off, k))
			break;
		done += k;
	}
	/* the writer may reuse the space once tail moves past it */
	smp_store_release(&r->tail, tail + done);
	mutex_unlock(&tp.ring_mutex);
	return done || !n ? (ssize_t)done : -EFAULT;
}

/*
 * Readable only when much waits (the writer wakes the loader as it
 * crosses wake_bytes): a loader polling for every byte would spin beside
 * a busy writer, taking the CPU from the workload being traced. Less
 * waits for the loader's periodic read.
 */
static __poll_t tp_trace_poll(struct file *file, poll_table *wait)
{
	struct tp_ring *r = file->private_data;

	poll_wait(file, &tp.data_wait, wait);
	return smp_load_acquire(&r->head) - READ_ONCE(r->tail) >= tp.wake_bytes ?
	       EPOLLIN | EPOLLRDNORM : 0;
}

static const struct file_operations tp_trace_fops = {
	.owner = THIS_MODULE,
	.open = tp_trace_open,
	.read = tp_trace_read,
	.poll = tp_trace_poll,
	.llseek = noop_llseek,
};

static const struct proc_ops tp_trace_proc_ops = {
	.proc_open = tp_trace_open,
	.proc_read = tp_trace_read,
	.proc_poll = tp_trace_poll,
	.proc_lseek = noop_llseek,
};

static bool tp_debugfs_usable(void)
{
	if (_tapir_procfs || !debugfs_initialized())
		return false;
#ifdef HAVE_SECURITY_LOCKED_DOWN
	/* Lockdown refuses to open writable debugfs files (ctl). */
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		return false;
#endif
	return true;
}

static void tp_files_remove(void)
{
	if (tp.dir)
		debugfs_remove(tp.dir);	/* recursive */
	if (tp.pdir)
		proc_remove(tp.pdir);
	tp.dir = NULL;
	tp.pdir = NULL;
}

/* The directory, ctl and traceN for each CPU with a buffer. */
static int tp_files_create(bool debugfs)
{
	char name[32];
	unsigned int cpu;

	if (debugfs) {
		struct dentry *d;

		tp.dir = debugfs_create_dir(tp.dirname, NULL);
		if (IS_ERR_OR_NULL(tp.dir)) {
			tp.dir = NULL;
			return -ENOENT;
		}
		d = debugfs_create_file(TP_PROTO_CTL, 0600, tp.dir, NULL,
					&tp_ctl_fops);
		if (IS_ERR_OR_NULL(d))
			goto fail;
	} else {
		tp.pdir = proc_mkdir(tp.dirname, NULL);
		if (!tp.pdir)
			return -ENOENT;
		if (!proc_create_data(TP_PROTO_CTL, 0600, tp.pdir,
				      &tp_ctl_proc_ops, NULL))
			goto fail;
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!tp.rings[cpu])
			continue;
		snprintf(name, sizeof(name), TP_PROTO_TRACE "%u", cpu);
		if (debugfs) {
			struct dentry *d = debugfs_create_file(name, 0400, tp.dir,
						tp.rings[cpu], &tp_trace_fops);

			if (IS_ERR_OR_NULL(d))
				goto fail;
		} else if (!proc_create_data(name, 0400, tp.pdir,
					     &tp_trace_proc_ops, tp.rings[cpu])) {
			goto fail;
		}
	}
	return 0;
fail:
	tp_files_remove();
	return -ENOMEM;
}

static void tp_rings_free(void)
{
	unsigned int cpu;

	if (!tp.rings)
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (tp.rings[cpu]) {
			vfree(tp.rings[cpu]->data);
			kfree(tp.rings[cpu]);
		}
	}
	kfree(tp.rings);
	tp.rings = NULL;
}

/* A buffer for each online CPU. CPUs that come online later have none:
 * their writes are counted as lost. */
static int tp_rings_alloc(void)
{
	unsigned int cpu;
	int rc = 0;

	tp.rings = kcalloc(nr_cpu_ids, sizeof(*tp.rings), GFP_KERNEL);
	if (!tp.rings)
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct tp_ring *r = kzalloc(sizeof(*r), GFP_KERNEL);

		if (r)
			r->data = vmalloc(tp.bufsize);
		if (!r || !r->data) {
			kfree(r);
			rc = -ENOMEM;
			break;
		}
		r->mask = tp.bufsize - 1;
		tp.rings[cpu] = r;
	}
	cpus_read_unlock();
	if (rc)
		tp_rings_free();
	return rc;
}

/* ---- Sizes ---- */

/* -b MB (or the test's KB), else stap's default: 16 MB, at most a quarter
 * of free memory over the CPUs; rounded down to a power of 2. */
static void tp_sizes(void)
{
	size_t size;

	if (_tapir_bufsize_kb) {
		size = (size_t)max(_tapir_bufsize_kb, 4u) * 1024;
		tp.bufsize_mb = 0;
	} else {
		unsigned int mb = _tapir_bufsize ? min_t(unsigned int,
			_tapir_bufsize, TP_PROTO_BUFSIZE_MAX_MB) :
			TP_PROTO_BUFSIZE_DEFAULT_MB;

		if (!_tapir_bufsize) {
			struct sysinfo si;
			unsigned long avail;

			si_meminfo(&si);
			avail = ((si.freeram + si.bufferram) / 4 /
				 num_online_cpus()) << PAGE_SHIFT;
			if ((size_t)mb << 20 > avail)
				mb = max_t(unsigned long, 1, avail >> 20);
		}
		tp.bufsize_mb = mb;
		size = (size_t)mb << 20;
	}
	tp.bufsize = rounddown_pow_of_two(size);
	tp.wake_bytes = min_t(size_t, TP_WAKE_BYTES, tp.bufsize / 4);
}

/* ---- Life ---- */

int tp_transport_init(const char *module_name)
{
	struct tp_proto_hello hello = {
		.magic = TP_PROTO_MAGIC,
		.version = TP_PROTO_VERSION,
	};
	int rc = -ENOMEM;

	memset(&tp, 0, sizeof(tp));
	raw_spin_lock_init(&tp.q_lock);
	mutex_init(&tp.read_mutex);
	mutex_init(&tp.ring_mutex);
	mutex_init(&tp.lock);
	init_waitqueue_head(&tp.ctl_wait);
	init_waitqueue_head(&tp.data_wait);
	init_irq_work(&tp.ctl_work, tp_ctl_wakeup);
	init_irq_work(&tp.data_work, tp_data_wakeup);
	snprintf(tp.dirname, sizeof(tp.dirname), "tapir-%s", module_name);

	tp.q = vzalloc(TP_QUEUE_SIZE);
	tp.bounce = vmalloc(TP_BOUNCE_SIZE);
	if (!tp.q || !tp.bounce)
		goto fail;
	tp_sizes();
	rc = tp_rings_alloc();
	if (rc)
		goto fail;
	rc = -ENOENT;
	if (tp_debugfs_usable())
		rc = tp_files_create(true);
	if (rc)
		rc = tp_files_create(false);
	if (rc) {
		pr_err("%s: cannot create the transport files %s in debugfs or procfs\n",
		       THIS_MODULE->name, tp.dirname);
		tp_rings_free();
		goto fail;
	}

	hello.flags = tp.dir ? TP_PROTO_HELLO_DEBUGFS : 0;
	hello.ncpus = nr_cpu_ids;
	hello.bufsize = tp.bufsize;
	hello.bufsize_mb = tp.bufsize_mb;
	tp_q_put(TP_PROTO_HELLO, &hello, sizeof(hello), NULL, 0, true);
	WRITE_ONCE(tp.ready, true);
	return 0;
fail:
	vfree(tp.q);
	vfree(tp.bounce);
	tp.q = tp.bounce = NULL;
	return rc;
}

void tp_transport_exit(void)
{
	/* A session still running (the loader died, rmmod by hand) ends
	 * here: its probes must be gone before the buffers are. */
	tp_cmd_stop();
	WRITE_ONCE(tp.ready, false);
	synchronize_rcu();	/* writers that saw ready are done */
	/* A reader blocked on procfs ctl (which pins no module) would hold
	 * up the removal below: let it go. */
	WRITE_ONCE(tp.closing, true);
	wake_up_interruptible(&tp.ctl_wait);
	tp_files_remove();	/* waits for readers in the file ops */
	irq_work_sync(&tp.ctl_work);
	irq_work_sync(&tp.data_work);
	tp_rings_free();
	vfree(tp.q);
	vfree(tp.bounce);
	tp.q = tp.bounce = NULL;
}
