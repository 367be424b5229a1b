/* emit-usym.c - pass 3's user-space symbol and unwind tables.
 *
 * A program whose code asks the runtime about user addresses (the
 * tapsets' usymname(), usymdata(), ubacktrace(), ...: a called function
 * whose embedded C says "pragma:usyms") gets a struct tp_ubin
 * (runtime/tapir.h) for each binary of interest: the -d paths, every
 * process("PATH") probe's program and, with --ldd, the shared libraries
 * ldd(1) lists for those. Each path is made absolute and free of
 * symbolic links, as stap names them. As in stap, the -c command's
 * program is not among them unless a probe or -d names it (its
 * addresses then print as offsets into its file, runtime/usym.c).
 *
 * Per binary: the PT_LOAD segments, the function and object symbols of
 * its separate debuginfo's .symtab, else its own .symtab, else .dynsym,
 * by address, one per address (the one the table
 * lists last), each reaching up to the next, and an unwind table. The
 * unwind table comes from .eh_frame through libdw's CFI interpreter
 * here, at translate time: for every FDE (found through .eh_frame_hdr's
 * sorted table, else from the function symbols) dwarf_cfi_addrframe()
 * gives each range of addresses with one rule set, and the rows keep
 * the CFA (%rsp or %rbp plus an offset), where the return address and
 * %rbp were saved, or "no rule" for what they cannot express (a CFA
 * expression, a register other than those). Doing it here keeps the
 * module free of a DWARF interpreter: the runtime only searches sorted
 * rows and reads the stack (runtime/usym.c), and an unwinding step is
 * bounded by construction. Rows with the same rules as the previous one
 * are merged.
 *
 * A program that also asks for source lines (usymfileline(): embedded C
 * saying "pragma:ulines") gets each binary's DWARF line table as rows
 * too (address, line, file), from the separate debuginfo when there is
 * one.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfo/dwarf-api.h"
#include "emit-internal.h"
#include "strmap.h"
#include "xalloc.h"

/* DWARF register numbers of x86_64 */
#define DW_X86_64_RBP	6
#define DW_X86_64_RSP	7
#define DW_X86_64_RA	16

enum { UCFI_NONE, UCFI_SP, UCFI_BP };	/* as runtime/tapir.h's TP_UCFI_* */

struct usym {
	uint64_t addr, size;
	const char *name;
	size_t index;			/* in the symbol table */
};

struct ucfi {
	uint64_t pc;
	int64_t cfa_off;
	int ra_off, bp_off;
	int reg;
};

struct uline {
	uint64_t pc;
	unsigned int line, file;
	size_t seq;			/* in the order libdw gives them */
};

struct ubin {
	const char *path;
	struct uline *lines;
	size_t nlines;
	const char **files;
	size_t nfiles;
	GElf_Phdr *segs;
	size_t nsegs;
	struct usym *syms;
	size_t nsyms;
	struct ucfi *cfi;
	size_t ncfi, capcfi;
	uint64_t base;
	char *build_id;		/* its NT_GNU_BUILD_ID in hex, or NULL */
};

/* ---- which binaries ---- */

/* Whether a called function's embedded C says pragma. */
static bool wants(const struct em *em, const char *pragma)
{
	for (int i = 0; i < em->nfns; i++) {
		const struct fninfo *fi = em->fns[i];

		if (fi->called && fi->embedded && fi->fn->decl->code &&
		    strstr(fi->fn->decl->code, pragma))
			return true;
	}
	return false;
}

static void add_path(struct session *s, const char ***v, size_t *n,
		     const char *path)
{
	char buf[PATH_MAX];

	if (!realpath(path, buf))
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], buf))
			return;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = arena_strdup(&s->arena, buf);
}

