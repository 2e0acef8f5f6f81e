"""ci/nsfd's command line: what `make run` and `make test` call.

usage: ci/nsfd run [ARCH] [--debug] [--kernel-src DIR [--kernel-rev REV] [--with-series]]
       ci/nsfd run [ARCH] --config NAME   (kunit-configs/matrix/NAME)
       --with-series: DIR carries the series (make series KERNEL_SRC=
       applied it): judged as our own tree, every suite must build and
       run, socketat must exist (no ENOSYS skip)
       ci/nsfd test [--all]
       ci/nsfd guest [ARCH] [--debug]   (tests only, on the kernel built)
       run and guest also take --uid N: the kselftests run as uid N
       (no capabilities), results in out/<variant>-uidN/
       ci/nsfd cc [ARCH]   (the CC= and ccache settings of its builds)
       ci/nsfd bench [ARCH]   (socketat's cost, out/ARCH/bench.json)
       ci/nsfd merge [--out DIR] DIR...   (one verdict and one KCIDB
       document over out/<variant>/ directories of separate machines)
       ci/nsfd variants   (what a CI matrix runs: make test's variants, then
       the fan-out's; NAME<TAB>COMMAND a line)
       ci/nsfd robot [ARCH]   (the mailed series as a robot runs it:
       ci/pipeline/robot.py, results in out/robot-ARCH/)

run:  dependencies, tree, kernel (kunit.py build), KUnit (kunit.py exec
      under QEMU), kselftests in QEMU guests on the same image, results in
      out/<variant>/ (variant: ARCH, or ARCH-debug).
test: the pipeline's own tests, then run on x86_64, riscv64 and x86_64
      with the cheap configs of the matrix, then the robot run (ci/nsfd
      robot); one summary over all of them. --all (make test-all): then
      the fan-out too, the debug kernel, the other configs and arm64 (the
      whole of ci/nsfd variants, on this one machine).

The last line is "nsfd: N passed, N failed, N skipped". Exit: 0 all
passed; 1 a test failed, a kernel report, a guest timeout; 125 the kernel
or the tests could not be built (git bisect run skips); 2 usage or
environment, the machine's faults included (an OOM kill, a full disk, a
missing tool: never 1 or 125); docs/exit-codes.md has each situation's
code on every path. Environment: NSFD_JOBS (make -j), NSFD_QEMU_ARGS (extra QEMU
arguments, e.g. -enable-kvm where KVM works), NSFD_BOOT_TIMEOUT (s),
NSFD_GUESTS (kselftest guests side by side, 2), NSFD_FAIL_FAST=1 (make
mutants: no kselftest guest once KUnit is red, and in a guest no binary
after the first that fails), NSFD_OVERLAP=0 (make test: a variant's tests
not beside the next kernel build).
"""

import argparse
import os
import re
import subprocess
import sys
import time

import ci
from ci import variants
from ci.results import merge
from ci.results.model import ExitCode, exit_of, machine_fault, verdict
from . import arches, kernel, procs, runlog
from .runlog import EnvError, Say, now, since
from .variant import Run, Variant

TOP = ci.TOP
CI = os.path.join(TOP, 'ci')


def usage():
    sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
    print(runlog.NOTHING_JUDGED, flush=True)
    return ExitCode.ENVIRONMENT


def setup_env():
    os.environ['PYTHONDONTWRITEBYTECODE'] = '1'
    for key, default in (('CCACHE_MAXSIZE', '8G'), ('CCACHE_BASEDIR', os.path.join(TOP, 'build'))):
        if not os.environ.get(key):
            os.environ[key] = default
    # ccache's depend mode: a miss costs no extra preprocessor run (the
    # kernel's own -Wp,-MMD list is the manifest). Preprocessor mode made a
    # cold x86_64 build 23-48 % slower; its only extra hits were across
    # configs, which the matrix gets from kbuild (seed_from_base_kernel).
    # CCACHE_NODEPEND=1 turns it off.
    if not os.environ.get('CCACHE_NODEPEND'):
        os.environ['CCACHE_DEPEND'] = '1'


