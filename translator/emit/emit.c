/* emit.c - pass 3: the program as C for the module runtime (emit.h).
 *
 * Layout of the generated file:
 *   #include "runtime/tapir.h", helpers of the generated code (tpg_*)
 *   the tapsets' top-level %{ %} blocks (and the script's, with -g)
 *   globals: values, map and statistics descriptors, one lock each
 *   frames: every probe's and function's locals and temporaries; the
 *     per-CPU area c->locals holds one probe frame and MAXNESTING
 *     function frames, so recursion works (a function at call depth d
 *     uses fn[d - 1])
 *   functions fn_NAME(c): arguments and return value in their frame; the
 *     caller checks MAXNESTING, fills the frame, counts the depth
 *   probe handlers probe_N(c), each with a banner naming its location
 *   the probe table, init/free of the globals, `tapir_module`
 *
 * Failures set c->last_error (and c->last_stmt, the "near" text) and
 * return from the body, or jump to the enclosing try's catch; a caller
 * checks c->last_error after each call that can fail.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "emit-internal.h"
#include "providers/provider.h"
#include "xalloc.h"

/* ---- small helpers ---- */

const char *em_printf(struct em *em, const char *fmt, ...)
{
	va_list ap;
	char small[256], *buf;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory();
	if ((size_t)n < sizeof(small))
		return arena_strndup(&em->s->arena, small, (size_t)n);
	buf = arena_alloc(&em->s->arena, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(buf, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return buf;
}

void em_error(struct em *em, const struct loc *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(em->s, l, "semantic error", fmt, ap);
	va_end(ap);
	em->s->errors++;
	em->errors++;
}

/* Pointer-keyed map (open addressing) from AST symbols and functions to
 * the emitter's records. */
static size_t phash(const void *p, size_t cap)
{
	uintptr_t v = (uintptr_t)p;

	v ^= v >> 17;
	v *= 0x9e3779b97f4a7c15ull;
	return (size_t)(v >> 20) & (cap - 1);
}

static void em_insert(struct em *em, const void *key, void *val)
{
	size_t i;

	if ((em->pcount + 1) * 2 > em->pcap) {
		const void **ok = em->pkeys;
		void **ov = em->pvals;
		size_t ocap = em->pcap;

		em->pcap = em->pcap ? em->pcap * 2 : 64;
		em->pkeys = xcalloc(em->pcap, sizeof(*em->pkeys));
		em->pvals = xcalloc(em->pcap, sizeof(*em->pvals));
		em->pcount = 0;
		for (size_t j = 0; j < ocap; j++)
			if (ok[j])
				em_insert(em, ok[j], ov[j]);
		free(ok);
		free(ov);
	}
	for (i = phash(key, em->pcap); em->pkeys[i]; i = (i + 1) & (em->pcap - 1))
		if (em->pkeys[i] == key) {
			em->pvals[i] = val;
			return;
		}
	em->pkeys[i] = key;
	em->pvals[i] = val;
	em->pcount++;
}

void *em_lookup(struct em *em, const void *key)
{
	if (!em->pcap || !key)
		return NULL;
	for (size_t i = phash(key, em->pcap); em->pkeys[i];
	     i = (i + 1) & (em->pcap - 1))
		if (em->pkeys[i] == key)
			return em->pvals[i];
	return NULL;
}

struct gvar *em_global(struct em *em, const struct symbol *sym)
{
	return sym && sym->global ? em_lookup(em, sym) : NULL;
}

struct fninfo *em_fn(struct em *em, const struct function *fn)
{
	return em_lookup(em, fn);
}

/* A C identifier from prefix and a script name, unique in the file. */
static const char *cname(struct em *em, const char *prefix, const char *name)
{
	const char *c = em_printf(em, "%s%s", prefix, name);
	int n = 1;

	for (;;) {
		bool taken = false;

		for (int i = 0; i < em->ncnames; i++)
			if (strcmp(em->cnames[i], c) == 0) {
				taken = true;
				break;
			}
		if (!taken)
			break;
		c = em_printf(em, "%s%s_%d", prefix, name, ++n);
	}
	if (em->ncnames == em->capcnames) {
		em->capcnames = em->capcnames ? em->capcnames * 2 : 64;
		em->cnames = xrealloc(em->cnames, (size_t)em->capcnames *
				      sizeof(*em->cnames));
	}
	em->cnames[em->ncnames++] = c;
	return c;
}

/* A C string literal holding the len bytes of s. */
const char *c_string(struct em *em, const char *s, size_t len)
{
	char *buf = xmalloc(len * 4 + 3), *p = buf;
	const char *r;

	*p++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (ch) {
		case '"': *p++ = '\\'; *p++ = '"'; break;
		case '\\': *p++ = '\\'; *p++ = '\\'; break;
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		default:
			/* "??" could start a trigraph in some C modes */
			if (ch < 32 || ch >= 127 ||
			    (ch == '?' && i > 0 && s[i - 1] == '?')) {
				p += sprintf(p, "\\%03o", ch);
			} else {
				*p++ = (char)ch;
			}
		}
	}
	*p++ = '"';
	*p = '\0';
	r = arena_strdup(&em->s->arena, buf);
	free(buf);
	return r;
}

const char *loc_text(struct em *em, const struct loc *l)
{
	if (!l || !l->file)
		return "<unknown>";
	return em_printf(em, "%s:%d:%d", l->file->name, l->line, l->col);
}

/* SystemTap's way of naming a token in messages: "identifier 'x' at
 * t.stp:1:2", "keyword at t.stp:1:2" (keywords show no text). */
const char *near_text(struct em *em, const char *kind, const char *text,
		      const struct loc *l)
{
	char *t;

	if (!text)
		return em_printf(em, "%s at %s", kind, loc_text(em, l));
	t = arena_strdup(&em->s->arena, text);
	for (char *p = t; *p; p++)
		if ((unsigned char)*p < 32 || (unsigned char)*p >= 127)
			*p = '?';
	return em_printf(em, "%s '%s' at %s", kind, t, loc_text(em, l));
}

/* ---- output of a body ---- */

void out(struct body *b, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < b->ind; i++)
		fputc('\t', b->o);
	va_start(ap, fmt);
	vfprintf(b->o, fmt, ap);
	va_end(ap);
	fputc('\n', b->o);
}

void out_raw(struct body *b, const char *text)
{
	fputs(text, b->o);
}

/* Emit into a side buffer, e.g. to learn whether an operand needs
 * statements of its own. */
void capture_begin(struct body *b, FILE **saved, char **buf, size_t *len)
{
	*saved = b->o;
	*buf = NULL;
	*len = 0;
	b->o = open_memstream(buf, len);
	if (!b->o)
		out_of_memory();
}

char *capture_end(struct body *b, FILE *saved, char **buf, size_t *len)
{
	fclose(b->o);
	b->o = saved;
	(void)len;
	return *buf;
}

/* Captured text, one level deeper. */
void out_captured(struct body *b, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (n > 1)
			fputc('\t', b->o);
		fwrite(p, 1, n, b->o);
		p += n;
	}
}

const char *tmp_new(struct body *b, enum tmp_kind k)
{
	static const char prefix[TMP__COUNT] = { 'l', 's', 'p', 'c', 'a' };
	int n = b->ntmp[k]++;

	if (b->ntmp[k] > b->maxtmp[k])
		b->maxtmp[k] = b->ntmp[k];
	return em_printf(b->em, "l->__%c%d", prefix[k], n);
}

