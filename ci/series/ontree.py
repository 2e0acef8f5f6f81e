#!/usr/bin/env python3
"""The series on another git tree: what make series KERNEL_SRC=DIR mails.

  ci/series/ontree.py prepare DIR
      applies patches/series with `git am -3` to DIR's HEAD, in a clone
      of its own (build/series-on/<DIR's commit, 12 digits>/src; DIR is
      only read), the wiring patch made for that tree first
      (ci/series/renumber.py: socketat gets the next number free in every
      syscall table). Writes beside it patches/ (the series as applied,
      and the cover letter and man page with that number) and series.env
      (shell assignments: SERIES_DIR, SERIES_TREE, SERIES_BASE,
      SERIES_BASE_TEXT, SERIES_NR, SERIES_N0, SERIES_PATCHES, SERIES_OUT),
      which mail.sh and make.sh read. The applied tree is a clean git tree
      that ci/nsfd run --kernel-src builds and tests.
  ci/series/ontree.py where DIR
      prints that directory (nothing is prepared).

Exit 0; 1 when a patch does not apply, naming the patch and each file
(the files -3 left in conflict, or git apply's "patch failed" files, or
the table the wiring cannot be made on); 2 when DIR is not a git kernel
tree with a HEAD, or git fails otherwise (a full disk included).

Environment: NSFD_SERIES_PATCHES (the patches directory, patches/ of this
checkout by default; make check's fixtures), NSFD_SERIES_WORKDIR (the
directory the work goes under, build/ by default).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
from ci import args  # noqa: E402
from ci.results.model import ExitCode  # noqa: E402
from ci.series import patch_list, renumber  # noqa: E402

# The applied commits are the same for the same inputs: a fixed committer
# and date (the authors and author dates are the patches').
GIT_CONFIG = ('-c', 'user.name=nsfd', '-c', 'user.email=nsfd@localhost', '-c', 'gc.auto=0',
              '-c', 'advice.detachedHead=false', '-c', 'core.autocrlf=false')
COMMIT_DATE = '2024-11-17T12:00:00Z'
CALLER_GIT = ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR',
              'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE',
              'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE')
DISK_FULL = re.compile(r'No space left on device|Disk quota exceeded')


class Exit(Exception):
    def __init__(self, code, lines):
        super().__init__('\n'.join(lines))
        self.code, self.lines = code, lines


# Decisions, pure functions.

def failed_files(output, unmerged=()):
    """The files a failed `git am -3` names in OUTPUT, and UNMERGED (what
    `git diff --name-only --diff-filter=U` lists): the merge conflicts,
    the "patch failed" hunks where no blob was there to merge with, the
    files missing from the index."""
    files = list(unmerged)
    for rx in (r'^CONFLICT \([^)]*\): Merge conflict in (\S+)',
               r'^CONFLICT \([^)]*\): (\S+) deleted in',
               r'^error: patch failed: (\S+?):\d+$',
               r'^error: (\S+): does not exist in index$',
               r'^error: (\S+): already exists in index$',
               r'^error: (\S+): patch does not apply$',
               r'^error: sha1 information is lacking or useless \((\S+)\)\.$'):
        files += re.findall(rx, output, re.M)
    return list(dict.fromkeys(files))


def not_applied(patch, kernel_src, base, files, why=''):
    """The exit-1 line for PATCH."""
    return 'series: patches/%s does not apply to %s (%s): %s%s' % (
        patch, kernel_src, base[:12], ', '.join(files) or 'no file named (see git am above)',
        ' (%s)' % why if why else '')


def base_paragraph(n0, n, taken):
    """The cover letter's Base: paragraph for a tree of the sender's
    (@BASE@ names it; mail.sh fills it in and the paragraph to 72)."""
    if n == n0:
        num = ('socketat is wired up with %d, the next number free in every syscall table '
               'there, as on the 6.12 the series was first made on' % n)
    elif taken:
        num = ('socketat is wired up with %d, the next number free in every syscall table '
               'there: %d, its number on the 6.12 the series was first made on, is %s on this '
               'tree' % (n, n0, ' and '.join(taken)))
    else:
        num = ('socketat is wired up with %d, the next number free in every syscall table '
               'there (%d on the 6.12 the series was first made on)' % (n, n0))
    return ('Base: @BASE@.  The series was applied to that tree with git am -3, and %s.  '
            'base-commit below is that tree\'s commit.' % num)


def cover(text, n0, n, taken):
    """The cover letter for the tree: its numbers moved from N0 to N, and
    the Base: paragraph (the one with @BASE@) the tree's."""
    text = re.sub(r'every syscall table(\s+)of 6\.12\b', r'every syscall table\1of this tree',
                  renumber.prose(text, n0, n, taken))
    paras = text.split('\n\n')
    return '\n\n'.join(base_paragraph(n0, n, taken) if '@BASE@' in p else p for p in paras)


