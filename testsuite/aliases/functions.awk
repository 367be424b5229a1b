# functions.awk - Tapir's `--dump-functions` against stap 4.8's.
#
# usage: awk -f functions.awk functions.stap functions.have \
#            functions.missing TAPIR-OUTPUT
#
# Each function Tapir lists that stap 4.8 also has must have one of
# stap's signatures for that name, compared without the parameter names
# and comments (name:type (type, ...)); stap's "unknown" (an untyped
# function) matches any type. Every name in functions.have (what Tapir
# had when it was last written) must still be listed. functions.missing
# is exactly the names of stap's list that Tapir lacks: a name Tapir
# gains must leave it (the list only shrinks), and a stap name Tapir
# lacks must be in it. One line per difference; exit status 1 when there
# is any.
function shape(line,    s, head, args, n, a, i, t) {
	sub(/ \/\*.*$/, "", line)
	head = line; sub(/ \(.*$/, "", head)
	args = line; sub(/^[^(]*\(/, "", args); sub(/\)$/, "", args)
	n = split(args, a, ", ")
	s = head " ("
	for (i = 1; i <= n; i++) {
		t = a[i]; sub(/^[^:]*:/, "", t)
		s = s (i > 1 ? ", " : "") t
	}
	return s ")"
}
function name_of(line,    n) { n = line; sub(/:.*$/, "", n); return n }
function same(a, b,    x, y, n, i) {
	gsub(/[(),]/, " ", a); gsub(/[(),]/, " ", b)
	n = split(a, x, " ")
	if (n != split(b, y, " "))
		return 0
	for (i = 1; i <= n; i++) {
		sub(/^[^:]*:/, "", x[i]); sub(/^[^:]*:/, "", y[i])
		if (x[i] != y[i] && x[i] != "unknown" && y[i] != "unknown")
			return 0
	}
	return 1
}
FILENAME == ARGV[1] { stap[name_of($0)] = stap[name_of($0)] "\n" shape($0); next }
FILENAME == ARGV[2] { had[$1] = 1; next }
FILENAME == ARGV[3] { missing[$1] = 1; next }
{
	n = name_of($0)
	ours[n] = 1
	if (!(n in stap))
		next
	k = split(substr(stap[n], 2), sigs, "\n")
	for (i = 1; i <= k; i++)
		if (same(sigs[i], shape($0)))
			next
	print "not stap's signature: " $0 " (stap:" stap[n] ")"
	bad = 1
}
END {
	for (n in had)
		if (!(n in ours)) { print "no longer listed: " n; bad = 1 }
	for (n in missing)
		if (n in ours) {
			print "listed now, remove it from functions.missing: " n
			bad = 1
		}
	for (n in stap)
		if (!(n in ours) && !(n in missing)) {
			print "stap's " n " is neither listed nor in functions.missing"
			bad = 1
		}
	exit bad
}
