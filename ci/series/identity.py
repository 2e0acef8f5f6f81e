#!/usr/bin/env python3
"""Whose name a mailed series carries: the sender's, from git config.

  ci/series/identity.py sender [DIR]
      prints "Name <email>" from `git config user.name` and `user.email`
      as git reads them in DIR (the checkout by default: its own config,
      then the global and system ones). Exit 2, saying how to set them,
      when either is unset or is a placeholder (is_placeholder below).
  ci/series/identity.py sign [--unchecked] "Name <email>"  < MESSAGE > MESSAGE'
      the commit message with every placeholder Signed-off-by dropped and
      the sender's added at the end of its trailers (once). Exit 2 if the
      identity is a placeholder, unless --unchecked (make robot's private
      copy of the mail, never sent).
  ci/series/identity.py check PATCH...
      exit 2, naming each, if a From:, Signed-off-by: or MAINTAINERS M:
      line of the mails PATCH... carries a placeholder identity.

A patch's From: and Signed-off-by: are the DCO's statement that the sender
may submit it (Documentation/process/submitting-patches.rst): they must name
a person who answers at that address. So nothing here ever makes up an
identity or falls back to git's guess (user@host.(none)).
"""
import re
import subprocess
import sys

from ci import args
from ci.results.model import ExitCode

HINT = ('Set yours (the name and address you sign your kernel patches with):\n'
        '    git config --global user.name "Your Name"\n'
        '    git config --global user.email "you@your.domain"\n'
        '(or without --global, in this checkout only), then run make series again.')

# RFC 2606 and RFC 6761 reserve these: no mail is ever delivered there.
RESERVED_TLDS = ('example', 'invalid', 'test', 'localhost', 'local')
RESERVED_DOMAINS = ('example.com', 'example.net', 'example.org')


def is_placeholder(name, email):
    """Why NAME <EMAIL> cannot sign a mail, or '' if it can."""
    name, email = (name or '').strip(), (email or '').strip()
    if not name and not email:
        return 'user.name and user.email are not set'
    if not name:
        return 'user.name is not set'
    if not email:
        return 'user.email is not set'
    if re.search(r'[<>\n]', name):
        return 'user.name %r is not a name (it holds <, > or a newline)' % name
    if re.fullmatch(r'(?i)seed [0-9a-f]+ maintainers', name):
        return 'user.name %r is the seed repository\'s placeholder, not a person' % name
    m = re.fullmatch(r'([^@\s<>]+)@([^@\s<>]+)', email)
    if not m:
        return 'user.email %r is not an address' % email
    local, domain = m.group(1).lower(), m.group(2).lower().rstrip('.')
    if '(none)' in domain or '.' not in domain:
        return 'user.email %r has no mail domain (git\'s guess from the host name?)' % email
    if domain.rsplit('.', 1)[-1] in RESERVED_TLDS or domain == 'localhost' or any(
            domain == d or domain.endswith('.' + d) for d in RESERVED_DOMAINS):
        return ('user.email %r is in a reserved domain (RFC 2606/6761) that never '
                'receives mail' % email)
    if re.search(r'no-?reply', local) or re.search(r'no-?reply', domain):
        return ('user.email %r is a noreply address: review comes back by reply, and '
                'the DCO names someone who can be reached' % email)
    return ''


def git_config(key, cwd):
    r = subprocess.run(['git', 'config', '--get', key], cwd=cwd, capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ''


def git_origin(key, cwd):
    r = subprocess.run(['git', 'config', '--show-origin', '--get', key], cwd=cwd,
                       capture_output=True, text=True)
    return r.stdout.split('\t', 1)[0] if r.returncode == 0 else ''


def sender(cwd):
    """(ident, '') or ('', why-not with the hint)."""
    name, email = git_config('user.name', cwd), git_config('user.email', cwd)
    why = is_placeholder(name, email)
    if why:
        key = 'user.name' if why.startswith('user.name') else 'user.email'
        origin = git_origin(key, cwd)
        where = ' (%s)' % origin if origin else ''
        return '', ('series: no sender identity: %s%s.\n'
                    'A mailed patch carries its sender in From: and Signed-off-by:, from git '
                    'config; make series uses no placeholder.\n%s' % (why, where, HINT))
    return '%s <%s>' % (name, email), ''


def split_ident(ident):
    m = re.fullmatch(r'\s*(.*?)\s*<([^<>]*)>\s*', ident)
    return (m.group(1), m.group(2)) if m else (ident, '')


def sign(message, ident):
    """MESSAGE with its placeholder sign-offs dropped and IDENT's added."""
    lines = message.rstrip('\n').split('\n')
    kept = []
    for line in lines:
        m = re.match(r'(?i)^signed-off-by:\s*(.*)$', line)
        if m and is_placeholder(*split_ident(m.group(1))):
            continue
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    sob = 'Signed-off-by: ' + ident
    if sob not in kept:
        # A trailer block is the last paragraph when every line of it is
        # "Token: value"; otherwise the sign-off starts a block of its own.
        last = len(kept)
        while last > 0 and kept[last - 1].strip():
            last -= 1
        block = [l for l in kept[last:] if l.strip()]
        if not block or not all(re.match(r'^[A-Za-z0-9-]+: ', l) for l in block):
            kept.append('')
        kept.append(sob)
    return '\n'.join(kept) + '\n'


IDENT_LINE = re.compile(r'^(?:From: |\+?Signed-off-by: |\+M:\t)(.*)$')


def check(text):
    """The placeholder identities of a mail: (line, why) pairs. A From:
    header that git folded onto a second line is unfolded first."""
    text = re.sub(r'\n[ \t]+(?=<)', ' ', text)
    bad = []
    for line in text.split('\n'):
        m = IDENT_LINE.match(line)
        if m:
            why = is_placeholder(*split_ident(m.group(1)))
            if why:
                bad.append((line, why))
    return bad


def main(argv):
    cmd, words = args.commands('python3 -m ci.series.identity', __doc__, ('sender', 'sign', 'check'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    if len(argv) in (2, 3) and argv[1] == 'sender':
        ident, why = sender(argv[2] if len(argv) == 3 else '.')
        if not ident:
            print(why, file=sys.stderr)
            return ExitCode.ENVIRONMENT
        print(ident)
        return ExitCode.PASS
    if len(argv) in (3, 4) and argv[1] == 'sign' and (len(argv) == 3 or argv[2] == '--unchecked'):
        why = is_placeholder(*split_ident(argv[-1]))
        if why and len(argv) == 3:
            print('series: will not sign with %r: %s' % (argv[-1], why), file=sys.stderr)
            return ExitCode.ENVIRONMENT
        sys.stdout.write(sign(sys.stdin.read(), argv[-1]))
        return ExitCode.PASS
    if len(argv) >= 3 and argv[1] == 'check':
        found = 0
        for path in argv[2:]:
            with open(path, errors='replace') as f:
                for line, why in check(f.read()):
                    print('series: %s: %s: %s' % (path, line.strip(), why), file=sys.stderr)
                    found += 1
        if found:
            print('series: %d placeholder identities in the mail; it is not written' % found,
                  file=sys.stderr)
        return ExitCode.ENVIRONMENT if found else ExitCode.PASS
    print(__doc__.strip(), file=sys.stderr)
    return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
