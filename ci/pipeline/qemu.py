"""The one QEMU launcher of every guest nsfd boots (the kselftest guests,
the benchmark, make robot's job). KUnit's boots are kunit.py's own (kunit.py exec).

QEMU runs under TCG with no network device, under timeout(1), and ends
with the guest init's reboot (-no-reboot). With a KTAP file, the arch's
KTAP channel (KTAP_QEMU_ARGS, @KTAP@ replaced by that file; KTAP_DEV in the
guest, named to init by nsfd.ktap=) carries the guest's KTAP and the
console only kernel messages; without it, or if the arch has no channel,
the KTAP goes to the console.
"""

import os
import subprocess

from . import procs


def has_channel(conf, ktap_file):
    """Whether the KTAP goes to KTAP_FILE on the arch's own channel."""
    return bool(ktap_file and conf['KTAP_DEV'] and conf['KTAP_QEMU_ARGS'])


def early_console(conf):
    """The arch's early console (EARLY_CONSOLE) and a space, or '': a
    kernel that dies before its console is up still shows its banner and
    its last words (ci/results/boots.py)."""
    return conf['EARLY_CONSOLE'] + ' ' if conf['EARLY_CONSOLE'] else ''


def command(conf, kernel, initramfs, timeout, ktap_file=None, uid=None, fail_fast=False,
            extra=None, kunit=False):
    """The argv of one boot: timeout(1), QEMU and the kernel command line.
    KUnit's built-in suites run at boot only with KUNIT (the robot's boot);
    every other boot has kunit.py's run for them."""
    append = 'console=%s %spanic=-1 %srdinit=/init' % (
        conf['CONSOLE'], early_console(conf), '' if kunit else 'kunit.enable=0 ')
    chan = []
    if has_channel(conf, ktap_file):
        chan = conf['KTAP_QEMU_ARGS'].replace('@KTAP@', ktap_file).split()
        append += ' nsfd.ktap=' + conf['KTAP_DEV']
    if uid:
        append += ' nsfd.uid=' + uid
    if fail_fast:
        append += ' nsfd.failfast=1'
    extra = os.environ.get('NSFD_QEMU_ARGS', '') if extra is None else extra
    # Word lists, split as the shell splits an unquoted variable.
    return (['timeout', '--kill-after=10', str(timeout), conf['QEMU'], '-nodefaults',
             '-nographic', '-serial', 'stdio'] + chan +
            ['-no-reboot', '-nic', 'none', '-m', '1024'] + conf['QEMU_FLAGS'].split() +
            extra.split() +
            ['-kernel', kernel, '-initrd', initramfs, '-append', append])


def start(conf, kernel, initramfs, console_log, timeout, ktap_file=None, **kw):
    """Start one boot; the console (and QEMU's own messages) to
    CONSOLE_LOG. Returns the Popen: its wait() is QEMU's or timeout's
    status (124 on timeout, 125-127 timeout's own failures)."""
    if has_channel(conf, ktap_file):
        open(ktap_file, 'w').close()
    with open(console_log, 'w') as f:
        # A process group of its own: a boot that hangs is ended whole
        # (ci/pipeline/bootwatch.py).
        return procs.popen(command(conf, kernel, initramfs, timeout, ktap_file, **kw),
                           stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT,
                           start_new_session=True)


def boot(*args, **kw):
    """One boot, waited for: its status."""
    return procs.status(start(*args, **kw).wait())
