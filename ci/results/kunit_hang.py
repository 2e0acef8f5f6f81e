"""A KUnit case that hung, named (the KUnit stage's timeout).

KUnit prints a case's result only when the case ends: a case that hangs
leaves its suite open ("# Subtest: S", its plan, the results of the cases
before it) until KUnit's limit (ci/pipeline/decide.py's kunit_limit) ends
the boot. The KTAP then holds no line of the hung case, and ktap.py
reports the suite's and the run's plans as not met. Here that cut is
turned into what happened:

- the results before the hang stay as they are;
- the case that hung is a failed case of its suite, "hung: no result
  within KUnit's limit", named from kunit-cases.txt (the kernel's own
  list of its cases in the order it runs them, kunit.action=list, which
  ci/pipeline/kernel.py writes after the timeout), else by its number;
- each case and suite after it is a skip "not run because S.C hung" (from
  the list, else the suites of expected-kunit-suites.txt that gave
  nothing), so that no suite reads as "did not run" of its own;
- the plans' "(missing)" results that the hang explains are dropped, and
  the KUnit boot stays a boot that reached its tests (not a failed boot).

Only for a timeout whose KTAP had begun: a KUnit boot that never printed
its header is a failed boot (ci/results/boots.py).
"""

from . import ktap
from .model import TestResult, TestStatus, failed


def open_path(root):
    """The chain of nodes the stream left open (a subtest whose result
    line never came), outermost first."""
    chain, node = [], root
    while node.children and node.children[-1].number is None:
        node = node.children[-1]
        chain.append(node)
    return chain


def hung_case(root, cases):
    """(suite, case name, cases after it in its suite) of the case that
    hung, or None when the stream was cut between suites."""
    chain = open_path(root)
    if not chain:
        return None
    suite = chain[0]
    done = [c for c in suite.children if c.number is not None]
    if len(chain) > 1:
        # A parameterised case open: its "# Subtest:" named it.
        name = chain[1].name
    else:
        name = None
    listed = [c.split('.', 1)[1] for c in (cases or []) if c.split('.', 1)[0] == suite.name]
    if name is None:
        k = len(done)
        if k < len(listed):
            name = listed[k]
        else:
            name = '(case %d%s)' % (k + 1, ' of %d' % suite.plan if suite.plan else '')
    after = listed[listed.index(name) + 1:] if name in listed else []
    return suite.name, name, after


def named(lines, res, limit=None, cases=None, expected=()):
    """RES (the TestResults of LINES) with the hang named. LIMIT: KUnit's
    limit in s, for the reason; CASES: kunit-cases.txt's lines (None: no
    list); EXPECTED: the suites that had to run. Pure: collect.py reads
    the files."""
    root = ktap.parse(lines)
    found = hung_case(root, cases)
    if found is None:
        return list(res) + [failed('kunit', 'kunit', 'timeout',
                                   'the KUnit guest timed out between suites (KUnit\'s limit%s)'
                                   % (' of %s s' % limit if limit else ''))]
    suite, case, after = found
    hung = '%s.%s' % (suite, case)
    why = 'not run because %s hung' % hung

    def skip(s, c):
        return TestResult('kunit', s, c, TestStatus.SKIP, None, why)

    # The plans the hang left unmet: the suite's and the run's own.
    kept = [r for r in res if not ('KTAP stream truncated' in (r.reason or '')
                                   and r.suite in (suite, '(missing)'))]
    out = kept + [failed('kunit', suite, case,
                         'hung: no result within KUnit\'s limit%s; the boot was ended there, '
                         'every result before it kept' % (' of %s s' % limit if limit else ''))]
    out += [skip(suite, c) for c in after]
    seen = {r.suite for r in out}
    later = []
    if cases:
        order = list(dict.fromkeys(c.split('.', 1)[0] for c in cases))
        later = [s for s in order[order.index(suite) + 1:]] if suite in order else []
        for s in later:
            out += [skip(s, c.split('.', 1)[1]) for c in cases if c.split('.', 1)[0] == s]
    for s in expected:
        if s not in seen and s not in later:
            out.append(skip(s, s))
    return out
