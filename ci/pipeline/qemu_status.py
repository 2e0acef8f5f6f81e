#!/usr/bin/env python3
"""QEMU as kunit.py starts it, its end recorded (ci/pipeline/kernel.py).

kunit.py runs "qemu-system-ARCH" from PATH and keeps QEMU's exit to
itself: a QEMU the OOM killer took (SIGKILL) reads as a kernel that
crashed, kunit.py's exit 1. kernel.py puts a directory first in PATH
whose qemu-system-ARCH is this program: it runs the real QEMU
(NSFD_QEMU_REAL) with the same arguments, stdin and stdout, hands on the
signals kunit.py sends (its timeout's SIGTERM), and when QEMU ends writes
NSFD_QEMU_STATUS (JSON: pid, rc, signal, seconds; written whole, temp
file and rename), then ends as QEMU did (the same status, or the same
signal). decide.kunit_exec reads it: QEMU killed by SIGKILL before
kunit.py's limit is the machine, not the kernel, also where the host's
kernel log cannot be read.

Standalone on purpose (stdlib only, no import of ci): it runs with
kunit.py's environment.
"""

import json
import os
import signal
import subprocess
import sys
import time


def tee(fd, console):
    """QEMU's output from FD to this program's stdout (kunit.py's pipe)
    and to CONSOLE as it comes, unbuffered: what kunit.py has read but
    not yet written to its block-buffered test.log is on the disk here,
    and ci/pipeline/bootwatch.py sees the KTAP header the moment QEMU
    prints it. Past a kunit.py that stopped reading (it was killed),
    CONSOLE still gets everything."""
    out = 1
    with open(console, 'wb', buffering=0) as f:
        while True:
            try:
                data = os.read(fd, 65536)
            except InterruptedError:
                continue
            if not data:
                break
            f.write(data)
            while out is not None and data:
                try:
                    data = data[os.write(out, data):]
                except InterruptedError:
                    continue
                except OSError:             # EPIPE: kunit.py is gone
                    out = None


def main(argv):
    real, status = os.environ['NSFD_QEMU_REAL'], os.environ['NSFD_QEMU_STATUS']
    console = os.environ.get('NSFD_QEMU_CONSOLE')
    start = time.monotonic()
    p = subprocess.Popen([real] + argv[1:], stdout=subprocess.PIPE if console else None)

    def forward(sig, _frame):
        try:
            p.send_signal(sig)
        except OSError:
            pass
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    if console:
        tee(p.stdout.fileno(), console)
    rc = p.wait()
    record = {'pid': p.pid, 'qemu': real, 'rc': rc, 'signal': -rc if rc < 0 else None,
              'signame': signal.Signals(-rc).name if rc < 0 else None,
              'seconds': round(time.monotonic() - start, 1)}
    tmp = '%s.%d.tmp' % (status, os.getpid())
    try:
        with open(tmp, 'w') as f:
            json.dump(record, f)
            f.write('\n')
        os.rename(tmp, status)
    except OSError as e:
        print('nsfd: cannot record QEMU\'s end in %s: %s' % (status, e), file=sys.stderr)
    if rc < 0:
        if -rc != signal.SIGKILL:
            signal.signal(-rc, signal.SIG_DFL)
        os.kill(os.getpid(), -rc)
        return 128 - rc
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
