/* btf.c - the kernel's BTF, through libbpf: tracepoints and their typed
 * arguments when the kernel's debuginfo is not installed.
 *
 * The BTF comes from, in order: the build directory's vmlinux, the -dbg
 * package's vmlinux (its .BTF section serves even where its DWARF is
 * hidden by SYSTEMTAP_DEBUGINFO_PATH), and /sys/kernel/btf/vmlinux when
 * the target is the running kernel. Each tracepoint NAME has a BTF
 * function __traceiter_NAME(void *__data, ARGS), named parameters with
 * their types (the typedef btf_trace_NAME has the same prototype without
 * the names). The system of a tracepoint is its event's (__event_NAME in
 * the vmlinux's symbol table, when the BTF came from a vmlinux), else
 * for one without an event the header's that declares it (the kernel's
 * include/trace/events/), else "kernel". BTF has no locals, lines or locations: a tracepoint's
 * arguments are all there is, which is all kernel.trace needs.
 *
 * A module's BTF (the .BTF section of its .ko, split over the kernel's:
 * its type ids follow the kernel's) gives its tracepoints the same way;
 * their sites keep it (btf_split), and their accesses walk it. The system
 * of a module's tracepoint is the module's one trace system, else as
 * for the kernel's (a module of several, kvm, has "kernel" for those its
 * own headers declare).
 *
 * An access ($prev->pid, $rq->cpu, [i], &) walks the BTF types to the
 * same struct dwarf_access that DWARF resolution makes (dwarf-api.h),
 * based at the handler's argument slots; pass 3 cannot tell them apart.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf-api.h"
#include "dwarf-internal.h"
#include "elaborate/elab-internal.h"
#include "kconfig.h"
#include "xalloc.h"

#define MAX_DEPTH 16

struct btf_ctx {
	bool tried;
	struct btf *btf;
	const char *path;
	const char *file;		/* btf_kernel_file()'s, "": none */
	struct strmap sites;		/* "" or a module -> its cached
					 * tracepoints (struct tp_cache) */
	struct strmap events;		/* tracepoint -> its event's system */
	bool events_loaded;
	struct strmap mods;		/* module -> its split BTF, or the
					 * ctx itself when it has none */
	struct strmap mod_events;	/* module -> its events' systems
					 * (a struct strmap) */
	struct btf **split;		/* all of mods', to free */
	size_t nsplit;
};

static struct btf_ctx *ctx(struct session *s)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->btf)
		c->btf = xcalloc(1, sizeof(struct btf_ctx));
	return c->btf;
}

/* The byte offset of member name of struct sname, or dflt. */
static int64_t member_offset(struct btf *btf, const char *sname,
			     const char *name, int64_t dflt)
{
	int32_t id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) :
				   NULL;
	const struct btf_member *m = t ? btf_members(t) : NULL;

	for (int i = 0; t && i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(btf, m[i].name_off), name) == 0)
			return btf_member_bit_offset(t, (uint32_t)i) / 8;
	return dflt;
}

static void elf_events(struct session *s, struct btf_ctx *b, Elf *elf)
{
	dwarf_event_systems(s, elf,
			    member_offset(b->btf, "trace_event_call", "class",
					  16),
			    member_offset(b->btf, "trace_event_class", "system",
					  0), &b->events);
}

/* The events' systems from a vmlinux's symbol table and data, read on
 * first need: the debuginfo's vmlinux when it is installed (the one
 * with the events' data; the build directory's may have only BTF and
 * symbols), else the vmlinux the BTF came from. */
