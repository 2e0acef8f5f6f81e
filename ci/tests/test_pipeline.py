"""Tests of the pipeline's own pieces, on recorded logs; no kernel needed.

KTAP into results (nesting, every status, durations, truncation), the
contract files, console scanning (every pattern on a recorded fixture, and
clean logs stay clean), the KTAP channel of the guest, the exit-code
precedence, and what patched mode expects to run.
"""

import contextlib
import io
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock
import xml.etree.ElementTree as ET

import ci
from ci.mutants import mutant
from ci.results import collect, console, expected, identity, judge, junit, kcidb, ktap, model
from ci.pipeline import cli, runlog
from ci.series import wiring
from ci.tests import run as tests_run
from ci.tests import waits

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
REPORT = ci.command('ci.results.report')


def fixture(name):
    with open(os.path.join(HERE, 'fixtures', name)) as f:
        return f.read()


def by_name(results):
    return {(r['suite'], r['name']): r for r in results}


BANNER = 'Linux version 6.12.118 (nsfd@test) (gcc 12.2.0) #7 PREEMPT_DYNAMIC Sun Dec  6 02:00:00 UTC 2026'
BUILD_ID = '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c'
UTS = '#7 PREEMPT_DYNAMIC Sun Dec  6 02:00:00 UTC 2026'


def prove_boots(tmp, banner=BANNER, build_id=BUILD_ID):
    """Make each console in TMP a proven boot of one kernel (see run_report)."""
    ident = {'banner': banner, 'uts_version': banner.split(') ', 2)[-1],
             'build_id': build_id, 'image': 'arch/x86/boot/bzImage', 'image_sha256': 'ab' * 32}
    with open(os.path.join(tmp, 'identity-kernel.json'), 'w') as f:
        json.dump(ident, f)
    for name in os.listdir(tmp):
        m = re.match(r'^console-(kunit|kselftest(-\d+)?)\.log$', name)
        if not m:
            continue
        with open(os.path.join(tmp, name)) as f:
            lines = f.read().splitlines()
        have = [i for i, ln in enumerate(lines) if 'Linux version ' in ln]
        for i in have:
            lines[i] = lines[i][:lines[i].index('Linux version ')] + banner
        if not have:
            lines.insert(0, '[    0.000000] ' + banner)
        if m.group(1).startswith('kselftest'):
            iid = 'feed%s' % (m.group(2) or '-1')[1:]
            lines[1:1] = ['nsfd-init: kernel build-id ' + build_id, 'nsfd-init: initramfs ' + iid]
            with open(os.path.join(tmp, 'initramfs%s.id' % (m.group(2) or '')), 'w') as f:
                f.write(iid + '\n')
        with open(os.path.join(tmp, name), 'w') as f:
            f.write('\n'.join(lines) + '\n')


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

    def test_caller_ids_and_levels_are_printk_prefixes_too(self):
        # CONFIG_PRINTK_CALLER adds [T1]/[C0]; a console may show <6>. The
        # report scan (console.py) and the KTAP extraction agree on both.
        text = fixture('kunit-nested.log')
        tagged = re.sub(r'^(\[\s*\d+\.\d+\])', r'<6>\1[    T1]', text, flags=re.M)
        self.assertNotEqual(tagged, text)
        self.assertEqual(ktap.extract(tagged, 'kunit'), self.lines)
        line = '<4>[    3.5][    T1] refcount_t: underflow; use-after-free.'
        self.assertEqual(console.findings(line)[0][1], 'refcount')

    def test_skip_keeps_its_reason(self):
        self.assertEqual(self.res[('ns_ops', 'needs_socketat')]['reason'],
                         'socketat not implemented (ENOSYS)')

    def test_duration_is_time_since_previous_result(self):
        self.assertAlmostEqual(self.res[('ns_ops', 'name_and_type.uts')]['duration'], 0.05)
        self.assertAlmostEqual(self.res[('nsfs', 'same_inode_twice')]['duration'], 0.2, places=5)

    def test_counts(self):
        c = model.counts(list(self.res.values()))
        self.assertEqual(c, {'passed': 3, 'failed': 1, 'skipped': 2})


class GuestKtap(unittest.TestCase):
    def setUp(self):
        self.lines, self.ended = ktap.extract(fixture('guest-pass.log'), 'guest')
        self.res = by_name(collect.kselftest_name(r).to_dict()
                           for r in ktap.results(self.lines, 'kselftest'))

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


