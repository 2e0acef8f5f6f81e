"""A checkout of nsfd in a temporary directory whose ci/nsfd is a fake:
for the drivers that run ci/nsfd once a step (make bisect, make
mutants), tested end to end without a kernel.

The rest of ci/ is the real one, linked entry by entry; the drivers find
TOP from their own path, so their out/ and build/ are the temporary
ones. KEEP_REAL names ci/ entries that are copied as directories of
links instead, so that a test can add files to them (ci/mutants/). A
driver runs there as `python3 -P -m ci.X` with environ(TOP): TOP first
on PYTHONPATH, so that the `ci` it imports is TOP/ci.
"""

import os

CI = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOP = os.path.dirname(CI)


def make(top, fake_nsfd, own_dirs=()):
    """TOP/ci with FAKE_NSFD (the program's text) as ci/nsfd; each of
    OWN_DIRS a directory of links to the real one's files; TOP/kunit-configs
    linked to the real one."""
    ci = os.path.join(top, 'ci')
    os.makedirs(ci)
    for entry in os.listdir(CI):
        real = os.path.join(CI, entry)
        if entry == 'nsfd' or entry == '__pycache__':
            continue
        if entry in own_dirs:
            os.makedirs(os.path.join(ci, entry))
            for f in os.listdir(real):
                os.symlink(os.path.join(real, f), os.path.join(ci, entry, f))
        else:
            os.symlink(real, os.path.join(ci, entry))
    os.symlink(os.path.join(TOP, 'kunit-configs'), os.path.join(top, 'kunit-configs'))
    path = os.path.join(ci, 'nsfd')
    with open(path, 'w') as f:
        f.write(fake_nsfd)
    os.chmod(path, 0o755)
    return path


def environ(top, **env):
    """os.environ and ENV, with TOP the import root of every `python3 -P
    -m ci.X` run in it."""
    return dict(os.environ, PYTHONPATH=top, **env)
