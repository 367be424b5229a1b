/* dwarf-trace.c - tracepoints in the kernel's (or a module's) debuginfo.
 *
 * Every tracepoint NAME has an iterator, int __traceiter_NAME(void
 * *__data, ARGS), which the kernel's DEFINE_TRACE makes out of the
 * tracepoint's TP_PROTO: its parameters after __data are the
 * tracepoint's arguments, with their names and types, which is what
 * kernel.trace needs (the probe is no kprobe on it: the handler is
 * registered on the tracepoint and takes ARGS itself). The system
 * (the "sched" of "sched:sched_switch") is its event's, as the kernel
 * records it (the vmlinux's __event_NAME), or for a tracepoint without
 * an event, the TRACE_SYSTEM the header declaring it defines, read from
 * the kernel's headers; a header that is not there gives its file
 * name.
 */
#include <ctype.h>
#include <dirent.h>
#include <dwarf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf-internal.h"
#include "kconfig.h"
#include "xalloc.h"

#define ITER "__traceiter_"

const char *dwarf_int_ctype(int64_t size, bool is_signed)
{
	switch (size) {
	case 1: return is_signed ? "s8" : "u8";
	case 2: return is_signed ? "s16" : "u16";
	case 4: return is_signed ? "s32" : "u32";
	case 8: return is_signed ? "s64" : "u64";
	default: return NULL;
	}
}

/* The prototype's type for an argument of type t: the same size and
 * ABI class, spelled with types every module has. */
static const char *proto_type(struct session *s, Dwarf_Die *type,
			      unsigned *size)
{
	Dwarf_Die t;
	int64_t sz;
	int tag;

	if (!dwt_peel(type, &t))
		return NULL;
	tag = dwarf_tag(&t);
	sz = dwt_size(type);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type ||
	    tag == DW_TAG_subroutine_type) {
		*size = 8;
		return "void *";
	}
	if (sz <= 0 || sz > 64)
		return NULL;
	*size = (unsigned)sz;
	if (tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type) {
		Dwarf_Attribute a;
		Dwarf_Word enc = 0;
		bool sgn = signed_type(&t);

		if (tag == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &a) &&
		    dwarf_formudata(&a, &enc) == 0 && enc == DW_ATE_boolean)
			return "bool";
		if (tag == DW_TAG_base_type && enc == DW_ATE_float)
			return NULL;
		return dwarf_int_ctype(sz, sgn);
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
		/* passed as its bytes: integers in registers up to 16 bytes,
		 * in memory beyond, as a structure of 8-byte words is */
		return arena_printf(&s->arena, "struct tpg_blob_%u",
				    (unsigned)(sz + 7) / 8 * 8);
	return NULL;
}

/* The arguments of the tracepoint's iterator (fn), into site. */
static bool prototype(struct session *s, struct dwarf_site *site,
		      Dwarf_Die *fn)
{
	struct trace_arg *v = NULL;
	int n = 0, slot = 0;
	bool first = true;
	Dwarf_Die c;

	if (dwarf_child(fn, &c) != 0)
		return false;
	do {
		Dwarf_Die type;
		const char *name, *ct;
		unsigned size = 0;

		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		if (first) {		/* __data */
			first = false;
			continue;
		}
		name = die_name(&c);
		if (!name || !die_type(&c, &type) ||
		    !(ct = proto_type(s, &type, &size))) {
			free(v);
			return false;
		}
		v = xrealloc(v, (size_t)(n + 1) * sizeof(*v));
		v[n].name = name;
		v[n].ctype = ct;
		v[n].size = size;
		v[n].slot = (unsigned)slot;
		slot += (int)(size + 7) / 8;
		n++;
	} while (dwarf_siblingof(&c, &c) == 0);
	site->targs = arena_alloc(&s->arena, (size_t)(n + 1) * sizeof(*v));
	if (n)
		memcpy((void *)site->targs, v, (size_t)n * sizeof(*v));
	free(v);
	site->ntargs = n;
	site->nslots = slot;
	return true;
}

/* The kernel's source tree, where the headers declaring tracepoints
 * are: the build directory's "source" link, or the tree its Makefile
 * includes (Debian's headers-RELEASE-common), or the build directory. */
const char *dwarf_source_tree(struct session *s)
{
	struct kconfig *k = kconfig_get(s);
	char *path, line[512];
	FILE *f;

	if (!k->build_dir)
		return NULL;
	path = xasprintf("%s/source/include", k->build_dir);
	if (access(path, F_OK) == 0) {
		free(path);
		return arena_printf(&s->arena, "%s/source", k->build_dir);
	}
	free(path);
	path = xasprintf("%s/Makefile", k->build_dir);
	f = fopen(path, "r");
	free(path);
	while (f && fgets(line, sizeof(line), f)) {
		char *slash;

		if (strncmp(line, "include /", 9) != 0 ||
		    !(slash = strrchr(line, '/')) ||
		    strncmp(slash, "/Makefile", 9) != 0)
			continue;
		fclose(f);
		return arena_strndup(&s->arena, line + 8,
				     (size_t)(slash - (line + 8)));
	}
	if (f)
		fclose(f);
	return k->build_dir;
}

