"""make robot's verdict (ci/robot/judge.py) on consoles as a robot boot
prints them, and ci/nsfd robot's refusals: the runner's TAP with each
program's output prefixed "# ", its TIMEOUT and exit=N lines, a runner
that never ends, KUnit at boot and from modules in the kernel log, the
nsfd config a small base cannot satisfy, a boot of another kernel.
"""

import json
import os
import subprocess
import tempfile
import unittest

import ci
from ci.results import expected, model
from ci.tests import waits

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)
JUDGE = ci.command('ci.robot.judge')

BANNER = 'Linux version 6.12.0 (robot@localhost) (gcc 12) #1 SMP 2026'
IDENT = {'banner': BANNER, 'uts_version': '#1 SMP 2026', 'build_id': '00', 'image': 'x'}


def program(n, prog, cases, result=None):
    """The runner's lines for one program: CASES is [(ok, name)]."""
    lines = ['# timeout set to 240', '# selftests: nsfd: %s' % prog,
             '# TAP version 13', '# 1..%d' % len(cases)]
    for i, (ok, name) in enumerate(cases, 1):
        lines.append('# %s %d %s' % ('ok' if ok else 'not ok', i, name))
    bad = any(not ok for ok, _ in cases)
    lines.append(result or '%s %d selftests: nsfd: %s' % ('not ok' if bad else 'ok', n, prog))
    return lines


def kunit_stream(t, suites):
    """printk lines of one KTAP stream: SUITES is [(suite, [ok...])]."""
    out = ['KTAP version 1', '1..%d' % len(suites)]
    for i, (suite, oks) in enumerate(suites, 1):
        out += ['    KTAP version 1', '    # Subtest: ' + suite, '    1..%d' % len(oks)]
        out += ['    %s %d case%d' % ('ok' if ok else 'not ok', j, j) for j, ok in enumerate(oks, 1)]
        out.append('%s %d %s' % ('ok' if all(oks) else 'not ok', i, suite))
    return ['[%12.6f] %s' % (t + k * 1e-6, line) for k, line in enumerate(out)]


def all_programs(skip=(), override=None):
    lines, n = ['TAP version 13', '1..%d' % len(expected.kselftests(TOP))], 0
    for prog in expected.kselftests(TOP):
        if prog in skip:        # the runner numbers the programs it runs
            continue
        n += 1
        lines += (override or {}).get(prog) or program(n, prog, [(True, 'a.one'), (True, 'a.two')])
    return lines


def console(runner=None, runner_exit=0, builtin=None, modules=(), done=True, banner=BANNER):
    suites = builtin if builtin is not None else \
        [(s, [True]) for s in expected.kunit_suites(TOP)]
    lines = ['[    0.000000] ' + banner, 'robot: kernel 6.12.0', 'robot: run_kselftest.sh begin']
    lines += all_programs() if runner is None else runner
    if runner_exit is not None:
        lines.append('robot: run_kselftest.sh exit %d' % runner_exit)
    lines += ['robot: modprobe begin', 'robot: modprobe end', 'robot: dmesg begin',
              '[    0.000000] ' + banner]
    lines += kunit_stream(1.0, suites)
    lines.append('[    5.000000] robot: modprobe begin')
    for k, mod in enumerate(modules):
        lines += kunit_stream(6.0 + k, [mod])
    lines.append('robot: dmesg end')
    if done:
        lines.append('robot: done')
    return '\n'.join(lines) + '\n'


