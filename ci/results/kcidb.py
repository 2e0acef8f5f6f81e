"""One variant's results as a KCIDB v5.3 document (what KernelCI's dashboard takes).

usage: python3 -m ci.results.kcidb OUTDIR
    reads OUTDIR/results.json (ci/results/report.py's; OUTDIR/kernel.log for the
    excerpt of a kernel that did not build) and writes OUTDIR/kcidb.json.
    ci/results/publish.py calls document() before results.json is written;
    ci/results/merge.py calls it on each variant directory.

The document holds one checkout, one build and one test per result:

- checkout "nsfd:<base>[+<patch id>...]": <base> is the kernel tree's
  commit (KERNEL_SRC, a clean git tree), the tarball and its version
  (linux-source-6.12.tar.xz@6.12.118), or the commit nsfd made of a tree
  with local changes; then the first 12 digits of each patch id of the
  series. The same on every machine that tested the same sources, so
  variants from separate machines share it.
- build "nsfd:<variant>:<kernel build-id>" (GNU build-id of vmlinux:
  unique to one kernel build), or "nsfd:<variant>:run-<run key>" when no
  kernel was built.
- test "<build id>:<run key>:<path>": the run key is a digest of the
  results, so two runs on one kernel are two tests and the same run read
  twice is one. Paths follow KernelCI: kunit.exec.<suite>.<case>,
  kselftest.nsfd.<program>.<case>; each component is its name with every
  character outside [A-Za-z0-9_-] replaced by "_".

Statuses: pass PASS, skip and todo SKIP, fail FAIL (a timeout is a
failure); a suite or program that was expected but never ran ("pipeline
expected.*") MISS; an environment error (a boot that ran another kernel, a
test stage that met an environment error or whose tests did not build)
ERROR.
"""

import argparse
import hashlib
import json
import os
import re
import sys

from ci import args as cli_args
from . import atomic
from .model import ExitCode

ORIGIN = 'nsfd'
VERSION = {'major': 5, 'minor': 3}
# The schema's maxLength for every log_excerpt.
EXCERPT_MAX = 16384
STATUS = {'pass': 'PASS', 'fail': 'FAIL', 'skip': 'SKIP', 'todo': 'SKIP'}
# What ktap.py names a result that stands for its parent, not a case.
PSEUDO_CASES = ('(result)', '(missing)', '(numbering)')
# Where a stage's own trouble shows, when it is a test stage.
STAGE_PATH = {'kunit': ('kunit', 'exec'), 'selftests': ('kselftest', 'nsfd'),
              'guest': ('kselftest', 'nsfd')}
BUILD_STATUS = {'ok': 'PASS', 'build-failed': 'FAIL', 'env-error': 'ERROR'}


def component(name):
    """One path component: every character outside [A-Za-z0-9_-] as "_"."""
    return re.sub(r'[^A-Za-z0-9_-]', '_', name) or '_'


def path(*parts):
    return '.'.join(component(p) for p in parts)


def case_of(suite, name):
    """The case below a suite or program, or None for the suite's own result
    (ktap.py's "x.(result)", "x.(missing)" and "x.(numbering)" stand for x)."""
    if name == suite:
        return None
    for pseudo in PSEUDO_CASES:
        if name == pseudo:
            return None
        if name.endswith('.' + pseudo):
            return name[:-len(pseudo) - 1]
    return name


def boot_of(console):
    """The test tree a console log belongs to: kunit or kselftest."""
    return 'kunit' if 'kunit' in console else 'kselftest'


def test_path(t):
    """KernelCI's path of one results.json test."""
    source, suite, name = t.get('source'), t.get('suite', ''), t.get('name', '')
    if source == 'pipeline' and name.startswith('expected.kunit.'):
        return path('kunit', 'exec', name[len('expected.kunit.'):])
    if source == 'pipeline' and name.startswith('expected.kselftest.'):
        return path('kselftest', 'nsfd', name[len('expected.kselftest.'):])
    if source == 'kunit':
        if suite == 'kunit':            # the KUnit run itself: no KTAP, timeout
            return path('kunit', 'exec')
        case = case_of(suite, name)
        return path('kunit', 'exec', suite, *([case] if case else []))
    if source == 'kselftest':
        if suite == 'guest' or suite.startswith('guest-'):   # a guest's own trouble
            return path('kselftest', 'nsfd')
        collection, _, program = suite.rpartition(':')
        case = case_of(suite, name)
        return path('kselftest', collection or 'nsfd', program, *([case] if case else []))
    if source == 'boot':                # KernelCI's boot test, one per boot
        return path('boot', name)
    if source == 'console':             # a kernel report: "<kind>:<line>"
        return path(boot_of(suite), 'dmesg', name.split(':', 1)[0])
    return path(source or 'nsfd', suite, name)


def test_status(t):
    """PASS, FAIL, SKIP; MISS for what was expected and never ran."""
    if t.get('source') == 'pipeline' and t.get('name', '').startswith('expected.'):
        return 'MISS'
    return STATUS.get(t.get('status'), 'ERROR')