/* ldd's "NAME => /PATH (0x...)" and "\t/PATH (0x...)" lines. */
static void add_ldd(struct session *s, const char ***v, size_t *n,
		    const char *path)
{
	char *cmd, *line = NULL;
	size_t cap = 0;
	FILE *p;

	cmd = xasprintf("ldd '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return;
	while (getline(&line, &cap, p) > 0) {
		char *a = strstr(line, "=> ");
		char *end;

		a = a ? a + 3 : line + strspn(line, " \t");
		if (*a != '/')
			continue;
		end = strstr(a, " (");
		if (end)
			*end = '\0';
		else
			a[strcspn(a, "\n")] = '\0';
		add_path(s, v, n, a);
	}
	free(line);
	pclose(p);
}

static size_t binary_paths(struct em *em, const char ***v)
{
	struct session *s = em->s;
	size_t n = 0, direct;

	*v = NULL;
	for (int i = 0; i < s->nusym_paths; i++)
		if (strchr(s->usym_paths[i], '/'))
			add_path(s, v, &n, s->usym_paths[i]);
	for (const struct dprobe *p = em->prog->probes; p; p = p->next)
		if (p->process)
			add_path(s, v, &n, p->process);
	direct = n;
	if (s->ldd)
		for (size_t i = 0; i < direct; i++)
			add_ldd(s, v, &n, (*v)[i]);
	return n;
}

/* ---- symbols ---- */

static int by_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address, the one the table lists last first (stap 4.8
	 * names __libc_start_main, not __libc_start_main_impl before it) */
	return x->index < y->index ? 1 : x->index > y->index ? -1 : 0;
}

static void read_syms(struct session *s, struct ubin *b, Elf *elf)
{
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	size_t cap = 0, k = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			tab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dyn = scn;
	}
	scn = tab ? tab : dyn;
	if (!scn)
		return;
	{
		GElf_Shdr sh;
		Elf_Data *d = elf_getdata(scn, NULL);

		gelf_getshdr(scn, &sh);
		for (size_t i = 0; d && sh.sh_entsize &&
		     i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(d, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_OBJECT &&
			     type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (b->nsyms == cap) {
				cap = cap ? 2 * cap : 256;
				b->syms = xrealloc(b->syms, cap * sizeof(*b->syms));
			}
			b->syms[b->nsyms++] = (struct usym){
				.addr = sym.st_value, .size = sym.st_size,
				.name = arena_strdup(&s->arena, name),
				.index = i,
			};
		}
	}
	if (!b->nsyms)
		return;
	qsort(b->syms, b->nsyms, sizeof(*b->syms), by_addr);
	for (size_t i = 1; i < b->nsyms; i++)
		if (b->syms[i].addr != b->syms[k].addr)
			b->syms[++k] = b->syms[i];
	b->nsyms = k + 1;
	/* a symbol reaches up to the next one, as stap 4.8 counts sizes
	 * (main+0x95/0x105 for a main of 252 bytes followed by padding);
	 * the last keeps its own */
	for (size_t i = 0; i + 1 < b->nsyms; i++)
		b->syms[i].size = b->syms[i + 1].addr - b->syms[i].addr;
}

/* ---- unwind rows ---- */

static void add_row(struct ubin *b, const struct ucfi *r)
{
	struct ucfi *last = b->ncfi ? &b->cfi[b->ncfi - 1] : NULL;

	if (last && last->pc == r->pc) {
		*last = *r;
		/* the row before may now equal this one */
		if (b->ncfi > 1) {
			struct ucfi *p = &b->cfi[b->ncfi - 2];

			if (p->reg == r->reg && p->cfa_off == r->cfa_off &&
			    p->ra_off == r->ra_off && p->bp_off == r->bp_off)
				b->ncfi--;
		}
		return;
	}
	if (last && last->reg == r->reg && last->cfa_off == r->cfa_off &&
	    last->ra_off == r->ra_off && last->bp_off == r->bp_off)
		return;
	if (b->ncfi == b->capcfi) {
		b->capcfi = b->capcfi ? 2 * b->capcfi : 1024;
		b->cfi = xrealloc(b->cfi, b->capcfi * sizeof(*b->cfi));
	}
	b->cfi[b->ncfi++] = *r;
}

/* Where a register was saved: 0 (and *ok) for "at CFA + *off", 1 for
 * unchanged, 2 for undefined, -1 for a rule the table cannot hold. */
