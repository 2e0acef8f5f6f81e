"""Boots that never reach their tests: a verdict on the kernel (exit 1, a
failed boot result, bad in a bisection), never an environment error,
unless QEMU itself never started a kernel (2). The real stages and
report through the fault suite's fake world (test_faults.World), and the
decisions of ci/results/boots.py on their own."""

import os
import shutil
import tempfile
import time
import unittest
from unittest import mock

from ci.bisect import judge
from ci.results import boots
from ci.tests import test_faults

PANIC = '[    0.010000] Kernel panic - not syncing: early-boot drill'


class BootVerdicts(unittest.TestCase):
    def test_a_boot_that_reached_its_tests_passes(self):
        self.assertEqual(boots.verdict({'kind': 'guest', 'end': 'ok'}, 'nsfd-init: kernel x\n'),
                         ('pass', ''))
        self.assertEqual(boots.verdict({'kind': 'kunit', 'end': 'ok'},
                                       '[    1.0] KTAP version 1\n'), ('pass', ''))

    def test_a_kernel_that_panics_after_its_banner_fails_with_the_console_tail(self):
        status, why = boots.verdict({'kind': 'guest', 'end': 'ok', 'rc': 0},
                                    'Linux version 6.12\n' + PANIC + '\n')
        self.assertEqual(status, 'fail')
        self.assertIn('died after its banner', why)
        self.assertIn('early-boot drill', why)

    def test_a_kernel_that_prints_nothing_and_ends_fails_before_its_banner(self):
        status, why = boots.verdict({'kind': 'kunit', 'end': 'ok', 'rc': 1}, '')
        self.assertEqual(status, 'fail')
        self.assertIn('before its banner', why)
        self.assertIn('(the console is empty)', why)

    def test_a_hang_names_the_allowance(self):
        status, why = boots.verdict({'kind': 'guest', 'end': 'hang', 'allowance': 120}, '')
        self.assertEqual(status, 'fail')
        self.assertIn('within the boot allowance (120 s)', why)

    def test_qemu_that_never_started_a_kernel_gives_no_verdict(self):
        text = 'qemu-system-x86_64: failed to initialize kvm: No such file or directory\n'
        for end in ('ok', 'qemu-error'):
            self.assertEqual(boots.verdict({'kind': 'guest', 'end': end}, text)[0], None, end)
        for end in ('qemu-error', 'killed', 'not-run'):
            self.assertEqual(boots.verdict({'kind': 'guest', 'end': end}, '')[0], None, end)

    def test_a_qemu_message_after_the_banner_is_the_kernels_boot(self):
        text = 'Linux version 6.12\nqemu-system-x86_64: terminating on signal 15\n'
        self.assertEqual(boots.verdict({'kind': 'guest', 'end': 'ok'}, text)[0], 'fail')

    def test_progress_counts_results_on_the_console_and_on_the_channel(self):
        text = ('ktap 3.9 | KTAP version 1\nktap 4.1 |   ok 1 link.moved\n'
                'ktap 4.2 |   not ok 2 link.gone\nktap 4.3 | ok 1 selftests: nsfd: x\n'
                '    ok 3 proc_ns_uts\n[    1.0] ok 4 not a result\n# ok 5 a comment\n')
        self.assertEqual(len(boots.RESULT.findall(text)), 4)

    def test_boot_names(self):
        self.assertEqual([boots.name_of(c) for c in (
            'console-kunit.log', 'console-kselftest.log', 'console-kselftest-2.log')],
            ['kunit', 'guest-1', 'guest-2'])