class Numbering(unittest.TestCase):
    """KTAP numbers checked as kunit_parser checks them (issue 42): in
    order, one result per number, the plan met; a duplicate, a gap or a
    result past the plan is a failure naming its line."""

    def run_lines(self, *body, plan=3):
        lines = [(None, 'KTAP version 1'), (None, '1..%d' % plan)]
        return ktap.results(lines + [(None, b) for b in body], 'kunit')

    def numbering(self, res):
        return [r for r in res if r['name'].endswith('(numbering)')]

    def test_a_duplicated_result_never_stands_in_for_a_missing_one(self):
        res = self.run_lines('ok 1 a', 'ok 2 b', 'ok 2 b')
        bad = self.numbering(res)
        self.assertEqual(len(bad), 1, res)
        self.assertEqual(bad[0]['status'], 'fail')
        self.assertIn('"ok 2 b": test number 2 reported twice', bad[0]['reason'])
        # The duplicate is dropped: the plan is not met either.
        self.assertIn('plan 1..3 but 2 results', ' '.join(r['reason'] for r in res))
        self.assertEqual([r['name'] for r in res if r['status'] == 'pass'], ['a', 'b'])

    def test_a_gap_in_the_numbers_is_a_failure_naming_the_line(self):
        res = self.run_lines('ok 1 a', 'ok 3 c', 'ok 4 d', plan=4)
        bad = self.numbering(res)
        self.assertEqual(len(bad), 1, res)
        self.assertIn('"ok 3 c": expected test number 2, found 3', bad[0]['reason'])

    def test_a_result_past_the_plan_is_a_failure(self):
        res = self.run_lines('ok 1 a', 'ok 2 b', 'ok 3 c', plan=2)
        bad = self.numbering(res)
        self.assertEqual(len(bad), 1, res)
        self.assertIn('"ok 3 c": past the plan 1..2', bad[0]['reason'])

    def test_numbers_are_checked_at_every_level(self):
        res = self.run_lines('    KTAP version 1', '    # Subtest: s', '    1..2',
                             '    ok 1 x', '    ok 1 x', 'ok 1 s', plan=1)
        bad = self.numbering(res)
        self.assertEqual([(r['suite'], r['name']) for r in bad], [('s', '(numbering)')])
        self.assertEqual(kcidb.test_path(bad[0]), 'kunit.exec.s')

    def test_numbers_in_order_give_no_failure(self):
        res = self.run_lines('ok 1 a', 'not ok 2 b', 'ok 3 c # SKIP no')
        self.assertEqual(self.numbering(res), [])
        res = ktap.results(ktap.extract(fixture('real-kunit-x86_64.log'), 'kunit'), 'kunit')
        self.assertEqual(self.numbering(res), [])

    def test_a_duplicated_ok_in_the_kunit_console_is_exit_1(self):
        # A passing console whose last suite is numbered as the one before
        # it: counted against the plan alone, it would pass.
        log = fixture('real-kunit-x86_64.log').splitlines()
        top = [i for i, ln in enumerate(log) if re.search(r'\] ok \d+ \w', ln)]
        m = re.search(r'\] ok (\d+) ', log[top[-1]])
        n = int(m.group(1))
        log[top[-1]] = log[top[-1]][:m.start(1)] + str(n - 1) + log[top[-1]][m.end(1):]
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'stages.tsv'), 'w') as f:
            f.write('kunit\tok\t1.5\t\n')
        with open(os.path.join(tmp, 'console-kunit.log'), 'w') as f:
            f.write('\n'.join(log) + '\n')
        prove_boots(tmp)
        out = subprocess.run(REPORT + ['variant', tmp, '--arch', 'x86_64', '--variant', 'x86_64',
                                       '--kernel-version', '6.12.118'],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn('reported twice', out.stdout)


class ConsoleScan(unittest.TestCase):
    # fixtures/reports/<file>: the kinds it must give, exactly.
    EXPECT = {
        'arm64-paging-request.log': {'oops'},
        'bug-null-deref.log': {'bug', 'oops'},
        'bug-sleeping.log': {'bug'},
        'double-fault.log': {'double-fault', 'panic'},
        'gpf.log': {'oops', 'kasan'},
        'hard-lockup.log': {'soft-lockup'},
        'hung-task.log': {'hung-task'},
        'kasan.log': {'kasan'},
        'kernel-bug-at.log': {'kernel-bug', 'oops'},
        'kfence.log': {'kfence'},
        'kmemleak.log': {'kmemleak'},
        'kmsan.log': {'kmsan'},
        'list-corruption.log': {'list-corruption', 'kernel-bug'},
        'lockdep-circular.log': {'lockdep'},
        'lockdep-nonstatic-key.log': {'lockdep'},
        'lockdep-recursive.log': {'lockdep'},
        'netdev-leak.log': {'netdev-leak'},
        'odebug.log': {'debug-objects', 'warning'},
        'page-alloc.log': {'page-alloc'},
        'panic.log': {'panic'},
        'printk-dropped.log': {'printk-dropped'},
        'rcu-stall-detected.log': {'rcu-stall'},
        'rcu-stall-sched.log': {'rcu-stall'},
        'refcount.log': {'refcount', 'warning'},
        'riscv-kernel-bug.log': {'kernel-bug'},
        'riscv-null-deref.log': {'oops'},
        'slab-corruption.log': {'slab'},
        'slub-redzone.log': {'slab'},
        'soft-lockup.log': {'soft-lockup'},
        'split-line.log': {'kasan'},
        'stack-protector.log': {'stack-protector'},
        'ubsan.log': {'ubsan'},
        'warning.log': {'warning'},
        'workqueue-lockup.log': {'soft-lockup'},
    }

    def test_each_recorded_report_gives_its_kinds(self):
        for name, kinds in sorted(self.EXPECT.items()):
            with self.subTest(fixture=name):
                found = console.findings(fixture(os.path.join('reports', name)))
                self.assertEqual({k for _, k, _ in found}, kinds, found)

    def test_every_fixture_is_checked_and_every_kind_proven(self):
        self.assertEqual(sorted(os.listdir(os.path.join(HERE, 'fixtures', 'reports'))),
                         sorted(self.EXPECT))
        proven = set().union(*self.EXPECT.values())
        self.assertEqual(proven, {k for k, _ in console.KINDS})

    def test_robots_titles(self):
        # The lines the issue names, each alone on a printk line.
        for line, kind in [
                ('BUG: unable to handle page fault for address: ffffffffff600000', 'bug'),
                ('WARNING: CPU: 0 PID: 1 at kernel/nsproxy.c:80 free_nsproxy+0x1/0x2', 'warning'),
                ('Oops: 0002 [#1] PREEMPT SMP', 'oops'),
                ('general protection fault: 0000 [#1] SMP', 'oops'),
                ('Kernel panic - not syncing: Fatal exception', 'panic'),
                ('BUG: KASAN: use-after-free in a+0x1/0x2', 'kasan'),
                ('BUG: KFENCE: out-of-bounds read in a+0x1/0x2', 'kfence'),
                ('UBSAN: array-index-out-of-bounds in net/socket.c:10:2', 'ubsan'),
                ('refcount_t: saturated; leaking memory.', 'refcount'),
                ('WARNING: possible recursive locking detected', 'lockdep'),
                ('INFO: possible recursive locking detected', 'lockdep'),
                ('INFO: trying to register non-static key.', 'lockdep'),
                ('WARNING: suspicious RCU usage', 'lockdep'),
                ('INFO: task setns_test:99 blocked for more than 120 seconds.', 'hung-task'),
                ('INFO: rcu_sched self-detected stall on CPU', 'rcu-stall'),
                ('rcu: INFO: rcu_sched detected stalls on CPUs/tasks:', 'rcu-stall'),
                ('watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [init:1]', 'soft-lockup'),
                ('init: page allocation failure: order:0, mode:0x820(GFP_ATOMIC)', 'page-alloc'),
                ('PANIC: double fault, error_code: 0x0', 'double-fault'),
                ('Unable to handle kernel paging request at virtual address 0', 'oops'),
                ('Kernel BUG [#1]', 'kernel-bug'),
                ('kernel BUG at mm/slub.c:100!', 'kernel-bug'),
                ('Slab corruption (Tainted: G W): kmalloc-32 start=0', 'slab'),
                ('BUG kmalloc-32 (Tainted: G W): Poison overwritten', 'slab'),
                ('unreferenced object 0xffff888003c0e000 (size 32):', 'kmemleak'),
                ('ODEBUG: activate active (active state 1) object: 0 object type: work_struct',
                 'debug-objects'),
                ('list_del corruption. next->prev should be 0, but was 1', 'list-corruption'),
                ('Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: f',
                 'stack-protector')]:
            with self.subTest(line=line):
                self.assertEqual([k for _, k, _ in console.findings('[   1.000000] ' + line)],
                                 [kind])

    def test_old_mixed_log_still_fully_found(self):
        kinds = [k for _, k, _ in console.findings(fixture('reports.log'))]
        for kind in ('kasan', 'warning', 'refcount', 'lockdep', 'kmemleak', 'hung-task',
                     'oops', 'panic', 'debug-objects', 'list-corruption', 'bug'):
            self.assertIn(kind, kinds)
        self.assertEqual(len(kinds), 12)

    def test_clean_debug_boot_has_no_findings(self):
        self.assertEqual(console.findings(fixture('clean-debug-boot.log')), [])

    def test_kunit_output_and_banners_are_not_reports(self):
        # WARNING/BUG/Oops in test names, KUnit's "# Subtest" and expectation
        # lines, the guest's KTAP, and boot banners of the debug facilities.
        self.assertEqual(console.findings(fixture('clean-kunit-deliberate.log')), [])

    def test_recorded_consoles_are_clean(self):
        for name in ('real-debug-guest.log', 'real-kunit-x86_64.log', 'kunit-nested.log',
                     'guest-pass.log', 'channel-ktap.log'):
            with self.subTest(fixture=name):
                self.assertEqual(console.findings(fixture(name)), [])

    def test_recorded_debug_guest_is_clean_and_complete(self):
        log = fixture('real-debug-guest.log')
        self.assertEqual(console.findings(log), [])
        lines, ended = ktap.extract(log, 'guest')
        self.assertTrue(ended)
        self.assertTrue(ktap.results(lines, 'kselftest'))

    def test_message_inside_a_guest_line_is_caught(self):
        found = console.findings(fixture('guest-split-console.log'))
        self.assertEqual([(n, k) for n, k, _ in found], [(9, 'kasan')])


class ExitCodes(unittest.TestCase):
    ok = {'source': 'kunit', 'suite': 's', 'name': 'n', 'status': 'pass',
          'duration': 0, 'reason': ''}

    def st(self, *statuses):
        return [{'stage': 's%d' % i, 'status': s, 'seconds': 0, 'detail': ''}
                for i, s in enumerate(statuses)]

    def test_mapping(self):
        fail = dict(self.ok, status='fail')
        self.assertEqual(judge.exit_code(self.st('ok', 'ok'), [self.ok]), 0)
        self.assertEqual(judge.exit_code(self.st('ok', 'skipped'), [self.ok]), 0)
        self.assertEqual(judge.exit_code(self.st('ok'), [self.ok, fail]), 1)
        self.assertEqual(judge.exit_code(self.st('ok', 'timeout'), [self.ok]), 1)
        self.assertEqual(judge.exit_code(self.st('ok', 'fail'), [self.ok]), 1)
        self.assertEqual(judge.exit_code(self.st('ok', 'build-failed'), [self.ok]), 125)
        self.assertEqual(judge.exit_code(self.st('build-failed'), []), 125)
        self.assertEqual(judge.exit_code(self.st('env-error', 'build-failed'), []), 2)

    def test_results_writer_that_raises_is_exit_2_not_a_verdict(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'stages.tsv'), 'w') as f:
            f.write('kernel\tok\t1.0\t\n')
        os.mkdir(os.path.join(tmp, 'results.json'))   # open(..., 'w') raises
        out = subprocess.run(REPORT + ['variant', tmp, '--arch', 'x86_64', '--variant', 'x86_64'],
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 2, out.stdout + out.stderr)
        self.assertIn('IsADirectoryError', out.stderr)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')

    def test_a_failed_test_wins_over_a_later_build_failure(self):
        fail = dict(self.ok, status='fail')
        self.assertEqual(judge.exit_code(self.st('ok', 'build-failed'), [fail]), 1)
        self.assertEqual(judge.exit_code(self.st('ok', 'env-error'), [fail]), 1)
        self.assertEqual(judge.exit_code(self.st('timeout', 'build-failed'), []), 1)

    def summary(self, *codes):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        paths = []
        for i, code in enumerate(codes):
            p = os.path.join(tmp, '%d.json' % i)
            with open(p, 'w') as f:
                json.dump({'variant': 'v%d' % i, 'exit_code': code, 'files': {},
                           'not_built': ['nsfd: v%d: kernel did not build (x)' % i]
                           if code == 125 else [],
                           'summary': {'passed': 2, 'failed': int(code == 1),
                                       'skipped': 1}}, f)
            paths.append(p)
        return subprocess.run(REPORT + ['summary'] + paths, capture_output=True, text=True)

    def test_a_status_outside_the_four_codes_is_2_with_its_cause(self):
        # ci/nsfd's commands return a child's status: 137 (report.py
        # SIGKILLed) was ci/nsfd run's own exit on 742e786.
        said = []
        for rc, want in ((137, 2), (-9, 2), (255, 2), (3, 2), (0, 0), (1, 1), (125, 125)):
            with self.subTest(rc=rc):
                with contextlib.redirect_stdout(io.StringIO()):
                    self.assertEqual(cli.four_codes(said.append, 'run', rc), want)
        self.assertIn('run: killed by SIGKILL (exit 137): not a verdict: nothing was judged', said)
        self.assertEqual(len(said), 4, said)

    def test_summary_of_a_results_json_without_its_siblings_is_2(self):
        tmp, out = VariantReport.run_report(self, [('kernel', 'ok'), ('kunit', 'ok'), ('guest', 'ok')],
                                            {'console-kunit.log': 'kunit-nested.log',
                                             'console-kselftest.log': 'guest-pass.log'})
        results = os.path.join(tmp, 'results.json')
        self.assertEqual(json.load(open(results))['exit_code'], out.returncode)
        whole = subprocess.run(REPORT + ['summary', results], capture_output=True, text=True)
        self.assertEqual(whole.returncode, out.returncode, whole.stdout)
        os.unlink(os.path.join(tmp, 'junit.xml'))
        cut = subprocess.run(REPORT + ['summary', results], capture_output=True, text=True)
        self.assertEqual(cut.returncode, 2, cut.stdout)
        self.assertIn('results.json without its sibling junit.xml', cut.stdout)

    def test_summary_precedence_across_variants(self):
        out = self.summary(0, 1, 125)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 6 passed, 1 failed, 3 skipped')
        self.assertEqual(out.stdout.splitlines()[-2], 'nsfd: v2: kernel did not build (x)')
        self.assertEqual(self.summary(0, 1).returncode, 1)
        self.assertEqual(self.summary(0, 125).returncode, 125)
        self.assertEqual(self.summary(2, 125, 0).returncode, 2)
        self.assertEqual(self.summary(1, 2).returncode, 1)
        self.assertEqual(self.summary(0, 0).returncode, 0)


