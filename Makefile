# nsfd: namespace file descriptors and socketat(2) on Linux 6.12, tested in
# QEMU guests. The pipeline lives in ci/; README.md and docs/ say more.
#
#   make run    [ARCH=x86_64|riscv64|arm64] [DEBUG=1] [KERNEL_SRC=DIR] [CONFIG=NAME]
#               one variant: deps, tree, kernel, KUnit, kselftests, results
#               in out/<variant>/ (ci/nsfd run)
#   make test   the one-machine gate (ci/nsfd test): the pipeline's own
#               tests, then the kernels of ci/variants.py's
#               kernel_variants() (`ci/nsfd variants` prints them first:
#               the x86_64 debug kernel and riscv64), then make robot; one
#               summary over all of them
#   make test-all  make test, then the fan-out on this machine too (the
#               plain x86_64 kernel, the matrix configs, arm64)
#   make check  the pipeline's own tests only (no kernel)
#   make series [KERNEL_SRC=DIR]
#               the mailable series in out/series/, checkpatch --strict;
#               with KERNEL_SRC, the series for the git tree DIR (git am
#               -3 on its HEAD, socketat numbered for it) in
#               out/series-<commit>/ (ci/series/make.sh, docs/series.md)
#   make robot  the mailed series on pristine 6.12 as a test robot runs it:
#               run_kselftest.sh in a busybox rootfs, KUnit built in and as
#               modules (ci/pipeline/robot.py; out/robot-x86_64/)
#   make bench  socketat's cost in a guest, out/<arch>/bench.json
#   make bisect KERNEL_SRC=DIR GOOD=REV BAD=REV [ARCH=] [DEBUG=1] [TEST=RE]
#               bisect DIR's history with nsfd's verdict (ci/bisect/bisect.py)
#   make mutants [MUTANT=glob]
#               the mutation campaign of ci/mutants/ (not part of make
#               test; docs/mutants.md)
#   make selftests-cross [CROSS_ARCHES="alpha hppa ..."]
#               the kselftests built, not run, for every arch Debian ships
#               a cross C library for (ci/cross/selftests.tsv), -Wall clean,
#               as a table (ci/cross/selftests.sh; installs the compilers;
#               not part of make test)
#   make clean  remove out/;  make distclean  remove build/ and out/
#
# make turns any failing exit status into 2. The commands these targets
# call exit 0/1/125/2 (README.md, "Exit codes"): CI and robots call them
# directly (ci/nsfd test, ci/nsfd run, ...).
#
# ci/ is one Python package, `ci`, imported from this directory: its
# programs run as python3 -m ci.X with the top on PYTHONPATH (-P: the
# working directory never on the path; docs/design.md, "Imports").

ARCH ?= x86_64
PYTHON_M = PYTHONPATH="$(CURDIR)$${PYTHONPATH:+:$$PYTHONPATH}" python3 -B -P -m

run:
	@ci/nsfd run $(ARCH) $(if $(filter 1 y yes,$(DEBUG)),--debug) \
		$(if $(KERNEL_SRC),--kernel-src $(KERNEL_SRC)) $(if $(CONFIG),--config $(CONFIG))

test:
	@ci/nsfd test

test-all:
	@ci/nsfd test --all

check:
	@$(PYTHON_M) ci.tests.run out/pipeline

series:
	@ci/series/make.sh $(if $(KERNEL_SRC),--kernel-src '$(KERNEL_SRC)')

robot:
	@ci/nsfd robot $(ARCH)

bench:
	@ci/nsfd bench $(ARCH)

bisect:
	@$(PYTHON_M) ci.bisect.bisect --kernel-src "$(KERNEL_SRC)" --good "$(GOOD)" --bad "$(BAD)" --arch $(ARCH) \
		$(if $(filter 1 y yes,$(DEBUG)),--debug) $(if $(TEST),--test '$(TEST)')

mutants:
	@MUTANT='$(MUTANT)' $(PYTHON_M) ci.mutants.campaign

selftests-cross:
	@ci/cross/selftests.sh $(CROSS_ARCHES)

clean:
	rm -rf out

distclean:
	rm -rf build out

.PHONY: run test test-all check series robot bench bisect mutants selftests-cross clean distclean
