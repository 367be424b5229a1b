// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json.c - --json mode (tapir-run --json sets _tapir_json=1): the
 * script's output and the end-of-run print of globals as one JSON object
 * per line, each object one write (one frame) so that objects from
 * different CPUs never mix. The schema is doc/tapir.1's JSON OUTPUT:
 *
 *   {"type":"output","probe":PP,"data":TEXT[,"partial":true]}
 *   {"type":"scalar","probe":PP,"name":NAME,"data":VALUE}
 *   {"type":"map","probe":PP,"name":NAME,"key":[K...],"data":VALUE}
 *   {"type":"stats","probe":PP,"name":NAME[,"key":[K...]],
 *    "data":{"count":N,"min":N,"max":N,"sum":N,"avg":N}}
 *   {"type":"hist","probe":PP,"data":{"kind":"log","buckets":[B...]}}
 *   {"type":"hist","probe":PP,"data":{"kind":"linear","lo":N,"hi":N,
 *    "width":N,"buckets":[B...]}}
 *     B: {"value":V,"count":N} per bucket used, in order; a linear
 *     histogram's values below lo and above hi {"below":LO,"count":N},
 *     {"above":HI,"count":N}
 *
 * An object is measured first, then written in place in the transport's
 * buffer (tp_transport_write_fill()): no buffer of its own is needed.
 * Strings are JSON strings: valid UTF-8 passes as it is, quotes,
 * backslashes and control characters are escaped, and any byte that is
 * not part of valid UTF-8 becomes \u00XX (its value).
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "core.h"
#include "transport.h"

bool tp_json_mode;
module_param_named(_tapir_json, tp_json_mode, bool, 0);

/* The pieces of one object. */
enum tp_json_kind { TPJ_RAW, TPJ_STR };

struct tp_json_part {
	const char *s;
	u32 n;
	u32 kind;		/* enum tp_json_kind */
};

#define TPJ_MAX_PARTS	(16 + 4 * TP_MAX_JSON_KEYS)
#define TP_MAX_JSON_KEYS	9	/* a map's keys (SystemTap's limit) */

struct tp_json_obj {
	struct tp_json_part part[TPJ_MAX_PARTS];
	int nparts;
	char num[TP_MAX_JSON_KEYS + 5][24];	/* numbers, as text */
	int nnums;
	size_t len;
};

/* The length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t tp_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	u32 cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* @s as a JSON string at @d (NULL: only measure); its length. */
static size_t tp_json_escape(char *d, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t out = 0, i = 0;

#define PUT(ch) do { if (d) d[out] = (ch); out++; } while (0)
	PUT('"');
	while (i < n) {
		unsigned char ch = p[i];
		size_t k;

		if (ch == '"' || ch == '\\') {
			PUT('\\');
			PUT(ch);
		} else if (ch == '\n') {
			PUT('\\');
			PUT('n');
		} else if (ch == '\t') {
			PUT('\\');
			PUT('t');
		} else if (ch == '\r') {
			PUT('\\');
			PUT('r');
		} else if (ch >= 0x20 && ch < 0x80) {
			PUT(ch);
		} else if (ch >= 0x80 && (k = tp_utf8_seq(p + i, n - i))) {
			/* (PUT() evaluates its argument only when writing) */
			for (; k; k--, i++)
				PUT(p[i]);
			continue;
		} else {
			PUT('\\');
			PUT('u');
			PUT('0');
			PUT('0');
			PUT(hex[ch >> 4]);
			PUT(hex[ch & 15]);
		}
		i++;
	}
	PUT('"');
#undef PUT
	return out;
}

static void tpj_add(struct tp_json_obj *o, enum tp_json_kind kind,
		    const char *s, size_t n)
{
	struct tp_json_part *pt;

	if (WARN_ON_ONCE(o->nparts >= TPJ_MAX_PARTS))
		return;
	pt = &o->part[o->nparts++];
	pt->kind = kind;
	pt->s = s;
	pt->n = n;
	o->len += kind == TPJ_RAW ? n : tp_json_escape(NULL, s, n);
}