class VariantReport(unittest.TestCase):
    """report.py variant on a recorded run: the contract's files and exit code."""

    def run_report(self, stages, logs, args=(), files=None, proven=True):
        """report.py variant on TMP holding LOGS (fixtures) and FILES.

        proven: each console is made to prove the boot it records ran the
        kernel and initramfs built (as ci/nsfd's boots do: the banner, the
        guest init's build-id and initramfs lines, and the records they are
        matched against); False leaves the logs and records as given."""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'stages.tsv'), 'w') as f:
            for name, status in stages:
                f.write('%s\t%s\t1.5\t\n' % (name, status))
        for dest, src in logs.items():
            shutil.copy(os.path.join(HERE, 'fixtures', src), os.path.join(tmp, dest))
        if proven:
            prove_boots(tmp)
        for dest, text in (files or {}).items():
            with open(os.path.join(tmp, dest), 'w') as f:
                f.write(text)
        out = subprocess.run(REPORT + ['variant', tmp, '--arch', 'x86_64', '--variant', 'x86_64',
                                       '--kernel-version', '6.12.118', '--patch', '0001-a.patch=abc']
                             + list(args), capture_output=True, text=True)
        return tmp, out

    def results(self, tmp):
        with open(os.path.join(tmp, 'results.json')) as f:
            return json.load(f)

    def test_failed_test_gives_exit_1_and_all_files(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'fail'), ('guest', 'ok')],
                                   {'console-kunit.log': 'kunit-nested.log',
                                    'console-kselftest.log': 'guest-pass.log'})
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        for name in ('kunit.ktap', 'kselftest.ktap', 'results.json', 'junit.xml',
                     'timings.json', 'kcidb.json'):
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

    def test_junit_stays_xml_when_a_reason_holds_control_characters(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, 'junit.xml')
        reason = 'oops:\x1b[31m RIP\x00 \x7f end'
        with open(path, 'wb') as f:
            f.write(junit.render([{'source': 'console', 'suite': 'console-kunit.log\x01',
                                   'name': 'oops:12', 'status': 'fail', 'duration': None,
                                   'reason': reason}], 'nsfd x86_64', [('nsfd.banner', 'a\x1bb')]))
        root = ET.parse(path).getroot()
        self.assertEqual(root.find('.//failure').get('message'),
                         'oops:\\x1b[31m RIP\\x00 \x7f end')
        self.assertEqual(root.find('.//property').get('value'), 'a\\x1bb')

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
        tmp, out = self.run_report([('tree', 'ok'), ('kernel', 'build-failed')], {},
                                   files={'kernel.log': 'error: boom\n'})
        self.assertEqual(out.returncode, 125)
        lines = out.stdout.splitlines()
        # Not a failed test: the last line counts none; the one before names it.
        self.assertEqual(lines[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        self.assertRegex(lines[-2], r'^nsfd: x86_64: kernel did not build \(.*kernel\.log\)$')
        doc = self.results(tmp)
        self.assertEqual(doc['exit_code'], 125)
        self.assertEqual(len(doc['not_built']), 1)

    def test_failed_test_then_a_stage_that_does_not_build_gives_1(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'fail'),
                                    ('selftests', 'build-failed')],
                                   {'console-kunit.log': 'kunit-nested.log'},
                                   files={'selftests.log': 'error\n'})
        self.assertEqual(out.returncode, 1, out.stdout)
        lines = out.stdout.splitlines()
        self.assertEqual(lines[-1], 'nsfd: 3 passed, 1 failed, 2 skipped')
        self.assertTrue(lines[-2].startswith('nsfd: x86_64: kselftests did not build ('))

    def test_env_error_gives_2_and_is_not_a_failed_test(self):
        tmp, out = self.run_report([('tree', 'ok'), ('firmware', 'env-error')], {})
        self.assertEqual(out.returncode, 2)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        self.assertIn('firmware: environment error', out.stdout)

    def test_kunit_suite_that_did_not_compile_is_a_skip_with_its_reason(self):
        tsv = 'socketat\tkernel/ns_ops_kunit.c:440:9: error: implicit declaration of sys_socketat\n'
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'ok')],
                                   {'console-kunit.log': 'real-kunit-x86_64.log'},
                                   files={'kunit-skipped.tsv': tsv})
        self.assertEqual(out.returncode, 0, out.stdout)
        skip = by_name(self.results(tmp)['tests'])[('socketat', 'socketat')]
        self.assertEqual(skip['status'], 'skip')
        self.assertEqual(skip['reason'], 'does not compile on this tree: '
                         'kernel/ns_ops_kunit.c:440:9: error: implicit declaration of sys_socketat')


