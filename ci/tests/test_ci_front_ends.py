"""The CI front ends read the results, not only a job's exit.

GitLab takes each variant's out/<variant>/junit.xml as the job's junit
report (artifacts:reports:junit). GitHub's merge job writes a job summary
(ci/results/summary.py: each variant's totals and failures) and uploads
every junit.xml. These cases parse both files (Debian's python3-yaml) and
render the summary from the result directories in fixtures/variants/.
"""

import os
import subprocess
import unittest

import ci
from ci.results import summary
from ci.tests import waits
from ci.tests.test_ci_matrix import GITLAB, NAMES, TOP, WORKFLOW, load, needs_yaml, resolve, GITLAB_KEYWORDS

CI = os.path.join(TOP, 'ci')
FIXTURES = os.path.join(CI, 'tests', 'fixtures', 'variants')
# Variants whose results come without a junit.xml: the pipeline's own
# tests (ci/tests/run.py writes results.json only).
JUNIT_LESS = {'pipeline'}


def as_list(value):
    return value if isinstance(value, list) else [value]


class GitLabJunit(unittest.TestCase):
    def setUp(self):
        needs_yaml(self)
        doc = load(GITLAB)
        self.jobs = {n: resolve(doc, n) for n in doc
                     if n not in GITLAB_KEYWORDS and not n.startswith('.')}

    def test_every_variant_hands_its_junit_xml_to_gitlab(self):
        for name in NAMES:
            if name in JUNIT_LESS:
                continue
            with self.subTest(job=name):
                artifacts = self.jobs[name].get('artifacts', {})
                junit = as_list((artifacts.get('reports') or {}).get('junit') or [])
                self.assertEqual(junit, ['out/%s/junit.xml' % name],
                                 '.gitlab-ci.yml: job %s must have artifacts:reports:junit: '
                                 'out/%s/junit.xml' % (name, name))
                # Reports follow artifacts:when: a red job must show its tests.
                self.assertEqual(artifacts.get('when'), 'always', name)

    def test_the_junit_less_variants_still_write_none(self):
        # When ci/tests/run.py learns to write junit.xml, wire it here too.
        with open(os.path.join(CI, 'tests', 'run.py')) as f:
            self.assertNotIn('junit', f.read(), 'ci/tests/run.py writes junit.xml now: give the '
                             'pipeline job its artifacts:reports:junit and drop it from JUNIT_LESS')
        for name in JUNIT_LESS:
            self.assertNotIn('reports', self.jobs[name].get('artifacts', {}),
                             '%s writes no junit.xml: a report there would be an empty upload' % name)


class GitHubSummary(unittest.TestCase):
    def setUp(self):
        needs_yaml(self)
        self.steps = load(WORKFLOW)['jobs']['merge']['steps']

    def step(self, text):
        found = [s for s in self.steps if text in s.get('run', '')]
        self.assertEqual(len(found), 1, 'one merge step runs %s' % text)
        return found[0]

    def test_the_summary_step_renders_every_variant_always(self):
        step = self.step('$GITHUB_STEP_SUMMARY')
        self.assertEqual(step.get('if'), 'always()', 'a red merge must still show its summary')
        run = step['run']
        # From the checkout's top (the job's working directory), which is
        # then the import root of the package ci.
        self.assertEqual(run.split()[:3], ['python3', '-m', 'ci.results.summary'])
        self.assertTrue(os.path.isfile(os.path.join(TOP, 'ci', 'results', 'summary.py')))
        self.assertIn("$(ci/nsfd variants | cut -f1 | sed 's|^|out/|')", run,
                      'the summary covers every variant of the list')
        self.assertIn('>> "$GITHUB_STEP_SUMMARY"', run)
        self.assertGreater(self.steps.index(step), self.steps.index(self.step('ci/nsfd merge')))
        self.assertNotIn('continue-on-error', step)

    def test_every_junit_xml_is_uploaded(self):
        up = [s for s in self.steps if s.get('uses', '').startswith('actions/upload-artifact@')
              and s.get('with', {}).get('name') == 'junit']
        self.assertEqual(len(up), 1, 'the merge job uploads the artifact junit')
        self.assertEqual(up[0]['with']['path'], 'out/*/junit.xml')
        self.assertEqual(up[0].get('if'), 'always()')
        down = [s for s in self.steps if s.get('uses', '').startswith('actions/download-artifact@')]
        self.assertLess(self.steps.index(down[0]), self.steps.index(up[0]))

    def test_each_variant_job_uploads_its_out_dir_with_its_junit_xml(self):
        steps = load(WORKFLOW)['jobs']['variant']['steps']
        up = [s for s in steps if s.get('uses', '').startswith('actions/upload-artifact@')]
        self.assertEqual([s['with']['path'] for s in up], ['out/${{ matrix.variant }}/'])


