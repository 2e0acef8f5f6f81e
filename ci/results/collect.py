"""Collect: what a variant's stages left in out/VARIANT/, read into the
model, judging nothing (ci/results/judge.py does that).

Read: stages.tsv ("stage<TAB>status<TAB>seconds[<TAB>detail]" lines),
console-kunit.log, each guest's console-kselftest[-N].log and
kselftest-channel[-N].log (the guest's KTAP channel), the boots' .end
records, kunit-skipped.tsv ("suite<TAB>reason": KUnit suites that did
not compile on the tree), identity-kernel.json and initramfs[-N].id,
build-info.json.
"""

import dataclasses
import json
import os
import re

from . import boots, console, identity, ktap
from .model import BootResult, StageResult, StageStatus, TestResult, failed

# Where each stage logs, for the "did not build" line.
STAGE_LOG = {'kernel': 'kernel.log', 'selftests': 'selftests.log', 'kunit': 'kunit.log'}
GUEST_LOG = re.compile(r'^(?:console-kselftest|kselftest-channel)(-\d+)?\.log$')
INIT_DONE = 'nsfd-init: done'


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, errors='replace') as f:
        return f.read()


def read_json(path):
    return json.loads(read(path) or '{}')


def read_stages(path):
    """stages.tsv as StageResults, in order."""
    stages = []
    for line in (read(path) or '').splitlines():
        parts = line.split('\t')
        if len(parts) >= 3:
            stages.append(StageResult(parts[0], parts[1], float(parts[2]),
                                      parts[3] if len(parts) > 3 else ''))
    return stages


def ran(by, stage):
    """Whether STAGE is in BY (stage -> StageResult) and was not skipped."""
    return stage in by and by[stage].status != StageStatus.SKIPPED


def kselftest_name(r):
    """A guest's result named as run_kselftest.sh names it: the guest
    says "selftests: nsfd: prog", results "nsfd:prog"."""
    r = TestResult.of(r)
    if not r.suite.startswith('selftests: '):
        return r
    suite = r.suite[len('selftests: '):].replace(': ', ':')
    name = suite if r.name == 'selftests: nsfd: ' + suite.split(':', 1)[-1] else r.name
    return r.replace(suite=suite, name=name)


def ktap_results(lines, source):
    return [TestResult.of(r) for r in ktap.results(lines, source)]


@dataclasses.dataclass(frozen=True)
class KunitRun:
    """The KUnit boot's console: None when there is no console log; the
    kernel's own list of its cases (kunit-cases.txt, written after a hang;
    None without one) and KUnit's limit of that boot (its end record)."""
    lines: list = None
    results: list = ()
    cases: list = None
    limit: float = None


@dataclasses.dataclass(frozen=True)
class GuestRun:
    """One kselftest guest: who (guest, guest-N), its KTAP lines, whether
    its KTAP ended, where it was read from (channel: a file name; None:
    not the KTAP channel), why not from the channel (note), whether the
    console shows init's last line, and its results."""
    who: str
    text_found: bool = True
    lines: list = ()
    ended: bool = False
    channel: str = None
    note: str = ''
    console_ended: bool = False
    results: list = ()
    file: str = ''


def guest_ktap(outdir, suffix=''):
    """One guest's KTAP text and where it came from: (text or None,
    channel, note); channel is the file it was read from (None: neither
    holds the guest's KTAP); note says why it is not the KTAP channel."""
    chan_name = 'kselftest-channel%s.log' % suffix
    cons_name = 'console-kselftest%s.log' % suffix
    chan = read(os.path.join(outdir, chan_name))
    cons = read(os.path.join(outdir, cons_name))
    if chan is not None and 'nsfd-kselftest: begin' in chan:
        return chan, chan_name, ''
    if cons is not None and 'nsfd-kselftest: begin' in cons:
        why = [ln.strip() for ln in cons.splitlines()
               if ln.startswith('nsfd-init: cannot open the KTAP channel')]
        if why:
            note = why[0][len('nsfd-init: '):]
        elif chan is not None:
            note = 'the KTAP came on the console, not on its channel'
        else:
            note = ''      # no channel was asked for (an old init, a bench)
        return cons, cons_name, note
    return (chan if chan is not None else cons), None, ''


def guest_suffixes(outdir):
    """The guests that left a console or channel log: '' and '-N', in order."""
    found = {m.group(1) or '' for m in map(GUEST_LOG.match, os.listdir(outdir)) if m}
    return sorted(found, key=lambda x: int(x[1:] or 1)) or ['']


def console_reached_the_end(outdir, suffix):
    """Whether a guest's console holds init's last line (after the
    kmemleak scan, before the reboot)."""
    text = read(os.path.join(outdir, 'console-kselftest%s.log' % suffix)) or ''
    return any(ln.rstrip('\r') == INIT_DONE for ln in text.splitlines())


def kunit(outdir):
    log = read(os.path.join(outdir, 'console-kunit.log'))
    if log is None:
        return KunitRun()
    lines = ktap.extract(log, 'kunit')
    cases = read(os.path.join(outdir, 'kunit-cases.txt'))
    end = boots.read_end(outdir, 'console-kunit.log') or {}
    return KunitRun(lines, ktap_results(lines, 'kunit'),
                    None if cases is None else [c.strip() for c in cases.splitlines() if c.strip()],
                    end.get('limit'))


