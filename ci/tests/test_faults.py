"""The fault suite: the real stage code of ci/pipeline/ (variant, kernel,
guest, qemu, decide, procs) and the real ci/results/report.py, run against a fake
kernel tree, a fake kunit.py and a fake QEMU (ci/tests/fakes/), one fault
at a time. Each case is an exit path of the contract: 0 all passed, 1 a
test failed, 125 nothing could be built (git bisect skips), 2 nothing was
judged."""

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)
FAKES = os.path.join(HERE, 'fakes')
sys.path.insert(0, CI)
import waits  # noqa: E402
from pipeline import runlog  # noqa: E402
from pipeline.variant import Run, Variant  # noqa: E402

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
    if 'dir' in _vmlinux:
        shutil.rmtree(_vmlinux['dir'])


class World:
    """A temporary fake kernel tree and out/ for one variant of the real
    pipeline. ENV is the fault (FAKE_*), set for the run only."""

    def __init__(self, tmp, arch='x86_64', config=''):
        self.tmp = tmp
        src = os.path.join(tmp, 'bld', 'src')
        os.makedirs(os.path.join(src, 'tools', 'testing', 'kunit'))
        shutil.copy(os.path.join(FAKES, 'Makefile'), src)
        os.symlink(os.path.join(FAKES, 'kunit.py'),
                   os.path.join(src, 'tools', 'testing', 'kunit', 'kunit.py'))
        self.out_lines = []
        self.stream = open(os.path.join(tmp, 'progress.log'), 'w+')
        run = Run(TOP, runlog.Say(self.stream), kernel_src=src,
                  out_root=os.path.join(tmp, 'out'))
        run.bld, run.src = os.path.join(tmp, 'bld'), src
        run.tree_rc, run.tree_secs, run.tree_head = 'ok', '0.1', None
        run.jobs = 2
        self.run = run
        self.variant = v = self.another(arch, config)
        # The fakes' `#!/usr/bin/env python3` finds this interpreter, not a
        # wrapper in front of it (pyenv's shim costs 0.4 s a start).
        self.env = {'PATH': os.path.dirname(sys.executable) + os.pathsep + os.environ['PATH'],
                    'FAKE_CI': CI, 'FAKE_VMLINUX': fake_vmlinux(),
                    'FAKE_IMAGE': v.conf['KERNEL_IMAGE'], 'NSFD_GUESTS': '1',
                    'NSFD_PROGRESS_SECS': '30'}

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

    def judge(self, rc, deciding, world=None):
        """ci/bisect/verdict.py judge on WORLD's results (this case's), as a
        step of ci/bisect/bisect.py does with verdict.judge(): its verdict line (skip is exit
        125 to git bisect)."""
        world = world or self.world
        steps = os.path.join(self.world.tmp, 'steps.json')
        with open(steps, 'w') as f:
            json.dump({'steps': [], 'deciding': [deciding]}, f)
        judged = subprocess.run([sys.executable, os.path.join(CI, 'bisect', 'verdict.py'), 'judge',
                                 steps, str(rc), os.path.join(world.variant.out, 'results.json'),
                                 ''], capture_output=True, text=True)
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
        p = subprocess.Popen([sys.executable, os.path.join(FAKES, 'drive.py'), tmp,
                              'FAKE_QEMU=hang', 'NSFD_BOOT_TIMEOUT=300'],
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
        from pipeline import decide, procs
        self.assertEqual(procs.status(-9), 137)     # timeout --kill-after's SIGKILL
        self.assertEqual(decide.guest_boot(1, procs.status(-9), 300, 'qemu', '')[0], 'timeout')

    def test_a_timeout_wins_over_another_guests_failure(self):
        from pipeline import decide
        stage = decide.guests([('fail', 'guest 1: qemu exit 1'), ('timeout', 'guest 2: no end')])
        self.assertEqual((stage.status, stage.detail), ('timeout', 'guest 1: qemu exit 1; guest 2: no end'))
        self.assertEqual(decide.guests([('env-error', 'a'), ('fail', 'b')]).status, 'env-error')

    def test_the_robots_job_ends_as_its_boot_says(self):
        from pipeline import decide, procs
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
        from pipeline import kernel, procs, robot
        from pipeline.runlog import Say
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
        from pipeline import arches, qemu
        conf = arches.load('x86_64')
        guest = qemu.command(conf, 'bzImage', 'initrd', 60, extra='')
        robot = qemu.command(conf, 'bzImage', 'initrd', 600, extra='', kunit=True)
        self.assertIn('kunit.enable=0', guest[-1])
        self.assertEqual(robot[-1], 'console=ttyS0 panic=-1 rdinit=/init')
        self.assertEqual(robot[:-1], guest[:2] + ['600'] + guest[3:-1])

    def test_a_settings_timeout_of_0_is_kept_and_a_given_limit_wins(self):
        from pipeline import decide
        self.assertEqual(decide.guest_limit(2, 0, False), 2 * 17 + 120)
        self.assertEqual(decide.guest_limit(2, None, True), 2 * (45 + 17) + 600)
        self.assertEqual(decide.guest_limit(2, 240, False, '10m'), '10m')
