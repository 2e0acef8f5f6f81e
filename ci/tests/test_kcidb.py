"""KCIDB output (ci/results/kcidb.py) and the merge of variant directories (ci/results/merge.py).

On real result directories (fixtures/variants/, see its README): the
document validates against the KCIDB v5.3 schema (fixtures/, vendored from
kcidb-io), paths and statuses follow KernelCI's conventions, and the merge
gives one summary, one document and one exit code.
"""

import collections
import copy
import io
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from contextlib import redirect_stdout

import ci
from ci.results import expected, judge, kcidb, ktap, merge, model
from ci.series import patch_list
from ci.tests.test_pipeline import prove_boots

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)

try:
    import jsonschema
except ImportError:         # ci/deps.sh installs python3-jsonschema
    jsonschema = None

VARIANTS = os.path.join(HERE, 'fixtures', 'variants')
GREEN = ['x86_64', 'riscv64', 'x86_64-net_off']
FAILED, ENV_ERROR = 'failed-x86_64-net_ns_off', 'env-error-x86_64'
SCHEMA = os.path.join(HERE, 'fixtures', 'kcidb-v5.3.schema.json')
ID = re.compile(r'^[a-z0-9_]+:[^\0]*$')             # the schema's id pattern
PATH = re.compile(r'^([a-zA-Z0-9_-]+(\.[a-zA-Z0-9_-]+)*)?$')
CHECKOUT = 'nsfd:linux-source-6.12.tar.xz@6.12.118+4101520704b2+a57bf7cc477c+025932f348ee'


def variant(name):
    return os.path.join(VARIANTS, name)


def results(name):
    return kcidb.read_results(variant(name))


def statuses(doc):
    return collections.Counter(t['status'] for t in doc['tests'])


def by_path(doc):
    return {t['path']: t for t in doc['tests']}


class SchemaCase(unittest.TestCase):
    def assertValid(self, doc):
        if jsonschema is None:
            self.skipTest('python3-jsonschema is not installed: apt-get install '
                          'python3-jsonschema (ci/deps.sh installs it)')
        with open(SCHEMA) as f:
            schema = json.load(f)
        jsonschema.validate(doc, schema, format_checker=jsonschema.FormatChecker())


