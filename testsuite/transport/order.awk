# order.awk: check ttest's "SEQ cCPU ..." lines (between "begin" and
# "end") count 1, 2, 3... in order and are nothing else (no garbage);
# print one summary line.
/^begin$/ { b++; next }
/^end$/ { e++; next }
/^(target|say)=/ { next }
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
}
END {
	n = 0
	for (c in cpu)
		n++
	printf "lines %d cpus %d begin %d end %d bad %d\n", want, n, b, e, bad
}