/* Makes (*sizes)[k] at least n, the array grown to hold index k. */
static void tmp_size(int **sizes, int *cap, int k, int n)
{
	if (k >= *cap) {
		*sizes = xrealloc(*sizes, (size_t)(k + 8) * sizeof(**sizes));
		for (int i = *cap; i < k + 8; i++)
			(*sizes)[i] = 0;
		*cap = k + 8;
	}
	if (n > (*sizes)[k])
		(*sizes)[k] = n;
}

/* A merged-cell temporary big enough for g's cells. */
const char *cell_tmp(struct body *b, const struct gvar *g)
{
	const struct expr *h = g->sym->hist;
	int words = 0;

	if (h && h->op == HIST_LOG) {
		words = 128;
	} else if (h) {
		int64_t lo = h->args->num, hi = h->args->next->num,
			w = h->args->next->next->num;

		words = w > 0 && hi > lo ? (int)((hi - lo) / w + 3) : 3;
	}
	tmp_size(&b->cellwords, &b->ncellcap, b->ntmp[TMP_CELL], words);
	return tmp_new(b, TMP_CELL);
}

const char *args_tmp(struct body *b, int n)
{
	tmp_size(&b->argcount, &b->nargcap, b->ntmp[TMP_ARGS], n);
	return tmp_new(b, TMP_ARGS);
}

void err_jump(struct body *b)
{
	if (b->err) {
		b->err->used = true;
		out(b, "goto %s;", b->err->label);
	} else {
		out(b, "return;");
	}
}

static void use_level(struct body *b, const struct gvar *g, unsigned char v)
{
	if (g && b->use[g->index] < v)
		b->use[g->index] = v;
}

/* A read of a statistics array excludes the probes adding to it (they
 * share its lock: use_global_add), so it takes the lock exclusively. */
void use_global(struct body *b, const struct gvar *g, bool write)
{
	use_level(b, g, write || (g && g->sym->type == TYPE_STATS &&
				  g->sym->arity > 0) ? 2 : 1);
}

/* a[k] <<< v: shared, as stap's per-CPU aggregates (the map's add_lock
 * orders the adds) */
void use_global_add(struct body *b, const struct gvar *g)
{
	use_level(b, g, 1);
}

/* ---- the C of a body ---- */

const char *local_ref(struct body *b, const struct symbol *sym)
{
	return em_printf(b->em, "l->l_%s", sym->name);
}

static struct body *body_new(struct em *em, const char *name)
{
	struct body *b = xcalloc(1, sizeof(*b));

	b->em = em;
	b->name = name;
	b->o = open_memstream(&b->text, &b->len);
	if (!b->o)
		out_of_memory();
	b->ind = 1;
	b->use = xcalloc((size_t)em->nglobals + 1, 1);
	return b;
}

static void body_close(struct body *b)
{
	fclose(b->o);
	b->o = NULL;
}

/* The locals are listed newest first: these give declaration order. */
static int nlocals(const struct body *b)
{
	int n = 0;

	for (const struct symbol *l = b->locals; l; l = l->next)
		n++;
	return n;
}

static const struct symbol *local_at(const struct body *b, int i)
{
	const struct symbol *l = b->locals;

	while (i-- > 0)
		l = l->next;
	return l;
}

static void frame_member(FILE *o, enum vtype t, const char *name)
{
	if (t == TYPE_STRING)
		fprintf(o, "\tchar %s[MAXSTRINGLEN];\n", name);
	else
		fprintf(o, "\ts64 %s;\n", name);
}

/* The frame struct of a body; false when it has nothing to hold. */
static bool frame_struct(struct em *em, struct body *b, FILE *o)
{
	bool any = false;
	const struct fninfo *fi = b->fn;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		out_of_memory();
	if (fi)
		for (const struct symbol *p = fi->fn->params; p; p = p->next) {
			frame_member(m, p->type, em_printf(em, "l_%s", p->name));
			any = true;
		}
	for (int i = nlocals(b) - 1; i >= 0; i--) {
		const struct symbol *l = local_at(b, i);

		if (l->type == TYPE_UNKNOWN || l->type == TYPE_STATS)
			continue;
		frame_member(m, l->type, em_printf(em, "l_%s", l->name));
		any = true;
	}
	if (fi && fi->type != TYPE_UNKNOWN) {
		frame_member(m, fi->type, "__retvalue");
		any = true;
	}
	if (fi && fi->uses_next) {
		fprintf(m, "\tbool __next;\n");
		any = true;
	}
	for (int i = 0; i < b->maxtmp[TMP_LONG]; i++, any = true)
		fprintf(m, "\ts64 __l%d;\n", i);
	for (int i = 0; i < b->maxtmp[TMP_STR]; i++, any = true)
		fprintf(m, "\tchar __s%d[MAXSTRINGLEN];\n", i);
	for (int i = 0; i < b->maxtmp[TMP_PTR]; i++, any = true)
		fprintf(m, "\tconst char *__p%d;\n", i);
	for (int i = 0; i < b->maxtmp[TMP_CELL]; i++, any = true)
		fprintf(m, "\ts64 __c%d[sizeof(struct tp_stat_cell) / sizeof(s64) "
			"+ %d];\n", i, b->cellwords[i]);
	for (int i = 0; i < b->maxtmp[TMP_ARGS]; i++, any = true)
		fprintf(m, "\tstruct tp_arg __a%d[%d];\n", i, b->argcount[i]);
	fclose(m);
	if (any)
		fprintf(o, "struct %s_locals {\n%s};\n\n", b->name, buf);
	free(buf);
	return any;
}

/* Zero the script's locals at entry, as SystemTap does. */
static void init_locals(struct body *b, FILE *o)
{
	for (int i = nlocals(b) - 1; i >= 0; i--) {
		const struct symbol *l = local_at(b, i);

		if (l->type == TYPE_STRING)
			fprintf(o, "\tl->l_%s[0] = '\\0';\n", l->name);
		else if (l->type == TYPE_LONG)
			fprintf(o, "\tl->l_%s = 0;\n", l->name);
	}
}

/* The action check of a loop-free body: SystemTap charges nothing, it
 * only checks that the whole body fits in what is left. */
static void upfront_check(struct body *b, FILE *o)
{
	if (b->flush_mode || b->total <= 0)
		return;
	fprintf(o, "\tif (unlikely(c->actions > c->max_actions - %d)) {\n"
		"\t\tc->last_error = \"MAXACTION exceeded\";\n"
		"\t\treturn;\n\t}\n", b->total);
}

/* Emit a function's body (once; callees first, so that loop-free ones
 * know what a call costs). */
void em_emit_function(struct em *em, struct fninfo *fi)
{
	struct body *b;
	const struct decl *d = fi->fn->decl;

	if (fi->state)
		return;
	fi->state = 1;
	b = body_new(em, fi->cname);
	b->fn = fi;
	b->locals = fi->fn->locals;
	fi->body = b;
	if (fi->embedded) {
		fi->actions = 0;
		fi->state = 2;
		body_close(b);
		return;
	}
	b->flush_mode = fi->has_loops;
	emit_stmt(b, d->body);
	if (b->flush_mode)
		record_actions(b, 0, stmt_near(em, d->body), true);
	fi->actions = b->flush_mode ? 0 : b->total;
	body_close(b);
	fi->state = 2;
}

/* The functions the probes reach, the only ones written out. */
static void mark_called(struct body *b)
{
	for (int i = 0; i < b->ncalls; i++) {
		struct fninfo *fi = b->calls[i];

		if (fi->called)
			continue;
		fi->called = true;
		if (fi->body)
			mark_called(fi->body);
	}
}

/* ---- the parts of the file ---- */

