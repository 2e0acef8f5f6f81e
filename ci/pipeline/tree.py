"""The kernel tree every variant builds from (docs/design.md, "How a run
flows"), as a git repository: build/patched/src, or build/ext/src for
KERNEL_SRC.

Without KERNEL_SRC: unpack Debian's linux-source-6.12 into DEST (once per
tarball; every file gets the time of unpacking, never the archive's, so a
new tarball can not leave older-looking sources behind objects), `git am`
every patch of patches/series (again only when the series changes), then
lay in kunit/ and selftests/nsfd/.
With KERNEL_SRC: that tree as it stands reaches DEST through git, never a
copy: a clean git tree by its commit (DEST borrows its objects), any other
tree (an unpacked tarball, a git tree with local changes) by hashing its
files into DEST's repository. Then only the tests are laid in (no socketat
patches): what bisection runs. DEST/.git/nsfd-source names what was taken
(the commit, "-dirty" for local changes). REV: that commit of KERNEL_SRC's
history instead of its working tree (make bisect: KERNEL_SRC's checkout is
never touched). KERNEL_SRC is never written to.

Laying in is one commit per test directory on top of the series, checked
out with git, which rewrites only the files that differ: an unchanged input
leaves every mtime alone, so the kernel build stays incremental, and a
changed one gets the current time, so it is always rebuilt.
The tests are wired in without a context diff, so that they go into any
tree from 6.1 on: each file kunit/append/PATH is appended to the tree's PATH
(obj- lines, the #include of a test beside the static code it tests, a
Kconfig entry at the end of its file), and each kunit/insert/PATH is
inserted before the line of the tree's PATH that its first line names
("before: LINE"; a Kconfig entry inside the menu or if-block it belongs
to). kunit/patches splits kunit/ into one commit per subsystem, as the
series mails them. The kselftests need no wiring: the build names
TARGETS=nsfd.

prepare() returns the tree's verdict, as decide.tree reads it:
  0    ready;
  125  this tree cannot take the tests: a patch of the series does not
       apply, a file the wiring appends to or inserts into is not there,
       or has no line to insert before (git bisect run skips the commit);
  2    usage or environment: no tarball, KERNEL_SRC not a kernel tree (or
       with an in-tree build, or without REV), a series or kunit/patches
       of our own that is wrong, a git or tar that failed (git am too,
       on a full disk), a mutant that does not apply. Nothing was judged.
Every failure prints one line "tree: WHY" on stderr.

Environment: NSFD_TARBALL (the tarball, /usr/src/linux-source-6.12.tar.xz),
NSFD_MUTANT (make mutants: one mutation of ci/mutants/ applied last, to the
working tree only; the next run's checkout -f takes it back out).
ci/prepare-tree.sh is this module's command line (ci/series/mail.sh):
usage: ci/prepare-tree.sh DEST [KERNEL_SRC [REV]]
"""

import fnmatch
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys

from ci import args
from ci.results.model import ExitCode
from ci.series import patch_list
from . import procs

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARBALL = '/usr/src/linux-source-6.12.tar.xz'
USAGE = 'usage: ci/prepare-tree.sh DEST [KERNEL_SRC [REV]]'

READY, NOT_TAKEN, ENVIRONMENT = ExitCode.PASS, ExitCode.NOT_BUILT, ExitCode.ENVIRONMENT

# Called from a git hook or `git bisect run`, git's own variables would
# point every git call at the caller's repository.
CALLER_GIT = ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR',
              # The commits made here are the same whoever runs it (the base
              # commit is what a mail's base-commit: names): no identity or
              # date from the caller.
              'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE',
              'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE')
# The base commit's date: 6.12's release (base_commit).
BASE_DATE = '2024-11-17T12:00:00Z'

# gc.auto=0: the unpacked tree is 90,000 loose objects, and the commit that
# adds them would start `git gc --auto` in the background: a repack of the
# whole tree and a prune of every loose object, for five minutes beside the
# first kernel build (seen in a cold make test; that build took 456 s with
# it and 479 s without, so its cost is within this machine's noise, but a
# build's time should not depend on it). The repository only holds this
# tree and a few commits on top: loose objects are fine.
GIT_CONFIG = ('-c', 'user.name=nsfd', '-c', 'user.email=nsfd@localhost',
              '-c', 'advice.detachedHead=false', '-c', 'core.autocrlf=false', '-c', 'gc.auto=0')