static void tpj_raw(struct tp_json_obj *o, const char *s)
{
	tpj_add(o, TPJ_RAW, s, strlen(s));
}

static void tpj_str(struct tp_json_obj *o, const char *s, size_t n)
{
	tpj_add(o, TPJ_STR, s, n);
}

static void tpj_long(struct tp_json_obj *o, s64 v)
{
	char *b;
	int n;

	if (WARN_ON_ONCE(o->nnums >= (int)ARRAY_SIZE(o->num)))
		return;
	b = o->num[o->nnums++];
	n = scnprintf(b, sizeof(o->num[0]), "%lld", (long long)v);
	tpj_add(o, TPJ_RAW, b, n);
}

static void tpj_arg(struct tp_json_obj *o, const struct tp_arg *a)
{
	if (a->type == TP_ARG_STRING)
		tpj_str(o, a->s, strlen(a->s));
	else
		tpj_long(o, a->l);
}

static void tpj_fill(char *dst, void *arg)
{
	struct tp_json_obj *o = arg;
	int i;

	for (i = 0; i < o->nparts; i++) {
		const struct tp_json_part *pt = &o->part[i];

		if (pt->kind == TPJ_RAW) {
			memcpy(dst, pt->s, pt->n);
			dst += pt->n;
		} else {
			dst += tp_json_escape(dst, pt->s, pt->n);
		}
	}
}

/* {"type":TYPE,"probe":PP */
static void tpj_begin(struct tp_json_obj *o, const char *type)
{
	const char *pp = tapir_probe_point();

	o->nparts = o->nnums = 0;
	o->len = 0;
	tpj_raw(o, "{\"type\":\"");
	tpj_raw(o, type);
	tpj_raw(o, "\",\"probe\":");
	tpj_str(o, pp, strlen(pp));
}

static void tpj_end(struct tp_json_obj *o)
{
	tpj_raw(o, "}\n");
	/* -ENOSPC: the transport counted the loss */
	tp_transport_write_fill(o->len, tpj_fill, o);
}

/* The context's room for an object (too big for a handler's stack). */
static struct tp_json_obj *tpj_obj(struct tp_context *c)
{
	BUILD_BUG_ON(sizeof(struct tp_json_obj) > sizeof(tp_rt(c)->json));
	return (struct tp_json_obj *)tp_rt(c)->json;
}

/* One piece of the script's output: an "output" object. */
static void tp_json_output(struct tp_context *c, const char *s, size_t n,
			   bool partial)
{
	struct tp_json_obj *o = tpj_obj(c);

	tpj_begin(o, "output");
	tpj_raw(o, ",\"data\":");
	tpj_str(o, s, n);
	if (partial)
		tpj_raw(o, ",\"partial\":true");
	tpj_end(o);
}

void tp_json_flush(struct tp_context *c)
{
	struct tp_rt *rt = tp_rt(c);
	const char *p = rt->print_buf, *end = p + rt->print_len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl) {
			tp_json_output(c, p, end - p, true);
			break;
		}
		tp_json_output(c, p, nl - p, false);
		p = nl + 1;
	}
	rt->print_len = 0;
}

static const char *const tp_stat_names[] = {
	"count", "min", "max", "sum", "avg",
};

