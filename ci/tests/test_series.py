"""make series: whose name the mail carries, what base it names, what it
claims in MAINTAINERS and which checkpatch findings it explains.

No kernel and no tarball: the identity decision (ci/series/identity.py) is
called directly and through make series' own scripts, which decide before
they prepare anything; the base commit is made by ci/prepare-tree.sh from
a tarball of two files in a checkout of its own.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import ci
from ci.series import explained, identity, wiring
from ci.tests import waits

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)
SEED = ('Seed c6c64398 maintainers', 'maintainers@users.noreply.a-seed-c6c64398.example')


class GitConfig:
    """An environment whose git sees only the given user.name/user.email
    (none when None): no system config, a global file of our own, HOME in a
    temporary directory."""

    def __init__(self, tmp, name=None, email=None):
        self.home = os.path.join(tmp, 'home')
        os.makedirs(self.home, exist_ok=True)
        path = os.path.join(tmp, 'gitconfig')
        with open(path, 'w') as f:
            if name is not None or email is not None:
                f.write('[user]\n')
            if name is not None:
                f.write('\tname = %s\n' % name)
            if email is not None:
                f.write('\temail = %s\n' % email)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(('GIT_', 'EMAIL'))}
        self.env.update(HOME=self.home, XDG_CONFIG_HOME=self.home, GIT_CONFIG_GLOBAL=path,
                        GIT_CONFIG_NOSYSTEM='1')


def run(cmd, env, cwd=None):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=waits.HANG)


class SenderIdentity(unittest.TestCase):
    """The decision: a real name and address, or exit 2 saying how to set one."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def sender(self, name=None, email=None):
        g = GitConfig(self.tmp, name, email)
        # A directory outside any repository: the global config alone.
        return run(ci.command('ci.series.identity', 'sender', g.home), g.env, cwd=g.home)

    def test_no_identity_is_exit_2_with_how_to_set_it(self):
        out = self.sender()
        self.assertEqual(out.returncode, 2, out)
        self.assertEqual(out.stdout, '')
        self.assertIn('user.name and user.email are not set', out.stderr)
        self.assertIn('git config --global user.name "Your Name"', out.stderr)
        self.assertIn('git config --global user.email', out.stderr)

    def test_name_without_email_is_exit_2(self):
        out = self.sender(name='Ada Lovelace')
        self.assertEqual(out.returncode, 2, out)
        self.assertIn('user.email is not set', out.stderr)

    def test_the_seed_placeholder_is_refused(self):
        out = self.sender(*SEED)
        self.assertEqual(out.returncode, 2, out)
        self.assertIn('placeholder', out.stderr)
        self.assertIn('git config --global user.name', out.stderr)
        self.assertNotIn(SEED[1], out.stdout)

    def test_every_kind_of_placeholder_is_refused(self):
        for name, email in (
                SEED, ('Ada Lovelace', SEED[1]), ('Seed 0123abcd maintainers', 'ada@kernel.org'),
                ('Ada Lovelace', '12345+ada@users.noreply.github.com'),
                ('Ada Lovelace', 'ada@example.com'), ('Ada Lovelace', 'ada@mail.example.org'),
                ('Ada Lovelace', 'ada@host.example'), ('Ada Lovelace', 'ada@host.(none)'),
                ('Ada Lovelace', 'ada@localhost'), ('Ada Lovelace', 'ada@box.localdomain.test'),
                ('Ada Lovelace', 'noreply@kernel.org'), ('Ada Lovelace', 'ada'),
                ('Ada <x> Lovelace', 'ada@kernel.org'), ('', 'ada@kernel.org')):
            with self.subTest(name=name, email=email):
                self.assertTrue(identity.is_placeholder(name, email))

    def test_a_real_identity_is_the_sender(self):
        out = self.sender('Ada Lovelace', 'ada@lovelace.dev')
        self.assertEqual((out.returncode, out.stdout), (0, 'Ada Lovelace <ada@lovelace.dev>\n'),
                         out.stderr)
        for ok in (('Jörg Rödel', 'joro@8bytes.org'), ('A. B. Example-Smith', 'ab@kernel.org')):
            self.assertEqual(identity.is_placeholder(*ok), '', ok)


