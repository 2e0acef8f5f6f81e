"""make check: the pipeline's own tests (python3 -m ci.tests.run OUTDIR)."""
