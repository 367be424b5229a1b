/* dump.c - what pass 2 made, in readable form: -p2, -l, -L, --dump-*. */
#include <stdlib.h>
#include <string.h>

#include "debuginfo/dwarf-api.h"
#include "parse/parse.h"
#include "parse/print.h"
#include "providers/provider.h"
#include "xalloc.h"

static void sym_line(FILE *out, const struct symbol *sym)
{
	fputs(sym->name, out);
	if (sym->arity > 0) {
		if (sym->wrap)		/* as declared: ring%[10] */
			fputc('%', out);
		if (sym->size)
			fprintf(out, "[%lld]", (long long)sym->size);
		fprintf(out, ":%s [", ast_type_name(sym->type));
		for (int i = 0; i < sym->arity; i++)
			fprintf(out, "%s%s", i ? ", " : "",
				ast_type_name(sym->key[i]));
		fputc(']', out);
	} else {
		fprintf(out, ":%s", ast_type_name(sym->type));
	}
}

static int sym_cmp(const void *a, const void *b)
{
	return strcmp((*(struct symbol *const *)a)->name,
		      (*(struct symbol *const *)b)->name);
}

/* Symbols of a list sorted by name; the caller frees. */
static struct symbol **sorted(const struct symbol *list, int *n)
{
	struct symbol **v;
	int k = 0;

	for (const struct symbol *s = list; s; s = s->next)
		k++;
	v = xcalloc((size_t)k + 1, sizeof(*v));
	k = 0;
	for (const struct symbol *s = list; s; s = s->next)
		v[k++] = (struct symbol *)s;
	qsort(v, (size_t)k, sizeof(*v), sym_cmp);
	*n = k;
	return v;
}

static void function_sig(FILE *out, const struct function *fn)
{
	fprintf(out, "%s:%s (", fn->name, ast_type_name(fn->type));
	if (fn->params || !fn->decl->params) {
		for (const struct symbol *p = fn->params; p; p = p->next)
			fprintf(out, "%s%s:%s", p == fn->params ? "" : ", ",
				p->name, ast_type_name(p->type));
	} else {
		for (const struct param *p = fn->decl->params; p; p = p->next)
			fprintf(out, "%s%s:%s", p == fn->decl->params ? "" : ", ",
				p->name, ast_type_name(p->type));
	}
	fputc(')', out);
}

static int fn_cmp(const void *a, const void *b)
{
	const struct function *x = *(struct function *const *)a;
	const struct function *y = *(struct function *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->nparams != y->nparams)
		return x->nparams - y->nparams;
	return (int)(x->decl->priority - y->decl->priority);
}


/* '!' (sufficient, and so optional too) or '?' after a probe's name, as
 * its point was last written */
static void point_flag(FILE *out, const struct dprobe *p)
{
	if (p->written && p->written->sufficient)
		fputc('!', out);
	else if (p->written && p->written->optional)
		fputc('?', out);
}

/*
 * A probe's condition as stap's -p2 prints it in the probe's name: each
 * operand of an operator in parentheses, globals by their C names
 * (__global_g) once resolved; the script's point behind an alias is
 * printed as written, its names plain. A condition reads only globals
 * and literals.
 */
static void cond_expr(FILE *out, const struct expr *x, const char *g)
{
	switch (x->kind) {
	case E_NUM:
		fprintf(out, "%lld", (long long)x->num);
		break;
	case E_STR:
		print_string_literal(out, x->str, x->len);
		break;
	case E_VAR:
		fprintf(out, "%s%s", g, x->str);
		break;
	case E_INDEX:
		fprintf(out, "%s%s[", g, x->str);
		for (const struct expr *a = x->args; a; a = a->next) {
			cond_expr(out, a, g);
			if (a->next)
				fputs(", ", out);
		}
		fputc(']', out);
		break;
	case E_IN:
		fputc('[', out);
		for (const struct expr *a = x->args; a; a = a->next) {
			cond_expr(out, a, g);
			if (a->next)
				fputs(", ", out);
		}
		fprintf(out, "] in %s%s", g, x->str);
		break;
	case E_BINARY:
		fputc('(', out);
		cond_expr(out, x->a, g);
		fprintf(out, ") %s (", ast_op_name(x->op));
		cond_expr(out, x->b, g);
		fputc(')', out);
		break;
	case E_UNARY:
		fprintf(out, "%s(", ast_op_name(x->op));
		cond_expr(out, x->a, g);
		fputc(')', out);
		break;
	case E_TERNARY:
		fputc('(', out);
		cond_expr(out, x->a, g);
		fputs(") ? (", out);
		cond_expr(out, x->b, g);
		fputs(") : (", out);
		cond_expr(out, x->c, g);
		fputc(')', out);
		break;
	default:
		print_expr(out, x);
		break;
	}
}

