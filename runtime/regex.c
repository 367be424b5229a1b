// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * regex.c - the Pike VM behind `=~` and `!~` (regex.h), and the last
 * match that the tapset functions matched() and ngroups() read.
 *
 * One pass over the string. The threads of a position are kept in
 * priority order (the order a backtracking matcher would try them), at
 * most one per instruction: a thread reaching an instruction that a
 * higher-priority one reached at the same position is dropped, since
 * both would go on the same way. Threads started at an earlier position
 * come first; a new one starts at each position until something matched.
 * As stap's DFA does, the first position where some thread reaches MATCH
 * decides the start (the earliest of the threads matching there); from
 * then on only threads with that start go on, and a later MATCH of one
 * of them makes the match longer. A thread of that start that merged
 * into one of an earlier start is gone by then, and stap's DFA, which
 * merges them the same way, agrees: "baab" =~ ".+..|a" matches "a",
 * not "aab" (unit/oracle/regex.out). The epsilon closure is a loop over an explicit stack, so
 * nothing recurses and all memory is the caller's scratch.
 */
#include "regex.h"

#ifdef __KERNEL__
#include "tapir.h"
#endif

#if MAXSTRINGLEN >= TP_REGEX_UNSET
#error "regex matching keeps offsets in 16 bits: MAXSTRINGLEN must be below 65535"
#endif

struct tp_rx_list {
	u16 *pc;
	u16 *slots;		/* nslots per thread */
	unsigned int n;
};

struct tp_rx_run {
	const struct tp_regex *re;
	const u8 *s;
	unsigned int len;
	unsigned int nslots;
	u16 *mark;		/* per instruction: the last position + 1 it
				 * was reached at */
	u16 *stack;		/* closure stack: kind, a, b */
	u16 *cur;		/* the slots of the path being followed */
	u16 *best;
	bool found;
};

enum { TP_RX_PUSH_PC, TP_RX_PUSH_RESTORE };

static void tp_rx_candidate(struct tp_rx_run *r, unsigned int pos)
{
	u16 *cur = r->cur, *best = r->best;

	if (r->found && (cur[0] != best[0] || pos <= best[1]))
		return;
	memcpy(best, cur, r->nslots * sizeof(u16));
	r->found = true;
}

/* Follow every path from pc that consumes nothing, at position pos, in
 * priority order: the consuming instructions reached join l. */
static void tp_rx_add(struct tp_rx_run *r, struct tp_rx_list *l,
		      unsigned int pc, unsigned int pos)
{
	const struct tp_regex_insn *insn = r->re->insn;
	u16 gen = (u16)(pos + 1);
	unsigned int sp = 0;

	for (;;) {
		if (r->mark[pc] != gen) {
			const struct tp_regex_insn *in = &insn[pc];
			u16 *e;

			r->mark[pc] = gen;
			switch (in->op) {
			case TP_RX_JMP:
				pc = in->x;
				continue;
			case TP_RX_SPLIT:
				e = &r->stack[3 * sp++];
				e[0] = TP_RX_PUSH_PC;
				e[1] = in->y;
				pc = in->x;
				continue;
			case TP_RX_SAVE:
				e = &r->stack[3 * sp++];
				e[0] = TP_RX_PUSH_RESTORE;
				e[1] = in->c;
				e[2] = r->cur[in->c];
				r->cur[in->c] = (u16)pos;
				pc++;
				continue;
			case TP_RX_BOL:
				if (pos == 0) {
					pc++;
					continue;
				}
				break;
			case TP_RX_EOL:
				if (pos == r->len) {
					pc++;
					continue;
				}
				break;
			case TP_RX_MATCH:
				tp_rx_candidate(r, pos);
				break;
			default:	/* consumes a byte: a thread */
				l->pc[l->n] = (u16)pc;
				memcpy(&l->slots[l->n * r->nslots], r->cur,
				       r->nslots * sizeof(u16));
				l->n++;
				break;
			}
		}
		/* this path ends: undo its saves, take the next one */
		for (;;) {
			const u16 *e;

			if (!sp)
				return;
			e = &r->stack[3 * --sp];
			if (e[0] == TP_RX_PUSH_PC) {
				pc = e[1];
				break;
			}
			r->cur[e[1]] = e[2];
		}
	}
}

