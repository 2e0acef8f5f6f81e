"""The result model (ci/results/model.py), the pure judge
(ci/results/judge.py) without a file, and the one atomic writer."""

import errno
import glob
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

import ci
from ci.results import atomic, judge, resultsfile
from ci.results.model import (ExitCode, StageResult, StageStatus, TestResult, TestStatus,
                              exit_of, failed, verdict)


def stages(*statuses):
    return [StageResult('s%d' % i, s, 1.0) for i, s in enumerate(statuses)]


PASS = TestResult('kunit', 's', 'n', 'pass')


class Codes(unittest.TestCase):
    def test_the_four_codes_and_their_precedence(self):
        self.assertEqual([int(c) for c in ExitCode], [0, 1, 2, 125])
        self.assertEqual(verdict([0, 125, 2, 1]), ExitCode.FAIL)
        self.assertEqual(verdict([0, 125, 2]), ExitCode.ENVIRONMENT)
        self.assertEqual(verdict([0, 125]), ExitCode.NOT_BUILT)
        self.assertEqual(verdict([0, 0]), ExitCode.PASS)
        self.assertEqual(verdict([]), ExitCode.ENVIRONMENT, 'nothing judged')
        self.assertEqual(verdict([0, 137]), ExitCode.ENVIRONMENT)

    def test_a_status_outside_the_four_is_2_with_its_cause(self):
        self.assertEqual(exit_of(125), (ExitCode.NOT_BUILT, None))
        self.assertEqual(exit_of(137), (ExitCode.ENVIRONMENT,
                                        'killed by SIGKILL (exit 137): not a verdict'))
        self.assertEqual(exit_of(-15)[1], 'killed by SIGTERM (exit 143): not a verdict')
        self.assertEqual(exit_of(3), (ExitCode.ENVIRONMENT,
                                      'exit 3 is none of 0, 1, 2, 125: not a verdict'))

    def test_an_unknown_stage_status_is_an_environment_error_not_a_failure(self):
        s = StageResult('kunit', 'exploded', 1.0, 'x')
        self.assertEqual(s.status, StageStatus.ENV_ERROR)
        self.assertIn("unknown stage status 'exploded'", s.detail)
        self.assertEqual(judge.exit_code([s], [PASS]), ExitCode.ENVIRONMENT)

    def test_an_unknown_test_status_is_refused(self):
        with self.assertRaises(ValueError):
            TestResult('kunit', 's', 'n', 'passed-ish')

    def test_a_test_result_round_trips_with_what_its_source_adds(self):
        d = {'source': 'kunit', 'suite': 's', 'name': 'n', 'status': 'skip',
             'duration': 0.5, 'reason': 'why', 'how': 'module'}
        self.assertEqual(TestResult.of(d).to_dict(), d)
        self.assertEqual(TestResult.of(d).status, TestStatus.SKIP)


class PureJudge(unittest.TestCase):
    """judge.py decides on the model alone: no file is read."""

    def test_a_failure_wins_over_a_build_failure_and_an_environment_error(self):
        v = judge.verdict(stages('ok', 'build-failed', 'env-error'),
                          [PASS, failed('kunit', 's', 'm', 'Expected 1 == 2')], {}, 'x86_64')
        self.assertEqual(v.code, ExitCode.FAIL)
        self.assertEqual(v.reasons[0], 'nsfd: x86_64: s1 did not build (see the output above)')

    def test_a_boot_of_another_kernel_drops_every_result_and_is_2(self):
        v = judge.verdict(stages('ok', 'ok'), [failed('kunit', 's', 'm', 'x')], {}, 'x86_64',
                          [('console-kunit.log', 'booted #8, built #7')])
        self.assertEqual((v.code, v.tests), (ExitCode.ENVIRONMENT, ()))
        self.assertEqual(v.reasons[-1], 'nsfd: x86_64: identity: console-kunit.log: booted #8, '
                                        'built #7')

    def test_patched_mode_fails_a_suite_that_did_not_run_and_a_socketat_enosys_skip(self):
        skip = TestResult('kselftest', 'nsfd:socketat_test', 'a', 'skip', None,
                          'socketat not implemented (ENOSYS)')
        with mock.patch('builtins.open', side_effect=AssertionError('judge read a file')):
            tests, more = judge.patched_checks(
                [PASS, skip], {'kunit': StageResult('kunit', 'ok'),
                               'guest': StageResult('guest', 'ok')},
                lambda: ['s', 'socketat'], lambda: ['socketat_test'])
        self.assertEqual([t.status for t in tests], ['pass', 'fail'])
        self.assertEqual([t.name for t in more], ['expected.kunit.socketat'])