static void cond_suffix(FILE *out, const struct expr *cond, bool resolved)
{
	if (!cond)
		return;
	fputs(" if (", out);
	cond_expr(out, cond, resolved ? "__global_" : "");
	fputc(')', out);
}

/* A point as written, as stap's derivations print it: name, '!' or '?',
 * condition (its names resolved or plain) */
static void written_point(FILE *out, const struct probe_point *pp,
			  bool resolved)
{
	print_probe_point_name(out, pp);
	fputs(pp->sufficient ? "!" : pp->optional ? "?" : "", out);
	cond_suffix(out, pp->cond, resolved);
}

/* An alias's points as stap prints them: "= p1, p2" or "+= p" */
void print_alias_points(FILE *out, const struct decl *d)
{
	fputs(d->append ? " += " : " = ", out);
	for (const struct probe_point *p = d->points; p; p = p->next) {
		written_point(out, p, false);
		if (p->next)
			fputs(", ", out);
	}
}

/* Does the condition read a global? stap then adds one begin probe,
 * which sets each condition's first value. */
static bool cond_reads_global(const struct expr *x)
{
	if (!x)
		return false;
	if (x->kind == E_VAR || x->kind == E_INDEX || x->kind == E_IN)
		return true;
	for (const struct expr *a = x->args; a; a = a->next)
		if (cond_reads_global(a))
			return true;
	return cond_reads_global(x->a) || cond_reads_global(x->b) ||
	       cond_reads_global(x->c);
}

/* A .callee(...) probe: listed_as and pn() name it under its caller. */
static bool is_callee(const struct dprobe *p)
{
	return p->dwarf && p->dwarf->caller;
}

/* Where -p2 says a probe came from, as stap prints it: a DWARF probe
 * from its resolved point, any other from the aliases it came through
 * (innermost first) and the script probe's points, as written. */
static void derivation(FILE *out, const struct dprobe *p)
{
	fputs(" /* <- ", out);
	if (p->dwarf || p->uprobe_resolved) {
		/* a label's probe derives from its point with the label */
		fputs(p->label || is_callee(p) ? p->listed_as : p->name, out);
		point_flag(out, p);
		cond_suffix(out, p->cond, true);
	} else {
		if (p->derived)
			fprintf(out, "%s <- ", p->derived);
		for (const struct probe_point *pp = p->decl->points; pp;
		     pp = pp->next) {
			written_point(out, pp, !p->derived);
			if (pp->next)
				fputc(',', out);
		}
	}
	fputs(" */\n", out);
}

/*
 * The order -p2 lists the globals in, as stap 4.8 does: the order its
 * name resolution first meets them. It reads the probes in turn (each
 * body, then its condition), an array's indexes before the array and an
 * assignment's target before its value, and the functions after every
 * probe, in the order they were first called. A global met nowhere
 * (an initializer only, or uses in code pass 2 dropped) is not listed,
 * as stap drops it.
 */
struct gorder {
	struct symbol **g;		/* the symbols, in the order met */
	int n, met;
	const struct function **fn;	/* the functions to read, in order */
	int nfn, fncap;
};

static void order_sym(struct gorder *o, const struct symbol *sym)
{
	for (int i = o->met; i < o->n; i++)
		if (o->g[i] == sym) {
			memmove(o->g + o->met + 1, o->g + o->met,
				(size_t)(i - o->met) * sizeof(*o->g));
			o->g[o->met++] = (struct symbol *)sym;
			return;
		}
}

/* fn and the overloads it passes to with next */
static void order_fn(struct gorder *o, const struct function *fn)
{
	for (; fn; fn = fn->overload) {
		bool seen = false;

		for (int i = 0; i < o->nfn && !seen; i++)
			seen = o->fn[i] == fn;
		if (seen)
			continue;
		if (o->nfn == o->fncap) {
			o->fncap = o->fncap ? 2 * o->fncap : 16;
			o->fn = xrealloc(o->fn,
					 (size_t)o->fncap * sizeof(*o->fn));
		}
		o->fn[o->nfn++] = fn;
	}
}

