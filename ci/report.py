#!/usr/bin/env python3
"""Turn one variant's console logs and stage outcomes into the contract files.

usage:
  ci/report.py variant OUTDIR --arch A --variant V --kernel-version X
               [--kernel-source S] [--patch NAME=ID ...]
      reads OUTDIR/stages.tsv ("stage<TAB>status<TAB>seconds" lines,
      status ok|fail|timeout|build-failed|env-error|skipped) and
      OUTDIR/console-*.log; writes kunit.ktap, kselftest.ktap,
      results.json, junit.xml, timings.json; prints the summary line.
  ci/report.py summary RESULTS.json...
      the summary line over several variants.

Exit: 0 all passed; 1 a test failed, a kernel report in a console, a
guest timed out, or no results where some were due; 125 the kernel or the
tests could not be built; 2 usage or environment error.
"""

import argparse
import json
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import console  # noqa: E402
import ktap  # noqa: E402

EXIT_PASS, EXIT_FAIL, EXIT_ENV, EXIT_BUILD = 0, 1, 2, 125


def read_stages(path):
    stages = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if len(parts) >= 3:
                    stages.append({'stage': parts[0], 'status': parts[1],
                                   'seconds': float(parts[2]),
                                   'detail': parts[3] if len(parts) > 3 else ''})
    return stages


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, errors='replace') as f:
        return f.read()


def fail(source, suite, name, reason):
    return {'source': source, 'suite': suite, 'name': name, 'status': 'fail',
            'duration': None, 'reason': reason}


def kselftest_name(r):
    # The guest names each binary as kselftest's runner does:
    # "selftests: nsfd: prog"; results use run_kselftest.sh's "nsfd:prog".
    if r['suite'].startswith('selftests: '):
        r['suite'] = r['suite'][len('selftests: '):].replace(': ', ':')
        if r['name'] == 'selftests: nsfd: ' + r['suite'].split(':', 1)[-1]:
            r['name'] = r['suite']
    return r


def write_ktap(path, lines):
    with open(path, 'w') as f:
        for _, text in lines:
            f.write(text + '\n')


def collect_kunit(outdir, stage):
    """Results of the KUnit stage, from the console kunit.py recorded."""
    log = read(os.path.join(outdir, 'console-kunit.log'))
    if log is None:
        return [fail('kunit', 'kunit', 'console', 'no console log of the KUnit boot')]
    lines = ktap.extract(log, 'kunit')
    write_ktap(os.path.join(outdir, 'kunit.ktap'), lines)
    res = ktap.results(lines, 'kunit')
    if not res:
        res.append(fail('kunit', 'kunit', 'ktap',
                        'no KTAP in the KUnit console (kunit.py: %s)' % stage['status']))
    elif stage['status'] == 'timeout':
        res.append(fail('kunit', 'kunit', 'timeout', 'the KUnit guest timed out'))
    elif stage['status'] != 'ok' and not any(r['status'] == 'fail' for r in res):
        res.append(fail('kunit', 'kunit', 'kunit.py',
                        'kunit.py reported failure (%s) though the KTAP shows none'
                        % (stage['detail'] or stage['status'])))
    return res


def collect_kselftest(outdir, stage):
    log = read(os.path.join(outdir, 'console-kselftest.log'))
    if log is None:
        return [fail('kselftest', 'kselftest', 'console', 'no console log of the guest')]
    lines, ended = ktap.extract(log, 'guest')
    write_ktap(os.path.join(outdir, 'kselftest.ktap'), lines)
    res = [kselftest_name(r) for r in ktap.results(lines, 'kselftest')]
    if stage['status'] == 'timeout':
        res.append(fail('kselftest', 'guest', 'timeout',
                        'the guest did not end in time (%s)' % stage['detail']))
    elif not lines:
        res.append(fail('kselftest', 'guest', 'ktap', 'the guest printed no KTAP'))
    elif not ended:
        res.append(fail('kselftest', 'guest', 'end-marker',
                        'the guest stopped before the end of its KTAP'))
    elif not res:
        res.append(fail('kselftest', 'guest', 'ktap', 'the guest ran no tests'))
    return res


def console_findings(outdir):
    res = []
    for name in sorted(os.listdir(outdir)):
        if name.startswith('console-') and name.endswith('.log'):
            for n, kind, line in console.findings(read(os.path.join(outdir, name))):
                res.append(fail('console', name, '%s:%d' % (kind, n), line[:300]))
    return res


def exit_code(stages, tests):
    statuses = {s['status'] for s in stages}
    if 'env-error' in statuses:
        return EXIT_ENV
    if 'build-failed' in statuses:
        return EXIT_BUILD
    if any(t['status'] == 'fail' for t in tests):
        return EXIT_FAIL
    if statuses - {'ok', 'skipped'}:
        return EXIT_FAIL
    return EXIT_PASS


def counts(tests):
    c = {'passed': 0, 'failed': 0, 'skipped': 0}
    for t in tests:
        c[{'pass': 'passed', 'fail': 'failed'}.get(t['status'], 'skipped')] += 1
    return c


