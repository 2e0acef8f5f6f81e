"""make mutants end to end (python3 -m ci.mutants.campaign) in a checkout whose
ci/nsfd is a fake (fakes/checkout.py) and whose tree is one small file.

The fake does what a run does to the tree: it puts the pristine file
back (prepare-tree's checkout), applies NSFD_MUTANT with the real
ci/mutants/mutant.py (unless FAKE_NOAPPLY=1), and exits as FAKE_RC says
for that mutant ("NAME=RC ..."; a mutant not named: 1, killed; no
mutant: FAKE_BASELINE_RC or 0). RC "prep" is a mutant that does not
apply: "nsfd: tree: cannot prepare", exit 2; RC "hang" a run that hangs
(a run to stop), having left a process whose parent ended (an orphan).
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import unittest

import ci
from ci.tests import waits
from ci.tests.fakes import checkout

FAKE_NSFD = r'''#!/usr/bin/env python3
import json, os, shutil, subprocess, sys, time
top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tree = os.path.join(top, 'build', 'patched', 'src')
shutil.copy(os.path.join(top, 'pristine.c'), os.path.join(tree, 'kernel', 'x.c'))
m = os.environ.get('NSFD_MUTANT', '')
name = os.path.basename(m)[:-len('.mutant')] if m else ''
want = dict(w.split('=') for w in os.environ.get('FAKE_RC', '').split())
rc = want.get(name, '1') if m else os.environ.get('FAKE_BASELINE_RC', '0')
if rc == 'hang':
    orphan = subprocess.run(['sh', '-c', 'sleep 3600 >/dev/null 2>&1 & echo $!'],
                            capture_output=True, text=True).stdout.strip()
    with open('/proc/%s/stat' % orphan) as f:
        print('orphan', orphan, f.read().rsplit(')', 1)[1].split()[19], flush=True)
    time.sleep(3600)
if rc == 'prep':
    print('nsfd: tree: cannot prepare %s (exit 1, see above)' % tree)
    print('mutants: %s: find line not found' % name)
    sys.exit(2)
if m and os.environ.get('FAKE_NOAPPLY') != '1':
    subprocess.run([sys.executable, '-B', '-P', '-m', 'ci.mutants.mutant', 'apply', tree, m],
                   check=True, env=dict(os.environ, PYTHONPATH=top))
variant = sys.argv[2] + ('-' + sys.argv[4] if '--config' in sys.argv else '')
out = os.path.join(top, 'out', variant)
os.makedirs(out, exist_ok=True)
tests = [{'suite': 's', 'name': 't1', 'status': 'fail' if rc == '1' else 'pass'}]
if rc in ('0', '1'):
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'tests': tests, 'files': {}}, f)
print('nsfd: %s: kernel: %s' % (variant, 'did not build' if rc == '125' else 'ok'))
sys.exit(int(rc))
'''

PRISTINE = 'int f(int a)\n{\n\tif (a > 1)\n\t\treturn 1;\n\treturn a + 2;\n}\n'

MUTANTS = {
    'test-a': 'file: kernel/x.c\nfind: if (a > 1)\nreplace: if (a > 2)\n',
    'test-b': 'file: kernel/x.c\nfind: return a + 2;\nreplace: return a - 2;\n',
    'test-c': 'config: time_ns_off\nfile: kernel/x.c\nfind: return 1;\nreplace: return 0;\n',
}


class Campaign(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = self.tmp.name
        checkout.make(self.top, FAKE_NSFD, own_dirs=('mutants',))
        mdir = os.path.join(self.top, 'ci', 'mutants')
        for name, body in MUTANTS.items():
            with open(os.path.join(mdir, name + '.mutant'), 'w') as f:
                f.write('# %s: a test mutant\n%s' % (name, body))
        os.unlink(os.path.join(mdir, 'README'))
        with open(os.path.join(mdir, 'README'), 'w') as f:
            f.write('Equivalent mutants\n------------------\n\n- test-b: no test can tell\n')
        with open(os.path.join(self.top, 'pristine.c'), 'w') as f:
            f.write(PRISTINE)
        os.makedirs(os.path.join(self.top, 'build', 'patched', 'src', 'kernel'))
        shutil.copy(os.path.join(self.top, 'pristine.c'),
                    os.path.join(self.top, 'build', 'patched', 'src', 'kernel', 'x.c'))

    def tearDown(self):
        self.tmp.cleanup()

    def command(self, **env):
        """The campaign's command and environment, ENV the fakes'."""
        e = checkout.environ(self.top, **dict({'MUTANT': 'test-*'}, **env))
        for k in ('NSFD_MUTANTS_BASELINE', 'NSFD_MUTANTS_RESTORE', 'NSFD_MUTANT'):
            if k not in env:
                e.pop(k, None)
        return ci.command('ci.mutants.campaign'), e

    def campaign(self, **env):
        cmd, e = self.command(**env)
        p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=waits.HANG)
        return p.returncode, p.stdout + p.stderr

    def results(self):
        with open(os.path.join(self.top, 'out', 'mutants', 'results.json')) as f:
            return {m['name']: m for m in json.load(f)['mutants']}

    def test_every_mutant_killed_is_0(self):
        code, out = self.campaign()
        self.assertEqual(code, 0, out)
        self.assertIn('mutants: baseline: ok', out)
        self.assertIn('mutants: baseline-time_ns_off: ok', out)       # test-c's config
        self.assertIn('mutants: [3/3] test-c (time_ns_off): test-c: a test mutant', out)
        self.assertIn('mutant test-a: killed by 1 tests (s: t1)', out)
        self.assertIn('mutants: score 3/3 killed, 0 survived, 0 errors', out)
        self.assertIn('mutants: restore: the unmutated tree rebuilt and passed', out)
        self.assertEqual({n: m['verdict'] for n, m in self.results().items()},
                         {'test-a': 'killed', 'test-b': 'killed', 'test-c': 'killed'})

    def test_a_survivor_the_readme_does_not_explain_is_1(self):
        code, out = self.campaign(FAKE_RC='test-a=0')
        self.assertEqual(code, 1, out)
        self.assertIn('mutant test-a: SURVIVED', out)
        self.assertIn('mutants: survivor test-a: NOT explained in ci/mutants/README', out)

    def test_an_equivalent_survivor_is_0(self):
        code, out = self.campaign(FAKE_RC='test-b=0')
        self.assertEqual(code, 0, out)
        self.assertIn('mutants: survivor test-b: equivalent (no test can tell)', out)

    def test_a_failing_baseline_mutates_nothing_and_is_2(self):
        code, out = self.campaign(FAKE_BASELINE_RC='1')
        self.assertEqual(code, 2, out)
        self.assertIn('the unmutated tree must pass', out)
        self.assertFalse(os.path.exists(os.path.join(self.top, 'out', 'mutants', 'results.json')))

    def test_a_run_that_did_not_apply_the_mutant_stops_the_campaign_2(self):
        # Without this check every mutant would pass off as a survivor.
        code, out = self.campaign(FAKE_NOAPPLY='1', FAKE_RC='test-a=0')
        self.assertEqual(code, 2, out)
        self.assertIn('ci/prepare-tree.sh did not apply the mutant', out)
        self.assertEqual(list(self.results()), ['test-a'])
        self.assertEqual(self.results()['test-a']['verdict'], 'error')

    def test_an_environment_error_stops_the_campaign_2(self):
        code, out = self.campaign(FAKE_RC='test-b=2')
        self.assertEqual(code, 2, out)
        self.assertIn('ci/nsfd exit 2 outside the mutant (environment, see ', out)
        self.assertNotIn('test-c', self.results())

    def test_a_mutant_that_does_not_build_or_apply_is_an_error_and_the_campaign_goes_on(self):
        code, out = self.campaign(FAKE_RC='test-a=125 test-b=prep', NSFD_MUTANTS_BASELINE='0',
                                  NSFD_MUTANTS_RESTORE='0')
        self.assertEqual(code, 2, out)
        self.assertIn('mutant test-a: ERROR (ci/nsfd exit 125', out)
        self.assertIn('    nsfd: x86_64: kernel: did not build', out)
        self.assertIn('    mutants: test-b: find line not found', out)
        self.assertEqual(self.results()['test-c']['verdict'], 'killed')
        self.assertNotIn('baseline', out)
        self.assertIn('restore skipped', out)

    def test_sigterm_ends_the_run_and_what_it_left_and_is_2(self):
        cmd, e = self.command(FAKE_RC='test-a=hang', NSFD_MUTANTS_BASELINE='0')
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env=e, start_new_session=True)
        waits.in_session(self, p)
        # The run's output goes to its log: the fake says there that it hangs.
        log = os.path.join(self.top, 'out', 'mutants', 'logs', 'test-a.log')
        orphan = waits.lines_of(log, 'orphan ')
        self.assertTrue(orphan, 'the run never started')
        pid, start = int(orphan[0].split()[1]), orphan[0].split()[2]
        waits.kill_at_end(self, pid, start)
        p.send_signal(signal.SIGTERM)
        out = p.communicate(timeout=waits.HANG)[0]
        self.assertEqual(p.returncode, 2, out)
        self.assertIn('nsfd: stopped by SIGTERM: every process of this run has ended', out)
        self.assertIsNone(waits.present(pid, start), 'the run left a process behind')

    def test_progress_is_the_runs_last_progress_line_without_its_stamp(self):
        from ci.mutants import campaign
        log = os.path.join(self.top, 'run.log')
        self.assertEqual(campaign.progress(log), '')
        with open(log, 'w') as f:
            f.write('nsfd: tree: ok (4.0 s)  [+0:05]\nmake[1]: noise\n'
                    'nsfd: x86_64: kernel: building, 46 objects so far  [+1:02:36]\n  CC x.o\n')
        self.assertEqual(campaign.progress(log), 'x86_64: kernel: building, 46 objects so far')

    def test_no_mutant_matches_is_2(self):
        code, out = self.campaign(MUTANT='nosuch-*')
        self.assertEqual(code, 2, out)
        self.assertIn("mutants: no mutant in ci/mutants/ matches 'nosuch-*'", out)

    def test_a_malformed_mutant_is_2_before_any_run(self):
        with open(os.path.join(self.top, 'ci', 'mutants', 'test-d.mutant'), 'w') as f:
            f.write('# broken\nfile: kernel/x.c\n')
        code, out = self.campaign()
        self.assertEqual(code, 2, out)
        self.assertIn('fix the mutants above', out)
        self.assertNotIn('baseline', out)


if __name__ == '__main__':
    unittest.main()