void tp_json_global(struct tp_context *c, const char *type, const char *name,
		    const struct tp_arg *keys, int nkeys,
		    const struct tp_arg *data, int ndata)
{
	struct tp_json_obj *o = tpj_obj(c);
	int i;

	/* the handler's text output first, in its place */
	tp_print_flush(c);
	if (WARN_ON_ONCE(nkeys > TP_MAX_JSON_KEYS || ndata > 5 || ndata < 1))
		return;
	tpj_begin(o, type);
	tpj_raw(o, ",\"name\":");
	tpj_str(o, name, strlen(name));
	if (nkeys) {
		tpj_raw(o, ",\"key\":[");
		for (i = 0; i < nkeys; i++) {
			if (i)
				tpj_raw(o, ",");
			tpj_arg(o, &keys[i]);
		}
		tpj_raw(o, "]");
	}
	tpj_raw(o, ",\"data\":");
	if (!strcmp(type, "stats")) {
		tpj_raw(o, "{");
		for (i = 0; i < ndata; i++) {
			tpj_raw(o, i ? ",\"" : "\"");
			tpj_raw(o, tp_stat_names[i]);
			tpj_raw(o, "\":");
			tpj_arg(o, &data[i]);
		}
		tpj_raw(o, "}");
	} else {
		tpj_arg(o, &data[0]);
	}
	tpj_end(o);
}

/* ---- print(@hist_*(s)) ---- */

struct tp_json_hist {
	const char *pp;
	const struct tp_stat_desc *d;
	const struct tp_stat_cell *cell;
};

/* Append @n bytes of @s at @d + *len (NULL @d: only count). */
static void tpj_put(char *d, size_t *len, const char *s, size_t n)
{
	if (d)
		memcpy(d + *len, s, n);
	*len += n;
}

static void tpj_put_s(char *d, size_t *len, const char *s)
{
	tpj_put(d, len, s, strlen(s));
}

static void tpj_put_long(char *d, size_t *len, s64 v)
{
	char b[24];

	tpj_put(d, len, b, scnprintf(b, sizeof(b), "%lld", (long long)v));
}

/* The object for a histogram at @d (NULL: only measure); its length. */
static size_t tpj_hist(char *d, const struct tp_json_hist *h)
{
	const struct tp_stat_desc *sd = h->d;
	int nb = tp_stat_buckets(sd), b;
	bool first = true;
	size_t len = 0;

	tpj_put_s(d, &len, "{\"type\":\"hist\",\"probe\":");
	len += tp_json_escape(d ? d + len : NULL, h->pp, strlen(h->pp));
	if (sd->hist == TP_HIST_LOG) {
		tpj_put_s(d, &len, ",\"data\":{\"kind\":\"log\",\"buckets\":[");
	} else {
		tpj_put_s(d, &len, ",\"data\":{\"kind\":\"linear\",\"lo\":");
		tpj_put_long(d, &len, sd->lo);
		tpj_put_s(d, &len, ",\"hi\":");
		tpj_put_long(d, &len, sd->hi);
		tpj_put_s(d, &len, ",\"width\":");
		tpj_put_long(d, &len, sd->width);
		tpj_put_s(d, &len, ",\"buckets\":[");
	}
	for (b = 0; b < nb; b++) {
		const char *what = "{\"value\":";

		if (!h->cell->hist[b])
			continue;
		if (sd->hist == TP_HIST_LINEAR && b == 0)
			what = "{\"below\":";
		else if (sd->hist == TP_HIST_LINEAR && b == nb - 1)
			what = "{\"above\":";
		if (!first)
			tpj_put_s(d, &len, ",");
		first = false;
		tpj_put_s(d, &len, what);
		tpj_put_long(d, &len, tp_stat_bucket_value(sd, b));
		tpj_put_s(d, &len, ",\"count\":");
		tpj_put_long(d, &len, h->cell->hist[b]);
		tpj_put_s(d, &len, "}");
	}
	tpj_put_s(d, &len, "]}}\n");
	return len;
}

static void tpj_hist_fill(char *dst, void *arg)
{
	tpj_hist(dst, arg);
}

void tp_json_hist(struct tp_context *c, const struct tp_stat_desc *d,
		  const struct tp_stat_cell *cell)
{
	struct tp_json_hist h = { tapir_probe_point(), d, cell };

	/* the handler's text output first, in its place */
	tp_print_flush(c);
	tp_transport_write_fill(tpj_hist(NULL, &h), tpj_hist_fill, &h);
}
