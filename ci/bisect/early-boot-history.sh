#!/bin/bash
# The early-boot drill (docs: bisecting): a regression that kills the
# kernel before its console is up. Debian's linux-source-6.12 as the first
# commit, then:
#   harmless          a comment
#   THE CULPRIT       panic() just before console_init() in start_kernel()
#   harmless          a comment
# Every boot of the culprit and after dies before console_init(): with the
# arch's early console it shows its banner and the panic, and it is a
# failed boot (exit 1). `make bisect KERNEL_SRC=DIR GOOD=early-good
# BAD=early-bad` must name the culprit; with TEST=RE naming tests that the
# boot never reaches, each such step is a skip.
#
# usage: ci/bisect/early-boot-history.sh DIR   (DIR must not exist)
# Prints one line a commit; tags early-good, early-culprit, early-bad.
set -euo pipefail
. "$(dirname "$0")/history.sh"
start_history "${1:?usage: ci/bisect/early-boot-history.sh DIR}" early
g tag early-good
echo "/* harmless: a comment */" >>kernel/utsname.c
commit "utsname: a comment"
python3 - <<-'PY'
	p, old = 'init/main.c', '\tconsole_init();\n'
	s = open(p).read()
	assert s.count(old) == 1, 'not found once in %s: %r' % (p, old)
	open(p, 'w').write(s.replace(old, '\tpanic("early-boot drill: before console_init()");\n' + old))
	PY
commit "init: panic before console_init() (the regression)"
g tag early-culprit
echo "/* harmless: another comment */" >>ipc/namespace.c
commit "ipc: a comment"
g tag early-bad
