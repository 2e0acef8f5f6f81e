# Sourced by ci/nsfd and ci/robot/run.sh: time, progress lines, and the
# record of each stage's end (OUT/stages.tsv, which ci/results/report.py and
# ci/robot/verdict.py read: stage, status, seconds, detail). The caller
# sets $variant.

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
log() { echo "nsfd: $*"; }

# stage_end VARIANT_OUT STAGE STATUS START [DETAIL]
stage_end() {
	local secs; secs=$(since "$4")
	printf '%s\t%s\t%s\t%s\n' "$2" "$3" "$secs" "${5:-}" >>"$1/stages.tsv"
	log "$variant: $2: $3 (${secs} s)${5:+ - $5}"
}

show_tail() {
	echo "---- last lines of $1 ----"
	tail -n "${2:-25}" "$1"
	echo "----"
}

# Usage and environment errors end with the summary line too, and exit 2.
env_exit() {
	log "$*"
	echo "nsfd: 0 passed, 0 failed, 0 skipped"
	exit 2
}
