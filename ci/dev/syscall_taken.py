"""A 6.12 tree on which socketat's number is taken: make series KERNEL_SRC=
must then give it the next one (docs/series.md).

usage: python3 -m ci.dev.syscall_taken DIR [NAME]   (DIR must not exist)

DIR: a clone of the tree make run prepared (build/patched/src) at its
base, the tarball as shipped (tag nsfd-base), and one commit more that
gives the number the wiring patch would take (463 on 6.12) to NAME
(setxattrat, as 6.13 did) in every table that patch touches and in the
uapi header, as a sys_ni_syscall stand-in: the kernel builds, and NAME
returns ENOSYS. Prints the commit and the number taken.
"""

import argparse
import os
import subprocess
import sys

import ci
from ci import args as cli_args
from ci.results.model import ExitCode
from ci.series import patch_list, renumber

TOP = ci.TOP


def wiring():
    """The Wiring of the series' wiring patch (patches/series)."""
    for name in patch_list.read(TOP):
        with open(os.path.join(TOP, 'patches', name), errors='surrogateescape') as f:
            w = renumber.Wiring.of(f.read())
        if w:
            return w
    raise ValueError('syscall-taken: no patch of patches/series wires a syscall into the tables')


def taken(read, w, name, n=None, only=None):
    """({path: text}, N): each table the wiring W touches (of ONLY, when
    given) and the uapi header, as READ(path) reads them, with N (by
    default the number socketat would get) given to NAME."""
    n = renumber.next_free(w, read) if n is None else n
    out = {}
    for path, (offset, row) in sorted(w.tables.items()):
        if only is None or path in only:
            stand_in = '%d\t%s\t%s\t\t\tsys_ni_syscall' % (n + offset, row.split()[1], name)
            out[path] = renumber.add_row(read(path), stand_in, n + offset, name, path)
    if only is None or renumber.UNISTD in only:
        block = ['#define __NR_%s %d' % (name, n), '__SYSCALL(__NR_%s, sys_ni_syscall)' % name]
        out[renumber.UNISTD] = renumber.add_define(read(renumber.UNISTD), block, name, n)
    return out, n


def read_in(d):
    """READ(path) for the files of the directory D (None: no such file)."""
    def read(path):
        try:
            with open(os.path.join(d, path), errors='surrogateescape') as f:
                return f.read()
        except OSError:
            return None
    return read


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.dev.syscall_taken',
                                description=__doc__.split('\n\n')[1])
    p.add_argument('dir', help='a new directory: the clone with the stand-in commit')
    p.add_argument('name', nargs='?', default='setxattrat')
    a, code = cli_args.parse(p, argv[1:])
    if a is None:
        return code
    if os.path.exists(a.dir):
        print('syscall-taken: %s exists' % a.dir, file=sys.stderr)
        return ExitCode.ENVIRONMENT
    d, name = a.dir, a.name
    src = os.path.join(TOP, 'build', 'patched', 'src')
    if subprocess.run(['git', '-C', src, 'rev-parse', '-q', '--verify', 'nsfd-base'],
                      capture_output=True).returncode:
        print('syscall-taken: no tree in %s (tag nsfd-base): run make run first' % src,
              file=sys.stderr)
        return ExitCode.ENVIRONMENT
    git = ['git', '-C', d, '-c', 'user.name=nsfd', '-c', 'user.email=nsfd@localhost']
    subprocess.run(['git', 'clone', '-q', '--shared', '--no-checkout', src, d], check=True)
    subprocess.run(git[:3] + ['checkout', '-q', '-b', 'taken', 'nsfd-base'], check=True)
    files, n = taken(read_in(d), wiring(), name)
    for path, text in files.items():
        with open(os.path.join(d, path), 'w', errors='surrogateescape') as f:
            f.write(text)
    subprocess.run(git + ['commit', '-q', '-a', '-m',
                          'stand-in: %s takes %d in every syscall table\n\n'
                          'A sys_ni_syscall row in each table the socketat wiring patch '
                          'touches, as 6.13 gave %d to setxattrat.' % (name, n, n)], check=True)
    head = subprocess.run(git[:3] + ['rev-parse', 'HEAD'], capture_output=True, text=True,
                          check=True).stdout.strip()
    print('syscall-taken: %s: %s takes %d (commit %s)' % (d, name, n, head[:12]))
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
