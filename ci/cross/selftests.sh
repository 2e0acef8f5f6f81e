#!/bin/bash
# Cross-compile the kselftests (selftests/nsfd) for every arch of
# ci/cross/selftests.tsv: the suite's own Makefile on the tree's lib.mk
# (-Wall and the kselftest flags), static as the guests run them, against
# that arch's uapi headers exported from the patched tree (make ARCH=...
# headers_install), which give its __NR_socketat. Nothing is run: the
# binaries only have to build, without a warning.
#
# usage: ci/cross/selftests.sh [ARCH...]        (default: every arch)
# env:   NSFD_SRC  the patched tree (default build/patched/src, made or
#                  updated first as ci/nsfd run's tree stage does)
#        NSFD_CROSS_OUT  where headers, binaries and logs go
#                  (default build/selftests-cross)
# Installs the missing packages first (root; apt-get, as ci/deps.sh).
# Prints one line per arch: arch, compiler, warnings, __NR_socketat in
# its headers, result; then the log of each arch that had a finding.
# Exit 0 when every arch built without a warning, 1 when one did not,
# 2 on a usage or environment error.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
table=$here/selftests.tsv
src=${NSFD_SRC:-$top/build/patched/src}
out=${NSFD_CROSS_OUT:-$top/build/selftests-cross}
mkdir -p "$(dirname "$out")"
jobs=$(nproc 2>/dev/null || echo 2)

die() { echo "selftests-cross: $*" >&2; exit 2; }

# The pipeline's own tree, made (or brought up to date) as its tree stage
# does, unless NSFD_SRC names another.
if [ -z "${NSFD_SRC:-}" ]; then
	"$top/ci/prepare-tree.sh" "$src" >"$out.tree.log" 2>&1 ||
		die "the tree stage failed (log: $out.tree.log)"
fi
[ -f "$src/Makefile" ] && [ -f "$src/tools/testing/selftests/lib.mk" ] ||
	die "no kernel tree at $src"
grep -q socketat "$src/scripts/syscall.tbl" 2>/dev/null ||
	die "$src has no socketat in scripts/syscall.tbl: not the patched tree"

rows=$(grep -v '^#' "$table" | grep -v '^$')
if [ $# -gt 0 ]; then
	sel=
	for a in "$@"; do
		row=$(printf '%s\n' "$rows" | awk -F'\t' -v a="$a" '$1 == a')
		[ -n "$row" ] || die "unknown arch $a; known: $(printf '%s\n' "$rows" | cut -f1 | xargs)"
		sel="$sel$row"$'\n'
	done
	rows=$sel
fi

# The packages, only those missing.
missing=
for p in $(printf '%s\n' "$rows" | cut -f4 | tr ',' ' '); do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root, or: sudo apt-get install$missing)"
	echo "selftests-cross: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt-get update -q
	# shellcheck disable=SC2086 # one argument a package
	apt-get install -y -q --no-install-recommends $missing >"$out.apt.log" 2>&1 ||
		{ apt-get update -q && apt-get install -y -q --no-install-recommends $missing; } \
		>>"$out.apt.log" 2>&1 || die "apt-get failed (log: $out.apt.log)"
fi

# A copy of the tree's kselftest framework with this worktree's suite in
# it, so that the tree itself is never written to.
mkdir -p "$out" || die "cannot make $out"
fw=$out/tools/testing/selftests
rm -rf "$out/tools"
mkdir -p "$fw" &&
	cp "$src/tools/testing/selftests/lib.mk" "$src/tools/testing/selftests/kselftest.h" \
	   "$src/tools/testing/selftests/kselftest_harness.h" "$fw/" &&
	cp -r "$top/selftests/nsfd" "$fw/nsfd" || die "cannot copy the kselftest framework"

# The uapi headers of each kernel ARCH, $jobs at a time.
headers() {
	make -C "$src" O="$out/obj-$1" ARCH="$1" headers_install \
		INSTALL_HDR_PATH="$out/headers/$1" >"$out/headers-$1.log" 2>&1 ||
		{ echo "selftests-cross: headers_install ARCH=$1 failed (log: $out/headers-$1.log)" >&2; return 1; }
}
export -f headers
export src out
printf '%s\n' "$rows" | cut -f2 | sort -u |
	xargs -P "$jobs" -I{} bash -c 'headers {}' || exit 2

printf '%-9s %-34s %-8s %-13s %s\n' arch compiler warnings __NR_socketat result
status=0
bad_logs=
while IFS=$'\t' read -r arch karch cc _; do
	[ -n "$arch" ] || continue
	o=$out/$arch
	log=$out/$arch.log
	rm -rf "$o"
	mkdir -p "$o"
	hdr=$out/headers/$karch/include
	# __NR_socketat as this ABI's compiler sees it through the headers.
	nr=$(printf '#include <asm/unistd.h>\n__NR_socketat\n' |
		$cc -isystem "$hdr" -E -P - 2>/dev/null | tail -n 1 | tr -d ' ')
	case "$nr" in __NR_socketat|'') nr=absent ;; esac
	if make -C "$fw/nsfd" OUTPUT="$o" CC="$cc" KHDR_INCLUDES="-isystem $hdr" \
		USERLDFLAGS=-static LDFLAGS=-static -j"$jobs" >"$log" 2>&1; then
		result=ok
	else
		result=FAILED
	fi
	warnings=$(grep -c 'warning:' "$log")
	[ "$result" = ok ] && [ "$nr" = absent ] && result="ok, but no __NR_socketat"
	if [ "$result" != ok ] || [ "$warnings" != 0 ]; then
		status=1
		bad_logs="$bad_logs $log"
	fi
	printf '%-9s %-34s %-8s %-13s %s\n' "$arch" "$cc" "$warnings" "$nr" "$result"
done <<<"$rows"
for log in $bad_logs; do
	echo "--- $log"
	grep -E 'warning:|error:' "$log" | head -n 20
done
exit $status
