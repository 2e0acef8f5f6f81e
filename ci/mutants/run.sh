#!/bin/bash
# The mutation campaign: what `make mutants [MUTANT=glob]` calls.
#
# usage: ci/mutants/run.sh            every ci/mutants/*.mutant
#        MUTANT='socketat-*' ci/mutants/run.sh   those whose name matches
#        MUTANT='netns-* setns-*' ci/mutants/run.sh   several globs
#
# First a baseline: `ci/nsfd run x86_64` on the unmutated tree, which must
# pass (exit 0), or every mutant would count as killed; one more for each
# arch and matrix config a selected mutant names ("arch: ARCH", "config:
# NAME": code that only that arch or a config of kunit-configs/matrix/
# compiles or reaches, run as `ci/nsfd run ARCH [--config NAME]`). Then,
# for each mutant, `ci/nsfd run ARCH [--config NAME]` (ARCH: x86_64 unless
# it says) with NSFD_MUTANT=<the mutant file>:
# ci/prepare-tree.sh applies it (ci/mutants/apply.sh) to the working tree
# after laying in the tests (the next run's checkout takes it back out), so
# a mutant costs the rebuild of the file it touches (and of the previous
# mutant's file, now restored), the link, KUnit and the kselftest guest. Verdicts from ci/nsfd's
# exit code: 1 KILLED (a test failed, a kernel report, a guest timeout),
# 0 SURVIVED, 125 or 2 ERROR (it did not build, or did not apply). Last, a
# run without NSFD_MUTANT on each of those kernels, so that build/ and out/
# end unmutated.
#
# Writes out/mutants/results.json (per mutant: verdict, exit code, seconds,
# the first 10 failed tests as "suite: name"; the last campaign's score),
# out/mutants/logs/NAME.log (ci/nsfd's output) and NAME.results.json.
# Prints one line per mutant, then the score, the survivors and whether
# ci/mutants/README explains each as equivalent.
#
# Exit: 0 every mutant killed or explained as equivalent; 1 a survivor the
# README does not explain; 2 environment (ci/nsfd exit 2 outside the mutant,
# a failing baseline, no mutant matches) or a mutant without a verdict.
# Environment: MUTANT (globs on the name, without .mutant), NSFD_FAIL_FAST
# (1 by default: no guest once KUnit is red), NSFD_MUTANTS_BASELINE=0
# (skip the baseline run: you know the tree is green), NSFD_MUTANTS_RESTORE=0
# (skip the final unmutated run; the next `make run` rebuilds), and what
# ci/nsfd reads (NSFD_JOBS, NSFD_QEMU_ARGS, ...).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/ci/mutants
res=$top/out/mutants
tree=$top/build/patched/src
py=(python3 -B "$dir/mutant.py")
export PYTHONDONTWRITEBYTECODE=1
# A mutant that KUnit already caught needs no kselftest guest (a leak
# mutant would keep the guest waiting on every "freed" deadline): its
# killers are then the KUnit cases. NSFD_FAIL_FAST=0 runs both always.
export NSFD_FAIL_FAST=${NSFD_FAIL_FAST:-1}
# SIGTERM, SIGINT, SIGHUP: ci/nsfd and everything under it end, exit 2 (the
# mutant in flight gets no verdict; the next run lays the tree anew).
. "$top/ci/stop-on-signal.sh"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
say() { echo "mutants: $*"; }

sel=${MUTANT:-*}
files=()
shopt -s nullglob
set -f
for g in $sel; do	# several globs, blank-separated
	set +f
	# shellcheck disable=SC2206  # the glob is the point
	files+=("$dir"/${g%.mutant}.mutant)
	set -f
