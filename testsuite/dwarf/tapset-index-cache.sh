# The tapset index cache (translator/elaborate/tapset.c): the first run
# parses the whole library and keeps what each file defines; the next
# parses only the files whose names the script needs (here the one
# function it calls, of a -I folder; an alias's file when a point names
# its first component), and a file that changes is parsed at once and
# kept anew (its function's type shows which text was read).
lib=$CASE_TMP/lib
mkdir -p "$lib" || exit 2
printf 'function tic() { return 1 }\n' >"$lib/tic.stp"
printf 'function toc() { return 2 }\nprobe toc.alias = begin {}\n' >"$lib/toc.stp"
run() {
	"$TAPIR" -vv -p2 -I "$lib" -e 'probe begin { println(tic()) }' \
		2>"$CASE_TMP/err" | grep '^tic:'
	sed -n 's|^tapir: parsing tapset .*/|parsed |p' "$CASE_TMP/err"
	echo "index files: $(ls "$TAPIR_CACHE/tapsets" | wc -l)"
}
echo "cold:"; run
echo "warm:"; run
printf 'function tic() { return "three" }\n' >"$lib/tic.stp"
touch -d '2000-01-01' "$lib/tic.stp"
echo "tic.stp changed:"; run
echo "again:"; run
echo "an alias of toc.stp:"
"$TAPIR" -vv -p2 -I "$lib" -e 'probe toc.alias { println(toc()) }' \
	2>"$CASE_TMP/err" >/dev/null && echo ok
sed -n 's|^tapir: parsing tapset .*/|parsed |p' "$CASE_TMP/err"
