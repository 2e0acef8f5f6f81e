"""Every decision from a command's exit status and output to a stage's
status. Pure functions: ci/tests/test_faults.py calls each with the
statuses and logs a real run gives (its Decisions cases) and reaches them
through the real stages (its Faults cases).

A stage's status feeds ci/results/judge.py, which turns the variant's stages and
tests into its exit code (ci/results/model.py's ExitCode): ok and skipped decide nothing; fail and timeout
are 1 (a test failed); build-failed is 125 (git bisect run skips the
commit); env-error is 2 (nothing was judged).

A machine fault is env-error with its cause named, never fail, timeout or
build-failed: a process the kernel's OOM killer took (the host's kernel
log, read by ci/pipeline/machine.py, names it), a full disk, a tool that
is not installed (build_fault, sigkill_before_limit, machine_end,
missing_tool; ci/results/model.py's machine_fault for an exception).
docs/exit-codes.md has each situation's code on every path.
"""

import os
import re

from ci.results.model import ExitCode
from .runlog import Stage

# timeout(1)'s own statuses: 124 the command timed out (137 when it had
# to be killed); 125 timeout itself failed, 126 the command could not be
# run, 127 it was not found. 137 is a timeout only after the limit: a
# command SIGKILLed before it (the OOM killer) ends with 137 as well
# (sigkill_before_limit, which the callers of boot_end ask first).
TIMED_OUT = (124, 137)
SIGKILLED = 137
TIMEOUT_OWN = (125, 126, 127)

# kselftest's runner gives a program without a settings timeout= 45 s.
KSELFTEST_TIMEOUT = 45


def boot_allowance(debug):
    """What a guest's limit adds to its programs' for booting and the
    kmemleak scan (a debug kernel boots slower and scans)."""
    return 600 if debug else 120


