#!/usr/bin/env python3
"""socketat's number on another tree, and the wiring patch made for it.

The series wires socketat into every syscall table with the next number
free in 6.12 (463), as mseal's patch did with 462. On another tree that
number may be taken (463 is setxattrat since 6.13), or the tables' last
rows, which are the patch's context, differ. So for a tree the wiring
patch is made again, as mseal's was made: one row appended to each table
the patch touches, with the next number free in all of them, and
__NR_socketat added to include/uapi/asm-generic/unistd.h with
__NR_syscalls raised past it. Its commit message, the cover letter and
the man page say that number instead of 463.

  ci/series/renumber.py number REPO REV PATCH
      prints the number socketat gets in REV of the git repository REPO,
      then, one line each, what every table the wiring PATCH touches uses
      (its highest number, after its offset).
  ci/series/renumber.py patch REPO REV PATCH [N]  > PATCH'
      PATCH made again for REV: every table row and the uapi header with N
      (by default the number above), its context the tree's own lines, its
      commit message renumbered. Exit 1, naming the file, when a table is
      missing or already has the syscall.
  ci/series/renumber.py prose N0 N [TAKEN]  < TEXT > TEXT'
      the numbers of a text about the series (cover letter, man page)
      moved from N0 to N, ABI offsets kept; TAKEN says what has N0 there.
  ci/series/renumber.py n0 PATCH...
      prints the number the wiring patch among PATCH... gives (463).
  ci/series/renumber.py abis N
      per ABI the number __NR_socketat must be: "ARCH<TAB>ABI<TAB>NR<TAB>
      the compiler's macros" (make series checks each).

How the number is chosen: every syscall added since 4.18 has the same
number in every table (mseal is 462 on all, alpha aside), so it is one
number N for all: one more than the highest in use over every table the
wiring patch touches, each table's number less its offset (alpha's 110,
read from the patch: its row there is 573 where the generic number is
463), and x86_64's x32-only rows (512..547, "x32" ABI) left out, and at
least __NR_syscalls of the uapi header. A table that has a hole below
the top keeps it: a number skipped is harmless, a clash is not.
"""

import difflib
import hashlib
import re
import subprocess
import sys
import textwrap

from ci import args
from ci.results.model import ExitCode