static void preamble(struct em *em, bool kprobes, FILE *o)
{
	fprintf(o, "/* Generated by Tapir from %s: the C of the script's "
		"probes for the module\n * runtime (runtime/tapir.h). */\n",
		em->prog->user->file ? em->prog->user->file->name : "<input>");
	fputs("#include \"runtime/tapir.h\"\n", o);
	/* kprobes get their own handlers (own_kprobe_handler()), and
	 * tracepoint probes theirs (emit-trace.c) */
	if (kprobes)
		fputs("#include \"runtime/entry.h\"\n", o);
	fputc('\n', o);
	fputs("#define TPG_FRAMES(c) ((struct tp_frames *)(c)->locals)\n"
	      "#define TPG_LARG(v) { .type = TP_ARG_LONG, .l = (v) }\n"
	      "#define TPG_SARG(v) { .type = TP_ARG_STRING, .s = (v) }\n"
	      "#define TPG_LKEY(v) { .l = (v) }\n"
	      "#define TPG_SKEY(v) { .s = (v) }\n\n", o);
	fputs("/* Charge n statements to the hit (c->max_actions of them: "
	      "MAXACTION_INTERRUPTIBLE,\n * as SystemTap 4.8 gives every "
	      "handler); true when MAXACTION is exceeded. */\n"
	      "static inline bool tpg_actions(struct tp_context *c, long n, "
	      "const char *near)\n{\n"
	      "\tc->actions += n;\n"
	      "\tif (likely(c->actions < c->max_actions))\n"
	      "\t\treturn false;\n"
	      "\tc->last_error = \"MAXACTION exceeded\";\n"
	      "\tc->last_stmt = near;\n"
	      "\treturn true;\n}\n\n", o);
	fputs("/* Division and modulo of non-zero b, wrapping: S64_MIN / -1 "
	      "is S64_MIN\n * (the CPU would trap). */\n"
	      "static inline s64 tpg_div(s64 a, s64 b)\n{\n"
	      "\treturn b == -1 ? (s64)(0 - (u64)a) : div64_s64(a, b);\n}\n\n"
	      "static inline s64 tpg_mod(s64 a, s64 b)\n{\n"
	      "\treturn b == -1 ? 0 : a - div64_s64(a, b) * b;\n}\n\n", o);
}

/* A top-level block may define helpers and per-CPU data for functions
 * the script does not call: not worth a warning. */
static bool embedded_block(struct em *em, const struct decl *d, FILE *o)
{
	fprintf(o, "/* %%{ from %s */\n"
		"#pragma GCC diagnostic push\n"
		"#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
		"#pragma GCC diagnostic ignored \"-Wunused-function\"\n"
		"%s\n"
		"#pragma GCC diagnostic pop\n\n", loc_text(em, &d->loc), d->code);
	return true;
}

/* The top-level %{ %} blocks: every tapset file that joined the program,
 * then the script's own; fn on each, until it returns false. */
static bool each_block(struct em *em,
		       bool (*fn)(struct em *, const struct decl *, FILE *),
		       FILE *o)
{
	const struct tapset_index *idx = em->prog->tapsets;

	if (idx)
		for (const struct tapset_file *f = idx->files; f; f = f->next) {
			if (!f->loaded || !f->script)	/* left out */
				continue;
			for (const struct decl *d = f->script->decls; d;
			     d = d->next)
				if (d->kind == D_EMBEDDED && !fn(em, d, o))
					return false;
		}
	for (const struct decl *d = em->prog->user->decls; d; d = d->next)
		if (d->kind == D_EMBEDDED && !fn(em, d, o))
			return false;
	return true;
}

/* "identifier 'f' at FILE:LINE:COL" of a function's name: what an error
 * in it is "near" until a statement of it says otherwise. */
static const char *decl_near(struct em *em, const struct function *fn)
{
	const char *n = near_text(em, "identifier", fn->name, &fn->decl->loc);

	return c_string(em, n, strlen(n));
}

/* The body of an embedded-C function, with SystemTap's macros. */
static void embedded_function(struct em *em, struct fninfo *fi, bool frame,
			      FILE *o)
{
	const struct function *fn = fi->fn;
	bool str = fi->type == TYPE_STRING;

	fprintf(o, "/* function %s at %s */\n", fn->name,
		loc_text(em, &fn->decl->loc));
	fprintf(o, "static void %s(struct tp_context *c)\n{\n", fi->cname);
	if (frame)
		fprintf(o, "\tstruct %s_locals *l = &TPG_FRAMES(c)->fn[c->nesting "
			"- 1].%s;\n\n\t(void)l;\n", fi->cname, fi->cname);
	else
		fputs("\t(void)c;\n", o);
	for (const struct symbol *p = fn->params; p; p = p->next)
		fprintf(o, "#define STAP_ARG_%s (l->l_%s)\n", p->name, p->name);
	if (fi->type != TYPE_UNKNOWN)
		fputs("#define STAP_RETVALUE (l->__retvalue)\n", o);
	if (fi->type == TYPE_UNKNOWN)
		fputs("#define STAP_RETURN() return\n", o);
	else if (str)
		fputs("#define STAP_RETURN(v) do { tp_str_copy(STAP_RETVALUE, "
		      "(v)); return; } while (0)\n", o);
	else
		fputs("#define STAP_RETURN(v) do { STAP_RETVALUE = (v); return; "
		      "} while (0)\n", o);
	fputs("#define STAP_ERROR(...) do { tp_error(c, __VA_ARGS__); return; "
	      "} while (0)\n"
	      "#define STAP_PRINTF(...) tp_kprintf(c, __VA_ARGS__)\n"
	      "#define CONTEXT c\n#define THIS l\n", o);
	if (fi->uses_next)
		fputs("#define STAP_NEXT do { l->__next = true; return; } "
		      "while (0)\n", o);
	fprintf(o, "\tc->last_stmt = %s;\n", decl_near(em, fn));
	if (fi->type == TYPE_LONG)
		fputs("\tl->__retvalue = 0;\n", o);
	else if (str)
		fputs("\tl->__retvalue[0] = '\\0';\n", o);
	fprintf(o, "\t{\n%s\n\t}\n", fn->decl->code);
	for (const struct symbol *p = fn->params; p; p = p->next)
		fprintf(o, "#undef STAP_ARG_%s\n", p->name);
	if (fi->type != TYPE_UNKNOWN)
		fputs("#undef STAP_RETVALUE\n", o);
	fputs("#undef STAP_RETURN\n#undef STAP_ERROR\n#undef STAP_PRINTF\n"
	      "#undef CONTEXT\n#undef THIS\n", o);
	if (fi->uses_next)
		fputs("#undef STAP_NEXT\n", o);
	fputs("}\n\n", o);
}

static void script_function(struct em *em, struct fninfo *fi, bool frame,
			    FILE *o)
{
	const struct function *fn = fi->fn;
	struct body *b = fi->body;
	bool args;

	fprintf(o, "/* function %s at %s */\n", fn->name,
		loc_text(em, &fn->decl->loc));
	fprintf(o, "static void %s(struct tp_context *c)\n{\n", fi->cname);
	if (frame)
		fprintf(o, "\tstruct %s_locals *l = &TPG_FRAMES(c)->fn[c->nesting "
			"- 1].%s;\n\n", fi->cname, fi->cname);
	fprintf(o, "\tc->last_stmt = %s;\n", decl_near(em, fn));
	init_locals(b, o);
	if (fi->type == TYPE_LONG)
		fputs("\tl->__retvalue = 0;\n", o);
	else if (fi->type == TYPE_STRING)
		fputs("\tl->__retvalue[0] = '\\0';\n", o);
	if (fi->uses_next)
		fputs("\tl->__next = false;\n", o);
	upfront_check(b, o);
	/* an embedded-C expression of the body, %{ S_ISDIR(STAP_ARG_m) %},
	 * names the parameters as embedded functions do (open_memstream
	 * ends the text with a NUL) */
	args = frame && fn->params && strstr(b->text, "STAP_ARG_");
	for (const struct symbol *p = fn->params; args && p; p = p->next)
		fprintf(o, "#define STAP_ARG_%s (l->l_%s)\n", p->name, p->name);
	fwrite(b->text, 1, b->len, o);
	for (const struct symbol *p = fn->params; args && p; p = p->next)
		fprintf(o, "#undef STAP_ARG_%s\n", p->name);
	fputs("}\n\n", o);
}

