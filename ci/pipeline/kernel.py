"""The kernel of a variant: its .kunitconfig, its build through kunit.py
(incremental, through ccache, skipped when its inputs are those of the
last build), what every boot of it must print, and KUnit's run.

Each function takes the variant (variant.Variant) it works for.
"""

import functools
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess

from ci.results import boots, expected, identity
from . import bootwatch, decide, kunitconfig, machine, procs
from .kunit_objects import rows as kunit_object_rows
from .runlog import EnvError, Stage, now, since, show_tail

PIPELINE = os.path.dirname(os.path.abspath(__file__))


def fragments(v):
    """The kunit-configs fragments this variant merges, later ones win."""
    kc = os.path.join(v.top, 'kunit-configs')
    frags = [os.path.join(kc, f + '.kunitconfig') for f in ('nsfd', 'guest', 'lean')]
    if os.path.isfile(os.path.join(kc, v.arch + '.kunitconfig')):
        frags.append(os.path.join(kc, v.arch + '.kunitconfig'))
    if v.debug:
        frags.append(os.path.join(kc, 'debug.kunitconfig'))
    if v.matrix:
        frags.append(v.matrix)
    return frags


def write_kunitconfig(v, off=()):
    """The fragments merged into v.kcfg (kunitconfig.py), each symbol of
    OFF switched off."""
    try:
        kunitconfig.merge(v.kcfg, fragments(v), off)
    except OSError as e:
        raise EnvError('kunit-configs: cannot merge the fragments into %s: %s' % (v.kcfg, e))


KCONFIG_DECL = re.compile(r'^\s*(?:menu)?config\s+(\w+)\s*$', re.M)


def declared_symbols(src, wanted):
    """The symbols of WANTED that a Kconfig file of the tree SRC declares
    ("config SYM" or "menuconfig SYM"); None when SRC is no tree."""
    if not os.path.isdir(src):
        return None
    found = set()
    for d, dirs, files in os.walk(src):
        dirs[:] = [x for x in dirs if not x.startswith('.')]
        for name in files:
            if name.startswith('Kconfig'):
                try:
                    with open(os.path.join(d, name), errors='replace') as f:
                        found |= set(KCONFIG_DECL.findall(f.read())) & set(wanted)
                except OSError:
                    pass
    return found


def kconfig_verdict(v, result, log_text):
    """RESULT (a build-failed Stage) unless kunit.py's "Not all Kconfig
    options..." names a symbol of nsfd's own fragments that no Kconfig
    declares, in the tree under test or the patched 6.12 tree: a
    misspelling, our input (env-error naming it, exit 2). A symbol the
    tree under test lacks stays build-failed (125)."""
    missing = decide.kconfig_missing(log_text)
    if not missing or result.status != 'build-failed':
        return result
    declared = declared_symbols(v.src, missing) or set()
    reference = v.src if v.run.patched else v.run.reference_src
    ref = declared if reference == v.src else declared_symbols(reference, missing)
    typos = decide.misspelled_symbols(missing, declared, ref)
    if not typos:
        return result
    where = {}
    for frag in fragments(v):
        with open(frag, errors='replace') as f:
            text = f.read()
        for s in typos:
            if re.search(r'^(?:# )?CONFIG_%s\b' % s, text, re.M):
                where.setdefault(s, []).append(os.path.relpath(frag, v.top))
    return decide.kconfig_typo(typos, where)


def kernel_cc(ci, conf):
    """The CC= of every kernel build. ci/cc-ccache: ccache, but never for a
    source the assembler pulls a file into (.incbin, .include): such an
    object is always compiled."""
    return 'CC=%s %sgcc' % (os.path.join(ci, 'cc-ccache'), conf['CROSS_COMPILE'])


ASM_INCLUDE = r'^\s*asm(\s+volatile)?\s*\(\s*"\s*\.(include|incbin)\b'


