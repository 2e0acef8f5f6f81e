"""Judge: the model in, the verdict and its reasons out. Pure: no file
is read or written here, so every rule is unit-tested on made-up
results (ci/tests/test_model.py, test_pipeline.py, test_faults.py).

The exit code is 1 > 2 > 125 > 0 (model.PRECEDENCE): a failed test or a
kernel report is a verdict that no later build failure or environment
error takes back; a stage that did not build is not a failed test.
"""

import os
import re

from . import kunit_hang
from .model import ExitCode, StageResult, StageStatus, TestResult, TestStatus, Verdict, failed

# In patched mode socketat must exist: a socketat test that SKIPs because
# the syscall is missing (ENOSYS), absent from the uapi headers (a table
# row lost), or owned by another syscall is a FAIL there.
NOSYS = ('socketat not implemented', "socketat not in this tree's uapi headers",
         'syscall ')
# Skips that say the kernel is older than 6.12 (an ioctl it lacks, nsfs
# without compat_ioctl): right on 6.1, a regression on the patched 6.12.
OLD_KERNEL = re.compile(r'\(before 6\.\d+\)|kernel before 6\.\d+|has no compat_ioctl')
STAGE_WHAT = {'tree': 'tree (patches and test wiring)', 'selftests': 'kselftests'}
INIT_DONE = 'nsfd-init: done'
NOT_RUN = (StageStatus.SKIPPED, StageStatus.BUILD_FAILED, StageStatus.ENV_ERROR)


def before_the_cut(res, stage):
    """A test stage the machine ended (env-error: QEMU SIGKILLed by the
    OOM killer) judged nothing past that point: the results its KTAP
    completed stay (a failure before it is a verdict), those it left
    unfinished ("KTAP stream truncated") are no failures of the kernel."""
    if stage.status != StageStatus.ENV_ERROR:
        return list(res)
    return [r for r in res if 'KTAP stream truncated' not in (r.reason or '')]


def kunit_tests(run, stage, expected=()):
    """The KUnit stage's tests from its run (collect.KunitRun) and stage;
    EXPECTED, the suites that had to run, for those a hang kept from it."""
    if run.lines is None:
        return [failed('kunit', 'kunit', 'console', 'no console log of the KUnit boot')]
    res = list(run.results)
    if stage.status == StageStatus.ENV_ERROR:
        return before_the_cut(res, stage)
    if not res:
        res.append(failed('kunit', 'kunit', 'ktap',
                          'no KTAP in the KUnit console (kunit.py: %s)' % stage.status))
    elif stage.status == StageStatus.TIMEOUT:
        # A case hung: named, with what it kept from running (kunit_hang.py).
        res = kunit_hang.named(run.lines, res, run.limit, run.cases, expected)
    elif stage.status != StageStatus.OK and not any(r.failed for r in res):
        res.append(failed('kunit', 'kunit', 'kunit.py',
                          'kunit.py reported failure (%s) though the KTAP shows none'
                          % (stage.detail or stage.status)))
    return res


def guest_tests(runs, stage, guests, failed_boots=()):
    """The kselftest stage's tests from its guests' runs (collect.GuestRun),
    GUESTS the number of guests that left a log, FAILED_BOOTS those whose
    kernel never reached init; and where the KTAP was read from."""
    res, files, notes = [], [], []
    for g in runs:
        if not g.text_found:
            res.append(failed('kselftest', g.who, 'console', 'no console log of the guest'))
            continue
        got = before_the_cut(g.results, stage)
        res += got
        files.append(g.file)
        if g.note:
            notes.append(g.note)
        if stage.status in (StageStatus.TIMEOUT, StageStatus.ENV_ERROR):
            continue
        if not g.lines:
            res.append(failed('kselftest', g.who, 'ktap', 'the guest printed no KTAP'))
        elif not g.ended:
            res.append(failed('kselftest', g.who, 'end-marker',
                              'the guest stopped before the end of its KTAP'))
        elif not got:
            res.append(failed('kselftest', g.who, 'ktap', 'the guest ran no tests'))
        elif g.channel and not g.console_ended:
            # The KTAP is whole on its channel, but a report printed after
            # the console was cut would go unseen.
            res.append(failed('kselftest', g.who, 'console-end',
                              'the console stopped before init\'s last line (%s): kernel '
                              'messages after the cut were never scanned' % INIT_DONE))
    if stage.status == StageStatus.TIMEOUT and len(failed_boots) < guests:
        res.append(failed('kselftest', 'guest', 'timeout',
                          'the guest did not end in time (%s)' % stage.detail))
    return res, {'file': ', '.join(files), 'fallback': '; '.join(notes)}