static const char *probe_kind(const struct dprobe *p)
{
	const char *first = p->point->comps->name;

	if (strcmp(first, "begin") == 0)
		return "TP_PROBE_BEGIN";
	if (strcmp(first, "end") == 0)
		return "TP_PROBE_END";
	if (strcmp(first, "error") == 0)
		return "TP_PROBE_ERROR";
	if (strcmp(first, "never") == 0)
		return "TP_PROBE_NEVER";
	if (strcmp(first, "timer") == 0)
		return p->unit ? "TP_PROBE_TIMER" : "TP_PROBE_PROFILE";
	if (p->process_event != PROC_NONE)
		return "TP_PROBE_PROCESS";
	if (p->process)
		return "TP_PROBE_UPROBE";
	if (p->tracepoint)
		return "TP_PROBE_TRACEPOINT";
	if (p->netfilter)
		return "TP_PROBE_NETFILTER";
	if (p->perf)
		return "TP_PROBE_PERF";
	if (p->procfs)
		return "TP_PROBE_PROCFS";
	if (p->hwbkpt)
		return "TP_PROBE_HWBKPT";
	if (p->symbol || p->dwarf || p->address)
		return "TP_PROBE_KPROBE";
	return NULL;
}

struct probe_out {
	struct body *b;
	struct dprobe *p;
	const char *handler;
	const char *kind;
	const char *pp, *pn, *location;
	struct gvar *print_global;	/* a print-at-exit probe */
	bool light;			/* see light_probe() */
};

/* ---- light probes ----
 *
 * A hit sets up the whole context before the handler runs (runtime/
 * core.h, tp_run_probe_in()): the probe, its registers, address and
 * kretprobe data, the action count, the nesting, the print state. A
 * light probe's code reads none of that, and its kprobe handler (runtime/
 * entry.h, TP_KPROBE_ENTRY_LIGHT) only claims the context and clears the
 * error fields. The emitter proves it from the C it wrote: the probe is
 * loop-free (its action check becomes a constant, below); its body names
 * the context `c` only in TPG_FRAMES(c), c->nesting, c->last_error,
 * c->last_stmt, tp_error(c, ...) and in calls fn_NAME(c) of the functions
 * it reaches, which are all embedded C that names neither `c`, CONTEXT,
 * STAP_PRINTF nor anything of the runtime (tp_*, tapir_*, _stp_*); and no
 * top-level %{ %} block of the program names the runtime or CONTEXT
 * either (a helper there could reach the context for a function).
 */

static bool ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static bool starts(const char *t, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);

	return i + k <= n && memcmp(t + i, w, k) == 0;
}

static bool ends_before(const char *t, size_t i, const char *w)
{
	size_t k = strlen(w);

	return i >= k && memcmp(t + i - k, w, k) == 0;
}

/* May the identifier t[i..i+len) appear in light code? @generated: the
 * emitter's own C (where `c` is the context), else embedded C. */
static bool light_ident(const char *t, size_t n, size_t i, size_t len,
			bool generated)
{
	static const char *const runtime[] = { "tp_", "tapir_", "_stp_" };
	size_t j;

	if (len == 7 && starts(t, n, i, "CONTEXT"))
		return false;
	if (len == 1 && t[i] == 'c') {
		if (!generated)
			return false;
		if (ends_before(t, i, "TPG_FRAMES(") ||
		    ends_before(t, i, "tp_error(") ||
		    starts(t, n, i + 1, "->last_error") ||
		    starts(t, n, i + 1, "->last_stmt") ||
		    starts(t, n, i + 1, "->nesting"))
			return true;
		/* fn_NAME(c): a call, checked on its own */
		if (i + 1 < n && t[i + 1] == ')' && i >= 1 && t[i - 1] == '(') {
			for (j = i - 1; j > 0 && ident_char(t[j - 1]); j--)
				;
			return starts(t, n, j, "fn_");
		}
		return false;
	}
	if (generated) {
		/* the runtime calls the generated code makes: those that
		 * could read the context take `c`; these two find it */
		return !(len == 10 && starts(t, n, i, "tp_current")) &&
		       !starts(t, n, i, "tapir_");
	}
	if (len == 11 && starts(t, n, i, "STAP_PRINTF"))
		return false;
	for (j = 0; j < sizeof(runtime) / sizeof(runtime[0]); j++)
		if (starts(t, n, i, runtime[j]))
			return false;
	return true;
}

/* Every identifier of C text @t outside literals and comments is
 * light_ident(). */
static bool light_text(const char *t, size_t n, bool generated)
{
	size_t i = 0;

	while (i < n) {
		char ch = t[i];

		if (ch == '"' || ch == '\'') {
			for (i++; i < n && t[i] != ch; i++)
				if (t[i] == '\\')
					i++;
			i++;
		} else if (ch == '/' && i + 1 < n && t[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(t[i] == '*' && t[i + 1] == '/'); i++)
				;
			i += 2;
		} else if (ch == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				i++;
		} else if (ident_char(ch) && !(ch >= '0' && ch <= '9')) {
			size_t k = i;

			while (k < n && ident_char(t[k]))
				k++;
			if (!light_ident(t, n, i, k - i, generated))
				return false;
			i = k;
		} else if (ch >= '0' && ch <= '9') {
			while (i < n && ident_char(t[i]))
				i++;
		} else {
			i++;
		}
	}
	return true;
}

static bool light_block(struct em *em, const struct decl *d, FILE *o)
{
	(void)em;
	(void)o;
	return light_text(d->code, strlen(d->code), false);
}

/* Can a light probe set c->last_error? A C expression: only its
 * constant action check when neither its body nor a callee fails. */
static const char *light_may_fail(struct em *em, const struct probe_out *po)
{
	const struct body *b = po->b;
	static const char w[] = "last_error";

	for (size_t i = 0; i + sizeof(w) - 1 <= b->len; i++)
		if (memcmp(b->text + i, w, sizeof(w) - 1) == 0)
			return "true";
	for (int i = 0; i < b->ncalls; i++)
		if (b->calls[i]->may_fail || b->calls[i]->may_abort)
			return "true";
	if (b->total <= 0)
		return "false";
	return em_printf(em, "%d > MAXACTION_INTERRUPTIBLE", b->total);
}

static bool light_probe(struct em *em, const struct probe_out *po)
{
	const struct body *b = po->b;

	if (!b || b->flush_mode || !light_text(b->text, b->len, true))
		return false;
	for (int i = 0; i < b->ncalls; i++) {
		const struct fninfo *fi = b->calls[i];

		if (!fi->embedded || !light_text(fi->fn->decl->code,
				strlen(fi->fn->decl->code), false))
			return false;
	}
	return each_block(em, light_block, NULL);
}

