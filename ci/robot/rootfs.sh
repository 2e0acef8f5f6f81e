#!/bin/bash
# make robot's rootfs, as a stock busybox root file system a robot boots:
# Debian's busybox-static as every command, the glibc the kselftests link
# against (they are built as a distro builds them, dynamically), coreutils'
# timeout for kselftest's runner, the kselftest install in /opt/kselftest,
# the kernel's modules, and ci/robot/init as /init. Packed with the
# kernel's own usr/gen_initramfs.sh (owners squashed to root, /dev/console
# made without root or mknod).
#
# usage: ci/robot/rootfs.sh KDIR KSELFTEST_INSTALL ROOTFS_DIR CPIO LINUX_ARCH CROSS_COMPILE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kdir=$1 ksft=$2 root=$3 cpio=$4 larch=$5 cross=$6
gcc=${cross}gcc
triplet=$($gcc -dumpmachine)

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,lib,dev,proc,sys,run,tmp,opt,etc,usr/bin,usr/sbin} "$root/lib/$triplet"
cp /bin/busybox "$root/bin/busybox"
# NSFD_ROBOT_INIT: another init (another robot's mounts) in place of ours.
install -m 0755 "${NSFD_ROBOT_INIT:-$here/init}" "$root/init"
cp -a "$ksft" "$root/opt/kselftest"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/false" >>"$root/etc/passwd"
printf 'root:x:0:\ntty:x:5:\nnogroup:x:65534:\n' >"$root/etc/group"

# ELF programs that need the C library: the kselftests, and coreutils'
# timeout when the host's fits this arch (the runner calls it as
# /usr/bin/timeout --foreground; busybox's timeout has no such option, and
# without /usr/bin/timeout the runner enforces no timeout at all).
elves=()
while IFS= read -r -d '' f; do
	head -c 4 "$f" | grep -q $'\x7fELF' && elves+=("$f")
done < <(find "$root/opt/kselftest" -type f -perm -u+x -print0)
if [ "$(gcc -dumpmachine)" = "$triplet" ]; then
	cp /usr/bin/timeout "$root/usr/bin/timeout"
	elves+=("$root/usr/bin/timeout")
else
	echo "rootfs: no coreutils timeout for $triplet: the runner will run without a timeout"
fi

# The loader each program names, at that path, and every library it
# needs, where Debian's loader looks (/lib/TRIPLET): read from the ELF
# headers, never by running anything.
declare -A libs=()
for f in "${elves[@]}"; do
	interp=$(${cross}readelf -l "$f" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
	[ -n "$interp" ] && libs[$interp]=1
	for n in $(${cross}readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		libs[/lib/$triplet/$n]=1
	done
done
for dest in "${!libs[@]}"; do
	from=$(realpath "$($gcc -print-file-name="$(basename "$dest")")")
	[ -f "$from" ] || { echo "rootfs: cannot find $(basename "$dest") for $triplet" >&2; exit 1; }
	mkdir -p "$root$(dirname "$dest")"
	cp "$from" "$root$dest"
	echo "rootfs: $dest from $from"
done

if [ -s "$kdir/modules.order" ]; then
	make -s -C "$kdir" ARCH="$larch" CROSS_COMPILE="$cross" INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_STRIP=1 modules_install
fi

spec=$(mktemp)
trap 'rm -f "$spec"' EXIT
echo "nod /dev/console 0600 0 0 c 5 1" >"$spec"
(cd "$kdir" && "$(realpath "$kdir/source" 2>/dev/null || echo "$kdir")/usr/gen_initramfs.sh" \
	-o "$cpio" -u squash -g squash "$root" "$spec")
# A root directory only root may search, as a rootfs packed with
# `find . | cpio` from a mktemp -d directory has: its "." entry sets the
# mode of the kernel's "/" (init/initramfs.c, do_name()). A test that
# walks from "/" as another uid gets EACCES there; nsfd's cases must not
# depend on the rootfs they run in. An archive appended to the first is
# unpacked after it.
dot=$(mktemp -d)
chmod 0700 "$dot"
(cd "$dot" && echo . | cpio --quiet -o -H newc -R 0:0) >>"$cpio"
rmdir "$dot"
echo "rootfs: $cpio, $(find "$root" -type f | wc -l) files, / mode 0700"