class BootFaults(unittest.TestCase):
    """Through the real stages: a kernel that dies or hangs early."""

    def setUp(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.world = test_faults.World(tmp)
        self.addCleanup(self.world.stream.close)

    def boot_results(self):
        doc = self.world.results()
        return doc, {t['name']: t for t in doc['tests'] if t['source'] == 'boot'}

    def test_every_boot_of_a_good_kernel_passes_its_boot(self):
        self.assertEqual(self.world.go(), 0)
        doc, found = self.boot_results()
        self.assertEqual({n: t['status'] for n, t in found.items()},
                         {'kunit': 'pass', 'guest-1': 'pass'})

    def test_a_kernel_that_panics_before_its_console_is_1_with_a_failed_boot(self):
        rc = self.world.go(FAKE_QEMU='early-panic', FAKE_KUNIT_EXEC='early-panic')
        self.assertEqual(rc, 1, self.world.progress())
        doc, found = self.boot_results()
        # Judged once, by KUnit's boot: the guests of the same kernel are
        # not booted, their boot results say why.
        self.assertEqual({n: t['status'] for n, t in found.items()},
                         {'kunit': 'fail', 'guest-1': 'skip'})
        self.assertIn('early-boot drill', found['kunit']['reason'])
        self.assertIn('not run: the kernel did not boot', found['guest-1']['reason'])
        self.assertEqual(doc['identity_errors'], [])
        self.assertTrue(doc['judged']['proven'])
        # The failed boot is the verdict: no "no KTAP" or "did not run" on top.
        others = [t for t in doc['tests'] if t['status'] == 'fail' and
                  t['source'] not in ('boot', 'console')]
        self.assertEqual(others, [])
        with open(os.path.join(self.world.variant.out, 'junit.xml')) as f:
            self.assertIn('early-boot drill', f.read())
        with open(os.path.join(self.world.variant.out, 'kcidb.json')) as f:
            self.assertIn('"boot.guest-1"', f.read().replace('_', '-'))

    def test_a_kernel_that_does_not_boot_is_judged_once_its_guests_not_built_or_booted(self):
        rc = self.world.go(FAKE_KUNIT_EXEC='early-panic', NSFD_GUESTS='2')
        self.assertEqual(rc, 1, self.world.progress())
        stages = self.world.stages()
        self.assertEqual(stages['selftests'], ('skipped', 'not built: the kernel did not boot'))
        self.assertEqual(stages['guest'][0], 'skipped')
        out = self.world.variant.out
        self.assertFalse([f for f in os.listdir(out) if f.startswith('console-kselftest')
                          and f.endswith('.log')], 'no guest was booted')
        _, found = self.boot_results()
        self.assertEqual({n: t['status'] for n, t in found.items()},
                         {'kunit': 'fail', 'guest-1': 'skip', 'guest-2': 'skip'})

    def test_a_kernel_that_crashes_in_a_kunit_case_still_boots_its_guests(self):
        rc = self.world.go(FAKE_KUNIT_EXEC='crash')
        self.assertEqual(rc, 1, self.world.progress())
        _, found = self.boot_results()
        self.assertEqual({n: t['status'] for n, t in found.items()},
                         {'kunit': 'pass', 'guest-1': 'pass'})
        self.assertEqual(self.world.stages()['guest'][0], 'ok')

    def test_a_guest_whose_kernel_panics_before_its_console_is_a_failed_boot(self):
        rc = self.world.go(FAKE_QEMU='early-panic')
        self.assertEqual(rc, 1, self.world.progress())
        _, found = self.boot_results()
        self.assertEqual({n: t['status'] for n, t in found.items()},
                         {'kunit': 'pass', 'guest-1': 'fail'})
        self.assertIn('early-boot drill', found['guest-1']['reason'])

    def test_a_kernel_that_dies_before_its_banner_is_1_not_an_identity_error(self):
        rc = self.world.go(FAKE_QEMU='silent-death')
        self.assertEqual(rc, 1, self.world.progress())
        doc, found = self.boot_results()
        self.assertEqual(found['guest-1']['status'], 'fail')
        self.assertIn('before its banner', found['guest-1']['reason'])
        self.assertEqual(found['kunit']['status'], 'pass')
        self.assertEqual(doc['identity_errors'], [])

    def test_a_kernel_that_hangs_before_its_init_ends_within_the_boot_allowance(self):
        limit = 3600
        start = time.monotonic()
        with mock.patch('ci.pipeline.decide.boot_allowance', lambda debug: 1):
            rc = self.world.go(FAKE_QEMU='early-hang', NSFD_BOOT_TIMEOUT=str(limit))
        self.assertLess(time.monotonic() - start, limit / 2)
        self.assertEqual(rc, 1, self.world.progress())
        doc, found = self.boot_results()
        self.assertEqual(found['guest-1']['status'], 'fail')
        self.assertIn('hung after its banner', found['guest-1']['reason'])
        self.assertEqual(self.world.stages()['guest'][0], 'fail')

    def test_a_kunit_boot_that_hangs_ends_within_the_boot_allowance(self):
        start = time.monotonic()
        with mock.patch('ci.pipeline.decide.boot_allowance', lambda debug: 1):
            rc = self.world.go(FAKE_KUNIT_EXEC='early-hang')
        self.assertLess(time.monotonic() - start, 300 / 2)
        self.assertEqual(rc, 1, self.world.progress())
        _, found = self.boot_results()
        self.assertEqual(found['kunit']['status'], 'fail')
        self.assertIn('a failed boot', self.world.stages()['kunit'][1])

    def test_qemu_that_will_not_start_gives_no_boot_result_and_is_2(self):
        rc = self.world.go(FAKE_QEMU='refuse')
        self.assertEqual(rc, 2)
        _, found = self.boot_results()
        self.assertNotIn('guest-1', found)


class BisectOnABootFailure(unittest.TestCase):
    """make bisect's judge: a kernel that does not boot is bad when the
    regression is the boot; with TEST=RE naming other tests, a skip."""

    def results(self, tests):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, 'results.json')
        with open(path, 'w') as f:
            import json
            json.dump({'tests': tests, 'exit_code': 1, 'summary': {}, 'files': {}}, f)
        return path

    def test_does_not_boot_is_bad_and_a_skip_for_another_test(self):
        bad = self.results([{'source': 'boot', 'suite': 'boot', 'name': 'guest-1',
                             'status': 'fail', 'reason': 'died'}])
        self.assertEqual(judge.judge(1, bad, '', [])[0], 'bad')
        self.assertEqual(judge.judge(1, bad, 'socketat', ['nsfd:socketat_test x'])[0],
                         'skip')


if __name__ == '__main__':
    unittest.main()
