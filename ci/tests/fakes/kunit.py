#!/usr/bin/env python3
"""Fake tools/testing/kunit/kunit.py (ci/tests/test_faults.py).

build: .config from the .kunitconfig, vmlinux and the image copied from
FAKE_VMLINUX, usr/gen_init_cpio. exec: test.log holding the kernel's
banner and a KTAP where every nsfd suite the .config turns on passes.
FAKE_KUNIT_BUILD=fail|oom|enospc|notool|noconfig|kconfig:SYMBOL,
FAKE_KUNIT_EXEC=raise|crash|hang|fail|noboot|oom|early-panic|early-hang|qemu (oom:
the kernel's log, NSFD_KMSG, names the OOM kill; early-*: a kernel that
dies or hangs after its banner, before its tests; qemu: as the real
kunit.py, QEMU from PATH, the fake one, its FAKE_QEMU=kunit-* mode)."""

import os
import shutil
import sys
import time

# kunit.py's command and the options ci/pipeline/kernel.py gives it
# (--opt=value, or --opt value for --make_options and --qemu_args).
cmd, opts, rest = sys.argv[1], {}, sys.argv[2:]
while rest:
    key, eq, val = rest.pop(0).partition('=')
    opts[key[2:]] = val if eq else rest.pop(0)
kdir = opts['build_dir']
os.makedirs(kdir, exist_ok=True)


