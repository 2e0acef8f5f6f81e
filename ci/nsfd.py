"""nsfd pipeline driver, the Python side of ci/nsfd (python3 -B -P -m
ci.nsfd): what `make run` and `make test` call.
The command line and what each command does: ci/pipeline/cli.py
(ci/nsfd with no arguments prints its usage)."""

import sys

from ci import args as cli_args
from ci.pipeline import cli

if __name__ == '__main__':
    sys.exit(cli_args.run(cli.main, sys.argv[1:]))
