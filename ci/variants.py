#!/usr/bin/env python3
"""The variants of `make test`, one a line: what a CI matrix runs.

usage: ci/variants.py        (ci/nsfd variants calls it)
Prints NAME<TAB>COMMAND per variant, in make test's order: NAME is the
directory its results go to (out/NAME/), COMMAND what a CI job runs from
the top of a fresh checkout (as root on Debian 12) to produce them; its
exit code is the variant's (0/1/125/2, README "Exit codes").

The list is make test's (ci/pipeline/cli.py, cmd_test): the pipeline's own tests,
x86_64, riscv64, the x86_64 debug kernel, x86_64 with each config of
kunit-configs/matrix/, then the robot run (ROBOT); then what only a CI matrix runs (CI_ONLY), because
one machine running it after all the others would be too slow: arm64.
Names are ci/pipeline/variant.py's: ARCH, then -debug, then -CONFIG. make
check asserts that make test runs make_test_variants() and that
.github/workflows/nsfd.yml and .gitlab-ci.yml run this whole list
(ci/tests/test_ci_matrix.py).
"""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATRIX = os.path.join(TOP, 'kunit-configs', 'matrix')

# The pipeline variant: make test installs the packages before its tests.
PIPELINE = ('pipeline', 'ci/tests/pipeline-job.sh')


def matrix_configs():
    """kunit-configs/matrix/*.kunitconfig, names sorted as bytes."""
    return sorted(f[:-len('.kunitconfig')] for f in os.listdir(MATRIX)
                  if f.endswith('.kunitconfig') and os.path.isfile(os.path.join(MATRIX, f)))


# make test's last stage: the mailed series as a robot runs it
# (ci/pipeline/robot.py), results in out/robot-x86_64/.
ROBOT = ('robot-x86_64', 'ci/nsfd robot x86_64')

# Kernels a CI matrix runs on a machine of their own and make test does
# not: a cold arm64 build on the one machine make test uses would add
# about as much as x86_64's (README, "arm64").
CI_ONLY = [('arm64', False, '')]


def kernel_variants():
    """(arch, debug, config) of make test's kernels, in its order."""
    return ([('x86_64', False, ''), ('riscv64', False, ''), ('x86_64', True, '')] +
            [('x86_64', False, c) for c in matrix_configs()])


def name(arch, debug, config):
    return arch + ('-debug' if debug else '') + ('-' + config if config else '')


def command(arch, debug, config):
    return ' '.join(['ci/nsfd', 'run', arch] + (['--debug'] if debug else []) +
                    (['--config', config] if config else []))


def make_test_variants():
    """[(name, command)] of make test, in its order."""
    return [PIPELINE] + [(name(*v), command(*v)) for v in kernel_variants()] + [ROBOT]


def variants():
    """[(name, command)] a CI matrix runs: make test's, then CI_ONLY."""
    return make_test_variants() + [(name(*v), command(*v)) for v in CI_ONLY]


def main(argv):
    if len(argv) > 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    for n, c in variants():
        print('%s\t%s' % (n, c))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
