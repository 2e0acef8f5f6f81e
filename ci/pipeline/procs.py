"""Child processes, stopping the whole process tree, build/.lock.

A run told to stop (SIGTERM from a CI cancel or a bisection that gives up,
SIGINT from ^C, SIGHUP) takes every process it started with it, however
deep: make and the compilers, kunit.py, QEMU under timeout(1) in a process
group of its own, and the orphans among them (a process whose parent ended
first, as `git bisect run` ends before the step it runs): the driver is
the child subreaper of its tree, so they come to it, not to init. It exits
only once none is alive and it has reaped those it adopted, and so does a
run that ends by itself. build/.lock is held on fd 9 from before anything
under out/ or build/ is touched, and every child started through popen()
or run() inherits it (make test's robot stage and the steps of make
bisect hold the same lock that way; ci/build-lock.sh): a driver killed
by SIGKILL leaves it held until its last child has ended. The
run ends with the summary line and STOP_EXIT (2; 255 under
ci/bisect/bisect.py's step).
"""

import atexit
import ctypes
import errno
import fcntl
import gc
import os
import signal
import subprocess
import sys
import threading
import time

from ci.results.model import ExitCode
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
    """subprocess.Popen, unless the run is stopping. The child is handed
    build/.lock's fd when this process has it (hold_build_lock)."""
    if stopping.is_set():
        raise Stopping(cmd[0])
    if lock_inherited() and kw.get('close_fds', True):
        kw['pass_fds'] = tuple(kw.get('pass_fds') or ()) + (LOCK_FD,)
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


PR_SET_CHILD_SUBREAPER = 36      # <linux/prctl.h>


def become_subreaper():
    """Make this process the child subreaper of its tree: a descendant
    whose parent ends is reparented to it (or to a subreaper below it),
    never to init, so descendants() keeps seeing it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(1), ctypes.c_ulong(0),
                  ctypes.c_ulong(0), ctypes.c_ulong(0)):
        e = ctypes.get_errno()
        raise OSError(e, 'prctl(PR_SET_CHILD_SUBREAPER): ' + os.strerror(e))


def processes():
    """Every process: pid -> (parent pid, alive (not a zombie), start
    time), read from /proc one after another (not at one instant)."""
    table = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % d) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split()
        table[int(d)] = (int(fields[1]), fields[0] not in 'ZX', fields[19])
    return table


def descendants(root, table=None):
    """Live descendants of ROOT, outermost first (zombies only wait to be
    reaped), in TABLE (processes(), read now if None)."""
    table = processes() if table is None else table
    found = []
    for pid, (q, alive, _) in table.items():
        depth = 1
        # A chain longer than the table is one read across exits: not ours.
        while q != root and q in table and table[q][1] and depth <= len(table):
            q, depth = table[q][0], depth + 1
        if q == root and alive and pid != root:
            found.append((depth, pid))
    return [pid for _, pid in sorted(found)]


def _kill(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def reap_orphans(table=None):
    """Reap this process's zombie children. One that a subprocess.Popen
    started is reaped through that Popen (poll()), so that its caller reads
    the child's own status, or left to the thread that is waiting for it:
    os.waitpid here would hand that caller a 0. The others were adopted
    (orphans of the tree: become_subreaper()) and nothing else reaps them."""
    me = os.getpid()
    table = processes() if table is None else table
    zombies = [pid for pid, (q, alive, _) in table.items() if q == me and not alive]
    if not zombies:
        return
    started = {getattr(o, 'pid', None): o for o in gc.get_objects()
               if isinstance(o, subprocess.Popen) and o.returncode is None}
    for pid in zombies:
        if pid in started:
            started[pid].poll()
            continue
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass


# Seconds a process has after the first SIGTERM, before SIGKILL.
GRACE = 10.0


def stop_tree():
    """End every descendant: SIGTERM, outermost first (none sees a child
    end and acts on it), again each half second to what is left (and to
    what a stage started meanwhile), SIGKILL from GRACE s on. Returns once
    none is alive and the orphans it adopted are reaped.

    /proc is not read at one instant: a process whose parent ends while it
    is read may be missed once (it then has this process, the subreaper,
    for its parent). So every descendant ever met is waited for, a scan in
    which one that was met ended leaving a child counts for nothing, and
    the tree is taken as ended after two scans in a row find none alive."""
    me = os.getpid()
    start = time.monotonic()
    met = {}                         # pid -> start time
    quiet, next_signal, next_say = 0, 0.0, start + 60
    while True:
        table = processes()
        left = descendants(me, table)
        met.update((pid, table[pid][2]) for pid in left)
        left += [pid for pid, st in met.items() if pid not in left and pid in table
                 and table[pid][1] and table[pid][2] == st]
        orphaned = any(q in met for q, alive, _ in table.values()
                       if alive and not (q in table and table[q][1]))
        quiet = 0 if left or orphaned else quiet + 1
        reap_orphans(table)
        if quiet == 2:
            return
        now = time.monotonic()
        if left and now >= next_signal:
            # Again each pass: a process a stage started meanwhile goes too.
            _kill(left, signal.SIGTERM if now - start < GRACE else signal.SIGKILL)
            next_signal = now + 0.5
        if left and now >= next_say:
            sys.stdout.write('nsfd: stopping: still waiting for pid %s to end\n'
                             % ', '.join(map(str, left)))
            sys.stdout.flush()
            next_say = now + 60
        time.sleep(0.05)


def _end():
    """At a driver's own exit: nothing new starts, what its tree left ends."""
    stopping.set()
    stop_tree()


