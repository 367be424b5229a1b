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
 * from the symbol table (the file's .symtab, else its separate
 * debuginfo's, with the local functions: glibc's fgetws.cold, else
 * .dynsym) and keep their bare name. Which names stand for which code,
 * and which one a listing prints, follow stap 4.8 (dedup, fn_owner,
 * shown_name). The runtime registers one uprobe per probe on the file's inode
 * at the probe's file offset (runtime/uprobes.c), so every process that
 * maps the file, now or later, is probed.
 *
 * PATH is taken as SystemTap takes it: a name without '/' is looked for
 * in the current folder, then along $PATH; the result is made absolute
 * and free of symbolic links. The file must exist on the host at the
 * same path as in the target (the guest of --vm).
 *
 * .plt("NAME") probes the PLT stubs of the imported symbols (read_plt),
 * with $$name. .library("LIB") puts any of these points on a shared
 * object the program loads (its DT_NEEDED, found as ld.so finds them),
 * named as stap names it, process("PROG").library("/lib/PATH")...; the
 * uprobe is on the library's inode, and fires only in processes whose
 * executable is PROG (runtime/uprobes.c). A stripped file's functions
 * and their target variables come from its separate debuginfo, found
 * by libdwfl's standard finder (dwarf_user_debugfile: build ID,
 * .gnu_debuglink, SYSTEMTAP_DEBUGINFO_PATH).
 *
 * .syscall and .syscall.return are task finder events (as .begin),
 * fired from the raw_syscalls tracepoints (runtime/uprobes.c); their
 * $syscall, $argN and $return become calls of tapsets/process/
 * usyscall.stp's __usys_* functions.
 *
 * Inline instances (DW_TAG_inlined_subroutine) of a function are probed
 * by .function and .inline, not by .call or .return, as stap's: each at
 * its entry address, with its own variables (inline_instances).
 *
 * Not built yet: assembly functions' lines in -l of optimized code.
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

#include "cache-order.h"
#include "debuginfo/dwarf-api.h"
#include "provider.h"
#include "strmap.h"
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
	"process(s).plt(s)",				/* 22 */
	"process(s).plt(s).return",
	"process(s).plt",
	"process(s).plt.return",
	"process.plt(s)",				/* 26 */
	"process.plt(s).return",
	"process.plt",
	"process.plt.return",
	"process(s).library(s).function(s)",		/* 30 */
	"process(s).library(s).function(s).call",
	"process(s).library(s).function(s).return",
	"process(s).library(s).plt(s)",
	"process(s).library(s).plt(s).return",
	"process(s).library(s).plt",
	"process(s).library(s).plt.return",
	"process(s).library(s).mark(s)",
	"process(s).library(s).provider(s).mark(s)",
	"process.library(s).function(s)",		/* 39 */
	"process.library(s).function(s).call",
	"process.library(s).function(s).return",
	"process.library(s).plt(s)",
	"process.library(s).plt(s).return",
	"process.library(s).plt",
	"process.library(s).plt.return",
	"process.library(s).mark(s)",
	"process.library(s).provider(s).mark(s)",
	"process(s).statement(s)",			/* 48 */
	"process(s).syscall",				/* 49 */
	"process(s).syscall.return",
	"process(n).syscall",
	"process(n).syscall.return",
	"process.syscall",
	"process.syscall.return",
	"process(s).function(s).inline",		/* 55 */
	"process(s).library(s).function(s).inline",
	"process.library(s).function(s).inline",
	"process(n).function(s).inline",
	"process(s).function(s).label(s)",		/* 59 */
	"process(s).library(s).function(s).label(s)",	/* 60 */
	"process.library(s).function(s).label(s)",
	"process(n).function(s).label(s)",		/* 62 */
	NULL
};

/* What a function point selects: .function (out-of-line copies and
 * inline instances), .call (out-of-line only), .return, .inline (inline
 * instances only). */
enum fn_kind { FN_ANY, FN_CALL, FN_RETURN, FN_INLINE };

/* The point of the same shape without .library(): 30 + k and 39 + k
 * resolve as lib_base[k] does on the library. */
static const int lib_base[] = { 0, 1, 2, 22, 23, 24, 25, 17, 18 };

/* One USDT mark: a note of .note.stapsdt (<sys/sdt.h>'s format); or
 * one PLT entry (plt: name is its symbol, provider NULL, args ""). */
struct umark {
	const char *provider, *name;
	const char *args;		/* "-4@%edi 8@8(%rbp)" */
	uint64_t pc;			/* link-time address of its nop, or of
					 * the PLT stub */
	bool plt;
};

/* One function of the program. */
struct ufunc {
	const char *name;
	const char *decl_file;		/* NULL: from the symbol table */
	const char *linkage;		/* DWARF: DW_AT_linkage_name, or NULL */
	int decl_line;
	uint64_t entry, prologue;	/* link-time addresses */
	uint64_t die, cu_die;		/* DWARF: the subprogram, its CU */
	const char *cu;
	bool optimized;
	bool alias;			/* another name of an earlier entry */
	size_t twin;			/* a symbol-table name of a DWARF
					 * function: its index + 1, else 0 */
	bool no_twin;			/* a hidden symbol version of
					 * .dynsym: stands for nothing */
	bool asm_fn;			/* DWARF without a declaration (an
					 * assembly function): named by the
					 * line table at its entry */
	bool bare;			/* a symbol-table name of DWARF code
					 * that stap lists on its own */
	size_t sym_index;		/* the symbol table's order */
	size_t cache_rank;		/* DWARF: its place in stap's cache
					 * of its CU (cache-order.c), */
	size_t cu_names;		/* of that many names */
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
	struct umark *plts;		/* its PLT stubs */
	size_t nplts;
	bool pie;			/* ET_DYN: loaded anywhere */
	bool sep_debug;			/* its DWARF is a separate file's */
	struct strmap dw_names;		/* every DWARF function's name, code
					 * or none */
	const char **libs;		/* .library(): what it loads, */
	size_t nlibs;			/* absolute, no symbolic links */
	bool libs_read;
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
	/* DWARF before the symbol table at one address, DWARF in DIE
	 * order */
	if ((x->decl_file == NULL) != (y->decl_file == NULL))
		return (x->decl_file == NULL) - (y->decl_file == NULL);
	if (!x->decl_file)	/* symbols in the table's order */
		return x->sym_index < y->sym_index ? -1 :
		       x->sym_index > y->sym_index;
	return x->die < y->die ? -1 : x->die > y->die;
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
	const char **names;		/* the CU's functions, in DIE order */
	size_t nnames, cap_names;
};

