"""The fault suite's fakes (README); checkout and drive are imported or
run as ci.tests.fakes.*, kunit.py and qemu are run by path as the tools
they stand for."""
