"""make series KERNEL_SRC=DIR: the series on another git tree, socketat
numbered for it (ci/series/renumber.py, ci/series/ontree.py).

No kernel: small git trees whose syscall tables and uapi header are 6.12's
as the wiring patch sees them (its own context lines, under a fake head,
and x86_64's x32 block after), a fake first patch made with git
format-patch on a file of the fixture, and the real wiring patch, cover
letter and man page.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)
PATCHES = os.path.join(TOP, 'patches')
WIRING = '0005-arch-wire-up-socketat-2.patch'
FAKE = '0001-net-fake-change.patch'
UNISTD = 'include/uapi/asm-generic/unistd.h'
X86_64 = 'arch/x86/entry/syscalls/syscall_64.tbl'
ALPHA = 'arch/alpha/kernel/syscalls/syscall.tbl'


from ci.dev import syscall_taken  # noqa: E402
from ci.series import ontree, renumber  # noqa: E402
from ci.tests import waits  # noqa: E402

with open(os.path.join(PATCHES, WIRING)) as _f:
    PATCH3 = _f.read()


def env_for(tmp):
    """git that sees no config of the machine's, and one identity."""
    cfg = os.path.join(tmp, 'gitconfig')
    with open(cfg, 'w') as f:
        f.write('[user]\n\tname = Ada Lovelace\n\temail = ada@lovelace.dev\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith('GIT_')}
    env.update(HOME=tmp, GIT_CONFIG_GLOBAL=cfg, GIT_CONFIG_NOSYSTEM='1')
    return env


def git(repo, *args, env):
    return subprocess.run(['git', '-C', repo] + list(args), env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def preimages(patch):
    """{path: the lines each hunk of PATCH expects (context and removed)}."""
    out = {}
    for path, diff in renumber.split_patch(patch)[1]:
        lines = diff.split('\n')
        body = [l[1:] for l in lines[lines.index(next(l for l in lines if l.startswith('@@'))):]
                if l[:1] in (' ', '-') and not l.startswith('---')]
        out[path] = '\n'.join(body) + '\n'
    return out


def tables_612():
    """The files the wiring patch touches, as 6.12 has them where it looks:
    a head, a first row in the table's own ABI, then its context lines;
    x86_64 goes on with its x32-only block (512..547)."""
    files = {}
    for path, pre in preimages(PATCH3).items():
        if path.endswith('.tbl'):
            abi = re.match(r'^\s*\d+\s+(\S+)', pre).group(1)
            files[path] = ('# SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note\n#\n'
                           '# %s, as 6.12 ends it\n#\n0\t%s\tread\t\t\tsys_read\n' % (path, abi)
                           + pre)
        else:
            files[path] = '#ifndef _ASM_GENERIC_UNISTD_H\n#define __NR_io_setup 0\n' + pre + ' */\n'
    files[X86_64] += ('# in x32 as compared to native x86_64.  These syscalls have numbers '
                      '512-547.\n#\n512\tx32\trt_sigaction\t\tcompat_sys_rt_sigaction\n'
                      '547\tx32\tpwritev2\t\tcompat_sys_pwritev64v2\n')
    return files


def take(files, n0, name, only=None):
    """FILES with N0 given to NAME after the highest row of each table (of
    ONLY), as 6.13 gave 463 to setxattrat; the uapi header too
    (ci/dev/syscall_taken.py, which makes such a real tree)."""
    edits, _ = syscall_taken.taken(files.get, renumber.Wiring(PATCH3), name, n0, only)
    return dict(files, **edits)


SOCKET_C = 'int sock_create(void)\n{\n\tint err = 0;\n\n\treturn err;\n}\n'


class Fixture(unittest.TestCase):
    """A kernel-shaped git tree DIR and a patches/ of a fake first patch
    and the real wiring patch, cover letter and man page."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.env = env_for(self.tmp)
        self.patches = os.path.join(self.tmp, 'patches')
        os.makedirs(self.patches)
        for name in (WIRING, 'cover-letter.txt', 'socketat.2'):
            shutil.copy(os.path.join(PATCHES, name), self.patches)
        with open(os.path.join(self.patches, 'series'), 'w') as f:
            f.write('# a fake first patch, then the wiring\n%s\n%s\n' % (FAKE, WIRING))
        # The fake first patch: git format-patch of a change to net/socket.c.
        d = self.tree('patchsrc', {'net/socket.c': SOCKET_C})
        self.write(d, {'net/socket.c': SOCKET_C.replace('int err = 0;', 'int err = -EINVAL;')})
        git(d, 'commit', '-qam', 'net: a fake change', env=self.env)
        with open(os.path.join(self.patches, FAKE), 'w') as f:
            f.write(git(d, 'format-patch', '--stdout', '-1', env=self.env) + '\n')

    @staticmethod
    def write(d, files):
        for path, text in files.items():
            p = os.path.join(d, path)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            if text is None:
                os.unlink(p)
                continue
            with open(p, 'w') as f:
                f.write(text)

    def tree(self, name, files):
        d = os.path.join(self.tmp, name)
        self.write(d, dict({'Makefile': 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\n'
                                        'EXTRAVERSION =\n', 'kernel/fork.c': 'int fork;\n'},
                           **files))
        git(d, 'init', '-q', env=self.env)
        git(d, 'add', '-A', env=self.env)
        git(d, 'commit', '-qm', 'Linux 6.12', env=self.env)
        return d

    def kernel(self, name='linux', then=None, **files):
        """DIR: 6.12's tables and net/socket.c, then THEN's files (a second
        commit) when given."""
        base = dict(tables_612(), **{'net/socket.c': SOCKET_C})
        base.update(files)
        d = self.tree(name, {p: t for p, t in base.items() if t is not None})
        if then is not None:
            self.write(d, then)
            git(d, 'add', '-A', env=self.env)
            git(d, 'commit', '-qm', 'the tree moves on', env=self.env)
        return d

    def prepare(self, d):
        env = dict(self.env, NSFD_SERIES_PATCHES=self.patches,
                   NSFD_SERIES_WORKDIR=os.path.join(self.tmp, 'build'))
        return subprocess.run([sys.executable, '-B', '-P', '-m', 'ci.series.ontree',
                               'prepare', d], env=dict(env, PYTHONPATH=TOP), capture_output=True, text=True,
                              timeout=waits.HANG)

    def applied(self, d):
        """series.env of DIR's run, and {path: text} of the applied tree's
        HEAD for every file the wiring touches."""
        env = dict(self.env, NSFD_SERIES_PATCHES=self.patches,
                   NSFD_SERIES_WORKDIR=os.path.join(self.tmp, 'build'))
        work = subprocess.run([sys.executable, '-B', '-P', '-m', 'ci.series.ontree',
                               'where', d], env=dict(env, PYTHONPATH=TOP), capture_output=True, text=True,
                              check=True).stdout.strip()
        with open(os.path.join(work, 'series.env')) as f:
            values = dict(re.findall(r"^(\w+)='?(.*?)'?$", f.read(), re.M))
        src = values['SERIES_TREE']
        files = {p: git(src, 'show', 'HEAD:' + p, env=self.env) + '\n'
                 for p in preimages(PATCH3)}
        return values, files

    def socketat_rows(self, files):
        """{table: [socketat's row numbers]}."""
        return {p: [nr for _, nr, _, name in renumber.rows(t) if name == 'socketat']
                for p, t in files.items() if p.endswith('.tbl')}

    def assert_numbered(self, files, n):
        offsets = {p: off for p, (off, _) in renumber.Wiring(PATCH3).tables.items()}
        rows = self.socketat_rows(files)
        self.assertEqual(len(rows), 17)
        for path, nrs in rows.items():
            self.assertEqual(nrs, [n + offsets[path]], path)
        self.assertEqual(rows[ALPHA], [n + 110])
        self.assertIn('#define __NR_socketat %d\n__SYSCALL(__NR_socketat, sys_socketat)\n\n'
                      '#undef __NR_syscalls\n#define __NR_syscalls %d\n' % (n, n + 1),
                      files[UNISTD])


class OnAnotherTree(Fixture):

    def test_463_free_gives_463_in_every_table(self):
        d = self.kernel()
        out = self.prepare(d)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn('socketat is 463 on %s' % d, out.stdout)
        values, files = self.applied(d)
        self.assertEqual((values['SERIES_NR'], values['SERIES_N0']), ('463', '463'))
        self.assertEqual(values['SERIES_BASE'], git(d, 'rev-parse', 'HEAD', env=self.env))
        self.assert_numbered(files, 463)
        # On a tree shaped as 6.12, the patch made again is the patch: the
        # same rows and header lines added, the same commit message.
        with open(os.path.join(values['SERIES_PATCHES'], WIRING)) as f:
            made = f.read()
        self.assertEqual(renumber.added(made), renumber.added(PATCH3))
        self.assertEqual(renumber.removed(made), renumber.removed(PATCH3))
        self.assertEqual(made.split('\n---\n')[0], PATCH3.split('\n---\n')[0])

    def test_463_taken_in_every_table_gives_464_in_every_table(self):
        d = self.kernel(then=take(tables_612(), 463, 'setxattrat'))
        out = self.prepare(d)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn('socketat is 464 on %s' % d, out.stdout)
        self.assertIn('(463 is setxattrat there)', out.stdout)
        values, files = self.applied(d)
        self.assertEqual(values['SERIES_NR'], '464')
        self.assert_numbered(files, 464)
        # x86_64: after setxattrat, before the x32 block (whose 512..547
        # are not the shared numbers).
        self.assertIn('463\tcommon\tsetxattrat\t\t\tsys_ni_syscall\n464\tcommon\tsocketat\t'
                      '\tsys_socketat\n\n#\n# Due to', files[X86_64])
        # The commit message, the cover letter and the man page say 464.
        with open(os.path.join(values['SERIES_PATCHES'], WIRING)) as f:
            msg = f.read().split('\n---\n')[0]
        for said in ('574 on alpha', '4464 for o32, 5464 for n64, 6464 for n32',
                     '__NR_syscalls raised to 465', 'On this tree 463 is already setxattrat'):
            self.assertIn(said, ' '.join(msg.split()))
        # 463 only where the message says why it is not socketat's.
        self.assertNotRegex(msg.split('On this tree')[0], r'\b(463|573|4463|5463|6463)\b')
        with open(os.path.join(values['SERIES_PATCHES'], 'cover-letter.txt')) as f:
            cover = ' '.join(f.read().split())
        self.assertIn('574 on alpha; 4464, 6464 and 5464 on mips', cover)
        self.assertIn('Base: @BASE@.', cover)
        self.assertIn('463, its number on the 6.12 the series was first made on, is setxattrat '
                      'on this tree', cover)
        with open(os.path.join(values['SERIES_PATCHES'], 'socketat.2')) as f:
            man = f.read()
        self.assertIn('it is 464 on x86-64', man)
        self.assertIn('Linux 6.13 assigned 463 to', man)

    def test_463_taken_in_one_table_only_is_still_one_number_for_all(self):
        d = self.kernel(then=take(tables_612(), 463, 'arch_only', only=['scripts/syscall.tbl']))
        out = self.prepare(d)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assert_numbered(self.applied(d)[1], 464)

    def test_a_patch_whose_context_is_gone_is_exit_1_naming_it_and_the_file(self):
        d = self.kernel(**{'net/socket.c': SOCKET_C.replace('int err = 0;', 'long err;')})
        before = git(d, 'status', '--porcelain', env=self.env)
        out = self.prepare(d)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertRegex(out.stderr, r'series: patches/%s does not apply to %s \([0-9a-f]{12}\): '
                         r'net/socket\.c' % (re.escape(FAKE), re.escape(d)))
        self.assertEqual(git(d, 'status', '--porcelain', env=self.env), before)

    def test_a_three_way_conflict_is_exit_1_naming_the_patch_and_the_file(self):
        # The patch's blob is in DIR's history, so -3 merges, and conflicts.
        d = self.kernel(then={'net/socket.c': SOCKET_C.replace('int err = 0;', 'int err = 1;')})
        out = self.prepare(d)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertRegex(out.stderr, r'series: patches/%s does not apply to %s \([0-9a-f]{12}\): '
                         r'net/socket\.c\n' % (re.escape(FAKE), re.escape(d)))

    def test_a_table_the_tree_lacks_is_exit_1_naming_the_wiring_patch_and_it(self):
        d = self.kernel(**{'arch/xtensa/kernel/syscalls/syscall.tbl': None})
        out = self.prepare(d)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn('series: patches/%s does not apply to %s' % (WIRING, d), out.stderr)
        self.assertIn('arch/xtensa/kernel/syscalls/syscall.tbl (this tree has no such table)',
                      out.stderr)

    def test_not_a_git_kernel_tree_is_exit_2(self):
        plain = os.path.join(self.tmp, 'plain')
        os.makedirs(os.path.join(plain, 'kernel'))
        out = self.prepare(plain)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn('not a git tree with a commit', out.stderr)

    def test_dir_is_only_read_and_the_same_inputs_give_the_same_commits(self):
        d = self.kernel(then=take(tables_612(), 463, 'setxattrat'))

        def state():
            return (git(d, 'for-each-ref', env=self.env), git(d, 'status', '--porcelain',
                                                               '--ignored', env=self.env),
                    sorted(os.listdir(os.path.join(d, '.git'))))
        before = state()
        self.assertEqual(self.prepare(d).returncode, 0)
        first = self.applied(d)[0]
        head = git(first['SERIES_TREE'], 'rev-parse', 'HEAD', env=self.env)
        self.assertEqual(self.prepare(d).returncode, 0)
        self.assertEqual(git(first['SERIES_TREE'], 'rev-parse', 'HEAD', env=self.env), head)
        self.assertEqual(state(), before)
        # The applied tree is clean: --kernel-src takes it by its commit.
        self.assertEqual(git(first['SERIES_TREE'], 'status', '--porcelain', env=self.env), '')


class Decisions(unittest.TestCase):
    """renumber.py's and ontree.py's choices, called directly."""

    def reader(self, files):
        return lambda path: files.get(path)

    def test_the_wiring_patch_is_read_with_each_tables_offset(self):
        w = renumber.Wiring(PATCH3)
        self.assertEqual((w.name, w.n0), ('socketat', 463))
        self.assertEqual(len(w.tables), 17)
        self.assertEqual(w.tables[ALPHA][0], 110)
        self.assertEqual({off for off, _ in w.tables.values()}, {0, 110})
        with open(os.path.join(PATCHES, '0001-net-pass-the-network-namespace-down-the-'
                                         'socket-2-cre.patch')) as f:
            self.assertIsNone(renumber.Wiring.of(f.read()))

    def test_x32_rows_and_alphas_offset_are_not_in_use(self):
        top = renumber.in_use(renumber.Wiring(PATCH3), self.reader(tables_612()))
        self.assertEqual(set(top.values()), {462})
        self.assertEqual(renumber.next_free(renumber.Wiring(PATCH3), self.reader(tables_612())),
                         463)

    def test_a_hole_below_the_top_is_kept(self):
        files = take(tables_612(), 470, 'far_away', only=[X86_64])
        w = renumber.Wiring(PATCH3)
        self.assertEqual(renumber.next_free(w, self.reader(files)), 471)
        text, n = renumber.make_patch(w, self.reader(files))
        self.assertEqual(n, 471)
        self.assertIn('+471\tcommon\tsocketat\t\tsys_socketat\n', text)
        self.assertIn('+581\tcommon\tsocketat', text)

    def test_no_uapi_header_is_not_applicable(self):
        files = dict(tables_612())
        del files[UNISTD]
        with self.assertRaises(renumber.NotApplicable) as e:
            renumber.next_free(renumber.Wiring(PATCH3), self.reader(files))
        self.assertEqual(e.exception.file, UNISTD)

    def test_a_table_with_socketat_already_is_not_applicable(self):
        files = take(tables_612(), 463, 'socketat', only=[ALPHA])
        with self.assertRaises(renumber.NotApplicable) as e:
            renumber.make_patch(renumber.Wiring(PATCH3), self.reader(files))
        self.assertEqual(e.exception.file, ALPHA)

    def test_each_abis_number(self):
        want = {('alpha', 'alpha'): 574, ('arm', 'oabi'): 0x900000 + 464,
                ('mips', 'o32'): 4464, ('mips', 'n32'): 6464, ('mips', 'n64'): 5464,
                ('x86', 'x32'): 0x40000000 | 464, ('x86', 'x86_64'): 464,
                ('riscv', 'rv64'): 464}
        got = {(a, b): nr for a, b, nr, _ in renumber.abis(464)}
        for k, v in want.items():
            self.assertEqual(got[k], v, k)
        # 6.12's, as make series expected them before they were computed.
        got = {(a, b): nr for a, b, nr, _ in renumber.abis(463)}
        self.assertEqual((got['alpha', 'alpha'], got['x86', 'x32'], got['arm', 'oabi']),
                         (573, 1073742287, 9437647))

    def test_prose_keeps_history_and_moves_the_series_number(self):
        text = ('It is 463 on x86 and 573 on alpha; 4463 on mips o32, with\n'
                '__NR_syscalls 464.  On net-next, 463 is setxattrat (6.13).\n\n'
                'Upstream 6.13 gives 463 to setxattrat, so this number is only good for\n'
                '6.12.  The rest stays 463.\n')
        out = renumber.prose(text, 463, 464, ['setxattrat'])
        self.assertIn('It is 464 on x86 and 574 on alpha; 4464 on mips o32', out)
        self.assertIn('__NR_syscalls 465.  On net-next, 463 is setxattrat (6.13).', out)
        self.assertIn('On this tree 463 is already setxattrat, so socketat is 464 here', out)
        self.assertIn('The rest stays 464.', out)
        self.assertNotIn('this number', out)
        self.assertEqual(renumber.prose(text, 463, 463), text)

    def test_the_files_a_failed_am_names(self):
        three_way = ('Applying: net: x\nUsing index info to reconstruct a base tree...\n'
                     'M\tnet/socket.c\nFalling back to patching base and 3-way merge...\n'
                     'Auto-merging net/socket.c\nCONFLICT (content): Merge conflict in '
                     'net/socket.c\nerror: Failed to merge in the changes.\n')
        self.assertEqual(ontree.failed_files(three_way, ['net/socket.c']), ['net/socket.c'])
        no_blob = ('Applying: net: x\nerror: patch failed: net/socket.c:1571\n'
                   'error: net/socket.c: patch does not apply\nerror: sha1 information is '
                   'lacking or useless (include/linux/net.h).\nerror: could not build fake '
                   'ancestor\n')
        self.assertEqual(ontree.failed_files(no_blob), ['net/socket.c', 'include/linux/net.h'])
        self.assertEqual(ontree.failed_files('error: net/x.c: does not exist in index\n'),
                         ['net/x.c'])


class Wired(unittest.TestCase):
    """make series passes KERNEL_SRC on and checks each ABI at the number
    chosen."""

    def test_the_makefile_passes_kernel_src(self):
        with open(os.path.join(TOP, 'Makefile')) as f:
            self.assertIn("\t@ci/series/make.sh $(if $(KERNEL_SRC),--kernel-src '$(KERNEL_SRC)')\n",
                          f.read())

    def test_make_sh_expects_the_number_chosen(self):
        with open(os.path.join(CI, 'series', 'make.sh')) as f:
            make = f.read()
        self.assertIn('python3 -B -P -m ci.series.renumber abis "$nr"', make)
        self.assertIn('nr=$SERIES_NR', make)
        self.assertNotRegex(make, r'\n(alpha|x86)\t\w+\t\d+\t')


if __name__ == '__main__':
    unittest.main()
