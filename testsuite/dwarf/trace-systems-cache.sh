# The trace systems cache (translator/debuginfo/tpsys.c): a run keeps
# which system each tracepoint is in, the next reads it from there (a
# doctored entry shows through), and a trace header that changes makes
# the cache's key anew (the header is read again). The kernel is the
# reference one, through a build directory of links to its headers
# whose source tree has a copy of include/trace/events/ to change.
[ -e "$DEBUGINFO" ] || { echo "no debuginfo for $RELEASE"; exit 77; }
hdr=/lib/modules/$RELEASE/build
[ -d "$hdr/include/config" ] || { echo "no headers for $RELEASE"; exit 77; }
build=$CASE_TMP/build src=$CASE_TMP/src
cp -as "$(readlink -f "$hdr")" "$build" || exit 2
mkdir -p "$src/include/trace" || exit 2
tree=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$hdr/Makefile")
cp -r "${tree:-$hdr}/include/trace/events" "$src/include/trace/" || exit 2
ln -s "$src" "$build/source"
list() { "$TAPIR" -r "$build" -l 'kernel.trace("pelt_cfs_tp")'; }
maps() { ls "$TAPIR_CACHE"/dwarf/tpsys-*.map 2>/dev/null | wc -l; }
echo "cold:"; list; echo "maps: $(maps)"
map=$(ls "$TAPIR_CACHE"/dwarf/tpsys-*.map)
sed -i 's/^pelt_cfs_tp\t.*/pelt_cfs_tp\tcached/' "$map"
echo "warm, doctored:"; list; echo "maps: $(maps)"
touch -d '2000-01-01' "$src/include/trace/events/sched.h"
echo "a header changed:"; list; echo "maps: $(maps)"
