/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tpoint.h - the kernel's tracepoint API as tracepoint.c uses it,
 * wrapped by tpoint.c. The kernel's <linux/tracepoint.h> defines a
 * struct tp_module of its own, so the runtime's files (tapir.h has
 * ours) cannot include it; tpoint.c includes only it and this.
 */
#ifndef TAPIR_RUNTIME_TPOINT_H
#define TAPIR_RUNTIME_TPOINT_H

/* found[i]: the kernel's tracepoint named names[i] (an opaque struct
 * tracepoint *), left as it is when there is none. Process context. */
void tp_tpoint_lookup(const char *const *names, void **found, unsigned int n);
/* tracepoint_probe_register(tp, probe, NULL): 0 or -errno. */
int tp_tpoint_register(void *tp, void *probe);
void tp_tpoint_unregister(void *tp, void *probe);
/* tracepoint_synchronize_unregister(): no handler of an unregistered
 * probe runs past it. */
void tp_tpoint_sync(void);

/* n probes on tracepoints of modules: probes[i] on the tracepoint
 * names[i] of the module mods[i], registered now if that module is
 * loaded and whenever it is loaded later, unregistered when it goes;
 * a refused registration calls refused(i, rc) (process context).
 * 0 or -errno. */
int tp_tpoint_modules_start(const char *const *mods, const char *const *names,
			    void *const *probes, unsigned int n,
			    void (*refused)(unsigned int i, int rc));
/* Every probe of tp_tpoint_modules_start() unregistered (then
 * tp_tpoint_sync()); nothing when it was not started. */
void tp_tpoint_modules_stop(void);

#endif /* TAPIR_RUNTIME_TPOINT_H */
