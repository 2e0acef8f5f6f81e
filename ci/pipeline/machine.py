"""What the machine did while a stage ran, for decide.py's machine faults:
the host kernel's log of that time (its OOM kills), and how long each
child ran against its limit.

The kernel log is /dev/kmsg, opened at a stage's start and positioned at
its end, then read when the stage ends: exactly the records of that time,
with no clock to match. Where it cannot be read (kernel.dmesg_restrict
without CAP_SYSLOG, a container that hides it; dmesg(1) reads the same
records under the same rule), the log is '' and a fault is still 2, its
cause then "OOM killer?". NSFD_KMSG names another file (the fault suite's
fakes append to one).
"""

import errno
import os
import re

from . import procs

# A /dev/kmsg record's prefix: "PRIORITY,SEQUENCE,MICROSECONDS,FLAGS;".
RECORD = re.compile(r'^\d+,\d+,\d+,[^;]*;', re.M)


class KernelLog:
    """The host kernel's log from now on."""

    def __init__(self):
        self.fd = None
        try:
            self.fd = os.open(os.environ.get('NSFD_KMSG') or '/dev/kmsg',
                              os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            os.lseek(self.fd, 0, os.SEEK_END)
        except OSError:
            self.close()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def read(self):
        """Every record since this was made, as text ('' when the log
        cannot be read); closes it."""
        if self.fd is None:
            return ''
        chunks = []
        try:
            while True:
                try:
                    data = os.read(self.fd, 8192)   # /dev/kmsg: one record a read
                except OSError as e:
                    if e.errno == errno.EPIPE:      # records overwritten meanwhile
                        continue
                    break                           # EAGAIN: no more records
                if not data:
                    break
                chunks.append(data)
        finally:
            self.close()
        return RECORD.sub('', b''.join(chunks).decode(errors='replace'))



def cgroup_events_files(proc_cgroup='/proc/self/cgroup', root='/sys/fs/cgroup'):
    """The files that count this process's cgroup's OOM kills, most
    specific first: cgroup v2's memory.events ("oom_kill N"), v1's
    memory.oom_control (the same line, kernels since 4.13). Under a
    cgroup namespace the path /proc names is not under the mount: its
    root's file then stands for it. NSFD_CGROUP_EVENTS names another file
    (the fault suite's)."""
    if os.environ.get('NSFD_CGROUP_EVENTS'):
        return [os.environ['NSFD_CGROUP_EVENTS']]
    found = []
    try:
        with open(proc_cgroup) as f:
            lines = f.read().split('\n')
    except OSError:
        lines = []
    for line in lines:
        parts = line.split(':', 2)
        if len(parts) != 3:
            continue
        rel = parts[2].lstrip('/')
        if parts[0] == '0' and parts[1] == '':
            for base in (root, os.path.join(root, 'unified')):
                found += [os.path.join(base, rel, 'memory.events'), os.path.join(base, 'memory.events')]
        elif 'memory' in parts[1].split(','):
            base = os.path.join(root, 'memory')
            found += [os.path.join(base, rel, 'memory.oom_control'),
                      os.path.join(base, 'memory.oom_control')]
    return [f for i, f in enumerate(found) if f not in found[:i]]


OOM_KILL_LINE = re.compile(r'^oom_kill (\d+)$', re.M)


class OomCounter:
    """The cgroup's count of OOM kills from now on: what the run can see
    of the OOM killer where the host's kernel log cannot be read (a
    container). count() is None where no such file can be read."""

    def __init__(self):
        self.path, self.start = None, None
        for path in cgroup_events_files():
            n = self._read(path)
            if n is not None:
                self.path, self.start = path, n
                break

    @staticmethod
    def _read(path):
        try:
            with open(path) as f:
                m = OOM_KILL_LINE.search(f.read())
        except OSError:
            return None
        return int(m.group(1)) if m else None

    def count(self):
        """OOM kills in the cgroup since this was made, or None."""
        if self.path is None:
            return None
        n = self._read(self.path)
        return None if n is None else n - self.start

    def cause(self):
        """The kills as a cause ("2 OOM kills counted in ..."), or None."""
        n = self.count()
        if not n:
            return None
        return "the OOM killer killed %d process%s of this run's cgroup (oom_kill in %s)" % (
            n, '' if n == 1 else 'es', self.path)