def excerpt(text, limit=EXCERPT_MAX):
    """TEXT within the schema's limit, its end kept (where a log says why)."""
    text = text.replace('\0', '')
    if len(text) <= limit:
        return text
    mark = '[...]\n'
    return mark + text[len(text) - (limit - len(mark)):]


def run_key(results):
    """A digest of one run's results: the same results give the same key."""
    what = {k: results.get(k) for k in ('variant', 'stages', 'tests', 'judged',
                                         'identity_errors')}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def checkout_base(results):
    """The tree tested: its commit, or the tarball and its version."""
    build = results.get('build') or {}
    source = build.get('tree') or 'unknown'
    if re.fullmatch(r'[0-9a-f]{40}', source):
        return source
    if source.endswith('-dirty') or source.endswith('(not a git tree)'):
        # Local changes: the commit nsfd made of the files (fixed dates, so
        # the same files give the same commit on every machine).
        return 'tree-%s' % build.get('tree_commit', 'unknown')
    return '%s@%s' % (source, (results.get('kernel') or {}).get('version', 'unknown'))


def patches(results):
    return (results.get('kernel') or {}).get('series') or []


def patchset_hash(results):
    """KCIDB's patchset_hash: sha256 over the newline-terminated sha256 of
    each patch, in order ("sha256sum *.patch | cut -c-64 | sha256sum");
    '' for a tree tested without patches (KERNEL_SRC), None when a patch's
    own hash is not known (results of an older nsfd)."""
    series = patches(results)
    if not results.get('patched', bool(series)) and not series:
        return ''
    if not series or not all(p.get('sha256') for p in series):
        return None
    return hashlib.sha256(''.join(p['sha256'] + '\n' for p in series).encode()).hexdigest()


def checkout_id(results):
    ids = [p.get('patch_id', '')[:12] for p in patches(results)]
    return '%s:%s' % (ORIGIN, '+'.join([checkout_base(results)] + ids))


def stage(results, name):
    for s in results.get('stages') or []:
        if s.get('stage') == name:
            return s
    return None


def checkout(results):
    build = results.get('build') or {}
    kernel = results.get('kernel') or {}
    series = patches(results)
    doc = {
        'id': checkout_id(results), 'origin': ORIGIN,
        'comment': '%s%s' % (kernel.get('source') or build.get('tree') or 'unknown tree',
                             ' (%d patches)' % len(series) if series else ''),
        'misc': {'tree': build.get('tree', 'unknown'), 'kernel_version': kernel.get('version'),
                 'series_digest': build.get('series_digest'), 'patches': series},
    }
    if re.fullmatch(r'[0-9a-f]{40}', build.get('tree', '')):
        doc['git_commit_hash'] = build['tree']
    hashed = patchset_hash(results)
    if hashed is not None:
        doc['patchset_hash'] = hashed
    tree = stage(results, 'tree')
    if tree:
        doc['valid'] = tree.get('status') == 'ok'
    return doc


def config_name(results):
    """nsfd, nsfd+debug, nsfd+net_ns_off, ...: the variant less its arch
    (a -uidN variant runs the same kernel as another user)."""
    arch, variant = results.get('arch', ''), results.get('variant', '')
    rest = variant[len(arch):] if variant.startswith(arch) else '-' + variant
    parts = [p for p in rest.split('-') if p and not re.fullmatch(r'uid\d+', p)]
    return '+'.join(['nsfd'] + parts)


def build_status(results):
    """PASS, FAIL, ERROR; MISS when no kernel build was tried (the tree
    could not be prepared)."""
    stages = results.get('stages') or []
    kernel = stage(results, 'kernel')
    if kernel:
        return BUILD_STATUS.get(kernel.get('status'), 'ERROR')
    if any(s.get('status') == 'env-error' for s in stages):
        return 'ERROR'
    if any(s.get('status') == 'build-failed' for s in stages
           if s.get('stage') not in STAGE_PATH):
        return 'MISS'
    return 'PASS'    # ci/nsfd guest: the kernel was built by an earlier run


def build_id(results):
    kernel_build_id = (results.get('judged') or {}).get('build_id')
    key = kernel_build_id if kernel_build_id else 'run-' + run_key(results)
    return '%s:%s:%s' % (ORIGIN, results.get('variant', 'unknown'), key)


def build_excerpt(results, outdir, status):
    """Why a build is not PASS: the end of kernel.log, or the stage's line."""
    if status == 'PASS':
        return None
    log = os.path.join(outdir, 'kernel.log') if outdir else None
    if status == 'FAIL' and log and os.path.exists(log):
        with open(log, errors='replace') as f:
            return excerpt(f.read())
    lines = results.get('not_built') or []
    return excerpt('\n'.join(lines)) if lines else None


