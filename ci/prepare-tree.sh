#!/bin/bash
# Prepare a kernel source tree for the build, as a git repository.
#
# usage: ci/prepare-tree.sh DEST [KERNEL_SRC [REV]]
#
# Without KERNEL_SRC: unpack Debian's linux-source-6.12 into DEST (once per
# tarball; every file gets the time of unpacking, never the archive's, so
# a new tarball can not leave older-looking sources behind objects), `git
# am` every patch of patches/series (again only when the series changes),
# then lay in kunit/ and selftests/nsfd/.
# With KERNEL_SRC: that tree as it stands reaches DEST through git, never a
# copy: a clean git tree by its commit (DEST borrows its objects), any
# other tree (an unpacked tarball, a git tree with local changes) by
# hashing its files into DEST's repository. Then only the tests are laid
# in (no socketat patches): what bisection runs. DEST/.git/nsfd-source
# names what was taken (the commit, "-dirty" for local changes). REV: that
# commit of KERNEL_SRC's history instead of its working tree (make bisect:
# KERNEL_SRC's checkout is never touched).
#
# Laying in is one commit per test directory on top of the series, checked
# out with git, which rewrites only the files that differ: an unchanged
# input leaves every mtime alone, so the kernel build stays incremental,
# and a changed one gets the current time, so it is always rebuilt.
# The tests are wired in without a context diff, so that they go into any
# tree from 6.1 on: each file kunit/append/PATH is appended to the tree's
# PATH (obj- lines, the #include of a test beside the static code it
# tests, a Kconfig entry at the end of its file), and each kunit/insert/PATH
# is inserted before the line of the tree's PATH that its first line names
# ("before: LINE"; a Kconfig entry inside the menu or if-block it belongs
# to). kunit/patches splits kunit/ into one commit per subsystem, as the
# series mails them. The kselftests need no wiring: the build names
# TARGETS=nsfd.
# KERNEL_SRC is never written to.
# Exit: 0 ready, 125 a patch does not apply, 2 usage or environment.
set -euo pipefail
# Called from a git hook or `git bisect run`, git's own variables would
# point every git call below at the caller's repository.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX GIT_COMMON_DIR
# The commits made here are the same whoever runs it (the base commit is
# what a mail's base-commit: names): no identity or date from the caller.
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$(realpath -m "${1:?usage: ci/prepare-tree.sh DEST [KERNEL_SRC]}")
ext=${2:-}
rev=${3:-}
tarball=${NSFD_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

# gc.auto=0: the unpacked tree is 90,000 loose objects, and the commit
# that adds them would start `git gc --auto` in the background: a repack
# of the whole tree and a prune of every loose object, for five minutes
# beside the first kernel build (seen in a cold make test; that build
# took 456 s with it and 479 s without, so its cost is within this
# machine's noise, but a build's time should not depend on it). The
# repository only holds this tree and a few commits on top: loose
# objects are fine.
g() { git -C "$dest" -c user.name=nsfd -c user.email=nsfd@localhost \
	-c advice.detachedHead=false -c core.autocrlf=false -c gc.auto=0 "$@"; }
die() { echo "tree: $2" >&2; exit "$1"; }

# The patch files of patches/series, in order: one name a line, # comments.
series_files() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$top/patches/series" |
		awk '{print $1}'
}

unpack_tarball() {
	[ -r "$tarball" ] || die 2 "$tarball is missing: run ci/deps.sh (apt-get install linux-source-6.12)"
	local key; key=$(stat -c '%s %Y %n' "$tarball")
	if [ "$(cat "$dest/.git/nsfd-tarball" 2>/dev/null)" = "$key" ]; then
		[ -f "$dest/.git/nsfd-source" ] || basename "$tarball" >"$dest/.git/nsfd-source"
		g tag -f nsfd-base "$(base_commit "$(g rev-parse "nsfd-base^{tree}")")" >/dev/null
		return 0
	fi
	echo "tree: unpacking $tarball"
	rm -rf "$dest"; mkdir -p "$dest"
	tar -xf "$tarball" -C "$dest" --strip-components=1 --touch
	g init -q
	# Debian's top-level .gitignore ignores everything: add by force.
	g add -Af
	g tag -f nsfd-base "$(base_commit "$(g write-tree)")" >/dev/null
	echo "$key" >"$dest/.git/nsfd-tarball"
	basename "$tarball" >"$dest/.git/nsfd-source"
}

