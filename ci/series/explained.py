#!/usr/bin/env python3
"""Which checkpatch findings a patch's own commit message explains.

  ci/series/explained.py PATCH  < checkpatch --terse output
      prints "N explained" and each finding that is not, and exits 1 if
      any is not.

A finding (an ERROR, WARNING or CHECK line) is explained when the commit
message of PATCH (the mail's body up to its "---" line) quotes checkpatch's
message for it word for word: a reviewer who runs checkpatch finds the
paragraph that says why the line stays by searching for what checkpatch
printed. Line breaks and indentation in the message do not matter.
"""
import re
import sys

from ci import args
from ci.results.model import ExitCode

FINDING = re.compile(r'^.*?:\d+: (?:ERROR|WARNING|CHECK): (.*)$')


def message(mail):
    """The commit message of a git format-patch mail."""
    body = mail.split('\n\n', 1)[1] if '\n\n' in mail else mail
    return body.split('\n---\n', 1)[0]


def words(text):
    return ' '.join(text.split())


def judge(mail, findings):
    """(explained, [unexplained finding lines])."""
    msg = words(message(mail))
    ok, bad = 0, []
    for line in findings.splitlines():
        m = FINDING.match(line)
        if not m:
            continue
        if words(m.group(1)) in msg:
            ok += 1
        else:
            bad.append(line)
    return ok, bad


def main(argv):
    p = args.parser('python3 -m ci.series.explained', __doc__)
    p.add_argument('patch')
    a, code = args.parse(p, argv[1:])
    if a is None:
        return code
    with open(a.patch, errors='replace') as f:
        ok, bad = judge(f.read(), sys.stdin.read())
    print('%d explained' % ok)
    for line in bad:
        print(line)
    return ExitCode.FAIL if bad else ExitCode.PASS


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
