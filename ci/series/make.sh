#!/bin/bash
# The mailable series into out/series/ (ci/series/mail.sh).  Then the checks a
# netdev reviewer's robot runs, patch by patch, in a private tree and build
# directory under build/series-check/ (niced, one job; slow, not make test):
#
#  - checkpatch --strict, and again at 80 columns as netdev's bot runs it:
#    every finding must be explained in its patch's commit message, which
#    quotes checkpatch's words for it (ci/series/explained.py);
#  - the kernel objects each patch touches, rebuilt with W=1 and C=2 (sparse)
#    on x86_64 (defconfig + KUNIT + the nsfd KUnit suite), before and after
#    the patch: only findings the patch adds count;
#  - scripts/kernel-doc -Wall -none (as netdev's bot) on the touched .c/.h
#    files, before and after, line numbers aside;
#  - after the last patch, for every architecture with a syscall table, the
#    uapi and kernel syscall headers generated with the host toolchain
#    (make ARCH=X archheaders headers_install) and scripts/checksyscalls.sh
#    run over the installed headers for each ABI with the host preprocessor
#    (gcc -undef plus that ABI's macros): __NR_socketat must be defined with
#    the ABI's number and checksyscalls must not report socketat.
#
# Exit 1 if any check reports anything new, 2 on environment errors and
# when git config has no sender identity, or a placeholder one (the mail
# is signed by whoever runs this: ci/series/identity.py).
#
# --kernel-src DIR (make series KERNEL_SRC=DIR): the same series made for
# the git tree DIR (ci/series/mail.sh --kernel-src: applied to its HEAD
# with git am -3, socketat given the next number free in every syscall
# table there, base-commit: DIR's HEAD), into out/series-<commit>/, and the
# same checks on it, each ABI's __NR_socketat expected at that number.
# Exit 1, naming the patch and the file, where a patch does not apply.
# It ends with where the mail is, the number, the applied tree, and that
# tree's run through the pipeline on each arch (NSFD_SERIES_ARCHES).
#
# NSFD_SERIES_OBJECTS=0: no W=1/sparse rebuild of the touched objects
# (they build kernel objects); every other check runs.
# NSFD_SERIES_ARCHES (x86_64 riscv64): with --kernel-src, the arches on
# which the applied tree is then built and tested through the pipeline
# (ci/nsfd run ARCH --kernel-src TREE --with-series), each arch's totals
# printed last; a failure there is 1, its environment error 2.
#
# usage: ci/series/make.sh [--kernel-src DIR]
set -euo pipefail
shopt -s inherit_errexit
rc=0
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/build/patched/src
out=$top/out/series
bc=$top/build/series-check
kernel_src=
if [ "${1:-}" = --kernel-src ] && [ $# = 2 ]; then
	kernel_src=$2
elif [ $# != 0 ]; then
	echo "usage: ci/series/make.sh [--kernel-src DIR]" >&2; exit 2
fi
objects=${NSFD_SERIES_OBJECTS:-1}
# With --kernel-src: the arches the applied tree is run on (none: '').
arches=${NSFD_SERIES_ARCHES-x86_64 riscv64}

# Before anything else: who signs the mail (exit 2 saying how to set it).
PYTHONPATH="$top" python3 -B -P -m ci.series.identity sender "$top" >/dev/null || exit 2
. "$top/ci/build-lock.sh"
. "$top/ci/series/includer.sh"
hold_build_lock "$top" || { echo "series: $top/build/.lock is held by a run" >&2; exit 2; }
if [ "$objects" != 0 ]; then
	command -v sparse >/dev/null || { echo "series: sparse is missing (apt-get install sparse)" >&2; exit 2; }
fi
"$top/ci/series/mail.sh" ${kernel_src:+--kernel-src "$kernel_src"} || rc=$?
[ "$rc" = 2 ] && exit 2
# The number every ABI's __NR_socketat must have: the wiring patch's own
# (463), or the one ci/series/ontree.py chose for DIR.
nr=$(PYTHONPATH="$top" python3 -B -P -m ci.series.renumber n0 "$top"/patches/0*.patch)
if [ -n "$kernel_src" ]; then
	# Where a patch did not apply, mail.sh named it and wrote no mail.
	work=$(PYTHONPATH="$top" python3 -B -P -m ci.series.ontree where "$kernel_src") || exit 2
	out=$top/out/series-${work##*/}
	[ -d "$out" ] || exit 1
	. "$work/series.env"
	src=$SERIES_DIR/mail bc=$SERIES_DIR/check nr=$SERIES_NR
fi

# --- the private tree and build directory --------------------------------
mkdir -p "$bc"
wt=$bc/src o=$bc/x86_64
if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	echo "series: cloning the tree into $wt (once)"
	rm -rf "$wt"
	git clone -q --no-checkout "$src" "$wt"
fi
git -C "$wt" fetch -q -f "$src" '+refs/tags/nsfd-*:refs/tags/nsfd-*'
nk() { nice -n 19 make -C "$wt" -j1 "$@"; }
wtco() { git -C "$wt" -c advice.detachedHead=false checkout -q -f --detach "$1"; }

# x86_64 defconfig, KUnit, and every Kconfig symbol the series adds (the
# KUnit suites), so that the touched objects are built.
configure() {
	[ -f "$o/.config" ] || nk -s O="$o" defconfig >/dev/null
	"$wt/scripts/config" --file "$o/.config" -e KUNIT $(git -C "$wt" diff nsfd-base nsfd-mail -- \
		'*Kconfig*' | sed -n 's/^+config \([A-Z0-9_]*\).*/-e \1/p')
	nk -s O="$o" olddefconfig >/dev/null
}

# The kernel objects a commit touches: each .c outside tools/ (a .c that
# another one #includes, as the KUnit suites are, counts as its includer), x86 tables as their entry
# objects.  Headers are judged through the objects of the same patch.
objects_of() {
	local f d b inc
	for f in $(git -C "$wt" diff --name-only "$1^" "$1"); do
		case $f in
		tools/*) ;;
		arch/x86/entry/syscalls/syscall_64.tbl) echo arch/x86/entry/syscall_64.o ;;
		arch/x86/entry/syscalls/syscall_32.tbl) echo arch/x86/entry/syscall_32.o ;;
		*.c)	echo "$(includer_of "$wt" "$1" "$f" | sed 's/\.c$//').o" ;;
		esac
	done | sort -u
}


# findings KIND FILE...: warnings, line numbers dropped so that a shifted
# line is not new.
findings() {
	local kind=$1; shift
	case $kind in
	build)	rm -f "${@/#/$o/}"
		nk -k O="$o" W=1 C=2 "$@" 2>&1 | grep -E '(warning|error):' || true ;;
	kdoc)	(cd "$wt" && for f in "$@"; do [ -f "$f" ] && perl scripts/kernel-doc -Wall -none "$f"; done) 2>&1 || true ;;
	esac | sed -E 's/:[0-9]+(:[0-9]+)?:/:/' | sort
}

# --- per patch -----------------------------------------------------------
commits=($(git -C "$wt" rev-list --reverse nsfd-base..nsfd-mail))
patches=($(ls "$out"/0*.patch | grep -v 0000-cover-letter))
echo "series: per patch: checkpatch --strict and at 80 columns (findings explained in the commit message); W=1 and sparse (C=2) on the touched objects; kernel-doc -Wall -none on the touched files (x86_64 defconfig + KUNIT + the suites)"
for i in "${!commits[@]}"; do
	c=${commits[$i]} p=${patches[$i]}
	# Debian's python3 has the ply and git modules spdxcheck.py wants.
	# --strict, nothing ignored; then as netdev's patchwork bot runs it,
	# 80 columns. A finding that must stay is explained in the commit
	# message of its patch, which quotes checkpatch's words for it
	# (ci/series/explained.py); any other fails.
	# (--terse prints no total for a clean patch: count the findings.)
	total() { printf '%s errors, %s warnings, %s checks' "$(grep -c ': ERROR: ' <<<"$1" || true)" \
		"$(grep -c ': WARNING: ' <<<"$1" || true)" "$(grep -c ': CHECK: ' <<<"$1" || true)"; }
	cp_out=$(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse "$p" 2>&1 || true)
	cp_total=$(total "$cp_out")
	nipa=$(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse \
		--max-line-length=80 "$p" 2>&1 || true)
	nipa_total=$(total "$nipa")
	long=$(grep -c 'exceeds 80 columns' <<<"$nipa" || true)
	why=$(PYTHONPATH="$top" python3 -B -P -m ci.series.explained "$p" <<<"$nipa") && unexplained=0 || unexplained=1
	objs=$(objects_of "$c")
	files=$(git -C "$wt" diff --name-only "$c^" "$c" -- '*.c' '*.h')
	# Before the patch (an object that does not exist yet has no findings),
	# then after it.
	[ "$objects" != 0 ] || objs=
	wtco "$c^"; [ -z "$objs" ] || configure
	before_b=$( [ -z "$objs" ] || findings build $objs)
	before_k=$( [ -z "$files" ] || findings kdoc $files)
	wtco "$c"; [ -z "$objs" ] || configure
	after_b=$( [ -z "$objs" ] || findings build $objs)
	after_k=$( [ -z "$files" ] || findings kdoc $files)
	new_b=$(comm -13 <(echo "$before_b") <(echo "$after_b") | sed '/^$/d')
	new_k=$(comm -13 <(echo "$before_k") <(echo "$after_k") | sed '/^$/d')
	ng=$(echo "$new_b" | grep -c '\[-W' || true)
	ns=$(echo "$new_b" | grep -vc '\[-W\|^$' || true)
	nd=$(echo "$new_k" | grep -c . || true)
	printf '%s\n  checkpatch --strict: %s\n  netdev (80 columns): %s; %s over 80 columns; %s in the commit message\n  W=1: %s new, sparse: %s new (%s)\n  kernel-doc: %s new (%s)\n  Cc: %s\n' \
		"$(basename "$p")" "$cp_total" "$nipa_total" "$long" \
		"$(head -n 1 <<<"$why")" \
		"$ng" "$ns" "$(echo ${objs:-no kernel objects$([ "$objects" != 0 ] || echo ' (NSFD_SERIES_OBJECTS=0)')})" \
		"$nd" "$(echo ${files:-no .c/.h})" \
		"$(sed -n '/^Cc: /,/^[^ C]/p' "$p" | sed -e '/^[^ C]/d' -e 's/^Cc: //' -e 's/^ *//' | tr -d '\n' | sed 's/,/, /g')"
	if [ "$unexplained" = 1 ]; then
		rc=1; tail -n +2 <<<"$why" | head -n 20 | sed 's/^/    not explained: /' || true
	fi
	if [ -n "$new_b$new_k" ]; then
		rc=1; { printf '%s\n%s\n' "$new_b" "$new_k" | sed '/^$/d' | head -n 30 | sed 's/^/    /'; } || true
	fi
done

# --- syscall headers on every architecture -------------------------------
# ARCH, then per ABI: name, the expected __NR_socketat (from $nr, each
# ABI's offset or base added: ci/series/renumber.py's ABIS), the macros
# the compiler of that ABI predefines and the uapi headers test.
abis() {
	PYTHONPATH="$top" python3 -B -P -m ci.series.renumber abis "$nr"
}
echo "series: syscall headers and checksyscalls for socketat, per architecture and ABI (host toolchain)"
wtco nsfd-mail
checked=(); mkdir -p "$bc/hdr"
for arch in $(abis | cut -f1 | uniq); do
	ho=$bc/hdr/$arch
	if ! nk -s ARCH="$arch" O="$ho" INSTALL_HDR_PATH="$ho/usr" \
		archheaders asm-generic headers_install >"$ho.log" 2>&1; then
		rc=1; echo "  $arch: header generation failed (see $ho.log)"; continue
	fi
	# The kernel's own tables (native and compat) where archheaders makes
	# them (arm makes its own later, in archprepare).
	tables=$( (grep -rl 'sys_socketat' "$ho/arch/$arch/include/generated" 2>/dev/null || true) |
		sed 's|.*/||' | sort | tr '\n' ' ')
	while IFS=$'\t' read -r a abi want defs; do
		[ "$a" = "$arch" ] || continue
		cpp="gcc -undef -nostdinc -D__CHAR_BIT__=8 $defs -I $ho/usr/include"
		got=$(printf '#include <asm/unistd.h>\nNR=__NR_socketat\n' |
			$cpp -E -P -x c - 2>/dev/null | sed -n 's/^NR=//p' || true)
		got=$( (( got )) 2>/dev/null && echo $((got)) || echo "undefined")
		cs=$("$wt/scripts/checksyscalls.sh" $cpp 2>&1) && csrc=0 || csrc=$?
		miss=$(grep -c 'syscall socketat not implemented' <<<"$cs" || true)
		[ "$csrc" = 0 ] || miss="cpp failed ($csrc)"
		if [ "$got" = "$want" ] && [ "$miss" = 0 ]; then
			printf '  %-10s %-11s __NR_socketat %-10s checksyscalls: ok   kernel tables: %s\n' \
				"$arch" "$abi" "$got" "${tables:--}"
		else
			rc=1
			printf '  %-10s %-11s __NR_socketat %s (want %s), checksyscalls socketat warnings: %s, kernel tables: %s FAIL\n' \
				"$arch" "$abi" "$got" "$want" "$miss" "${tables:-none}"
		fi
		checked+=("$arch/$abi")
	done < <(abis)
done
echo "series: architectures checked: ${checked[*]}"
echo "series: $(ls "$out" | wc -l) files in $out"
if [ -n "$kernel_src" ]; then
	echo "series: socketat is $nr on $kernel_src (${SERIES_BASE:0:12}); the mail: $out (base-commit: $SERIES_BASE)"
	echo "series: the tree as applied, renumbered: $SERIES_TREE"
	# The applied tree through the normal pipeline, judged as ours
	# (--with-series): every suite builds and runs, socketat exists.
	# Under this script's build lock (fd 9, handed down).
	totals=()
	for arch in $arches; do
		echo "series: $arch: ci/nsfd run $arch --kernel-src $SERIES_TREE --with-series"
		"$top/ci/nsfd" run "$arch" --kernel-src "$SERIES_TREE" --with-series && runrc=0 || runrc=$?
		totals+=("$arch: $(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped" % s)' \
			"$top/out/$arch/results.json" 2>/dev/null || echo 'no results') (exit $runrc)")
		case $runrc in
		0) ;;
		2) rc=2 ;;
		*) [ "$rc" = 2 ] || rc=1 ;;	# a failed test, or a tree that does not build
		esac
	done
	for t in "${totals[@]}"; do echo "series: $t"; done
fi
exit $rc