# The laid-in commits' dates, and a hashed KERNEL_SRC's: fixed, so that the
# same inputs give the same commit id.
LAY_IN_DATE = '2024-11-17T12:00:00Z'
EXT_DATE = '2000-01-01T00:00:00Z'


class Failed(Exception):
    """The tree's verdict when it is not ready: CODE (125 or 2) and why."""

    def __init__(self, code, why):
        super().__init__(why)
        self.code, self.why = code, why


# Decisions on the inputs, pure functions.

def kunit_patches(text):
    """kunit/patches (TEXT): one (message file, [tree path...]) a line, #
    comments."""
    patches = []
    for line in text.splitlines():
        words = line.split('#', 1)[0].split()
        if words:
            patches.append((words[0], words[1:]))
    return patches


def in_paths(f, paths):
    """F is one of PATHS (a file, or under a directory given with a
    trailing /); true when PATHS is empty."""
    if not paths:
        return True
    return any(f.startswith(p) if p.endswith('/') else f == p for p in paths)


def owners(f, patches):
    """How many of kunit/patches' PATCHES hold F: it must be exactly one."""
    return sum(in_paths(f, paths) for _, paths in patches)


def _lines(data):
    """DATA's lines as awk reads them: split at newlines, no empty last
    line for a final newline."""
    lines = data.split(b'\n')
    if lines[-1] == b'':
        lines.pop()
    return lines


def anchor(insert):
    """What an insert file's first line names ("before: LINE"), or None."""
    lines = _lines(insert)
    if not lines or not lines[0].startswith(b'before: '):
        return None
    return lines[0][len(b'before: '):]


def insert_before(insert, text):
    """TEXT (a tree's file) with INSERT's lines after the first put before
    TEXT's first line equal to what INSERT's first line names, every line
    ending in a newline; None when INSERT names no line or TEXT has none
    such (this tree cannot take the insert)."""
    line = anchor(insert)
    if line is None:
        return None
    body = b''.join(l + b'\n' for l in _lines(insert)[1:])
    out, done = [], False
    for l in _lines(text):
        if not done and l == line:
            out.append(body)
            done = True
        out.append(l + b'\n')
    return b''.join(out) if done else None


def author(msg):
    """(name, email) of the last Signed-off-by: of the commit message MSG."""
    sobs = [l[len('Signed-off-by: '):] for l in msg.split('\n') if l.startswith('Signed-off-by: ')]
    sob = sobs[-1] if sobs else ''
    cut = sob.rfind(' <')
    return (sob[:cut] if cut >= 0 else sob), re.sub(r'.*<(.*)>.*', r'\1', sob)


# A full disk, in what git said.
DISK_FULL = re.compile(rb'No space left on device|Disk quota exceeded')


def am_failed(patch, output, base):
    """`git am PATCH` failed with OUTPUT (bytes) on the tree of commit BASE
    (its describe): the verdict. A full disk is the machine's (2), not a
    patch that does not apply (125: git bisect run would skip a good
    commit for the disk's sake)."""
    if DISK_FULL.search(output):
        return Failed(ENVIRONMENT, 'patches/%s: no space left on device (git am)' % patch)
    return Failed(NOT_TAKEN, 'patches/%s does not apply to %s' % (patch, base))


def command(cmd):
    """CMD as its failure names it: "git SUBCOMMAND", or the program."""
    if os.path.basename(cmd[0]) != 'git':
        return cmd[0]
    args = iter(cmd[1:])
    for a in args:
        if a in ('-C', '-c'):
            next(args, None)
        elif not a.startswith('-'):
            return 'git ' + a
    return 'git'


# Files.

def _read(path):
    with open(path, 'rb') as f:
        return f.read()


def _key(path):
    return os.fsencode(path)


def files_under(d):
    """Every regular file below D (find D -type f), relative to D, in
    byte order."""
    found = []
    for root, _dirs, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            if stat.S_ISREG(os.lstat(p).st_mode):
                found.append(os.path.relpath(p, d))
    return sorted(found, key=_key)


def sources(d):
    """The files of test directory D laid in as they are, relative to D:
    not its wiring (append/, insert/), commit messages, kunit/patches or
    objects."""
    return [f for f in files_under(d)
            if f.split(os.sep, 1)[0] not in ('append', 'insert') and f != 'patches'
            and not any(fnmatch.fnmatchcase(os.path.basename(f), name)
                        for name in ('commit-msg', '*.commit-msg', '*.o'))]


