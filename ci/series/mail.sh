#!/bin/bash
# The mailable series, into out/series/: patches/series plus the test
# patches generated from kunit/ and selftests/nsfd/ (with the MAINTAINERS
# entry and the selftests TARGETS line a mailed series carries), the cover
# letter of patches/cover-letter.txt (first line: subject; then the body),
# To:/Cc: per patch, and the man page as a man-pages patch of its own in
# out/series/man-pages/. What `make series` checks and sends.
#
# Every commit of the mail is made again as the sender's: author and
# committer from `git config user.name`/`user.email` where make series
# runs, the message signed off by them (placeholder sign-offs dropped,
# ci/series/identity.py). With no identity, or a placeholder one, nothing
# is written: exit 2 and how to set one. The series' base is the commit
# of the tree the robot builds, named in the cover letter's base-commit:
# (ci/prepare-tree.sh makes it the same for the same tarball).
#
# usage: ci/series/mail.sh [--robot OUTDIR | --kernel-src DIR]
# --robot: the robot's copy into OUTDIR, signed by "nsfd robot
# <robot@localhost>" whatever git config says: make robot applies it to a
# pristine tree and needs no sender (a run must not depend on, or fail
# for, who runs it), and it never overwrites out/series/.
# --kernel-src DIR (make series KERNEL_SRC=DIR): the same series for the
# git tree DIR, into out/series-<DIR's commit>/: patches/series applied to
# DIR's HEAD with git am -3 and socketat given the next number free in
# every syscall table there (ci/series/ontree.py, in
# build/series-on/<commit>/; DIR is only read), the tests laid in on that
# tree as make run lays them in, base-commit: DIR's HEAD, the cover letter
# and man page with that number.
# Exit 0, 1 when the cover letter does not list the patches as emitted or
# (--kernel-src) a patch does not apply to DIR (the patch and the file
# named), 2 when there is no sender identity or the tree cannot be
# prepared.
set -euo pipefail
# A failure inside $(...) must stop the script too (an empty MAINTAINERS
# must never be mailed).
shopt -s inherit_errexit
rc=0
top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/build/patched/src
ident=(env "PYTHONPATH=$top" python3 -B -P -m ci.series.identity)
usage="usage: ci/series/mail.sh [--robot OUTDIR | --kernel-src DIR]"
kernel_src=
if [ "${1:-}" = --robot ]; then
	[ $# = 2 ] || { echo "$usage" >&2; exit 2; }
	out=$(realpath -m "$2")
	sender="nsfd robot <robot@localhost>" sign=(sign --unchecked)
else
	if [ "${1:-}" = --kernel-src ] && [ $# = 2 ]; then
		kernel_src=$2
	elif [ $# != 0 ]; then
		echo "$usage" >&2; exit 2
	fi
	out=$top/out/series
	# Before anything is prepared: the sender, or exit 2 saying how.
	sender=$("${ident[@]}" sender "$top") || exit 2
	sign=(sign)
fi

. "$top/ci/build-lock.sh"
. "$top/ci/series/includer.sh"
hold_build_lock "$top" || { echo "series: $top/build/.lock is held by a run" >&2; exit 2; }
cover=$top/patches/cover-letter.txt man_page=$top/patches/socketat.2
if [ -n "$kernel_src" ]; then
	# The series applied to DIR and renumbered for it (exit 1 naming the
	# patch and the file where it does not apply), then the tests laid in
	# on that tree (exit 1 naming the file they cannot be wired into), and
	# the base is DIR's commit. No mail of an older run stays behind.
	work=$(PYTHONPATH="$top" python3 -B -P -m ci.series.ontree where "$kernel_src") || exit 2
	out=$top/out/series-${work##*/}
	rm -rf "$out"
	PYTHONPATH="$top" python3 -B -P -m ci.series.ontree prepare "$kernel_src" || exit $?
	. "$work/series.env"
	src=$SERIES_DIR/mail cover=$SERIES_PATCHES/cover-letter.txt man_page=$SERIES_PATCHES/socketat.2
	prc=0
	"$top/ci/prepare-tree.sh" "$src" "$SERIES_TREE" || prc=$?
	case $prc in
	0)	;;
	125)	echo "series: the tests cannot be laid in on $kernel_src (the file is named above)" >&2
		exit 1 ;;
	*)	exit 2 ;;
	esac
	git -C "$src" tag -f nsfd-base "$SERIES_BASE" >/dev/null
else
	"$top/ci/prepare-tree.sh" "$src" || exit 2
fi

# From here every commit, the cover letter's From: and the man page's are
# the sender's.
sender_name=${sender% <*} sender_email=${sender##*<} sender_email=${sender_email%>}
export GIT_AUTHOR_NAME=$sender_name GIT_AUTHOR_EMAIL=$sender_email
export GIT_COMMITTER_NAME=$sender_name GIT_COMMITTER_EMAIL=$sender_email

# The mail's commits, each made again on the last: the sender's author,
# committer and sign-off, the original's message and author date (the
# same inputs and sender give the same commits). The test commits also
# carry what make run does without, edited in by ci/series/wiring.py on
# the tree's own files (no context diff, so any tree's MAINTAINERS will
# do):
#  - a MAINTAINERS section, with the sender as M:, for what the series
#    adds and no subsystem maintains: the nsfd selftests, socketat's
#    KUnit suite (a file of the net patch named after socketat), and a
#    suite of code no section names (kernel/nsproxy.c);
#  - every other KUnit file, and the .kunitconfig beside it, goes to the
#    section of the code it tests (the .c that #includes it), when no
#    section names it already, as fs/tests/exec_kunit.c is under EXEC &
#    BINFMT API: get_maintainer.pl then sends each suite to its own
#    subsystem's list;
#  - the selftests TARGETS line.
# Tagged nsfd-mail.
title="NSFD: NAMESPACE FILE DESCRIPTOR TESTS"
export NSFD_SECTION_HEAD="M:\t$sender\nL:\tlinux-kernel@vger.kernel.org\nS:\tMaintained"
wiring=(env "PYTHONPATH=$top" python3 -B -P -m ci.series.wiring)
idx=$src/.git/nsfd-mail.index
trap 'rm -f "$idx" "$src/.git/nsfd-mail.msg"' EXIT
export GIT_INDEX_FILE=$idx
# wire TREE FROM PATH CMD...: TREE with PATH replaced by FROM's PATH piped
# through CMD (FROM's PATH as it is when CMD is "cat").
wire() {
	local tree=$1 from=$2 path=$3 blob; shift 3
	git -C "$src" read-tree "$tree"
	blob=$(git -C "$src" cat-file blob "$from:$path" | "$@" | git -C "$src" hash-object -w --stdin)
	git -C "$src" update-index --cacheinfo "100644,$blob,$path"
	git -C "$src" write-tree
}
# as_sender COMMIT TREE PARENT: COMMIT again, as the sender's, with TREE on PARENT.
as_sender() {
	local date
	date=$(git -C "$src" log -1 --format=%aI "$1")
	git -C "$src" log -1 --format=%B "$1" | "${ident[@]}" "${sign[@]}" "$sender" >"$src/.git/nsfd-mail.msg"
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git -C "$src" commit-tree "$2" -p "$3" -F "$src/.git/nsfd-mail.msg"
}
t=nsfd-base
for c in $(git -C "$src" rev-list --reverse nsfd-base..nsfd-tests); do
	tree=$(git -C "$src" rev-parse "$c^{tree}")
	if ! git -C "$src" merge-base --is-ancestor "$c" nsfd-series; then
		# The wiring of the commits before this one, then this one's.
		tree=$(wire "$tree" "$t" MAINTAINERS cat)
		tree=$(wire "$tree" "$t" tools/testing/selftests/Makefile cat)
		added=$(git -C "$src" diff --name-only --diff-filter=A "$c^" "$c" | LC_ALL=C sort)
		if grep -q '^tools/testing/selftests/nsfd/' <<<"$added"; then
			tree=$(wire "$tree" "$tree" MAINTAINERS "${wiring[@]}" maintainers "$title" \
				tools/testing/selftests/nsfd/)
			tree=$(wire "$tree" "$tree" tools/testing/selftests/Makefile "${wiring[@]}" target nsfd)
		else
			declare -A code_in=()
			while IFS= read -r f; do
				if [[ ${f##*/} == *socketat* ]]; then
					tree=$(wire "$tree" "$tree" MAINTAINERS "${wiring[@]}" maintainers "$title" "$f")
				elif [[ $f == *.c ]] && code=$(includer_of "$src" "$c" "$f") && [ "$code" != "$f" ]; then
					tree=$(wire "$tree" "$tree" MAINTAINERS "${wiring[@]}" route "$f" "$code" "$title")
					code_in[${f%/*}]=$code
				fi
			done <<<"$added"
			# A .kunitconfig goes with the suite beside it.
			while IFS= read -r f; do
				if [[ ${f##*/} == .kunitconfig && -n ${code_in[${f%/*}]:-} ]]; then
					tree=$(wire "$tree" "$tree" MAINTAINERS "${wiring[@]}" route "$f" "${code_in[${f%/*}]}" "$title")
				fi
			done <<<"$added"
			unset code_in
		fi
	fi
	t=$(as_sender "$c" "$tree" "$t")
done
unset GIT_INDEX_FILE
git -C "$src" tag -f nsfd-mail "$t" >/dev/null

# Not net-next: the series is made and tested on 6.12 (the cover letter's
# Base:) and does not apply to net-next as it is (463 is setxattrat there
# since 6.13), so its subject names no tree it would not apply to. RFC: a
# new syscall for linux-api to discuss, on a base no maintainer applies to.
prefix="PATCH RFC"
# To: the networking and API lists, on every patch.  Cc: per patch, whom
# get_maintainer.pl names for that patch, plus the KUnit list on a patch
# that adds a KUnit suite; the cover letter is Cc'd to all of them.
to=(netdev@vger.kernel.org linux-api@vger.kernel.org)
rm -rf "$out"; mkdir -p "$out"
# --base: the cover letter ends with base-commit: nsfd-base, the tree the
# robot builds (with --kernel-src, DIR's HEAD).
git -C "$src" format-patch -q --cover-letter --thread=shallow --subject-prefix="$prefix" \
	--base=nsfd-base "${to[@]/#/--to=}" -o "$out" nsfd-base..nsfd-mail
# get_maintainer.pl as it runs on the series applied: on the MAINTAINERS
# of nsfd-mail, with the wiring above (6.12's script reads ./MAINTAINERS
# only; --no-tree lets it run in a directory that holds just that file,
# with the tree's .mailmap, which maps maintainers to the addresses they
# want, and .get_maintainer.ignore).
gm=$(mktemp -d)
for f in MAINTAINERS .mailmap .get_maintainer.ignore; do
	git -C "$src" cat-file blob "nsfd-mail:$f" >"$gm/$f" 2>/dev/null || rm -f "$gm/$f"
done
cc_of() { # cc_of PATCH: one address a line
	{ (cd "$gm" && perl "$src/scripts/get_maintainer.pl" --no-tree --no-git --no-git-fallback \
		--no-rolestats "$1") | grep '@'
	  if grep -q '^+.*struct kunit_suite' "$1"; then echo kunit-dev@googlegroups.com; fi; } |
		grep -vxF -e "${to[0]}" -e "${to[1]}" -e "$sender" | awk '!seen[$0]++'
}
for p in "$out"/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] && continue
	cc_of "$p" >"$p.cc"
done
rm -rf "$gm"
cat "$out"/0*.patch.cc | awk '!seen[$0]++' >"$out/0000-cover-letter.patch.cc"
for p in "$out"/0*.patch; do
	"${wiring[@]}" cc "$p.cc" <"$p" >"$p.new"
	mv "$p.new" "$p"; rm "$p.cc"
done

# The cover letter: @BASE@ names what the series was made and tested on:
# the tarball (its Debian package and version) and the kernel version of
# its Makefile; format-patch --base has put that tree's commit last
# (base-commit:). Its "  N/M subject" lines must match the patches as
# emitted.
# The tarball: NSFD_TARBALL, else the one ci/pipeline/tree.py names.
tarball=${NSFD_TARBALL:-$(PYTHONPATH="$top" python3 -B -P -c 'from ci.pipeline.tree import TARBALL; print(TARBALL)')}
pkg=$(dpkg-query -S "$tarball" 2>/dev/null | cut -d: -f1 || true)
kv=$(git -C "$src" cat-file blob nsfd-base:Makefile | awk -F' = ' '
	$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 } $1 == "SUBLEVEL" { s = $2 }
	$1 == "EXTRAVERSION" && !done { e = $2; done = 1 } END { print v "." p "." s e }')
if [ -n "$kernel_src" ]; then
	# DIR's commit, its subject and kernel version (ci/series/ontree.py).
	base=$SERIES_BASE_TEXT
elif [ -n "$pkg" ]; then
	base="Debian's $pkg $(dpkg-query -W -f='${Version}' "$pkg"), that is Linux $kv as Debian ships it"
else
	base="$(basename "$tarball"), Linux $kv"
fi
if [ -f "$cover" ]; then
	python3 - "$out"/0000-cover-letter.patch "$cover" "$base" "$out" <<'PY' || rc=1
import glob, re, sys, textwrap
# The paragraph that names the base, filled again to 72 columns.
paras = open(sys.argv[2]).read().split('\n\n')
paras = [textwrap.fill(p.replace('@BASE@', sys.argv[3]), 72, break_on_hyphens=False,
                       break_long_words=False) if '@BASE@' in p else p for p in paras]
path, cover = sys.argv[1], '\n\n'.join(paras).split('\n', 1)
subject, body = cover[0].strip(), cover[1].strip('\n') if len(cover) > 1 else ''
text = open(path).read()
text = re.sub(r'\[(PATCH[^\]]*) 0/(\d+)\] \*\*\* SUBJECT HERE \*\*\*',
              lambda m: re.sub(r'\[PATCH[^\]]* 0/\d+\]', '[%s 0/%s]' % m.groups(), subject),
              text)
text = text.replace('*** BLURB HERE ***', body)
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
cp "$man_page" "$man/man/man2/socketat.2"
git -C "$man" add man/man2/socketat.2
git -C "$man" commit -q -s -m "socketat.2: new page" \
	-m "Document socketat(2), proposed for Linux in the series this accompanies."
git -C "$man" format-patch -q --root -o "$out/man-pages" HEAD
rm -rf "$man"

# Last, whatever made the files: no placeholder in any From:, Signed-off-by:
# or M: line of the mail (exit 2, and the mail is removed).
if [ "${sign[*]}" = sign ] && ! "${ident[@]}" check "$out"/*.patch "$out"/man-pages/*.patch; then
	rm -rf "$out"
	exit 2
fi
if [ -n "$kernel_src" ]; then
	echo "series: socketat is $SERIES_NR on $kernel_src; the mail: $out (base-commit: $SERIES_BASE)"
fi
exit $rc
