"""The variants a CI matrix runs, one a line: make test's, then the fan-out.

usage: ci/nsfd variants        (main() below; python3 -m ci.variants alike)
Prints NAME<TAB>COMMAND per variant, in that order: NAME is the
directory its results go to (out/NAME/), COMMAND what a CI job runs from
the top of a fresh checkout (as root on Debian 12) to produce them; its
exit code is the variant's (0/1/125/2, README "Exit codes").

The list starts with make test's (ci/pipeline/cli.py, cmd_test), the
one-machine gate: the pipeline's own tests, the x86_64 debug kernel
(KASAN, lockdep, kmemleak: the kernel that catches a reference or
locking bug in socketat and the namespace code), riscv64, x86_64 with
each config of MAKE_TEST_CONFIGS, then the robot run (ROBOT), whose
kernel is a plain x86_64 build of the mailed series. Then the fan-out
(fan_out_kernels()), what a CI matrix runs on machines of their own and
`make test-all` runs after make test on one: the plain x86_64 kernel,
the configs of kunit-configs/matrix/, arm64. Each of those is a whole
cold kernel more; on one 2-core machine they would take make test past
5x kunit.py's own default build, cold (docs/kernels.md). Names are ci/pipeline/variant.py's: ARCH, then
-debug, then -CONFIG. make check asserts that make test and make
test-all run these lists and that .github/workflows/nsfd.yml and
.gitlab-ci.yml run the whole list (ci/tests/test_ci_matrix.py).
"""

import os
import sys

from ci import args as cli_args
from ci.results.model import ExitCode

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

# The matrix configs make test builds itself, each from a copy of the
# plain x86_64 kernel's build directory. None since the debug kernel took
# the plain one's place in make test: without that build to copy, even
# time_ns_off (31 objects of 903 from a copy) is a whole cold kernel
# more. A config named here brings the plain x86_64 kernel back into
# make test (before it, as its copy's source).
MAKE_TEST_CONFIGS = ()


def kernel_variants():
    """(arch, debug, config) of make test's kernels, in its order."""
    plain = [('x86_64', False, '')] if MAKE_TEST_CONFIGS else []
    return ([('x86_64', True, '')] + plain + [('riscv64', False, '')] +
            [('x86_64', False, c) for c in matrix_configs() if c in MAKE_TEST_CONFIGS])


def fan_out_kernels():
    """(arch, debug, config) of the kernels a CI matrix runs besides make
    test's, each on a machine of its own (make test-all: after them)."""
    plain = [] if MAKE_TEST_CONFIGS else [('x86_64', False, '')]
    return (plain +
            [('x86_64', False, c) for c in matrix_configs() if c not in MAKE_TEST_CONFIGS] +
            [('arm64', False, '')])


def name(arch, debug, config):
    return arch + ('-debug' if debug else '') + ('-' + config if config else '')


def command(arch, debug, config):
    return ' '.join(['ci/nsfd', 'run', arch] + (['--debug'] if debug else []) +
                    (['--config', config] if config else []))


def make_test_variants():
    """[(name, command)] of make test, in its order."""
    return [PIPELINE] + [(name(*v), command(*v)) for v in kernel_variants()] + [ROBOT]


def variants():
    """[(name, command)] a CI matrix runs: make test's, then the fan-out's."""
    return make_test_variants() + [(name(*v), command(*v)) for v in fan_out_kernels()]


def main(argv):
    _, code = cli_args.parse(cli_args.parser('ci/nsfd variants', __doc__), argv[1:])
    if code is not None:
        return code
    for n, c in variants():
        print('%s\t%s' % (n, c))
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
