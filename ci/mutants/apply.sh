#!/bin/bash
# Apply one mutant to a kernel tree: ci/mutants/apply.sh TREE MUTANTFILE
#
# Edits TREE/<file> in place: the one line whose words are the mutant's
# "find" becomes its "replace" (keeping the line's indentation); see
# ci/mutants/README for the format. Nothing is committed: the caller
# (ci/prepare-tree.sh, when NSFD_MUTANT is set) commits the edit.
# Exit: 0 applied; 2 the mutant is malformed, TREE has no such file, or
# the find line does not occur exactly once (TREE is then left untouched).
set -uo pipefail
[ $# = 2 ] || { echo "usage: ci/mutants/apply.sh TREE MUTANTFILE" >&2; exit 2; }
[ -d "$1" ] || { echo "mutants: $1 is not a directory" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
PYTHONPATH=$top${PYTHONPATH:+:$PYTHONPATH} exec python3 -B -P -m ci.mutants.mutant apply "$1" "$2"
