"""Write: a run's result files from its judged model, each through the
one atomic writer (ci/results/atomic.py), results.json last
(ci/results/resultsfile.py): the KTAP files, junit.xml, timings.json and
kcidb.json first; a write that fails leaves no results.json, so no file
states a verdict the run's exit does not give."""

import os

from . import atomic, junit, kcidb, resultsfile


def siblings(outdir, doc, ktaps=(), junit_name=None, props=None, timings=None):
    """Write every file but results.json: KTAPS ([(file name, text)]),
    junit.xml (testsuites JUNIT_NAME, each with PROPS), timings.json
    (TIMINGS, when given) and kcidb.json of DOC (results.json's dict).
    Returns the names written, for results.json to list."""
    written = []
    for name, text in ktaps:
        atomic.write_text(os.path.join(outdir, name), text)
        written.append(name)
    if timings is not None:
        atomic.write_json(os.path.join(outdir, 'timings.json'), timings)
        written.append('timings.json')
    atomic.write_bytes(os.path.join(outdir, 'junit.xml'),
                       junit.render(doc['tests'], junit_name, props))
    written.append('junit.xml')
    atomic.write_json(os.path.join(outdir, 'kcidb.json'), kcidb.document(doc, outdir))
    written.append('kcidb.json')
    return written


def results(outdir, doc, written):
    """results.json, last: DOC naming the files WRITTEN with it."""
    return resultsfile.write(outdir, doc, written)
