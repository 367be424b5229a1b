/* dwarf-internal.h - state shared by dwarf.c, dwarf-types.c and
 * dwarf-vars.c. */
#ifndef TAPIR_DWARF_INTERNAL_H
#define TAPIR_DWARF_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <regex.h>

#include "dwarf-api.h"
#include "session.h"
#include "strmap.h"

/* One function of the index: a top-level DW_TAG_subprogram that defines
 * code (an out-of-line function, or the abstract root of an inline one,
 * or a concrete out-of-line copy of an inline one). */
struct fn_entry {
	uint32_t name;		/* offset in the string table */
	uint32_t file;		/* index in the file table */
	uint64_t die;		/* DIE offset in .debug_info */
	uint64_t cu;		/* its CU's DIE offset */
	int32_t line;		/* decl line */
	uint32_t flags;		/* FN_* */
	uint64_t entry;		/* FN_CODE: the entry address */
};

enum {
	FN_ABSTRACT = 1,	/* DW_AT_inline: has inline instances */
	FN_CODE = 2,		/* low_pc/ranges: out-of-line code */
	FN_ORIGIN = 4,		/* a concrete copy: die has an abstract origin */
	FN_EXTERNAL = 8,	/* DW_AT_external: a global function */
};

struct fn_index {
	struct fn_entry *v;	/* sorted by name */
	size_t n;
	uint32_t *files;	/* string offsets */
	size_t nfiles;
	char *strs;
	size_t nstrs;
	void *map;		/* the cache file, when mmapped */
	size_t map_len;
	bool built;
};

/* A function symbol of the ELF symbol table. */
struct fsym {
	uint64_t addr, size;
	const char *name;
};

struct range {
	uint64_t lo, hi;	/* [lo, hi) */
};

struct dwarf_unit {
	char *name;		/* "kernel" or the module's name */
	char *path;		/* the debuginfo file */
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwfl *dwfl;		/* modules: relocated through libdwfl */
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	bool cfi_tried;
	bool user;		/* a user-space program (process probes):
				 * named by its path, CFI from .eh_frame */
	bool user_pie;		/* ... loaded anywhere (ET_DYN) */
	struct fn_index idx;
	struct fsym *syms;	/* by address */
	size_t nsyms;
	bool syms_loaded;
	uint64_t *covered;	/* entries of DWARF functions, sorted */
	size_t ncovered;
	bool covered_built;
	struct range *blacklist;	/* the kernel's kprobe blacklist */
	size_t nblacklist;
	uint64_t stext;		/* _stext (kernel) */
	struct dwarf_unit *next;
};

struct dwarf_ctx {
	bool opened;
	struct dwarf_unit *kernel;	/* NULL: no vmlinux debuginfo */
	struct dwarf_unit *modules;
	char **mod_names, **mod_paths;	/* debuginfo modules found */
	size_t nmods;
	bool mods_listed;
	regex_t bl_fn, bl_fn_ret, bl_file, bl_section;
	bool bl_ready;
	struct strmap tp_systems;	/* header file -> its TRACE_SYSTEM */
	struct strmap tp_events;	/* tracepoint -> its event's system */
	bool tp_events_loaded;
	struct btf_ctx *btf;		/* btf.c */
	struct strmap tp_declared;	/* tracepoint -> its header's system */
	bool tp_declared_loaded;
	char **tp_mods;			/* modules defining tracepoints */
	char ***tp_mod_iters;		/* ... their iterators' names */
	char ***tp_mod_sysstrs;		/* ... their systems' strings */
	size_t ntp_mods;		/* (names of mod_names) */
	bool tp_mods_listed;
	char **btf_mod_names, **btf_mod_paths;	/* installed modules */
	char **btf_mod_found;			/* with tracepoints (names, */
	char ***btf_mod_iters;			/* plain files, files found, */
	size_t nbtf_mods;			/* their tracepoints) */
	bool btf_mods_listed;
	struct strmap tp_mod_systems;	/* module -> its one system, or "" */
	bool tp_mod_systems_loaded;	/* ... from the cache (tpsys.c) */
	struct tpsys *tpsys;		/* tpsys.c */
};