static int dwarf_fn(Dwarf_Die *d, void *arg)
{
	struct fn_walk *w = arg;
	struct ufunc f = { 0 };
	Dwarf_Addr *bk = NULL;
	Dwarf_Addr pc;
	const char *name = dwarf_diename(d), *file;
	int line = 0, n;

	if (!name)
		return DWARF_CB_OK;
	name = arena_strdup(&w->s->arena, name);
	strmap_add(&w->s->arena, &w->u->dw_names, name, (void *)name);
	if (w->nnames == w->cap_names) {
		w->cap_names = w->cap_names ? w->cap_names * 2 : 64;
		w->names = xrealloc(w->names, w->cap_names *
				    sizeof(*w->names));
	}
	f.cache_rank = w->nnames;	/* its insertion, ranked below */
	w->names[w->nnames++] = name;
	if (dwarf_entrypc(d, &pc) != 0) {
		/* optimized code split in parts (a .cold one): the entry
		 * is where the first range starts */
		Dwarf_Addr base, end;

		if (dwarf_ranges(d, 0, &base, &pc, &end) <= 0)
			return DWARF_CB_OK;	/* a declaration, or inline
						 * only */
	}
	file = dwarf_decl_file(d);
	dwarf_decl_line(d, &line);
	if (!file) {
		/* an assembly function (glibc's syscall stubs): as stap,
		 * the source line of its first instruction names it */
		Dwarf_Die cu;
		Dwarf_Line *l = dwarf_diecu(d, &cu, NULL, NULL) ?
				dwarf_getsrc_die(&cu, pc) : NULL;

		if (l && (file = dwarf_linesrc(l, NULL, NULL)))
			dwarf_lineno(l, &line);
		f.asm_fn = true;
	}
	f.name = name;
	{
		Dwarf_Attribute a;
		const char *ln = dwarf_formstring(dwarf_attr_integrate(d,
						DW_AT_linkage_name, &a));

		f.linkage = ln ? arena_strdup(&w->s->arena, ln) : NULL;
	}
	f.decl_file = file ? arena_strdup(&w->s->arena, file) : "";
	f.decl_line = line;
	f.entry = f.prologue = pc;
	f.die = dwarf_dieoffset(d);
	f.cu_die = w->cu_die;
	f.cu = w->cu;
	f.optimized = w->optimized;
	if (session_past_prologue(w->s, w->optimized)) {
		n = dwarf_entry_breakpoints(d, &bk);
		if (n > 0)
			f.prologue = bk[0];
		free(bk);
	}
	add_fn(w->u, w->cap, &f);
	return DWARF_CB_OK;
}

/* Where the CU's functions stand in stap's cache of the CU (insertion
 * index -> iteration rank), for the functions that share an entry. */
static void rank_cu(struct uprog *u, size_t first, struct fn_walk *w)
{
	size_t *order, *rank;

	if (u->nfns - first < 2)
		return;
	order = xmalloc(w->nnames * sizeof(*order));
	rank = xmalloc(w->nnames * sizeof(*rank));
	cache_order(w->names, w->nnames, order);
	for (size_t k = 0; k < w->nnames; k++)
		rank[order[k]] = k;
	for (size_t i = first; i < u->nfns; i++) {
		u->fns[i].cache_rank = rank[u->fns[i].cache_rank];
		u->fns[i].cu_names = w->nnames;
	}
	free(order);
	free(rank);
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
				NULL, 0, 0,
			};
			size_t first = u->nfns;

			dwarf_getfuncs(&cu, dwarf_fn, &w, 0);
			rank_cu(u, first, &w);
			free(w.names);
		}
		off = next;
	}
	dwarf_end(dw);
}

