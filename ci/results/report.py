"""Turn one variant's console logs and stage outcomes into the contract files.

usage:
  python3 -m ci.results.report variant OUTDIR --arch A --variant V --kernel-version X
          [--kernel-source S] [--patch NAME=ID ...] [--patched]
      reads OUTDIR/stages.tsv ("stage<TAB>status<TAB>seconds" lines,
      status ok|fail|timeout|build-failed|env-error|skipped),
      OUTDIR/console-*.log, OUTDIR/kselftest-channel.log (the guest's KTAP
      channel) and OUTDIR/kunit-skipped.tsv ("suite<TAB>reason": KUnit
      suites that did not compile on the tree, reported SKIP); writes
      kunit.ktap, kselftest.ktap, results.json, junit.xml, timings.json,
      kcidb.json (KCIDB v5.3, ci/results/kcidb.py);
      prints one line per failure, one per stage that did not build, and
      the summary line.
      --patched: the tree is ours (no --kernel-src), so everything must run:
      every KUnit suite of kunit/ and every TEST_GEN_PROGS binary of
      selftests/nsfd/Makefile must give results, and no test may skip for
      "socketat not implemented"; each violation is a failed test.
  python3 -m ci.results.report summary RESULTS.json...
      the summary line over several variants.

Exit: 1 a test failed, a kernel report in a console, a guest timed out,
or no results where some were due - even when a later stage or another
variant did not build; else 2 usage or environment error (a results.json
that summary cannot read included: nothing was judged); else 125 a stage
could not be built (the kernel, a patch, the tests); else 0. A stage that
did not build is not counted as a failed test. docs/exit-codes.md has
each situation's code on every path.
"""

import errno

import argparse
import glob
import hashlib
import json
import os
import re
import sys
import traceback
import xml.etree.ElementTree as ET

from . import boots, console, identity, kcidb, ktap, kunit_hang

EXIT_PASS, EXIT_FAIL, EXIT_ENV, EXIT_BUILD = 0, 1, 2, 125
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# In patched mode socketat must exist: a socketat test that SKIPs because
# the syscall is missing (ENOSYS), absent from the uapi headers (a table
# row lost), or owned by another syscall is a FAIL there.
NOSYS = ('socketat not implemented', "socketat not in this tree's uapi headers",
         'syscall ')
# Skips that say the kernel is older than 6.12 (an ioctl it lacks, nsfs
# without compat_ioctl): right on 6.1, a regression on the patched 6.12.
OLD_KERNEL = re.compile(r'\(before 6\.\d+\)|kernel before 6\.\d+|has no compat_ioctl')
# Where each stage logs, for the "did not build" line.
STAGE_LOG = {'kernel': 'kernel.log', 'selftests': 'selftests.log', 'kunit': 'kunit.log'}
STAGE_WHAT = {'tree': 'tree (patches and test wiring)', 'selftests': 'kselftests'}


def read_stages(path):
    stages = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip('\n').split('\t')
                if len(parts) >= 3:
                    stages.append({'stage': parts[0], 'status': parts[1],
                                   'seconds': float(parts[2]),
                                   'detail': parts[3] if len(parts) > 3 else ''})
    return stages


def read(path):
    if not os.path.exists(path):
        return None
    with open(path, errors='replace') as f:
        return f.read()


def fail(source, suite, name, reason):
    return {'source': source, 'suite': suite, 'name': name, 'status': 'fail',
            'duration': None, 'reason': reason}


def kselftest_name(r):
    # The guest names each binary as kselftest's runner does:
    # "selftests: nsfd: prog"; results use run_kselftest.sh's "nsfd:prog".
    if r['suite'].startswith('selftests: '):
        r['suite'] = r['suite'][len('selftests: '):].replace(': ', ':')
        if r['name'] == 'selftests: nsfd: ' + r['suite'].split(':', 1)[-1]:
            r['name'] = r['suite']
    return r