static void emit_probe_body(struct em *em, struct probe_out *po, int id)
{
	struct dprobe *p = po->p;
	struct body *b;

	po->handler = em_printf(em, "probe_%d", id);
	b = body_new(em, po->handler);
	b->probe = p;
	b->locals = p->locals;
	b->flush_mode = stmt_has_loops(p->body);
	po->b = b;
	if (p->cond) {
		struct val v = emit_cond(b, p->cond);

		out(b, "if (!(%s))", v.c);
		out(b, "\treturn;");
	}
	emit_stmt(b, p->body);
	if (b->flush_mode)
		record_actions(b, 0, stmt_near(em, p->body), true);
	body_close(b);
}

/*
 * A netfilter probe's $hooknum, $skb, ... are its locals __nf_hooknum,
 * __nf_skb, ... (providers/netfilter.c): set from the hit's struct
 * tp_nf_hit (runtime/tapir.h, c->data), and __nf_verdict copied back
 * for the hook to return. A body that stops on an error leaves the
 * verdict as it was (NF_ACCEPT).
 */
static void netfilter_prologue(struct body *b, FILE *o)
{
	static const char *const fields[] = {
		"hooknum", "skb", "in", "out", "okfn", "verdict"
	};
	bool any = false;
	int slot;

	if (!b->probe || !b->probe->netfilter)
		return;
	for (const struct symbol *l = b->locals; l; l = l->next)
		if (l->type == TYPE_LONG && netfilter_local(l->name, &slot)) {
			if (!any)
				fputs("\t{\n\t\tconst struct tp_nf_hit *nf = "
				      "c->data;\n\n", o);
			any = true;
			fprintf(o, "\t\tl->l_%s = nf->%s;\n", l->name,
				fields[slot]);
		}
	if (any)
		fputs("\t}\n", o);
}

static void netfilter_epilogue(struct body *b, FILE *o)
{
	int slot;

	if (!b->probe || !b->probe->netfilter)
		return;
	for (const struct symbol *l = b->locals; l; l = l->next)
		if (l->type == TYPE_LONG && netfilter_local(l->name, &slot) &&
		    strcmp(l->name, "__nf_verdict") == 0)
			fprintf(o, "\t((struct tp_nf_hit *)c->data)->verdict = "
				"l->l_%s;\n", l->name);
}

static void probe_handler(struct em *em, struct probe_out *po, bool frame,
			  FILE *o)
{
	struct body *b = po->b;

	emit_dwarf_probe_code(em, b, po->handler, o);
	fprintf(o, "/* probe %s at %s */\n", po->pp, po->location);
	/* a light probe's body goes into its kprobe handler (which has no
	 * ftrace call site either) */
	fprintf(o, "static %svoid %s(struct tp_context *c)\n{\n",
		po->light ? "__always_inline notrace " : "", po->handler);
	if (frame)
		fprintf(o, "\tstruct %s_locals *l = &TPG_FRAMES(c)->probe.%s;\n\n",
			po->handler, po->handler);
	/* matched() in this hit sees only this hit's =~ (programs without
	 * one never set c->regex: their hits skip the store) */
	if (em->nregexes)
		fputs("\tc->regex = NULL;\n", o);
	init_locals(b, o);
	netfilter_prologue(b, o);
	if (po->light && b->total > 0)
		/* what upfront_check() tests, c->actions being 0 and
		 * c->max_actions MAXACTION_INTERRUPTIBLE (runtime/context.c) */
		fprintf(o, "\tif (unlikely(%d > MAXACTION_INTERRUPTIBLE)) {\n"
			"\t\tc->last_error = \"MAXACTION exceeded\";\n"
			"\t\treturn;\n\t}\n", b->total);
	else
		upfront_check(b, o);
	fwrite(b->text, 1, b->len, o);
	netfilter_epilogue(b, o);
	fputs("}\n\n", o);
}

/*
 * kprobe.function() and DWARF kernel/module probes get a kprobe handler of
 * their own (runtime/entry.h), which the kernel calls directly and which
 * runs this probe's handler and takes its locks as constants: no
 * indirect calls, no lock-list loop on the hit's path.
 */
static bool own_kprobe_handler(const struct probe_out *po)
{
	return po->p && po->kind && strcmp(po->kind, "TP_PROBE_KPROBE") == 0;
}

static void own_kprobe_handler_decl(const struct probe_out *po, FILE *o)
{
	if (!own_kprobe_handler(po))
		return;
	if (po->p->is_return)
		fprintf(o, "TP_KPROBE_RETURN_DECL(%s_kreturn);\n", po->handler);
	else
		fprintf(o, "TP_KPROBE_ENTRY_DECL(%s_kentry);\n", po->handler);
}

static void own_kprobe_handler_def(struct em *em, const struct probe_out *po,
				   int i, FILE *o)
{
	if (!own_kprobe_handler(po))
		return;
	if (po->light)
		fprintf(o, "TP_KPROBE_%s_LIGHT(%s_%s, tpg_probes[%d], %s);\n",
			po->p->is_return ? "RETURN" : "ENTRY", po->handler,
			po->p->is_return ? "kreturn" : "kentry", i,
			light_may_fail(em, po));
	else if (po->p->is_return)
		fprintf(o, "TP_KPROBE_RETURN(%s_kreturn, tpg_probes[%d]);\n",
			po->handler, i);
	else
		fprintf(o, "TP_KPROBE_ENTRY(%s_kentry, tpg_probes[%d]);\n",
			po->handler, i);
}

/* process(...) probes (providers/process.c, runtime/uprobes.c). */
static void process_fields(struct em *em, const struct dprobe *p, FILE *o)
{
	static const char *const events[] = {
		[PROC_BEGIN] = "TP_PROC_BEGIN",
		[PROC_END] = "TP_PROC_END",
		[PROC_THREAD_BEGIN] = "TP_PROC_THREAD_BEGIN",
		[PROC_THREAD_END] = "TP_PROC_THREAD_END",
		[PROC_SYSCALL] = "TP_PROC_SYSCALL",
		[PROC_SYSCALL_RETURN] = "TP_PROC_SYSCALL_RETURN",
	};

	if (p->process)
		fprintf(o, "\t\t.path = %s,\n",
			c_string(em, p->process, strlen(p->process)));
	if (p->process_event != PROC_NONE) {
		fprintf(o, "\t\t.event = %s,\n", events[p->process_event]);
		if (p->pid)
			fprintf(o, "\t\t.pid = %lld,\n", (long long)p->pid);
		return;
	}
	if (!p->process)
		return;
	fprintf(o, "\t\t.uoffset = %#llxUL,\n",
		(unsigned long long)p->uprobe_offset);
	if (p->process_exe)
		fprintf(o, "\t\t.exe = %s,\n", c_string(em, p->process_exe,
							 strlen(p->process_exe)));
	if (p->pid)
		fprintf(o, "\t\t.pid = %lld,\n", (long long)p->pid);
	if (p->is_return)
		fputs("\t\t.is_return = true,\n", o);
	if (p->point->optional || p->user->optional)
		fputs("\t\t.optional = true,\n", o);
}