class MakeSeriesIdentity(unittest.TestCase):
    """make series' scripts refuse before they prepare, lock or write
    anything: no tree is needed for the answer."""

    def setUp(self):
        local = subprocess.run(['git', '-C', TOP, 'config', '--local', '--get', 'user.name'],
                               capture_output=True, text=True).stdout.strip()
        if local:
            self.skipTest('this checkout sets user.name in its own config (%s): the scripts '
                          'read it before the global one' % local)
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        # The scripts of a copy of the checkout: their out/series/ is this
        # case's own, whatever a run beside make check (make test's robot)
        # writes in the checkout's.
        self.top = os.path.join(self.tmp, 'top')
        shutil.copytree(CI, os.path.join(self.top, 'ci'),
                        ignore=shutil.ignore_patterns('__pycache__', 'fixtures'))

    def script(self, name, *who):
        g = GitConfig(self.tmp, *who)
        # Should the decision ever come after the tree, that tree must not
        # be prepared from make check: no tarball, and the whole process
        # group stopped after 30 s.
        g.env['NSFD_TARBALL'] = os.path.join(self.tmp, 'no-tarball.tar.xz')
        before = self.out_series()
        p = subprocess.Popen([os.path.join(self.top, 'ci', 'series', name)], env=g.env,
                             cwd=self.top, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            stdout, stderr = p.communicate(timeout=waits.HANG)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            p.communicate()
            self.fail('%s did not decide within %d s' % (name, waits.HANG))
        self.assertEqual(self.out_series(), before, 'out/series/ was touched')
        return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)

    def out_series(self):
        d = os.path.join(self.top, 'out', 'series')
        if not os.path.isdir(d):
            return None
        return sorted((p, os.stat(os.path.join(d, p)).st_mtime_ns) for p in os.listdir(d))

    def test_make_series_without_identity_is_exit_2_saying_how(self):
        for name in ('make.sh', 'mail.sh'):
            with self.subTest(script=name):
                out = self.script(name)
                self.assertEqual(out.returncode, 2, out)
                self.assertIn('no sender identity', out.stderr)
                self.assertIn('git config --global user.name', out.stderr)
                self.assertNotIn('tree:', out.stdout + out.stderr)

    def test_make_series_with_the_placeholder_is_exit_2(self):
        for name in ('make.sh', 'mail.sh'):
            with self.subTest(script=name):
                out = self.script(name, *SEED)
                self.assertEqual(out.returncode, 2, out)
                self.assertIn('placeholder', out.stderr)

    def test_the_makefile_target_is_the_script(self):
        with open(os.path.join(TOP, 'Makefile')) as f:
            self.assertIn("series:\n\t@ci/series/make.sh $(if $(KERNEL_SRC),--kernel-src '$(KERNEL_SRC)')\n", f.read())


