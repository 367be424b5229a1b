# compare.awk - Tapir's `-L PATTERN` listing against stap 4.8's.
#
# usage: awk -f compare.awk missing.txt NAME.stap TAPIR-OUTPUT
#
# Every alias stap lists must be listed by Tapir (unless missing.txt
# names it), and Tapir lists no alias stap does not (unless missing.txt
# names it: an alias whose definition differs, so that stap's suffix
# form, ALIAS.return, fails where Tapir's works, or the reverse). For each alias, the
# script variables stap lists (the words without '$', less stap's
# internal __tracepoint_arg_* and _entry_tvar_* locals) must be among
# Tapir's, with the same type where stap knows it (not "unknown"), and
# the variables both list must come in the same relative order (the
# order the alias bodies first assign them: stap -L's order). The
# $target variables are not compared: where stap sits on a tracepoint
# Tapir may sit on a function. Prints one line per difference; exit status
# 1 when there is any.
# The script variables of a listing line: NAME:TYPE words; the words of
# a $variable's C type ("struct file*") have no ':' and are skipped.
function script_vars(line, out,    w, n, i, k) {
	n = split(line, w, " ")
	k = 0
	for (i = 2; i <= n; i++)
		if (w[i] ~ /:/ && w[i] !~ /^\$/)
			out[++k] = w[i]
	return k
}
FILENAME == ARGV[1] { if ($0 !~ /^#/ && NF) missing[$1] = 1; next }
FILENAME == ARGV[2] {
	stap[$1] = 1
	n = script_vars($0, sv)
	for (i = 1; i <= n; i++) {
		split(sv[i], nt, ":")
		if (nt[1] ~ /^(__tracepoint_arg_|_entry_tvar_)/)
			continue
		want[$1, nt[1]] = nt[2]
		vars[$1] = vars[$1] " " nt[1]
	}
	next
}
{
	ours[$1] = 1
	n = script_vars($0, sv)
	for (i = 1; i <= n; i++) {
		split(sv[i], nt, ":")
		have[$1, nt[1]] = nt[2]
		pos[$1, nt[1]] = i
		tvars[$1] = tvars[$1] " " nt[1]
	}
}
END {
	bad = 0
	for (a in stap) {
		if (!(a in ours)) {
			if (!(a in missing)) { print "missing alias " a; bad = 1 }
			continue
		}
		if (a in missing)	# ours, not stap's alias (a suffix form)
			continue
		n = split(vars[a], v, " ")
		for (i = 1; i <= n; i++) {
			if (!((a, v[i]) in have)) {
				print a ": missing variable " v[i]; bad = 1
			} else if (want[a, v[i]] != "unknown" &&
				   have[a, v[i]] != want[a, v[i]]) {
				print a ": " v[i] " is " have[a, v[i]] ", stap: " want[a, v[i]]
				bad = 1
			}
		}
		# the variables both list, in stap's order, must be in
		# Tapir's order too
		last = 0
		for (i = 1; i <= n; i++) {
			if (!((a, v[i]) in pos))
				continue
			if (pos[a, v[i]] < last) {
				print a ": variables in another order than stap's:"
				print "\tstap: " substr(vars[a], 2)
				print "\ttapir: " substr(tvars[a], 2)
				bad = 1
				break
			}
			last = pos[a, v[i]]
		}
	}
	for (a in ours)
		if (!(a in stap) && !(a in missing)) { print "extra alias " a; bad = 1 }
	exit bad
}
