"""make bisect end to end (python3 -m ci.bisect.bisect) over small git histories,
in a checkout whose ci/nsfd is a fake (fakes/checkout.py): each step's
verdict is the one the commit itself names.

Every commit of a history holds a file `state`, which the fake reads at
--kernel-rev and acts out:
  pass     both tests pass, exit 0
  fail     t1 passes, t2 (the regression) fails, exit 1
  notrun   t1 passes, t2 is not in the results (its suite did not
           compile at that commit), exit 0
  nobuild  no results, exit 125
  env      no results, exit 2 (an environment error)
  hang     sleeps (a step to stop)
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

import ci
from ci.tests import waits
from ci.tests.fakes import checkout

BISECT = ci.command('ci.bisect.bisect')

FAKE_NSFD = r'''#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]
src, rev = args[args.index('--kernel-src') + 1], args[args.index('--kernel-rev') + 1]
variant = args[1] + ('-debug' if '--debug' in args else '')
state = subprocess.run(['git', '-C', src, 'show', rev + ':state'], capture_output=True,
                       text=True, check=True).stdout.strip()
print('nsfd: %s: kernel: ok (0.1 s)' % variant, flush=True)
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if state == 'hang':
    import time
    # The event the stop cases wait for: a step inside the range is hung.
    with open(os.path.join(top, 'hung'), 'a') as f:
        f.write('%d\n' % os.getpid())
    time.sleep(3600)
tests = {'pass': [('t1', 'pass'), ('t2', 'pass')], 'fail': [('t1', 'pass'), ('t2', 'fail')],
         'notrun': [('t1', 'pass')]}.get(state)
out = os.path.join(top, 'out', variant)
os.makedirs(out, exist_ok=True)
if tests is not None:
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'tests': [{'suite': 's', 'name': n, 'status': st} for n, st in tests],
                   'exit_code': int(state == 'fail'), 'summary': {}, 'files': {}}, f)
sys.exit({'pass': 0, 'fail': 1, 'notrun': 0, 'nobuild': 125, 'env': 2}[state])
'''


def git(repo, *args):
    return subprocess.run(['git', '-C', repo] + list(args), capture_output=True, text=True,
                          check=True).stdout.strip()


class BisectDriver(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        # A checkout of its own: out/ and build/ are the temporary ones.
        checkout.make(self.top, FAKE_NSFD)
        self.env = checkout.environ(self.top, GIT_AUTHOR_NAME='t', GIT_COMMITTER_NAME='t',
                                    GIT_AUTHOR_EMAIL='t@t', GIT_COMMITTER_EMAIL='t@t')
        self.src = os.path.join(self.top, 'kernel')

    def tearDown(self):
        self.tmp.cleanup()

    def history(self, *states):
        """A kernel history, a commit a state; their ids in order."""
        subprocess.run(['git', 'init', '-q', '-b', 'main', self.src], check=True)
        ids = []
        for i, state in enumerate(states):
            with open(os.path.join(self.src, 'state'), 'w') as f:
                f.write(state + '\n')
            git(self.src, 'add', 'state')
            subprocess.run(['git', '-C', self.src, 'commit', '-q', '--allow-empty', '-m', 'c%d %s' % (i, state)],
                           env=self.env, check=True)
            ids.append(git(self.src, 'rev-parse', 'HEAD'))
        return ids

    def bisect(self, ids, *extra):
        p = subprocess.run(BISECT + ['--kernel-src', self.src, '--good', ids[0], '--bad', ids[-1]] +
                           list(extra), capture_output=True, text=True, env=self.env, timeout=waits.HANG)
        return p.returncode, p.stdout

    def steps(self):
        with open(os.path.join(self.top, 'out', 'bisect', 'steps.json')) as f:
            return json.load(f)

    def test_the_first_bad_commit_is_named_exit_0(self):
        ids = self.history('pass', 'pass', 'pass', 'fail', 'fail', 'fail')
        head = git(self.src, 'rev-parse', 'HEAD')
        code, out = self.bisect(ids)
        self.assertEqual(code, 0, out)
        self.assertIn('nsfd: bisect: first bad commit: %s c3 fail' % ids[3][:7], out)
        self.assertIn('nsfd: bisect: flipped: s t2', out)
        self.assertIn('    nsfd: x86_64: kernel: ok', out)      # a step's progress
        doc = self.steps()
        self.assertEqual(doc['first_bad'], ids[3])
        self.assertEqual(doc['deciding'], ['s t2'])
        self.assertEqual([s['step'] for s in doc['steps']][:2], ['good end', 'bad end'])
        # KERNEL_SRC's checkout is never touched.
        self.assertEqual(git(self.src, 'rev-parse', 'HEAD'), head)
        self.assertEqual(git(self.src, 'status', '--porcelain'), '')

    def test_a_culprit_before_its_test_compiles_is_never_blamed_on_a_later_commit(self):
        # c2 breaks it, but t2 does not compile in c2 and c3: those steps
        # cannot say good; git is left with c2, c3 and c4, and so are we.
        ids = self.history('pass', 'pass', 'notrun', 'notrun', 'fail')
        code, out = self.bisect(ids)
        self.assertEqual(code, 1, out)
        self.assertNotIn('first bad commit:', out)
        self.assertIn('the first bad commit is one of these 3', out)
        for c in ids[2:]:
            self.assertIn('nsfd: bisect:   %s' % c[:7], out)
        self.assertIn('skip (did not run: s t2) ', out)
        self.assertNotIn('first_bad', self.steps())

    def test_a_commit_that_does_not_build_is_skipped_never_good_or_bad(self):
        # The one commit inside the range does not build: git is left with
        # it and BAD. Read as good, BAD would be named; read as bad, it would.
        ids = self.history('pass', 'nobuild', 'fail')
        code, out = self.bisect(ids)
        self.assertEqual(code, 1, out)
        self.assertIn('step 3: %s skip (did not build or apply) ' % ids[1][:12], out)
        self.assertIn('the first bad commit is one of these 2', out)
        self.assertNotIn('first bad commit:', out)

    def step_pids(self):
        """Pids of this test's `ci.bisect.bisect --step` processes still
        alive (their KERNEL_SRC is this test's)."""
        steps = []
        for p in self.pids(self.src):
            with open('/proc/%d/cmdline' % p, 'rb') as f:
                argv = f.read().split(b'\0')
            if argv[0] == sys.executable.encode() and b'ci.bisect.bisect' in argv and b'--step' in argv:
                steps.append(p)
        return steps

    def test_a_step_stopped_by_sigterm_marks_nothing_and_aborts_exit_2(self):
        # The step's own stop is 255: git gives up without marking the
        # commit (2 would read as bad), and the driver says so.
        p, ended = self.start_hung_bisection()
        self.assertTrue(self.step_pids(), 'a step is running')
        for pid in self.step_pids():
            os.kill(pid, signal.SIGTERM)
        out = ended()
        self.assertEqual(p.returncode, 2, out)
        self.assertIn('nsfd: bisect: aborted: an environment error; nothing was marked', out)
        self.assertEqual(self.fakes(), [], 'no step is left running')
        self.assertEqual([s['step'] for s in self.steps()['steps']], ['good end', 'bad end'])
        # git's own log: the two ends marked at the start, nothing since.
        with open(os.path.join(self.top, 'out', 'bisect', 'git-bisect.log')) as f:
            marks = [l for l in f.read().splitlines() if l.startswith('git bisect ')]
        self.assertEqual([m.split()[2] for m in marks], ['start'], marks)

    def test_good_that_is_not_good_stops_before_the_range_exit_1(self):
        ids = self.history('fail', 'pass', 'fail')
        code, out = self.bisect(ids)
        self.assertEqual(code, 1, out)
        self.assertIn('GOOD %s is not good (tests fail): nothing to bisect' % ids[0][:12], out)
        self.assertEqual(len(self.steps()['steps']), 1)

    def test_bad_that_does_not_build_stops_before_the_range_exit_1(self):
        ids = self.history('pass', 'fail', 'nobuild')
        code, out = self.bisect(ids)
        self.assertEqual(code, 1, out)
        self.assertIn('BAD %s is not bad (does not build): nothing to bisect' % ids[-1][:12], out)

    def test_an_environment_error_in_a_step_aborts_and_marks_nothing_exit_2(self):
        ids = self.history('pass', 'pass', 'env', 'fail', 'fail')
        code, out = self.bisect(ids)
        self.assertEqual(code, 2, out)
        self.assertIn('nsfd: bisect: aborted: an environment error; nothing was marked', out)
        self.assertEqual(self.steps()['steps'][-1]['verdict'], 'abort')
        self.assertNotIn('first bad commit:', out)

    def test_an_environment_error_at_good_aborts_exit_2(self):
        ids = self.history('env', 'fail')
        code, out = self.bisect(ids)
        self.assertEqual(code, 2, out)
        self.assertIn('aborted: an environment error at GOOD; nothing was marked', out)

    def test_sigterm_in_a_step_ends_every_process_marks_nothing_and_is_2(self):
        p, ended = self.start_hung_bisection()
        self.assertTrue(self.fakes(), 'a step is running')
        p.send_signal(signal.SIGTERM)
        out = ended()
        self.assertEqual(p.returncode, 2, out)
        self.assertIn('stopped by SIGTERM', out)
        self.assertEqual(self.fakes(), [], 'no step is left running')
        self.assertEqual([s['step'] for s in self.steps()['steps']], ['good end', 'bad end'],
                         'the stopped step marked nothing')
        # The next bisection can start at once: its lock is free. (The
        # driver is the subreaper of its steps: a step whose git bisect run
        # ended first is still its to wait for.)
        lock = subprocess.run(['flock', '-n', os.path.join(self.top, 'build', 'bisect', '.lock'), 'true'])
        self.assertEqual(lock.returncode, 0)

    def start_hung_bisection(self):
        """A bisection whose steps inside the range hang, running in a
        session of its own (waits.in_session), once its first step's fake
        ci/nsfd has said it is hung (the file `hung`): that step is then
        running. Returns the Popen and a function that waits for its end
        and gives everything it printed."""
        ids = self.history('pass', 'hang', 'hang', 'fail')
        p = subprocess.Popen(BISECT + ['--kernel-src', self.src, '--good', ids[0], '--bad', ids[-1]],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env,
                             start_new_session=True)
        waits.in_session(self, p)
        # Its output, read to the end beside the case: the event waited
        # for is the hung step itself, not a line relayed through three
        # pipes.
        seen = []
        reader = threading.Thread(target=lambda: seen.extend(p.stdout), daemon=True)
        reader.start()
        if not waits.lines_of(os.path.join(self.top, 'hung'), ''):
            self.fail('no step hung within %d s; the bisection printed:\n%s'
                      % (waits.HANG, ''.join(seen)))

        def ended():
            p.wait(timeout=waits.HANG)
            reader.join(waits.HANG)
            return ''.join(seen)
        return p, ended

    def fakes(self):
        """Pids of this test's fake ci/nsfd processes still alive."""
        return self.pids(os.path.join(self.top, 'ci', 'nsfd'))

    def pids(self, program):
        """Pids of live processes whose command line names PROGRAM."""
        found = []
        for d in os.listdir('/proc'):
            try:
                with open('/proc/%s/cmdline' % d, 'rb') as f:
                    if program.encode() in f.read():
                        with open('/proc/%s/stat' % d) as g:
                            if g.read().split(')')[-1].split()[0] != 'Z':
                                found.append(int(d))
            except OSError:
                pass
        return found

    def test_usage_and_bad_input_exit_2(self):
        ids = self.history('pass', 'fail')
        for argv, says in (([], 'usage:'),
                           (['--kernel-src', self.top + '/none', '--good', 'a', '--bad', 'b'],
                            'is not a directory'),
                           (['--kernel-src', self.src, '--good', 'nosuch', '--bad', ids[1]],
                            'GOOD=nosuch is not a commit'),
                           (['--kernel-src', self.src, '--good', ids[1], '--bad', ids[0]],
                            'is not an ancestor of BAD'),
                           (['--kernel-src', self.src, '--good', ids[0], '--bad', ids[1],
                             '--arch', 'vax'], "unknown arch 'vax'"),
                           (['--kernel-src', self.src, '--good', ids[0], '--bad', ids[1],
                             '--test', 'setns_test('], 'is not a Python regular expression')):
            with self.subTest(argv=argv):
                p = subprocess.run(BISECT + argv, capture_output=True,
                                   text=True, env=self.env, timeout=waits.HANG)
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
                self.assertIn(says, p.stdout + p.stderr)


if __name__ == '__main__':
    unittest.main()
