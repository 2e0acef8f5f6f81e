# Sourced by ci/series/mail.sh and
# ci/series/make.sh: one build at a time in a checkout (build/.lock), the
# same lock as ci/pipeline/procs.py's hold_build_lock.
#
# hold_build_lock TOP: hold TOP/build/.lock on fd 9, waiting up to an hour
# (NSFD_LOCK_WAIT s) for a run that holds it, saying whose (its pid,
# command and since when, as its holder wrote them in the file); 1 if it
# is still held then. A caller that holds the lock already (make test
# running the robot, make series writing the mail) passes fd 9 down: the
# same open file, so flock succeeds at once and its record stays.
hold_build_lock() {
	local lock=$1/build/.lock n=${GIT_CONFIG_COUNT:-0} inherited=
	mkdir -p "$1/build"
	# Every child inherits fd 9. A git under the lock collects its garbage
	# before it exits: detached (git's default for the gc --auto after a
	# fetch), it would hold fd 9, and the lock, for minutes after the end.
	[ "$(git config --get gc.autoDetach)" = false ] ||
		export "GIT_CONFIG_KEY_$n=gc.autoDetach" "GIT_CONFIG_VALUE_$n=false" GIT_CONFIG_COUNT=$((n + 1))
	if [ "$(readlink "/proc/$$/fd/9" 2>/dev/null)" = "$(realpath -m "$lock")" ]; then
		inherited=1
	else
		# Appending, never truncating: the holder's record stays.
		exec 9>>"$lock"
	fi
	if ! flock -n 9; then
		echo "nsfd: waiting for another nsfd run to release $lock: $(build_lock_holder "$lock")"
		flock -w "${NSFD_LOCK_WAIT:-3600}" 9 || return 1
	fi
	[ -n "$inherited" ] ||
		printf 'pid=%s\ncommand=%s\nsince=%s\n' "$$" "${0#"$1"/}" \
			"$(date -u '+%Y-%m-%d %H:%M:%S UTC')" >"$lock"
}

# build_lock_holder LOCK: "pid N (command), since T" from LOCK's record.
build_lock_holder() {
	local pid= command=? since=? line
	while IFS= read -r line; do
		case $line in
		pid=*) pid=${line#pid=} ;;
		command=*) command=${line#command=} ;;
		since=*) since=${line#since=} ;;
		esac
	done <"$1"
	[ -n "$pid" ] || { echo "holder unknown"; return; }
	printf 'pid %s (%s), since %s' "$pid" "$command" "$since"
	kill -0 "$pid" 2>/dev/null ||
		printf '; that process is gone, the children it left still hold it'
	echo
}
