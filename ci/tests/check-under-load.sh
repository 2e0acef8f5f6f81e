#!/bin/bash
# usage: ci/tests/check-under-load.sh [N]    (N runs, 20 if not given)
#
# The proof that no case of make check depends on the machine's speed
# (ci/tests/waits.py): make check N times, each beside CPU and I/O load, a
# busy loop per core and the kernel tarball (NSFD_TARBALL, as
# ci/prepare-tree.sh reads it; /usr/src/linux-source-6.12.tar.xz) decompressed
# to /dev/null in a loop. Without the tarball it says so, and the I/O load
# is a 512 MiB file written (fsync) and read back (O_DIRECT) in a loop.
# Prints each run's result, then "check-under-load: N runs, R red".
# Exit 0 only if R is 0; 2 on a usage error. The load (and a make check
# still running) is killed when the script ends, however it ends.
# Each run's output: out/check-under-load/run-I.log, its results.json
# (every case's seconds) run-I.results.json.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-20}
case $n in
'' | *[!0-9]* | 0) sed -n 's/^# usage: //p' "$0" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
tarball=${NSFD_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
logs=$top/out/check-under-load
mkdir -p "$logs"
tmp=$(mktemp -d)
groups=()

# Each load loop and each make check runs in a session of its own, so
# that its process group (the loop, xz or dd under it) is killed whole.
stop_all() {
	local g
	for g in "${groups[@]}"; do
		kill -KILL -- "-$g" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap stop_all EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
session() { # session CMD...: CMD in the background, in a session of its own
	setsid "$@" </dev/null &
	groups+=("$!")
}

cores=$(nproc)
for ((c = 0; c < cores; c++)); do
	session bash -c 'while :; do :; done'
done
if [ -r "$tarball" ]; then
	io="$tarball decompressed to /dev/null in a loop"
	# shellcheck disable=SC2016  # $0: the inner shell's, the tarball
	session bash -c 'while :; do xz -dc "$0" >/dev/null; done' "$tarball"
else
	echo "check-under-load: $tarball is missing (apt-get install linux-source-6.12," \
		"or NSFD_TARBALL=): the I/O load is a 512 MiB file written and read back instead"
	io="a 512 MiB file written and read back in a loop"
	# shellcheck disable=SC2016  # $0: the inner shell's, the file
	session bash -c 'while :; do
		dd if=/dev/zero of="$0" bs=1M count=512 conv=fsync status=none
		dd if="$0" of=/dev/null bs=1M iflag=direct status=none
	done' "$tmp/load"
fi
echo "check-under-load: $n run(s) of make check in $top, each beside $cores busy loop(s)" \
	"and $io"

red=0
for ((i = 1; i <= n; i++)); do
	start=$SECONDS
	session make -C "$top" check >"$logs/run-$i.log" 2>&1
	wait "${groups[-1]}"
	rc=$?
	unset 'groups[-1]'
	cp "$top/out/pipeline/results.json" "$logs/run-$i.results.json" 2>/dev/null
	summary=$(grep '^nsfd: pipeline: [0-9]' "$logs/run-$i.log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		echo "check-under-load: run $i/$n: green ($((SECONDS - start)) s): $summary"
	else
		red=$((red + 1))
		echo "check-under-load: run $i/$n: RED, exit $rc ($((SECONDS - start)) s):" \
			"${summary:-no summary line} (log: $logs/run-$i.log)"
		grep '^nsfd: pipeline: FAIL' "$logs/run-$i.log" | sed 's/^/    /'
	fi
done
echo "check-under-load: $n runs, $red red"
[ "$red" = 0 ]
