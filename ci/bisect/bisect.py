"""Bisect a kernel git history with nsfd's verdict at each step.

usage: python3 -m ci.bisect.bisect --kernel-src DIR --good REV --bad REV
                 [--arch ARCH] [--debug] [--test PATTERN]   (make bisect)

The bisection runs in a bare clone that borrows DIR's objects
(build/bisect/repo.git, `git bisect start --no-checkout`): DIR's
checkout, branch, index and refs are never touched. Each step is
`ci/nsfd run ARCH --kernel-src DIR --kernel-rev COMMIT` (the tests laid
into that commit, built incrementally in build/ext/) and its verdict
(ci/bisect/judge.py's judge()):
  bad   a failed test or a kernel report (with --test, only failed tests
        whose "suite name" matches PATTERN, a Python regex);
  skip  the commit does not build (ci/nsfd exit 125), or a deciding test
        did not run or was skipped there (a suite that does not compile,
        a crash before the test): such a step cannot say good;
  good  everything else;
  abort an environment error (ci/nsfd exit 2, or no results): nothing is
        marked, the bisection stops with exit 2.
GOOD and BAD are run first, so that a range whose ends do not disagree
stops before any time is spent inside it. The deciding tests are those
that fail at BAD (matching PATTERN) and pass at GOOD; with PATTERN and
none such, those that fail at BAD.

Prints one line a step (commit, verdict, failed tests, seconds), then the
first bad commit and the tests that flipped. out/bisect/steps.json holds
every step; out/bisect/steps/COMMIT.json each step's results.json.
Exit: 0 the first bad commit was named; 1 the range could not be
narrowed to one commit (skipped commits, or the ends do not disagree);
2 usage or environment (the bisection aborted).
"""

import fcntl
import os
import re
import subprocess
import sys
import time

import ci
from ci import args, variants
from ci.pipeline import arches, procs, runlog
from ci.results import atomic, resultsfile
from ci.results.model import ExitCode
from . import judge  # each step's decision

TOP = ci.TOP
CI = os.path.join(TOP, 'ci')

OUT = os.path.join(TOP, 'out', 'bisect')
REPO = os.path.join(TOP, 'build', 'bisect', 'repo.git')
# A step's progress lines (each stage's end, a build's every 30 s) go to
# the terminal too, indented: a bisection is never silent.
PROGRESS = re.compile(r'^nsfd: [^ ]+: [a-z-]+: ')
# What the outer run shows of `git bisect run`: the steps' lines.
SHOWN = re.compile(r'^nsfd: bisect:|^    nsfd:')
# git bisect run: 0 good, 1 bad, 125 skip, anything from 128 up aborts
# the bisection without marking the commit.
GIT_CODE = {'good': ExitCode.PASS, 'bad': ExitCode.FAIL, 'skip': ExitCode.NOT_BUILT}
ABORT = 255
# git's messages, which the driver reads, in one language.
GIT_ENV = dict(os.environ, LC_ALL='C')


class Usage(Exception):
    pass


class Abort(Exception):
    """An environment error: the bisection stops, exit 2."""


STARTED = time.monotonic()


def log(msg):
    print('nsfd: bisect: %s  %s' % (msg, runlog.elapsed(STARTED)), flush=True)


def git(*args, check=True):
    p = subprocess.run(['git'] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True, errors='replace', env=GIT_ENV)
    if check and p.returncode:
        raise Abort('git %s failed (exit %d)' % (' '.join(args), p.returncode))
    return p.stdout.strip() if p.returncode == 0 else None


class Help(Exception):
    """--help: the usage was printed, exit 0."""


