"""One variant's stages in order: tree, kernel, KUnit, kselftest guests,
then ci/results/report.py, whose exit is the variant's (0/1/125/2).

A variant is an arch, the debug kernel or not, and a config of
kunit-configs/matrix/ or none: its results go to out/VARIANT/ (VARIANT:
ARCH, then -debug, then -CONFIG, then -uidN for --uid N).
"""

import copy
import os
import re
import shutil
import subprocess
import sys
import threading
import traceback

import ci
from ci import variants
from ci.results import atomic, resultsfile
from ci.results.model import ExitCode, machine_fault
from ci.series import patch_list
from . import arches, decide, guest, kernel, procs, runlog, tree
from .runlog import Stage, now


def socketat_nr(src):
    """socketat's number in the tree SRC (its uapi header), or None when
    the tree has no socketat: which number a run tested."""
    try:
        with open(os.path.join(src, 'include', 'uapi', 'asm-generic', 'unistd.h')) as f:
            m = re.search(r'^#define __NR_socketat\s+(\d+)\s*$', f.read(), re.M)
    except OSError:
        return None
    return int(m.group(1)) if m else None


class Run:
    """What every variant of one invocation shares: the tree, the
    options, and the tests that may run beside the next kernel build."""

    def __init__(self, top, say, kernel_src='', kernel_rev='', guest_uid='', guest_only=False,
                 out_root=None, with_series=False):
        self.top, self.ci, self.say = top, os.path.join(top, 'ci'), say
        self.out_root = out_root or os.path.join(top, 'out')
        self.kernel_src, self.kernel_rev = kernel_src, kernel_rev
        # Judged as our own tree (report.py --patched): the tarball with
        # patches/, or a KERNEL_SRC that carries the series (--with-series).
        self.patched = not kernel_src or with_series
        # The tree a symbol of nsfd's fragments must be declared in, when
        # the tree under test lacks it (kernel.kconfig_verdict).
        self.reference_src = os.path.join(top, 'build', 'patched', 'src')
        self.guest_uid, self.guest_only = guest_uid, guest_only
        self.jobs = procs.make_jobs()
        self.overlap = False
        self.pending = None          # (thread, out/VARIANT/tests.log, kdir)
        # The same shape for both trees (build/<tree>/src,
        # build/<tree>/<variant>/kernel), so that with CCACHE_BASEDIR=build/
        # every compile line of a KERNEL_SRC or bisection step matches the
        # patched tree's: ccache hits are shared between them.
        self.bld = os.path.join(top, 'build', 'ext' if kernel_src else 'patched')
        self.src = os.path.join(self.bld, 'src')
        self.tree_rc = self.tree_secs = self.tree_head = None

    def prepare_tree(self):
        """The tree every variant builds from, once per invocation."""
        procs.hold_build_lock(self.top, self.say)
        t = now()
        self.say('tree: preparing %s' % self.src)
        with runlog.heartbeat(self.say, 'tree'):
            rc = tree.prepare(self.src, self.kernel_src, self.kernel_rev, top=self.top)
        self.tree_secs = runlog.since(t)
        self.say('tree: %s (%s s)' % ('ok' if rc == ExitCode.PASS else 'failed (exit %d)' % rc, self.tree_secs))
        self.tree_rc = decide.tree(rc)
        if self.tree_rc is None:
            raise runlog.EnvError('tree: cannot prepare %s (exit %d, see above)' % (self.src, rc))
        # The tree's commit when it has no changes of its own (a mutant's
        # tree has): what kernel.inputs_digest records builds against.
        self.tree_head = None
        if procs.output(['git', '-C', self.src, 'status', '--porcelain'], default='x') == '':
            self.tree_head = procs.output(['git', '-C', self.src, 'rev-parse', '-q', '--verify',
                                           'HEAD'], default=None)

    def tests_pending(self):
        return bool(self.pending and self.pending[0].is_alive())

    def finish_pending(self, kdir=None):
        """Wait for the tests started beside this build (only if they run
        on KDIR, when given) and print what they printed."""
        if not self.pending or (kdir and self.pending[2] != kdir):
            return
        thread, stream, _ = self.pending
        thread.join()
        stream.seek(0)
        sys.stdout.write(stream.read())
        sys.stdout.flush()
        stream.close()
        self.pending = None