class _Parser(argparse.ArgumentParser):
    """argparse, its usage error raised (the caller says 2), not exited."""

    def error(self, message):
        raise _Usage(message)


class _Usage(Exception):
    pass


def parser():
    """ci/nsfd's commands and their options (run, guest, test, bench, cc;
    robot, merge and variants parse their own)."""
    p = _Parser(prog='ci/nsfd', description=__doc__.split('\n\n')[0],
                usage=__doc__.split('\n\n')[1].replace('usage: ', '', 1))
    sub = p.add_subparsers(dest='cmd', required=True, parser_class=_Parser)
    for name in ('run', 'guest', 'test', 'bench', 'cc'):
        c = sub.add_parser(name)
        c.add_argument('arch', nargs='?', default='x86_64')
        c.add_argument('--debug', action='store_true')
        c.add_argument('--kernel-src', default='')
        c.add_argument('--kernel-rev', default='')
        c.add_argument('--uid', default='')
        c.add_argument('--config', default='')
        if name == 'test':
            c.add_argument('--all', action='store_true')
        if name == 'run':
            c.add_argument('--with-series', action='store_true')
    return p


def parse(argv):
    """(command, options) or EnvError; None for a usage error, ('help',
    None) for --help."""
    if not argv:
        return None
    try:
        a = parser().parse_args(argv)
    except _Usage:
        return None
    except SystemExit:          # --help: printed
        return 'help', None
    if a.cmd == 'test' and a.arch != 'x86_64':
        return None
    opts = {'arch': a.arch, 'debug': a.debug, 'kernel_src': '', 'kernel_rev': a.kernel_rev,
            'config': a.config, 'uid': a.uid, 'all': getattr(a, 'all', False),
            'with_series': getattr(a, 'with_series', False)}
    for flag, value in (('--kernel-src', a.kernel_src), ('--kernel-rev', a.kernel_rev),
                        ('--uid', a.uid), ('--config', a.config)):
        if not value and any(x == flag or x.startswith(flag + '=') for x in argv):
            raise EnvError('%s needs a value' % flag)
    if a.kernel_src:
        if not os.path.isdir(a.kernel_src):
            raise EnvError('--kernel-src %s is not a directory' % a.kernel_src)
        opts['kernel_src'] = os.path.abspath(a.kernel_src)
    if a.uid and not re.fullmatch('[0-9]+', a.uid):
        raise EnvError("--uid needs a number, not '%s'" % a.uid)
    if a.config and a.config not in variants.matrix_configs():
        raise EnvError("unknown config '%s'; known: %s"
                       % (a.config, ' '.join(variants.matrix_configs())))
    if a.arch not in arches.known():
        raise EnvError("unknown arch '%s'; known: %s" % (a.arch, ' '.join(arches.known())))
    if opts['with_series'] and not opts['kernel_src']:
        raise EnvError('--with-series needs --kernel-src DIR: the tree that carries the series '
                       '(make series KERNEL_SRC=DIR prints it)')
    return a.cmd, opts


def prepare_deps(say, *arch_names):
    t = now()
    say('deps: checking packages')
    if procs.run([os.path.join(CI, 'deps.sh')] + list(arch_names)):
        raise EnvError('deps: failed; see the apt-get output above')
    say('deps: ok (%s s)' % since(t))


def summary(*results):
    """ci/results/report.py summary over RESULTS: its output and exit."""
    return procs.run(ci.command('ci.results.report', 'summary', *results))


def last_summary_line(results):
    """The summary's last line only (make run prints its stages above)."""
    p = subprocess.run(ci.command('ci.results.report', 'summary', results),
                       capture_output=True, text=True)
    lines = p.stdout.strip().split('\n')
    print(lines[-1] if lines and lines[-1] else runlog.NOTHING_JUDGED, flush=True)
    return p.returncode


