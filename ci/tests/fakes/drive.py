#!/usr/bin/env python3
"""One variant of the fake world (ci/tests/test_faults.py) in a process of
its own, as ci/nsfd runs it: build/.lock of the world held, the stop
handlers installed. usage: drive.py WORLD_DIR [FAKE_VAR=VALUE...]
Its exit is the variant's."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import test_faults  # noqa: E402
from pipeline import procs, runlog  # noqa: E402

tmp = sys.argv[1]
world = test_faults.World(tmp)
procs.hold_build_lock(tmp, runlog.Say())
procs.stop_on_signals()
sys.exit(world.go(**dict(a.split('=', 1) for a in sys.argv[2:])))
