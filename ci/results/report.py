"""Turn one variant's console logs and stage outcomes into the contract files.

usage:
  python3 -m ci.results.report variant OUTDIR --arch A --variant V --kernel-version X
          [--kernel-source S] [--patch NAME=ID ...] [--patched]
      reads what the stages left in OUTDIR (ci/results/collect.py),
      judges it (ci/results/judge.py) and writes kunit.ktap,
      kselftest.ktap, junit.xml, timings.json, kcidb.json (KCIDB v5.3,
      ci/results/kcidb.py) and, last, results.json (ci/results/publish.py);
      prints one line per failure, one per stage that did not build, and
      the summary line.
      --patched: the tree is ours (no --kernel-src), so everything must run:
      every KUnit suite of kunit/ and every TEST_GEN_PROGS binary of
      selftests/nsfd/Makefile must give results, and no test may skip for
      "socketat not implemented"; each violation is a failed test.
  python3 -m ci.results.report summary RESULTS.json...
      the summary line over several variants.
  python3 -m ci.results.report bench OUTDIR
      bench.json from the benchmark guest's console.

Collect, judge, write: this module only wires them and prints.
Exit (ci/results/model.py's ExitCode): 1 a test failed, a kernel report in
a console, a guest timed out, or no results where some were due - even
when a later stage or another variant did not build; else 2 usage or
environment error (a results.json that summary cannot take included:
nothing was judged); else 125 a stage could not be built (the kernel, a
patch, the tests); else 0. docs/exit-codes.md has each situation's code
on every path.
"""

import argparse
import json
import os
import sys
import traceback

import ci
from ci import args as cli_args
from ci.series import patch_list
from . import atomic, collect, expected, identity, judge, ktap, ktap_printer, publish, resultsfile
from .model import NO_COUNTS, ExitCode, counts, machine_fault, summary_line, verdict

TOP = ci.TOP


def judged_props(j):
    """junit.xml's properties: what the results judged."""
    return [('nsfd.' + k, str(v)) for k, v in sorted(j.items()) if k != 'initramfs'] + \
        [('nsfd.initramfs.' + k, v) for k, v in sorted(j['initramfs'].items())]


def cmd_variant(a):
    out = a.outdir
    # No earlier run's results.json may stand while this one writes.
    resultsfile.discard(out)
    # Collect.
    stages = collect.read_stages(os.path.join(out, 'stages.tsv'))
    by = {s.stage: s for s in stages}
    booted = collect.boot_results(out, stages)
    failed_boots = {c for c, t in booted if t.failed}
    kunit_run = None
    if collect.ran(by, 'kunit') and 'console-kunit.log' not in failed_boots:
        kunit_run = collect.kunit(out)
    guest_runs = collect.guests(out, failed_boots) if collect.ran(by, 'guest') else None
    findings = collect.console_findings(out)
    wrong = collect.boot_identity(out, stages, failed_boots)
    build = collect.read_json(os.path.join(out, 'build-info.json'))
    j = collect.judged(out, build)
    j['proven'] = not wrong
    # Judge.
    tests, channel = [t for _, t in booted], {}
    if kunit_run is not None:
        tests += judge.kunit_tests(kunit_run, by['kunit'], expected_or_none(
            lambda: expected.kunit_for(out, a.sources)))
    tests += judge.skipped_suites(collect.kunit_skipped(out), a.patched)
    if guest_runs is not None:
        res, channel = judge.guest_tests(guest_runs, by['guest'],
                                         len(collect.guest_suffixes(out)), failed_boots)
        tests += res
    tests += findings
    if a.patched:
        tests, more = judge.patched_checks(
            tests, by, lambda: expected.kunit_for(out, a.sources),
            lambda: expected.kselftests(a.sources), failed_boots)
        tests += more
    v = judge.verdict(stages, tests, collect.stage_logs(out, stages), a.variant, wrong)
    # Write.
    c = counts(v.tests)
    doc = {
        'arch': a.arch, 'variant': a.variant,
        'kernel': {'version': a.kernel_version, 'source': a.kernel_source,
                   'series': [patch_list.entry(a.sources, *p.split('=', 1)) for p in a.patch]},
        'patched': a.patched,
        'build': build, 'judged': j, 'identity_errors': [
            {'console': n, 'error': why} for n, why in wrong],
        'exit_code': int(v.code), 'summary': c, 'not_built': list(v.reasons),
        'kselftest_ktap': channel, 'stages': [s.to_dict() for s in stages],
        'tests': [t.to_dict() for t in v.tests],
    }
    ktaps = []
    if kunit_run is not None and kunit_run.lines is not None:
        ktaps.append(('kunit.ktap', ktap_printer.text(kunit_run.lines, j)))
    streams = [g.lines for g in guest_runs or () if g.text_found]
    if streams:
        ktaps.append(('kselftest.ktap', ktap_printer.text(
            streams[0] if len(streams) == 1 else ktap_printer.merged(streams), j)))
    written = publish.siblings(out, doc, ktaps, 'nsfd ' + a.variant, judged_props(j),
                               {s.stage: s.seconds for s in stages})
    for t in v.tests:
        if t.failed:
            print('nsfd: %s: FAIL %s: %s %s' % (a.variant, t.suite, t.name, t.reason))
    if channel.get('fallback'):
        print('nsfd: %s: note: kselftest KTAP read from %s: %s' % (
            a.variant, channel['file'], channel['fallback']))
    for line in v.reasons:
        print(line)
    print(summary_line(c), flush=True)
    publish.results(out, doc, written)
    return v.code


