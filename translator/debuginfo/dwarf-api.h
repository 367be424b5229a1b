/* dwarf-api.h - translator/debuginfo/: kernel debuginfo for the DWARF probes (pass 2), through
 * elfutils libdw.
 *
 *   dwarf.c        the target kernel's debuginfo (Debian's -dbg vmlinux,
 *                  module .ko files), the function index (cached per
 *                  kernel), matching kernel.function/module().function/
 *                  kernel.statement points to probe sites, blacklists
 *   dwarf-types.c  C types: names as stap -L spells them, members,
 *                  sizes, @cast type lookup
 *   dwarf-vars.c   variables at a probe site, location expressions, the
 *                  target-variable accesses below, @cast, @var
 *   dwarf-walk.c   a probe's body: @defined folded, $$vars and pretty
 *                  printing rewritten, every access resolved
 *   dwarf-print.c  the -L variables and the -p2 printout
 *
 * Pass 2 resolves every $var, $var->field chain, @cast, @var, $$vars and
 * $return of a DWARF probe's body into a struct dwarf_access, hung on the
 * expression node (struct expr.ref). Pass 3 turns each into C; nothing in
 * it needs libdw. $$vars, $$parms, $$locals, $$return and pretty printing
 * ($var$, $var$$) are rewritten in the tree into sprintf() calls over
 * plain target accesses, as SystemTap does, so pass 3 sees only
 * E_TARGET/E_CAST/E_ATVAR nodes with a dwarf_access.
 *
 * (Not named dwarf.h: that is elfutils' header of DW_* constants, which
 * the translator's -I path would shadow.)
 */
#ifndef TAPIR_DWARF_API_H
#define TAPIR_DWARF_API_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <libelf.h>

struct session;
struct elab;
struct dprobe;
struct expr;
struct chain;
struct stmt;
struct dwarf_ctx;		/* per session: open files, indexes */
struct dwarf_unit;		/* one debuginfo file: vmlinux or a module */

/* ---- probe sites ---- */

/* One place a kernel.function / module().function / kernel.statement
 * point resolves to: an out-of-line function, one inline instance of a
 * function, or a statement (a line). Addresses are link-time addresses of
 * the debuginfo file (vmlinux: before KASLR; a module: its .text at 0). */