struct dwarf_ctx *dwarf_ctx(struct session *s);
struct dwarf_unit *dwarf_unit_for(struct session *s, const char *module);
/* The module unit named exactly, or NULL. */
const char *dwarf_strip_prefix(const char *file);

/* kmod.c: is name a compressed module (NAME.ko.xz)? */
bool kmod_compressed(const char *name);
/* The plain ELF file to read for the module file at path (malloc'd):
 * path itself, or its decompressed copy in the cache, made once. With
 * want, a copy is kept only when want(image, size) holds for the
 * decompressed image; else NULL, then and on every later call for the
 * same file. NULL too when it cannot be decompressed. */
char *kmod_file(const char *path, bool (*want)(void *image, size_t size));

/* dwarf.c */
struct sha256;
/* Hash the format's name, the release and the identities of its
 * installed modules (modules.dep, which depmod rewrites, and their
 * folder). */
void dwarf_hash_modules(struct session *s, struct sha256 *h,
			const char *format);
/* fn on the ELF file at path, read through a mapping (elf NULL when it
 * is not one); false when the file cannot be opened. */
bool dwarf_with_elf(const char *path, bool (*fn)(Elf *elf, void *arg),
		    void *arg);
/* CACHE/dwarf/NAME-HASH.EXT, HASH that of h (finished), malloc'd. */
char *dwarf_cache_file(struct sha256 *h, const char *name, const char *ext);
/* Write a file of the cache (its folders made); a failure only costs
 * time (said with -v). */
void dwarf_cache_write(struct session *s, const char *path, const void *buf,
		       size_t len);
const struct fsym *dwarf_symbol_at(struct dwarf_unit *u, uint64_t addr);
/* dwarf-trace.c: the kernel's source tree (its trace headers), or NULL */
const char *dwarf_source_tree(struct session *s);
/* tpsys.c: the trace systems cache. Fill into with the cached map NAME
 * (true), else leave it to the caller to fill (false); either way into
 * is what is written back when the session ends. */
bool dwarf_tpsys_load(struct session *s, const char *name,
		      struct strmap *into);
/* The cached map NAME itself, *hit true, else an empty one for the caller
 * to fill (*hit false); either way the map written back. For a large
 * map, which dwarf_tpsys_load() would copy. */
struct strmap *dwarf_tpsys_map(struct session *s, const char *name,
			       bool *hit);
/* A map given to dwarf_tpsys_load() has grown: write it back. */
void dwarf_tpsys_changed(struct session *s);
/* Write the cache if it changed, and free it (dwarf_free()). */
void dwarf_tpsys_save(struct session *s);
/* dwarf-trace.c: tracepoint -> its event's system, from a vmlinux's
 * __event_NAME symbols (offsets of trace_event_call.class and
 * trace_event_class.system) */
void dwarf_event_systems(struct session *s, Elf *elf, int64_t class_off,
			 int64_t sys_off, struct strmap *out);
/* ko-events.c: the same for the module (ET_REL .ko) at path, through
 * its relocations */
void dwarf_ko_event_systems(struct session *s, const char *path,
			    int64_t class_off, int64_t sys_off,
			    struct strmap *out);
/* fn(arg, sym, name) for every named symbol of elf's symbol table
 * (dwarf-trace.c) */
void dwarf_each_symbol(Elf *elf, void (*fn)(void *arg, const GElf_Sym *sym,
						   const char *name),
		       void *arg);
/* "u32", "s64": a tracepoint prototype's integer type (dwarf-trace.c) */
const char *dwarf_int_ctype(int64_t size, bool is_signed);
/* The system of a tracepoint declared without an event (DECLARE_TRACE)
 * in the kernel's include/trace/events/ headers, or NULL. */
const char *dwarf_declared_system(struct session *s, const char *name);
/* n bytes at a link-time address of the vmlinux (ET_EXEC) */
bool dwarf_read_addr(Elf *elf, uint64_t addr, void *buf, size_t n);
Dwarf_CFI *dwarf_unit_cfi(struct dwarf_unit *u);

