/*
 * libuinl: the shared library of the inline cases (uprobe-run inline-*,
 * dwarf process-list-inline*), built by ./build with -g -O2 -fPIC as
 * /tmp/tapir-uprog/libuinl.so, which uinl (uinl.c) loads.
 *
 * ul_note is inline only: gcc places its body at each call, and the
 * DWARF describes each place as an inline instance (no out-of-line
 * copy). ul_add is inlined where ul_twice calls it and also has an
 * out-of-line copy, which ul_run calls through a pointer: .function
 * probes both, .call the copy, .inline the instances.
 */
volatile long ul_sink;

static inline __attribute__((always_inline)) void ul_note(long v)
{
	ul_sink = v;
}

static inline __attribute__((always_inline)) long ul_add(long a, long b)
{
	ul_sink = a;
	return a + b;
}

long (*volatile ul_addp)(long, long) = ul_add;

__attribute__((noinline)) long ul_twice(long v)
{
	ul_note(v);
	ul_note(v * 2);
	return ul_add(v, 100);
}

long ul_run(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += ul_twice(i);
	ul_note(s);
	return ul_addp(s, 1);
}