def kunit_limit(debug, fixed=None):
    """KUnit's whole limit in s (kunit.py --timeout): FIXED, else
    NSFD_BOOT_TIMEOUT (any duration timeout(1) takes: the guests' limit
    too, guest_limit), else 300 s, 1200 s on a debug kernel. The one
    place both come from."""
    fixed = os.environ.get('NSFD_BOOT_TIMEOUT') if fixed is None else fixed
    s = seconds(fixed) if fixed else None
    return max(1, int(-(-s // 1))) if s else (1200 if debug else 300)


def tree(rc):
    """tree.prepare's verdict (ci/pipeline/tree.py): ok; 125 the tree's
    commit cannot take the tests (build-failed); anything else an
    environment error (None)."""
    if rc == ExitCode.PASS:
        return 'ok'
    if rc == ExitCode.NOT_BUILT:
        return 'build-failed'
    return None


def kernel_build(rc, image_exists, log_name, fault=None):
    """kunit.py build's exit: ok only with the image there too. A build
    that the machine failed (FAULT: build_fault's cause) judged nothing
    about the commit: env-error, never build-failed (git bisect run
    would skip a good commit for the machine's sake)."""
    if rc == 0 and image_exists:
        return Stage('ok')
    return not_built(fault, 'kunit.py build failed', log_name)


def not_built(fault, what, log_name):
    """A build step that failed, its log LOG_NAME: env-error naming the
    machine's FAULT (build_fault) when there is one, else build-failed
    (WHAT: the commit, the series or the mail does not build)."""
    if fault:
        return Stage('env-error', '%s (%s)' % (fault, log_name), [log_name])
    return Stage('build-failed', '%s: %s' % (what, log_name), [log_name])


# A timeout(1) duration: a number, then s, m, h or d.
DURATION = re.compile(r'([0-9]*\.?[0-9]+)([smhd]?)')


def seconds(limit):
    """LIMIT (a timeout(1) duration: 300, '300', '10m', '1.5h') in
    seconds; None where timeout(1) would refuse it."""
    m = DURATION.fullmatch(str(limit).strip())
    if not m:
        return None
    return float(m.group(1)) * {'': 1, 's': 1, 'm': 60, 'h': 3600, 'd': 86400}[m.group(2)]


# The kernel's OOM killer, as its log says it: "Out of memory: Killed
# process PID (COMM) total-vm:..." (a memory cgroup's: "Memory cgroup out
# of memory: Killed process ..."), and "oom-kill:...,task=COMM,pid=PID,uid=UID".
OOM_KILLED = re.compile(r'Killed process (\d+) \(([^)]*)\)')
OOM_TASK = re.compile(r'oom-kill:.*\btask=([^,]*),pid=(\d+)(?:,uid=(\d+))?')


def oom_kills(kernel_log, uid=None):
    """[(pid, comm)] of the processes the OOM killer killed, in order,
    each once, from the host kernel's log (/dev/kmsg records or dmesg
    lines); with UID, not those its log says belonged to another user."""
    kills, other = {}, set()
    for line in kernel_log.splitlines():
        task = OOM_TASK.search(line)
        if task:
            kills.setdefault(int(task.group(2)), task.group(1))
            if uid is not None and task.group(3) is not None and int(task.group(3)) != uid:
                other.add(int(task.group(2)))
        killed = OOM_KILLED.search(line)
        if killed:
            kills.setdefault(int(killed.group(1)), killed.group(2))
    return [(pid, comm) for pid, comm in kills.items() if pid not in other]


def oom_cause(kills, prefix=''):
    """KILLS (oom_kills) whose command starts with PREFIX as a cause, or
    None: "the kernel's OOM killer killed cc1 (pid 812)"."""
    named = ['%s (pid %d)' % (comm, pid) for pid, comm in kills if comm.startswith(prefix)]
    return "the kernel's OOM killer killed %s" % ', '.join(named) if named else None


def sigkill_before_limit(rc, elapsed, limit, kills, what):
    """A command under timeout(1) (WHAT: QEMU) that ended with 137 after
    ELAPSED s of its LIMIT: before the limit, something other than
    timeout(1) killed it - the machine, never a timeout of the test. Its
    cause (the OOM kill that the kernel's log names, QEMU's first), or
    None: any other end, or 137 after the limit (timeout's --kill-after)."""
    limit_s = seconds(limit)
    if rc != SIGKILLED or elapsed is None or limit_s is None or elapsed >= limit_s:
        return None
    cause = (oom_cause(kills, 'qemu-system') or oom_cause(kills) or
             'killed by SIGKILL before its limit (OOM killer?)')
    return '%s ended by SIGKILL after %.0f s, before its %.0f s limit, not by timeout: %s' % (
        os.path.basename(what), elapsed, limit_s, cause)


# Debian's package for a tool the pipeline runs (ci/deps.sh installs them).
PACKAGE = {'make': 'make', 'gcc': 'gcc', 'cc': 'gcc', 'ld': 'binutils', 'as': 'binutils',
           'bc': 'bc', 'flex': 'flex', 'bison': 'bison', 'perl': 'perl', 'cpio': 'cpio',
           'xz': 'xz-utils', 'ccache': 'ccache', 'git': 'git', 'rsync': 'rsync',
           'timeout': 'coreutils', 'openssl': 'libssl-dev', 'depmod': 'kmod', 'modprobe': 'kmod',
           'pahole': 'dwarves', 'busybox': 'busybox-static', 'python3': 'python3',
           'sparse': 'sparse', 'mandoc': 'mandoc', 'flock': 'util-linux',
           'qemu-system-x86_64': 'qemu-system-x86', 'qemu-system-riscv64': 'qemu-system-misc',
           'qemu-system-aarch64': 'qemu-system-arm'}
CROSS_TOOL = re.compile(r'([a-z0-9_]+-linux-gnu[a-z0-9_]*)-[a-z+]+')


def missing_tool(tool):
    """TOOL (a command that is not installed) and what installs it."""
    name = os.path.basename(tool)
    m = CROSS_TOOL.fullmatch(name)
    pkg = PACKAGE.get(name) or (m and 'gcc-' + m.group(1).replace('_', '-'))
    return '%s is not installed: %s' % (
        name, 'apt-get install %s (or ci/deps.sh ARCH as root)' % pkg if pkg else
        'ci/deps.sh ARCH (as root) installs what the pipeline runs')


# What a build's log says when the machine, not the commit, failed it.
# A tool that is not there: the shell's "not found", make's and
# ci/pipeline/procs.run's "No such file or directory" for a program it
# could not start, Python's for a bare program name (kunit.py's make).
NOT_INSTALLED = re.compile(
    r'^(?:.*: )?([\w.+-]+): (?:command )?not found\s*$'
    r'|^(?:make(?:\[\d+\])?: )?([\w.+-]+): No such file or directory\s*$'
    r"|FileNotFoundError: \[Errno 2\] No such file or directory: '([\w.+-]+)'", re.M)
# A full disk, wherever it was written.
DISK_FULL = re.compile(r'^.*\b(?:No space left on device|Disk quota exceeded)\b.*$', re.M)
# The compiler, the linker or a recipe killed (the OOM killer's SIGKILL), or
# out of memory: gcc's "Killed signal terminated program cc1" and
# "internal compiler error: Killed (program cc1)", collect2's "ld
# terminated with signal 9 [Killed]", make's "[...] Killed" or "Error 137"
# for a recipe whose shell or program was SIGKILLed.
BUILD_KILLED = re.compile(
    r'^.*(?:Killed signal terminated program|internal compiler error: Killed'
    r'|terminated with signal 9\b|virtual memory exhausted|out of memory allocating'
    r'|Cannot allocate memory).*$'
    r'|^make(?:\[\d+\])?: \*\*\* \[.*\] (?:Killed|Error 137)\s*$', re.M)


SOURCE_EXCERPT = re.compile(r'^\s*[0-9]*\s*\|')


def build_fault(rc, log_text, kills=()):
    """Why a build that failed (its exit RC, None if unknown, and its log)
    judged nothing about the commit: the machine's cause, or None when
    the build failed on its own (a compile error: build-failed, 125).
    KILLS (oom_kills of the build's time) name who the OOM killer took."""
    # gcc quotes the source a diagnostic is about ("   42 |   text"): a
    # string in the code under test is never the machine's message.
    said = '\n'.join(l for l in log_text.split('\n') if not SOURCE_EXCERPT.match(l))
    m = NOT_INSTALLED.search(said)
    if m:
        return missing_tool(next(g for g in m.groups() if g))
    m = DISK_FULL.search(said)
    if m:
        return 'no space left on device: "%s"' % m.group(0).strip()
    m = BUILD_KILLED.search(said)
    if m or rc == SIGKILLED:
        what = '"%s"' % m.group(0).strip() if m else 'the build ended by SIGKILL (exit 137)'
        return 'killed by the machine: %s; %s' % (
            what, oom_cause(kills) or 'the kernel log names no OOM kill (OOM killer?)')
    return None


# kunit.py (kunit_kernel.py's validate_config): a symbol of the
# .kunitconfig that olddefconfig did not keep, then "Missing: CONFIG_X=y, ...".
KCONFIG_NOT_KEPT = re.compile(r'Not all Kconfig options selected in kunitconfig were in the '
                              r'generated \.config')
KCONFIG_MISSING = re.compile(r'Missing: (.*)$', re.M)


def kconfig_missing(log_text):
    """The symbols (without CONFIG_) kunit.py said the generated .config
    lacks, in order; [] when it said no such thing."""
    m = KCONFIG_NOT_KEPT.search(log_text)
    if not m:
        return []
    miss = KCONFIG_MISSING.search(log_text, m.end())
    return list(dict.fromkeys(re.findall(r'CONFIG_(\w+)', miss.group(1)))) if miss else []


def misspelled_symbols(missing, declared, reference_declared=None):
    """The symbols of MISSING that are our input's fault: declared by no
    Kconfig of the tree under test (DECLARED) nor of the reference tree
    (REFERENCE_DECLARED, the patched 6.12; None when there is none to
    ask, and then a symbol the tree under test lacks may be one it never
    had: not ours to call misspelled). A symbol the tree declares but
    could not set (an unsatisfied dependency), or that only the tree
    under test lacks, is the tree's: build-failed (125), as before."""
    if reference_declared is None:
        return []
    return [s for s in missing if s not in declared and s not in reference_declared]


def kconfig_typo(symbols, where):
    """The env-error Stage of SYMBOLS no Kconfig declares; WHERE:
    symbol -> the fragments that set it."""
    return Stage('env-error', '; '.join(
        'CONFIG_%s (%s) is declared by no Kconfig: a misspelled symbol in nsfd\'s own '
        'fragments, our input is wrong, not the tree' % (s, ', '.join(where.get(s, [])) or
                                                        'kunit-configs/') for s in symbols))


def ccache_line(before, after):
    """The hit rate of one build from ccache's counters before and after
    ((hits, misses) pairs)."""
    hits, misses = after[0] - before[0], after[1] - before[1]
    line = 'ccache: %d hits, %d misses' % (hits, misses)
    if hits + misses:
        line += ' (%.0f%% hits)' % (100.0 * hits / (hits + misses))
    return line


# QEMU's own end, as ci/pipeline/qemu_status.py recorded it, that is the
# machine's and never the kernel's: SIGKILL (the OOM killer; kunit.py's
# own timeout sends SIGTERM), or QEMU itself crashing.
QEMU_KILLED = {9: 'SIGKILL', 6: 'SIGABRT', 7: 'SIGBUS', 11: 'SIGSEGV'}


def kunit_exec(rc, log_text, log_name, kills=(), qemu=None, limit=None, cgroup=None):
    """kunit.py exec's exit and output. Its own traceback decided nothing
    about the kernel (env-error); nor did a QEMU or a kunit.py that the
    machine killed (KILLS: oom_kills of the stage's time; kunit.py's exit
    137; QEMU: qemu_status.py's record of QEMU's end, which says the
    kill where the host's kernel log cannot be read, QEMU killed by
    SIGKILL before kunit.py's LIMIT; CGROUP: machine.OomCounter's cause);
    'timed out' is a timeout; any other non-zero exit a failure
    (kunit.py's parser found a failed or missing test, or the kernel
    crashed: QEMU then ends by itself, panic=-1 and -no-reboot)."""
    if rc == 0:
        return Stage('ok', logs=[log_name])
    if re.search(r'^Traceback \(most recent call last\)', log_text, re.M):
        return Stage('env-error', 'kunit.py raised an exception: %s' % log_name, [log_name])
    killed = oom_cause(kills, 'qemu-system')
    if killed or rc == SIGKILLED:
        return Stage('env-error', 'the KUnit boot was killed by the machine, not by its test: %s (%s)'
                     % (killed or 'kunit.py ended by SIGKILL (exit 137); ' +
                        (oom_cause(kills) or cgroup or 'the kernel log names no OOM kill (OOM killer?)'),
                        log_name), [log_name])
    qemu_killed = qemu_end_fault(qemu, limit, kills, cgroup)
    if qemu_killed:
        return Stage('env-error', 'the KUnit boot was killed by the machine, not by its test: %s (%s)'
                     % (qemu_killed, log_name), [log_name])
    if 'timed out' in log_text or 'Timeout' in log_text:
        return Stage('timeout', 'kunit.py exit %d: KUnit\'s limit%s passed before its last '
                     'result' % (rc, ' of %s s' % limit if limit else ''), [log_name])
    return Stage('fail', 'kunit.py exit %d' % rc, [log_name])


def qemu_end_fault(qemu, limit, kills=(), cgroup=None):
    """The machine's cause in QEMU's recorded end (qemu_status.py's
    record), or None: QEMU killed by SIGKILL before LIMIT s, or crashed
    (SIGSEGV, SIGABRT, SIGBUS). Its cause: the OOM kill the host's log
    names, else the cgroup's count (CGROUP), else "OOM killer?"."""
    if not qemu or qemu.get('signal') not in QEMU_KILLED:
        return None
    sig, secs = qemu['signal'], qemu.get('seconds')
    limit_s = seconds(limit) if limit is not None else None
    if sig == 9 and secs is not None and limit_s is not None and secs >= limit_s:
        return None
    what = 'QEMU (%s, pid %s) ended by %s after %s s' % (
        os.path.basename(qemu.get('qemu') or 'qemu'), qemu.get('pid'), QEMU_KILLED[sig],
        '%.0f' % secs if secs is not None else '?')
    if sig != 9:
        return what + ': QEMU itself crashed, the guest kernel was not judged'
    return '%s, before its %.0f s limit, not by its test: %s' % (
        what, limit_s or 0, oom_cause(kills, 'qemu-system') or oom_cause(kills) or cgroup or
        'the host kernel log cannot be read or names no OOM kill (OOM killer?)')


def boot_end(rc, qemu, console_text, timed_out):
    """A boot's end from QEMU's or timeout's exit: (status, detail),
    TIMED_OUT the detail of a timeout. QEMU's exit 0 is the init's reboot;
    what the console holds is judged elsewhere (ci/results/judge.py,
    ci/robot/judge.py)."""
    first = console_text.split('\n', 1)[0]
    if rc == 0:
        return 'ok', ''
    if rc in TIMED_OUT:
        return 'timeout', timed_out
    if rc in TIMEOUT_OWN:
        return 'env-error', 'timeout could not run %s (exit %d): %s' % (qemu, rc, first)
    if 'Linux version' in console_text:
        return 'fail', '%s exit %d' % (qemu, rc)
    # QEMU refused to start (e.g. -enable-kvm without /dev/kvm).
    return 'env-error', '%s exit %d before a kernel booted: %s' % (qemu, rc, first)


def machine_end(rc, elapsed, limit, kills, qemu):
    """The machine's cause of a boot's end under timeout(1), or None:
    QEMU killed before its limit (sigkill_before_limit), or not installed
    (timeout's 127)."""
    if rc == 127:
        return 'timeout could not run %s (exit 127): %s' % (qemu, missing_tool(qemu))
    return sigkill_before_limit(rc, elapsed, limit, kills, qemu)


def guest_boot(number, rc, limit, qemu, console_text, elapsed=None, kills=(), hung=False,
               allowance=None):
    """One kselftest guest's end: (status, detail). ELAPSED: its seconds
    under timeout(1), KILLS: oom_kills of its time (machine_end). HUNG:
    the guest init had not started ALLOWANCE s after QEMU did, and the
    boot was ended (ci/pipeline/bootwatch.py): a failed boot, the
    kernel's verdict."""
    if hung:
        return 'fail', 'guest %d: a failed boot: no guest init %s s after QEMU started' % (
            number, allowance)
    fault = machine_end(rc, elapsed, limit, kills, qemu)
    if fault:
        return 'env-error', 'guest %d: %s' % (number, fault)
    status, detail = boot_end(rc, qemu, console_text, 'no end after %s s' % limit)
    return status, 'guest %d: %s' % (number, detail) if detail else ''


def robot_boot(rc, budget, qemu, console_text, elapsed=None, kills=()):
    """make robot's boot, its whole job (ELAPSED, KILLS as guest_boot's)."""
    fault = machine_end(rc, elapsed, budget, kills, qemu)
    if fault:
        return Stage('env-error', fault)
    return Stage(*boot_end(rc, qemu, console_text, 'the job did not end within %s s' % budget))


def guests(ends):
    """The guest stage from every guest's (status, detail): a timeout
    wins, else the first guest's bad status; every guest's detail is
    kept."""
    status = 'ok'
    for s, _ in ends:
        if s == 'timeout' or (status == 'ok' and s != 'ok'):
            status = s
    return Stage(status, '; '.join(d for _, d in ends if d))


def guest_limit(binaries, per_binary, debug, fixed=None):
    """A guest's time limit: each binary's own timeout (its settings) plus
    what the init spends ending one (SIGTERM grace, SIGKILL wait,
    draining: 17 s), plus booting (120 s; 600 s on a debug kernel) and the
    kmemleak scan. FIXED (NSFD_BOOT_TIMEOUT, any duration timeout(1)
    takes) overrides."""
    if fixed:
        return fixed
    per = KSELFTEST_TIMEOUT if per_binary is None else per_binary
    return binaries * (per + 17) + boot_allowance(debug)
