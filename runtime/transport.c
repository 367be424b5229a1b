// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport.c - the module's side of the channel to the loader
 * (transport.h for the runtime core, transport-proto.h for the wire):
 *
 *   data     a relay channel (relay_open()) with a buffer per CPU, mmap'ed
 *            by the loader through tapir-NAME/traceN on debugfs or, when
 *            debugfs cannot be used (not there, kernel lockdown, or
 *            _tapir_procfs=1), on procfs. Every write is one frame with a
 *            global sequence number; all of it goes or none, and what
 *            cannot go is counted.
 *   control  tapir-NAME/ctl: a queue of messages to the loader (HELLO,
 *            STARTED, STDERR texts, REQUEST_EXIT, CPU_ONLINE, DONE)
 *            filled from any context, and the loader's commands (START,
 *            STOP, CONSUMED) handled in its process context, where the
 *            session is started and stopped.
 *
 * The loader reads only completed sub-buffers. relay's read() does not
 * do that: relay_file_read_subbuf_avail() takes the sub-buffer being
 * written from buf->data, which relay_switch_subbuf() moves only after
 * subbufs_produced, so a reader that has caught up with the writer can
 * take a whole unwritten sub-buffer for data (seen as 64 KB of zeros in
 * the middle of a printf-heavy probe's output). So the files offer
 * mmap() and poll() only, and each sub-buffer starts with a header
 * (struct tp_proto_subbuf) that subbuf_start() writes when the
 * sub-buffer starts and completes (done = its number + 1, a release
 * store) when relay moves on to the next: the protocol relay.rst
 * describes for mmap'ed buffers, with the loader telling what it has
 * read through CONSUMED (relay_subbufs_consumed()).
 *
 * Writers are the CPU itself with irqs off (a probe handler, any
 * context); an NMI that comes in during a write or a flush finds this
 * CPU's buffer taken and its write is counted as lost. No lock is taken,
 * so nothing sleeps or spins (PREEMPT_RT too). A partly filled
 * sub-buffer is completed by relay_switch_subbuf() on its own CPU with
 * irqs off, from a work item in process context (never relay_flush(),
 * which switches every CPU's buffer from one CPU, under a mutex, while
 * their writers run): every _tapir_flush_ms (a slow script's lines show
 * up that soon), when the CPU goes offline, and before DONE. A buffer of
 * an offline CPU has no writer and is completed from any CPU.
 *
 * CPU hotplug: relay makes the buffer of a CPU coming online (and keeps
 * it when the CPU goes away); our hotplug callbacks, run on that CPU,
 * create its file, tell the loader (CPU_ONLINE) and start and stop its
 * flush work.
 *
 * Wakeups of the loader go through irq_work: a probe may run where a
 * wake_up() would deadlock (inside the scheduler, in NMI). relay does the
 * same for its own poll().
 */
/* Messages name the module themselves (THIS_MODULE->name) rather than
 * through pr_fmt and the build's module-name macro, so that this object
 * does not depend on the module's name and is built once for every
 * module (pass 4's objects cache). */

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/relay.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

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
static unsigned int _tapir_flush_ms = 50;
module_param(_tapir_flush_ms, uint, 0);
MODULE_PARM_DESC(_tapir_flush_ms, "complete partly filled sub-buffers this often (ms, default 50)");

/* ---- State ---- */

#define TP_QUEUE_SIZE	(64 * 1024)	/* control messages (power of 2) */
#define TP_QUEUE_RESERVE 1024		/* kept for HELLO/STARTED/DONE */
#define TP_BOUNCE_SIZE	(16 * 1024)	/* one read() of the control file */
#define TP_HDR		sizeof(struct tp_proto_subbuf)
#define TP_MIN_BUFSIZE	(32 * 1024)	/* 8 sub-buffers of a page */

/* One CPU's writer side. */
struct tp_cpu {
	unsigned long busy;		/* a write or flush under way here */
	unsigned int cpu;
	bool flushing;			/* the flush work may re-arm */
	struct delayed_work flush;
	struct dentry *file;		/* traceN on debugfs, or */
	struct proc_dir_entry *pfile;	/* on procfs */
	u64 flushes;			/* sub-buffers completed by a flush */
};

static DEFINE_PER_CPU(struct tp_cpu, tp_cpus);

enum tp_tstate { TP_T_IDLE, TP_T_STARTED, TP_T_STOPPED };

static struct {
	bool ready;			/* writes accepted */
	struct dentry *dir;		/* debugfs tapir-NAME, or */
	struct proc_dir_entry *pdir;	/* procfs tapir-NAME */
	char dirname[64];
	struct rchan *chan;
	size_t bufsize;			/* bytes per CPU */
	size_t subbuf_size;		/* a power of 2, at least a page */
	size_t n_subbufs;
	unsigned int bufsize_mb;
	unsigned long flush_jiffies;
	int hp_state;			/* our CPU hotplug state, or < 0 */
	int hp_dead_state;		/* the one after a CPU is gone */
	struct mutex files_mutex;	/* traceN creation, CONSUMED */
	bool hello_sent;		/* CPU_ONLINE may go out (files_mutex) */
	bool files_failed;		/* a traceN file failed at load */

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

	struct mutex lock;		/* START, STOP, state */
	enum tp_tstate state;
	atomic_t ctl_open;
	bool closing;			/* unloading: readers stop waiting */
	long target_pid;
	long loader_pid;		/* START's, for stp_pid() */
	uid_t loader_uid;		/* START's, for is_myproc() */
	int tz_gmtoff;			/* START's, for tz_gmtoff() */
	char tz_name[32];		/* START's, for tz_name() */
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

static struct rchan_buf *tp_buf(unsigned int cpu)
{
	return tp.chan ? *per_cpu_ptr(tp.chan->buf, cpu) : NULL;
}

/*
 * relay's subbuf_start(): relay moved @buf from @prev_subbuf (NULL when
 * the buffer is new) to @subbuf. Complete the previous sub-buffer (the
 * loader may read it from now on), then start the new one unless all are
 * full (0: writes are dropped until the loader frees one; relay calls
 * again at the next write, with the same @prev_subbuf). Called with this
 * buffer's writer excluded (irqs off on its CPU, or the CPU offline).
 */
static int tp_subbuf_start(struct rchan_buf *buf, void *subbuf,
			   void *prev_subbuf
#ifdef HAVE_RELAY_SUBBUF_START_PADDING
			   , size_t prev_padding
#endif
			   )
{
	struct tp_proto_subbuf *h = prev_subbuf;

	if (h) {
		if (READ_ONCE(h->done) != h->id)
			smp_store_release(&h->done, h->id);
	} else {
		size_t i;

		/* a new buffer: no slot holds a sub-buffer yet */
		for (i = 0; i < buf->chan->n_subbufs; i++)
			memset((char *)buf->start + i * buf->chan->subbuf_size,
			       0, TP_HDR);
	}
	if (relay_buf_full(buf))
		return 0;
	h = subbuf;
	WRITE_ONCE(h->done, 0);
	h->len = TP_HDR;
	h->magic = TP_PROTO_SUBBUF_MAGIC;
	h->reserved = 0;
	smp_wmb();	/* done is 0 before id says which sub-buffer this is */
	WRITE_ONCE(h->id, (u64)buf->subbufs_produced + 1);
	subbuf_start_reserve(buf, TP_HDR);
	return 1;
}

/*
 * The channel has no file name (a buffer-only channel): its files are
 * ours (tp_trace_create()), on debugfs or procfs alike. relay still calls
 * this for each buffer, to learn is_global, and until 6.10 takes a NULL
 * answer for a failure; it keeps nothing of it. So the answer is a token
 * that nobody dereferences.
 */
static char tp_no_file;

static struct dentry *tp_create_buf_file(const char *filename,
					 struct dentry *parent, umode_t mode,
					 struct rchan_buf *buf, int *is_global)
{
	return filename ? NULL : (struct dentry *)&tp_no_file;
}

static int tp_remove_buf_file(struct dentry *dentry)
{
	return 0;
}

#ifdef HAVE_RELAY_OPEN_CONST
static const struct rchan_callbacks tp_relay_cb = {
#else
static struct rchan_callbacks tp_relay_cb = {
#endif
	.subbuf_start = tp_subbuf_start,
	.create_buf_file = tp_create_buf_file,
	.remove_buf_file = tp_remove_buf_file,
};

/* One frame of @len bytes (none for a switch frame) on this CPU: @buf's,
 * or what @fill writes in place (with the buffer held, irqs off). */
static __always_inline int tp_write_frame(u32 magic, const char *buf,
					  size_t len,
					  void (*fill)(char *dst, void *arg),
					  void *arg)
{
	struct tp_proto_frame f = { .len = len, .magic = magic };
	size_t total = sizeof(f) + len;
	struct rchan_buf *rb;
	struct tp_cpu *tc;
	unsigned long flags;
	int rc = -ENOSPC;

	if (unlikely(!READ_ONCE(tp.ready) || total > tp.subbuf_size - TP_HDR)) {
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
	tc = this_cpu_ptr(&tp_cpus);
	rb = tp_buf(smp_processor_id());
	if (rb && cmpxchg_local(&tc->busy, 0, 1) == 0) {
		/* (relay_reserve(), with the buffer in hand: a full buffer's
		 * offset is subbuf_size + 1, so every write retries) */
		if (rb->offset + total <= tp.subbuf_size ||
		    relay_switch_subbuf(rb, total)) {
			char *p = (char *)rb->data + rb->offset;

			rb->offset += total;
			f.seq = atomic64_inc_return(&tp.seq);
			memcpy(p, &f, sizeof(f));
			if (fill)
				fill(p + sizeof(f), arg);
			else if (buf)
				memcpy(p + sizeof(f), buf, len);
			((struct tp_proto_subbuf *)rb->data)->len = rb->offset;
			rc = 0;
		}
		WRITE_ONCE(tc->busy, 0);
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

int tp_transport_write(const char *buf, size_t len)
{
	if (!len)
		return 0;
	return tp_write_frame(TP_PROTO_FRAME_MAGIC, buf, len, NULL, NULL);
}

int tp_transport_write_fill(size_t len, void (*fill)(char *dst, void *arg),
			    void *arg)
{
	if (!len)
		return 0;
	return tp_write_frame(TP_PROTO_FRAME_MAGIC, NULL, len, fill, arg);
}

int tp_transport_switch_file(void)
{
	return tp_write_frame(TP_PROTO_SWITCH_MAGIC, NULL, 0, NULL, NULL);
}

/*
 * Complete @cpu's partly filled sub-buffer. Runs on @cpu in process
 * context (so that no writer of that buffer runs meanwhile: irqs are off
 * and an NMI finds it busy), or for a CPU that is offline.
 */
static void tp_flush_cpu(unsigned int cpu)
{
	struct tp_cpu *tc = per_cpu_ptr(&tp_cpus, cpu);
	struct rchan_buf *rb = tp_buf(cpu);
	unsigned long flags;

	if (!rb)
		return;
	local_irq_save(flags);
	if ((raw_smp_processor_id() == cpu || !cpu_online(cpu)) &&
	    cmpxchg_local(&tc->busy, 0, 1) == 0) {
		if (rb->offset > TP_HDR && rb->offset <= tp.subbuf_size) {
			relay_switch_subbuf(rb, 0);
			tc->flushes++;
		}
		WRITE_ONCE(tc->busy, 0);
	}
	local_irq_restore(flags);
}

static void tp_flush_work(struct work_struct *w)
{
	struct tp_cpu *tc = container_of(to_delayed_work(w), struct tp_cpu,
					 flush);

	tp_flush_cpu(tc->cpu);
	if (READ_ONCE(tc->flushing))
		queue_delayed_work_on(tc->cpu, system_wq, &tc->flush,
				      tp.flush_jiffies);
}

static long tp_flush_fn(void *arg)
{
	tp_flush_cpu((unsigned long)arg);
	return 0;
}

/* Complete every CPU's partly filled sub-buffer (process context). */
static void tp_flush_all(void)
{
	unsigned int cpu;

	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		if (!tp_buf(cpu))
			continue;
		if (cpu_online(cpu))
			work_on_cpu(cpu, tp_flush_fn, (void *)(unsigned long)cpu);
		else
			tp_flush_cpu(cpu);
	}
	cpus_read_unlock();
}

u64 tp_transport_flushes(unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(&tp_cpus, cpu)->flushes);
}

u64 tp_transport_consumed(unsigned int cpu)
{
	struct rchan_buf *rb = tp_buf(cpu);

	return rb ? READ_ONCE(rb->subbufs_consumed) : 0;
}

u64 tp_transport_produced(unsigned int cpu)
{
	struct rchan_buf *rb = tp_buf(cpu);

	return rb ? READ_ONCE(rb->subbufs_produced) : 0;
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

bool tp_transport_system(const char *text, size_t len)
{
	if (len > TP_PROTO_TEXT_MAX)
		len = TP_PROTO_TEXT_MAX;
	if (tp_q_put(TP_PROTO_SYSTEM, text, len, NULL, 0, false))
		return true;
	atomic64_inc(&tp.lost_messages);
	return false;
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

/* Set once by START, before any probe runs; read-only afterwards. */
long tp_transport_loader_pid(void)
{
	return tp.loader_pid;
}

/* The transport's memory: the control queue, the bounce buffer and the
 * relay sub-buffers of the online CPUs (module_size()'s "net"). */
size_t tp_transport_bytes(void)
{
	return TP_QUEUE_SIZE + TP_BOUNCE_SIZE +
	       tp.subbuf_size * tp.n_subbufs * num_online_cpus();
}

uid_t tp_transport_loader_uid(void)
{
	return tp.loader_uid;
}

int tp_transport_tz_gmtoff(void)
{
	return tp.tz_gmtoff;
}

const char *tp_transport_tz_name(void)
{
	return tp.tz_name;
}


/* ---- Session commands (process context) ---- */

static void tp_stop_locked(void)
{
	struct tp_proto_done d;

	if (tp.state != TP_T_STARTED)
		return;
	tp_session_stop();
	tp.state = TP_T_STOPPED;
	/* the end probes' output too: every byte is in a completed
	 * sub-buffer before DONE */
	tp_flush_all();
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
	tp.loader_pid = (long)s->loader_pid;
	tp.loader_uid = (uid_t)s->loader_uid;
	tp.tz_gmtoff = s->tz_gmtoff;
	memcpy(tp.tz_name, s->tz_name, sizeof(tp.tz_name));
	tp.tz_name[sizeof(tp.tz_name) - 1] = '\0';
	tp.state = TP_T_STARTED;
	st.status = tp_session_start();
	/* what the begin probes printed is in completed sub-buffers when
	 * STARTED comes: the loader prints it before it lets a -c command
	 * run, so the command's own output comes after it, as under stap */
	if (!st.status)
		tp_flush_all();
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

/* The loader has read @c->cpu's sub-buffers below @c->subbufs: their room
 * may be written again. */
static int tp_cmd_consumed(const struct tp_proto_consumed *c)
{
	struct rchan_buf *rb;
	size_t done;
	int rc = 0;

	if (c->cpu >= nr_cpu_ids || !cpu_possible(c->cpu))
		return -EINVAL;
	mutex_lock(&tp.files_mutex);
	rb = tp_buf(c->cpu);
	done = rb ? rb->subbufs_consumed : 0;
	if (!rb || c->subbufs < done ||
	    c->subbufs > READ_ONCE(rb->subbufs_produced))
		rc = -EINVAL;
	else if (c->subbufs > done)
		relay_subbufs_consumed(tp.chan, c->cpu, c->subbufs - done);
	mutex_unlock(&tp.files_mutex);
	return rc;
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
	struct tp_proto_consumed c = { 0 };
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
	case TP_PROTO_CONSUMED:
		if (h.len < sizeof(c))
			return -EINVAL;
		if (copy_from_user(&c, ubuf + sizeof(h), sizeof(c)))
			return -EFAULT;
		rc = tp_cmd_consumed(&c);
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


/* ---- The traceN files: mmap() and poll() of a relay buffer ---- */

/* As relay_file_open(), which takes the buffer from i_private alone. */
static int tp_trace_open(struct inode *inode, struct file *file)
{
	struct rchan_buf *rb = tp.pdir ?
#ifdef HAVE_PDE_DATA
		pde_data(inode)
#else
		PDE_DATA(inode)
#endif
		: inode->i_private;

	kref_get(&rb->kref);
	file->private_data = rb;
	return nonseekable_open(inode, file);
}

static int tp_trace_release(struct inode *inode, struct file *file)
{
	return relay_file_operations.release(inode, file);
}

static int tp_trace_mmap(struct file *file, struct vm_area_struct *vma)
{
	return relay_file_operations.mmap(file, vma);
}

static __poll_t tp_trace_poll(struct file *file, poll_table *wait)
{
	return relay_file_operations.poll(file, wait);
}

static const struct file_operations tp_trace_fops = {
	.owner = THIS_MODULE,
	.open = tp_trace_open,
	.release = tp_trace_release,
	.mmap = tp_trace_mmap,
	.poll = tp_trace_poll,
	.llseek = noop_llseek,
};

/* (a mapping left after procfs removed the file would outlive the
 * buffer: the loader unmaps before it removes the module) */
static const struct proc_ops tp_trace_proc_ops = {
	.proc_open = tp_trace_open,
	.proc_release = tp_trace_release,
	.proc_mmap = tp_trace_mmap,
	.proc_poll = tp_trace_poll,
	.proc_lseek = noop_llseek,
};

/* traceCPU for @cpu's buffer, if it has one and no file yet (files_mutex,
 * process context). 1: created, 0: nothing to do, -errno. */
static int tp_trace_create(unsigned int cpu)
{
	struct tp_cpu *tc = per_cpu_ptr(&tp_cpus, cpu);
	struct rchan_buf *rb = tp_buf(cpu);
	char name[32];

	if (!rb || tc->file || tc->pfile)
		return 0;
	snprintf(name, sizeof(name), TP_PROTO_TRACE "%u", cpu);
	if (tp.dir) {
		/* (not the full proxy of debugfs_create_file(), which has no
		 * mmap; the buffer is pinned by the open file instead) */
		struct dentry *d = debugfs_create_file_unsafe(name, 0400, tp.dir,
							      rb, &tp_trace_fops);

		if (IS_ERR_OR_NULL(d))
			return -ENOMEM;
		tc->file = d;
	} else {
		tc->pfile = proc_create_data(name, 0400, tp.pdir,
					     &tp_trace_proc_ops, rb);
		if (!tc->pfile)
			return -ENOMEM;
	}
	return 1;
}

static bool tp_debugfs_usable(void)
{
	if (_tapir_procfs || !debugfs_initialized())
		return false;
#ifdef HAVE_SECURITY_LOCKED_DOWN
	/* Lockdown refuses to open writable or mmap'able debugfs files. */
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		return false;
#endif
	return true;
}

/* Everything under tapir-NAME, and the directory. */
static void tp_files_remove(void)
{
	unsigned int cpu;

	if (tp.dir)
		debugfs_remove(tp.dir);	/* recursive */
	if (tp.pdir)
		proc_remove(tp.pdir);	/* recursive */
	tp.dir = NULL;
	tp.pdir = NULL;
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(&tp_cpus, cpu)->file = NULL;
		per_cpu_ptr(&tp_cpus, cpu)->pfile = NULL;
	}
}

/* The directory and ctl; the traceN files come with the CPUs. */
static int tp_dir_create(bool debugfs)
{
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
	return 0;
fail:
	tp_files_remove();
	return -ENOMEM;
}

/* ---- CPU hotplug (the callbacks run on that CPU, process context) ---- */

static int tp_cpu_online(unsigned int cpu)
{
	struct tp_cpu *tc = per_cpu_ptr(&tp_cpus, cpu);
	int rc;

	mutex_lock(&tp.files_mutex);
	rc = tp_trace_create(cpu);
	if (rc == 1 && tp.hello_sent) {
		struct tp_proto_cpu m = { .cpu = cpu };

		tp_q_put(TP_PROTO_CPU_ONLINE, &m, sizeof(m), NULL, 0, true);
	}
	if (rc < 0) {
		/* Its writes fill the buffer and are counted as lost. */
		pr_warn("%s: no output file for cpu %u (%d)\n",
			THIS_MODULE->name, cpu, rc);
		if (!tp.hello_sent)
			tp.files_failed = true;
	}
	mutex_unlock(&tp.files_mutex);
	WRITE_ONCE(tc->flushing, true);
	queue_delayed_work_on(cpu, system_wq, &tc->flush, tp.flush_jiffies);
	return 0;
}

/* The CPU goes away: what it wrote goes out now. */
static int tp_cpu_offline(unsigned int cpu)
{
	struct tp_cpu *tc = per_cpu_ptr(&tp_cpus, cpu);

	WRITE_ONCE(tc->flushing, false);
	cancel_delayed_work_sync(&tc->flush);
	tp_flush_cpu(cpu);
	return 0;
}

/* The CPU is gone (this runs on another CPU): what it wrote after the
 * flush above goes out too. The CPU stays in cpu_online_mask for a while
 * after its AP_ONLINE_DYN teardown, and an interrupt or IPI there can
 * still write a line, which would otherwise wait in its buffer until the
 * CPU comes back. Nothing writes to the buffer of a dead CPU. */
static int tp_cpu_dead(unsigned int cpu)
{
	tp_flush_cpu(cpu);
	return 0;
}

/* ---- Sizes ---- */

/* -b MB (or the test's KB), else stap's default: 16 MB, at most a quarter
 * of free memory over the CPUs; rounded down to a power of 2, cut in 8 to
 * 64 sub-buffers of at most 1 MB where that is enough. */
static void tp_sizes(void)
{
	size_t size;

	if (_tapir_bufsize_kb) {
		size = (size_t)_tapir_bufsize_kb * 1024;
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
	size = max_t(size_t, size, max_t(size_t, TP_MIN_BUFSIZE, 8 * PAGE_SIZE));
	tp.bufsize = rounddown_pow_of_two(size);
	tp.n_subbufs = clamp_t(size_t, tp.bufsize >> 20, 8, 64);
	tp.subbuf_size = tp.bufsize / tp.n_subbufs;
	tp.flush_jiffies = max_t(unsigned long, 1,
				 msecs_to_jiffies(clamp(_tapir_flush_ms, 1u, 10000u)));
}

/* ---- Life ---- */

int tp_transport_init(const char *module_name)
{
	struct tp_proto_hello hello = {
		.magic = TP_PROTO_MAGIC,
		.version = TP_PROTO_VERSION,
	};
	unsigned int cpu;
	int rc = -ENOMEM;

	memset(&tp, 0, sizeof(tp));
	tp.hp_state = tp.hp_dead_state = -1;
	raw_spin_lock_init(&tp.q_lock);
	mutex_init(&tp.read_mutex);
	mutex_init(&tp.files_mutex);
	mutex_init(&tp.lock);
	init_waitqueue_head(&tp.ctl_wait);
	init_irq_work(&tp.ctl_work, tp_ctl_wakeup);
	snprintf(tp.dirname, sizeof(tp.dirname), "tapir-%s", module_name);
	for_each_possible_cpu(cpu) {
		struct tp_cpu *tc = per_cpu_ptr(&tp_cpus, cpu);

		memset(tc, 0, sizeof(*tc));
		tc->cpu = cpu;
		INIT_DELAYED_WORK(&tc->flush, tp_flush_work);
	}

	tp.q = vzalloc(TP_QUEUE_SIZE);
	tp.bounce = vmalloc(TP_BOUNCE_SIZE);
	if (!tp.q || !tp.bounce)
		goto fail;
	tp_sizes();
	rc = -ENOENT;
	if (tp_debugfs_usable())
		rc = tp_dir_create(true);
	if (rc)
		rc = tp_dir_create(false);
	if (rc) {
		pr_err("%s: cannot create the transport files %s in debugfs or procfs\n",
		       THIS_MODULE->name, tp.dirname);
		goto fail;
	}
	tp.chan = relay_open(NULL, NULL, tp.subbuf_size, tp.n_subbufs,
			     &tp_relay_cb, NULL);
	if (!tp.chan) {
		pr_err("%s: cannot open a relay channel of %zu x %zu bytes per CPU\n",
		       THIS_MODULE->name, tp.n_subbufs, tp.subbuf_size);
		rc = -ENOMEM;
		goto fail_files;
	}
	/* traceN and the flush work of every online CPU, and of those that
	 * come later */
	rc = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tapir/transport:online",
			       tp_cpu_online, tp_cpu_offline);
	if (rc < 0)
		goto fail_chan;
	tp.hp_state = rc;
	rc = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "tapir/transport:dead",
				       NULL, tp_cpu_dead);
	if (rc < 0)
		goto fail_hp;
	tp.hp_dead_state = rc;
	if (tp.files_failed) {
		rc = -ENOMEM;
		goto fail_hp;
	}

	hello.flags = tp.dir ? TP_PROTO_HELLO_DEBUGFS : 0;
	hello.ncpus = nr_cpu_ids;
	hello.bufsize = tp.bufsize;
	hello.bufsize_mb = tp.bufsize_mb;
	hello.flush_ms = jiffies_to_msecs(tp.flush_jiffies);
	hello.subbuf_size = tp.subbuf_size;
	hello.n_subbufs = tp.n_subbufs;
	mutex_lock(&tp.files_mutex);
	tp_q_put(TP_PROTO_HELLO, &hello, sizeof(hello), NULL, 0, true);
	tp.hello_sent = true;
	mutex_unlock(&tp.files_mutex);
	WRITE_ONCE(tp.ready, true);
	return 0;

fail_hp:
	if (tp.hp_dead_state >= 0)
		cpuhp_remove_state_nocalls(tp.hp_dead_state);
	tp.hp_dead_state = -1;
	cpuhp_remove_state(tp.hp_state);
fail_chan:
	tp_files_remove();
	relay_close(tp.chan);
	tp.chan = NULL;
	goto fail;
fail_files:
	tp_files_remove();
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
	if (tp.hp_dead_state >= 0)
		cpuhp_remove_state_nocalls(tp.hp_dead_state);
	tp.hp_dead_state = -1;
	cpuhp_remove_state(tp.hp_state);	/* the flush works stop */
	tp_files_remove();	/* waits for readers in the file ops */
	irq_work_sync(&tp.ctl_work);
	/* the buffers stay while a file is open or mapped */
	relay_close(tp.chan);
	tp.chan = NULL;
	vfree(tp.q);
	vfree(tp.bounce);
	tp.q = tp.bounce = NULL;
}
