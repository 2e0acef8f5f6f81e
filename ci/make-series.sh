#!/bin/bash
# The mailable series: patches/series plus the test patches generated from
# kunit/ and selftests/nsfd/, with the cover letter of patches/cover-letter.txt
# (first line: subject; then the body), into out/series/. Every patch is
# checked with checkpatch --strict; exit 1 if any reports anything.
#
# usage: ci/make-series.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux-source-6.12
out=$top/out/series

mkdir -p "$top/build"
exec 9>"$top/build/.lock"
flock -w 3600 9 || { echo "series: $top/build/.lock is held by a run" >&2; exit 2; }
"$top/ci/prepare-tree.sh" "$src"
rm -rf "$out"; mkdir -p "$out"
git -C "$src" format-patch -q --cover-letter --thread=shallow -o "$out" nsfd-base..nsfd-tests

cover=$top/patches/cover-letter.txt
if [ -f "$cover" ]; then
	python3 - "$out"/0000-cover-letter.patch "$cover" <<'PY'
import re, sys
path, cover = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
subject, body = cover[0].strip(), cover[1].strip('\n') if len(cover) > 1 else ''
text = open(path).read()
text = re.sub(r'\[PATCH 0/(\d+)\] \*\*\* SUBJECT HERE \*\*\*',
              lambda m: re.sub(r'\[PATCH 0/\d+\]', '[PATCH 0/%s]' % m.group(1), subject), text)
text = text.replace('*** BLURB HERE ***', body)
open(path, 'w').write(text)
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

rc=0
for p in "$out"/0*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	# Debian's python3 has the ply and git modules spdxcheck.py wants.
	# ENOSYS: the selftests must name it to skip where the syscall is absent.
	r=$(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --ignore ENOSYS "$p" 2>&1 |
		grep '^total:' || true)
	printf '%-66s %s\n' "$(basename "$p")" "${r:-checkpatch gave no total}"
	case $r in
	"total: 0 errors, 0 warnings, 0 checks"*) ;;
	*)	rc=1
		(cd "$src" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --ignore ENOSYS --terse "$p" 2>&1 |
			grep -v '^total:' | head -n 20) ;;
	esac
done
echo "series: $(ls "$out" | wc -l) files in $out"
exit $rc
