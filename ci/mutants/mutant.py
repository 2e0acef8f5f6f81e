#!/usr/bin/env python3
"""nsfd mutants: parse, apply, check and score the one-line mutations of
ci/mutants/*.mutant (format: ci/mutants/README).

usage: mutant.py apply TREE MUTANT       edit TREE/<file> in place
       mutant.py check [--rev REV] [--base REV] TREE [MUTANT...]
                                          every mutant (default: all) applies
                                          exactly once to TREE's working files,
                                          or with --rev to TREE's git commit
                                          REV (e.g. nsfd-tests); read-only.
                                          --base REV: also that the line is
                                          kernel code, not a laid-in test (it
                                          occurs once at REV, e.g. nsfd-series)
       mutant.py parse MUTANT...              every mutant is well-formed
       mutant.py config MUTANT                 the matrix config it runs in
                                              (its "config: " line; empty
                                              for the arch's own kernel)
       mutant.py arch MUTANT                   the arch it runs on (its
                                              "arch: " line; x86_64 without)
       mutant.py applied TREE MUTANT           TREE's working file holds the
                                              mutation (exit 1 if not)
       mutant.py record RESULTS NAME VERDICT RC SECS [RUN_RESULTS_JSON]
       mutant.py summary [--wall SECS] RESULTS README [NAME...]
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

from ci import args as ci_args
from ci.results.model import ExitCode

KEYS = ('file', 'find', 'replace')
OPTIONAL = ('config', 'arch')
DEFAULT_ARCH = 'x86_64'


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
        if not sep or key not in KEYS + OPTIONAL:
            raise MutantError(f'{path}:{n}: expected "file: ", "find: ", "replace: ", '
                              f'"config: " or "arch: "')
        if key in m:
            raise MutantError(f'{path}:{n}: "{key}" given twice')
        m[key] = value.strip()
    for key in KEYS:
        if not m.get(key):
            raise MutantError(f'{path}: "{key}: " is missing or empty')
    if m['file'].startswith('/') or '..' in m['file'].split('/'):
        raise MutantError(f'{path}: file must be a path inside the kernel tree')
    if 'config' in m and not re.fullmatch(r'[A-Za-z0-9_-]+', m['config']):
        raise MutantError(f'{path}: config must name a file of kunit-configs/matrix/')
    if 'arch' in m and not re.fullmatch(r'[A-Za-z0-9_-]+', m['arch']):
        raise MutantError(f'{path}: arch must name a file of ci/arch/ (without .conf)')
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


def git_lines(tree, rev, path, name):
    r = subprocess.run(['git', '-C', tree, 'show', f'{rev}:{path}'],
                       capture_output=True, text=True, errors='surrogateescape')
    if r.returncode != 0:
        raise MutantError(f'{name}: {path} is not in {tree} at {rev}')
    return r.stdout.splitlines(keepends=True)


def braceless_body(text, lineno, m):
    """A replacement of several statements cannot stand where the line is
    the body of a braceless if/else/for/while: only its first statement
    would stay under the condition (and a following else would bind to a
    new if). Such a mutant says one thing and does another."""
    prev = text[lineno - 2].strip() if lineno >= 2 else ''
    several = re.search(r';\s*\S', m['replace'].strip())
    header = re.match(r'^(\}\s*)?(else\b.*|if\s*\(.*\)|for\s*\(.*\)|while\s*\(.*\))$', prev)
    if several and header and not prev.endswith('{'):
        raise MutantError(f'{m["name"]}: the line is the body of "{prev}" without braces, and '
                          f'the replacement has several statements: make it one expression')


def check(tree, paths, base=None, rev=None):
    bad = 0
    for p in paths:
        try:
            m = parse(p)
            if rev:
                text = git_lines(tree, rev, m['file'], m['name'])
            else:
                target = os.path.join(tree, m['file'])
                if not os.path.isfile(target):
                    raise MutantError(f'{m["name"]}: {m["file"]} is not in {tree}')
                text = read_lines(target)
            _, lineno = mutate(text, m)
            braceless_body(text, lineno, m)
            where = ''
            if base:
                n = len(matches(git_lines(tree, base, m['file'], m['name']), m['find']))
                if n != 1:
                    raise MutantError(f'{m["name"]}: "{m["find"]}" occurs {n} times in '
                                      f'{m["file"]} at {base}: not kernel code')
                where = f' (kernel code at {base})'
            print(f'ok {m["name"]}: {m["file"]}:{lineno}{where}')
        except MutantError as e:
            print(f'BAD {e}')
            bad += 1
    print(f'{len(paths) - bad}/{len(paths)} mutants apply exactly once')
    return ExitCode.ENVIRONMENT if bad else ExitCode.PASS


def equivalents(readme):
    """The mutants listed as "- NAME: reason" under the README's
    "Equivalent mutants" heading (a "#" heading or an underlined one, up
    to the next heading); {name: reason}."""
    out, inside = {}, False
    try:
        lines = open(readme, encoding='utf-8').read().splitlines()
    except OSError:
        return out
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and re.match(r'^(-{3,}|={3,})\s*$', lines[i + 1])
        if line.startswith('#') or (underline and line.strip()):
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


def summary(results, readme, names, wall=None):
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
    rc = 1 if unexplained else 2 if errors else 0
    db['last_campaign'] = {
        'mutants': [e['name'] for e in entries], 'killed': len(killed),
        'survived': [e['name'] for e in survived], 'errors': [e['name'] for e in errors],
        'equivalent_survivors': [e['name'] for e in survived if e['name'] in eq],
        'score': f'{len(killed)}/{len(entries)}',
        'wall_seconds': round(float(wall), 1) if wall else None, 'exit_code': rc}
    with open(results + '.tmp', 'w', encoding='utf-8') as fh:
        json.dump(db, fh, indent=1)
    os.replace(results + '.tmp', results)
    if wall:
        print(f'mutants: wall time {float(wall) / 60:.1f} min')
    return rc


def option(args, flag):
    """(value of FLAG, ARGS without it)."""
    if flag not in args:
        return None, args
    i = args.index(flag)
    if i + 1 >= len(args):
        raise MutantError(f'{flag} needs a value')
    return args[i + 1], args[:i] + args[i + 2:]


def main(argv):
    cmd, words = ci_args.commands('python3 -m ci.mutants.mutant', __doc__, ('apply', 'check', 'parse', 'config', 'arch', 'applied', 'record', 'summary', 'equivalents'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return ExitCode.ENVIRONMENT
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == 'apply' and len(args) == 2:
            apply(args[0], args[1])
            return ExitCode.PASS
        if cmd == 'check' and args:
            base, args = option(args, '--base')
            rev, args = option(args, '--rev')
            if not args:
                raise MutantError('check: no TREE')
            tree, paths = args[0], args[1:]
            if not paths:
                d = os.path.dirname(os.path.abspath(__file__))
                paths = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.mutant'))
            return check(tree, paths, base, rev)
        if cmd == 'applied' and len(args) == 2:
            m = parse(args[1])
            target = os.path.join(args[0], m['file'])
            text = read_lines(target) if os.path.isfile(target) else []
            return ExitCode.PASS if (not matches(text, m['find']) and matches(text, m['replace'])) else ExitCode.FAIL
        if cmd == 'parse' and args:
            bad = 0
            for p in args:
                try:
                    parse(p)
                except MutantError as e:
                    print(f'BAD {e}')
                    bad += 1
            print(f'{len(args) - bad}/{len(args)} mutants parse')
            return ExitCode.ENVIRONMENT if bad else ExitCode.PASS
        if cmd == 'config' and len(args) == 1:
            print(parse(args[0]).get('config', ''))
            return ExitCode.PASS
        if cmd == 'arch' and len(args) == 1:
            print(parse(args[0]).get('arch', DEFAULT_ARCH))
            return ExitCode.PASS
        if cmd == 'record' and len(args) in (5, 6):
            record(*args)
            return ExitCode.PASS
        if cmd == 'summary':
            wall, args = option(args, '--wall')
            if len(args) >= 2:
                return summary(args[0], args[1], args[2:], wall)
        if cmd == 'equivalents' and len(args) == 1:
            for n, why in sorted(equivalents(args[0]).items()):
                print(f'{n}\t{why}')
            return ExitCode.PASS
    except MutantError as e:
        print(f'mutants: {e}', file=sys.stderr)
        return ExitCode.ENVIRONMENT
    print(__doc__, file=sys.stderr)
    return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(ci_args.run(main, sys.argv))
