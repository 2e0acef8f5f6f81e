# nsfd: namespace file descriptors and socketat(2) on Linux 6.12, tested in
# QEMU guests. The pipeline lives in ci/; see README.md.
#
#   make run    [ARCH=x86_64|riscv64|arm64] [DEBUG=1] [KERNEL_SRC=DIR] [CONFIG=NAME]
#   make test   pipeline tests, x86_64, riscv64, x86_64 debug, the config
#               matrix, then make robot
#   make check  the pipeline's own tests only (no kernel)
#   make series the mailable series in out/series/, checkpatch --strict
#   make robot  the mailed series on pristine 6.12 as a test robot runs it:
#               run_kselftest.sh in a busybox rootfs, KUnit built in and as
#               modules (ci/pipeline/robot.py; out/robot-x86_64/)
#   make bench  socketat's cost in the x86_64 guest, out/x86_64/bench.json
#   make bisect KERNEL_SRC=DIR GOOD=REV BAD=REV [ARCH=] [DEBUG=1] [TEST=RE]
#               bisect DIR's history with nsfd's verdict (ci/bisect/bisect.py)
#   make mutants [MUTANT=glob]
#               the mutation campaign of ci/mutants/ on x86_64 (not part
#               of make test; ci/mutants/README)
#
# make turns any failing exit status into 2; ci/nsfd, which these targets
# call, exits 0/1/125/2 as README.md says (use it for git bisect run).

ARCH ?= x86_64

run:
	@ci/nsfd run $(ARCH) $(if $(filter 1 y yes,$(DEBUG)),--debug) \
		$(if $(KERNEL_SRC),--kernel-src $(KERNEL_SRC)) $(if $(CONFIG),--config $(CONFIG))

test:
	@ci/nsfd test

test-all:
	@ci/nsfd test --all

check:
	@python3 -B ci/tests/run.py out/pipeline

series:
	@ci/series/make.sh

robot:
	@ci/nsfd robot $(ARCH)

bench:
	@ci/nsfd bench $(ARCH)

bisect:
	@ci/bisect/bisect.py --kernel-src "$(KERNEL_SRC)" --good "$(GOOD)" --bad "$(BAD)" --arch $(ARCH) \
		$(if $(filter 1 y yes,$(DEBUG)),--debug) $(if $(TEST),--test '$(TEST)')

mutants:
	@MUTANT='$(MUTANT)' ci/mutants/campaign.py

clean:
	rm -rf out

distclean:
	rm -rf build out

.PHONY: run test test-all check series robot bench bisect mutants clean distclean
