"""The fault suite: the real stage code of ci/pipeline/ (variant, kernel,
guest, qemu, decide, procs) and the real ci/results/report.py, run against a fake
kernel tree, a fake kunit.py and a fake QEMU (ci/tests/fakes/), one fault
at a time. Each case is an exit path of the contract: 0 all passed, 1 a
test failed, 125 nothing could be built (git bisect skips), 2 nothing was
judged."""

import ast
import contextlib
import functools
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import ci
from ci.pipeline import kernel, runlog
from ci.pipeline.variant import Run, Variant
from ci.results import expected, model
from ci.tests import waits

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)
FAKES = os.path.join(HERE, 'fakes')

BANNER = ('Linux version 6.12.0-fake (nsfd@fake) (gcc (Debian 12.2.0-14) 12.2.0) '
          '#1 SMP PREEMPT_DYNAMIC Sun Dec  6 00:00:00 UTC 2026')
_vmlinux = {}


def fake_vmlinux():
    """An ELF with a linux_banner and a GNU build-id, as vmlinux has
    (built once)."""
    if 'path' not in _vmlinux:
        d = tempfile.mkdtemp()
        src = os.path.join(d, 'version.c')
        with open(src, 'w') as f:
            f.write('__attribute__((used)) const char linux_banner[] = "%s\\n";\n'
                    'int main(void) { return 0; }\n' % BANNER)
        subprocess.run(['gcc', '-Wl,--build-id=sha1', '-o', os.path.join(d, 'vmlinux'), src],
                       check=True)
        _vmlinux['path'] = os.path.join(d, 'vmlinux')
        _vmlinux['dir'] = d
    return _vmlinux['path']


def tearDownModule():
    # Once per process (a worker of ci/tests/run.py runs the module's cases
    # in one run of unittest, or in several): made again if needed later.
    if 'dir' in _vmlinux:
        shutil.rmtree(_vmlinux.pop('dir'), ignore_errors=True)
        _vmlinux.pop('path', None)


class World:
    """A temporary fake kernel tree and out/ for one variant of the real
    pipeline. ENV is the fault (FAKE_*), set for the run only."""

    def __init__(self, tmp, arch='x86_64', config='', with_series=False):
        self.tmp = tmp
        src = os.path.join(tmp, 'bld', 'src')
        os.makedirs(os.path.join(src, 'tools', 'testing', 'kunit'))
        shutil.copy(os.path.join(FAKES, 'Makefile'), src)
        os.symlink(os.path.join(FAKES, 'kunit.py'),
                   os.path.join(src, 'tools', 'testing', 'kunit', 'kunit.py'))
        self.out_lines = []
        self.stream = open(os.path.join(tmp, 'progress.log'), 'w+')
        run = Run(TOP, runlog.Say(self.stream), kernel_src=src,
                  out_root=os.path.join(tmp, 'out'), with_series=with_series)
        run.bld, run.src = os.path.join(tmp, 'bld'), src
        run.tree_rc, run.tree_secs, run.tree_head = 'ok', '0.1', None
        run.jobs = 2
        self.run = run
        self.variant = v = self.another(arch, config)
        # The host kernel's log is a file of this world (machine.KernelLog):
        # the fakes write the OOM killer's records there, and no real OOM
        # kill of this machine reaches a case.
        self.kmsg = os.path.join(tmp, 'kmsg')
        open(self.kmsg, 'w').close()
        # The fakes' `#!/usr/bin/env python3` finds this interpreter, not a
        # wrapper in front of it (pyenv's shim costs 0.4 s a start).
        # FAKES last: its qemu is on PATH as QEMU is on a real machine's
        # (the fake kunit.py's FAKE_KUNIT_EXEC=qemu runs it by name).
        self.env = {'PATH': os.pathsep.join((os.path.dirname(sys.executable), os.environ['PATH'],
                                             FAKES)),
                    'FAKE_VMLINUX': fake_vmlinux(),
                    'FAKE_IMAGE': v.conf['KERNEL_IMAGE'], 'NSFD_GUESTS': '1',
                    'NSFD_PROGRESS_SECS': '30', 'NSFD_KMSG': self.kmsg,
                    # FAKE_ENOSPC's hook (fakes/site/sitecustomize.py).
                    'PYTHONPATH': os.pathsep.join([TOP, os.path.join(FAKES, 'site')])}

    def another(self, arch='x86_64', config=''):
        """A variant of this world, its QEMU the fake one."""
        v = Variant(self.run, arch, False, config)
        v.conf.update(QEMU=os.path.join(FAKES, 'qemu'), FIRMWARE='', KTAP_QEMU_ARGS='',
                      COMPAT_ABIS='', CROSS_COMPILE=os.path.join(FAKES, 'fake-'))
        return v

    def go(self, *variants, **fault):
        """The exit code of the variant (or of each of VARIANTS, in
        order, as make test runs them) with FAULT (env) in place."""
        env = dict(self.env, **fault)
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            if variants:
                codes = [v.run_all() for v in variants]
                self.run.finish_pending()
                return codes
            return self.variant.run_all()
        finally:
            for k, val in saved.items():
                if val is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = val

    def stages(self):
        with open(os.path.join(self.variant.out, 'stages.tsv')) as f:
            return {r[0]: (r[1], r[3]) for r in (ln.rstrip('\n').split('\t') for ln in f)}

    def results(self):
        with open(os.path.join(self.variant.out, 'results.json')) as f:
            return json.load(f)

    def progress(self):
        self.stream.seek(0)
        return self.stream.read()