/* one expression (x->next is a sibling in the caller's list) */
static void order_expr(struct gorder *o, const struct expr *x)
{
	if (!x)
		return;
	switch (x->kind) {
	case E_VAR:
		if (x->ref)
			order_sym(o, x->ref);
		break;
	case E_INDEX:
	case E_IN:
	case E_CALL:
		for (const struct expr *a = x->args; a; a = a->next)
			order_expr(o, a);
		if (x->ref && x->kind == E_CALL)
			order_fn(o, x->ref);
		else if (x->ref)
			order_sym(o, x->ref);
		break;
	case E_EMBEDDED:
	case E_NUM:
	case E_STR:
	case E_WILD:
		break;
	default:
		order_expr(o, x->a);
		order_expr(o, x->b);
		order_expr(o, x->c);
		for (const struct expr *a = x->args; a; a = a->next)
			order_expr(o, a);
		for (const struct chain *c = x->chain; c; c = c->next)
			order_expr(o, c->index);
		break;
	}
}

static void order_stmt(struct gorder *o, const struct stmt *st)
{
	for (; st; st = st->next) {
		order_expr(o, st->init);
		order_expr(o, st->e);
		order_expr(o, st->incr);
		if (st->fe) {
			for (const struct expr *k = st->fe->keys; k; k = k->next)
				order_expr(o, k);
			order_expr(o, st->fe->array);
			order_expr(o, st->fe->value);
			order_expr(o, st->fe->limit);
		}
		order_stmt(o, st->body);
		order_stmt(o, st->else_body);
	}
}

/* The globals in that order (*n of them); *called: the functions the
 * probes reach, *ncalled of them (the caller frees both). */
static struct symbol **globals_in_order(const struct program *prog, int *n,
					const struct function ***called,
					int *ncalled)
{
	struct gorder o = { .g = sorted(prog->globals, &o.n) };

	for (const struct dprobe *p = prog->probes; p; p = p->next) {
		order_stmt(&o, p->body);
		order_expr(&o, p->cond);
	}
	for (int i = 0; i < o.nfn; i++)	/* grows as calls are met */
		if (o.fn[i]->decl)
			order_stmt(&o, o.fn[i]->decl->body);
	*called = o.fn;
	*ncalled = o.nfn;
	*n = o.met;
	return o.g;
}

/* A probe's or function's locals, in the order the same walk meets them
 * in its body (stap's order); one that only code pass 2 dropped held is
 * not listed. */
static void locals(FILE *out, const struct symbol *list,
		   const struct stmt *body, const char *indent)
{
	struct gorder o = { .g = sorted(list, &o.n) };

	order_stmt(&o, body);
	free(o.fn);
	if (o.met)
		fprintf(out, "%s# locals\n", indent);
	for (int i = 0; i < o.met; i++) {
		fputs(indent, out);
		sym_line(out, o.g[i]);
		fputc('\n', out);
	}
	free(o.g);
}

/* A global written and never read: stap prints it at exit from an end
 * probe of its own, which -p2 lists after the script's probes with the
 * locals its loop over an array uses. */
static void exit_printer(FILE *out, const struct symbol *g)
{
	fputs("end /* <- end */\n", out);
	if (g->arity <= 0)
		return;
	fputs("  # locals\n", out);
	for (int i = 0; i < g->arity; i++)
		fprintf(out, "  __idx%d:%s\n", i, ast_type_name(g->key[i]));
	if (g->type != TYPE_STATS)
		fprintf(out, "  __val:%s\n", ast_type_name(g->type));
}

/* The script's top-level %{ %} blocks, which stap lists first. (stap
 * lists its tapsets' blocks after them; ours are other code than stap's,
 * and -p2 output that changed with every edit of a tapset's C would
 * serve no one, so they are left out.) */
static void embedded_blocks(FILE *out, const struct program *prog)
{
	bool any = false;

	for (const struct decl *d = prog->user->decls; d; d = d->next)
		if (d->kind == D_EMBEDDED) {
			if (!any)
				fputs("# global embedded code\n", out);
			any = true;
			fprintf(out, "%%{%s%%}\n", d->code);
		}
}