def expected_or_none(f):
    """F()'s list, or none where it cannot be read (the patched checks
    then fail closed on it)."""
    try:
        return f()
    except (OSError, ValueError):
        return []


def cmd_summary(a):
    total = dict(NO_COUNTS)
    codes, unbuilt = [], []
    for path in a.results:
        doc, why = resultsfile.load(os.path.dirname(path) or '.', os.path.basename(path))
        if doc is None:
            # A variant without results judged nothing: 2, as ci/nsfd merge
            # and make run say (1 would be a test that failed).
            print('nsfd: cannot take %s: %s: nothing was judged there' % (path, why))
            codes.append(ExitCode.ENVIRONMENT)
            continue
        code, cause = ExitCode.ENVIRONMENT, None
        try:
            code = ExitCode(doc['exit_code'])
        except ValueError:
            cause = 'its exit_code %r is none of 0, 1, 2, 125' % (doc['exit_code'],)
        codes.append(code)
        for k in total:
            total[k] += doc['summary'][k]
        print('nsfd: %-14s %s (exit %d)' % (doc['variant'] + ':',
              summary_line(doc['summary'])[6:], code))
        if cause:
            print('nsfd: %s: %s: nothing was judged there' % (path, cause))
        unbuilt += doc.get('not_built', [])
    for line in unbuilt:
        print(line)
    print(summary_line(total))
    return verdict(codes)


def cmd_bench(a):
    """bench.json from the benchmark's "# bench-json: {...}" line."""
    log = collect.read(os.path.join(a.outdir, 'console-bench.log')) or ''
    ident = collect.read_json(os.path.join(a.outdir, 'identity-kernel.json'))
    why = identity.check(log, ident, (collect.read(os.path.join(a.outdir, 'initramfs-bench.id'))
                                      or 'missing').strip(), guest=True)
    if why:
        print('nsfd: bench: identity: console-bench.log: %s' % why)
        return ExitCode.ENVIRONMENT
    lines, ended = ktap.extract(log, 'guest')
    doc = None
    for _, text in lines:
        s = text.strip()
        if s.startswith('# bench-json: '):
            doc = json.loads(s[len('# bench-json: '):])
        elif s.startswith('#') and not s.startswith('# selftests:'):
            print('nsfd: bench:' + s[1:])
    res = collect.ktap_results(lines, 'bench')
    if doc is None or not ended or any(r.failed for r in res):
        print('nsfd: bench: no complete result; see %s' % os.path.join(a.outdir, 'console-bench.log'))
        return ExitCode.FAIL
    atomic.write_json(os.path.join(a.outdir, 'bench.json'), doc)
    return ExitCode.PASS


def parser():
    p = argparse.ArgumentParser(prog='python3 -m ci.results.report',
                                description='the contract files of a variant, and its verdict')
    sub = p.add_subparsers(dest='cmd', required=True)
    v = sub.add_parser('variant', help='results.json and the rest of OUTDIR')
    v.add_argument('outdir')
    v.add_argument('--arch', required=True)
    v.add_argument('--variant', required=True)
    v.add_argument('--kernel-version', default='unknown')
    v.add_argument('--kernel-source', default='')
    v.add_argument('--patch', action='append', default=[])
    v.add_argument('--patched', action='store_true',
                   help='our own tree: every suite and binary must run, no socketat skip')
    v.add_argument('--sources', default=TOP,
                   help='where kunit/ and selftests/nsfd/ are (default: this checkout)')
    s = sub.add_parser('summary', help='the summary line over several results.json')
    s.add_argument('results', nargs='+')
    b = sub.add_parser('bench', help='bench.json from the benchmark guest')
    b.add_argument('outdir')
    return p


def main(argv):
    a, code = cli_args.parse(parser(), argv)
    if a is None:
        return code
    try:
        return {'variant': cmd_variant, 'summary': cmd_summary, 'bench': cmd_bench}[a.cmd](a)
    except Exception as e:  # noqa: BLE001 (any bug here decides nothing)
        # Python's own exit for an uncaught exception is 1, which reads as
        # a verdict ("a test failed", bad to git bisect). It is not one.
        traceback.print_exc()
        fault = machine_fault(e)
        print('nsfd: report.py %s failed (%s, not a verdict); the traceback is above'
              % (a.cmd, 'the machine: ' + fault if fault else 'a bug in the reporting'))
        print(summary_line(NO_COUNTS))
        return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv[1:]))
