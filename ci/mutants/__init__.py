"""make mutants: campaign (the driver, python3 -m ci.mutants.campaign) and
mutant (parse, apply, record, score); the mutants and README beside them."""
