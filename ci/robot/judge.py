"""make robot's verdict, from the robot boot's console alone.

usage:
  python3 -m ci.robot.judge OUTDIR TOP ARCH
      OUTDIR/results.json, kselftest.ktap, kunit.ktap, junit.xml and
      kcidb.json from OUTDIR/stages.tsv, config-misses.tsv, console.log and
      identity-kernel.json; prints each failure, then the summary line;
      exits 0 passed, 1 failed, 125 the mail did not apply or build, 2
      environment (docs/exit-codes.md).
  python3 -m ci.robot.judge --config-misses NSFD_CONFIG DOT_CONFIG
      each symbol NSFD_CONFIG sets that DOT_CONFIG does not have as asked,
      "SYMBOL<TAB>asked<TAB>got" a line.

The console holds, in order (ci/robot/init): the kernel's banner; the
output of kselftest's own runner, run_kselftest.sh -c nsfd, between
"robot: run_kselftest.sh begin" and "robot: run_kselftest.sh exit N"; the
modprobe of every module; the kernel log (dmesg) between "robot: dmesg
begin" and "robot: dmesg end", which carries the KTAP of the built-in KUnit
suites (printed at boot) and then of each module loaded; "robot: done".

The runner prints TAP 13 with each program's own output prefixed "# "
(kselftest/runner.sh): the lines of a program, from its "# selftests:
DIR: NAME" header to its "ok|not ok N selftests: DIR: NAME" line, are its
subtest, unprefixed and indented here so that ci/results/ktap.py parses them as
one. Its "# TIMEOUT N seconds" and "# exit=N" directives stay the
program's result reasons.
"""

import argparse
import json
import os
import re
import subprocess
import sys

from ci import args as cli_args
from ci.pipeline.decide import KSELFTEST_TIMEOUT
from ci.results import boots, collect, console, expected, identity, judge as judging, ktap, \
    ktap_printer, publish, resultsfile
from ci.results.model import NO_COUNTS, ExitCode, TestResult, counts, failed, \
    machine_fault, summary_line
from ci.series import patch_list
from ci.pipeline.tree import TARBALL

RUNNER_BEGIN = 'robot: run_kselftest.sh begin'
RUNNER_EXIT = re.compile(r'^robot: run_kselftest\.sh exit (\d+)$')
DMESG_BEGIN, DMESG_END = 'robot: dmesg begin', 'robot: dmesg end'
MODPROBE_MARK = 'robot: modprobe begin'
DONE = 'robot: done'
HEADER = re.compile(r'^# selftests: (\S+): (\S+)$')
UPTIME = re.compile(r'^robot: uptime (\d+\.\d+)$')
CONFIG_LINE = re.compile(r'^(CONFIG_\w+)=(.*)$')
NOT_SET = re.compile(r'^# (CONFIG_\w+) is not set$')


def config_values(path):
    vals = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            m = CONFIG_LINE.match(line)
            if m:
                vals[m.group(1)] = m.group(2)
            m = NOT_SET.match(line)
            if m:
                vals[m.group(1)] = 'n'
    return vals


def config_misses(asked_path, dot_config):
    """[(symbol, asked, got)] for what ASKED_PATH sets and .config lacks."""
    asked, got = config_values(asked_path), config_values(dot_config)
    return [(s, v, got.get(s, 'n')) for s, v in asked.items() if got.get(s, 'n') != v]


def lines_of(text):
    return [ln.rstrip('\r') for ln in text.splitlines()]


def runner_tap(lines):
    """The runner's TAP as (seconds, line) pairs with each program's
    output as an indented subtest, the runner's exit status (None: the
    runner never ended) and the seconds of each program and of the whole
    collection ({'nsfd:prog': s, '': s}), from ci/robot/init's "robot:
    uptime" lines."""
    out, status, inside, prog = [], None, False, False
    now, began, seconds, first = None, None, {}, None
    for ln in lines:
        if not inside:
            inside = ln == RUNNER_BEGIN
            continue
        m = UPTIME.match(ln)
        if m:
            now = float(m.group(1))
            first = now if first is None else first
            continue
        m = RUNNER_EXIT.match(ln)
        if m:
            status = int(m.group(1))
            if now is not None and first is not None:
                seconds[''] = round(now - first, 1)
            break
        m = HEADER.match(ln)
        if m:
            prog, began = True, now
            out.append((now, ln))
            continue
        if prog and (ln.startswith('# ') or ln == '#'):
            out.append((None, '  ' + ln[2:]))
        elif ktap.is_ktap(ln):
            r = ktap.RESULT.match(ln)
            if r:
                prog = False
                name = r.group(3).strip()
                if name.startswith('selftests: ') and began is not None and now is not None:
                    seconds[name[len('selftests: '):].replace(': ', ':')] = round(now - began, 1)
            out.append((now if r else None, ln))
    return out, status, seconds


