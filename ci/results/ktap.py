"""KTAP: take it out of a console log, parse it into a tree, flatten it.

Two console forms are read:
- KUnit: printk lines, "[   1.234567] <ktap line>" (CONFIG_PRINTK_TIME);
  kernel messages in between are not KTAP and are dropped.
- The kselftest guest (ci/guest/init.c): "ktap 1.234567 | <ktap line>",
  between "nsfd-kselftest: begin" and "nsfd-kselftest: end", on the KTAP
  channel (kselftest-channel.log), or on the console when the guest had no
  channel: there a kernel message may cut into a line ("ok 4 a[  2.5] BUG:
  ..."); the message is dropped from the KTAP (ci/results/console.py finds it).

KTAP v1 and TAP 13 are both accepted: "KTAP version N" / "TAP version N",
a plan "1..N", results "ok|not ok N name [# DIRECTIVE reason]", diagnostics
"# ...", and nesting by indentation (KUnit indents by four, the guest by
two: any deeper indentation opens a subtest). A result's duration is the
time since the previous result at its level, or since its level began.
A stream cut short (a plan not met, a subtest without its result line) is
reported as failed tests, never as a pass. Numbers are checked as the
tree's kunit_parser checks them: at each level, results come numbered
1, 2, 3, ... in order, one result per number, none past the plan; a
duplicate (dropped: it never stands in for a missing result), a gap or
a result past the plan is a failed "(numbering)" result of that level,
its reason naming the line.

Why not the tree's tools/testing/kunit/kunit_parser.py (tried on 6.12's):
it raises ValueError ("LineStream: going past EOF") on a kselftest binary
cut short by its timeout, counts XFAIL as a pass, and keeps no skip or
failure reasons and no durations, which is what results.json needs.
"""

import re

