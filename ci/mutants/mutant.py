#!/usr/bin/env python3
"""nsfd mutants: parse, apply, check and score the one-line mutations of
ci/mutants/*.mutant (format: ci/mutants/README).

usage: mutant.py apply TREE MUTANT       edit TREE/<file> in place
       mutant.py check TREE [MUTANT...]  every mutant applies exactly once
                                          (read-only); with --base REV also
                                          that the line is kernel code, not
                                          a laid-in test (it occurs once at
                                          REV of TREE's git, e.g. nsfd-series)
       mutant.py record RESULTS NAME VERDICT RC SECS [RUN_RESULTS_JSON]
       mutant.py summary RESULTS README [NAME...]
       mutant.py equivalents README

Exit: 0 ok; 1 (summary) a non-equivalent mutant survived; 2 a mutant file
is malformed, its file is missing, or its find line does not occur exactly
once.
"""
import json
import os
import re
import subprocess
import sys

KEYS = ('file', 'find', 'replace')


class MutantError(Exception):
    pass


def name_of(path):
    return os.path.basename(path)[:-len('.mutant')] if path.endswith('.mutant') \
        else os.path.basename(path)


def parse(path):
    """The mutant at PATH: dict with name, description, file, find, replace."""
    try:
        with open(path, encoding='utf-8') as fh:
            lines = fh.read().splitlines()
    except OSError as e:
        raise MutantError(f'{path}: {e.strerror}')
    if not lines or not lines[0].startswith('# ') or not lines[0][2:].strip():
        raise MutantError(f'{path}: the first line must be "# <description>"')
    m = {'name': name_of(path), 'description': lines[0][2:].strip()}
    for n, line in enumerate(lines[1:], 2):
        if not line.strip() or line.startswith('#'):
            continue
        key, sep, value = line.partition(':')
        if not sep or key not in KEYS:
            raise MutantError(f'{path}:{n}: expected "file: ", "find: " or "replace: "')
        if key in m:
            raise MutantError(f'{path}:{n}: "{key}" given twice')
        m[key] = value.strip()
    for key in KEYS:
        if not m.get(key):
            raise MutantError(f'{path}: "{key}: " is missing or empty')
    if m['file'].startswith('/') or '..' in m['file'].split('/'):
        raise MutantError(f'{path}: file must be a path inside the kernel tree')
    if m['find'].split() == m['replace'].split():
        raise MutantError(f'{path}: replace is the same as find')
    return m


def matches(text, find):
    """Indexes of the lines of TEXT whose whitespace-separated words are
    FIND's (indentation and tabs-versus-spaces do not count)."""
    want = find.split()
    return [i for i, line in enumerate(text) if line.split() == want]


def mutate(text, m):
    """TEXT (a list of lines with their ends) with M applied."""
    hits = matches(text, m['find'])
    if len(hits) != 1:
        raise MutantError(f'{m["name"]}: "{m["find"]}" occurs {len(hits)} times in '
                          f'{m["file"]}, not exactly once')
    i = hits[0]
    line = text[i]
    indent = line[:len(line) - len(line.lstrip())]
    end = line[len(line.rstrip('\r\n')):]
    out = list(text)
    out[i] = indent + m['replace'] + end
    return out, i + 1


def read_lines(path):
    with open(path, encoding='utf-8', errors='surrogateescape', newline='') as fh:
        return fh.read().splitlines(keepends=True)


def apply(tree, mpath):
    m = parse(mpath)
    target = os.path.join(tree, m['file'])
    if not os.path.isfile(target):
        raise MutantError(f'{m["name"]}: {m["file"]} is not in {tree}')
    out, lineno = mutate(read_lines(target), m)
    with open(target, 'w', encoding='utf-8', errors='surrogateescape', newline='') as fh:
        fh.writelines(out)
    print(f'mutant {m["name"]}: {m["file"]}:{lineno}: {m["replace"]}')


def check(tree, paths, base=None):
    bad = 0
    for p in paths:
        try:
            m = parse(p)
            target = os.path.join(tree, m['file'])
            if not os.path.isfile(target):
                raise MutantError(f'{m["name"]}: {m["file"]} is not in {tree}')
            _, lineno = mutate(read_lines(target), m)
            where = ''
            if base:
                r = subprocess.run(['git', '-C', tree, 'show', f'{base}:{m["file"]}'],
                                   capture_output=True, text=True, errors='surrogateescape')
                if r.returncode != 0:
                    raise MutantError(f'{m["name"]}: {m["file"]} is not in {base}')
                n = len(matches(r.stdout.splitlines(), m['find']))
                if n != 1:
                    raise MutantError(f'{m["name"]}: "{m["find"]}" occurs {n} times in '
                                      f'{m["file"]} at {base}: not kernel code')
                where = f' (kernel code at {base})'
            print(f'ok {m["name"]}: {m["file"]}:{lineno}{where}')
        except MutantError as e:
            print(f'BAD {e}')
            bad += 1
    print(f'{len(paths) - bad}/{len(paths)} mutants apply exactly once')
    return 2 if bad else 0