/* The details of a probe for struct tp_probe. */
static void probe_entry(struct em *em, const struct probe_out *po, FILE *o)
{
	const struct dprobe *p = po->p;
	int nlocks = 0;

	for (int i = 0; i < em->nglobals; i++)
		if (po->b->use[i])
			nlocks++;
	fprintf(o, "\t{\n\t\t.kind = %s,\n", po->kind);
	fprintf(o, "\t\t.pp = %s,\n", c_string(em, po->pp, strlen(po->pp)));
	fprintf(o, "\t\t.pn = %s,\n", c_string(em, po->pn, strlen(po->pn)));
	fprintf(o, "\t\t.location = %s,\n",
		c_string(em, po->location, strlen(po->location)));
	fprintf(o, "\t\t.handler = %s,\n", po->handler);
	if (nlocks)
		fprintf(o, "\t\t.locks = %s_locks,\n\t\t.nlocks = %d,\n",
			po->handler, nlocks);
	if (!p) {
		fputs("\t},\n", o);
		return;
	}
	/* (the lowest of all, init's, has no literal: -N is N negated) */
	if (p->priority == INT64_MIN)
		fputs("\t\t.priority = S64_MIN,\n", o);
	else if (p->priority)
		fprintf(o, "\t\t.priority = %lldLL,\n", (long long)p->priority);
	if (p->unit) {
		static const struct { const char *unit; int64_t ns; } units[] = {
			{ "s", 1000000000 }, { "sec", 1000000000 },
			{ "ms", 1000000 }, { "msec", 1000000 },
			{ "us", 1000 }, { "usec", 1000 },
			{ "ns", 1 }, { "nsec", 1 },
		};
		int64_t mult = 0;

		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(p->unit, units[i].unit) == 0)
				mult = units[i].ns;
		if (mult) {
			fprintf(o, "\t\t.hrtimer = true,\n\t\t.interval = %lluULL,\n",
				(unsigned long long)(p->interval * mult));
			if (p->randomize)
				fprintf(o, "\t\t.randomize = %lluULL,\n",
					(unsigned long long)(p->randomize * mult));
		} else {
			fprintf(o, "\t\t.interval = %lluULL,\n",
				(unsigned long long)p->interval);
			if (strcmp(p->unit, "hz") == 0)
				fputs("\t\t.hz = true,\n", o);
			if (p->randomize)
				fprintf(o, "\t\t.randomize = %lluULL,\n",
					(unsigned long long)p->randomize);
		}
	}
	if (p->symbol) {
		emit_kprobe_fields(em, p, p->symbol, NULL, o);
	} else if (p->address) {
		fprintf(o, "\t\t.address = 0x%llxUL,\n",
			(unsigned long long)p->address);
		emit_kprobe_fields(em, p, NULL, NULL, o);
	}
	process_fields(em, p, o);
	if (p->netfilter)
		fprintf(o, "\t\t.nf_pf = %d,\n\t\t.nf_hooknum = %d,\n"
			"\t\t.nf_priority = %lld,\n", p->nf_pf, p->nf_hook,
			(long long)p->nf_priority);
	if (p->perf)
		fprintf(o, "\t\t.perf_type = %lld,\n\t\t.perf_config = %#llxULL,\n"
			"\t\t.perf_period = %lldULL,\n%s", (long long)p->perf_type,
			(unsigned long long)p->perf_config,
			(long long)p->perf_period,
			p->perf_freq ? "\t\t.perf_freq = true,\n" : "");
	if (p->procfs) {
		fprintf(o, "\t\t.procfs = %s,\n",
			c_string(em, p->procfs, strlen(p->procfs)));
		if (p->procfs_write)
			fputs("\t\t.procfs_write = true,\n", o);
		fprintf(o, "\t\t.procfs_umask = %lld,\n",
			(long long)p->procfs_umask);
		if (p->procfs_maxsize)
			fprintf(o, "\t\t.procfs_maxsize = %lld,\n",
				(long long)p->procfs_maxsize);
	}
	if (p->hwbkpt) {
		if (p->hw_symbol)
			fprintf(o, "\t\t.hw_symbol = %s,\n",
				c_string(em, p->hw_symbol,
					 strlen(p->hw_symbol)));
		else
			fprintf(o, "\t\t.hw_address = 0x%llxUL,\n",
				(unsigned long long)p->hw_address);
		fprintf(o, "\t\t.hw_len = %u,\n%s", p->hw_len,
			p->hw_rw ? "\t\t.hw_rw = true,\n" : "");
	}
	if (p->tracepoint)
		emit_trace_fields(em, p, po->handler, o);
	else
		emit_dwarf_probe_fields(em, po->b, p, po->handler, o);
	if (own_kprobe_handler(po))
		fprintf(o, "\t\t.%s = %s_%s,\n",
			p->is_return ? "kreturn" : "kentry", po->handler,
			p->is_return ? "kreturn" : "kentry");
	fputs("\t},\n", o);
}

void emit_kprobe_fields(struct em *em, const struct dprobe *p,
			const char *symbol, const unsigned long long *offset,
			FILE *o)
{
	if (symbol) {
		fprintf(o, "\t\t.symbol = %s,\n",
			c_string(em, symbol, strlen(symbol)));
		if (offset)
			fprintf(o, "\t\t.offset = %lluUL,\n", *offset);
		if (p->module)
			fprintf(o, "\t\t.module = %s,\n",
				c_string(em, p->module, strlen(p->module)));
	}
	if (p->is_return)
		fputs("\t\t.is_return = true,\n", o);
	if (p->maxactive > 0)
		fprintf(o, "\t\t.maxactive = %lld,\n", (long long)p->maxactive);
	if (p->point->optional || p->user->optional)
		fputs("\t\t.optional = true,\n", o);
}

static void lock_list(struct em *em, const struct probe_out *po, FILE *o)
{
	bool any = false;

	for (int i = 0; i < em->nglobals; i++)
		if (po->b->use[i])
			any = true;
	if (!any)
		return;
	fprintf(o, "static const struct tp_lock_use %s_locks[] = {\n",
		po->handler);
	for (int i = 0; i < em->nglobals; i++)
		if (po->b->use[i])
			fprintf(o, "\t{ &tpg_locks.%s, %s },\n",
				em->globals[i]->cname,
				po->b->use[i] == 2 ? "true" : "false");
	fputs("};\n\n", o);
}

/* ---- analysis ---- */

static bool code_has(const char *code, const char *what)
{
	return code && strstr(code, what) != NULL;
}

static void setup_functions(struct em *em)
{
	int n = 0;

	for (struct function *f = em->prog->functions; f; f = f->next)
		n++;
	em->fns = xcalloc((size_t)n + 1, sizeof(*em->fns));
	for (struct function *f = em->prog->functions; f; f = f->next) {
		struct fninfo *fi = ANEW(&em->s->arena, struct fninfo);

		fi->fn = f;
		fi->embedded = f->decl->code != NULL;
		em_insert(em, f, fi);
		em->fns[em->nfns++] = fi;
	}
	/* C names in a stable order: the file's order of definition */
	for (int i = em->nfns - 1; i >= 0; i--) {
		struct fninfo *fi = em->fns[i];
		const struct decl *d = fi->fn->decl;

		fi->cname = cname(em, "fn_", fi->fn->name);
		fi->type = fi->fn->type;
		if (fi->embedded) {
			fi->may_fail = code_has(d->code, "STAP_ERROR") ||
				       code_has(d->code, "tp_error") ||
				       code_has(d->code, "last_error") ||
				       /* runtime/embedded.h's faults */
				       code_has(d->code, "CATCH_DEREF_FAULT");
			fi->may_abort = code_has(d->code, "tapir_abort");
			fi->uses_next = code_has(d->code, "STAP_NEXT");
		} else {
			fi->may_fail = true;
			fi->has_loops = stmt_has_loops(d->body);
			if (fi->type == TYPE_UNKNOWN && stmt_returns_value(d->body))
				fi->type = TYPE_LONG;
			fi->uses_next = stmt_has_next(d->body);
		}
	}
	/* may_abort spreads to callers: any script function may reach an
	 * embedded one that aborts; cheap enough to assume it when the
	 * program has one at all */
	{
		bool any = false;

		for (int i = 0; i < em->nfns; i++)
			any |= em->fns[i]->may_abort;
		for (int i = 0; i < em->nfns; i++)
			if (!em->fns[i]->embedded)
				em->fns[i]->may_abort = any;
	}
}

