"""Watching boots while they run: the boot allowance and progress lines.

A boot (kunit.py exec, or QEMU under timeout(1) for a guest) is polled
once a second. Until its console shows that the kernel reached its tests
(ci/results/boots.py: the KUnit KTAP header, the guest init's first
line), the boot allowance runs: past it, the boot is ended (its whole
process group) and recorded as a hang, so that a kernel that hangs
before its banner ends in 120 s (600 s on a debug kernel), not after the
sum of every test's timeout. Every PROGRESS_EVERY s a line says how far
each boot is: the results its KTAP has so far.

Each boot's end goes to <console>.end beside its console (boots.py).
"""

import os
import re
import signal
import time

from ci.results import boots
from . import procs

PROGRESS_EVERY = 30
TICK = 1.0


class Boot:
    """One running boot. KIND is 'kunit' or 'guest'; CONSOLE the file its
    console goes to (kunit.py's test.log while it runs); KTAP the file its
    results go to (None: the console); LIMIT the limit its own timeout
    enforces (None: none known)."""

    def __init__(self, label, kind, proc, console, ktap=None, limit=None, started=None, alt=None):
        self.label, self.kind, self.proc = label, kind, proc
        self.console, self.ktap, self.limit = console, ktap, limit
        # ALT: read while CONSOLE is not there (kunit.py's own test.log,
        # where no qemu_status.py tees QEMU's console).
        self.alt = alt
        self._source = console
        self.start = time.monotonic() if started is None else started
        self.reached = False
        self.hung = False
        self.rc = None
        self.seconds = None
        self._seen = 0          # console bytes already searched
        self._tail = ''         # their last line, a marker may straddle it
        self._results = 0
        self._counted = 0       # result-file bytes already counted
        self._partial = ''

    def _new_text(self, path, offset):
        try:
            with open(path, 'rb') as f:
                f.seek(offset)
                data = f.read()
        except OSError:
            return '', offset
        return data.decode('utf-8', 'replace'), offset + len(data)

    def poll_console(self):
        if self.reached:
            return
        if self.alt and self._source != self.console and os.path.exists(self.console):
            self._source, self._seen, self._tail = self.console, 0, ''
            self._counted, self._partial, self._results = 0, '', 0
        elif self.alt and self._source == self.console and not os.path.exists(self.console):
            self._source = self.alt
        text, self._seen = self._new_text(self._source, self._seen)
        text = self._tail + text
        if boots.reached(self.kind, text):
            self.reached = True
        self._tail = text[text.rfind('\n') + 1:][-4096:]

    def results(self):
        """KTAP result lines seen so far."""
        text, self._counted = self._new_text(self.ktap or self._source, self._counted)
        text = self._partial + text
        cut = text.rfind('\n') + 1
        self._results += len(boots.RESULT.findall(text[:cut]))
        self._partial = text[cut:]
        return self._results

    def end(self):
        """What the end record says of how it ended."""
        if self.hung:
            return 'hang'
        if self.rc in (124, 137) and self.seconds >= seconds(self.limit):
            return 'timeout'
        if self.rc == 137:
            return 'killed'
        return 'ok'


def seconds(limit):
    """A limit in seconds (timeout(1)'s 90, 90s, 2m, 1h), or 0 if unknown."""
    m = re.match(r'([0-9.]+)([smhd]?)$', str(limit or ''))
    if not m:
        return 0
    return float(m.group(1)) * {'': 1, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}[m.group(2)]


def kill_group(proc):
    """End a boot and all it started: it runs in a process group of its
    own (start_new_session), QEMU under timeout(1) or kunit.py's."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            return
        try:
            proc.wait(timeout=10)
            return
        except Exception:       # subprocess.TimeoutExpired
            continue


def watch(watched, allowance, say, what):
    """Wait for every boot in WATCHED; end any that has not reached its
    tests ALLOWANCE s after it started. SAY gets a progress line every
    PROGRESS_EVERY s, WHAT naming the stage ("x86_64: guest")."""
    start = last = time.monotonic()
    while True:
        running = [b for b in watched if b.rc is None]
        if not running:
            break
        for b in running:
            rc = b.proc.poll()
            if rc is not None:
                b.rc, b.seconds = procs.status(rc), time.monotonic() - b.start
                b.poll_console()
                continue
            b.poll_console()
            if not b.reached and time.monotonic() - b.start > allowance:
                b.hung = True
                kill_group(b.proc)
                b.rc = procs.status(b.proc.wait())
                b.seconds = time.monotonic() - b.start
                say('%s: %s: no sign of its tests %d s after it started: a failed boot, ended'
                    % (what, b.label, allowance))
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY and any(b.rc is None for b in watched):
            last = now
            say('%s: %d s: %s' % (what, now - start, ', '.join(
                '%s %s' % (b.label, ('%d results' % b.results()) if b.reached else
                           'booting' if b.rc is None else 'ended') for b in watched)))
        time.sleep(TICK)
    return watched


def record(outdir, console_name, b, allowance, end=None):
    """<console>.end for boot B; END overrides how it ended (qemu-error:
    the stage found that QEMU never started a kernel). A boot that left
    no console never started QEMU (kunit.py writes test.log only then)."""
    if end is None:
        end = b.end() if os.path.exists(b.console) else 'not-run'
    boots.write_end(outdir, console_name, {
        'kind': b.kind, 'end': end, 'rc': b.rc, 'seconds': round(b.seconds or 0, 1),
        'allowance': allowance, 'limit': b.limit, 'reached': b.reached})


def write_not_booted(outdir, console_name, why):
    """<console>.end for a boot that was not made because the kernel did
    not boot in an earlier one (guest.not_booted)."""
    boots.write_end(outdir, console_name, {
        'kind': 'guest', 'end': 'not-booted', 'rc': None, 'seconds': 0, 'why': why})