def parse(argv):
    p = args.parser('python3 -m ci.bisect.bisect', __doc__)
    for flag in ('--kernel-src', '--good', '--bad', '--test'):
        p.add_argument(flag, default='')
    p.add_argument('--arch', default='x86_64')
    p.add_argument('--debug', action='store_true')
    p.add_argument('--step', action='store_true', help="a step of `git bisect run` (internal)")
    a, code = args.parse(p, argv)
    if a is None:
        raise Usage() if code else Help()
    o = vars(a)
    if not (o['kernel_src'] and o['good'] and o['bad']):
        raise Usage()
    if not os.path.isdir(o['kernel_src']):
        raise Abort('KERNEL_SRC=%s is not a directory' % o['kernel_src'])
    o['kernel_src'] = os.path.abspath(o['kernel_src'])
    if o['arch'] not in arches.known():
        raise Abort("unknown arch '%s'; known: %s" % (o['arch'], ' '.join(arches.known())))
    try:
        re.compile(o['test'])
    except re.error as e:
        raise Abort("--test '%s' is not a Python regular expression: %s" % (o['test'], e))
    return o


def listed(lines, most=5):
    """LINES as one comma-separated string, the first MOST of them."""
    more = ', ...' if len(lines) > most else ''
    return ', '.join(lines[:most]) + more


def tee(cmd, log_path, shown, indent='', **kw):
    """CMD's exit status; its output to LOG_PATH, the lines SHOWN matches
    also to ours (after INDENT)."""
    with open(log_path, 'w') as f:
        p = procs.popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, errors='replace', **kw)
        for line in p.stdout:
            f.write(line)
            if shown.search(line):
                sys.stdout.write(indent + line)
                sys.stdout.flush()
        return procs.status(p.wait())


