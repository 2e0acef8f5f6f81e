"""argparse for every entry point, the same way: --help prints the usage
and exits 0, a usage error prints argparse's line and exits 2 (never
argparse's own exit, which an entry point returns as its code instead)."""

import argparse
import os
import sys
import traceback

from ci.results.model import ExitCode, exit_of, machine_fault


def parser(prog, doc=None, **kw):
    """An ArgumentParser for PROG, DOC (a module's docstring) its text as written."""
    return argparse.ArgumentParser(prog=prog, description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter, **kw)


def commands(prog, doc, names, argv):
    """PROG's sub-command (one of NAMES) and its words as they came
    (cmd, [word...]), the module checking the words as before; or (None,
    the exit) after --help or an unknown command."""
    p = parser(prog, doc)
    sub = p.add_subparsers(dest='cmd', required=True)
    for name in names:
        sub.add_parser(name).add_argument('args', nargs='*')
    try:
        a, _ = p.parse_known_args(argv)
    except SystemExit as e:
        return None, ExitCode.ENVIRONMENT if e.code else ExitCode.PASS
    return a.cmd, argv[argv.index(a.cmd) + 1:]


def parse(p, argv):
    """(namespace, None), or (None, the exit): 0 after --help, 2 after a
    usage error (argparse has printed it)."""
    try:
        return p.parse_args(argv), None
    except SystemExit as e:
        return None, ExitCode.ENVIRONMENT if e.code else ExitCode.PASS


def run(main, argv, prog=None, also=()):
    """MAIN(ARGV)'s exit as one of the four codes, for sys.exit: an
    uncaught exception (Python's own exit would be 1, which reads as "a
    test failed") or a status that is none of the four (or of ALSO: a
    protocol's own, as git bisect run's 255) is 2, its cause said on
    stderr."""
    prog = prog or os.path.basename(sys.argv[0])
    try:
        rc = main(argv)
    except Exception as e:  # noqa: BLE001 - no verdict is 2, never 1
        traceback.print_exc()
        fault = machine_fault(e)
        print('nsfd: %s: %s: nothing was judged' % (
            prog, 'the machine: ' + fault if fault else
            'an uncaught %s (traceback above): a bug, please report it' % type(e).__name__),
            file=sys.stderr, flush=True)
        return ExitCode.ENVIRONMENT
    if rc is None:
        return ExitCode.PASS
    if rc in also:
        return rc
    code, cause = exit_of(rc)
    if cause:
        print('nsfd: %s: %s' % (prog, cause), file=sys.stderr, flush=True)
    return code
