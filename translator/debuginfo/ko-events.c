/* ko-events.c - the systems of a module's events, from its .ko alone.
 *
 * A module that defines the tracepoints of several systems (kvm.ko:
 * "kvm" and "kvmmmu") names none of them for a tracepoint in its BTF.
 * Its events do: __event_NAME points at the event's struct
 * trace_event_call, whose class points at a struct trace_event_class,
 * whose system points at the system's string. In a .ko (ET_REL) those pointers are not in
 * the data but in its relocations (.rela.SECTION: symbol + addend at an
 * offset of the section), so each one is followed through them: the
 * system of every event of the module, as the vmlinux's
 * dwarf_event_systems() reads the kernel's from link-time addresses.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf-internal.h"
#include "xalloc.h"

struct reloc {
	size_t shndx;		/* the section it patches */
	uint64_t off;		/* where in it */
	size_t sym;		/* the symbol it points at */
	int64_t addend;
};

struct relocs {
	Elf *elf;
	Elf_Data *syms;
	struct reloc *v;
	size_t n;
};

static int reloc_cmp(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* The relocations of the module's data (not its code's). */
static void load_relocs(struct relocs *r)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(r->elf, scn))) {
		GElf_Shdr sh, th;
		Elf_Scn *target;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize ||
		    !(target = elf_getscn(r->elf, sh.sh_info)) ||
		    !gelf_getshdr(target, &th) ||
		    (th.sh_flags & SHF_EXECINSTR) || !(th.sh_flags & SHF_ALLOC) ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela ra;

			if (!gelf_getrela(d, (int)i, &ra))
				continue;
			if (r->n % 256 == 0)
				r->v = xrealloc(r->v, (r->n + 256) * sizeof(*r->v));
			r->v[r->n++] = (struct reloc){
				sh.sh_info, ra.r_offset, GELF_R_SYM(ra.r_info),
				ra.r_addend };
		}
	}
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), reloc_cmp);
}

/* Where the pointer at (shndx, off) points: *to_shndx and *to_off. */
static bool follow(struct relocs *r, size_t shndx, uint64_t off,
		   size_t *to_shndx, uint64_t *to_off)
{
	struct reloc key = { shndx, off, 0, 0 }, *hit;
	GElf_Sym sym;

	hit = r->n ? bsearch(&key, r->v, r->n, sizeof(*r->v), reloc_cmp) :
	      NULL;
	if (!hit || !gelf_getsym(r->syms, (int)hit->sym, &sym) ||
	    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
		return false;
	*to_shndx = sym.st_shndx;
	*to_off = sym.st_value + (uint64_t)hit->addend;
	return true;
}

/* The NUL-terminated string at (shndx, off), or NULL. */
static const char *string_at(Elf *elf, size_t shndx, uint64_t off)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *p;

	if (!d || !d->d_buf || off >= d->d_size)
		return NULL;
	p = (const char *)d->d_buf + off;
	return memchr(p, '\0', d->d_size - off) ? p : NULL;
}

struct ko_walk {
	struct session *s;
	struct relocs *r;
	int64_t class_off, sys_off;
	struct strmap *out;
};

static void ko_event(void *arg, const GElf_Sym *sym, const char *n)
{
	struct ko_walk *w = arg;
	size_t call_sec, cls_sec, str_sec;
	uint64_t call, cls, str;
	const char *sys;

	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT ||
	    strncmp(n, "__event_", 8) != 0 || sym->st_shndx == SHN_UNDEF ||
	    sym->st_shndx >= SHN_LORESERVE ||
	    !follow(w->r, sym->st_shndx, sym->st_value, &call_sec, &call) ||
	    !follow(w->r, call_sec, call + (uint64_t)w->class_off,
		    &cls_sec, &cls) ||
	    !follow(w->r, cls_sec, cls + (uint64_t)w->sys_off, &str_sec, &str) ||
	    !(sys = string_at(w->r->elf, str_sec, str)) || !*sys)
		return;
	strmap_add(&w->s->arena, w->out, arena_strdup(&w->s->arena, n + 8),
		   arena_strdup(&w->s->arena, sys));
}

void dwarf_ko_event_systems(struct session *s, const char *path,
			    int64_t class_off, int64_t sys_off,
			    struct strmap *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct relocs r = { 0 };
	struct ko_walk w = { s, &r, class_off, sys_off, out };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!r.elf || !gelf_getehdr(r.elf, &eh) || eh.e_type != ET_REL)
		goto out;
	while (!r.syms && (scn = elf_nextscn(r.elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			r.syms = elf_getdata(scn, NULL);
	}
	if (!r.syms)
		goto out;
	load_relocs(&r);
	dwarf_each_symbol(r.elf, ko_event, &w);
out:
	free(r.v);
	if (r.elf)
		elf_end(r.elf);
	close(fd);
}