struct dwarf_site {
	const char *module;	/* "kernel" or the module's name */
	const char *function;	/* "vfs_read" */
	const char *decl_file;	/* "fs/read_write.c" */
	int decl_line;		/* 450 */
	int line;		/* statement probes: the line probed, label
				 * probes: the label's line, else 0 */
	const char *label;	/* .label probes: the label's name (a
				 * symbol without DWARF: the pattern, its
				 * entry probed as stap does) */
	const char *cu;		/* the compile unit's name */
	uint64_t entry_pc;	/* the function's (or instance's) entry */
	uint64_t prologue_pc;	/* after the prologue (line table; entry_pc
				 * when the line table says nothing) */
	uint64_t pc;		/* where the probe goes and $vars are read:
				 * entry_pc for optimized code as SystemTap
				 * does (gcc's location lists are exact
				 * there), prologue_pc for -O0 code, the
				 * line's address for statements */
	uint64_t var_pc;	/* where location lists are looked up: pc,
				 * or for a function entry on its 5-byte
				 * call to __fentry__, just past it (gcc
				 * starts the lists there; the registers
				 * are the same on both sides) */
	/* the same address for the kernel-core: symbol + offset (modules
	 * and the kernel), and base + offset (the kernel: _stext). The
	 * dprobe's symbol is set only when symbol_offset is 0 (a function
	 * entry); its address stays 0 (that field means .absolute) */
	const char *symbol;	/* the function symbol containing pc */
	uint64_t symbol_offset;
	const char *reloc_base;	/* "_stext" or the module's ".text" */
	uint64_t reloc_offset;
	bool inlined;		/* an inline instance */
	const struct dwarf_site *caller;	/* .callee(...): the site it
						 * is inlined in, else NULL */
	bool is_return;		/* a .return probe */
	bool blacklisted;	/* refused by the kernel's kprobe blacklist
				 * (NOKPROBE_SYMBOL, __kprobes, noinstr,
				 * entry text): registration will fail */
	bool exported;		/* a global function (DW_AT_external): what
				 * stap's .exported selects */
	bool optimized;		/* the CU was built with -O (gcc) */
	/* a tracepoint (kernel.trace): the site is the tracepoint's
	 * iterator __traceiter_NAME(void *__data, ARGS), whose parameters
	 * after __data name and type ARGS; the probe is no kprobe, and
	 * ARGS are read from the slots the handler stores them in (struct
	 * trace_arg), not from the iterator's locations */
	const char *tracepoint;		/* "sched_switch", or NULL */
	const char *tp_system;		/* "sched" */
	const struct trace_arg *targs;
	int ntargs;
	int nslots;			/* 8-byte slots of all ARGS */
	bool btf;			/* from BTF, not DWARF (btf-api.h):
					 * no unit, file, line or DIEs */
	void *btf_split;		/* a module's BTF (struct btf *, split
					 * over the kernel's), NULL: the
					 * kernel's */
	const char *btf_ko;		/* else a module's .ko, whose BTF is
					 * parsed on first need (a site from
					 * the tracepoints cache) */
	uint32_t btf_ret;		/* a BTF function's return type (0:
					 * void); its targs' slot is the
					 * DWARF number of the argument's
					 * register */
	/* internal: where to find the DIEs again */
	struct dwarf_unit *unit;
	uint64_t die;		/* subprogram or inlined_subroutine */
	uint64_t fn_die;	/* the subprogram holding the abstract names */
	uint64_t cu_die;
	uint64_t top_die;	/* the CU's child holding die (== die for a
				 * function) */
	uint64_t scope_die;	/* a label: the DIE holding it (die or a
				 * lexical block in it): its $vars are
				 * those of its scopes and of the blocks
				 * inside it around pc (as stap: not only
				 * the blocks around pc); else 0 */
};

/* One argument of a tracepoint, as the handler declares and stores it:
 * each takes whole 8-byte slots of an array whose address the handler
 * gives its probe (the probe's c->data); pass 2 reads an argument as
 * memory at that array plus 8 * slot, through register 7 (sp) of a
 * struct pt_regs whose sp the handler points at the array. */
struct trace_arg {
	const char *name;	/* "prev" */
	const char *ctype;	/* the prototype's type, the same ABI class
				 * and size as the argument's own: "void *",
				 * "bool", "u32", "s64", "struct tpg_blob_16" */
	unsigned size;		/* bytes */
	unsigned slot;		/* its first slot */
	uint32_t btf_type;	/* from BTF (btf-api.h): its type id */
	/* from BTF, what reading the whole argument gives, known without
	 * the BTF (btf_arg_access()): */
	enum { TARG_UNKNOWN, TARG_SCALAR, TARG_AGGREGATE } kind;
	bool value_signed, value_pointer;
	unsigned value_size;
	const char *type_name;	/* "struct task_struct*", or NULL */
};

/* What a point asks for. */
struct dwarf_query {
	const char *module;	/* NULL: the kernel; else a glob */
	const char *user;	/* set: this user-space program's DWARF
				 * (dwarf_user_unit), module unused */
	const char *function;	/* glob */
	const char *file;	/* glob or NULL */
	int line_lo, line_hi;	/* 0: none; "file:N" or "file:N-M" */
	bool line_any;		/* "file:*" */
	bool statement;		/* kernel.statement */
	const char *label;	/* .label("PAT"): a glob, or NULL */
	bool call, inline_only, exported, is_return;
	bool tracepoints;	/* iterators of tracepoints: no kprobe goes
				 * there, so no blacklist applies */
};

/* A user-space program's own debuginfo as a unit, named by its path
 * (process probes, providers/process.c); NULL without DWARF. */
struct dwarf_unit *dwarf_user_unit(struct session *s, const char *path);
char *dwarf_user_debugfile(const char *path);

/* The target's debuginfo is there (the kernel's, or the module's). */
bool dwarf_available(struct session *s, const char *module);
/* The package that holds the kernel's debuginfo: "linux-image-R-dbg". */
const char *dwarf_package(struct session *s);
/* The kernel's debuginfo (vmlinux) as an ELF file, NULL without it. */
Elf *dwarf_kernel_elf(struct session *s);

