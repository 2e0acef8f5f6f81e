#!/usr/bin/env python3
"""The wiring only the mailed series carries, edited into files in order.

  ci/series/wiring.py maintainers TITLE FILE...  < MAINTAINERS > MAINTAINERS'
      adds F: lines for FILE... to the section TITLE (made, after the M:,
      L: and S: lines in NSFD_SECTION_HEAD, where it sorts among the
      sections if it is not there), keeping its F: lines sorted.
  ci/series/wiring.py route FILE CODE [TITLE]  < MAINTAINERS > MAINTAINERS'
      adds an F: line for FILE (a test) to the section that maintains CODE
      (the source file it tests), as fs/tests/exec_kunit.c is listed under
      EXEC & BINFMT API, so that get_maintainer.pl sends a change of the
      test where it sends one of the code. Nothing when a section already
      names FILE. When none names CODE ("THE REST" aside), FILE goes to
      the section TITLE, as "maintainers" adds it; without TITLE, nothing.
  ci/series/wiring.py target NAME  < tools/testing/selftests/Makefile > ...'
      adds "TARGETS += NAME" where it sorts in the first block of TARGETS.

  ci/series/wiring.py cc FILE  < PATCH > PATCH'
      adds one Cc: header with the addresses of FILE (one a line) to the
      mail headers of PATCH (git format-patch output), before its first
      blank line; an empty FILE leaves PATCH as it is.

No context diff: it works on any tree's MAINTAINERS and Makefile, so a
rebase of the base tree does not break make series.
"""
import os
import re
import sys

from ci import args
from ci.results.model import ExitCode

def maintainers(text, title, files):
    lines = text.split('\n')
    # Sections: a line in capitals followed by "X:\t" lines, after the
    # first one ("3C59X NETWORK DRIVER" begins the list).
    starts = [i for i in range(1, len(lines) - 1)
              if lines[i] and not re.match(r'^[A-Z]:\t', lines[i]) and
              re.match(r'^[A-Z]:\t', lines[i + 1]) and lines[i - 1] == '']
    first = next(i for i in starts if lines[i].startswith('3C59X'))
    starts = [i for i in starts if i >= first]
    mine = [i for i in starts if lines[i] == title]
    if not mine:
        head = os.environ.get('NSFD_SECTION_HEAD', '').replace('\\t', '\t').split('\\n')
        key = title.lower()
        # Before the first section that sorts after TITLE while the one
        # before it sorts before (the file's order is by and large
        # case-blind).
        at = next((b for a, b in zip(starts, starts[1:])
                   if lines[a].lower() < key < lines[b].lower()), len(lines))
        lines[at:at] = [title] + [h for h in head if h] + ['']
        mine = [at]
    i = mine[0] + 1
    while i < len(lines) and re.match(r'^[A-Z]:\t', lines[i]):
        i += 1
    body = lines[mine[0] + 1:i]
    fl = sorted(set([l for l in body if l.startswith('F:\t')] + ['F:\t' + f for f in files]))
    rest = [l for l in body if not l.startswith('F:\t')]
    # F: after M:/R:/L:/S:/W:/Q:/B:/C:/P:/T:, before X:/N:/K:, as the file says.
    before = [l for l in rest if l[0] not in 'XNK' and l != '']
    after = [l for l in rest if l[0] in 'XNK']
    lines[mine[0] + 1:i] = before + fl + after
    return '\n'.join(lines)


def sections(text):
    """[(title, [lines])] of MAINTAINERS' sections, from "3C59X" on."""
    out, cur, on = [], None, False
    lines = text.split('\n')
    for i, l in enumerate(lines):
        if (i + 1 < len(lines) and l and not re.match(r'^[A-Z]:\t', l) and
                re.match(r'^[A-Z]:\t', lines[i + 1]) and (i == 0 or lines[i - 1] == '')):
            on = on or l.startswith('3C59X')
            if on:
                cur = (l, [])
                out.append(cur)
                continue
        if cur is not None and re.match(r'^[A-Z]:\t', l):
            cur[1].append(l)
        elif not l:
            cur = None
    return out


