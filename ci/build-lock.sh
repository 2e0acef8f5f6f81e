# Sourced by ci/series/mail.sh and
# ci/series/make.sh: one build at a time in a checkout (build/.lock).
#
# hold_build_lock TOP: hold TOP/build/.lock on fd 9, waiting up to an hour
# for a run that holds it; 1 if it is still held then. A caller that holds
# the lock already (make test running the robot, make series writing the
# mail) passes fd 9 down: the same open file, so flock succeeds at once.
hold_build_lock() {
	local lock=$1/build/.lock n=${GIT_CONFIG_COUNT:-0}
	mkdir -p "$1/build"
	# Every child inherits fd 9. A git under the lock collects its garbage
	# before it exits: detached (git's default for the gc --auto after a
	# fetch), it would hold fd 9, and the lock, for minutes after the end.
	[ "$(git config --get gc.autoDetach)" = false ] ||
		export "GIT_CONFIG_KEY_$n=gc.autoDetach" "GIT_CONFIG_VALUE_$n=false" GIT_CONFIG_COUNT=$((n + 1))
	[ "$(readlink "/proc/$$/fd/9" 2>/dev/null)" = "$(realpath -m "$lock")" ] ||
		exec 9>"$lock"
	flock -n 9 && return 0
	echo "nsfd: waiting for another nsfd run to release $lock"
	flock -w 3600 9
}
