/* process.c - user-space probes: process(...).function/.return/.call,
 * process(...).statement(ADDR), and the task finder's process.begin,
 * process.end, process.thread.begin and process.thread.end, with or
 * without a process("PATH") or process(PID).
 *
 * A function point resolves through the program's own ELF file: its
 * DWARF (libdw) names each function with its declaration,
 * `process("/bin/x").function("main@/src/x.c:12")`, as SystemTap does,
 * and places the entry probe past the prologue of code built without
 * optimization (a return probe goes on the entry itself, where the
 * return address is taken); functions the DWARF does not describe come
 * from the symbol table (.symtab, else .dynsym) and keep their bare
 * name. The runtime registers one uprobe per probe on the file's inode
 * at the probe's file offset (runtime/uprobes.c), so every process that
 * maps the file, now or later, is probed.
 *
 * PATH is taken as SystemTap takes it: a name without '/' is looked for
 * in the current folder, then along $PATH; the result is made absolute
 * and free of symbolic links. The file must exist on the host at the
 * same path as in the target (the guest of --vm).
 *
 * Target variables ($var, $$parms, $return) and the other process
 * shapes (.mark, .library, .plt, .syscall, .statement("F@FILE:N"),
 * .inline) are not built yet.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo/dwarf-api.h"
#include "provider.h"
#include "xalloc.h"

static const char *const patterns[] = {
	"process(s).function(s)",			/* 0 */
	"process(s).function(s).call",
	"process(s).function(s).return",
	"process(s).statement(n)",			/* 3 */
	"process(s).statement(n).absolute",
	"process.begin",				/* 5 */
	"process.end",
	"process.thread.begin",
	"process.thread.end",
	"process(s).begin",				/* 9 */
	"process(s).end",
	"process(s).thread.begin",
	"process(s).thread.end",
	"process(n).begin",				/* 13 */
	"process(n).end",
	"process(n).thread.begin",
	"process(n).thread.end",
	"process(s).mark(s)",				/* 17 */
	"process(s).provider(s).mark(s)",
	"process(n).function(s)",			/* 19 */
	"process(n).function(s).call",
	"process(n).function(s).return",
	NULL
};

/* One USDT mark: a note of .note.stapsdt (<sys/sdt.h>'s format). */
struct umark {
	const char *provider, *name;
	const char *args;		/* "-4@%edi 8@8(%rbp)" */
	uint64_t pc;			/* link-time address of its nop */
};

/* One function of the program. */
struct ufunc {
	const char *name;
	const char *decl_file;		/* NULL: from the symbol table */
	int decl_line;
	uint64_t entry, prologue;	/* link-time addresses */
	uint64_t die, cu_die;		/* DWARF: the subprogram, its CU */
	const char *cu;
	bool optimized;
	bool alias;			/* another name of an earlier entry */
};

/* The program's ELF file, read once per path in a session. */
struct uprog {
	const char *path;
	bool ok;
	const char *why;		/* !ok */
	struct ufunc *fns;
	size_t nfns;
	GElf_Phdr *loads;		/* PT_LOAD headers */
	size_t nloads;
	struct umark *marks;
	size_t nmarks;
	bool pie;			/* ET_DYN: loaded anywhere */
	Elf *elf;			/* open while the session lasts: the
					 * marks' symbols */
	int fd;
	struct uprog *next;
};

static bool wild(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- the path ---- */

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The path SystemTap's process("NAME") means, or NULL when it names no
 * file here. */
static const char *find_program(struct session *s, const char *name)
{
	char buf[PATH_MAX];
	const char *path;

	if (!strchr(name, '/') && !is_file(name)) {
		path = getenv("PATH");
		for (const char *p = path; p && *p;) {
			size_t n = strcspn(p, ":");
			char *cand = arena_printf(&s->arena, "%.*s/%s", (int)n,
						  n ? p : ".", name);

			if (is_file(cand) && access(cand, X_OK) == 0) {
				name = cand;
				break;
			}
			p += n;
			p += *p == ':';
		}
	}
	if (!is_file(name) || !realpath(name, buf))
		return NULL;
	return arena_strdup(&s->arena, buf);
}

/* ---- the ELF file ---- */

static int by_entry(const void *a, const void *b)
{
	const struct ufunc *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	/* DWARF before the symbol table at one address */
	return (x->decl_file == NULL) - (y->decl_file == NULL);
}

static void add_fn(struct uprog *u, size_t *cap, const struct ufunc *f)
{
	if (u->nfns == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		u->fns = xrealloc(u->fns, *cap * sizeof(*u->fns));
	}
	u->fns[u->nfns++] = *f;
}

static bool cu_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	for (; p && (p = strstr(p, " -O")); p += 3)
		if (p[3] != '0')
			return true;
	return false;
}

