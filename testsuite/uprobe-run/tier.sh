# testsuite/uprobe-run/tier.sh: sourced by ../run/run-tier --cases=DIR and
# ../run/oracle.sh --cases=DIR (see run-tier's header). What the
# uprobe-run cases need beyond the run tier's: uprog (../uprog), built by
# ../uprog/build at its fixed path /tmp/tapir-uprog/uprog (and uprog-nofp
# beside it), where both the
# translator (pass 2 reads its ELF file) and the guest (the uprobes go on
# its inode there) find it; the cases run it as -c '/tmp/tapir-uprog/uprog
# ...'. The inline cases run uinl beside it, which loads libuinl.so there.

tier_setup() {	# tier_setup WORKDIR RELEASE TOOL (tapir or stap)
	local out
	SKIP_RE='not available yet|cannot be translated yet|not supported yet|Tapir cannot'
	out=$("$here/../uprog/build" 2>&1) || {
		TIER_WHY="uprog did not build: $(echo "$out" | head -n 5)"
		return 1
	}
	VMEXTRA=(--file "$out:$out" --file "$out-nofp:$out-nofp"
		 --file "$out-dyn:$out-dyn"
		 --file "${out%/*}/uinl:${out%/*}/uinl"
		 --file "${out%/*}/libuinl.so:${out%/*}/libuinl.so"
		 --file "$(readlink -f /lib64/ld-linux-x86-64.so.2):/lib64/ld-linux-x86-64.so.2")
	# uprog-dyn's libc, at the path whose tables --ldd puts in the module
	local l
	for l in $(ldd "$out-dyn" | awk '/=>/ { print $3 }'); do
		l=$(readlink -f "$l")
		VMEXTRA+=(--file "$l:$l")
	done
	return 0
}
