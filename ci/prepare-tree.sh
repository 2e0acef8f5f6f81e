#!/bin/bash
# usage: ci/prepare-tree.sh DEST [KERNEL_SRC [REV]]
# The kernel tree of a build, as a git repository, from the command line
# (ci/series/mail.sh, or by hand): the program is ci/pipeline/tree.py
# (what it does, its environment and its exits, 0 ready, 125 this tree
# cannot take the tests, 2 usage or environment, are in its doc); the
# pipeline calls it in process. This shim only finds it.
top=$(cd "$(dirname "$0")/.." && pwd)
PYTHONPATH=$top${PYTHONPATH:+:$PYTHONPATH} exec python3 -B -P -m ci.pipeline.tree "$@"
