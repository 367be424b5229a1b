/* emit-trace.c - the handlers of kernel.trace probes.
 *
 * A tracepoint calls its probes as void (*)(void *data, ARGS); each
 * tracepoint probe gets a handler of that prototype (the types of
 * dwarf-api.h's struct trace_arg: the ABI of the tracepoint's own, in
 * types every module has). It stores ARGS in 8-byte slots on its
 * stack and runs the probe with a struct pt_regs whose sp points at
 * them, in c->data, which is where pass 2 reads every $ARG from. It is
 * declared before the probe table (which names it) and defined after
 * it (it names its table entry), as kprobe handlers of runtime/entry.h
 * are.
 */
#include <string.h>

#include "debuginfo/dwarf-api.h"
#include "emit-internal.h"

static void prototype(const struct dprobe *p, const char *handler, FILE *o)
{
	const struct dwarf_site *site = p->dwarf;

	fprintf(o, "static notrace void %s_trace(void *__data", handler);
	for (int i = 0; i < site->ntargs; i++)
		fprintf(o, ", %s%s__a%d", site->targs[i].ctype,
			site->targs[i].ctype[strlen(site->targs[i].ctype) - 1] ==
			'*' ? "" : " ", i);
	fputc(')', o);
}

void emit_trace_handler_decl(const struct dprobe *p, const char *handler,
			     FILE *o)
{
	const struct dwarf_site *site = p->dwarf;

	/* arguments passed by value as their bytes */
	for (int i = 0; i < site->ntargs; i++) {
		const char *ct = site->targs[i].ctype;
		unsigned n;

		if (sscanf(ct, "struct tpg_blob_%u", &n) != 1)
			continue;
		fprintf(o, "#ifndef TPG_BLOB_%u\n#define TPG_BLOB_%u\n"
			"struct tpg_blob_%u { u64 w[%u]; };\n#endif\n", n, n, n,
			n / 8);
	}
	prototype(p, handler, o);
	fputs(";\n", o);
}

/* @light_may_fail: NULL, or the probe is light (emit.c, light_probe():
 * it reads nothing of the context, so neither its arguments) and this is
 * its may_fail of tp_run_light_in() (runtime/entry.h) */
void emit_trace_handler_def(const struct dprobe *p, const char *handler,
			    int index, const char *light_may_fail, FILE *o)
{
	const struct dwarf_site *site = p->dwarf;

	fprintf(o, "/* %s: the tracepoint's handler */\n", p->name);
	prototype(p, handler, o);
	if (light_may_fail) {
		fprintf(o, "\n{\n\ttp_run_light_in(&tpg_probes[%d], "
			"TP_STATE_RUNNING, %s);\n}\n\n", index, light_may_fail);
		return;
	}
	fprintf(o, "\n{\n\tu64 args[%d];\n\tstruct pt_regs regs;\n\n",
		site->nslots ? site->nslots : 1);
	for (int i = 0; i < site->ntargs; i++)
		fprintf(o, "\t__builtin_memcpy(&args[%u], &__a%d, sizeof(__a%d));\n",
			site->targs[i].slot, i, i);
	fprintf(o, "\tregs.sp = (unsigned long)args;\n"
		"\ttp_run_probe_in(&tpg_probes[%d], TP_STATE_RUNNING, NULL, 0, "
		"&regs);\n}\n\n", index);
}

void emit_trace_fields(struct em *em, const struct dprobe *p,
		       const char *handler, FILE *o)
{
	fprintf(o, "\t\t.tracepoint = %s,\n\t\t.tp_handler = %s_trace,\n",
		c_string(em, p->tracepoint, strlen(p->tracepoint)), handler);
	if (p->dwarf->module && strcmp(p->dwarf->module, "kernel") != 0)
		fprintf(o, "\t\t.tp_module = %s,\n", c_string(em,
			p->dwarf->module, strlen(p->dwarf->module)));
	if (p->point->optional || p->user->optional)
		fputs("\t\t.optional = true,\n", o);
}