done
set +f
shopt -u nullglob
[ ${#files[@]} -gt 0 ] || { say "no mutant in ci/mutants/ matches '$sel'"; exit 2; }
names=()
declare -A cfg_of=() arch_of=()
kernels=()	# "ARCH:CONFIG" of each kernel a mutant runs on (CONFIG "": the arch's own)
for f in "${files[@]}"; do
	n=$(basename "$f" .mutant)
	names+=("$n")
	c=$("${py[@]}" config "$f" 2>/dev/null) || c=
	a=$("${py[@]}" arch "$f" 2>/dev/null) || a=x86_64
	cfg_of[$n]=$c arch_of[$n]=$a
	if [ -n "$c" ] && [ ! -f "$top/kunit-configs/matrix/$c.kunitconfig" ]; then
		say "$n: config: $c is not in kunit-configs/matrix/"; exit 2
	fi
	if [ ! -f "$top/ci/arch/$a.conf" ]; then
		say "$n: arch: $a is not in ci/arch/"; exit 2
	fi
	[[ " ${kernels[*]} " == *" $a:$c "* ]] || kernels+=("$a:$c")
done

mkdir -p "$res/logs"

# Every mutant must parse; where the prepared tree exists, each find line
# must occur exactly once in kernel code (read from git, not the checkout,
# which may hold a mutant left by an interrupted campaign).
if git -C "$tree" rev-parse -q --verify nsfd-tests >/dev/null 2>&1; then
	check=("${py[@]}" check --rev nsfd-tests --base nsfd-series "$tree" "${files[@]}")
else
	check=("${py[@]}" parse "${files[@]}")
fi
if ! "${check[@]}" >"$res/check.log" 2>&1; then
	grep -v '^ok ' "$res/check.log"
	say "fix the mutants above (ci/mutants/README: find is one line of kernel code, there exactly once)"
	exit 2
fi

# variant_out ARCH CONFIG: the out/ directory of ci/nsfd run ARCH [--config].
variant_out() { echo "$top/out/$1${2:+-$2}"; }
# kernel_label ARCH CONFIG: how the log names that kernel (x86_64 unsaid).
kernel_label() { local l=${2:-}; [ "$1" = x86_64 ] || l=$1${l:+-$l}; echo "$l"; }

# run_nsfd LOG MUTANTFILE|"" ARCH [CONFIG]: ci/nsfd run on ARCH, in CONFIG
# of the matrix if given; its exit code in rc. (Not in a $(...): a signal's
# trap would wait for the whole run.)
run_nsfd() {
	local log=$1 m=${2:-} a=$3 c=${4:-} args=(run "$3")
	[ -n "$c" ] && args+=(--config "$c")
	rm -f "$(variant_out "$a" "$c")/results.json"
	if [ -n "$m" ]; then
		NSFD_MUTANT=$m interruptible "$top/ci/nsfd" "${args[@]}" >"$log" 2>&1
	else
		interruptible env -u NSFD_MUTANT "$top/ci/nsfd" "${args[@]}" >"$log" 2>&1
	fi
	rc=$?
}

campaign_start=$(now)

if [ "${NSFD_MUTANTS_BASELINE:-1}" != 0 ]; then
	for k in "${kernels[@]}"; do
		a=${k%%:*} c=${k#*:} l=$(kernel_label "${k%%:*}" "${k#*:}")
		b=baseline${l:+-$l}
		say "$b: ci/nsfd run $a${c:+ --config $c} on the unmutated tree (log: out/mutants/logs/$b.log)"
		t=$(now)
		run_nsfd "$res/logs/$b.log" "" "$a" "$c"
		if [ "$rc" != 0 ]; then
			tail -n 15 "$res/logs/$b.log" | sed 's/^/    /'
			say "$b: ci/nsfd exit $rc ($(since "$t") s): the unmutated tree must pass," \
				"or every mutant would count as killed; nothing was mutated"
			exit 2
		fi
		say "$b: ok ($(since "$t") s)"
	done
fi

env_error=
i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	n=$(basename "$f" .mutant)
	log=$res/logs/$n.log
	rm -f "$res/logs/$n.results.json"
	c=${cfg_of[$n]} a=${arch_of[$n]}
	l=$(kernel_label "$a" "$c")
	say "[$i/${#files[@]}] $n${l:+ ($l)}: $(sed -n '1s/^# //p' "$f")"
	t=$(now)
	run_nsfd "$log" "$f" "$a" "$c"
	secs=$(since "$t")
	o=$(variant_out "$a" "$c")
	[ -f "$o/results.json" ] && cp "$o/results.json" "$res/logs/$n.results.json"
	# The run must have built this mutant: the tree's working file holds it
	# (ci/prepare-tree.sh applies it last; only the next run takes it out).
	case $rc in
	0|1)
		if ! "${py[@]}" applied "$tree" "$f"; then
			echo "mutants: $n is not in $tree after the run:" \
				"ci/prepare-tree.sh does not apply NSFD_MUTANT" >>"$log"
			"${py[@]}" record "$res/results.json" "$n" error "$rc" "$secs"
			say "ci/prepare-tree.sh did not apply the mutant (ci/mutants/README, \"How a run goes\"); stopping"
			env_error=1
			break
		fi
		verdict=survived; [ "$rc" = 1 ] && verdict=killed
		"${py[@]}" record "$res/results.json" "$n" "$verdict" "$rc" "$secs" "$res/logs/$n.results.json"
		;;
	2)
		"${py[@]}" record "$res/results.json" "$n" error "$rc" "$secs"
		if ! grep -q 'tree: cannot prepare' "$log"; then
			# Not the mutant: a held lock, a missing package, ...
			tail -n 10 "$log" | sed 's/^/    /'
			say "ci/nsfd exit 2 outside the mutant (environment, see $log); stopping"
			env_error=1
			break
		fi
		grep -h '^mutants: ' "$log" | sed 's/^/    /'
		;;
	*)
		"${py[@]}" record "$res/results.json" "$n" error "$rc" "$secs"
		grep -h 'did not build\|build-failed' "$log" | head -n 3 | sed 's/^/    /'
		;;
	esac
done

if [ "${NSFD_MUTANTS_RESTORE:-1}" != 0 ]; then
	for k in "${kernels[@]}"; do
		a=${k%%:*} c=${k#*:} l=$(kernel_label "${k%%:*}" "${k#*:}")
		r=restore${l:+-$l}
		t=$(now)
		run_nsfd "$res/logs/$r.log" "" "$a" "$c"
		if [ "$rc" = 0 ]; then
			say "$r: the unmutated tree rebuilt and passed ($(since "$t") s)"
		else
			say "$r: ci/nsfd exit $rc on the unmutated tree ($(since "$t") s, out/mutants/logs/$r.log)"
		fi
	done
else
	say "restore skipped: build/ holds the last mutant's objects; the next 'make run' rebuilds them"
fi

"${py[@]}" summary --wall "$(since "$campaign_start")" "$res/results.json" "$dir/README" "${names[@]}"
rc=$?
[ -n "$env_error" ] && rc=2
exit $rc
