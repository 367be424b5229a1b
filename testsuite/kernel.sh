# testsuite/kernel.sh: the one place where the testsuite picks its kernel.
# Every tier's runner (a bash script) sources it; it sets
#   KERNEL_RELEASE    the release under test: $TAPIR_KERNEL if set, else
#                     the reference release
#   KERNEL_REFERENCE  the reference release, the first of tools/kernels
#                     (what tools/install-deps installs): the expected
#                     outputs were recorded on it
#   KERNEL_SERIES     the release's major.minor ("6.12"): run/NAME.out.6.12
#                     is its expected output where it differs
#   KERNEL_HEADERS    its kbuild tree ("" when its headers are missing)
#   KERNEL_IMAGE      /boot/vmlinuz-RELEASE ("" when it is not installed)
#   KERNEL_DEBUGINFO  /usr/lib/debug/boot/vmlinux-RELEASE ("" when missing)
#   KERNEL_WHY        why the tiers that build modules cannot test the
#                     release here ("" when they can)
# and exports TAPIR_VM_KERNEL=$KERNEL_IMAGE, so that tapir-vm and
# tapir --vm boot that kernel whichever others are installed.
#
# A machine may have any number of kernels; only the one named is used.

KERNEL_REFERENCE=$(sed -n '/^[^#[:space:]]/{s/[[:space:]].*//;p;q;}' "$(dirname "${BASH_SOURCE[0]}")/../tools/kernels" 2>/dev/null)
KERNEL_RELEASE=${TAPIR_KERNEL:-$KERNEL_REFERENCE}
KERNEL_SERIES=$(echo "$KERNEL_RELEASE" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
KERNEL_HEADERS= KERNEL_IMAGE= KERNEL_DEBUGINFO= KERNEL_WHY=
for kernel_d in "/lib/modules/$KERNEL_RELEASE/build" "/usr/src/linux-headers-$KERNEL_RELEASE"; do
	if [ -f "$kernel_d/Makefile" ] && [ -f "$kernel_d/.config" ]; then
		KERNEL_HEADERS=$kernel_d
		break
	fi
done
[ -f "/boot/vmlinuz-$KERNEL_RELEASE" ] && KERNEL_IMAGE=/boot/vmlinuz-$KERNEL_RELEASE
[ -f "/usr/lib/debug/boot/vmlinux-$KERNEL_RELEASE" ] &&
	KERNEL_DEBUGINFO=/usr/lib/debug/boot/vmlinux-$KERNEL_RELEASE
if [ -z "$KERNEL_RELEASE" ]; then
	KERNEL_WHY="no kernel release: tools/kernels is missing and TAPIR_KERNEL is not set"
elif [ -z "$KERNEL_HEADERS" ]; then
	KERNEL_WHY="no headers for kernel $KERNEL_RELEASE (install linux-headers-$KERNEL_RELEASE, run tools/install-deps, or set TAPIR_KERNEL to an installed release)"
elif [ -z "$KERNEL_IMAGE" ]; then
	KERNEL_WHY="no kernel image /boot/vmlinuz-$KERNEL_RELEASE (install linux-image-$KERNEL_RELEASE, run tools/install-deps, or set TAPIR_KERNEL to an installed release)"
fi
TAPIR_VM_KERNEL=$KERNEL_IMAGE
export TAPIR_VM_KERNEL
unset kernel_d