# The ABIs whose __NR_ number make series checks, with the number each
# gets from the generic one: its table's offset (alpha), the base the
# build adds (mips, arm's OABI), or the bit it sets (x32).
ABIS = (
    ('alpha', 'alpha', 110, '-D__alpha__ -D__SIZEOF_LONG__=8'),
    ('arc', 'arc', 0, '-D__arc__ -D__SIZEOF_LONG__=4'),
    ('arm', 'eabi', 0, '-D__arm__ -D__ARM_EABI__ -D__SIZEOF_LONG__=4'),
    ('arm', 'oabi', 0x900000, '-D__arm__ -D__SIZEOF_LONG__=4'),
    ('arm64', 'arm64', 0, '-D__aarch64__ -D__SIZEOF_LONG__=8'),
    ('csky', 'csky', 0, '-D__csky__ -D__SIZEOF_LONG__=4'),
    ('hexagon', 'hexagon', 0, '-D__hexagon__ -D__SIZEOF_LONG__=4'),
    ('loongarch', 'loongarch64', 0, '-D__loongarch__ -D__loongarch64 -D__SIZEOF_LONG__=8'),
    ('m68k', 'm68k', 0, '-D__m68k__ -D__SIZEOF_LONG__=4'),
    ('microblaze', 'microblaze', 0, '-D__microblaze__ -D__SIZEOF_LONG__=4'),
    ('mips', 'o32', 4000, '-D__mips__ -D_MIPS_SIM=1 -D__SIZEOF_LONG__=4'),
    ('mips', 'n32', 6000, '-D__mips__ -D_MIPS_SIM=2 -D__SIZEOF_LONG__=4'),
    ('mips', 'n64', 5000, '-D__mips__ -D_MIPS_SIM=3 -D__SIZEOF_LONG__=8'),
    ('nios2', 'nios2', 0, '-D__nios2__ -D__SIZEOF_LONG__=4'),
    ('openrisc', 'or1k', 0, '-D__OR1K__ -D__SIZEOF_LONG__=4'),
    ('parisc', 'parisc', 0, '-D__hppa__ -D__SIZEOF_LONG__=4'),
    ('parisc', 'parisc64', 0, '-D__hppa__ -D__LP64__ -D__SIZEOF_LONG__=8'),
    ('powerpc', 'ppc32', 0, '-D__powerpc__ -D__SIZEOF_LONG__=4'),
    ('powerpc', 'ppc64', 0, '-D__powerpc__ -D__powerpc64__ -D__SIZEOF_LONG__=8'),
    ('riscv', 'rv32', 0, '-D__riscv -D__riscv_xlen=32 -D__SIZEOF_LONG__=4'),
    ('riscv', 'rv64', 0, '-D__riscv -D__riscv_xlen=64 -D__SIZEOF_LONG__=8'),
    ('s390', 's390', 0, '-D__s390__ -D__SIZEOF_LONG__=4'),
    ('s390', 's390x', 0, '-D__s390__ -D__s390x__ -D__SIZEOF_LONG__=8'),
    ('sh', 'sh', 0, '-D__sh__ -D__SIZEOF_LONG__=4'),
    ('sparc', 'sparc32', 0, '-D__sparc__ -D__SIZEOF_LONG__=4'),
    ('sparc', 'sparc64', 0, '-D__sparc__ -D__arch64__ -D__SIZEOF_LONG__=8'),
    ('x86', 'i386', 0, '-D__i386__ -D__SIZEOF_LONG__=4'),
    ('x86', 'x32', 0x40000000, '-D__x86_64__ -D__ILP32__ -D__SIZEOF_LONG__=4'),
    ('x86', 'x86_64', 0, '-D__x86_64__ -D__LP64__ -D__SIZEOF_LONG__=8'),
    ('xtensa', 'xtensa', 0, '-D__xtensa__ -D__SIZEOF_LONG__=4'),
)
# The offsets a text about the series may quote a number with: the
# tables' and the mips bases (the x32 bit and arm's OABI base are never
# written as decimal numbers in it).
PROSE_OFFSETS = (0, 110, 4000, 5000, 6000)
# Rows of these ABIs have numbers of their own, not the shared ones.
OWN_NUMBERS = ('x32',)
UNISTD = 'include/uapi/asm-generic/unistd.h'
ROW = re.compile(r'^\s*(\d+)\s+(\S+)\s+(\S+)')


class NotApplicable(Exception):
    """The wiring cannot be made on this tree: FILE, and why."""

    def __init__(self, file, why):
        super().__init__('%s: %s' % (file, why))
        self.file, self.why = file, why


def abis(n):
    """[(arch, abi, __NR_ number, macros)] for generic number N."""
    return [(arch, abi, n + off, defs) for arch, abi, off, defs in ABIS]


# The patch.

def split_patch(text):
    """A git format-patch mail: (head up to the first diff, [(path, diff
    text)], the signature after the last diff)."""
    parts = re.split(r'^(?=diff --git a/)', text, flags=re.M)
    head, files = parts[0], parts[1:]
    tail = ''
    if files:
        m = re.search(r'^-- \n', files[-1], re.M)
        if m:
            files[-1], tail = files[-1][:m.start()], files[-1][m.start():]
    out = []
    for f in files:
        m = re.match(r'diff --git a/(\S+) b/(\S+)', f)
        out.append((m.group(2), f))
    return head, out, tail


def added(diff):
    return [l[1:] for l in diff.split('\n') if l.startswith('+') and not l.startswith('+++')]


def removed(diff):
    return [l[1:] for l in diff.split('\n') if l.startswith('-') and not l.startswith('---')]


