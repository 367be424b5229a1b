// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lines [-l] < OUTPUT: order.awk (or with -l, loss.awk) for the floods,
 * whose million lines take busybox awk a minute in an emulated guest.
 * ttest's "SEQ cCPU..." lines between "begin" and "end" must be well
 * formed and count 1, 2, 3... (-l: increase); prints the same summary
 * line as the awk script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "SEQ cCPU" and dots: SEQ, CPU, or -1 when it is not that. */
static long parse(const char *s, int *cpu)
{
	char *end;
	long seq = strtol(s, &end, 10);

	if (end == s || *s == '-' || *s == '+' || end[0] != ' ' || end[1] != 'c')
		return -1;
	s = end + 2;
	*cpu = (int)strtol(s, &end, 10);
	if (end == s || *cpu < 0 || *cpu > 63)
		return -1;
	while (*end == '.')
		end++;
	return *end == '\0' ? seq : -1;
}

int main(int argc, char **argv)
{
	int loss = argc > 1 && !strcmp(argv[1], "-l");
	long want = 0, last = 0, n = 0, bad = 0, b = 0, e = 0;
	unsigned long long cpus = 0;
	char line[4096];
	int i, ncpus = 0;

	while (fgets(line, sizeof(line), stdin)) {
		size_t l = strlen(line);
		long seq;
		int cpu = 0;

		if (l && line[l - 1] == '\n')
			line[--l] = '\0';
		if (!strcmp(line, "begin")) {
			b++;
			continue;
		}
		if (!strcmp(line, "end")) {
			e++;
			continue;
		}
		seq = parse(line, &cpu);
		n++;
		want++;
		if (seq < 0 || (loss ? seq <= last : seq != want)) {
			if (++bad < 3)
				printf("line '%s', expected %ld\n", line, loss ? last + 1 : want);
			if (seq >= 0)
				want = seq;
		}
		if (seq >= 0) {
			last = seq;
			cpus |= 1ull << cpu;
		}
	}
	for (i = 0; i < 64; i++)
		ncpus += !!(cpus & (1ull << i));
	if (loss)
		printf("lines %ld begin %ld end %ld bad %ld\n", n, b, e, bad);
	else
		printf("lines %ld cpus %d begin %ld end %ld bad %ld\n", want, ncpus, b, e, bad);
	return 0;
}