void dump_program(FILE *out, const struct program *prog)
{
	int n, nf = 0;
	bool cond_begin = false;
	const struct function **called;
	int ncalled;
	struct symbol **g = globals_in_order(prog, &n, &called, &ncalled);
	struct function **fv;

	embedded_blocks(out, prog);
	if (n)
		fputs("# globals\n", out);
	for (int i = 0; i < n; i++) {
		sym_line(out, g[i]);
		fputc('\n', out);
	}
	/* the functions the probes call, directly or not: what stap's
	 * resolution pulls in (so -u lists no uncalled one either) */
	fv = xcalloc((size_t)ncalled + 1, sizeof(*fv));
	for (int i = 0; i < ncalled; i++)
		fv[nf++] = (struct function *)called[i];
	free(called);
	qsort(fv, (size_t)nf, sizeof(*fv), fn_cmp);
	if (nf)
		fputs("# functions\n", out);
	for (int i = 0; i < nf; i++) {
		function_sig(out, fv[i]);	/* (stap shows no priority) */
		fputc('\n', out);
		locals(out, fv[i]->locals, fv[i]->decl->body, "  ");
	}
	free(fv);
	fputs("# probes\n", out);
	for (const struct dprobe *p = prog->probes; p; p = p->next) {
		fputs(p->name, out);
		point_flag(out, p);
		cond_suffix(out, p->cond, true);
		cond_begin |= cond_reads_global(p->cond);
		if (p->process && p->process_event == PROC_NONE)
			fprintf(out, " /* pc=.%s+%#llx */",
				p->uprobe_pie ? "dynamic" : "absolute",
				(unsigned long long)p->uprobe_pc);
		else if (p->dwarf)
			dwarf_dump_pc(out, p->dwarf);
		derivation(out, p);
		locals(out, p->locals, p->body, "  ");
		dwarf_dump_targets(out, p);
	}
	if (cond_begin)
		fputs("begin /* <- begin */\n", out);
	for (int i = 0; i < n; i++)
		if (g[i]->print_at_exit)
			exit_printer(out, g[i]);
	free(g);
}

/* ---- listings ---- */

/* One listed probe: its name and its variables ("n:long", "$file:struct
 * file*"), in order. */
struct listed {
	const char *name;
	char **vars;
	int nvars, seq;
};

static int listed_cmp(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->seq - y->seq;
}

static void listed_vars(struct session *s, struct listed *l,
			const struct dprobe *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int nl;
	struct symbol **v;

	if (!f)
		out_of_memory();
	/* tokens end at spaces; a DWARF type may hold spaces, not " $".
	 * The locals in the order the alias's body first sets them, as
	 * stap -L lists them (the list holds them newest first). */
	nl = 0;
	for (const struct symbol *q = p->locals; q; q = q->next)
		nl++;
	v = xcalloc((size_t)nl + 1, sizeof(*v));
	nl = 0;
	for (const struct symbol *q = p->locals; q; q = q->next)
		v[nl++] = (struct symbol *)q;
	/* a netfilter probe's context variables first (stap makes its
	 * __nf_* locals before the body's) */
	for (int pass = p->netfilter ? 0 : 1; pass < 2; pass++)
		for (int i = nl - 1; i >= 0; i--) {
			int slot;

			if (p->netfilter &&
			    netfilter_local(v[i]->name, &slot) != (pass == 0))
				continue;
			fputc('\n', f);
			sym_line(f, v[i]);
		}
	free(v);
	if (p->dwarf) {
		char *dbuf = NULL;
		size_t dlen = 0;
		FILE *d = open_memstream(&dbuf, &dlen);

		if (!d)
			out_of_memory();
		dwarf_list_vars(s, d, p->dwarf);
		fclose(d);
		for (char *q = dbuf; (q = strstr(q, " $")); q++)
			*q = '\n';
		fputs(dbuf, f);
		free(dbuf);
	}
	for (int i = 1; i <= process_mark_nargs(p); i++)
		fprintf(f, "\n$arg%d:long", i);
	/* (stap 4.8 lists $argN for .syscall.return too, where they are
	 * errors, and not its $return; and the same list for every other
	 * process event: begin, end, thread.begin, thread.end) */
	if (p->process_event != PROC_NONE)
		fputs("\n$syscall:long\n$arg1:long\n$arg2:long\n$arg3:long"
		      "\n$arg4:long\n$arg5:long\n$arg6:long", f);
	fclose(f);
	for (char *tok = strtok(buf, "\n"); tok; tok = strtok(NULL, "\n")) {
		l->vars = xrealloc(l->vars, (size_t)(l->nvars + 1) *
				   sizeof(*l->vars));
		l->vars[l->nvars++] = xstrdup(tok);
	}
	free(buf);
}