def is_table(path):
    return path.endswith('.tbl')


class Wiring:
    """What the wiring patch adds: the syscall's NAME and number N0, per
    table the row it appends and that table's offset, and the uapi
    header's block."""

    def __init__(self, patch):
        self.patch = patch
        self.head, self.files, self.tail = split_patch(patch)
        self.tables, self.block, self.name, self.n0 = {}, None, None, None
        for path, diff in self.files:
            if path == UNISTD:
                adds = added(diff)
                for l in adds:
                    m = re.match(r'#define __NR_(\w+)\s+(\d+)\s*$', l)
                    if m and m.group(1) != 'syscalls':
                        self.name, self.n0 = m.group(1), int(m.group(2))
                self.block = [l for l in adds if not l.startswith('#define __NR_syscalls')]
        if self.n0 is None:
            raise ValueError('the wiring patch adds no #define __NR_... to %s' % UNISTD)
        for path, diff in self.files:
            if is_table(path):
                rows = [l for l in added(diff) if ROW.match(l)]
                if len(rows) != 1 or ROW.match(rows[0]).group(3) != self.name:
                    raise ValueError('%s: the wiring patch must add one %s row, not %r'
                                     % (path, self.name, rows))
                self.tables[path] = (int(ROW.match(rows[0]).group(1)) - self.n0, rows[0])

    @staticmethod
    def of(patch):
        """The Wiring of PATCH, or None when it is not a wiring patch (it
        adds no syscall to a table and the uapi header)."""
        _, files, _ = split_patch(patch)
        if not any(is_table(p) for p, _ in files) or not any(p == UNISTD for p, _ in files):
            return None
        return Wiring(patch)


# The tree's tables.

def rows(text):
    """[(line index, number, abi, name)] of a syscall table's rows."""
    out = []
    for i, line in enumerate(text.split('\n')):
        if line.lstrip().startswith('#'):
            continue
        m = ROW.match(line)
        if m:
            out.append((i, int(m.group(1)), m.group(2), m.group(3)))
    return out


def shared(text):
    """The rows whose numbers are the shared ones (not x32's own)."""
    return [r for r in rows(text) if r[2] not in OWN_NUMBERS]


def nr_syscalls(text):
    m = re.search(r'^#define __NR_syscalls\s+(\d+)\s*$', text, re.M)
    return int(m.group(1)) if m else None


def in_use(wiring, read):
    """{file: the highest number it uses, less its offset}, every table of
    WIRING and the uapi header (its __NR_syscalls - 1), read by READ(path)
    (None for a file the tree lacks: NotApplicable)."""
    top = {}
    for path, (offset, _) in sorted(wiring.tables.items()):
        text = read(path)
        if text is None:
            raise NotApplicable(path, 'this tree has no such table')
        used = [nr - offset for _, nr, _, _ in shared(text)]
        if not used:
            raise NotApplicable(path, 'no syscall rows in this table')
        top[path] = max(used)
    text = read(UNISTD)
    if text is None:
        raise NotApplicable(UNISTD, 'this tree has no such file')
    n = nr_syscalls(text)
    if n is None:
        raise NotApplicable(UNISTD, 'no #define __NR_syscalls')
    top[UNISTD] = n - 1
    return top


def next_free(wiring, read):
    """The number the syscall gets: one more than the highest in use."""
    return max(in_use(wiring, read).values()) + 1


def holders(wiring, read, n):
    """The names that have generic number N in the tree's tables, sorted."""
    names = set()
    for path, (offset, _) in wiring.tables.items():
        text = read(path) or ''
        names |= {name for _, nr, _, name in shared(text) if nr - offset == n}
    return sorted(names)


# The edits, as mseal's patch made them.

