"""The kselftests of a variant: built by the suite's own Makefile
(TARGETS=nsfd, native and for each compat ABI), dealt out to NSFD_GUESTS
(2) guests that boot side by side on the variant's kernel.

QEMU under TCG keeps one core busy a guest; each guest is a kernel of its
own, so tests that change global state (ucount limits, sysctls) cannot
meet. Guest 1 writes console-kselftest.log and kselftest-channel.log,
guest N>1 the same names with -N (ci/results/collect.py reads them all).
"""

import glob
import os
import re
import shutil
import time

from . import bootwatch, decide, kernel, machine, procs, qemu, runlog
from .runlog import Stage, now, show_tail


def count():
    n = os.environ.get('NSFD_GUESTS', '2')
    return int(n) if re.match(r'[1-9][0-9]*$', n) else 1


def suffix(n):
    """'' for the first guest, '-N' for the others."""
    return '' if n == 1 else '-%d' % n


def selftest_inputs(v):
    """What the guests' initramfs files are built from: the kernel (its
    uapi headers are installed from the same tree), the compilers and
    ABIs, the guest's init, the settings and the script that packs them."""
    try:
        with open(os.path.join(v.kdir, '.nsfd-inputs')) as f:
            data = f.read()
    except OSError:
        data = 'kernel not recorded\n'
    data += kernel.gcc_version(v.conf) + '\n' + repr(MAINLINE) + '\n'
    settings = os.environ.get('NSFD_SETTINGS') or os.path.join(v.top, 'selftests/nsfd/settings')
    for p in (os.path.join(v.ci, 'guest', 'init.c'),
              os.path.join(v.ci, 'guest', 'build-initramfs.sh'), settings):
        with open(p) as f:
            data += f.read()
    return kernel.inputs_digest(v, ['selftests', v.conf['COMPAT_ABIS']], data)


def build_compat(v, log):
    """For each compat ABI the arch names (COMPAT_ABIS, "name:cflags ...":
    x86_64's i386 and x32), the same kselftests against the same installed
    uapi headers (which give that ABI's syscall numbers), as
    gdir/compat/NAME-<test>."""
    compat = os.path.join(v.gdir, 'compat')
    shutil.rmtree(compat, ignore_errors=True)
    os.makedirs(compat)
    for abi in v.conf['COMPAT_ABIS'].split():
        name, _, cflags = abi.partition(':')
        o = os.path.join(v.kdir, 'kselftest-' + name, 'nsfd')
        os.makedirs(o, exist_ok=True)
        if procs.run(['make', '-C', os.path.join(v.src, 'tools/testing/selftests/nsfd'),
                      'OUTPUT=' + o, 'CC=%sgcc %s' % (v.conf['CROSS_COMPILE'], cflags),
                      'KHDR_INCLUDES=-isystem %s/usr/include' % v.kdir,
                      'USERLDFLAGS=-static', 'LDFLAGS=-static', '-j%d' % v.run.jobs],
                     out=log, append=True, env=v.env()):
            return False
        for t in glob.glob(os.path.join(o, '*_test')):
            shutil.copy(t, os.path.join(compat, '%s-%s' % (name, os.path.basename(t))))
    return True


# Mainline kselftests of the code the series changes, run beside nsfd's in
# the same guests: the series must leave setns(2) (pidfd_setns_test) and nsfs
# (owner, pidns) as they were. (directory, program, name in the guest)
MAINLINE = (('pidfd', 'pidfd_setns_test', 'pidfd_setns_test'),
            ('nsfs', 'owner', 'nsfs_owner'),
            ('nsfs', 'pidns', 'nsfs_pidns'))


