"""argparse for every entry point, the same way: --help prints the usage
and exits 0, a usage error prints argparse's line and exits 2 (never
argparse's own exit, which an entry point returns as its code instead)."""

import argparse

from ci.results.model import ExitCode


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
