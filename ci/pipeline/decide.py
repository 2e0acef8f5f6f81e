"""Every decision from a command's exit status and output to a stage's
status. Pure functions: ci/tests/test_faults.py calls each with the
statuses and logs a real run gives (its Decisions cases) and reaches them
through the real stages (its Faults cases).

A stage's status feeds ci/results/report.py, which turns the variant's stages and
tests into its exit code: ok and skipped decide nothing; fail and timeout
are 1 (a test failed); build-failed is 125 (git bisect run skips the
commit); env-error is 2 (nothing was judged).
"""

import re

from .runlog import Stage

# timeout(1)'s own statuses: 124 the command timed out (137 when it had
# to be killed); 125 timeout itself failed, 126 the command could not be
# run, 127 it was not found.
TIMED_OUT = (124, 137)
TIMEOUT_OWN = (125, 126, 127)

# kselftest's runner gives a program without a settings timeout= 45 s.
KSELFTEST_TIMEOUT = 45


def boot_allowance(debug):
    """What a guest's limit adds to its programs' for booting and the
    kmemleak scan (a debug kernel boots slower and scans)."""
    return 600 if debug else 120


def tree(rc):
    """tree.prepare's verdict (ci/pipeline/tree.py): ok; 125 the tree's
    commit cannot take the tests (build-failed); anything else an
    environment error (None)."""
    if rc == 0:
        return 'ok'
    if rc == 125:
        return 'build-failed'
    return None


def kernel_build(rc, image_exists, log_name):
    """kunit.py build's exit: ok only with the image there too."""
    if rc == 0 and image_exists:
        return Stage('ok')
    return Stage('build-failed', 'kunit.py build failed: %s' % log_name, [log_name])


def ccache_line(before, after):
    """The hit rate of one build from ccache's counters before and after
    ((hits, misses) pairs)."""
    hits, misses = after[0] - before[0], after[1] - before[1]
    line = 'ccache: %d hits, %d misses' % (hits, misses)
    if hits + misses:
        line += ' (%.0f%% hits)' % (100.0 * hits / (hits + misses))
    return line


def kunit_exec(rc, log_text, log_name):
    """kunit.py exec's exit and output. Its own traceback decided nothing
    about the kernel (env-error); 'timed out' is a timeout; any other
    non-zero exit a failure (kunit.py's parser found a failed or missing
    test, or the kernel crashed)."""
    if rc == 0:
        return Stage('ok', logs=[log_name])
    if re.search(r'^Traceback \(most recent call last\)', log_text, re.M):
        return Stage('env-error', 'kunit.py raised an exception: %s' % log_name, [log_name])
    if 'timed out' in log_text or 'Timeout' in log_text:
        return Stage('timeout', 'kunit.py exit %d' % rc, [log_name])
    return Stage('fail', 'kunit.py exit %d' % rc, [log_name])


def boot_end(rc, qemu, console_text, timed_out):
    """A boot's end from QEMU's or timeout's exit: (status, detail),
    TIMED_OUT the detail of a timeout. QEMU's exit 0 is the init's reboot;
    what the console holds is judged elsewhere (ci/results/report.py,
    ci/robot/verdict.py)."""
    first = console_text.split('\n', 1)[0]
    if rc == 0:
        return 'ok', ''
    if rc in TIMED_OUT:
        return 'timeout', timed_out
    if rc in TIMEOUT_OWN:
        return 'env-error', 'timeout could not run %s (exit %d): %s' % (qemu, rc, first)
    if 'Linux version' in console_text:
        return 'fail', '%s exit %d' % (qemu, rc)
    # QEMU refused to start (e.g. -enable-kvm without /dev/kvm).
    return 'env-error', '%s exit %d before a kernel booted: %s' % (qemu, rc, first)


def guest_boot(number, rc, limit, qemu, console_text):
    """One kselftest guest's end: (status, detail)."""
    status, detail = boot_end(rc, qemu, console_text, 'no end after %s s' % limit)
    return status, 'guest %d: %s' % (number, detail) if detail else ''


def robot_boot(rc, budget, qemu, console_text):
    """make robot's boot, its whole job."""
    return Stage(*boot_end(rc, qemu, console_text, 'the job did not end within %s s' % budget))


def guests(ends):
    """The guest stage from every guest's (status, detail): a timeout
    wins, else the first guest's bad status; every guest's detail is
    kept."""
    status = 'ok'
    for s, _ in ends:
        if s == 'timeout' or (status == 'ok' and s != 'ok'):
            status = s
    return Stage(status, '; '.join(d for _, d in ends if d))


def guest_limit(binaries, per_binary, debug, fixed=None):
    """A guest's time limit: each binary's own timeout (its settings) plus
    what the init spends ending one (SIGTERM grace, SIGKILL wait,
    draining: 17 s), plus booting (120 s; 600 s on a debug kernel) and the
    kmemleak scan. FIXED (NSFD_BOOT_TIMEOUT, any duration timeout(1)
    takes) overrides."""
    if fixed:
        return fixed
    per = KSELFTEST_TIMEOUT if per_binary is None else per_binary
    return binaries * (per + 17) + boot_allowance(debug)