def build(results, outdir=None):
    info = results.get('build') or {}
    judged = results.get('judged') or {}
    kernel = stage(results, 'kernel')
    status = build_status(results)
    doc = {
        'id': build_id(results), 'checkout_id': checkout_id(results), 'origin': ORIGIN,
        'architecture': results.get('arch', ''), 'config_name': config_name(results),
        'status': status,
        'comment': 'nsfd %s%s' % (results.get('variant', ''),
                                  ': ' + kernel['detail'] if kernel and kernel.get('detail') else ''),
        'misc': {'variant': results.get('variant'), 'nsfd_commit': info.get('nsfd_commit'),
                 'tree_commit': info.get('tree_commit'), 'qemu': info.get('qemu'),
                 'uts_version': judged.get('uts_version'), 'build_id': judged.get('build_id'),
                 'image_sha256': judged.get('image_sha256'),
                 'initramfs': judged.get('initramfs'),
                 'exit_code': results.get('exit_code'), 'summary': results.get('summary')},
    }
    if info.get('gcc'):
        doc['compiler'] = info['gcc']
    if kernel:
        doc['duration'] = kernel.get('seconds')
    why = build_excerpt(results, outdir, status)
    if why:
        doc['log_excerpt'] = why
    doc['misc'] = {k: v for k, v in doc['misc'].items() if v is not None}
    return doc


def environment(results):
    """The test environment, when it is not the plain guest: a -uidN
    variant runs the kselftests as that user. (QEMU's version is the
    build's misc.qemu.)"""
    uid = re.search(r'-uid(\d+)$', results.get('variant', ''))
    return {'comment': 'kselftests as uid %s' % uid.group(1)} if uid else None


def env_errors(results):
    """Synthetic results for what met an environment error: a boot that ran
    another kernel (its tests were dropped), a test stage's own error."""
    out = []
    for e in results.get('identity_errors') or []:
        out.append({'path': path(*STAGE_PATH['kunit' if boot_of(e.get('console', '')) == 'kunit'
                                             else 'guest']),
                    'status': 'ERROR', 'reason': '%s: %s' % (e.get('console'), e.get('error')),
                    'misc': {'console': e.get('console')}})
    for s in results.get('stages') or []:
        if s.get('stage') in STAGE_PATH and s.get('status') in ('env-error', 'build-failed'):
            what = 'environment error' if s['status'] == 'env-error' else 'the tests did not build'
            out.append({'path': path(*STAGE_PATH[s['stage']]), 'status': 'ERROR',
                        'reason': '%s: %s%s' % (s['stage'], what,
                                                ': ' + s['detail'] if s.get('detail') else ''),
                        'misc': {'stage': s['stage']}})
    return out


def tests(results):
    bid, key, env = build_id(results), run_key(results), environment(results)
    rows = []
    for t in results.get('tests') or []:
        rows.append({'path': test_path(t), 'status': test_status(t), 'reason': t.get('reason') or '',
                     'duration': t.get('duration'),
                     'misc': {'source': t.get('source'), 'suite': t.get('suite'),
                              'name': t.get('name')}})
    rows += env_errors(results)
    out, seen = [], {}
    for r in rows:
        tid = '%s:%s:%s' % (bid, key, r['path'])
        seen[tid] = seen.get(tid, 0) + 1
        if seen[tid] > 1:                   # the same path twice in one run
            tid += '#%d' % seen[tid]
        doc = {'id': tid, 'build_id': bid, 'origin': ORIGIN, 'path': r['path'],
               'status': r['status'], 'misc': r['misc']}
        if env:
            doc['environment'] = env
        if r.get('duration') is not None:
            doc['duration'] = r['duration']
        if r['status'] != 'PASS':
            doc['log_excerpt'] = excerpt(r['reason'] or 'reported not ok')
        out.append(doc)
    return out


def document(results, outdir=None):
    """The KCIDB document of one variant's results.json (a dict). OUTDIR,
    when given, is where kernel.log is read from for a failed build."""
    return {'version': dict(VERSION), 'checkouts': [checkout(results)],
            'builds': [build(results, outdir)], 'tests': tests(results)}


def read_results(outdir):
    with open(os.path.join(outdir, 'results.json')) as f:
        return json.load(f)


def from_dir(outdir):
    return document(read_results(outdir), outdir)


def write(outdir):
    """OUTDIR/kcidb.json from OUTDIR/results.json (the same document
    report.py wrote with it); returns its path."""
    return atomic.write_json(os.path.join(outdir, 'kcidb.json'), from_dir(outdir))


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.results.kcidb',
                                description='OUTDIR/kcidb.json again from OUTDIR/results.json')
    p.add_argument('outdir')
    a, code = cli_args.parse(p, argv)
    if a is None:
        return code
    try:
        print(write(a.outdir))
    except (OSError, ValueError) as e:
        print('nsfd: kcidb: cannot read %s/results.json (%s): run python3 -m ci.results.report variant '
              'there first' % (a.outdir, e), file=sys.stderr)
        return ExitCode.ENVIRONMENT
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv[1:]))
