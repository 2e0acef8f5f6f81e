"""The mutation campaign: what `make mutants [MUTANT=glob]` calls.

usage: python3 -m ci.mutants.campaign     every ci/mutants/*.mutant
       MUTANT='socketat-*' python3 -m ci.mutants.campaign   those whose name matches
       MUTANT='netns-* setns-*' python3 -m ci.mutants.campaign   several globs

First a baseline: `ci/nsfd run x86_64` on the unmutated tree, which must
pass (exit 0), or every mutant would count as killed; one more for each
arch and matrix config a selected mutant names ("arch: ARCH", "config:
NAME": code that only that arch or a config of kunit-configs/matrix/
compiles or reaches, run as `ci/nsfd run ARCH [--config NAME]`). Then,
for each mutant, `ci/nsfd run ARCH [--config NAME]` (ARCH: x86_64 unless
it says) with NSFD_MUTANT=<the mutant file>: ci/prepare-tree.sh applies it
(ci/mutants/apply.sh) to the working tree after laying in the tests (the
next run's checkout takes it back out), so a mutant costs the rebuild of
the file it touches (and of the previous mutant's file, now restored), the
link, KUnit and the kselftest guest. The verdict from ci/nsfd's exit code
(verdict()): 1 KILLED (a test failed, a kernel report, a guest timeout),
0 SURVIVED, 125 or 2 ERROR (it did not build, or did not apply). Last, a
run without NSFD_MUTANT on each of those kernels, so that build/ and out/
end unmutated.

Writes out/mutants/results.json (per mutant: verdict, exit code, seconds,
the first 10 failed tests as "suite: name"; the last campaign's score),
out/mutants/logs/NAME.log (ci/nsfd's output) and NAME.results.json.
Prints one line per mutant, then the score, the survivors and whether
ci/mutants/README explains each as equivalent.

Exit: 0 every mutant killed or explained as equivalent; 1 a survivor the
README does not explain; 2 environment (ci/nsfd exit 2 outside the mutant,
a failing baseline, no mutant matches) or a mutant without a verdict.
Environment: MUTANT (globs on the name, without .mutant), NSFD_FAIL_FAST
(1 by default: no guest once KUnit is red), NSFD_MUTANTS_BASELINE=0
(skip the baseline run: you know the tree is green), NSFD_MUTANTS_RESTORE=0
(skip the final unmutated run; the next `make run` rebuilds), and what
ci/nsfd reads (NSFD_JOBS, NSFD_QEMU_ARGS, ...).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

import ci
from ci import args as ci_args, variants
from ci.pipeline import procs, runlog
from ci.results.model import ExitCode
from . import mutant  # parse, check, record, score

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = ci.TOP
CI = os.path.join(TOP, 'ci')

RES = os.path.join(TOP, 'out', 'mutants')
TREE = os.path.join(TOP, 'build', 'patched', 'src')


class Stop(Exception):
    """The campaign cannot go on: exit 2 with this message."""


STARTED = time.monotonic()


def say(msg):
    print('mutants: %s  %s' % (msg, runlog.elapsed(STARTED)), flush=True)


def since(t):
    return '%.1f' % (time.monotonic() - t)


def select(globs):
    """The mutant files whose names match GLOBS (blank-separated), in
    glob order, each once."""
    files = []
    for g in globs.split():
        pattern = g[:-len('.mutant')] if g.endswith('.mutant') else g
        for f in sorted(glob.glob(os.path.join(glob.escape(HERE), pattern + '.mutant'))):
            if f not in files:
                files.append(f)
    return files


def kernel_of(path):
    """(arch, config) a mutant runs on; Stop if either is unknown."""
    m = mutant.parse(path)
    arch, config = m.get('arch', mutant.DEFAULT_ARCH), m.get('config', '')
    if config and not os.path.isfile(os.path.join(TOP, 'kunit-configs', 'matrix',
                                                  config + '.kunitconfig')):
        raise Stop('%s: config: %s is not in kunit-configs/matrix/' % (m['name'], config))
    if not os.path.isfile(os.path.join(CI, 'arch', arch + '.conf')):
        raise Stop('%s: arch: %s is not in ci/arch/' % (m['name'], arch))
    return arch, config


def label(arch, config):
    """How the log names a kernel (x86_64 unsaid)."""
    return '-'.join(([arch] if arch != 'x86_64' else []) + ([config] if config else []))


def verdict(rc, applied, tree_failed):
    """(verdict, stop) of one mutant's run: ci/nsfd's exit RC, whether the
    tree held the mutation after it (APPLIED), whether the log says the
    tree could not be prepared (TREE_FAILED: the mutant did not apply).
    STOP: the campaign cannot go on (an environment error, or a
    prepare-tree that does not apply mutants)."""
    if rc in (ExitCode.PASS, ExitCode.FAIL):
        if not applied:
            return 'error', 'ci/prepare-tree.sh did not apply the mutant (ci/mutants/README, ' \
                            '"How a run goes"); stopping'
        return ('killed' if rc == ExitCode.FAIL else 'survived'), None
    if rc == ExitCode.ENVIRONMENT and not tree_failed:
        return 'error', 'ci/nsfd exit 2 outside the mutant (environment); stopping'
    return 'error', None


def run_nsfd(log, mutant_file, arch, config):
    """ci/nsfd run ARCH [--config CONFIG], with NSFD_MUTANT=MUTANT_FILE if
    given, its output to LOG; its exit status."""
    out = os.path.join(TOP, 'out', variants.name(arch, False, config))
    try:
        os.unlink(os.path.join(out, 'results.json'))
    except OSError:
        pass
    env = dict(os.environ)
    env.pop('NSFD_MUTANT', None)
    if mutant_file:
        env['NSFD_MUTANT'] = mutant_file
    what = os.path.basename(log)[:-len('.log')]
    with runlog.heartbeat(say, what, count=lambda: progress(log)):
        return procs.run([os.path.join(CI, 'nsfd'), 'run', arch] +
                         (['--config', config] if config else []), out=log, env=env)


def progress(log):
    """The last progress line ci/nsfd wrote to LOG, without its "nsfd: "
    and its time stamp ('' before the first): a kernel build's minutes in
    a run are not silent on the campaign's own output."""
    try:
        with open(log, errors='replace') as f:
            lines = [l for l in f.read().splitlines() if l.startswith('nsfd: ')]
    except OSError:
        return ''
    return re.sub(r'\s+\[\+[\d:]+\]$', '', lines[-1][len('nsfd: '):]) if lines else ''


