# Sourced by ci/nsfd: a run told to stop (SIGTERM from a CI cancel or a
# bisection that gives up, SIGINT from ^C, SIGHUP) takes every process it
# started with it, however deep: make and the compilers, kunit.py, QEMU
# under timeout(1), which sits in a process group of its own and so is
# out of reach of a signal to ours. Nothing is left holding build/.lock:
# the next run starts at once. The run ends with exit 2 (nothing was
# judged) and the summary line.
#
# Bash runs a trap only when the foreground command returns: a long
# command runs as `interruptible CMD...` (in the background, waited for),
# so that the trap runs within a moment.

# descendants_of PID: the live descendants of PID, outermost first; not the
# subshell that asks, nor zombies (they are only waiting to be reaped).
descendants_of() {
	# Here, not in the pipeline: each of its commands is a subshell.
	local self=$BASHPID
	ps -e -o pid=,ppid=,stat= | awk -v root="$1" -v self="$self" '
		$3 !~ /^Z/ { parent[$1] = $2 }
		END {
			for (p in parent) {
				q = p; d = 0
				while (q in parent && q != root && q != self && q > 1) {
					q = parent[q]; d++
				}
				if (q == root && p != root && p != self)
					print d, p
			}
		}' | sort -n | cut -d' ' -f2
}

# stop_run SIGNAL: end the process tree (SIGTERM, then SIGKILL for what is
# still there after 10 s), print why and the summary line, exit STOP_EXIT
# (2; ci/bisect/bisect.py's step under `git bisect run` sets 255: abort, mark
# nothing). The outermost processes go first, so that none of them sees a
# child end and acts on it (git bisect marking a commit).
stop_run() {
	local pids i
	trap '' TERM INT HUP
	pids=$(descendants_of $$)
	# shellcheck disable=SC2086 # one argument a pid
	[ -n "$pids" ] && kill -TERM $pids 2>/dev/null
	for ((i = 0; i < 20; i++)); do
		pids=$(descendants_of $$)
		[ -z "$pids" ] && break
		sleep 0.5
	done
	# shellcheck disable=SC2086
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	wait 2>/dev/null
	echo "nsfd: stopped by SIG$1: every process of this run has ended, build/.lock is free"
	echo "nsfd: 0 passed, 0 failed, 0 skipped"
	exit "${STOP_EXIT:-2}"
}

# interruptible CMD...: CMD's status; a signal to the run stops it at once.
interruptible() {
	"$@" &
	wait $!
}

trap 'stop_run TERM' TERM
trap 'stop_run INT' INT
trap 'stop_run HUP' HUP
