#!/bin/bash
# Bisect a kernel git history with nsfd's verdict at each step.
#
# usage: ci/bisect/bisect.sh --kernel-src DIR --good REV --bad REV [--arch ARCH]
#                  [--debug] [--test PATTERN]
#
# The bisection runs in a bare clone that borrows DIR's objects
# (build/bisect/repo.git, `git bisect start --no-checkout`): DIR's
# checkout, branch, index and refs are never touched. Each step is
# `ci/nsfd run ARCH --kernel-src DIR --kernel-rev COMMIT` (the tests laid
# into that commit, built incrementally in build/ext/) and its verdict:
#   bad   a failed test or a kernel report (with --test, only failed tests
#         whose "suite name" matches PATTERN, a Python regex);
#   skip  the commit does not build (ci/nsfd exit 125), or a deciding test
#         did not run or was skipped there (a suite that does not compile,
#         a crash before the test): such a step cannot say good;
#   good  everything else;
#   abort an environment error (ci/nsfd exit 2, or no results): nothing is
#         marked, the bisection stops with exit 2.
# GOOD and BAD are run first, so that a range whose ends do not disagree
# stops before any time is spent inside it. The deciding tests are those
# that fail at BAD (matching PATTERN) and pass at GOOD; with PATTERN and
# none such, those that fail at BAD. ci/bisect/verdict.py judge decides.
#
# Prints one line a step (commit, verdict, failed tests, seconds), then the
# first bad commit and the tests that flipped. out/bisect/steps.json holds
# every step; out/bisect/steps/COMMIT.json each step's results.json.
# Exit: 0 the first bad commit was named; 1 the range could not be
# narrowed to one commit (skipped commits, or the ends do not disagree);
# 2 usage or environment (the bisection aborted).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ci=$top/ci
out=$top/out/bisect
repo=$top/build/bisect/repo.git

# SIGTERM, SIGINT, SIGHUP: every step's processes end, exit 2 (255 inside
# `git bisect run`: a step that was stopped marks nothing).
. "$ci/stop-on-signal.sh"

log() { echo "nsfd: bisect: $*"; }
die() { log "$*"; exit 2; }
usage() { sed -n '4,5p' "$0" | sed 's/^# //' >&2; exit 2; }

kernel_src= good= bad= arch=x86_64 debug= test_re= step_mode=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel-src) kernel_src=${2:-}; shift ;;
	--good) good=${2:-}; shift ;;
	--bad) bad=${2:-}; shift ;;
	--arch) arch=${2:-}; shift ;;
	--debug) debug=--debug ;;
	--test) test_re=${2:-}; shift ;;
	--step) step_mode=1 ;;
	*) usage ;;
	esac
	shift
done
[ -n "$kernel_src" ] && [ -n "$good" ] && [ -n "$bad" ] || usage
kernel_src=$(cd "$kernel_src" 2>/dev/null && pwd) || die "KERNEL_SRC=$kernel_src is not a directory"
[ -f "$ci/arch/$arch.conf" ] || die "unknown arch '$arch'; known: $(cd "$ci/arch" && ls | sed 's/\.conf$//' | xargs)"
variant=$arch; [ -n "$debug" ] && variant=$arch-debug

# step COMMIT LABEL: one nsfd run and its verdict, recorded. Prints the
# step's line; returns 0 good, 1 bad, 125 skip, 2 abort.
step() {
	local commit=$1 label=$2 t0 rc secs verdict failed subject
	t0=$(date +%s)
	subject=$(git -C "$repo" log -1 --format=%s "$commit")
	mkdir -p "$out/steps"
	rm -f "$top/out/$variant/results.json"
	# The step's progress lines (a build's every 30 s, each stage's end)
	# also go to the terminal, indented: a bisection is never silent.
	# (In the background and waited for, so that a signal stops it at once.)
	{
		"$ci/nsfd" run "$arch" $debug --kernel-src "$kernel_src" --kernel-rev "$commit" 2>&1 |
			tee "$out/steps/${commit}.log" |
			grep --line-buffered -E '^nsfd: [^ ]+: [a-z-]+: ' | sed -u 's/^/    /'
		exit "${PIPESTATUS[0]}"
	} &
	wait $!
	rc=$?
	secs=$(($(date +%s) - t0))
	cp "$top/out/$variant/results.json" "$out/steps/$commit.json" 2>/dev/null
	judged=$(python3 "$ci/bisect/verdict.py" judge "$out/steps.json" "$rc" \
		"$out/steps/$commit.json" "$test_re") || judged=abort
	verdict=$(head -n 1 <<<"$judged")
	failed=$(tail -n +2 <<<"$judged")
	python3 "$ci/bisect/verdict.py" record "$out/steps.json" "$commit" "$subject" \
		"$verdict" "$rc" "$secs" "$label" "$failed"
	log "$label ${commit:0:12} $verdict${failed:+ (failed: $(echo "$failed" | head -n 5 | paste -sd, -)$( [ "$(echo "$failed" | wc -l)" -gt 5 ] && echo ", ..."))} ${secs} s  $subject"
	[ "$verdict" = abort ] && log "step ended with exit $rc (environment): last lines of its log:" &&
		tail -n 15 "$out/steps/${commit}.log" | sed 's/^/    /'
	case $verdict in good) return 0 ;; bad) return 1 ;; skip) return 125 ;; *) return 2 ;; esac
}

