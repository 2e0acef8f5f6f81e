"""How a case of make check waits, and what it leaves.

HANG: how long a case waits for an event before it calls the wait a hang.
Never a measure of speed: a case waits for the event itself (a line, a
process's exit) and this only bounds a hang, so it is far above the
slowest time any such wait has taken: in ten make checks beside a kernel
build and ci/tests/check-under-load.sh's load (load average 13 on 2
cores), the slowest whole case took 16 s (actionlint's), a driver's stop
case 6 s.
"""

import os
import signal
import threading
import time

HANG = 600      # s


def in_session(case, p):
    """P, started with start_new_session=True, is killed whole when CASE
    ends (with whatever a failed case left in its session), and at once
    if it runs for HANG s: a wait on its output then ends (at EOF) and the
    case fails on what it read."""
    case.addCleanup(kill_session, p)
    guard = threading.Timer(HANG, kill_session, (p,))
    guard.start()
    case.addCleanup(guard.cancel)


def lines_of(path, prefix):
    """The lines of PATH that start with PREFIX, once it has one: a file
    that another process writes, read again every 0.2 s for at most HANG
    s ([] then)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        try:
            with open(path, errors='replace') as f:
                found = [line for line in f if line.startswith(prefix)]
        except FileNotFoundError:
            found = []
        if found:
            return found
        time.sleep(0.2)
    return []


def kill_session(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except OSError:
        pass
    p.wait()
    if p.stdout:
        p.stdout.close()


def kill_at_end(case, pid, start):
    """The process PID that started at START is killed when CASE ends, if
    it is still there (a process a failed case let escape its session)."""
    case.addCleanup(lambda: present(pid, start) and os.kill(pid, signal.SIGKILL))


def present(pid, start):
    """PID's state letter while the process that started at START (field
    22 of /proc/PID/stat) is still there (alive, or a zombie nobody
    reaped), else None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return None
    return fields[0] if fields[19] == start else None

