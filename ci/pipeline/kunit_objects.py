"""The KUnit test objects nsfd wires into a tree, read from kunit/append/
(the obj- lines and #includes; the Kconfig entries of kunit/insert/ build
no object). kernel.kunit_objects() reads them in process.

usage: python3 -m ci.pipeline.kunit_objects KUNIT_DIR

rows(KUNIT_DIR): one (SYMBOL, OBJECT, SOURCE, SUITES) per object; the
command prints one line each: SYMBOL<TAB>OBJECT<TAB>SOURCE<TAB>SUITE[,SUITE...]
  - an `obj-$(CONFIG_X) += name.o` line appended to DIR/Makefile gives
    DIR/name.o, built from kunit/DIR/name.c;
  - a `#ifdef CONFIG_X` + `#include "name.c"` appended to DIR/file.c gives
    DIR/file.o, which compiles kunit/DIR/name.c beside the static code.
The suites are the `.name = "..."` of each struct kunit_suite in SOURCE.
"""
import argparse
import os
import re
import sys

from ci import args as cli_args
from ci.results.model import ExitCode

OBJ = re.compile(r'^obj-\$\(CONFIG_(\w+)\)\s*\+=\s*(\S+)\.o\s*$', re.M)
IFDEF = re.compile(r'^#if(?:def\s+CONFIG_(\w+)|\s+IS_ENABLED\(CONFIG_(\w+)\))\s*\n'
                   r'#include\s+"([^"]+\.c)"', re.M)
SUITE = re.compile(r'struct kunit_suite\s+\w+\s*=\s*\{[^}]*?\.name\s*=\s*"([^"]+)"', re.S)


def suites(path):
    try:
        return SUITE.findall(open(path).read())
    except OSError:
        return []


def rows(kunit):
    """[(symbol, object, source, (suites))] of the objects KUNIT's
    append/ wires in, in a stable order."""
    append = os.path.join(kunit, 'append')
    found = []
    for root, _, files in sorted(os.walk(append)):
        for f in sorted(files):
            tree_path = os.path.relpath(os.path.join(root, f), append)
            d = os.path.dirname(tree_path)
            text = open(os.path.join(root, f)).read()
            if f == 'Makefile' or f == 'Kbuild':
                for sym, name in OBJ.findall(text):
                    src = os.path.join(d, name + '.c')
                    found.append((sym, os.path.join(d, name + '.o'), src,
                                  tuple(suites(os.path.join(kunit, src)))))
            elif f.endswith('.c'):
                for sym1, sym2, inc in IFDEF.findall(text):
                    src = os.path.normpath(os.path.join(d, inc))
                    found.append((sym1 or sym2, tree_path[:-2] + '.o', src,
                                  tuple(suites(os.path.join(kunit, src)))))
    return found


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m ci.pipeline.kunit_objects',
                                description='the KUnit objects kunit/append/ wires into a tree')
    p.add_argument('kunit', help="nsfd's kunit/ directory")
    a, code = cli_args.parse(p, argv)
    if a is None:
        return code
    for sym, obj, src, names in rows(a.kunit):
        print('\t'.join([sym, obj, src, ','.join(names)]))
    return ExitCode.PASS


if __name__ == '__main__':
    sys.exit(cli_args.run(main, sys.argv[1:]))
