"""patches/series read once: the patch files it lists, its digest, a
patch as results.json names it. Every reader of patches/series calls
this (ci/pipeline/tree.py, ci/series/ontree.py, ci/pipeline/variant.py,
ci/robot/judge.py, ci/dev/syscall_taken.py); ci/prepare-tree.sh is the
command line of ci/pipeline/tree.py."""

import hashlib
import os


def names(text):
    """The patch files patches/series (TEXT) lists, in order: the first
    word of each line (quilt's options follow it), # comments and blank
    lines aside."""
    out = []
    for line in text.splitlines():
        words = line.split('#', 1)[0].split()
        if words:
            out.append(words[0])
    return out


def series_path(top):
    return os.path.join(top, 'patches', 'series')


def read(top):
    """The patch files TOP/patches/series lists, in order."""
    with open(series_path(top), errors='surrogateescape') as f:
        return names(f.read())


def digest(top):
    """sha256 of patches/series and, in its order, every patch it lists:
    names the series a result was judged on."""
    h = hashlib.sha256()
    with open(series_path(top), 'rb') as f:
        h.update(f.read())
    for p in read(top):
        with open(os.path.join(top, 'patches', p), 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def entry(top, name, patch_id):
    """A patch of patches/series as results.json names it: its file, its
    git patch-id and the sha256 of the file (KCIDB's patchset_hash)."""
    out = {'patch': name, 'patch_id': patch_id}
    try:
        with open(os.path.join(top, 'patches', name), 'rb') as f:
            out['sha256'] = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        pass
    return out