def write_ktap(path, lines):
    with open(path, 'w') as f:
        for _, text in lines:
            f.write(text + '\n')


def before_the_cut(res, stage):
    """A test stage the machine ended (env-error: QEMU SIGKILLed by the
    OOM killer) judged nothing past that point: the results its KTAP
    completed stay (a failure before it is a verdict), those it left
    unfinished ("KTAP stream truncated") are no failures of the kernel."""
    if stage['status'] != 'env-error':
        return res
    return [r for r in res if 'KTAP stream truncated' not in (r['reason'] or '')]


def collect_kunit(outdir, stage):
    """Results of the KUnit stage, from the console kunit.py recorded."""
    log = read(os.path.join(outdir, 'console-kunit.log'))
    if log is None:
        return [fail('kunit', 'kunit', 'console', 'no console log of the KUnit boot')]
    lines = ktap.extract(log, 'kunit')
    write_ktap(os.path.join(outdir, 'kunit.ktap'), lines)
    res = ktap.results(lines, 'kunit')
    if stage['status'] == 'env-error':
        return before_the_cut(res, stage)
    if not res:
        res.append(fail('kunit', 'kunit', 'ktap',
                        'no KTAP in the KUnit console (kunit.py: %s)' % stage['status']))
    elif stage['status'] == 'timeout':
        # A case hung: named, with what it kept from running (kunit_hang.py).
        end = boots.read_end(outdir, 'console-kunit.log') or {}
        try:
            expected = expected_kunit_for(outdir, TOP)
        except ValueError:
            expected = []
        res = kunit_hang.named(outdir, lines, res, end.get('limit'), expected)
    elif stage['status'] != 'ok' and not any(r['status'] == 'fail' for r in res):
        res.append(fail('kunit', 'kunit', 'kunit.py',
                        'kunit.py reported failure (%s) though the KTAP shows none'
                        % (stage['detail'] or stage['status'])))
    return res


def guest_ktap(outdir, suffix=''):
    """One guest's KTAP text and where it came from.

    suffix is '' for the first guest, '-N' for guest N (ci/nsfd deals the
    binaries out to several guests). Returns (text or None, channel,
    note): channel is the file it was read from; note says why it is not
    the KTAP channel, when it is not.
    """
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


GUEST_LOG = re.compile(r'^(?:console-kselftest|kselftest-channel)(-\d+)?\.log$')


def guest_suffixes(outdir):
    """The guests that left a console or channel log: '' and '-N', in order."""
    found = {m.group(1) or '' for m in map(GUEST_LOG.match, os.listdir(outdir)) if m}
    return sorted(found, key=lambda x: int(x[1:] or 1)) or ['']


def merged_ktap(streams):
    """One KTAP stream of several guests' streams: one version line and
    plan, every guest's binaries renumbered in turn."""
    body, n = [], 0
    for lines in streams:
        top = 0
        for t, text in lines:
            if VERSION_OR_PLAN.match(text):
                continue
            m = ktap.RESULT.match(text)
            if m:
                top += 1
                text = '%s %d%s' % (m.group(1), n + int(m.group(2)), text[m.end(2):])
            body.append((t, text))
        n += top
    return [(None, 'KTAP version 1'), (None, '1..%d' % n)] + body


VERSION_OR_PLAN = re.compile(r'^(?:(?:KTAP|TAP) version \d+|1\.\.\d+)\s*$')


INIT_DONE = 'nsfd-init: done'


def console_reached_the_end(outdir, suffix):
    """Whether a guest's console holds init's last line (after the
    kmemleak scan, before the reboot)."""
    text = read(os.path.join(outdir, 'console-kselftest%s.log' % suffix)) or ''
    return any(ln.rstrip('\r') == INIT_DONE for ln in text.splitlines())


