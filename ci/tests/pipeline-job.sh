#!/bin/bash
# The "pipeline" variant as a CI job runs it on a fresh Debian 12 machine:
# the packages make test installs (ci/deps.sh x86_64 riscv64), then the
# pipeline's own tests, results in out/pipeline/ (what make check runs,
# without make turning a failure into 2).
# usage: ci/tests/pipeline-job.sh    exit 0 passed, 1 failed, 2 packages
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
"$top/ci/deps.sh" x86_64 riscv64 ||
	{ echo "nsfd: pipeline: ci/deps.sh failed: see the apt-get output above"; exit 2; }
PYTHONPATH=$top${PYTHONPATH:+:$PYTHONPATH} exec python3 -B -P -m ci.tests.run "$top/out/pipeline"