def between(lines, begin, end):
    """The lines after BEGIN and before END (or to the last line)."""
    if begin not in lines:
        return [], False
    rest = lines[lines.index(begin) + 1:]
    return (rest[:rest.index(end)], True) if end in rest else (rest, False)


def kunit_streams(dmesg):
    """[(how, [(t, line)])]: the boot's built-in suites, then each module's
    KTAP, split at each top-level version line of the kernel log."""
    text = '\n'.join(dmesg)
    cut = text.find(MODPROBE_MARK)
    parts = [('built-in', text if cut < 0 else text[:cut]),
             ('module', '' if cut < 0 else text[cut:])]
    streams = []
    for how, part in parts:
        cur = None
        for t, line in ktap.extract(part, 'kunit'):
            if ktap.VERSION.match(line):
                cur = []
                streams.append((how, cur))
            if cur is not None:
                cur.append((t, line))
    return streams


def settings_timeout(top):
    """selftests/nsfd/settings' timeout=, kselftest's default without one."""
    text = collect.read(os.path.join(top, 'selftests', 'nsfd', 'settings')) or ''
    m = re.search(r'^timeout=(\d+)', text, re.M)
    return int(m.group(1)) if m else KSELFTEST_TIMEOUT


def checkout_facts(top):
    """(kernel, build) of results.json naming what a make run variant names
    (ci/pipeline/variant.py's report and write_build_info): the tarball the tree was
    unpacked from, its version, the patch ids of patches/series and their
    digest. So KCIDB puts the robot's results under the same checkout and
    ci/nsfd merge takes them beside the variants'."""
    series = []
    for name in patch_list.read(top):
        with open(os.path.join(top, 'patches', name), 'rb') as f:
            body = f.read()
        pid = subprocess.run(['git', 'patch-id', '--stable'], input=body,
                             capture_output=True, check=True).stdout.split()
        series.append(patch_list.entry(top, name, pid[0].decode() if pid else ''))
    src = os.path.join(top, 'build', 'robot', 'src')
    run = subprocess.run(['make', '-s', '-C', src, 'kernelversion'], capture_output=True,
                         text=True)
    tree = (collect.read(os.path.join(top, 'build', 'patched', 'src', '.git', 'nsfd-source'))
            or 'unknown').strip()
    head = subprocess.run(['git', '-C', src, 'rev-parse', 'HEAD'], capture_output=True,
                          text=True).stdout.strip() or 'unknown'
    kernel = {'version': run.stdout.strip() if run.returncode == 0 else 'unknown',
              'source': TARBALL + ' + the mail of patches/series '
                        '(ci/series/mail.sh), git am',
              'series': series}
    build = {'tree': tree, 'tree_commit': head, 'series_digest': patch_list.digest(top),
             'kernel_config': 'build/robot/<arch>/kernel/.config'}
    return kernel, build


def fail(suite, name, reason):
    return failed('robot', suite, name, reason)