class SeveralGuests(unittest.TestCase):
    """ci/nsfd deals the kselftests out to guests side by side; the report
    joins them: console-kselftest.log, console-kselftest-2.log, ..."""

    run_report = VariantReport.run_report
    results = VariantReport.results

    def test_every_guests_results_are_counted_and_its_ktap_renumbered(self):
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'console-kselftest.log': 'guest-pass.log',
                                    'console-kselftest-2.log': 'guest-pass.log'})
        doc = self.results(tmp)
        self.assertEqual(doc['summary'], {'passed': 2, 'failed': 2, 'skipped': 4})
        self.assertEqual(doc['kselftest_ktap']['file'],
                         'console-kselftest.log, console-kselftest-2.log')
        with open(os.path.join(tmp, 'kselftest.ktap')) as f:
            text = f.read().splitlines()
        self.assertEqual(text[:2], ['KTAP version 1', '1..4'])
        tops = [ln.split(' #')[0] for ln in text if re.match(r'(not )?ok \d', ln)]
        self.assertEqual(tops, ['ok 1 selftests: nsfd: proc_ns_test',
                                'not ok 2 selftests: nsfd: socketat_test',
                                'ok 3 selftests: nsfd: proc_ns_test',
                                'not ok 4 selftests: nsfd: socketat_test'])

    def test_one_guest_cut_short_fails_the_run_and_is_named(self):
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'kselftest-channel.log': 'channel-ktap.log',
                                    'console-kselftest.log': 'channel-console.log',
                                    'console-kselftest-2.log': 'guest-cut.log'})
        self.assertEqual(out.returncode, 1, out.stdout)
        names = {(t['suite'], t['name']) for t in self.results(tmp)['tests']
                 if t['status'] == 'fail'}
        self.assertIn(('guest-2', 'end-marker'), names)
        self.assertNotIn(('guest-1', 'end-marker'), names)


class KtapChannel(unittest.TestCase):
    """The guest's KTAP on its own channel; the console holds kernel messages."""

    run_report = VariantReport.run_report
    results = VariantReport.results

    def test_kernel_message_during_a_test_line_splits_nothing(self):
        # The KASAN report came while setns_test printed "ok 1 ...": on the
        # channel the line is whole, on the console the report is caught.
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'kselftest-channel.log': 'channel-ktap.log',
                                    'console-kselftest.log': 'channel-console.log'})
        self.assertEqual(out.returncode, 1)
        doc = self.results(tmp)
        res = by_name(doc['tests'])
        self.assertEqual(res[('nsfd:setns_test', 'setns.wrong_type_ipc')]['status'], 'pass')
        self.assertEqual(res[('nsfd:setns_test', 'setns.wrong_type_uts')]['status'], 'pass')
        self.assertAlmostEqual(res[('nsfd:setns_test', 'setns.wrong_type_uts')]['duration'],
                               0.4, places=5)
        kasan = [t for t in doc['tests'] if t['source'] == 'console']
        self.assertEqual(len(kasan), 1)
        self.assertEqual(kasan[0]['suite'], 'console-kselftest.log')
        self.assertTrue(kasan[0]['reason'].startswith('BUG: KASAN: slab-use-after-free'))
        self.assertEqual(doc['kselftest_ktap'], {'file': 'kselftest-channel.log', 'fallback': ''})
        with open(os.path.join(tmp, 'kselftest.ktap')) as f:
            ktap_text = f.read()
        self.assertTrue(ktap_text.startswith('KTAP version 1\n1..2\n'))
        self.assertIn('  ok 1 setns.wrong_type_ipc\n', ktap_text)

    def test_console_cut_before_init_is_done_fails(self):
        # The KTAP is whole on its channel; the console stops before init's
        # last line, so a report after the cut could never be seen.
        cut = fixture('channel-console.log').split('nsfd-init: done')[0]
        self.assertNotEqual(cut, fixture('channel-console.log'))
        src = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, src)
        with open(os.path.join(src, 'cut.log'), 'w') as f:
            f.write(cut)
        # (an absolute path: run_report copies it, then proves the boot)
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'kselftest-channel.log': 'channel-ktap.log',
                                    'console-kselftest.log': os.path.join(src, 'cut.log')})
        self.assertEqual(out.returncode, 1)
        names = {(t['suite'], t['name']) for t in self.results(tmp)['tests']
                 if t['status'] == 'fail'}
        self.assertIn(('guest', 'console-end'), names)

    def test_timeout_is_a_failure_with_its_reason(self):
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'kselftest-channel.log': 'channel-ktap.log',
                                    'console-kselftest.log': 'clean-debug-boot.log'})
        self.assertEqual(out.returncode, 1)
        res = by_name(self.results(tmp)['tests'])
        loop = res[('nsfd:loop_test', '(missing)')]
        self.assertEqual(loop['status'], 'fail')
        self.assertEqual(loop['reason'], 'timeout after 240 s; '
                         'plan 1..1 but 0 results: KTAP stream truncated')

    def test_console_fallback_is_read_and_flagged(self):
        tmp, out = self.run_report([('guest', 'ok')],
                                   {'console-kselftest.log': 'guest-split-console.log'},
                                   files={'kselftest-channel.log': ''})
        doc = self.results(tmp)
        self.assertEqual(doc['kselftest_ktap']['file'], 'console-kselftest.log')
        self.assertIn('cannot open the KTAP channel /dev/hvc0', doc['kselftest_ktap']['fallback'])
        self.assertIn('note: kselftest KTAP read from console-kselftest.log', out.stdout)
        res = by_name(doc['tests'])
        # The test line the kernel cut into still counts, under its own name;
        # the KASAN report in it still fails the run.
        self.assertEqual(res[('nsfd:setns_test', 'setns.wrong_type_ipc')]['status'], 'pass')
        self.assertEqual([t['name'].split(':')[0] for t in doc['tests']
                          if t['source'] == 'console'], ['kasan'])
        self.assertEqual(out.returncode, 1)


