"""The one way a result file is written: whole or not at all.

A temporary file in the same directory, written, flushed and fsynced,
then renamed over the name: a reader sees the old file, no file, or the
whole new one, never a file cut short by a full disk or a crash. A write
that fails leaves no temporary file behind.
"""

import json
import os
import tempfile


def write_bytes(path, data):
    """PATH holds DATA (bytes), or is as it was; returns PATH."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', suffix='.new', dir=d)
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def write_text(path, text):
    return write_bytes(path, text.encode('utf-8', 'surrogateescape'))


def json_text(doc, **kw):
    """DOC as results.json and its siblings write JSON: indented, one
    newline at the end."""
    return json.dumps(doc, indent=1, **kw) + '\n'


def write_json(path, doc, **kw):
    return write_text(path, json_text(doc, **kw))
