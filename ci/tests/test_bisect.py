"""make bisect's decisions: what a step's run makes of it (ci/bisect/judge.py)."""

import json
import os
import subprocess
import tempfile
import unittest

import ci
from ci.bisect import judge

REGRESSION = 'ns_ops ns_entry_install_takes_the_target.uts'
OTHER = 'nsfd:setns_test ns.uts.wrong_type_is_einval'


class Steps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def results(self, name, tests):
        """A results.json holding TESTS: {"suite name": status}."""
        path = os.path.join(self.tmp.name, name + '.json')
        with open(path, 'w') as f:
            json.dump({'tests': [{'suite': k.split(' ', 1)[0],
                                  'name': k.split(' ', 1)[1], 'status': v}
                                 for k, v in tests.items()]}, f)
        return path

    def verdict(self, code, tests, pattern='', decide=(REGRESSION,)):
        return judge.judge(code, self.results('step', tests), pattern, list(decide))[0]


class Judge(Steps):
    def test_deciding_test_failing_is_bad(self):
        self.assertEqual(self.verdict(1, {REGRESSION: 'fail'}), 'bad')

    def test_a_results_json_without_its_siblings_aborts(self):
        # A step's results.json is taken only with the files written with
        # it: without them the step judged nothing (abort), never bad.
        d = os.path.join(self.tmp.name, 'out')
        os.mkdir(d)
        results = os.path.join(d, 'results.json')
        with open(results, 'w') as f:
            json.dump({'exit_code': 1, 'summary': {}, 'files': {'junit.xml': '0' * 64},
                       'tests': [{'suite': 'nsproxy_setns', 'name': 'x', 'status': 'fail'}]}, f)
        said, lines = judge.judge(1, results, '', [REGRESSION])
        self.assertEqual(said, 'abort')
        self.assertIn('without its sibling junit.xml', lines[0])

    def test_deciding_test_passing_is_good(self):
        self.assertEqual(self.verdict(0, {REGRESSION: 'pass', OTHER: 'pass'}), 'good')

    def test_suite_that_did_not_compile_is_skip_not_good(self):
        # A KERNEL_SRC step: the suite is one skip, its cases are absent.
        self.assertEqual(self.verdict(0, {'ns_ops ns_ops': 'skip', OTHER: 'pass'}), 'skip')

    def test_deciding_test_skipped_is_skip(self):
        self.assertEqual(self.verdict(0, {REGRESSION: 'skip'}), 'skip')

    def test_crash_before_the_test_with_pattern_is_skip_not_good(self):
        tests = {'console-kunit.log oops:413': 'fail', OTHER: 'pass'}
        self.assertEqual(self.verdict(1, tests, pattern='ns_ops'), 'skip')

    def test_crash_before_the_test_without_pattern_is_bad(self):
        tests = {'console-kunit.log oops:413': 'fail'}
        self.assertEqual(self.verdict(1, tests), 'bad')

    def test_failure_outside_pattern_does_not_decide(self):
        tests = {REGRESSION: 'pass', OTHER: 'fail'}
        self.assertEqual(self.verdict(1, tests, pattern='^ns_ops '), 'good')

    def test_exit_1_without_failure_and_without_pattern_is_bad(self):
        self.assertEqual(self.verdict(1, {REGRESSION: 'pass'}), 'bad')

    def test_no_deciding_tests_judges_by_failures(self):
        self.assertEqual(self.verdict(0, {OTHER: 'pass'}, decide=()), 'good')
        self.assertEqual(self.verdict(1, {OTHER: 'fail'}, decide=()), 'bad')

    def test_exit_125_is_skip(self):
        self.assertEqual(self.verdict(125, {}), 'skip')

    def test_environment_exits_abort(self):
        for code in (2, 124, 126, 127, 137):
            self.assertEqual(self.verdict(code, {REGRESSION: 'pass'}), 'abort', code)

    def test_no_results_aborts(self):
        missing = os.path.join(self.tmp.name, 'none.json')
        self.assertEqual(judge.judge(0, missing, '', [REGRESSION])[0], 'abort')

    def test_skip_says_which_test_did_not_run(self):
        lines = judge.judge(0, self.results('s', {OTHER: 'pass'}), '', [REGRESSION])[1]
        self.assertEqual(lines, ['(did not run: %s)' % REGRESSION])


class Deciding(Steps):
    def test_flipped_tests_decide(self):
        good = self.results('good', {REGRESSION: 'pass', OTHER: 'pass'})
        bad = self.results('bad', {REGRESSION: 'fail', OTHER: 'pass',
                                   'console-kunit.log refcount:116': 'fail'})
        self.assertEqual(judge.deciding(good, bad, ''), [REGRESSION])

    def test_new_failing_test_with_pattern_must_run(self):
        good = self.results('good', {OTHER: 'pass'})
        bad = self.results('bad', {REGRESSION: 'fail'})
        self.assertEqual(judge.deciding(good, bad, 'ns_ops'), [REGRESSION])
        self.assertEqual(judge.deciding(good, bad, ''), [])

    def test_command_line_round_trip(self):
        d = self.tmp.name
        self.results('g', {REGRESSION: 'pass'})
        self.results('b', {REGRESSION: 'fail'})
        step = self.results('s', {'ns_ops ns_ops': 'skip'})
        steps = os.path.join(d, 'steps.json')
        with open(steps, 'w') as f:
            json.dump({'steps': []}, f)
        run = lambda *a: subprocess.run(ci.command('ci.bisect.judge', *a),
                                        capture_output=True, text=True, check=True).stdout
        self.assertEqual(run('deciding', steps, 'g', 'b', '', d).split('\n')[0], REGRESSION)
        out = run('judge', steps, '0', step, '').splitlines()
        self.assertEqual(out, ['skip', '(did not run: %s)' % REGRESSION])


if __name__ == '__main__':
    unittest.main()