/* dwarf-types.c */
/* The C spelling of a type DIE as stap prints it ("struct file*"). */
const char *dwt_name(struct session *s, Dwarf_Die *type);
/* Strip typedefs and cv-qualifiers. */
bool dwt_peel(Dwarf_Die *type, Dwarf_Die *out);
/* A member of a struct/union type (peeled), looking into anonymous
 * members; adds its offset to *offset. */
bool dwt_member(Dwarf_Die *type, const char *name, Dwarf_Die *member,
		int64_t *offset);
/* Comma-separated member names of a struct/union, for messages. */
const char *dwt_member_names(struct session *s, Dwarf_Die *type);
/* A type named name ("task_struct", "struct file", "size_t") in the
 * unit, preferring CU cu when given. */
bool dwt_find(struct session *s, struct dwarf_unit *u, const char *name,
	      Dwarf_Die *out);
int64_t dwt_size(Dwarf_Die *type);

/* dwarf-vars.c: variables and accesses at a site, for dwarf-walk.c and
 * dwarf-print.c */
struct elab;
struct dprobe;
struct expr;
struct chain;
struct loc;

struct vctx {
	struct elab *e;
	struct session *s;
	struct dprobe *p;
	const struct dwarf_site *site;	/* NULL: no debuginfo here */
	struct dwarf_unit *u;
	Dwarf_Die *scopes;		/* innermost first, the CU last */
	int nscopes;
	Dwarf_Die func;			/* the function holding pc */
	bool have_func;
	bool in_entry;			/* inside @entry() */
	bool atvar;			/* resolving @var("name"): the CU's
					 * globals only, read where the
					 * probe is (no implicit @entry) */
	bool trial;			/* @defined: say nothing */
	bool failed;			/* the trial failed */
	const struct expr *defer;	/* the probe body's access being
					 * resolved: its errors wait
					 * (struct deferred_error) */
};

void ctx_init(struct vctx *v, struct elab *e, struct dprobe *p);
void ensure_scopes(struct vctx *v);	/* v->scopes, on first need */
void verr(struct vctx *v, const struct loc *l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "near pc 0x... in FUNC FILE (probe point ...)" */
const char *where(struct vctx *v);
/* fn(var, arg) for each variable of the first n scopes (not the CU's),
 * innermost first; stops when fn returns true */
bool each_var(Dwarf_Die *scopes, int n,
	      bool (*fn)(Dwarf_Die *var, void *arg), void *arg);
const char *die_name(Dwarf_Die *d);
bool traceiter(Dwarf_Die *d);	/* a tracepoint's __traceiter_NAME */
bool die_type(Dwarf_Die *d, Dwarf_Die *t);
bool find_var(struct vctx *v, const char *name, Dwarf_Die *out);
const char *alternatives(struct vctx *v);	/* "$file, $buf, ..." */
/* var's location expression at pc: 1, 0 none there, -1 none at all */
int var_ops(Dwarf_Die *var, Dwarf_Addr pc, Dwarf_Attribute *attr,
	    Dwarf_Op **ops, size_t *nops);
Dwarf_Addr entry_var_pc(const struct dwarf_site *s);
bool signed_type(Dwarf_Die *t);
bool is_aggregate(int tag);
char *chain_text(const char *head, const struct chain *c);	/* malloc */
/* $name with its chain (and &), @cast(...), @var(...): NULL after a
 * diagnostic (none in a trial) */
struct dwarf_access *target(struct vctx *v, const char *name,
			    const struct chain *chain, bool addr,
			    const struct loc *l);
struct dwarf_access *cast(struct vctx *v, struct expr *x);
struct dwarf_access *atvar(struct vctx *v, struct expr *x);
/* x (E_AUTOCAST) as a @cast of x->a to base's object type */
struct dwarf_access *autocast(struct vctx *v, struct expr *x,
			      const struct dwarf_access *base);

#endif
