"""Tests of the pipeline's own pieces, on recorded logs; no kernel needed.

KTAP into results (nesting, every status, durations, truncation), the
contract files, console scanning, and the exit-code mapping.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
sys.path.insert(0, CI)

import console  # noqa: E402
import ktap  # noqa: E402
import report  # noqa: E402


def fixture(name):
    with open(os.path.join(HERE, 'fixtures', name)) as f:
        return f.read()


def by_name(results):
    return {(r['suite'], r['name']): r for r in results}


class KunitKtap(unittest.TestCase):
    def setUp(self):
        self.lines = ktap.extract(fixture('kunit-nested.log'), 'kunit')
        self.res = by_name(ktap.results(self.lines, 'kunit'))

    def test_extract_drops_kernel_messages_and_timestamps(self):
        texts = [t for _, t in self.lines]
        self.assertEqual(texts[0], 'KTAP version 1')
        self.assertNotIn('random: crng init done', texts)
        self.assertNotIn('reboot: Restarting system', texts)
        self.assertIn('        ok 1 net', texts)

    def test_parameterised_cases_are_leaves_under_their_case(self):
        self.assertEqual(self.res[('ns_ops', 'name_and_type.net')]['status'], 'pass')
        self.assertEqual(self.res[('ns_ops', 'name_and_type.uts')]['status'], 'fail')
        skip = self.res[('ns_ops', 'name_and_type.time')]
        self.assertEqual(skip['status'], 'skip')
        self.assertEqual(skip['reason'], 'CONFIG_TIME_NS is not set')

    def test_every_leaf_is_reported_once(self):
        self.assertEqual(sorted(self.res), sorted([
            ('ns_ops', 'name_and_type.net'), ('ns_ops', 'name_and_type.uts'),
            ('ns_ops', 'name_and_type.time'), ('ns_ops', 'get_put_balanced'),
            ('ns_ops', 'needs_socketat'), ('nsfs', 'same_inode_twice')]))

    def test_failure_takes_its_reason_from_the_diagnostics(self):
        self.assertEqual(self.res[('ns_ops', 'name_and_type.uts')]['reason'],
                         'name_and_type: EXPECTATION FAILED at kernel/ns_ops_kunit.c:60')

    def test_real_kunit_console_parses(self):
        lines = ktap.extract(fixture('real-kunit-x86_64.log'), 'kunit')
        res = ktap.results(lines, 'kunit')
        self.assertGreater(len(res), 20)
        self.assertEqual({r['status'] for r in res}, {'pass'})
        self.assertIn(('nsproxy_setns', 'install_switches_only_that_namespace.mnt'),
                      by_name(res))

    def test_skip_keeps_its_reason(self):
        self.assertEqual(self.res[('ns_ops', 'needs_socketat')]['reason'],
                         'socketat not implemented (ENOSYS)')

    def test_duration_is_time_since_previous_result(self):
        self.assertAlmostEqual(self.res[('ns_ops', 'name_and_type.uts')]['duration'], 0.05)
        self.assertAlmostEqual(self.res[('nsfs', 'same_inode_twice')]['duration'], 0.2, places=5)

    def test_counts(self):
        c = report.counts(list(self.res.values()))
        self.assertEqual(c, {'passed': 3, 'failed': 1, 'skipped': 2})


class GuestKtap(unittest.TestCase):
    def setUp(self):
        self.lines, self.ended = ktap.extract(fixture('guest-pass.log'), 'guest')
        self.res = by_name(report.kselftest_name(r) for r in ktap.results(self.lines, 'kselftest'))

    def test_markers_and_prefix(self):
        self.assertTrue(self.ended)
        self.assertEqual(self.lines[0][1], 'KTAP version 1')
        self.assertEqual(self.lines[-1][1], 'not ok 2 selftests: nsfd: socketat_test # exit=1')

    def test_harness_tests_nest_under_their_binary(self):
        self.assertEqual(self.res[('nsfd:proc_ns_test', 'global.entries_open')]['status'], 'pass')
        self.assertEqual(self.res[('nsfd:socketat_test', 'socketat.ebadf_closed_fd')]['status'],
                         'fail')

    def test_skip_and_xfail(self):
        skip = self.res[('nsfd:proc_ns_test', 'global.time_entries')]
        self.assertEqual((skip['status'], skip['reason']), ('skip', 'CONFIG_TIME_NS is not set'))
        todo = self.res[('nsfd:proc_ns_test', 'global.known_bug')]
        self.assertEqual(todo['status'], 'todo')

    def test_failed_binary_with_a_failed_test_is_not_counted_twice(self):
        fails = [k for k, r in self.res.items() if r['status'] == 'fail']
        self.assertEqual(fails, [('nsfd:socketat_test', 'socketat.ebadf_closed_fd')])

    def test_binary_that_fails_after_passing_tests_is_a_failure(self):
        lines, _ = ktap.extract(fixture('guest-crash-after-tests.log'), 'guest')
        res = ktap.results(lines, 'kselftest')
        self.assertIn('fail', [r['status'] for r in res])
        self.assertIn('killed by signal 11', [r['reason'] for r in res if r['status'] == 'fail'])


class Truncation(unittest.TestCase):
    def test_kunit_crash_mid_suite_fails(self):
        res = ktap.results(ktap.extract(fixture('kunit-truncated.log'), 'kunit'), 'kunit')
        statuses = [r['status'] for r in res]
        self.assertIn('pass', statuses)
        self.assertIn('fail', statuses)
        self.assertTrue(any('truncated' in r['reason'] for r in res))

    def test_guest_cut_short_fails(self):
        lines, ended = ktap.extract(fixture('guest-cut.log'), 'guest')
        self.assertFalse(ended)
        res = ktap.results(lines, 'kselftest')
        self.assertTrue(any(r['status'] == 'fail' and 'truncated' in r['reason'] for r in res))

    def test_plan_not_met_between_tests_fails(self):
        lines = [(None, 'KTAP version 1'), (None, '1..3'), (None, 'ok 1 a'), (None, 'ok 2 b')]
        res = ktap.results(lines, 'kunit')
        self.assertEqual([r['status'] for r in res], ['pass', 'pass', 'fail'])
        self.assertEqual(res[-1]['reason'], 'plan 1..3 but 2 results: KTAP stream truncated')

    def test_empty_stream_has_no_results(self):
        self.assertEqual(ktap.results([], 'kunit'), [])


class ConsoleScan(unittest.TestCase):
    def test_every_report_kind_is_found(self):
        kinds = [k for _, k, _ in console.findings(fixture('reports.log'))]
        for kind in ('kasan', 'warning', 'refcount', 'lockdep', 'kmemleak', 'hung-task',
                     'oops', 'panic', 'debug-objects', 'list-corruption', 'bug'):
            self.assertIn(kind, kinds)
        self.assertEqual(len(kinds), 12)

    def test_clean_debug_boot_has_no_findings(self):
        self.assertEqual(console.findings(fixture('clean-debug-boot.log')), [])

    def test_recorded_debug_guest_is_clean_and_complete(self):
        log = fixture('real-debug-guest.log')
        self.assertEqual(console.findings(log), [])
        lines, ended = ktap.extract(log, 'guest')
        self.assertTrue(ended)
        self.assertTrue(ktap.results(lines, 'kselftest'))


class ExitCodes(unittest.TestCase):
    ok = {'source': 'kunit', 'suite': 's', 'name': 'n', 'status': 'pass',
          'duration': 0, 'reason': ''}

    def st(self, *statuses):
        return [{'stage': 's%d' % i, 'status': s, 'seconds': 0, 'detail': ''}
                for i, s in enumerate(statuses)]

    def test_mapping(self):
        fail = dict(self.ok, status='fail')
        self.assertEqual(report.exit_code(self.st('ok', 'ok'), [self.ok]), 0)
        self.assertEqual(report.exit_code(self.st('ok', 'skipped'), [self.ok]), 0)
        self.assertEqual(report.exit_code(self.st('ok'), [self.ok, fail]), 1)
        self.assertEqual(report.exit_code(self.st('ok', 'timeout'), [self.ok]), 1)
        self.assertEqual(report.exit_code(self.st('ok', 'fail'), [self.ok]), 1)
        self.assertEqual(report.exit_code(self.st('ok', 'build-failed'), [fail]), 125)
        self.assertEqual(report.exit_code(self.st('env-error', 'build-failed'), []), 2)

    def test_summary_takes_the_gravest_code(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        paths = []
        for i, code in enumerate((0, 1, 125)):
            p = os.path.join(tmp, '%d.json' % i)
            with open(p, 'w') as f:
                json.dump({'variant': 'v%d' % i, 'exit_code': code,
                           'summary': {'passed': 2, 'failed': code and 1, 'skipped': 1}}, f)
            paths.append(p)
        out = subprocess.run([sys.executable, os.path.join(CI, 'report.py'), 'summary'] + paths,
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 125)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 6 passed, 2 failed, 3 skipped')
        out = subprocess.run([sys.executable, os.path.join(CI, 'report.py'), 'summary',
                              paths[0], paths[1]], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)


class VariantReport(unittest.TestCase):
    """report.py variant on a recorded run: the contract's files and exit code."""

    def run_report(self, stages, logs):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'stages.tsv'), 'w') as f:
            for name, status in stages:
                f.write('%s\t%s\t1.5\t\n' % (name, status))
        for dest, src in logs.items():
            shutil.copy(os.path.join(HERE, 'fixtures', src), os.path.join(tmp, dest))
        out = subprocess.run([sys.executable, os.path.join(CI, 'report.py'), 'variant', tmp,
                              '--arch', 'x86_64', '--variant', 'x86_64',
                              '--kernel-version', '6.12.118', '--patch', '0001-a.patch=abc'],
                             capture_output=True, text=True)
        return tmp, out

    def test_failed_test_gives_exit_1_and_all_files(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'fail'), ('guest', 'ok')],
                                   {'console-kunit.log': 'kunit-nested.log',
                                    'console-kselftest.log': 'guest-pass.log'})
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        for name in ('kunit.ktap', 'kselftest.ktap', 'results.json', 'junit.xml',
                     'timings.json'):
            self.assertTrue(os.path.exists(os.path.join(tmp, name)), name)
        with open(os.path.join(tmp, 'results.json')) as f:
            doc = json.load(f)
        self.assertEqual(doc['kernel']['version'], '6.12.118')
        self.assertEqual(doc['kernel']['series'], [{'patch': '0001-a.patch', 'patch_id': 'abc'}])
        self.assertEqual(doc['summary'], {'passed': 4, 'failed': 2, 'skipped': 4})
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 4 passed, 2 failed, 4 skipped')
        junit = ET.parse(os.path.join(tmp, 'junit.xml')).getroot()
        self.assertEqual(junit.get('tests'), '10')
        self.assertEqual(junit.get('failures'), '2')
        self.assertEqual(len(junit.findall('.//testcase/failure')), 2)
        with open(os.path.join(tmp, 'timings.json')) as f:
            self.assertEqual(json.load(f)['kernel'], 1.5)

    def test_kernel_report_in_console_fails_a_passing_run(self):
        tmp, out = self.run_report([('kunit', 'ok')], {'console-kunit.log': 'kunit-nested.log',
                                                      'console-extra.log': 'reports.log'})
        self.assertEqual(out.returncode, 1)
        self.assertIn('KASAN', out.stdout)

    def test_no_ktap_is_a_failure_not_a_pass(self):
        tmp, out = self.run_report([('kunit', 'ok')], {'console-kunit.log': 'clean-debug-boot.log'})
        self.assertEqual(out.returncode, 1)
        self.assertIn('no KTAP', out.stdout)

    def test_guest_timeout_fails(self):
        tmp, out = self.run_report([('guest', 'timeout')],
                                   {'console-kselftest.log': 'guest-cut.log'})
        self.assertEqual(out.returncode, 1)

    def test_build_failure_gives_125(self):
        tmp, out = self.run_report([('tree', 'ok'), ('kernel', 'build-failed')], {})
        self.assertEqual(out.returncode, 125)
        self.assertTrue(out.stdout.splitlines()[-1].startswith('nsfd: '))


if __name__ == '__main__':
    unittest.main()
