#!/usr/bin/env python3
"""Run the pipeline's own tests and record them as a variant of the run.

usage: python3 -m ci.tests.run OUTDIR   (make check)
Writes OUTDIR/unittest.log, then OUTDIR/results.json in the contract's
schema (variant "pipeline", naming unittest.log as written with it:
ci/results/resultsfile.py), prints each failure and the summary line;
exit 0 or 1, or 2 when the tests could not be run or recorded (a full
disk: nothing was judged).
"""

import argparse
import os
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


def run(outdir):
    os.makedirs(outdir, exist_ok=True)
    # No earlier run's results may stand for this one's (make test reads them).
    resultsfile.discard(outdir)
    suite = unittest.defaultTestLoader.discover(HERE, pattern='test_*.py', top_level_dir=ci.TOP)
    total = suite.countTestCases()
    with open(os.path.join(outdir, 'unittest.log'), 'w') as log:
        runner = Runner(stream=log, verbosity=2)
        # To this process's stdout as it is now: a case that redirects
        # sys.stdout for a while never reads a progress line as its own.
        # Under make test, the run's elapsed time (runlog.RUN_STARTED).
        say = runlog.Say(stream=sys.stdout)
        with runlog.heartbeat(say, 'pipeline', lambda: runner.progress(total)):
            result = runner.run(suite)
    tests = result.records
    c = counts(tests)
    code = ExitCode.FAIL if c['failed'] or not tests or not result.wasSuccessful() \
        else ExitCode.PASS
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
