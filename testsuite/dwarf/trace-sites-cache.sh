# The tracepoints cache (translator/debuginfo/btf.c, kept in the trace
# systems cache): with the debuginfo hidden (BTF), a warm run lists and
# resolves what a cold one did without parsing the BTF to list them; a
# tracepoint's entry shows through (doctored); an entry that cannot be
# read sends the run back to the BTF; and the members of a module's
# tracepoint's arguments resolve through the module's BTF, read on first
# need ($vcpu->vcpu_id of kvm:kvm_exit).
[ -e "$DEBUGINFO" ] || { echo "no BTF (debuginfo vmlinux) for $RELEASE"; exit 77; }
export SYSTEMTAP_DEBUGINFO_PATH=/nonexistent
cd "$CASE_TMP" || exit 2
L() { "$TAPIR" -r "$RELEASE" -L 'kernel.trace("*")'; }
p2() {
	"$TAPIR" -r "$RELEASE" -p2 -e 'probe kernel.trace("sched_switch") {
		println($prev->pid, kernel_string($next->comm), $prev_state) }
	probe kernel.trace("kvm:kvm_exit")? { println($vcpu->vcpu_id) }
	probe kernel.trace("block_rq_*") { println($$parms) }'
}
L >cold.L && p2 >cold.p2 || exit 1
L >warm.L && p2 >warm.p2 || exit 1
echo "tracepoints: $(wc -l <warm.L)"
cmp -s cold.L warm.L && echo "warm listing: the same"
cmp -s cold.p2 warm.p2 && echo "warm pass 2: the same"
grep -c '^kernel.trace("kvm:kvm_exit") ' warm.L
grep -c 'vcpu_id' warm.p2
map=$(ls "$TAPIR_CACHE"/dwarf/tpsys-*.map)
sed -i "s/^sched_switch\tsched$(printf '\037')/sched_switch\tdoctored$(printf '\037')/" "$map"
echo "doctored:"
L | grep ':sched_switch")'
sed -i "s/^sched_wakeup\tsched$(printf '\037').*/&$(printf '\037')cut short/" "$map"
echo "an entry cut short:"
L | grep ':sched_switch")'
L | cmp -s - cold.L && echo "listing: as cold"
