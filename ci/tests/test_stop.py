"""A run told to stop ends its whole process tree and frees build/.lock
(ci/stop-on-signal.sh, which ci/nsfd sources), whatever it was doing."""

import os
import signal
import subprocess
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
STOP = os.path.join(HERE, '..', 'stop-on-signal.sh')

# What a run looks like while it works: build/.lock held on fd 9, a
# background job with a child of its own (a kernel build), QEMU under
# timeout(1) in a process group of its own, and a long foreground command
# (kunit.py exec). Each prints its pid so the test can look for it after.
RUN = r'''
set -uo pipefail
%(before)s
. "%(stop)s"
exec 9>"%(lock)s"
flock -n 9 || exit 99
( sleep 300 & echo "pid $!"; wait ) &
echo "pid $!"
timeout 300 sleep 300 &
echo "pid $!"
echo ready
interruptible sleep 300
echo "not stopped"
'''


def default_signals():
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().split(')')[-1].split()[0] != 'Z'
    except OSError:
        return False


class StopOnSignal(unittest.TestCase):
    def run_and_stop(self, sig, before=''):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        lock = os.path.join(tmp.name, '.lock')
        script = os.path.join(tmp.name, 'run.sh')
        with open(script, 'w') as f:
            f.write(RUN % {'stop': STOP, 'lock': lock, 'before': before})
        # A shell cannot trap a signal ignored when it starts (nohup ignores
        # SIGHUP, a background job SIGINT): the run under test starts with
        # all three at their defaults, as from a terminal or a CI runner.
        p = subprocess.Popen(['bash', script], stdout=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=default_signals)
        self.addCleanup(lambda: p.poll() is None and os.killpg(p.pid, signal.SIGKILL))
        pids = []
        for line in p.stdout:
            if line.startswith('pid '):
                pids.append(int(line.split()[1]))
            if line.strip() == 'ready':
                break
        time.sleep(0.5)         # the foreground sleep has started
        self.assertTrue(all(alive(q) for q in pids), pids)
        t0 = time.monotonic()
        os.kill(p.pid, sig)     # the script alone, as a CI cancel may send it
        # A process left holding stdout would keep this waiting: 30 s, then
        # TimeoutExpired fails the test.
        rest = p.communicate(timeout=30)[0].splitlines()
        code = p.returncode
        return code, rest, pids, lock, time.monotonic() - t0

    def test_sigterm_ends_every_process_and_frees_the_lock(self):
        code, rest, pids, lock, secs = self.run_and_stop(signal.SIGTERM)
        self.assertEqual(code, 2)
        self.assertEqual(rest[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        self.assertNotIn('not stopped', rest)
        self.assertEqual([q for q in pids if alive(q)], [])
        self.assertLess(secs, 5)   # no process needed the SIGKILL 10 s later
        # The next run takes the lock at once.
        got = subprocess.run(['flock', '-n', lock, 'true'])
        self.assertEqual(got.returncode, 0)

    def test_sigint_and_sighup_stop_it_too(self):
        for sig in (signal.SIGINT, signal.SIGHUP):
            with self.subTest(sig=sig):
                code, rest, pids, _, _ = self.run_and_stop(sig)
                self.assertEqual(code, 2)
                self.assertIn('stopped by SIG%s' % sig.name[3:], rest[-2])
                self.assertEqual([q for q in pids if alive(q)], [])

    def test_a_bisection_step_stopped_aborts_git_bisect_run(self):
        # ci/bisect/bisect.py --step stops with 255: git bisect run aborts and
        # marks nothing, where 2 would mark the commit bad.
        code, rest, pids, _, _ = self.run_and_stop(signal.SIGTERM, 'STOP_EXIT=255')
        self.assertEqual(code, 255)
        self.assertEqual([q for q in pids if alive(q)], [])


if __name__ == '__main__':
    unittest.main()
