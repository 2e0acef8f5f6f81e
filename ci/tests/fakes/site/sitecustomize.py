"""The fake world's machine faults in the writing of results: every
process of the world (report.py, the robot's judge) that writes a result
file through ci/results/atomic.py meets them. The World of
ci/tests/test_faults.py puts this directory on PYTHONPATH.

  FAKE_ENOSPC=NAME[,NAME...]   a write of NAME fails: ENOSPC, a full disk
  FAKE_SIGKILL=NAME            the writer is SIGKILLed (the OOM killer)
                               as it writes NAME; +NAME: just after
"""

import os

if os.environ.get('FAKE_ENOSPC') or os.environ.get('FAKE_SIGKILL'):
    import errno
    import signal

    from ci.results import atomic

    _write = atomic.write_bytes
    _full = set(filter(None, os.environ.get('FAKE_ENOSPC', '').split(',')))
    _kill = os.environ.get('FAKE_SIGKILL', '')

    def write_bytes(path, data):
        name = os.path.basename(path)
        if name in _full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        if name == _kill:
            os.kill(os.getpid(), signal.SIGKILL)
        done = _write(path, data)
        if '+' + name == _kill:
            os.kill(os.getpid(), signal.SIGKILL)
        return done

    atomic.write_bytes = write_bytes