class Verdict(unittest.TestCase):
    def judge(self, text, misses='', stages='boot\tok\t10.0\t\n'):
        with tempfile.TemporaryDirectory() as d:
            for name, body in (('console.log', text), ('config-misses.tsv', misses),
                               ('stages.tsv', stages),
                               ('identity-kernel.json', json.dumps(IDENT))):
                with open(os.path.join(d, name), 'w') as f:
                    f.write(body)
            run = subprocess.run(JUDGE + [d, TOP, 'x86_64'],
                                 capture_output=True, text=True, timeout=waits.HANG)
            with open(os.path.join(d, 'results.json')) as f:
                doc = json.load(f)
            booted = '\tenv-error\t' not in stages
            for name in ('kselftest.ktap', 'kunit.ktap')[:2 if booted else 0] + \
                    ('junit.xml', 'kcidb.json'):
                self.assertTrue(os.path.exists(os.path.join(d, name)), name)
        self.assertEqual(run.stdout.splitlines()[-1], model.summary_line(doc['summary']))
        self.assertEqual(run.returncode, doc['exit_code'], run.stdout + run.stderr)
        return run.returncode, doc, run.stdout

    def failed(self, doc):
        return {(t['suite'], t['name']) for t in doc['tests'] if t['status'] == 'fail'}

    def test_a_clean_job_passes_with_every_program_and_suite(self):
        code, doc, _ = self.judge(console(modules=[('list-kunit-test', [True, True])]))
        self.assertEqual((code, self.failed(doc)), (0, set()))
        progs = len(expected.kselftests(TOP))
        suites = len(expected.kunit_suites(TOP))
        self.assertEqual(doc['summary']['passed'], 2 * progs + suites + 2 + 1)   # + the boot
        modules = [t for t in doc['tests'] if t.get('how') == 'module']
        self.assertEqual([(t['suite'], t['status']) for t in modules],
                         [('list-kunit-test', 'pass')] * 2)

    def test_the_runners_timeout_fails_the_program_and_its_missing_cases(self):
        prog = expected.kselftests(TOP)[0]
        cut = program(1, prog, [(True, 'a.one')])[:-1] + [
            '# 1..3', '#', 'not ok 1 selftests: nsfd: %s # TIMEOUT 240 seconds' % prog]
        cut = [ln for ln in cut if ln != '# 1..1']
        code, doc, out = self.judge(console(runner=all_programs(override={prog: cut}),
                                            runner_exit=1))
        self.assertEqual(code, 1)
        missing = [t for t in doc['tests'] if t['name'].endswith('(missing)')]
        self.assertEqual(len(missing), 1, doc['tests'])
        self.assertIn('TIMEOUT 240 seconds'.lower(), missing[0]['reason'].lower())
        self.assertEqual(missing[0]['suite'], 'nsfd:' + prog)

    def test_an_exit_status_without_a_failed_case_fails_the_program(self):
        prog = expected.kselftests(TOP)[-1]
        n = len(expected.kselftests(TOP))
        lines = program(n, prog, [(True, 'a.one')],
                        result='not ok %d selftests: nsfd: %s # exit=139' % (n, prog))
        code, doc, _ = self.judge(console(runner=all_programs(override={prog: lines}),
                                          runner_exit=1))
        self.assertEqual(code, 1)
        bad = [t for t in doc['tests'] if t['status'] == 'fail']
        self.assertEqual([(t['suite'], t['reason']) for t in bad],
                         [('nsfd:' + prog, 'exit=139')])

    def test_uptime_lines_time_each_program_and_the_collection(self):
        progs = expected.kselftests(TOP)
        runner, t = ['robot: uptime 10.00', 'TAP version 13', '1..%d' % len(progs)], 10.0
        for n, prog in enumerate(progs, 1):
            lines = program(n, prog, [(True, 'a.one')])
            runner += lines[:1] + ['robot: uptime %.2f' % t] + lines[1:-1]
            t += 2.0 * n
            runner += ['robot: uptime %.2f' % t, lines[-1]]
        runner.append('robot: uptime %.2f' % (t + 0.5))
        code, doc, out = self.judge(console(runner=runner))
        self.assertEqual(code, 0, out)
        want = {'nsfd:' + p: 2.0 * n for n, p in enumerate(progs, 1)}
        want[''] = t + 0.5 - 10.0
        self.assertEqual(doc['kselftest_seconds'], want)
        self.assertIn('run_kselftest.sh -c nsfd took %.1f s; the slowest program, nsfd:%s, '
                      '%.1f s of its' % (want[''], progs[-1], 2.0 * len(progs)), out)
        # The stamps are the robot's, not the runner's: no test of their own.
        self.assertFalse([x for x in doc['tests'] if 'uptime' in x['name'] + x['suite']])

    def test_a_runner_that_never_ends_is_a_failure(self):
        code, doc, _ = self.judge(console(runner_exit=None, done=False),
                                  stages='boot\ttimeout\t600.0\tthe job did not end\n')
        self.assertEqual(code, 1)
        self.assertIn(('job', 'run_kselftest.sh'), self.failed(doc))
        self.assertIn(('job', 'done'), self.failed(doc))

    def test_a_program_the_runner_did_not_run_is_a_failure(self):
        prog = expected.kselftests(TOP)[1]
        code, doc, _ = self.judge(console(runner=all_programs(skip=[prog])))
        self.assertEqual(code, 1)
        # The runner's plan is not met either.
        self.assertEqual(self.failed(doc), {('job', 'expected.kselftest.' + prog),
                                            ('(missing)', '(missing)')})

    def test_a_suite_that_did_not_run_at_boot_is_a_failure_even_as_a_module(self):
        suites = expected.kunit_suites(TOP)
        code, doc, _ = self.judge(console(builtin=[(s, [True]) for s in suites[1:]],
                                          modules=[(suites[0], [True])]))
        self.assertEqual(code, 1)
        self.assertEqual(self.failed(doc), {('job', 'expected.kunit.' + suites[0])})

    def test_a_failing_module_case_fails_the_run(self):
        code, doc, _ = self.judge(console(modules=[('list-kunit-test', [True, False])]))
        self.assertEqual(code, 1)
        self.assertEqual(self.failed(doc), {('list-kunit-test', 'case2')})

    def test_a_config_symbol_the_base_cannot_give_is_a_failure(self):
        code, doc, out = self.judge(console(), misses='CONFIG_VETH\ty\tn\n')
        self.assertEqual(code, 1)
        self.assertEqual(self.failed(doc), {('config', 'config.CONFIG_VETH')})
        self.assertIn('asks CONFIG_VETH=y, the robot kernel has n', out)

    def test_a_boot_of_another_kernel_judges_nothing(self):
        code, doc, out = self.judge(console(banner=BANNER.replace('#1', '#2')))
        self.assertEqual((code, doc['tests']), (2, []))
        self.assertIn('identity', out)

    def test_qemu_that_never_started_a_kernel_is_exit_2_not_a_failure(self):
        code, doc, out = self.judge(
            'qemu-system-x86_64: -accel kvm: failed to initialize kvm: No such file or directory\n',
            stages='boot\tenv-error\t0.1\tqemu-system-x86_64 exit 1 before a kernel booted\n')
        self.assertEqual((code, doc['tests']), (2, []))
        self.assertIn('environment error: qemu-system-x86_64 exit 1 before a kernel booted', out)
        # The reason is QEMU's, not an identity proof that had no kernel to judge.
        self.assertNotIn('identity', out)

    def test_a_kernel_that_dies_before_the_robots_init_is_a_failed_boot(self):
        with tempfile.TemporaryDirectory() as d:
            for name, body in (('console.log', 'early console in setup code\n[    0.0] ' + BANNER +
                                '\n[    0.1] Kernel panic - not syncing: early-boot drill\n'),
                               ('config-misses.tsv', ''), ('stages.tsv', 'boot\tok\t3.0\t\n'),
                               ('identity-kernel.json', json.dumps(IDENT))):
                with open(os.path.join(d, name), 'w') as f:
                    f.write(body)
            run = subprocess.run(JUDGE + [d, TOP, 'x86_64'],
                                 capture_output=True, text=True, timeout=waits.HANG)
            with open(os.path.join(d, 'results.json')) as f:
                doc = json.load(f)
        self.assertEqual(run.returncode, 1, run.stdout + run.stderr)
        self.assertEqual([(t['suite'], t['name'], t['status']) for t in doc['tests']],
                         [('boot', 'robot', 'fail')])
        self.assertIn('early-boot drill', doc['tests'][0]['reason'])
        self.assertTrue(doc['judged']['proven'])

    def test_a_verdict_that_raises_is_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'stages.tsv'), 'w') as f:
                f.write('boot\tok\t1.0\t\n')
            with open(os.path.join(d, 'console.log'), 'w') as f:
                f.write(console())
            # No identity-kernel.json: reading it raises.
            run = subprocess.run(JUDGE + [d, TOP, 'x86_64'],
                                 capture_output=True, text=True, timeout=waits.HANG)
        self.assertEqual(run.returncode, 2, run.stdout + run.stderr)
        self.assertEqual(run.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')


class ConfigMisses(unittest.TestCase):
    def test_each_symbol_not_as_asked_is_listed(self):
        with tempfile.TemporaryDirectory() as d:
            asked, dot = os.path.join(d, 'config'), os.path.join(d, '.config')
            with open(asked, 'w') as f:
                f.write('CONFIG_NET=y\nCONFIG_VETH=y\nCONFIG_DUMMY=y\n# CONFIG_EXPERT is not set\n')
            with open(dot, 'w') as f:
                f.write('CONFIG_NET=y\nCONFIG_VETH=m\n# CONFIG_DUMMY is not set\n')
            run = subprocess.run(JUDGE + ['--config-misses', asked, dot],
                                 capture_output=True, text=True, timeout=waits.HANG)
        self.assertEqual(run.stdout, 'CONFIG_VETH\ty\tm\nCONFIG_DUMMY\ty\tn\n')


class RunScript(unittest.TestCase):
    def test_an_arch_without_a_robot_config_is_exit_2(self):
        # Under ci/nsfd test this checkout's build/.lock is held: an arch
        # the robot does not know is refused before the lock is waited for.
        run = subprocess.run([os.path.join(CI, 'nsfd'), 'robot', 'sparc'],
                             capture_output=True, text=True, timeout=waits.HANG)
        self.assertEqual(run.returncode, 2)
        self.assertIn('the robot runs on: x86_64', run.stdout)
        self.assertEqual(run.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')


if __name__ == '__main__':
    unittest.main()
