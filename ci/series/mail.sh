#!/bin/bash
# The mailable series, into out/series/: patches/series plus the test
# patches generated from kunit/ and selftests/nsfd/ (with the MAINTAINERS
# entry and the selftests TARGETS line a mailed series carries), the cover
# letter of patches/cover-letter.txt (first line: subject; then the body),
# To:/Cc: per patch, and the man page as a man-pages patch of its own in
# out/series/man-pages/. What `make series` checks and `make robot` applies
# to a pristine tree, as a robot takes it from the list.
#
# usage: ci/series/mail.sh
# Exit 0, 1 when the cover letter does not list the patches as emitted, 2
# when the tree cannot be prepared.
set -euo pipefail
# A failure inside $(...) must stop the script too (an empty MAINTAINERS
# must never be mailed).
shopt -s inherit_errexit
rc=0
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/build/patched/src
out=$top/out/series

. "$top/ci/build-lock.sh"
hold_build_lock "$top" || { echo "series: $top/build/.lock is held by a run" >&2; exit 2; }
"$top/ci/prepare-tree.sh" "$src" || exit 2

# The mailed test patches also carry what make run does without: their
# MAINTAINERS entry and the selftests TARGETS line, edited in by
# ci/series/wiring.py on the tree's own files (no context diff). Each is
# a new commit with the original's message and author, tagged nsfd-mail.
title="NSFD: NAMESPACE FILE DESCRIPTOR TESTS"
sob=$(sed -n 's/^Signed-off-by: //p' "$top/selftests/nsfd/commit-msg" | tail -n 1)
export NSFD_SECTION_HEAD="M:\t$sob\nL:\tlinux-kernel@vger.kernel.org\nS:\tMaintained"
rewire() { # rewire COMMIT PARENT PATH CMD...: COMMIT's tree on PARENT, PATH piped through CMD
	local c=$1 parent=$2 path=$3 blob tree; shift 3
	export GIT_INDEX_FILE=$src/.git/nsfd-mail.index
	git -C "$src" read-tree "$c"
	blob=$(git -C "$src" cat-file blob "$parent:$path" | "$@" | git -C "$src" hash-object -w --stdin)
	git -C "$src" update-index --cacheinfo "100644,$blob,$path"
	tree=$(git -C "$src" write-tree)
	unset GIT_INDEX_FILE
	GIT_AUTHOR_NAME=$(git -C "$src" log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(git -C "$src" log -1 --format=%ae "$c") \
	GIT_AUTHOR_DATE=$(git -C "$src" log -1 --format=%aI "$c") GIT_COMMITTER_DATE=$(git -C "$src" log -1 --format=%cI "$c") \
		git -C "$src" commit-tree "$tree" -p "$parent" -F <(git -C "$src" log -1 --format=%B "$c")
}
# Each test commit (one per kunit/patches line, then the selftests) adds
# the files it creates to the section; the selftests' also the TARGETS line.
t=nsfd-series
for c in $(git -C "$src" rev-list --reverse nsfd-series..nsfd-tests); do
	added=$(git -C "$src" diff --name-only --diff-filter=A "$c^" "$c" | LC_ALL=C sort)
	if grep -q '^tools/testing/selftests/nsfd/' <<<"$added"; then
		n=$(rewire "$c" "$t" MAINTAINERS "$top/ci/series/wiring.py" maintainers "$title" \
			tools/testing/selftests/nsfd/)
		n=$(rewire "$n" "$t" tools/testing/selftests/Makefile "$top/ci/series/wiring.py" target nsfd)
	else
		# shellcheck disable=SC2086  # one argument per file
		n=$(rewire "$c" "$t" MAINTAINERS "$top/ci/series/wiring.py" maintainers "$title" $added)
	fi
	t=$n
done
git -C "$src" tag -f nsfd-mail "$t" >/dev/null

# netdev's tree for new features; NIPA reads the tree from the subject.
prefix="PATCH net-next"
# To: the networking and API lists, on every patch.  Cc: per patch, whom
# get_maintainer.pl names for that patch, plus the KUnit list on a patch
# that adds a KUnit suite; the cover letter is Cc'd to all of them.
to=(netdev@vger.kernel.org linux-api@vger.kernel.org)
rm -rf "$out"; mkdir -p "$out"
git -C "$src" format-patch -q --cover-letter --thread=shallow --subject-prefix="$prefix" \
	"${to[@]/#/--to=}" -o "$out" nsfd-base..nsfd-mail
cc_of() { # cc_of PATCH: one address a line
	{ (cd "$src" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats "$1") | grep '@'
	  if grep -q '^+.*struct kunit_suite' "$1"; then echo kunit-dev@googlegroups.com; fi; } |
		grep -vxF -e "${to[0]}" -e "${to[1]}" | awk '!seen[$0]++'
}
for p in "$out"/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] && continue
	cc_of "$p" >"$p.cc"