class Document(SchemaCase):
    def test_every_real_variant_validates_against_the_schema(self):
        for name in GREEN + [FAILED, ENV_ERROR]:
            with self.subTest(variant=name):
                self.assertValid(kcidb.from_dir(variant(name)))

    def test_one_checkout_one_build_version_5_3(self):
        doc = kcidb.from_dir(variant('x86_64'))
        self.assertEqual(doc['version'], {'major': 5, 'minor': 3})
        (checkout,), (build,) = doc['checkouts'], doc['builds']
        self.assertEqual(checkout['id'], CHECKOUT)
        self.assertEqual(checkout['origin'], 'nsfd')
        self.assertTrue(checkout['valid'])
        self.assertEqual([p['patch_id'][:12] for p in checkout['misc']['patches']],
                         ['4101520704b2', 'a57bf7cc477c', '025932f348ee'])
        self.assertEqual(build['id'], 'nsfd:x86_64:d44b2104549caff5b7ad67fdeaf333aff9612a5f')
        self.assertEqual(build['checkout_id'], CHECKOUT)
        self.assertEqual((build['architecture'], build['config_name'], build['status']),
                         ('x86_64', 'nsfd', 'PASS'))
        self.assertEqual(build['compiler'], 'gcc (Debian 12.2.0-14+deb12u1) 12.2.0')
        self.assertEqual(build['duration'], 91.4)

    def test_patchset_hash_is_kcidbs_over_the_series_files(self):
        top = os.path.dirname(CI)
        series = patch_list.read(top)
        entries = [patch_list.entry(top, name, 'id') for name in series]
        doc = {'patched': True, 'kernel': {'series': entries}}
        names = [os.path.join(top, 'patches', name) for name in series]
        # The schema's own recipe: sha256sum *.patch | cut -c-64 | sha256sum.
        run = subprocess.run(['bash', '-c', 'sha256sum "$@" | cut -c-64 | sha256sum | cut -c-64',
                              'hash'] + names, capture_output=True, text=True, check=True)
        self.assertRegex(run.stdout, '^[0-9a-f]{64}\n$')
        self.assertEqual(kcidb.patchset_hash(doc), run.stdout.strip())
        self.assertEqual(len(series), len(glob.glob(os.path.join(top, 'patches', '0*.patch'))))
        self.assertGreater(len(series), 1)
        # A tree tested without patches: the empty string; a patch whose
        # file hash is unknown: no field rather than a wrong one.
        self.assertEqual(kcidb.patchset_hash({'patched': False, 'kernel': {'series': []}}), '')
        entries[1].pop('sha256')
        self.assertIsNone(kcidb.patchset_hash(doc))

    def test_variants_of_one_run_share_the_checkout_and_name_their_config(self):
        docs = {n: kcidb.from_dir(variant(n)) for n in GREEN}
        self.assertEqual({d['checkouts'][0]['id'] for d in docs.values()}, {CHECKOUT})
        self.assertEqual({n: (d['builds'][0]['architecture'], d['builds'][0]['config_name'])
                          for n, d in docs.items()},
                         {'x86_64': ('x86_64', 'nsfd'), 'riscv64': ('riscv64', 'nsfd'),
                          'x86_64-net_off': ('x86_64', 'nsfd+net_off')})
        self.assertEqual(len({d['builds'][0]['id'] for d in docs.values()}), 3)

    def test_one_test_per_result_with_its_status_and_duration(self):
        res = results('x86_64')
        doc = kcidb.document(res)
        self.assertEqual(len(doc['tests']), len(res['tests']))
        self.assertEqual(statuses(doc), {'PASS': res['summary']['passed'],
                                         'SKIP': res['summary']['skipped']})
        t = by_path(doc)['kunit.exec.nsproxy_setns.get_takes_one_reference_put_drops_one_uts']
        self.assertEqual((t['status'], t['duration']), ('PASS', 0.012001))
        self.assertNotIn('log_excerpt', t)
        skip = by_path(doc)['kselftest.nsfd.socketat_test.sat_no_net_ns_minus_one_is_socket']
        self.assertEqual(skip['status'], 'SKIP')
        self.assertEqual(skip['log_excerpt'], 'CONFIG_NET_NS is on: the sat tests cover this kernel')
        self.assertEqual(skip['misc'], {'source': 'kselftest', 'suite': 'nsfd:socketat_test',
                                        'name': 'sat_no_net_ns.minus_one_is_socket'})

    def test_a_real_failure_is_fail_with_its_reason(self):
        doc = kcidb.from_dir(variant(FAILED))
        fails = [t for t in doc['tests'] if t['status'] == 'FAIL']
        self.assertEqual(sorted(t['path'] for t in fails),
                         ['kselftest.nsfd.i386-socketat_test.sat_no_net_ns_every_open_fd_is_einval',
                          'kselftest.nsfd.socketat_test.sat_no_net_ns_every_open_fd_is_einval'])
        self.assertIn('Expected sys_socketat(pidfd', fails[0]['log_excerpt'])
        # A binary skipped as a whole is a result of the program itself.
        self.assertEqual(by_path(doc)['kselftest.nsfd.x32-pin_test']['status'], 'SKIP')

    def test_ids_unique_linked_and_in_the_schemas_form(self):
        for name in GREEN + [FAILED, ENV_ERROR]:
            doc = kcidb.from_dir(variant(name))
            ids = [t['id'] for t in doc['tests']]
            with self.subTest(variant=name):
                self.assertEqual(len(ids), len(set(ids)))
                for obj in doc['checkouts'] + doc['builds'] + doc['tests']:
                    self.assertRegex(obj['id'], ID)
                    self.assertEqual(obj['origin'], 'nsfd')
                self.assertTrue(all(t['build_id'] == doc['builds'][0]['id'] for t in doc['tests']))
                self.assertTrue(all(PATH.match(t['path']) for t in doc['tests']))

    def test_same_results_same_ids_another_run_other_test_ids(self):
        res = results('riscv64')
        self.assertEqual(kcidb.document(res), kcidb.document(copy.deepcopy(res)))
        again = copy.deepcopy(res)
        again['tests'][0]['duration'] += 0.001      # a rerun on the same kernel
        a, b = kcidb.document(res), kcidb.document(again)
        self.assertEqual(a['builds'][0]['id'], b['builds'][0]['id'])
        self.assertFalse({t['id'] for t in a['tests']} & {t['id'] for t in b['tests']})

    def test_report_writes_a_valid_kcidb_json_beside_results_json(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'stages.tsv'), 'w') as f:
            f.write('kernel\tok\t1.5\t\nkunit\tfail\t1.5\t\nguest\tok\t1.5\t\n')
        for dest, src in (('console-kunit.log', 'kunit-nested.log'),
                          ('console-kselftest.log', 'guest-pass.log')):
            shutil.copy(os.path.join(HERE, 'fixtures', src), os.path.join(tmp, dest))
        prove_boots(tmp)
        out = subprocess.run(ci.command('ci.results.report', 'variant', tmp,
                                        '--arch', 'x86_64', '--variant', 'x86_64',
                                        '--kernel-version', '6.12.118', '--patch', '0001-a.patch=abc'),
                             capture_output=True, text=True)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        with open(os.path.join(tmp, 'kcidb.json')) as f:
            doc = json.load(f)
        summary = kcidb.read_results(tmp)['summary']
        self.assertEqual((statuses(doc)['PASS'], statuses(doc)['FAIL'], statuses(doc)['SKIP']),
                         (summary['passed'], summary['failed'], summary['skipped']))
        self.assertEqual(doc['checkouts'][0]['id'], 'nsfd:unknown@6.12.118+abc')
        self.assertValid(doc)


