"""Merge .kunitconfig fragments into one, the later fragment winning.

usage: python3 -m ci.pipeline.kunitconfig OUT [--off SYMBOL]... FRAGMENT...
(kernel.write_kunitconfig calls merge() in process)

kunit.py refuses two fragments that set one option two ways; nsfd's
fragments are layered (the suites, the guest, lean, the arch, debug, a
matrix config that switches a namespace type off), so the last setting of
an option is the one kept. --off SYMBOL switches CONFIG_SYMBOL off
whatever a fragment says (a KUnit suite that does not compile on a tree).
OUT is rewritten only when its content changes: kunit.py reconfigures on a
new one.
"""
import argparse
import os
import re
import sys

from ci import args as cli_args
from ci.results.model import ExitCode

SET = re.compile(r'^(CONFIG_\w+)=(.*)$')
UNSET = re.compile(r'^# (CONFIG_\w+) is not set$')


def merge(out, frags, off=()):
    """FRAGS merged into the file OUT, each CONFIG_ symbol of OFF off."""
    off = ['CONFIG_' + sym for sym in off]
    entries = {}
    for frag in frags:
        with open(frag) as f:
            lines = f.read().splitlines()
        for line in lines:
            line = line.strip()
            m = SET.match(line) or UNSET.match(line)
            if not m:
                continue
            name = m.group(1)
            entries.pop(name, None)
            entries[name] = 'n' if UNSET.match(line) else m.group(2)
    for name in off:
        entries.pop(name, None)
        entries[name] = 'n'
    text = ''.join('# %s is not set\n' % k if v == 'n' else '%s=%s\n' % (k, v)
                   for k, v in entries.items())
    try:
        if open(out).read() == text:
            return
    except OSError:
        pass
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + '.new', 'w') as f:
        f.write(text)
    os.replace(out + '.new', out)


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.pipeline.kunitconfig',
                                description='.kunitconfig fragments merged, the later winning')
    p.add_argument('out')
    p.add_argument('--off', action='append', default=[], metavar='SYMBOL',
                   help='CONFIG_SYMBOL off, whatever a fragment says')
    p.add_argument('fragments', nargs='*', metavar='FRAGMENT')
    a, code = cli_args.parse(p, argv[1:])
    if a is None:
        return code
    merge(a.out, a.fragments, a.off)
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