static void vmlinux_events(struct session *s, struct btf_ctx *b)
{
	Elf *elf;
	int fd;

	if (b->events_loaded)
		return;
	b->events_loaded = true;
	if (dwarf_tpsys_load(s, "events", &b->events))
		return;
	elf = dwarf_kernel_elf(s);
	if (elf) {
		elf_events(s, b, elf);
		return;
	}
	if (strncmp(b->path, "/sys/", 5) == 0 ||
	    (fd = open(b->path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		elf_events(s, b, elf);
		elf_end(elf);
	}
	close(fd);
}

/* The .BTF section of the ELF file at path, read in place through
 * libelf's mapping of the file: libbpf's btf__parse() reads the section
 * into memory first, and for the 4 MB of a vmlinux's that was three times
 * the cost of the rest (8 ms, now 2.5). NULL when it has none, or a
 * compressed one: then btf__parse() tries. (A module's split BTF still
 * goes through btf__parse_split(): libbpf 1.1 has no btf__new_split().) */
static bool elf_btf(Elf *elf, void *arg)
{
	struct btf **b = arg;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	while (elf && elf_getshdrstrndx(elf, &shstrndx) == 0 &&
	       (scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".BTF") != 0)
			continue;
		d = (sh.sh_flags & SHF_COMPRESSED) ? NULL :
		    elf_rawdata(scn, NULL);
		if (d && d->d_buf && d->d_size)
			*b = btf__new(d->d_buf, d->d_size);
		if (*b && libbpf_get_error(*b))
			*b = NULL;
		break;
	}
	return *b != NULL;
}

static struct btf *mapped_btf(const char *path)
{
	struct btf *b = NULL;

	dwarf_with_elf(path, elf_btf, &b);
	return b;
}

static struct btf *parse_btf(const char *path)
{
	struct btf *t = strncmp(path, "/sys/", 5) == 0 ? NULL :
			mapped_btf(path);

	if (!t)
		t = btf__parse(path, NULL);
	if (t && libbpf_get_error(t))
		t = NULL;
	return t;
}

/* The files the kernel's BTF may come from, in order: tries[], n of
 * them (to free). */
static int btf_candidates(struct session *s, char *tries[3])
{
	struct kconfig *k = kconfig_get(s);
	struct utsname u;
	int n = 0;

	if (k->build_dir)
		tries[n++] = xasprintf("%s/vmlinux", k->build_dir);
	tries[n++] = xasprintf("/usr/lib/debug/boot/vmlinux-%s", k->release);
	if (uname(&u) == 0 && strcmp(u.release, k->release) == 0)
		tries[n++] = xstrdup("/sys/kernel/btf/vmlinux");
	return n;
}

static struct btf *kernel_btf(struct session *s)
{
	struct btf_ctx *b = ctx(s);
	char *tries[3];
	int n;

	if (b->tried)
		return b->btf;
	b->tried = true;
	n = btf_candidates(s, tries);
	for (int i = 0; i < n; i++) {
		if (!b->btf && access(tries[i], R_OK) == 0) {
			struct btf *t = parse_btf(tries[i]);

			if (t) {
				b->btf = t;
				b->path = arena_strdup(&s->arena, tries[i]);
			}
		}
		free(tries[i]);
	}
	if (b->btf && s->verbose)
		fprintf(s->err, "tapir: kernel BTF from %s\n", b->path);
	return b->btf;
}

const char *btf_kernel_file(struct session *s)
{
	struct btf_ctx *b = ctx(s);
	char *tries[3];
	int n;

	if (!b->file) {
		n = btf_candidates(s, tries);
		b->file = "";
		for (int i = 0; i < n; i++) {
			if (!*b->file && access(tries[i], R_OK) == 0)
				b->file = arena_strdup(&s->arena, tries[i]);
			free(tries[i]);
		}
	}
	return *b->file ? b->file : NULL;
}

static struct btf *module_btf(struct session *s, const char *module,
			      const char *path);

/* The BTF a site's types are ids of: its module's, else the kernel's. */
static struct btf *site_btf(struct session *s, const struct dwarf_site *site)
{
	if (site && site->btf_split)
		return site->btf_split;
	if (site && site->btf_ko)
		return module_btf(s, site->module, site->btf_ko);
	return kernel_btf(s);
}

bool btf_available(struct session *s)
{
	return kernel_btf(s) != NULL;
}

const char *btf_kernel_path(struct session *s)
{
	return kernel_btf(s) ? ctx(s)->path : NULL;
}

void btf_free(struct session *s)
{
	struct dwarf_ctx *c = s->dwarf;
	struct btf_ctx *b = c ? c->btf : NULL;

	if (!b)
		return;
	for (size_t i = 0; i < b->nsplit; i++)
		btf__free(b->split[i]);
	free(b->split);
	btf__free(b->btf);
	free(b);
	c->btf = NULL;
}

/* ---- types ---- */

/* Skip typedefs and qualifiers. */
static const struct btf_type *peel(struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	for (int i = 0; t && i < MAX_DEPTH; i++) {
		if (!btf_is_typedef(t) && !btf_is_const(t) &&
		    !btf_is_volatile(t) && !btf_is_restrict(t) &&
		    !btf_is_type_tag(t) && !btf_is_decl_tag(t))
			return t;
		*id = t->type;
		if (!*id)
			return NULL;	/* void */
		t = btf__type_by_id(btf, *id);
	}
	return NULL;
}

static const char *tname(struct btf *btf, const struct btf_type *t)
{
	return btf__name_by_offset(btf, t->name_off);
}

/* The type's name as stap spells it ("struct task_struct*", "unsigned
 * int", "pid_t", "char const*"); false for one it cannot name. */
static bool name_into(struct btf *btf, uint32_t id, char *buf, size_t cap,
		      int depth)
{
	const struct btf_type *t;
	size_t len = strlen(buf);
	const char *suffix = NULL, *n;

	if (depth > MAX_DEPTH)
		return false;
	if (!id) {
		snprintf(buf + len, cap - len, "void");
		return true;
	}
	t = btf__type_by_id(btf, id);
	if (!t)
		return false;
	n = tname(btf, t);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FLOAT:
		snprintf(buf + len, cap - len, "%s", n);
		return true;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		snprintf(buf + len, cap - len, "%s %s",
			 btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)) ?
			 "union" : btf_is_struct(t) || btf_is_fwd(t) ?
			 "struct" : "enum", *n ? n : "{...}");
		return true;
	case BTF_KIND_PTR:
		suffix = "*";
		break;
	case BTF_KIND_CONST:
		suffix = " const";
		break;
	case BTF_KIND_VOLATILE:
		suffix = " volatile";
		break;
	case BTF_KIND_RESTRICT:
		suffix = " restrict";
		break;
	case BTF_KIND_TYPE_TAG:
		return name_into(btf, t->type, buf, cap, depth + 1);
	case BTF_KIND_ARRAY:
		if (!name_into(btf, btf_array(t)->type, buf, cap, depth + 1))
			return false;
		len = strlen(buf);
		snprintf(buf + len, cap - len, "[]");
		return true;
	default:
		return false;
	}
	if (btf_is_ptr(t) && t->type) {
		const struct btf_type *sub = btf__type_by_id(btf, t->type);

		if (sub && btf_is_func_proto(sub)) {
			const struct btf_param *p = btf_params(sub);

			if (!name_into(btf, sub->type, buf, cap, depth + 1))
				return false;
			len = strlen(buf);
			snprintf(buf + len, cap - len, " (*) (");
			for (int i = 0; i < btf_vlen(sub); i++) {
				len = strlen(buf);
				if (!p[i].type) {
					snprintf(buf + len, cap - len, "%s...",
						 i ? ", " : "");
					continue;
				}
				snprintf(buf + len, cap - len, "%s", i ? ", " : "");
				if (!name_into(btf, p[i].type, buf, cap, depth + 1))
					return false;
			}
			len = strlen(buf);
			snprintf(buf + len, cap - len, "%s)",
				 btf_vlen(sub) ? "" : "void");
			return true;
		}
	}
	if (!name_into(btf, t->type, buf, cap, depth + 1))
		return false;
	len = strlen(buf);
	snprintf(buf + len, cap - len, "%s", suffix);
	return true;
}