if [ -n "$step_mode" ]; then
	# Called by `git bisect run` in $repo: map our verdict to git's codes
	# (255 aborts the bisection: an environment error marks nothing).
	# git exports GIT_DIR (".") to the command: the step's own git calls
	# (KERNEL_SRC's objects, the build tree) must not inherit it.
	STOP_EXIT=255
	repo_head=$(git -C "$repo" rev-parse BISECT_HEAD)
	unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_COMMON_DIR
	n=$(($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]))' \
		"$out/steps.json" 2>/dev/null || echo 0) + 1))
	step "$repo_head" "step $n:"
	case $? in 0) exit 0 ;; 1) exit 1 ;; 125) exit 125 ;; *) exit 255 ;; esac
fi

git -C "$kernel_src" rev-parse -q --verify "$good^{commit}" >/dev/null || die "GOOD=$good is not a commit of $kernel_src"
git -C "$kernel_src" rev-parse -q --verify "$bad^{commit}" >/dev/null || die "BAD=$bad is not a commit of $kernel_src"
good=$(git -C "$kernel_src" rev-parse "$good^{commit}")
bad=$(git -C "$kernel_src" rev-parse "$bad^{commit}")
git -C "$kernel_src" merge-base --is-ancestor "$good" "$bad" || die "GOOD=$good is not an ancestor of BAD=$bad"

# One bisection at a time; the per-step nsfd runs take build/.lock.
mkdir -p "$top/build/bisect"
exec 8>"$top/build/bisect/.lock"
flock -n 8 || die "another make bisect holds $top/build/bisect/.lock"

rm -rf "$out" "$repo"
mkdir -p "$out"
git clone -q --bare --shared "$kernel_src" "$repo" || die "cannot clone $kernel_src into $repo"
# The clone holds DIR's branches; GOOD and BAD may be any commit of DIR.
git -C "$repo" fetch -q "$kernel_src" "$good" "$bad" 2>/dev/null || true
echo '{"steps": []}' >"$out/steps.json"
start=$(date +%s)
log "$(git -C "$repo" rev-list --count "$good..$bad") commits in ${good:0:12}..${bad:0:12}, $variant${test_re:+, tests matching /$test_re/}"

step "$good" "good end:"; rc=$?
[ $rc = 2 ] && die "aborted: an environment error at GOOD; nothing was marked"
[ $rc = 0 ] || { log "GOOD ${good:0:12} is not good ($( [ $rc = 125 ] && echo 'does not build' || echo 'tests fail')): nothing to bisect"; exit 1; }
step "$bad" "bad end:"; rc=$?
[ $rc = 2 ] && die "aborted: an environment error at BAD; nothing was marked"
[ $rc = 1 ] || { log "BAD ${bad:0:12} is not bad ($( [ $rc = 125 ] && echo 'does not build' || echo 'every test passes')): nothing to bisect"; exit 1; }
decide=$(python3 "$ci/bisect/verdict.py" deciding "$out/steps.json" "$good" "$bad" "$test_re" "$out/steps") ||
	die "cannot record the deciding tests in $out/steps.json"
if [ -n "$decide" ]; then
	log "deciding tests (must run and pass for a step to be good): $(echo "$decide" | head -n 5 | paste -sd, -)$( [ "$(echo "$decide" | wc -l)" -gt 5 ] && echo ", ... ($(echo "$decide" | wc -l))")"
else
	log "no test flipped between the ends: every step is judged by its failures and exit"
fi

git -C "$repo" bisect start --no-checkout "$bad" "$good" >/dev/null || die "git bisect start failed"
{
	git -C "$repo" bisect run "$ci/bisect/bisect.sh" --step --kernel-src "$kernel_src" --good "$good" --bad "$bad" \
		--arch "$arch" $debug ${test_re:+--test "$test_re"} 2>&1 | tee "$out/git-bisect-run.log" |
		grep --line-buffered -E '^nsfd: bisect:|^    nsfd:'
	exit "${PIPESTATUS[0]}"
} &
wait $!
rc=$?
git -C "$repo" bisect log >"$out/git-bisect.log" 2>/dev/null
first=$(sed -n 's/^# first bad commit: \[\([0-9a-f]*\)\].*/\1/p' "$out/git-bisect.log")
git -C "$repo" bisect reset >/dev/null 2>&1
log "done in $(($(date +%s) - start)) s; steps in out/bisect/steps.json"
if [ -n "$first" ]; then
	log "first bad commit: $(git -C "$repo" log -1 --format='%h %s' "$first")"
	python3 "$ci/bisect/verdict.py" flipped "$out/steps.json" "$first" "$test_re" "$out/steps" \
		>"$out/flipped.txt"
	head -n 20 "$out/flipped.txt" | sed 's/^/nsfd: bisect: flipped: /'
	[ "$(wc -l <"$out/flipped.txt")" -gt 20 ] &&
		log "flipped: ... $(($(wc -l <"$out/flipped.txt") - 20)) more in out/bisect/flipped.txt"
	python3 "$ci/bisect/verdict.py" conclude "$out/steps.json" "$first"
	exit 0
fi
if grep -q 'abort\|exited with error code\|could not run' "$out/git-bisect-run.log" &&
   python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"]; sys.exit(0 if s and s[-1]["verdict"]=="abort" else 1)' "$out/steps.json"; then
	die "aborted: an environment error; nothing was marked (see out/bisect/git-bisect-run.log)"
fi
# Skipped commits next to the first bad one: git names them all.
cands=$(sed -n '/could be any of:/,/cannot bisect more/{/^[0-9a-f]\{40\}$/p}' "$out/git-bisect-run.log")
if [ -n "$cands" ]; then
	log "the first bad commit is one of these $(echo "$cands" | wc -l); the others could not say (skip):"
	for c in $cands; do
		log "  $(git -C "$repo" log -1 --format='%h %s' "$c")"
	done
else
	tail -n 5 "$out/git-bisect-run.log" | sed 's/^/    /'
fi
log "could not name one first bad commit (exit $rc): out/bisect/git-bisect.log"
exit 1