class Paths(unittest.TestCase):
    def test_each_component_keeps_only_letters_digits_underscore_and_dash(self):
        self.assertEqual(kcidb.component('sem.setns_to_same-ipc'), 'sem_setns_to_same-ipc')
        self.assertEqual(kcidb.component('a b/c:d(e)é'), 'a_b_c_d_e__')
        self.assertEqual(kcidb.component(''), '_')
        self.assertEqual(kcidb.path('kunit', 'exec', 'ns ops', 'case.uts'),
                         'kunit.exec.ns_ops.case_uts')

    def test_kernelci_conventions(self):
        cases = [
            (('kunit', 'nsfs', 'nsfs_inode.param 1'), 'kunit.exec.nsfs.nsfs_inode_param_1'),
            (('kselftest', 'nsfd:x32-setns_test', 'ns.cgroup.every_other_flag_is_einval'),
             'kselftest.nsfd.x32-setns_test.ns_cgroup_every_other_flag_is_einval'),
            # a whole program's or suite's own result, a truncated stream, a
            # parent that failed though no child did
            (('kselftest', 'nsfd:pin_test', 'nsfd:pin_test'), 'kselftest.nsfd.pin_test'),
            (('kselftest', 'nsfd:pin_test', '(missing)'), 'kselftest.nsfd.pin_test'),
            (('kunit', 'ns_ops', 'ns_entry.(result)'), 'kunit.exec.ns_ops.ns_entry'),
            (('kunit', 'socketat', 'socketat'), 'kunit.exec.socketat'),
            # the run itself: no KTAP, a timeout, a guest cut short
            (('kunit', 'kunit', 'timeout'), 'kunit.exec'),
            (('kselftest', 'guest-2', 'end-marker'), 'kselftest.nsfd'),
            (('console', 'console-kselftest-2.log', 'kasan:120'), 'kselftest.dmesg.kasan'),
            (('console', 'console-kunit.log', 'rcu-stall:7'), 'kunit.dmesg.rcu-stall'),
            (('pipeline', 'pipeline', 'expected.kunit.socketat'), 'kunit.exec.socketat'),
            (('pipeline', 'pipeline', 'expected.kselftest.pin_test'), 'kselftest.nsfd.pin_test'),
        ]
        for (source, suite, name), want in cases:
            with self.subTest(name=name):
                got = kcidb.test_path({'source': source, 'suite': suite, 'name': name})
                self.assertEqual(got, want)
                self.assertRegex(got, PATH)

    def test_every_real_path_is_valid(self):
        for name in GREEN + [FAILED]:
            for t in results(name)['tests']:
                self.assertRegex(kcidb.test_path(t), PATH)
                self.assertTrue(kcidb.test_path(t).startswith(('kunit.exec.', 'kselftest.nsfd.')))


