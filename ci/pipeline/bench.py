"""socketat's cost against socket(2), the setns dance and an SCM_RIGHTS
helper: ci/guest/socketat_bench.c booted as the only test of a guest on the
kernel make run built, out/ARCH/bench.json (ci/results/report.py bench)."""

import os
import shutil

import ci

from ci.results.model import ExitCode
from . import kernel, procs, qemu
from .runlog import EnvError, now, since


def run(v):
    """The benchmark's exit: 0 with bench.json written, 125 it does not
    build, else ci/results/report.py bench's."""
    v.out = os.path.join(v.top, 'out', v.arch)
    v.gdir = os.path.join(v.run.bld, v.arch, 'bench')
    image = os.path.join(v.kdir, v.conf['KERNEL_IMAGE'])
    if not os.path.isfile(image):
        raise EnvError("bench: no kernel in %s yet: run 'make run ARCH=%s' first" % (v.kdir, v.arch))
    os.makedirs(v.out, exist_ok=True)
    os.makedirs(v.gdir, exist_ok=True)
    t = now()
    prog = os.path.join(v.gdir, 'socketat_bench')
    gcc = v.conf['CROSS_COMPILE'] + 'gcc'
    if procs.run([gcc, '-static', '-O2', '-Wall', '-Wextra', '-Werror', '-isystem',
                  os.path.join(v.kdir, 'usr/include'), '-o', prog,
                  os.path.join(v.ci, 'guest', 'socketat_bench.c')]):
        v.say('bench: the benchmark does not build')
        return ExitCode.NOT_BUILT
    if procs.run([os.path.join(v.ci, 'guest', 'build-initramfs.sh'), v.kdir, v.gdir, gcc, prog],
                 out=os.devnull, stderr_to_out=False):
        return ExitCode.NOT_BUILT
    if not kernel.record_identity(v):
        raise EnvError('bench: cannot read the banner and build-id of %s/vmlinux' % v.kdir)
    shutil.copy(os.path.join(v.gdir, 'initramfs.id'), os.path.join(v.out, 'initramfs-bench.id'))
    v.say('bench: booting %s with the benchmark' % v.arch)
    rc = qemu.boot(v.conf, image, os.path.join(v.gdir, 'initramfs.cpio'),
                   os.path.join(v.out, 'console-bench.log'),
                   os.environ.get('NSFD_BOOT_TIMEOUT') or 300, uid=v.run.guest_uid,
                   fail_fast=os.environ.get('NSFD_FAIL_FAST', '0') == '1')
    if rc:
        v.say('bench: the guest ended with status %d' % rc)
    rc = procs.run(ci.command('ci.results.report', 'bench', v.out))
    if rc == ExitCode.PASS:
        v.say('bench: done in %s s; out/%s/bench.json' % (since(t), v.arch))
    else:
        v.say('bench: no result (exit %d) after %s s' % (rc, since(t)))
    return rc
