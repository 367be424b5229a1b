/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regex.h - the matcher of `s =~ "re"` and `s !~ "re"`, and the state
 * that matched(n) and ngroups() read.
 *
 * The translator compiles each regex (translator/emit/regex.c) into a
 * `static const struct tp_regex`: a program for a Pike VM. The matcher
 * runs it over the string once, keeping at most one thread per
 * instruction, so a match costs O(strlen(s) * ninsn * nslots) steps and
 * uses only the scratch the caller passes: TP_REGEX_WORK(ninsn, nslots)
 * u16 cells (the generated code keeps it in the per-CPU frames). No
 * recursion, no allocation.
 *
 * The result is SystemTap 4.8's: the first position where a match ends
 * decides its start (the leftmost of those ending there: "abcd" =~
 * "abcd|c" matches "c"), then the match is made as long as it can be
 * from that start ("x|xa+" takes "xaaa"); the groups come from the preferred way of matching
 * that text (repetition greedy, the left alternative first), a group
 * keeps what its last iteration matched, and a group that took no part
 * reads as "".
 *
 * Known difference: when several alternatives of a group lead to the same
 * overall match, stap 4.8's tagged DFA may prefer a shorter alternative
 * where this matcher takes the leftmost ("abc" =~ "(ab|a)(bc|c)": stap
 * has groups "a" and "bc", Tapir "ab" and "c"); stap even aborts on some
 * such regexes ("(a|aa)*"). The overall match is the same.
 */
#ifndef TAPIR_RUNTIME_REGEX_H
#define TAPIR_RUNTIME_REGEX_H

#include "compat.h"

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif

enum tp_rx_op {
	TP_RX_CHAR,	/* c: the byte c */
	TP_RX_ANY,	/* any byte */
	TP_RX_SET,	/* x: a byte of sets[x] */
	TP_RX_BOL,	/* at the start of the string */
	TP_RX_EOL,	/* at the end of the string */
	TP_RX_SPLIT,	/* go on at x, else at y (x preferred) */
	TP_RX_JMP,	/* go on at x */
	TP_RX_SAVE,	/* slot c = the position */
	TP_RX_MATCH,
};

struct tp_regex_insn {
	u8 op;		/* enum tp_rx_op */
	u8 c;
	u16 x, y;
};

struct tp_regex {
	const struct tp_regex_insn *insn;
	const u8 (*sets)[32];		/* bit b%8 of byte b/8: byte b */
	u16 ninsn;
	u16 ngroups;			/* parenthesized groups + 1 */
};

/* A group's start or end that is not set. */
#define TP_REGEX_UNSET 0xffff

/* u16 cells of scratch one match needs: two thread lists (pc and slots
 * per thread), the visited marks, the closure stack (3 cells an entry,
 * 2 * ninsn entries), the working and the best slots. */
#define TP_REGEX_WORK(ninsn, nslots) \
	(2 * (ninsn) * (1 + (nslots)) + (ninsn) + 6 * (ninsn) + 2 * (nslots) + 2)

/* The last =~ / !~ of the hit (c->regex): what matched() reads. */
struct tp_regex_last {
	bool matched;			/* false: the last match failed */
	unsigned int ngroups;		/* of its regex */
	u16 *span;			/* 2 * ngroups: start, end offsets */
	char subject[MAXSTRINGLEN];	/* the string matched, copied */
};

struct tp_context;

/*
 * tp_regex_match - match s against re: true when it matches (=~).
 * Records the outcome in *last (span: 2 * re->ngroups cells, work:
 * TP_REGEX_WORK(re->ninsn, 2 * re->ngroups) cells) and makes it the
 * hit's last match (c->regex). s may be last->subject itself.
 */
bool tp_regex_match(struct tp_context *c, const struct tp_regex *re,
		    const char *s, struct tp_regex_last *last, u16 *span,
		    u16 *work);

/* The matcher alone (unit tests): true on a match, the groups' offsets
 * in span. */
bool tp_regex_exec(const struct tp_regex *re, const char *s, size_t len,
		   u16 *span, u16 *work);

#endif /* TAPIR_RUNTIME_REGEX_H */