def collect_kselftest(outdir, stage, failed_boots=()):
    """The guests' results; a guest in FAILED_BOOTS (its console's name)
    never reached its init: its boot result says so, and nothing else."""
    res, streams, files, notes = [], [], [], []
    suffixes = guest_suffixes(outdir)
    for suffix in suffixes:
        if 'console-kselftest%s.log' % suffix in failed_boots:
            continue
        who = 'guest' if len(suffixes) == 1 else 'guest%s' % (suffix or '-1')
        text, channel, note = guest_ktap(outdir, suffix)
        if text is None:
            res.append(fail('kselftest', who, 'console', 'no console log of the guest'))
            continue
        lines, ended = ktap.extract(text, 'guest')
        streams.append(lines)
        got = before_the_cut([kselftest_name(r) for r in ktap.results(lines, 'kselftest')], stage)
        res += got
        files.append(channel or 'console-kselftest%s.log' % suffix)
        if note:
            notes.append(note)
        if stage['status'] in ('timeout', 'env-error'):
            continue
        if not lines:
            res.append(fail('kselftest', who, 'ktap', 'the guest printed no KTAP'))
        elif not ended:
            res.append(fail('kselftest', who, 'end-marker',
                            'the guest stopped before the end of its KTAP'))
        elif not got:
            res.append(fail('kselftest', who, 'ktap', 'the guest ran no tests'))
        elif channel and not console_reached_the_end(outdir, suffix):
            # The KTAP is whole on its channel, but a report printed after
            # the console was cut would go unseen.
            res.append(fail('kselftest', who, 'console-end',
                            'the console stopped before init\'s last line (%s): kernel '
                            'messages after the cut were never scanned' % INIT_DONE))
    if stage['status'] == 'timeout' and len(failed_boots) < len(suffixes):
        res.append(fail('kselftest', 'guest', 'timeout',
                        'the guest did not end in time (%s)' % stage['detail']))
    if streams:
        write_ktap(os.path.join(outdir, 'kselftest.ktap'),
                   streams[0] if len(streams) == 1 else merged_ktap(streams))
    return res, {'file': ', '.join(files), 'fallback': '; '.join(notes)}


def kunit_skipped(outdir, patched):
    """KUnit suites that did not compile on the tree (kunit-skipped.tsv)."""
    res = []
    text = read(os.path.join(outdir, 'kunit-skipped.tsv')) or ''
    for line in text.splitlines():
        suite, _, reason = line.partition('\t')
        if not suite.strip():
            continue
        why = 'does not compile on this tree: %s' % (reason.strip() or 'no reason given')
        if patched:
            res.append(fail('pipeline', 'pipeline', 'expected.kunit.' + suite.strip(),
                            'KUnit suite %s did not run: it %s' % (suite.strip(), why)))
        else:
            res.append({'source': 'kunit', 'suite': suite.strip(), 'name': suite.strip(),
                        'status': 'skip', 'duration': None, 'reason': why})
    return res


def expected_kunit_suites(top):
    """The .name of every struct kunit_suite in top/kunit/**.c. Fails
    closed, as expected_kselftests."""
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


def expected_kselftests(top):
    """TEST_GEN_PROGS of top/selftests/nsfd/Makefile. Fails closed: no
    Makefile, or none listed, raises (exit 2): an empty list would
    expect nothing."""
    path = os.path.join(top, 'selftests', 'nsfd', 'Makefile')
    text = (read(path) or '').replace('\\\n', ' ')
    progs = []
    for m in re.finditer(r'^\s*TEST_GEN_PROGS\s*[:+]?=(.*)$', text, re.M):
        progs += [w for w in m.group(1).split() if not w.startswith('$') and w not in progs]
    if not progs:
        raise ValueError('%s lists no TEST_GEN_PROGS: cannot say which kselftests must run' % path)
    return progs