def equivalents(readme):
    """Names listed under the README's "Equivalent mutants" heading, as
    "- NAME: reason" lines; {name: reason}."""
    out, inside = {}, False
    try:
        lines = open(readme, encoding='utf-8').read().splitlines()
    except OSError:
        return out
    for line in lines:
        if line.startswith('#'):
            inside = line.lstrip('#').strip().lower() == 'equivalent mutants'
            continue
        mm = re.match(r'^[-*]\s+`?([A-Za-z0-9_.-]+)`?\s*:\s*(.*)$', line) if inside else None
        if mm:
            out[mm.group(1)] = mm.group(2).strip()
    return out


def load(path):
    try:
        with open(path, encoding='utf-8') as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {'mutants': []}


def record(results, name, verdict, rc, secs, run_json=None):
    """Add (or replace) NAME's entry in RESULTS; print its line."""
    failed = []
    if run_json and os.path.exists(run_json):
        run = load(run_json)
        for t in run.get('tests', []):
            if t.get('status') == 'fail':
                failed.append(f'{t.get("suite", "")}: {t.get("name", "")}')
    db = load(results)
    entry = {'name': name, 'verdict': verdict, 'exit_code': int(rc),
             'seconds': round(float(secs), 1), 'failed_count': len(failed),
             'failed': failed[:10]}
    db['mutants'] = [e for e in db.get('mutants', []) if e.get('name') != name] + [entry]
    os.makedirs(os.path.dirname(os.path.abspath(results)), exist_ok=True)
    with open(results + '.tmp', 'w', encoding='utf-8') as fh:
        json.dump(db, fh, indent=1)
    os.replace(results + '.tmp', results)
    secs = entry['seconds']
    if verdict == 'killed':
        if failed:
            first = ', '.join(failed[:3])
            print(f'mutant {name}: killed by {len(failed)} tests ({first}) {secs} s')
        else:
            print(f'mutant {name}: killed by a kernel report or a guest that did not finish '
                  f'(no failed test) {secs} s')
    elif verdict == 'survived':
        print(f'mutant {name}: SURVIVED {secs} s')
    else:
        print(f'mutant {name}: ERROR (ci/nsfd exit {rc}: did not build or apply) {secs} s')


def summary(results, readme, names):
    db = load(results)
    byname = {e['name']: e for e in db.get('mutants', [])}
    names = names or sorted(byname)
    entries = [byname[n] for n in names if n in byname]
    eq = equivalents(readme)
    killed = [e for e in entries if e['verdict'] == 'killed']
    survived = [e for e in entries if e['verdict'] == 'survived']
    errors = [e for e in entries if e['verdict'] == 'error']
    print(f'mutants: score {len(killed)}/{len(entries)} killed, {len(survived)} survived, '
          f'{len(errors)} errors')
    unexplained = 0
    for e in survived:
        if e['name'] in eq:
            print(f'mutants: survivor {e["name"]}: equivalent ({eq[e["name"]]})')
        else:
            unexplained += 1
            print(f'mutants: survivor {e["name"]}: NOT explained in ci/mutants/README')
    for e in errors:
        print(f'mutants: error {e["name"]}: ci/nsfd exit {e["exit_code"]}')
    if unexplained:
        return 1
    return 2 if errors else 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == 'apply' and len(args) == 2:
            apply(args[0], args[1])
            return 0
        if cmd == 'check' and args:
            base = None
            if '--base' in args:
                i = args.index('--base')
                base = args[i + 1]
                args = args[:i] + args[i + 2:]
            tree, paths = args[0], args[1:]
            if not paths:
                d = os.path.dirname(os.path.abspath(__file__))
                paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.mutant'))
            return check(tree, paths, base)
        if cmd == 'record' and len(args) in (5, 6):
            record(*args)
            return 0
        if cmd == 'summary' and len(args) >= 2:
            return summary(args[0], args[1], args[2:])
        if cmd == 'equivalents' and len(args) == 1:
            for n, why in sorted(equivalents(args[0]).items()):
                print(f'{n}\t{why}')
            return 0
    except MutantError as e:
        print(f'mutants: {e}', file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