def build_mainline(v, log):
    """MAINLINE's programs, built by their own Makefiles, statically, for
    the arch, as gdir/mainline/NAME (a tree without one's source goes
    without it, and its log says so). False when one does not build."""
    dest = os.path.join(v.gdir, 'mainline')
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for subdir, prog, name in MAINLINE:
        d = os.path.join(v.src, 'tools/testing/selftests', subdir)
        if not os.path.isfile(os.path.join(d, prog + '.c')):
            with open(log, 'a') as f:
                f.write('selftests: this tree has no %s/%s.c: %s not run\n' % (subdir, prog, name))
            continue
        o = os.path.join(v.kdir, 'kselftest-mainline', subdir)
        os.makedirs(o, exist_ok=True)
        if procs.run(['make', '-C', d, 'OUTPUT=' + o, 'CC=%sgcc' % v.conf['CROSS_COMPILE'],
                      'KHDR_INCLUDES=-isystem %s/usr/include' % v.kdir,
                      'USERLDFLAGS=-static', 'LDFLAGS=-static', os.path.join(o, prog)],
                     out=log, append=True, env=v.env()):
            return False
        shutil.copy(os.path.join(o, prog), os.path.join(dest, name))
    return True


def build(v, log):
    """The kselftests, dealt out in name order to the guests' initramfs
    files (gdir/N/initramfs.cpio). False when any step fails (the log
    says which)."""
    # Static on every tree: USERLDFLAGS where lib.mk has it (6.12), and
    # LDFLAGS for older lib.mk files that lack it.
    if procs.run(kernel.make_args(v) + ['TARGETS=nsfd', 'USERLDFLAGS=-static', 'LDFLAGS=-static',
                                        '-j%d' % v.run.jobs, 'kselftest-all'], out=log,
                 env=v.env()):
        return False
    if not build_compat(v, log) or not build_mainline(v, log):
        return False
    native = os.path.join(v.kdir, 'kselftest', 'nsfd')
    progs = sorted(glob.glob(os.path.join(native, '*_test')) +
                   glob.glob(os.path.join(v.gdir, 'compat', '*')) +
                   glob.glob(os.path.join(v.gdir, 'mainline', '*')),
                   key=lambda p: os.path.basename(p).encode())
    progs = [p for p in progs if os.path.isfile(p)]
    if not progs:
        with open(log, 'a') as f:
            f.write('selftests: no test binary was built\n')
        return False
    n = min(count(), len(progs))
    for d in glob.glob(os.path.join(v.gdir, '[0-9]*')):
        shutil.rmtree(d)
    for i in range(1, n + 1):
        if procs.run([os.path.join(v.ci, 'guest', 'build-initramfs.sh'), v.kdir,
                      os.path.join(v.gdir, str(i)), v.conf['CROSS_COMPILE'] + 'gcc'] +
                     progs[i - 1::n], out=log, append=True):
            return False
    return True


def guest_dirs(v):
    return sorted(glob.glob(os.path.join(v.gdir, '[0-9]*')), key=lambda d: int(os.path.basename(d)))


def initramfs_files(v):
    return [os.path.join(d, 'initramfs.cpio') for d in guest_dirs(v)]


def selftests(v):
    """The selftests stage: build them unless up to date. Its Stage."""
    t = now()
    log = os.path.join(v.out, 'selftests.log')
    inputs = selftest_inputs(v)
    stamp = os.path.join(v.gdir, '.nsfd-inputs')
    if kernel.up_to_date(stamp, inputs, initramfs_files(v)):
        open(log, 'w').close()
        return v.stage('selftests', Stage('ok', 'up to date, not rebuilt'), t)
    v.say('%s: selftests: building (log: %s)' % (v.name, v.rel(log)))
    try:
        os.unlink(stamp)
    except OSError:
        pass
    open(log, 'w').close()
    klog = machine.KernelLog()
    with runlog.heartbeat(v.say, '%s: selftests' % v.name):
        built = build(v, log)
    if not built:
        show_tail(log, v.say.stream)
        # The machine's fault (a killed compiler, a full disk, a missing
        # tool) is not tests that do not build.
        fault = decide.build_fault(None, kernel.read_log(log), decide.oom_kills(klog.read()))
        return v.stage('selftests', decide.not_built(fault, 'the kselftests did not build',
                                                     v.rel(log)), t)
    klog.close()
    if inputs:
        kernel.write_stamp(stamp, inputs, initramfs_files(v))
    return v.stage('selftests', Stage('ok'), t)


