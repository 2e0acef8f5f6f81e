#!/bin/bash
# Cold build of nsfd's x86_64 kernel beside kunit.py's own minimal config
# (tools/testing/kunit/configs/default.config, nothing of nsfd's), one
# after the other in one run, ccache off: the wall times, the objects each
# compiles and their ratio (docs/kernels.md, "One kernel, from fragments"). A third build,
# nsfd-ccache, is nsfd's config again through an empty ccache in depend
# mode, as a cold make test builds it: what filling the cache costs. A
# fourth, nsfd-warm, builds it once more into an empty build directory
# through that filled cache: a warm build (every C object a hit; assembler
# sources are always compiled, ci/cc-ccache).
# The ccache builds compile as every kernel build does (ci/nsfd cc);
# MEASURE_CC=ccache compiles through plain ccache instead (the setup
# before ci/cc-ccache). MEASURE_BEFORE=1 adds two builds after the four:
# plainccache and plainccache-warm, the same two ccache builds through
# plain ccache in a cache of their own, so that one run gives the ratios
# before and after ci/cc-ccache against the same kunit.py build.
#
# MEASURE_COLD_ONLY=1 builds the first two only.
#
# MEASURE_ALSO=ARCH2 adds, last, nsfd's ARCH2 kernel built cold the same
# way (ccache off), and its time as a ratio to nsfd's ARCH kernel of the
# same run (docs/kernels.md, "arm64").
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
# nsfd_kunitconfig ARCH DEST: the fragments an ARCH variant merges.
nsfd_kunitconfig() {
	local frags=(nsfd guest lean)
	[ -f "$top/kunit-configs/$1.kunitconfig" ] && frags+=("$1")
	PYTHONPATH=$top python3 -B -P -m ci.pipeline.kunitconfig "$2" \
		$(printf "$top/kunit-configs/%s.kunitconfig " "${frags[@]}")
}
nsfd_kunitconfig "$arch" "$work/nsfd.kunitconfig"
declare -A secs objs
kcc=$("$top/ci/nsfd" cc "$arch" | sed -n 's/^CC=//p')
[ -n "${MEASURE_CC:-}" ] && kcc="$MEASURE_CC ${CROSS_COMPILE}gcc"
builds=(kunit-default nsfd nsfd-ccache nsfd-warm)
# MEASURE_COLD_ONLY=1: the two cold builds alone (the ratio of nsfd's
# kernel, and the denominator of a cold make test measured beside it).
[ "${MEASURE_COLD_ONLY:-0}" = 1 ] && builds=(kunit-default nsfd)
[ "${MEASURE_BEFORE:-0}" = 1 ] && builds+=(plainccache plainccache-warm)
also=${MEASURE_ALSO:-}
if [ -n "$also" ]; then
	[ -f "$top/ci/arch/$also.conf" ] || { echo "measure: no ci/arch/$also.conf" >&2; exit 2; }
	builds+=("nsfd-$also")
	nsfd_kunitconfig "$also" "$work/nsfd-$also.kunitconfig"
fi
for which in "${builds[@]}"; do
	cfg=$src/tools/testing/kunit/configs/default.config
	[ $which != kunit-default ] && cfg=$work/nsfd.kunitconfig
	cc=(); export CCACHE_DISABLE=1
	case $which in
	nsfd-"$also")
		. "$top/ci/arch/$also.conf"
		cross=(); [ -n "$CROSS_COMPILE" ] && cross=(--cross_compile="$CROSS_COMPILE")
		cfg=$work/nsfd-$also.kunitconfig ;;
	nsfd-ccache|nsfd-warm)
		unset CCACHE_DISABLE
		export CCACHE_DIR=$work/ccache CCACHE_DEPEND=1 CCACHE_BASEDIR=$work
		cc=(--make_options "CC=$kcc") ;;
	plainccache*)
		unset CCACHE_DISABLE
		export CCACHE_DIR=$work/ccache-plain CCACHE_DEPEND=1 CCACHE_BASEDIR=$work
		cc=(--make_options "CC=ccache ${CROSS_COMPILE}gcc") ;;
	esac
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
if [ -n "${secs[nsfd-warm]:-}" ]; then
	awk -v a="${secs[nsfd-ccache]}" -v b="${secs[nsfd]}" \
		'BEGIN { printf "measure: filling an empty ccache: %.2fx the time of the build without it\n", a / b }'
	awk -v a="${secs[nsfd-warm]}" -v b="${secs[kunit-default]}" -v c="${secs[nsfd-ccache]}" \
		'BEGIN { printf "measure: warm nsfd / kunit default: %.2fx; nsfd through an empty ccache / kunit default: %.2fx\n", a / b, c / b }'
fi
if [ "${MEASURE_BEFORE:-0}" = 1 ]; then
	awk -v a="${secs[plainccache]}" -v w="${secs[plainccache-warm]}" -v b="${secs[kunit-default]}" \
		-v c="${secs[nsfd-ccache]}" -v d="${secs[nsfd-warm]}" 'BEGIN {
		printf "measure: before ci/cc-ccache (plain ccache) / kunit default: cold %.2fx, warm %.2fx\n", a / b, w / b
		printf "measure: after (ci/cc-ccache) / kunit default: cold %.2fx, warm %.2fx\n", c / b, d / b }'
fi
if [ -n "$also" ]; then
	awk -v a="${secs[nsfd-$also]}" -v b="${secs[nsfd]}" -v k="${secs[kunit-default]}" \
		-v c="${objs[nsfd-$also]}" -v d="${objs[nsfd]}" -v x="$also" -v y="$arch" \
		'BEGIN { printf "measure: nsfd %s / nsfd %s, cold: %.2fx the time (%.2fx kunit default), %.2fx the objects\n", x, y, a / b, a / k, c / d }'
fi