/*
 * One line per point name, sorted. Several probes can share a name (the
 * inline instances of a function, the points of an alias): a line shows
 * the variables every one of them has, in the order they first appear,
 * as stap -L does.
 */
static int list_lines(struct session *s, const struct program *prog,
		      bool vars)
{
	struct listed *v = xcalloc((size_t)prog->nprobes + 1, sizeof(*v));
	int n = 0;

	for (const struct dprobe *p = prog->probes; p; p = p->next) {
		/* a mark lists as the mark, though pp() is its address */
		v[n].name = p->mark ? pp_text(s, p->point) :
			    p->listed_as ? p->listed_as : p->name;
		v[n].seq = n;
		if (vars)
			listed_vars(s, &v[n], p);
		n++;
	}
	qsort(v, (size_t)n, sizeof(*v), listed_cmp);
	for (int i = 0, j; i < n; i = j) {
		const char **tok = NULL;
		int *count = NULL, ntok = 0;

		for (j = i; j < n && strcmp(v[j].name, v[i].name) == 0; j++)
			for (int k = 0; k < v[j].nvars; k++) {
				int t = 0;

				while (t < ntok && strcmp(tok[t], v[j].vars[k]))
					t++;
				if (t == ntok) {
					tok = xrealloc(tok, (size_t)(ntok + 1) *
						       sizeof(*tok));
					count = xrealloc(count, (size_t)(ntok + 1) *
							 sizeof(*count));
					tok[ntok] = v[j].vars[k];
					count[ntok++] = 0;
				}
				count[t]++;
			}
		fputs(v[i].name, stdout);
		for (int t = 0; t < ntok; t++)
			if (count[t] == j - i)
				printf(" %s", tok[t]);
		putchar('\n');
		free(tok);
		free(count);
	}
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < v[i].nvars; k++)
			free(v[i].vars[k]);
		free(v[i].vars);
	}
	free(v);
	return n;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_probes(struct session *s, const char *pattern, bool vars)
{
	char *text = arena_printf(&s->arena, "probe %s {}", pattern);
	struct script *sc = parse_text(s, "<pattern>", text, strlen(text),
				       true);
	struct elab e;
	const char **names = NULL;
	int n = 0, errors = s->errors;

	if (s->errors > errors || !sc->decls || sc->decls->kind != D_PROBE)
		return 1;
	/* A variable that cannot be read at some point (optimized away,
	 * an unsupported location) does not keep the point, or the types of
	 * the variables around it, from being listed, as with stap -L. */
	s->skip_badvars = true;
	/* nor does stap -L warn about what the points' bodies do */
	s->no_warnings = true;
	memset(&e, 0, sizeof(e));
	e.s = s;
	e.prog = ANEW(&s->arena, struct program);
	e.prog->user = sc;
	e.idx = tapset_index_build(s);
	elab_add_script(&e, sc, NULL);
	/* aliases list under their own names (each probe of an alias shows
	 * the alias's variables); anything else as the points it makes;
	 * each point of the pattern on its own (syscall.{read,write}) */
	for (const struct probe_point *pt = sc->decls->points; pt;
	     pt = pt->next)
		probes_need_aliases(&e, pt);
	{
		int max = e.idx->naliases + 1, nnames = 0;
		const struct alias_def **als = xcalloc((size_t)max, sizeof(*als));

		for (const struct probe_point *pt = sc->decls->points; pt;
		     pt = pt->next) {
			struct probe_point *one = ANEW(&s->arena,
						       struct probe_point);
			int nal;

			*one = *pt;
			one->next = NULL;
			nal = probes_matching_aliases(&e, one, als, max);
			if (!nal) {
				struct decl *d = ast_decl(s, D_PROBE, &pt->loc);

				*d = *sc->decls;
				d->next = NULL;
				d->points = one;
				probes_expand(&e, d);
				continue;
			}
			/* a wildcard matches provider points too ("*" is
			 * begin, end, ... and the aliases), and aliases with
			 * a suffix ("tcp.*.return": tcp.receive.return) */
			{
				struct decl *d = ast_decl(s, D_PROBE, &pt->loc);

				*d = *sc->decls;
				d->next = NULL;
				d->points = one;
				probes_expand_wild_rest(&e, d);
			}
			names = xrealloc(names, (size_t)(nnames + nal) *
					 sizeof(*names));
			for (int i = 0; i < nal; i++) {
				struct decl *d = ast_decl(s, D_PROBE,
							  &als[i]->name->loc);
				struct dprobe *last = e.prog->probes;
				const char *name = pp_text(s, als[i]->name);

				while (last && last->next)
					last = last->next;
				d->points = ANEW(&s->arena, struct probe_point);
				*d->points = *als[i]->name;
				d->points->next = NULL;
				d->points->optional = true;	/* list, not judge */
				d->body = sc->decls->body;
				names[nnames++] = name;
				probes_expand(&e, d);
				/* every probe the alias made lists as the alias */
				for (struct dprobe *p = last ? last->next :
				     e.prog->probes; p; p = p->next)
					p->name = name;
			}
		}
		free(als);
	}
	/* a point an alias made through a suffix lists as the alias with
	 * the suffix (tcp.disconnect.call), as pn() names it; through a
	 * wildcard suffix ("tcp.receive.*") as the point it is, with its
	 * '!' or '?' in the alias, or as the alias the suffix reached by
	 * its whole name (kprocess.exec.*: syscall.execve.return), as
	 * stap lists it */
	for (struct dprobe *p = e.prog->probes; p; p = p->next) {
		/* (a callee's listing is its point under its caller) */
		bool callee = is_callee(p);
		const char **name = callee ? &p->listed_as : &p->name;

		if (!p->derived || !p->pn || p->mark ||
		    (p->listed_as && !callee))
			continue;
		if (!strpbrk(p->pn, "*?[")) {
			if (!callee)
				p->name = p->pn;
		} else if (p->via && !callee) {
			p->name = p->via;
		} else if (p->written && p->written->sufficient) {
			*name = arena_printf(&s->arena, "%s!", *name);
		} else if (p->written && p->written->optional) {
			*name = arena_printf(&s->arena, "%s?", *name);
		}
	}
	for (struct dprobe *p = e.prog->probes; p; p = p->next) {
		e.fn = NULL;
		e.probe = p;
		e.locals = &p->locals;
		e.file = p->decl->loc.file;
		dwarf_resolve_probe(&e, p);
		resolve_body(&e, p->body);
	}
	if (vars && s->errors == errors)
		types_infer(&e);
	free(e.work);
	free(e.iterating);
	free(names);
	n = list_lines(s, e.prog, vars);
	return s->errors > errors || n < 0 ? 1 : 0;
}