class SignOff(unittest.TestCase):
    """The mail's messages: the sender's sign-off, never a placeholder's."""
    ME = 'Ada Lovelace <ada@lovelace.dev>'

    def test_placeholder_sign_off_is_replaced_by_the_senders(self):
        msg = 'net: x\n\nWhy.\n\nSigned-off-by: %s <%s>\n' % SEED
        self.assertEqual(identity.sign(msg, self.ME),
                         'net: x\n\nWhy.\n\nSigned-off-by: %s\n' % self.ME)

    def test_sign_off_is_added_once_after_other_trailers(self):
        msg = 'net: x\n\nWhy.\n\nCc: Bob <bob@kernel.org>\n'
        once = identity.sign(msg, self.ME)
        self.assertEqual(once, msg + 'Signed-off-by: %s\n' % self.ME)
        self.assertEqual(identity.sign(once, self.ME), once)

    def test_a_real_co_authors_sign_off_stays(self):
        msg = 'net: x\n\nWhy.\n\nSigned-off-by: Bob <bob@kernel.org>\n'
        self.assertEqual(identity.sign(msg, self.ME),
                         msg + 'Signed-off-by: %s\n' % self.ME)

    def test_sign_refuses_a_placeholder_unless_unchecked(self):
        cmd = ci.command('ci.series.identity', 'sign')
        out = subprocess.run(cmd + ['%s <%s>' % SEED], input='x\n', capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        out = subprocess.run(cmd + ['--unchecked', 'nsfd robot <robot@localhost>'], input='x\n',
                             capture_output=True, text=True)
        self.assertEqual((out.returncode, out.stdout),
                         (0, 'x\n\nSigned-off-by: nsfd robot <robot@localhost>\n'))

    def test_check_finds_a_folded_from_a_sign_off_and_an_m_line(self):
        mail = ('From 0123 Mon Sep 17 00:00:00 2001\nFrom: %s\n <%s>\nSubject: [PATCH] x\n\n'
                'Why.\n\nSigned-off-by: %s <%s>\n---\n+M:\t%s <%s>\n' % (SEED * 3))
        self.assertEqual([l.split(':')[0] for l, _ in identity.check(mail)],
                         ['From', 'Signed-off-by', '+M'])
        good = mail.replace(SEED[0], 'Ada Lovelace').replace(SEED[1], 'ada@lovelace.dev')
        self.assertEqual(identity.check(good), [])


class HonestBase(unittest.TestCase):
    """The mail names its base truthfully: not net-next, base-commit: the
    commit of the tarball, the same for the same tarball."""

    def test_subject_names_no_tree_and_cover_says_the_base(self):
        with open(os.path.join(CI, 'series', 'mail.sh')) as f:
            mail = f.read()
        self.assertIn('prefix="PATCH RFC"\n', mail)
        self.assertIn('--base=nsfd-base', mail)
        self.assertNotIn('base-commit: unknown', mail)
        with open(os.path.join(TOP, 'patches', 'cover-letter.txt')) as f:
            cover = f.read()
        first = cover.split('\n', 1)[0]
        self.assertNotIn('net-next', first)
        self.assertIn('@BASE@', cover)
        self.assertIn('setxattrat', cover)

    def fake_top(self):
        """A checkout with prepare-tree.sh and ci/pipeline, no patches and no tests."""
        top = os.path.join(self.tmp, 'top')
        for d in ('ci/compat', 'kunit', 'selftests/nsfd', 'patches'):
            os.makedirs(os.path.join(top, d))
        shutil.copy(os.path.join(CI, 'prepare-tree.sh'), os.path.join(top, 'ci'))
        # The shim's program (ci/pipeline/tree.py, in the package ci), which
        # takes TOP from where it lies.
        # It imports ci.args, ci.results (the exit codes) and ci.series
        # (the patches/series reader) too.
        for name in ('__init__.py', 'args.py'):
            shutil.copy(os.path.join(CI, name), os.path.join(top, 'ci'))
        for d in ('pipeline', 'results', 'series'):
            shutil.copytree(os.path.join(CI, d), os.path.join(top, 'ci', d),
                            ignore=shutil.ignore_patterns('__pycache__'))
        for path, text in (('patches/series', '# none\n'), ('kunit/patches', ''),
                           ('selftests/nsfd/commit-msg', 'x\n\nSigned-off-by: A <a@kernel.org>\n'),
                           ('selftests/nsfd/Makefile', 'all:\n'),
                           ('ci/compat/commit-msg', 'y\n\nSigned-off-by: A <a@kernel.org>\n')):
            with open(os.path.join(top, path), 'w') as f:
                f.write(text)
        return top

    def tarball(self, name):
        src = os.path.join(self.tmp, 'linux-6.12')
        os.makedirs(os.path.join(src, 'kernel'), exist_ok=True)
        with open(os.path.join(src, 'Makefile'), 'w') as f:
            f.write('VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n')
        with open(os.path.join(src, 'kernel', 'x.c'), 'w') as f:
            f.write('int x;\n')
        path = os.path.join(self.tmp, name)
        subprocess.run(['tar', '-cJf', path, '-C', self.tmp, 'linux-6.12'], check=True)
        return path

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def prepare(self, top, tarball, dest, **env):
        e = dict(GitConfig(self.tmp, 'Ada Lovelace', 'ada@lovelace.dev').env,
                 NSFD_TARBALL=tarball, **env)
        out = run([os.path.join(top, 'ci', 'prepare-tree.sh'), dest], e)
        self.assertEqual(out.returncode, 0, out.stderr)
        return subprocess.run(['git', '-C', dest, 'rev-parse', 'nsfd-base'], capture_output=True,
                              text=True, check=True).stdout.strip()

    def test_base_commit_is_the_same_for_the_same_tarball(self):
        top, tarball = self.fake_top(), self.tarball('linux-source-6.12.tar.xz')
        a = self.prepare(top, tarball, os.path.join(self.tmp, 'a'))
        # Another caller, another identity and clock in the environment.
        b = self.prepare(top, tarball, os.path.join(self.tmp, 'b'),
                         GIT_AUTHOR_NAME='Bob', GIT_AUTHOR_EMAIL='bob@kernel.org',
                         GIT_COMMITTER_DATE='2030-01-01T00:00:00Z',
                         GIT_AUTHOR_DATE='2030-01-01T00:00:00Z')
        self.assertEqual(a, b)
        log = subprocess.run(['git', '-C', os.path.join(self.tmp, 'a'), 'log', '-1',
                              '--format=%an|%cI|%s', a], capture_output=True, text=True).stdout
        self.assertEqual(log.strip(), 'nsfd|2024-11-17T12:00:00+00:00|linux-source-6.12.tar.xz as shipped')

    def test_a_tree_unpacked_before_gets_the_same_base_without_unpacking(self):
        top, tarball = self.fake_top(), self.tarball('linux-source-6.12.tar.xz')
        dest = os.path.join(self.tmp, 'old')
        want = self.prepare(top, tarball, dest)
        # As an older prepare-tree.sh left it: the base committed at its
        # own time.
        env = dict(os.environ, GIT_COMMITTER_DATE='2025-05-05T05:05:05Z')
        old = subprocess.run(['git', '-C', dest, '-c', 'user.name=nsfd', '-c',
                              'user.email=nsfd@localhost', 'commit-tree', 'nsfd-base^{tree}', '-m',
                              'old'], env=env, capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(['git', '-C', dest, 'tag', '-f', 'nsfd-base', old], check=True,
                       capture_output=True)
        # An unpack starts from an empty directory; a checkout leaves an
        # untracked file alone.
        marker = os.path.join(dest, 'kernel', 'untracked')
        open(marker, 'w').close()
        self.assertEqual(self.prepare(top, tarball, dest), want)
        self.assertTrue(os.path.exists(marker), 'the tree was unpacked again')


class Maintainers(unittest.TestCase):
    """The mail claims only what it adds; a test goes to its code's section."""
    MAINT = ('List of maintainers\n\n3C59X NETWORK DRIVER\nM:\tA <a@x>\nS:\tOdd fixes\n'
             'F:\tdrivers/net/3c59x.c\n\nFILESYSTEMS (VFS)\nM:\tV <v@x>\nS:\tMaintained\n'
             'F:\tfs/*\nF:\tinclude/linux/fs.h\n\nNETWORKING [GENERAL]\nM:\tN <n@x>\n'
             'S:\tMaintained\nF:\tnet/\n\nPROC FILESYSTEM\nL:\tl@x\nS:\tMaintained\n'
             'F:\tfs/proc/\n\nTHE REST\nM:\tL <l@x>\nF:\t*\nF:\t*/\n')

    def test_a_test_goes_to_the_section_of_the_code_it_tests(self):
        out = wiring.route(self.MAINT, 'fs/tests/nsfs_kunit.c', 'fs/nsfs.c')
        self.assertIn('F:\tfs/*\nF:\tfs/tests/nsfs_kunit.c\nF:\tinclude/linux/fs.h\n', out)
        self.assertEqual(wiring.owner(out, 'fs/tests/nsfs_kunit.c'), 'FILESYSTEMS (VFS)')

    def test_a_test_a_section_names_already_is_left_alone(self):
        for f, code in (('fs/proc/namespaces_kunit.c', 'fs/proc/namespaces.c'),
                        ('net/core/net_namespace_kunit.c', 'net/core/net_namespace.c')):
            self.assertEqual(wiring.route(self.MAINT, f, code), self.MAINT)

    def test_code_without_a_section_adds_nothing_without_a_fallback(self):
        self.assertEqual(wiring.route(self.MAINT, 'kernel/nsproxy_kunit.c', 'kernel/nsproxy.c'),
                         self.MAINT)

    def test_a_test_of_code_without_a_section_goes_to_the_fallback(self):
        out = wiring.route(self.MAINT, 'kernel/tests/nsproxy_kunit.c', 'kernel/nsproxy.c',
                           'NSFD: TESTS')
        self.assertEqual(wiring.owner(out, 'kernel/tests/nsproxy_kunit.c'), 'NSFD: TESTS')
        self.assertIsNone(wiring.owner(out, 'kernel/nsproxy.c'))
        # A test of code with a section still goes there, not to the fallback.
        out = wiring.route(self.MAINT, 'fs/tests/nsfs_kunit.c', 'fs/nsfs.c', 'NSFD: TESTS')
        self.assertEqual(wiring.owner(out, 'fs/tests/nsfs_kunit.c'), 'FILESYSTEMS (VFS)')
        self.assertNotIn('NSFD: TESTS', out)

    def test_f_patterns_match_as_get_maintainer_does(self):
        self.assertTrue(wiring.depth_of_match('fs/nsfs.c', 'fs/*'))
        self.assertFalse(wiring.depth_of_match('fs/tests/nsfs_kunit.c', 'fs/*'))
        self.assertTrue(wiring.depth_of_match('fs/proc/x/y.c', 'fs/proc/'))
        self.assertTrue(wiring.depth_of_match('fs/tests/binfmt_elf_kunit.c',
                                              'fs/tests/binfmt_*_kunit.c'))
        self.assertFalse(wiring.depth_of_match('fs/nsfsx.c', 'fs/nsfs.c'))

    def test_the_section_claims_only_selftests_and_socketat_tests(self):
        with open(os.path.join(CI, 'series', 'mail.sh')) as f:
            mail = f.read()
        self.assertIn('maintainers "$title" \\\n\t\t\t\ttools/testing/selftests/nsfd/)', mail)
        self.assertIn('if [[ ${f##*/} == *socketat* ]]; then', mail)
        self.assertIn('"${wiring[@]}" route "$f" "$code" "$title"', mail)


class Includer(unittest.TestCase):
    """The code a KUnit file tests: the .c that #includes it."""

    def test_includer_of_finds_the_file_that_includes_a_suite(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        files = {'fs/nsfs.c': 'int a;\n#include "tests/nsfs_kunit.c"\n',
                 'fs/tests/nsfs_kunit.c': 'int t;\n', 'kernel/x_kunit.c': 'int y;\n',
                 'tools/fs/nsfs.c': '#include "tests/nsfs_kunit.c"\n'}
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), 'w') as f:
                f.write(text)
        env = GitConfig(tmp, 'Ada Lovelace', 'ada@lovelace.dev').env
        for cmd in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'x']):
            subprocess.run(['git', '-C', tmp] + cmd, env=env, check=True, capture_output=True)
        lib = os.path.join(CI, 'series', 'includer.sh')
        for f, want in (('fs/tests/nsfs_kunit.c', 'fs/nsfs.c'),
                        ('kernel/x_kunit.c', 'kernel/x_kunit.c')):
            out = subprocess.run(['bash', '-c', '. "$1"; includer_of "$2" HEAD "$3"', '-', lib, tmp,
                                  f], env=env, capture_output=True, text=True)
            self.assertEqual(out.stdout, want + '\n', out.stderr)