def stop_on_signals(stop_exit=ExitCode.ENVIRONMENT):
    """Make this process a driver: the child subreaper of its tree, which
    it ends (stop_tree) before it exits, and the handlers: on SIGTERM,
    SIGINT or SIGHUP the whole tree ends, then this process, with
    STOP_EXIT (env STOP_EXIT overrides)."""
    try:
        stop_exit = int(os.environ.get('STOP_EXIT') or stop_exit)
    except ValueError:
        pass
    try:
        become_subreaper()
    except OSError as e:
        sys.stdout.write('nsfd: %s: a stop could not end every process of this run\n%s\n'
                         % (e.strerror, runlog.NOTHING_JUDGED))
        sys.stdout.flush()
        sys.exit(stop_exit)

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
    # A run that ends by itself: what its tree left (a detached process,
    # the tests a failed make test left running) ends before the lock goes.
    atexit.register(_end)


LOCK_FD = 9
# Seconds a run waits for the one that holds build/.lock (NSFD_LOCK_WAIT).
LOCK_WAIT = 3600


def lock_path(top):
    return os.path.join(top, 'build', '.lock')


def lock_inherited():
    """Whether fd LOCK_FD is open on a build/.lock: this process holds the
    lock (hold_build_lock), or was handed it by the run that does (make
    test's robot, a step of make bisect): every child it starts is handed
    it too (popen)."""
    try:
        return os.readlink('/proc/self/fd/%d' % LOCK_FD).endswith('/build/.lock')
    except OSError:
        return False


def lock_holder(lock):
    """Who holds LOCK, as its holder wrote it when it took it: "pid 123
    (ci/nsfd test), since 2026-12-07 23:40:01 UTC", with "gone: its
    children hold it" where that process has ended; '' when unknown."""
    try:
        with open(lock) as f:
            rec = dict(kv.split('=', 1) for kv in f.read().strip().split('\n') if '=' in kv)
    except (OSError, ValueError):
        return ''
    if 'pid' not in rec:
        return ''
    alive = True
    try:
        os.kill(int(rec['pid']), 0)
    except (OSError, ValueError):
        alive = False
    return 'pid %s (%s), since %s%s' % (
        rec['pid'], rec.get('command', '?'), rec.get('since', '?'),
        '' if alive else '; that process is gone, the children it left still hold it')


def write_holder(fd, command):
    """The holder's record in the lock file (pid, command, since): what a
    run that waits says. Written only by the holder, under the lock; no
    waiter truncates it."""
    rec = 'pid=%d\ncommand=%s\nsince=%s\n' % (
        os.getpid(), command, time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime()))
    os.ftruncate(fd, 0)
    os.pwrite(fd, rec.encode(), 0)


def hold_build_lock(top, say, wait=None, command=None):
    """Hold TOP/build/.lock for the rest of this process, on fd 9, before
    anything under out/ or build/ is removed or written. The fd is not
    close-on-exec and every child started through popen() is handed it:
    a driver killed by SIGKILL leaves the lock held until the last of
    its children (make, the compilers, kunit.py, QEMU) has ended. A
    process handed fd 9 by the run that holds it (make test's robot, the
    steps of make bisect; ci/build-lock.sh's holders) is let through. A
    run that waits says whose run holds it (pid, command, since when);
    it waits up to WAIT s (NSFD_LOCK_WAIT, an hour), then EnvError."""
    lock = lock_path(top)
    if wait is None:
        wait = float(os.environ.get('NSFD_LOCK_WAIT') or LOCK_WAIT)
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    # Every child inherits fd 9. A git under the lock collects its garbage
    # before it exits: detached (git's default for a gc --auto), it would
    # hold the lock after the run (as ci/build-lock.sh says).
    n = int(os.environ.get('GIT_CONFIG_COUNT') or 0)
    if 'gc.autoDetach' not in [os.environ.get('GIT_CONFIG_KEY_%d' % i) for i in range(n)]:
        os.environ.update({'GIT_CONFIG_KEY_%d' % n: 'gc.autoDetach',
                           'GIT_CONFIG_VALUE_%d' % n: 'false', 'GIT_CONFIG_COUNT': str(n + 1)})
    try:
        inherited = os.readlink('/proc/self/fd/%d' % LOCK_FD) == os.path.realpath(lock)
    except OSError:
        inherited = False
    if not inherited:
        # No O_TRUNC: the holder's record stays for every run that waits.
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        if fd != LOCK_FD:
            os.dup2(fd, LOCK_FD)
            os.close(fd)
    os.set_inheritable(LOCK_FD, True)
    deadline = time.monotonic() + wait
    said = False
    while True:
        try:
            fcntl.flock(LOCK_FD, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if not inherited:
                write_holder(LOCK_FD, command or ' '.join(
                    ['ci/nsfd' if sys.argv[0].endswith('nsfd.py') else sys.argv[0]] + sys.argv[1:]))
            return
        except BlockingIOError:
            pass
        if not said:
            holder = lock_holder(lock)
            say('waiting for another nsfd run to release %s%s' % (
                lock, ': ' + holder if holder else ''))
            said = True
        if time.monotonic() > deadline:
            holder = lock_holder(lock)
            raise runlog.EnvError('%s still held after %d s%s: is an nsfd run stuck?' % (
                lock, wait, ' by ' + holder if holder else ''))
        time.sleep(1)