class Tree:
    """One preparation of DEST from TOP's inputs."""

    def __init__(self, top, dest, ext='', rev='', tarball=TARBALL, mutant=''):
        self.top, self.ext, self.rev = top, ext, rev
        self.dest = os.path.realpath(dest)
        self.git_dir = os.path.join(self.dest, '.git')
        self.tarball, self.mutant = tarball, mutant
        self.env = {k: v for k, v in os.environ.items() if k not in CALLER_GIT}

    # Commands.

    def run(self, cmd, env=None, data=None, quiet=False):
        """CMD's (status, stdout, stderr), its output passed on unless QUIET."""
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            p = procs.popen(cmd, stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(self.env, **(env or {})))
        except OSError as e:
            raise Failed(ENVIRONMENT, 'cannot run %s: %s' % (cmd[0], e.strerror))
        out, err = p.communicate(data)
        if not quiet:
            sys.stdout.write(out.decode(errors='replace'))
            sys.stdout.flush()
            sys.stderr.write(err.decode(errors='replace'))
            sys.stderr.flush()
        return procs.status(p.returncode), out, err

    def check(self, cmd, env=None, data=None):
        """CMD's stdout; a failure is the environment's (2)."""
        rc, out, err = self.run(cmd, env, data, quiet=True)
        if rc:
            last = err.decode(errors='replace').strip().splitlines()
            raise Failed(ENVIRONMENT, '%s failed (exit %d)%s' % (
                command(cmd), rc, ': ' + last[-1] if last else ''))
        return out

    def git(self, *args):
        """git in DEST, as a command line."""
        return ['git', '-C', self.dest] + list(GIT_CONFIG) + list(args)

    def g(self, *args, env=None, data=None):
        """git in DEST; its stdout, without the last newline."""
        return self.check(self.git(*args), env, data).decode(
            errors='surrogateescape').rstrip('\n')

    def g_ok(self, *args, env=None):
        """Whether git in DEST succeeds (its output unseen)."""
        return self.run(self.git(*args), env, quiet=True)[0] == 0

    def x(self, *args):
        """git in KERNEL_SRC: (status, stdout without its last newline)."""
        rc, out, _ = self.run(['git', '-C', self.ext] + list(args), quiet=True)
        return rc, out.decode(errors='surrogateescape').rstrip('\n')

    def note(self, name, text=None):
        """DEST/.git/NAME's text (None when absent), or write TEXT to it."""
        path = os.path.join(self.git_dir, name)
        if text is None:
            try:
                return _read(path).decode(errors='surrogateescape').rstrip('\n')
            except OSError:
                return None
        with open(path, 'w', errors='surrogateescape') as f:
            f.write(text + '\n')

    # The base: the tarball, or KERNEL_SRC.

    def unpack_tarball(self):
        if not os.access(self.tarball, os.R_OK):
            raise Failed(ENVIRONMENT, '%s is missing: run ci/deps.sh (apt-get install '
                         'linux-source-6.12)' % self.tarball)
        st = os.stat(self.tarball)
        key = '%d %d %s' % (st.st_size, int(st.st_mtime), self.tarball)
        name = os.path.basename(self.tarball)
        if self.note('nsfd-tarball') == key:
            if not os.path.isfile(os.path.join(self.git_dir, 'nsfd-source')):
                self.note('nsfd-source', name)
            # A tree unpacked before the base commit was a function of the
            # tarball gets that commit now, without unpacking again.
            self.g('tag', '-f', 'nsfd-base', self.base_commit(self.g('rev-parse',
                                                                     'nsfd-base^{tree}')))
            return
        print('tree: unpacking %s' % self.tarball, flush=True)
        if os.path.isdir(self.dest):
            shutil.rmtree(self.dest)
        elif os.path.lexists(self.dest):
            os.unlink(self.dest)
        os.makedirs(self.dest)
        rc = self.run(['tar', '-xf', self.tarball, '-C', self.dest, '--strip-components=1',
                       '--touch'])[0]
        if rc:
            raise Failed(ENVIRONMENT, 'cannot unpack %s (tar exit %d)' % (self.tarball, rc))
        self.g('init', '-q')
        # Debian's top-level .gitignore ignores everything: add by force.
        self.g('add', '-Af')
        self.g('tag', '-f', 'nsfd-base', self.base_commit(self.g('write-tree')))
        self.note('nsfd-tarball', key)
        self.note('nsfd-source', name)

    def base_commit(self, tree):
        """The commit of the unpacked tarball, TREE: its id is what the
        mail's base-commit: names and what the robot applies the mail to,
        so it is a function of the tarball alone (its tree, a fixed author,
        committer and date, the tarball's name)."""
        return self.g('commit-tree', '--no-gpg-sign', tree, '-m',
                      '%s as shipped' % os.path.basename(self.tarball),
                      env={'GIT_AUTHOR_DATE': BASE_DATE, 'GIT_COMMITTER_DATE': BASE_DATE})

    def borrow_objects(self):
        """DEST reads KERNEL_SRC's objects (objects/info/alternates)."""
        rc, objects = self.x('rev-parse', '--git-path', 'objects')
        if rc:
            raise Failed(ENVIRONMENT, 'KERNEL_SRC=%s: git rev-parse --git-path objects failed'
                         % self.ext)
        with open(os.path.join(self.git_dir, 'objects', 'info', 'alternates'), 'w') as f:
            f.write(os.path.realpath(os.path.join(os.path.abspath(self.ext), objects)) + '\n')

    def take_kernel_src(self):
        ext = self.ext
        if not (os.path.isfile(os.path.join(ext, 'Makefile')) and
                os.path.isdir(os.path.join(ext, 'kernel'))):
            raise Failed(ENVIRONMENT, 'KERNEL_SRC=%s is not a kernel source tree' % ext)
        if not self.rev and os.path.isfile(os.path.join(ext, '.config')):
            raise Failed(ENVIRONMENT, "KERNEL_SRC=%s has an in-tree build (.config): run "
                         "'make mrproper' there" % ext)
        os.makedirs(self.dest, exist_ok=True)
        if not os.path.isdir(self.git_dir):
            self.g('init', '-q')
        head_rc, head = self.x('rev-parse', '-q', '--verify', 'HEAD')
        if self.rev:
            rc, commit = self.x('rev-parse', '-q', '--verify', self.rev + '^{commit}')
            if rc:
                raise Failed(ENVIRONMENT, 'KERNEL_SRC=%s has no commit %s' % (ext, self.rev))
            self.borrow_objects()
            source = commit
        elif (head_rc == 0 and self.x('rev-parse', '--show-toplevel')[1] == os.path.realpath(ext)
              # git status that fails says nothing: clean, as the shell read it
              and self.x('status', '--porcelain', '--untracked-files=no')[1] == ''):
            # A clean git tree: borrow its objects, check its commit out.
            commit = source = head
            self.borrow_objects()
        else:
            # Anything else: hash its files (the index keeps their stat
            # data, so only files changed since the last step are read again).
            index = {'GIT_INDEX_FILE': os.path.join(self.git_dir, 'nsfd-ext.index')}
            self.g('--work-tree=' + os.path.abspath(ext), 'add', '-Af', '--', '.', ':!.git',
                   env=index)
            tree = self.g('write-tree', env=index)
            commit = self.g('commit-tree', tree, '-m', 'KERNEL_SRC %s as it stands' % ext,
                            env={'GIT_AUTHOR_DATE': EXT_DATE, 'GIT_COMMITTER_DATE': EXT_DATE})
            source = '%s-dirty' % head if head_rc == 0 else '%s (not a git tree)' % ext
        self.g('tag', '-f', 'nsfd-base', commit)
        self.g('tag', '-f', 'nsfd-series', commit)
        self.note('nsfd-source', source)

    def apply_series(self):
        series = _read(os.path.join(self.top, 'patches', 'series'))
        names = patch_list.names(series.decode(errors='surrogateescape'))
        h = hashlib.sha256(self.g('rev-parse', 'nsfd-base').encode())
        h.update(series)
        for p in names:
            try:
                h.update(_read(os.path.join(self.top, 'patches', p)))
            except OSError:
                pass                    # named below
        key = h.hexdigest()
        if self.note('nsfd-series') == key and self.g_ok('rev-parse', '-q', '--verify',
                                                         'nsfd-series'):
            return
        self.g_ok('am', '--abort')
        self.g('checkout', '-q', '-f', 'nsfd-base')
        for p in names:
            path = os.path.join(self.top, 'patches', p)
            if not os.path.isfile(path):
                raise Failed(ENVIRONMENT, 'patches/series names %s, which is not in patches/' % p)
            rc, out, err = self.run(self.git('am', '-q', '--keep-cr', path))
            if rc:
                self.g_ok('am', '--abort')
                base = self.run(self.git('describe', '--always', 'nsfd-base'), quiet=True)[1]
                raise am_failed(p, out + err, base.decode(errors='replace').strip())
        self.g('tag', '-f', 'nsfd-series')
        self.note('nsfd-series', key)

    # The tests.

    def lay_in_key(self):
        """The laid-in commits are a function of the series' commit and of
        the test sources alone (fixed authors and dates): when none of
        them changed since the last run, the commit made then is checked
        out again without re-reading the tree's 80,000 index entries four
        times (4 s of a make run with nothing changed)."""
        h = hashlib.sha256()
        h.update(self.g('rev-parse', 'nsfd-series').encode() + b'\n')
        h.update(_read(os.path.abspath(__file__)))
        files = []
        for d in ('kunit', os.path.join('selftests', 'nsfd'), os.path.join('ci', 'compat')):
            files += [os.path.join(d, f) for f in files_under(os.path.join(self.top, d))]
        for f in files:
            h.update(b'%s %o\n' % (_key(f), os.stat(os.path.join(self.top, f)).st_mode & 0o7777))
        for f in files:
            h.update(_read(os.path.join(self.top, f)))
        return h.hexdigest()

    def lay_in(self, parent, rel, prefix, msg, paths=()):
        """A commit on PARENT holding every file of TOP/REL (those under
        PATHS only, when given) at PREFIX, plus REL/append/* appended to
        and REL/insert/* inserted into the tree's files; REL/MSG is its
        message. Its id."""
        d = os.path.join(self.top, rel)
        index = {'GIT_INDEX_FILE': os.path.join(self.git_dir, 'nsfd-lay-in.index')}
        self.g('read-tree', parent, env=index)
        cacheinfo = []
        files = [f for f in sources(d) if in_paths(f, paths)]
        if files:
            blobs = self.g('hash-object', '-w', '--no-filters', '--stdin-paths',
                           data=b''.join(_key(os.path.join(d, f)) + b'\n' for f in files)).split()
            for f, blob in zip(files, blobs):
                mode = '100755' if os.access(os.path.join(d, f), os.X_OK) else '100644'
                cacheinfo += ['--cacheinfo', '%s,%s,%s%s' % (mode, blob, prefix, f)]
            self.g('update-index', '--add', *cacheinfo, env=index)
        # REL/append/PATH: appended to the tree's PATH; REL/insert/PATH:
        # inserted into it before its anchor line.
        cacheinfo = []
        for how in ('append', 'insert'):
            for f in files_under(os.path.join(d, how)):
                if not in_paths(f, paths):
                    continue
                wiring = _read(os.path.join(d, how, f))
                if not self.g_ok('cat-file', '-e', '%s:%s' % (parent, f)):
                    raise Failed(NOT_TAKEN, '%s/%s/%s: this tree has no %s to %s' % (
                        rel, how, f, f, 'append to' if how == 'append' else 'insert into'))
                text = self.check(self.git('cat-file', 'blob', '%s:%s' % (parent, f)))
                if how == 'append':
                    text += wiring
                else:
                    text = insert_before(wiring, text)
                    if text is None:
                        raise Failed(NOT_TAKEN, "%s/insert/%s: no line '%s' in this tree's %s to "
                                     "insert before" % (rel, f, (anchor(wiring) or b'').decode(
                                         errors='surrogateescape'), f))
                blob = self.g('hash-object', '-w', '--stdin', '--no-filters', data=text)
                cacheinfo += ['--cacheinfo', '100644,%s,%s' % (blob, f)]
        if cacheinfo:
            self.g('update-index', *cacheinfo, env=index)
        tree = self.g('write-tree', env=index)
        # The author is who signed the message off.
        msg = os.path.join(d, msg)
        name, email = author(_read(msg).decode(errors='surrogateescape'))
        return self.g('commit-tree', tree, '-p', parent, '-F', msg,
                      env={'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email,
                           'GIT_AUTHOR_DATE': LAY_IN_DATE, 'GIT_COMMITTER_DATE': LAY_IN_DATE})

    def lay_in_tests(self):
        """The commit holding the tests on the series: kunit/ one commit per
        kunit/patches line, then selftests/nsfd/, then ci/compat/ where the
        tree's harness needs it."""
        key = self.lay_in_key()
        cache = self.note('nsfd-lay-in.cache') or ''
        for line in cache.split('\n'):
            if line.startswith(key + ' '):
                tests = line[len(key) + 1:]
                if self.g_ok('cat-file', '-e', tests + '^{commit}'):
                    return tests        # the same inputs as the last run: its commit
                break
        kunit = os.path.join(self.top, 'kunit')
        patches = kunit_patches(_read(os.path.join(kunit, 'patches')).decode(
            errors='surrogateescape'))
        # Every file of kunit/ (sources and wiring alike) in exactly one patch.
        for f in (sources(kunit) + files_under(os.path.join(kunit, 'append')) +
                  files_under(os.path.join(kunit, 'insert'))):
            n = owners(f, patches)
            if n != 1:
                raise Failed(ENVIRONMENT, "kunit/%s is in %d of kunit/patches' patches, not one"
                             % (f, n))
        tests = 'nsfd-series'
        for msg, paths in patches:
            tests = self.lay_in(tests, 'kunit', '', msg, paths)
        tests = self.lay_in(tests, os.path.join('selftests', 'nsfd'),
                            'tools/testing/selftests/nsfd/', 'commit-msg')
        # A harness from before 6.9 (no exit_code) runs a fixture's test
        # body after SKIP() in its setup: on such a tree only, one more
        # commit appends ci/compat/'s SKIP to it. It is the pipeline's,
        # never mailed.
        rc, harness, _ = self.run(self.git(
            'cat-file', 'blob', tests + ':tools/testing/selftests/kselftest_harness.h'), quiet=True)
        if b'exit_code' not in (harness if rc == 0 else b''):
            tests = self.lay_in(tests, os.path.join('ci', 'compat'), '', 'commit-msg')
        self.note('nsfd-lay-in.cache', '%s %s' % (key, tests))
        return tests

    def prepare(self):
        if self.ext:
            self.take_kernel_src()
        else:
            self.unpack_tarball()
            self.apply_series()
        tests = self.lay_in_tests()
        self.g('checkout', '-q', '-f', '--detach', tests)
        self.g('tag', '-f', 'nsfd-tests')
        # make mutants: one one-line mutation of the kernel on top, left in
        # the working tree only (the next run's checkout -f takes it back out).
        if self.mutant:
            rc = self.run([os.path.join(self.top, 'ci', 'mutants', 'apply.sh'), self.dest,
                           self.mutant])[0]
            if rc:
                raise Failed(ENVIRONMENT, 'mutant %s does not apply to this tree' % self.mutant)