def guests(outdir, failed_boots=()):
    """The guests' runs; a guest in FAILED_BOOTS (its console's name)
    never reached its init: its boot result says so, and nothing else."""
    out = []
    suffixes = guest_suffixes(outdir)
    for suffix in suffixes:
        if 'console-kselftest%s.log' % suffix in failed_boots:
            continue
        who = 'guest' if len(suffixes) == 1 else 'guest%s' % (suffix or '-1')
        text, channel, note = guest_ktap(outdir, suffix)
        if text is None:
            out.append(GuestRun(who, text_found=False))
            continue
        lines, ended = ktap.extract(text, 'guest')
        out.append(GuestRun(
            who, True, lines, ended, channel, note,
            console_reached_the_end(outdir, suffix) if channel else False,
            [kselftest_name(r) for r in ktap_results(lines, 'kselftest')],
            channel or 'console-kselftest%s.log' % suffix))
    return out


def kunit_skipped(outdir):
    """[(suite, why)]: KUnit suites that did not compile on the tree."""
    out = []
    for line in (read(os.path.join(outdir, 'kunit-skipped.tsv')) or '').splitlines():
        suite, _, reason = line.partition('\t')
        if suite.strip():
            out.append((suite.strip(), 'does not compile on this tree: %s'
                        % (reason.strip() or 'no reason given')))
    return out


def console_findings(outdir):
    """A failed test for each kernel report in each console."""
    res = []
    for name in sorted(os.listdir(outdir)):
        if name.startswith('console-') and name.endswith('.log'):
            for n, kind, line in console.findings(read(os.path.join(outdir, name))):
                res.append(failed('console', name, '%s:%d' % (kind, n), line[:300]))
    return res


def boot_consoles(outdir, by):
    """The consoles of the boots the stages made: (name, is a guest)."""
    out = []
    if ran(by, 'kunit'):
        out.append(('console-kunit.log', False))
    if ran(by, 'guest'):
        out += [('console-kselftest%s.log' % x, True) for x in guest_suffixes(outdir)]
    return out


def not_booted_consoles(outdir, by):
    """The guests not made because the kernel did not boot: "not run: the
    kernel did not boot" (their end records say so)."""
    return boots.not_booted(outdir) if 'guest' in by and not ran(by, 'guest') else []


def boot_results(outdir, stages):
    """[(console, TestResult)]: the boot result of each boot the stages
    made, from its console and its end record (ci/results/boots.py). A
    boot without a record (nothing was started) or whose QEMU never
    started a kernel (an environment error) gives none."""
    by = {s.stage: s for s in stages}
    out = []
    for name in [n for n, _ in boot_consoles(outdir, by)] + not_booted_consoles(outdir, by):
        end = boots.read_end(outdir, name)
        if end is None:
            continue
        boot = BootResult(name, *boots.verdict(end, read(os.path.join(outdir, name)) or ''),
                          end.get('seconds'))
        if boot.status:
            out.append((name, boot.test(boots.name_of(name))))
    return out


def boot_identity(outdir, stages, failed_boots=()):
    """[(console, why)] for each boot that did not prove it ran the kernel
    (and initramfs) this variant built: identity-kernel.json against each
    console's banner, and a guest's build-id and initramfs id against
    identity-kernel.json and initramfs[-N].id (ci/results/identity.py)."""
    by = {s.stage: s for s in stages}
    checked = boot_consoles(outdir, by)
    if not checked:
        return []
    text = read(os.path.join(outdir, 'identity-kernel.json'))
    if text is None:
        return [(checked[0][0], 'no record of the kernel built (identity-kernel.json): '
                 'cannot prove what the boots ran')]
    ident = json.loads(text)
    bad = []
    for name, guest in checked:
        log = read(os.path.join(outdir, name))
        if log is None:
            # kunit.py that died before QEMU started, a guest never booted.
            bad.append((name, 'no console log: the boot never started, so nothing '
                        'proves what would have run'))
            continue
        if name in failed_boots and not identity.console_banners(log):
            # QEMU started the kernel built, which died or hung before
            # its banner: its failed boot result is the verdict.
            continue
        want = None
        if guest:
            idfile = 'initramfs%s.id' % name[len('console-kselftest'):-len('.log')]
            want = (read(os.path.join(outdir, idfile)) or '').strip() or 'missing'
        why = identity.check(log, ident, want, guest=guest)
        if why:
            bad.append((name, why))
    return bad


def judged(outdir, build):
    """What the results judged: the kernel and initramfs the boots proved."""
    ident = read_json(os.path.join(outdir, 'identity-kernel.json'))
    ids = {}
    for suffix in guest_suffixes(outdir):
        v = (read(os.path.join(outdir, 'initramfs%s.id' % suffix)) or '').strip()
        if v:
            ids['guest' + (suffix or '-1')] = v
    return {'uts_version': ident.get('uts_version'), 'banner': ident.get('banner'),
            'build_id': ident.get('build_id'), 'image_sha256': ident.get('image_sha256'),
            'tree_commit': build.get('tree_commit'), 'series_digest': build.get('series_digest'),
            'initramfs': ids}


def stage_logs(outdir, stages):
    """{stage: its log's path} for each stage whose log exists (the
    "did not build" line names it)."""
    out = {}
    for s in stages:
        log = os.path.join(outdir, STAGE_LOG.get(s.stage, ''))
        if s.stage in STAGE_LOG and os.path.exists(log):
            out[s.stage] = log
    return out