# base_commit TREE: the commit of the unpacked tarball. Its id is what the
# mail's base-commit: names and what the robot applies the mail to, so it
# is a function of the tarball alone: its tree (every file and mode), a
# fixed author, committer and date (6.12's release), and the tarball's
# name. A tree unpacked before this was so gets the same commit again
# (below), without unpacking.
base_commit() {
	GIT_AUTHOR_DATE="2024-11-17T12:00:00Z" GIT_COMMITTER_DATE="2024-11-17T12:00:00Z" \
		g commit-tree --no-gpg-sign "$1" -m "$(basename "$tarball") as shipped"
}

take_kernel_src() {
	[ -f "$ext/Makefile" ] && [ -d "$ext/kernel" ] ||
		die 2 "KERNEL_SRC=$ext is not a kernel source tree"
	[ -z "$rev" ] && [ -f "$ext/.config" ] &&
		die 2 "KERNEL_SRC=$ext has an in-tree build (.config): run 'make mrproper' there"
	mkdir -p "$dest"
	[ -d "$dest/.git" ] || g init -q
	local commit= source
	if [ -n "$rev" ]; then
		commit=$(git -C "$ext" rev-parse -q --verify "$rev^{commit}") ||
			die 2 "KERNEL_SRC=$ext has no commit $rev"
		git -C "$ext" rev-parse --git-path objects | (cd "$ext" && xargs realpath) \
			>"$dest/.git/objects/info/alternates"
		source=$commit
	elif git -C "$ext" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
	   [ "$(git -C "$ext" rev-parse --show-toplevel)" = "$(cd "$ext" && pwd -P)" ] &&
	   [ -z "$(git -C "$ext" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		# A clean git tree: borrow its objects, check its commit out.
		commit=$(git -C "$ext" rev-parse HEAD)
		git -C "$ext" rev-parse --git-path objects | (cd "$ext" && xargs realpath) \
			>"$dest/.git/objects/info/alternates"
		source=$commit
	else
		# Anything else: hash its files (the index keeps their stat data,
		# so only files changed since the last step are read again).
		local dirty=
		git -C "$ext" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
			dirty="$(git -C "$ext" rev-parse HEAD)-dirty"
		GIT_INDEX_FILE=$dest/.git/nsfd-ext.index g --work-tree="$ext" add -Af -- . ':!.git'
		local tree
		tree=$(GIT_INDEX_FILE=$dest/.git/nsfd-ext.index g write-tree)
		commit=$(GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			g commit-tree "$tree" -m "KERNEL_SRC $ext as it stands")
		source=${dirty:-"$ext (not a git tree)"}
	fi
	g tag -f nsfd-base "$commit" >/dev/null
	g tag -f nsfd-series "$commit" >/dev/null
	echo "$source" >"$dest/.git/nsfd-source"
}

apply_series() {
	local key p
	key=$( { g rev-parse nsfd-base; cat "$top/patches/series"
		for p in $(series_files); do cat "$top/patches/$p"; done; } | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$dest/.git/nsfd-series" 2>/dev/null)" = "$key" ] &&
	   g rev-parse -q --verify nsfd-series >/dev/null; then
		return 0
	fi
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f nsfd-base
	for p in $(series_files); do
		[ -f "$top/patches/$p" ] || die 2 "patches/series names $p, which is not in patches/"
		if ! am_out=$(g am -q --keep-cr "$top/patches/$p" 2>&1); then
			printf '%s\n' "$am_out" >&2
			g am --abort >/dev/null 2>&1 || true
			# A full disk is the machine's, not a patch that does not apply.
			case $am_out in *"No space left on device"*|*"Disk quota exceeded"*)
				die 2 "patches/$p: no space left on device (git am)" ;;
			esac
			die 125 "patches/$p does not apply to $(g describe --always nsfd-base)"
		fi
	done
	g tag -f nsfd-series >/dev/null
	echo "$key" >"$dest/.git/nsfd-series"
}

