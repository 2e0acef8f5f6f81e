#!/bin/bash
# The held-out bisection drill (README: Bisecting): a regression whose
# deciding test does not compile at the culprit. Debian's linux-source-6.12
# as the first commit, then:
#   harmless          a comment
#   the gap opens     check_setns_flags() renamed: nsfd's nsproxy
#                     KUnit suite, which calls it, no longer compiles there
#   THE CULPRIT       the renamed check accepts flags == 0
#   the gap closes    the old name back: the suite compiles, and fails
#   harmless          a comment
# `make bisect KERNEL_SRC=DIR GOOD=drill-good BAD=drill-bad
# TEST='nsproxy nsproxy_check_setns_flags'` must answer the culprit, or the
# culprit among the skipped commits around it: never the commit that
# closes the gap, where the test first runs and fails.
#
# usage: ci/bisect/drill-history.sh DIR   (DIR must not exist)
# Prints one line a commit; tags drill-good, drill-culprit, drill-bad.
set -euo pipefail
. "$(dirname "$0")/history.sh"
start_history "${1:?usage: ci/bisect/drill-history.sh DIR}" drill
# edit FIND REPLACE: one exact replacement in kernel/nsproxy.c, or stop.
edit() {
	python3 - "$1" "$2" <<-'PY'
	import sys
	p, old, new = 'kernel/nsproxy.c', sys.argv[1], sys.argv[2]
	s = open(p).read()
	assert s.count(old) >= 1, 'not found in %s: %s' % (p, old)
	open(p, 'w').write(s.replace(old, new))
	PY
}
g tag drill-good
echo "/* harmless: a comment */" >>kernel/utsname.c
commit "utsname: a comment"
edit 'check_setns_flags(' 'setns_flags_valid('
commit "nsproxy: rename check_setns_flags() to setns_flags_valid()"
edit 'if (!flags || (flags & ~(CLONE_NEWNS' 'if ((flags & ~(CLONE_NEWNS'
commit "nsproxy: setns_flags_valid() accepts no flags (the regression)"
g tag drill-culprit
edit 'setns_flags_valid(' 'check_setns_flags('
commit "nsproxy: back to check_setns_flags()"
echo "/* harmless: another comment */" >>ipc/namespace.c
commit "ipc: a comment"
g tag drill-bad
