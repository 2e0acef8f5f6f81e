"""nsfd's CI: one Python package, `ci`, imported from the checkout's top.

Its packages: ci.pipeline (the stages, ci/nsfd's program), ci.results
(results.json, JUnit, KCIDB), ci.robot, ci.bisect, ci.mutants, ci.series,
ci.tests; ci.variants is make test's list and the CI matrices'. A module's
name is its path: ci/results/report.py is ci.results.report. Within a
package a module imports its siblings relatively (from . import ktap),
anything else by its full name (from ci.results import report).

Every program is a module run with `python3 -B -P -m ci.X`: the checkout's
top is the import root, on PYTHONPATH; -P keeps the working directory off
the path, so that another checkout's ci/ there is never the one imported.
The entry points put the top on PYTHONPATH (ci/nsfd, the Makefile,
ci/prepare-tree.sh, ci/tests/pipeline-job.sh); nothing below them touches
sys.path. A program started by one of them (command() below) inherits the
same root: importing ci puts this checkout's top first on PYTHONPATH.
docs/design.md, "Imports".
"""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_path = [p for p in os.environ.get('PYTHONPATH', '').split(os.pathsep) if p]
if _path[:1] != [TOP]:
    os.environ['PYTHONPATH'] = os.pathsep.join([TOP] + [p for p in _path if p != TOP])
del _path


def command(module, *args):
    """The command that runs MODULE (ci.results.report, ...) as a program
    in a child of this process, with ARGS: this interpreter, the same ci/."""
    return [sys.executable, '-B', '-P', '-m', module] + list(args)
