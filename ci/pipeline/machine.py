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

