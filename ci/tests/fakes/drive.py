"""One variant of the fake world (ci/tests/test_faults.py) in a process of
its own, as ci/nsfd runs it: build/.lock of the world held, the stop
handlers installed. usage: python3 -m ci.tests.fakes.drive WORLD_DIR
[FAKE_VAR=VALUE...]. Its exit is the variant's."""

import sys

from ci.pipeline import procs, runlog
from ci.tests import test_faults

tmp = sys.argv[1]
world = test_faults.World(tmp)
procs.hold_build_lock(tmp, runlog.Say())
procs.stop_on_signals()
sys.exit(world.go(**dict(a.split('=', 1) for a in sys.argv[2:])))