/* The TRACE_SYSTEM of the header file (as the debuginfo names it,
 * relative to the kernel's tree), cached per file. */
static const char *system_of(struct session *s, const char *file)
{
	struct strmap *cache = &dwarf_ctx(s)->tp_systems;
	const char *sys = strmap_get(cache, file), *tree;
	const char *base, *dot;
	char line[512];

	if (sys)
		return sys;
	tree = dwarf_source_tree(s);
	if (tree) {
		char *path = xasprintf("%s/%s", tree, file);
		FILE *f = fopen(path, "r");

		free(path);
		if (!f)
			goto fallback;
		while (!sys && fgets(line, sizeof(line), f)) {
			char *p = line, *e;

			while (isspace((unsigned char)*p))
				p++;
			if (*p++ != '#')
				continue;
			while (isspace((unsigned char)*p))
				p++;
			if (strncmp(p, "define", 6) != 0)
				continue;
			p += 6;
			while (isspace((unsigned char)*p))
				p++;
			if (strncmp(p, "TRACE_SYSTEM", 12) != 0 ||
			    !isspace((unsigned char)p[12]))
				continue;
			p += 12;
			while (isspace((unsigned char)*p))
				p++;
			for (e = p; isalnum((unsigned char)*e) || *e == '_' ||
			     *e == '-'; e++)
				;
			if (e > p)
				sys = arena_strndup(&s->arena, p, (size_t)(e - p));
		}
		fclose(f);
	}
fallback:
	if (!sys) {
		base = strrchr(file, '/');
		base = base ? base + 1 : file;
		dot = strrchr(base, '.');
		sys = arena_strndup(&s->arena, base, dot ? (size_t)(dot - base) :
				    strlen(base));
	}
	strmap_add(&s->arena, cache, arena_strdup(&s->arena, file),
		   (void *)sys);
	return sys;
}

/* The offset of member name in struct sname of the unit, or dflt. */
static int64_t offset_of(struct session *s, struct dwarf_unit *u,
			 const char *sname, const char *name, int64_t dflt)
{
	Dwarf_Die t, m;
	int64_t off = 0;

	if (!dwt_find(s, u, sname, &t) || !dwt_member(&t, name, &m, &off))
		return dflt;
	return off;
}

void dwarf_each_symbol(Elf *elf, void (*fn)(void *arg, const GElf_Sym *sym,
						   const char *name),
		       void *arg)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (gelf_getsym(d, (int)i, &sym) &&
			    (n = elf_strptr(elf, sh.sh_link, sym.st_name)) && *n)
				fn(arg, &sym, n);
		}
	}
}

struct events_walk {
	struct session *s;
	Elf *elf;
	int64_t class_off, sys_off;
	struct strmap *out;
};

static void event_system(void *arg, const GElf_Sym *sym, const char *n)
{
	struct events_walk *w = arg;
	uint64_t call, cls, str;
	char buf[64];
	size_t len = 0;

	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT ||
	    strncmp(n, "__event_", 8) != 0 ||
	    !dwarf_read_addr(w->elf, sym->st_value, &call, 8) ||
	    !dwarf_read_addr(w->elf, call + (uint64_t)w->class_off, &cls, 8) ||
	    !dwarf_read_addr(w->elf, cls + (uint64_t)w->sys_off, &str, 8))
		return;
	while (len < sizeof(buf) - 1 &&
	       dwarf_read_addr(w->elf, str + len, buf + len, 1) && buf[len])
		len++;
	if (!len || len == sizeof(buf) - 1)
		return;
	strmap_add(&w->s->arena, w->out, arena_strdup(&w->s->arena, n + 8),
		   arena_strndup(&w->s->arena, buf, len));
}

/* The kernel's own record of each event's system: __event_NAME points
 * at its struct trace_event_call, which points at its class, whose
 * system is a string, all at link-time addresses of the vmlinux.
 * Tracepoints without an event (DECLARE_TRACE alone) are not there. */
void dwarf_event_systems(struct session *s, Elf *elf, int64_t class_off,
			 int64_t sys_off, struct strmap *out)
{
	struct events_walk w = { s, elf, class_off, sys_off, out };

	dwarf_each_symbol(elf, event_system, &w);
}

/* X of "str__X__trace_system_name", the string the trace headers of
 * system X define (its length in *len), or NULL. */