class Variant:
    def __init__(self, run, arch, debug=False, config=''):
        self.run, self.arch, self.debug, self.config = run, arch, debug, config
        self.top, self.ci, self.src = run.top, run.ci, run.src
        self.say = run.say
        self.conf = arches.load(arch)
        self.name = variants.name(arch, debug, config)
        self.matrix = (os.path.join(self.top, 'kunit-configs', 'matrix', config + '.kunitconfig')
                       if config else None)
        vdir = os.path.join(run.bld, self.name)
        self.kdir, self.gdir = os.path.join(vdir, 'kernel'), os.path.join(vdir, 'guest')
        self.kcfg = os.path.join(vdir, 'nsfd.kunitconfig')
        # --uid N: the same kernel and tests, run as uid N: results of
        # their own.
        if run.guest_uid:
            self.name += '-uid' + run.guest_uid
        self.out = os.path.join(run.out_root, self.name)
        self.kunit = [sys.executable, '-B', os.path.join(self.src, 'tools/testing/kunit/kunit.py')]
        self.cc_nocache = '0'        # kernel.asm_include_hazard
        self.make_cc = kernel.kernel_cc(self.ci, self.conf)
        self.common = ['--arch=' + self.conf['LINUX_ARCH'], '--build_dir=' + self.kdir,
                       '--kunitconfig=' + self.kcfg, '--make_options', self.make_cc]
        if self.conf['CROSS_COMPILE']:
            self.common.append('--cross_compile=' + self.conf['CROSS_COMPILE'])

    def env(self):
        """The environment of this variant's builds and boots: the arch's
        CROSS_COMPILE (not one the caller exported for another arch), and
        whether ci/cc-ccache may cache (NSFD_CC_NOCACHE)."""
        env = dict(os.environ)
        env['CROSS_COMPILE'] = self.conf['CROSS_COMPILE']
        env['NSFD_CC_NOCACHE'] = self.cc_nocache
        return env

    def rel(self, path):
        return os.path.relpath(path, self.top)

    def stage(self, name, result, start):
        return runlog.record(self.say, self.out, self.name, name, result, start)

    def patch_ids(self):
        args = []
        if self.run.kernel_src:
            return args
        for p in patch_list.read(self.top):
            with open(os.path.join(self.top, 'patches', p), 'rb') as f:
                pid = subprocess.run(['git', 'patch-id', '--stable'], input=f.read(),
                                     capture_output=True).stdout.decode().split(' ')[0]
            args += ['--patch', '%s=%s' % (p, pid)]
        return args

    def report(self):
        """ci/results/report.py variant: results.json and the rest from what the
        stages left in out/VARIANT/; its exit is the variant's."""
        version = procs.output(['make', '-s', '-C', self.src, 'kernelversion'], default='unknown',
                               env=self.env())
        cmd = ci.command('ci.results.report', 'variant', self.out,
                         '--arch', self.arch, '--variant', self.name, '--kernel-version', version,
                         '--kernel-source', self.run.kernel_src or
                         tree.TARBALL + ' + patches/series')
        if self.run.patched:
            cmd.append('--patched')
        stream = self.say.stream
        if stream is None:
            rc = procs.run(cmd + self.patch_ids())
        else:
            p = subprocess.run(cmd + self.patch_ids(), stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            stream.write(p.stdout)
            rc = procs.status(p.returncode)
        code, cause = resultsfile.writer_exit(rc, self.out)
        if cause:
            self.say('%s: results: ci/results/report.py %s' % (self.name, cause))
        return code

    def write_build_info(self):
        """What a result was produced from, for results.json (ci/results/report.py
        merges build-info.json): the tree's commit, nsfd's own commit, the
        compiler and QEMU versions."""
        nsfd_commit = procs.output(['git', '-C', self.top, 'rev-parse', 'HEAD'], default='unknown')
        if procs.output(['git', '-C', self.top, 'status', '--porcelain', '--untracked-files=no']):
            nsfd_commit += '-dirty'
        try:
            with open(os.path.join(self.src, '.git', 'nsfd-source')) as f:
                tree = f.read().strip()
        except OSError:
            tree = 'unknown'
        info = {
            'nsfd_commit': nsfd_commit,
            'tree': tree,
            'tree_commit': procs.output(['git', '-C', self.src, 'rev-parse', 'HEAD'], default='unknown'),
            'series_digest': 'none' if self.run.kernel_src else patch_list.digest(self.top),
            'kernel_config': 'out/%s/config' % self.name,
            'kunitconfig': self.kcfg,
            'gcc': kernel.gcc_version(self.conf),
            'qemu': procs.output([self.conf['QEMU'], '--version']).split('\n')[0],
            'socketat_nr': socketat_nr(self.src),
        }
        atomic.write_json(os.path.join(self.out, 'build-info.json'), info)

    def prepare_out(self):
        shutil.rmtree(self.out, ignore_errors=True)
        os.makedirs(self.out)
        os.makedirs(self.gdir, exist_ok=True)
        with open(os.path.join(self.out, 'stages.tsv'), 'w') as f:
            f.write('tree\t%s\t%s\t\n' % (self.run.tree_rc, self.run.tree_secs))

    def run_all(self):
        """Every stage, then the report: the variant's exit code. With
        the run's overlap on (make test), the tests start beside the next
        variant's kernel build and this returns 0 at once."""
        self.prepare_out()
        self.write_build_info()
        if self.run.tree_rc != 'ok':
            return self.report()
        if self.conf['FIRMWARE'] and not os.path.exists(self.conf['FIRMWARE']):
            self.stage('firmware', Stage('env-error', '%s is missing (package qemu-system-data)'
                                         % self.conf['FIRMWARE']), now())
            return self.report()
        # One .kunitconfig, merged from the variant's fragments, so that a
        # suite can be switched off (kernel.skip_uncompilable_suites).
        kernel.write_kunitconfig(self)
        kernel.asm_include_hazard(self)
        if self.run.guest_only:
            if not os.path.isfile(os.path.join(self.kdir, self.conf['KERNEL_IMAGE'])):
                raise runlog.EnvError("guest: no kernel in %s yet: run 'make run ARCH=%s' first"
                                      % (self.kdir, self.arch))
            if not kernel.record_identity(self):
                raise runlog.EnvError('guest: cannot read the banner and build-id of %s/vmlinux'
                                      % self.kdir)
            return self.guests()
        if kernel.build(self).status != 'ok':
            return self.report()
        if self.run.overlap:
            self.say('%s: kunit, selftests, guest: running beside the next kernel build '
                     '(printed when it ends)' % self.name)
            # The tests' lines go to out/VARIANT/tests.log, printed when
            # they end (and kept there if the run is stopped).
            stream = open(os.path.join(self.out, 'tests.log'), 'w+')
            mine = copy.copy(self)
            mine.say = runlog.Say(stream, self.say.start)

            def work():
                try:
                    mine.tests()
                except runlog.EnvError as e:    # no results.json: the summary's 2
                    mine.say('%s: %s: this variant has no results' % (mine.name, e))
                except Exception as e:  # no results.json: the summary's 2 (nothing judged)
                    traceback.print_exc(file=stream)
                    fault = machine_fault(e)
                    mine.say('%s: %s: this variant has no results' % (
                        mine.name, 'environment error: ' + fault if fault else
                        'the pipeline itself raised an exception (above)'))
            thread = threading.Thread(target=work, daemon=True)
            thread.start()
            self.run.pending = (thread, stream, self.kdir)
            return ExitCode.PASS
        return self.tests()

    def tests(self):
        """KUnit, then the kselftests, on the kernel built."""
        if not os.path.getsize(os.path.join(self.out, 'expected-kunit-suites.txt')):
            # kunit.py would boot, find no suite and call that a failure.
            self.stage('kunit', Stage('skipped', 'no nsfd KUnit suite is built in this kernel'), now())
        else:
            result = kernel.kunit_exec(self)
            # A kernel that died or hung before its first test is judged
            # once: its guests would boot the same kernel twice more.
            why = kernel.did_not_boot(self)
            if why:
                self.say('%s: selftests, guest: not run: the kernel did not boot' % self.name)
                guest.not_booted(self, why.split('; console:')[0])
                return self.report()
            # make mutants: a mutant KUnit already caught needs no guest.
            if result.status != 'ok' and os.environ.get('NSFD_FAIL_FAST', '0') == '1':
                self.say('%s: selftests: not run (NSFD_FAIL_FAST=1, KUnit is already red)' % self.name)
                return self.report()
        # A matrix config may say "# nsfd-kselftests: no" (NET=n: the
        # harness helpers need sockets): then only KUnit judges it.
        if self.matrix:
            with open(self.matrix) as f:
                if any(line.startswith('# nsfd-kselftests: no') for line in f):
                    self.say('%s: selftests: not run in this config (%s says why)'
                             % (self.name, os.path.basename(self.matrix)))
                    return self.report()
        return self.guests()

    def guests(self):
        if guest.selftests(self).status == 'ok':
            guest.boot(self)
        return self.report()