class Statuses(SchemaCase):
    def test_pass_skip_todo_fail(self):
        for status, want in (('pass', 'PASS'), ('skip', 'SKIP'), ('todo', 'SKIP'), ('fail', 'FAIL')):
            self.assertEqual(kcidb.test_status({'source': 'kunit', 'status': status}), want)

    def test_timeout_is_fail(self):
        # A binary killed by its timeout (KTAP's TIMEOUT directive), a KUnit
        # boot and a guest that did not end in time (report.py's results).
        lines, _ = ktap.extract('nsfd-kselftest: begin\nktap 0.1 | TAP version 13\n'
                                'ktap 0.2 | 1..1\nktap 9.0 | not ok 1 selftests: nsfd: pin_test '
                                '# TIMEOUT 45 seconds\nnsfd-kselftest: end\n', 'guest')
        (killed,) = ktap.results(lines, 'kselftest')
        kunit = model.failed('kunit', 'kunit', 'timeout', 'the KUnit guest timed out').to_dict()
        guest = model.failed('kselftest', 'guest', 'timeout',
                             'the guest did not end in time').to_dict()
        for t in (killed, kunit, guest):
            self.assertEqual(kcidb.test_status(t), 'FAIL', t)
        self.assertEqual(kcidb.test_path(kunit), 'kunit.exec')
        self.assertEqual(kcidb.test_path(guest), 'kselftest.nsfd')

    def test_expected_suite_that_never_ran_is_miss(self):
        # patched mode: the kernel enables socketat, but the suite left no result.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'expected-kunit-suites.txt'), 'w') as f:
            f.write('nsproxy_setns\nsocketat\n')
        res = results('x86_64')
        res['tests'] = [t for t in res['tests'] if t['suite'] != 'socketat']
        src = os.path.join(HERE, 'fixtures', 'sources')
        _, more = judge.patched_checks(res['tests'], {'kunit': {'status': 'ok'}},
                                       lambda: expected.kunit_for(tmp, src),
                                       lambda: expected.kselftests(src))
        res['tests'] += [t.to_dict() for t in more]
        doc = kcidb.document(res)
        missed = [t for t in doc['tests'] if t['status'] == 'MISS']
        self.assertEqual([t['path'] for t in missed], ['kunit.exec.socketat'])
        self.assertIn('did not run', missed[0]['log_excerpt'])
        self.assertValid(doc)

    def test_boot_of_another_kernel_is_error(self):
        doc = kcidb.from_dir(variant(ENV_ERROR))
        self.assertEqual(statuses(doc), {'ERROR': 2})
        self.assertEqual({t['path'] for t in doc['tests']}, {'kselftest.nsfd'})
        self.assertIn('console-kselftest-2.log: booted "Linux version', doc['tests'][1]['log_excerpt'])

    def stages(self, *stages):
        res = results('riscv64')
        res['stages'] = [{'stage': s, 'status': st, 'seconds': 1.0, 'detail': d}
                         for s, st, d in stages]
        return res

    def test_test_stage_environment_error_or_unbuilt_tests_is_error(self):
        res = self.stages(('tree', 'ok', ''), ('kernel', 'ok', ''), ('kunit', 'ok', ''),
                          ('selftests', 'build-failed', 'see out/riscv64/selftests.log'))
        errors = [t for t in kcidb.document(res)['tests'] if t['status'] == 'ERROR']
        self.assertEqual([(t['path'], t['log_excerpt']) for t in errors],
                         [('kselftest.nsfd', 'selftests: the tests did not build: '
                           'see out/riscv64/selftests.log')])

    def test_build_status(self):
        cases = [((('tree', 'ok'), ('kernel', 'ok')), 'PASS'),
                 ((('tree', 'ok'), ('kernel', 'build-failed')), 'FAIL'),
                 ((('tree', 'ok'), ('kernel', 'env-error')), 'ERROR'),
                 ((('tree', 'ok'), ('firmware', 'env-error')), 'ERROR'),
                 ((('tree', 'build-failed'),), 'MISS'),
                 ((('tree', 'ok'), ('selftests', 'ok'), ('guest', 'ok')), 'PASS')]
        for stages, want in cases:
            with self.subTest(stages=stages):
                res = self.stages(*[(s, st, '') for s, st in stages])
                self.assertEqual(kcidb.build_status(res), want)
        invalid = kcidb.document(self.stages(('tree', 'build-failed', '')))
        self.assertFalse(invalid['checkouts'][0]['valid'])

    def test_failed_build_carries_the_end_of_its_log_within_the_limit(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, 'kernel.log'), 'w') as f:
            f.write('x' * 40000 + '\nnet/socket.c:1: error: boom\n')
        res = self.stages(('tree', 'ok', ''), ('kernel', 'build-failed', 'kunit.py build failed'))
        res['tests'] = []
        doc = kcidb.document(res, tmp)
        excerpt = doc['builds'][0]['log_excerpt']
        self.assertEqual(len(excerpt), kcidb.EXCERPT_MAX)
        self.assertTrue(excerpt.endswith('error: boom\n'))
        self.assertValid(doc)

    def test_long_reason_is_cut_to_the_schemas_limit(self):
        res = results('riscv64')
        res['tests'][0].update(status='fail', reason='why ' * 10000 + '\0end')
        doc = kcidb.document(res)
        self.assertEqual(len(doc['tests'][0]['log_excerpt']), kcidb.EXCERPT_MAX)
        self.assertTrue(doc['tests'][0]['log_excerpt'].endswith('why end'))
        self.assertValid(doc)