class PatchedMode(unittest.TestCase):
    """--patched: every suite and binary must run, and socketat must exist."""

    run_report = VariantReport.run_report
    results = VariantReport.results
    sources = os.path.join(HERE, 'fixtures', 'sources')

    def test_expected_lists_from_sources(self):
        self.assertEqual(expected.kunit_suites(self.sources), ['ns_ops', 'nsfs', 'socketat'])
        self.assertEqual(expected.kselftests(self.sources),
                         ['proc_ns_test', 'socketat_test', 'setns_test'])

    def test_this_checkout_declares_its_suites(self):
        self.assertIn('socketat', expected.kunit_suites(ci.TOP))
        self.assertIn('socketat_test', expected.kselftests(ci.TOP))

    def test_missing_suite_binary_and_enosys_skip_fail(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'ok'), ('guest', 'ok')],
                                   {'console-kunit.log': 'kunit-nested.log',
                                    'console-kselftest.log': 'guest-pass.log'},
                                   args=['--patched', '--sources', self.sources])
        self.assertEqual(out.returncode, 1)
        res = by_name(self.results(tmp)['tests'])
        self.assertEqual(res[('pipeline', 'expected.kunit.socketat')]['reason'],
                         'KUnit suite socketat did not run')
        self.assertEqual(res[('pipeline', 'expected.kselftest.setns_test')]['reason'],
                         'kselftest setns_test did not run')
        self.assertNotIn(('pipeline', 'expected.kunit.ns_ops'), res)
        self.assertNotIn(('pipeline', 'expected.kselftest.proc_ns_test'), res)
        nosys = res[('ns_ops', 'needs_socketat')]
        self.assertEqual(nosys['status'], 'fail')
        self.assertIn('socketat not implemented (ENOSYS)', nosys['reason'])
        self.assertIn('FAIL pipeline: expected.kunit.socketat KUnit suite socketat did not run',
                      out.stdout)

    def test_patched_socketat_skips_for_a_missing_syscall_fail(self):
        # A lost table row removes __NR_socketat from the uapi headers: in
        # patched mode that skip is a failure, as ENOSYS is; other skips stay.
        tests = [
            {'source': 'kselftest', 'suite': 'nsfd:socketat_test', 'name': 'sat.a',
             'status': 'skip', 'reason': "socketat not in this tree's uapi headers (no __NR_socketat)"},
            {'source': 'kselftest', 'suite': 'nsfd:socketat_test', 'name': 'sat.b',
             'status': 'skip', 'reason': 'syscall 463 is not socketat here (probe returned -1 / errno E2BIG)'},
            {'source': 'kselftest', 'suite': 'nsfd:setns_test', 'name': 'ns.c',
             'status': 'skip', 'reason': 'CONFIG_TIME_NS is off'},
        ]
        tests, _ = judge.patched_checks(tests, {}, lambda: expected.kunit_suites(self.sources),
                                        lambda: expected.kselftests(self.sources))
        self.assertEqual([t.status for t in tests], ['fail', 'fail', 'skip'])

    def test_patched_skips_for_an_older_kernel_fail(self):
        # Skips that are right on 6.1 (an ioctl 6.12 has, nsfs's
        # compat_ioctl) hide a regression on the patched 6.12 tree.
        tests = [
            {'source': 'kselftest', 'suite': 'nsfd:proc_ns_test', 'name': 'entry.net.ns_get_nstype_is_its_clone_flag',
             'status': 'skip', 'reason': "nsfs ioctls are ENOTTY to this 32-bit ABI (this kernel's nsfs has no compat_ioctl)"},
            {'source': 'kselftest', 'suite': 'nsfd:proc_ns_test', 'name': 'ns_get_mntns_id_is_per_namespace_and_grows',
             'status': 'skip', 'reason': 'no NS_GET_MNTNS_ID (before 6.10)'},
            {'source': 'kselftest', 'suite': 'nsfd:socketat_test', 'name': 'sat.pidfd_get_net',
             'status': 'skip', 'reason': 'PIDFD_GET_NET_NAMESPACE: ENOTTY (kernel before 6.11)'},
            {'source': 'kselftest', 'suite': 'nsfd:proc_ns_test', 'name': 'entry.time.ns_get_nstype_is_its_clone_flag',
             'status': 'skip', 'reason': 'CONFIG_TIME_NS is off'},
        ]
        tests, _ = judge.patched_checks(tests, {}, lambda: expected.kunit_suites(self.sources),
                                        lambda: expected.kselftests(self.sources))
        self.assertEqual([t.status for t in tests], ['fail', 'fail', 'fail', 'skip'])
        self.assertIn('where the tree is 6.12', tests[0].reason)

    def test_same_run_without_patched_has_no_such_failures(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'ok'), ('guest', 'ok')],
                                   {'console-kunit.log': 'kunit-nested.log',
                                    'console-kselftest.log': 'guest-pass.log'},
                                   args=['--sources', self.sources])
        res = by_name(self.results(tmp)['tests'])
        self.assertFalse([k for k in res if k[0] == 'pipeline'])
        self.assertEqual(res[('ns_ops', 'needs_socketat')]['status'], 'skip')

    def test_suite_that_did_not_compile_fails_in_patched_mode(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'ok')],
                                   {'console-kunit.log': 'kunit-nested.log'},
                                   args=['--patched', '--sources', self.sources],
                                   files={'kunit-skipped.tsv': 'socketat\terror: x\n'})
        res = by_name(self.results(tmp)['tests'])
        self.assertEqual(res[('pipeline', 'expected.kunit.socketat')]['reason'],
                         'KUnit suite socketat did not run: it does not compile on this tree: '
                         'error: x')
        self.assertEqual(len([k for k in res if k == ('pipeline', 'expected.kunit.socketat')]), 1)

    def test_stage_that_did_not_build_expects_nothing(self):
        tmp, out = self.run_report([('kernel', 'build-failed')], {},
                                   args=['--patched', '--sources', self.sources])
        self.assertEqual(out.returncode, 125)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')


