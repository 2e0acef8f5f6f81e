"""Every name the docs give exists: README.md and docs/*.md checked against the code.

What is checked, in code (`spans` and fenced blocks), where a command starts
(a span's or a line's start, after a `$ ` prompt, `&&`, `;`, ` | ` or `$(`):
- `make TARGET [VAR=VALUE]`: TARGET is a rule of the Makefile, VAR a
  variable it reads ($(VAR)). `make -C DIR ...` and `make -f ...` are
  another Makefile's and are not checked;
- `ci/nsfd SUBCOMMAND [ARCH] [--FLAG [VALUE]]`: SUBCOMMAND is one ci/nsfd
  dispatches (ci/pipeline/cli.py), each --FLAG a literal of its parsers
  (cli.py, ci/results/merge.py), ARCH one of ci/arch/, --config's value
  one of kunit-configs/matrix/;
- `VAR=VALUE` before a command, and $VAR: an environment variable the code
  reads or sets (below). CONFIG_* are Kconfig symbols, not checked.
Anywhere in the text: every NSFD_* name is one the code reads.
Also: a span that names a path of this repository (ci/..., docs/...,
kunit/..., Makefile, ...) exists; a relative link leads to a file, and an
#anchor to a heading; a transcript of `$ ci/nsfd variants` is its output.

The code's environment variables: in Python under ci/, the upper-case
string literals of each function (or top-level statement) that touches
os.environ or getenv; in shell (ci/ scripts, the arch files, .ci/run),
$VAR, ${VAR and export VAR; in the Makefile, $(VAR); in the CI files,
$VAR and the keys of env:/variables:. Plus FOREIGN: variables of the
world around nsfd that the docs may name.
"""

import ast
import glob
import os
import re
import unittest

from ci import variants

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.path.dirname(HERE)
TOP = os.path.dirname(CI)

# Set by every CI engine (GitHub Actions, GitLab): the measured commands
# of docs/performance.md set it as CI does.
FOREIGN = {'CI'}
REPO_PREFIXES = ('ci/', 'docs/', 'kunit/', 'kunit-configs/', 'patches/', 'selftests/',
                 '.github/', '.ci/')
REPO_FILES = ('Makefile', '.gitlab-ci.yml', 'README.md')
PLACEHOLDER = re.compile(r'[<>*{}]|\.\.\.|\b(ARCH|NAME|DIR|VARIANT|SUITE|N)\b')
NAME = r'[A-Z][A-Z0-9_]*'


def docs():
    return [os.path.join(TOP, 'README.md')] + sorted(glob.glob(os.path.join(TOP, 'docs', '*.md')))


def rel(path):
    return os.path.relpath(path, TOP)


# ---- what the code has -------------------------------------------------

def makefile():
    """(targets, variables) of the Makefile."""
    with open(os.path.join(TOP, 'Makefile')) as f:
        text = f.read()
    targets = set(re.findall(r'^([a-z][a-z0-9_-]*):', text, re.M))
    names = set(re.findall(r'\$\((%s)\)' % NAME, text)) | set(re.findall(r'^(%s)\s*\?=' % NAME, text, re.M))
    return targets, names


def nsfd_commands():
    """(subcommands, flags) of ci/nsfd."""
    from ci.pipeline import cli
    import inspect
    subs = set(cli.COMMANDS) | set(re.findall(r"cmd == '([a-z-]+)'", inspect.getsource(cli.main)))
    flags = set()
    for path in (os.path.join(CI, 'pipeline', 'cli.py'), os.path.join(CI, 'results', 'merge.py')):
        with open(path) as f:
            flags |= set(re.findall(r"'(--?[a-z][a-z-]*)'", f.read()))
    return subs, flags


def arches():
    return {os.path.basename(p)[:-len('.conf')] for p in glob.glob(os.path.join(CI, 'arch', '*.conf'))}


