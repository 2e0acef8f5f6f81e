"""One verdict over variant result directories from separate machines.

usage: ci/nsfd merge [--out DIR] VARIANT_DIR...
       (or python3 -m ci.results.merge [--out DIR] VARIANT_DIR...)
    Each VARIANT_DIR is an out/<variant>/ as a CI job uploaded it
    (results.json and the files written with it). Prints one line per variant, its failures
    and what did not build, then the summary line; writes
    DIR/kcidb.json (one KCIDB v5.3 document: the checkout, every variant's
    build and tests, each id once) and DIR/summary.json. DIR: out/merged/.

Exit: 1 a variant failed; else 2 a directory has no readable results.json
(or one without the files written with it: ci/results/resultsfile.py),
a variant met an environment error, or the variants tested different
sources; else 125 a variant could not be built; else 0. (1 wins, as in
every nsfd verdict.)
"""

import argparse
import os
import sys
import traceback

import ci
from ci import args as cli_args
from . import atomic, judge, kcidb, resultsfile
from .model import NO_COUNTS, ExitCode, machine_fault, summary_line, verdict

DEFAULT_OUT = os.path.join(ci.TOP, 'out', 'merged')


def say(line):
    print('nsfd: ' + line)


def load(directory):
    """(results, None) or (None, why the directory gives no verdict):
    results.json is taken only with the files written with it
    (ci/results/resultsfile.py)."""
    return resultsfile.load(directory)


def code_of(results, problems, d):
    """A variant's exit code as results.json states it; one that is none
    of the four codes judged nothing (2, with its cause in PROBLEMS)."""
    try:
        return ExitCode(results['exit_code'])
    except (ValueError, TypeError):
        problems.append('merge: %s: exit_code %r is none of 0, 1, 2, 125: nothing was judged'
                        % (d, results['exit_code']))
        return ExitCode.ENVIRONMENT


def add_unique(into, items, seen):
    """Append the items whose id is not in SEEN yet; returns how many were new."""
    n = 0
    for item in items:
        if item['id'] not in seen:
            seen.add(item['id'])
            into.append(item)
            n += 1
    return n


def merge_documents(docs):
    """One KCIDB document of several; each checkout, build and test id once.
    A checkout seen twice is valid only if valid in both."""
    out = {'version': dict(kcidb.VERSION), 'checkouts': [], 'builds': [], 'tests': []}
    seen = {k: set() for k in ('checkouts', 'builds', 'tests')}
    for doc in docs:
        for c in doc.get('checkouts', []):
            if c['id'] in seen['checkouts']:
                have = next(x for x in out['checkouts'] if x['id'] == c['id'])
                if 'valid' in c:
                    have['valid'] = have.get('valid', True) and c['valid']
        add_unique(out['checkouts'], doc.get('checkouts', []), seen['checkouts'])
        add_unique(out['builds'], doc.get('builds', []), seen['builds'])
        add_unique(out['tests'], doc.get('tests', []), seen['tests'])
    return out


def status_counts(doc):
    counts = {}
    for t in doc['tests']:
        counts[t['status']] = counts.get(t['status'], 0) + 1
    return ', '.join('%s %d' % (s, counts[s]) for s in
                     ('FAIL', 'ERROR', 'MISS', 'PASS', 'DONE', 'SKIP') if s in counts)


def merge(dirs, out_dir):
    """Print the merged verdict, write OUT_DIR's files; returns the exit code."""
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    codes, docs, variants, runs, problems = [], [], [], {}, []
    for d in dirs:
        results, why = load(d)
        if results is None:
            problems.append('merge: %s: %s' % (d, why))
            codes.append(ExitCode.ENVIRONMENT)
            continue
        name = results.get('variant', os.path.basename(os.path.normpath(d)))
        run = (name, kcidb.run_key(results))
        if run in runs:
            say('merge: %s: the same run as %s, counted once' % (d, runs[run]))
            continue
        runs[run] = d
        codes.append(code_of(results, problems, d))
        for k in total:
            total[k] += results['summary'].get(k, 0)
        variants.append({'dir': d, 'variant': name, 'exit_code': results['exit_code'],
                         'summary': results['summary']})
        say('%-18s %s (exit %d)' % (name + ':', summary_line(results['summary'])[6:],
                                    results['exit_code']))
        for t in results.get('tests', []):
            if t.get('status') == 'fail':
                say('%s: FAIL %s: %s %s' % (name, t.get('suite'), t.get('name'), t.get('reason')))
        problems += [line[len('nsfd: '):] for line in results.get('not_built', [])]
        if 'kernel' in results:         # out/pipeline has no kernel to report
            docs.append(kcidb.document(results, d))
    merged = merge_documents(docs)
    if len(merged['checkouts']) > 1:
        problems.append('merge: the directories tested different sources (%s): merge the '
                        'variants of one pipeline run' % ', '.join(
                            c['id'] for c in merged['checkouts']))
        codes.append(ExitCode.ENVIRONMENT)
    code = verdict(codes)
    for line in problems:
        say(line)
    os.makedirs(out_dir, exist_ok=True)
    atomic.write_json(os.path.join(out_dir, 'kcidb.json'), merged)
    atomic.write_json(os.path.join(out_dir, 'summary.json'), {
        'exit_code': int(code), 'summary': total, 'variants': variants, 'problems': problems})
    say('merge: %d variant(s), exit %d; KCIDB v5.3 in %s: %d checkout(s), %d build(s), '
        '%d tests (%s)' % (len(variants), code, judge.shown(os.path.join(out_dir, 'kcidb.json')),
                           len(merged['checkouts']), len(merged['builds']),
                           len(merged['tests']), status_counts(merged) or 'none'))
    print(summary_line(total))
    return code


def main(argv):
    p = argparse.ArgumentParser(prog='ci/nsfd merge',
                                description='one verdict over variant result directories')
    p.add_argument('--out', '-o', default=DEFAULT_OUT,
                   help='where kcidb.json and summary.json go (default: out/merged/)')
    p.add_argument('dirs', nargs='*', metavar='VARIANT_DIR')
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        if e.code:
            print(summary_line(NO_COUNTS))
        return ExitCode.ENVIRONMENT if e.code else ExitCode.PASS
    if not a.dirs:
        say('merge: no directories given: ci/nsfd merge [--out DIR] out/x86_64 out/riscv64 ...')
        print(summary_line(NO_COUNTS))
        return ExitCode.ENVIRONMENT
    try:
        return merge(a.dirs, a.out)
    except Exception as e:  # noqa: BLE001 - Python's own 1 would read as "a test failed"
        traceback.print_exc()
        fault = machine_fault(e)
        say('merge: failed (%s): nothing was judged' % (
            'the machine: ' + fault if fault else 'a bug in ci/results/merge.py, traceback above'))
        print(summary_line(NO_COUNTS))
        return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv[1:]))
