"""Results from what a variant's stages left in out/VARIANT/, collected,
judged and written: model (the exit codes, the result types), collect,
expected, judge (pure), publish, atomic, resultsfile, junit, ktap_printer;
report (the command line that wires them); ktap, console (kernel reports),
identity (what a boot ran), boots, kcidb, merge (ci/nsfd merge), summary
(the Markdown a CI front end shows)."""
