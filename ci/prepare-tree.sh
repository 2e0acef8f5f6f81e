#!/bin/bash
# Prepare a kernel source tree for the build, as a git repository.
#
# usage: ci/prepare-tree.sh DEST [KERNEL_SRC]
#
# Without KERNEL_SRC: unpack Debian's linux-source-6.12 into DEST (once per
# tarball), `git am` every patch of patches/series (again only when the
# series changes), then lay in kunit/ and selftests/nsfd/.
# With KERNEL_SRC: mirror that tree into DEST as it stands and lay in only
# the tests (no socketat patches): what bisection runs.
#
# Laying in is one commit per test directory on top of the series, checked
# out with git, which rewrites only the files that differ: an unchanged
# input leaves every mtime alone, so the kernel build stays incremental.
# Exit: 0 ready, 125 a patch or the test wiring does not apply, 2 usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: ci/prepare-tree.sh DEST [KERNEL_SRC]}
ext=${2:-}
tarball=${NSFD_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

g() { git -C "$dest" -c user.name=nsfd -c user.email=nsfd@localhost \
	-c advice.detachedHead=false "$@"; }
die() { echo "tree: $2" >&2; exit "$1"; }

# The patch files of patches/series, in order: one name a line, # comments.
series_files() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$top/patches/series" |
		awk '{print $1}'
}

unpack_tarball() {
	[ -r "$tarball" ] || die 2 "$tarball is missing: run ci/deps.sh (apt-get install linux-source-6.12)"
	local key; key=$(stat -c '%s %Y %n' "$tarball")
	[ "$(cat "$dest/.git/nsfd-tarball" 2>/dev/null)" = "$key" ] && return 0
	echo "tree: unpacking $tarball"
	rm -rf "$dest"; mkdir -p "$dest"
	tar -xf "$tarball" -C "$dest" --strip-components=1
	g init -q
	# Debian's top-level .gitignore ignores everything: add by force.
	g add -Af
	g commit -q -m "$(basename "$tarball") as shipped"
	g tag -f nsfd-base >/dev/null
	echo "$key" >"$dest/.git/nsfd-tarball"
}

mirror_kernel_src() {
	[ -f "$ext/Makefile" ] && [ -d "$ext/kernel" ] ||
		die 2 "KERNEL_SRC=$ext is not a kernel source tree"
	[ -f "$ext/.config" ] &&
		die 2 "KERNEL_SRC=$ext has an in-tree build (.config): run 'make mrproper' there"
	mkdir -p "$dest"
	[ -d "$dest/.git" ] || g init -q
	rsync -a --delete --exclude=/.git "$ext"/ "$dest"/
	g add -Af
	g diff --cached --quiet HEAD 2>/dev/null || g commit -q -m "KERNEL_SRC $ext as it stands"
	g tag -f nsfd-base >/dev/null
	g tag -f nsfd-series >/dev/null
}

apply_series() {
	local key p
	key=$( { cat "$top/patches/series"; for p in $(series_files); do cat "$top/patches/$p"; done; } |
		sha256sum | cut -d' ' -f1)
	if [ "$(cat "$dest/.git/nsfd-series" 2>/dev/null)" = "$key" ] &&
	   g rev-parse -q --verify nsfd-series >/dev/null; then
		return 0
	fi
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f nsfd-base
	for p in $(series_files); do
		[ -f "$top/patches/$p" ] || die 2 "patches/series names $p, which is not in patches/"
		if ! g am -q --keep-cr "$top/patches/$p"; then
			g am --abort >/dev/null 2>&1 || true
			die 125 "patches/$p does not apply to $(g describe --always nsfd-base)"
		fi
	done
	g tag -f nsfd-series >/dev/null
	echo "$key" >"$dest/.git/nsfd-series"
}

# lay_in PARENT DIR TREE_PREFIX: a commit on PARENT holding every file of
# DIR at TREE_PREFIX, plus DIR/wiring.patch (Kconfig, Makefile lines) applied;
# DIR/commit-msg is its message. Prints the commit id.
lay_in() {
	local parent=$1 dir=$top/$2 prefix=$3 f mode blob tree
	export GIT_INDEX_FILE=$dest/.git/nsfd-lay-in.index
	g read-tree "$parent"
	while IFS= read -r f; do
		mode=100644; [ -x "$dir/$f" ] && mode=100755
		blob=$(g hash-object -w --no-filters "$dir/$f")
		g update-index --add --cacheinfo "$mode,$blob,$prefix$f"
	done < <(cd "$dir" && find . -type f ! -name wiring.patch ! -name commit-msg \
		! -name '*.o' -printf '%P\n' | LC_ALL=C sort)
	if [ -f "$dir/wiring.patch" ] && ! g apply --cached "$dir/wiring.patch"; then
		die 125 "$2/wiring.patch does not apply to this tree"
	fi
	tree=$(g write-tree)
	unset GIT_INDEX_FILE
	# The author is who signed the message off; fixed dates: the same
	# inputs give the same commit id.
	local sob
	sob=$(sed -n 's/^Signed-off-by: //p' "$dir/commit-msg" | tail -n 1)
	GIT_AUTHOR_NAME=${sob% <*} GIT_AUTHOR_EMAIL=$(echo "$sob" | sed 's/.*<\(.*\)>.*/\1/') \
	GIT_AUTHOR_DATE="2024-11-17T12:00:00Z" GIT_COMMITTER_DATE="2024-11-17T12:00:00Z" \
		g commit-tree "$tree" -p "$parent" -F "$dir/commit-msg"
}

if [ -n "$ext" ]; then
	mirror_kernel_src
else
	unpack_tarball
	apply_series
fi
kunit=$(lay_in nsfd-series kunit "")
tests=$(lay_in "$kunit" selftests/nsfd tools/testing/selftests/nsfd/)
g checkout -q -f --detach "$tests"
g tag -f nsfd-tests >/dev/null