static int reg_rule(Dwarf_Frame *f, int regno, int *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(f, regno, mem, &ops, &nops) != 0)
		return -1;
	if (nops == 0)
		return ops ? 2 : 1;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return -1;
	*off = 0;
	if (nops == 1)
		return 0;
	/* (libdw writes a negative offset as DW_OP_plus_uconst of its
	 * two's complement) */
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst &&
	    (int64_t)ops[1].number > -32768 && (int64_t)ops[1].number < 32768) {
		*off = (int)(int64_t)ops[1].number;
		return 0;
	}
	if (nops == 3 && ops[1].atom == DW_OP_consts &&
	    ops[2].atom == DW_OP_plus && (int64_t)ops[1].number > -32768 &&
	    (int64_t)ops[1].number < 32768) {
		*off = (int)(int64_t)ops[1].number;
		return 0;
	}
	return -1;
}

/* The row of frame f at pc. */
static struct ucfi frame_row(Dwarf_Frame *f, uint64_t pc)
{
	struct ucfi r = { .pc = pc, .reg = UCFI_NONE };
	Dwarf_Op *ops;
	size_t nops;
	int ra, bp, raoff = 0, bpoff = 0;

	if (dwarf_frame_cfa(f, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != DW_X86_64_RSP && ops[0].number != DW_X86_64_RBP) ||
	    (int64_t)ops[0].number2 > INT32_MAX ||
	    (int64_t)ops[0].number2 < INT32_MIN)
		return r;
	ra = reg_rule(f, DW_X86_64_RA, &raoff);
	bp = reg_rule(f, DW_X86_64_RBP, &bpoff);
	if (ra < 0 || ra == 1 || bp < 0 || (ra == 0 && !raoff) ||
	    (bp == 0 && !bpoff))
		return r;
	r.reg = ops[0].number == DW_X86_64_RSP ? UCFI_SP : UCFI_BP;
	r.cfa_off = (int64_t)ops[0].number2;
	r.ra_off = ra == 0 ? raoff : 0;
	/* an undefined %rbp is left as it is: only the outermost frames
	 * say so, and they end the walk by their return address */
	r.bp_off = bp == 0 ? bpoff : 0;
	return r;
}

/* The rows of the FDE covering start, up to limit at most. */
static void fde_rows(struct ubin *b, Dwarf_CFI *cfi, uint64_t start,
		     uint64_t limit)
{
	uint64_t pc = start;
	struct ucfi none = { .reg = UCFI_NONE };

	/* rows stay sorted: what the rows so far cover is not redone
	 * (overlapping symbols, an FDE running past its symbol) */
	if (b->ncfi && b->cfi[b->ncfi - 1].pc > pc)
		pc = b->cfi[b->ncfi - 1].pc;

	while (pc < limit) {
		Dwarf_Frame *f;
		Dwarf_Addr lo, hi;

		if (dwarf_cfi_addrframe(cfi, pc, &f) != 0)
			break;
		if (dwarf_frame_info(f, &lo, &hi, NULL) < 0 || hi <= pc) {
			free(f);
			break;
		}
		{
			struct ucfi r = frame_row(f, pc);

			add_row(b, &r);
		}
		free(f);
		pc = hi;
	}
	none.pc = pc;
	if (b->ncfi)
		add_row(b, &none);
}

/* The FDEs' start addresses, from .eh_frame_hdr's table (encoded
 * DW_EH_PE_datarel | DW_EH_PE_sdata4, as binutils writes it). */
static uint64_t *hdr_starts(Elf *elf, size_t *n)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*n = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		const unsigned char *p;
		uint64_t *v;
		uint32_t count;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".eh_frame_hdr"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size < 12)
			return NULL;
		p = d->d_buf;
		/* version 1; eh_frame_ptr any 4-byte encoding; the count
		 * udata4; the table datarel sdata4 */
		if (p[0] != 1 || (p[1] & 0x0f) != 0x0b || p[2] != 0x03 ||
		    p[3] != 0x3b)
			return NULL;
		memcpy(&count, p + 8, 4);
		if (12 + (uint64_t)count * 8 > d->d_size)
			return NULL;
		v = xcalloc(count + 1, sizeof(*v));
		for (uint32_t i = 0; i < count; i++) {
			int32_t rel;

			memcpy(&rel, p + 12 + i * 8, 4);
			v[i] = sh.sh_addr + (int64_t)rel;
		}
		*n = count;
		return v;
	}
	return NULL;
}