def prepare(dest, kernel_src='', rev='', top=TOP, tarball=None, mutant=None):
    """Prepare DEST from TOP's inputs (see the module's doc): 0 ready, 125
    this tree cannot take the tests, 2 usage or environment (its line
    printed). REV counts only with KERNEL_SRC. TARBALL and MUTANT: when
    not given, NSFD_TARBALL (else Debian's) and NSFD_MUTANT."""
    if tarball is None:
        tarball = os.environ.get('NSFD_TARBALL') or TARBALL
    if mutant is None:
        mutant = os.environ.get('NSFD_MUTANT', '')
    try:
        Tree(top, dest, kernel_src, rev, tarball, mutant).prepare()
    except Failed as e:
        print('tree: %s' % e.why, file=sys.stderr, flush=True)
        return e.code
    except OSError as e:
        print('tree: %s' % e, file=sys.stderr, flush=True)
        return ENVIRONMENT
    return READY


def main(argv):
    p = args.parser('ci/prepare-tree.sh', __doc__, usage=USAGE[len('usage: '):])
    p.add_argument('dest')
    p.add_argument('kernel_src', nargs='?', default='')
    p.add_argument('rev', nargs='?', default='')
    a, code = args.parse(p, argv)
    if a is None:
        return code
    if not a.dest:
        print(USAGE, file=sys.stderr)
        return ENVIRONMENT
    return prepare(a.dest, a.kernel_src, a.rev)


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv[1:]))