# in_paths F [PATH...]: F is one of PATH... (a file, or under a directory
# given with a trailing /); true when no PATH is given.
in_paths() {
	local f=$1 p; shift
	[ $# = 0 ] && return 0
	for p; do
		case $p in
		*/) [[ $f == "$p"* ]] && return 0 ;;
		*) [ "$f" = "$p" ] && return 0 ;;
		esac
	done
	return 1
}

# sources DIR: the files of DIR laid in as they are (not the wiring, not a
# commit message or kunit/patches), relative to DIR.
sources() {
	(cd "$1" && find . \( -path ./append -o -path ./insert \) -prune -o -type f \
		! -name commit-msg ! -name '*.commit-msg' ! -path ./patches ! -name '*.o' \
		-printf '%P\n' | LC_ALL=C sort)
}

# insert_before INSERT_FILE < TEXT: TEXT with INSERT_FILE's lines after the
# first put before the first line equal to what follows "before: " in the
# first. Exit 4 if TEXT has no such line, 3 if INSERT_FILE has no anchor.
insert_before() {
	awk -v ins="$1" 'BEGIN {
		if ((getline l < ins) <= 0 || l !~ /^before: /) { bad = 3; exit 3 }
		anchor = substr(l, 9)
		while ((getline l < ins) > 0) body = body l "\n"
	}
	!done && $0 == anchor { printf "%s", body; done = 1 }
	{ print }
	END { if (bad) exit bad; if (!done) exit 4 }'
}

# lay_in PARENT DIR TREE_PREFIX MSG [PATH...]: a commit on PARENT holding
# every file of DIR (those under PATH... only, when given) at TREE_PREFIX,
# plus DIR/append/* appended to and DIR/insert/* inserted into the tree's
# files; DIR/MSG is its message. Prints the commit id.
lay_in() {
	local parent=$1 dir=$top/$2 prefix=$3 msg=$top/$2/$4 f mode blob tree rc; shift 4
	export GIT_INDEX_FILE=$dest/.git/nsfd-lay-in.index
	g read-tree "$parent"
	while IFS= read -r f; do
		in_paths "$f" "$@" || continue
		mode=100644; [ -x "$dir/$f" ] && mode=100755
		blob=$(g hash-object -w --no-filters "$dir/$f")
		g update-index --add --cacheinfo "$mode,$blob,$prefix$f"
	done < <(sources "$dir")
	# DIR/append/PATH: appended to the tree's PATH.
	if [ -d "$dir/append" ]; then
		while IFS= read -r f; do
			in_paths "$f" "$@" || continue
			g cat-file -e "$parent:$f" 2>/dev/null ||
				die 125 "$2/append/$f: this tree has no $f to append to"
			blob=$( { g cat-file blob "$parent:$f"; cat "$dir/append/$f"; } |
				g hash-object -w --stdin --no-filters)
			g update-index --cacheinfo "100644,$blob,$f"
		done < <(cd "$dir/append" && find . -type f -printf '%P\n' | LC_ALL=C sort)
	fi
	# DIR/insert/PATH: inserted into the tree's PATH before its anchor line.
	if [ -d "$dir/insert" ]; then
		while IFS= read -r f; do
			in_paths "$f" "$@" || continue
			g cat-file -e "$parent:$f" 2>/dev/null ||
				die 125 "$2/insert/$f: this tree has no $f to insert into"
			rc=0
			blob=$(g cat-file blob "$parent:$f" | insert_before "$dir/insert/$f" |
				g hash-object -w --stdin --no-filters) || rc=$?
			# insert_before's 3 and 4 are the tree's; anything else (git
			# hash-object on a full disk) is the machine's.
			case $rc in
			0) ;;
			3|4) die 125 "$2/insert/$f: no line '$(sed -n '1s/^before: //p' \
				"$dir/insert/$f")' in this tree's $f to insert before" ;;
			*) die 2 "$2/insert/$f: inserting into this tree's $f failed (exit $rc)" ;;
			esac
			g update-index --cacheinfo "100644,$blob,$f"
		done < <(cd "$dir/insert" && find . -type f -printf '%P\n' | LC_ALL=C sort)
	fi
	tree=$(g write-tree)
	unset GIT_INDEX_FILE
	# The author is who signed the message off; fixed dates: the same
	# inputs give the same commit id.
	local sob
	sob=$(sed -n 's/^Signed-off-by: //p' "$msg" | tail -n 1)
	GIT_AUTHOR_NAME=${sob% <*} GIT_AUTHOR_EMAIL=$(echo "$sob" | sed 's/.*<\(.*\)>.*/\1/') \
	GIT_AUTHOR_DATE="2024-11-17T12:00:00Z" GIT_COMMITTER_DATE="2024-11-17T12:00:00Z" \
		g commit-tree "$tree" -p "$parent" -F "$msg"
}