def expected_kunit_for(outdir, top):
    """The suites this kernel must run: OUTDIR/expected-kunit-suites.txt
    (ci/nsfd writes it from the .config: a matrix config that switches a
    suite's symbol off does not expect it), else every suite in kunit/."""
    text = read(os.path.join(outdir, 'expected-kunit-suites.txt'))
    if text is not None:
        return [l.strip() for l in text.splitlines() if l.strip()]
    return expected_kunit_suites(top)


def patched_checks(tests, by, top, outdir=None, failed_boots=()):
    """In patched mode: what must have run, and no socketat skip.

    A stage that did not run gives no verdict on its suites (the line that
    names what did not build says why); nor does one whose kernel did not
    boot (its boot result says so: FAILED_BOOTS); a stage that ran must
    show them all.
    """
    booted = {'kunit': lambda c: 'kunit' in c, 'guest': lambda c: 'kselftest' in c}
    ran = lambda st: st in by and by[st]['status'] not in ('skipped', 'build-failed', 'env-error') \
        and not any(booted[st](c) for c in failed_boots)
    out = []
    if ran('kunit'):
        have = {t['suite'] for t in tests if t['source'] == 'kunit'}
        have |= {t['name'][len('expected.kunit.'):] for t in tests
                 if t['name'].startswith('expected.kunit.')}
        for suite in (expected_kunit_for(outdir, top) if outdir else expected_kunit_suites(top)):
            if suite not in have:
                out.append(fail('pipeline', 'pipeline', 'expected.kunit.' + suite,
                                'KUnit suite %s did not run' % suite))
    if ran('guest'):
        have = {t['suite'] for t in tests if t['source'] == 'kselftest'}
        for prog in expected_kselftests(top):
            if 'nsfd:' + prog not in have:
                out.append(fail('pipeline', 'pipeline', 'expected.kselftest.' + prog,
                                'kselftest %s did not run' % prog))
    for t in tests:
        if t['status'] == 'skip' and t['reason'].startswith(NOSYS) and \
                'socketat' in t['suite'] + t['reason']:
            t['status'] = 'fail'
            t['reason'] = 'skipped in patched mode, where socketat must exist: ' + t['reason']
        elif t['status'] == 'skip' and OLD_KERNEL.search(t['reason']):
            t['status'] = 'fail'
            t['reason'] = 'skipped in patched mode, where the tree is 6.12: ' + t['reason']
    return out


def console_findings(outdir):
    res = []
    for name in sorted(os.listdir(outdir)):
        if name.startswith('console-') and name.endswith('.log'):
            for n, kind, line in console.findings(read(os.path.join(outdir, name))):
                res.append(fail('console', name, '%s:%d' % (kind, n), line[:300]))
    return res


def boot_results(outdir, stages):
    """[(console, test)]: the boot result of each boot the stages made,
    from its console and its end record (ci/results/boots.py). A boot
    without a record (nothing was started) or whose QEMU never started a
    kernel (an environment error) gives none."""
    by = {s['stage']: s for s in stages}
    consoles = []
    if 'kunit' in by and by['kunit']['status'] != 'skipped':
        consoles.append('console-kunit.log')
    if 'guest' in by and by['guest']['status'] != 'skipped':
        consoles += ['console-kselftest%s.log' % x for x in guest_suffixes(outdir)]
    elif 'guest' in by:
        consoles += boots.not_booted(outdir)     # "not run: the kernel did not boot"
    out = []
    for name in consoles:
        end = boots.read_end(outdir, name)
        if end is None:
            continue
        status, reason = boots.verdict(end, read(os.path.join(outdir, name)) or '')
        if status:
            out.append((name, {'source': 'boot', 'suite': 'boot', 'name': boots.name_of(name),
                               'status': status, 'duration': end.get('seconds'),
                               'reason': reason}))
    return out


