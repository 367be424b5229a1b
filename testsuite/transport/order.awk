# order.awk: check ttest's "SEQ cCPU ..." lines (between "begin" and
# "end") count 1, 2, 3... in order and are nothing else (no garbage);
# print one summary line. With hp=1's "cpus N" lines (the number of
# online CPUs changed), print before it, for each such stretch, whether
# CPU 0 and CPU 1 wrote lines in it.
function stretch() {
	if (ph)
		printf "cpus %d: c0 %s c1 %s\n", ncpu, in0 ? "yes" : "no", in1 ? "yes" : "no"
	in0 = in1 = 0
}
/^begin$/ { b++; next }
/^end$/ { e++; next }
/^(target|say)=/ { next }
/^cpus [0-9]+$/ { stretch(); ph++; ncpu = $2; next }
{
	want++
	if ($1 != want || $0 !~ /^[0-9]+ c[0-9]+\.*$/) {
		bad++
		if (bad < 3)
			print "line " NR ": '" $0 "', expected " want
		want = $1
	}
	c = $2
	sub(/\..*/, "", c)
	cpu[c] = 1
	in0 += c == "c0"
	in1 += c == "c1"
}
END {
	stretch()
	n = 0
	for (c in cpu)
		n++
	printf "lines %d cpus %d begin %d end %d bad %d\n", want, n, b, e, bad
}