static void read_cfi(struct ubin *b, Elf *elf)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(elf);
	uint64_t *starts;
	size_t n;

	if (!cfi)
		return;
	starts = hdr_starts(elf, &n);
	if (starts) {
		for (size_t i = 0; i < n; i++)
			fde_rows(b, cfi, starts[i],
				 i + 1 < n ? starts[i + 1] : UINT64_MAX);
		free(starts);
	} else {
		/* no usable .eh_frame_hdr: each function symbol's range */
		for (size_t i = 0; i < b->nsyms; i++)
			if (b->syms[i].size)
				fde_rows(b, cfi, b->syms[i].addr,
					 b->syms[i].addr + b->syms[i].size);
	}
	dwarf_cfi_end(cfi);
}

/* The binary's separate debuginfo, found by its build ID under
 * /usr/lib/debug/.build-id (Debian's -dbg packages), or NULL: its
 * .symtab has the local functions a stripped library lacks, as stap
 * 4.8 shows them (__libc_start_call_main, versioned names such as
 * __libc_start_main@GLIBC_2.2.5), and its DWARF the lines. */
Elf *usym_open_debug(Elf *elf, int *fd)
{
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	char *path, *p;
	Elf *dbg;

	if (n < 2)
		return NULL;
	path = p = xcalloc(1, 64 + 2 * (size_t)n);
	p += sprintf(p, "/usr/lib/debug/.build-id/%02x/", id[0]);
	for (ssize_t i = 1; i < n; i++)
		p += sprintf(p, "%02x", id[i]);
	strcpy(p, ".debug");
	*fd = open(path, O_RDONLY);
	free(path);
	if (*fd < 0)
		return NULL;
	dbg = elf_begin(*fd, ELF_C_READ, NULL);
	if (!dbg)
		close(*fd);
	return dbg;
}

static int by_pc(const void *a, const void *b)
{
	const struct uline *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The line rows of elf's DWARF: each line table row's address, line
 * and file, an end of sequence as line 0; sorted, one row per address
 * (the last the table gives for it). */
/* The DWARF line table of elf into rows by pc (their file an index of
 * *names). */
static void line_rows(struct session *s, Elf *elf, struct uline **rows,
		      size_t *nrows, const char ***names, size_t *nnames)
{
	struct ubin one = { 0 }, *b = &one;
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	struct strmap files = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, k = 0;

	if (!dw)
		return;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr pc;
				int line;
				bool end = false;
				const char *f;
				void *idx;

				if (!l || dwarf_lineaddr(l, &pc) ||
				    dwarf_lineno(l, &line) ||
				    dwarf_lineendsequence(l, &end) ||
				    !(f = dwarf_linesrc(l, NULL, NULL)))
					continue;
				if (b->nlines == cap) {
					cap = cap ? 2 * cap : 1024;
					b->lines = xrealloc(b->lines,
							    cap * sizeof(*b->lines));
				}
				idx = strmap_get(&files, f);
				if (!idx) {
					b->files = xrealloc(b->files,
						(b->nfiles + 1) * sizeof(*b->files));
					b->files[b->nfiles] =
						arena_strdup(&s->arena, f);
					idx = (void *)(uintptr_t)++b->nfiles;
					strmap_add(&s->arena, &files,
						   b->files[b->nfiles - 1], idx);
				}
				b->lines[b->nlines++] = (struct uline){
					.pc = pc, .line = end ? 0 : (unsigned)line,
					.file = (unsigned)(uintptr_t)idx - 1,
					.seq = b->nlines,
				};
			}
		}
		off = next;
	}
	dwarf_end(dw);
	*rows = b->lines;
	*nrows = b->nlines;
	*names = b->files;
	*nnames = b->nfiles;
	if (!b->nlines)
		return;
	/* at one address the last row wins, but an end of sequence does
	 * not hide the line a next sequence starts there with */
	qsort(b->lines, b->nlines, sizeof(*b->lines), by_pc);
	for (size_t i = 1; i < b->nlines; i++) {
		if (b->lines[i].pc != b->lines[k].pc)
			b->lines[++k] = b->lines[i];
		else if (b->lines[i].line || !b->lines[k].line)
			b->lines[k] = b->lines[i];
	}
	*nrows = k + 1;
}