def add_row(text, row, number, name, path=''):
    """TEXT (a table) with ROW, its number made NUMBER, after the row with
    the highest shared number (x86_64: before the x32 block)."""
    rs = shared(text)
    if any(r[3] == name for r in rows(text)):
        raise NotApplicable(path, 'this table has %s already' % name)
    if any(r[1] == number for r in rs):
        raise NotApplicable(path, '%d is taken in this table' % number)
    last = max(rs, key=lambda r: r[1])[0]
    lines = text.split('\n')
    lines.insert(last + 1, re.sub(r'^(\s*)\d+', lambda m: m.group(1) + str(number), row, 1))
    return '\n'.join(lines)


def add_define(text, block, name, n, path=UNISTD):
    """The uapi header with BLOCK (#define __NR_NAME and its __SYSCALL,
    renumbered to N) before "#undef __NR_syscalls", and __NR_syscalls N+1."""
    if re.search(r'^#define __NR_%s\b' % re.escape(name), text, re.M):
        raise NotApplicable(path, 'this header has __NR_%s already' % name)
    lines = text.split('\n')
    if '#undef __NR_syscalls' not in lines:
        raise NotApplicable(path, 'no "#undef __NR_syscalls" line to add before')
    at = lines.index('#undef __NR_syscalls')
    new = [re.sub(r'^(#define __NR_%s\s+)\d+' % re.escape(name),
                  lambda m: m.group(1) + str(n), l) for l in block]
    lines[at:at] = new
    text = '\n'.join(lines)
    return re.sub(r'^(#define __NR_syscalls\s+)\d+', lambda m: m.group(1) + str(n + 1), text,
                  count=1, flags=re.M)


def blob_id(data):
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def file_diff(path, old, new, mode='100644'):
    """A git diff of PATH from OLD to NEW (texts), 3 lines of context."""
    if not old.endswith('\n'):
        raise NotApplicable(path, 'the file does not end with a newline')
    hunks = list(difflib.unified_diff(old.splitlines(True), new.splitlines(True), n=3))[2:]
    return ('diff --git a/%s b/%s\nindex %s..%s %s\n--- a/%s\n+++ b/%s\n' % (
        path, path, blob_id(old.encode())[:12], blob_id(new.encode())[:12], mode, path, path)
        + ''.join(hunks))


# Texts about the series.

NUMBER = re.compile(r'(?<![\w.])\d+(?![\w]|\.\d)')


def renumber_text(text, mapping):
    return NUMBER.sub(lambda m: str(mapping.get(int(m.group(0)), m.group(0))), text)


def note(n0, n, taken):
    """The sentence that says why the number is not N0."""
    if taken:
        return ('On this tree %d is already %s, so %s is %d here, the next number free in '
                'every table (on 6.12, where the series was first made, it is %d).'
                % (n0, ' and '.join(taken), 'socketat', n, n0))
    return ('On this tree the next number free in every table is %d, so socketat is %d '
            'here (on 6.12, where the series was first made, it is %d).' % (n, n, n0))


def prose(text, n0, n, taken=()):
    """TEXT about the series with the syscall's numbers moved from N0 to N:
    N0 plus every offset of PROSE_OFFSETS, and N0 + 1 (__NR_syscalls).
    A sentence that names setxattrat is history (6.13 gave it 463) and
    keeps its numbers; one that also says "this number" is about the
    series' number, and becomes NOTE. A prose paragraph with a sentence
    replaced is filled again to 72 columns."""
    if n == n0:
        return text
    mapping = {n0 + o: n + o for o in PROSE_OFFSETS}
    mapping[n0 + 1] = n + 1
    paras = re.split(r'(\n\s*\n)', text)
    for k in range(0, len(paras), 2):
        pieces = re.split(r'(?<=[.!?])(\s+)', paras[k])
        changed = False
        for j in range(0, len(pieces), 2):
            s = pieces[j]
            if 'setxattrat' in s:
                if 'this number' in s:
                    pieces[j], changed = note(n0, n, taken), True
            else:
                pieces[j] = renumber_text(s, mapping)
        para = ''.join(pieces)
        if changed and not re.search(r'^[-+ .\\]', para, re.M):
            # Two spaces after a sentence, as the text has them.
            flat = re.sub(r'(?<=[.!?])\n', '  ', para).replace('\n', ' ')
            para = textwrap.fill(flat, 72, break_on_hyphens=False, break_long_words=False)
        paras[k] = para
    return ''.join(paras)