def cmd_run(say, o, guest_only=False):
    start = now()
    prepare_deps(say, o['arch'])
    run = Run(TOP, say, o['kernel_src'], o['kernel_rev'], o['uid'], guest_only,
              with_series=o['with_series'])
    run.prepare_tree()
    v = Variant(run, o['arch'], o['debug'], '' if guest_only else o['config'])
    rc = v.run_all()
    if not guest_only:
        say('run: %s done in %s s; results in out/%s/' % (v.name, since(start), v.name))
    # The summary is the last line.
    last_summary_line(os.path.join(v.out, 'results.json'))
    return rc


def test_plan(everything=False):
    """make test's kernel variants, in its order, and those that follow
    the robot run (make test-all: the fan-out's; ci/variants.py's lists,
    which the CI matrices run)."""
    return variants.kernel_variants(), variants.fan_out_kernels() if everything else []


def run_variants(run, plan, results):
    try:
        for arch, debug, config in plan:
            v = Variant(run, arch, debug, config)
            v.run_all()
            results.append(os.path.join(v.out, 'results.json'))
    except BaseException:
        # Whatever ended the loop, the tests running beside it end and
        # are printed before this run does.
        run.finish_pending()
        raise


def start_pipeline_tests():
    """The pipeline's own tests (make check), started: their Popen. Their
    progress lines carry this run's elapsed time (runlog.RUN_STARTED)."""
    return procs.popen(ci.command('ci.tests.run', os.path.join(TOP, 'out', 'pipeline')))


def cmd_test(say, o):
    start = now()
    gate, fan_out = test_plan(o['all'])
    prepare_deps(say, *sorted({'x86_64', 'riscv64'} | {a for a, _, _ in fan_out}))
    say('pipeline: testing the pipeline itself (ci/tests), beside the tree and the first kernel')
    os.makedirs(os.path.join(TOP, 'out', 'pipeline'), exist_ok=True)
    # The exits of make test's children count beside their results.json
    # (model.verdict): a child that ended without writing its own (an
    # environment error, a signal) is 2, never a stale file's verdict.
    # The pipeline's tests wait for events, never for a time
    # (ci/tests/waits.py), so they run beside the builds, not before them.
    pipeline = start_pipeline_tests()
    run = Run(TOP, say, o['kernel_src'], o['kernel_rev'], o['uid'])
    run.prepare_tree()
    results = [os.path.join(TOP, 'out', 'pipeline', 'results.json')]
    run.overlap = (os.environ.get('NSFD_OVERLAP') or '1') == '1'
    run_variants(run, gate, results)
    # The robot does not wait for the pipeline's tests: no case reads what
    # it writes (its mail is out/robot-ARCH/mail/; the case that watches
    # out/series/ runs the scripts of a copy of the checkout).
    say('robot: the mailed series on pristine 6.12, kselftest\'s own runner')
    robot = variants.ROBOT
    # The last variant's tests run beside the robot's kernel build, which
    # takes the cores they leave idle (as kernel.build does).
    nice = ['nice', '-n', '19'] if run.tests_pending() else []
    codes = []
    try:
        codes.append(procs.run(nice + ci.command('ci.nsfd', *robot[1].split()[1:]),
                               pass_fds=(procs.LOCK_FD,)))
    finally:
        run.finish_pending()
    if codes[-1] not in (ExitCode.PASS, ExitCode.FAIL, ExitCode.NOT_BUILT):
        say('robot: ended with exit %d (environment): make test\'s exit counts it' % codes[-1])
    # The robot clears out/robot-ARCH/ before its first step: a results.json
    # there is this run's, and none is 2 (report.py summary).
    results.append(os.path.join(TOP, 'out', robot[0], 'results.json'))
    if fan_out:
        say('test-all: the fan-out, %d kernel(s) more on this machine' % len(fan_out))
        run_variants(run, fan_out, results)
        run.finish_pending()
    codes.insert(0, procs.status(pipeline.wait()))
    if codes[0]:
        say('pipeline: its own tests %s' % ('failed' if codes[0] == ExitCode.FAIL else
                                            'could not run (exit %d)' % codes[0]))
    say('test: done in %s s' % since(start))
    return verdict([summary(*results)] + codes)