static void read_lines(struct session *s, struct ubin *b, Elf *elf)
{
	line_rows(s, elf, &b->lines, &b->nlines, &b->files, &b->nfiles);
}

static bool read_binary(struct session *s, struct ubin *b, bool lines)
{
	Elf *dbg;
	int dfd = -1;
	int fd = open(b->path, O_RDONLY);
	Elf *elf;
	size_t nph;
	GElf_Ehdr eh;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getphdrnum(elf, &nph) != 0) {
		if (elf)
			elf_end(elf);
		close(fd);
		return false;
	}
	b->base = UINT64_MAX;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->segs = xrealloc(b->segs, (b->nsegs + 1) * sizeof(*b->segs));
		b->segs[b->nsegs++] = ph;
		if (ph.p_vaddr < b->base)
			b->base = ph.p_vaddr;
	}
	if (!b->nsegs) {
		elf_end(elf);
		close(fd);
		return false;
	}
	{
		const unsigned char *id;
		ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);

		if (n > 0) {
			b->build_id = xcalloc(1, 2 * (size_t)n + 1);
			for (ssize_t i = 0; i < n; i++)
				sprintf(b->build_id + 2 * i, "%02x", id[i]);
		}
	}
	dbg = usym_open_debug(elf, &dfd);
	if (dbg)
		read_syms(s, b, dbg);
	if (!b->nsyms)
		read_syms(s, b, elf);
	if (lines)
		read_lines(s, b, dbg ? dbg : elf);
	if (dbg) {
		elf_end(dbg);
		close(dfd);
	}
	read_cfi(b, elf);
	elf_end(elf);
	close(fd);
	return true;
}

/* ---- output ---- */

static const char *const reg_names[] = {
	[UCFI_NONE] = "TP_UCFI_NONE", [UCFI_SP] = "TP_UCFI_SP",
	[UCFI_BP] = "TP_UCFI_BP",
};

static void write_binary(struct em *em, const struct ubin *b, int k, FILE *o)
{
	fprintf(o, "/* %s: %zu symbols, %zu unwind rows */\n", b->path,
		b->nsyms, b->ncfi);
	fprintf(o, "static const struct tp_useg tpg_useg_%d[] = {\n", k);
	for (size_t i = 0; i < b->nsegs; i++)
		fprintf(o, "\t{ %#llxUL, %#llxUL, %#llxUL },\n",
			(unsigned long long)b->segs[i].p_offset,
			(unsigned long long)b->segs[i].p_vaddr,
			(unsigned long long)b->segs[i].p_filesz);
	fputs("};\n", o);
	if (b->nsyms) {
		fprintf(o, "static const struct tp_usym tpg_usym_%d[] = {\n", k);
		for (size_t i = 0; i < b->nsyms; i++)
			fprintf(o, "\t{ %#llxUL, %#llxUL, %s },\n",
				(unsigned long long)b->syms[i].addr,
				(unsigned long long)b->syms[i].size,
				c_string(em, b->syms[i].name,
					 strlen(b->syms[i].name)));
		fputs("};\n", o);
	}
	if (b->ncfi) {
		fprintf(o, "static const struct tp_ucfi tpg_ucfi_%d[] = {\n", k);
		for (size_t i = 0; i < b->ncfi; i++) {
			const struct ucfi *r = &b->cfi[i];

			fprintf(o, "\t{ %#llx, %lld, %d, %d, %s },\n",
				(unsigned long long)(r->pc - b->base),
				(long long)r->cfa_off, r->ra_off, r->bp_off,
				reg_names[r->reg]);
		}
		fputs("};\n", o);
	}
	if (b->nlines) {
		fprintf(o, "static const char *const tpg_ufile_%d[] = {\n", k);
		for (size_t i = 0; i < b->nfiles; i++)
			fprintf(o, "\t%s,\n", c_string(em, b->files[i],
							 strlen(b->files[i])));
		fprintf(o, "};\nstatic const struct tp_uline tpg_uline_%d[] = {\n",
			k);
		for (size_t i = 0; i < b->nlines; i++)
			fprintf(o, "\t{ %#llx, %u, %u },\n",
				(unsigned long long)(b->lines[i].pc - b->base),
				b->lines[i].line, b->lines[i].file);
		fputs("};\n", o);
	}
	fputc('\n', o);
}

