/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport-proto.h - the wire protocol between a Tapir module and its
 * loader (runtime/loader/tapir-run.c). The one header both sides build
 * from; plain C types, usable in the kernel and in user space.
 *
 * Files (created by runtime/transport.c when the module loads):
 *
 *   DIR/ctl         the control channel, read and written by the loader
 *   DIR/traceN      the script's output written on CPU N (one per CPU)
 *
 *   DIR is TP_PROTO_DEBUGFS_DIR "NAME" or, when debugfs is unusable
 *   (not there, kernel lockdown), TP_PROTO_PROCFS_DIR "NAME"; NAME is the
 *   module's name. Both hold the same files.
 *
 * Module parameters the loader adds to the script's VAR=VAL ones:
 * _tapir_bufsize=MB (-b) and _tapir_json=1 (--json: the module writes
 * its output as JSON objects, one per line and one frame each; see
 * runtime/json.c and tapir(1)).
 *
 * Control channel. Every message is a struct tp_proto_msg header and
 * `len` bytes of payload, padded with zeros to a multiple of 8
 * (TP_PROTO_MSG_SIZE()). read() blocks (unless O_NONBLOCK) until a
 * message is queued and returns whole messages only, as many as fit; it
 * wants a buffer of at least TP_PROTO_MSG_MAX bytes (EINVAL otherwise).
 * poll() says POLLIN when a message is queued. write() takes exactly one
 * message. Only one process may have the file open (EBUSY otherwise);
 * closing it without STOP stops the session.
 *
 *   module -> loader                    loader -> module
 *   HELLO   (queued at load: first)
 *                                       START   (version, target pid)
 *   STDERR* (begin probes' messages)
 *   STARTED (status of the start)
 *   STDERR*, REQUEST_EXIT, CPU_ONLINE*, SYSTEM*
 *                                       CONSUMED* (any time after START)
 *                                       STOP    (exit requested, SIGINT,
 *                                                SIGTERM, -T, -c's end)
 *   STDERR* (end probes, "WARNING: Number of errors: ...")
 *   DONE    (final statistics: last)
 *
 * The loader checks HELLO's magic and version before anything else; the
 * module checks START's version (write() fails with EPROTO on mismatch).
 * The first 16 bytes of HELLO (header, magic, version) never change
 * between versions, so that any two versions can tell each other apart.
 * After a failed start the module stops by itself and sends DONE; after
 * DONE the loader reads every trace file to the end and removes the module.
 *
 * Data. Each traceN file is CPU N's relay buffer (relay_open(), per-CPU
 * buffers of n_subbufs sub-buffers of subbuf_size bytes, HELLO says
 * both), which the loader mmap()s whole (PROT_READ, MAP_SHARED, length
 * n_subbufs * subbuf_size); the files have no read(). Sub-buffer K of a
 * CPU (K = 0, 1, 2... for as long as the buffer lives) sits at offset
 * (K % n_subbufs) * subbuf_size and starts with a struct tp_proto_subbuf
 * that the module writes when the sub-buffer starts (relay's
 * subbuf_start() callback) and completes when it moves to the next one:
 * `done` becomes K + 1 last (a release store; the loader loads it with
 * acquire), and only then may the loader read `len` and the data. A
 * sub-buffer whose `done` is not K + 1 is still being written (or is an
 * older one): the loader never reads it. After reading sub-buffers up to
 * K the loader sends CONSUMED (cpu, K + 1); the module reuses their room
 * only then, and drops writes (counting them) while every sub-buffer is
 * full. poll() says POLLIN while a completed sub-buffer was not reported
 * consumed (relay's own poll: woken when one completes).
 *
 * The module completes a partly filled sub-buffer itself every
 * flush_ms milliseconds (HELLO), from a work item on the buffer's own
 * CPU, so that slow output shows up soon, and for the last time before
 * DONE. A CPU that comes online during the run gets its traceN file
 * then: CPU_ONLINE says so.
 *
 * Data framing. The data of the sub-buffers of one CPU, in order, is a
 * byte stream of frames: a struct tp_proto_frame header, then `len`
 * bytes of output; a frame never spans two sub-buffers. `seq` counts
 * every frame of every CPU from 1 without gaps (a write that does not
 * fit is dropped whole and takes no number), so the loader prints frames
 * in `seq` order across CPUs.
 *
 * A frame whose magic is TP_PROTO_SWITCH_MAGIC has no bytes (`len` 0):
 * switch_file() wrote it, and the output after it (in `seq` order) goes
 * to the next output file when the loader writes to files (-o): FILE.1,
 * FILE.2, ... (every CPU's file with -B); elsewhere it means nothing.
 * It is numbered, lost and counted as any other frame.
 */
#ifndef TAPIR_RUNTIME_TRANSPORT_PROTO_H
#define TAPIR_RUNTIME_TRANSPORT_PROTO_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#ifndef TP_PROTO_VERSION		/* -D only to test the mismatch */
#define TP_PROTO_VERSION	4
#endif
#define TP_PROTO_MAGIC		0x52495054u	/* "TPIR" in memory order */
#define TP_PROTO_FRAME_MAGIC		0x4d415246u	/* "FRAM" */
#define TP_PROTO_SWITCH_MAGIC		0x48435753u	/* "SWCH": switch_file() */
#define TP_PROTO_SUBBUF_MAGIC		0x46425553u	/* "SUBF" */

#define TP_PROTO_DEBUGFS_DIR	"/sys/kernel/debug/tapir-"
#define TP_PROTO_PROCFS_DIR	"/proc/tapir-"
#define TP_PROTO_CTL		"ctl"
#define TP_PROTO_TRACE		"trace"		/* + CPU number */

/* Message types. */
enum tp_proto_type {
	/* module -> loader */
	TP_PROTO_HELLO = 1,	/* struct tp_proto_hello */
	TP_PROTO_STARTED = 2,	/* struct tp_proto_started */
	TP_PROTO_STDERR = 3,	/* text: one or more lines for standard
				 * error; the loader ends it with '\n' when
				 * it does not end with one */
	TP_PROTO_REQUEST_EXIT = 4, /* no payload: the script asks to stop */
	TP_PROTO_DONE = 5,	/* struct tp_proto_done */
	TP_PROTO_CPU_ONLINE = 6, /* struct tp_proto_cpu: traceN is there now */
	TP_PROTO_SYSTEM = 7,	/* text: a command for `/bin/sh -c`, which the
				 * loader starts in the background (system()),
				 * its output on the loader's stdout */
	/* loader -> module */
	TP_PROTO_START = 16,	/* struct tp_proto_start */
	TP_PROTO_STOP = 17,	/* no payload */
	TP_PROTO_CONSUMED = 18,	/* struct tp_proto_consumed */
};

struct tp_proto_msg {
	uint32_t type;		/* enum tp_proto_type */
	uint32_t len;		/* payload bytes after this header */
};

#define TP_PROTO_ALIGN(n)		(((n) + 7u) & ~7u)
#define TP_PROTO_MSG_SIZE(len) \
	(sizeof(struct tp_proto_msg) + TP_PROTO_ALIGN(len))
/* The largest message either side sends (header included). */
#define TP_PROTO_MSG_MAX		4096u
/* The longest STDERR text; longer texts are cut and end with "...". */
#define TP_PROTO_TEXT_MAX		(TP_PROTO_MSG_MAX - sizeof(struct tp_proto_msg))

/* HELLO flags: where the module created its files. */
#define TP_PROTO_HELLO_DEBUGFS	0x1u	/* debugfs (else procfs) */

struct tp_proto_hello {
	uint32_t magic;		/* TP_PROTO_MAGIC */
	uint32_t version;	/* TP_PROTO_VERSION */
	/* -- the fields below may change with the version -- */
	uint32_t flags;		/* TP_PROTO_HELLO_* */
	uint32_t ncpus;		/* traceN files exist for some N < ncpus */
	uint64_t bufsize;	/* bytes of buffer per CPU */
	uint32_t bufsize_mb;	/* the size in MB (-b, or the default) for
				 * messages; 0 when set in KB for tests */
	uint32_t flush_ms;	/* partly filled sub-buffers are completed
				 * this often */
	uint64_t subbuf_size;	/* bytes per sub-buffer (a power of 2) */
	uint32_t n_subbufs;	/* sub-buffers per CPU */
	uint32_t reserved;
};

/* START flags. */
#define TP_PROTO_START_TARGET		0x1u	/* target_pid is set (-c or -x) */

struct tp_proto_start {
	uint32_t magic;		/* TP_PROTO_MAGIC */
	uint32_t version;	/* TP_PROTO_VERSION */
	uint32_t flags;		/* TP_PROTO_START_* */
	uint32_t reserved;
	int64_t target_pid;	/* target(): -x PID, or -c's command */
	int64_t loader_pid;	/* stp_pid(): the loader's own pid */
	int32_t tz_gmtoff;	/* tz_gmtoff(): the loader's local time
				 * zone, in seconds west of UTC */
	uint32_t loader_uid;	/* is_myproc(): the loader's real uid */
	char tz_name[32];	/* tz_name(): its abbreviation ("UTC",
				 * "CET"), NUL-terminated */
};

struct tp_proto_started {
	int32_t status;		/* 0, or the -errno tp_session_start()
				 * returned */
	uint32_t reserved;
};

struct tp_proto_cpu {
	uint32_t cpu;
	uint32_t reserved;
};

/* The loader read CPU `cpu`'s sub-buffers 0 .. subbufs - 1 (a count
 * since the buffer was made, never going back). */
struct tp_proto_consumed {
	uint32_t cpu;
	uint32_t reserved;
	uint64_t subbufs;
};

struct tp_proto_done {
	uint64_t frames;	/* frames written */
	uint64_t bytes;		/* output bytes written (without headers) */
	uint64_t lost_writes;	/* writes dropped: buffer full, NMI, no
				 * buffer for the CPU ("transport failures") */
	uint64_t lost_bytes;	/* their bytes */
	uint64_t lost_messages;	/* STDERR texts dropped (queue full) */
};

/* The start of every sub-buffer (see "Data" above). */
struct tp_proto_subbuf {
	uint64_t done;		/* K + 1 once sub-buffer K is complete */
	uint64_t id;		/* K + 1, written when it starts */
	uint32_t len;		/* bytes used, this header included */
	uint32_t magic;		/* TP_PROTO_SUBBUF_MAGIC */
	uint64_t reserved;
};

/* The header of every output chunk in a sub-buffer. */
struct tp_proto_frame {
	uint64_t seq;		/* 1, 2, 3... across all CPUs */
	uint32_t len;		/* bytes of output that follow */
	uint32_t magic;		/* TP_PROTO_FRAME_MAGIC (catches framing
				 * bugs), or TP_PROTO_SWITCH_MAGIC */
};

/* Buffer sizes: -b MB (1..4095) per CPU; default as stap's 16 MB, less
 * when memory is short (a quarter of free memory over the CPUs). One
 * write (a frame) holds at most subbuf_size - sizeof(struct
 * tp_proto_subbuf) - sizeof(struct tp_proto_frame) bytes. */
#define TP_PROTO_BUFSIZE_DEFAULT_MB	16
#define TP_PROTO_BUFSIZE_MAX_MB	4095

#endif /* TAPIR_RUNTIME_TRANSPORT_PROTO_H */