/* Sites matching q, in CU and DIE order. Returns the count (sites in
 * *out, arena-allocated), or -1 after setting *why (no debuginfo, no
 * such module). 0 sites: *why may say why (blacklisted). */
int dwarf_find_sites(struct session *s, const struct dwarf_query *q,
		     struct dwarf_site ***out, const char **why);

/* The inline callees matching the glob pat (a name) inside the callers'
 * code (.callee(PAT)), depth levels down (.callees(N)), in DIE order,
 * each with its caller; q says .return. Returns the count (sites in
 * *out, arena-allocated). */
int dwarf_find_callees(struct session *s, const struct dwarf_query *q,
		       struct dwarf_site *const *callers, int ncallers,
		       const char *pat, int depth, struct dwarf_site ***out);

/* Parse "func@file:line" into q (function, file, line fields). false
 * with *why for a malformed one. */
bool dwarf_parse_pattern(struct session *s, const char *pat,
			 struct dwarf_query *q, const char **why);

/* Tracepoints whose name matches the glob, from the debuginfo of
 * the kernel (module: NULL) or of a module: one site each (sorted by
 * name, prototype filled in). -1 with *why when the debuginfo is not
 * there. */
int dwarf_tracepoints(struct session *s, const char *module,
		      const char *glob, struct dwarf_site ***out,
		      const char **why);
/* The debuginfo's site of a tracepoint found in the BTF (btf set), its
 * system kept; NULL when that debuginfo is not there. */
const struct dwarf_site *dwarf_tracepoint_site(struct session *s,
					       const struct dwarf_site *btf);

/* The modules whose debuginfo defines tracepoints (*names: theirs,
 * the session's). Returns the count. */
size_t dwarf_tracepoint_modules(struct session *s, const char *const **names);
/* Whether the symbol table of such a module has a tracepoint like
 * glob in a system like sys (or has nothing to say): its debuginfo need
 * not be opened when not. */
bool dwarf_module_may_trace(struct session *s, const char *module,
			    const char *sys, const char *glob);
/* The same among the target's installed modules (/lib/modules/RELEASE,
 * without debuginfo: their BTF), with their paths. */
size_t dwarf_btf_tracepoint_modules(struct session *s,
				    const char *const **names,
				    const char *const **paths);
/* Whether the i-th of those may have a tracepoint named like glob (its
 * symbol table says): its BTF need not be read when not. */
bool dwarf_btf_module_may_trace(struct session *s, size_t i,
				const char *glob);
/* The installed .ko of a module (modules.dep; a .ko.xz decompressed into
 * the cache), or NULL. */
const char *dwarf_installed_module(struct session *s, const char *module);
/* The one trace system a module's symbol table names (the .ko at
 * path), or "". */
const char *dwarf_file_system(struct session *s, const char *module,
			      const char *path);

/* The site's canonical point text without the suffix components:
 * kernel.function("vfs_read@fs/read_write.c:450"). */
const char *dwarf_site_point(struct session *s, const struct dwarf_site *site,
			     bool statement);