class Bisection:
    def __init__(self, o):
        self.o = o
        self.variant = variants.name(o['arch'], o['debug'], '')
        self.steps = os.path.join(OUT, 'steps.json')
        self.nsfd = os.path.join(CI, 'nsfd')

    def step(self, commit, label):
        """One nsfd run on COMMIT and its verdict (good, bad, skip,
        abort), recorded in steps.json and printed as a line."""
        t0 = time.monotonic()
        subject = git('-C', REPO, 'log', '-1', '--format=%s', commit, check=False) or ''
        os.makedirs(os.path.join(OUT, 'steps'), exist_ok=True)
        results = os.path.join(TOP, 'out', self.variant, 'results.json')
        try:
            os.unlink(results)
        except OSError:
            pass
        cmd = [self.nsfd, 'run', self.o['arch']] + (['--debug'] if self.o['debug'] else []) + \
            ['--kernel-src', self.o['kernel_src'], '--kernel-rev', commit]
        step_log = os.path.join(OUT, 'steps', commit + '.log')
        rc = tee(cmd, step_log, PROGRESS, '    ')
        secs = int(time.monotonic() - t0)
        kept = os.path.join(OUT, 'steps', commit + '.json')
        # A results.json is taken only with the files written with it
        # (ci/results/resultsfile.py); without them the step judged nothing.
        taken, why = resultsfile.load(os.path.dirname(results))
        if taken is not None:
            atomic.write_json(kept, taken)
        doc = judge.load(self.steps)
        said, lines = judge.judge(rc, kept if taken is not None else None, self.o['test'],
                                  doc.get('deciding', []))
        if taken is None and os.path.exists(results):
            said, lines = 'abort', ['(%s)' % why]
        doc['steps'].append({'commit': commit, 'subject': subject, 'verdict': said, 'exit': rc,
                             'seconds': secs, 'step': label.rstrip(':'), 'failed': lines})
        judge.save(self.steps, doc)
        # bad: the failed tests; skip and abort: why, in parentheses.
        why = (' (failed: %s)' if said == 'bad' else ' %s') % listed(lines) if lines else ''
        log('%s %s %s%s %d s  %s' % (label, commit[:12], said, why, secs, subject))
        if said == 'abort':
            log('step ended with exit %d (environment): last lines of its log:' % rc)
            with open(step_log, errors='replace') as f:
                sys.stdout.write(''.join('    ' + line for line in f.readlines()[-15:]))
        return said

    def run_step(self):
        """`git bisect run`'s command, in REPO: the verdict as git's code."""
        commit = git('-C', REPO, 'rev-parse', 'BISECT_HEAD')
        n = len(judge.load(self.steps)['steps']) + 1
        return GIT_CODE.get(self.step(commit, 'step %d:' % n), ABORT)

    def resolve(self, rev, name):
        src = self.o['kernel_src']
        full = git('-C', src, 'rev-parse', '-q', '--verify', rev + '^{commit}', check=False)
        if not full:
            raise Abort('%s=%s is not a commit of %s' % (name, rev, src))
        return full

    def run(self):
        src = self.o['kernel_src']
        good, bad = self.resolve(self.o['good'], 'GOOD'), self.resolve(self.o['bad'], 'BAD')
        if git('-C', src, 'merge-base', '--is-ancestor', good, bad, check=False) is None:
            raise Abort('GOOD=%s is not an ancestor of BAD=%s' % (good, bad))
        # One bisection at a time; the per-step nsfd runs take build/.lock.
        # git bisect run and its steps hold it too (handed down), so that
        # steps a killed driver left behind keep the next one out.
        os.makedirs(os.path.dirname(REPO), exist_ok=True)
        self.lock = lock = os.open(os.path.join(os.path.dirname(REPO), '.lock'),
                                   os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise Abort('another make bisect holds %s' % os.path.join(os.path.dirname(REPO), '.lock'))
        # build/.lock, as every entry point, before anything under out/ or
        # build/ goes: held for the whole bisection, its steps (and their
        # ci/nsfd run) are handed it through git bisect run.
        try:
            procs.hold_build_lock(TOP, log, command='make bisect KERNEL_SRC=%s GOOD=%s BAD=%s' % (
                src, self.o['good'], self.o['bad']))
        except runlog.EnvError as e:
            raise Abort(str(e))
        subprocess.run(['rm', '-rf', OUT, REPO], check=True)
        os.makedirs(OUT)
        if git('clone', '-q', '--bare', '--shared', src, REPO, check=False) is None:
            raise Abort('cannot clone %s into %s' % (src, REPO))
        # The clone holds DIR's branches; GOOD and BAD may be any commit of DIR.
        git('-C', REPO, 'fetch', '-q', src, good, bad, check=False)
        judge.save(self.steps, {'steps': []})
        start = time.monotonic()
        count = git('-C', REPO, 'rev-list', '--count', '%s..%s' % (good, bad))
        log('%s commits in %s..%s, %s%s' % (count, good[:12], bad[:12], self.variant,
                                             ', tests matching /%s/' % self.o['test']
                                             if self.o['test'] else ''))
        for rev, label, want in ((good, 'good end:', 'good'), (bad, 'bad end:', 'bad')):
            stop = ends(label, rev, self.step(rev, label), want)
            if stop:
                return stop
        doc = judge.load(self.steps)
        doc['deciding'] = judge.deciding(os.path.join(OUT, 'steps', good + '.json'),
                                           os.path.join(OUT, 'steps', bad + '.json'), self.o['test'])
        judge.save(self.steps, doc)
        if doc['deciding']:
            d = doc['deciding']
            log('deciding tests (must run and pass for a step to be good): %s%s'
                % (listed(d), ' (%d)' % len(d) if len(d) > 5 else ''))
        else:
            log('no test flipped between the ends: every step is judged by its failures and exit')
        git('-C', REPO, 'bisect', 'start', '--no-checkout', bad, good)
        step_cmd = ci.command('ci.bisect.bisect', '--step',
                              '--kernel-src', src, '--good', good, '--bad', bad, '--arch', self.o['arch']) + \
            (['--debug'] if self.o['debug'] else []) + \
            (['--test', self.o['test']] if self.o['test'] else [])
        run_log = os.path.join(OUT, 'git-bisect-run.log')
        rc = tee(['git', '-C', REPO, 'bisect', 'run'] + step_cmd, run_log, SHOWN,
                 env=GIT_ENV, pass_fds=(self.lock,))
        bisect_log = git('-C', REPO, 'bisect', 'log', check=False) or ''
        with open(os.path.join(OUT, 'git-bisect.log'), 'w') as f:
            f.write(bisect_log + '\n')
        git('-C', REPO, 'bisect', 'reset', check=False)
        log('done in %d s; steps in out/bisect/steps.json' % (time.monotonic() - start))
        with open(run_log, errors='replace') as f:
            run_text = f.read()
        first = first_bad(bisect_log)
        if first:
            return self.conclude(first)
        steps = judge.load(self.steps)['steps']
        # A step's 255 (an environment error, or a step stopped by a
        # signal) makes git give up without marking it; git bisect run
        # itself may have been killed (128 + the signal).
        if (steps and steps[-1]['verdict'] == 'abort') or 'bisect run failed' in run_text \
                or rc >= 128:
            raise Abort('aborted: an environment error; nothing was marked '
                        '(see out/bisect/git-bisect-run.log)')
        cands = candidates(run_text)
        if cands:
            log('the first bad commit is one of these %d; the others could not say (skip):'
                % len(cands))
            for c in cands:
                log('  ' + git('-C', REPO, 'log', '-1', '--format=%h %s', c))
        else:
            sys.stdout.write(''.join('    %s\n' % l for l in run_text.splitlines()[-5:]))
        log('could not name one first bad commit (git bisect run exit %d): out/bisect/git-bisect.log' % rc)
        return ExitCode.FAIL

    def conclude(self, first):
        log('first bad commit: ' + git('-C', REPO, 'log', '-1', '--format=%h %s', first))
        doc = judge.load(self.steps)
        names = judge.flipped(doc, first, self.o['test'], os.path.join(OUT, 'steps'))
        atomic.write_text(os.path.join(OUT, 'flipped.txt'), ''.join(n + '\n' for n in names))
        for n in names[:20]:
            log('flipped: ' + n)
        if len(names) > 20:
            log('flipped: ... %d more in out/bisect/flipped.txt' % (len(names) - 20))
        doc['first_bad'] = first
        doc['seconds'] = sum(s['seconds'] for s in doc['steps'])
        judge.save(self.steps, doc)
        return ExitCode.PASS


def ends(label, rev, said, want):
    """None if the end at REV said what it must (WANT), else the exit:
    an environment error aborts (Abort), anything else is 1."""
    if said == want:
        return None
    end = label.split()[0].upper()
    if said == 'abort':
        raise Abort('aborted: an environment error at %s; nothing was marked' % end)
    why = {'skip': 'does not build', 'bad': 'tests fail', 'good': 'every test passes'}[said]
    log('%s %s is not %s (%s): nothing to bisect' % (end, rev[:12], want, why))
    return ExitCode.FAIL


def first_bad(bisect_log):
    m = re.search(r'^# first bad commit: \[([0-9a-f]+)\]', bisect_log, re.M)
    return m.group(1) if m else None


def candidates(run_text):
    """The commits git names when skips next to the first bad one leave
    several ("... could be any of:")."""
    m = re.search(r'could be any of:\n(.*?)(?:^We cannot bisect more|\Z)', run_text, re.S | re.M)
    return re.findall(r'^[0-9a-f]{40}$', m.group(1), re.M) if m else []


def main(argv):
    step_mode = '--step' in argv
    # SIGTERM, SIGINT, SIGHUP: every step's processes end, exit 2 (255
    # inside `git bisect run`: a step that was stopped marks nothing). The
    # driver is their subreaper: a step whose `git bisect run` ended first
    # (the stop signals it first) comes to the driver, which exits only
    # once the step has ended and with it the lock the step was handed.
    procs.stop_on_signals(ABORT if step_mode else ExitCode.ENVIRONMENT)
    try:
        o = parse(argv)
        if step_mode:
            # git exports GIT_DIR (".") to the command: the step's own git
            # calls (KERNEL_SRC's objects, the build tree) must not inherit it.
            for k in ('GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX',
                      'GIT_COMMON_DIR'):
                os.environ.pop(k, None)
            return Bisection(o).run_step()
        return Bisection(o).run()
    except Help:
        return ExitCode.PASS
    except Usage:
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return ExitCode.ENVIRONMENT
    except Abort as e:
        log(str(e))
        return ABORT if step_mode else ExitCode.ENVIRONMENT
    except Exception:
        # A fault of the driver judged nothing: in a step, git must not
        # read it as bad (1), so it aborts the bisection (255).
        import traceback
        traceback.print_exc(file=sys.stdout)
        log('the driver itself raised an exception (above): nothing was marked; '
            'please report it with this log')
        return ABORT if step_mode else ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv[1:], also=(ABORT,)))
