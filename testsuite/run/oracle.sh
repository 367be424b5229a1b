#!/bin/bash
# testsuite/run/oracle.sh: produce the expected NAME.out, NAME.err and
# NAME.status of the run tier from SystemTap 4.8, running its modules in
# the same qemu guest that the tier uses for Tapir.
#
# usage: testsuite/run/oracle.sh [-k] [--cases=DIR] [NAME...]
#        (default: every case except those in hand-written.txt; NAME or
#        NAME.stp)
#   -k   keep going: do not stop at a build failure
#   --cases=DIR  the cases of another folder with the same conventions
#        (e.g. ../dwarf-run); its tier.sh, when present, is used as
#        run-tier uses it: stap gets -r TIER_TREE when tier_setup sets it,
#        and the guest VMEXTRA's arguments
#
# env: ORACLE_DIR    work folder (default /tmp/tapir-oracle): the patched
#                    runtime copy, the kbuild tree, the modules, the results
#      STAP_RELEASE  the guest kernel (default: the reference release, the
#                    first of tools/kernels: stap 4.8 does not build on
#                    some others, e.g. 6.12)
#      TAPIR_VM      the qemu runner (default ../../tools/tapir-vm)
#      JOBS          stap builds at a time (default 2)
#      BATCH         jobs per guest boot (default 40)
#      VM_TIMEOUT    seconds per job in the guest (default 90)
#
# What it does, step by step:
#  1. Copies /usr/share/systemtap/runtime to $ORACLE_DIR/runtime and
#     switches its task_work_cancel() (whose signature a 6.1 stable update
#     changed) to task_work_cancel_func(), looked up through kallsyms like
#     the original. stap 4.8's pass 4 fails on these headers without it.
#  2. Makes $ORACLE_DIR/kbuild, a copy of the release's kbuild tree
#     (/usr/src/linux-headers-RELEASE) plus the real System.map from the
#     linux-image-RELEASE-dbg package: Debian's /boot/System.map-* is a
#     placeholder, and stap resolves kprobe.function points against
#     BUILDDIR/System.map when given -r BUILDDIR.
#  3. Builds every case with
#       stap -R $ORACLE_DIR/runtime -r $ORACLE_DIR/kbuild -p4 -m MOD \
#            [translator options] NAME.stp [args]
#     in a folder holding a copy of NAME.stp (so messages name NAME.stp);
#     MOD is NAME with - replaced by _. JOBS builds at a time. A script
#     that calls symname, symdata, probefunc, modname, a backtrace or a
#     _syms function is built with -d kernel against
#     $ORACLE_DIR/kbuild-ksyms, the same tree plus the -dbg package's
#     vmlinux: without the kernel's symbols in the
#     module, stap prints raw addresses for them and warns "Missing unwind
#     data for a module" (Tapir looks the symbols up in the running kernel).
#  4. Boots the guest (tools/tapir-vm) once per BATCH cases, with staprun,
#     stapio and their shared libraries copied in, and runs one job per
#     case: staprun [-c CMD] [-x PID] [-o FILE] /root/MOD.ko [var=val];
#     with -o, the job then prints FILE (see common.sh).
#  5. Writes the job's stdout, stderr and exit status to NAME.out, NAME.err
#     and NAME.status, and prints any kernel log problem (N.bad): a case
#     whose run shows one is not written (fix the case).
# Read the git diff of the expected files before committing them.
set -u

start=$PWD
here=$(cd "$(dirname "$0")" && pwd) || exit 2
self=$here/$(basename "$0")	# "$0" may be relative to another folder
cd "$here" || exit 2
. ./common.sh
if [ -n "${RUN_TIER_CASES:-}" ]; then	# --cases=DIR, for the builds
	here=$RUN_TIER_CASES
	cd "$here" || exit 2
fi

ORACLE_DIR=${ORACLE_DIR:-/tmp/tapir-oracle}
STAP_RELEASE=${STAP_RELEASE:-$KERNEL_REFERENCE}
TAPIR_VM=${TAPIR_VM:-$here/../../tools/tapir-vm}
JOBS=${JOBS:-2}
BATCH=${BATCH:-40}
VM_TIMEOUT=${VM_TIMEOUT:-90}
O=$ORACLE_DIR