static int nubins;

void emit_usym_tables(struct em *em, FILE *o)
{
	const char **paths;
	size_t n;
	struct ubin *bins;
	int k = 0;

	nubins = 0;
	bool lines = wants(em, "/* pragma:ulines */");

	if (!wants(em, "/* pragma:usyms */"))
		return;
	n = binary_paths(em, &paths);
	if (!n) {
		free(paths);
		return;
	}
	elf_version(EV_CURRENT);
	bins = xcalloc(n, sizeof(*bins));
	fputs("/* ---- user-space binaries: symbols and unwind rows "
	      "(runtime/usym.c) ---- */\n\n", o);
	for (size_t i = 0; i < n; i++) {
		struct ubin *b = &bins[k];

		b->path = paths[i];
		/* a binary that is not x86_64 ELF has no table; its
		 * addresses print in hex */
		if (!read_binary(em->s, b, lines)) {
			free(b->segs);
			free(b->syms);
			free(b->cfi);
			free(b->lines);
			free(b->files);
			memset(b, 0, sizeof(*b));
			continue;
		}
		/* rows whose pc does not fit the runtime's u32 go */
		while (b->ncfi && b->cfi[b->ncfi - 1].pc - b->base > UINT32_MAX)
			b->ncfi--;
		while (b->nlines && (b->lines[b->nlines - 1].pc < b->base ||
				     b->lines[b->nlines - 1].pc - b->base > UINT32_MAX))
			b->nlines--;
		write_binary(em, b, k, o);
		k++;
	}
	if (k) {
		fputs("static const struct tp_ubin tpg_ubins[] = {\n", o);
		for (int i = 0; i < k; i++) {
			const struct ubin *b = &bins[i];

			fprintf(o, "\t{\n\t\t.path = %s,\n"
				"\t\t.segs = tpg_useg_%d,\n"
				"\t\t.nsegs = ARRAY_SIZE(tpg_useg_%d),\n",
				c_string(em, b->path, strlen(b->path)), i, i);
			if (b->nsyms)
				fprintf(o, "\t\t.syms = tpg_usym_%d,\n"
					"\t\t.nsyms = ARRAY_SIZE(tpg_usym_%d),\n",
					i, i);
			fprintf(o, "\t\t.base = %#llxUL,\n",
				(unsigned long long)b->base);
			if (b->build_id)
				fprintf(o, "\t\t.build_id = \"%s\",\n",
					b->build_id);
			if (b->ncfi)
				fprintf(o, "\t\t.cfi = tpg_ucfi_%d,\n"
					"\t\t.ncfi = ARRAY_SIZE(tpg_ucfi_%d),\n",
					i, i);
			if (b->nlines)
				fprintf(o, "\t\t.lines = tpg_uline_%d,\n"
					"\t\t.nlines = ARRAY_SIZE(tpg_uline_%d),\n"
					"\t\t.files = tpg_ufile_%d,\n", i, i, i);
			fputs("\t},\n", o);
		}
		fputs("};\n\n", o);
	}
	for (size_t i = 0; i < n; i++) {
		free(bins[i].segs);
		free(bins[i].syms);
		free(bins[i].cfi);
		free(bins[i].lines);
		free(bins[i].files);
		free(bins[i].build_id);
	}
	free(bins);
	free(paths);
	nubins = k;
}

/* In struct tp_module: the table above. */
void emit_usym_module_fields(struct em *em, FILE *o)
{
	(void)em;
	if (nubins)
		fputs("\t.ubins = tpg_ubins,\n"
		      "\t.nubins = ARRAY_SIZE(tpg_ubins),\n", o);
}