/* ---- target-variable accesses: what pass 3 consumes ----
 *
 * An access computes one value with a small machine whose state is
 * either a VALUE (a 64-bit number) or an OBJECT (something in memory at
 * an address):
 *
 *   1. base: the variable's location at the probe pc gives a VALUE
 *      (DWARF_LOC_REG, _VALUE, _CONST) or an OBJECT (DWARF_LOC_MEM);
 *   2. steps, in order:
 *        DEREF   VALUE v: OBJECT at v.  OBJECT at a: load a pointer
 *                (8 bytes on x86_64) from a: OBJECT at it.
 *        OFFSET  OBJECT at a: OBJECT at a + offset (a member, a
 *                constant index times the element size).
 *        INDEX   OBJECT at a: OBJECT at a + index * stride, index being
 *                a script expression (long) evaluated at run time.
 *   3. result:
 *        DWARF_RES_INT       OBJECT: load size bytes; VALUE: take its low
 *                            size bytes; then sign- or zero-extend to 64
 *                            bits (is_signed).
 *        DWARF_RES_BITFIELD  as INT for the containing 'size' bytes, then
 *                            bits [bit_offset, bit_offset + bit_size)
 *                            counted from the least significant bit,
 *                            sign-extended if is_signed.
 *        DWARF_RES_ADDRESS   OBJECT at a: the value is a (&$var, arrays,
 *                            which decay to their address, functions).
 *
 * Every load goes through the runtime's fault-tolerant kernel reads
 * (always kernel memory: @cast(p, "type", "user") is not supported). A
 * write (-g; pass 2 allows DWARF_RES_INT only, not at_entry) stores the
 * low 'size' bytes: into memory for an OBJECT, into the probe's saved
 * register (pt_regs) for a DWARF_LOC_REG base without steps.
 *
 * $return (return probes): base DWARF_LOC_REG with the return register
 * (0, rax), read at return. A parameter read in a return probe has
 * at_entry set: compute it in the kretprobe's entry handler and keep it
 * per instance, as @entry() does.
 */

/* One DWARF expression operation; atom is a DW_OP_* of <dwarf.h>,
 * n1/n2 its operands (as libdw's Dwarf_Op number and number2). */
struct dwarf_op {
	uint8_t atom;
	uint64_t n1, n2;
};

enum dwarf_loc_kind {
	DWARF_LOC_REG,		/* VALUE: register reg */
	DWARF_LOC_MEM,		/* OBJECT at the address ops compute */
	DWARF_LOC_VALUE,	/* VALUE: what ops compute */
	DWARF_LOC_CONST,	/* VALUE: the constant 'value' */
	DWARF_LOC_PIECES,	/* a composite: the variable's bytes are held
				 * in pieces (DW_OP_piece), see below */
};

struct dwarf_piece;

/* The base location at the probe pc. ops is the location-list entry for
 * that pc with the frame base (DW_OP_fbreg over DW_OP_call_frame_cfa)
 * already turned into register arithmetic from the call frame
 * information at the pc, and entry values (DW_OP_entry_value of a
 * register) resolved when the pc is the function's entry. Common shapes
 * are pre-digested: 'simple' means the address (MEM) or the value
 * (VALUE) is register 'reg' plus 'offset' (reg < 0: the constant
 * 'offset' alone). A DW_OP_addr operand is a link-time address; 'reloc'
 * says one is there, and pass 2 names the symbol that locates it at run
 * time: the operand's run-time address is operand - reloc_link +
 * (reloc_sym's run-time address). The kernel's is _stext (the whole
 * image moves by the KASLR offset); a module's is a symbol of the .ko
 * in the same section as the variable ("tapir_testmod:tm_global"), since
 * each section of a module is placed on its own. */
struct dwarf_loc {
	enum dwarf_loc_kind kind;
	int reg;			/* REG, and simple MEM/VALUE */
	int64_t offset;			/* simple MEM/VALUE */
	bool simple;
	bool reloc;			/* ops hold a DW_OP_addr */
	const char *reloc_sym;		/* reloc: "_stext", "mod:sym" */
	uint64_t reloc_link;		/* reloc: reloc_sym's link-time
					 * address (the operands' terms) */
	int64_t value;			/* CONST */
	const struct dwarf_op *ops;	/* MEM, VALUE */
	int nops;
	/* PIECES: the variable's bytes in order, piece by piece (the first
	 * piece holds bytes [0, size0), the next [size0, size0 + size1),
	 * ...). Pass 2 reduces an access to such a variable to a read of
	 * piece_size bytes (1-8) at byte piece_off: leading OFFSET steps
	 * (members, constant indexes) are folded into piece_off and removed
	 * from the steps, and what is read is a VALUE (the bytes of a
	 * member, or a pointer the steps then DEREF). Bytes come from each
	 * piece covering them, little-endian: the low bytes of a register
	 * or a value (shifted down by the offset within the piece), memory
	 * at the piece's address plus that offset. Pass 2 refuses reads
	 * touching an empty piece (optimized out), the address of the
	 * variable, and writes to it. */
	const struct dwarf_piece *pieces;
	int npieces;
	uint64_t piece_off;
	unsigned piece_size;
};