def boot_identity(outdir, stages, failed_boots=()):
    """[(console, why)] for each boot that did not prove it ran the kernel
    (and initramfs) this variant built: identity-kernel.json against each
    console's banner, and a guest's build-id and initramfs id against
    identity-kernel.json and initramfs[-N].id (ci/results/identity.py)."""
    by = {s['stage']: s for s in stages}
    checked = []
    if 'kunit' in by and by['kunit']['status'] != 'skipped':
        checked.append(('console-kunit.log', False, None))
    if 'guest' in by and by['guest']['status'] != 'skipped':
        for suffix in guest_suffixes(outdir):
            checked.append(('console-kselftest%s.log' % suffix, True,
                          'initramfs%s.id' % suffix))
    if not checked:
        return []
    text = read(os.path.join(outdir, 'identity-kernel.json'))
    if text is None:
        return [(checked[0][0], 'no record of the kernel built (identity-kernel.json): '
                 'cannot prove what the boots ran')]
    ident = json.loads(text)
    bad = []
    for name, guest, idfile in checked:
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
            want = (read(os.path.join(outdir, idfile)) or '').strip() or 'missing'
        why = identity.check(log, ident, want, guest=guest)
        if why:
            bad.append((name, why))
    return bad


def judged(outdir, build):
    """What the results judged: the kernel and initramfs the boots proved."""
    ident = json.loads(read(os.path.join(outdir, 'identity-kernel.json')) or '{}')
    ids = {}
    for suffix in guest_suffixes(outdir):
        v = (read(os.path.join(outdir, 'initramfs%s.id' % suffix)) or '').strip()
        if v:
            ids['guest' + (suffix or '-1')] = v
    return {'uts_version': ident.get('uts_version'), 'banner': ident.get('banner'),
            'build_id': ident.get('build_id'), 'image_sha256': ident.get('image_sha256'),
            'tree_commit': build.get('tree_commit'), 'series_digest': build.get('series_digest'),
            'initramfs': ids}


def judged_lines(j):
    """The KTAP header comments that name what was judged."""
    if not j.get('proven', True):
        return ['# nsfd: NOT JUDGED: a boot did not prove it ran the kernel built (%s)'
                % j.get('banner')]
    out = ['# nsfd: kernel %s' % (j.get('banner') or 'unknown'),
           '# nsfd: build-id %s' % (j.get('build_id') or 'unknown'),
           '# nsfd: tree %s series %s' % (j.get('tree_commit') or 'unknown',
                                          j.get('series_digest') or 'none')]
    for guest, v in sorted(j.get('initramfs', {}).items()):
        out.append('# nsfd: initramfs %s %s' % (guest, v))
    return out


def stamp_ktap(path, j):
    """Put the judged lines after a KTAP file's version line."""
    text = read(path)
    if text is None:
        return
    lines = text.splitlines()
    at = 0
    while at < len(lines) and at < 2 and VERSION_OR_PLAN.match(lines[at]):
        at += 1
    lines[at:at] = judged_lines(j)
    with open(path, 'w') as f:
        f.write('\n'.join(lines) + '\n')


def exit_code(stages, tests):
    """1 > 2 > 125 > 0: a failed test or a kernel report is a verdict that
    no later build failure or environment error takes back."""
    statuses = {s['status'] for s in stages}
    if any(t['status'] == 'fail' for t in tests) or statuses & {'fail', 'timeout'}:
        return EXIT_FAIL
    if 'env-error' in statuses:
        return EXIT_ENV
    if 'build-failed' in statuses:
        return EXIT_BUILD
    if statuses - {'ok', 'skipped'}:
        return EXIT_FAIL
    return EXIT_PASS


def not_built(stages, outdir, variant):
    """One line for each stage that did not build or met an environment error."""
    lines = []
    for s in stages:
        what = STAGE_WHAT.get(s['stage'], s['stage'])
        if s['status'] == 'build-failed':
            log = os.path.join(outdir, STAGE_LOG.get(s['stage'], ''))
            where = shown(log) if s['stage'] in STAGE_LOG and os.path.exists(log) else \
                s['detail'] or 'see the output above'
            lines.append('nsfd: %s: %s did not build (%s)' % (variant, what, where))
        elif s['status'] == 'env-error':
            lines.append('nsfd: %s: %s: environment error: %s' % (
                variant, what, s['detail'] or 'see the output above'))
    return lines


