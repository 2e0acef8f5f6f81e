"""make robot: the series as a kernel test robot takes it from the list.

 1. series: ci/series/mail.sh --robot writes the mail as make series
    does, into out/robot-ARCH/mail/ (signed by the robot: its run needs no
    sender identity, and it leaves out/series/ alone);
 2. apply:  `git am` of its patches, cover letter aside, on the pristine
    Debian 6.12 tree (tag nsfd-base of build/patched/src), in a tree of
    the robot's own, build/robot/src: nothing of kunit/ or selftests/nsfd/
    reaches it except through the mail;
 3. config: tinyconfig, ci/robot/ARCH.config (what a QEMU boot into a
    busybox initramfs needs) and tools/testing/selftests/nsfd/config
    merged onto it as kselftest-merge merges (merge_config.sh -m), then
    olddefconfig; every symbol the nsfd config asks for must come out as
    asked, or the config file misses a dependency a robot cannot guess;
 4. kernel: the image and the modules;
 5. selftests: `make headers`, then tools/testing/selftests' own install
    (nsfd must be in its default TARGETS; built and installed with
    TARGETS=nsfd, dynamically linked, as a robot's distro build is);
 6. rootfs: ci/robot/rootfs.sh (Debian's busybox-static, the glibc the
    tests link, coreutils' timeout, the install in /opt/kselftest, the
    modules; /init is ci/robot/init);
 7. boot:   qemu.py's launcher, KernelCI's 10-minute job budget as the
    hard timeout, KUnit left on: the built-in suites at boot, then
    run_kselftest.sh -c nsfd, every KUnit module by modprobe, dmesg;
 8. verdict: ci/robot/judge.py, from the stages and the console alone.

Results in out/robot-ARCH/ (results.json, kselftest.ktap, kunit.ktap,
junit.xml, kcidb.json, console.log and each stage's log); the last line
is the summary. Exit: 0 passed; 1 a test failed (the nsfd config asks for
what the kernel cannot give, nsfd not in kselftest's TARGETS included);
125 the mail does not apply, configure or build (its kernel or its
kselftests), as a commit of make run that does not build; 2 an
environment error, the machine's faults included (a killed compiler, a
full disk, a missing tool: decide.build_fault) (docs/exit-codes.md).
"""

import glob
import hashlib
import os
import re
import shutil
import subprocess
import time

import ci
from ci import args
from ci.results import collect, resultsfile
from . import arches, decide, kernel, machine, procs, qemu, runlog
from .runlog import EnvError, Stage, now, since

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CI = os.path.join(TOP, 'ci')
ROBOT = os.path.join(CI, 'robot')


def robot_arches():
    return sorted(f[:-len('.config')] for f in os.listdir(ROBOT) if f.endswith('.config'))


# A KTAP result line of any depth on the robot's console, after a printk
# time or run_kselftest.sh's "# ": the boot's progress (not its verdict).
RESULT = re.compile(r'^(?:\[[ \d.]+\]\s*)?[#\s]*(?:not )?ok \d+', re.M)

