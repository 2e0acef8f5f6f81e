"""Each variant's totals and failures as Markdown, for a CI front end.

usage: python3 -m ci.results.summary VARIANT_DIR...
    Reads each VARIANT_DIR/results.json (an out/<variant>/ as a CI job
    uploaded it) and prints GitHub-flavoured Markdown: a headline with the
    totals and the verdict, a table with a row per variant (passed, failed,
    skipped, exit), then each variant's failed tests with their reasons
    and what did not build. A directory without a readable results.json is
    a row that says why. The GitHub workflow's merge job appends it to
    $GITHUB_STEP_SUMMARY (docs/ci-matrices.md).

It reads results as `ci/nsfd merge` does (merge.load, model.verdict) and
decides nothing: the merge job's exit is the run's verdict. Exit 0 when
it printed the summary, 2 for a usage error.
"""

import argparse
import os
import sys

from ci import args as cli_args
from . import merge
from .model import ExitCode, summary_line, verdict
# A summary is read on a web page: past this many failures a variant
# links to its results.json instead (GitHub keeps 1 MiB a step).
MAX_FAILURES = 50
MAX_REASON = 300


def cell(text):
    """TEXT safe in a Markdown table cell: one line, no pipes, no HTML."""
    text = ' '.join(str(text).split())
    return text.replace('\\', '\\\\').replace('|', '\\|').replace('<', '&lt;').replace('>', '&gt;')


def code(text):
    """TEXT as inline code in a table cell (a backtick inside becomes a
    quote; within code, GitHub shows HTML and entities as they are)."""
    return '`%s`' % ' '.join(str(text).split()).replace('`', "'").replace('|', '\\|')


def exit_cell(code_):
    try:
        meaning = ExitCode(code_).meaning
    except ValueError:
        meaning = 'unknown'
    return '%s (%s)' % (int(code_), meaning)


def render(dirs):
    """The Markdown for DIRS, as a list of lines."""
    rows, sections, codes = [], [], []
    total = {'passed': 0, 'failed': 0, 'skipped': 0}
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        results, why = merge.load(d)
        if results is None:
            codes.append(ExitCode.ENVIRONMENT)
            rows.append('| %s | | | | %s: %s |' % (code(name), exit_cell(ExitCode.ENVIRONMENT), cell(why)))
            continue
        variant = results.get('variant') or name
        shown = code(variant) + ('' if variant == name else ' (%s)' % code(name + '/'))
        c = results['summary']
        for k in total:
            total[k] += c.get(k, 0)
        codes.append(merge.code_of(results, [], d))
        rows.append('| %s | %d | %d | %d | %s |' % (shown, c.get('passed', 0), c.get('failed', 0),
                                                    c.get('skipped', 0), exit_cell(results['exit_code'])))
        failed = [t for t in results.get('tests', []) if t.get('status') == 'fail']
        problems = [line[len('nsfd: '):] if line.startswith('nsfd: ') else line
                    for line in results.get('not_built', [])]
        if not failed and not problems:
            continue
        sections += ['', '### %s: exit %s' % (shown, exit_cell(results['exit_code'])), '']
        if failed:
            sections += ['| suite | test | reason |', '|---|---|---|']
            for t in failed[:MAX_FAILURES]:
                reason = ' '.join(str(t.get('reason') or '').split())
                if len(reason) > MAX_REASON:
                    reason = reason[:MAX_REASON] + ' ...'
                sections.append('| %s | %s | %s |' % (code(t.get('suite', '')),
                                                      code(t.get('name', '')), cell(reason)))
            if len(failed) > MAX_FAILURES:
                sections += ['', '... and %d more failed tests: %s' % (
                    len(failed) - MAX_FAILURES, code(os.path.join(d, 'results.json')))]
        if problems:
            sections += ([''] if failed else []) + ['- %s' % cell(line) for line in problems]
    code_ = verdict(codes)
    head = ['## %s, exit %s' % (cell(summary_line(total)), exit_cell(code_)), '',
            '| variant | passed | failed | skipped | exit |', '|---|---:|---:|---:|---|']
    if not dirs:
        rows = ['| (no variant directories given) | | | | |']
    foot = ['', 'Each variant\'s results: its artifact (`out/<variant>/`: results.json, '
            'junit.xml, kcidb.json, the consoles). The run\'s verdict is the merge job\'s exit '
            '(`ci/nsfd merge`).']
    return head + rows + sections + foot


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.results.summary',
                                description='each variant\'s totals and failures as Markdown')
    p.add_argument('dirs', nargs='+', metavar='VARIANT_DIR')
    a, code = cli_args.parse(p, argv)
    if a is None:
        return code
    sys.stdout.write('\n'.join(render(a.dirs)) + '\n')
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv[1:]))
