"""What must run on our own tree (patched mode), read from the sources:
every KUnit suite of kunit/ and every TEST_GEN_PROGS binary of
selftests/nsfd/Makefile. Each fails closed: a list it cannot read
raises (exit 2), since an empty one would expect nothing."""

import glob
import os
import re

from .collect import read


def kunit_suites(top):
    """The .name of every struct kunit_suite in top/kunit/**.c."""
    names = []
    for path in sorted(glob.glob(os.path.join(top, 'kunit', '**', '*.c'), recursive=True)):
        text = read(path) or ''
        for body in re.findall(r'struct\s+kunit_suite\s+\w+\s*=\s*\{(.*?)\n\s*\};', text, re.S):
            m = re.search(r'\.name\s*=\s*"([^"]+)"', body)
            if m and m.group(1) not in names:
                names.append(m.group(1))
    if not names:
        raise ValueError('%s/kunit declares no KUnit suite: cannot say which must run' % top)
    return names


def kselftests(top):
    """TEST_GEN_PROGS of top/selftests/nsfd/Makefile."""
    path = os.path.join(top, 'selftests', 'nsfd', 'Makefile')
    text = (read(path) or '').replace('\\\n', ' ')
    progs = []
    for m in re.finditer(r'^\s*TEST_GEN_PROGS\s*[:+]?=(.*)$', text, re.M):
        progs += [w for w in m.group(1).split() if not w.startswith('$') and w not in progs]
    if not progs:
        raise ValueError('%s lists no TEST_GEN_PROGS: cannot say which kselftests must run' % path)
    return progs


def kunit_for(outdir, top):
    """The suites this kernel must run: OUTDIR/expected-kunit-suites.txt
    (ci/nsfd writes it from the .config: a matrix config that switches a
    suite's symbol off does not expect it), else every suite in kunit/."""
    text = read(os.path.join(outdir, 'expected-kunit-suites.txt')) if outdir else None
    if text is not None:
        return [l.strip() for l in text.splitlines() if l.strip()]
    return kunit_suites(top)