def asm_include_hazard(v):
    """A header of the tree for this arch that hides an assembler .include
    or .incbin in an asm() string (s390's cpu_mf.h does) pulls a file into
    C objects ci/cc-ccache cannot see from the source: ccache is off for
    that build (NSFD_CC_NOCACHE=1, read by ci/cc-ccache)."""
    srcarch = {'x86_64': 'x86', 'i386': 'x86'}.get(v.conf['LINUX_ARCH'], v.conf['LINUX_ARCH'])
    # git grep: 0 found, 1 none; anything else could not look (a tree
    # that is not a git repository, the fault suite's): ccache off, the
    # safe side, not on.
    p = subprocess.run(['git', '-C', v.src, 'grep', '-lE', ASM_INCLUDE, '--',
                        'arch/%s/include' % srcarch, 'include'], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    hit = p.stdout.split('\n')[0] if p.returncode == 0 else ''
    if hit:
        v.say('%s: kernel: %s pulls a file in through the assembler: ccache off for this build'
              % (v.name, hit))
    elif p.returncode != 1:
        v.say('%s: kernel: cannot search %s for assembler includes (git grep exit %d): '
              'ccache off for this build' % (v.name, v.src, p.returncode))
    v.cc_nocache = '0' if p.returncode == 1 else '1'


def pipeline_digest():
    """The pipeline's own code: a change to it redoes what it built."""
    h = hashlib.sha256()
    for f in sorted(glob.glob(os.path.join(PIPELINE, '*.py'))):
        with open(f, 'rb') as fh:
            h.update(fh.read())
    return h.hexdigest()


def inputs_digest(v, words, data):
    """A digest of the tree's commit, the pipeline's code, WORDS and DATA:
    a stage's output is up to date when it was built from the same one.
    None when the tree has changes of its own (a mutant) or no commit:
    such a tree is always built through."""
    if not v.run.tree_head:
        return None
    h = hashlib.sha256()
    h.update(('%s\n%s\n%s\n' % (v.run.tree_head, pipeline_digest(), '\n'.join(words))).encode())
    h.update(data.encode())
    return h.hexdigest()


def gcc_version(conf):
    """The compiler's first --version line; EnvError, naming its package,
    when it is not installed (a build with it would read as 125)."""
    cc = conf['CROSS_COMPILE'] + 'gcc'
    version = procs.output([cc, '--version'], default=None)
    if version is None:
        raise EnvError(decide.missing_tool(cc) if shutil.which(cc) is None else
                       '%s --version failed: a broken compiler' % cc)
    return version.split('\n')[0]


def kernel_inputs(v):
    """What the kernel in kdir is built from: the tree, the merged
    .kunitconfig, the compiler, kunit.py's arguments and the make variables
    that reach the compile lines. A no-change kunit.py build costs its
    olddefconfig and a walk of every directory (about 10 s)."""
    with open(v.kcfg) as f:
        data = f.read()
    data += gcc_version(v.conf) + '\n'
    data += ''.join('%s=%s\n' % (k, os.environ[k]) for k in sorted(os.environ)
                    if re.match(r'(KCFLAGS|KCPPFLAGS|KAFLAGS|KBUILD_[A-Z_]*|LLVM|HOSTCC)$', k))
    return inputs_digest(v, ['kernel'] + v.common, data)


def outputs_stamp(inputs, files):
    """INPUTS and each FILE's name, size and mtime: what a stage records,
    so that an output rebuilt or removed behind nsfd's back is not up to
    date."""
    parts = [inputs]
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            continue
        parts.append('%s %d %d' % (f, st.st_size, int(st.st_mtime)))
    return ' '.join(parts)


def up_to_date(stamp_file, inputs, files):
    if not inputs:
        return False
    try:
        with open(stamp_file) as f:
            return f.read().strip() == outputs_stamp(inputs, files)
    except OSError:
        return False


def write_stamp(stamp_file, inputs, files):
    with open(stamp_file, 'w') as f:
        f.write(outputs_stamp(inputs, files) + '\n')


def ccache_counts():
    """(hits, misses) of the cache so far ((0, 0) without ccache)."""
    hits = misses = 0
    for line in procs.output(['ccache', '--print-stats']).split('\n'):
        key, _, val = line.partition('\t')
        if key in ('direct_cache_hit', 'preprocessed_cache_hit'):
            hits += int(val)
        elif key == 'cache_miss':
            misses += int(val)
    return hits, misses


def objects_newer(kd, stamp):
    """(count, newest object's directory) of the .o files under KD newer
    than STAMP's mtime."""
    count, newest, where = 0, 0.0, ''
    for d, _, files in os.walk(kd):
        for f in files:
            if f.endswith('.o'):
                try:
                    m = os.stat(os.path.join(d, f)).st_mtime
                except OSError:
                    continue
                if m > stamp:
                    count += 1
                    if m > newest:
                        newest, where = m, d
    return count, where


def build_with_progress(v, cmd, log, nice=False):
    """CMD (kunit.py build) with its output to LOG, and while it runs a
    line every NSFD_PROGRESS_SECS (30) s: the objects compiled so far out
    of the count the last build of kdir ended with, and the newest
    object's directory. A robot's log never sits silent."""
    kd = v.kdir
    tick = float(os.environ.get('NSFD_PROGRESS_SECS', '30'))
    os.makedirs(kd, exist_ok=True)
    stamp = os.path.join(kd, '.nsfd-build-start')
    open(stamp, 'w').close()
    start = os.stat(stamp).st_mtime - 1e-3
    try:
        with open(os.path.join(kd, '.nsfd-objects')) as f:
            total = f.read().strip()
    except OSError:
        total = '?'
    with open(log, 'w') as f:
        try:
            p = procs.popen((['nice', '-n', '19'] if nice else []) + cmd, env=v.env(),
                            stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT)
        except OSError as e:
            f.write('%s: %s\n' % (cmd[0], e.strerror))
            return 127
    while True:
        try:
            rc = procs.status(p.wait(timeout=tick))
            break
        except subprocess.TimeoutExpired:
            pass
        done, last = objects_newer(kd, start)
        where = ', in ' + os.path.relpath(last, kd) if last else ''
        if total == '?':
            v.say('%s: kernel: building, %d objects so far (first build here)%s' % (v.name, done, where))
        else:
            v.say('%s: kernel: building, %d/%s objects (last build\'s count)%s' % (v.name, done, total, where))
    if rc == 0:
        n = sum(1 for _, _, fs in os.walk(kd) for f in fs if f.endswith('.o'))
        with open(os.path.join(kd, '.nsfd-objects'), 'w') as f:
            f.write('%d\n' % n)
    return rc


def seed_from_base_kernel(v, base):
    """A matrix config differs from its arch's kernel in a few options. On
    its first build (no .config in kdir yet), start from a copy of that
    kernel's finished build directory: kbuild's own per-option
    dependencies then recompile only the objects that read an option the
    config changes. A real copy, not hard links: the compiler rewrites
    objects in place."""
    kd = v.kdir
    if os.path.exists(os.path.join(kd, '.config')):
        return
    if not (os.path.isfile(os.path.join(base, v.conf['KERNEL_IMAGE'])) and
            os.path.isfile(os.path.join(base, '.config'))):
        return
    v.run.finish_pending(base)     # its tests may still be writing into it
    t = now()
    shutil.rmtree(kd, ignore_errors=True)
    os.makedirs(os.path.dirname(kd), exist_ok=True)
    rel = os.path.relpath(base, v.top)
    if procs.run(['cp', '-a', base, kd + '.seed']) == 0:
        os.rename(kd + '.seed', kd)
        try:
            with open(os.path.join(kd, '.nsfd-objects')) as f:
                n = f.read().strip()
        except OSError:
            n = '?'
        v.say('%s: kernel: first build here: starting from a copy of %s (%s objects; %s s)'
              % (v.name, rel, n, since(t)))
    else:
        shutil.rmtree(kd + '.seed', ignore_errors=True)
        shutil.rmtree(kd, ignore_errors=True)
        v.say('%s: kernel: could not copy %s: building from scratch' % (v.name, rel))


def record_identity(v):
    """What every boot of the kernel in kdir must print (its banner, its
    build-id), into out/identity-kernel.json (ci/results/identity.py).
    False when vmlinux or the image cannot be read."""
    try:
        ident = identity.kernel(v.kdir, v.conf['KERNEL_IMAGE'])
    except OSError as e:
        v.say('%s: kernel: %s' % (v.name, e))
        return False
    with open(os.path.join(v.out, 'identity-kernel.json'), 'w') as f:
        json.dump(ident, f, indent=1)
    return True


def kunit_objects(v):
    """[(symbol, object, source, (suites))] of nsfd's KUnit test objects
    (kunit_objects.py), read once a run: kunit/ does not change under it."""
    return _kunit_objects(os.path.join(v.top, 'kunit'))


@functools.lru_cache(maxsize=None)
def _kunit_objects(kunit_dir):
    # Fails closed: these rows are what the KUnit stage must run (an empty
    # list skips it and turns the patched-mode checks off), so a reading
    # that fails, or lists fewer suites than kunit/ declares, is exit 2.
    helper = 'ci/pipeline/kunit_objects.py'
    try:
        rows = kunit_object_rows(kunit_dir)
    except (OSError, UnicodeError) as e:
        raise EnvError('%s cannot read %s: %s' % (helper, kunit_dir, e))
    try:
        declared = expected.kunit_suites(os.path.dirname(kunit_dir))
    except ValueError as e:
        raise EnvError(str(e))
    listed = {s for row in rows for s in row[3]}
    unlisted = [s for s in declared if s not in listed]
    if unlisted or not rows:
        raise EnvError('%s lists no object for the KUnit suite(s) %s of %s: cannot say what '
                       'KUnit must run' % (helper, ', '.join(unlisted) or '(none listed)', kunit_dir))
    return tuple(rows)


def write_expected_suites(v):
    """out/expected-kunit-suites.txt: the suites whose symbol is on in the
    kernel's .config (ci/results/report.py fails a missing one). None,
    and no file, when there is no .config to read (a build that did not
    get that far): no list is never an empty one."""
    try:
        with open(os.path.join(v.kdir, '.config')) as f:
            config = set(f.read().split('\n'))
    except OSError:
        return None
    suites = sorted({s for sym, _, _, ss in kunit_objects(v) if 'CONFIG_%s=y' % sym in config
                     for s in ss})
    with open(os.path.join(v.out, 'expected-kunit-suites.txt'), 'w') as f:
        f.write(''.join(s + '\n' for s in suites))
    return suites


def make_args(v):
    return ['make', '-C', v.src, 'O=' + v.kdir, 'ARCH=' + v.conf['LINUX_ARCH'],
            'CROSS_COMPILE=' + v.conf['CROSS_COMPILE']]


def skip_uncompilable_suites(v):
    """On a KERNEL_SRC tree, compile each KUnit test object alone first. A
    suite that does not compile there (the tree lacks what it tests, e.g.
    socketat) is reported SKIP with the compiler's first error and its
    symbol switched off, so that the kernel still builds and the other
    suites and the kselftests still judge the tree. A Stage that ends the
    variant (build-failed: the tree cannot even be configured), or None."""
    t = now()
    log = os.path.join(v.out, 'kunit-suites.log')
    v.say('%s: kunit-suites: compiling each KUnit test object alone' % v.name)
    klog = machine.KernelLog()
    rc = procs.run(v.kunit + ['config'] + v.common, out=log, env=v.env())
    if rc:
        show_tail(log, v.say.stream)
        fault = decide.build_fault(rc, read_log(log), decide.oom_kills(klog.read()))
        result = decide.not_built(fault, 'kunit.py config failed', v.rel(log))
        return v.stage('kernel', kconfig_verdict(v, result, read_log(log)), t)
    rows = kunit_objects(v)
    for _, obj, _, _ in rows:
        try:
            os.unlink(os.path.join(v.kdir, obj))
        except OSError:
            pass
    rc = procs.run(make_args(v) + [v.make_cc, '-k', '-j%d' % v.run.jobs] + [r[1] for r in rows],
                   out=log, append=True, env=v.env())
    text = read_log(log)
    # A suite whose object the machine kept from compiling (a killed
    # compiler, a full disk) is not a suite the tree cannot build.
    fault = decide.build_fault(rc, text, decide.oom_kills(klog.read())) if rc else None
    if fault:
        show_tail(log, v.say.stream)
        return v.stage('kernel', decide.not_built(fault, '', v.rel(log)), t)
    off, skipped = [], []
    for sym, obj, srcf, suites in rows:
        if os.path.isfile(os.path.join(v.kdir, obj)):
            continue
        m = (re.search(r'^.*%s:[0-9]+:([0-9]+:)? (fatal )?error:.*$' % re.escape(os.path.basename(srcf)),
                       text, re.M) or
             re.search(r'^.*((fatal )?error:|Error [0-9]).*$', text, re.M))
        reason = m.group(0) if m else 'did not compile'
        if reason.startswith(v.src + '/'):
            reason = reason[len(v.src) + 1:]
        off.append(sym)
        for s in suites:
            skipped.append('%s\t%s\n' % (s, reason))
            v.say('%s: kunit-suites: SKIP %s: does not compile on this tree: %s' % (v.name, s, reason))
    with open(os.path.join(v.out, 'kunit-skipped.tsv'), 'w') as f:
        f.writelines(skipped)
    if off:
        write_kunitconfig(v, off)
    v.stage('kunit-suites', Stage('ok', '%d suite(s) skipped' % len(skipped)), t)
    return None


def read_log(path):
    """A build log's text ('' when there is none)."""
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def build(v):
    """The kernel stage: a Stage (ok with its ccache line, build-failed,
    env-error when the machine failed the build or vmlinux cannot be
    read)."""
    t = now()
    if v.matrix:
        seed_from_base_kernel(v, os.path.join(v.run.bld, v.arch, 'kernel'))
    # A tree that carries the series must compile every suite (patched).
    if not v.run.patched:
        ended = skip_uncompilable_suites(v)
        if ended:
            return ended
    image = os.path.join(v.kdir, v.conf['KERNEL_IMAGE'])
    stamp_file = os.path.join(v.kdir, '.nsfd-inputs')
    log = os.path.join(v.out, 'kernel.log')
    inputs = kernel_inputs(v)
    if up_to_date(stamp_file, inputs, [image]):
        v.say('%s: kernel: up to date (the tree, its config and the compiler are those of the last build)'
              % v.name)
        open(log, 'w').close()
        rc, line, kills = 0, 'up to date, not rebuilt', []
    else:
        v.say('%s: kernel: building in %s (log: %s)' % (v.name, v.kdir, v.rel(log)))
        try:
            os.unlink(stamp_file)
        except OSError:
            pass
        before = ccache_counts()
        klog = machine.KernelLog()
        # make test: the last variant's guests may be running beside this
        # build, each on a core of its own, their binaries under their
        # settings timeout; the build takes the cores they leave idle.
        rc = build_with_progress(v, v.kunit + ['build'] + v.common + ['--jobs=%d' % v.run.jobs],
                                 log, nice=v.run.tests_pending())
        kills = decide.oom_kills(klog.read())
        line = decide.ccache_line(before, ccache_counts())
        # Only a build from a clean tree is recorded (inputs is None for a
        # mutant's): a mutant's kernel is never taken for the tree's.
        if rc == 0 and inputs:
            write_stamp(stamp_file, inputs, [image])
    # make test: the previous variant's tests ran beside this build; print
    # them now, in variant order.
    v.run.finish_pending()
    try:
        shutil.copy(os.path.join(v.kdir, '.config'), os.path.join(v.out, 'config'))
    except OSError:
        pass
    expected = write_expected_suites(v)
    image_there = os.path.isfile(image)
    fault = None if rc == 0 and image_there else decide.build_fault(rc, read_log(log), kills)
    result = decide.kernel_build(rc, image_there, v.rel(log), fault)
    if result.status != 'ok':
        result = kconfig_verdict(v, result, read_log(log))
        show_tail(log, v.say.stream)
        return v.stage('kernel', result, t)
    if expected is None:
        return v.stage('kernel', Stage('env-error', 'no %s/.config after the build: cannot say '
                                       'which KUnit suites must run' % v.kdir), t)
    # What every boot of this kernel must print: a boot that shows another
    # judged nothing.
    if not record_identity(v):
        return v.stage('kernel', Stage('env-error', 'cannot read the banner and build-id of %s/vmlinux'
                                       % v.kdir), t)
    return v.stage('kernel', Stage('ok', line), t)


def qemu_recorded(v, console=None):
    """(env, status file) for kunit.py exec: PATH starts with a directory
    whose QEMU (the arch's, by the name kunit.py runs) is
    ci/pipeline/qemu_status.py, which runs the real one, tees its output
    to CONSOLE as it comes, and records how it ended in the status file
    (removed first: an earlier boot's end is never this one's). Without a
    QEMU on PATH, kunit.py runs as it is (it then fails to start it: exit
    2, as before). kunit.py's own output unbuffered (kunit.log)."""
    env = v.env()
    env['PYTHONUNBUFFERED'] = '1'
    status = os.path.join(v.out, 'kunit-qemu.json')
    try:
        os.unlink(status)
    except OSError:
        pass
    name = os.path.basename(v.conf['QEMU'])
    real = shutil.which(v.conf['QEMU'], path=env.get('PATH'))
    if not real:
        return env, status
    shim_dir = os.path.join(v.out, 'kunit-qemu-bin')
    shim = os.path.join(shim_dir, name)
    os.makedirs(shim_dir, exist_ok=True)
    target = os.path.join(PIPELINE, 'qemu_status.py')
    if not (os.path.islink(shim) and os.readlink(shim) == target):
        try:
            os.unlink(shim)
        except OSError:
            pass
        os.symlink(target, shim)
    env.update(PATH=shim_dir + os.pathsep + env.get('PATH', ''), NSFD_QEMU_REAL=real,
               NSFD_QEMU_STATUS=status)
    if console:
        env['NSFD_QEMU_CONSOLE'] = console
    return env, status


def read_qemu_status(path):
    """qemu_status.py's record of the KUnit QEMU's end, or None (QEMU
    never started, or its recorder was killed with it)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def kunit_exec(v):
    """KUnit under QEMU through kunit.py exec: the kunit stage.

    QEMU's console is read as QEMU prints it (console-kunit.log, teed by
    qemu_status.py; kunit.py's own test.log is block-buffered): the boot
    allowance ends the moment the KTAP header is there. A case that then
    hangs meets KUnit's limit (decide.kunit_limit: NSFD_BOOT_TIMEOUT, or
    300 s, 1200 s on a debug kernel): the stage is a timeout, and the
    kernel is booted once more to list its cases (kunit.action=list,
    kunit-cases.txt), so that the report names the case that hung and
    those that did not run because of it (ci/results/kunit_hang.py)."""
    t = now()
    timeout = decide.kunit_limit(v.debug)
    log = os.path.join(v.out, 'kunit.log')
    test_log = os.path.join(v.kdir, 'test.log')
    console = os.path.join(v.out, 'console-kunit.log')
    v.say('%s: kunit: booting the kernel under %s' % (v.name, v.conf['QEMU']))
    # kunit.py writes test.log only once QEMU starts, qemu_status.py the
    # console only then: an earlier boot's must not be read as this one's.
    for old in (test_log, console, os.path.join(v.out, 'kunit-cases.txt')):
        try:
            os.unlink(old)
        except OSError:
            pass
    qargs = ['--qemu_args', os.environ['NSFD_QEMU_ARGS']] if os.environ.get('NSFD_QEMU_ARGS') else []
    # The early console and panic=-1 (QEMU runs with -no-reboot): a kernel
    # that dies before its console is up shows why and ends at once,
    # where kunit.py would wait out its timeout.
    kargs = ['--kernel_args=' + a for a in (v.conf['EARLY_CONSOLE'] + ' panic=-1').split()]
    allowance = decide.boot_allowance(v.debug)
    env, qemu_status = qemu_recorded(v, console)
    klog, counter = machine.KernelLog(), machine.OomCounter()
    with open(log, 'w') as f:
        p = procs.popen(v.kunit + ['exec'] + v.common + qargs + kargs + ['--timeout=%d' % timeout],
                        stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, env=env,
                        start_new_session=True)
    b = bootwatch.Boot('kunit', 'kunit', p, console, limit=timeout, alt=test_log)
    bootwatch.watch([b], allowance, v.say, '%s: kunit' % v.name)
    rc = b.rc
    kills = decide.oom_kills(klog.read(), os.getuid())
    qemu_end = read_qemu_status(qemu_status)
    if not os.path.exists(console):
        # No QEMU of qemu_status.py's (none on PATH): kunit.py's own log.
        try:
            shutil.copy(test_log, console)
        except OSError:
            pass
    if b.hung:
        bootwatch.record(v.out, 'console-kunit.log', b, allowance)
        return v.stage('kunit', Stage('fail', 'a failed boot: no KUnit KTAP %d s after kunit.py '
                                      'started QEMU' % allowance, [v.rel(log)]), t)
    result = decide.kunit_exec(rc, read_log(log), v.rel(log), kills, qemu_end, timeout,
                               counter.cause())
    # A machine fault (the OOM killer's, kunit.py's own) judged no boot.
    bootwatch.record(v.out, 'console-kunit.log', b, allowance,
                     'env-error' if result.status == 'env-error' else None)
    if result.status == 'timeout' and b.reached:
        list_cases(v, qargs, allowance)
    return v.stage('kunit', result, t)


def did_not_boot(v):
    """The reason of KUnit's failed boot result (the kernel died or hung
    before its first test: ci/results/boots.py), or None: it booted, or
    nothing judged its boot (QEMU never started, the machine's fault)."""
    end = boots.read_end(v.out, 'console-kunit.log')
    if end is None:
        return None
    status, reason = boots.verdict(end, read_log(os.path.join(v.out, 'console-kunit.log')))
    return reason if status == 'fail' else None


# A case as KUnit lists it (kunit.action=list): "suite.case", on a printk line.
LISTED = re.compile(r'^(?:<\d+>)?\[\s*\d+\.\d+\](?:\[\s*[CT]\d+\])? ?([\w-]+\.[\w-]+)\s*$')


def list_cases(v, qargs, allowance):
    """Boot the kernel once more with kunit.action=list (it lists every
    case, in the order it runs them, and runs none): kunit-cases.txt, one
    "suite.case" a line. Best effort, within the boot allowance: without
    the list, the report names the hung case by its number."""
    out = os.path.join(v.out, 'kunit-cases.log')
    v.say('%s: kunit: a case hung: listing the cases (kunit.action=list)' % v.name)
    with open(out, 'w') as f:
        try:
            p = procs.popen(v.kunit + ['exec'] + v.common + qargs +
                            ['--kernel_args=kunit.action=list', '--raw_output=all',
                             '--timeout=%d' % allowance],
                            stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                            env=v.env(), start_new_session=True)
        except OSError:
            return
        try:
            p.wait(timeout=allowance + 30)
        except subprocess.TimeoutExpired:
            bootwatch.kill_group(p)
    cases = [m.group(1) for m in map(LISTED.match, read_log(out).split('\n')) if m]
    if cases:
        with open(os.path.join(v.out, 'kunit-cases.txt'), 'w') as f:
            f.write(''.join(c + '\n' for c in cases))