struct fn_walk {
	struct session *s;
	struct uprog *u;
	size_t *cap;
	bool optimized;
	uint64_t cu_die;
	const char *cu;
};

static int dwarf_fn(Dwarf_Die *d, void *arg)
{
	struct fn_walk *w = arg;
	struct ufunc f = { 0 };
	Dwarf_Addr *bk = NULL;
	Dwarf_Addr pc;
	const char *name = dwarf_diename(d), *file;
	int line = 0, n;

	if (!name || dwarf_entrypc(d, &pc) != 0)
		return DWARF_CB_OK;	/* a declaration, or inline only */
	file = dwarf_decl_file(d);
	dwarf_decl_line(d, &line);
	f.name = arena_strdup(&w->s->arena, name);
	f.decl_file = file ? arena_strdup(&w->s->arena, file) : "";
	f.decl_line = line;
	f.entry = f.prologue = pc;
	f.die = dwarf_dieoffset(d);
	f.cu_die = w->cu_die;
	f.cu = w->cu;
	f.optimized = w->optimized;
	if (!w->optimized) {
		n = dwarf_entry_breakpoints(d, &bk);
		if (n > 0)
			f.prologue = bk[0];
		free(bk);
	}
	add_fn(w->u, w->cap, &f);
	return DWARF_CB_OK;
}

static void read_dwarf(struct session *s, struct uprog *u, Elf *elf,
		       size_t *cap)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!dw)
		return;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			const char *name = dwarf_diename(&cu);
			struct fn_walk w = {
				s, u, cap, cu_optimized(&cu),
				dwarf_dieoffset(&cu),
				name ? arena_strdup(&s->arena, name) : "",
			};

			dwarf_getfuncs(&cu, dwarf_fn, &w, 0);
		}
		off = next;
	}
	dwarf_end(dw);
}

static void read_symbols(struct session *s, struct uprog *u, Elf *elf,
			 size_t *cap)
{
	Elf_Scn *scn = NULL, *sym = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB ||
		     (sh.sh_type == SHT_DYNSYM && !sym)))
			sym = scn;
	if (!sym || !gelf_getshdr(sym, &sh) || !(d = elf_getdata(sym, NULL)))
		return;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym st;
		const char *name;
		struct ufunc f = { 0 };

		if (!gelf_getsym(d, (int)i, &st) ||
		    (GELF_ST_TYPE(st.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(st.st_info) != STT_GNU_IFUNC) ||
		    st.st_shndx == SHN_UNDEF || !st.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, st.st_name);
		if (!name || !*name)
			continue;
		f.name = arena_strdup(&s->arena, name);
		f.entry = f.prologue = st.st_value;
		add_fn(u, cap, &f);
	}
}

/* Symbols at an address DWARF describes, and repeated names, go. A
 * symbol-table name of an address another symbol names already (glibc's
 * pthread_mutex_init beside __pthread_mutex_init) stays as an alias: a
 * probe may name it, a wildcard does not probe the address twice. */
static void dedup(struct uprog *u)
{
	size_t k = 0, first = 0;

	qsort(u->fns, u->nfns, sizeof(*u->fns), by_entry);
	for (size_t i = 0; i < u->nfns; i++) {
		struct ufunc f = u->fns[i];
		bool dup = false;

		if (k && u->fns[first].entry != f.entry)
			first = k;
		else if (k && !f.decl_file) {
			for (size_t j = first; j < k; j++)
				dup |= u->fns[j].decl_file != NULL ||
				       strcmp(u->fns[j].name, f.name) == 0;
			if (dup)
				continue;
			f.alias = true;
		}
		u->fns[k++] = f;
	}
	u->nfns = k;
}