static const char *system_string(const char *n, size_t *len)
{
	static const char pre[] = "str__", post[] = "__trace_system_name";
	size_t l;

	if (!n || strncmp(n, pre, sizeof(pre) - 1) != 0 ||
	    (l = strlen(n)) <= sizeof(pre) + sizeof(post) - 2 ||
	    strcmp(n + l - sizeof(post) + 1, post) != 0)
		return NULL;
	*len = l - (sizeof(pre) + sizeof(post) - 2);
	return n + sizeof(pre) - 1;
}

/* The one system whose string the site's compile unit defines (the
 * unit that made the tracepoint, CREATE_TRACE_POINTS), or NULL. */
static const char *unit_system(struct session *s,
			       const struct dwarf_site *site)
{
	const char *sys = NULL, *n;
	Dwarf_Die cu, c;
	size_t len;

	if (!dwarf_offdie(site->unit->dw, site->cu_die, &cu) ||
	    dwarf_child(&cu, &c) != 0)
		return NULL;
	do {
		if (dwarf_tag(&c) != DW_TAG_variable ||
		    !(n = system_string(die_name(&c), &len)))
			continue;
		if (!sys)
			sys = arena_strndup(&s->arena, n, len);
		else if (strlen(sys) != len || strncmp(sys, n, len) != 0)
			return NULL;
	} while (dwarf_siblingof(&c, &c) == 0);
	return sys;
}

struct systems_walk {
	struct session *s;
	const char *sys;	/* the first, "" after another */
};

static void one_system(void *arg, const GElf_Sym *sym, const char *n)
{
	struct systems_walk *w = arg;
	size_t len;

	(void)sym;
	if (!(n = system_string(n, &len)))
		return;
	if (!w->sys)
		w->sys = arena_strndup(&w->s->arena, n, len);
	else if (strlen(w->sys) != len || strncmp(w->sys, n, len) != 0)
		w->sys = "";
}

/* A module's system when it defines one only: each system of a trace
 * header has its name as a string, str__SYSTEM__trace_system_name, in
 * the module's symbol table; "" when there are several or none. */
static const char *module_system(struct session *s, const char *module,
				 Elf *elf)
{
	struct strmap *cache = &dwarf_ctx(s)->tp_mod_systems;
	struct systems_walk w = { s, strmap_get(cache, module) };

	if (w.sys)
		return w.sys;
	dwarf_each_symbol(elf, one_system, &w);
	if (!w.sys)
		w.sys = "";
	strmap_add(&s->arena, cache, arena_strdup(&s->arena, module),
		   (void *)w.sys);
	return w.sys;
}

