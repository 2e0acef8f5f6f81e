#!/usr/bin/env python3
"""The bookkeeping of ci/bisect, on results.json files (README: Reading).

  failed  RESULTS PATTERN        the failed tests ("suite name", one a line),
                                 only those matching PATTERN if it is set
  record  STEPS COMMIT SUBJECT VERDICT EXIT SECONDS LABEL FAILED
                                 append a step to STEPS (steps.json)
  flipped STEPS FIRST PATTERN DIR  the tests failing at FIRST that passed in
                                 a good step
  conclude STEPS FIRST           write the result into STEPS
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
    elif cmd == 'record' and len(argv) == 10:
        steps, commit, subject, verdict, code, secs, label, fails = argv[2:]
        doc = load(steps)
        doc['steps'].append({'commit': commit, 'subject': subject,
                             'verdict': verdict, 'exit': int(code),
                             'seconds': int(secs), 'step': label.rstrip(':'),
                             'failed': [l for l in fails.split('\n') if l]})
        save(steps, doc)
    elif cmd == 'flipped' and len(argv) == 6:
        steps, first, pattern, d = argv[2:]
        doc = load(steps)
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
        for name in sorted(now & passed) or sorted(now):
            print(name)
    elif cmd == 'conclude' and len(argv) == 4:
        doc = load(argv[2])
        doc['first_bad'] = argv[3]
        doc['seconds'] = sum(s['seconds'] for s in doc['steps'])
        save(argv[2], doc)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