static const char *type_name(struct session *s, struct btf *btf, uint32_t id)
{
	char buf[512] = "";

	if (!name_into(btf, id, buf, sizeof(buf), 0))
		return NULL;
	return arena_strdup(&s->arena, buf);
}

static bool int_signed(const struct btf_type *t)
{
	return btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);
}

/* The prototype's type for an argument (dwarf-trace.c's rules). */
static const char *proto_type(struct session *s, struct btf *btf, uint32_t id,
			      unsigned *size)
{
	const struct btf_type *t = peel(btf, &id);
	int64_t sz;

	if (!t)
		return NULL;
	if (btf_is_ptr(t) || btf_is_array(t)) {
		*size = 8;
		return "void *";
	}
	sz = btf__resolve_size(btf, id);
	if (sz <= 0 || sz > 64)
		return NULL;
	*size = (unsigned)sz;
	if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL))
		return "bool";
	if (btf_is_int(t) || btf_is_any_enum(t))
		return dwarf_int_ctype(sz, int_signed(t));
	if (btf_is_composite(t))
		return arena_printf(&s->arena, "struct tpg_blob_%u",
				    (unsigned)(sz + 7) / 8 * 8);
	return NULL;
}

/* ---- functions ---- */

/* The function named name among a split BTF's own types (from first). */
static int32_t own_function(struct btf *btf, uint32_t first, const char *name)
{
	for (uint32_t id = first; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t) && strcmp(tname(btf, t), name) == 0)
			return (int32_t)id;
	}
	return -1;
}

/* The site of function name in btf, of module (NULL: the kernel). */
static struct dwarf_site *function_site(struct session *s, struct btf *btf,
					const char *module, const char *name,
					bool is_return)
{
	/* DWARF numbers of rdi, rsi, rdx, rcx, r8, r9 */
	static const unsigned regs[] = { 5, 4, 1, 2, 8, 9 };
	const struct btf_type *fn, *fp;
	const struct btf_param *p;
	struct dwarf_site *site;
	struct trace_arg *args;
	unsigned next = 0;
	int32_t id;

	if (!btf)
		return NULL;
	id = module ? own_function(btf, btf__type_cnt(kernel_btf(s)), name) :
		     btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	fn = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	fp = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!fp || !btf_is_func_proto(fp))
		return NULL;
	p = btf_params(fp);
	args = arena_alloc(&s->arena, (size_t)(btf_vlen(fp) + 1) *
			   sizeof(*args));
	site = ANEW(&s->arena, struct dwarf_site);
	for (int k = 0; k < btf_vlen(fp); k++) {
		struct trace_arg *a = &args[site->ntargs];

		a->name = btf__name_by_offset(btf, p[k].name_off);
		if (!a->name || !*a->name)	/* (...) */
			break;
		a->btf_type = p[k].type;
		a->ctype = proto_type(s, btf, p[k].type, &a->size);
		/* one register each, until an argument that is not an
		 * integer or a pointer leaves the rest uncertain */
		if (next == sizeof(regs) / sizeof(regs[0]) || !a->ctype ||
		    strncmp(a->ctype, "struct ", 7) == 0) {
			a->ctype = NULL;
			next = sizeof(regs) / sizeof(regs[0]);
		} else {
			a->slot = regs[next++];
		}
		site->ntargs++;
	}
	site->module = module ? module : "kernel";
	site->btf_split = module ? btf : NULL;
	site->function = arena_strdup(&s->arena, name);
	site->is_return = is_return;
	site->btf = true;
	site->btf_ret = fp->type;
	site->targs = args;
	return site;
}

struct dwarf_site *btf_function_site(struct session *s, const char *name,
				     bool is_return)
{
	return function_site(s, kernel_btf(s), NULL, name, is_return);
}

struct dwarf_site *btf_module_function_site(struct session *s,
					    const char *module,
					    const char *name, bool is_return)
{
	const char *path = dwarf_installed_module(s, module);
	struct btf *btf = path ? module_btf(s, module, path) : NULL;

	return btf ? function_site(s, btf, module, name, is_return) : NULL;
}

/* ---- tracepoints ---- */

static int site_cmp(const void *a, const void *b)
{
	const struct dwarf_site *x = *(const struct dwarf_site *const *)a;
	const struct dwarf_site *y = *(const struct dwarf_site *const *)b;

	return strcmp(x->tracepoint, y->tracepoint);
}

/* The ids of the tracepoints' iterators (__traceiter_NAME) among the
 * types of btf from id first on, ascending, ending in 0. A walk of every
 * type (95,000 of the kernel's) each session, so the list is kept in the
 * trace systems cache (tpsys.c, keyed on the BTF's file) as the map
 * "iters" (a module's: "iters:MODULE"), one entry: "ids" -> the ids. */
