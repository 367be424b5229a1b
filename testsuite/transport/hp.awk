# hp.awk: ttest hp=1's output: "cpus N" when the number of online CPUs
# changed, "SEQ cCPU" lines from every online CPU. Checks the lines are
# in order and well formed, and prints, for each "cpus N" stretch,
# whether CPU 0 and CPU 1 wrote lines in it.
/^(begin|end)$/ { next }
/^cpus [0-9]+$/ {
	if (ph)
		printf "cpus %d: c0 %s c1 %s\n", n, c[0] ? "yes" : "no", c[1] ? "yes" : "no"
	ph++
	n = $2
	c[0] = c[1] = 0
	next
}
{
	want++
	if ($1 != want || $0 !~ /^[0-9]+ c[0-9]+\.*$/) {
		bad++
		if (bad < 3)
			print "line " NR ": '" $0 "', expected " want
		want = $1
	}
	k = $2
	sub(/^c/, "", k)
	sub(/\..*/, "", k)
	c[k + 0]++
}
END {
	if (ph)
		printf "cpus %d: c0 %s c1 %s\n", n, c[0] ? "yes" : "no", c[1] ? "yes" : "no"
	printf "bad %d\n", bad
}