class Merge(SchemaCase):
    def merge(self, dirs):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        buf = io.StringIO()
        with redirect_stdout(buf):
            code = merge.main(['--out', out] + dirs)
        with open(os.path.join(out, 'kcidb.json')) as f:
            doc = json.load(f)
        return code, buf.getvalue().splitlines(), doc

    def copy_variant(self, name):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        dest = os.path.join(tmp, name)
        shutil.copytree(variant(name), dest)
        return dest

    def test_three_green_variants_give_0_one_checkout_and_every_test(self):
        code, lines, doc = self.merge([variant(n) for n in GREEN])
        self.assertEqual(code, 0, lines)
        total = [results(n)['summary'] for n in GREEN]
        self.assertEqual(lines[-1], 'nsfd: %d passed, 0 failed, %d skipped' % (
            sum(s['passed'] for s in total), sum(s['skipped'] for s in total)))
        self.assertEqual([c['id'] for c in doc['checkouts']], [CHECKOUT])
        self.assertEqual(len(doc['builds']), 3)
        self.assertEqual(len(doc['tests']), sum(len(results(n)['tests']) for n in GREEN))
        self.assertEqual(len({t['id'] for t in doc['tests']}), len(doc['tests']))
        self.assertValid(doc)

    def test_one_failed_variant_gives_1(self):
        failed = self.copy_variant('x86_64-net_off')
        res = kcidb.read_results(failed)
        res['tests'][0].update(status='fail', reason='Expected 1 == 2')
        res['summary'] = model.counts(res['tests'])
        res['exit_code'] = 1
        with open(os.path.join(failed, 'results.json'), 'w') as f:
            json.dump(res, f)
        code, lines, doc = self.merge([variant('x86_64'), variant('riscv64'), failed])
        self.assertEqual(code, 1, lines)
        self.assertTrue(lines[-1].startswith('nsfd: ') and ', 1 failed, ' in lines[-1])
        self.assertIn('nsfd: x86_64-net_off: FAIL nsproxy_setns: '
                      'get_takes_one_reference_put_drops_one.uts Expected 1 == 2', lines)
        self.assertEqual(statuses(doc)['FAIL'], 1)
        self.assertEqual(len(doc['checkouts']), 1)

    def test_a_real_failed_run_gives_1_even_beside_other_sources(self):
        code, lines, doc = self.merge([variant('x86_64'), variant(FAILED)])
        self.assertEqual(code, 1, lines)
        self.assertTrue(any('tested different sources' in l for l in lines))
        self.assertEqual(statuses(doc)['FAIL'], 2)

    def test_missing_directory_or_results_gives_2(self):
        empty = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, empty)
        for bad in (os.path.join(empty, 'riscv64'), empty):
            with self.subTest(bad=bad):
                code, lines, doc = self.merge([variant('x86_64'), variant('x86_64-net_off'), bad])
                self.assertEqual(code, 2, lines)
                self.assertTrue(any(l.startswith('nsfd: merge: %s: ' % bad) for l in lines), lines)
                self.assertRegex(lines[-1], r'^nsfd: \d+ passed, 0 failed, \d+ skipped$')
                self.assertEqual(len(doc['builds']), 2)
                self.assertValid(doc)

    def test_a_results_json_without_its_siblings_gives_2(self):
        # results.json is written last and names the files written with it:
        # one missing or not as written is no verdict (on 742e786 merge took
        # any results.json, even beside a junit.xml cut short).
        for name, spoil in (('junit.xml', os.unlink),
                            ('kcidb.json', lambda p: open(p, 'a').write(' '))):
            with self.subTest(name=name):
                d = self.copy_variant('riscv64')
                spoil(os.path.join(d, name))
                code, lines, doc = self.merge([variant('x86_64'), d])
                self.assertEqual(code, 2, lines)
                self.assertTrue(any(l.startswith('nsfd: merge: %s: ' % d) and name in l
                                    for l in lines), lines)

    def test_environment_error_gives_2(self):
        code, lines, doc = self.merge([variant(ENV_ERROR)])
        self.assertEqual(code, 2, lines)
        self.assertEqual(statuses(doc), {'ERROR': 2})

    def test_different_sources_give_2(self):
        other = self.copy_variant('riscv64')
        res = kcidb.read_results(other)
        res['kernel']['series'][1]['patch_id'] = 'f' * 40
        with open(os.path.join(other, 'results.json'), 'w') as f:
            json.dump(res, f)
        code, lines, doc = self.merge([variant('x86_64'), other])
        self.assertEqual(code, 2, lines)
        self.assertEqual(len(doc['checkouts']), 2)

    def test_the_same_run_twice_is_counted_once(self):
        code, lines, doc = self.merge([variant('riscv64'), self.copy_variant('riscv64')])
        self.assertEqual(code, 0, lines)
        self.assertEqual(lines[-1], 'nsfd: 30 passed, 0 failed, 3 skipped')
        self.assertEqual(len(doc['builds']), 1)
        self.assertEqual(len(doc['tests']), len(results('riscv64')['tests']))

    def test_ci_nsfd_merge_and_its_usage_error(self):
        out = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, out)
        nsfd = os.path.join(CI, 'nsfd')
        run = subprocess.run([nsfd, 'merge', '--out', out] + [variant(n) for n in GREEN],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertEqual(run.stdout.splitlines()[-1], 'nsfd: 99 passed, 0 failed, 12 skipped')
        with open(os.path.join(out, 'summary.json')) as f:
            self.assertEqual(json.load(f)['exit_code'], 0)
        run = subprocess.run([nsfd, 'merge'], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(run.stdout.splitlines()[-1], 'nsfd: 0 passed, 0 failed, 0 skipped')
        run = subprocess.run([nsfd, 'merge', '--help'], capture_output=True, text=True)
        self.assertEqual((run.returncode, run.stderr), (0, ''))
        self.assertIn('usage: ci/nsfd merge', run.stdout)


if __name__ == '__main__':
    unittest.main()