def message_prose(head, n0, n, taken):
    """A mail's head with its commit message (after the headers, up to
    "---") renumbered; headers and diffstat as they are."""
    headers, sep, rest = head.partition('\n\n')
    body, sep2, stat = rest.partition('\n---\n')
    return headers + sep + prose(body, n0, n, taken) + sep2 + stat


def make_patch(wiring, read, n=None):
    """(the wiring patch made for the tree READ reads, N). Tables and the
    uapi header are edited from the tree's text; a file of the patch that
    is neither is kept as it is."""
    if n is None:
        n = next_free(wiring, read)
    taken = holders(wiring, read, wiring.n0) if n != wiring.n0 else []
    diffs = []
    for path, diff in wiring.files:
        if path in wiring.tables:
            offset, row = wiring.tables[path]
            old = read(path)
            if old is None:
                raise NotApplicable(path, 'this tree has no such table')
            diffs.append(file_diff(path, old, add_row(old, row, n + offset, wiring.name, path)))
        elif path == UNISTD:
            old = read(path)
            if old is None:
                raise NotApplicable(path, 'this tree has no such file')
            diffs.append(file_diff(path, old, add_define(old, wiring.block, wiring.name, n)))
        else:
            diffs.append(diff)
    return message_prose(wiring.head, wiring.n0, n, taken) + ''.join(diffs) + wiring.tail, n


def git_reader(repo, rev):
    """READ(path) for REV of the git repository REPO: the file's text, or
    None when REV has no such file."""
    def read(path):
        p = subprocess.run(['git', '-C', repo, 'cat-file', 'blob', '%s:%s' % (rev, path)],
                           capture_output=True)
        return p.stdout.decode('utf-8', 'surrogateescape') if p.returncode == 0 else None
    return read


def main(argv):
    cmd, words = args.commands('python3 -m ci.series.renumber', __doc__, ('number', 'patch', 'prose', 'n0', 'abis'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    try:
        if len(argv) == 5 and argv[1] == 'number':
            with open(argv[4]) as f:
                w = Wiring(f.read())
            read = git_reader(argv[2], argv[3])
            top = in_use(w, read)
            print(max(top.values()) + 1)
            for path, nr in sorted(top.items()):
                print('%s\t%d' % (path, nr))
        elif len(argv) in (5, 6) and argv[1] == 'patch':
            with open(argv[4]) as f:
                w = Wiring(f.read())
            text, _ = make_patch(w, git_reader(argv[2], argv[3]),
                                 int(argv[5]) if len(argv) == 6 else None)
            sys.stdout.write(text)
        elif len(argv) in (4, 5) and argv[1] == 'prose':
            taken = argv[4].split(',') if len(argv) == 5 and argv[4] else []
            sys.stdout.write(prose(sys.stdin.read(), int(argv[2]), int(argv[3]), taken))
        elif len(argv) >= 3 and argv[1] == 'n0':
            for path in argv[2:]:
                with open(path, errors='surrogateescape') as f:
                    w = Wiring.of(f.read())
                if w:
                    print(w.n0)
                    break
            else:
                print('renumber: none of %s wires a syscall into the tables'
                      % ' '.join(argv[2:]), file=sys.stderr)
                return ExitCode.ENVIRONMENT
        elif len(argv) == 3 and argv[1] == 'abis':
            for arch, abi, nr, defs in abis(int(argv[2])):
                print('%s\t%s\t%d\t%s' % (arch, abi, nr, defs))
        else:
            print(__doc__, file=sys.stderr)
            return ExitCode.ENVIRONMENT
    except NotApplicable as e:
        print('renumber: %s' % e, file=sys.stderr)
        return ExitCode.FAIL
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