done
cat "$out"/0*.patch.cc | awk '!seen[$0]++' >"$out/0000-cover-letter.patch.cc"
for p in "$out"/0*.patch; do
	python3 "$top/ci/series/wiring.py" cc "$p.cc" <"$p" >"$p.new"
	mv "$p.new" "$p"; rm "$p.cc"
done

# The cover letter: @BASE@ names the tree the series applies to; its
# "  N/M subject" lines must match the patches as emitted.
cover=$top/patches/cover-letter.txt
base="Debian's linux-source-6.12 $(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
	echo '(version unknown)'), kernelversion $(make -s -C "$src" kernelversion 2>/dev/null)"
if [ -f "$cover" ]; then
	python3 - "$out"/0000-cover-letter.patch "$cover" "$base" "$out" <<'PY' || rc=1
import glob, re, sys
path, cover = sys.argv[1], open(sys.argv[2]).read().replace('@BASE@', sys.argv[3]).split('\n', 1)
subject, body = cover[0].strip(), cover[1].strip('\n') if len(cover) > 1 else ''
text = open(path).read()
text = re.sub(r'\[(PATCH[^\]]*) 0/(\d+)\] \*\*\* SUBJECT HERE \*\*\*',
              lambda m: re.sub(r'\[PATCH[^\]]* 0/\d+\]', '[%s 0/%s]' % m.groups(), subject),
              text)
text = text.replace('*** BLURB HERE ***', body)
# As git format-patch --base would: last, before the signature.
cut = text.rfind('\n-- \n')
cut = cut + 1 if cut >= 0 else len(text)
text = text[:cut] + 'base-commit: unknown\n' + ('\n' if cut < len(text) else '') + text[cut:]
open(path, 'w').write(text)
emitted = {}
for p in sorted(glob.glob(sys.argv[4] + '/0*.patch'))[1:]:
    m = re.search(r'^Subject: \[PATCH[^\]]* (\d+/\d+)\] (.*(?:\n .*)*)', open(p).read(), re.M)
    emitted[m.group(1)] = re.sub(r'\s+', ' ', m.group(2))
listed = dict(re.findall(r'^  (\d+/\d+) (.*)$', body, re.M))
bad = 0
for n, subj in emitted.items():
    if listed.get(n) != subj:
        bad = 1
        print('series: cover letter lists %s as %r, the series emits %r' % (n, listed.get(n), subj))
sys.exit(bad)
PY
fi

# The man page goes to linux-man as a patch of its own on man-pages' layout.
man=$(mktemp -d)
git -C "$man" init -q
mkdir -p "$man/man/man2"
cp "$top/patches/socketat.2" "$man/man/man2/socketat.2"
git -C "$man" add man/man2/socketat.2
git -C "$man" -c user.name="$(git -C "$src" log -1 --format=%an nsfd-series)" \
	-c user.email="$(git -C "$src" log -1 --format=%ae nsfd-series)" \
	commit -q -s -m "socketat.2: new page" \
	-m "Document socketat(2), proposed for Linux in the series this accompanies."
git -C "$man" format-patch -q --root -o "$out/man-pages" HEAD
rm -rf "$man"

exit $rc
