# testsuite/dwarf-run/tier.sh: sourced by ../run/run-tier --cases=DIR
# and ../run/oracle.sh --cases=DIR (see run-tier's header). What the
# dwarf-run cases need beyond the run tier's:
#
#  - the test module (../testmod: tapir_testmod.ko with debuginfo, and the
#    static workload program drive), built by ../testmod/build into
#    $TAPIR_CACHE/testmod-RELEASE (default ~/.cache/tapir/...), rebuilt
#    only when its inputs change;
#  - a kernel build tree WORKDIR/tree, given to the translator as -r: a
#    copy of the release's headers (/usr/src/linux-headers-RELEASE) plus
#    extra/tapir_testmod.ko, and, when the -dbg package is installed, its
#    real System.map. module("tapir_testmod") resolves against the .ko
#    found in that tree (stap walks -r DIR for modules as it walks
#    /lib/modules/RELEASE; Tapir looks in the build tree too). For stap
#    (the oracle) the tree also has a vmlinux symlink to the -dbg
#    package's: given -r DIR, stap looks for the kernel's debuginfo only
#    there. Tapir finds it by release (/usr/lib/debug/boot/vmlinux-REL),
#    and a vmlinux in a kbuild tree makes kbuild generate modules' BTF
#    against it with tools (resolve_btfids) that Debian's headers lack;
#    stap's kbuild turns that off, Tapir's does not need to;
#  - in the guest, the test module loaded at boot (tapir-vm --module) and
#    drive as /bin/drive, so a case's opts say -c 'drive CMD ...';
#  - tapir messages that skip a case: pass 3 says "cannot be translated
#    yet" or "not supported yet" for what it does not generate yet (as
#    the emit tier reads them), pass 4 and 5 "not available yet";
#  - cases on kernel functions (kernel.function, kernel.statement) or
#    kernel globals (@var("name@file") without a module) are
#    skipped when the kernel's debuginfo is not installed.

# plain_ko WORKDIR RELEASE PATH: the release's module PATH.ko as a plain
# .ko (6.12's modules are xz-compressed, the guest loads plain ones:
# uncompressed into WORKDIR), or nothing and status 1 without one
plain_ko() {
	local m=/lib/modules/$2/kernel/$3.ko
	if [ -f "$m" ]; then
		echo "$m"
	elif [ -f "$m.xz" ] && xz -dc "$m.xz" >"$1/${m##*/}"; then
		echo "$1/${m##*/}"
	else
		return 1
	fi
}

tier_setup() {	# tier_setup WORKDIR RELEASE TOOL (tapir or stap)
	local w=$1 rel=$2 tool=${3:-tapir} hdrs t out e
	local cache=${TAPIR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tapir}
	SKIP_RE='not available yet|cannot be translated yet|not supported yet|Tapir cannot'
	case $rel in
	/*) TIER_WHY="needs a kernel release, not a tree ($rel)"; return 1 ;;
	esac
	hdrs=/usr/src/linux-headers-$rel
	[ -f "$hdrs/Makefile" ] || hdrs=/lib/modules/$rel/build
	if [ ! -f "$hdrs/Makefile" ]; then
		TIER_WHY="no kernel headers for $rel"
		return 1
	fi
	out=$("$here/../testmod/build" -r "$rel" "$cache/testmod-$rel" 2>&1) || {
		TIER_WHY="the test module did not build: $(echo "$out" | head -n 5)"
		return 1
	}
	TM_KO=$(echo "$out" | sed -n 1p) TM_DRIVE=$(echo "$out" | sed -n 2p)
	t=$w/tree
	rm -rf "$t" && mkdir -p "$t/extra" || return 1
	# a copy of the headers, symlinks resolved (they are relative)
	for e in "$hdrs"/* "$hdrs"/.config "$hdrs"/.kernelvariables; do
		[ -e "$e" ] || continue
		if [ -L "$e" ]; then
			ln -s "$(readlink -f "$e")" "$t/$(basename "$e")"
		else
			cp -a "$e" "$t/"
		fi
	done
	cp "$TM_KO" "$t/extra/" || return 1
	# Debian's headers say 6.1.192 (the upstream version) in
	# include/config/kernel.release; the release is UTS_RELEASE's
	# (6.1.0-57-cloud-amd64), which the -dbg package's files are named
	# after: the copy says that (tapir's kconfig.c reads this file)
	rm -f "$t/include/config/kernel.release"
	echo "$rel" >"$t/include/config/kernel.release"
	TIER_DEBUGINFO=/usr/lib/debug/boot/vmlinux-$rel
	if [ -f "$TIER_DEBUGINFO" ]; then
		cp "/usr/lib/debug/boot/System.map-$rel" "$t/System.map" 2>/dev/null
		[ "$tool" = stap ] && ln -s "$TIER_DEBUGINFO" "$t/vmlinux"
	fi
	# stap reads the tracepoints' headers (include/trace/events/) under
	# the tree's source link: Debian's -common headers, which the
	# tree's Makefile includes
	if [ "$tool" = stap ]; then
		e=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$hdrs/Makefile")
		[ -n "$e" ] && [ -d "$e/include/trace" ] && ln -s "$e" "$t/source"
	fi
	TIER_TREE=$t
	VMEXTRA=(--module "$TM_KO" --file "$TM_DRIVE:/bin/drive")
	# the watchdog core and softdog, which trace-module loads and
	# unloads itself (a module's tracepoints): copied in, not loaded
	for e in drivers/watchdog/watchdog drivers/watchdog/softdog; do
		e=$(plain_ko "$w" "$rel" "$e") && VMEXTRA+=(--file "$e:/root/${e##*/}")
	done
	# a block device for the block I/O aliases (alias-ioblock): the
	# null_blk disk /dev/nullb0 (multi-queue, one hardware queue, so the
	# mq-deadline elevator), loaded at boot after configfs, which it
	# needs; mq-deadline itself is built in on 6.1 but a module on 6.12
	# (CONFIG_MQ_IOSCHED_DEADLINE=m): without it loaded the case's
	# `echo mq-deadline > .../scheduler` fails and the disk keeps "none"
	for e in fs/configfs/configfs drivers/block/null_blk/null_blk \
	    block/mq-deadline; do
		e=$(plain_ko "$w" "$rel" "$e") && VMEXTRA+=(--module "$e")
	done
	return 0
}

case_skip() {	# case_skip NAME: why NAME cannot run here (nothing if it can)
	# kernel probes (tracepoints too: their arguments come from the
	# debuginfo), and @var("name@file") of a kernel global
	if [ ! -f "$TIER_DEBUGINFO" ] &&
	   grep -qE 'kernel\.(function|statement|trace)|@var\("[^"@]*@[^"]*"\)' "$1.stp"; then
		echo "needs the kernel's debuginfo ($TIER_DEBUGINFO)"
	fi
}

# stderr goes through this on both sides before it is compared: the
# address in stap's registration warning is where the kernel put the
# function (KASLR: another one every boot)
tier_mask() {
	sed -E 's/ \(address 0x[0-9a-f]+\) registration error/ (address 0x...) registration error/'
}
