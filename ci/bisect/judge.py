"""The decisions of make bisect (ci/bisect/bisect.py), on results.json files
(docs/exit-codes.md, the "bisect step" column).

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
import argparse
import json
import os
import re
import sys

from ci import args as cli_args
from ci.results import atomic, resultsfile
from ci.results.model import ExitCode


def failed(results, pattern):
    if results is None:
        return []
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
    """{"suite name": status} of a results.json, or None if it is unreadable
    (or None: there was none to take)."""
    if results is None:
        return None
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

    125 (did not build) is skip; any exit but 0 and 1, or no results (or
    a results.json without the files written with it), is abort
    (environment: nothing may be marked). A failure (matching
    PATTERN) is bad. Then every deciding test must have run and passed:
    one that is absent or skipped (a suite that did not compile, a crash
    before it) leaves the step undecided, skip. Without PATTERN an exit 1
    that names no failure (a kernel report, a timeout) is bad.
    """
    if code == ExitCode.NOT_BUILT:
        return 'skip', ['(did not build or apply)']
    if code not in (ExitCode.PASS, ExitCode.FAIL):
        return 'abort', ['(exit %d: environment error)' % code]
    if results and os.path.basename(results) == resultsfile.NAME and os.path.exists(results):
        # A run's own results.json is taken only with the files written
        # with it (a kept step's COMMIT.json was checked when kept).
        taken, why = resultsfile.load(os.path.dirname(results) or '.')
        if taken is None:
            return 'abort', ['(%s)' % why]
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
    if code == ExitCode.FAIL and not pattern:
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
    atomic.write_json(path, doc)


def parser():
    p = argparse.ArgumentParser(prog='python3 -m ci.bisect.judge',
                                description='the decisions of make bisect, by hand')
    sub = p.add_subparsers(dest='cmd', required=True)
    for name, args in (('failed', 'RESULTS PATTERN'), ('deciding', 'STEPS GOOD BAD PATTERN DIR'),
                       ('judge', 'STEPS EXIT RESULTS PATTERN'),
                       ('flipped', 'STEPS FIRST PATTERN DIR')):
        c = sub.add_parser(name)
        for arg in args.split():
            c.add_argument(arg.lower(), metavar=arg, type=int if arg == 'EXIT' else str)
    return p


def main(argv):
    a, code = cli_args.parse(parser(), argv[1:])
    if a is None:
        return code
    if a.cmd == 'failed':
        print('\n'.join(failed(a.results, a.pattern)))
    elif a.cmd == 'deciding':
        doc = load(a.steps)
        doc['deciding'] = deciding(os.path.join(a.dir, a.good + '.json'),
                                   os.path.join(a.dir, a.bad + '.json'), a.pattern)
        save(a.steps, doc)
        print('\n'.join(doc['deciding']))
    elif a.cmd == 'judge':
        verdict, lines = judge(a.exit, a.results, a.pattern, load(a.steps).get('deciding', []))
        print('\n'.join([verdict] + lines))
    else:
        for name in flipped(load(a.steps), a.first, a.pattern, a.dir):
            print(name)
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