def junit(tests, path, name):
    root = ET.Element('testsuites', name=name)
    suites = {}
    for t in tests:
        key = (t['source'], t['suite'])
        if key not in suites:
            suites[key] = ET.SubElement(root, 'testsuite', name='%s.%s' % key)
        case = ET.SubElement(suites[key], 'testcase', classname='%s.%s' % key,
                             name=t['name'], time='%.6f' % (t['duration'] or 0))
        if t['status'] == 'fail':
            ET.SubElement(case, 'failure', message=t['reason'] or 'failed')
        elif t['status'] in ('skip', 'todo'):
            ET.SubElement(case, 'skipped', message=t['reason'] or t['status'])
    for key, el in suites.items():
        cases = [t for t in tests if (t['source'], t['suite']) == key]
        el.set('tests', str(len(cases)))
        el.set('failures', str(sum(t['status'] == 'fail' for t in cases)))
        el.set('skipped', str(sum(t['status'] in ('skip', 'todo') for t in cases)))
        el.set('time', '%.6f' % sum(t['duration'] or 0 for t in cases))
    c = counts(tests)
    root.set('tests', str(len(tests)))
    root.set('failures', str(c['failed']))
    root.set('skipped', str(c['skipped']))
    ET.ElementTree(root).write(path, encoding='utf-8', xml_declaration=True)


def summary_line(c):
    return 'nsfd: %d passed, %d failed, %d skipped' % (c['passed'], c['failed'], c['skipped'])


def cmd_variant(a):
    stages = read_stages(os.path.join(a.outdir, 'stages.tsv'))
    by = {s['stage']: s for s in stages}
    tests = []
    if 'kunit' in by and by['kunit']['status'] != 'skipped':
        tests += collect_kunit(a.outdir, by['kunit'])
    if 'guest' in by and by['guest']['status'] != 'skipped':
        tests += collect_kselftest(a.outdir, by['guest'])
    tests += console_findings(a.outdir)
    for s in stages:
        if s['status'] in ('build-failed', 'env-error'):
            tests.append(fail('pipeline', a.variant, s['stage'],
                              '%s: %s' % (s['status'], s['detail'])))
    code = exit_code(stages, tests)
    c = counts(tests)
    patches = [dict(zip(('patch', 'patch_id'), p.split('=', 1))) for p in a.patch]
    doc = {
        'arch': a.arch, 'variant': a.variant,
        'kernel': {'version': a.kernel_version, 'source': a.kernel_source,
                   'series': patches},
        'exit_code': code, 'summary': c, 'stages': stages, 'tests': tests,
    }
    with open(os.path.join(a.outdir, 'results.json'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    with open(os.path.join(a.outdir, 'timings.json'), 'w') as f:
        json.dump({s['stage']: s['seconds'] for s in stages}, f, indent=1)
        f.write('\n')
    junit(tests, os.path.join(a.outdir, 'junit.xml'), 'nsfd ' + a.variant)
    for t in tests:
        if t['status'] == 'fail':
            print('nsfd: %s: FAIL %s: %s %s' % (a.variant, t['suite'], t['name'], t['reason']))
    print(summary_line(c))
    return code


def cmd_summary(a):
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    codes = []
    for path in a.results:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print('nsfd: cannot read %s: %s' % (path, e))
            codes.append(EXIT_FAIL)
            continue
        codes.append(doc['exit_code'])
        for k in total:
            total[k] += doc['summary'][k]
        print('nsfd: %-14s %s (exit %d)' % (doc['variant'] + ':',
              summary_line(doc['summary'])[6:], doc['exit_code']))
    print(summary_line(total))
    for code in (EXIT_ENV, EXIT_BUILD, EXIT_FAIL):
        if code in codes:
            return code
    return EXIT_PASS if codes else EXIT_FAIL


def cmd_bench(a):
    """bench.json from the benchmark's "# bench-json: {...}" line."""
    log = read(os.path.join(a.outdir, 'console-bench.log')) or ''
    lines, ended = ktap.extract(log, 'guest')
    doc = None
    for _, text in lines:
        s = text.strip()
        if s.startswith('# bench-json: '):
            doc = json.loads(s[len('# bench-json: '):])
        elif s.startswith('#') and not s.startswith('# selftests:'):
            print('nsfd: bench:' + s[1:])
    res = ktap.results(lines, 'bench')
    if doc is None or not ended or any(r['status'] == 'fail' for r in res):
        print('nsfd: bench: no complete result; see %s' % os.path.join(a.outdir, 'console-bench.log'))
        return EXIT_FAIL
    with open(os.path.join(a.outdir, 'bench.json'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    return EXIT_PASS


def main(argv):
    p = argparse.ArgumentParser(prog='ci/report.py')
    sub = p.add_subparsers(dest='cmd', required=True)
    v = sub.add_parser('variant')
    v.add_argument('outdir')
    v.add_argument('--arch', required=True)
    v.add_argument('--variant', required=True)
    v.add_argument('--kernel-version', default='unknown')
    v.add_argument('--kernel-source', default='')
    v.add_argument('--patch', action='append', default=[])
    s = sub.add_parser('summary')
    s.add_argument('results', nargs='+')
    b = sub.add_parser('bench')
    b.add_argument('outdir')
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_ENV if e.code else EXIT_PASS
    return {'variant': cmd_variant, 'summary': cmd_summary, 'bench': cmd_bench}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