static void setup_globals(struct em *em)
{
	int n = 0, i;

	for (struct symbol *g = em->prog->globals; g; g = g->next)
		n++;
	em->globals = xcalloc((size_t)n + 1, sizeof(*em->globals));
	/* the program lists globals newest first: declaration order is the
	 * reverse */
	i = n;
	for (struct symbol *g = em->prog->globals; g; g = g->next) {
		struct gvar *gv = ANEW(&em->s->arena, struct gvar);

		gv->sym = g;
		em->globals[--i] = gv;
		em_insert(em, g, gv);
	}
	em->nglobals = n;
	for (i = 0; i < n; i++) {
		struct gvar *g = em->globals[i];

		g->index = i;
		g->cname = cname(em, "g_", g->sym->name);
		/* -G VAR=VAL sets any scalar but a tapset's private one
		 * (argv_1 of the argv tapset too, as in SystemTap) */
		g->param = g->sym->arity == 0 && g->sym->type != TYPE_STATS &&
			   g->sym->type != TYPE_UNKNOWN &&
			   !(g->sym->decl->private_ &&
			     g->sym->decl->loc.file->privileged);
	}
}

/* @variance(x, N): the shift belongs to the variable. */
static void variance_shifts(struct em *em, const struct expr *x);

static void variance_stmt(struct em *em, const struct stmt *st)
{
	for (; st; st = st->next) {
		variance_shifts(em, st->e);
		variance_shifts(em, st->init);
		variance_shifts(em, st->incr);
		if (st->fe) {
			variance_shifts(em, st->fe->array);
			variance_shifts(em, st->fe->limit);
		}
		variance_stmt(em, st->body);
		variance_stmt(em, st->else_body);
	}
}

static void variance_shifts(struct em *em, const struct expr *x)
{
	if (!x)
		return;
	if (x->kind == E_STAT && x->op == STAT_VARIANCE && x->a) {
		struct gvar *g = em_global(em, x->a->ref);

		if (g) {
			int shift = x->b ? (int)x->b->num : 0;

			g->variance = true;

			if (x->b && (x->b->num < 0 || x->b->num > 31))
				em_error(em, &x->b->loc, "the @variance bit "
					 "shift must be from 0 to 31");
			else if (g->shift_set && g->shift != shift && x->b)
				em_error(em, &x->loc, "'%s' is used with "
					 "different @variance bit shifts",
					 g->sym->name);
			else if (x->b || !g->shift_set) {
				g->shift = shift;
				g->shift_set = x->b != NULL;
			}
		}
	}
	variance_shifts(em, x->a);
	variance_shifts(em, x->b);
	variance_shifts(em, x->c);
	for (const struct expr *a = x->args; a; a = a->next)
		variance_shifts(em, a);
}

/* The order in which the probes (in script order), then the functions,
 * first mention each global: SystemTap prints unread globals at exit in
 * that order. */
static void first_use_expr(struct em *em, const struct expr *x, int *n)
{
	struct gvar *g;

	if (!x)
		return;
	if ((x->kind == E_VAR || x->kind == E_INDEX || x->kind == E_IN) &&
	    (g = em_global(em, x->ref)) && g->first_use < 0)
		g->first_use = (*n)++;
	first_use_expr(em, x->a, n);
	first_use_expr(em, x->b, n);
	first_use_expr(em, x->c, n);
	for (const struct expr *a = x->args; a; a = a->next)
		first_use_expr(em, a, n);
}

static void first_use_stmt(struct em *em, const struct stmt *st, int *n)
{
	for (; st; st = st->next) {
		if (st->fe) {
			first_use_expr(em, st->fe->array, n);
			for (const struct expr *k = st->fe->keys; k; k = k->next)
				first_use_expr(em, k, n);
			first_use_expr(em, st->fe->value, n);
			first_use_expr(em, st->fe->limit, n);
		}
		first_use_expr(em, st->init, n);
		first_use_expr(em, st->e, n);
		first_use_stmt(em, st->body, n);
		first_use_expr(em, st->incr, n);
		first_use_stmt(em, st->else_body, n);
	}
}

static int by_first_use(const void *a, const void *b)
{
	const struct gvar *x = *(struct gvar *const *)a;
	const struct gvar *y = *(struct gvar *const *)b;
	int fx = x->first_use < 0 ? 1 << 30 : x->first_use;
	int fy = y->first_use < 0 ? 1 << 30 : y->first_use;

	if (fx != fy)
		return fx < fy ? -1 : 1;
	return x->index - y->index;
}

/* ---- the program ---- */