/* ---- kernel source lines (symfileline(): "pragma:klines") ----
 *
 * The vmlinux line table, every row of it (a profile samples any
 * address), compacted: rows that repeat the previous row's file and
 * line go, the rest are coded in blocks of KLINE_BLOCK rows. A block
 * starts with its first row in tpg_kline_idx (pc, line, file: what a
 * binary search finds) and continues in tpg_kline_data, each row as the
 * ULEB128 of (pc delta << 1 | file changed), the new file's index when
 * it changed, and the zigzag ULEB128 of the line delta. A lookup decodes
 * at most one block. Addresses are link-time offsets from the first
 * row's; the run-time address of kfree gives the image's KASLR shift.
 * Line 0 (an end of sequence) means no line. */

#define KLINE_BLOCK 64

struct bytes {
	unsigned char *v;
	size_t n, cap;
};

static void uleb(struct bytes *b, uint64_t v)
{
	do {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 1 << 16;
			b->v = xrealloc(b->v, b->cap);
		}
		b->v[b->n] = v & 0x7f;
		v >>= 7;
		if (v)
			b->v[b->n] |= 0x80;
		b->n++;
	} while (v);
}

static bool elf_func_addr(Elf *elf, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		strndx = sh.sh_link;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, (int)i, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !(n = elf_strptr(elf, strndx, sym.st_name)) ||
			    strcmp(n, name) != 0)
				continue;
			*addr = sym.st_value;
			return true;
		}
	}
	return false;
}

static void kline_lookup_fn(FILE *o, bool have)
{
	fputs("int tapir_kline(unsigned long addr, const char **file, "
	      "unsigned int *line);\n"
	      "int tapir_kline(unsigned long addr, const char **file, "
	      "unsigned int *line)\n{\n", o);
	if (!have) {
		fputs("\treturn -ENOENT;\n}\n\n", o);
		return;
	}
	fputs("\tunsigned long a = addr - ((unsigned long)&kfree - "
	      "TPG_KLINE_KFREE) - TPG_KLINE_BASE;\n"
	      "\tunsigned int lo = 0, hi = ARRAY_SIZE(tpg_kline_idx), n, i;\n"
	      "\tconst unsigned char *p;\n"
	      "\tu32 pc, ln, f;\n\n"
	      "\tif (addr < (unsigned long)&kfree - TPG_KLINE_KFREE + "
	      "TPG_KLINE_BASE || a > 0xffffffffUL ||\n"
	      "\t    a < tpg_kline_idx[0].pc)\n"
	      "\t\treturn -ENOENT;\n"
	      "\twhile (hi - lo > 1) {\n"
	      "\t\tunsigned int mid = lo + (hi - lo) / 2;\n\n"
	      "\t\tif (tpg_kline_idx[mid].pc <= a)\n"
	      "\t\t\tlo = mid;\n"
	      "\t\telse\n"
	      "\t\t\thi = mid;\n"
	      "\t}\n"
	      "\tpc = tpg_kline_idx[lo].pc;\n"
	      "\tln = tpg_kline_idx[lo].line;\n"
	      "\tf = tpg_kline_idx[lo].file;\n"
	      "\tp = (const unsigned char *)tpg_kline_data + "
	      "tpg_kline_idx[lo].off;\n"
	      "\tn = lo + 1 < ARRAY_SIZE(tpg_kline_idx) ? "
	      "TPG_KLINE_BLOCK : TPG_KLINE_LAST;\n"
	      "\tfor (i = 1; i < n; i++) {\n"
	      "\t\tu64 d = tp_kline_uleb(&p), nf = f, z;\n\n"
	      "\t\tif (d & 1)\n"
	      "\t\t\tnf = tp_kline_uleb(&p);\n"
	      "\t\tz = tp_kline_uleb(&p);\n"
	      "\t\tif (pc + (d >> 1) > a)\n"
	      "\t\t\tbreak;\n"
	      "\t\tpc += d >> 1;\n"
	      "\t\tln += (z & 1) ? -(u32)(z >> 1) - 1 : (u32)(z >> 1);\n"
	      "\t\tf = nf;\n"
	      "\t}\n"
	      "\tif (!ln || f >= ARRAY_SIZE(tpg_kfile))\n"
	      "\t\treturn -ENOENT;\n"
	      "\t*file = tpg_kfile[f];\n"
	      "\t*line = ln;\n"
	      "\treturn 0;\n}\n\n", o);
}

