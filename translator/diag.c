#define _GNU_SOURCE	/* vasprintf */
/* diag.c - "FILE:LINE:COL: kind: message", the source line, a caret. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "session.h"
#include "xalloc.h"

void diag_show_line(struct session *s, const struct loc *l)
{
	const char *p, *start, *end;
	int line = 1, i;

	if (!l->file || l->line <= 0)
		return;
	start = l->file->text;
	end = l->file->text + l->file->len;
	/* Walk to the line; diagnostics are rare, a scan is fine. */
	for (p = start; p < end && line < l->line; p++)
		if (*p == '\n') {
			line++;
			start = p + 1;
		}
	if (line != l->line)
		return;
	for (p = start; p < end && *p != '\n'; p++)
		;
	fputc('\t', s->err);
	for (const unsigned char *q = (const unsigned char *)start;
	     q < (const unsigned char *)p; q++) {
		int k = *q >= 0xf0 && *q < 0xf5 ? 3 : *q >= 0xe0 ? 2 :
			*q >= 0xc2 && *q < 0xe0 ? 1 : 0;
		bool ok = *q < 0x80;

		/* keep the line valid UTF-8: a stray byte shows as '?' */
		if (!ok && k && (const unsigned char *)p - q > k) {
			ok = true;
			for (int j = 1; j <= k; j++)
				ok &= (q[j] & 0xc0) == 0x80;
			if (ok) {
				fwrite(q, 1, (size_t)k + 1, s->err);
				q += k;
				continue;
			}
		}
		if (!ok)
			fputc('?', s->err);
		else
			fputc((*q == '\0' || *q == '\r') ? ' ' : *q, s->err);
	}
	fputs("\n\t", s->err);
	for (i = 1; i < l->col && start + i - 1 < p; i++)
		fputc(start[i - 1] == '\t' ? '\t' : ' ', s->err);
	fputs("^\n", s->err);
}

struct held {
	int line, col, seq;
	char *text;
};

struct diag_buffer {
	struct held *v;
	int n, cap;
	FILE *err;		/* where s->err pointed before */
	char *buf;
	size_t len;
};

void diag_hold(struct session *s)
{
	struct diag_buffer *b = xcalloc(1, sizeof(*b));

	b->err = s->err;
	s->dbuf = b;
}

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->line != y->line)
		return x->line - y->line;
	if (x->col != y->col)
		return x->col - y->col;
	return x->seq - y->seq;
}

void diag_release(struct session *s)
{
	struct diag_buffer *b = s->dbuf;

	if (!b)
		return;
	s->dbuf = NULL;
	if (b->n)
		qsort(b->v, (size_t)b->n, sizeof(*b->v), held_cmp);
	for (int i = 0; i < b->n; i++) {
		fputs(b->v[i].text, b->err);
		free(b->v[i].text);
	}
	free(b->v);
	free(b);
}

static void diag_print(struct session *s, const struct loc *l,
		       const char *kind, const char *fmt, va_list ap);

void diag_vat(struct session *s, const struct loc *l, const char *kind,
	      const char *fmt, va_list ap)
{
	struct diag_buffer *b = s->dbuf;
	const struct loc *key = l;
	FILE *saved = s->err;
	struct held *h;

	if (!b) {
		diag_print(s, l, kind, fmt, ap);
		return;
	}
	if (s->quiet || (s->max_errors > 0 && s->errors >= s->max_errors &&
			 strcmp(kind, "warning") != 0))
		return;		/* would not be printed anyway */
	/* sort by the place in the file being read: a macro's use site */
	while (key && key->exp)
		key = &key->exp->site;
	s->err = open_memstream(&b->buf, &b->len);
	if (!s->err) {
		s->err = saved;
		diag_print(s, l, kind, fmt, ap);
		return;
	}
	diag_print(s, l, kind, fmt, ap);
	fclose(s->err);
	s->err = saved;
	if (!b->len) {
		free(b->buf);
		return;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = xrealloc(b->v, (size_t)b->cap * sizeof(*b->v));
	}
	h = &b->v[b->n];
	h->line = key ? key->line : 0;
	h->col = key ? key->col : 0;
	h->seq = b->n++;
	h->text = b->buf;
	b->buf = NULL;
}

static void diag_print(struct session *s, const struct loc *l,
		       const char *kind, const char *fmt, va_list ap)
{
	const struct expansion *e;
	int n;

	if (s->quiet) {
		/* kept, to explain a failure that the silence leads to */
		if (!s->quiet_why && strcmp(kind, "warning") != 0) {
			char *msg;

			if (vasprintf(&msg, fmt, ap) >= 0) {
				s->quiet_why = arena_strdup(&s->arena, msg);
				free(msg);
				if (l)
					s->quiet_where = *l;
			}
		}
		return;
	}
	/* after max_errors, count but stay quiet (the driver says so) */
	if (s->max_errors > 0 && s->errors >= s->max_errors &&
	    strcmp(kind, "warning") != 0)
		return;
	if (l && l->file)
		fprintf(s->err, "%s:%d:%d: %s: ", l->file->name, l->line,
			l->col, kind);
	else
		fprintf(s->err, "tapir: %s: ", kind);
	vfprintf(s->err, fmt, ap);
	fputc('\n', s->err);
	if (!l)
		return;
	diag_show_line(s, l);
	for (e = l->exp, n = 0; e; e = e->site.exp, n++) {
		if (n == 3 && e->site.exp) {
			int more = 0;

			for (; e->site.exp; e = e->site.exp)
				more++;
			fprintf(s->err, "note: (%d more macro expansions)\n",
				more);
		}
		fprintf(s->err, "%s:%d:%d: note: in expansion of macro '@%s'\n",
			e->site.file->name, e->site.line, e->site.col,
			e->macro);
		diag_show_line(s, &e->site);
	}
}

void diag_at(struct session *s, const struct loc *l, const char *kind,
	     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vat(s, l, kind, fmt, ap);
	va_end(ap);
	if (strcmp(kind, "warning") == 0)
		s->warnings++;
	else
		s->errors++;
}

void diag_plain(struct session *s, const char *fmt, ...)
{
	va_list ap;

	fputs("tapir: ", s->err);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
	s->errors++;
}
