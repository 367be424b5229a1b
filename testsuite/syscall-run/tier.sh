# testsuite/syscall-run/tier.sh: sourced by ../run/run-tier --cases=DIR
# and ../run/oracle.sh --cases=DIR (see run-tier's header). What the
# syscall-run cases need beyond the run tier's:
#
#  - the workload scdrive (scdrive.c, static), built with gcc into
#    $TAPIR_CACHE/scdrive-HASH (default ~/.cache/tapir/...) and copied
#    into the guest as /bin/scdrive, and its ia32 twin scdrive32
#    (scdrive32.c, gcc -m32, freestanding) as /bin/scdrive32; their
#    buffers sit at a fixed address,
#    so the argstr of its calls is the same on every run;
#  - the kernel the expected files were recorded on: the cases are
#    SystemTap 4.8's output on 6.1.0-57-cloud-amd64 (system calls differ
#    between kernels), so that kernel is booted and built for whatever
#    tapir-vm would pick (SYSCALL_RUN_RELEASE overrides it);
#  - the same skip messages as the dwarf-run tier.

tier_setup() {	# tier_setup WORKDIR RELEASE TOOL (tapir or stap)
	local w=$1 tool=${3:-tapir} rel hash out
	local cache=${TAPIR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tapir}
	rel=${SYSCALL_RUN_RELEASE:-6.1.0-57-cloud-amd64}
	# sweep's module has about 1,400 kprobes (syscall.* and .return,
	# with the ia32 wrappers): its build took over run-tier's default
	# 300 s on a loaded 2-core host
	if [ "${TAPIR_BUILD_TIMEOUT:-300}" -lt 900 ]; then TAPIR_BUILD_TIMEOUT=900; fi
	SKIP_RE='not available yet|cannot be translated yet|not supported yet'
	if [ ! -f "/boot/vmlinuz-$rel" ]; then
		TIER_WHY="no kernel image /boot/vmlinuz-$rel"
		return 1
	fi
	hash=$( { cat "$here/scdrive.c" "$here/scdrive32.c"
		  gcc --version | head -n 1; } | sha256sum | cut -c1-16)
	out=$cache/scdrive-$hash
	if [ ! -x "$out/scdrive" ]; then
		mkdir -p "$out" || return 1
		if ! gcc -static -O2 -Wall -o "$out/scdrive.tmp" \
				"$here/scdrive.c" 2>"$out/gcc.log"; then
			TIER_WHY="scdrive.c did not build: $(head -n 5 "$out/gcc.log")"
			return 1
		fi
		mv "$out/scdrive.tmp" "$out/scdrive" || return 1
	fi
	# the ia32 workload: freestanding, so gcc -m32 needs no 32-bit libc
	if [ ! -x "$out/scdrive32" ]; then
		if ! gcc -m32 -static -nostdlib -ffreestanding -fno-pie -no-pie \
				-O2 -Wall -o "$out/scdrive32.tmp" \
				"$here/scdrive32.c" 2>"$out/gcc32.log"; then
			TIER_WHY="scdrive32.c did not build: $(head -n 5 "$out/gcc32.log")"
			return 1
		fi
		mv "$out/scdrive32.tmp" "$out/scdrive32" || return 1
	fi
	# stap: the oracle's tree with the -dbg vmlinux (oracle.sh makes it
	# in WORKDIR): without it stap 4.8 cannot resolve the tracepoints
	# that some of its syscall aliases fall back to (syscall.clone), so
	# no script with syscall.* builds
	if [ "$tool" = tapir ]; then
		TIER_TREE=$rel
	else
		TIER_TREE=$w/kbuild-ksyms
	fi
	VMEXTRA=(--kernel "/boot/vmlinuz-$rel" --file "$out/scdrive:/bin/scdrive"
		 --file "$out/scdrive32:/bin/scdrive32")
	return 0
}
