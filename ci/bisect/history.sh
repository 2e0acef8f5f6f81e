# Sourced by ci/bisect/demo-history.sh and drill-history.sh: a git history
# that starts with Debian's linux-source-6.12 as shipped.
#
# start_history DIR AUTHOR: DIR (which must not exist) holds the tarball's
# tree as a fresh repository and is the current directory; commit MESSAGE
# then commits every change as AUTHOR and prints "<short id> MESSAGE".
start_history() {
	local dir=$1
	[ -e "$dir" ] && { echo "$dir exists" >&2; exit 2; }
	mkdir -p "$dir"
	tar -xf /usr/src/linux-source-6.12.tar.xz -C "$dir" --strip-components=1
	cd "$dir"
	git init -q
	history_author=$2
	commit "linux-source-6.12 as shipped"
}
g() { git -c user.name="$history_author" -c user.email="$history_author@localhost" "$@"; }
commit() { g add -Af; g commit -q -m "$1"; echo "$(git rev-parse --short=12 HEAD) $1"; }
