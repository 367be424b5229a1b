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

static void locals(FILE *out, const struct symbol *list, const char *indent)
{
	int n;
	struct symbol **v = sorted(list, &n);

	if (n)
		fprintf(out, "%s# locals\n", indent);
	for (int i = 0; i < n; i++) {
		fputs(indent, out);
		sym_line(out, v[i]);
		fputc('\n', out);
	}
	free(v);
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

void print_alias_points(FILE *out, const struct decl *d)
{
	fputs(d->append ? " += " : " = ", out);
	for (const struct probe_point *p = d->points; p; p = p->next) {
		print_probe_point(out, p);
		if (p->next)
			fputs(", ", out);
	}
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

/* Where -p2 says a probe came from, as stap prints it: a DWARF probe
 * from its resolved point, any other from the aliases it came through
 * (innermost first) and the script probe's points, as written. */
static void derivation(FILE *out, const struct dprobe *p)
{
	fputs(" /* <- ", out);
	if (p->dwarf) {
		fputs(p->name, out);
		point_flag(out, p);
	} else {
		if (p->derived)
			fprintf(out, "%s <- ", p->derived);
		for (const struct probe_point *pp = p->decl->points; pp;
		     pp = pp->next) {
			print_probe_point(out, pp);
			if (pp->next)
				fputc(',', out);
		}
	}
	fputs(" */\n", out);
}

void dump_program(FILE *out, const struct program *prog)
{
	int n, nf = 0;
	struct symbol **g = sorted(prog->globals, &n);
	struct function **fv;

	if (n)
		fputs("# globals\n", out);
	for (int i = 0; i < n; i++) {
		sym_line(out, g[i]);
		if (g[i]->decl && g[i]->decl->init) {
			fputs(" = ", out);
			print_expr(out, g[i]->decl->init);
		}
		fputs(g[i]->print_at_exit ? "  /* printed at exit */\n" : "\n",
		      out);
	}
	free(g);
	for (const struct function *f = prog->functions; f; f = f->next)
		nf++;
	fv = xcalloc((size_t)nf + 1, sizeof(*fv));
	nf = 0;
	for (const struct function *f = prog->functions; f; f = f->next)
		fv[nf++] = (struct function *)f;
	qsort(fv, (size_t)nf, sizeof(*fv), fn_cmp);
	if (nf)
		fputs("# functions\n", out);
	for (int i = 0; i < nf; i++) {
		function_sig(out, fv[i]);
		if (fv[i]->decl->priority)
			fprintf(out, " : %lld", (long long)fv[i]->decl->priority);
		fputc('\n', out);
		locals(out, fv[i]->locals, "  ");
	}
	free(fv);
	fputs("# probes\n", out);
	for (const struct dprobe *p = prog->probes; p; p = p->next) {
		fputs(p->name, out);
		point_flag(out, p);
		if (p->process && p->process_event == PROC_NONE)
			fprintf(out, " /* pc=.%s+%#llx */",
				p->uprobe_pie ? "dynamic" : "absolute",
				(unsigned long long)p->uprobe_pc);
		else if (p->dwarf)
			dwarf_dump_pc(out, p->dwarf);
		derivation(out, p);
		locals(out, p->locals, "  ");
		dwarf_dump_targets(out, p);
	}
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
	 * '!' or '?' in the alias, as stap lists it */
	for (struct dprobe *p = e.prog->probes; p; p = p->next) {
		if (!p->derived || !p->pn || p->mark || p->listed_as)
			continue;
		if (!strpbrk(p->pn, "*?["))
			p->name = p->pn;
		else if (p->written && p->written->sufficient)
			p->name = arena_printf(&s->arena, "%s!", p->name);
		else if (p->written && p->written->optional)
			p->name = arena_printf(&s->arena, "%s?", p->name);
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

	for (struct tapset_file *f = idx->files; f; f = f->next)
		for (const struct decl *d = f->script->decls; d; d = d->next) {
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