class Progress(unittest.TestCase):
    """A stage with no progress of its own says it is still running
    (runlog.heartbeat): none is silent for longer than runlog.BEAT s."""

    def test_a_stage_that_prints_nothing_says_it_is_still_running_with_its_count(self):
        lines, two = [], threading.Event()
        # make check's own beats (ci/tests/run.py) run beside this case.
        beats = {t for t in threading.enumerate() if t.name == 'heartbeat'}

        def say(msg):
            lines.append(msg)
            if len(lines) == 2:
                two.set()
        with runlog.heartbeat(say, 'x86_64: selftests', lambda: '3 of 5', every=0.01):
            self.assertTrue(two.wait(waits.HANG), 'no progress line within %d s' % waits.HANG)
        said = len(lines)
        self.assertRegex(lines[0], r'^x86_64: selftests: still running, \d+ s, 3 of 5$')
        # The block's end ends the lines: its thread is gone.
        self.assertEqual({t for t in threading.enumerate() if t.name == 'heartbeat'}, beats)
        self.assertEqual(len(lines), said)

    def test_a_child_of_the_run_counts_its_time_from_the_runs_start(self):
        with mock.patch.dict(os.environ, {runlog.RUN_STARTED: '12.5'}):
            self.assertEqual(runlog.Say().start, 12.5)
        with mock.patch.dict(os.environ, {runlog.RUN_STARTED: 'x'}):
            self.assertGreater(runlog.Say().start, 12.5, 'unreadable: now')
        env = {k: v for k, v in os.environ.items() if k != runlog.RUN_STARTED}
        with mock.patch.dict(os.environ, env, clear=True):
            before = time.monotonic()
            self.assertGreaterEqual(runlog.Say().start, before)

    def test_the_pipeline_tests_count_their_cases_as_they_run(self):
        runner = tests_run.Runner(stream=open(os.devnull, 'w'), verbosity=0)
        self.addCleanup(runner.stream.stream.close)
        self.assertEqual(runner.progress(3), '0 of 3 cases run, 0 failed')

        def fails():
            raise AssertionError('a failure the count must show')
        runner.run(unittest.TestSuite([unittest.FunctionTestCase(lambda: None),
                                       unittest.FunctionTestCase(fails)]))
        self.assertEqual(runner.progress(3), '2 of 3 cases run, 1 failed')

    def test_every_long_stage_without_progress_of_its_own_beats(self):
        # The tree, the selftests build, the robot's steps, the pipeline tests.
        for path, what in (('pipeline/variant.py', "heartbeat(self.say, 'tree')"),
                           ('pipeline/guest.py', "heartbeat(v.say, '%s: selftests'"),
                           ('pipeline/robot.py', "heartbeat(self.say, '%s: %s' % (self.name, name))"),
                           ('pipeline/robot.py', "heartbeat(self.say, '%s: kernel' % self.name, compiled)"),
                           ('pipeline/robot.py', "heartbeat(self.say, '%s: boot' % self.name, results)"),
                           ('tests/run.py', "heartbeat(say, 'pipeline', lambda: runner.progress(total))")):
            with open(os.path.join(ci.TOP, 'ci', path)) as f:
                self.assertIn(what, f.read(), path)


class SeriesWiring(unittest.TestCase):
    """make series' MAINTAINERS and TARGETS edits, on a tree's own files."""
    MAINT = ('List of maintainers\n\n3C59X NETWORK DRIVER\nM:\tA <a@x>\nS:\tOdd fixes\n'
             'F:\tdrivers/net/3c59x.c\n\nNSDEPS\nM:\tB <b@x>\nS:\tMaintained\n'
             'F:\tscripts/nsdeps\n\nNTB AMD DRIVER\nM:\tC <c@x>\nS:\tSupported\n'
             'F:\tdrivers/ntb/\n\niSCSI BOOT\nM:\tD <d@x>\nF:\tdrivers/ibft\n\n'
             'THE REST\nM:\tL <l@x>\nF:\t*\nX:\tx/\n')

    def setUp(self):
        self.w = wiring
        os.environ['NSFD_SECTION_HEAD'] = 'M:\\tN <n@x>\\nS:\\tMaintained'

    def test_new_section_goes_where_it_sorts_with_sorted_files(self):
        out = self.w.maintainers(self.MAINT, 'NSFD: TESTS', ['kernel/b.c', 'fs/a.c'])
        self.assertIn('F:\tscripts/nsdeps\n\nNSFD: TESTS\nM:\tN <n@x>\nS:\tMaintained\n'
                      'F:\tfs/a.c\nF:\tkernel/b.c\n\nNTB AMD DRIVER\n', out)

    def test_second_call_extends_the_section(self):
        once = self.w.maintainers(self.MAINT, 'NSFD: TESTS', ['kernel/b.c'])
        twice = self.w.maintainers(once, 'NSFD: TESTS', ['tools/testing/selftests/nsfd/'])
        self.assertIn('F:\tkernel/b.c\nF:\ttools/testing/selftests/nsfd/\n\nNTB', twice)
        self.assertEqual(twice.count('NSFD: TESTS'), 1)

    def test_target_goes_where_it_sorts_once(self):
        mk = 'TARGETS += net\nTARGETS += nsfs\nTARGETS += pidfd\n\nTARGETS += zz\n'
        out = self.w.target(mk, 'nsfd')
        self.assertEqual(out, 'TARGETS += net\nTARGETS += nsfd\nTARGETS += nsfs\n'
                         'TARGETS += pidfd\n\nTARGETS += zz\n')
        self.assertEqual(self.w.target(out, 'nsfd'), out)

    PATCH = ('From abc Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nSubject: [PATCH net-next 1/7] x\n'
             'To: netdev@vger.kernel.org\n\nbody\n\nmore\n')

    def test_cc_is_one_header_at_the_end_of_the_mail_headers(self):
        out = self.w.cc(self.PATCH, ['b@x', 'c@x'])
        self.assertEqual(out, self.PATCH.replace(
            'netdev@vger.kernel.org\n\n', 'netdev@vger.kernel.org\nCc: b@x,\n    c@x\n\n', 1))

    def test_no_cc_leaves_the_patch_alone(self):
        self.assertEqual(self.w.cc(self.PATCH, []), self.PATCH)


class MutantConfig(unittest.TestCase):
    """A mutant may name the matrix config it runs in (ci/mutants/README)."""

    def setUp(self):
        self.m = mutant
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def write(self, text):
        path = os.path.join(self.dir, 'x.mutant')
        with open(path, 'w') as f:
            f.write(text)
        return path

    def test_config_line_names_the_matrix_config(self):
        p = self.write('# d\nconfig: net_ns_off\nfile: a.c\nfind: if (x)\nreplace: if (0)\n')
        self.assertEqual(self.m.parse(p)['config'], 'net_ns_off')

    def test_without_config_line_there_is_none(self):
        p = self.write('# d\nfile: a.c\nfind: if (x)\nreplace: if (0)\n')
        self.assertNotIn('config', self.m.parse(p))

    def test_config_that_is_not_a_file_name_is_refused(self):
        for bad in ('config:\n', 'config: ../lean\n', 'config: a b\n'):
            p = self.write('# d\n' + bad + 'file: a.c\nfind: if (x)\nreplace: if (0)\n')
            with self.assertRaises(self.m.MutantError):
                self.m.parse(p)

    def test_arch_line_names_the_arch_and_x86_64_is_the_default(self):
        p = self.write('# d\narch: riscv64\nfile: a.tbl\nfind: 1 a\nreplace: # removed\n')
        self.assertEqual(self.m.parse(p)['arch'], 'riscv64')
        for bad in ('arch:\n', 'arch: ../x86_64\n', 'arch: a b\n'):
            p = self.write('# d\n' + bad + 'file: a.c\nfind: if (x)\nreplace: if (0)\n')
            with self.assertRaises(self.m.MutantError):
                self.m.parse(p)
        p = self.write('# d\nfile: a.c\nfind: if (x)\nreplace: if (0)\n')
        out = subprocess.run(ci.command('ci.mutants.mutant', 'arch', p), capture_output=True, text=True)
        self.assertEqual(out.stdout.strip(), 'x86_64')

    def test_every_named_arch_is_in_ci_arch(self):
        d = os.path.join(CI, 'mutants')
        archs = {}
        for f in sorted(os.listdir(d)):
            if f.endswith('.mutant'):
                a = self.m.parse(os.path.join(d, f)).get('arch')
                if a:
                    archs[f] = a
                    self.assertTrue(os.path.isfile(os.path.join(CI, 'arch', a + '.conf')), f)
        # The generic syscall table is read by riscv64, never by x86_64.
        self.assertEqual(archs.get('syscall-generic-table-drops-socketat.mutant'), 'riscv64')

    def test_every_named_config_is_in_the_matrix(self):
        d = os.path.join(CI, 'mutants')
        for f in sorted(os.listdir(d)):
            if f.endswith('.mutant'):
                c = self.m.parse(os.path.join(d, f)).get('config')
                if c:
                    self.assertTrue(os.path.isfile(os.path.join(
                        CI, '..', 'kunit-configs', 'matrix', c + '.kunitconfig')), f)


