"""One verdict over variant result directories from separate machines.

usage: ci/nsfd merge [--out DIR] VARIANT_DIR...
       (or python3 -m ci.results.merge [--out DIR] VARIANT_DIR...)
    Each VARIANT_DIR is an out/<variant>/ as a CI job uploaded it
    (results.json at least). Prints one line per variant, its failures
    and what did not build, then the summary line; writes
    DIR/kcidb.json (one KCIDB v5.3 document: the checkout, every variant's
    build and tests, each id once) and DIR/summary.json. DIR: out/merged/.

Exit: 1 a variant failed; else 2 a directory has no readable results.json,
a variant met an environment error, or the variants tested different
sources; else 125 a variant could not be built; else 0. (1 wins, as in
every nsfd verdict.)
"""

import argparse
import json
import os
import sys
import traceback

from . import kcidb, report
from .report import EXIT_ENV, EXIT_PASS

DEFAULT_OUT = os.path.join(report.TOP, 'out', 'merged')


def say(line):
    print('nsfd: ' + line)


def load(directory):
    """(results, None) or (None, why the directory gives no verdict)."""
    if not os.path.isdir(directory):
        return None, 'no such directory: did its CI job upload out/<variant>/?'
    try:
        results = kcidb.read_results(directory)
    except OSError:
        return None, 'no results.json: the variant never reported (did its job end early?)'
    except ValueError as e:
        return None, 'results.json is not JSON (%s): the upload is damaged, rerun the job' % e
    if not isinstance(results, dict) or 'exit_code' not in results or 'summary' not in results:
        return None, 'results.json has no exit_code or summary: not written by ci/results/report.py'
    return results, None


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
            codes.append(EXIT_ENV)
            continue
        name = results.get('variant', os.path.basename(os.path.normpath(d)))
        run = (name, kcidb.run_key(results))
        if run in runs:
            say('merge: %s: the same run as %s, counted once' % (d, runs[run]))
            continue
        runs[run] = d
        codes.append(results['exit_code'])
        for k in total:
            total[k] += results['summary'].get(k, 0)
        variants.append({'dir': d, 'variant': name, 'exit_code': results['exit_code'],
                         'summary': results['summary']})
        say('%-18s %s (exit %d)' % (name + ':', report.summary_line(results['summary'])[6:],
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
        codes.append(EXIT_ENV)
    code = report.verdict(codes)
    for line in problems:
        say(line)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, 'kcidb.json'), 'w') as f:
        json.dump(merged, f, indent=1)
        f.write('\n')
    with open(os.path.join(out_dir, 'summary.json'), 'w') as f:
        json.dump({'exit_code': code, 'summary': total, 'variants': variants,
                   'problems': problems}, f, indent=1)
        f.write('\n')
    say('merge: %d variant(s), exit %d; KCIDB v5.3 in %s: %d checkout(s), %d build(s), '
        '%d tests (%s)' % (len(variants), code, report.shown(os.path.join(out_dir, 'kcidb.json')),
                           len(merged['checkouts']), len(merged['builds']),
                           len(merged['tests']), status_counts(merged) or 'none'))
    print(report.summary_line(total))
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
            print(report.summary_line({'passed': 0, 'failed': 0, 'skipped': 0}))
        return EXIT_ENV if e.code else EXIT_PASS
    if not a.dirs:
        say('merge: no directories given: ci/nsfd merge [--out DIR] out/x86_64 out/riscv64 ...')
        print(report.summary_line({'passed': 0, 'failed': 0, 'skipped': 0}))
        return EXIT_ENV
    try:
        return merge(a.dirs, a.out)
    except Exception as e:  # noqa: BLE001 - Python's own 1 would read as "a test failed"
        traceback.print_exc()
        fault = report.machine_fault(e)
        say('merge: failed (%s): nothing was judged' % (
            'the machine: ' + fault if fault else 'a bug in ci/results/merge.py, traceback above'))
        print(report.summary_line({'passed': 0, 'failed': 0, 'skipped': 0}))
        return EXIT_ENV


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