struct ids {
	uint32_t *v;
	size_t n, cap;
};

static void push_id(struct ids *l, uint32_t id)
{
	if (l->n + 1 >= l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = id;
	l->v[l->n] = 0;
}

static uint32_t *iterator_ids(struct session *s, struct btf *btf,
			      uint32_t first, const char *module)
{
	struct strmap *m = ANEW(&s->arena, struct strmap);
	const char *text, *name = module ? arena_printf(&s->arena, "iters:%s",
							module) : "iters";
	struct ids l = { NULL, 0, 0 };
	char *buf = NULL, *end;
	size_t len = 0;
	FILE *f;

	push_id(&l, 0);		/* the end, when there are none */
	l.n = 0;
	if (dwarf_tpsys_load(s, name, m) && (text = strmap_get(m, "ids"))) {
		unsigned long id;

		while ((id = strtoul(text, &end, 10)), end != text) {
			push_id(&l, (uint32_t)id);
			text = end;
		}
		return l.v;
	}
	f = open_memstream(&buf, &len);
	for (uint32_t id = first; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t) ||
		    strncmp(tname(btf, t), "__traceiter_", 12) != 0)
			continue;
		push_id(&l, id);
		if (f)
			fprintf(f, "%s%u", l.n > 1 ? " " : "", id);
	}
	if (f) {
		fclose(f);
		strmap_add(&s->arena, m, "ids", arena_strdup(&s->arena, buf));
		free(buf);
	}
	return l.v;
}

/* What reading the whole of argument a gives, as finish() finds it. */
static void arg_value(struct session *s, struct btf *btf, struct trace_arg *a)
{
	uint32_t id = a->btf_type;
	const struct btf_type *t = peel(btf, &id);
	int64_t size;

	a->type_name = type_name(s, btf, a->btf_type);
	if (!t)
		return;
	if (btf_is_composite(t)) {
		a->kind = TARG_AGGREGATE;
		return;
	}
	if (!btf_is_int(t) && !btf_is_any_enum(t) && !btf_is_ptr(t))
		return;
	size = btf_is_ptr(t) ? 8 : btf__resolve_size(btf, id);
	if (size <= 0 || size > 8)
		return;
	a->kind = TARG_SCALAR;
	a->value_size = (unsigned)size;
	a->value_pointer = btf_is_ptr(t);
	a->value_signed = int_signed(t);
}

/* The tracepoints like glob among the types of btf from id first on:
 * those of module (NULL: the kernel), whose system is sys (NULL: their
 * events' in events, NULL: the kernel's, else their headers'). */
static int scan_tracepoints(struct session *s, struct btf *btf,
			    uint32_t first, const char *module,
			    const char *sys, const struct strmap *events,
			    const char *glob, struct dwarf_site ***out)
{
	struct btf_ctx *b = ctx(s);
	struct dwarf_site **v = NULL;
	uint32_t *ids = iterator_ids(s, btf, first, module);
	int n = 0;

	for (uint32_t *idp = ids; *idp; idp++) {
		uint32_t id = *idp;
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_type *fp;
		const struct btf_param *p;
		const char *name = t ? tname(btf, t) : "";
		struct dwarf_site *site;
		struct trace_arg *args;
		int slot = 0, k;

		if (!t || !btf_is_func(t) ||
		    strncmp(name, "__traceiter_", 12) != 0 ||
		    fnmatch(glob, name + 12, 0) != 0)
			continue;
		fp = btf__type_by_id(btf, t->type);
		if (!fp || !btf_is_func_proto(fp) || btf_vlen(fp) < 1)
			continue;
		p = btf_params(fp);
		args = arena_alloc(&s->arena, (size_t)btf_vlen(fp) *
				   sizeof(*args));
		for (k = 1; k < btf_vlen(fp); k++) {
			struct trace_arg *a = &args[k - 1];

			a->name = btf__name_by_offset(btf, p[k].name_off);
			a->ctype = proto_type(s, btf, p[k].type, &a->size);
			if (!*a->name || !a->ctype)
				break;
			a->slot = (unsigned)slot;
			a->btf_type = p[k].type;
			arg_value(s, btf, a);
			slot += (int)(a->size + 7) / 8;
		}
		if (k < btf_vlen(fp))
			continue;
		site = ANEW(&s->arena, struct dwarf_site);
		site->module = module ? module : "kernel";
		site->function = name;
		site->tracepoint = name + 12;
		if (!sys && !events)
			vmlinux_events(s, b);
		site->tp_system = sys ? sys : strmap_get(events ? events :
							 &b->events,
							 site->tracepoint);
		if (module)
			site->btf_split = btf;
		if (!site->tp_system)
			site->tp_system = dwarf_declared_system(s,
							site->tracepoint);
		if (!site->tp_system)
			site->tp_system = "kernel";
		site->targs = args;
		site->ntargs = btf_vlen(fp) - 1;
		site->nslots = slot;
		site->btf = true;
		v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
		v[n++] = site;
	}
	free(ids);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), site_cmp);
	*out = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof(**out));
	if (n)
		memcpy(*out, v, (size_t)n * sizeof(*v));
	free(v);
	return n;
}