def shown(path):
    rel = os.path.relpath(path)
    return path if rel.startswith('..') else rel


def counts(tests):
    c = {'passed': 0, 'failed': 0, 'skipped': 0}
    for t in tests:
        c[{'pass': 'passed', 'fail': 'failed'}.get(t['status'], 'skipped')] += 1
    return c


# Characters XML 1.0 cannot carry, even escaped: a console's ESC or NUL in
# a reason would make junit.xml unreadable to every CI that parses it.
NOT_XML = re.compile('[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]')


def xml_text(s):
    """s with each character XML 1.0 cannot carry written as \\xNN."""
    return NOT_XML.sub(lambda m: '\\x%02x' % ord(m.group()), s)


def junit(tests, path, name, props=None):
    """junit.xml of tests: a testsuite per (source, suite)."""
    root = ET.Element('testsuites', name=xml_text(name))
    suites = {}
    for t in tests:
        key = (t['source'], t['suite'])
        if key not in suites:
            suites[key] = ET.SubElement(root, 'testsuite', name=xml_text('%s.%s' % key))
            if props:
                pe = ET.SubElement(suites[key], 'properties')
                for k, v in props:
                    ET.SubElement(pe, 'property', name=xml_text(k), value=xml_text(v))
        case = ET.SubElement(suites[key], 'testcase', classname=xml_text('%s.%s' % key),
                             name=xml_text(t['name']), time='%.6f' % (t['duration'] or 0))
        if t['status'] == 'fail':
            ET.SubElement(case, 'failure', message=xml_text(t['reason'] or 'failed'))
        elif t['status'] in ('skip', 'todo'):
            ET.SubElement(case, 'skipped', message=xml_text(t['reason'] or t['status']))
    for key, el in suites.items():
        cases = [t for t in tests if (t['source'], t['suite']) == key]
        el.set('tests', str(len(cases)))
        el.set('failures', str(sum(t['status'] == 'fail' for t in cases)))
        el.set('skipped', str(sum(t['status'] in ('skip', 'todo') for t in cases)))
        el.set('time', '%.6f' % sum(t['duration'] or 0 for t in cases))
    c = counts(tests)
    root.set('tests', str(len(tests)))
    root.set('failures', str(c['failed']))
    root.set('skipped', str(c['skipped']))
    ET.ElementTree(root).write(path, encoding='utf-8', xml_declaration=True)


def summary_line(c):
    return 'nsfd: %d passed, %d failed, %d skipped' % (c['passed'], c['failed'], c['skipped'])


def series_files(top):
    """The patch files patches/series lists, in its order: the first word
    of each line (quilt's options follow it), comments and blank lines
    aside, as ci/prepare-tree.sh reads it."""
    with open(os.path.join(top, 'patches', 'series')) as f:
        return [ln.split('#')[0].split()[0] for ln in f if ln.split('#')[0].strip()]