def python_env(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    found = set()

    def literals(node):
        return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant)
                and isinstance(n.value, str) and re.fullmatch(NAME, n.value)}

    def touches_env(node):
        src = ast.dump(node)
        return "attr='environ'" in src or "'getenv'" in src or "attr='getenv'" in src
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and touches_env(node):
            found |= literals(node)
        elif isinstance(node, ast.Call) and touches_env(node):
            # dict(os.environ, LC_ALL='C'): keyword names are variables too
            found |= {k.arg for k in node.keywords if k.arg and re.fullmatch(NAME, k.arg)}
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and touches_env(node):
            found |= literals(node)
    return found


SHELL_VAR = re.compile(r'\$\{?(%s)|\bexport\s+(%s)' % (NAME, NAME))


def is_shell(path):
    if path.endswith(('.sh', '.conf')):
        return True
    try:
        with open(path, 'rb') as f:
            first = f.readline()
    except OSError:
        return False
    return first.startswith(b'#!') and (b'sh' in first.split(b'/')[-1])


def code_env():
    """Every environment variable the code reads or sets."""
    names = set(FOREIGN) | makefile()[1]
    for path in glob.glob(os.path.join(CI, '**', '*'), recursive=True):
        if '/fixtures/' in path or not os.path.isfile(path):
            continue
        with open(path, 'rb') as f:
            python = path.endswith('.py') or f.read(40).startswith(b'#!/usr/bin/env python3')
        if python:
            names |= python_env(path)
        elif is_shell(path):
            with open(path, errors='replace') as f:
                names |= {a or b for a, b in SHELL_VAR.findall(f.read())}
    for path in [os.path.join(TOP, '.ci', 'run'), os.path.join(TOP, '.gitlab-ci.yml')] + \
            glob.glob(os.path.join(TOP, '.github', 'workflows', '*.yml')):
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
            names |= {a or b for a, b in SHELL_VAR.findall(text)}
            names |= set(re.findall(r'^\s+(%s):' % NAME, text, re.M))
            names |= set(re.findall(r'echo "(%s)=' % NAME, text))     # $GITHUB_ENV
    return names


# ---- what the docs say -------------------------------------------------

def snippets(text):
    """(line, code, in_block) for every code span and fenced block line."""
    out, lines, i = [], text.split('\n'), 0
    para, para_start = [], 0

    def flush():
        joined = '\n'.join(para)
        flat = joined.replace('\n', ' ')
        for m in re.finditer(r'(`+)(.+?)\1', flat):
            out.append((para_start + joined.count('\n', 0, m.start()) + 1, m.group(2).strip(), False))
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith('```'):
            flush()
            para = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith('```'):
                out.append((i + 1, lines[i], True))
                i += 1
            i += 1
            para_start = i
            continue
        if not line.strip():
            flush()
            para, para_start = [], i + 1
        else:
            para.append(line)
        i += 1
    flush()
    return out


SEPARATORS = re.compile(r'\s\|\s|&&|\|\||;|\$\(|\)')


def commands(code):
    """The commands of a snippet: lists of words, a leading $ prompt and a
    trailing # comment dropped."""
    for piece in SEPARATORS.split(code):
        piece = piece.strip()
        if piece.startswith('$ '):
            piece = piece[2:]
        piece = re.sub(r'(^|\s)#.*', '', piece)
        words = piece.split()
        while words and words[0] in ('sudo', 'time', 'exec'):
            words.pop(0)
        if words:
            yield words


def clean(word):
    return word.strip('[]').rstrip('.,:')