# One build, run by xargs below: oracle.sh --build NAME
if [ "${1:-}" = --build ]; then
	n=$2 m=$(modname "$2")
	split_opts "$n"
	rm -rf "$O/build/$n" && mkdir -p "$O/build/$n" && cp "$n.stp" "$O/build/$n/" || exit 2
	cd "$O/build/$n" || exit 2
	kb=$O/kbuild x=()
	if grep -qE '(symname|symdata|symfileline|symfile|symline|probefunc|backtrace|_syms|modname)[[:space:]]*\(' "$n.stp"; then
		kb=$O/kbuild-ksyms x=(-d kernel)
	fi
	[ -n "${TIER_TREE:-}" ] && kb=$TIER_TREE
	if stap -R "$O/runtime" -r "$kb" "${x[@]}" -p4 -m "$m" "${TOPTS[@]}" "$n.stp" "${ARGS[@]}" \
			>stap.out 2>stap.err && [ -f "$m.ko" ]; then
		mv "$m.ko" "$O/ko/$m.ko"
		echo "built $n"
	else
		echo "BUILD FAILED $n:"
		sed 's/^/	/' stap.err | head -n 20
		exit 1
	fi
	exit 0
fi

keep_going=0
names=()
for a in "$@"; do
	case $a in
	-k) keep_going=1 ;;
	--cases=*)
		here=$(cd "$start" && cd "${a#--cases=}" && pwd) || exit 2
		cd "$here" || exit 2
		export RUN_TIER_CASES=$here ;;
	*) a=${a%.stp}; a=${a##*/}
	   [ -f "$a.stp" ] || { echo "oracle.sh: no case $a.stp" >&2; exit 2; }
	   names+=("$a") ;;
	esac
done
if [ ${#names[@]} -eq 0 ]; then
	for f in *.stp; do
		n=${f%.stp}
		grep -q "^$n:" hand-written.txt 2>/dev/null && continue
		names+=("$n")
	done
fi

command -v stap >/dev/null && command -v staprun >/dev/null ||
	{ echo "oracle.sh: needs SystemTap (apt-get install systemtap)" >&2; exit 2; }
smap=/usr/lib/debug/boot/System.map-$STAP_RELEASE
[ -f "$smap" ] ||
	{ echo "oracle.sh: no $smap (apt-get install linux-image-$STAP_RELEASE-dbg)" >&2; exit 2; }
vmlinux=/usr/lib/debug/boot/vmlinux-$STAP_RELEASE
[ -f "$vmlinux" ] ||
	{ echo "oracle.sh: no $vmlinux (apt-get install linux-image-$STAP_RELEASE-dbg)" >&2; exit 2; }
hdrs=/usr/src/linux-headers-$STAP_RELEASE
[ -d "$hdrs" ] || { echo "oracle.sh: no $hdrs" >&2; exit 2; }

# 1. the patched runtime
if [ ! -f "$O/runtime/.patched" ]; then
	rm -rf "$O/runtime" && mkdir -p "$O" &&
	cp -r /usr/share/systemtap/runtime "$O/runtime" || exit 2
	f=$O/runtime/stp_task_work.c
	sed -i -e 's/typeof(&task_work_cancel)/typeof(\&task_work_cancel_func)/' \
	       -e 's/^#define task_work_cancel (/#define task_work_cancel_func (/' \
	       -e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
	       -e 's/twork = task_work_cancel(task, func)/twork = task_work_cancel_func(task, func)/' "$f" &&
	[ "$(grep -c task_work_cancel_func "$f")" = 4 ] ||
		{ echo "oracle.sh: patching $f failed" >&2; exit 2; }
	touch "$O/runtime/.patched"
fi
# 2. the kbuild tree with the real System.map
if [ ! -f "$O/kbuild/System.map" ]; then
	rm -rf "$O/kbuild" && mkdir -p "$O/kbuild" || exit 2
	for e in "$hdrs"/* "$hdrs"/.config "$hdrs"/.kernelvariables; do
		[ -e "$e" ] || continue
		if [ -L "$e" ]; then
			ln -s "$(readlink -f "$e")" "$O/kbuild/$(basename "$e")"
		else
			cp -a "$e" "$O/kbuild/"
		fi
	done
	cp "$smap" "$O/kbuild/System.map" || exit 2
fi
# ... and a copy with the kernel's vmlinux, for the cases that need the
# kernel's symbols in the module (see step 3)
if [ ! -e "$O/kbuild-ksyms/vmlinux" ]; then
	rm -rf "$O/kbuild-ksyms" && cp -a "$O/kbuild" "$O/kbuild-ksyms" &&
	ln -s "$vmlinux" "$O/kbuild-ksyms/vmlinux" || exit 2
fi

# the case folder's own setup (see run-tier)
VMEXTRA=() TIER_TREE= TIER_WHY=
if [ -f tier.sh ]; then
	. ./tier.sh
	tier_setup "$O" "$STAP_RELEASE" stap || { echo "oracle.sh: $TIER_WHY" >&2; exit 2; }
	export TIER_TREE
fi

# 3. build
mkdir -p "$O/ko" "$O/build"
t0=$(date +%s)
for n in "${names[@]}"; do rm -f "$O/ko/$(modname "$n").ko"; done
printf '%s\n' "${names[@]}" | xargs -P "$JOBS" -n 1 "$self" --build
built=()
for n in "${names[@]}"; do
	if [ -f "$O/ko/$(modname "$n").ko" ]; then
		built+=("$n")
	elif [ $keep_going = 0 ]; then
		echo "oracle.sh: $n did not build (-k to go on without it)" >&2
		exit 1
	fi
done
t1=$(date +%s)
echo "built ${#built[@]} modules in $((t1 - t0)) s"

# 4. run, in batches
vmfiles=(--file /usr/bin/staprun:/usr/bin/staprun
	 --file /usr/lib/systemtap/stapio:/usr/lib/systemtap/stapio
	 --file "$(readlink -f /lib64/ld-linux-x86-64.so.2):/lib64/ld-linux-x86-64.so.2")
for l in $(ldd /usr/bin/staprun /usr/lib/systemtap/stapio | awk '/=>/ { print $3 }' | sort -u); do
	vmfiles+=(--file "$(readlink -f "$l"):$l")
done
vmfiles+=("${VMEXTRA[@]}")

status=0
i=0
while [ $i -lt ${#built[@]} ]; do
	batch=("${built[@]:$i:$BATCH}")
	i=$((i + BATCH))
	files=() jobs=()
	for n in "${batch[@]}"; do
		m=$(modname "$n")
		split_opts "$n"
		files+=(--file "$O/ko/$m.ko:/root/$m.ko")
		jobs+=(--job "$(guest_job staprun "/root/$m.ko")")
	done
	R=$O/results.$i
	rm -rf "$R"
	b0=$(date +%s)
	"$TAPIR_VM" -r "$STAP_RELEASE" --timeout "$VM_TIMEOUT" --results "$R" "${vmfiles[@]}" "${files[@]}" "${jobs[@]}" \
		>"$O/vm.out" 2>"$O/vm.err"
	b1=$(date +%s)
	echo "batch of ${#batch[@]}: guest run $((b1 - b0)) s"
	if [ -s "$R/bootlog.bad" ]; then
		echo "oracle.sh: the guest's boot log shows a problem:"; cat "$R/bootlog.bad"
	fi
	# 5. the expected files
	for j in "${!batch[@]}"; do
		n=${batch[$j]}
		if [ ! -f "$R/$j.status" ]; then
			echo "NOT RUN $n (see $O/vm.err)"; status=1; continue
		fi
		if [ -s "$R/$j.bad" ]; then
			echo "KERNEL LOG PROBLEM $n:"; sed 's/^/	/' "$R/$j.bad"; status=1; continue
		fi
		for x in out err status; do
			if [ -f "$n.$x" ] && cmp -s "$R/$j.$x" "$n.$x"; then continue; fi
			[ -f "$n.$x" ] && echo "updated $n.$x" || echo "created $n.$x"
			cp "$R/$j.$x" "$n.$x"
		done
	done
done
exit $status
