"""junit.xml of a run's tests: a testsuite per (source, suite)."""

import re
import xml.etree.ElementTree as ET

from .model import TestResult, TestStatus, counts

# Characters XML 1.0 cannot carry, even escaped: a console's ESC or NUL in
# a reason would make junit.xml unreadable to every CI that parses it.
NOT_XML = re.compile('[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]')


def xml_text(s):
    """s with each character XML 1.0 cannot carry written as \\xNN."""
    return NOT_XML.sub(lambda m: '\\x%02x' % ord(m.group()), s)


def render(tests, name, props=None):
    """junit.xml's bytes for TESTS (TestResults), the testsuites NAME and
    each testsuite's PROPS ([(name, value)])."""
    tests = [TestResult.of(t) for t in tests]
    root = ET.Element('testsuites', name=xml_text(name))
    suites = {}
    for t in tests:
        key = (t.source, t.suite)
        if key not in suites:
            suites[key] = ET.SubElement(root, 'testsuite', name=xml_text('%s.%s' % key))
            if props:
                pe = ET.SubElement(suites[key], 'properties')
                for k, v in props:
                    ET.SubElement(pe, 'property', name=xml_text(k), value=xml_text(v))
        case = ET.SubElement(suites[key], 'testcase', classname=xml_text('%s.%s' % key),
                             name=xml_text(t.name), time='%.6f' % (t.duration or 0))
        if t.status == TestStatus.FAIL:
            ET.SubElement(case, 'failure', message=xml_text(t.reason or 'failed'))
        elif t.status in (TestStatus.SKIP, TestStatus.TODO):
            ET.SubElement(case, 'skipped', message=xml_text(t.reason or t.status.value))
    for key, el in suites.items():
        cases = [t for t in tests if (t.source, t.suite) == key]
        el.set('tests', str(len(cases)))
        el.set('failures', str(sum(t.status == TestStatus.FAIL for t in cases)))
        el.set('skipped', str(sum(t.status in (TestStatus.SKIP, TestStatus.TODO) for t in cases)))
        el.set('time', '%.6f' % sum(t.duration or 0 for t in cases))
    c = counts(tests)
    root.set('tests', str(len(tests)))
    root.set('failures', str(c['failed']))
    root.set('skipped', str(c['skipped']))
    return ET.tostring(root, encoding='utf-8', xml_declaration=True)