def tail(path, n):
    try:
        with open(path, errors='replace') as f:
            return ''.join('    ' + line for line in f.readlines()[-n:])
    except OSError:
        return ''


def check_mutants(files):
    """Every mutant parses; where the prepared tree exists, each find line
    occurs exactly once in kernel code (read from git, not the checkout,
    which may hold a mutant left by an interrupted campaign)."""
    has_rev = subprocess.run(['git', '-C', TREE, 'rev-parse', '-q', '--verify', 'nsfd-tests'],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    cmd = ['check', '--rev', 'nsfd-tests', '--base', 'nsfd-series', TREE] if has_rev else ['parse']
    p = subprocess.run(ci.command('ci.mutants.mutant', *cmd, *files), capture_output=True, text=True)
    with open(os.path.join(RES, 'check.log'), 'w') as f:
        f.write(p.stdout + p.stderr)
    if p.returncode:
        sys.stdout.write(''.join(l + '\n' for l in (p.stdout + p.stderr).splitlines()
                                 if not l.startswith('ok ')))
        raise Stop('fix the mutants above (ci/mutants/README: find is one line of kernel code, '
                   'there exactly once)')


def campaign():
    sel = os.environ.get('MUTANT') or '*'
    files = select(sel)
    if not files:
        raise Stop("no mutant in ci/mutants/ matches '%s'" % sel)
    names = [os.path.basename(f)[:-len('.mutant')] for f in files]
    # Before out/mutants/ is written; every ci/nsfd run below is handed it.
    try:
        procs.hold_build_lock(TOP, say, command='make mutants MUTANT=%s' % sel)
    except runlog.EnvError as e:
        raise Stop(str(e))
    os.makedirs(os.path.join(RES, 'logs'), exist_ok=True)
    check_mutants(files)
    kernels_of = {f: kernel_of(f) for f in files}
    kernels = list(dict.fromkeys(kernels_of[f] for f in files))
    results = os.path.join(RES, 'results.json')
    start = time.monotonic()

    if os.environ.get('NSFD_MUTANTS_BASELINE', '1') != '0':
        for arch, config in kernels:
            b = 'baseline' + ('-' + label(arch, config) if label(arch, config) else '')
            log = os.path.join(RES, 'logs', b + '.log')
            say('%s: ci/nsfd run %s%s on the unmutated tree (log: out/mutants/logs/%s.log)'
                % (b, arch, ' --config ' + config if config else '', b))
            t = time.monotonic()
            rc = run_nsfd(log, '', arch, config)
            if rc != ExitCode.PASS:
                sys.stdout.write(tail(log, 15))
                raise Stop('%s: ci/nsfd exit %d (%s s): the unmutated tree must pass, or every '
                           'mutant would count as killed; nothing was mutated' % (b, rc, since(t)))
            say('%s: ok (%s s)' % (b, since(t)))

    stopped = None
    for i, (f, name) in enumerate(zip(files, names), 1):
        arch, config = kernels_of[f]
        log = os.path.join(RES, 'logs', name + '.log')
        kept = os.path.join(RES, 'logs', name + '.results.json')
        try:
            os.unlink(kept)
        except OSError:
            pass
        lab = label(arch, config)
        say('[%d/%d] %s%s: %s' % (i, len(files), name, ' (%s)' % lab if lab else '',
                                  mutant.parse(f)['description']))
        t = time.monotonic()
        rc = run_nsfd(log, f, arch, config)
        secs = since(t)
        out = os.path.join(TOP, 'out', variants.name(arch, False, config), 'results.json')
        if os.path.isfile(out):
            shutil.copy(out, kept)
        with open(log, errors='replace') as fh:
            text = fh.read()
        # The run must have built this mutant: the tree's working file holds
        # it (ci/prepare-tree.sh applies it last; only the next run takes it out).
        applied = rc in (ExitCode.PASS, ExitCode.FAIL) and applied_in_tree(f)
        said, stopped = verdict(rc, applied, 'tree: cannot prepare' in text)
        if stopped and rc in (ExitCode.PASS, ExitCode.FAIL):
            with open(log, 'a') as fh:
                fh.write('mutants: %s is not in %s after the run: ci/prepare-tree.sh does not apply '
                         'NSFD_MUTANT\n' % (name, TREE))
        mutant.record(results, name, said, rc, secs, kept if said != 'error' else None)
        if stopped:
            if rc == ExitCode.ENVIRONMENT:
                sys.stdout.write(tail(log, 10))
            say(stopped.replace('(environment)', '(environment, see %s)' % log))
            break
        if said == 'error':
            lines = [l for l in text.splitlines()
                     if (l.startswith('mutants: ') if rc == ExitCode.ENVIRONMENT else
                         ('did not build' in l or 'build-failed' in l))]
            sys.stdout.write(''.join('    %s\n' % l for l in lines[:None if rc == ExitCode.ENVIRONMENT else 3]))

    if os.environ.get('NSFD_MUTANTS_RESTORE', '1') != '0':
        for arch, config in kernels:
            r = 'restore' + ('-' + label(arch, config) if label(arch, config) else '')
            t = time.monotonic()
            rc = run_nsfd(os.path.join(RES, 'logs', r + '.log'), '', arch, config)
            if rc == ExitCode.PASS:
                say('%s: the unmutated tree rebuilt and passed (%s s)' % (r, since(t)))
            else:
                say('%s: ci/nsfd exit %d on the unmutated tree (%s s, out/mutants/logs/%s.log)'
                    % (r, rc, since(t), r))
    else:
        say("restore skipped: build/ holds the last mutant's objects; the next 'make run' rebuilds them")

    rc = mutant.summary(results, os.path.join(HERE, 'README'), names, since(start))
    return ExitCode.ENVIRONMENT if stopped else rc


def applied_in_tree(path):
    m = mutant.parse(path)
    target = os.path.join(TREE, m['file'])
    text = mutant.read_lines(target) if os.path.isfile(target) else []
    return bool(not mutant.matches(text, m['find']) and mutant.matches(text, m['replace']))


def main(argv):
    _, code = ci_args.parse(ci_args.parser('python3 -m ci.mutants.campaign', __doc__), argv[1:])
    if code is not None:
        return code
    os.environ['PYTHONDONTWRITEBYTECODE'] = '1'
    # A mutant that KUnit already caught needs no kselftest guest (a leak
    # mutant would keep the guest waiting on every "freed" deadline): its
    # killers are then the KUnit cases. NSFD_FAIL_FAST=0 runs both always.
    if not os.environ.get('NSFD_FAIL_FAST'):
        os.environ['NSFD_FAIL_FAST'] = '1'
    # SIGTERM, SIGINT, SIGHUP: ci/nsfd and everything under it end, exit 2
    # (the mutant in flight gets no verdict; the next run lays the tree anew);
    # this process is their subreaper and exits after the last of them.
    procs.stop_on_signals(ExitCode.ENVIRONMENT)
    try:
        return campaign()
    except Stop as e:
        say(str(e))
        return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(ci_args.run(main, sys.argv))