static bool tp_rx_step(const struct tp_regex *re, u16 pc, u8 ch)
{
	const struct tp_regex_insn *in = &re->insn[pc];

	switch (in->op) {
	case TP_RX_CHAR:
		return ch == in->c;
	case TP_RX_ANY:
		return true;
	case TP_RX_SET:
		return re->sets[in->x][ch >> 3] & (1u << (ch & 7));
	default:
		return false;
	}
}

bool tp_regex_exec(const struct tp_regex *re, const char *s, size_t len,
		   u16 *span, u16 *work)
{
	unsigned int ninsn = re->ninsn, nslots = 2u * re->ngroups, pos, i;
	struct tp_rx_list a, b, *cl = &a, *nl = &b, *t;
	struct tp_rx_run r;

	if (len >= TP_REGEX_UNSET)
		len = TP_REGEX_UNSET - 1;
	a.pc = work;
	a.slots = a.pc + ninsn;
	b.pc = a.slots + ninsn * nslots;
	b.slots = b.pc + ninsn;
	r.mark = b.slots + ninsn * nslots;
	r.stack = r.mark + ninsn;
	r.cur = r.stack + 6 * ninsn;
	r.best = r.cur + nslots;
	r.re = re;
	r.s = (const u8 *)s;
	r.len = (unsigned int)len;
	r.nslots = nslots;
	r.found = false;
	memset(r.mark, 0, ninsn * sizeof(u16));

	a.n = 0;
	memset(r.cur, 0xff, nslots * sizeof(u16));
	tp_rx_add(&r, cl, 0, 0);
	for (pos = 0; pos < r.len && (cl->n || !r.found); pos++) {
		u8 ch = r.s[pos];

		nl->n = 0;
		for (i = 0; i < cl->n; i++) {
			const u16 *slots = &cl->slots[i * nslots];

			if (r.found && slots[0] != r.best[0])
				continue;	/* not the match's start */
			if (!tp_rx_step(re, cl->pc[i], ch))
				continue;
			memcpy(r.cur, slots, nslots * sizeof(u16));
			tp_rx_add(&r, nl, cl->pc[i] + 1u, pos + 1);
		}
		if (!r.found) {		/* a new start, last in priority */
			memset(r.cur, 0xff, nslots * sizeof(u16));
			tp_rx_add(&r, nl, 0, pos + 1);
		}
		t = cl;
		cl = nl;
		nl = t;
	}
	if (r.found)
		memcpy(span, r.best, nslots * sizeof(u16));
	return r.found;
}

#ifdef __KERNEL__

bool tp_regex_match(struct tp_context *c, const struct tp_regex *re,
		    const char *s, struct tp_regex_last *last, u16 *span,
		    u16 *work)
{
	size_t len = strnlen(s, MAXSTRINGLEN - 1);

	if (s != last->subject)
		memmove(last->subject, s, len);
	last->subject[len] = '\0';
	last->ngroups = re->ngroups;
	last->span = span;
	last->matched = tp_regex_exec(re, last->subject, len, span, work);
	c->regex = last;
	return last->matched;
}

int tapir_regex_group(struct tp_context *c, s64 n, char *buf)
{
	const struct tp_regex_last *m = c->regex;
	u16 from, to;

	buf[0] = '\0';
	if (n < 0 || !m || n >= m->ngroups)
		return -ENOENT;
	if (!m->matched)
		return -ESRCH;
	from = m->span[2 * n];
	to = m->span[2 * n + 1];
	if (from == TP_REGEX_UNSET || to == TP_REGEX_UNSET || to < from)
		return 0;	/* the group took no part: "" */
	memcpy(buf, m->subject + from, to - from);
	buf[to - from] = '\0';
	return 0;
}

int tapir_regex_ngroups(struct tp_context *c)
{
	const struct tp_regex_last *m = c->regex;

	return m && m->matched ? (int)m->ngroups : -ESRCH;
}

#endif /* __KERNEL__ */
