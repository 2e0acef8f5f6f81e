#!/bin/bash
# A kernel history to try make bisect on (README: Bisecting): Debian's
# linux-source-6.12 as the first commit, then harmless commits, a commit
# that does not build (and its fix), and one regression: setns() accepting
# a namespace fd of the wrong type (nstype check dropped).
#
# usage: ci/bisect/demo-history.sh DIR   (DIR must not exist)
set -euo pipefail
. "$(dirname "$0")/history.sh"
start_history "${1:?usage: ci/bisect/demo-history.sh DIR}" demo
git tag demo-good
echo "/* harmless: a comment */" >>kernel/utsname.c;            commit "utsname: a comment"
sed -i '2a\ * harmless: another comment' kernel/pid_namespace.c;  commit "pid_namespace: another comment"
echo "this does not build;" >>kernel/user_namespace.c;       commit "user_namespace: a commit that does not build"
sed -i '$d' kernel/user_namespace.c;                         commit "user_namespace: fix the build"
# The regression: validate_ns() no longer rejects a mismatched nstype.
python3 - <<'PY'
import re
p = 'kernel/nsproxy.c'
s = open(p).read()
old = 'if (flags && (ns->ops->type != flags))'
assert old in s, 'setns type check not found'
s = s.replace(old, 'if (0 && flags && (ns->ops->type != flags))', 1)
open(p, 'w').write(s)
PY
commit "nsproxy: setns accepts any nstype (the regression)"
echo "/* harmless: a third comment */" >>kernel/utsname.c;         commit "utsname: a third comment"
echo "/* harmless: a fourth comment */" >>ipc/namespace.c;         commit "ipc: a comment"
git tag demo-bad
