"""nsfd's host-side pipeline: what `ci/nsfd` (make run, make test) runs.

Split as kunit.py is (kunit.py / kunit_kernel.py / kunit_parser.py /
qemu_configs/):

  cli.py      the command line: parse, dispatch, the exit code
  variant.py  one variant's stages in order (tree, kernel, KUnit, guests)
  tree.py     the kernel tree: tarball or KERNEL_SRC, the series, the
              tests laid in (ci/prepare-tree.sh is its command line)
  kernel.py   the kernel: config fragments, build, identity, KUnit exec
  kunitconfig.py    the .kunitconfig fragments merged (the later wins)
  kunit_objects.py  the KUnit objects kunit/append/ wires into a tree
  guest.py    the kselftests: build, initramfs, the guests
  qemu.py     the one QEMU launcher of every guest boot (the robot's too)
  bench.py    make bench
  robot.py    make robot: the mailed series as a test robot runs it
  decide.py   every status decision (a command's exit and output to a
              stage status), pure functions that ci/tests call
  procs.py    child processes, stopping the whole tree, build/.lock
  runlog.py   progress lines, stages.tsv, environment errors
  arches.py   ci/arch/*.conf, read as data

The results (out/VARIANT/results.json and the rest) are written by
ci/results/report.py from what the stages leave in out/VARIANT/: collected
(collect.py), judged (judge.py), written (publish.py, results.json last);
the KTAP and console parsing is ci/results/ktap.py and ci/results/console.py.
"""
