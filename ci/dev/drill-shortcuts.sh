#!/bin/bash
# Each shortcut of the pipeline, proven on real boots: change exactly one
# input, run, and see that change reach the guest (and the identity check
# pass), then see that a stale output is refused (exit 2).
#
# usage: ci/dev/drill-shortcuts.sh CLONE
# CLONE is a scratch clone of this repository where `make run` has passed
# once (it builds there; its working tree is edited and restored). Not part
# of make test: it costs four incremental kernel builds and six boots.
#
#  1. the kernel's "up to date" stamp: CONFIG_LOCALVERSION changed in the
#     arch fragment -> the kernel is rebuilt and every console's banner
#     carries the new release;
#  2. the guests' initramfs stamp: the kselftest settings changed -> new
#     initramfs ids, and each guest prints its new one;
#  3. kunit.py's test.log: QEMU that cannot start -> no earlier boot's log
#     is read: exit 2, "no Linux version line";
#  4. the matrix's kernels seeded from the base kernel: time_ns_off's first
#     build starts from a copy and boots its own banner, not the base's;
#  5. a stale image (the ccache hazard's outcome): the previous bzImage put
#     back behind the stamp -> exit 2 naming both banners.
# Exit 0 when every step saw what it should; 1 otherwise.
set -uo pipefail
clone=$(cd "${1:?usage: ci/dev/drill-shortcuts.sh CLONE}" && pwd)
cd "$clone"
out=out/x86_64
bad=0
say() { echo "drill: $*"; }
check() {	# check WHAT CONDITION...
	local what=$1; shift
	if "$@"; then say "ok: $what"; else say "FAILED: $what"; bad=1; fi
}
banner() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["banner"])' "$1"; }
run() {	# run EXPECTED-EXIT ARGS...
	local want=$1 rc; shift
	ci/nsfd "$@" >"$clone/out/drill.log" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { say "ci/nsfd $* exited $rc, not $want:"; tail -n 5 "$clone/out/drill.log"; }
	[ "$rc" = "$want" ]
}
restore() { git checkout -q -- kunit-configs selftests/nsfd/settings; }
trap restore EXIT
mkdir -p out

check "baseline run" run 0 run x86_64
base=$(banner $out/identity-kernel.json)
ids=$(cat $out/initramfs*.id)

# 1. The kernel stamp.
echo 'CONFIG_LOCALVERSION="-drill"' >>kunit-configs/x86_64.kunitconfig
git commit -qam "drill: LOCALVERSION" || exit 2
check "a changed config rebuilds the kernel" run 0 run x86_64
check "the new release reaches every console" \
	grep -q -- '-drill' $out/console-kunit.log $out/console-kselftest.log
check "no console shows the old banner" \
	bash -c '! grep -qF "$1" "${@:2}"' - "$base" $out/console-kunit.log $out/console-kselftest*.log

# 2. The initramfs stamp.
sed -i 's/^timeout=\([0-9]*\)/timeout=\1\n# drill/' selftests/nsfd/settings
git commit -qam "drill: settings" || exit 2
check "changed settings rebuild the initramfs" run 0 run x86_64
check "the initramfs ids changed" [ "$(cat $out/initramfs*.id)" != "$ids" ]
check "the guest prints its new id" grep -qF "initramfs $(cat $out/initramfs.id)" $out/console-kselftest.log

# 3. kunit.py's test.log from an earlier exec.
NSFD_QEMU_ARGS=-no-such-qemu-option run 2 run x86_64
check "QEMU that cannot start is exit 2, not the earlier boot's log" \
	grep -q 'no "Linux version" line' "$clone/out/drill.log"

# 4. A matrix kernel seeded from the base kernel.
check "time_ns_off from a copy of the x86_64 kernel" run 0 run x86_64 --config time_ns_off
seeded=$(banner out/x86_64-time_ns_off/identity-kernel.json)
check "it boots its own kernel, not the base's" [ "$seeded" != "$(banner $out/identity-kernel.json)" ]

# 5. A stale image behind the stamp.
cp build/patched/x86_64/kernel/arch/x86/boot/bzImage out/bzImage.drill
git reset -q --hard HEAD~2 && restore
check "back to the first config" run 0 run x86_64
cp out/bzImage.drill build/patched/x86_64/kernel/arch/x86/boot/bzImage
check "the previous image booted is exit 2" run 2 guest x86_64
check "naming both kernels" grep -q 'booted ".*-drill.*", but the kernel built is' "$clone/out/drill.log"
# kbuild takes the copied image for up to date (it is newer than vmlinux):
# without it the next run relinks it.
rm -f build/patched/x86_64/kernel/arch/x86/boot/bzImage build/patched/x86_64/kernel/.nsfd-inputs
[ $bad = 0 ] && say "every shortcut proven" || say "some step failed"
exit $bad
