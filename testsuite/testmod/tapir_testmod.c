// SPDX-License-Identifier: GPL-2.0
/*
 * tapir_testmod: a kernel module for the dwarf-run tier. Its functions
 * have known arguments, locals, nested structs, arrays, bitfields, an
 * inline function, a recursive one and an error-returning one; scripts in
 * testsuite/dwarf-run/ probe them with module("tapir_testmod").function().
 *
 * Driven through /proc/tapir_testmod: each write(2) is one command, e.g.
 * "ints", "recurse 5" (testsuite/testmod/drive.c writes them). Every
 * command calls its functions with fixed values, so probes see the same
 * values in every run. The module prints nothing.
 *
 * The scripts name lines of this file (statement probes): keep the lines
 * marked LINE where they are, or update the scripts that name them
 * (grep -rn 'tapir_testmod.c:' testsuite/dwarf-run).
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/string.h>

enum tm_color { TM_RED = 1, TM_GREEN = 2, TM_BLUE = 42 };
enum tm_sign { TM_MINUS = -3, TM_ZERO = 0, TM_PLUS = 3 };

struct tm_point {
	int x;
	int y;
};

struct tm_leaf {
	long id;
	const char *label;
};

union tm_word {
	unsigned int word;
	unsigned char bytes[4];
};

struct tm_inner {
	short s;
	struct tm_point pt;
	union tm_word u;
};

struct tm_outer {
	int a;
	struct tm_inner inner;
	int arr[4];
	char name[16];
	unsigned int flag:1;
	unsigned int mode:3;
	int delta:5;
	enum tm_color color;
	struct tm_leaf *leaf;
	struct tm_outer *next;
};

/* a global and a file-static variable, set by tm_globals() */
int tm_global = 7;
static long tm_static = -8;
/* written by the inline function, so it is not folded away */
static int tm_last;

/*
 * The probed functions: noipa as well as noinline, so gcc neither drops a
 * call whose result is unused (it would find them pure) nor clones them
 * for their constant arguments (tm_ints.constprop.0).
 */
#define TM_FN noinline __attribute__((noipa))

TM_FN int tm_ints(char c, signed char sc, short s, int i, long l,
		     long long ll)
{
	return c + sc + s + i + (int)l + (int)ll;
}

TM_FN unsigned long tm_uints(unsigned char uc, u8 b, u16 w, u32 d,
				u64 q, unsigned long ul)
{
	return uc + b + w + d + q + ul;
}

TM_FN int tm_misc(bool yes, bool no, enum tm_color col, enum tm_sign sg)
{
	return yes + no + col + sg;
}