/* One piece of a composite location: 'size' bytes held in 'loc' (REG,
 * MEM, VALUE or CONST, never PIECES), or nowhere (empty: optimized
 * out). Bit pieces (DW_OP_bit_piece) are not supported. */
struct dwarf_piece {
	uint64_t size;
	bool empty;
	struct dwarf_loc loc;
};

enum dwarf_step_kind { DWARF_STEP_DEREF, DWARF_STEP_OFFSET, DWARF_STEP_INDEX };

struct dwarf_step {
	enum dwarf_step_kind kind;
	int64_t offset;			/* OFFSET */
	struct expr *index;		/* INDEX: a long expression */
	uint64_t stride;		/* INDEX */
};

enum dwarf_result { DWARF_RES_INT, DWARF_RES_BITFIELD, DWARF_RES_ADDRESS };

struct dwarf_access {
	const char *text;		/* "$file->f_inode", for messages */
	const struct dwarf_site *site;	/* NULL for @cast outside DWARF
					 * probes */
	struct dwarf_loc base;		/* @cast: unused, see 'cast' */
	const struct expr *cast;	/* @cast(ptr, ...): the base is the
					 * OBJECT at ptr's value */
	bool at_entry;			/* read it at function entry */
	const struct dwarf_step *steps;
	int nsteps;
	enum dwarf_result result;
	unsigned size;			/* bytes loaded (INT, BITFIELD) */
	bool is_signed;
	unsigned bit_offset, bit_size;	/* BITFIELD */
	const char *type;		/* the value's C type, stap spelling */
	bool pointer;			/* the value is a pointer */
	/* autocast: the type of the object the value points at (a
	 * Dwarf_Die, NULL when not a pointer to a known type: void *, a
	 * BTF access), and its name, which decides whether two values
	 * have the same type */
	const void *obj;
	const char *obj_name;
};

/* ---- pass 2 entry points ---- */

/* Resolve the target variables of a DWARF probe's body (p->dwarf set, or
 * a kernel/module function probe without debuginfo, which reports the
 * package to install): @defined folded to 0/1, $$vars and pretty
 * printing rewritten, every remaining access resolved (expr.ref). */
void dwarf_resolve_probe(struct elab *e, struct dprobe *p);
void dwarf_resolve_function(struct elab *e, struct stmt *body);

/* Autocast: a value pointing at the kernel's type (an embedded-C
 * function saying "autocast: struct task_struct"), NULL without the
 * kernel's debuginfo or the type. */
const struct dwarf_access *dwarf_named_type(struct session *s,
					    const char *type);
/* Autocast: resolve x (E_AUTOCAST: x->a's value followed by ->member,
 * [i]) as a @cast of x->a to the object type of 'base', the access whose
 * value x->a carries (base->obj set). p: the probe whose body holds x,
 * NULL in a function. False after an error. */
bool dwarf_autocast(struct elab *e, struct dprobe *p, struct expr *x,
		    const struct dwarf_access *base);

/* -L: " $file:struct file* $buf:char* ..." for the site (and $return
 * first for return probes), as stap -L prints it. */
void dwarf_list_vars(struct session *s, FILE *out,
		     const struct dwarf_site *site);

/* -p2: the probe address as a comment after the probe's name
 * ("pc=_stext+0x34cc50" in comment markers; none for a tracepoint, whose
 * arguments show as memory at sp, the handler's slots), and the resolved
 * accesses of its body under it. */
void dwarf_dump_pc(FILE *out, const struct dwarf_site *site);
void dwarf_dump_targets(FILE *out, const struct dprobe *p);
/* An access in SystemTap's -p2 notation: @kderef(8, (@kregister(5)) + (32)). */
void dwarf_print_access(FILE *out, const struct dwarf_access *a);

/* Free what the session opened. */
void dwarf_free(struct session *s);

/* A user binary's separate debuginfo, by its build ID under
 * /usr/lib/debug/.build-id, or NULL; *fd is its file, open while the
 * result is (emit/emit-usym.c). */
Elf *usym_open_debug(Elf *elf, int *fd);

#endif