# A printk line's prefix: an optional <level> (a console that prints it),
# the timestamp, and a caller id ([T1], [C0]: CONFIG_PRINTK_CALLER). The one
# definition: ci/results/console.py uses it too.
PRINTK_PREFIX = r'(?:<\d+>)?\[\s*(\d+\.\d+)\](?:\[\s*[CT]\d+\])?'
PRINTK = re.compile(r'^' + PRINTK_PREFIX + r' ?(.*)$')
GUEST = re.compile(r'^ktap (\d+\.\d+) \| ?(.*)$')
VERSION = re.compile(r'^(KTAP|TAP) version \d+\s*$')
PLAN = re.compile(r'^1\.\.(\d+)')
RESULT = re.compile(r'^(ok|not ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
SUBTEST = re.compile(r'^#\s*Subtest:\s*(.*)$')
EMBEDDED_PRINTK = re.compile(PRINTK_PREFIX + ' ')
DIRECTIVE = re.compile(r'^(SKIP|TODO|XFAIL|TIMEOUT)\b\s*(.*)$', re.I)


def is_ktap(text):
    """Whether a line (with its indentation) belongs to a KTAP stream."""
    s = text.strip()
    return bool(VERSION.match(s) or PLAN.match(s) or RESULT.match(s)
                or s.startswith('#'))


def extract(console, form):
    """Return [(seconds or None, line)] of the KTAP in a console log.

    form is 'kunit' (printk lines) or 'guest' (prefixed lines). For 'guest'
    the second value is whether the end marker was seen.
    """
    lines, ended = [], False
    started = form == 'kunit'
    for raw in console.splitlines():
        raw = raw.rstrip('\r')
        if form == 'guest':
            if raw.startswith('nsfd-kselftest: begin'):
                started, lines = True, []
                continue
            if raw.startswith('nsfd-kselftest: end'):
                ended = True
                break
            m = GUEST.match(raw)
            if started and m:
                text = m.group(2)
                cut = EMBEDDED_PRINTK.search(text)
                lines.append((float(m.group(1)), text[:cut.start()] if cut else text))
            continue
        m = PRINTK.match(raw)
        t, text = (float(m.group(1)), m.group(2)) if m else (None, raw)
        if not lines and not VERSION.match(text.strip()):
            continue
        if is_ktap(text):
            lines.append((t, text))
    return (lines, ended) if form == 'guest' else lines


class Node:
    def __init__(self, name='', parent=None):
        self.name, self.parent = name, parent
        self.children = []
        self.status = None          # pass, fail, skip, todo
        self.reason = ''
        self.duration = None
        self.plan = None
        self.start = None
        self.last = None            # time of the latest result at this level
        self.diag = []
        self.number = None          # N of its "ok N" line
        self.line = ''              # that line, as the stream had it


def _status(ok, directive):
    m = DIRECTIVE.match(directive or '')
    word = m.group(1).upper() if m else ''
    reason = (m.group(2) if m else directive or '').strip()
    if word == 'SKIP':
        return 'skip', reason or 'skipped without a reason'
    if word in ('TODO', 'XFAIL'):
        return 'todo', reason or word.lower()
    if ok and word != 'TIMEOUT':
        return 'pass', ''
    return 'fail', (word.lower() + ' ' + reason).strip() if word else reason


def _why(lines, at):
    """The diagnostic that explains the failure reported at lines[at].

    KUnit prints a case's failure messages at the case's indentation even
    when the result is a parameter's, one level deeper: look back over
    every level to the previous result and take the first message there.
    """
    found = ''
    for _, text in reversed(lines[:at]):
        s = text.strip()
        if RESULT.match(s):
            break
        if s.startswith('#') and ('FAILED' in s or 'Expected' in s or 'ASSERT' in s):
            found = s.lstrip('# ').strip()
    return found


def _indent(text):
    return len(text) - len(text.lstrip(' \t'))


def parse(lines):
    """Parse [(t, line)] into a tree of Node; returns the root."""
    root = Node()
    pos = 0

    def group(node, indent):
        nonlocal pos
        # A group can be re-entered (KUnit prints a parameterised case's
        # messages one level up): its clock lives in the node.
        if node.last is None:
            node.last = node.start
        pending = None              # a Node opened by "# Subtest:" or nesting
        while pos < len(lines):
            t, text = lines[pos]
            ind, s = _indent(text), text.strip()
            if ind < indent:
                return
            if ind > indent:
                sub = pending or Node(parent=node)
                sub.start = sub.start if sub.start is not None else node.last
                pending = sub
                group(sub, ind)
                continue
            pos += 1
            if VERSION.match(s):
                continue
            m = PLAN.match(s)
            if m:
                node.plan = int(m.group(1))
                continue
            m = SUBTEST.match(s)
            if m:
                if node is not root and not node.children and not node.name:
                    # KTAP v1 (KUnit): the header of the subtest it opens.
                    node.name = m.group(1).strip()
                else:
                    # TAP 13 style: announces the indented block to follow.
                    pending = Node(m.group(1).strip(), node)
                    pending.start = node.last
                continue
            m = RESULT.match(s)
            if m:
                name = m.group(3).strip() or '#%s' % m.group(2)
                res = pending if pending is not None else Node(name, node)
                res.name = name
                res.number, res.line = int(m.group(2)), s
                res.status, res.reason = _status(m.group(1) == 'ok', m.group(4))
                if res.status == 'fail' and not res.reason:
                    res.reason = _why(lines, pos - 1)
                if t is not None and node.last is not None:
                    res.duration = round(max(0.0, t - node.last), 6)
                if t is not None:
                    node.last = t
                node.children.append(res)
                pending = None
                continue
            if s.startswith('#'):
                node.diag.append(s)
        if pending is not None:
            # The stream ended inside a subtest that never got its result.
            pending.status, pending.reason = 'fail', 'no result line: KTAP stream truncated'
            node.children.append(pending)

    if lines:
        root.start = lines[0][0]
        group(root, _indent(lines[0][1]))
    return root


def _numbering(node):
    """(children to report, problems): one result per number, numbers in
    order from 1, none past the plan (kunit_parser's checks). A duplicate
    is dropped; every problem names its line."""
    kept, problems, seen = [], [], set()
    for c in node.children:
        if c.number is None:        # a subtest cut short: no result line
            kept.append(c)
            continue
        if c.number in seen:
            problems.append('"%s": test number %d reported twice' % (c.line, c.number))
            continue
        expected = len(kept) + 1
        if c.number != expected:
            problems.append('"%s": expected test number %d, found %d' % (
                c.line, expected, c.number))
        if node.plan is not None and c.number > node.plan:
            problems.append('"%s": past the plan 1..%d' % (c.line, node.plan))
        seen.add(c.number)
        kept.append(c)
    return kept, problems


def _truncation(node, done=None):
    done = len(node.children) if done is None else done
    if node.plan is not None and done < node.plan:
        return 'plan 1..%d but %d result%s: KTAP stream truncated' % (
            node.plan, done, '' if done == 1 else 's')
    return None


def flatten(root, source):
    """Leaf results as dicts: source, suite, name, status, duration, reason.

    suite is the top-level test (a KUnit suite, a kselftest binary); name is
    the path below it. A parent whose result disagrees with its children
    (it failed though none did, or it has none) is itself a result.
    """
    out = []

    def add(path, status, duration, reason):
        suite = path[0] if path else source
        name = '.'.join(path[1:]) if len(path) > 1 else (path[0] if path else source)
        out.append({'source': source, 'suite': suite, 'name': name,
                    'status': status, 'duration': duration, 'reason': reason})

    def walk(node, path):
        kept, problems = _numbering(node)
        trunc = _truncation(node, len(kept))
        for c in kept:
            cpath = path + [c.name]
            if c.children or c.plan:
                before = len(out)
                walk(c, cpath)
                kids = out[before:]
                failed = any(k['status'] == 'fail' for k in kids)
                if c.status == 'fail' and c.reason:
                    # A binary cut short (a timeout, a signal): its own
                    # result says why its plan was not met.
                    for k in kids:
                        if k['name'].endswith('(missing)'):
                            k['reason'] = '%s; %s' % (c.reason, k['reason'])
                if c.status == 'fail' and not failed:
                    add(cpath + ['(result)'] if kids else cpath, 'fail',
                        c.duration, c.reason or 'reported not ok')
                elif c.status == 'skip' and not kids:
                    add(cpath, 'skip', c.duration, c.reason)
            else:
                add(cpath, c.status, c.duration, c.reason)
        if problems:
            add(path + ['(numbering)'], 'fail', None,
                'KTAP numbering: ' + '; '.join(problems))
        if trunc:
            add(path + ['(missing)'], 'fail', None, trunc)

    walk(root, [])
    return out


def results(lines, source):
    return flatten(parse(lines), source)