class Faults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        """One world run without a fault, which several cases compare
        with (what a good step of a bisection looks like)."""
        cls.base_tmp = tempfile.mkdtemp()
        cls.base = World(cls.base_tmp)
        cls.base_rc = cls.base.go()

    @classmethod
    def tearDownClass(cls):
        cls.base.stream.close()
        shutil.rmtree(cls.base_tmp)

    def setUp(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.world = World(tmp)
        self.addCleanup(self.world.stream.close)

    def go(self, **fault):
        rc = self.world.go(**fault)
        return rc, self.world.stages()

    def test_a_socketat_enosys_skip_on_a_foreign_tree_stays_a_skip(self):
        rc, stages = self.go(FAKE_QEMU='skip-nosys')
        self.assertEqual(rc, 0, self.world.progress())
        self.assertEqual(stages['kunit-suites'][0], 'ok')
        doc = self.world.results()
        self.assertFalse(doc['patched'])
        self.assertEqual(doc['summary']['failed'], 0)
        self.assertEqual(doc['summary']['skipped'], 1)

    def test_a_tree_that_carries_the_series_is_judged_as_ours(self):
        # ci/nsfd run --kernel-src DIR --with-series (make series KERNEL_SRC=):
        # every suite must compile as it is (no kunit-suites stage to switch
        # one off), and socketat must exist: its ENOSYS skip fails.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        world = World(tmp, with_series=True)
        self.addCleanup(world.stream.close)
        rc = world.go(FAKE_QEMU='skip-nosys')
        self.assertEqual(rc, 1, world.progress())
        self.assertNotIn('kunit-suites', world.stages())
        doc = world.results()
        self.assertTrue(doc['patched'])
        failed = {t['name']: t['reason'] for t in doc['tests'] if t['status'] == 'fail'}
        self.assertIn('skipped in patched mode, where socketat must exist',
                      failed.pop('global.works'))
        # Every kselftest of the series must run (the fake tree has three).
        self.assertTrue(failed)
        self.assertEqual({n for n in failed if not n.startswith('expected.kselftest.')}, set())

    def kconfig_world(self, with_series, tree_declares=(), reference_declares=None):
        """A world whose tree's Kconfig declares TREE_DECLARES and whose
        reference tree (the patched 6.12) REFERENCE_DECLARES (None: no
        reference tree on this machine)."""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        world = World(tmp, with_series=with_series)
        self.addCleanup(world.stream.close)
        for where, names in ((world.run.src, tree_declares),
                             (os.path.join(tmp, 'reference'), reference_declares)):
            if names is not None:
                os.makedirs(where, exist_ok=True)
                with open(os.path.join(where, 'Kconfig'), 'w') as f:
                    f.write(''.join('config %s\n\tbool\n' % n for n in names))
        world.run.reference_src = os.path.join(tmp, 'reference')
        return world

    def test_a_misspelled_symbol_in_nsfds_own_fragments_is_2_naming_it(self):
        # kunit.py: "Not all Kconfig options selected in kunitconfig were in
        # the generated .config" for a symbol that no Kconfig declares, in
        # the tree under test or the patched 6.12: our input is wrong (on
        # 742e786 it was 125, "the kernel does not build", naming nothing).
        for with_series, reference in ((True, None), (False, ['NET_NS'])):
            with self.subTest(with_series=with_series):
                world = self.kconfig_world(with_series, ['NET_NS'], reference)
                rc = world.go(FAKE_KUNIT_BUILD='kconfig:TIME_NS')
                self.assertEqual(rc, 2, world.progress())
                status, detail = world.stages()['kernel']
                self.assertEqual(status, 'env-error')
                self.assertEqual(detail, 'CONFIG_TIME_NS (kunit-configs/nsfd.kunitconfig) is '
                                         "declared by no Kconfig: a misspelled symbol in nsfd's "
                                         'own fragments, our input is wrong, not the tree')

    def test_a_symbol_the_tree_under_test_lacks_is_125_as_before(self):
        # The tree declares it but cannot set it (its dependencies), or
        # another tree lacks what the patched 6.12 has, or there is no
        # reference tree to ask: the tree's, not ours (build-failed).
        for with_series, tree, reference in ((True, ['TIME_NS'], None),
                                             (False, [], ['TIME_NS']),
                                             (False, [], None)):
            with self.subTest(with_series=with_series, tree=tree, reference=reference):
                world = self.kconfig_world(with_series, tree, reference)
                rc = world.go(FAKE_KUNIT_BUILD='kconfig:TIME_NS')
                self.assertEqual(rc, 125, world.progress())
                self.assertEqual(world.stages()['kernel'][0], 'build-failed')

    def test_the_fake_world_passes_without_a_fault(self):
        rc, stages = self.base_rc, self.base.stages()
        self.assertEqual(rc, 0, self.base.progress())
        self.assertEqual({s: st for s, (st, _) in stages.items()},
                         {'tree': 'ok', 'kunit-suites': 'ok', 'kernel': 'ok', 'kunit': 'ok',
                          'selftests': 'ok', 'guest': 'ok'})
        doc = self.base.results()
        self.assertTrue(doc['judged']['proven'], doc['judged'])
        self.assertGreater(doc['summary']['passed'], 2)
        self.assertEqual(doc['summary']['failed'], 0)

    def test_a_stage_whose_inputs_are_unchanged_is_not_redone(self):
        self.world.run.tree_head = 'a' * 40     # a tree without changes of its own
        _, first = self.go()
        self.assertTrue(first['kernel'][1].startswith('ccache: '), first)
        rc, again = self.go()
        self.assertEqual(rc, 0)
        self.assertEqual(again['kernel'][1], 'up to date, not rebuilt')
        self.assertEqual(again['selftests'][1], 'up to date, not rebuilt')
        # An image changed behind nsfd's back is rebuilt, and so are the
        # guests' initramfs files (they carry its uapi headers).
        image = os.path.join(self.world.variant.kdir, self.world.variant.conf['KERNEL_IMAGE'])
        os.utime(image, (1, 1))
        _, third = self.go()
        self.assertTrue(third['kernel'][1].startswith('ccache: '), third)
        self.assertEqual(third['selftests'][1], '')
        # A mutant's tree (changes of its own) is always built through.
        self.world.run.tree_head = None
        _, mutant = self.go()
        self.assertTrue(mutant['kernel'][1].startswith('ccache: '), mutant)

    def test_tests_beside_the_next_build_are_judged_and_printed_in_variant_order(self):
        w = self.world
        w.run.overlap = True
        second = w.another('x86_64', 'net_off')
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            codes = w.go(w.variant, second)
        self.assertEqual(codes, [0, 0], 'each returns at once, its tests beside the next build')
        for v in (w.variant, second):
            with open(os.path.join(v.out, 'results.json')) as f:
                doc = json.load(f)
            self.assertEqual(doc['exit_code'], 0, v.name)
            self.assertTrue(doc['judged']['proven'])
        printed = out.getvalue()
        first_guest = printed.index('x86_64: guest: ok')
        self.assertLess(first_guest, printed.index('x86_64-net_off: kunit:'))
        with open(os.path.join(w.variant.out, 'tests.log')) as f:
            self.assertIn('x86_64: guest: ok', f.read(), 'kept in out/VARIANT/tests.log')
        self.assertNotIn('x86_64: guest: ok', w.progress(), 'not printed while it ran')

    def test_qemu_that_will_not_start_is_2(self):
        rc, stages = self.go(FAKE_QEMU='refuse')
        self.assertEqual(rc, 2)
        self.assertEqual(stages['guest'][0], 'env-error')
        self.assertIn('before a kernel booted: qemu-system-x86_64: failed to initialize kvm',
                      stages['guest'][1])

    def test_a_guest_that_hangs_is_1(self):
        # The fake hangs after its banner and then ends its timeout's timer
        # itself: a short limit would race the fake's start on a loaded
        # machine (1 s read 'no kernel booted', 2, beside a kernel build).
        rc, stages = self.go(FAKE_QEMU='timeout', NSFD_BOOT_TIMEOUT=str(waits.HANG),
                             NSFD_GUESTS='2')
        self.assertEqual(rc, 1)
        self.assertEqual(stages['guest'], ('timeout', 'guest 1: no end after %d s; '
                                           'guest 2: no end after %d s' % (waits.HANG, waits.HANG)))

    def test_a_guest_that_panics_is_1(self):
        rc, stages = self.go(FAKE_QEMU='panic')
        self.assertEqual(rc, 1)
        self.assertEqual(stages['guest'][0], 'ok', 'QEMU ended as after a reboot')
        failed = [t for t in self.world.results()['tests'] if t['status'] == 'fail']
        self.assertTrue(any('panic' in (t['reason'] or '').lower() for t in failed), failed)

    def test_a_console_cut_mid_line_is_1(self):
        rc, _ = self.go(FAKE_QEMU='cut')
        self.assertEqual(rc, 1)
        self.assertGreater(self.world.results()['summary']['failed'], 0)

    def test_printk_messages_dropped_is_1(self):
        rc, _ = self.go(FAKE_QEMU='dropped')
        self.assertEqual(rc, 1)
        failed = [t for t in self.world.results()['tests'] if t['status'] == 'fail']
        self.assertTrue(any('printk messages dropped' in (t['reason'] or '') for t in failed), failed)

    def test_kunit_py_raising_is_2(self):
        rc, stages = self.go(FAKE_KUNIT_EXEC='raise')
        self.assertEqual(rc, 2)
        self.assertEqual(stages['kunit'][0], 'env-error')

    def test_kunit_py_that_dies_before_qemu_starts_reads_no_earlier_boot(self):
        rc, _ = self.go()
        self.assertEqual(rc, 0)
        rc, stages = self.go(FAKE_KUNIT_EXEC='noboot')
        self.assertEqual(rc, 2, 'the last boot\'s test.log judged nothing')
        self.assertEqual(stages['kunit'][0], 'fail')
        self.assertFalse(os.path.exists(os.path.join(self.world.variant.out, 'console-kunit.log')))

    def test_a_kunit_failure_is_1(self):
        rc, stages = self.go(FAKE_KUNIT_EXEC='fail')
        self.assertEqual(rc, 1)
        self.assertEqual(stages['kunit'], ('fail', 'kunit.py exit 1'))

    def test_a_kernel_crash_under_kunit_is_1(self):
        rc, _ = self.go(FAKE_KUNIT_EXEC='crash')
        self.assertEqual(rc, 1)

    def test_a_results_writer_that_raises_is_2(self):
        rc, _ = self.go(FAKE_QEMU='unwritable-results')
        self.assertEqual(rc, 2)

    def test_a_commit_that_does_not_build_is_125(self):
        rc, stages = self.go(FAKE_KUNIT_BUILD='fail')
        self.assertEqual(rc, 125)
        self.assertEqual(stages['kernel'][0], 'build-failed')
        self.assertNotIn('kunit', stages, 'nothing boots a kernel that did not build')

    def test_kselftests_that_do_not_build_are_125(self):
        rc, stages = self.go(FAKE_MAKE_SELFTESTS='fail')
        self.assertEqual(rc, 125)
        self.assertEqual(stages['selftests'][0], 'build-failed')
        self.assertNotIn('guest', stages)

    # Machine faults: 2 with the cause named, never 1 or 125.

    def test_qemu_killed_by_the_oom_killer_before_its_limit_is_2_naming_the_kill(self):
        rc, stages = self.go(FAKE_QEMU='oom', NSFD_BOOT_TIMEOUT='300')
        self.assertEqual(rc, 2, 'QEMU\'s 137 before its limit is no timeout (1)')
        status, detail = stages['guest']
        self.assertEqual(status, 'env-error')
        self.assertRegex(detail, r'^guest 1: qemu ended by SIGKILL after \d+ s, before its 300 s '
                                 r"limit, not by timeout: the kernel's OOM killer killed "
                                 r'qemu-system-x86 \(pid \d+\)$')
        self.assertEqual(self.world.results()['summary']['failed'], 0, 'no test failed for it')

    def machine_fault(self, stage, fault, *named):
        """FAULT (FAKE_*=...) ends STAGE with env-error, exit 2, its line
        naming each of NAMED; the stages run."""
        rc, stages = self.go(**fault)
        self.assertEqual(rc, 2, 'a machine fault is never 1 or 125: %s' % (stages,))
        self.assertEqual(stages[stage][0], 'env-error')
        for n in named:
            self.assertIn(n, stages[stage][1])
        return stages

    def test_a_compiler_killed_by_the_oom_killer_is_2_not_125(self):
        # 125 would have git bisect run skip a good commit for the machine's sake.
        self.machine_fault('kernel', {'FAKE_KUNIT_BUILD': 'oom'},
                           '"gcc: fatal error: Killed signal terminated program cc1"',
                           "the kernel's OOM killer killed cc1 (pid 4242)")

    def test_a_full_disk_in_the_kernel_build_is_2_not_125(self):
        self.machine_fault('kernel', {'FAKE_KUNIT_BUILD': 'enospc'},
                           'no space left on device: "fs/.nsfs.o.tmp: No space left on device"')

    def test_a_tool_missing_from_the_kernel_build_is_2_naming_its_package(self):
        self.machine_fault('kernel', {'FAKE_KUNIT_BUILD': 'notool'},
                           'flex is not installed: apt-get install flex')

    def test_a_compiler_that_is_not_installed_is_2_naming_its_package(self):
        self.world.variant.conf['CROSS_COMPILE'] = os.path.join(self.world.tmp, 'riscv64-linux-gnu-')
        with self.assertRaises(runlog.EnvError) as raised:     # cli.main: exit 2
            self.go()
        self.assertIn('riscv64-linux-gnu-gcc is not installed: apt-get install gcc-riscv64-linux-gnu',
                      str(raised.exception))

    def test_a_linker_killed_in_the_kselftest_build_is_2_not_125(self):
        stages = self.machine_fault('selftests', {'FAKE_MAKE_SELFTESTS': 'oom'},
                                    'ld terminated with signal 9 [Killed]')
        self.assertNotIn('guest', stages)

    def test_a_kunit_boot_whose_qemu_the_oom_killer_took_is_2_not_1(self):
        # kunit.py reads the cut console as a crash (1): the machine did it.
        self.machine_fault('kunit', {'FAKE_KUNIT_EXEC': 'oom'},
                           "the kernel's OOM killer killed qemu-system-x86 (pid 4242)")

    def test_a_kunit_qemu_killed_by_sigkill_is_2_with_no_readable_kernel_log(self):
        # A container: no /dev/kmsg, no cgroup file. kunit.py, which ran
        # QEMU, reads the cut stream as a crash (exit 1); QEMU's own end,
        # recorded by ci/pipeline/qemu_status.py, names the machine.
        stages = self.machine_fault(
            'kunit', {'FAKE_KUNIT_EXEC': 'qemu', 'FAKE_QEMU': 'kunit-killed',
                      'NSFD_KMSG': os.path.join(self.world.tmp, 'no-kmsg'),
                      'NSFD_CGROUP_EVENTS': os.path.join(self.world.tmp, 'no-cgroup')},
            'QEMU (qemu, pid ', 'ended by SIGKILL after ', 'before its 300 s limit, not by its test',
            'OOM killer?')
        self.assertEqual(self.world.results()['exit_code'], 2)
        self.assertNotIn('fail', [t['status'] for t in self.world.results()['tests']
                                  if t['source'] == 'kunit'], 'nothing of the cut KTAP is a failure')
        del stages

    def test_a_kunit_qemu_killed_by_sigkill_names_the_cgroups_oom_count(self):
        events = os.path.join(self.world.tmp, 'memory.events')
        with open(events, 'w') as f:
            f.write('low 0\nhigh 0\nmax 0\noom 0\noom_kill 4\n')
        self.machine_fault('kunit', {'FAKE_KUNIT_EXEC': 'qemu', 'FAKE_QEMU': 'kunit-killed',
                                     'NSFD_KMSG': os.path.join(self.world.tmp, 'no-kmsg'),
                                     'NSFD_CGROUP_EVENTS': events},
                           "the OOM killer killed 1 process of this run's cgroup (oom_kill in %s)"
                           % events)

    def test_a_kernel_that_crashes_under_kunits_qemu_is_1_with_no_readable_kernel_log(self):
        # The kernel's panic ends QEMU by itself (panic=-1, -no-reboot): a
        # verdict on the kernel, also where nothing else can be read.
        rc, stages = self.go(FAKE_KUNIT_EXEC='qemu', FAKE_QEMU='kunit-panic',
                             NSFD_KMSG=os.path.join(self.world.tmp, 'no-kmsg'),
                             NSFD_CGROUP_EVENTS=os.path.join(self.world.tmp, 'no-cgroup'))
        self.assertEqual(rc, 1, stages)
        self.assertEqual(stages['kunit'][0], 'fail')

    def test_a_kunit_case_that_hangs_is_a_failed_case_named_and_the_rest_not_run(self):
        # The second suite's case never ends; KUnit's limit (NSFD_BOOT_TIMEOUT,
        # the one place it comes from) ends the boot after 3 s.
        rc, stages = self.go(FAKE_KUNIT_EXEC='qemu', FAKE_QEMU='kunit-hang',
                             NSFD_BOOT_TIMEOUT='3')
        self.assertEqual(rc, 1, stages)
        self.assertEqual(stages['kunit'][0], 'timeout')
        doc = self.world.results()
        kunit = {(t['suite'], t['name']): t for t in doc['tests'] if t['source'] == 'kunit'}
        suites = sorted({s for s, _ in kunit})
        first, hung = suites[0], suites[1]
        self.assertEqual(kunit[(first, first + '_works')]['status'], 'pass', 'kept')
        case = kunit[(hung, hung + '_works')]
        self.assertEqual(case['status'], 'fail')
        self.assertIn("hung: no result within KUnit's limit of 3 s", case['reason'])
        for s in suites[2:]:
            self.assertEqual(kunit[(s, s + '_works')]['status'], 'skip', s)
            self.assertEqual(kunit[(s, s + '_works')]['reason'],
                             'not run because %s.%s_works hung' % (hung, hung))
        self.assertEqual([t for t in doc['tests'] if t['status'] == 'fail'], [case],
                         'the hung case is the one failure: no "(missing)", no failed boot')
        with open(os.path.join(self.world.variant.out, 'kcidb.json')) as f:
            kc = {t['path']: t for t in json.load(f)['tests']}
        self.assertEqual(kc['kunit.exec.%s.%s_works' % (hung, hung)]['status'], 'FAIL')
        self.assertEqual(kc['boot.kunit']['status'], 'PASS', 'the kernel booted')
        junit = open(os.path.join(self.world.variant.out, 'junit.xml')).read()
        self.assertIn('name="%s_works"' % hung, junit)
        # make bisect TEST=<that case>: the step is bad, not skip.
        from ci.bisect import judge
        self.assertEqual(judge.judge(1, os.path.join(self.world.variant.out, 'results.json'),
                                     hung + '_works', [])[0], 'bad')

    def test_a_kunit_run_through_qemu_passes(self):
        rc, stages = self.go(FAKE_KUNIT_EXEC='qemu')
        self.assertEqual(rc, 0, stages)
        with open(os.path.join(self.world.variant.out, 'kunit-qemu.json')) as f:
            self.assertEqual(json.load(f)['rc'], 0)

    def test_a_full_disk_under_results_json_is_2_and_says_so(self):
        rc, _ = self.go(FAKE_ENOSPC='results.json')
        self.assertEqual(rc, 2)
        self.assertIn('report.py variant failed (the machine: no space left on device (writing ',
                      self.world.progress())
        self.assertFalse(os.path.exists(os.path.join(self.world.variant.out, 'results.json')))

    def test_a_report_py_the_machine_killed_is_2_never_137(self):
        # On 742e786 a report.py killed by SIGKILL made `ci/nsfd run` exit
        # 137, none of the four codes; killed just after results.json, its
        # results.json said 0 while the run did not.
        for kill in ('junit.xml', 'results.json', '+results.json'):
            with self.subTest(kill=kill):
                rc, _ = self.go(FAKE_SIGKILL=kill)
                self.assertEqual(rc, 2, self.world.progress())
                self.assertIn('ci/results/report.py killed by SIGKILL (exit 137): not a verdict',
                              self.world.progress())
                self.assertFalse(os.path.exists(os.path.join(self.world.variant.out,
                                                             'results.json')))

    def test_a_full_disk_under_junit_xml_leaves_no_results_json_that_disagrees(self):
        # junit.xml (and so kcidb.json) cannot be written: the run is 2, and
        # no results.json states the 0 or 1 the run does not give (on
        # 742e786 results.json was written first and said 0).
        for full in ('junit.xml', 'kcidb.json', 'kselftest.ktap'):
            with self.subTest(full=full):
                rc, _ = self.go(FAKE_ENOSPC=full)
                self.assertEqual(rc, 2)
                self.assertIn('no space left on device (writing ', self.world.progress())
                out = self.world.variant.out
                self.assertFalse(os.path.exists(os.path.join(out, 'results.json')))
                self.assertFalse([f for f in os.listdir(out) if f.endswith('.new')],
                                 'no temporary file is left behind')

    # Fail closed: a helper that computes an expectation succeeds or the run is 2.

    def test_kunit_objects_that_fail_are_2_never_a_skipped_kunit_stage(self):
        # kunit/append cannot be read, everything else as in the base world.
        append = os.path.join(TOP, 'kunit', 'append')

        def unreadable(kunit_dir):
            raise PermissionError(13, 'Permission denied', append)
        kernel._kunit_objects.cache_clear()         # read once a run: this run's
        self.addCleanup(kernel._kunit_objects.cache_clear)
        with mock.patch.object(kernel, 'kunit_object_rows', unreadable), \
                self.assertRaises(runlog.EnvError) as raised:     # cli.main: exit 2
            self.go()
        self.assertIn('ci/pipeline/kunit_objects.py cannot read %s: [Errno 13] Permission denied'
                      % os.path.join(TOP, 'kunit'), str(raised.exception))
        self.assertNotIn('kunit', self.world.stages(), 'no KUnit stage, skipped or other')
        self.assertFalse(os.path.exists(os.path.join(self.world.variant.out, 'results.json')))

    def test_a_kernel_without_its_config_after_the_build_is_2_not_a_skipped_kunit_stage(self):
        stages = self.machine_fault('kernel', {'FAKE_KUNIT_BUILD': 'noconfig'},
                                    'cannot say which KUnit suites must run')
        self.assertNotIn('kunit', stages)

    def test_a_tree_that_cannot_be_searched_for_assembler_includes_builds_without_ccache(self):
        # The fake tree is no git repository: git grep cannot look.
        self.assertEqual(self.base.variant.cc_nocache, '1', 'ccache off: the safe side')
        self.assertIn('cannot search %s for assembler includes' % self.base.variant.src,
                      self.base.progress())

    def judge(self, rc, deciding, world=None):
        """ci/bisect/judge.py judge on WORLD's results (this case's), as a
        step of ci/bisect/bisect.py does with judge.judge(): its verdict line (skip is exit
        125 to git bisect)."""
        world = world or self.world
        steps = os.path.join(self.world.tmp, 'steps.json')
        with open(steps, 'w') as f:
            json.dump({'steps': [], 'deciding': [deciding]}, f)
        judged = subprocess.run(ci.command('ci.bisect.judge', 'judge', steps, str(rc),
                                           os.path.join(world.variant.out, 'results.json'), ''),
                                capture_output=True, text=True)
        self.assertEqual(judged.returncode, 0, judged.stderr)
        return judged.stdout.split('\n')[0]

    def test_a_deciding_test_skipped_in_a_bisect_step_is_125(self):
        deciding = 'nsfd:proc_ns_test global.works'
        self.assertEqual(self.judge(self.base_rc, deciding, self.base), 'good',
                         'the deciding test is named right')
        rc, _ = self.go(FAKE_QEMU='skip-first')
        self.assertEqual(rc, 0, 'a skip fails nothing')
        self.assertEqual(self.judge(rc, deciding), 'skip')

    def test_a_commit_whose_kunit_suite_does_not_compile_is_125_for_its_tests(self):
        suite = sorted(t['suite'] for t in self.base.results()['tests']
                       if t['source'] == 'kunit')[0]
        deciding = '%s %s_works' % (suite, suite)
        self.assertEqual(self.judge(self.base_rc, deciding, self.base), 'good',
                         'the deciding test is named right')
        rc, stages = self.go(FAKE_MAKE_OBJECTS='fail')
        self.assertEqual(stages['kunit-suites'][0], 'ok')
        self.assertNotEqual(stages['kunit-suites'][1], '0 suite(s) skipped')
        skipped = [t for t in self.world.results()['tests']
                   if t['source'] == 'kunit' and t['suite'] == suite]
        self.assertEqual([t['status'] for t in skipped], ['skip'], skipped)
        self.assertIn("implicit declaration of function 'socketat'", skipped[0]['reason'])
        self.assertEqual(self.judge(rc, deciding), 'skip')


def world_processes(tmp):
    """Pids of processes whose command line names TMP (the fake world's
    builds and guests), other than this one."""
    found = []
    for d in os.listdir('/proc'):
        if d.isdigit() and int(d) != os.getpid():
            try:
                with open('/proc/%s/cmdline' % d, 'rb') as f:
                    if tmp.encode() in f.read():
                        found.append(int(d))
            except OSError:
                pass
    return found


class Stop(unittest.TestCase):
    def test_sigterm_ends_every_process_frees_the_lock_and_is_2(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        p = subprocess.Popen(ci.command('ci.tests.fakes.drive', tmp,
                                        'FAKE_QEMU=hang', 'NSFD_BOOT_TIMEOUT=300'),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.addCleanup(lambda: [os.kill(q, signal.SIGKILL) for q in world_processes(tmp)])
        # The fake QEMU hangs once its console says this.
        console = os.path.join(tmp, 'out', 'x86_64', 'console-kselftest.log')
        if not waits.lines_of(console, 'nsfd-kselftest: begin'):
            p.kill()
            self.fail('the fake guests never started: %s' % p.communicate()[0])
        guests = world_processes(tmp)
        self.assertTrue(guests, 'guests are running')
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=waits.HANG)
        self.assertEqual(p.returncode, 2, out)
        self.assertIn('stopped by SIGTERM', out)
        self.assertEqual(out.rstrip().split('\n')[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        self.assertEqual(world_processes(tmp), [], 'no process of the run is left')
        # The next run starts at once (flock -n): the lock is free.
        lock = subprocess.run(['flock', '-n', os.path.join(tmp, 'build', '.lock'), 'true'])
        self.assertEqual(lock.returncode, 0)


class Decisions(unittest.TestCase):
    """The decisions the fault suite reaches through the stages, where a
    real run's statuses differ from the fakes'."""

    def test_a_guest_killed_by_timeout_is_a_timeout_as_the_shell_says(self):
        from ci.pipeline import decide, procs
        self.assertEqual(procs.status(-9), 137)     # timeout --kill-after's SIGKILL
        self.assertEqual(decide.guest_boot(1, procs.status(-9), 300, 'qemu', '')[0], 'timeout')

    def test_a_timeout_wins_over_another_guests_failure(self):
        from ci.pipeline import decide
        stage = decide.guests([('fail', 'guest 1: qemu exit 1'), ('timeout', 'guest 2: no end')])
        self.assertEqual((stage.status, stage.detail), ('timeout', 'guest 1: qemu exit 1; guest 2: no end'))
        self.assertEqual(decide.guests([('env-error', 'a'), ('fail', 'b')]).status, 'env-error')

    def test_the_robots_job_ends_as_its_boot_says(self):
        from ci.pipeline import decide, procs
        banner = 'Linux version 6.12.0 (robot@localhost)\n'
        self.assertEqual(decide.robot_boot(0, 600, 'qemu', banner).status, 'ok')
        self.assertEqual(decide.robot_boot(procs.status(-9), 600, 'qemu', banner).status, 'timeout')
        self.assertEqual(decide.robot_boot(124, 600, 'qemu', '').status, 'timeout')
        self.assertEqual(decide.robot_boot(1, 600, 'qemu', banner).status, 'fail')
        refused = decide.robot_boot(1, 600, 'qemu', 'qemu: failed to initialize kvm\n')
        self.assertEqual(refused.status, 'env-error')
        self.assertIn('failed to initialize kvm', refused.detail)
        self.assertEqual(decide.robot_boot(127, 600, 'qemu', '').status, 'env-error')

    def test_the_robots_builds_go_through_ccache_as_every_kernel_build(self):
        from ci.pipeline import kernel, procs, robot
        from ci.pipeline.runlog import Say
        calls = []
        saved = procs.run
        procs.run = lambda cmd, **kw: calls.append(cmd) or 0
        try:
            r = robot.Robot(Say(), 'x86_64')
            r.make('all', out=os.devnull)
            r.make('tinyconfig', out=os.devnull, cc=False)
        finally:
            procs.run = saved
        self.assertIn(kernel.kernel_cc(CI, r.conf), calls[0])
        self.assertTrue(calls[0][-1] == 'all' and not [w for w in calls[1] if w.startswith('CC=')])

    def test_only_the_robots_boot_runs_kunit(self):
        from ci.pipeline import arches, qemu
        conf = arches.load('x86_64')
        guest = qemu.command(conf, 'bzImage', 'initrd', 60, extra='')
        robot = qemu.command(conf, 'bzImage', 'initrd', 600, extra='', kunit=True)
        self.assertIn('kunit.enable=0', guest[-1])
        self.assertEqual(robot[-1], 'console=ttyS0 earlyprintk=serial,ttyS0,115200 panic=-1 rdinit=/init')
        self.assertEqual(robot[:-1], guest[:2] + ['600'] + guest[3:-1])

    def test_a_settings_timeout_of_0_is_kept_and_a_given_limit_wins(self):
        from ci.pipeline import decide
        self.assertEqual(decide.guest_limit(2, 0, False), 2 * 17 + 120)
        self.assertEqual(decide.guest_limit(2, None, True), 2 * (45 + 17) + 600)
        self.assertEqual(decide.guest_limit(2, 240, False, '10m'), '10m')

    # Machine faults, decided: 2 with the cause named, never 1 or 125.

    def test_sigkill_before_the_limit_is_the_machine_after_it_a_timeout(self):
        from ci.pipeline import decide
        kills = [(77, 'cc1'), (812, 'qemu-system-x86')]
        status, detail = decide.guest_boot(2, 137, 300, 'qemu-system-x86_64', '', 12.4, kills)
        self.assertEqual(status, 'env-error', 'SIGKILLed at 12 s of 300: not by timeout(1)')
        self.assertEqual(detail, "guest 2: qemu-system-x86_64 ended by SIGKILL after 12 s, before "
                                 "its 300 s limit, not by timeout: the kernel's OOM killer killed "
                                 "qemu-system-x86 (pid 812)")
        # timeout --kill-after's own SIGKILL comes after the limit: a timeout.
        self.assertEqual(decide.guest_boot(1, 137, 300, 'q', '', 310.0, kills)[0], 'timeout')
        self.assertEqual(decide.guest_boot(1, 124, 300, 'q', '', 300.1)[0], 'timeout')
        # A limit of timeout(1)'s other units; no kill in the kernel's log.
        robot = decide.robot_boot(137, '10m', 'qemu', '', 30.0, [])
        self.assertEqual(robot.status, 'env-error')
        self.assertTrue(robot.detail.endswith('before its 600 s limit, not by timeout: '
                                              'killed by SIGKILL before its limit (OOM killer?)'),
                        robot.detail)
        self.assertEqual(decide.robot_boot(137, '10m', 'qemu', '', 601.0).status, 'timeout')
        self.assertEqual([decide.seconds(d) for d in (300, '45', '1.5h', '2d', '10x', '')],
                         [300, 45, 5400, 172800, None, None])

    def test_the_oom_killers_records_are_read_in_every_form(self):
        from ci.pipeline import decide
        log = ('6,700,4000000,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,'
               'mems_allowed=0,global_oom,task_memcg=/user.slice,task=cc1,pid=4242,uid=0\n'
               '3,701,4000001,-;Out of memory: Killed process 4242 (cc1) total-vm:1kB\n'
               '[ 9.1] Memory cgroup out of memory: Killed process 99 (qemu-system-ris) total-vm:1kB\n'
               '[ 9.2] oom-kill:constraint=CONSTRAINT_NONE,task=qemu-system-x86,pid=5,uid=1000\n'
               '[ 9.3] Out of memory: Kill process 6 (ld) score 900 or sacrifice child\n'
               '[ 9.4] Killed process 6 (ld) total-vm:1kB\n')
        self.assertEqual(decide.oom_kills(log),
                         [(4242, 'cc1'), (99, 'qemu-system-ris'), (5, 'qemu-system-x86'), (6, 'ld')])
        self.assertEqual(decide.oom_kills(log, 0), [(4242, 'cc1'), (99, 'qemu-system-ris'), (6, 'ld')],
                         "another user's process (its uid in the log) is not ours")
        self.assertEqual(decide.oom_cause(decide.oom_kills(log, 0), 'qemu-system'),
                         "the kernel's OOM killer killed qemu-system-ris (pid 99)")
        self.assertIsNone(decide.oom_cause([], ''))

    def test_each_machine_fault_in_a_build_log_is_named_and_a_compile_error_is_not(self):
        from ci.pipeline import decide
        killed = [
            'gcc: fatal error: Killed signal terminated program cc1',
            'gcc: internal compiler error: Killed (program cc1)',
            'collect2: fatal error: ld terminated with signal 9 [Killed]',
            'cc1: out of memory allocating 65536 bytes after a total of 0 bytes',
            'virtual memory exhausted: Cannot allocate memory',
            'make[2]: *** [scripts/Makefile.vmlinux:34: vmlinux] Killed',
            'make[2]: *** [scripts/Makefile.vmlinux:34: vmlinux] Error 137',
        ]
        for line in killed:
            with self.subTest(line=line):
                fault = decide.build_fault(2, 'CC fs/nsfs.o\n%s\nmake: *** Error 2\n' % line)
                self.assertEqual(fault, 'killed by the machine: "%s"; the kernel log names no OOM '
                                        'kill (OOM killer?)' % line)
        self.assertIn('the build ended by SIGKILL (exit 137)', decide.build_fault(137, ''))
        for line in ('/usr/bin/ld: final link failed: No space left on device',
                     "cp: error writing 'x': Disk quota exceeded"):
            self.assertEqual(decide.build_fault(1, line + '\n'),
                             'no space left on device: "%s"' % line)
        for line, pkg in (('/bin/sh: 1: flex: not found', 'flex'),
                          ('/bin/sh: line 1: bison: command not found', 'bison'),
                          ('make[1]: riscv64-linux-gnu-gcc: No such file or directory',
                           'gcc-riscv64-linux-gnu'),
                          ('make: No such file or directory', 'make'),
                          ("FileNotFoundError: [Errno 2] No such file or directory: 'make'", 'make')):
            self.assertIn('is not installed: apt-get install %s ' % pkg,
                          decide.build_fault(1, line + '\n'), line)
        # The commit's own failures: build-failed (125), git bisect run skips.
        for log in ('kernel/nsproxy.c:42:1: error: expected expression before \'}\' token\n'
                    'make[3]: *** [scripts/Makefile.build:229: kernel/nsproxy.o] Error 1\n',
                    'fs/nsfs.c:3:10: fatal error: linux/socketat.h: No such file or directory\n',
                    'ld: vmlinux.o: undefined reference to `socketat\'\n',
                    # gcc quoting a line of the code under test
                    "t.c:9:5: error: 'x' undeclared\n    9 |     warn(\"No space left on device\");\n"
                    '      |     ^\n', ''):
            self.assertIsNone(decide.build_fault(2, log), log)
        self.assertEqual(decide.kernel_build(2, False, 'kernel.log', None).status, 'build-failed')
        self.assertEqual(decide.kernel_build(2, False, 'kernel.log', 'x').status, 'env-error')

    def test_a_missing_tool_names_its_debian_package(self):
        from ci.pipeline import decide
        self.assertEqual(decide.missing_tool('/usr/bin/qemu-system-riscv64'),
                         'qemu-system-riscv64 is not installed: apt-get install qemu-system-misc '
                         '(or ci/deps.sh ARCH as root)')
        self.assertIn('apt-get install gcc-x86-64-linux-gnu', decide.missing_tool('x86_64-linux-gnu-gcc'))
        self.assertIn('ci/deps.sh ARCH (as root) installs', decide.missing_tool('frobnicate'))
        # timeout(1)'s 127: QEMU is not there.
        status, detail = decide.guest_boot(1, 127, 300, 'qemu-system-x86_64',
                                           "timeout: failed to run command 'qemu-system-x86_64'",
                                           0.1)
        self.assertEqual(status, 'env-error')
        self.assertIn('apt-get install qemu-system-x86', detail)
        self.assertIn('apt-get install qemu-system-x86',
                      decide.robot_boot(127, 600, 'qemu-system-x86_64', '', 0.1).detail)

    def test_a_kunit_py_that_the_machine_killed_is_2(self):
        from ci.pipeline import decide
        self.assertEqual(decide.kunit_exec(137, '', 'kunit.log').status, 'env-error')
        self.assertEqual(decide.kunit_exec(1, 'crashed', 'kunit.log', [(3, 'cc1')]).status, 'fail',
                         'another process the OOM killer took says nothing of the KUnit boot')
        self.assertEqual(decide.kunit_exec(1, 'crashed', 'kunit.log',
                                           [(3, 'qemu-system-x86')]).status, 'env-error')

    def test_the_kunit_qemus_own_end_names_the_machine_without_a_kernel_log(self):
        from ci.pipeline import decide

        def end(sig, secs, rc=1, text='[ERROR] Test: kernel crashed'):
            return decide.kunit_exec(rc, text, 'kunit.log', (), {
                'pid': 7, 'qemu': '/usr/bin/qemu-system-x86_64', 'rc': -sig if sig else 0,
                'signal': sig or None, 'seconds': secs}, 300)
        killed = end(9, 12.0)
        self.assertEqual(killed.status, 'env-error')
        self.assertIn('QEMU (qemu-system-x86_64, pid 7) ended by SIGKILL after 12 s, before its '
                      '300 s limit, not by its test: the host kernel log cannot be read or names '
                      'no OOM kill (OOM killer?)', killed.detail)
        self.assertEqual(end(11, 3.0).status, 'env-error', 'QEMU crashed: not the kernel')
        # kunit.py's own timeout ends QEMU with SIGTERM: the kernel's.
        self.assertEqual(end(15, 300.0, text='Timeout').status, 'timeout')
        self.assertEqual(end(9, 301.0).status, 'fail', 'a SIGKILL after the limit is no machine fault')
        self.assertEqual(end(0, 2.0).status, 'fail', 'QEMU ended by itself: the kernel crashed')
        self.assertEqual(end(9, 1.0, rc=0).status, 'ok', "kunit.py's 0 stands")

    def test_the_cgroups_oom_kill_counter_is_read_where_it_exists(self):
        from ci.pipeline import machine
        with tempfile.TemporaryDirectory() as d:
            proc = os.path.join(d, 'cgroup')
            with open(proc, 'w') as f:
                f.write('0::/user.slice/run-1.scope\n')
            self.assertEqual(machine.cgroup_events_files(proc, '/sys/fs/cgroup')[:2], [
                '/sys/fs/cgroup/user.slice/run-1.scope/memory.events', '/sys/fs/cgroup/memory.events'])
            with open(proc, 'w') as f:
                f.write('4:memory:/docker/abc\n0::/\n')
            self.assertEqual(machine.cgroup_events_files(proc, '/c')[0],
                             '/c/memory/docker/abc/memory.oom_control')
            events = os.path.join(d, 'memory.events')
            with open(events, 'w') as f:
                f.write('oom 0\noom_kill 2\n')
            with mock.patch.dict(os.environ, {'NSFD_CGROUP_EVENTS': events}):
                c = machine.OomCounter()
                self.assertEqual((c.count(), c.cause()), (0, None))
                with open(events, 'w') as f:
                    f.write('oom 1\noom_kill 3\n')
                self.assertEqual(c.count(), 1)
            with mock.patch.dict(os.environ, {'NSFD_CGROUP_EVENTS': os.path.join(d, 'none')}):
                self.assertIsNone(machine.OomCounter().count())

    def test_the_kernel_log_is_read_from_the_stage_start_only(self):
        from ci.pipeline import machine
        with tempfile.TemporaryDirectory() as d:
            kmsg = os.path.join(d, 'kmsg')
            with open(kmsg, 'w') as f:
                f.write('3,1,1,-;Out of memory: Killed process 1 (before) total-vm:1kB\n')
            saved = os.environ.get('NSFD_KMSG')
            os.environ['NSFD_KMSG'] = kmsg
            try:
                log = machine.KernelLog()
                with open(kmsg, 'a') as f:
                    f.write('3,2,2,-;Out of memory: Killed process 2 (during) total-vm:1kB\n'
                            ' SUBSYSTEM=memory\n')
                self.assertEqual(log.read(), 'Out of memory: Killed process 2 (during) '
                                             'total-vm:1kB\n SUBSYSTEM=memory\n')
                self.assertEqual(log.read(), '', 'read once')
                os.environ['NSFD_KMSG'] = os.path.join(d, 'none')
                self.assertEqual(machine.KernelLog().read(), '', 'an unreadable log is empty')
            finally:
                if saved is None:
                    os.environ.pop('NSFD_KMSG')
                else:
                    os.environ['NSFD_KMSG'] = saved

    def test_each_guest_is_timed_when_it_ends_not_when_the_one_before_it_does(self):
        from unittest import mock
        from ci.pipeline import bootwatch

        class Child:
            pid = 0

            def __init__(self, polls, rc):
                self.polls, self.rc, self.returncode = polls, rc, None

            def poll(self):
                self.polls -= 1
                if self.polls <= 0:
                    self.returncode = self.rc
                return self.returncode
        clock = iter(range(1000))
        first, second = Child(3, -9), Child(1, 0)     # the second ends first
        boots = [bootwatch.Boot('guest %d' % n, 'guest', c, '/nonexistent', started=0)
                 for n, c in ((1, first), (2, second))]
        with mock.patch.object(bootwatch.time, 'monotonic', lambda: next(clock)), \
                mock.patch.object(bootwatch.time, 'sleep', lambda s: None):
            bootwatch.watch(boots, 10 ** 6, lambda line: None, 'x86_64: guest')
        self.assertEqual([b.rc for b in boots], [137, 0])
        self.assertLess(boots[1].seconds, boots[0].seconds)

    def test_an_os_error_of_the_machine_is_named_and_a_bug_is_not(self):
        import errno
        self.assertEqual(model.machine_fault(OSError(errno.ENOSPC, 'x', 'out/x/results.json')),
                         'no space left on device (writing out/x/results.json)')
        self.assertEqual(model.machine_fault(OSError(errno.EDQUOT, 'x')), 'disk quota exceeded')
        self.assertEqual(model.machine_fault(MemoryError()), 'out of memory')
        self.assertIsNone(model.machine_fault(OSError(errno.EISDIR, 'x')))
        self.assertIsNone(model.machine_fault(KeyError('exit_code')))

    def test_a_merge_on_a_full_disk_is_2_and_says_so(self):
        with tempfile.TemporaryDirectory() as d:
            # kcidb.json meets a full disk (fakes/site/sitecustomize.py).
            run = subprocess.run(ci.command('ci.results.merge', '--out', os.path.join(d, 'merged'),
                                            os.path.join(d, 'none')), capture_output=True, text=True,
                                 env=dict(os.environ, FAKE_ENOSPC='kcidb.json', PYTHONPATH=os.pathsep.join(
                                     [TOP, os.path.join(FAKES, 'site')])))
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn('merge: failed (the machine: no space left on device (writing ', run.stdout)
        self.assertEqual(run.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')

    # Fail closed, decided.

    def test_kunit_objects_that_list_fewer_suites_than_kunit_declares_are_2(self):
        kunit = os.path.join(TOP, 'kunit')
        kernel._kunit_objects.cache_clear()
        self.addCleanup(kernel._kunit_objects.cache_clear)
        one = [('NSFS_KUNIT_TEST', 'fs/nsfs.o', 'nsfs.c', ('nsfs',))]     # one suite of kunit/ only
        with mock.patch.object(kernel, 'kunit_object_rows', lambda d: one), \
                self.assertRaises(runlog.EnvError) as raised:
            kernel._kunit_objects(kunit)
        self.assertIn('lists no object for the KUnit suite(s) proc_ns, nsproxy', str(raised.exception))
        kernel._kunit_objects.cache_clear()
        with mock.patch.object(kernel, 'kunit_object_rows', lambda d: []), \
                self.assertRaises(runlog.EnvError):
            kernel._kunit_objects(kunit)
        kernel._kunit_objects.cache_clear()
        self.assertTrue(kernel._kunit_objects(kunit), 'the real one')

    def test_an_expected_list_that_cannot_be_read_is_2_not_empty(self):
        with tempfile.TemporaryDirectory() as top:
            self.assertRaises(ValueError, expected.kselftests, top)
            self.assertRaises(ValueError, expected.kunit_suites, top)
            with open(os.path.join(top, 'stages.tsv'), 'w') as f:
                f.write('kernel\tok\t1.0\t\nguest\tok\t1.0\t\n')
            out = subprocess.run(ci.command('ci.results.report', 'variant', top, '--arch', 'x86_64',
                                            '--variant', 'x86_64', '--patched', '--sources', top),
                                 capture_output=True, text=True)
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertIn('lists no TEST_GEN_PROGS', out.stderr)

    def test_the_robots_git_and_config_misses_fail_closed(self):
        from ci.pipeline import robot
        r = robot.Robot(runlog.Say(io.StringIO()), 'x86_64')
        r.src = os.path.join(tempfile.gettempdir(), 'nsfd-no-such-tree')
        with self.assertRaises(runlog.EnvError):
            r.git('rev-parse', 'nsfd-base')
        self.assertEqual(r.git('am', '--abort', may_fail=True), '')
        self.assertIsNone(r.config_misses('/nonexistent/config', '/nonexistent/.config'),
                          'no list, not an empty one')

    # One code per situation.

    def test_a_missing_results_json_is_2_in_make_tests_summary_as_in_merge(self):
        with tempfile.TemporaryDirectory() as d:
            summary = subprocess.run(ci.command('ci.results.report', 'summary',
                                                os.path.join(d, 'results.json')),
                                     capture_output=True, text=True)
            merge = subprocess.run(ci.command('ci.results.merge', '--out', os.path.join(d, 'merged'), d),
                                   capture_output=True, text=True)
        self.assertEqual((summary.returncode, merge.returncode), (2, 2), summary.stdout + merge.stdout)
        self.assertIn('nothing was judged there', summary.stdout)

    def test_make_test_honours_its_childrens_own_exits(self):
        from ci.pipeline import cli

        def make_test(pipeline, robot, summary=0):
            saved = (cli.Variant, cli.prepare_deps, cli.Run.prepare_tree, cli.procs.run,
                     cli.start_pipeline_tests, cli.summary)
            cli.Variant = lambda run, arch, debug=False, config='': mock_variant(run, arch)
            cli.prepare_deps = lambda *a: None
            cli.Run.prepare_tree = lambda self: None
            cli.start_pipeline_tests = lambda: mock.Mock(wait=lambda: pipeline)
            cli.procs.run = lambda cmd, **kw: robot
            cli.summary = lambda *results: summary
            try:
                return cli.cmd_test(lambda msg: None, cli.parse(['test'])[1])
            finally:
                (cli.Variant, cli.prepare_deps, cli.Run.prepare_tree, cli.procs.run,
                 cli.start_pipeline_tests, cli.summary) = saved

        class mock_variant:
            def __init__(self, run, arch):
                self.out = os.path.join(run.out_root, arch)

            def run_all(self):
                return 0
        self.assertEqual(make_test(0, 0), 0)
        self.assertEqual(make_test(0, 2), 2, 'a robot environment error is 2, not 1')
        self.assertEqual(make_test(0, 137), 2, 'a robot killed by SIGKILL is 2')
        self.assertEqual(make_test(2, 0), 2, 'pipeline tests that could not run')
        self.assertEqual(make_test(0, 125), 125)
        self.assertEqual(make_test(0, 2, summary=1), 1, '1 wins')

    def test_ci_run_keeps_ci_nsfds_exit_codes(self):
        with open(os.path.join(TOP, '.ci', 'run')) as f:
            lines = [l for l in f.read().splitlines() if l.strip() and not l.startswith('#')]
        self.assertEqual(lines[-1], 'exec ci/nsfd test', 'not make test: make turns 1/125 into 2')
        self.assertFalse([l for l in lines if 'make' in l.split()], lines)

    def test_the_robots_mail_that_does_not_apply_or_build_is_125_a_killed_compiler_2(self):
        from ci.pipeline import robot
        with tempfile.TemporaryDirectory() as out:
            r = robot.Robot(runlog.Say(io.StringIO()), 'x86_64')
            r.out = out
            for log, text, status in (
                    ('apply.log', 'error: patch failed: net/socket.c:1\n', 'build-failed'),
                    ('kernel.log', "net/socket.c:9:1: error: expected ';'\n", 'build-failed'),
                    ('kernel.log', 'gcc: fatal error: Killed signal terminated program cc1\n',
                     'env-error'),
                    ('selftests.log', '/bin/sh: 1: bison: not found\n', 'env-error')):
                with open(os.path.join(out, log), 'w') as f:
                    f.write(text)
                self.assertEqual(r.not_built(log, 'x').status, status, text)
            # judge.py: the stage's 125 is the robot's exit.
            with open(os.path.join(out, 'stages.tsv'), 'w') as f:
                f.write('series\tok\t1\t\napply\tok\t1\t\nconfig\tok\t1\t\n'
                        'kernel\tbuild-failed\t9\tthe mailed tree does not build\n')
            open(os.path.join(out, 'config-misses.tsv'), 'w').close()
            run = subprocess.run(ci.command('ci.robot.judge', out, TOP, 'x86_64'),
                                 capture_output=True, text=True, timeout=waits.HANG)
        self.assertEqual(run.returncode, 125, run.stdout + run.stderr)


class Tree(unittest.TestCase):
    """ci/prepare-tree.sh on a small tarball (NSFD_TARBALL): a series that
    does not apply is 125, a full disk under git am is 2."""

    def prepare(self, git_am_disk_full=False):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        tree = os.path.join(tmp, 'linux-source-6.12')
        os.makedirs(os.path.join(tree, 'kernel'))
        with open(os.path.join(tree, 'Makefile'), 'w') as f:
            f.write('# not the kernel the series applies to\n')
        subprocess.run(['tar', '-cJf', os.path.join(tmp, 'linux.tar.xz'), '-C', tmp,
                        'linux-source-6.12'], check=True)
        env = dict(os.environ, NSFD_TARBALL=os.path.join(tmp, 'linux.tar.xz'))
        if git_am_disk_full:
            bin_dir = os.path.join(tmp, 'bin')
            os.mkdir(bin_dir)
            with open(os.path.join(bin_dir, 'git'), 'w') as f:
                f.write('#!/bin/sh\nfor a; do [ "$a" = am ] && { echo "error: unable to write '
                        'file .git/rebase-apply/patch: No space left on device" >&2; exit 128; }; '
                        'done\nexec %s "$@"\n' % shutil.which('git'))
            os.chmod(os.path.join(bin_dir, 'git'), 0o755)
            env['PATH'] = bin_dir + os.pathsep + env['PATH']
        return subprocess.run([os.path.join(CI, 'prepare-tree.sh'), os.path.join(tmp, 'src')],
                              capture_output=True, text=True, env=env, timeout=waits.HANG)

    def test_a_series_that_does_not_apply_is_125(self):
        run = self.prepare()
        self.assertEqual(run.returncode, 125, run.stdout + run.stderr)
        self.assertIn('does not apply to', run.stderr)

    def test_a_full_disk_under_git_am_is_2_not_125(self):
        run = self.prepare(git_am_disk_full=True)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertIn('no space left on device (git am)', run.stderr)


class ExitTable(unittest.TestCase):
    """docs/exit-codes.md: each situation's code on every path, each row
    naming the make check cases that cover it."""
    COLUMNS = ['situation', 'run', 'test', 'merge', 'robot', 'bisect step', 'covered by']
    CODE = re.compile(r'^(?:0|1|2|125|good|bad|skip|abort|—)(?:; (?:0|1|2|125))?(?: \(.*\))?$')
    CASE = re.compile(r'`(test_\w+)\.(\w+)\.(test_\w+)`')

    def rows(self):
        with open(os.path.join(TOP, 'docs', 'exit-codes.md')) as f:
            lines = [l for l in f.read().splitlines() if l.startswith('|')]
        head = [c.strip() for c in lines[0].strip('|').split('|')]
        self.assertEqual(head, self.COLUMNS)
        return [[c.strip() for c in l.strip('|').split('|')] for l in lines[2:]]

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def cases(module):
        """{class: {test methods}} of ci/tests/MODULE.py, inherited ones too."""
        with open(os.path.join(HERE, module + '.py')) as f:
            tree = ast.parse(f.read())
        classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}

        def methods(name):
            c = classes.get(name)
            if c is None:
                return set()
            own = {f.name for f in c.body if isinstance(f, ast.FunctionDef)}
            for base in c.bases:
                if isinstance(base, ast.Name):
                    own |= methods(base.id)
            return own
        return {name: methods(name) for name in classes}

    def problems(self, row):
        """What is wrong with one row of the table: a code that is none,
        a case that does not exist, no case and no 'pending: ' why (which
        test_every_case_the_exit_table_names_exists then refuses)."""
        if len(row) != len(self.COLUMNS):
            return ['%d columns, not %d' % (len(row), len(self.COLUMNS))]
        out = ['%r is no code' % cell for cell in row[1:-1] if not self.CODE.match(cell)]
        named = self.CASE.findall(row[-1])
        if not named and not row[-1].startswith('pending: '):
            out.append('names no case that covers it, and no "pending: " why')
        for module, cls, test in named:
            if not os.path.exists(os.path.join(HERE, module + '.py')):
                out.append('no ci/tests/%s.py' % module)
            elif test not in self.cases(module).get(cls, set()):
                out.append('%s.%s.%s is no make check case' % (module, cls, test))
        return out

    def test_every_case_the_exit_table_names_exists(self):
        rows = self.rows()
        self.assertGreater(len(rows), 20)
        for row in rows:
            self.assertEqual(self.problems(row), [], row[0])
        self.assertEqual([row[0] for row in rows if row[-1].startswith('pending')], [],
                         'every row names the cases that cover it')

    def test_a_row_naming_a_case_that_does_not_exist_is_caught(self):
        row = ['x', '2', '2', '2', '—', 'abort']
        self.assertEqual(self.problems(row + ['`test_faults.Faults.test_nothing`']),
                         ['test_faults.Faults.test_nothing is no make check case'])
        self.assertEqual(self.problems(row + ['`test_nowhere.Faults.test_x`']),
                         ['no ci/tests/test_nowhere.py'])
        self.assertEqual(len(self.problems(row + ['the fault suite'])), 1)
        self.assertEqual(self.problems(['x', '3', '2', '2', '—', 'abort',
                                        '`test_bisect.Judge.test_deciding_test_failing_is_bad`']),
                         ["'3' is no code"])