/* ---- the tracepoints cache ----
 *
 * Listing kernel.trace("*") parsed the BTF of the kernel and of the 43
 * modules that define tracepoints: half of such a session. What the
 * listing makes of them is kept in the trace systems cache (tpsys.c,
 * keyed on the BTF's file and the modules'): the map "tps1" (a module's:
 * "tps1:MODULE"), an entry a tracepoint, NAME -> its system then each
 * argument, after a US (0x1f), as fields apart by RS (0x1e): name, C
 * type, size, BTF type id, kind, signed, pointer, value size, type name;
 * "!" when there is no BTF. Sites read from it parse no BTF until an
 * access needs the types ($prev->pid, @cast, -L).
 */
#define TPS_MAP "tps1"
#define US "\x1f"
#define RS "\x1e"

struct tp_cache {
	struct strmap *map;
	bool filled;
};

static struct tp_cache *tp_cache(struct session *s, const char *module)
{
	struct btf_ctx *b = ctx(s);
	const char *key = module ? module : "";
	struct tp_cache *c = strmap_get(&b->sites, key);

	if (!c) {
		c = ANEW(&s->arena, struct tp_cache);
		c->map = dwarf_tpsys_map(s, module ?
				arena_printf(&s->arena, TPS_MAP ":%s", module) :
				TPS_MAP, &c->filled);
		strmap_add(&s->arena, &b->sites, arena_strdup(&s->arena, key),
			   c);
	}
	return c;
}

/* Keep n sites (n < 0: there is no BTF) in c. */
static void keep_sites(struct session *s, struct tp_cache *c,
		       struct dwarf_site **sites, int n)
{
	c->filled = true;
	if (n < 0) {
		strmap_add(&s->arena, c->map, "!", "");
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct dwarf_site *site = sites[i];
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			continue;
		fputs(site->tp_system, f);
		for (int k = 0; k < site->ntargs; k++) {
			const struct trace_arg *a = &site->targs[k];

			fprintf(f, US "%s" RS "%s" RS "%u" RS "%u" RS "%d" RS
				"%d" RS "%d" RS "%u" RS "%s", a->name, a->ctype,
				a->size, a->btf_type, (int)a->kind,
				a->value_signed, a->value_pointer,
				a->value_size,
				a->type_name ? a->type_name : "");
		}
		fclose(f);
		strmap_add(&s->arena, c->map, site->tracepoint,
			   arena_strdup(&s->arena, buf));
		free(buf);
	}
}

static bool uint_field(char **p, unsigned *v)
{
	char *f = strsep(p, RS), *end;
	unsigned long x;

	if (!f || !*f)
		return false;
	x = strtoul(f, &end, 10);
	*v = (unsigned)x;
	return !*end && x <= 0xffffffffUL;
}

/* The site of tracepoint name from its entry text, or NULL. */
static struct dwarf_site *cached_site(struct session *s, const char *module,
				      const char *ko, const char *name,
				      const char *text)
{
	char *p = arena_strdup(&s->arena, text), *arg;
	struct dwarf_site *site = ANEW(&s->arena, struct dwarf_site);
	struct trace_arg *args;
	unsigned slot = 0;
	int n = 0;

	for (const char *q = text; (q = strchr(q, US[0])); q++)
		n++;
	args = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof(*args));
	site->tp_system = strsep(&p, US);
	for (int k = 0; k < n; k++) {
		struct trace_arg *a = &args[k];
		unsigned kind, sgn, ptr;

		arg = strsep(&p, US);
		a->name = strsep(&arg, RS);
		a->ctype = strsep(&arg, RS);
		if (!a->name || !*a->name || !a->ctype || !*a->ctype ||
		    !uint_field(&arg, &a->size) ||
		    !uint_field(&arg, &a->btf_type) ||
		    !uint_field(&arg, &kind) || kind > TARG_AGGREGATE ||
		    !uint_field(&arg, &sgn) || !uint_field(&arg, &ptr) ||
		    !uint_field(&arg, &a->value_size) || !arg ||
		    strchr(arg, RS[0]))
			return NULL;
		a->kind = kind;
		a->value_signed = sgn;
		a->value_pointer = ptr;
		a->type_name = *arg ? arg : NULL;
		a->slot = slot;
		slot += (a->size + 7) / 8;
	}
	site->module = module ? module : "kernel";
	site->function = arena_printf(&s->arena, "__traceiter_%s", name);
	site->tracepoint = site->function + 12;
	site->btf_ko = ko;
	site->targs = args;
	site->ntargs = n;
	site->nslots = (int)slot;
	site->btf = true;
	return site;
}

struct cached {
	struct session *s;
	const char *module, *ko, *glob;
	struct dwarf_site **v;
	int n;
	bool bad;
};

