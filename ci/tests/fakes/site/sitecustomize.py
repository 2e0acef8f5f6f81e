"""The fake world's machine faults in the writing of results: every
process of the world (report.py, the robot's judge, merge) that writes a
result file meets them, through ci/results/atomic.py or a plain open()
of the file by its name (as the writers before atomic.py did, so that a
case shows the fault on both). The World of ci/tests/test_faults.py puts
this directory on PYTHONPATH.

  FAKE_ENOSPC=NAME[,NAME...]   a write of NAME fails: ENOSPC, a full disk
  FAKE_SIGKILL=NAME            the writer is SIGKILLed (the OOM killer)
                               as it writes NAME; +NAME: just after
"""

import os

if os.environ.get('FAKE_ENOSPC') or os.environ.get('FAKE_SIGKILL'):
    import builtins
    import errno
    import signal

    _full = set(filter(None, os.environ.get('FAKE_ENOSPC', '').split(',')))
    _kill = os.environ.get('FAKE_SIGKILL', '')

    def _before(path):
        name = os.path.basename(str(path))
        if name in _full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        if name == _kill:
            os.kill(os.getpid(), signal.SIGKILL)

    def _after(path):
        if '+' + os.path.basename(str(path)) == _kill:
            os.kill(os.getpid(), signal.SIGKILL)

    _open = builtins.open

    class _Closing:
        """A file opened for writing by its name: the fault after it
        comes when it is closed."""

        def __init__(self, f, path):
            self._f, self._path = f, path

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __iter__(self):
            return iter(self._f)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def close(self):
            self._f.close()
            _after(self._path)

    def _faulty_open(file, mode='r', *a, **kw):
        if isinstance(file, (str, bytes, os.PathLike)) and any(c in mode for c in 'wax'):
            _before(file)
            return _Closing(_open(file, mode, *a, **kw), file)
        return _open(file, mode, *a, **kw)

    builtins.open = _faulty_open

    try:
        from ci.results import atomic
    except ImportError:         # a checkout without it: open() above is the writer
        atomic = None
    if atomic is not None:
        _write = atomic.write_bytes

        def write_bytes(path, data):
            _before(path)
            done = _write(path, data)
            _after(path)
            return done

        atomic.write_bytes = write_bytes