static void read_symbols(struct session *s, struct uprog *u, Elf *elf,
			 size_t *cap)
{
	Elf_Scn *scn = NULL, *sym = NULL, *ver = NULL;
	GElf_Shdr sh;
	Elf_Data *d, *vd = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB ||
		     (sh.sh_type == SHT_DYNSYM && !sym)))
			sym = scn;
		else if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			ver = scn;
	if (!sym || !gelf_getshdr(sym, &sh) || !(d = elf_getdata(sym, NULL)))
		return;
	/* (.gnu.version goes with .dynsym only) */
	if (ver && sh.sh_type == SHT_DYNSYM)
		vd = elf_getdata(ver, NULL);
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym st;
		const char *name;
		struct ufunc f = { 0 };

		/* (not an IFUNC: stap lists none, memchr nor __memchr) */
		if (!gelf_getsym(d, (int)i, &st) ||
		    GELF_ST_TYPE(st.st_info) != STT_FUNC ||
		    st.st_shndx == SHN_UNDEF || !st.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, st.st_name);
		if (!name || !*name)
			continue;
		f.name = arena_strdup(&s->arena, name);
		f.entry = f.prologue = st.st_value;
		f.sym_index = i;
		if (vd) {
			GElf_Versym vs;

			f.no_twin = gelf_getversym(vd, (int)i, &vs) &&
				    (vs & 0x8000);
		}
		add_fn(u, cap, &f);
	}
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* Do the symbol-table names of the address of u->fns[i] (the first
 * entry there) stand for its DWARF code? Where one of them is a DWARF
 * function's name or linkage name, as stap ties them together: else
 * stap lists them on their own (getmsg@GLIBC_2.2.5 beside the DIE of
 * getmsg, __GI__IO_un_link.part.0 beside that clone's DIE, named
 * _IO_un_link by its origin; fmemopen@GLIBC_2.2.5 stands for
 * __old_fmemopen's code, which has a symbol __old_fmemopen too). */
static bool symbols_tied(const struct uprog *u, size_t i)
{
	for (size_t j = i; j < u->nfns && u->fns[j].entry == u->fns[i].entry;
	     j++) {
		const struct ufunc *g = &u->fns[j];

		if (!g->decl_file)
			continue;
		for (size_t l = i; l < u->nfns &&
				   u->fns[l].entry == u->fns[i].entry; l++)
			if (!u->fns[l].decl_file &&
			    (strcmp(u->fns[l].name, g->name) == 0 ||
			     (g->linkage &&
			      strcmp(u->fns[l].name, g->linkage) == 0)))
				return true;
	}
	return false;
}

/* Repeated names go. A symbol-table name of an address another symbol
 * or DWARF names already (glibc's pthread_mutex_init beside
 * __pthread_mutex_init, malloc beside the DWARF's __libc_malloc) stays
 * as an alias: a probe may name it, a wildcard does not probe the
 * address twice. An alias of a DWARF function stands for it (as stap:
 * function("malloc") is __libc_malloc@./malloc/malloc.c:3280). */
static void dedup(struct uprog *u)
{
	size_t k = 0, first = 0;
	bool tied = false;

	qsort(u->fns, u->nfns, sizeof(*u->fns), by_entry);
	for (size_t i = 0; i < u->nfns; i++) {
		struct ufunc f = u->fns[i];

		if (!i || f.entry != u->fns[first].entry)
			tied = symbols_tied(u, i);	/* (nothing of this
							 * address moved yet) */
		if (k && u->fns[first].entry != f.entry) {
			first = k;
		} else if (k && f.asm_fn && u->fns[first].decl_file) {
			/* a second assembly name of one address
			 * (__GI_pkey_alloc beside pkey_alloc): the first
			 * stands for the others, stap lists the address
			 * once (by the name shown_name chooses) */
			f.alias = true;
			f.twin = first + 1;
		} else if (k && !f.decl_file) {
			size_t dw = 0;
			struct ufunc *same = NULL;
			bool linkage = false;

			for (size_t j = first; j < k; j++) {
				if (u->fns[j].decl_file && !dw)
					dw = j + 1;
				if (strcmp(u->fns[j].name, f.name) == 0)
					same = &u->fns[j];
				/* (the DWARF function's linkage name,
				 * __GI__IO_adjust_column: stap lists no
				 * function by it) */
				if (u->fns[j].linkage &&
				    strcmp(u->fns[j].linkage, f.name) == 0)
					linkage = true;
			}
			if (linkage)
				continue;
			if (dw && !f.no_twin && !tied)
				f.bare = true;
			else if (!f.no_twin)
				f.twin = dw;
			if (same) {
				/* (a hidden version first, the default one
				 * after it) */
				if (!same->decl_file && !same->twin)
					same->twin = f.twin;
				continue;
			}
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

/* The GOT slot a PLT stub at p jumps through: "jmp *disp(%rip)", maybe
 * after endbr64 and with a bnd prefix; 0 when p holds no such stub. *len
 * is the stub's length up to the end of that jump. */
static uint64_t plt_slot(const unsigned char *p, size_t left, uint64_t addr,
			 size_t *len)
{
	static const unsigned char endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t i = 0;
	int32_t disp;

	if (left >= sizeof(endbr) && !memcmp(p, endbr, sizeof(endbr)))
		i = sizeof(endbr);
	if (i < left && p[i] == 0xf2)
		i++;
	if (i + 6 > left || p[i] != 0xff || p[i + 1] != 0x25)
		return 0;
	memcpy(&disp, p + i + 2, sizeof(disp));
	*len = i + 6;
	return addr + i + 6 + (uint64_t)(int64_t)disp;
}

/*
 * The PLT: each R_X86_64_JUMP_SLOT (or IRELATIVE) relocation of .rela.plt
 * names a GOT slot and its symbol ("" for IRELATIVE); the stub of .plt or
 * .plt.sec that jumps through that slot is the entry point of the symbol's
 * PLT entry. Stubs are found by their jump, so the entry size and the
 * layout (lazy .plt, IBT's .plt.sec, a static program's 8-byte stubs)
 * need no guessing.
 */
static void read_plt(struct session *s, struct uprog *u, Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, symsh;
	size_t shstr, nrel = 0;
	GElf_Rela *rel = NULL;
	const char **relname = NULL;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Scn *symscn;
		Elf_Data *d, *sd;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !(n = elf_strptr(elf, shstr, sh.sh_name)) ||
		    strcmp(n, ".rela.plt") != 0 || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		sd = symscn && gelf_getshdr(symscn, &symsh) ?
		     elf_getdata(symscn, NULL) : NULL;
		nrel = sh.sh_size / sh.sh_entsize;
		rel = xcalloc(nrel + 1, sizeof(*rel));
		relname = xcalloc(nrel + 1, sizeof(*relname));
		for (size_t i = 0; i < nrel; i++) {
			GElf_Sym st;
			size_t si;

			if (!gelf_getrela(d, (int)i, &rel[i]))
				continue;
			si = GELF_R_SYM(rel[i].r_info);
			relname[i] = "";
			if (si && sd && gelf_getsym(sd, (int)si, &st)) {
				n = elf_strptr(elf, symsh.sh_link, st.st_name);
				relname[i] = n ? n : "";
			}
		}
		break;
	}
	scn = NULL;
	while (nrel && (scn = elf_nextscn(elf, scn))) {
		const unsigned char *b;
		Elf_Data *d;
		const char *n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(n = elf_strptr(elf, shstr, sh.sh_name)) ||
		    (strcmp(n, ".plt") != 0 && strcmp(n, ".plt.sec") != 0) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		b = d->d_buf;
		for (size_t off = 0; off < d->d_size;) {
			size_t len = 0, i;
			uint64_t slot = plt_slot(b + off, d->d_size - off,
						 sh.sh_addr + off, &len);

			for (i = 0; slot && i < nrel; i++)
				if (rel[i].r_offset == slot && relname[i])
					break;
			if (!slot || i == nrel) {
				off++;
				continue;
			}
			u->plts = xrealloc(u->plts, (u->nplts + 1) *
					   sizeof(*u->plts));
			u->plts[u->nplts++] = (struct umark){
				.name = arena_strdup(&s->arena, relname[i]),
				.args = "",
				.pc = sh.sh_addr + off,
				.plt = true,
			};
			off += len;
		}
	}
	free(rel);
	free(relname);
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
	if (!u->nfns || !has_symtab(elf)) {
		/* a stripped file: its separate debuginfo's DWARF (the
		 * -dbg package's, found as elfutils finds it) names the
		 * functions and has their variables, and its .symtab
		 * the local functions too, as stap's (libdwfl's choice:
		 * the file's own .symtab, else the debuginfo's, else
		 * .dynsym) */
		char *dpath = dwarf_user_debugfile(path);
		int dfd = dpath ? open(dpath, O_RDONLY | O_CLOEXEC) : -1;
		Elf *dbg = dfd >= 0 ? elf_begin(dfd, ELF_C_READ, NULL) : NULL;

		if (dbg && !u->nfns) {
			read_dwarf(s, u, dbg, &cap);
			u->sep_debug = u->nfns > 0;
		}
		read_symbols(s, u, !has_symtab(elf) && dbg && has_symtab(dbg) ?
				   dbg : elf, &cap);
		if (dbg)
			elf_end(dbg);
		if (dfd >= 0)
			close(dfd);
		free(dpath);
	} else {
		read_symbols(s, u, elf, &cap);
	}
	read_marks(s, u, elf);
	read_plt(s, u, elf);
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
		/* a point without its argument (process.plt) gets one */
		if (arg && (!o->arg || o->arg->kind == E_STR)) {
			c->arg = ast_expr(s, E_STR, o->arg ? &o->arg->loc :
					  &o->loc);
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
	p->uprobe_pie = u->pie;
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

/* The inline instances of the functions fpat names (declared in a file
 * filepat names, when set), from the program's DWARF as the kernel's
 * (debuginfo/dwarf.c), that a probe can be placed on. 0 without DWARF. */
static int inline_sites(struct session *s, struct uprog *u,
			const char *fpat, const char *filepat,
			struct dwarf_site ***out)
{
	struct dwarf_query q = {
		.user = u->path, .function = fpat, .file = filepat,
		.inline_only = true,
	};
	struct dwarf_site **sites;
	const char *why;
	int n, k = 0;
	uint64_t off;

	*out = NULL;
	if (!dwarf_user_unit(s, u->path))
		return 0;
	n = dwarf_find_sites(s, &q, &sites, &why);
	for (int i = 0; i < n; i++)
		if (sites[i]->inlined && sites[i]->decl_file &&
		    file_offset(u, sites[i]->pc, &off))
			sites[k++] = sites[i];
	*out = sites;
	return k;
}

/* One probe each at their entry address, named by the function's
 * declaration, as stap names them. */
static int emit_inlines(struct elab *e, const struct probe_point *pp,
			const struct dprobe *tmpl, struct uprog *u,
			struct dwarf_site **sites, int n)
{
	struct session *s = e->s;

	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		struct dprobe *p;

		p = uprobe_emit(e, tmpl, concrete(s, pp, u->path,
				arena_printf(&s->arena, "%s@%s:%d",
					     site->function, site->decl_file,
					     site->decl_line)),
				u, site->pc, false);
		site->module = u->path;
		p->dwarf = site;
		p->has_targets = true;
	}
	return n;
}

static int inline_instances(struct elab *e, const struct probe_point *pp,
			    const struct dprobe *tmpl, struct uprog *u,
			    const char *fpat, const char *filepat)
{
	struct dwarf_site **sites;
	int n = inline_sites(e->s, u, fpat, filepat, &sites);

	return emit_inlines(e, pp, tmpl, u, sites, n);
}

static int pc_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The addresses a pattern lists by DWARF names: the entries of the
 * functions whose own name it matches, and of the inline instances it
 * lists. A symbol-table name at one of them is not listed besides (the
 * .cold piece of fgetws holds an inline instance of
 * _IO_acquire_lock_fct, find_module.constprop.0 is find_module's
 * copy: function("*") lists them by their DWARF names alone, as stap
 * does); sorted, *n of them. */
static uint64_t *dwarf_listed(const struct uprog *u, const char *fpat,
			      struct dwarf_site **isites, int ninl, size_t *n)
{
	uint64_t *pcs = xmalloc((u->nfns + (size_t)ninl + 1) * sizeof(*pcs));
	size_t k = 0;

	for (size_t i = 0; i < u->nfns; i++)
		if (u->fns[i].decl_file &&
		    (wild(fpat) ? fnmatch(fpat, u->fns[i].name, 0) :
				  strcmp(fpat, u->fns[i].name)) == 0)
			pcs[k++] = u->fns[i].entry;
	for (int i = 0; i < ninl; i++)
		pcs[k++] = isites[i]->pc;
	qsort(pcs, k, sizeof(*pcs), pc_cmp);
	*n = k;
	return pcs;
}

#define NO_OWNER ((size_t)-1)

/*
 * The entry a matched name u->fns[i] stands for: a DWARF function for
 * its other names; the first symbol-table name of an address for the
 * others where the symbol table alone lists them (a wildcard lists the
 * address once, by the first name it matches: the .cold pieces, glibc's
 * __GI_xdr_uint32_t; or the symbols not tied to the DWARF code there,
 * dedup's "bare"); NO_OWNER where stap lists nothing: under a wildcard,
 * a hidden version of .dynsym at DWARF code, and any name of an
 * address whose names DWARF knows without code there (glibc's mtrace,
 * __nptl_death_event), as stap 4.8 lists them.
 */
static size_t fn_owner(const struct uprog *u, size_t i, bool wildcard)
{
	const struct ufunc *f = &u->fns[i];
	size_t head = i;

	if (f->twin)
		return f->twin - 1;
	if (f->decl_file)
		return i;
	while (head && u->fns[head - 1].entry == f->entry &&
	       !u->fns[head - 1].decl_file)
		head--;
	if (f->bare)	/* (the symbols after the DWARF functions) */
		return wildcard ? head : i;
	while (head && u->fns[head - 1].entry == f->entry)
		head--;
	if (u->fns[head].decl_file)
		return wildcard ? NO_OWNER : i;
	for (size_t j = head; j < u->nfns && u->fns[j].entry == f->entry; j++)
		if (strmap_get(&u->dw_names, u->fns[j].name))
			return NO_OWNER;
	return wildcard ? head : i;
}

/*
 * The name stap lists DWARF function u->fns[t] by when nmatch of its
 * names matched, name the first. One name of the address: its own.
 * Several (assembly functions, one DIE a name: glibc's __fchdir,
 * __GI___fchdir, fchdir, __GI_fchdir): for one matched name N, the
 * first other name in stap's cache of the CU (cache-order.c), so
 * function("fchdir") lists __GI_fchdir and function("__GI_fchdir")
 * fchdir. For several matched names, what stap prints was found by
 * observation only, and holds for 166 of glibc 2.36's 179 such
 * addresses under function("*"): in a CU of other functions too
 * (memmove-vec-unaligned-erms.S) the first name in cache order, in a
 * CU of just these names the first where they are four or more, else
 * the second.
 */
static const char *shown_name(const struct uprog *u, size_t t,
			      size_t nmatch, const char *name)
{
	const struct ufunc *first = NULL, *second = NULL, *other = NULL;
	size_t n = 0;

	for (size_t j = t; j < u->nfns && u->fns[j].entry == u->fns[t].entry;
	     j++) {
		const struct ufunc *g = &u->fns[j];

		if (!g->decl_file || (j != t && g->twin != t + 1))
			continue;
		n++;
		if (!first || g->cache_rank < first->cache_rank) {
			second = first;
			first = g;
		} else if (!second || g->cache_rank < second->cache_rank) {
			second = g;
		}
		if (strcmp(g->name, name) != 0 &&
		    (!other || g->cache_rank < other->cache_rank))
			other = g;
	}
	if (n < 2)
		return u->fns[t].name;
	if (nmatch == 1)
		return other->name;
	return n >= 4 || u->fns[t].cu_names > n ? first->name : second->name;
}

static int functions(struct elab *e, const struct probe_point *pp,
		     const struct dprobe *tmpl, const char *path,
		     enum fn_kind kind)
{
	bool ret = kind == FN_RETURN;
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
		/* as stap: the function, its line left out */
		elab_warn(e, &pp->loc, "For probing a particular line, use a "
			  ".statement() probe, not .function()");
		filepat = arena_printf(&s->arena, "%.*s",
				       (int)strcspn(filepat, ":"), filepat);
	}
	bool *done = xcalloc(u->nfns + 1, sizeof(*done));
	size_t *nmatch = xcalloc(u->nfns + 1, sizeof(*nmatch));
	const char **matched = xcalloc(u->nfns + 1, sizeof(*matched));

	struct dwarf_site **isites = NULL;
	int ninl = kind == FN_ANY || kind == FN_INLINE ?
		   inline_sites(s, u, fpat, filepat, &isites) : 0;

	size_t nlisted;
	uint64_t *listed = dwarf_listed(u, fpat, isites, ninl, &nlisted);

	/* .inline: the instances, then (as stap's symbol-table fallback)
	 * the entries of functions that only the symbol table knows */
	if (kind == FN_INLINE)
		count = emit_inlines(e, pp, tmpl, u, isites, ninl);
	/* which entries the pattern names, by how many names, the first
	 * of them which */
	for (size_t i = 0; i < u->nfns; i++) {
		size_t t;

		if ((wild(fpat) ? fnmatch(fpat, u->fns[i].name, 0) :
				  strcmp(fpat, u->fns[i].name)) != 0 ||
		    (t = fn_owner(u, i, wild(fpat))) == NO_OWNER ||
		    (!u->fns[t].decl_file &&
		     bsearch(&u->fns[t].entry, listed, nlisted,
			     sizeof(*listed), pc_cmp)))
			continue;
		if (!nmatch[t]++)
			matched[t] = u->fns[i].name;
	}
	for (size_t i = 0; i < u->nfns; i++) {
		const struct ufunc *f = &u->fns[i];
		const char *text, *name;
		struct dprobe *p;
		uint64_t off;
		size_t t;

		if (!nmatch[i])
			continue;
		/* a DWARF function once, by any of its names */
		f = &u->fns[t = i];
		if (done[t] || (kind == FN_INLINE && f->decl_file))
			continue;
		done[t] = true;
		if (filepat && (!f->decl_file ||
				(fnmatch(filepat, f->decl_file, 0) != 0 &&
				 fnmatch(arena_printf(&s->arena, "*/%s",
						      filepat),
					 f->decl_file, 0) != 0)))
			continue;
		if (!file_offset(u, f->entry, &off))
			continue;
		name = f->decl_file ? shown_name(u, t, nmatch[t], matched[t]) :
				      matched[t];
		text = !f->decl_file ? name : f->decl_line ?
			arena_printf(&s->arena, "%s@%s:%d", name,
				     f->decl_file, f->decl_line) :
			arena_printf(&s->arena, "%s@%s", name, f->decl_file);
		p = uprobe_emit(e, tmpl, concrete(s, pp, path, text), u,
				ret ? f->entry : f->prologue, ret);
		if (f->decl_file)
			add_site(s, p, f);
		else
			p->uprobe_resolved = true;
		count++;
	}
	free(nmatch);
	free(matched);
	free(listed);
	free(done);
	if (kind == FN_ANY)
		count += emit_inlines(e, pp, tmpl, u, isites, ninl);
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

/* process("PATH").statement("FUNC"), no file or line: as stap, the
 * functions' first instruction (before the prologue), named by their
 * declaration, a symbol-table name standing for the DWARF function at its
 * address (malloc: __libc_malloc), and the entries of their inline
 * instances; from the separate debuginfo of a stripped file too. */
static int statement_entries(struct elab *e, const struct probe_point *pp,
			     const struct dprobe *tmpl, struct uprog *u)
{
	struct session *s = e->s;
	const struct pp_comp *fc = pp->comps->next;
	const char *pat = fc->arg->str;
	bool *done = xcalloc(u->nfns + 1, sizeof(*done));
	int count = 0;

	for (size_t i = 0; i < u->nfns; i++) {
		const struct ufunc *f = &u->fns[i];
		struct dprobe *p;

		if (wild(pat) ? (f->alias && !f->twin) ||
				fnmatch(pat, f->name, 0) != 0 :
				strcmp(pat, f->name) != 0)
			continue;
		if (f->twin)
			f = &u->fns[f->twin - 1];
		if (!f->decl_file || done[f - u->fns])
			continue;
		done[f - u->fns] = true;
		p = uprobe_emit(e, tmpl, concrete(s, pp, u->path,
				arena_printf(&s->arena, "%s@%s:%d", f->name,
					     f->decl_file, f->decl_line)),
				u, f->entry, false);
		add_site(s, p, f);
		count++;
	}
	free(done);
	count += inline_instances(e, pp, tmpl, u, pat, NULL);
	if (!count) {
		elab_error(e, &fc->arg->loc, "no match for statement '%s' in "
			   "'%s'", pat, u->path);
		return -1;
	}
	return count;
}

/* The program of a DWARF point and its function pattern parsed into q
 * (q->user set); NULL after an error. */
static struct uprog *dwarf_point(struct elab *e, const struct probe_point *pp,
				 const char *path, struct dwarf_query *q)
{
	const struct pp_comp *fc = pp->comps->next;
	struct uprog *u = uprog_open(e->s, path);
	const char *why = NULL;

	q->user = path;
	if (!u->ok) {
		elab_error(e, &pp->comps->arg->loc, "%s", u->why);
		return NULL;
	}
	if (!dwarf_parse_pattern(e->s, fc->arg->str, q, &why)) {
		elab_error(e, &fc->arg->loc, "%s", why);
		return NULL;
	}
	return u;
}

/* The sites of q, or -1 after the error. */
static int user_sites(struct elab *e, const struct probe_point *pp,
		      const struct dwarf_query *q, struct dwarf_site ***sites,
		      const char **why)
{
	int n = dwarf_find_sites(e->s, q, sites, why);

	if (n < 0)
		elab_error(e, &pp->comps->arg->loc, "%s", *why);
	return n;
}

/* process("PATH").statement("FUNC@FILE:LINE"): the lines of the program's
 * DWARF, as kernel.statement's (debuginfo/dwarf.c finds the sites). */
static int statements(struct elab *e, const struct probe_point *pp,
		      const struct dprobe *tmpl, const char *path)
{
	struct session *s = e->s;
	const struct pp_comp *fc = pp->comps->next;
	const char *pat = fc->arg->str, *why = NULL;
	struct dwarf_query q = { .statement = true };
	struct uprog *u = dwarf_point(e, pp, path, &q);
	struct dwarf_site **sites;
	int n;

	if (!u)
		return -1;
	if (!q.file)
		return statement_entries(e, pp, tmpl, u);
	n = user_sites(e, pp, &q, &sites, &why);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		const char *text = arena_printf(&s->arena, "%s@%s:%d",
						site->function,
						site->decl_file, site->line);
		struct dprobe *p;
		uint64_t off;

		if (!site->decl_file || !file_offset(u, site->pc, &off))
			continue;
		p = uprobe_emit(e, tmpl, concrete(s, pp, path, text), u,
				site->pc, false);
		site->module = path;
		p->dwarf = site;
		p->has_targets = true;
	}
	if (!n) {
		elab_error(e, &fc->arg->loc, "no match for statement '%s' in "
			   "'%s'%s%s", pat, path, why ? ": " : "",
			   why ? why : "");
		return -1;
	}
	return n;
}

/* process("PATH").function("FUNC[@FILE]").label("PAT"): the labels of
 * the program's DWARF, as the kernel's (debuginfo/dwarf.c finds them).
 * (stap 4.8 also probes the entry of symbols without DWARF, the .cold
 * parts, named with the pattern; not here: which symbols it takes does
 * not follow its own function listing.) */
static int labels(struct elab *e, const struct probe_point *pp,
		  const struct dprobe *tmpl, const char *path)
{
	struct session *s = e->s;
	const struct pp_comp *fc = pp->comps->next;
	const char *pat = fc->arg->str, *why = NULL;
	struct dwarf_query q = { .label = pp_arg(pp, 2)->str };
	struct uprog *u = dwarf_point(e, pp, path, &q);
	struct dwarf_site **sites;
	int n, count = 0;

	if (!u)
		return -1;
	n = user_sites(e, pp, &q, &sites, &why);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		struct dwarf_site *site = sites[i];
		struct probe_point *full;
		struct dprobe *p;
		uint64_t off;

		if (!site->decl_file || !file_offset(u, site->pc, &off))
			continue;
		full = concrete(s, pp, path, arena_printf(&s->arena,
				"%s@%s:%d", site->function, site->decl_file,
				site->line));
		p = uprobe_emit(e, tmpl, pp_label_split(s, full, site->label),
				u, site->pc, false);
		label_names(s, p, tmpl, full, site->label);
		site->module = path;
		p->dwarf = site;
		p->has_targets = true;
		count++;
	}
	q.label = NULL;
	if (!count && dwarf_find_sites(s, &q, &sites, &why) <= 0) {
		elab_error(e, &fc->arg->loc, "no match for function '%s' in "
			   "'%s'", pat, path);
		return -1;
	}
	if (!count) {
		elab_error(e, &pp_arg(pp, 2)->loc, "no label matches '%s' in "
			   "function '%s' of '%s'", pp_arg(pp, 2)->str, pat,
			   path);
		return -1;
	}
	return count;
}

static int events(struct elab *e, const struct probe_point *pp, int pattern,
		  const struct dprobe *tmpl)
{
	struct session *s = e->s;
	static const enum proc_event ev[] = {
		PROC_BEGIN, PROC_END, PROC_THREAD_BEGIN, PROC_THREAD_END,
	};
	const struct expr *a = pp->comps->arg;
	enum proc_event event = pattern >= 49 ?
		(pattern % 2 ? PROC_SYSCALL : PROC_SYSCALL_RETURN) :
		ev[(pattern - 5) % 4];
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
	p->process_event = event;
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

/* process("PATH").plt("NAME"): the PLT stubs of the symbols NAME
 * matches ("*" without it); pp() names the stub's address, as stap's,
 * and $$name is the symbol. */
static int plts(struct elab *e, const struct probe_point *pp,
		const struct dprobe *tmpl, const char *path, bool ret)
{
	struct session *s = e->s;
	const struct pp_comp *pc = pp->comps->next;
	const char *pat = pc->arg ? pc->arg->str : "*";
	const struct loc *loc = pc->arg ? &pc->arg->loc : &pc->loc;
	struct uprog *u = uprog_open(s, path);
	int count = 0;

	if (!u->ok) {
		elab_error(e, pp->comps->arg ? &pp->comps->arg->loc :
			   &pp->comps->loc, "%s", u->why);
		return -1;
	}
	for (size_t i = 0; i < u->nplts; i++) {
		const struct umark *m = &u->plts[i];
		struct dprobe *p;

		if (fnmatch(pat, m->name, 0) != 0)
			continue;
		p = uprobe_emit(e, tmpl, concrete(s, pp, path, m->name), u,
				m->pc, ret);
		p->mark = m;
		p->uprobe_resolved = true;
		p->name = arena_printf(&s->arena, "process(\"%s\").statement("
				       "%#llx)%s", path,
				       (unsigned long long)m->pc,
				       ret ? ".return" : "");
		count++;
	}
	if (!count) {
		const char **names = xcalloc(u->nplts + 1, sizeof(*names));
		const char *sim = NULL;

		for (size_t i = 0; i < u->nplts; i++)
			names[i] = u->plts[i].name;
		if (!wild(pat))
			sim = similar_names(s, pat, names, (int)u->nplts);
		free(names);
		if (!u->nplts)
			elab_error(e, loc, "no match for PLT entry '%s': '%s' "
				   "has no PLT", pat, path);
		else if (sim)
			elab_error(e, loc, "no match for PLT entry '%s' in "
				   "'%s' (similar: %s)", pat, path, sim);
		else
			elab_error(e, loc, "no match for PLT entry '%s' in "
				   "'%s'", pat, path);
		return -1;
	}
	return count;
}

static int resolve_path(struct elab *e, const struct probe_point *pp,
			int pattern, const struct dprobe *tmpl,
			const char *path)
{
	if (pattern == 55)
		return functions(e, pp, tmpl, path, FN_INLINE);
	if (pattern == 59)
		return labels(e, pp, tmpl, path);
	if (pattern == 48)
		return statements(e, pp, tmpl, path);
	if (pattern >= 22)
		return plts(e, pp, tmpl, path, pattern & 1);
	if (pattern >= 17)
		return marks(e, pp, tmpl, path, pattern == 18);
	if (pattern >= 3)
		return statement(e, pp, tmpl, path);
	return functions(e, pp, tmpl, path, (enum fn_kind)pattern);
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

/* ---- .library() ---- */

static void add_lib(struct uprog *u, const char *path)
{
	for (size_t i = 0; i < u->nlibs; i++)
		if (strcmp(u->libs[i], path) == 0)
			return;
	u->libs = xrealloc(u->libs, (u->nlibs + 1) * sizeof(*u->libs));
	u->libs[u->nlibs++] = path;
}

/* The folders of ld.so.conf (and the files it includes), in order. */
static void ldconf_dirs(struct session *s, const char *file,
			const char ***dirs, size_t *n, int depth)
{
	char line[PATH_MAX];
	FILE *f = depth < 8 ? fopen(file, "re") : NULL;

	while (f && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		p[strcspn(p, "#\r\n")] = '\0';
		for (char *q = p + strlen(p); q > p && strchr(" \t", q[-1]);)
			*--q = '\0';
		if (!strncmp(p, "include", 7) && strchr(" \t", p[7])) {
			glob_t g;

			p += 7 + strspn(p + 7, " \t");
			if (glob(p, 0, NULL, &g) == 0)
				for (size_t i = 0; i < g.gl_pathc; i++)
					ldconf_dirs(s, g.gl_pathv[i], dirs, n,
						    depth + 1);
			globfree(&g);
		} else if (*p == '/') {
			*dirs = xrealloc(*dirs, (*n + 1) * sizeof(**dirs));
			(*dirs)[(*n)++] = arena_strdup(&s->arena, p);
		}
	}
	if (f)
		fclose(f);
}

/* Where the dynamic loader finds a DT_NEEDED name for an object whose
 * run path is rpath: that path, ld.so.conf's folders, /lib, /usr/lib. */
static const char *find_lib(struct session *s, const char *name,
			    const char *rpath, const char **conf, size_t nconf)
{
	char buf[PATH_MAX];
	static const char *const std[] = { "/lib", "/usr/lib" };

	if (strchr(name, '/'))
		return realpath(name, buf) ? arena_strdup(&s->arena, buf) :
					     NULL;
	for (const char *p = rpath; p && *p;) {
		size_t k = strcspn(p, ":");
		char *c = arena_printf(&s->arena, "%.*s/%s", (int)k, p, name);

		if (is_file(c) && realpath(c, buf))
			return arena_strdup(&s->arena, buf);
		p += k;
		p += *p == ':';
	}
	for (size_t i = 0; i < nconf + 2; i++) {
		const char *d = i < nconf ? conf[i] : std[i - nconf];
		char *c = arena_printf(&s->arena, "%s/%s", d, name);

		if (is_file(c) && realpath(c, buf))
			return arena_strdup(&s->arena, buf);
	}
	return NULL;
}

/* The program's interpreter and DT_NEEDED names, for read_libs. */
static void elf_deps(struct session *s, const char *path, const char **interp,
		     const char ***needed, size_t *n, const char **rpath)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t nph = 0;

	*interp = *rpath = NULL;
	if (elf && elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			size_t len;
			char *raw = elf_rawfile(elf, &len);

			if (gelf_getphdr(elf, (int)i, &ph) &&
			    ph.p_type == PT_INTERP && raw &&
			    ph.p_offset + ph.p_filesz <= len && ph.p_filesz)
				*interp = arena_printf(&s->arena, "%.*s",
						       (int)ph.p_filesz - 1,
						       raw + ph.p_offset);
		}
	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *str;

			if (!gelf_getdyn(d, (int)i, &dyn))
				continue;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH &&
			    dyn.d_tag != DT_RPATH)
				continue;
			str = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!str)
				continue;
			if (dyn.d_tag != DT_NEEDED) {
				*rpath = arena_strdup(&s->arena, str);
				continue;
			}
			*needed = xrealloc(*needed, (*n + 1) * sizeof(**needed));
			(*needed)[(*n)++] = arena_strdup(&s->arena, str);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* What the program loads: its interpreter and, breadth first, the
 * objects DT_NEEDED names, found as the dynamic loader finds them. */
static void read_libs(struct session *s, struct uprog *u)
{
	const char **conf = NULL;
	size_t nconf = 0;
	char buf[PATH_MAX];

	if (u->libs_read)
		return;
	u->libs_read = true;
	ldconf_dirs(s, "/etc/ld.so.conf", &conf, &nconf, 0);
	for (size_t i = 0; i <= u->nlibs; i++) {
		const char *obj = i ? u->libs[i - 1] : u->path;
		const char **needed = NULL, *interp, *rpath;
		size_t n = 0;

		elf_deps(s, obj, &interp, &needed, &n, &rpath);
		if (interp && realpath(interp, buf))
			add_lib(u, arena_strdup(&s->arena, buf));
		for (size_t j = 0; j < n; j++) {
			const char *lib = find_lib(s, needed[j], rpath, conf,
						   nconf);

			if (lib)
				add_lib(u, lib);
		}
		free(needed);
	}
	free(conf);
}

static int resolve_path(struct elab *e, const struct probe_point *pp,
			int pattern, const struct dprobe *tmpl,
			const char *path);

/* The point as a probe on the library names it: process("PROG")
 * .library("LIB") and the rest of lib's point. */
static struct probe_point *lib_point(struct session *s,
				     const struct probe_point *pp,
				     const struct probe_point *libpt,
				     const char *prog, const char *lib)
{
	struct probe_point *cp = ANEW(&s->arena, struct probe_point);
	struct pp_comp *c0 = ANEW(&s->arena, struct pp_comp);
	struct pp_comp *c1 = ANEW(&s->arena, struct pp_comp);

	*cp = *pp;
	*c0 = *pp->comps;
	*c1 = *pp->comps->next;
	c0->arg = ast_expr(s, E_STR, &c0->loc);
	c0->arg->str = prog;
	c0->arg->len = (unsigned)strlen(prog);
	c1->arg = ast_expr(s, E_STR, &c1->arg->loc);
	c1->arg->str = lib;
	c1->arg->len = (unsigned)strlen(lib);
	c0->next = c1;
	c1->next = libpt->comps->next;
	cp->comps = c0;
	return cp;
}

/* process("PROG").library("LIB")...: the same point on each library of
 * PROG that LIB names (its base name matched, or a path), firing in
 * PROG's processes only. */
static int libraries(struct elab *e, const struct probe_point *pp,
		     int pattern, const struct dprobe *tmpl, const char *prog)
{
	struct session *s = e->s;
	const struct expr *la = pp->comps->next->arg;
	struct probe_point sub = *pp;
	struct pp_comp c0 = *pp->comps;
	struct uprog *u = uprog_open(s, prog);
	const char **libs;
	size_t nlibs = 0;
	int total = 0, errors = s->errors;

	if (!u->ok) {
		elab_error(e, pp->comps->arg ? &pp->comps->arg->loc :
			   &pp->comps->loc, "%s", u->why);
		return -1;
	}
	read_libs(s, u);
	libs = arena_alloc(&s->arena, sizeof(*libs) * (u->nlibs + 1));
	if (strchr(la->str, '/')) {
		if (is_file(la->str))
			libs[nlibs++] = la->str;
	} else {
		for (size_t i = 0; i < u->nlibs; i++) {
			const char *base = strrchr(u->libs[i], '/') + 1;

			if (fnmatch(la->str, base, 0) == 0)
				libs[nlibs++] = u->libs[i];
		}
	}
	if (!nlibs) {
		const char *all = "none";

		for (size_t i = 0; i < u->nlibs; i++)
			all = i ? arena_printf(&s->arena, "%s, %s", all,
					       u->libs[i]) : u->libs[i];
		elab_error(e, &la->loc, "no match for library '%s' of '%s' "
			   "(its libraries: %s)", la->str, prog, all);
		return -1;
	}
	/* the point less .library(): process("LIB").function(...) */
	c0.next = pp->comps->next->next;
	sub.comps = &c0;
	for (size_t i = 0; i < nlibs; i++) {
		struct dprobe *before = e->last_probe;
		int n;

		c0.arg = ast_expr(s, E_STR, &la->loc);
		c0.arg->str = libs[i];
		c0.arg->len = (unsigned)strlen(libs[i]);
		s->quiet += nlibs > 1;
		n = resolve_path(e, &sub, pattern >= 59 ? 59 :
				 pattern >= 55 ? 55 :
				 lib_base[(pattern - 30) % 9], tmpl, libs[i]);
		s->quiet -= nlibs > 1;
		if (nlibs > 1)
			s->errors = errors;
		if (n <= 0)
			continue;
		total += n;
		for (struct dprobe *p = before ? before->next :
			     e->prog->probes; p; p = p->next) {
			p->process_exe = prog;
			p->point = lib_point(s, pp, p->point, prog, libs[i]);
			p->listed_as = pp_text(s, p->point);
			if (p->label) {
				/* pn() and -l add the label (label_names) */
				p->listed_as = arena_printf(&s->arena,
						"%s.label(\"%s\")",
						p->listed_as, p->label);
				if (!tmpl->pn)
					p->pn = p->listed_as;
			}
		}
	}
	if (!total && nlibs > 1) {
		elab_error(e, &la->loc, "no match in any of the %zu libraries "
			   "of '%s' that '%s' names", nlibs, prog, la->str);
		return -1;
	}
	return total ? total : -1;
}

static int resolve(struct elab *e, const struct probe_point *pp, int pattern,
		   const struct dprobe *tmpl)
{
	const char *path;

	if ((pattern >= 5 && pattern < 17) || (pattern >= 49 && pattern < 55))
		return events(e, pp, pattern, tmpl);
	if ((pattern >= 26 && pattern < 48 && !(pattern >= 30 && pattern < 39))
	    || pattern == 57 || pattern == 61) {
		/* process.plt: the -c command's program, or the program
		 * the -x process runs now (as stap) */
		const char *cmd = e->s->target_cmd, *xpid = e->s->target_pid;

		path = cmd ? find_program(e->s, arena_printf(&e->s->arena,
				"%.*s", (int)strcspn(cmd, " \t"), cmd)) : NULL;
		if (!cmd && xpid) {
			path = find_program(e->s, arena_printf(&e->s->arena,
					    "/proc/%s/exe", xpid));
			if (!path) {
				elab_error(e, &pp->comps->loc, "cannot probe "
					   "pid %s: no such process", xpid);
				return -1;
			}
		}
		if (!path) {
			elab_error(e, &pp->comps->loc, "unspecified process "
				   "probe is invalid without a -c COMMAND");
			return -1;
		}
		if (pattern >= 39)
			return libraries(e, pp, pattern, tmpl, path);
		return resolve_path(e, pp, pattern, tmpl, path);
	}
	if ((pattern >= 19 && pattern <= 21) || pattern == 58 ||
	    pattern == 62) {
		/* as stap: the program the process runs now, here, and the
		 * point named by its path (process("/usr/bin/bash")...) */
		const struct expr *a = pp->comps->arg;
		struct dprobe *before = e->last_probe;
		struct probe_point bypath = *pp;
		struct pp_comp c0 = *pp->comps;
		int n;

		path = find_program(e->s, arena_printf(&e->s->arena,
						"/proc/%lld/exe",
						(long long)a->num));
		if (!path) {
			elab_error(e, &a->loc, "cannot probe pid %lld: no such "
				   "process", (long long)a->num);
			return -1;
		}
		c0.arg = ast_expr(e->s, E_STR, &a->loc);
		c0.arg->str = path;
		c0.arg->len = (unsigned)strlen(path);
		bypath.comps = &c0;
		n = pattern == 62 ? labels(e, &bypath, tmpl, path) :
		    functions(e, &bypath, tmpl, path, pattern == 58 ?
			      FN_INLINE : (enum fn_kind)(pattern - 19));
		for (struct dprobe *p = before ? before->next : e->prog->probes;
		     n > 0 && p; p = p->next)
			p->pid = a->num;
		return n;
	}
	if (wild(pp->comps->arg->str) &&
	    (pattern < 30 || pattern == 48 || pattern == 55 || pattern == 59))
		return resolve_glob(e, pp, pattern, tmpl);
	path = find_program(e->s, pp->comps->arg->str);
	if (!path) {
		elab_error(e, &pp->comps->arg->loc, "cannot find executable "
			   "'%s'", pp->comps->arg->str);
		return -1;
	}
	if ((pattern >= 30 && pattern < 48) || pattern == 56 || pattern == 60)
		return libraries(e, pp, pattern, tmpl, path);
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

	if (m->plt) {
		/* no DWARF: $$parms, $$vars and $$locals list nothing, as
		 * stap's */
		if (x->kind == E_CTXVAR && (!strcmp(x->str, "parms") ||
					    !strcmp(x->str, "vars") ||
					    !strcmp(x->str, "locals"))) {
			x->kind = E_STR;
			x->str = "";
			x->len = 0;
			return true;
		}
		if (x->kind != E_CTXVAR || strcmp(x->str, "name") != 0) {
			elab_error(e, &x->loc, "unable to find plt variable "
				   "'%s%s' (alternatives: $$name)",
				   x->kind == E_CTXVAR ? "$$" : "$", x->str);
			return true;
		}
		x->kind = E_STR;
		x->str = m->name;
		x->len = (unsigned)strlen(m->name);
		return true;
	}
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

/* ---- the context variables of .syscall and .syscall.return ---- */

bool process_is_syscall(const struct dprobe *p)
{
	return p->process_event == PROC_SYSCALL ||
	       p->process_event == PROC_SYSCALL_RETURN;
}

/* x ($syscall, $argN, $return) becomes a call of the tapset's
 * __usys_* (tapsets/process/usyscall.stp). False after an error. */
bool process_syscall_target(struct elab *e, struct expr *x)
{
	struct session *s = e->s;
	bool ret = e->probe->process_event == PROC_SYSCALL_RETURN;
	const char *kind = ret ? ".syscall.return" : ".syscall";
	const char *has = ret ? "$syscall and $return" :
				"$syscall and $arg1 to $arg6";
	struct expr *v, *next;
	char *endp;
	long n;

	if (x->kind == E_CTXVAR) {
		elab_error(e, &x->loc, "'$$%s' is not available in process"
			   "(...)%s probes: their context variables are %s",
			   x->str, kind, has);
		return false;
	}
	if (x->chain || x->pretty || x->addr) {
		elab_error(e, &x->loc, "'$%s' of a process(...)%s probe is a "
			   "number: members, pretty printing and '&' do not "
			   "apply", x->str, kind);
		return false;
	}
	if (strcmp(x->str, "syscall") == 0) {
		v = call_expr(s, &x->loc, "__usys_nr", NULL);
	} else if (strcmp(x->str, "return") == 0 && ret) {
		v = call_expr(s, &x->loc, "__usys_return", NULL);
	} else if (strncmp(x->str, "arg", 3) == 0 && !ret &&
		   (n = strtol(x->str + 3, &endp, 10), !*endp &&
		    x->str[3] != '\0')) {
		if (n < 1 || n > 6) {
			elab_error(e, &x->loc, "'$%s': a system call has "
				   "arguments $arg1 to $arg6", x->str);
			return false;
		}
		v = call_expr(s, &x->loc, "__usys_arg",
			      num_expr(s, &x->loc, n));
	} else {
		elab_error(e, &x->loc, "'$%s' is not available in process"
			   "(...)%s probes: their context variables are %s",
			   x->str, kind, has);
		return false;
	}
	next = x->next;		/* x's place in its list */
	*x = *v;
	x->next = next;
	return true;
}

void process_free(struct session *s)
{
	for (struct uprog *u = s->uprogs; u; u = u->next) {
		free(u->fns);
		free(u->loads);
		free(u->marks);
		free(u->plts);
		free(u->libs);
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