const char *dwarf_file_system(struct session *s, const char *module,
			      const char *path)
{
	struct dwarf_ctx *c = dwarf_ctx(s);
	const char *sys;
	int fd;
	Elf *elf;

	if (!c->tp_mod_systems_loaded) {
		c->tp_mod_systems_loaded = true;
		dwarf_tpsys_load(s, "modules", &c->tp_mod_systems);
	}
	if ((sys = strmap_get(&c->tp_mod_systems, module)))
		return sys;
	dwarf_tpsys_changed(s);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "";
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	sys = module_system(s, module, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	return sys;
}

/* The system of tracepoint name (its event's, else its header's). */
static const char *tracepoint_system(struct session *s,
				     const struct dwarf_site *site,
				     const char *name)
{
	struct dwarf_ctx *c = dwarf_ctx(s);
	const char *sys;

	/* a module of one system, else the system of the unit that
	 * made the tracepoint */
	if (site->unit->dwfl && (*(sys = module_system(s, site->unit->name,
						      site->unit->elf)) ||
				 (sys = unit_system(s, site))))
		return sys;
	if (!site->unit->dwfl) {
		if (!c->tp_events_loaded)
			dwarf_event_systems(s, site->unit->elf,
				offset_of(s, site->unit,
					  "struct trace_event_call", "class", 16),
				offset_of(s, site->unit,
					  "struct trace_event_class", "system", 0),
				&c->tp_events);
		c->tp_events_loaded = true;
		if ((sys = strmap_get(&c->tp_events, name)))
			return sys;
	}
	return site->decl_file ? system_of(s, site->decl_file) : "kernel";
}

/* The tracepoint a line of a trace header declares: DECLARE_TRACE(name,
 * TRACE_EVENT*(name, and DEFINE_EVENT*(template, name when both are on
 * the line; its length, 0 for none. */
static size_t declared_name(const char *line, const char **name)
{
	static const struct { const char *macro; bool second; } decls[] = {
		{ "DECLARE_TRACE", false }, { "DECLARE_TRACE_CONDITION", false },
		{ "TRACE_EVENT", false }, { "TRACE_EVENT_FN", false },
		{ "TRACE_EVENT_FN_COND", false },
		{ "TRACE_EVENT_CONDITION", false },
		{ "DEFINE_EVENT", true }, { "DEFINE_EVENT_FN", true },
		{ "DEFINE_EVENT_PRINT", true },
		{ "DEFINE_EVENT_CONDITION", true },
	};
	const char *p = line, *e;

	while (isspace((unsigned char)*p))
		p++;
	for (size_t i = 0; i < sizeof(decls) / sizeof(decls[0]); i++) {
		size_t n = strlen(decls[i].macro);

		if (strncmp(p, decls[i].macro, n) != 0 || p[n] != '(')
			continue;
		p += n + 1;
		if (decls[i].second) {
			p = strchr(p, ',');
			if (!p)
				return 0;
			p++;
		}
		while (isspace((unsigned char)*p))
			p++;
		for (e = p; isalnum((unsigned char)*e) || *e == '_'; e++)
			;
		*name = p;
		return (size_t)(e - p);
	}
	return 0;
}

/* The tracepoints the kernel's include/trace/events/ headers declare:
 * name -> the header's TRACE_SYSTEM. Those without an event
 * (DECLARE_TRACE) have no other source of a system; with only the BTF,
 * where a vmlinux with the events' data is not there either (Debian's
 * headers ship a vmlinux of BTF and symbols alone), all of them. */
static void scan_declared(struct session *s, struct strmap *out)
{
	const char *tree = dwarf_source_tree(s);
	char *dir, line[512];
	DIR *d;
	struct dirent *de;

	if (!tree)
		return;
	dir = xasprintf("%s/include/trace/events", tree);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char *file;
		const char *sys;
		FILE *f;

		if (len < 3 || strcmp(de->d_name + len - 2, ".h") != 0)
			continue;
		file = xasprintf("include/trace/events/%s", de->d_name);
		sys = system_of(s, file);
		free(file);
		file = xasprintf("%s/%s", dir, de->d_name);
		f = fopen(file, "r");
		free(file);
		while (f && fgets(line, sizeof(line), f)) {
			const char *p;
			size_t n = declared_name(line, &p);

			if (n && !strmap_get(out, arena_strndup(&s->arena, p, n)))
				strmap_add(&s->arena, out,
					   arena_strndup(&s->arena, p, n),
					   (void *)sys);
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	free(dir);
}

const char *dwarf_declared_system(struct session *s, const char *name)
{
	struct dwarf_ctx *c = dwarf_ctx(s);

	if (!c->tp_declared_loaded &&
	    !dwarf_tpsys_load(s, "declared", &c->tp_declared))
		scan_declared(s, &c->tp_declared);
	c->tp_declared_loaded = true;
	return strmap_get(&c->tp_declared, name);
}

static int site_cmp(const void *a, const void *b)
{
	const struct dwarf_site *x = *(const struct dwarf_site *const *)a;
	const struct dwarf_site *y = *(const struct dwarf_site *const *)b;

	return strcmp(x->tracepoint, y->tracepoint);
}

int dwarf_tracepoints(struct session *s, const char *module,
		      const char *glob, struct dwarf_site ***out,
		      const char **why)
{
	struct dwarf_query q;
	struct dwarf_site **sites;
	int n, w = 0;

	memset(&q, 0, sizeof(q));
	q.module = module;
	q.tracepoints = true;
	q.function = arena_printf(&s->arena, ITER "%s", glob);
	n = dwarf_find_sites(s, &q, &sites, why);
	if (n <= 0) {
		*out = sites;
		return n;
	}
	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		Dwarf_Die fn;

		if (site->inlined || strncmp(site->function, ITER,
					     strlen(ITER)) != 0 ||
		    !dwarf_offdie(site->unit->dw, site->die, &fn) ||
		    !prototype(s, site, &fn))
			continue;
		site->tracepoint = site->function + strlen(ITER);
		site->tp_system = tracepoint_system(s, site, site->tracepoint);
		sites[w++] = site;
	}
	qsort(sites, (size_t)w, sizeof(*sites), site_cmp);
	*out = sites;
	return w;
}

const struct dwarf_site *dwarf_tracepoint_site(struct session *s,
					       const struct dwarf_site *btf)
{
	const char *module = strcmp(btf->module, "kernel") == 0 ? NULL :
			     btf->module, *why;
	struct dwarf_site **sites, *d;

	if (!dwarf_available(s, module) ||
	    dwarf_tracepoints(s, module, btf->tracepoint, &sites, &why) < 1)
		return NULL;
	d = ANEW(&s->arena, struct dwarf_site);
	*d = *sites[0];
	d->tp_system = btf->tp_system;
	return d;
}