void emit_kline_table(struct em *em, FILE *o)
{
	Elf *elf;
	struct uline *rows = NULL;
	const char **files = NULL;
	size_t nrows = 0, nfiles = 0, k = 0;
	uint64_t kfree_addr = 0, base;
	struct bytes data = { 0 };

	if (!wants(em, "/* pragma:klines */"))
		return;
	fputs("/* ---- kernel source lines (symfileline) ---- */\n\n", o);
	elf = dwarf_kernel_elf(em->s);
	if (elf && elf_func_addr(elf, "kfree", &kfree_addr))
		line_rows(em->s, elf, &rows, &nrows, &files, &nfiles);
	if (!nrows) {
		/* no debuginfo: every address prints in hex */
		kline_lookup_fn(o, false);
		return;
	}
	/* keep the rows that change the file or the line */
	for (size_t i = 1; i < nrows; i++)
		if (rows[i].line != rows[k].line || rows[i].file != rows[k].file)
			rows[++k] = rows[i];
	nrows = k + 1;
	while (nrows && rows[nrows - 1].pc - rows[0].pc > UINT32_MAX)
		nrows--;
	base = rows[0].pc;
	fprintf(o, "/* %zu rows in %zu files */\n"
		"#define TPG_KLINE_KFREE %#llxUL\n"
		"#define TPG_KLINE_BASE %#llxUL\n"
		"#define TPG_KLINE_BLOCK %d\n"
		"#define TPG_KLINE_LAST %zu\n"
		"static const char *const tpg_kfile[] = {\n", nrows, nfiles,
		(unsigned long long)kfree_addr, (unsigned long long)base,
		KLINE_BLOCK, (nrows - 1) % KLINE_BLOCK + 1);
	for (size_t i = 0; i < nfiles; i++)
		fprintf(o, "\t%s,\n", c_string(em, files[i], strlen(files[i])));
	fputs("};\nstatic const struct { u32 pc, off, line, file; } "
	      "tpg_kline_idx[] = {\n", o);
	for (size_t i = 0; i < nrows; i++) {
		int64_t dl;
		bool nf;

		if (i % KLINE_BLOCK == 0) {
			fprintf(o, "\t{ %#llx, %zu, %u, %u },\n",
				(unsigned long long)(rows[i].pc - base), data.n,
				rows[i].line, rows[i].file);
			continue;
		}
		nf = rows[i].file != rows[i - 1].file;
		dl = (int64_t)rows[i].line - (int64_t)rows[i - 1].line;
		uleb(&data, (rows[i].pc - rows[i - 1].pc) << 1 | nf);
		if (nf)
			uleb(&data, rows[i].file);
		uleb(&data, dl < 0 ? ((uint64_t)(-dl - 1) << 1) | 1 :
		     (uint64_t)dl << 1);
	}
	fputs("};\nstatic const char tpg_kline_data[] =\n\t\"", o);
	for (size_t i = 0; i < data.n; i++) {
		fprintf(o, "\\%03o", data.v[i]);
		if (i % 32 == 31)
			fputs("\"\n\t\"", o);
	}
	fprintf(o, "\";\n/* %zu bytes of rows, %zu blocks */\n\n", data.n,
		(nrows + KLINE_BLOCK - 1) / KLINE_BLOCK);
	fputs("static u64 tp_kline_uleb(const unsigned char **p)\n{\n"
	      "\tu64 v = 0;\n\tunsigned int sh = 0;\n\n"
	      "\twhile (**p & 0x80) {\n"
	      "\t\tv |= (u64)(*(*p)++ & 0x7f) << sh;\n"
	      "\t\tsh += 7;\n\t}\n"
	      "\treturn v | (u64)*(*p)++ << sh;\n}\n\n", o);
	kline_lookup_fn(o, true);
	free(data.v);
	free(rows);
	free(files);
}