def nsfd_cc(arch='x86_64'):
    """The compiler line and ccache settings ci/nsfd gives a kernel build."""
    out = subprocess.run([os.path.join(CI, 'nsfd'), 'cc', arch], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    cc = out[0][len('CC='):].split()
    env = dict(line.split('=', 1) for line in out[1:])
    return cc, env


@unittest.skipUnless(shutil.which('ccache'), 'ccache is not installed (ci/deps.sh installs it)')
class CompilerCache(unittest.TestCase):
    """An object whose source pulls a file in through the assembler never
    comes from ccache: in depend mode such a hit linked an earlier payload
    (piggy.S: the bzImage carried the previous kernel). Compiled as a
    kernel build compiles (ci/nsfd cc), into an empty cache of its own;
    NSFD_TEST_CC replaces the compiler wrapper (e.g. NSFD_TEST_CC=ccache
    shows the hazard these tests guard against)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        cc, env = nsfd_cc()
        if os.environ.get('NSFD_TEST_CC'):
            cc = os.environ['NSFD_TEST_CC'].split() + cc[1:]
        self.cc = cc
        self.env = dict(os.environ, **env)
        self.env.update(CCACHE_DIR=os.path.join(self.tmp, 'cache'), CCACHE_BASEDIR=self.tmp,
                        CCACHE_NOHASHDIR='1')
        self.env.pop('NSFD_CC_NOCACHE', None)
        self.assertEqual(env.get('CCACHE_DEPEND'), '1', 'ci/nsfd builds in depend mode')

    def write(self, name, data):
        with open(os.path.join(self.tmp, name), 'wb' if isinstance(data, bytes) else 'w') as f:
            f.write(data)

    def compile(self, source, obj='x.o'):
        subprocess.run(self.cc + ['-Wp,-MMD,%s.d' % obj, '-c', '-o', obj, source],
                       cwd=self.tmp, env=self.env, check=True)
        with open(os.path.join(self.tmp, obj), 'rb') as f:
            return f.read()

    def stats(self):
        out = subprocess.run(['ccache', '--print-stats'], env=self.env, capture_output=True,
                             text=True).stdout
        st = dict(line.split('\t', 1) for line in out.splitlines() if '\t' in line)
        return int(st.get('direct_cache_hit', 0)) + int(st.get('preprocessed_cache_hit', 0))

    def twice(self, source):
        """Compile SOURCE with two payloads of one size: the object each time."""
        self.write('payload.bin', b'\xa5' * 4093 + b'one')
        first = self.compile(source)
        os.unlink(os.path.join(self.tmp, 'x.o'))
        self.write('payload.bin', b'\xa5' * 4093 + b'two')
        return first, self.compile(source)

    def assert_second_payload(self, source):
        first, second = self.twice(source)
        one, two = b'\xa5' * 64 + b'one', b'\xa5' * 64 + b'two'
        self.assertTrue(one in first, 'the first object lacks the first payload')
        self.assertTrue(two in second and one not in second,
                        'the second object carries the earlier payload (a stale cache hit)')

    def test_assembler_incbin_of_same_size_payload_is_recompiled(self):
        self.write('x.S', '\t.section .rodata\n\t.globl blob\nblob:\n\t.incbin "payload.bin"\n')
        self.assert_second_payload('x.S')

    def test_inline_asm_incbin_in_c_is_recompiled(self):
        self.write('x.c', 'asm(".section .rodata\\n.incbin \\"payload.bin\\"\\n.previous");\n')
        self.assert_second_payload('x.c')

    def test_assembler_include_is_recompiled(self):
        self.write('x.S', '\t.section .rodata\n\t.include "inc.s"\n')
        self.write('inc.s', '\t.ascii "first include"\n')
        self.compile('x.S')
        self.write('inc.s', '\t.ascii "other include"\n')
        self.assertTrue(b'other include' in self.compile('x.S'),
                        'the object carries the earlier include (a stale cache hit)')

    def test_plain_c_source_still_comes_from_the_cache(self):
        self.write('x.c', '#include "x.h"\nint f(void) { return X; }\n')
        self.write('x.h', '#define X 42\n')
        self.compile('x.c')
        before = self.stats()
        self.compile('x.c', 'y.o')
        self.assertEqual(self.stats(), before + 1, 'a plain C object must be a cache hit')

    def test_tree_hazard_switch_turns_the_cache_off(self):
        self.write('x.c', 'int g(void) { return 1; }\n')
        self.env['NSFD_CC_NOCACHE'] = '1'
        self.compile('x.c')
        self.compile('x.c', 'y.o')
        self.assertEqual(self.stats(), 0)


class Identity(unittest.TestCase):
    """A boot proves which kernel and initramfs it ran (ci/results/identity.py)."""

    IDENT = {'banner': BANNER, 'build_id': BUILD_ID}

    def console(self, banner=BANNER, build_id=BUILD_ID, initramfs='feed'):
        lines = ['OpenSBI v1.2', '[    0.000000] ' + banner if banner else '[    0.0] x',
                 '[    0.612000] Run /init as init process']
        if build_id:
            lines.append('nsfd-init: kernel build-id ' + build_id)
        if initramfs:
            lines.append('nsfd-init: initramfs ' + initramfs)
        return '\n'.join(lines) + '\n'

    def test_the_boot_of_the_kernel_built_is_proven(self):
        self.assertIsNone(identity.check(self.console(), self.IDENT, 'feed', guest=True))
        self.assertIsNone(identity.check(self.console(build_id=None), self.IDENT))

    def test_caller_id_prefix_is_not_part_of_the_banner(self):
        text = '[    0.000000][    T0] ' + BANNER + '\n'
        self.assertIsNone(identity.check(text, self.IDENT))

    def test_another_builds_banner_names_both(self):
        other = BANNER.replace('#7', '#6')
        why = identity.check(self.console(banner=other), self.IDENT)
        self.assertIn(other, why)
        self.assertIn(BANNER, why)

    def test_console_without_banner_proves_nothing(self):
        self.assertIn('no "Linux version" line', identity.check(self.console(banner=None),
                                                                self.IDENT))

    def test_two_boots_in_one_log_are_an_earlier_runs_leftover(self):
        self.assertIn('2 boots', identity.check(self.console() * 2, self.IDENT))

    def test_guest_with_another_build_id_or_none(self):
        self.assertIn('booted build-id 00ff', identity.check(
            self.console(build_id='00ff'), self.IDENT, 'feed', guest=True))
        self.assertIn('printed no kernel build-id', identity.check(
            self.console(build_id=None), self.IDENT, 'feed', guest=True))
        # An init that could not read /sys/kernel/notes: the banner proves.
        self.assertIsNone(identity.check(
            self.console(build_id='none'), self.IDENT, 'feed', guest=True))

    def test_init_line_split_by_a_kernel_message_is_still_read(self):
        text = self.console(build_id=BUILD_ID[:14] + '[    1.234567] clocksource: tsc: '
                            'switched\n' + BUILD_ID[14:])
        self.assertIsNone(identity.check(text, self.IDENT, 'feed', guest=True))
        text = self.console(build_id='00' + '[    1.2][    T1] x\n' + BUILD_ID[14:])
        self.assertIn('booted build-id 00' + BUILD_ID[14:], identity.check(
            text, self.IDENT, 'feed', guest=True))

    def test_kernel_that_dies_before_init_is_judged_not_refused(self):
        # The banner names the kernel built; the init never ran: the
        # missing KTAP fails it (a verdict), not an identity error.
        text = self.console(build_id=None, initramfs=None) + \
            '[    0.700000] Kernel panic - not syncing: VFS: Unable to mount root fs\n'
        self.assertIsNone(identity.check(text, self.IDENT, 'feed', guest=True))

    def test_guest_with_another_initramfs(self):
        why = identity.check(self.console(initramfs='beef'), self.IDENT, 'feed', guest=True)
        self.assertEqual(why, 'booted initramfs beef, but the one built is feed')

    def test_banner_and_build_id_read_from_a_real_elf(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'v.c'), 'w') as f:
            # vmlinux has two banners: init/version.o's with an empty
            # UTS_VERSION, and the one printed.
            f.write('const char stub[] = "%s\\n";\n' % BANNER.replace(UTS, '') +
                    'const char linux_banner[] = "%s\\n";\nint main(void) '
                    '{ return linux_banner[0] + stub[0]; }\n' % BANNER)
        exe = os.path.join(tmp, 'v')
        subprocess.run(['gcc', '-Wl,--build-id=sha1', '-o', exe, os.path.join(tmp, 'v.c')],
                       check=True)
        notes = subprocess.run(['readelf', '-n', exe], capture_output=True, text=True).stdout
        want = re.search(r'Build ID: ([0-9a-f]+)', notes).group(1)
        with open(exe, 'rb') as f:
            data = f.read()
        self.assertEqual(identity.build_id(data), want)
        self.assertEqual(identity.vmlinux_banner(data, UTS), BANNER)

    def run_report(self, stages, logs, **kw):
        return VariantReport.run_report(self, stages, logs, **kw)

    def report_of_another_build(self):
        """report.py on a KUnit console of build #8 (with failures) while
        the kernel built is #7: (tmp, the completed process)."""
        tmp, _ = self.run_report([('kernel', 'ok'), ('kunit', 'fail')],
                                 {'console-kunit.log': 'kunit-nested.log'})
        prove_boots(tmp, banner=BANNER.replace('#7', '#8'))
        with open(os.path.join(tmp, 'identity-kernel.json'), 'w') as f:
            json.dump(self.IDENT, f)
        return tmp, subprocess.run(REPORT + ['variant', tmp, '--arch', 'x86_64', '--variant', 'x86_64'],
                                   capture_output=True, text=True)

    def test_report_of_a_boot_of_another_build_is_exit_2_not_a_verdict(self):
        tmp, out = self.report_of_another_build()
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertEqual(out.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        self.assertIn(BANNER.replace('#7', '#8'), out.stdout)
        self.assertIn(BANNER, out.stdout)
        with open(os.path.join(tmp, 'results.json')) as f:
            doc = json.load(f)
        self.assertEqual(doc['exit_code'], 2)
        self.assertEqual(doc['identity_errors'][0]['console'], 'console-kunit.log')

    def test_unproven_run_stamps_its_ktap_not_judged(self):
        tmp, _ = self.report_of_another_build()
        with open(os.path.join(tmp, 'kunit.ktap')) as f:
            text = f.read()
        self.assertIn('# nsfd: NOT JUDGED', text)
        self.assertNotIn('# nsfd: build-id', text)
        with open(os.path.join(tmp, 'results.json')) as f:
            self.assertFalse(json.load(f)['judged']['proven'])

    def test_kunit_stage_without_a_console_is_exit_2(self):
        # kunit.py that died before QEMU started left no test.log.
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'fail')], {})
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertIn('console-kunit.log: no console log', out.stdout)

    def test_report_without_a_record_of_the_kernel_is_exit_2(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('guest', 'ok')],
                                   {'console-kselftest.log': 'guest-pass.log'}, proven=False)
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertIn('identity-kernel.json', out.stdout)

    def test_report_names_what_it_judged(self):
        tmp, out = self.run_report([('kernel', 'ok'), ('kunit', 'ok'), ('guest', 'ok')],
                                   {'console-kunit.log': 'real-kunit-x86_64.log',
                                    'console-kselftest.log': 'guest-pass.log'},
                                   files={'build-info.json': json.dumps(
                                       {'tree_commit': 'c0ffee', 'series_digest': 'd1'})})
        with open(os.path.join(tmp, 'results.json')) as f:
            j = json.load(f)['judged']
        self.assertEqual((j['banner'], j['build_id'], j['tree_commit'], j['series_digest'],
                          j['initramfs']), (BANNER, BUILD_ID, 'c0ffee', 'd1', {'guest-1': 'feed1'}))
        for name in ('kunit.ktap', 'kselftest.ktap'):
            with open(os.path.join(tmp, name)) as f:
                head = f.read().splitlines()[:6]
            self.assertIn('# nsfd: build-id ' + BUILD_ID, head, name)
            self.assertIn('# nsfd: kernel ' + BANNER, head, name)
        props = {p.get('name'): p.get('value') for p in
                 ET.parse(os.path.join(tmp, 'junit.xml')).getroot().iter('property')}
        self.assertEqual(props['nsfd.build_id'], BUILD_ID)
        self.assertEqual(props['nsfd.initramfs.guest-1'], 'feed1')