def series_digest(top):
    """sha256 of patches/series and, in its order, every patch it lists:
    names the series a result was judged on."""
    h = hashlib.sha256()
    with open(os.path.join(top, 'patches', 'series'), 'rb') as f:
        h.update(f.read())
    for p in series_files(top):
        with open(os.path.join(top, 'patches', p), 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def patch_entry(top, name, patch_id):
    """A patch of patches/series as results.json names it: its file, its
    git patch-id and the sha256 of the file (KCIDB's patchset_hash)."""
    entry = {'patch': name, 'patch_id': patch_id}
    try:
        with open(os.path.join(top, 'patches', name), 'rb') as f:
            entry['sha256'] = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        pass
    return entry


def cmd_variant(a):
    stages = read_stages(os.path.join(a.outdir, 'stages.tsv'))
    by = {s['stage']: s for s in stages}
    tests, channel = [], {}
    booted = boot_results(a.outdir, stages)
    failed_boots = {c for c, t in booted if t['status'] == 'fail'}
    tests += [t for _, t in booted]
    if 'kunit' in by and by['kunit']['status'] != 'skipped' and \
            'console-kunit.log' not in failed_boots:
        tests += collect_kunit(a.outdir, by['kunit'])
    tests += kunit_skipped(a.outdir, a.patched)
    if 'guest' in by and by['guest']['status'] != 'skipped':
        res, channel = collect_kselftest(a.outdir, by['guest'], failed_boots)
        tests += res
    tests += console_findings(a.outdir)
    if a.patched:
        tests += patched_checks(tests, by, a.sources, a.outdir, failed_boots)
    code = exit_code(stages, tests)
    unbuilt = not_built(stages, a.outdir, a.variant)
    # A boot that ran another kernel (or initramfs) than the one built
    # judged nothing: its results are dropped and the run is exit 2.
    wrong = boot_identity(a.outdir, stages, failed_boots)
    if wrong:
        tests, code = [], EXIT_ENV
        unbuilt += ['nsfd: %s: identity: %s: %s' % (a.variant, n, why) for n, why in wrong]
    c = counts(tests)
    build = json.loads(read(os.path.join(a.outdir, 'build-info.json')) or '{}')
    j = judged(a.outdir, build)
    j['proven'] = not wrong
    patches = [patch_entry(a.sources, *p.split('=', 1)) for p in a.patch]
    doc = {
        'arch': a.arch, 'variant': a.variant,
        'kernel': {'version': a.kernel_version, 'source': a.kernel_source,
                   'series': patches},
        'patched': a.patched,
        'build': build, 'judged': j, 'identity_errors': [
            {'console': n, 'error': why} for n, why in wrong],
        'exit_code': code, 'summary': c, 'not_built': unbuilt,
        'kselftest_ktap': channel, 'stages': stages, 'tests': tests,
    }
    with open(os.path.join(a.outdir, 'results.json'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    with open(os.path.join(a.outdir, 'timings.json'), 'w') as f:
        json.dump({s['stage']: s['seconds'] for s in stages}, f, indent=1)
        f.write('\n')
    junit(tests, os.path.join(a.outdir, 'junit.xml'), 'nsfd ' + a.variant,
          [('nsfd.' + k, str(v)) for k, v in sorted(j.items()) if k != 'initramfs'] +
          [('nsfd.initramfs.' + k, v) for k, v in sorted(j['initramfs'].items())])
    kcidb.write(a.outdir)
    for name in ('kunit.ktap', 'kselftest.ktap'):
        stamp_ktap(os.path.join(a.outdir, name), j)
    for t in tests:
        if t['status'] == 'fail':
            print('nsfd: %s: FAIL %s: %s %s' % (a.variant, t['suite'], t['name'], t['reason']))
    if channel.get('fallback'):
        print('nsfd: %s: note: kselftest KTAP read from %s: %s' % (
            a.variant, channel['file'], channel['fallback']))
    for line in unbuilt:
        print(line)
    print(summary_line(c))
    return code


def cmd_summary(a):
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    codes, unbuilt = [], []
    for path in a.results:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            # A variant without results judged nothing: 2, as ci/nsfd merge
            # and make run say (1 would be a test that failed).
            print('nsfd: cannot read %s: %s: nothing was judged there' % (path, e))
            codes.append(EXIT_ENV)
            continue
        codes.append(doc['exit_code'])
        for k in total:
            total[k] += doc['summary'][k]
        print('nsfd: %-14s %s (exit %d)' % (doc['variant'] + ':',
              summary_line(doc['summary'])[6:], doc['exit_code']))
        unbuilt += doc.get('not_built', [])
    for line in unbuilt:
        print(line)
    print(summary_line(total))
    return verdict(codes)


def verdict(codes):
    """One exit over several (variants, runs, a driver's children): 1 >
    2 > 125 > 0; none at all judged nothing (2). Any other code (a child
    killed by a signal, a crash's 1 that is no verdict is its own
    business) is 2."""
    for code in (EXIT_FAIL, EXIT_ENV, EXIT_BUILD):
        if code in codes:
            return code
    if any(code != EXIT_PASS for code in codes):
        return EXIT_ENV
    return EXIT_PASS if codes else EXIT_ENV


def machine_fault(exc):
    """An exception as the machine's fault, for the line that says why a
    run judged nothing: a full disk, a read-only or failing file system,
    memory; None for anything else (a bug: its traceback says more)."""
    if isinstance(exc, MemoryError):
        return 'out of memory'
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO):
        return '%s%s' % (os.strerror(exc.errno).lower(),
                         ' (writing %s)' % exc.filename if exc.filename else '')
    return None


def cmd_bench(a):
    """bench.json from the benchmark's "# bench-json: {...}" line."""
    log = read(os.path.join(a.outdir, 'console-bench.log')) or ''
    ident = json.loads(read(os.path.join(a.outdir, 'identity-kernel.json')) or '{}')
    why = identity.check(log, ident, (read(os.path.join(a.outdir, 'initramfs-bench.id')) or
                                      'missing').strip(), guest=True)
    if why:
        print('nsfd: bench: identity: console-bench.log: %s' % why)
        return EXIT_ENV
    lines, ended = ktap.extract(log, 'guest')
    doc = None
    for _, text in lines:
        s = text.strip()
        if s.startswith('# bench-json: '):
            doc = json.loads(s[len('# bench-json: '):])
        elif s.startswith('#') and not s.startswith('# selftests:'):
            print('nsfd: bench:' + s[1:])
    res = ktap.results(lines, 'bench')
    if doc is None or not ended or any(r['status'] == 'fail' for r in res):
        print('nsfd: bench: no complete result; see %s' % os.path.join(a.outdir, 'console-bench.log'))
        return EXIT_FAIL
    with open(os.path.join(a.outdir, 'bench.json'), 'w') as f:
        json.dump(doc, f, indent=1)
        f.write('\n')
    return EXIT_PASS


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.results.report')
    sub = p.add_subparsers(dest='cmd', required=True)
    v = sub.add_parser('variant')
    v.add_argument('outdir')
    v.add_argument('--arch', required=True)
    v.add_argument('--variant', required=True)
    v.add_argument('--kernel-version', default='unknown')
    v.add_argument('--kernel-source', default='')
    v.add_argument('--patch', action='append', default=[])
    v.add_argument('--patched', action='store_true',
                   help='our own tree: every suite and binary must run, no socketat skip')
    v.add_argument('--sources', default=TOP,
                   help='where kunit/ and selftests/nsfd/ are (default: this checkout)')
    s = sub.add_parser('summary')
    s.add_argument('results', nargs='+')
    b = sub.add_parser('bench')
    b.add_argument('outdir')
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_ENV if e.code else EXIT_PASS
    try:
        return {'variant': cmd_variant, 'summary': cmd_summary, 'bench': cmd_bench}[a.cmd](a)
    except Exception as e:  # noqa: BLE001 (any bug here decides nothing)
        # Python's own exit for an uncaught exception is 1, which reads as
        # a verdict ("a test failed", bad to git bisect). It is not one.
        traceback.print_exc()
        fault = machine_fault(e)
        print('nsfd: report.py %s failed (%s, not a verdict); the traceback is above'
              % (a.cmd, 'the machine: ' + fault if fault else 'a bug in the reporting'))
        print('nsfd: 0 passed, 0 failed, 0 skipped')
        return EXIT_ENV


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