def kernel_version(makefile):
    """VERSION.PATCHLEVEL.SUBLEVEL EXTRAVERSION of a top Makefile."""
    v = dict(re.findall(r'^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION) = ?(.*)$',
                        makefile, re.M))
    return '%s.%s.%s%s' % (v.get('VERSION', '?'), v.get('PATCHLEVEL', '?'),
                           v.get('SUBLEVEL', '?'), v.get('EXTRAVERSION', ''))


def work_dir(build, commit):
    return os.path.join(build, 'series-on', commit[:12])


# The tree.

class Tree:
    def __init__(self, kernel_src, top=TOP, patches=None, build=None):
        self.ext = kernel_src
        self.top = top
        self.patches = patches or os.environ.get('NSFD_SERIES_PATCHES') or os.path.join(
            top, 'patches')
        self.build = build or os.environ.get('NSFD_SERIES_WORKDIR') or os.path.join(top, 'build')
        self.env = {k: v for k, v in os.environ.items() if k not in CALLER_GIT}
        self.env.update(GIT_COMMITTER_DATE=COMMIT_DATE)

    def run(self, cmd, cwd=None):
        p = subprocess.run(cmd, env=self.env, cwd=cwd, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, errors='replace')
        return p.returncode, p.stdout, p.stderr

    def git(self, repo, *args, ok=False):
        """git in REPO: its stdout (stripped); exit 2 on failure unless OK
        (then None)."""
        rc, out, err = self.run(['nice', '-n', '19', 'git', '-C', repo] + list(GIT_CONFIG) +
                                list(args))
        if rc:
            if ok:
                return None
            raise Exit(2, ['series: git %s in %s failed (exit %d): %s' % (
                args[0], repo, rc, (err.strip().splitlines() or ['?'])[-1])])
        return out.strip()

    def head(self):
        """DIR's HEAD commit, exit 2 if DIR is not a git kernel tree."""
        ext = self.ext
        if not os.path.isdir(ext):
            raise Exit(2, ['series: KERNEL_SRC=%s is not a directory' % ext])
        commit = self.git(ext, 'rev-parse', '-q', '--verify', 'HEAD^{commit}', ok=True)
        if not commit:
            raise Exit(2, ['series: KERNEL_SRC=%s is not a git tree with a commit: the mail '
                           'names its base by its commit (git init; git add -Af; git commit)'
                           % ext])
        top = self.git(ext, 'rev-parse', '--show-toplevel', ok=True)
        if top and os.path.realpath(top) != os.path.realpath(ext):
            raise Exit(2, ['series: KERNEL_SRC=%s is inside the git tree %s, not one of its '
                           'own' % (ext, top)])
        for path in ('Makefile', 'kernel'):
            if self.git(ext, 'cat-file', '-e', '%s:%s' % (commit, path), ok=True) is None:
                raise Exit(2, ['series: KERNEL_SRC=%s is not a kernel tree (its HEAD has no %s)'
                               % (ext, path)])
        return commit

    def where(self):
        return work_dir(self.build, self.head())

    def prepare(self):
        base = self.head()
        d = work_dir(self.build, base)
        src, pd = os.path.join(d, 'src'), os.path.join(d, 'patches')
        env_file = os.path.join(d, 'series.env')
        os.makedirs(d, exist_ok=True)
        if os.path.exists(env_file):
            os.unlink(env_file)
        if self.git(self.ext, 'status', '--porcelain', '--untracked-files=no', ok=True):
            print('series: %s has local changes: the series is made on its HEAD, %s, '
                  'without them' % (self.ext, base[:12]), flush=True)
        # The clone: DIR's objects, DIR's HEAD checked out (only the files
        # that differ from the last run's are written).
        if self.git(src, 'rev-parse', '--git-dir', ok=True) != '.git':
            shutil.rmtree(src, ignore_errors=True)
            print('series: cloning %s into %s' % (self.ext, src), flush=True)
            self.git(self.build, 'clone', '-q', '--no-checkout', os.path.abspath(self.ext), src)
        if self.git(src, 'cat-file', '-e', base + '^{commit}', ok=True) is None:
            self.git(src, 'fetch', '-q', '--no-tags', os.path.abspath(self.ext),
                     '+HEAD:refs/nsfd/kernel-src')
        self.git(src, 'am', '--abort', ok=True)
        self.git(src, 'checkout', '-q', '-f', '--detach', base)
        self.git(src, 'clean', '-q', '-f', '-d', '-x')
        self.git(src, 'tag', '-f', 'nsfd-kernel-src', base)
        shutil.rmtree(pd, ignore_errors=True)
        os.makedirs(pd)
        with open(os.path.join(self.patches, 'series')) as f:
            names = patch_list.names(f.read())
        shutil.copy(os.path.join(self.patches, 'series'), pd)
        wiring = n = None
        for name in names:
            with open(os.path.join(self.patches, name), errors='surrogateescape') as f:
                text = f.read()
            w = renumber.Wiring.of(text)
            if w:
                wiring = w
                try:
                    text, n = renumber.make_patch(w, renumber.git_reader(src, 'HEAD'))
                except renumber.NotApplicable as e:
                    raise Exit(1, [not_applied(name, self.ext, base, [e.file], e.why)])
            path = os.path.join(pd, name)
            with open(path, 'w', errors='surrogateescape') as f:
                f.write(text)
            rc, out, err = self.run(['nice', '-n', '19', 'git', '-C', src] + list(GIT_CONFIG) +
                                    ['am', '-3', '-q', '--keep-cr', path])
            if rc:
                said = out + err
                unmerged = (self.git(src, 'diff', '--name-only', '--diff-filter=U', ok=True)
                            or '').split()
                self.git(src, 'am', '--abort', ok=True)
                if DISK_FULL.search(said):
                    raise Exit(2, ['series: patches/%s: no space left on device (git am)' % name])
                sys.stdout.write(said)
                raise Exit(1, [not_applied(name, self.ext, base, failed_files(said, unmerged))])
        if wiring is None:
            raise Exit(2, ['series: no patch of %s/series wires a syscall into the tables'
                           % self.patches])
        self.git(src, 'tag', '-f', 'nsfd-series-applied', 'HEAD')
        read = renumber.git_reader(src, base)
        taken = renumber.holders(wiring, read, wiring.n0) if n != wiring.n0 else []
        for name, fix in (('cover-letter.txt', lambda t: cover(t, wiring.n0, n, taken)),
                          ('socketat.2', lambda t: renumber.prose(t, wiring.n0, n, taken))):
            p = os.path.join(self.patches, name)
            if os.path.isfile(p):
                with open(p) as f:
                    text = fix(f.read())
                with open(os.path.join(pd, name), 'w') as f:
                    f.write(text)
        describe = self.git(self.ext, 'describe', '--tags', '--always', base, ok=True) or base
        subject = self.git(self.ext, 'log', '-1', '--format=%s', base)
        version = kernel_version(read('Makefile') or '')
        named = base[:12] if describe.startswith(base[:7]) else '%s, %s' % (describe, base[:12])
        base_text = '%s ("%s"), Linux %s' % (named, subject, version)
        values = (('SERIES_DIR', d), ('SERIES_TREE', src), ('SERIES_BASE', base),
                  ('SERIES_BASE_TEXT', base_text), ('SERIES_NR', str(n)),
                  ('SERIES_N0', str(wiring.n0)), ('SERIES_TAKEN', ','.join(taken)),
                  ('SERIES_PATCHES', pd),
                  ('SERIES_OUT', os.path.join(self.top, 'out', 'series-' + base[:12])))
        with open(env_file + '.new', 'w') as f:
            f.write(''.join('%s=%s\n' % (k, shlex.quote(v)) for k, v in values))
        os.rename(env_file + '.new', env_file)
        why = (' (%d is %s there)' % (wiring.n0, ' and '.join(taken)) if taken else '')
        print('series: socketat is %d on %s (%s): the next number free in every syscall '
              'table%s' % (n, self.ext, named, why))
        print('series: the series applied with git am -3, renumbered: %s' % src, flush=True)
        return 0


def main(argv):
    cmd, words = args.commands('python3 -m ci.series.ontree', __doc__, ('prepare', 'where'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    if len(argv) != 3 or argv[1] not in ('prepare', 'where'):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return ExitCode.ENVIRONMENT
    t = Tree(argv[2])
    try:
        if argv[1] == 'where':
            print(t.where())
            return ExitCode.PASS
        return t.prepare()
    except Exit as e:
        for line in e.lines:
            print(line, file=sys.stderr, flush=True)
        return e.code
    except OSError as e:
        print('series: %s' % e, file=sys.stderr)
        return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
