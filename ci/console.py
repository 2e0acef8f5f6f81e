"""Kernel reports in a console log: any of them fails the run.

The kinds are those a debug kernel prints (KASAN, lockdep, kmemleak, debug
objects, list debugging) and those any kernel prints (BUG, WARNING, Oops,
refcount_t saturation, hung tasks, panics). Boot banners that merely name
a facility ("kmemleak: Kernel memory leak detector initialized") are not
reports and do not match.
"""

import re
import sys

KINDS = [
    ('kasan', re.compile(r'\bKASAN\b')),
    ('lockdep', re.compile(r'possible (circular|recursive) locking|inconsistent lock state|'
                           r'possible irq lock inversion|suspicious RCU usage|'
                           r'lock held when returning to user space|bad unlock balance')),
    ('kmemleak', re.compile(r'kmemleak: \d+ new suspected memory leak|unreferenced object 0x')),
    ('refcount', re.compile(r'refcount_t: ')),
    ('bug', re.compile(r'\bBUG: ')),
    ('warning', re.compile(r'\bWARNING: ')),
    ('oops', re.compile(r'\bOops\b|general protection fault|Unable to handle kernel')),
    ('hung-task', re.compile(r'hung task|blocked for more than \d+ seconds')),
    ('panic', re.compile(r'Kernel panic - not syncing')),
    ('debug-objects', re.compile(r'ODEBUG: .*object type:')),
    ('list-corruption', re.compile(r'list_(add|del) corruption')),
]

PRINTK = re.compile(r'^\[\s*\d+\.\d+\] ?')
GUEST = re.compile(r'^ktap \d+\.\d+ \| ')


def findings(text):
    """[(line number, kind, line)] for each report line in a console log.

    KTAP lines from the guest init are test output, not kernel reports, and
    are skipped (a test may well log the word WARNING).
    """
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        if GUEST.match(raw):
            continue
        line = PRINTK.sub('', raw.rstrip('\r'))
        for kind, rx in KINDS:
            if rx.search(line):
                out.append((n, kind, line.strip()))
                break
    return out


def main(argv):
    rc = 0
    for path in argv[1:]:
        with open(path, errors='replace') as f:
            for n, kind, line in findings(f.read()):
                print('%s:%d: %s: %s' % (path, n, kind, line))
                rc = 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