class AtomicWriter(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(self):
        path = os.path.join(self.tmp, 'junit.xml')
        atomic.write_text(path, 'old\n')
        with mock.patch('os.fsync', side_effect=OSError(errno.ENOSPC, 'full')):
            with self.assertRaises(OSError):
                atomic.write_text(path, 'new\n')
        self.assertEqual(open(path).read(), 'old\n')
        self.assertEqual(os.listdir(self.tmp), ['junit.xml'])

    def test_a_writer_killed_after_results_json_leaves_none_behind(self):
        # report.py or the robot's judge SIGKILLed just after results.json:
        # the run is 2, and no results.json may say 0 or 1.
        resultsfile.write(self.tmp, {'exit_code': 0, 'summary': {}}, [])
        self.assertEqual(resultsfile.writer_exit(1, self.tmp), (ExitCode.FAIL, None))
        self.assertTrue(os.path.exists(os.path.join(self.tmp, 'results.json')))
        code, cause = resultsfile.writer_exit(137, self.tmp)
        self.assertEqual((code, cause), (ExitCode.ENVIRONMENT,
                                         'killed by SIGKILL (exit 137): not a verdict'))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, 'results.json')))

    def test_results_json_names_its_siblings_and_a_reader_checks_them(self):
        atomic.write_text(os.path.join(self.tmp, 'junit.xml'), '<x/>\n')
        resultsfile.write(self.tmp, {'exit_code': 0, 'summary': {}}, ['junit.xml'])
        doc, why = resultsfile.load(self.tmp)
        self.assertIsNone(why)
        self.assertEqual(list(doc['files']), ['junit.xml'])
        atomic.write_text(os.path.join(self.tmp, 'junit.xml'), '<y/>\n')
        self.assertIn('junit.xml is not the file written with results.json',
                      resultsfile.load(self.tmp)[1])
        os.unlink(os.path.join(self.tmp, 'junit.xml'))
        self.assertIn('without its sibling junit.xml', resultsfile.load(self.tmp)[1])


# Programs that stand in for another and exit with its status, whatever it
# is: qemu_status.py is QEMU on kunit.py's PATH (its arguments are QEMU's,
# its exit QEMU's own, which kunit.py reads).
STAND_INS = ('ci/pipeline/qemu_status.py',)


def entry_points():
    """ci.X of every module of ci/ that runs as a program (its tests and
    the STAND_INS aside)."""
    out = []
    for path in sorted(glob.glob(os.path.join(ci.TOP, 'ci', '**', '*.py'), recursive=True)):
        rel = os.path.relpath(path, ci.TOP)
        if rel.startswith('ci/tests/test_') or rel in STAND_INS:
            continue
        with open(path) as f:
            if "if __name__ == '__main__':" in f.read():
                out.append(rel[:-len('.py')].replace('/', '.'))
    return out


class EntryPoints(unittest.TestCase):
    def test_every_entry_point_exits_through_args_run(self):
        # ci/args.py's run(): an uncaught exception or a status that is
        # none of the four codes is 2 with its cause, never Python's 1.
        for module in entry_points():
            with self.subTest(module=module):
                with open(os.path.join(ci.TOP, module.replace('.', '/') + '.py')) as f:
                    block = f.read().split("if __name__ == '__main__':", 1)[1]
                self.assertRegex(block, r'^\s*sys\.exit\(\w+\.run\(')

    def test_every_entry_point_has_help_and_refuses_an_unknown_option(self):
        self.assertGreaterEqual(len(entry_points()), 20)
        for module in entry_points():
            with self.subTest(module=module):
                ok = subprocess.run(ci.command(module, '--help'), capture_output=True, text=True)
                self.assertEqual(ok.returncode, 0, ok.stderr)
                self.assertIn('usage:', ok.stdout.lower())
                bad = subprocess.run(ci.command(module, '--no-such-option'),
                                     capture_output=True, text=True)
                self.assertEqual(bad.returncode, 2, bad.stdout + bad.stderr)

    def test_an_entry_point_that_raises_is_2_not_1(self):
        # On 742e786 console.py on a log that is not there exited 1 (Python's
        # own exit for an uncaught exception: "a test failed").
        run = subprocess.run(ci.command('ci.results.console', '/nonexistent/console.log'),
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertIn('an uncaught FileNotFoundError (traceback above)', run.stderr)


if __name__ == '__main__':
    unittest.main()