def depth_of_match(path, pattern):
    """get_maintainer.pl's file_match_pattern(): the pattern's depth (its
    slashes, + 1) when F: PATTERN covers PATH, else 0. A pattern ending in /
    covers everything below; any other (globs included) only files at its
    own depth."""
    if not path.startswith(re.split(r'[*?]', pattern, 1)[0]):
        return 0
    rx = re.escape(pattern).replace(r'\*', '.*').replace(r'\?', '.')
    if not re.match(rx, path):
        return 0
    if not pattern.endswith('/') and path.count('/') != pattern.count('/'):
        return 0
    return pattern.count('/') + 1


def owner(text, path):
    """The title of the section with the deepest F: covering PATH, or None."""
    best, depth = None, 0
    for title, body in sections(text):
        if title == 'THE REST':
            continue
        for l in body:
            if l.startswith('F:\t'):
                d = depth_of_match(path, l[3:])
                if d > depth:
                    best, depth = title, d
    return best


def route(text, file, code, fallback=None):
    if owner(text, file):
        return text
    title = owner(text, code)
    if not title:
        return maintainers(text, fallback, [file]) if fallback else text
    # Where it sorts among the section's F: lines, the others left as
    # they are (a section need not be sorted).
    lines = text.split('\n')
    i = lines.index(title, lines.index(next(t for t, _ in sections(text))))
    end = i + 1
    while end < len(lines) and re.match(r'^[A-Z]:\t', lines[end]):
        end += 1
    f = [j for j in range(i + 1, end) if lines[j].startswith('F:\t')]
    new = 'F:\t' + file
    at = next((j for j in f if lines[j] > new), f[-1] + 1)
    lines.insert(at, new)
    return '\n'.join(lines)


def target(text, name):
    lines = text.split('\n')
    idx = [i for i, l in enumerate(lines) if l.startswith('TARGETS += ')]
    if not idx:
        raise WiringError('series-wiring: no "TARGETS += " lines')
    if 'TARGETS += ' + name in lines:
        return text
    block = [idx[0]]
    for i in idx[1:]:
        if i != block[-1] + 1:
            break
        block.append(i)
    at = next((i for i in block if lines[i][len('TARGETS += '):] > name), block[-1] + 1)
    lines.insert(at, 'TARGETS += ' + name)
    return '\n'.join(lines)


def cc(text, addresses):
    if not addresses:
        return text
    head, sep, body = text.partition('\n\n')
    if not sep:
        raise WiringError('series-wiring: no end of the mail headers')
    return head + '\nCc: ' + ',\n    '.join(addresses) + sep + body


class WiringError(Exception):
    """What the input lacks: exit 2, the message on stderr."""


def main(argv):
    cmd, words = args.commands('python3 -m ci.series.wiring', __doc__, ('maintainers', 'cc', 'route', 'target'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    try:
        return wire(argv)
    except WiringError as e:
        print(e, file=sys.stderr)
        return ExitCode.ENVIRONMENT


def wire(argv):
    if len(argv) >= 3 and argv[1] == 'maintainers':
        sys.stdout.write(maintainers(sys.stdin.read(), argv[2], argv[3:]))
    elif len(argv) == 3 and argv[1] == 'cc':
        with open(argv[2]) as f:
            addresses = [l.strip() for l in f if l.strip()]
        sys.stdout.write(cc(sys.stdin.read(), addresses))
    elif len(argv) in (4, 5) and argv[1] == 'route':
        sys.stdout.write(route(sys.stdin.read(), *argv[2:]))
    elif len(argv) == 3 and argv[1] == 'target':
        sys.stdout.write(target(sys.stdin.read(), argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        return ExitCode.ENVIRONMENT
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