int dump_functions(struct session *s, FILE *out)
{
	struct tapset_index *idx = tapset_index_build(s);
	char **lines = NULL;
	int n = 0, cap = 0;

	tapset_need_aliases(s, idx, NULL);

	for (struct tapset_file *f = idx->files; f; f = f->next)
		for (const struct decl *d = f->script ? f->script->decls :
		     NULL; d; d = d->next) {
			char *buf = NULL;
			size_t len = 0;
			FILE *m;

			if (d->kind != D_FUNCTION || d->private_ ||
			    d->name[0] == '_')
				continue;
			m = open_memstream(&buf, &len);
			if (!m)
				continue;
			fprintf(m, "%s:%s (", d->name, ast_type_name(d->type));
			for (const struct param *p = d->params; p; p = p->next)
				fprintf(m, "%s%s:%s", p == d->params ? "" : ", ",
					p->name, ast_type_name(p->type));
			fputc(')', m);
			fclose(m);
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				lines = xrealloc(lines, (size_t)cap * sizeof(*lines));
			}
			lines[n++] = buf;
		}
	if (n)
		qsort(lines, (size_t)n, sizeof(*lines), str_cmp);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	return s->errors ? 1 : 0;
}

int dump_probe_aliases(struct session *s, FILE *out)
{
	struct tapset_index *idx = tapset_index_build(s);

	tapset_need_aliases(s, idx, NULL);
	for (int i = 0; i < idx->naliases; i++) {
		const struct alias_def *al = &idx->aliases[i];

		print_probe_point(out, al->name);
		print_alias_points(out, al->decl);
		fputc('\n', out);
	}
	return s->errors ? 1 : 0;
}

int dump_probe_types(struct session *s, FILE *out)
{
	static const struct provider *const all[] = {
		&pp_core, &pp_timer, &pp_kprobe, &pp_kernel, &pp_trace,
		&pp_process, &pp_netfilter, &pp_perf, &pp_procfs, NULL
	};

	(void)s;
	for (int i = 0; all[i]; i++)
		for (int j = 0; all[i]->patterns[j]; j++)
			fprintf(out, "%s\n", all[i]->patterns[j]);
	return 0;
}
