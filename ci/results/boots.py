"""Did a boot reach its tests? The boot result of each console.

Every boot a variant makes (kunit.py's, each kselftest guest's) gives one
result, suite "boot", named for the boot: pass when the kernel reached
the point where its tests start (the KUnit KTAP header; the guest init's
first line), fail when QEMU started it and it died or hung before that.
A kernel that panics before its console is up is a verdict on the kernel
built (exit 1, bad in a bisection), not an environment error. Only a
QEMU that never started a kernel (its own error, or timeout(1) failing to
run it) gives no boot result: the stage is env-error, exit 2.

How a boot ended is recorded beside its console as <console>.end (JSON,
written while the boot runs: ci/pipeline/bootwatch.py):
  kind     "kunit" or "guest"
  end      ok (QEMU exited, or kunit.py did), hang (the boot allowance
           passed before the tests started: killed), timeout (its whole
           limit passed), qemu-error (QEMU never started a kernel),
           killed (SIGKILL before its limit: not ours, the OOM killer's),
           not-booted (not made: the kernel did not boot in KUnit's boot;
           its boot result is a skip saying so, "why" the reason)
  rc       the exit status
  seconds, allowance
"""

import json
import os
import re

# Where each kind of boot has reached its tests.
REACHED = {
    'kunit': re.compile(r'^(?:<\d+>)?(?:\[\s*\d+\.\d+\]\s*)?\s*(?:KTAP|TAP) version \d+', re.M),
    'guest': re.compile(r'^nsfd-init: ', re.M),
    'robot': re.compile(r'^robot: ', re.M),         # make robot's init (ci/robot/init)
}
# QEMU's own complaint, on the console it shares with the kernel.
QEMU_ERROR = re.compile(r'^qemu-system-[\w-]+: ', re.M)
BANNER = re.compile(r'Linux version ')
# A result line of KTAP, at any depth, as the console has it or as the
# guest init's channel does ("ktap SECONDS | ..."): what progress lines
# count.
RESULT = re.compile(r'^(?:ktap [0-9.]+ \| )?\s*(?:not )?ok \d+\b', re.M)

TAIL_LINES = 12


def reached(kind, text):
    return bool(REACHED[kind].search(text or ''))


def tail(text, lines=TAIL_LINES):
    """The last LINES non-empty lines of a console, for a reason."""
    body = [ln.rstrip('\r') for ln in (text or '').splitlines() if ln.strip()]
    return ' | '.join(body[-lines:]) if body else '(the console is empty)'


def started_kernel(end, text):
    """Whether QEMU started a kernel: not when QEMU failed on its own (its
    exit, or its error and no banner on the console) or was not run."""
    if end.get('end') in ('qemu-error', 'killed', 'not-run', 'env-error'):
        return False
    if not BANNER.search(text or '') and QEMU_ERROR.search(text or '') and \
            end.get('end') != 'hang':
        return False
    return True


def verdict(end, text):
    """(status, reason) of one boot from its END record and console TEXT:
    'pass', 'fail', 'skip' (not made: the kernel did not boot in an
    earlier one), or None when there is no verdict (QEMU never started
    a kernel)."""
    kind = end.get('kind', 'guest')
    if end.get('end') == 'not-booted':
        return 'skip', 'not run: the kernel did not boot (%s)' % end.get('why', 'its KUnit boot failed')
    if reached(kind, text):
        return 'pass', ''
    if not started_kernel(end, text):
        return None, ''
    what = {'kunit': 'its KUnit tests', 'guest': 'the guest init'}.get(kind, 'its init')
    banner = 'after its banner' if BANNER.search(text or '') else 'before its banner'
    how = end.get('end')
    if how == 'hang':
        why = 'hung %s: no sign of %s within the boot allowance (%s s), killed' % (
            banner, what, end.get('allowance'))
    elif how == 'timeout':
        why = 'did not reach %s before its limit (%s s)' % (what, end.get('limit'))
    else:
        why = 'died %s, before %s (QEMU exit %s after %s s)' % (
            banner, what, end.get('rc'), end.get('seconds'))
    return 'fail', 'the kernel %s; console: %s' % (why, tail(text))


def end_file(outdir, console):
    return os.path.join(outdir, console + '.end')


def read_end(outdir, console):
    try:
        with open(end_file(outdir, console)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_end(outdir, console, record):
    with open(end_file(outdir, console) + '.new', 'w') as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write('\n')
    os.replace(end_file(outdir, console) + '.new', end_file(outdir, console))


def name_of(console):
    """The boot result's name: kunit, guest-1, guest-2, ..."""
    if 'kunit' in console:
        return 'kunit'
    m = re.search(r'-(\d+)\.log$', console)
    return 'guest-%s' % (m.group(1) if m else '1')


GUEST_END = re.compile(r'^console-kselftest(-\d+)?\.log\.end$')


def not_booted(outdir):
    """The consoles of the guests not made because the kernel did not
    boot (their end record says not-booted), in order."""
    found = []
    for name in os.listdir(outdir):
        m = GUEST_END.match(name)
        if m and (read_end(outdir, name[:-len('.end')]) or {}).get('end') == 'not-booted':
            found.append((int((m.group(1) or '-1')[1:]), name[:-len('.end')]))
    return [n for _, n in sorted(found)]

