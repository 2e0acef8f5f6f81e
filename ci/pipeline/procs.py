"""Child processes, stopping the whole process tree, build/.lock.

A run told to stop (SIGTERM from a CI cancel or a bisection that gives up,
SIGINT from ^C, SIGHUP) takes every process it started with it, however
deep: make and the compilers, kunit.py, QEMU under timeout(1) in a process
group of its own. No child inherits build/.lock (subprocess closes every
descriptor but 0-2, and the lock is opened close-on-exec), except the robot
stage of make test, which is handed it on fd 9 (ci/build-lock.sh). The run
ends with the summary line and STOP_EXIT (2; 255 under ci/bisect/bisect.py's step).
"""

import errno
import fcntl
import os
import signal
import subprocess
import sys
import threading
import time

from . import runlog


# Set once the run is told to stop: nothing new is started after it (a
# thread of make test may still be running stages).
stopping = threading.Event()


class Stopping(Exception):
    """Raised instead of starting a process once the run is stopping."""


def status(rc):
    """A child's exit status as the shell gives it: 128+N for a child
    ended by signal N (137 for SIGKILL), where Popen says -N."""
    return 128 - rc if rc < 0 else rc


def popen(cmd, **kw):
    """subprocess.Popen, unless the run is stopping."""
    if stopping.is_set():
        raise Stopping(cmd[0])
    return subprocess.Popen(cmd, **kw)


def run(cmd, out=None, env=None, cwd=None, pass_fds=(), append=False, stderr_to_out=True):
    """CMD's exit status, its stdout (and its stderr, unless
    STDERR_TO_OUT is False) to the file OUT (a path, or None: the run's
    own). A command that cannot be started is 127, as the shell says."""
    f = open(out, 'a' if append else 'w') if out else None
    try:
        p = popen(cmd, stdin=subprocess.DEVNULL, stdout=f,
                  stderr=subprocess.STDOUT if f and stderr_to_out else None,
                  env=env, cwd=cwd, pass_fds=pass_fds)
    except OSError as e:
        if f:
            f.write('%s: %s\n' % (cmd[0], e.strerror))
        return 127 if e.errno in (errno.ENOENT, errno.EACCES) else 126
    finally:
        if f:
            f.close()
    return status(p.wait())


def make_jobs():
    """make's -j for every build: NSFD_JOBS, else the CPUs this process
    may run on (nproc's count)."""
    jobs = os.environ.get('NSFD_JOBS') or str(len(os.sched_getaffinity(0)))
    if not jobs.isdigit() or jobs == '0':
        raise runlog.EnvError("NSFD_JOBS must be a number of jobs, not '%s'" % jobs)
    return int(jobs)


def output(cmd, default='', cwd=None, env=None):
    """CMD's stdout without its last newline, or DEFAULT when it fails."""
    if stopping.is_set():
        raise Stopping(cmd[0])
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=cwd,
                           env=env)
    except OSError:
        return default
    return p.stdout.rstrip('\n') if p.returncode == 0 else default


def descendants(root):
    """Live descendants of ROOT, outermost first (zombies only wait to be
    reaped)."""
    parent = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split()
        if fields[0] != 'Z':
            parent[int(d)] = int(fields[1])
    found = []
    for pid in parent:
        q, depth = pid, 0
        while q in parent and q != root and q > 1:
            q, depth = parent[q], depth + 1
        if q == root and pid != root:
            found.append((depth, pid))
    return [pid for _, pid in sorted(found)]


def _kill(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def stop_tree(grace=10.0):
    """End every descendant: SIGTERM, outermost first (none sees a child
    end and acts on it), then SIGKILL for what is left after GRACE s."""
    me = os.getpid()
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        left = descendants(me)       # zombies excluded: they have ended
        if not left:
            return
        # Again each pass: a process a stage started meanwhile goes too.
        _kill(left, signal.SIGTERM)
        time.sleep(0.5)
    _kill(descendants(me), signal.SIGKILL)


def stop_on_signals(stop_exit=2):
    """Install the handlers: the whole tree ends, then this process,
    with STOP_EXIT (env STOP_EXIT overrides)."""
    try:
        stop_exit = int(os.environ.get('STOP_EXIT') or stop_exit)
    except ValueError:
        pass

    def stop(signum, _frame):
        if stopping.is_set():
            return                   # a second signal while stopping
        # Not SIG_IGN: a child started now would inherit it and outlive us.
        stopping.set()
        stop_tree()
        name = signal.Signals(signum).name
        sys.stdout.write('nsfd: stopped by %s: every process of this run has ended, '
                         'build/.lock is free\n%s\n' % (name, runlog.NOTHING_JUDGED))
        sys.stdout.flush()
        os._exit(stop_exit)

    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, stop)


LOCK_FD = 9


def hold_build_lock(top, say, wait=3600):
    """Hold TOP/build/.lock for the rest of this process, on fd 9 (so that
    the robot stage, handed fd 9, holds the same lock: ci/build-lock.sh).
    A caller that holds it already and passed fd 9 down is let through.
    Waits up to WAIT s for another run; EnvError if it is still held."""
    lock = os.path.join(top, 'build', '.lock')
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    try:
        inherited = os.readlink('/proc/self/fd/%d' % LOCK_FD) == os.path.realpath(lock)
    except OSError:
        inherited = False
    if not inherited:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        if fd != LOCK_FD:
            os.dup2(fd, LOCK_FD, inheritable=False)
            os.close(fd)
    os.set_inheritable(LOCK_FD, False)
    deadline = time.monotonic() + wait
    said = False
    while True:
        try:
            fcntl.flock(LOCK_FD, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if not said:
            say('waiting for another nsfd run to release %s' % lock)
            said = True
        if time.monotonic() > deadline:
            raise runlog.EnvError('%s still held after an hour: is an nsfd run stuck?' % lock)
        time.sleep(1)
