"""Kernel reports in a console log: any of them fails the run.

The patterns are those the kernel's test robots scan consoles for (the
oops titles of syzkaller's pkg/report/linux.go, the dmesg patterns of
0-day/LKP): reports any kernel prints (BUG, WARNING, Oops, kernel BUG,
general protection fault, double fault, panics, hung tasks, RCU stalls,
soft lockups, page allocation failures, "Unable to handle kernel ..." on
arm64 and riscv, riscv's "Kernel BUG"), and those of the debug facilities
(KASAN, KFENCE, UBSAN, KMSAN, lockdep, kmemleak, debug objects, list and
slab debugging, refcount_t, stack protector, netdev refcount leaks). Each
is proven by a recorded fixture in ci/tests/fixtures/reports/.

Not reports, and never matched: boot banners that name a facility
("kmemleak: Kernel memory leak detector initialized", "ODEBUG: selftest
passed"), and KTAP (KUnit's results and diagnostics on the KUnit console,
the guest init's "ktap <t> | " lines), where a test may name a WARNING or
print an expectation. A kernel message that a userspace write split into
the middle of a line ("ktap 1.0 | ok 3 fo[   2.5] BUG: ...") is still
found: the scan starts again at every printk timestamp inside a line.
"""

import re
import sys

from ci import args
from .ktap import PRINTK_PREFIX
from .model import ExitCode

# (kind, pattern), first match wins: the specific before the generic
# ("BUG: KASAN:" is kasan, "watchdog: BUG: soft lockup" a soft lockup,
# "WARNING: possible circular locking" lockdep).
KINDS = [
    ('kasan', re.compile(r'\bKASAN: ')),
    ('kfence', re.compile(r'\bKFENCE: ')),
    ('kmsan', re.compile(r'\bKMSAN: ')),
    ('ubsan', re.compile(r'\bUBSAN: ')),
    ('lockdep', re.compile(
        r'(WARNING|INFO): possible (circular|recursive) locking|'
        r'(WARNING|INFO): possible irq lock inversion|'
        r'(WARNING|INFO): inconsistent lock state|'
        r'(WARNING|INFO): SOFTIRQ-safe -> SOFTIRQ-unsafe lock order|'
        r'(WARNING|INFO): HARDIRQ-safe -> HARDIRQ-unsafe lock order|'
        r'(WARNING|INFO): suspicious RCU usage|'
        r'INFO: trying to register non-static key|'
        r'(WARNING|BUG): bad unlock balance|(WARNING|BUG): held lock freed|'
        r'(WARNING|BUG): lock held when returning to user space|'
        r'BUG: MAX_LOCKDEP_\w+ too low')),
    ('kmemleak', re.compile(r'kmemleak: \d+ new suspected memory leak|'
                            r'unreferenced object 0x[0-9a-f]+ \(size')),
    ('refcount', re.compile(r'refcount_t: ')),
    ('rcu-stall', re.compile(
        r'INFO: rcu_\w+ (self-)?detected( expedited)? stall|'
        r'rcu: INFO: rcu_\w+ (self-)?detected( expedited)? stall|'
        r'rcu: INFO: rcu_\w+ detected stalls|'
        r'rcu_\w+ kthread( timer wakeup didn\'t happen| starved) for')),
    ('soft-lockup', re.compile(r'BUG: soft lockup|BUG: workqueue lockup|'
                               r'[Ww]atchdog detected hard LOCKUP')),
    ('hung-task', re.compile(r'INFO: task \S.* blocked for more than \d+ seconds|'
                             r'hung_task: blocked tasks')),
    ('page-alloc', re.compile(r': page allocation failure: order:\d+')),
    ('double-fault', re.compile(r'\bdouble fault\b')),
    ('stack-protector', re.compile(r'stack-protector: Kernel stack is corrupted|'
                                   r'corrupted stack end detected')),
    ('list-corruption', re.compile(r'\b(h?list_(add|del)|list_splice) corruption')),
    ('slab', re.compile(r'Slab corruption|^=?BUG [\w.:-]+ \((Not t|T)ainted\): |'
                        r'\b(Right |Left )?Redzone (overwritten|has been overwritten)|'
                        r'\b(Poison|Padding|Object padding) overwritten|'
                        r'Object already free|Freepointer corrupt|'
                        r'\bRedzone +[0-9a-f]{8,}: ')),
    ('debug-objects', re.compile(r'ODEBUG: .*object( type)?:')),
    ('netdev-leak', re.compile(r'unregister_netdevice: waiting for \S+ to become free')),
    ('kernel-bug', re.compile(r'\bkernel BUG at |\bKernel BUG\b')),
    ('bug', re.compile(r'\bBUG: ')),
    ('warning', re.compile(r'\bWARNING: ')),
    ('oops', re.compile(r'\bOops\b|general protection fault|'
                        r'Unable to handle kernel (paging request|NULL pointer|'
                        r'access|execute|read|write)|'
                        r'\bstack segment: |\bdivide error: |\binvalid opcode: |'
                        r'Internal error: ')),
    ('panic', re.compile(r'Kernel panic - not syncing')),
    # The console lost messages: any of them could have been a report.
    ('printk-dropped', re.compile(r'\*\* \d+ printk messages dropped \*\*')),
]

# Lines that look like a kind but are not reports (syzkaller ignores these).
IGNORE = re.compile(r'WARNING: workqueue cpumask: online intersect > possible intersect|'
                    r'INFO: lockdep is turned off|ODEBUG: selftest passed|'
                    r'^---\[ end ')  # a trailer repeats its report's title

PRINTK = re.compile(r'^' + PRINTK_PREFIX + ' ?')
EMBEDDED = re.compile(PRINTK_PREFIX + ' ')
GUEST = re.compile(r'^ktap \d+\.\d+ \| ')
KTAP = re.compile(r'^\s*(#|(not )?ok \d+\b|(K?TAP) version \d+|1\.\.\d+)')


def kind_of(line):
    """The report kind a kernel message is, or None."""
    if IGNORE.search(line):
        return None
    for kind, rx in KINDS:
        if rx.search(line):
            return kind
    return None


def _pieces(raw):
    """The kernel messages a console line holds: [text].

    A line that is KTAP (KUnit's on the KUnit console, the guest init's) is
    test output, not a message; but a printk timestamp inside any line
    starts a kernel message there (a userspace write split by printk).
    """
    line = raw.rstrip('\r')
    m = PRINTK.match(line)
    head = line[m.end():] if m else line
    cut = EMBEDDED.search(head)
    first = head[:cut.start()] if cut else head
    out = [] if GUEST.match(line) or KTAP.match(first) else [first]
    for e in EMBEDDED.finditer(head):
        nxt = EMBEDDED.search(head, e.end())
        out.append(head[e.end():nxt.start() if nxt else len(head)])
    return out


def findings(text):
    """[(line number, kind, message)] for each report in a console log."""
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        for piece in _pieces(raw):
            kind = kind_of(piece)
            if kind:
                out.append((n, kind, piece.strip()))
    return out


def main(argv):
    p = args.parser('python3 -m ci.results.console', 'the kernel reports in each console log; '
                    'exit 1 when one holds any')
    p.add_argument('logs', nargs='*', metavar='LOG')
    a, code = args.parse(p, argv[1:])
    if a is None:
        return code
    rc = ExitCode.PASS
    for path in a.logs:
        with open(path, errors='replace') as f:
            for n, kind, line in findings(f.read()):
                print('%s:%d: %s: %s' % (path, n, kind, line))
                rc = ExitCode.FAIL
    return rc


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