static void cached_entry(const char *key, void *value, void *arg)
{
	struct cached *c = arg;
	struct dwarf_site *site;

	if (c->bad || strcmp(key, "!") == 0 || fnmatch(c->glob, key, 0) != 0)
		return;
	site = cached_site(c->s, c->module, c->ko, key, value);
	if (!site) {
		c->bad = true;
		return;
	}
	c->v = xrealloc(c->v, (size_t)(c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = site;
}

/* The sites of cache tc like glob, sorted by name; -1 when the cache
 * has no sites but "!", -2 when an entry cannot be read. */
static int cached_sites(struct session *s, struct tp_cache *tc,
			const char *module, const char *ko, const char *glob,
			struct dwarf_site ***out)
{
	struct cached c = { s, module, ko, glob, NULL, 0, false };

	if (strmap_get(tc->map, "!"))
		return -1;
	strmap_each(tc->map, cached_entry, &c);
	if (c.bad) {
		free(c.v);
		return -2;
	}
	if (c.n)
		qsort(c.v, (size_t)c.n, sizeof(*c.v), site_cmp);
	*out = arena_alloc(&s->arena, (size_t)(c.n + 1) * sizeof(**out));
	if (c.n)
		memcpy(*out, c.v, (size_t)c.n * sizeof(*c.v));
	free(c.v);
	return c.n;
}

bool btf_tracepoints_available(struct session *s)
{
	struct tp_cache *c = tp_cache(s, NULL);

	if (c->filled)
		return !strmap_get(c->map, "!");
	if (btf_available(s))
		return true;	/* btf_tracepoints() fills it */
	keep_sites(s, c, NULL, -1);
	return false;
}

int btf_tracepoints(struct session *s, const char *glob,
		    struct dwarf_site ***out, const char **why)
{
	struct tp_cache *c = tp_cache(s, NULL);
	struct dwarf_site **all = NULL;
	int n;

	*out = NULL;
	if (!c->filled) {
		struct btf *btf = kernel_btf(s);

		n = btf ? scan_tracepoints(s, btf, 1, NULL, NULL, NULL, "*",
					   &all) : -1;
		keep_sites(s, c, all, n);
	}
	n = cached_sites(s, c, NULL, NULL, glob, out);
	if (n == -2 && kernel_btf(s))	/* a bad entry: read the BTF */
		n = scan_tracepoints(s, kernel_btf(s), 1, NULL, NULL, NULL,
				     glob, out);
	if (n < 0)
		*why = arena_printf(&s->arena, "no debuginfo and no BTF for "
				    "kernel %s (install the %s package)",
				    kconfig_get(s)->release, dwarf_package(s));
	return n < 0 ? -1 : n;
}

/* The module's BTF, split over the kernel's: parsed once. */
static struct btf *module_btf(struct session *s, const char *module,
			      const char *path)
{
	struct btf_ctx *b = ctx(s);
	struct btf *base = kernel_btf(s), *t;
	void *have = strmap_get(&b->mods, module);

	if (have)
		return have == (void *)b ? NULL : have;
	t = base ? btf__parse_split(path, base) : NULL;
	if (t && libbpf_get_error(t))
		t = NULL;
	if (t) {
		b->split = xrealloc(b->split, (b->nsplit + 1) *
				    sizeof(*b->split));
		b->split[b->nsplit++] = t;
	}
	strmap_add(&s->arena, &b->mods, arena_strdup(&s->arena, module),
		   t ? (void *)t : (void *)b);
	return t;
}

/* The systems of the events of a module of several (kvm.ko: kvm and
 * kvmmmu), read from its .ko once. */
static const struct strmap *module_events(struct session *s,
					  const char *module, const char *path)
{
	struct btf_ctx *b = ctx(s);
	struct strmap *m = strmap_get(&b->mod_events, module);

	if (m)
		return m;
	m = ANEW(&s->arena, struct strmap);
	if (!dwarf_tpsys_load(s, arena_printf(&s->arena, "ko:%s", module), m))
		dwarf_ko_event_systems(s, path,
				       member_offset(b->btf, "trace_event_call",
						     "class", 16),
				       member_offset(b->btf,
						     "trace_event_class",
						     "system", 0), m);
	strmap_add(&s->arena, &b->mod_events, arena_strdup(&s->arena, module),
		   m);
	return m;
}

/* The tracepoints like glob of module, in its BTF: -1 without it. */
static int scan_module(struct session *s, const char *module,
		       const char *path, const char *glob,
		       struct dwarf_site ***out)
{
	struct btf *btf = module_btf(s, module, path);
	const char *sys;

	if (!btf)
		return -1;
	sys = dwarf_file_system(s, module, path);
	return scan_tracepoints(s, btf, btf__type_cnt(kernel_btf(s)), module,
				*sys ? sys : NULL,
				*sys ? NULL : module_events(s, module, path),
				glob, out);
}

int btf_module_tracepoints(struct session *s, const char *module,
			   const char *path, const char *glob,
			   struct dwarf_site ***out, const char **why)
{
	struct tp_cache *c = tp_cache(s, module);
	struct dwarf_site **all = NULL;
	int n;

	*out = NULL;
	if (!c->filled) {
		n = scan_module(s, module, path, "*", &all);
		keep_sites(s, c, all, n);
	}
	n = cached_sites(s, c, module, arena_strdup(&s->arena, path), glob,
			 out);
	if (n == -2)		/* a bad entry: read the BTF */
		n = scan_module(s, module, path, glob, out);
	if (n < 0)
		*why = arena_printf(&s->arena, "no BTF for module '%s' (%s)",
				    module, path);
	return n < 0 ? -1 : n;
}

void btf_list_vars(struct session *s, FILE *out, const struct dwarf_site *site)
{
	struct btf *btf = site_btf(s, site);

	if (btf && site->is_return && site->btf_ret) {
		const char *tn = type_name(s, btf, site->btf_ret);

		if (tn)
			fprintf(out, " $return:%s", tn);
	}
	for (int i = 0; btf && i < site->ntargs; i++) {
		const char *tn = type_name(s, btf, site->targs[i].btf_type);

		if (tn)
			fprintf(out, " $%s:%s", site->targs[i].name, tn);
	}
}

/* ---- accesses ---- */

static void berr(struct btf_ref *r, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void berr(struct btf_ref *r, const struct loc *l, const char *fmt, ...)
{
	va_list ap;
	char *msg = NULL;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	r->err(r->arg, l, msg ? msg : fmt);
	free(msg);
}

#define MAX_STEPS 64

struct bbuild {
	struct dwarf_step steps[MAX_STEPS];
	int n;
	uint32_t type;			/* of the current value */
	const struct btf_member *member;	/* the last member stepped into */
	uint32_t member_bitoff;		/* its bit offset in its struct */
	bool bitfield;
	bool cast_base;			/* still at a @cast's object */
};

static bool push(struct btf_ref *r, struct bbuild *b, enum dwarf_step_kind k,
		 int64_t off, struct expr *index, uint64_t stride,
		 const struct loc *l)
{
	if (b->n == MAX_STEPS) {
		berr(r, l, "target variable chain is too long");
		return false;
	}
	b->steps[b->n].kind = k;
	b->steps[b->n].offset = off;
	b->steps[b->n].index = index;
	b->steps[b->n].stride = stride;
	b->n++;
	return true;
}

/* Member name of the composite t (looking into anonymous members):
 * its type, and its bit offset added to *bits. */
static const struct btf_member *find_member(struct btf *btf,
					    const struct btf_type *t,
					    const char *name, uint64_t *bits,
					    int depth)
{
	const struct btf_member *m = btf_members(t);

	if (depth > MAX_DEPTH)
		return NULL;
	for (int i = 0; i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);
		uint64_t off = btf_member_bit_offset(t, (uint32_t)i);

		if (*n && strcmp(n, name) == 0) {
			*bits += off;
			return &m[i];
		}
		if (!*n) {
			uint32_t id = m[i].type;
			const struct btf_type *sub = peel(btf, &id);
			uint64_t sb = 0;
			const struct btf_member *f;

			if (sub && btf_is_composite(sub) &&
			    (f = find_member(btf, sub, name, &sb, depth + 1))) {
				*bits += off + sb;
				return f;
			}
		}
	}
	return NULL;
}

static const char *member_names(struct session *s, struct btf *btf,
				const struct btf_type *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const struct btf_member *m = btf_members(t);
	const char *out;

	bool first = true;

	for (int i = 0; f && i < btf_vlen(t); i++) {
		const char *n = btf__name_by_offset(btf, m[i].name_off);

		if (!*n)
			continue;
		fprintf(f, "%s%s", first ? "" : ", ", n);
		first = false;
	}
	if (f)
		fclose(f);
	out = arena_strdup(&s->arena, buf ? buf : "");
	free(buf);
	return out;
}

static bool step_field(struct btf_ref *r, struct btf *btf, struct bbuild *b,
		       const struct chain *c)
{
	uint32_t id = b->type;
	const struct btf_type *t = peel(btf, &id);
	const struct btf_member *m;
	uint64_t bits = 0;
	const char *tn;

	if (t && btf_is_ptr(t)) {
		uint32_t pid = t->type;
		const struct btf_type *pt = peel(btf, &pid);

		if (!pt || !btf_is_composite(pt))
			goto invalid;
		if (!push(r, b, DWARF_STEP_DEREF, 0, NULL, 0, &c->loc))
			return false;
		id = pid;
		t = pt;
	} else if (!t || !btf_is_composite(t)) {
		goto invalid;
	}
	m = find_member(btf, t, c->field, &bits, 0);
	if (!m) {
		tn = type_name(r->s, btf, id);
		berr(r, &c->loc, "unable to find member '%s' for %s "
		       "(alternatives: %s)", c->field, tn ? tn : "?",
		       member_names(r->s, btf, t));
		return false;
	}
	b->bitfield = btf_kflag(t) && BTF_MEMBER_BITFIELD_SIZE(m->offset);
	b->member = m;
	b->member_bitoff = (uint32_t)bits;
	if (!push(r, b, DWARF_STEP_OFFSET, b->bitfield ? 0 :
		  (int64_t)(bits / 8), NULL, 0, &c->loc))
		return false;
	b->type = m->type;
	return true;
invalid:
	tn = type_name(r->s, btf, b->type);
	berr(r, &c->loc, "invalid access '->%s' vs. %s", c->field,
	       tn ? tn : "void");
	return false;
}

static bool step_index(struct btf_ref *r, struct btf *btf, struct bbuild *b,
		       const struct chain *c)
{
	uint32_t id = b->type, elem;
	const struct btf_type *t = peel(btf, &id);
	int64_t size;
	const char *tn;

	if (b->cast_base) {
		elem = b->type;		/* @cast(p, "T")[i]: as if p were T * */
	} else if (t && btf_is_ptr(t)) {
		elem = t->type;
		if (!push(r, b, DWARF_STEP_DEREF, 0, NULL, 0, &c->loc))
			return false;
	} else if (t && btf_is_array(t)) {
		elem = btf_array(t)->type;
	} else {
		goto invalid;
	}
	size = elem ? btf__resolve_size(btf, elem) : -1;
	if (size <= 0)
		goto invalid;
	if (c->index->kind == E_NUM) {
		if (!push(r, b, DWARF_STEP_OFFSET, c->index->num * size, NULL,
			  0, &c->loc))
			return false;
	} else if (!push(r, b, DWARF_STEP_INDEX, 0, c->index, (uint64_t)size,
			 &c->loc)) {
		return false;
	}
	b->type = elem;
	b->member = NULL;
	b->bitfield = false;
	return true;
invalid:
	tn = type_name(r->s, btf, b->type);
	berr(r, &c->loc, "invalid access '[...]' vs. %s",
	       tn ? tn : "void");
	return false;
}

static bool finish(struct btf_ref *r, struct btf *btf, struct bbuild *b,
		   struct dwarf_access *a, bool addr, const struct loc *l)
{
	uint32_t id = b->type;
	const struct btf_type *t;
	int64_t size;

	a->type = type_name(r->s, btf, b->type);
	if (addr) {
		a->result = DWARF_RES_ADDRESS;
		a->pointer = true;
		a->size = 8;
		a->type = arena_printf(&r->s->arena, "%s*",
				       a->type ? a->type : "void");
		return true;
	}
	t = peel(btf, &id);
	if (!t) {
		berr(r, l, "'%s' has type void", a->text);
		return false;
	}
	if (btf_is_array(t) || btf_is_func_proto(t)) {
		a->result = DWARF_RES_ADDRESS;
		a->pointer = true;
		a->size = 8;
		return true;
	}
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		berr(r, l, "'%s' is being accessed instead of a member "
		       "such as '->%s'", type_name(r->s, btf, id),
		       btf_vlen(t) ? btf__name_by_offset(btf, m[0].name_off) :
		       "...");
		return false;
	}
	if (!btf_is_int(t) && !btf_is_any_enum(t) && !btf_is_ptr(t)) {
		berr(r, l, "'%s' has a type that cannot be read as a "
		       "number", a->text);
		return false;
	}
	size = btf_is_ptr(t) ? 8 : btf__resolve_size(btf, id);
	if (size <= 0 || size > 8) {
		berr(r, l, "'%s' is %lld bytes, too big for a long",
		       a->text, (long long)size);
		return false;
	}
	a->result = DWARF_RES_INT;
	a->size = (unsigned)size;
	a->pointer = btf_is_ptr(t);
	a->is_signed = int_signed(t);
	if (b->bitfield) {
		uint32_t bits = BTF_MEMBER_BITFIELD_SIZE(b->member->offset);
		struct dwarf_step *st = &b->steps[b->n - 1];
		uint64_t unit = (uint64_t)size * 8;

		a->result = DWARF_RES_BITFIELD;
		a->bit_size = bits;
		st->offset = (int64_t)(b->member_bitoff / unit) * size;
		a->bit_offset = (unsigned)(b->member_bitoff % unit);
	}
	return true;
}

struct dwarf_access *btf_access(struct btf_ref *r, struct dwarf_access *a,
				uint32_t type, const struct chain *chain,
				bool addr, const struct loc *l)
{
	struct btf *btf = site_btf(r->s, r->site);
	struct bbuild bb, *b = &bb;	/* on the stack: 2 KB a malloc was
					 * a heap consolidation each */
	bool ok = true;

	if (!btf)
		return NULL;
	memset(b, 0, sizeof(*b));
	b->type = type;
	b->cast_base = r->cast_base;
	for (; ok && chain; chain = chain->next) {
		ok = chain->field ? step_field(r, btf, b, chain) :
				    step_index(r, btf, b, chain);
		b->cast_base = false;
	}
	if (ok)
		ok = finish(r, btf, b, a, addr, l);
	if (ok) {
		struct dwarf_step *steps = arena_alloc(&r->s->arena,
			(size_t)(b->n + 1) * sizeof(*steps));

		memcpy(steps, b->steps, (size_t)b->n * sizeof(*steps));
		a->steps = steps;
		a->nsteps = b->n;
	}
	return ok ? a : NULL;
}

bool btf_find_type(struct session *s, const char *name, uint32_t *id)
{
	struct btf *btf = kernel_btf(s);
	int kind = BTF_KIND_TYPEDEF;
	int32_t r;

	if (!btf)
		return false;
	if (strncmp(name, "struct ", 7) == 0) {
		kind = BTF_KIND_STRUCT;
		name += 7;
	} else if (strncmp(name, "union ", 6) == 0) {
		kind = BTF_KIND_UNION;
		name += 6;
	} else if (strncmp(name, "enum ", 5) == 0) {
		kind = BTF_KIND_ENUM;
		name += 5;
	}
	r = btf__find_by_name_kind(btf, name, (uint32_t)kind);
	if (r <= 0 && kind == BTF_KIND_TYPEDEF)
		r = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (r <= 0 && kind == BTF_KIND_TYPEDEF)
		r = btf__find_by_name_kind(btf, name, BTF_KIND_INT);
	if (r <= 0)
		return false;
	*id = (uint32_t)r;
	return true;
}

/* Whether a $$parms entry prints as {...} (a structure or union). */
bool btf_arg_is_aggregate(struct session *s, const struct dwarf_site *site,
			  const struct trace_arg *a)
{
	uint32_t type = a->btf_type;
	struct btf *btf;
	const struct btf_type *t;

	if (a->kind != TARG_UNKNOWN)
		return a->kind == TARG_AGGREGATE;
	btf = site_btf(s, site);
	t = btf ? peel(btf, &type) : NULL;
	return t && btf_is_composite(t);
}

struct dwarf_access *btf_arg_access(struct btf_ref *r, struct dwarf_access *a,
				    const struct trace_arg *t,
				    const struct chain *chain, bool addr,
				    const struct loc *l)
{
	if (chain || addr || t->kind != TARG_SCALAR)
		return btf_access(r, a, t->btf_type, chain, addr, l);
	/* what finish() makes of it, from the site alone */
	a->type = t->type_name;
	a->result = DWARF_RES_INT;
	a->size = t->value_size;
	a->pointer = t->value_pointer;
	a->is_signed = t->value_signed;
	a->steps = arena_alloc(&r->s->arena, sizeof(*a->steps));
	a->nsteps = 0;
	return a;
}