def skipped_suites(pairs, patched):
    """KUnit suites that did not compile ([(suite, why)]): a skip, or in
    patched mode (everything must run) a failure."""
    if patched:
        return [failed('pipeline', 'pipeline', 'expected.kunit.' + s,
                       'KUnit suite %s did not run: it %s' % (s, why)) for s, why in pairs]
    return [TestResult('kunit', s, s, TestStatus.SKIP, None, why) for s, why in pairs]


def patched_checks(tests, by, kunit_suites, kselftests, failed_boots=()):
    """In patched mode: (TESTS as judged, the failures to add): every
    suite of KUNIT_SUITES and binary of KSELFTESTS must have run, and no
    socketat or old-kernel skip stands.

    A stage that did not run gives no verdict on its suites (the line that
    names what did not build says why); nor does one whose kernel did not
    boot (its boot result says so: FAILED_BOOTS); a stage that ran must
    show them all. BY: stage name -> StageResult (or its dict).
    """
    tests = [TestResult.of(t) for t in tests]
    by = {k: StageResult.of(dict(v, stage=k) if isinstance(v, dict) else v)
          for k, v in by.items()}
    booted = {'kunit': lambda c: 'kunit' in c, 'guest': lambda c: 'kselftest' in c}

    def ran(st):
        return st in by and by[st].status not in NOT_RUN and \
            not any(booted[st](c) for c in failed_boots)
    out = []
    if ran('kunit'):
        have = {t.suite for t in tests if t.source == 'kunit'}
        have |= {t.name[len('expected.kunit.'):] for t in tests
                 if t.name.startswith('expected.kunit.')}
        for suite in kunit_suites():
            if suite not in have:
                out.append(failed('pipeline', 'pipeline', 'expected.kunit.' + suite,
                                  'KUnit suite %s did not run' % suite))
    if ran('guest'):
        have = {t.suite for t in tests if t.source == 'kselftest'}
        for prog in kselftests():
            if 'nsfd:' + prog not in have:
                out.append(failed('pipeline', 'pipeline', 'expected.kselftest.' + prog,
                                  'kselftest %s did not run' % prog))
    judged = []
    for t in tests:
        if t.status == TestStatus.SKIP and t.reason.startswith(NOSYS) and \
                'socketat' in t.suite + t.reason:
            t = t.replace(status=TestStatus.FAIL, reason='skipped in patched mode, where '
                          'socketat must exist: ' + t.reason)
        elif t.status == TestStatus.SKIP and OLD_KERNEL.search(t.reason):
            t = t.replace(status=TestStatus.FAIL, reason='skipped in patched mode, where the '
                          'tree is 6.12: ' + t.reason)
        judged.append(t)
    return judged, out


def exit_code(stages, tests):
    """1 > 2 > 125 > 0 over the stages and tests."""
    statuses = {StageResult.of(s).status for s in stages}
    if any(TestResult.of(t).failed for t in tests) or \
            statuses & {StageStatus.FAIL, StageStatus.TIMEOUT}:
        return ExitCode.FAIL
    if StageStatus.ENV_ERROR in statuses:
        return ExitCode.ENVIRONMENT
    if StageStatus.BUILD_FAILED in statuses:
        return ExitCode.NOT_BUILT
    return ExitCode.PASS


def shown(path):
    rel = os.path.relpath(path)
    return path if rel.startswith('..') else rel


def not_built(stages, logs, variant):
    """One line for each stage that did not build or met an environment
    error; LOGS: stage -> its log's path, for those that left one."""
    lines = []
    for s in map(StageResult.of, stages):
        what = STAGE_WHAT.get(s.stage, s.stage)
        if s.status == StageStatus.BUILD_FAILED:
            where = shown(logs[s.stage]) if s.stage in logs else \
                s.detail or 'see the output above'
            lines.append('nsfd: %s: %s did not build (%s)' % (variant, what, where))
        elif s.status == StageStatus.ENV_ERROR:
            lines.append('nsfd: %s: %s: environment error: %s' % (
                variant, what, s.detail or 'see the output above'))
    return lines


def verdict(stages, tests, logs, variant, wrong=()):
    """The Verdict of one run: its code, its tests and the lines that say
    what did not build; WRONG ([(console, why)]): boots that ran another
    kernel or initramfs than the one built, which judged nothing (their
    results dropped, exit 2)."""
    tests = [TestResult.of(t) for t in tests]
    code = exit_code(stages, tests)
    reasons = not_built(stages, logs, variant)
    if wrong:
        tests, code = [], ExitCode.ENVIRONMENT
        reasons += ['nsfd: %s: identity: %s: %s' % (variant, n, why) for n, why in wrong]
    return Verdict(code, tuple(tests), tuple(reasons))