def judge(outdir, top, arch):
    resultsfile.discard(outdir)
    stages = collect.read_stages(os.path.join(outdir, 'stages.tsv'))
    by = {s.stage: s for s in stages}
    tests, notes, ktaps = [], [], []
    misses = collect.read(os.path.join(outdir, 'config-misses.tsv')) or ''
    for line in misses.splitlines():
        sym, asked, got = (line.split('\t') + ['', ''])[:3]
        tests.append(fail('config', 'config.' + sym,
                          'tools/testing/selftests/nsfd/config asks %s=%s, the robot kernel '
                          'has %s: the file lacks what it depends on' % (sym, asked, got)))
    text = collect.read(os.path.join(outdir, 'console.log'))
    wrong = None
    # QEMU that never started a kernel judged nothing: the boot stage's
    # env-error is the verdict (2), not the tests it never ran.
    booted = 'boot' in by and by['boot'].status != 'env-error'
    qemu_ran = booted
    if booted and text is not None:
        # The boot result: a kernel that died or hung before the robot's
        # init spoke is a failed boot (1), and nothing more is asked of it.
        end = {'kind': 'robot', 'end': 'timeout' if by['boot'].status == 'timeout' else 'ok',
               'limit': by['boot'].detail}
        status, why = boots.verdict(end, text)
        if status:
            tests.append(TestResult('boot', 'boot', 'robot', status, None, why))
        booted = status != 'fail'
        if not booted and identity.console_banners(text):
            with open(os.path.join(outdir, 'identity-kernel.json')) as f:
                wrong = identity.check(text, json.load(f))
    if booted and text is not None:
        lines = lines_of(text)
        # The boot's own lines: the kernel log printed again after them
        # repeats the banner.
        boot = text.split('\n' + DMESG_BEGIN + '\n')[0]
        with open(os.path.join(outdir, 'identity-kernel.json')) as f:
            wrong = identity.check(boot, json.load(f))
        tap, status, seconds = runner_tap(lines)
        ks = [collect.kselftest_name(r) for r in collect.ktap_results(tap, 'kselftest')]
        tests += ks
        ktaps.append(('kselftest.ktap', ktap_printer.text(tap)))
        if status is None:
            tests.append(fail('job', 'run_kselftest.sh',
                              'the runner never ended (%s)' % by['boot'].status))
        have = {t.suite for t in ks}
        for prog in expected.kselftests(top):
            if 'nsfd:' + prog not in have:
                tests.append(fail('job', 'expected.kselftest.' + prog,
                                  'kselftest %s did not run' % prog))
        dmesg, whole = between(lines, DMESG_BEGIN, DMESG_END)
        streams = kunit_streams(dmesg)
        kunit = []
        for how, stream in streams:
            for r in ktap.results(stream, 'kunit'):
                kunit.append(TestResult.of(dict(r, how=how)))
        tests += kunit
        ktaps.append(('kunit.ktap', ktap_printer.text(
            ktap_printer.merged([s for _, s in streams]))))
        have = {t.suite for t in kunit if dict(t.extra).get('how') == 'built-in'}
        for suite in expected.kunit_suites(top):
            if suite not in have:
                tests.append(fail('job', 'expected.kunit.' + suite,
                                  'KUnit suite %s did not run at boot' % suite))
        if not whole:
            tests.append(fail('job', 'dmesg', 'the console has no whole kernel log'))
        if DONE not in lines:
            tests.append(fail('job', 'done', 'the job stopped before "%s"' % DONE))
        for n, kind, line in console.findings(text):
            tests.append(failed('console', 'console.log', '%s:%d' % (kind, n), line[:300]))
        modules = sum(1 for how, _ in streams if how == 'module')
        notes.append('%d KUnit module stream%s' % (modules, '' if modules == 1 else 's'))
        progs = {k: v for k, v in seconds.items() if k}
        if '' in seconds and progs:
            slow = max(progs, key=progs.get)
            notes.append('run_kselftest.sh -c nsfd took %.1f s; the slowest program, %s, '
                         '%.1f s of its %s s timeout' % (seconds[''], slow, progs[slow],
                                                        settings_timeout(top)))
    v = judging.verdict(stages, tests, collect.stage_logs(outdir, stages), 'robot-' + arch,
                        [('console.log', wrong)] if wrong else ())
    tests, code, unbuilt = v.tests, v.code, list(v.reasons)
    c = counts(tests)
    kernel, build = checkout_facts(top)
    doc = {'arch': arch, 'variant': 'robot-' + arch, 'kernel': kernel,
           'patched': True, 'build': build, 'judged': {'proven': wrong is None and qemu_ran},
           'identity_errors': [{'console': 'console.log', 'error': wrong}] if wrong else [],
           'exit_code': int(code), 'summary': c, 'not_built': unbuilt, 'notes': notes,
           'kselftest_seconds': seconds if text is not None and booted else {},
           'stages': [s.to_dict() for s in stages], 'tests': [t.to_dict() for t in tests]}
    written = publish.siblings(outdir, doc, ktaps, 'nsfd robot-' + arch)
    for t in tests:
        if t.failed:
            print('nsfd: robot-%s: FAIL %s: %s %s' % (arch, t.suite, t.name, t.reason))
    for line in unbuilt:
        print(line)
    for note in notes:
        print('nsfd: robot-%s: %s' % (arch, note))
    print(summary_line(c), flush=True)
    publish.results(outdir, doc, written)
    return code


def parser():
    p = argparse.ArgumentParser(prog='python3 -m ci.robot.judge',
                                description="make robot's verdict, from the robot boot's console")
    p.add_argument('--config-misses', nargs=2, metavar=('NSFD_CONFIG', 'DOT_CONFIG'),
                   help='each symbol NSFD_CONFIG sets that DOT_CONFIG does not have as asked')
    p.add_argument('args', nargs='*', metavar='OUTDIR TOP ARCH')
    return p


def main(argv):
    try:
        a = parser().parse_args(argv[1:])
        if bool(a.config_misses) == (len(a.args) == 3) or a.args and len(a.args) != 3:
            parser().error('give OUTDIR TOP ARCH, or --config-misses NSFD_CONFIG DOT_CONFIG')
    except SystemExit as e:
        return ExitCode.ENVIRONMENT if e.code else ExitCode.PASS
    if a.config_misses:
        for sym, asked, got in config_misses(*a.config_misses):
            print('%s\t%s\t%s' % (sym, asked, got))
        return ExitCode.PASS
    try:
        return judge(*a.args)
    except Exception as e:  # noqa: BLE001 - no verdict is exit 2, never 1 or 0
        fault = machine_fault(e)
        print('nsfd: robot: the verdict could not be written (%s: %s): %s; the console '
              'is in %s/console.log' % (type(e).__name__, e, 'the machine: ' + fault if fault
                                        else 'a bug in ci/robot/judge.py', a.args[0]))
        print(summary_line(NO_COUNTS))
        return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv))