def cmd_bench(say, o):
    from . import bench
    prepare_deps(say, o['arch'])
    run = Run(TOP, say, o['kernel_src'], o['kernel_rev'], o['uid'])
    run.prepare_tree()
    return bench.run(Variant(run, o['arch']))


def cmd_cc(_say, o):
    # The compiler setup a kernel build of ARCH gets: its CC= and ccache's
    # settings, one a line (what make check compiles with).
    print(kernel.kernel_cc(CI, arches.load(o['arch'])))
    for k in sorted(os.environ):
        if k.startswith('CCACHE_'):
            print('%s=%s' % (k, os.environ[k]))
    return ExitCode.PASS


# The commands that write under out/ or build/: each holds build/.lock
# from its start, before its first file (make test's pipeline tests, the
# robot's emptied out/robot-ARCH/), to its last child's end.
LOCKED = ('run', 'guest', 'test', 'bench', 'robot')


def hold_lock(say, argv):
    procs.hold_build_lock(TOP, say, command=' '.join(['ci/nsfd'] + list(argv)))


COMMANDS = {'run': cmd_run, 'guest': lambda say, o: cmd_run(say, o, guest_only=True),
            'test': cmd_test, 'bench': cmd_bench, 'cc': cmd_cc}


def main(argv):
    cmd = argv[0] if argv else ''
    # merge needs no tree, no kernel and no packages: ci/results/merge.py does it.
    if cmd == 'merge':
        return merge.main(argv[1:])
    # variants: the list a CI matrix runs (ci/variants.py).
    if cmd == 'variants':
        return variants.main(argv)
    setup_env()
    # Before any child: this run is the subreaper of all it starts, ends
    # them all on SIGTERM, SIGINT or SIGHUP, and exits (letting go of
    # build/.lock) only once none is left.
    procs.stop_on_signals()
    # Its children (make test's pipeline tests and robot run) count from here.
    os.environ.setdefault(runlog.RUN_STARTED, repr(time.monotonic()))
    say = Say()
    try:
        # robot: the mailed series on a pristine tree, kselftest's own
        # runner (ci/pipeline/robot.py).
        if cmd == 'robot':
            from . import robot
            return four_codes(say, cmd, robot.main(say, argv[1:],
                                                   lock=lambda: hold_lock(say, argv)))
        parsed = parse(argv)
        if parsed and parsed[0] == 'help':
            return ExitCode.PASS
        if not parsed or parsed[0] not in COMMANDS:
            return usage()
        if parsed[0] in LOCKED:
            hold_lock(say, argv)
        return four_codes(say, cmd, COMMANDS[parsed[0]](say, parsed[1]))
    except EnvError as e:
        say(str(e))
    except Exception as e:  # a fault of the pipeline itself judged nothing
        import traceback
        traceback.print_exc(file=sys.stdout)
        fault = machine_fault(e)
        say('environment error: %s: nothing was judged' % fault if fault else
            'the pipeline itself raised an exception (above): nothing was judged; '
            'please report it with this log')
    print(runlog.NOTHING_JUDGED, flush=True)
    return ExitCode.ENVIRONMENT


def four_codes(say, cmd, rc):
    """RC as one of the four codes: a status that is none of them (a
    child killed by a signal: 137) is 2, and the run says why."""
    code, cause = exit_of(rc)
    if cause:
        say('%s: %s: nothing was judged' % (cmd, cause))
        print(runlog.NOTHING_JUDGED, flush=True)
    return code
