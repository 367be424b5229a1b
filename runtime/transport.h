/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * transport.h - between the runtime core (contexts, probes, session) and
 * the transport (a relay channel with a buffer per CPU for the script's
 * output, the control channel to the loader). The wire format the loader sees is in
 * transport-proto.h, shared with runtime/loader/tapir-run.c.
 *
 * Lifecycle, as the loader drives it:
 *   insmod (finit_module, with var=val parameters)
 *     module_init: tp_transport_init() creates the channels (debugfs,
 *     procfs fallback); the core allocates contexts and globals.
 *   loader opens the files and sends START
 *     -> tp_session_start() (process context): registers the probes and
 *        runs the begin probes; its status goes back to the loader.
 *   exit() in a probe, MAXERRORS reached, or the loader's SIGINT/SIGTERM
 *     -> tp_transport_request_exit() tells the loader (from any context:
 *        deferred with irq_work), the loader sends STOP
 *     -> tp_session_stop() (process context): unregisters the probes,
 *        waits for running handlers, runs the end probes, reports
 *        "WARNING: Number of errors: ..."; the transport completes every
 *        CPU's last sub-buffer (on that CPU) and tells the loader it is
 *        done, the loader reads the rest of the buffers and removes the
 *        module.
 */
#ifndef TAPIR_RUNTIME_TRANSPORT_H
#define TAPIR_RUNTIME_TRANSPORT_H

#include "compat.h"

/* Implemented by the transport (runtime/transport.c). */
int tp_transport_init(const char *module_name);
void tp_transport_exit(void);
/*
 * Script output from this CPU (preemption disabled, any context, NMI
 * too; a write from an NMI that interrupted another write on this CPU is
 * counted as lost). Either all of @len goes
 * or none: returns 0 or -ENOSPC, and lost bytes are counted and reported
 * at exit ("WARNING: There were N transport failures" as stap words it).
 */
int tp_transport_write(const char *buf, size_t len);
/* The same for @len bytes that @fill writes at @dst (the frame's room in
 * the buffer, irqs off: it must not fault or sleep); --json's objects,
 * escaped in place. */
int tp_transport_write_fill(size_t len, void (*fill)(char *dst, void *arg),
			    void *arg);
/* switch_file(): the output written after this (in the loader's order
 * across CPUs) goes to the next output file. As tp_transport_write(),
 * from any context; a switch that does not fit is lost and counted. */
int tp_transport_switch_file(void);
/* A line for the loader's standard error ("ERROR: ...", "WARNING: ..."),
 * in order with other such lines. Any context. */
void tp_transport_stderr(const char *text, size_t len);
/* The script wants to stop (exit(), error limit). Any context. */
void tp_transport_request_exit(void);
/* system(): the loader runs text (len bytes) with /bin/sh -c, in the
 * background; from any context. False when the queue was full. */
bool tp_transport_system(const char *text, size_t len);
/* The pid the loader was given (-x) or started (-c); 0 if none. */
long tp_transport_target_pid(void);
/* START's loader pid, time zone offset (seconds west of UTC) and name. */
long tp_transport_loader_pid(void);
uid_t tp_transport_loader_uid(void);
size_t tp_transport_bytes(void);
int tp_transport_tz_gmtoff(void);
const char *tp_transport_tz_name(void);
/* For tests (testsuite/transport/ttest.c): how many of @cpu's
 * sub-buffers a flush completed, relay made (completed) and the loader
 * read. */
u64 tp_transport_flushes(unsigned int cpu);
u64 tp_transport_produced(unsigned int cpu);
u64 tp_transport_consumed(unsigned int cpu);

/* Implemented by the runtime core (runtime/session.c), called by the
 * transport in the loader's process context. */
int tp_session_start(void);
void tp_session_stop(void);

#endif /* TAPIR_RUNTIME_TRANSPORT_H */