class Checker:
    def __init__(self):
        self.targets, self.make_vars = makefile()
        self.subs, self.flags = nsfd_commands()
        self.arches = arches()
        self.configs = set(variants.matrix_configs())
        self.env = code_env()

    def env_problem(self, name):
        if name.startswith('CONFIG_') or name in self.env:
            return None
        return 'no code reads or sets the environment variable %s' % name

    def check_make(self, words):
        problems = []
        for w in words[1:]:
            w = clean(w)
            if not w or w == 'make':
                continue
            if w.startswith('-'):
                if w[:2] in ('-C', '-f'):
                    return []       # another Makefile
                continue
            m = re.fullmatch(r'(%s)=.*' % NAME, w)
            if m:
                if m.group(1) not in self.make_vars:
                    problems.append('the Makefile reads no variable %s (it reads: %s)' % (
                        m.group(1), ' '.join(sorted(self.make_vars))))
            elif re.fullmatch(r'[a-z][a-z0-9_-]*', w) and w not in self.targets:
                problems.append("the Makefile has no target '%s' (targets: %s)" % (
                    w, ' '.join(sorted(self.targets))))
        return problems

    def check_nsfd(self, words):
        args = [clean(w) for w in words[1:]]
        args = [a for a in args if a]
        if not args or not re.fullmatch(r'[a-z][a-z0-9_-]*', args[0]):
            return []
        sub, problems = args[0], []
        if sub not in self.subs:
            return ["ci/nsfd has no subcommand '%s' (it has: %s)" % (sub, ' '.join(sorted(self.subs)))]
        prev = sub
        for a in args[1:]:
            if a.startswith('-'):
                flag = a.split('=', 1)[0]
                if flag not in self.flags:
                    problems.append("ci/nsfd %s: no option %s in its parser" % (sub, flag))
            elif prev == '--config':
                if re.fullmatch(r'[a-z0-9_]+', a) and a not in self.configs:
                    problems.append("ci/nsfd: no config '%s' in kunit-configs/matrix/ (%s)" % (
                        a, ' '.join(sorted(self.configs))))
            elif (sub in ('run', 'guest', 'cc', 'bench', 'robot') and prev == sub and
                  re.fullmatch(r'[a-z0-9_]+', a) and a not in self.arches):
                problems.append("ci/nsfd %s: no arch '%s' in ci/arch/ (%s)" % (
                    sub, a, ' '.join(sorted(self.arches))))
            prev = a
        return problems

    def check_path(self, word):
        word = re.sub(r':\d+$', '', word.rstrip('.,;:)'))
        if not (word.startswith(REPO_PREFIXES) or word in REPO_FILES) or PLACEHOLDER.search(word):
            return None
        if not os.path.exists(os.path.join(TOP, word)):
            return 'no such file or directory in this repository: %s' % word
        return None

    def check_code(self, code, in_block):
        problems = []
        if not in_block and ' ' not in code:
            p = self.check_path(code)
            if p:
                problems.append(p)
        for words in commands(code):
            while words and re.fullmatch(r'(%s)=\S*' % NAME, words[0]):
                p = self.env_problem(words.pop(0).split('=', 1)[0])
                if p:
                    problems.append(p)
            if not words:
                continue
            if words[0] == 'make':
                problems += self.check_make(words)
            elif words[0] in ('ci/nsfd', './ci/nsfd'):
                problems += self.check_nsfd(words)
            elif '/' in words[0]:
                p = self.check_path(words[0])
                if p:
                    problems.append(p)
        for name in re.findall(r'\$\{?(%s)' % NAME, code):
            p = self.env_problem(name)
            if p:
                problems.append(p)
        return problems

    def check_text(self, text):
        """[(line, problem)] for a document's text."""
        problems = []
        for line, code, in_block in snippets(text):
            problems += [(line, '`%s`: %s' % (code.strip(), p)) for p in self.check_code(code, in_block)]
        for n, line in enumerate(text.split('\n'), 1):
            for name in re.findall(r'\b(NSFD_[A-Z0-9_]*[A-Z0-9])\b(?!\*)', line):
                if name not in self.env:
                    problems.append((n, 'NSFD variable %s: no code reads it' % name))
        return sorted(set(problems))


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r'[`*_]', lambda m: '_' if m.group() == '_' else '', heading.strip().lower())
    return re.sub(r'[^\w\- ]', '', h).replace(' ', '-')


def anchors(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r'```.*?```', '', text, flags=re.S)
    return {slug(m) for m in re.findall(r'^#+\s+(.*)$', text, re.M)}


