"""Results from what a variant's stages left in out/VARIANT/: report
(results.json, junit.xml, the exit code), ktap, console (kernel reports),
identity (what a boot ran), boots, kcidb, merge (ci/nsfd merge), summary
(the Markdown a CI front end shows)."""