if [ -n "$ext" ]; then
	take_kernel_src
else
	unpack_tarball
	apply_series
fi
# kunit/patches: one commit per line (MSG PATH...); every file of kunit/
# in exactly one of them.
kunit_patches() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/kunit/patches"; }
# The commits laid in are a function of the series' commit and of the
# test sources alone (fixed authors and dates): when none of them changed
# since the last run, the commit made then is checked out again without
# re-reading the tree's 80,000 index entries four times (4 s of a make
# run with nothing changed).
lay_in_key=$( {
	g rev-parse nsfd-series
	cat "$0"
	cd "$top" && find kunit selftests/nsfd ci/compat -type f -printf '%p %m\n' | LC_ALL=C sort
	find kunit selftests/nsfd ci/compat -type f -print0 | LC_ALL=C sort -z | xargs -0 cat
} | sha256sum | cut -c1-64)
lay_in_cache=$dest/.git/nsfd-lay-in.cache
tests=$(sed -n "s/^$lay_in_key //p" "$lay_in_cache" 2>/dev/null || true)
if [ -n "$tests" ] && g cat-file -e "$tests^{commit}" 2>/dev/null; then
	: # the same inputs as the last run: its commit
else
	while IFS= read -r f; do
		n=0
		while read -r msg paths; do
			# shellcheck disable=SC2086  # PATH... is a list
			in_paths "$f" $paths && n=$((n + 1))
		done < <(kunit_patches)
		[ $n = 1 ] || die 2 "kunit/$f is in $n of kunit/patches' patches, not one"
	done < <(sources "$top/kunit"; cd "$top/kunit" && find append insert -type f 2>/dev/null |
		sed 's|^[a-z]*/||')
	kunit=nsfd-series
	while read -r msg paths; do
		# shellcheck disable=SC2086
		kunit=$(lay_in "$kunit" kunit "" "$msg" $paths)
	done < <(kunit_patches)
	tests=$(lay_in "$kunit" selftests/nsfd tools/testing/selftests/nsfd/ commit-msg)
	# A harness from before 6.9 (no exit_code) runs a fixture's test body
	# after SKIP() in its setup: on such a tree only, one more commit appends
	# ci/compat/'s SKIP to it. It is the pipeline's, never mailed.
	harness=$(g cat-file blob "$tests:tools/testing/selftests/kselftest_harness.h" 2>/dev/null || true)
	if ! grep -q 'exit_code' <<<"$harness"; then
		tests=$(lay_in "$tests" ci/compat "" commit-msg)
	fi
	echo "$lay_in_key $tests" >"$lay_in_cache"
fi
g checkout -q -f --detach "$tests"
g tag -f nsfd-tests >/dev/null
# make mutants: one one-line mutation of the kernel on top, left in the
# working tree only (the next run's checkout -f takes it back out).
if [ -n "${NSFD_MUTANT:-}" ]; then
	"$top/ci/mutants/apply.sh" "$dest" "$NSFD_MUTANT" ||
		die 2 "mutant $NSFD_MUTANT does not apply to this tree"
fi
