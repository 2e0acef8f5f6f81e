"""A driver's stop (ci/pipeline/procs.py), with orphans: processes whose
parent ended before them, as `git bisect run` ends before the step it
runs, each holding build/.lock's descriptor as that step does.

A driver (ci/nsfd, make bisect and its steps, make mutants) is the child
subreaper of its tree: an orphan comes to it, not to init, so its stop
finds it, ends it and reaps it, and only then exits. "build/.lock is free
at once" is checked here as a fact: flock -n right after the driver's
exit, and no process of the tree left, not even a zombie.
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import unittest

from ci.tests.waits import HANG, in_session, kill_at_end, present

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)

# usage: driver.py TOP MODE ORPHAN (ci.pipeline from the PYTHONPATH this
# process hands down, ci/__init__.py). Holds TOP/build/.lock, installs
# the stop, starts orphans (a shell that starts them and ends at once)
# with the lock and a pipe on which each says "PID STARTTIME" when it is
# ready; prints those lines and how many descendants it sees, then:
#   stop    waits for a signal (two orphans: one slow to stop, one that
#           ignores SIGTERM);
#   exit    ends by itself, its orphan still running;
#   status  also starts a child of its own that exits 3, reaps the
#           orphans (procs.stop_tree) while that child is a zombie, and
#           prints the child's status as its caller reads it.
DRIVER = r'''
import os, signal, sys
top, mode, orphan = sys.argv[1:4]
from ci.pipeline import procs, runlog
procs.hold_build_lock(top, runlog.Say())
procs.stop_on_signals()
procs.GRACE = 2         # the stubborn orphan's SIGKILL
kinds = ['slow', 'stubborn'] if mode == 'stop' else ['slow']
r, w = os.pipe()
procs.run(['sh', '-c', ' '.join('"$0" "$1" %s %d >/dev/null 2>&1 &' % (k, w) for k in kinds),
           sys.executable, orphan], pass_fds=(procs.LOCK_FD, w))
os.close(w)
with os.fdopen(r) as f:
    for line in f:
        print('orphan', line.strip())
print('descendants', len(procs.descendants(os.getpid())), flush=True)
if mode == 'status':
    child = procs.popen(['sh', '-c', 'exit 3'])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    procs.stop_tree()
    print('status', procs.status(child.wait()), flush=True)
if mode == 'stop':
    while True:
        signal.pause()
'''

ORPHAN = r'''
import os, signal, sys, time
kind, fd = sys.argv[1], int(sys.argv[2])
def slow(*_):
    # A slow stop, as a step of make bisect stopping its own tree (and
    # deaf to the signals its driver sends again meanwhile).
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(1)
    os._exit(0)
signal.signal(signal.SIGTERM, signal.SIG_IGN if kind == 'stubborn' else slow)
with open('/proc/self/stat') as f:
    start = f.read().rsplit(')', 1)[1].split()[19]
os.write(fd, ('%d %s\n' % (os.getpid(), start)).encode())
os.close(fd)
while True:
    signal.pause()
'''


class Stop(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.top = tmp.name
        for name, text in (('driver.py', DRIVER), ('orphan.py', ORPHAN)):
            with open(os.path.join(self.top, name), 'w') as f:
                f.write(text)

    def start(self, mode):
        """The driver in MODE, in a session of its own (waits.in_session),
        its output read up to its "descendants" line; (the Popen, its
        orphans as (pid, starttime), the descendants it saw)."""
        p = subprocess.Popen([sys.executable, '-B', os.path.join(self.top, 'driver.py'),
                              self.top, mode, os.path.join(self.top, 'orphan.py')],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        in_session(self, p)
        orphans, seen = [], None
        for line in p.stdout:
            word, _, rest = line.strip().partition(' ')
            if word == 'orphan':
                pid, start = rest.split()
                orphans.append((int(pid), start))
                kill_at_end(self, int(pid), start)
            elif word == 'descendants':
                seen = int(rest)
                break
        self.assertIsNotNone(seen, 'the driver never got its orphans ready')
        return p, orphans, seen

    def assert_all_ended(self, orphans):
        """Nothing of the tree is left, not even a zombie, and the next
        run takes the lock without waiting."""
        lock = subprocess.run(['flock', '-n', os.path.join(self.top, 'build', '.lock'), 'true'])
        self.assertEqual(lock.returncode, 0, 'build/.lock is still held')
        for pid, start in orphans:
            self.assertIsNone(present(pid, start), 'orphan %d is still there' % pid)

    def test_sigterm_ends_every_orphan_then_exits_2_with_the_lock_free(self):
        p, orphans, seen = self.start('stop')
        self.assertEqual(len(orphans), 2)
        self.assertEqual(seen, 2, 'the orphans came to the driver')
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=HANG), 2)
        self.assert_all_ended(orphans)
        out = p.stdout.read()
        self.assertIn('nsfd: stopped by SIGTERM: every process of this run has ended', out)
        self.assertEqual(out.rstrip().split('\n')[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')

    def test_a_driver_that_ends_by_itself_ends_what_its_tree_left(self):
        p, orphans, _ = self.start('exit')
        self.assertEqual(p.wait(timeout=HANG), 0)
        self.assert_all_ended(orphans)

    def test_reaping_the_orphans_leaves_a_started_childs_status_to_its_caller(self):
        # Reaped by anything but its Popen, the child would read as 0.
        p, orphans, _ = self.start('status')
        self.assertEqual(p.stdout.readline().strip(), 'status 3')
        self.assertEqual(p.wait(timeout=HANG), 0)
        self.assert_all_ended(orphans)


class ShellLock(unittest.TestCase):
    def test_a_git_under_the_lock_collects_its_garbage_before_it_exits(self):
        # ci/build-lock.sh's holders (make series) hand fd 9 to every child:
        # a gc --auto that detached would hold the lock after they end.
        with tempfile.TemporaryDirectory() as top:
            p = subprocess.run(['bash', '-c', '. "$0"; hold_build_lock "$1" && '
                                'git config --get gc.autoDetach; hold_build_lock "$1" && '
                                'git config --get-all gc.autoDetach',
                                os.path.join(CI, 'build-lock.sh'), top],
                               capture_output=True, text=True, timeout=HANG)
            self.assertEqual((p.returncode, p.stdout), (0, 'false\nfalse\n'), p.stderr)
            lock = subprocess.run(['flock', '-n', os.path.join(top, 'build', '.lock'), 'true'])
            self.assertEqual(lock.returncode, 0)


if __name__ == '__main__':
    unittest.main()


# usage: holder.py TOP MODE: holds TOP/build/.lock (command "ci/nsfd
# test"), then MODE: "orphan" starts a child through procs.popen, prints
# its pid and SIGKILLs itself; "hold" prints "held" and waits.
HOLDER = r'''
import os, signal, sys, time
top, mode = sys.argv[1:3]
from ci.pipeline import procs, runlog
procs.hold_build_lock(top, runlog.Say(), command='ci/nsfd test')
if mode == 'orphan':
    child = procs.popen(['sleep', '600'])
    print(child.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
print('held', os.getpid(), flush=True)
while True:
    signal.pause()
'''


class Lock(unittest.TestCase):
    """build/.lock (ci/pipeline/procs.py): taken before anything is
    written, inherited by the children, and a run that waits says whose
    run it waits for."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.top = tmp.name
        self.lock = os.path.join(self.top, 'build', '.lock')
        with open(os.path.join(self.top, 'holder.py'), 'w') as f:
            f.write(HOLDER)

    def holder(self, mode):
        p = subprocess.Popen([sys.executable, '-B', os.path.join(self.top, 'holder.py'),
                              self.top, mode], stdout=subprocess.PIPE, text=True,
                             start_new_session=True)
        in_session(self, p)
        return p, p.stdout.readline().split()

    def free(self):
        return subprocess.run(['flock', '-n', self.lock, 'true']).returncode == 0

    def test_a_driver_killed_by_sigkill_leaves_the_lock_to_its_last_child(self):
        p, (pid,) = self.holder('orphan')
        pid = int(pid)
        with open('/proc/%d/stat' % pid) as f:
            kill_at_end(self, pid, f.read().rsplit(')', 1)[1].split()[19])
        self.assertEqual(p.wait(timeout=HANG), -signal.SIGKILL)
        self.assertFalse(self.free(), 'the driver is gone, its child (make, QEMU) still writes')
        os.kill(pid, signal.SIGKILL)
        for _ in range(int(HANG * 10)):
            if self.free():
                break
            import time
            time.sleep(0.1)
        self.assertTrue(self.free(), 'free once its last child has ended')

    def test_a_run_that_waits_says_whose_run_it_waits_for_and_since_when(self):
        p, (word, pid) = self.holder('hold')
        self.assertEqual(word, 'held')
        waiter = subprocess.run(
            [sys.executable, '-B', '-c', 'import sys\nfrom ci.pipeline import procs, runlog\n'
             'try:\n    procs.hold_build_lock(sys.argv[1], runlog.Say(), wait=1)\n'
             'except runlog.EnvError as e:\n    print(e)', self.top],
            capture_output=True, text=True, timeout=HANG)
        self.assertRegex(waiter.stdout, r'waiting for another nsfd run to release %s: pid %s '
                         r'\(ci/nsfd test\), since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC'
                         % (re.escape(self.lock), pid))
        self.assertIn('still held after 1 s by pid %s (ci/nsfd test)' % pid, waiter.stdout)
        # The shell's holders (make series) say the same.
        sh = subprocess.run(['bash', '-c', '. "$0"; NSFD_LOCK_WAIT=1 hold_build_lock "$1"; echo "rc $?"',
                             os.path.join(CI, 'build-lock.sh'), self.top],
                            capture_output=True, text=True, timeout=HANG)
        self.assertIn('release %s: pid %s (ci/nsfd test), since ' % (self.lock, pid), sh.stdout)
        self.assertIn('rc 1', sh.stdout)
        p.kill()
        p.wait()

    def test_every_entry_point_holds_the_lock_before_it_writes(self):
        from unittest import mock
        from ci.pipeline import cli, procs, robot, runlog
        order = []

        def lock(*_a, **_k):
            order.append('lock')

        def tests():
            order.append('pipeline tests')
            raise runlog.EnvError('stop here')
        with mock.patch.object(cli, 'setup_env'), mock.patch.object(procs, 'stop_on_signals'), \
                mock.patch.object(cli, 'prepare_deps'), \
                mock.patch.object(cli, 'start_pipeline_tests', tests), \
                mock.patch.object(procs, 'hold_build_lock', lock), \
                mock.patch.dict(os.environ), mock.patch('sys.stdout'):
            self.assertEqual(cli.main(['test']), 2)
        self.assertEqual(order[:2], ['lock', 'pipeline tests'],
                         'ci/nsfd test: the lock before its tests rewrite out/pipeline/')
        # ci/nsfd robot: the lock before out/robot-ARCH/ is emptied.
        r = robot.Robot(runlog.Say(stream=open(os.devnull, 'w')), 'x86_64')
        r.out = os.path.join(self.top, 'out', 'robot-x86_64')
        os.makedirs(r.out)
        open(os.path.join(r.out, 'results.json'), 'w').close()
        seen = []

        def robot_lock(*_a, **_k):
            seen.append(sorted(os.listdir(r.out)))
            raise runlog.EnvError('stop here')
        with mock.patch.object(procs, 'hold_build_lock', robot_lock), \
                mock.patch.object(procs, 'run', lambda *a, **k: 0):
            self.assertRaises(runlog.EnvError, r.run)
        self.assertEqual(seen, [['results.json']], "the robot's last results still there")
