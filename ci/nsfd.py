#!/usr/bin/env python3
"""nsfd pipeline driver (the Python entry ci/nsfd starts): what `make run`
and `make test` call.
The command line and what each command does: ci/pipeline/cli.py
(ci/nsfd with no arguments prints its usage)."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pipeline import cli  # noqa: E402

if __name__ == '__main__':
    sys.exit(cli.main(sys.argv[1:]))
