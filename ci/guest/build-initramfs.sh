#!/bin/bash
# Build the kselftest guest's initramfs: the static init (ci/guest/init.c)
# and every test kselftest built for TARGETS=nsfd, with its settings file.
# The kernel's own usr/gen_init_cpio writes the archive, device node and
# all, so no root and no mknod are needed.
#
# usage: ci/guest/build-initramfs.sh KERNEL_BUILD_DIR GUEST_DIR CC [PROGRAM...]
# PROGRAMs, when given, are the tests instead of the kselftests.
# NSFD_SETTINGS names another kselftest settings file ("timeout=N", the
# per-binary timeout) than selftests/nsfd/settings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kdir=${1:?usage: ci/guest/build-initramfs.sh KERNEL_BUILD_DIR GUEST_DIR CC}
gdir=${2:?}
cc=${3:?}
tests=$kdir/kselftest/nsfd
cpio=$kdir/usr/gen_init_cpio
shift 3
progs=("$@")
[ ${#progs[@]} -gt 0 ] || progs=("$tests"/*)

[ -x "$cpio" ] || { echo "initramfs: $cpio is missing: the kernel needs CONFIG_BLK_DEV_INITRD=y" >&2; exit 1; }
[ $# -gt 0 ] || [ -d "$tests" ] || { echo "initramfs: no tests in $tests: did kselftest-all TARGETS=nsfd run?" >&2; exit 1; }
mkdir -p "$gdir"

# Always compiled (under a second): an init left from older source or
# another compiler must not be packed and then "proven" by the id below.
$cc -static -O2 -Wall -Wextra -Werror -o "$gdir/init" "$here/init.c"

spec=$gdir/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	for d in proc sys tmp run tests; do echo "dir /$d 0755 0 0"; done
	echo "file /init $gdir/init 0755 0 0"
	echo "file /tests/settings ${NSFD_SETTINGS:-$(cd "$here/../.." && pwd)/selftests/nsfd/settings} 0644 0 0"
	n=0
	for t in "${progs[@]}"; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		echo "file /tests/$(basename "$t") $t 0755 0 0"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || { echo "initramfs: no test programs (${progs[*]})" >&2; exit 1; }
} >"$spec.new"
# The initramfs's id: a digest of its list and of every file it packs.
# It goes in as /nsfd-initramfs.id; the guest init prints it, and the host
# matches it against $gdir/initramfs.id (ci/results/identity.py): a boot proves
# which tests it ran.
awk '$1 == "file" { print $3 }' "$spec.new" | xargs sha256sum | cat "$spec.new" - |
	sha256sum | cut -d' ' -f1 >"$gdir/initramfs.id"
echo "file /nsfd-initramfs.id $gdir/initramfs.id 0644 0 0" >>"$spec.new"
mv "$spec.new" "$spec"
"$cpio" "$spec" >"$gdir/initramfs.cpio.new"
mv "$gdir/initramfs.cpio.new" "$gdir/initramfs.cpio"
echo "initramfs: $(grep -c '^file /tests/' "$spec") files under /tests, $(stat -c %s "$gdir/initramfs.cpio") bytes"
