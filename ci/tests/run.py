#!/usr/bin/env python3
"""Run the pipeline's own tests and record them as a variant of the run.

usage: python3 -m ci.tests.run OUTDIR   (make check)
Writes OUTDIR/unittest.log, then OUTDIR/results.json in the contract's
schema (variant "pipeline", naming unittest.log as written with it:
ci/results/resultsfile.py), prints each failure and the summary line;
exit 0 or 1, or 2 when the tests could not be run or recorded (a full
disk: nothing was judged).

The cases run across the cores: NSFD_CHECK_JOBS workers (the CPUs this
process may use; 1 runs them all here, one at a time), each a process of
its own, the cases dealt out longest first by the durations the last run
recorded, each worker's in the suite's order (a class's setUpClass world
is built once in each worker that runs some of its cases).
Each worker writes its records to OUTDIR/worker-N.json and its unittest
log to OUTDIR/worker-N.log (joined into unittest.log); a worker that ends
without its records is exit 2.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import traceback
import unittest

import ci
from ci import args as cli_args
from ci.pipeline import runlog
from ci.results import resultsfile
from ci.results.model import ExitCode, TestResult, counts, machine_fault

HERE = os.path.dirname(os.path.abspath(__file__))


class Recorder(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.records, self.t0 = [], None

    def startTest(self, test):
        self.t0 = time.monotonic()
        super().startTest(test)

    def _add(self, test, status, reason='', subtest=None):
        cls, _, name = test.id().rpartition('.')
        if subtest is not None:
            name = '%s %s' % (name, subtest._subDescription())
        self.records.append(TestResult('pipeline', cls.rsplit('.', 1)[-1], name, status,
                                       round(time.monotonic() - self.t0, 6), reason))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._add(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._add(test, 'fail', '%s: %s' % (err[0].__name__, str(err[1]).splitlines()[0]))

    def addError(self, test, err):
        super().addError(test, err)
        self._add(test, 'fail', '%s: %s' % (err[0].__name__, str(err[1]).splitlines()[0]))

    def addSubTest(self, test, subtest, err):
        # A failing subtest fails its test, and unittest then calls neither
        # addSuccess nor addFailure for the test: record it here, or the
        # failure would be in no count.
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._add(test, 'fail', '%s: %s' % (
                err[0].__name__, (str(err[1]).splitlines() or [''])[0]), subtest)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._add(test, 'skip', reason)


class Runner(unittest.TextTestRunner):
    """unittest's runner, recording (Recorder); progress() counts the
    cases run so far, for the progress line."""
    resultclass = Recorder
    result = None

    def _makeResult(self):
        self.result = super()._makeResult()
        return self.result

    def progress(self, total):
        r = self.result
        done, bad = (r.testsRun, len(r.failures) + len(r.errors)) if r else (0, 0)
        return '%d of %d cases run, %d failed' % (done, total, bad)


def main(argv):
    # A worker of run_parallel() (internal: this module starts it).
    if len(argv) == 4 and argv[1] == '--worker':
        with open(os.path.join(argv[2], 'worker-%s.ids' % argv[3])) as f:
            return worker(argv[2], int(argv[3]), f.read().split())
    p = argparse.ArgumentParser(prog='python3 -m ci.tests.run',
                                description="the pipeline's own tests (make check)")
    p.add_argument('outdir')
    a, code = cli_args.parse(p, argv[1:])
    if a is None:
        return code
    try:
        return run(a.outdir)
    except Exception as e:      # noqa: BLE001 - Python's own 1 would read as a failed test
        traceback.print_exc()
        fault = machine_fault(e)
        print('nsfd: pipeline: the tests could not be run or recorded (%s): nothing was judged'
              % ('the machine: ' + fault if fault else '%s: %s' % (type(e).__name__, e)))
        return ExitCode.ENVIRONMENT


def cases(suite):
    """Every test case of SUITE, in order."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from cases(t)
        else:
            yield t


def jobs():
    n = os.environ.get('NSFD_CHECK_JOBS') or str(len(os.sched_getaffinity(0)))
    return int(n) if n.isdigit() and int(n) > 0 else 1


def last_durations(outdir):
    """{(class name, case name): seconds} from the last run's
    results.json ({} if none)."""
    try:
        with open(os.path.join(outdir, 'results.json')) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    return {(t.get('suite'), t.get('name')): t.get('duration') or 0 for t in doc.get('tests', [])}


def deal(suite, n, took):
    """The cases of SUITE as N lists of test ids: longest first (the last
    run's durations TOOK; a case it does not know counts 1 s) into the
    least loaded list, each list then in the order of SUITE, so that a
    class's cases stay together (its setUpClass runs once in each list
    that has some of them)."""
    order = list(cases(suite))
    cost = {}
    for i, t in enumerate(order):
        cls, _, name = t.id().rpartition('.')
        cost[i] = took.get((cls.rsplit('.', 1)[-1], name), 1.0)
    bins = [[0.0, []] for _ in range(n)]
    for i in sorted(cost, key=lambda i: -cost[i]):
        b = min(bins, key=lambda x: x[0])
        b[0] += cost[i]
        b[1].append(i)
    return [[order[i].id() for i in sorted(ids)] for _, ids in bins if ids]