class CheckpatchExplained(unittest.TestCase):
    """A checkpatch finding that stays is quoted in its commit message."""
    MAIL = ('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@kernel.org>\nSubject: [PATCH] x\n\n'
            'Tests.\n\ncheckpatch.pl warns "ENOSYS means \'invalid syscall nr\' and\n'
            'nothing else" on three lines: they mean that.\n\nSigned-off-by: A <a@kernel.org>\n'
            '---\n+ENOSYS means \'invalid syscall nr\' and nothing else\n')

    def test_quoted_findings_are_explained_and_others_not(self):
        findings = ("x.patch:10: WARNING: ENOSYS means 'invalid syscall nr' and nothing else\n"
                    'x.patch:20: WARNING: added, moved or deleted file(s), does MAINTAINERS '
                    'need updating?\ntotal: 0 errors, 2 warnings, 0 checks, 9 lines checked\n')
        ok, bad = explained.judge(self.MAIL, findings)
        self.assertEqual(ok, 1)
        self.assertEqual(len(bad), 1)
        self.assertIn('MAINTAINERS', bad[0])

    def test_the_diff_is_not_the_message(self):
        mail = self.MAIL.replace('checkpatch.pl warns "ENOSYS means \'invalid syscall nr\' and\n'
                                 'nothing else" on three lines: they mean that.\n\n', '')
        ok, bad = explained.judge(mail, "x:1: WARNING: ENOSYS means 'invalid syscall nr' and "
                                        'nothing else\n')
        self.assertEqual((ok, len(bad)), (0, 1))

    def test_the_findings_that_stay_in_this_series_are_explained(self):
        msgs = {'selftests/nsfd/commit-msg': "ENOSYS means 'invalid syscall nr' and nothing else"}
        for path, quote in msgs.items():
            with open(os.path.join(TOP, path)) as f:
                self.assertIn(quote, explained.words(f.read()), path)


if __name__ == '__main__':
    unittest.main()
