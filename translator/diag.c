/* diag.c - "FILE:LINE:COL: kind: message", the source line, a caret. */
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "session.h"

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
	for (const char *q = start; q < p; q++)
		fputc((*q == '\0' || *q == '\r') ? ' ' : *q, s->err);
	fputs("\n\t", s->err);
	for (i = 1; i < l->col && start + i - 1 < p; i++)
		fputc(start[i - 1] == '\t' ? '\t' : ' ', s->err);
	fputs("^\n", s->err);
}

void diag_vat(struct session *s, const struct loc *l, const char *kind,
	      const char *fmt, va_list ap)
{
	const struct expansion *e;

	if (s->quiet)
		return;
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
	for (e = l->exp; e; e = e->site.exp) {
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