class Robot:
    """One robot run of ARCH: its directories, its stages."""

    def __init__(self, say, arch):
        if arch not in robot_arches() or not os.path.isfile(os.path.join(CI, 'arch', arch + '.conf')):
            raise EnvError('robot: no ci/robot/%s.config; the robot runs on: %s'
                           % (arch, ' '.join(robot_arches())))
        self.say, self.arch, self.conf = say, arch, arches.load(arch)
        self.name = 'robot-' + arch
        self.out = os.path.join(TOP, 'out', self.name)
        bld = os.path.join(TOP, 'build', 'robot')
        self.src = os.path.join(bld, 'src')
        self.kdir = os.path.join(bld, arch, 'kernel')
        self.cfgdir = os.path.join(bld, arch, 'config')
        self.ksft = os.path.join(bld, arch, 'kselftest')
        self.rootfs = os.path.join(bld, arch, 'rootfs')
        self.cpio = os.path.join(bld, arch, 'rootfs.cpio')
        self.jobs = str(procs.make_jobs())
        # KernelCI's kselftest job budget: the whole boot, every test included.
        self.budget = os.environ.get('NSFD_ROBOT_TIMEOUT') or '600'
        self.klog = None

    def log(self, name):
        return os.path.join(self.out, name)

    def stage(self, name, result, start):
        return runlog.record(self.say, self.out, self.name, name, result, start)

    def env(self):
        """The builds' environment: the arch's CROSS_COMPILE, ccache on
        (cli.setup_env has set ccache's own settings)."""
        env = dict(os.environ)
        env['CROSS_COMPILE'] = self.conf['CROSS_COMPILE']
        env['NSFD_CC_NOCACHE'] = '0'
        return env

    def git(self, *args, out=None, may_fail=False):
        """git in the robot's tree: its exit with OUT (its output to that
        file), else its output. A git that fails (unless MAY_FAIL) raises
        EnvError: the stages read what they apply, configure and judge
        from it, and never from a git that said nothing."""
        cmd = ['git', '-C', self.src, '-c', 'user.name=robot', '-c', 'user.email=robot@localhost',
               '-c', 'advice.detachedHead=false', '-c', 'gc.auto=0'] + list(args)
        if out is not None:
            return procs.run(cmd, out=out)
        text = procs.output(cmd, default=None)
        if text is None and not may_fail:
            raise EnvError('robot: git %s failed in %s' % (' '.join(args), self.src))
        return text or ''

    def make(self, *args, out, o=None, append=True, cc=True):
        """make in the tree, into O (the kernel's build directory), with
        every build's CC= (ccache: ci/cc-ccache) unless not CC."""
        return procs.run(['make', '-C', self.src, 'O=' + (o or self.kdir),
                          'ARCH=' + self.conf['LINUX_ARCH'],
                          'CROSS_COMPILE=' + self.conf['CROSS_COMPILE']] +
                         ([kernel.kernel_cc(CI, self.conf)] if cc else []) + list(args),
                         out=out, append=append, env=self.env())

    # 1. The mail.
    def series(self):
        rc = procs.run([os.path.join(CI, 'series', 'mail.sh'), '--robot', self.log('mail')],
                       out=self.log('series.log'), pass_fds=(procs.LOCK_FD,))
        if rc not in (0, 1):
            return Stage('env-error', 'ci/series/mail.sh failed: see out/%s/series.log' % self.name)
        return Stage('ok', '%d mails in out/%s/mail/' % (len(self.mails(with_cover=True)), self.name))

    def mails(self, with_cover=False):
        return [p for p in sorted(glob.glob(os.path.join(self.log('mail'), '0*.patch')))
                if with_cover or os.path.basename(p) != '0000-cover-letter.patch']

    # 2. The mail on the pristine tree.
    def apply(self):
        mails = self.mails()
        if not os.path.isdir(os.path.join(self.src, '.git')):
            shutil.rmtree(self.src, ignore_errors=True)
            if procs.run(['git', 'clone', '-q', '--no-checkout', '--shared',
                          os.path.join(TOP, 'build', 'patched', 'src'), self.src]):
                return Stage('env-error', 'cannot clone build/patched/src')
        procs.run(['git', '-C', self.src, 'fetch', '-q', '-f', os.path.join(TOP, 'build', 'patched', 'src'),
                   '+refs/tags/nsfd-base:refs/tags/nsfd-base'])
        # The same mail as last time: the tree is left as it is, mtimes and all.
        text = b''.join(open(p, 'rb').read() for p in mails)
        ids = subprocess.run(['git', 'patch-id', '--stable'], input=text, capture_output=True).stdout
        mail_id = hashlib.sha256(b''.join(l.split()[0] + b'\n' for l in ids.splitlines())).hexdigest()[:16]
        base = self.git('rev-parse', 'nsfd-base')
        stamp = os.path.join(self.src, '.git', 'nsfd-robot-mail')
        try:
            with open(stamp) as f:
                last = f.read().strip()
        except OSError:
            last = ''
        if last != '%s %s' % (mail_id, base) or self.git('status', '--porcelain', '--untracked-files=no'):
            self.git('am', '--abort', may_fail=True)     # none may be in progress
            self.git('checkout', '-q', '-f', '-B', 'robot', 'nsfd-base')
            if self.git('am', '-q', *mails, out=self.log('apply.log')):
                self.git('am', '--abort', may_fail=True)
                if os.path.exists(stamp):
                    os.unlink(stamp)
                return self.not_built('apply.log', 'git am of the mail on pristine 6.12 failed')
            with open(stamp, 'w') as f:
                f.write('%s %s\n' % (mail_id, base))
        return Stage('ok', '%d patches on %s' % (len(mails), self.git('log', '-1', '--format=%h %s',
                                                                     'nsfd-base')))

    # 3. The config, made again only when its inputs change (the tree as
    # applied, the two fragments), and written to the build only when it
    # differs (the build stays incremental).
    def config(self):
        os.makedirs(self.cfgdir, exist_ok=True)
        os.makedirs(self.kdir, exist_ok=True)
        frag = os.path.join(ROBOT, self.arch + '.config')
        nsfd_config = os.path.join(self.src, 'tools', 'testing', 'selftests', 'nsfd', 'config')
        h = hashlib.sha256(self.git('rev-parse', 'HEAD').encode() + b'\n')
        for p in (frag, nsfd_config):
            with open(p, 'rb') as f:
                h.update(f.read())
        inputs = h.hexdigest()[:16]
        dot, stamp = os.path.join(self.cfgdir, '.config'), os.path.join(self.cfgdir, '.inputs')
        made = 'inputs unchanged, not made again'
        if not kernel.up_to_date(stamp, inputs, [dot]):
            for p in (dot, stamp):
                if os.path.exists(p):
                    os.unlink(p)
            log = self.log('config.log')
            ok = (self.make('tinyconfig', out=log, o=self.cfgdir, append=False, cc=False) == 0 and
                  procs.run([os.path.join(self.src, 'scripts', 'kconfig', 'merge_config.sh'), '-m',
                             '-O', self.cfgdir, dot, frag, nsfd_config], out=log, append=True,
                            env=self.env()) == 0 and
                  self.make('olddefconfig', out=log, o=self.cfgdir, cc=False) == 0)
            if not ok:
                return self.not_built('config.log', "the mailed tree's config cannot be made")
            kernel.write_stamp(stamp, inputs, [dot])
            made = 'tinyconfig + ci/robot/%s.config + selftests/nsfd/config' % self.arch
        kdot = os.path.join(self.kdir, '.config')
        if read(dot) != read(kdot):
            shutil.copyfile(dot, kdot)
        # What the nsfd config asks for and did not get, one "SYMBOL asked
        # got" a line: the verdict fails each (config.SYMBOL).
        misses = self.config_misses(nsfd_config, kdot)
        if misses is None:
            # No list is not an empty list: every symbol would pass unread.
            return Stage('env-error', 'ci/robot/judge.py --config-misses failed on %s' % kdot)
        with open(self.log('config-misses.tsv'), 'w') as f:
            f.write(misses + '\n' if misses else '')
        return Stage('ok', '%s; %d symbols not as asked' % (made, len(misses.splitlines())))

    @staticmethod
    def config_misses(nsfd_config, dot_config):
        """What NSFD_CONFIG asks for and DOT_CONFIG lacks ("SYMBOL asked
        got" lines), or None when it cannot be said."""
        return procs.output(ci.command('ci.robot.judge', '--config-misses', nsfd_config, dot_config),
                            default=None)

    # 4. The kernel and its modules.
    def kernel(self):
        log = self.log('kernel.log')
        self.say('%s: kernel: building in %s (log: out/%s/kernel.log)' % (self.name, self.kdir, self.name))
        start = time.time()
        compiled = lambda: '%d objects compiled' % kernel.objects_newer(self.kdir, start)[0]
        with runlog.heartbeat(self.say, '%s: kernel' % self.name, compiled):
            failed = self.make('-j' + self.jobs, 'olddefconfig', 'all', out=log, append=False)
        if failed:
            runlog.show_tail(log)
            return self.not_built('kernel.log', 'the mailed tree does not build')
        if not kernel.record_identity(self):
            return Stage('env-error', 'cannot read the banner of %s/vmlinux' % self.kdir)
        order = read(os.path.join(self.kdir, 'modules.order'))
        return Stage('ok', '%d modules' % len(order.splitlines()))

    # 5. The kselftests, installed the robots' way.
    def selftests(self):
        log = self.log('selftests.log')
        self.say('%s: selftests: make headers, then tools/testing/selftests install (log: out/%s/selftests.log)'
                 % (self.name, self.name))
        targets = subprocess.run(['make', '-s', '--no-print-directory', '-C',
                                  os.path.join(self.src, 'tools', 'testing', 'selftests'),
                                  '-f', 'Makefile', '-f', '-', 'nsfd-print-targets'],
                                 input='nsfd-print-targets: ; @echo $(TARGETS)\n',
                                 capture_output=True, text=True)
        with open(log, 'w') as f:
            f.write(targets.stderr)
        if targets.returncode:
            return self.not_built('selftests.log', "tools/testing/selftests/Makefile's TARGETS "
                                  'cannot be read')
        if 'nsfd' not in targets.stdout.split():
            return Stage('fail', "nsfd is not in tools/testing/selftests/Makefile's default TARGETS: "
                         'a robot would never build it')
        shutil.rmtree(self.ksft, ignore_errors=True)
        if (self.make('-j' + self.jobs, 'headers', out=log) or
                self.make('-j' + self.jobs, 'TARGETS=nsfd', 'KSFT_INSTALL_PATH=' + self.ksft,
                          'kselftest-install', out=log) or
                not os.access(os.path.join(self.ksft, 'run_kselftest.sh'), os.X_OK)):
            runlog.show_tail(log)
            return self.not_built('selftests.log', 'the kselftests do not build or install')
        programs = [l for l in read(os.path.join(self.ksft, 'kselftest-list.txt')).splitlines()
                    if l.startswith('nsfd:')]
        return Stage('ok', '%d programs in kselftest-list.txt' % len(programs))

    # 6. The rootfs.
    def make_rootfs(self):
        log = self.log('rootfs.log')
        if procs.run([os.path.join(ROBOT, 'rootfs.sh'), self.kdir, self.ksft, self.rootfs, self.cpio,
                      self.conf['LINUX_ARCH'], self.conf['CROSS_COMPILE']], out=log, env=self.env()):
            runlog.show_tail(log)
            return Stage('env-error', 'see out/%s/rootfs.log' % self.name)
        return Stage('ok', '%d KiB' % (os.path.getsize(self.cpio) // 1024))

    # 7. The boot: the robot's job.
    def boot(self):
        self.say('%s: boot: run_kselftest.sh -c nsfd, then the KUnit modules (%s s budget; '
                 'console: out/%s/console.log)' % (self.name, self.budget, self.name))
        console = self.log('console.log')
        klog, started = machine.KernelLog(), time.monotonic()
        results = lambda: '%d KTAP results on the console' % len(RESULT.findall(read(console)))
        with runlog.heartbeat(self.say, '%s: boot' % self.name, results):
            rc = qemu.boot(self.conf, os.path.join(self.kdir, self.conf['KERNEL_IMAGE']), self.cpio,
                           console, self.budget, kunit=True)
        elapsed = time.monotonic() - started
        return decide.robot_boot(rc, self.budget, self.conf['QEMU'], read(console), elapsed,
                                 decide.oom_kills(klog.read(), os.getuid()))

    def not_built(self, log_name, what):
        """A step of the mail's that failed: build-failed (125: the mail
        does not apply or build, as a commit that does not build under
        make run), or env-error when its log shows the machine's fault
        (decide.build_fault: a killed compiler, a full disk, a missing
        tool; the kernel log of the robot's run names the OOM kill)."""
        fault = decide.build_fault(None, read(self.log(log_name)),
                                   decide.oom_kills(self.klog.read()) if self.klog else ())
        return decide.not_built(fault, what, 'out/%s/%s' % (self.name, log_name))

    def verdict(self):
        code, cause = resultsfile.writer_exit(
            procs.run(ci.command('ci.robot.judge', self.out, TOP, self.arch)), self.out)
        if cause:
            self.say('%s: verdict: ci/robot/judge.py %s' % (self.name, cause))
        return code

    def run(self):
        start = now()
        # Before out/robot-ARCH/ is emptied (ci/nsfd robot holds it from
        # its start already; make test passes its own down).
        procs.hold_build_lock(TOP, self.say)
        os.makedirs(self.out, exist_ok=True)
        for f in os.listdir(self.out):
            p = os.path.join(self.out, f)
            if os.path.isfile(p):
                os.unlink(p)
        self.say('deps: checking packages')
        if procs.run([os.path.join(CI, 'deps.sh'), self.arch]):
            raise EnvError('deps: failed; see the apt-get output above')
        # The host kernel's log of the whole run: an OOM kill in a build it names.
        self.klog = machine.KernelLog()
        for name, step in (('series', self.series), ('apply', self.apply), ('config', self.config),
                           ('kernel', self.kernel), ('selftests', self.selftests),
                           ('rootfs', self.make_rootfs), ('boot', self.boot)):
            t = now()
            try:
                # The kernel build counts its objects, the boot its results.
                if name in ('kernel', 'boot'):
                    result = step()
                else:
                    with runlog.heartbeat(self.say, '%s: %s' % (self.name, name)):
                        result = step()
            except EnvError as e:       # the step's own record, and results.json, say why
                result = Stage('env-error', str(e))
            result = self.stage(name, result, t)
            if result.status != 'ok' and name != 'boot':
                break
        else:
            self.say('robot: done in %s s; results in out/%s/' % (since(start), self.name))
        self.klog.close()
        return self.verdict()


def read(path):
    """PATH's text, '' when there is none."""
    return collect.read(path) or ''


def main(say, argv, lock=None):
    """ci/nsfd robot [ARCH]: the exit code. LOCK, when given, is called
    once the arguments and the arch are known good and before anything is
    written (the build lock: a usage error never waits for another run)."""
    p = args.parser('ci/nsfd robot', __doc__.split('\n\n')[0])
    p.add_argument('arch', nargs='?', default='x86_64')
    a, code = args.parse(p, argv)
    if a is None:
        if code:
            raise EnvError('usage: ci/nsfd robot [ARCH]')
        return code
    robot = Robot(say, a.arch)
    if lock:
        lock()
    return robot.run()