def settings_timeout(initramfs_list):
    """The per-binary timeout of the settings file packed into a guest."""
    settings = None
    with open(initramfs_list) as f:
        lines = f.read().split('\n')
    for line in lines:
        w = line.split()
        if len(w) >= 3 and w[0] == 'file' and w[1] == '/tests/settings':
            settings = w[2]
    try:
        with open(settings) as f:
            m = re.search(r'^timeout=([0-9]+)', f.read(), re.M)
        return int(m.group(1)) if m else None
    except (OSError, TypeError):
        return None


def boot(v):
    """The guest stage: every guest booted side by side, waited for, and
    judged on how each ended (the KTAP is ci/results/collect.py's)."""
    for d in guest_dirs(v):
        shutil.copy(os.path.join(d, 'initramfs.id'),
                    os.path.join(v.out, 'initramfs%s.id' % suffix(int(os.path.basename(d)))))
    t = now()
    boots, total, per = [], 0, None
    fail_fast = os.environ.get('NSFD_FAIL_FAST', '0') == '1'
    klog = machine.KernelLog()
    for d in guest_dirs(v):
        g = int(os.path.basename(d))
        with open(os.path.join(d, 'initramfs.list')) as f:
            nbin = sum(1 for line in f if line.startswith('file /tests/')) - 1
        total += nbin
        per = settings_timeout(os.path.join(d, 'initramfs.list'))
        limit = decide.guest_limit(nbin, per, v.debug, os.environ.get('NSFD_BOOT_TIMEOUT'))
        console = os.path.join(v.out, 'console-kselftest%s.log' % suffix(g))
        started = time.monotonic()
        p = qemu.start(v.conf, os.path.join(v.kdir, v.conf['KERNEL_IMAGE']),
                       os.path.join(d, 'initramfs.cpio'), console, limit,
                       os.path.join(v.out, 'kselftest-channel%s.log' % suffix(g)),
                       uid=v.run.guest_uid, fail_fast=fail_fast)
        boots.append((g, p, limit, console, started))
    v.say('%s: guest: booting %d guest(s) with %d kselftests (timeout %s s: %d s a binary + %d s)'
          % (v.name, len(boots), total, ' '.join(str(b[2]) for b in boots),
             decide.KSELFTEST_TIMEOUT if per is None else per, decide.boot_allowance(v.debug)))
    allowance = decide.boot_allowance(v.debug)
    watched = []
    for g, p, limit, console, started in boots:
        chan = os.path.join(v.out, 'kselftest-channel%s.log' % suffix(g))
        watched.append(bootwatch.Boot('guest %d' % g, 'guest', p, console,
                                      chan if qemu.has_channel(v.conf, chan) else None, limit,
                                      started))
    # Each guest's time is taken when it ends: 137 before its limit is
    # the machine's kill, after it timeout's (decide.sigkill_before_limit).
    bootwatch.watch(watched, allowance, v.say, '%s: guest' % v.name)
    kills = decide.oom_kills(klog.read(), os.getuid())
    ends = []
    for (g, _, limit, console, _), b in zip(boots, watched):
        with open(console, errors='replace') as f:
            text = f.read()
        ends.append(decide.guest_boot(g, b.rc, limit, v.conf['QEMU'], text, b.seconds, kills,
                                      hung=b.hung, allowance=allowance))
        bootwatch.record(v.out, os.path.basename(console), b, allowance,
                         'qemu-error' if ends[-1][0] == 'env-error' else None)
    return v.stage('guest', decide.guests(ends), t)


def not_booted(v, why):
    """The kernel did not boot under KUnit (WHY: its failed boot result's
    reason): the same kernel is not booted twice more. The kselftests are
    not built, and each guest's boot gets its end record "not-booted", so
    that its boot result says "not run: the kernel did not boot"
    (ci/results/boots.py); the stages say the same."""
    t = now()
    for g in range(1, count() + 1):
        bootwatch.write_not_booted(v.out, 'console-kselftest%s.log' % suffix(g), why)
    v.stage('selftests', Stage('skipped', 'not built: the kernel did not boot'), t)
    return v.stage('guest', Stage('skipped', 'not run: the kernel did not boot (its KUnit boot '
                                  'failed)'), t)

