"""Progress lines, the record of each stage's end, environment errors.

Every line the pipeline prints starts with "nsfd: ". A stage's end goes to
OUT/stages.tsv (stage, status, seconds, detail: ci/results/report.py reads it) and
is printed as "nsfd: VARIANT: STAGE: STATUS (S s) - DETAIL".
"""

import contextlib
import os
import sys
import threading
import time

# The summary line of a run that judged nothing (usage, environment).
NOTHING_JUDGED = 'nsfd: 0 passed, 0 failed, 0 skipped'


class EnvError(Exception):
    """Usage or environment: the run ends with this message, the summary
    line and exit 2 (cli.main)."""


class Stage:
    """What a stage ended with: its status (ok, fail, timeout,
    build-failed, env-error, skipped), a detail for its line and the logs
    that tell more."""

    def __init__(self, status, detail='', logs=()):
        self.status, self.detail, self.logs = status, detail, tuple(logs)

    def __repr__(self):
        return 'Stage(%r, %r)' % (self.status, self.detail)


# The time.monotonic() at which the outermost ci/nsfd of this run started
# (ci/nsfd sets it for its children when it is not set): make test's
# pipeline tests and robot run count their elapsed time from make test's
# start, as its own lines do.
RUN_STARTED = 'NSFD_RUN_STARTED'


def run_started():
    """RUN_STARTED's time, or now when it is unset or unreadable."""
    try:
        return float(os.environ[RUN_STARTED])
    except (KeyError, ValueError):
        return time.monotonic()


class Say:
    """Progress lines to STREAM: stdout, or a buffer that make test
    prints once the tests it holds, run beside the next kernel build, end.
    Each line ends with the time since START (the run's start, run_started(),
    or the run's Say it buffers for): "[+m:ss]"."""

    def __init__(self, stream=None, start=None):
        self.stream = stream
        self.start = run_started() if start is None else start

    def __call__(self, msg):
        stream = self.stream or sys.stdout
        stream.write('nsfd: %s  %s\n' % (msg, elapsed(self.start)))
        stream.flush()


def elapsed(start):
    """"[+m:ss]" since START (time.monotonic()); "[+h:mm:ss]" from an hour."""
    h, rest = divmod(int(time.monotonic() - start), 3600)
    m, sec = divmod(rest, 60)
    return '[+%d:%02d:%02d]' % (h, m, sec) if h else '[+%d:%02d]' % (m, sec)


# Seconds a stage may print nothing: a person reading the log can tell a
# slow stage from a hung one.
BEAT = 30


@contextlib.contextmanager
def heartbeat(say, what, count=None, every=BEAT):
    """While the block runs, "WHAT: still running, N s" through SAY each
    EVERY s, with COUNT()'s text after it when COUNT is given (the
    results so far): a stage with no progress of its own is never silent
    for longer."""
    done = threading.Event()
    t0 = time.monotonic()

    def beat():
        while not done.wait(every):
            say('%s: still running, %d s%s' % (what, time.monotonic() - t0,
                                                 ', ' + count() if count else ''))
    t = threading.Thread(target=beat, name='heartbeat', daemon=True)
    t.start()
    try:
        yield
    finally:
        done.set()
        t.join()


def now():
    return time.time()


def since(start):
    return '%.1f' % (time.time() - start)


def record(say, out, variant, stage, result, start):
    """Append STAGE's end to OUT/stages.tsv and print its line."""
    secs = since(start)
    detail = result.detail.replace('\t', ' ').replace('\n', ' ')
    with open(out + '/stages.tsv', 'a') as f:
        f.write('%s\t%s\t%s\t%s\n' % (stage, result.status, secs, detail))
    say('%s: %s: %s (%s s)%s' % (variant, stage, result.status, secs,
                                 ' - ' + detail if detail else ''))
    return result


def show_tail(path, stream=None, lines=25):
    """The last LINES lines of PATH, between markers (a failed build)."""
    stream = stream or sys.stdout
    try:
        with open(path, errors='replace') as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        tail = ['(no %s)' % path]
    stream.write('---- last lines of %s ----\n%s\n----\n' % (path, '\n'.join(tail)))
    stream.flush()