def link_problems(path, text):
    problems = []
    text_nofence = re.sub(r'```.*?```', lambda m: '\n' * m.group().count('\n'), text, flags=re.S)
    for n, line in enumerate(text_nofence.split('\n'), 1):
        for target in re.findall(r'\]\(([^)\s]+)\)', line):
            if re.match(r'[a-z]+:', target):
                continue
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append((n, 'link %s: no such file' % target))
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                problems.append((n, 'link %s: %s has no heading with that anchor' % (target, rel(dest))))
    return problems


# A section of a document, as comments and docstrings name it: README,
# "Exit codes"; docs/design.md, "Imports"; (README: Bisecting).
DOC = r'(?<![\w/])(README(?:\.md)?|docs/[\w.-]+\.md)'
SECTION_QUOTED = re.compile(DOC + r',?\s+"([^"\n]+)"')
SECTION_COLON = re.compile(r'\(' + DOC + r': ([^()"\n]+?)\)')


def headings(path):
    """The headings of a Markdown file, lower case, without markup."""
    with open(path) as f:
        text = re.sub(r'```.*?```', '', f.read(), flags=re.S)
    return {re.sub(r'[`*]', '', h).strip().lower() for h in re.findall(r'^#+\s+(.*)$', text, re.M)}


def code_files():
    """Every text file of ci/ (fixtures aside), and the Makefile."""
    out = [os.path.join(TOP, 'Makefile')]
    for path in sorted(glob.glob(os.path.join(CI, '**', '*'), recursive=True)):
        if '/fixtures/' in path or '__pycache__' in path or not os.path.isfile(path) or \
                path == os.path.abspath(__file__).replace('.pyc', '.py'):
            continue
        with open(path, 'rb') as f:
            if b'\0' in f.read(4096):
                continue
        out.append(path)
    return out


def section_problems(path, text):
    """[(line, problem)]: a reference to DESIGN.md (gone), or to a
    section of README.md or docs/*.md that has no such heading."""
    problems = []
    for n, line in enumerate(text.split('\n'), 1):
        if 'DESIGN' + '.md' in line:
            problems.append((n, 'DESIGN' + '.md is gone: name a section of README.md or docs/'))
    flat = re.sub(r'\s*\n\s*(?:#\s*)?', ' ', text)
    for rx in (SECTION_QUOTED, SECTION_COLON):
        for m in rx.finditer(flat):
            doc, section = m.group(1), m.group(2).strip()
            dest = os.path.join(TOP, 'README.md' if doc.startswith('README') else doc)
            if not os.path.exists(dest):
                problems.append((0, '%s (named with "%s"): no such file' % (doc, section)))
            elif section.lower() not in headings(dest):
                problems.append((0, '%s has no section "%s"' % (rel(dest), section)))
    return problems


def report(problems_by_doc):
    return '\n'.join('%s:%d: %s' % (rel(d), n, p) for d, ps in problems_by_doc for n, p in ps)


class DocNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.checker = Checker()

    def test_the_docs_exist(self):
        names = [rel(d) for d in docs()]
        self.assertIn('README.md', names)
        self.assertTrue(any(n.startswith('docs/') for n in names), names)

    def test_every_target_subcommand_variable_and_path_the_docs_name_exists(self):
        found = []
        for d in docs():
            with open(d) as f:
                found.append((d, self.checker.check_text(f.read())))
        text = report(found)
        if text:        # the first line is the first problem: run.py prints it
            self.fail(text + '\n(names in the docs that do not exist: fix the doc, or the name)')

    def test_every_link_leads_somewhere(self):
        found = []
        for d in docs():
            with open(d) as f:
                found.append((d, link_problems(d, f.read())))
        text = report(found)
        if text:
            self.fail(text + '\n(broken links)')

    def test_every_section_the_code_and_the_docs_name_exists(self):
        # Comments and docstrings name sections too ("README: Reading");
        # and DESIGN.md is gone.
        found = []
        for d in code_files() + docs():
            with open(d, errors='replace') as f:
                found.append((d, section_problems(d, f.read())))
        text = report(found)
        if text:
            self.fail(text + '\n(sections that do not exist: fix the reference, or the heading)')

    def test_a_transcript_of_ci_nsfd_variants_is_its_output(self):
        want = ['%s\t%s' % v for v in variants.variants()]
        for d in docs():
            with open(d) as f:
                lines = f.read().split('\n')
            for i, line in enumerate(lines):
                if line.strip() == '$ ci/nsfd variants':
                    got = []
                    for ln in lines[i + 1:]:
                        if ln.startswith('```') or ln.startswith('$ '):
                            break
                        got.append(ln)
                    self.assertEqual(got, want, '%s:%d: the transcript is not what `ci/nsfd '
                                     'variants` prints now' % (rel(d), i + 1))