class WithSeries(unittest.TestCase):
    """ci/nsfd run --kernel-src DIR --with-series: DIR carries the series
    (make series KERNEL_SRC=DIR made it), and is judged as our own tree."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_with_series_is_an_option_of_run_on_a_kernel_src(self):
        from ci.pipeline import cli
        _, o = cli.parse(['run', 'riscv64', '--kernel-src', self.tmp, '--with-series'])
        self.assertEqual((o['arch'], o['kernel_src'], o['with_series']), ('riscv64', self.tmp, True))
        with self.assertRaisesRegex(runlog.EnvError, 'needs --kernel-src DIR'):
            cli.parse(['run', '--with-series'])
        self.assertIsNone(cli.parse(['test', '--with-series']), 'make test has no such option')

    def test_only_our_tree_or_one_with_the_series_is_judged_patched(self):
        from ci.pipeline.variant import Run
        say = runlog.Say(open(os.devnull, 'w'))
        self.addCleanup(say.stream.close)
        self.assertTrue(Run(ci.TOP, say).patched, 'the tarball with patches/')
        self.assertFalse(Run(ci.TOP, say, kernel_src=self.tmp).patched, 'a tree as it stands')
        self.assertTrue(Run(ci.TOP, say, kernel_src=self.tmp, with_series=True).patched)

    def test_the_results_name_the_number_socketat_has_in_the_tree(self):
        from ci.pipeline.variant import socketat_nr
        self.assertIsNone(socketat_nr(self.tmp), 'no uapi header')
        d = os.path.join(self.tmp, 'include', 'uapi', 'asm-generic')
        os.makedirs(d)
        with open(os.path.join(d, 'unistd.h'), 'w') as f:
            f.write('#define __NR_setxattrat 463\n__SYSCALL(__NR_setxattrat, sys_ni_syscall)\n')
        self.assertIsNone(socketat_nr(self.tmp), 'a tree without socketat')
        with open(os.path.join(d, 'unistd.h'), 'a') as f:
            f.write('#define __NR_socketat 464\n__SYSCALL(__NR_socketat, sys_socketat)\n')
        self.assertEqual(socketat_nr(self.tmp), 464)


if __name__ == '__main__':
    unittest.main()
