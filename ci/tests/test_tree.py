"""The kernel tree's preparation (ci/pipeline/tree.py) on small git
fixtures: a fake kernel tree holding only the files that kunit/append and
kunit/insert wire into (their anchors read from the real kunit/insert), a
Makefile and kernel/. The real kunit/, selftests/nsfd/ and ci/compat/ are
laid in; patched mode runs on a tarball of the fixture with a one-patch
series of its own (a fake checkout: TOP/patches beside links to the real
inputs).

Each tree gets its verdict: 0 it takes the tests, 125 it cannot (git
bisect run skips it), 2 it cannot be read or our inputs are wrong.
"""

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from ci.pipeline import decide, procs, runlog, tree
from ci.series import patch_list
from ci.pipeline.variant import Run

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)

KUNIT = os.path.join(TOP, 'kunit')
HARNESS = 'tools/testing/selftests/kselftest_harness.h'
# Fixed dates: the fixture's commits are the same in every run.
DATES = {'GIT_AUTHOR_DATE': '2001-01-01T00:00:00Z', 'GIT_COMMITTER_DATE': '2001-01-01T00:00:00Z'}


@contextlib.contextmanager
def environ(**kw):
    """os.environ with KW, for the preparation's children."""
    saved = dict(os.environ)
    os.environ.update(kw)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def git(*args, env=None):
    return subprocess.run(['git', '-c', 'user.name=T', '-c', 'user.email=t@t'] + list(args),
                          check=True, capture_output=True, text=True,
                          env=dict(os.environ, **DATES, **(env or {}))).stdout.strip()


def write(path, text, mode='w'):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


def wiring():
    """{tree path: how} of every file the real kunit/ wires into the tree:
    'append', or the line an insert goes before."""
    wired = {}
    for f in tree.files_under(os.path.join(KUNIT, 'append')):
        wired[f] = 'append'
    for f in tree.files_under(os.path.join(KUNIT, 'insert')):
        with open(os.path.join(KUNIT, 'insert', f), 'rb') as fh:
            wired[f] = tree.anchor(fh.read()).decode()
    return wired


def kernel_tree(d, harness='struct __test_metadata { int exit_code; };\n', drop_anchor=None,
                drop=None, git_repo=True):
    """A fake kernel tree in D: each file the wiring touches (an insert's
    anchor inside a menu), Makefile, kernel/, the kselftest harness (a
    6.9 one, with exit_code, unless HARNESS says otherwise). DROP_ANCHOR:
    a file whose anchor is left out; DROP: a file left out."""
    files = {'Makefile': 'VERSION = 6\nPATCHLEVEL = 12\n', HARNESS: harness,
             'tools/testing/selftests/Makefile': 'TARGETS += nsfs\n'}
    for f, how in wiring().items():
        files[f] = '# %s\n' % f if how == 'append' else 'menu "%s"\n%s\nendmenu\n' % (
            f, '' if f == drop_anchor else how)
    files.setdefault('kernel/nsproxy.c', '// nsproxy\n')
    files.pop(drop, None)
    for f, text in files.items():
        write(os.path.join(d, f), text)
    if git_repo:
        git('init', '-q', d)
        git('-C', d, 'add', '-A')
        git('-C', d, 'commit', '-qm', 'v6.12')
    return d


class Fixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='nsfd-tree-')
        self.addCleanup(shutil.rmtree, self.tmp)
        self.dest = os.path.join(self.tmp, 'build', 'src')

    def prepare(self, kernel_src='', rev='', top=TOP, **kw):
        """(verdict, stdout, stderr) of one preparation of self.dest."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = tree.prepare(self.dest, kernel_src, rev, top=top, **kw)
        return rc, out.getvalue(), err.getvalue()

    def in_dest(self, *args):
        return subprocess.run(['git', '-C', self.dest] + list(args), capture_output=True,
                              text=True).stdout.strip()

    def mtimes(self):
        found = {}
        for root, dirs, files in os.walk(self.dest):
            dirs[:] = [d for d in dirs if d != '.git']
            for f in files:
                found[os.path.join(root, f)] = os.lstat(os.path.join(root, f)).st_mtime_ns
        return found


class TreeKernelSrc(Fixture):
    """KERNEL_SRC=DIR (other trees, bisection): the tests laid into DIR's
    tree, DIR itself never written to."""

    def test_a_tree_that_takes_the_tests_is_0(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        head = git('-C', ext, 'rev-parse', 'HEAD')
        rc, out, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(decide.tree(rc), 'ok')
        # DIR's commit, its objects borrowed; the tests on top of it.
        self.assertEqual(self.in_dest('rev-parse', 'nsfd-base', 'nsfd-series'), head + '\n' + head)
        self.assertEqual(read(os.path.join(self.dest, '.git', 'nsfd-source')), head + '\n')
        self.assertEqual(self.in_dest('rev-parse', 'HEAD'), self.in_dest('rev-parse', 'nsfd-tests'))
        self.assertEqual(self.in_dest('status', '--porcelain'), '')
        # One commit per kunit/patches line, then the selftests; a harness
        # with exit_code takes no ci/compat commit.
        patches = tree.kunit_patches(read(os.path.join(KUNIT, 'patches')))
        self.assertEqual(int(self.in_dest('rev-list', '--count', 'nsfd-series..HEAD')),
                         len(patches) + 1)
        self.assertEqual(self.in_dest('log', '-1', '--format=%ad %s', '--date=iso-strict'),
                         '2024-11-17T12:00:00+00:00 ' +
                         read(os.path.join(TOP, 'selftests', 'nsfd', 'commit-msg')).split('\n')[0])
        for f in tree.sources(os.path.join(TOP, 'selftests', 'nsfd')):
            self.assertEqual(read(os.path.join(self.dest, 'tools/testing/selftests/nsfd', f)),
                             read(os.path.join(TOP, 'selftests', 'nsfd', f)))
        for f in tree.sources(KUNIT):
            self.assertEqual(read(os.path.join(self.dest, f)), read(os.path.join(KUNIT, f)))
        # The wiring: appended at the end, inserted right before the anchor.
        for f, how in wiring().items():
            text = read(os.path.join(self.dest, f))
            if how == 'append':
                self.assertEqual(text, '# %s\n' % f + read(os.path.join(KUNIT, 'append', f)))
            else:
                body = read(os.path.join(KUNIT, 'insert', f)).split('\n', 1)[1]
                self.assertEqual(text, 'menu "%s"\n%s%s\nendmenu\n' % (f, body, how))
        self.assertNotIn('nsfd pipeline only', read(os.path.join(self.dest, HARNESS)))
        self.assertEqual(git('-C', ext, 'status', '--porcelain'), '')

    def test_the_same_inputs_again_leave_every_file_alone(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        self.assertEqual(self.prepare(ext)[0], 0)
        head, before = self.in_dest('rev-parse', 'HEAD'), self.mtimes()
        time.sleep(0.01)
        rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.in_dest('rev-parse', 'HEAD'), head)
        self.assertEqual(self.mtimes(), before)

    def test_an_old_harness_takes_the_compat_commit(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'), harness='/* 6.1 */\n')
        rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(read(os.path.join(self.dest, HARNESS)), '/* 6.1 */\n' + read(
            os.path.join(CI, 'compat', 'append', HARNESS)))

    def test_a_tree_without_an_insert_anchor_is_125(self):
        inserted = [f for f, how in wiring().items() if how != 'append']
        self.assertTrue(inserted, 'kunit/insert is empty: nothing to test')
        for f in inserted:
            with self.subTest(f):
                shutil.rmtree(self.tmp)
                ext = kernel_tree(os.path.join(self.tmp, 'linux'), drop_anchor=f)
                rc, _, err = self.prepare(ext)
                self.assertEqual(rc, 125, err)
                self.assertEqual(decide.tree(rc), 'build-failed')
                self.assertIn("tree: kunit/insert/%s: no line '%s' in this tree's %s to insert "
                              "before" % (f, wiring()[f], f), err)

    def test_a_tree_without_a_file_the_wiring_needs_is_125(self):
        for f, how in sorted(wiring().items())[:1] + [(HARNESS, 'compat')]:
            with self.subTest(f):
                shutil.rmtree(self.tmp)
                ext = kernel_tree(os.path.join(self.tmp, 'linux'), drop=f, harness='')
                rc, _, err = self.prepare(ext)
                self.assertEqual(rc, 125, err)
                self.assertIn('this tree has no %s to %s' % (
                    f, 'insert into' if how not in ('append', 'compat') else 'append to'), err)

    def test_rev_takes_that_commit_not_the_working_tree(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        first = git('-C', ext, 'rev-parse', 'HEAD')
        write(os.path.join(ext, 'Makefile'), 'VERSION = 7\n')
        git('-C', ext, 'commit', '-qam', 'later')
        write(os.path.join(ext, '.config'), 'CONFIG_NET=y\n')   # a build there: REV does not mind
        rc, _, err = self.prepare(ext, first)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.in_dest('rev-parse', 'nsfd-base'), first)
        self.assertEqual(read(os.path.join(self.dest, 'Makefile')),
                         'VERSION = 6\nPATCHLEVEL = 12\n')
        self.assertEqual(git('-C', ext, 'rev-parse', 'HEAD~1'), first)

    def test_a_tree_with_local_changes_or_no_git_is_hashed(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        head = git('-C', ext, 'rev-parse', 'HEAD')
        write(os.path.join(ext, 'Makefile'), 'VERSION = 6 # mine\n')
        rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(read(os.path.join(self.dest, '.git', 'nsfd-source')), head + '-dirty\n')
        self.assertEqual(read(os.path.join(self.dest, 'Makefile')), 'VERSION = 6 # mine\n')
        self.assertEqual(git('-C', ext, 'status', '--porcelain'), 'M Makefile')
        shutil.rmtree(os.path.join(ext, '.git'))
        rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(read(os.path.join(self.dest, '.git', 'nsfd-source')),
                         '%s (not a git tree)\n' % ext)

    def test_a_caller_s_git_variables_are_not_followed(self):
        # git bisect run and hooks export GIT_DIR: not this tree's.
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        other = kernel_tree(os.path.join(self.tmp, 'other'))
        with environ(GIT_DIR=os.path.join(other, '.git'), GIT_WORK_TREE=other,
                     GIT_INDEX_FILE=os.path.join(other, '.git', 'index')):
            rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 0, err)
        self.assertEqual(git('-C', other, 'status', '--porcelain'), '')
        self.assertEqual(git('-C', other, 'tag'), '')

    def test_a_kernel_src_that_cannot_be_read_is_2(self):
        plain = os.path.join(self.tmp, 'file')
        write(plain, 'not a directory\n')
        empty = os.path.join(self.tmp, 'empty')
        os.makedirs(empty)
        built = kernel_tree(os.path.join(self.tmp, 'built'))
        write(os.path.join(built, '.config'), 'CONFIG_NET=y\n')
        for ext, rev, why in (
                (os.path.join(self.tmp, 'nowhere'), '', 'is not a kernel source tree'),
                (plain, '', 'is not a kernel source tree'),
                (empty, '', 'is not a kernel source tree'),
                (empty, 'HEAD', 'is not a kernel source tree'),
                (built, '', "has an in-tree build (.config): run 'make mrproper' there"),
                (built, 'f' * 40, 'has no commit ' + 'f' * 40)):
            with self.subTest(ext=ext, rev=rev):
                rc, _, err = self.prepare(ext, rev)
                self.assertEqual(rc, 2, err)
                self.assertIsNone(decide.tree(rc))
                self.assertIn('tree: KERNEL_SRC=%s %s' % (ext, why), err)

    def test_a_kernel_src_git_cannot_read_is_2(self):
        # A git tree whose HEAD names no object: nothing can be taken from it.
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        objects = os.path.join(ext, '.git', 'objects')
        for d in os.listdir(objects):
            if len(d) == 2:
                shutil.rmtree(os.path.join(objects, d))
        rc, _, err = self.prepare(ext)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err, r'tree: git \S+ failed \(exit \d+\)')


class TreePatched(Fixture):
    """Patched mode: the tarball unpacked once, the series applied once,
    in a fake checkout (TOP/patches of its own, the real kunit/,
    selftests/ and ci/)."""

    def setUp(self):
        super().setUp()
        src = kernel_tree(os.path.join(self.tmp, 'linux-source-6.12'))
        self.nsproxy = read(os.path.join(src, 'kernel', 'nsproxy.c'))
        write(os.path.join(src, 'kernel', 'nsproxy.c'), 'int socketat;\n', 'a')
        git('-C', src, 'commit', '-qam', 'net: add socketat(2)')
        self.patch = git('-C', src, 'format-patch', '--stdout', '-1') + '\n'
        shutil.rmtree(os.path.join(src, '.git'))
        write(os.path.join(src, 'kernel', 'nsproxy.c'), self.nsproxy)
        self.tarball = os.path.join(self.tmp, 'linux-source-6.12.tar')
        subprocess.run(['tar', '-cf', self.tarball, '-C', self.tmp, 'linux-source-6.12'],
                       check=True)
        shutil.rmtree(src)
        self.top = os.path.join(self.tmp, 'top')
        os.makedirs(self.top)
        for entry in ('ci', 'kunit', 'selftests'):
            os.symlink(os.path.join(TOP, entry), os.path.join(self.top, entry))
        self.series(self.patch)

    def series(self, *patches):
        shutil.rmtree(os.path.join(self.top, 'patches'), ignore_errors=True)
        names = ['%04d-x.patch' % (i + 1) for i in range(len(patches))]
        write(os.path.join(self.top, 'patches', 'series'),
              '# the series\n' + ''.join('%s\n' % n for n in names))
        for n, text in zip(names, patches):
            write(os.path.join(self.top, 'patches', n), text)

    def prepare(self, **kw):
        return super().prepare(top=self.top, **dict({'tarball': self.tarball}, **kw))

    def test_the_series_applied_once_per_tarball_and_series(self):
        rc, out, err = self.prepare()
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, 'tree: unpacking %s\n' % self.tarball)
        self.assertEqual(read(os.path.join(self.dest, '.git', 'nsfd-source')),
                         'linux-source-6.12.tar\n')
        self.assertEqual(self.in_dest('log', '-1', '--format=%s', 'nsfd-series'),
                         'net: add socketat(2)')
        self.assertIn('int socketat;', read(os.path.join(self.dest, 'kernel', 'nsproxy.c')))
        self.assertEqual(self.in_dest('status', '--porcelain'), '')
        # Again: nothing unpacked, nothing applied, no file rewritten.
        series, before = self.in_dest('rev-parse', 'nsfd-series'), self.mtimes()
        rc, out, err = self.prepare()
        self.assertEqual((rc, out), (0, ''), err)
        self.assertEqual(self.in_dest('rev-parse', 'nsfd-series'), series)
        self.assertEqual(self.mtimes(), before)
        # A new tarball (its time): unpacked again.
        os.utime(self.tarball, (time.time() + 5, time.time() + 5))
        rc, out, err = self.prepare()
        self.assertEqual((rc, out), (0, 'tree: unpacking %s\n' % self.tarball), err)

    def test_a_series_that_does_not_apply_is_125(self):
        self.series(self.patch.replace(self.nsproxy.split('\n')[0], '// another tree'))
        rc, out, err = self.prepare()
        self.assertEqual(rc, 125, out + err)
        self.assertEqual(decide.tree(rc), 'build-failed')
        self.assertRegex(err, r'tree: patches/0001-x.patch does not apply to [0-9a-f]{7}')
        self.assertFalse(os.path.isdir(os.path.join(self.dest, '.git', 'rebase-apply')))
        # The series mended: applied on the tarball as unpacked (no new unpack).
        self.series(self.patch)
        rc, out, err = self.prepare()
        self.assertEqual((rc, out), (0, ''), err)

    def test_a_full_disk_under_git_am_is_2_not_125(self):
        bin_dir = os.path.join(self.tmp, 'bin')
        write(os.path.join(bin_dir, 'git'), '#!/bin/sh\nfor a; do [ "$a" = am ] && { echo "error: '
              'unable to write file .git/rebase-apply/patch: No space left on device" >&2; '
              'exit 128; }; done\nexec %s "$@"\n' % shutil.which('git'))
        os.chmod(os.path.join(bin_dir, 'git'), 0o755)
        with environ(PATH=bin_dir + os.pathsep + os.environ['PATH']):
            rc, _, err = self.prepare()
        self.assertEqual(rc, 2, err)
        self.assertIn('tree: patches/0001-x.patch: no space left on device (git am)', err)

    def test_our_own_inputs_that_are_wrong_are_2(self):
        self.assertEqual(self.prepare(tarball=os.path.join(self.tmp, 'none.tar.xz'))[:2],
                         (2, ''))
        self.assertIn('none.tar.xz is missing: run ci/deps.sh', self.prepare(
            tarball=os.path.join(self.tmp, 'none.tar.xz'))[2])
        write(os.path.join(self.top, 'patches', 'series'), '0001-x.patch\n0002-gone.patch\n')
        rc, _, err = self.prepare()
        self.assertEqual(rc, 2, err)
        self.assertIn('tree: patches/series names 0002-gone.patch, which is not in patches/', err)

    def test_a_mutant_is_applied_to_the_working_tree_and_taken_back_out(self):
        mutant = os.path.join(self.tmp, 'm.mutant')
        write(mutant, '# m: a test mutant\nfile: kernel/nsproxy.c\nfind: int socketat;\n'
                      'replace: int socketat2;\n')
        rc, out, err = self.prepare(mutant=mutant)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.in_dest('status', '--porcelain'), 'M kernel/nsproxy.c')
        self.assertEqual(self.prepare(mutant='')[0], 0)
        self.assertEqual(self.in_dest('status', '--porcelain'), '')
        write(mutant, '# m: a test mutant\nfile: kernel/nsproxy.c\nfind: int nothing;\n'
                      'replace: int socketat2;\n')
        rc, _, err = self.prepare(mutant=mutant)
        self.assertEqual(rc, 2, err)
        self.assertIn('tree: mutant %s does not apply to this tree' % mutant, err)


class TreeInputs(Fixture):
    """Our own inputs change (a fake checkout with copies of kunit/ and
    selftests/): what changed is laid in again, nothing else is touched;
    a kunit/ that kunit/patches does not split is ours to mend (2)."""

    def setUp(self):
        super().setUp()
        self.top = os.path.join(self.tmp, 'top')
        os.makedirs(os.path.join(self.top, 'selftests'))
        os.symlink(CI, os.path.join(self.top, 'ci'))
        shutil.copytree(KUNIT, os.path.join(self.top, 'kunit'))
        shutil.copytree(os.path.join(TOP, 'selftests', 'nsfd'),
                        os.path.join(self.top, 'selftests', 'nsfd'))
        self.ext = kernel_tree(os.path.join(self.tmp, 'linux'))

    def test_a_changed_test_file_is_laid_in_again_and_nothing_else(self):
        self.assertEqual(self.prepare(self.ext, top=self.top)[0], 0)
        before = self.mtimes()
        settings = os.path.join('tools', 'testing', 'selftests', 'nsfd', 'settings')
        write(os.path.join(self.top, 'selftests', 'nsfd', 'settings'), 'timeout=1\n')
        time.sleep(0.01)
        rc, _, err = self.prepare(self.ext, top=self.top)
        self.assertEqual(rc, 0, err)
        self.assertEqual(read(os.path.join(self.dest, settings)), 'timeout=1\n')
        after = self.mtimes()
        self.assertEqual([f for f in after if after[f] != before.get(f)],
                         [os.path.join(self.dest, settings)])
        self.assertEqual(self.in_dest('status', '--porcelain'), '')

    def test_a_kunit_file_in_no_patch_or_in_two_is_2(self):
        write(os.path.join(self.top, 'kunit', 'lib', 'x_kunit.c'), '// in no patch\n')
        rc, _, err = self.prepare(self.ext, top=self.top)
        self.assertEqual(rc, 2, err)
        self.assertIn("tree: kunit/lib/x_kunit.c is in 0 of kunit/patches' patches, not one", err)
        os.unlink(os.path.join(self.top, 'kunit', 'lib', 'x_kunit.c'))
        first = tree.kunit_patches(read(os.path.join(KUNIT, 'patches')))[0]
        write(os.path.join(self.top, 'kunit', 'patches'), '%s %s\n' % (
            first[0], ' '.join(first[1])), 'a')
        rc, _, err = self.prepare(self.ext, top=self.top)
        self.assertEqual(rc, 2, err)
        self.assertRegex(err, r"tree: kunit/\S+ is in 2 of kunit/patches' patches, not one")


class TreeDecisions(unittest.TestCase):
    """The pure pieces: the wiring's insert, the inputs' lists."""

    def test_insert_before_the_first_anchor_only(self):
        ins = b'before: endmenu\nconfig X\n\tbool "x"'
        self.assertEqual(tree.insert_before(ins, b'menu "a"\nendmenu\nendmenu'),
                         b'menu "a"\nconfig X\n\tbool "x"\nendmenu\nendmenu\n')
        self.assertIsNone(tree.insert_before(ins, b'menu "a"\nendmenu  \n'))
        self.assertIsNone(tree.insert_before(b'config X\n', b'config X\n'))
        self.assertIsNone(tree.insert_before(b'', b'x\n'))

    def test_git_am_on_a_full_disk_is_the_machine_s(self):
        for said, code in ((b'error: patch failed: kernel/nsproxy.c:1', 125),
                           (b'fatal: write error: No space left on device', 2),
                           (b'error: unable to write file x: Disk quota exceeded', 2)):
            self.assertEqual(tree.am_failed('0001-x.patch', said, 'abc1234').code, code, said)

    def test_the_lists_of_the_inputs(self):
        self.assertEqual(patch_list.names('# c\n\n0001-a.patch  # x\n 0002-b.patch -p1\n  \n'),
                         ['0001-a.patch', '0002-b.patch'])
        patches = tree.kunit_patches('# c\nfs.msg\tfs/\nk.msg kernel/ init/Kconfig\n')
        self.assertEqual(patches, [('fs.msg', ['fs/']), ('k.msg', ['kernel/', 'init/Kconfig'])])
        self.assertEqual([tree.owners(f, patches) for f in ('fs/a.c', 'init/Kconfig', 'init/x',
                                                            'fsx')], [1, 1, 0, 0])
        self.assertTrue(tree.in_paths('anything', []))
        self.assertEqual(tree.author('x\nSigned-off-by: A <a@x>\nSigned-off-by: B C <b@y>\n'),
                         ('B C', 'b@y'))

    def test_every_kunit_file_is_in_one_patch(self):
        patches = tree.kunit_patches(read(os.path.join(KUNIT, 'patches')))
        for f in (tree.sources(KUNIT) + tree.files_under(os.path.join(KUNIT, 'append')) +
                  tree.files_under(os.path.join(KUNIT, 'insert'))):
            self.assertEqual(tree.owners(f, patches), 1, f)


class TreeCallSites(Fixture):
    """What the pipeline and the command line make of the verdict."""

    def run_tree(self, ext):
        said = io.StringIO()
        run = Run(TOP, runlog.Say(said), kernel_src=ext)
        run.src = self.dest
        saved = procs.hold_build_lock
        procs.hold_build_lock = lambda *a: None
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                run.prepare_tree()
        finally:
            procs.hold_build_lock = saved
        return run, said.getvalue()

    def test_the_run_reads_125_as_build_failed_and_2_as_an_environment_error(self):
        ext = kernel_tree(os.path.join(self.tmp, 'linux'))
        run, said = self.run_tree(ext)
        self.assertEqual(run.tree_rc, 'ok')
        self.assertEqual(run.tree_head, self.in_dest('rev-parse', 'HEAD'))
        shutil.rmtree(self.tmp)
        ext = kernel_tree(os.path.join(self.tmp, 'linux'), drop_anchor=[
            f for f, how in wiring().items() if how != 'append'][0])
        run, said = self.run_tree(ext)
        self.assertEqual(run.tree_rc, 'build-failed')
        self.assertIn('nsfd: tree: failed (exit 125)', said)
        with self.assertRaisesRegex(runlog.EnvError,
                                    r'tree: cannot prepare .* \(exit 2, see above\)'):
            self.run_tree(os.path.join(self.tmp, 'nowhere'))

    def test_the_command_line(self):
        shim = os.path.join(CI, 'prepare-tree.sh')
        p = subprocess.run([shim], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('usage: ci/prepare-tree.sh DEST [KERNEL_SRC [REV]]', p.stderr)
        ext = kernel_tree(os.path.join(self.tmp, 'linux'), drop='net/socket.c')
        p = subprocess.run([shim, self.dest, ext], capture_output=True, text=True)
        self.assertEqual(p.returncode, 125 if 'net/socket.c' in wiring() else 0, p.stderr)
        p = subprocess.run([shim, self.dest, os.path.join(self.tmp, 'nowhere')],
                           capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stderr), (2, 'tree: KERNEL_SRC=%s is not a kernel '
                                                       'source tree\n' % os.path.join(
                                                           self.tmp, 'nowhere')))


if __name__ == '__main__':
    unittest.main()