class TheCheckerItself(unittest.TestCase):
    """The checker catches what it is for (on made-up text)."""

    @classmethod
    def setUpClass(cls):
        cls.checker = Checker()

    def problems(self, text):
        return [p for _, p in self.checker.check_text(text)]

    def test_a_misspelled_target_variable_subcommand_flag_arch_config(self):
        self.assertEqual(self.problems('Run `make tset`.'),
                         ["`make tset`: the Makefile has no target 'tset' (targets: %s)"
                          % ' '.join(sorted(self.checker.targets))])
        text = '\n'.join(['`make run ARCHH=riscv64`', '`ci/nsfd rnu`', '`ci/nsfd run --degub`',
                          '`ci/nsfd run riscv46`', '`ci/nsfd run x86_64 --config net_of`',
                          '`NSFD_GEUSTS=1 ci/nsfd run`', 'set NSFD_JBOS to 4',
                          '`ci/pipeline/nope.py`', '```', '$ KERNEL_SCR=~/linux make run', '```'])
        got = self.problems(text)
        for want in ('no variable ARCHH', "no subcommand 'rnu'", 'no option --degub',
                     "no arch 'riscv46'", "no config 'net_of'", 'NSFD_GEUSTS', 'NSFD_JBOS',
                     'no such file or directory in this repository: ci/pipeline/nope.py',
                     'environment variable KERNEL_SCR'):
            self.assertTrue(any(want in p for p in got), (want, got))

    def test_what_is_not_ours_is_not_checked(self):
        self.assertEqual(self.problems(
            'The tree\'s `make -C build/robot/src headers`, `CONFIG_KUNIT=y`, `make` alone, '
            'make tset in prose, `ci/nsfd run ARCH [--debug]`, `ci/arch/<arch>.conf`, '
            '`NSFD_*` variables, `tools/testing/selftests/nsfd/config`.'), [])

    def test_real_names_pass(self):
        self.assertEqual(self.problems(
            '`make run ARCH=riscv64 DEBUG=1`, `make bisect KERNEL_SRC=DIR GOOD=REV BAD=REV`, '
            '`ci/nsfd run x86_64 --config time_ns_off`, `ci/nsfd merge --out DIR`, '
            '`NSFD_GUESTS=1`, `$GITHUB_STEP_SUMMARY`, `ci/results/summary.py`.'), [])

    def test_links_and_anchors(self):
        readme = os.path.join(TOP, 'README.md')
        self.assertEqual(link_problems(readme, '[a](docs/nope.md) [b](#no-such-heading)'),
                         [(1, 'link docs/nope.md: no such file'),
                          (1, 'link #no-such-heading: README.md has no heading with that anchor')])
        self.assertEqual(slug('Exit codes'), 'exit-codes')

    def test_sections_named_in_comments(self):
        readme = os.path.join(TOP, 'README.md')
        self.assertEqual(section_problems(readme, '# exit 0/1/125/2 (README.md, "Exit codes")\n'
                                                  '# docs/design.md, "Imports"; (README: Bisecting)'),
                         [])
        got = [p for _, p in section_problems(readme, '(DESIGN' + '.md \u00a76)\n# (README: lean\n'
                                                      '# kernels), README, "Reading"')]
        self.assertEqual(got, ['DESIGN' + '.md is gone: name a section of README.md or docs/',
                               'README.md has no section "Reading"',
                               'README.md has no section "lean kernels"'])
        self.assertEqual(slug('Other trees (`KERNEL_SRC=`)'), 'other-trees-kernel_src')


if __name__ == '__main__':
    unittest.main()
