"""The manual tools of ci/dev/: the bisect histories they make, on a
small tarball that holds only the lines each story edits."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
HISTORY = os.path.join(TOP, 'ci', 'dev', 'bisect-history.sh')

FILES = {
    'kernel/utsname.c': '// utsname\n',
    'kernel/pid_namespace.c': '/*\n * pid\n */\n',
    'kernel/user_namespace.c': '// user\n',
    'ipc/namespace.c': '// ipc\n',
    'kernel/nsproxy.c': ('static int check_setns_flags(unsigned long flags)\n{\n'
                         '\tif (!flags || (flags & ~(CLONE_NEWNS)))\n\t\treturn false;\n}\n'
                         'int x(void) { if (flags && (ns->ops->type != flags)) return -EINVAL; '
                         'return check_setns_flags(0); }\n'),
    'init/main.c': 'void start_kernel(void)\n{\n\tconsole_init();\n}\n',
}


class BisectHistory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        src = os.path.join(self.tmp, 'linux-source-6.12')
        for path, text in FILES.items():
            os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
            with open(os.path.join(src, path), 'w') as f:
                f.write(text)
        self.tarball = os.path.join(self.tmp, 'src.tar.xz')
        subprocess.run(['tar', '-cJf', self.tarball, '-C', self.tmp, 'linux-source-6.12'],
                       check=True)

    def history(self, kind):
        d = os.path.join(self.tmp, kind)
        p = subprocess.run([HISTORY, kind, d], capture_output=True, text=True,
                           env=dict(os.environ, NSFD_TARBALL=self.tarball))
        self.assertEqual(p.returncode, 0, p.stderr)
        return d

    def diff(self, d, kind):
        return subprocess.run(['git', '-C', d, 'diff', kind + '-culprit~', kind + '-culprit'],
                              capture_output=True, text=True, check=True).stdout

    def test_each_story_has_its_tags_and_its_culprit(self):
        for kind, culprit in (('demo', '+int x(void) { if (0 && flags'),
                              ('drill', '+\tif ((flags & ~(CLONE_NEWNS'),
                              ('early-boot', '+\tpanic("early-boot drill: before console_init()");')):
            with self.subTest(kind=kind):
                d = self.history(kind)
                tags = subprocess.run(['git', '-C', d, 'tag'], capture_output=True, text=True,
                                      check=True).stdout.split()
                self.assertEqual(sorted(tags), sorted(kind + s for s in
                                                      ('-bad', '-culprit', '-good')))
                self.assertIn(culprit, self.diff(d, kind))
        # The drill's gap closes after the culprit: the old name is back.
        with open(os.path.join(self.tmp, 'drill', 'kernel', 'nsproxy.c')) as f:
            self.assertIn('check_setns_flags(0)', f.read())

    def test_an_unknown_story_or_an_existing_dir_is_2(self):
        self.assertEqual(subprocess.run([HISTORY, 'nope', os.path.join(self.tmp, 'x')],
                                        capture_output=True).returncode, 2)
        self.assertEqual(subprocess.run([HISTORY, 'demo', self.tmp],
                                        capture_output=True).returncode, 2)


if __name__ == '__main__':
    unittest.main()