/* eight arguments: on x86_64 the last two are passed on the stack */
TM_FN long tm_eight(long a1, int a2, short a3, char a4, long a5, int a6,
		       long a7, int a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

TM_FN int tm_struct(struct tm_outer *o)
{
	return o->a + o->inner.pt.x + o->arr[2] + o->mode + o->delta;
}

TM_FN int tm_null(struct tm_outer *p)
{
	if (!p)
		return -EFAULT;
	return p->a;
}

TM_FN size_t tm_string(const char *name, size_t len)
{
	size_t n = 0;

	while (n < len && name[n])
		n++;
	return n;
}

TM_FN long tm_ustr(const char __user *u, size_t len)
{
	char c;

	if (len == 0 || get_user(c, u))
		return -EFAULT;
	return c;
}

TM_FN void tm_sink(int a, int b)
{
	WRITE_ONCE(tm_last, a ^ b);
}

TM_FN int tm_locals(int n)
{
	int sum = 0, i;
	int sq = n * n;

	for (i = 0; i < n; i++)
		sum += i * sq;
	tm_sink(sum, sq);	/* statement probes on this line see sum and sq */
	return sum + sq;
}

static __always_inline int tm_inl(int x)
{
	int r = x * 3;

	barrier();
	WRITE_ONCE(tm_last, r);
	return r + 1;
}

TM_FN int tm_inl_a(int v)
{
	return tm_inl(v) + 1000;
}

TM_FN int tm_inl_b(int v)
{
	return tm_inl(v + 1) + 2000;
}

TM_FN int tm_recurse(int depth)
{
	int r;

	if (depth <= 0)
		return 0;
	r = tm_recurse(depth - 1);
	barrier();	/* no tail-recursion elimination: one call per level */
	return r + depth;
}

TM_FN int tm_fail(int x)
{
	if (x < 0)
		return -EINVAL;
	return x * 2;
}

TM_FN int tm_sleep(int ms)
{
	msleep(ms);
	return ms;
}

TM_FN long tm_globals(int v)
{
	WRITE_ONCE(tm_global, v);
	WRITE_ONCE(tm_static, -2L * v);
	return READ_ONCE(tm_global) + READ_ONCE(tm_static);
}

/* on the kernel's kprobe blacklist: probes on it cannot be registered */
TM_FN int tm_nokprobe(int x)
{
	return x + 1;
}
NOKPROBE_SYMBOL(tm_nokprobe);

/* exported; yet stap's .exported matches every global function of a
 * module, exported or not (static ones, like tm_write, are not matched) */
EXPORT_SYMBOL_GPL(tm_fail);

static struct tm_leaf tm_leaf1 = { .id = 77, .label = "leaf-label" };
static struct tm_outer tm_o2 = {
	.a = 2, .inner = { .s = -2, .pt = { 20, 21 }, .u = { .word = 0x01020304 } },
	.arr = { 5, 6, 7, 8 }, .name = "second", .flag = 0, .mode = 1,
	.delta = 3, .color = TM_RED, .leaf = NULL, .next = NULL,
};

/* returns a pointer: .return probes read $return->field */
TM_FN struct tm_outer *tm_find(int key)
{
	return key == 2 ? &tm_o2 : NULL;
}

/*
 * Small structs passed by value: gcc gives them to the callee in two
 * registers and describes each parameter at the entry as a composite
 * location ("DW_OP_reg5 DW_OP_piece 8 DW_OP_reg4 DW_OP_piece 8").
 */
struct tm_pair {
	long a;
	long b;
};

struct tm_mixed {
	long a;
	int b;
};

struct tm_ref {
	struct tm_leaf *leaf;
	int tag;
};

TM_FN long tm_pair(struct tm_pair p, int k)
{
	return p.a * k + p.b;
}

TM_FN long tm_mixed(int k, struct tm_mixed m)
{
	return m.a + m.b * k;
}

TM_FN long tm_ref(struct tm_ref r)
{
	return r.leaf->id + r.tag;
}

/* a local struct gcc splits into scalars: q is described as two pieces
 * computed from x (DW_OP_breg5 DW_OP_lit3 DW_OP_mul DW_OP_stack_value
 * DW_OP_piece 8 ...), x living in rdi, then rbx after the call */
TM_FN long tm_split(long x)
{
	struct tm_pair q = { .a = x * 3, .b = x + 1 };

	tm_sink((int)q.a, 0);
	return q.b;
}

/* as tm_split, but x is dead after the call: on the return line q.a is
 * gone (an empty piece) while q.b is y + 1 from rbx */
TM_FN long tm_gone(long x, long y)
{
	struct tm_pair q = { .a = x * 3, .b = y + 1 };

	tm_sink((int)q.a, 0);
	return q.b;
}

static void tm_pieces_cmd(void)
{
	struct tm_pair p = { .a = -5000000000L, .b = 77 };
	struct tm_mixed m = { .a = 123456789012L, .b = -9 };
	struct tm_ref r = { .leaf = &tm_leaf1, .tag = 31 };

	tm_pair(p, 3);
	tm_mixed(2, m);
	tm_ref(r);
	tm_split(40);
	tm_gone(50, 60);
}

static int tm_struct_cmd(void)
{
	struct tm_outer o = {
		.a = 1,
		.inner = { .s = -300, .pt = { 10, -11 }, .u = { .word = 0x00636261 } },
		.arr = { 100, 200, 300, -400 },
		.name = "outer-name",
		.flag = 1, .mode = 5, .delta = -6,
		.color = TM_GREEN,
		.leaf = &tm_leaf1,
		.next = &tm_o2,
	};

	return tm_struct(&o);
}

static ssize_t tm_write(struct file *file, const char __user *buf,
			size_t count, loff_t *pos)
{
	char cmd[64], word[16];
	long arg = 0;
	int n;

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, buf, count))
		return -EFAULT;
	cmd[count] = '\0';
	n = sscanf(cmd, "%15s %ld", word, &arg);
	if (n < 1)
		return -EINVAL;

	if (!strcmp(word, "ints"))
		tm_ints(-100, -7, -1234, -123456, -1234567890123L,
			-9000000000000000000LL);
	else if (!strcmp(word, "uints"))
		tm_uints(255, 200, 60000, 4000000000U,
			 18000000000000000000ULL, 0xdeadbeefcafeUL);
	else if (!strcmp(word, "misc"))
		tm_misc(true, false, TM_BLUE, TM_MINUS);
	else if (!strcmp(word, "eight"))
		tm_eight(1, -2, 3, -4, 5, -6, 7777777777L, -8);
	else if (!strcmp(word, "struct"))
		tm_struct_cmd();
	else if (!strcmp(word, "null"))
		tm_null(NULL);
	else if (!strcmp(word, "string"))
		tm_string("kernel-string", 32);
	else if (!strcmp(word, "ustr"))		/* "ustr TEXT": TEXT as user memory */
		tm_ustr(buf + 5, count > 5 ? count - 5 : 0);
	else if (!strcmp(word, "locals"))
		tm_locals(n > 1 ? arg : 4);
	else if (!strcmp(word, "inline")) {
		tm_inl_a(10);
		tm_inl_b(20);
	} else if (!strcmp(word, "recurse"))
		tm_recurse(n > 1 ? arg : 3);
	else if (!strcmp(word, "fail")) {
		tm_fail(-1);
		tm_fail(21);
	} else if (!strcmp(word, "sleep"))
		tm_sleep(n > 1 ? arg : 100);
	else if (!strcmp(word, "globals"))
		tm_globals(n > 1 ? arg : 5);
	else if (!strcmp(word, "nokprobe"))
		tm_nokprobe(1);
	else if (!strcmp(word, "pieces"))
		tm_pieces_cmd();
	else if (!strcmp(word, "find")) {
		tm_find(2);
		tm_find(3);
	} else
		return -EINVAL;
	return count;
}

static const struct proc_ops tm_ops = {
	.proc_write = tm_write,
	.proc_lseek = noop_llseek,
};

static struct proc_dir_entry *tm_entry;

static int __init tm_init(void)
{
	tm_entry = proc_create("tapir_testmod", 0222, NULL, &tm_ops);
	return tm_entry ? 0 : -ENOMEM;
}

static void __exit tm_exit(void)
{
	proc_remove(tm_entry);
}

module_init(tm_init);
module_exit(tm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Tapir's test module: functions with known arguments for DWARF probes");