/* The USDT notes. A note's base is the link-time address of the
 * .stapsdt.base section; a file moved after linking (prelink) has it
 * elsewhere, and the marks move by as much. */
static void read_marks(struct session *s, struct uprog *u, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	uint64_t base = 0;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstr, sh.sh_name)) &&
		    strcmp(n, ".stapsdt.base") == 0)
			base = sh.sh_addr;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(n = elf_strptr(elf, shstr, sh.sh_name)) ||
		    strcmp(n, ".note.stapsdt") != 0 ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off,
					   &desc_off)) > 0) {
			const char *desc = (const char *)d->d_buf + desc_off;
			const char *end = desc + nh.n_descsz, *q;
			struct umark m = { 0 };
			uint64_t a[3];

			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((char *)d->d_buf + name_off, "stapsdt", 8) ||
			    nh.n_descsz < sizeof(a) + 3)
				continue;
			memcpy(a, desc, sizeof(a));
			q = desc + sizeof(a);
			m.provider = arena_strdup(&s->arena, q);
			q += strnlen(q, (size_t)(end - q)) + 1;
			if (q >= end)
				continue;
			m.name = arena_strdup(&s->arena, q);
			q += strnlen(q, (size_t)(end - q)) + 1;
			m.args = arena_strdup(&s->arena, q < end ? q : "");
			m.pc = a[0] + (base && a[1] ? base - a[1] : 0);
			u->marks = xrealloc(u->marks, (u->nmarks + 1) *
					    sizeof(*u->marks));
			u->marks[u->nmarks++] = m;
		}
	}
}

/* A symbol's address (data or code), for rip-relative mark operands. */
static bool symbol_addr(const struct uprog *u, const char *name,
			uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;

	while ((scn = elf_nextscn(u->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym st;
			const char *n;

			if (gelf_getsym(d, (int)i, &st) && st.st_shndx &&
			    (n = elf_strptr(u->elf, sh.sh_link, st.st_name)) &&
			    strcmp(n, name) == 0) {
				*addr = st.st_value;
				return true;
			}
		}
	}
	return false;
}

static struct uprog *uprog_open(struct session *s, const char *path)
{
	struct uprog *u;
	size_t cap = 0, nph;
	Elf *elf;
	int fd;

	for (u = s->uprogs; u; u = u->next)
		if (strcmp(u->path, path) == 0)
			return u;
	u = ANEW(&s->arena, struct uprog);
	u->path = path;
	u->fd = -1;
	u->next = s->uprogs;
	s->uprogs = u;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		u->why = arena_printf(&s->arena, "cannot open '%s'", path);
		return u;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getphdrnum(elf, &nph) != 0) {
		u->why = arena_printf(&s->arena, "'%s' is not an ELF program",
				      path);
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		u->loads = xrealloc(u->loads, (u->nloads + 1) *
				    sizeof(*u->loads));
		u->loads[u->nloads++] = ph;
	}
	read_dwarf(s, u, elf, &cap);
	read_symbols(s, u, elf, &cap);
	read_marks(s, u, elf);
	dedup(u);
	{
		GElf_Ehdr eh;

		u->pie = gelf_getehdr(elf, &eh) && eh.e_type == ET_DYN;
	}
	u->ok = true;
	u->elf = elf;
	u->fd = fd;
	return u;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return u;
}

/* The file offset of a link-time address of code, as uprobes want it;
 * false when no loaded, executable segment holds it. */