def render(*dirs):
    run = subprocess.run(ci.command('ci.results.summary', *dirs), capture_output=True, text=True,
                         timeout=waits.HANG)
    return run.returncode, run.stdout, run.stderr


class SummaryFromResults(unittest.TestCase):
    """python3 -m ci.results.summary on real result directories."""

    def fixture(self, name):
        return os.path.join(FIXTURES, name)

    def test_totals_and_failures_of_each_variant(self):
        rc, out, err = render(*[self.fixture(n) for n in
                                ('x86_64', 'riscv64', 'failed-x86_64-net_ns_off', 'x86_64-net_off')])
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], '## nsfd: 127 passed, 2 failed, 47 skipped, exit 1 (failed)')
        for row in ('| `x86_64` | 60 | 0 | 9 | 0 (passed) |',
                    '| `riscv64` | 30 | 0 | 3 | 0 (passed) |',
                    '| `x86_64-net_ns_off` (`failed-x86_64-net_ns_off/`) | 28 | 2 | 35 | 1 (failed) |',
                    '| `x86_64-net_off` | 9 | 0 | 0 | 0 (passed) |'):
            self.assertIn(row, lines)
        self.assertIn('### `x86_64-net_ns_off` (`failed-x86_64-net_ns_off/`): exit 1 (failed)', lines)
        failures = [ln for ln in lines if 'sat_no_net_ns.every_open_fd_is_einval' in ln]
        self.assertEqual([ln.split(' | ')[0] for ln in failures],
                         ['| `nsfd:i386-socketat_test`', '| `nsfd:socketat_test`'])
        self.assertTrue(all('Expected sys_socketat(pidfd, AF_UNIX, SOCK_DGRAM, 0)' in ln
                            for ln in failures), failures)
        # A green variant has no section of its own.
        self.assertFalse([ln for ln in lines if ln.startswith('### `x86_64`')])

    def test_what_gave_no_verdict_is_named(self):
        missing = os.path.join(FIXTURES, 'no-such-variant')
        rc, out, err = render(self.fixture('x86_64'), self.fixture('env-error-x86_64'), missing)
        self.assertEqual(rc, 0, err)
        self.assertIn('exit 2 (environment error)', out.splitlines()[0])
        self.assertIn('| `no-such-variant` | | | | 2 (environment error): no such directory', out)
        self.assertIn('| `x86_64` (`env-error-x86_64/`) | 0 | 0 | 0 | 2 (environment error) |', out)
        self.assertIn('- x86_64: identity: console-kselftest.log: booted', out)

    def test_a_table_cell_stays_one_cell(self):
        self.assertEqual(summary.cell('a | b\n<c>'), 'a \\| b &lt;c&gt;')
        self.assertEqual(summary.code('x|`y`'), "`x\\|'y'`")

    def test_usage(self):
        rc, out, err = render()
        self.assertEqual((rc, out), (2, ''))
        self.assertIn('usage: python3 -m ci.results.summary', err)


if __name__ == '__main__':
    unittest.main()
