"""results.json's promise: written last, naming the files written with it.

A run's result files (junit.xml, kcidb.json, the KTAP, timings.json) are
written first; results.json comes last, through the same atomic writer,
and lists each of them with its sha256 ("files"). So a results.json on
disk means every sibling was written whole, and its exit_code is the
run's: a write that fails before it leaves no results.json, and the run
exits 2. A reader (ci/nsfd test's summary, ci/nsfd merge, the bisect
judge) takes a results.json only with its siblings as written: one
missing or changed is 2, never the verdict the file states.
"""

import hashlib
import json
import os

from . import atomic
from .model import exit_of

NAME = 'results.json'


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def discard(outdir):
    """Remove OUTDIR's results.json before anything else is written: no
    earlier run's verdict may stand for this one's."""
    try:
        os.unlink(os.path.join(outdir, NAME))
    except FileNotFoundError:
        pass


def writer_exit(status, outdir):
    """(ExitCode, cause) of the child that wrote OUTDIR's results
    (report.py, the robot's judge) from its exit STATUS. A status that is
    none of the four codes (killed by the OOM killer: 137) judged
    nothing: its results.json, if it got that far, is removed, so that
    none states a code the run does not give; cause says why."""
    code, cause = exit_of(status)
    if cause:
        discard(outdir)
    return code, cause


def write(outdir, doc, siblings):
    """OUTDIR/results.json of DOC, naming SIBLINGS (file names in OUTDIR,
    each written already) with their sha256; the last file a run writes."""
    doc = dict(doc)
    doc['files'] = {name: sha256(os.path.join(outdir, name)) for name in siblings}
    return atomic.write_json(os.path.join(outdir, NAME), doc)


def missing_siblings(outdir, doc):
    """Why DOC (OUTDIR's results.json) cannot be taken: a sibling it
    names that is missing or not as written, or no list of siblings at
    all; None when every one is there."""
    files = doc.get('files') if isinstance(doc, dict) else None
    if not isinstance(files, dict):
        return ('results.json names no files written with it: not written whole by '
                'ci/results/report.py')
    for name, digest in sorted(files.items()):
        path = os.path.join(outdir, name)
        try:
            have = sha256(path)
        except OSError:
            return 'results.json without its sibling %s: the run did not write every file' % name
        if have != digest:
            return ('%s is not the file written with results.json (sha256 differs): another '
                    'run wrote it, or it was changed' % name)
    return None


def load(outdir, name=NAME):
    """(results, None) or (None, why OUTDIR gives no verdict): no
    results.json (NAME), one that is not JSON or has no exit_code or
    summary, or one without its siblings."""
    if not os.path.isdir(outdir):
        return None, 'no such directory: did its CI job upload out/<variant>/?'
    try:
        with open(os.path.join(outdir, name)) as f:
            results = json.load(f)
    except FileNotFoundError:
        return None, 'no results.json: the variant never reported (did its job end early?)'
    except OSError as e:
        return None, 'cannot read results.json: %s' % e
    except ValueError as e:
        return None, 'results.json is not JSON (%s): the upload is damaged, rerun the job' % e
    if not isinstance(results, dict) or 'exit_code' not in results or 'summary' not in results:
        return None, 'results.json has no exit_code or summary: not written by ci/results/report.py'
    why = missing_siblings(outdir, results)
    if why:
        return None, why
    return results, None