static bool file_offset(const struct uprog *u, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < u->nloads; i++) {
		const GElf_Phdr *ph = &u->loads[i];

		if ((ph->p_flags & PF_X) && vaddr >= ph->p_vaddr &&
		    vaddr < ph->p_vaddr + ph->p_filesz) {
			*off = vaddr - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

/* stap's "pc=.absolute+0x..." of -p2: the address from the first
 * segment's start. */
static uint64_t image_offset(const struct uprog *u, uint64_t vaddr)
{
	return u->nloads ? vaddr - (u->loads[0].p_vaddr & ~0xfffULL) : vaddr;
}

/* ---- points ---- */

/* The point with component i's argument replaced (str, or num when str
 * is NULL), for each component in 'which' (-1 ends it). */
static struct probe_point *concrete(struct session *s,
				    const struct probe_point *pp,
				    const char *path, const char *fn)
{
	struct probe_point *cp = ANEW(&s->arena, struct probe_point);
	struct pp_comp **tail = &cp->comps;
	int i = 0;

	*cp = *pp;
	cp->comps = NULL;
	for (const struct pp_comp *o = pp->comps; o; o = o->next, i++) {
		struct pp_comp *c = ANEW(&s->arena, struct pp_comp);
		const char *arg = i == 0 ? path : i == 1 ? fn : NULL;

		*c = *o;
		c->next = NULL;
		if (arg && o->arg && o->arg->kind == E_STR) {
			c->arg = ast_expr(s, E_STR, &o->arg->loc);
			c->arg->str = arg;
			c->arg->len = (unsigned)strlen(arg);
		}
		*tail = c;
		tail = &c->next;
	}
	return cp;
}

static struct dprobe *uprobe_emit(struct elab *e, const struct dprobe *tmpl,
				  const struct probe_point *cp,
				  const struct uprog *u, uint64_t vaddr,
				  bool is_return)
{
	struct dprobe *p = probe_emit(e, tmpl, cp);

	p->process = u->path;
	p->uprobe_vaddr = vaddr;
	p->uprobe_pc = image_offset(u, vaddr);
	file_offset(u, vaddr, &p->uprobe_offset);
	p->is_return = is_return;
	return p;
}

void process_entry_twin(struct session *s, struct dprobe *twin,
			struct dwarf_site *site)
{
	struct uprog *u = uprog_open(s, twin->process);

	if (!u->ok || !site)
		return;
	twin->is_return = false;
	twin->uprobe_vaddr = site->prologue_pc;
	twin->uprobe_pc = image_offset(u, site->prologue_pc);
	file_offset(u, site->prologue_pc, &twin->uprobe_offset);
	site->pc = site->var_pc = site->prologue_pc;
	site->is_return = false;
}

/* A DWARF function's probe gets a site, for its target variables
 * (debuginfo/dwarf-vars.c reads the program's DWARF as a unit of its
 * own). */
static void add_site(struct session *s, struct dprobe *p,
		     const struct ufunc *f)
{
	struct dwarf_site *site;
	struct dwarf_unit *unit = dwarf_user_unit(s, p->process);

	if (!unit)
		return;
	site = ANEW(&s->arena, struct dwarf_site);
	site->module = p->process;
	site->function = f->name;
	site->decl_file = f->decl_file;
	site->decl_line = f->decl_line;
	site->cu = f->cu;
	site->entry_pc = f->entry;
	site->prologue_pc = f->prologue;
	site->pc = site->var_pc = p->uprobe_vaddr;
	site->is_return = p->is_return;
	site->optimized = f->optimized;
	site->unit = unit;
	site->die = site->fn_die = site->top_die = f->die;
	site->cu_die = f->cu_die;
	p->dwarf = site;
	p->has_targets = true;
}

static int functions(struct elab *e, const struct probe_point *pp,
		     const struct dprobe *tmpl, const char *path, bool ret)
{
	struct session *s = e->s;
	const struct pp_comp *fc = pp->comps->next;
	const char *pat = fc->arg->str, *at = strchr(pat, '@');
	const char *fpat = at ? arena_printf(&s->arena, "%.*s",
					     (int)(at - pat), pat) : pat;
	const char *filepat = at ? at + 1 : NULL;
	struct uprog *u = uprog_open(s, path);
	int count = 0;

	if (!u->ok) {
		elab_error(e, &pp->comps->arg->loc, "%s", u->why);
		return -1;
	}
	if (filepat && strchr(filepat, ':')) {
		elab_error(e, &fc->arg->loc, "source lines in process(...)."
			   "function() points are not supported by Tapir yet");
		return -1;
	}
	for (size_t i = 0; i < u->nfns; i++) {
		const struct ufunc *f = &u->fns[i];
		const char *text;
		struct dprobe *p;
		uint64_t off;

		if (wild(fpat) ? f->alias || fnmatch(fpat, f->name, 0) != 0 :
				 strcmp(fpat, f->name) != 0)
			continue;
		if (filepat && (!f->decl_file ||
				(fnmatch(filepat, f->decl_file, 0) != 0 &&
				 fnmatch(arena_printf(&s->arena, "*/%s",
						      filepat),
					 f->decl_file, 0) != 0)))
			continue;
		if (!file_offset(u, f->entry, &off))
			continue;
		text = !f->decl_file ? f->name : f->decl_line ?
			arena_printf(&s->arena, "%s@%s:%d", f->name,
				     f->decl_file, f->decl_line) :
			arena_printf(&s->arena, "%s@%s", f->name, f->decl_file);
		p = uprobe_emit(e, tmpl, concrete(s, pp, path, text), u,
				ret ? f->entry : f->prologue, ret);
		if (f->decl_file)
			add_site(s, p, f);
		count++;
	}
	if (!count) {
		const char **names = xcalloc(u->nfns + 1, sizeof(*names));
		const char *sim;

		for (size_t i = 0; i < u->nfns; i++)
			names[i] = u->fns[i].name;
		sim = wild(fpat) ? NULL :
		      similar_names(s, fpat, names, (int)u->nfns);
		free(names);
		if (sim)
			elab_error(e, &fc->arg->loc, "no match for function "
				   "'%s' in '%s' (similar: %s)", pat, path, sim);
		else
			elab_error(e, &fc->arg->loc, "no match for function "
				   "'%s' in '%s'", pat, path);
		return -1;
	}
	return count;
}

static int statement(struct elab *e, const struct probe_point *pp,
		     const struct dprobe *tmpl, const char *path)
{
	struct session *s = e->s;
	const struct expr *a = pp_arg(pp, 1);
	struct uprog *u = uprog_open(s, path);
	uint64_t off, addr = (uint64_t)a->num;
	struct dprobe *p;

	if (!u->ok) {
		elab_error(e, &pp->comps->arg->loc, "%s", u->why);
		return -1;
	}
	if (!file_offset(u, addr, &off)) {
		elab_error(e, &a->loc, "address 0x%llx is not in the code of "
			   "'%s'", (unsigned long long)addr, path);
		return -1;
	}
	p = uprobe_emit(e, tmpl, concrete(s, pp, path, NULL), u, addr, false);
	p->name = arena_printf(&s->arena, "process(\"%s\").statement(0x%llx)%s",
			       path, (unsigned long long)addr,
			       pp_has(pp, "absolute") ? ".absolute" : "");
	return 1;
}

static int events(struct elab *e, const struct probe_point *pp, int pattern,
		  const struct dprobe *tmpl)
{
	struct session *s = e->s;
	static const enum proc_event ev[] = {
		PROC_BEGIN, PROC_END, PROC_THREAD_BEGIN, PROC_THREAD_END,
	};
	const struct expr *a = pp->comps->arg;
	const char *path = NULL;
	struct dprobe *p;

	if (a && a->kind == E_STR) {
		path = find_program(s, a->str);
		/* a name found nowhere stays as it is, as in stap: no
		 * process will run it */
		if (!path)
			path = a->str;
	}
	if (a && a->kind == E_NUM && a->num <= 0) {
		elab_error(e, &a->loc, "process(%lld): not a process ID",
			   (long long)a->num);
		return -1;
	}
	p = probe_emit(e, tmpl, path ? concrete(s, pp, path, NULL) : pp);
	p->process = path;
	p->pid = a && a->kind == E_NUM ? a->num : 0;
	p->process_event = ev[(pattern - 5) % 4];
	return 1;
}

static int marks(struct elab *e, const struct probe_point *pp,
		 const struct dprobe *tmpl, const char *path, bool provider)
{
	struct session *s = e->s;
	const struct pp_comp *mc = provider ? pp->comps->next->next :
				   pp->comps->next;
	const char *pat = mc->arg->str;
	const char *prov = provider ? pp->comps->next->arg->str : NULL;
	struct uprog *u = uprog_open(s, path);
	int count = 0;

	if (!u->ok) {
		elab_error(e, &pp->comps->arg->loc, "%s", u->why);
		return -1;
	}
	for (size_t i = 0; i < u->nmarks; i++) {
		const struct umark *m = &u->marks[i];
		struct probe_point *cp;
		struct dprobe *p;

		if (fnmatch(pat, m->name, 0) != 0 ||
		    (prov && fnmatch(prov, m->provider, 0) != 0))
			continue;
		cp = concrete(s, pp, path, provider ? m->provider : m->name);
		if (provider) {
			struct pp_comp *c = cp->comps->next->next;

			c->arg = ast_expr(s, E_STR, &c->arg->loc);
			c->arg->str = m->name;
			c->arg->len = (unsigned)strlen(m->name);
		}
		p = uprobe_emit(e, tmpl, cp, u, m->pc, false);
		p->mark = m;
		/* pp() names the place, as stap's (-l and -L list the mark) */
		p->name = arena_printf(&s->arena, "process(\"%s\").statement("
				       "%#llx)", path, (unsigned long long)m->pc);
		count++;
	}
	if (!count) {
		elab_error(e, &mc->arg->loc, "no match for mark '%s' in '%s'",
			   pat, path);
		return -1;
	}
	return count;
}

static int resolve_path(struct elab *e, const struct probe_point *pp,
			int pattern, const struct dprobe *tmpl,
			const char *path)
{
	if (pattern >= 17)
		return marks(e, pp, tmpl, path, pattern == 18);
	if (pattern >= 3)
		return statement(e, pp, tmpl, path);
	return functions(e, pp, tmpl, path, pattern == 2);
}

/* process("/usr/lib/libc.so*"): every file the pattern names, as stap
 * expands it; a file where nothing matches is skipped quietly, and only
 * a pattern that matches nowhere is an error. */
static int resolve_glob(struct elab *e, const struct probe_point *pp,
			int pattern, const struct dprobe *tmpl)
{
	struct session *s = e->s;
	const struct expr *a = pp->comps->arg;
	const char **seen;
	int total = 0, files = 0, errors = s->errors;
	glob_t g;

	if (glob(a->str, 0, NULL, &g) != 0) {
		elab_error(e, &a->loc, "cannot find executable '%s'", a->str);
		return -1;
	}
	seen = arena_alloc(&s->arena, sizeof(*seen) * (g.gl_pathc + 1));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *path = find_program(s, g.gl_pathv[i]);
		bool dup = false;
		int n;

		for (int j = 0; path && j < files; j++)
			dup |= strcmp(seen[j], path) == 0;
		if (!path || dup)
			continue;
		seen[files++] = path;
		s->quiet++;
		n = resolve_path(e, pp, pattern, tmpl, path);
		s->quiet--;
		s->errors = errors;
		if (n > 0)
			total += n;
	}
	globfree(&g);
	if (!total) {
		elab_error(e, &a->loc, "no match in any of the %d file%s that "
			   "'%s' names", files, files == 1 ? "" : "s", a->str);
		return -1;
	}
	return total;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const char *path;

	if (pattern >= 5 && pattern < 17)
		return events(e, pp, pattern, tmpl);
	if (pattern >= 19) {
		/* as stap: the program the process runs now, here */
		const struct expr *a = pp->comps->arg;
		struct dprobe *before = e->last_probe;
		int n;

		path = find_program(e->s, arena_printf(&e->s->arena,
						"/proc/%lld/exe",
						(long long)a->num));
		if (!path) {
			elab_error(e, &a->loc, "cannot probe pid %lld: no such "
				   "process", (long long)a->num);
			return -1;
		}
		n = functions(e, pp, tmpl, path, pattern == 21);
		for (struct dprobe *p = before ? before->next : e->prog->probes;
		     n > 0 && p; p = p->next)
			p->pid = a->num;
		return n;
	}
	if (wild(pp->comps->arg->str))
		return resolve_glob(e, pp, pattern, tmpl);
	path = find_program(e->s, pp->comps->arg->str);
	if (!path) {
		elab_error(e, &pp->comps->arg->loc, "cannot find executable "
			   "'%s'", pp->comps->arg->str);
		return -1;
	}
	return resolve_path(e, pp, pattern, tmpl, path);
}

/* ---- a mark's arguments ---- */

/* x86-64 register operands: the name of the 64-bit register holding it
 * (as register() takes it) and how many bytes it is. */
static const char *reg64(const char *r, int *bytes)
{
	static const struct { const char *q, *d, *w, *b; } regs[] = {
		{ "rax", "eax", "ax", "al" }, { "rbx", "ebx", "bx", "bl" },
		{ "rcx", "ecx", "cx", "cl" }, { "rdx", "edx", "dx", "dl" },
		{ "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
		{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
		{ "r8", "r8d", "r8w", "r8b" }, { "r9", "r9d", "r9w", "r9b" },
		{ "r10", "r10d", "r10w", "r10b" },
		{ "r11", "r11d", "r11w", "r11b" },
		{ "r12", "r12d", "r12w", "r12b" },
		{ "r13", "r13d", "r13w", "r13b" },
		{ "r14", "r14d", "r14w", "r14b" },
		{ "r15", "r15d", "r15w", "r15b" },
		{ "rip", "eip", "ip", NULL },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (!strcmp(r, regs[i].q))
			*bytes = 8;
		else if (!strcmp(r, regs[i].d))
			*bytes = 4;
		else if (!strcmp(r, regs[i].w))
			*bytes = 2;
		else if (regs[i].b && !strcmp(r, regs[i].b))
			*bytes = 1;
		else
			continue;
		return regs[i].q;
	}
	return NULL;
}

static struct expr *num_expr(struct session *s, const struct loc *l,
			     int64_t v)
{
	struct expr *x = ast_expr(s, E_NUM, l);

	x->num = v;
	return x;
}

static struct expr *bin_expr(struct session *s, const struct loc *l, int op,
			     struct expr *a, struct expr *b)
{
	struct expr *x = ast_expr(s, E_BINARY, l);

	x->op = (unsigned char)op;
	x->a = a;
	x->b = b;
	return x;
}

static struct expr *call_expr(struct session *s, const struct loc *l,
			      const char *fn, struct expr *arg)
{
	struct expr *x = ast_expr(s, E_CALL, l);

	x->str = fn;
	x->args = arg;
	return x;
}

static struct expr *register_expr(struct session *s, const struct loc *l,
				  const char *r)
{
	struct expr *name = ast_expr(s, E_STR, l);

	name->str = r;
	name->len = (unsigned)strlen(r);
	return call_expr(s, l, "register", name);
}

/*
 * The value of one "SIZE@OPERAND" argument as an expression: a register
 * (%edi), a constant ($5), or memory at disp(%reg) or sym[+off](%rip),
 * read with user_long() and friends; then sign-extended (negative SIZE)
 * or zero-extended from SIZE bytes, as stap's $argN. NULL with *why.
 */
static struct expr *mark_arg(struct session *s, const struct uprog *u,
			     const char *spec, const struct loc *l,
			     const char **why)
{
	char *end;
	long size = strtol(spec, &end, 10);
	const char *op = end + 1, *paren;
	int bytes = 8, shift;
	struct expr *v;

	if (*end != '@' || !size || labs(size) > 8 ||
	    (labs(size) & (labs(size) - 1))) {
		*why = "its size is not 1, 2, 4 or 8 bytes";
		return NULL;
	}
	if (*op == '%') {
		const char *r = reg64(op + 1, &bytes);

		if (!r) {
			*why = "its register is not one Tapir knows";
			return NULL;
		}
		v = register_expr(s, l, r);
	} else if (*op == '$') {
		v = num_expr(s, l, strtoll(op + 1, NULL, 0));
	} else if ((paren = strchr(op, '(')) && paren[1] == '%' &&
		   !strchr(paren, ',')) {
		char reg[8];
		size_t n = strcspn(paren + 2, ")");
		const char *r;
		struct expr *addr;
		static const char *const load[] = {
			[1] = "user_char", [2] = "user_short",
			[4] = "user_int", [8] = "user_long",
		};

		if (n >= sizeof(reg)) {
			*why = "its register is not one Tapir knows";
			return NULL;
		}
		memcpy(reg, paren + 2, n);
		reg[n] = '\0';
		if (!(r = reg64(reg, &bytes))) {
			*why = "its register is not one Tapir knows";
			return NULL;
		}
		if (!strcmp(r, "rip")) {
			/* sym[+off](%rip): the symbol's address */
			char *sym = arena_printf(&s->arena, "%.*s",
						 (int)(paren - op), op);
			char *plus = strpbrk(sym, "+-");
			int64_t off = plus ? strtoll(plus, NULL, 0) : 0;
			uint64_t a;

			if (plus)
				*plus = '\0';
			if (u->pie) {
				*why = "rip-relative operands of "
				       "position-independent programs are "
				       "not supported yet";
				return NULL;
			}
			if (!symbol_addr(u, sym, &a)) {
				*why = "its symbol is not in the program's "
				       "symbol table";
				return NULL;
			}
			addr = num_expr(s, l, (int64_t)a + off);
		} else {
			addr = bin_expr(s, l, OP_ADD, register_expr(s, l, r),
					num_expr(s, l, strtoll(op, NULL, 0)));
		}
		v = call_expr(s, l, load[labs(size)], addr);
	} else {
		*why = "its operand's form is not supported yet";
		return NULL;
	}
	if (labs(size) == 8)
		return v;
	shift = 64 - 8 * (int)labs(size);
	if (size < 0)
		return bin_expr(s, l, OP_SHR, bin_expr(s, l, OP_SHL, v,
						      num_expr(s, l, shift)),
				num_expr(s, l, shift));
	return bin_expr(s, l, OP_BAND, v,
			num_expr(s, l, (int64_t)((1ULL << (64 - shift)) - 1)));
}

/* The number of arguments of a mark ("" has none). */
static int mark_nargs(const struct umark *m);

int process_mark_nargs(const struct dprobe *p)
{
	return p->mark ? mark_nargs(p->mark) : 0;
}

static int mark_nargs(const struct umark *m)
{
	int n = 0;

	for (const char *q = m->args; *q;) {
		q += strspn(q, " ");
		if (!*q)
			break;
		n++;
		q += strcspn(q, " ");
	}
	return n;
}

bool process_mark_target(struct elab *e, struct expr *x)
{
	struct session *s = e->s;
	const struct dprobe *p = e->probe;
	const struct umark *m = p->mark;
	const char *str = NULL, *why = NULL, *q;
	struct uprog *u;
	struct expr *v;
	char *endp;
	long n;

	if (x->kind == E_CTXVAR) {
		if (!strcmp(x->str, "name"))
			str = m->name;
		else if (!strcmp(x->str, "provider"))
			str = m->provider;
		else
			return false;
		x->kind = E_STR;
		x->str = str;
		x->len = (unsigned)strlen(str);
		return true;
	}
	if (strncmp(x->str, "arg", 3) != 0)
		return false;
	n = strtol(x->str + 3, &endp, 10);
	if (*endp || n < 1)
		return false;
	if (x->chain || x->pretty || x->addr) {
		elab_error(e, &x->loc, "'$%s' of a mark is a number: members, "
			   "pretty printing and '&' do not apply", x->str);
		return true;
	}
	if (n > mark_nargs(m)) {
		elab_error(e, &x->loc, "mark '%s' has %d argument%s, not %ld",
			   m->name, mark_nargs(m), mark_nargs(m) == 1 ? "" :
			   "s", n);
		return true;
	}
	q = m->args;
	for (long i = 1;; i++) {
		q += strspn(q, " ");
		if (i == n)
			break;
		q += strcspn(q, " ");
	}
	u = uprog_open(s, p->process);
	v = mark_arg(s, u, arena_printf(&s->arena, "%.*s",
					(int)strcspn(q, " "), q), &x->loc, &why);
	if (!v) {
		elab_error(e, &x->loc, "cannot read '$%s' (%.*s) of mark '%s': "
			   "%s", x->str, (int)strcspn(q, " "), q, m->name, why);
		return true;
	}
	{
		struct expr *next = x->next;	/* x's place in its list */

		*x = *v;
		x->next = next;
	}
	return true;
}

void process_free(struct session *s)
{
	for (struct uprog *u = s->uprogs; u; u = u->next) {
		free(u->fns);
		free(u->loads);
		free(u->marks);
		if (u->elf)
			elf_end(u->elf);
		if (u->fd >= 0)
			close(u->fd);
	}
	s->uprogs = NULL;
}

const struct provider pp_process = {
	.name = "process",
	.patterns = patterns,
	.resolve = resolve,
};
