#!/bin/bash
# A kernel history to try make bisect on (docs/bisecting.md): Debian's
# linux-source-6.12 as the first commit, then one of three stories, each
# with its tags KIND-good, KIND-culprit (where there is one) and KIND-bad:
#
#   demo        harmless commits, a commit that does not build and its
#               fix, and the regression: setns() accepts a namespace fd of
#               the wrong type (nsproxy's nstype check dropped).
#               make bisect KERNEL_SRC=DIR GOOD=demo-good BAD=demo-bad
#   drill       the held-out drill: the deciding test cannot compile at
#               the culprit. A rename of check_setns_flags() (nsfd's
#               nsproxy suite, which calls it, no longer compiles), the
#               regression (the renamed check accepts flags == 0), the old
#               name back (the suite compiles, and fails). make bisect
#               ... GOOD=drill-good BAD=drill-bad
#               TEST='nsproxy nsproxy_check_setns_flags' must answer the
#               culprit, or the culprit among the skipped commits around
#               it: never the commit that closes the gap.
#   early-boot  a kernel that dies before its console is up: panic() just
#               before console_init(). With the arch's early console every
#               boot shows its banner and the panic, a failed boot (exit
#               1); make bisect ... GOOD=early-boot-good BAD=early-boot-bad
#               names the culprit; with TEST=RE naming tests the boot
#               never reaches, such a step is a skip.
#
# usage: ci/dev/bisect-history.sh demo|drill|early-boot DIR   (DIR must not exist)
# Prints one line a commit.
set -euo pipefail
usage="usage: ci/dev/bisect-history.sh demo|drill|early-boot DIR   (DIR must not exist)"
kind=${1:?$usage} dir=${2:?$usage}
case $kind in demo|drill|early-boot) ;; *) echo "$usage" >&2; exit 2 ;; esac
[ -e "$dir" ] && { echo "$dir exists" >&2; exit 2; }

top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
# NSFD_TARBALL: another tarball (make check's small fixture), else the one
# ci/pipeline/tree.py names.
tarball=${NSFD_TARBALL:-$(PYTHONPATH="$top" python3 -B -P -c 'from ci.pipeline.tree import TARBALL; print(TARBALL)')}
tar -xf "$tarball" -C "$dir" --strip-components=1
cd "$dir"
git init -q
g() { git -c user.name="$kind" -c user.email="$kind@localhost" "$@"; }
commit() { g add -Af; g commit -q -m "$1"; echo "$(git rev-parse --short=12 HEAD) $1"; }
# edit FILE FIND REPLACE: FIND must be there; every one is replaced.
edit() {
	python3 - "$1" "$2" "$3" <<-'PY'
	import sys
	p, old, new = sys.argv[1:]
	s = open(p).read()
	assert s.count(old) >= 1, 'not found in %s: %s' % (p, old)
	open(p, 'w').write(s.replace(old, new))
	PY
}
commit "linux-source-6.12 as shipped"
g tag "$kind-good"
echo "/* harmless: a comment */" >>kernel/utsname.c
commit "utsname: a comment"
case $kind in
demo)
	sed -i '2a\ * harmless: another comment' kernel/pid_namespace.c
	commit "pid_namespace: another comment"
	echo "this does not build;" >>kernel/user_namespace.c
	commit "user_namespace: a commit that does not build"
	sed -i '$d' kernel/user_namespace.c
	commit "user_namespace: fix the build"
	edit kernel/nsproxy.c 'if (flags && (ns->ops->type != flags))' \
		'if (0 && flags && (ns->ops->type != flags))'
	commit "nsproxy: setns accepts any nstype (the regression)"
	g tag "$kind-culprit"
	echo "/* harmless: a third comment */" >>kernel/utsname.c
	commit "utsname: a third comment"
	;;
drill)
	edit kernel/nsproxy.c 'check_setns_flags(' 'setns_flags_valid('
	commit "nsproxy: rename check_setns_flags() to setns_flags_valid()"
	edit kernel/nsproxy.c 'if (!flags || (flags & ~(CLONE_NEWNS' 'if ((flags & ~(CLONE_NEWNS'
	commit "nsproxy: setns_flags_valid() accepts no flags (the regression)"
	g tag "$kind-culprit"
	edit kernel/nsproxy.c 'setns_flags_valid(' 'check_setns_flags('
	commit "nsproxy: back to check_setns_flags()"
	;;
early-boot)
	edit init/main.c $'\tconsole_init();\n' \
		$'\tpanic("early-boot drill: before console_init()");\n\tconsole_init();\n'
	commit "init: panic before console_init() (the regression)"
	g tag "$kind-culprit"
	;;
esac
echo "/* harmless: another comment */" >>ipc/namespace.c
commit "ipc: a comment"
g tag "$kind-bad"
