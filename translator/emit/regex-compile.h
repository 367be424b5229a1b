/* regex-compile.h - translate-time compiler of the regular expressions of `=~`
 * and `!~` (POSIX extended syntax, as SystemTap 4.8 reads it) into the
 * instruction table that runtime/regex.c runs (a Pike VM: the match
 * that ends first, then made longest from its start, groups from the
 * preferred path: greedy repetition, left alternatives first).
 *
 * The opcodes mirror enum tp_rx_op of runtime/regex.h one to one; the
 * emitter writes them by name (rx_op_name()).
 */
#ifndef TAPIR_REGEX_COMPILE_H
#define TAPIR_REGEX_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

enum rx_op {
	RX_CHAR,	/* c: the byte c */
	RX_ANY,		/* any byte */
	RX_SET,		/* x: a byte of sets[x] */
	RX_BOL,		/* at the start of the string */
	RX_EOL,		/* at the end of the string */
	RX_SPLIT,	/* go on at x, else at y (x preferred) */
	RX_JMP,		/* go on at x */
	RX_SAVE,	/* slot c = the position */
	RX_MATCH,
};

struct rx_insn {
	unsigned char op;	/* enum rx_op */
	unsigned char c;
	unsigned short x, y;
};

/* Limits: the matcher's scratch grows with both (runtime/regex.h). */
#define RX_MAX_INSN 4096
#define RX_MAX_GROUPS 64	/* groups, matched(0) included */
/* instructions x (1 + 2 * groups): the size of one thread list, which
 * also bounds the work per byte matched */
#define RX_MAX_CELLS 32768

struct rx_prog {
	struct rx_insn *insn;
	unsigned int ninsn;
	unsigned char (*sets)[32];	/* bitmaps of bytes, bit b of byte b/8 */
	unsigned int nsets;
	unsigned int ngroups;		/* parenthesized groups + 1 */
};

struct rx_error {
	bool has_pos;
	size_t pos;		/* in the regex's bytes */
	char msg[128];
};

/* Compile the len bytes at re. 0, or -1 with *err set; free with
 * rx_free() either way. */
int rx_compile(const char *re, size_t len, struct rx_prog *prog,
	       struct rx_error *err);
void rx_free(struct rx_prog *prog);
const char *rx_op_name(int op);

#endif /* TAPIR_REGEX_COMPILE_H */
