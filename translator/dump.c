/* dump.c - what pass 2 made, in readable form: -p2, -l, -L, --dump-*. */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "print.h"
#include "provider.h"
#include "xalloc.h"

static void sym_line(FILE *out, const struct symbol *sym)
{
	fputs(sym->name, out);
	if (sym->arity > 0) {
		if (sym->size)
			fprintf(out, "[%lld]", (long long)sym->size);
		if (sym->wrap)
			fputc('%', out);
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
		fprintf(out, "%s /* <- ", p->name);
		print_probe_point(out, p->user);
		fputs(" */\n", out);
		locals(out, p->locals, "  ");
	}
}

/* ---- listings ---- */

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
	char **lines;
	const char **names = NULL;
	int n = 0, errors = s->errors;

	if (s->errors > errors || !sc->decls || sc->decls->kind != D_PROBE)
		return 1;
	memset(&e, 0, sizeof(e));
	e.s = s;
	e.prog = ANEW(&s->arena, struct program);
	e.prog->user = sc;
	e.idx = tapset_index_build(s);
	elab_add_script(&e, sc, NULL);
	/* aliases list under their own names (each probe of an alias shows
	 * the alias's variables); anything else as the points it makes */
	{
		int max = e.idx->naliases + 1;
		const struct alias_def **als = xcalloc((size_t)max, sizeof(*als));
		int nal;

		nal = probes_matching_aliases(&e, sc->decls->points, als, max);
		if (nal) {
			names = xcalloc((size_t)nal, sizeof(*names));
			for (int i = 0; i < nal; i++) {
				struct decl *d = ast_decl(s, D_PROBE,
							  &als[i]->name->loc);
				struct dprobe *last = e.prog->probes;

				while (last && last->next)
					last = last->next;
				d->points = ANEW(&s->arena, struct probe_point);
				*d->points = *als[i]->name;
				d->points->next = NULL;
				d->points->optional = true;	/* list, not judge */
				d->body = sc->decls->body;
				names[i] = pp_text(s, als[i]->name);
				probes_expand(&e, d);
				/* every probe the alias made lists as the alias */
				for (struct dprobe *p = last ? last->next :
				     e.prog->probes; p; p = p->next)
					p->name = names[i];
			}
		} else {
			probes_expand(&e, sc->decls);
		}
		free(als);
	}
	for (struct dprobe *p = e.prog->probes; p; p = p->next) {
		e.fn = NULL;
		e.probe = p;
		e.locals = &p->locals;
		e.file = p->decl->loc.file;
		resolve_body(&e, p->body);
	}
	if (vars && s->errors == errors)
		types_infer(&e);
	free(e.work);
	free(e.iterating);
	free(names);
	lines = xcalloc((size_t)e.prog->nprobes + 1, sizeof(*lines));
	for (struct dprobe *p = e.prog->probes; p; p = p->next) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int nl;
		struct symbol **v;

		if (!f)
			break;
		fputs(p->name, f);
		if (vars) {
			v = sorted(p->locals, &nl);
			for (int i = 0; i < nl; i++) {
				fputc(' ', f);
				sym_line(f, v[i]);
			}
			free(v);
		}
		fclose(f);
		lines[n++] = buf;
	}
	qsort(lines, (size_t)n, sizeof(*lines), str_cmp);
	for (int i = 0; i < n; i++) {
		if (!i || strcmp(lines[i], lines[i - 1]) != 0)
			printf("%s\n", lines[i]);
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return s->errors > errors ? 1 : 0;
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
		fputs(al->decl->append ? " += " : " = ", out);
		for (const struct probe_point *p = al->decl->points; p;
		     p = p->next) {
			print_probe_point(out, p);
			if (p->next)
				fputs(", ", out);
		}
		fputc('\n', out);
	}
	return s->errors ? 1 : 0;
}

int dump_probe_types(struct session *s, FILE *out)
{
	static const struct provider *const all[] = {
		&pp_core, &pp_timer, &pp_kprobe, &pp_kernel, NULL
	};

	(void)s;
	for (int i = 0; all[i]; i++)
		for (int j = 0; all[i]->patterns[j]; j++)
			fprintf(out, "%s\n", all[i]->patterns[j]);
	return 0;
}
