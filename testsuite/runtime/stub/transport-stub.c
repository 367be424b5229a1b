// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transport-stub.c - a stand-in for runtime/transport.c to test the
 * runtime core without the loader: the session starts by itself from a
 * work item once the module is loaded, exit requests stop it from
 * another, and the script's output and error lines go to the kernel log
 * ("tapir-out: ", "tapir-err: "), one line per message. For tests only:
 * printk from handlers is exactly what the real transport avoids.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "transport.h"

static void tp_stub_start(struct work_struct *w)
{
	int rc = tp_session_start();

	pr_info("tapir-stub: started (%d)\n", rc);
}

static void tp_stub_stop(struct work_struct *w)
{
	tp_session_stop();
	pr_info("tapir-stub: stopped\n");
}

static DECLARE_WORK(tp_stub_start_work, tp_stub_start);
static DECLARE_WORK(tp_stub_stop_work, tp_stub_stop);
static atomic_t tp_stub_lost = ATOMIC_INIT(0);

int tp_transport_init(const char *module_name)
{
	pr_info("tapir-stub: %s loaded\n", module_name);
	schedule_work(&tp_stub_start_work);
	return 0;
}

void tp_transport_exit(void)
{
	cancel_work_sync(&tp_stub_start_work);
	cancel_work_sync(&tp_stub_stop_work);
	pr_info("tapir-stub: lost %d\n", atomic_read(&tp_stub_lost));
}

static void tp_stub_lines(const char *tag, const char *buf, size_t len)
{
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		pr_info("%s%.*s\n", tag, (int)n, buf);
		if (nl)
			n++;
		buf += n;
		len -= n;
	}
}

int tp_transport_write(const char *buf, size_t len)
{
	if (in_nmi()) {
		atomic_add((int)len, &tp_stub_lost);
		return -ENOSPC;
	}
	tp_stub_lines("tapir-out: ", buf, len);
	return 0;
}

int tp_transport_write_fill(size_t len, void (*fill)(char *dst, void *arg),
			    void *arg)
{
	static DEFINE_RAW_SPINLOCK(lock);
	static char buf[8192];
	unsigned long flags;

	if (in_nmi() || len > sizeof(buf)) {
		atomic_add((int)len, &tp_stub_lost);
		return -ENOSPC;
	}
	raw_spin_lock_irqsave(&lock, flags);
	fill(buf, arg);
	tp_stub_lines("tapir-out: ", buf, len);
	raw_spin_unlock_irqrestore(&lock, flags);
	return 0;
}

int tp_transport_switch_file(void)
{
	pr_info("tapir-switch-file\n");
	return 0;
}

void tp_transport_stderr(const char *text, size_t len)
{
	tp_stub_lines("tapir-err: ", text, len);
}

bool tp_transport_system(const char *text, size_t len)
{
	tp_stub_lines("tapir-system: ", text, len);
	return true;
}

void tp_transport_request_exit(void)
{
	schedule_work(&tp_stub_stop_work);
}

long tp_transport_target_pid(void)
{
	return 0;
}

long tp_transport_loader_pid(void)
{
	return 0;
}

uid_t tp_transport_loader_uid(void)
{
	return 0;
}

size_t tp_transport_bytes(void)
{
	return 0;
}

int tp_transport_tz_gmtoff(void)
{
	return 0;
}

const char *tp_transport_tz_name(void)
{
	return "";
}