int emit_program(struct session *s, struct program *prog, FILE *o)
{
	struct em em;
	struct probe_out *pos;
	int np = 0, id = 0, npe = 0;
	bool any_probe_frame = false, any_fn_frame = false;
	bool *pframe = NULL, *fframe = NULL;
	struct gvar **pglobals = NULL;

	memset(&em, 0, sizeof(em));
	em.s = s;
	em.prog = prog;
	setup_globals(&em);
	setup_functions(&em);
	for (struct dprobe *p = prog->probes; p; p = p->next)
		variance_stmt(&em, p->body);
	for (int i = 0; i < em.nfns; i++)
		if (!em.fns[i]->embedded)
			variance_stmt(&em, em.fns[i]->fn->decl->body);

	for (struct dprobe *p = prog->probes; p; p = p->next)
		np++;
	for (int i = 0; i < em.nglobals; i++)
		if (em.globals[i]->sym->print_at_exit)
			npe++;
	pos = xcalloc((size_t)(np + npe) + 1, sizeof(*pos));
	for (struct dprobe *p = prog->probes; p; p = p->next, id++) {
		struct probe_out *po = &pos[id];

		po->p = p;
		po->kind = probe_kind(p);
		po->pp = p->name;
		po->pn = p->pn;
		po->location = loc_text(&em, &p->decl->loc);
		if (!po->kind) {
			em_error(&em, &p->user->loc, "probe point '%s' cannot be "
				 "translated yet", p->name);
			continue;
		}
		emit_probe_body(&em, po, id);
	}
	/* functions nobody called (-u keeps them): checked, not written */
	for (int i = 0; i < em.nfns; i++)
		if (em.fns[i]->fn->used)
			em_emit_function(&em, em.fns[i]);
	for (int i = 0; i < em.nfns; i++)
		em.fns[i]->called = false;
	for (int i = 0; i < np; i++)
		if (pos[i].b)
			mark_called(pos[i].b);
	if (em.errors)
		goto done;

	/* print-at-exit probes (written straight in C), in the order of
	 * first use */
	{
		int n = 0;

		for (int i = 0; i < em.nglobals; i++)
			em.globals[i]->first_use = -1;
		for (struct dprobe *p = prog->probes; p; p = p->next)
			first_use_stmt(&em, p->body, &n);
		for (int i = em.nfns - 1; i >= 0; i--)
			if (!em.fns[i]->embedded && em.fns[i]->called)
				first_use_stmt(&em, em.fns[i]->fn->decl->body, &n);
	}
	pglobals = xcalloc((size_t)em.nglobals + 1, sizeof(*pglobals));
	memcpy(pglobals, em.globals, (size_t)em.nglobals * sizeof(*pglobals));
	qsort(pglobals, (size_t)em.nglobals, sizeof(*pglobals), by_first_use);
	for (int i = 0; i < em.nglobals; i++) {
		struct gvar *g = pglobals[i];
		struct probe_out *po;

		if (!g->sym->print_at_exit)
			continue;
		po = &pos[np++];
		po->print_global = g;
		po->kind = "TP_PROBE_END";
		po->pp = "end";
		po->pn = "end";
		po->location = loc_text(&em, &g->sym->decl->loc);
		po->handler = em_printf(&em, "probe_%d", id++);
		po->b = body_new(&em, po->handler);
		use_global(po->b, g, g->sym->type == TYPE_STATS ||
			   g->sym->arity > 0);
		emit_print_at_exit(po->b, g);
		body_close(po->b);
	}
	if (em.errors)
		goto done;

	{
		bool kprobes = false;

		for (int i = 0; i < np; i++)
			if (own_kprobe_handler(&pos[i]) ||
			    (pos[i].p && pos[i].p->tracepoint))
				kprobes = true;
		preamble(&em, kprobes, o);
	}
	each_block(&em, embedded_block, o);
	emit_globals_decl(&em, o);
	emit_regex_tables(&em, o);

	/* frames */
	pframe = xcalloc((size_t)np + 1, sizeof(*pframe));
	fframe = xcalloc((size_t)em.nfns + 1, sizeof(*fframe));
	{
		char *fbuf = NULL;
		size_t flen = 0;
		FILE *fo = open_memstream(&fbuf, &flen);

		if (!fo)
			out_of_memory();
		for (int i = 0; i < np; i++)
			if (pos[i].b)
				any_probe_frame |= pframe[i] =
					frame_struct(&em, pos[i].b, fo);
		for (int i = 0; i < em.nfns; i++)
			if (em.fns[i]->called)
				any_fn_frame |= fframe[i] = frame_struct(&em,
						em.fns[i]->body, fo);
		fclose(fo);
		if (any_probe_frame || any_fn_frame)
			fprintf(o, "/* ---- frames: the locals and temporaries of "
				"each probe and function ---- */\n\n%s", fbuf);
		free(fbuf);
	}
	if (any_probe_frame || any_fn_frame || em.nregexes) {
		fputs("struct tp_frames {\n", o);
		if (any_probe_frame) {
			fputs("\tunion {\n", o);
			for (int i = 0; i < np; i++)
				if (pframe[i])
					fprintf(o, "\t\tstruct %s_locals %s;\n",
						pos[i].handler, pos[i].handler);
			fputs("\t} probe;\n", o);
		}
		if (any_fn_frame) {
			fputs("\tunion {\n", o);
			for (int i = 0; i < em.nfns; i++)
				if (fframe[i])
					fprintf(o, "\t\tstruct %s_locals %s;\n",
						em.fns[i]->cname, em.fns[i]->cname);
			fputs("\t} fn[MAXNESTING];\n", o);
		}
		emit_regex_frame(&em, o);
		fputs("};\n\n", o);
	}

	/* functions */
	emit_dwarf_include(&em, o);
	if (em.nfns) {
		fputs("/* ---- functions ---- */\n\n", o);
		for (int i = em.nfns - 1; i >= 0; i--)
			if (em.fns[i]->called)
				fprintf(o, "static void %s(struct tp_context *c);\n",
					em.fns[i]->cname);
		fputc('\n', o);
	}
	for (int i = em.nfns - 1; i >= 0; i--) {
		if (!em.fns[i]->called)
			continue;
		if (em.fns[i]->embedded)
			embedded_function(&em, em.fns[i], fframe[i], o);
		else
			script_function(&em, em.fns[i], fframe[i], o);
	}

	/* probes */
	emit_dwarf_relocs(&em, o);
	emit_usym_tables(&em, o);
	emit_kline_table(&em, o);
	fputs("/* ---- probes ---- */\n\n", o);
	for (int i = 0; i < np; i++) {
		pos[i].light = (own_kprobe_handler(&pos[i]) ||
				(pos[i].p && pos[i].p->tracepoint)) &&
			       light_probe(&em, &pos[i]);
		probe_handler(&em, &pos[i], pframe[i], o);
	}
	for (int i = 0; i < np; i++) {
		/* a probe's locks: its own uses and its callees' */
		struct body *b = pos[i].b;
		bool changed = true;

		while (changed) {
			changed = false;
			for (int k = 0; k < b->ncalls; k++) {
				struct body *cb = b->calls[k]->body;

				for (int g = 0; g < em.nglobals; g++)
					if (cb->use[g] > b->use[g]) {
						b->use[g] = cb->use[g];
						changed = true;
					}
				for (int j = 0; j < cb->ncalls; j++) {
					bool have = false;

					for (int m = 0; m < b->ncalls; m++)
						if (b->calls[m] == cb->calls[j])
							have = true;
					if (!have) {
						b->calls = xrealloc(b->calls,
							(size_t)(b->ncalls + 1) *
							sizeof(*b->calls));
						b->calls[b->ncalls++] = cb->calls[j];
						changed = true;
					}
				}
			}
		}
		lock_list(&em, &pos[i], o);
	}
	{
		bool any = false;

		for (int i = 0; i < np; i++)
			if (own_kprobe_handler(&pos[i])) {
				own_kprobe_handler_decl(&pos[i], o);
				any = true;
			} else if (pos[i].p && pos[i].p->tracepoint) {
				emit_trace_handler_decl(pos[i].p,
							pos[i].handler, o);
				any = true;
			}
		if (any)
			fputc('\n', o);
	}
	fputs("static const struct tp_probe tpg_probes[] = {\n", o);
	for (int i = 0; i < np; i++)
		probe_entry(&em, &pos[i], o);
	fputs("};\n\n", o);
	{
		bool any = false;

		for (int i = 0; i < np; i++)
			if (own_kprobe_handler(&pos[i])) {
				own_kprobe_handler_def(&em, &pos[i], i, o);
				any = true;
			} else if (pos[i].p && pos[i].p->tracepoint) {
				emit_trace_handler_def(pos[i].p,
						       pos[i].handler, i,
						       pos[i].light ?
						       light_may_fail(&em,
								      &pos[i]) :
						       NULL, o);
				any = true;
			}
		if (any)
			fputc('\n', o);
	}

	emit_globals_init(&em, o);
	emit_globals_params(&em, o);
	fprintf(o, "const struct tp_module tapir_module = {\n"
		"\t.script = %s,\n"
		"\t.probes = tpg_probes,\n"
		"\t.nprobes = ARRAY_SIZE(tpg_probes),\n"
		"\t.locals_size = %s,\n"
		"\t.init_globals = tpg_init_globals,\n"
		"\t.free_globals = tpg_free_globals,\n",
		c_string(&em, prog->user->file ? prog->user->file->name :
			 "<input>", strlen(prog->user->file ?
					   prog->user->file->name : "<input>")),
		any_probe_frame || any_fn_frame || em.nregexes ?
		"sizeof(struct tp_frames)" : "0");
	emit_dwarf_module_fields(&em, o);
	emit_usym_module_fields(&em, o);
	fputs("};\n", o);

done:
	for (int i = 0; i < np; i++)
		if (pos[i].b) {
			free(pos[i].b->text);
			free(pos[i].b->use);
			free(pos[i].b->calls);
			free(pos[i].b->cellwords);
			free(pos[i].b->argcount);
			free(pos[i].b);
		}
	for (int i = 0; i < em.nfns; i++) {
		struct body *b = em.fns[i]->body;

		if (!b)
			continue;
		free(b->text);
		free(b->use);
		free(b->calls);
		free(b->cellwords);
		free(b->argcount);
		free(b);
	}
	free(pframe);
	free(fframe);
	free(pglobals);
	free(pos);
	free(em.globals);
	free(em.fns);
	free(em.pkeys);
	free(em.pvals);
	free(em.cnames);
	free(em.idxbufs);
	free(em.regexes);
	return em.errors ? -1 : 0;
}