def write_config():
    lines = []
    with open(opts['kunitconfig']) as f:
        for line in f:
            line = line.strip()
            if line.startswith('CONFIG_'):
                lines.append(line)
    with open(os.path.join(kdir, '.config'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def oom_kill(comm):
    """The record the kernel's OOM killer leaves in its log (NSFD_KMSG)."""
    with open(os.environ['NSFD_KMSG'], 'a') as f:
        f.write('6,700,4000000,-;oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,'
                'mems_allowed=0,global_oom,task_memcg=/,task=%s,pid=4242,uid=%d\n'
                '3,701,4000001,-;Out of memory: Killed process 4242 (%s) total-vm:1kB\n'
                % (comm, os.getuid(), comm))


if cmd == 'config':
    write_config()
    sys.exit(0)

if cmd == 'build':
    write_config()
    fault = os.environ.get('FAKE_KUNIT_BUILD')
    # kunit.py prints make's stderr when the build fails (logging.error).
    if fault == 'fail':
        print('kernel/nsproxy.c:42:1: error: expected expression before ‘}’ token')
        sys.exit(1)
    if fault == 'oom':
        oom_kill('cc1')
        print('gcc: fatal error: Killed signal terminated program cc1\ncompilation terminated.\n'
              'make[3]: *** [scripts/Makefile.build:229: fs/nsfs.o] Error 1')
        sys.exit(1)
    if fault == 'enospc':
        print('fs/.nsfs.o.tmp: No space left on device\n'
              'make[3]: *** [scripts/Makefile.build:229: fs/nsfs.o] Error 1')
        sys.exit(1)
    if fault and fault.startswith('kconfig:'):
        # kunit.py's validate_config: olddefconfig dropped a symbol of the
        # .kunitconfig (misspelled, or its dependencies unmet).
        print("ERROR:root:Not all Kconfig options selected in kunitconfig were in the generated "
              ".config.\nThis is probably due to unsatisfied dependencies.\nMissing: CONFIG_%s=y"
              % fault[len('kconfig:'):])
        sys.exit(1)
    if fault == 'notool':
        print('/bin/sh: 1: flex: not found\n'
              'make[3]: *** [scripts/Makefile.host:9: scripts/kconfig/lexer.lex.c] Error 127')
        sys.exit(1)
    image = os.path.join(kdir, os.environ['FAKE_IMAGE'])
    os.makedirs(os.path.dirname(image), exist_ok=True)
    shutil.copy(os.environ['FAKE_VMLINUX'], os.path.join(kdir, 'vmlinux'))
    shutil.copy(os.environ['FAKE_VMLINUX'], image)
    os.makedirs(os.path.join(kdir, 'usr', 'include'), exist_ok=True)
    cpio = os.path.join(kdir, 'usr', 'gen_init_cpio')
    with open(cpio, 'w') as f:
        f.write('#!/bin/sh\ncat "$1"\n')
    os.chmod(cpio, 0o755)
    with open(os.path.join(kdir, 'init.o'), 'w'):
        pass
    if fault == 'noconfig':
        os.unlink(os.path.join(kdir, '.config'))    # gone behind the build's back
    sys.exit(0)

assert cmd == 'exec', cmd
mode = os.environ.get('FAKE_KUNIT_EXEC', 'ok')
if mode == 'raise':
    # kunit.py's own fault: nothing about the kernel is decided.
    print('Traceback (most recent call last):\n  File "kunit.py", line 1, in <module>\n'
          'FileNotFoundError: [Errno 2] No such file or directory: \'qemu-system-x86_64\'')
    sys.exit(1)
if mode == 'hang':
    time.sleep(3600)
if mode == 'oom':
    # QEMU taken by the OOM killer mid-boot: kunit.py sees its output end
    # and reports a crash (exit 1), as for a kernel that died.
    oom_kill('qemu-system-x86')
    print('[ERROR] Test: kernel crashed (no KTAP end)')
    sys.exit(1)
if mode == 'noboot':
    # Dies before QEMU starts (kunit.py writes test.log only then).
    print('[ERROR] could not start qemu-system-x86_64')
    sys.exit(1)
# The package ci of the pipeline that runs this fake (PYTHONPATH holds it,
# ci/__init__.py), imported by exec alone: build and config start faster.
import ci  # noqa: E402
from ci.pipeline import kunit_objects  # noqa: E402
from ci.results import identity  # noqa: E402
with open(os.path.join(kdir, 'vmlinux'), 'rb') as f:
    banner = identity.vmlinux_banner(f.read())
config = open(os.path.join(kdir, '.config')).read().split('\n')
suites = sorted({s for sym, _, _, ss in kunit_objects.rows(os.path.join(ci.TOP, 'kunit'))
                 if 'CONFIG_%s=y' % sym in config for s in ss})
if mode == 'qemu' or 'kunit.action=list' in opts.get('kernel_args', ''):
    # As the real kunit.py: QEMU ("qemu-system-ARCH" from PATH; here the
    # fake QEMU's name, "qemu") with the kernel and its arguments, its
    # output teed to test.log (block-buffered, as kunit.py's: a killed
    # kunit.py loses its buffer), SIGTERM to QEMU at --timeout; a stream
    # without every suite's result is "the kernel crashed" (exit 1),
    # whatever QEMU's own exit was. --raw_output: 0 whatever came.
    import subprocess  # noqa: E402
    import threading  # noqa: E402
    q = subprocess.Popen(['qemu', '-kernel', os.path.join(kdir, os.environ['FAKE_IMAGE']),
                          '-append', 'kunit.enable=1 %s suites=%s' % (
                              opts.get('kernel_args', ''), ','.join(suites))],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def wait():
        try:
            q.wait(timeout=int(opts.get('timeout') or 300))
        except subprocess.TimeoutExpired as e:
            print(e)
            q.terminate()
            q.wait()
    waiter = threading.Thread(target=wait)
    waiter.start()
    with open(os.path.join(kdir, 'test.log'), 'w') as f:
        for line in q.stdout:
            f.write(line)
            print(line, end='')
    waiter.join()
    if 'raw_output' in opts:
        sys.exit(0)
    with open(os.path.join(kdir, 'test.log')) as f:
        ended = ('ok %d ' % len(suites)) in f.read()
    if not ended:
        print('[ERROR] Test: kernel crashed (no KTAP end)')
    sys.exit(0 if ended else 1)
log = ['[    0.000000] ' + banner]
if mode in ('early-panic', 'early-hang'):
    log += ['[    0.010000] Kernel panic - not syncing: early-boot drill'] if mode == 'early-panic' else []
    with open(os.path.join(kdir, 'test.log'), 'w') as f:
        f.write('\n'.join(log) + '\n')
    if mode == 'early-hang':
        time.sleep(3600)
    print('[ERROR] Test: kunit: Could not find any KTAP output. Did any KUnit tests run?')
    sys.exit(1)
log += ['KTAP version 1', '1..%d' % len(suites)]
for i, s in enumerate(suites, 1):
    bad = mode == 'fail' and i == 1
    log += ['    KTAP version 1', '    # Subtest: ' + s, '    1..1',
            '    %s 1 %s_works' % ('not ok' if bad else 'ok', s)]
    if mode == 'crash' and i == 1:
        log += ['[    1.000000] BUG: kernel NULL pointer dereference, address: 0000000000000000',
                '[    1.000001] Kernel panic - not syncing: Fatal exception']
        break
    log.append('%s %d %s' % ('not ok' if bad else 'ok', i, s))
log.append('[    2.000000] reboot: Restarting system')
with open(os.path.join(kdir, 'test.log'), 'w') as f:
    f.write('\n'.join(log) + '\n')
print('\n'.join(log))
sys.exit(0 if mode == 'ok' else 1)
