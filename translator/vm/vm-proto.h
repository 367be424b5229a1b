/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vm-proto.h - the wire protocol between the VM runner (vm.c, host) and
 * its guest agent (vm-agent.c, the guest's /init).
 *
 * One bidirectional byte stream joins them: a virtio-serial port named
 * VM_PORT_NAME (or, when the guest kernel has no virtio console driver,
 * the guest's second serial port, /dev/ttyS1). The guest's console,
 * ttyS0, carries nothing but kernel messages and is read separately.
 *
 * Guest to host: frames, each a struct vm_frame header followed by len
 * bytes of payload. Host to guest: single control bytes (VM_CTL_*).
 * Both ends run on x86-64, so the header is in native byte order.
 *
 * After the last job the agent sends back every regular file that the
 * jobs left in VM_GUEST_OUTBOX (a VM_F_FILE frame naming it, then its
 * bytes in VM_F_FILEDATA frames), then VM_F_DONE.
 */
#ifndef TAPIR_VM_PROTO_H
#define TAPIR_VM_PROTO_H

#include <stdint.h>

#define VM_PROTO_VERSION 2
#define VM_PORT_NAME "tapir.0"

/* Paths inside the initramfs. */
#define VM_GUEST_CONFIG "/tapir/config"	/* key value lines, see vm.c */
#define VM_GUEST_JOBDIR "/tapir/job"	/* job N's script is JOBDIR/N */
#define VM_GUEST_CWD "/root"		/* jobs run here; HOME */
#define VM_GUEST_OUTBOX "/tapir/out"	/* files left here go back to the host */

enum vm_frame_type {
	VM_F_HELLO = 1,	/* agent is up; payload: protocol version (text) */
	VM_F_BOOTLOG,	/* kernel log before the first job (text) */
	VM_F_START,	/* job starts; no payload */
	VM_F_STDOUT,	/* job's standard output */
	VM_F_STDERR,	/* job's standard error */
	VM_F_KMSG,	/* kernel log lines written while the job ran */
	VM_F_EXIT,	/* job ended; payload: struct vm_exit */
	VM_F_AGENT,	/* a message from the agent itself (text) */
	VM_F_DONE,	/* no more jobs; the guest powers off next */
	VM_F_FILE,	/* after the last job: a regular file of OUTBOX
			 * follows; payload: its name (no '/') */
	VM_F_FILEDATA,	/* the next bytes of that file */
};

struct vm_frame {
	uint8_t type;		/* enum vm_frame_type */
	uint8_t pad;
	uint16_t job;		/* job index; 0 where not meaningful */
	uint32_t len;		/* payload bytes that follow */
};

#define VM_FRAME_MAX (64u * 1024)	/* the agent never sends more */

struct vm_exit {
	int32_t wstatus;	/* as from waitpid() */
	uint32_t flags;		/* VM_EXIT_* */
	uint64_t usec;		/* wall time of the job in the guest */
};

#define VM_EXIT_TIMEOUT 1u	/* killed on the host's VM_CTL_TIMEOUT */
#define VM_EXIT_INTERRUPTED 2u	/* sent SIGINT on the host's VM_CTL_INT */
#define VM_EXIT_NOTRUN 4u	/* never started (the batch was stopped) */

enum vm_ctl {
	VM_CTL_INT = 'i',	/* SIGINT to the job; run no further jobs */
	VM_CTL_TIMEOUT = 't',	/* SIGKILL the job: its time is up */
	VM_CTL_QUIT = 'q',	/* SIGKILL the job, run no more, power off */
};

#endif /* TAPIR_VM_PROTO_H */
