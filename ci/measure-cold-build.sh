#!/bin/bash
# Cold build of nsfd's x86_64 kernel beside kunit.py's own minimal config
# (tools/testing/kunit/configs/default.config, nothing of nsfd's), one
# after the other in one run, ccache off: the wall times, the objects each
# compiles and their ratio (README: lean kernels). A third build,
# nsfd-ccache, is nsfd's config again through an empty ccache in depend
# mode, as a cold make test builds it: what filling the cache costs. A
# fourth, nsfd-warm, builds it once more into an empty build directory
# through that filled cache: a warm build (every C object a hit; assembler
# sources are always compiled, ci/cc-ccache).
# The ccache builds compile as every kernel build does (ci/nsfd cc);
# MEASURE_CC=ccache compiles through plain ccache instead (the setup
# before ci/cc-ccache, for a before/after comparison).
#
# usage: ci/measure-cold-build.sh [ARCH]   (after make run has prepared the tree)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
. "$top/ci/arch/$arch.conf"
src=$top/build/patched/src
[ -d "$src" ] || { echo "no tree in $src: run make run first" >&2; exit 2; }
work=$top/build/measure
rm -rf "$work"; mkdir -p "$work"
export PYTHONDONTWRITEBYTECODE=1
cross=(); [ -n "$CROSS_COMPILE" ] && cross=(--cross_compile="$CROSS_COMPILE")
frags=(nsfd guest lean)
[ -f "$top/kunit-configs/$arch.kunitconfig" ] && frags+=("$arch")
python3 "$top/ci/merge-kunitconfig.py" "$work/nsfd.kunitconfig" \
	$(printf "$top/kunit-configs/%s.kunitconfig " "${frags[@]}")
declare -A secs objs
kcc=$("$top/ci/nsfd" cc "$arch" | sed -n 's/^CC=//p')
[ -n "${MEASURE_CC:-}" ] && kcc="$MEASURE_CC ${CROSS_COMPILE}gcc"
for which in kunit-default nsfd nsfd-ccache nsfd-warm; do
	cfg=$src/tools/testing/kunit/configs/default.config
	[ $which != kunit-default ] && cfg=$work/nsfd.kunitconfig
	cc=(); export CCACHE_DISABLE=1
	if [ $which = nsfd-ccache ] || [ $which = nsfd-warm ]; then
		unset CCACHE_DISABLE
		export CCACHE_DIR=$work/ccache CCACHE_DEPEND=1 CCACHE_BASEDIR=$work
		cc=(--make_options "CC=$kcc")
	fi
	# bash's time: wall, user and system seconds, for the cores kept busy.
	TIMEFORMAT='%R %U %S'
	{ time python3 "$src/tools/testing/kunit/kunit.py" build --arch="$LINUX_ARCH" "${cross[@]}" \
		--build_dir="$work/$which" --kunitconfig="$cfg" "${cc[@]}" --jobs="${NSFD_JOBS:-$(nproc)}" \
		>"$work/$which.log" 2>&1; } 2>"$work/$which.time"
	read -r wall user sys <"$work/$which.time"
	secs[$which]=$(printf '%.0f' "$wall")
	objs[$which]=$(find "$work/$which" -name '*.o' | wc -l)
	echo "measure: $which: ${secs[$which]} s, ${objs[$which]} objects," \
		"$(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", (u + s) / w }') cores busy on average" \
		"(user ${user%.*} s, system ${sys%.*} s)"
done
awk -v a="${secs[nsfd]}" -v b="${secs[kunit-default]}" -v c="${objs[nsfd]}" -v d="${objs[kunit-default]}" \
	'BEGIN { printf "measure: nsfd / kunit default: %.2fx the time, %.2fx the objects\n", a / b, c / d }'
awk -v a="${secs[nsfd-ccache]}" -v b="${secs[nsfd]}" \
	'BEGIN { printf "measure: filling an empty ccache: %.2fx the time of the build without it\n", a / b }'
awk -v a="${secs[nsfd-warm]}" -v b="${secs[kunit-default]}" -v c="${secs[nsfd-ccache]}" \
	'BEGIN { printf "measure: warm nsfd / kunit default: %.2fx; nsfd through an empty ccache / kunit default: %.2fx\n", a / b, c / b }'
