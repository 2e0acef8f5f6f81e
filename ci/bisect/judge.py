"""The decisions of make bisect (ci/bisect/bisect.py), on results.json files (README: Reading).

usage: python3 -m ci.bisect.judge COMMAND ARGS...

  failed  RESULTS PATTERN        the failed tests ("suite name", one a line),
                                 only those matching PATTERN if it is set
  deciding STEPS GOOD BAD PATTERN DIR
                                 the tests that decide every later step
                                 (failed at BAD, passed at GOOD), kept in STEPS
  judge   STEPS EXIT RESULTS PATTERN
                                 a step's verdict (good, bad, skip, abort) on
                                 the first line, then what decided it
  flipped STEPS FIRST PATTERN DIR  the tests failing at FIRST that passed in
                                 a good step
The driver calls the functions (judge.judge() judges a step); the command
line is for judging a kept step again by hand (out/bisect/steps/COMMIT.json).
"""
import json
import os
import re
import sys


def failed(results, pattern):
    try:
        doc = json.load(open(results))
    except (OSError, ValueError):
        return []
    rx = re.compile(pattern) if pattern else None
    out = []
    for t in doc.get('tests', []):
        if t.get('status') != 'fail':
            continue
        name = '%s %s' % (t.get('suite', ''), t.get('name', ''))
        if rx is None or rx.search(name):
            out.append(name)
    return out


def statuses(results):
    """{"suite name": status} of a results.json, or None if it is unreadable."""
    try:
        doc = json.load(open(results))
    except (OSError, ValueError):
        return None
    return {'%s %s' % (t.get('suite', ''), t.get('name', '')): t.get('status')
            for t in doc.get('tests', [])}


def deciding(good, bad, pattern):
    """The tests a step is judged by: those that fail at BAD (matching
    PATTERN) and pass at GOOD, the regression itself. Failing tests that
    GOOD does not have (new tests, kernel reports) are not among them: no
    earlier commit can pass them. With PATTERN and no such test, the
    matching failures at BAD: they must run for a step to count."""
    at_good = statuses(good) or {}
    failing = failed(bad, pattern)
    regressed = [n for n in failing if at_good.get(n) == 'pass']
    return regressed or (failing if pattern else [])


def judge(code, results, pattern, decide):
    """(verdict, lines) of one step: ci/nsfd's exit CODE, its results.json,
    the --test PATTERN and the deciding tests (empty before both ends ran).

    125 (did not build) is skip; any exit but 0 and 1, or no results, is
    abort (environment: nothing may be marked). A failure (matching
    PATTERN) is bad. Then every deciding test must have run and passed:
    one that is absent or skipped (a suite that did not compile, a crash
    before it) leaves the step undecided, skip. Without PATTERN an exit 1
    that names no failure (a kernel report, a timeout) is bad.
    """
    if code == 125:
        return 'skip', ['(did not build or apply)']
    if code not in (0, 1):
        return 'abort', ['(exit %d: environment error)' % code]
    seen = statuses(results)
    if seen is None:
        return 'abort', ['(exit %d without results.json)' % code]
    fails = failed(results, pattern)
    if fails:
        return 'bad', fails
    unjudged = [n for n in decide if seen.get(n) != 'pass']
    if unjudged:
        return 'skip', ['(%s: %s)' % ('skipped' if seen.get(n) else 'did not run', n)
                        for n in unjudged]
    if code == 1 and not pattern:
        return 'bad', ['(exit 1 without a failed test: a kernel report or a timeout)']
    return 'good', []


def flipped(doc, first, pattern, d):
    """The tests failing at FIRST (matching PATTERN) that passed in a good
    step of DOC (steps.json); all its failures if none did. D holds each
    step's results as COMMIT.json."""
    now = set(failed(os.path.join(d, first + '.json'), pattern))
    passed = set()
    for s in doc['steps']:
        if s['verdict'] != 'good':
            continue
        try:
            r = json.load(open(os.path.join(d, s['commit'] + '.json')))
        except (OSError, ValueError):
            continue
        passed |= {'%s %s' % (t.get('suite', ''), t.get('name', ''))
                   for t in r.get('tests', []) if t.get('status') == 'pass'}
    return sorted(now & passed) or sorted(now)


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return {'steps': []}


def save(path, doc):
    with open(path + '.new', 'w') as f:
        json.dump(doc, f, indent=1)
    os.replace(path + '.new', path)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ''
    if cmd == 'failed' and len(argv) == 4:
        print('\n'.join(failed(argv[2], argv[3])))
    elif cmd == 'deciding' and len(argv) == 7:
        steps, good, bad, pattern, d = argv[2:]
        doc = load(steps)
        doc['deciding'] = deciding(os.path.join(d, good + '.json'),
                                   os.path.join(d, bad + '.json'), pattern)
        save(steps, doc)
        print('\n'.join(doc['deciding']))
    elif cmd == 'judge' and len(argv) == 6:
        steps, code, results, pattern = argv[2:]
        verdict, lines = judge(int(code), results, pattern,
                               load(steps).get('deciding', []))
        print('\n'.join([verdict] + lines))
    elif cmd == 'flipped' and len(argv) == 6:
        steps, first, pattern, d = argv[2:]
        for name in flipped(load(steps), first, pattern, d):
            print(name)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
