"""What a run judged, typed: the exit codes, a test's status, a test, a
boot and a stage, and the one precedence over several codes.

kunit.py's own model is the pattern (TestResult dataclasses, TestStatus and
KunitStatus enums): everything that returns or compares an exit code uses
ExitCode; everything that builds a test result builds a TestResult.
docs/exit-codes.md has each situation's code on every path.
"""

import dataclasses
import enum
import errno
import os
import signal


class ExitCode(enum.IntEnum):
    """The four codes of every entry point (an IntEnum: sys.exit takes it)."""
    PASS = 0            # every test passed (skips allowed, each with its reason)
    FAIL = 1            # a verdict on the kernel: a test failed, a kernel report, a timeout
    ENVIRONMENT = 2     # nothing judged: usage, the environment, the machine, a bug of ours
    NOT_BUILT = 125     # the kernel, a patch or the tests did not build (git bisect run: skip)

    @property
    def meaning(self):
        return {ExitCode.PASS: 'passed', ExitCode.FAIL: 'failed',
                ExitCode.NOT_BUILT: 'did not build',
                ExitCode.ENVIRONMENT: 'environment error'}[self]


# Over several codes: 1, else 2, else 125, else 0.
PRECEDENCE = (ExitCode.FAIL, ExitCode.ENVIRONMENT, ExitCode.NOT_BUILT)


def verdict(codes):
    """One exit over several (variants, runs, a driver's children): 1 >
    2 > 125 > 0; none at all judged nothing (2). Any other status (a
    child killed by a signal: 137) is 2."""
    codes = list(codes)
    for code in PRECEDENCE:
        if code in codes:
            return code
    if any(code != ExitCode.PASS for code in codes):
        return ExitCode.ENVIRONMENT
    return ExitCode.PASS if codes else ExitCode.ENVIRONMENT


def exit_of(status):
    """(ExitCode, cause) of a child's exit status as the shell gives it
    (128+N for signal N; Popen's -N taken too): the code itself when it
    is one of the four, else 2 and why (cause is None for the four)."""
    if isinstance(status, ExitCode):
        return status, None
    try:
        return ExitCode(status), None
    except (ValueError, TypeError):
        pass
    if isinstance(status, int) and (status < 0 or 128 < status < 128 + 65):
        num = -status if status < 0 else status - 128
        try:
            name = signal.Signals(num).name
        except ValueError:
            name = 'signal %d' % num
        return ExitCode.ENVIRONMENT, 'killed by %s (exit %d): not a verdict' % (
            name, 128 + num)
    return ExitCode.ENVIRONMENT, 'exit %r is none of 0, 1, 2, 125: not a verdict' % (status,)


def machine_fault(exc):
    """An exception as the machine's fault, for the line that says why a
    run judged nothing: a full disk, a read-only or failing file system,
    memory; None for anything else (a bug: its traceback says more)."""
    if isinstance(exc, MemoryError):
        return 'out of memory'
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS,
                                                  errno.EIO):
        return '%s%s' % (os.strerror(exc.errno).lower(),
                         ' (writing %s)' % exc.filename if exc.filename else '')
    return None


class TestStatus(str, enum.Enum):
    """A test's status in results.json (ci/results/ktap.py's words)."""
    PASS = 'pass'
    FAIL = 'fail'
    SKIP = 'skip'
    TODO = 'todo'

    def __str__(self):
        return self.value


class StageStatus(str, enum.Enum):
    """A stage's status in stages.tsv (ci/pipeline/runlog.py writes it)."""
    OK = 'ok'
    FAIL = 'fail'
    TIMEOUT = 'timeout'
    BUILD_FAILED = 'build-failed'
    ENV_ERROR = 'env-error'
    SKIPPED = 'skipped'

    def __str__(self):
        return self.value


@dataclasses.dataclass(frozen=True)
class TestResult:
    """One test of results.json: where it came from (kunit, kselftest,
    boot, console, pipeline, robot), its suite and name, its status, its
    seconds (None: unknown) and the reason of a failure or skip. EXTRA
    holds what one source adds (the robot's "how")."""
    source: str
    suite: str
    name: str
    status: TestStatus
    duration: float = None
    reason: str = ''
    extra: tuple = ()

    def __post_init__(self):
        # An unknown status is no verdict: the reporting's bug (exit 2).
        object.__setattr__(self, 'status', TestStatus(self.status))

    @property
    def failed(self):
        return self.status == TestStatus.FAIL

    def replace(self, **kw):
        return dataclasses.replace(self, **kw)

    def to_dict(self):
        d = {'source': self.source, 'suite': self.suite, 'name': self.name,
             'status': self.status.value, 'duration': self.duration, 'reason': self.reason}
        d.update(self.extra)
        return d

    @classmethod
    def of(cls, d):
        """A TestResult of a results.json (or ci/results/ktap.py) dict; a
        TestResult as it is."""
        if isinstance(d, cls):
            return d
        known = ('source', 'suite', 'name', 'status', 'duration', 'reason')
        return cls(d['source'], d['suite'], d['name'], d['status'], d.get('duration'),
                   d.get('reason') or '',
                   tuple(sorted((k, v) for k, v in d.items() if k not in known)))


def failed(source, suite, name, reason):
    """A failed test with its reason."""
    return TestResult(source, suite, name, TestStatus.FAIL, None, reason)


@dataclasses.dataclass(frozen=True)
class BootResult:
    """How one boot ended, for its boot test: its console, pass or fail
    (None: QEMU never started a kernel, no verdict), the reason, seconds."""
    console: str
    status: TestStatus = None
    reason: str = ''
    seconds: float = None

    def test(self, name):
        return TestResult('boot', 'boot', name, self.status, self.seconds, self.reason)


@dataclasses.dataclass(frozen=True)
class StageResult:
    """One line of stages.tsv: the stage, its status, seconds and detail."""
    stage: str
    status: StageStatus
    seconds: float = 0.0
    detail: str = ''

    def __post_init__(self):
        try:
            object.__setattr__(self, 'status', StageStatus(self.status))
        except ValueError:
            # A status no stage writes: the pipeline's bug, judged nothing.
            object.__setattr__(self, 'detail', 'unknown stage status %r%s' % (
                self.status, ': ' + self.detail if self.detail else ''))
            object.__setattr__(self, 'status', StageStatus.ENV_ERROR)

    def to_dict(self):
        return {'stage': self.stage, 'status': self.status.value, 'seconds': self.seconds,
                'detail': self.detail}

    @classmethod
    def of(cls, d):
        if isinstance(d, cls):
            return d
        return cls(d['stage'], d['status'], d.get('seconds', 0.0), d.get('detail', ''))


@dataclasses.dataclass(frozen=True)
class Verdict:
    """What judging gives: the exit code, the tests as judged (a patched
    mode check may turn a skip into a failure) and the lines that say why
    (what did not build, an environment error, an identity error)."""
    code: ExitCode
    tests: tuple = ()
    reasons: tuple = ()


def counts(tests):
    """{'passed', 'failed', 'skipped'} of TESTS (a todo counts as skipped)."""
    c = {'passed': 0, 'failed': 0, 'skipped': 0}
    for t in tests:
        t = TestResult.of(t)
        c[{TestStatus.PASS: 'passed', TestStatus.FAIL: 'failed'}.get(t.status, 'skipped')] += 1
    return c


NO_COUNTS = {'passed': 0, 'failed': 0, 'skipped': 0}


def summary_line(c):
    return 'nsfd: %d passed, %d failed, %d skipped' % (c['passed'], c['failed'], c['skipped'])