def worker(outdir, k, ids):
    """One worker: the cases IDS, one at a time; its records to
    worker-K.json (written whole: temp file, rename), a line a case to
    worker-K.done (the parent's progress)."""
    suite = unittest.defaultTestLoader.loadTestsFromNames(ids)
    done = open(os.path.join(outdir, 'worker-%d.done' % k), 'w', buffering=1)

    class Counted(Recorder):
        def stopTest(self, test):
            super().stopTest(test)
            done.write(test.id() + '\n')

    with open(os.path.join(outdir, 'worker-%d.log' % k), 'w') as log:
        runner = unittest.TextTestRunner(stream=log, verbosity=2, resultclass=Counted)
        result = runner.run(suite)
    path = os.path.join(outdir, 'worker-%d.json' % k)
    with open(path + '.tmp', 'w') as f:
        json.dump({'records': [r.to_dict() for r in result.records], 'ok': result.wasSuccessful(),
                   'run': result.testsRun}, f)
    os.replace(path + '.tmp', path)
    return ExitCode.PASS


def run_parallel(outdir, suite, total, n):
    """The cases across N worker processes: (records, all passed)."""
    parts = deal(suite, n, last_durations(outdir))
    for name in os.listdir(outdir):
        if name.startswith('worker-'):
            os.unlink(os.path.join(outdir, name))
    procs = []
    for k, ids in enumerate(parts):
        with open(os.path.join(outdir, 'worker-%d.ids' % k), 'w') as f:
            f.write('\n'.join(ids) + '\n')
        procs.append(subprocess.Popen(
            [sys.executable, '-B', '-P', '-m', 'ci.tests.run', '--worker', outdir, str(k)],
            stdin=subprocess.DEVNULL))

    def progress():
        finished = 0
        for k in range(len(parts)):
            try:
                with open(os.path.join(outdir, 'worker-%d.done' % k)) as f:
                    finished += sum(1 for _ in f)
            except OSError:
                pass
        return '%d of %d cases run, %d worker(s)' % (finished, total, len(parts))

    say = runlog.Say(stream=sys.stdout)
    with runlog.heartbeat(say, 'pipeline', progress):
        codes = [p.wait() for p in procs]
    records, ok = [], True
    with open(os.path.join(outdir, 'unittest.log'), 'w') as log:
        for k in range(len(parts)):
            try:
                with open(os.path.join(outdir, 'worker-%d.log' % k)) as f:
                    log.write(f.read())
            except OSError:
                pass
    for k, code in enumerate(codes):
        try:
            with open(os.path.join(outdir, 'worker-%d.json' % k)) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            raise RuntimeError('worker %d of the pipeline\'s tests ended (exit %d) without its '
                               'records (%s)' % (k, code, os.path.join(outdir, 'worker-%d.log' % k)))
        records += doc['records']
        ok = ok and doc['ok']
    return records, ok


def run(outdir):
    os.makedirs(outdir, exist_ok=True)
    suite = unittest.defaultTestLoader.discover(HERE, pattern='test_*.py', top_level_dir=ci.TOP)
    total = suite.countTestCases()
    n = min(jobs(), total or 1)
    if n > 1:
        # The last run's durations deal the cases out: read before the
        # discard below.
        records, ok = run_parallel(outdir, suite, total, n)
    # No earlier run's results may stand for this one's (make test reads them).
    resultsfile.discard(outdir)
    if n == 1:
        with open(os.path.join(outdir, 'unittest.log'), 'w') as log:
            runner = Runner(stream=log, verbosity=2)
            # To this process's stdout as it is now: a case that redirects
            # sys.stdout for a while never reads a progress line as its own.
            # Under make test, the run's elapsed time (runlog.RUN_STARTED).
            say = runlog.Say(stream=sys.stdout)
            with runlog.heartbeat(say, 'pipeline', lambda: runner.progress(total)):
                result = runner.run(suite)
        records, ok = result.records, result.wasSuccessful()
    tests = [TestResult.of(r) for r in records]
    c = counts(tests)
    code = ExitCode.FAIL if c['failed'] or not tests or not ok else ExitCode.PASS
    for t in tests:
        if t.failed:
            print('nsfd: pipeline: FAIL %s.%s: %s' % (t.suite, t.name, t.reason))
    print('nsfd: pipeline: %d passed, %d failed, %d skipped (log: %s)' % (
        c['passed'], c['failed'], c['skipped'], os.path.join(outdir, 'unittest.log')),
        flush=True)
    resultsfile.write(outdir, {'arch': 'host', 'variant': 'pipeline', 'exit_code': int(code),
                               'summary': c, 'tests': [t.to_dict() for t in tests]},
                      ['unittest.log'])
    return code


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
