"""KTAP out: the kunit.ktap and kselftest.ktap a run writes, as text.

ci/results/ktap.py parses; this only prints: one stream's lines, several
guests' streams as one, and the header comments that name what was
judged (the kernel, its build-id, the tree and series, each initramfs).
"""

import re

from . import ktap

VERSION_OR_PLAN = re.compile(r'^(?:(?:KTAP|TAP) version \d+|1\.\.\d+)\s*$')


def merged(streams):
    """One KTAP stream of several guests' streams: one version line and
    plan, every guest's binaries renumbered in turn."""
    body, n = [], 0
    for lines in streams:
        top = 0
        for t, text in lines:
            if VERSION_OR_PLAN.match(text):
                continue
            m = ktap.RESULT.match(text)
            if m:
                top += 1
                text = '%s %d%s' % (m.group(1), n + int(m.group(2)), text[m.end(2):])
            body.append((t, text))
        n += top
    return [(None, 'KTAP version 1'), (None, '1..%d' % n)] + body


def judged_lines(j):
    """The KTAP header comments that name what was judged."""
    if not j.get('proven', True):
        return ['# nsfd: NOT JUDGED: a boot did not prove it ran the kernel built (%s)'
                % j.get('banner')]
    out = ['# nsfd: kernel %s' % (j.get('banner') or 'unknown'),
           '# nsfd: build-id %s' % (j.get('build_id') or 'unknown'),
           '# nsfd: tree %s series %s' % (j.get('tree_commit') or 'unknown',
                                          j.get('series_digest') or 'none')]
    for guest, v in sorted(j.get('initramfs', {}).items()):
        out.append('# nsfd: initramfs %s %s' % (guest, v))
    return out


def text(lines, judged=None):
    """A KTAP file's text of LINES ([(seconds, line)]), with the JUDGED
    lines (a dict: judged_lines) after its version line and plan."""
    out = [line for _, line in lines]
    if judged is not None:
        at = 0
        while at < len(out) and at < 2 and VERSION_OR_PLAN.match(out[at]):
            at += 1
        out[at:at] = judged_lines(judged)
    return ''.join(line + '\n' for line in out)
