"""Which kernel and initramfs a boot ran, proven from its console.

A result judges the kernel just built only if the boot says so. The
kernel prints its linux_banner ("Linux version <release> (<who>)
(<compiler>) <UTS_VERSION>") first of all; the guest init prints the GNU
build-id it reads from /sys/kernel/notes and the id of the initramfs it
was packed into. This module reads the same three things from the build
(the banner and build-id out of vmlinux itself, the id build-initramfs.sh
wrote) and compares: any difference, or a console that never says, means
the boot ran something else (a stale image, a ccache hit that linked an
earlier kernel, an earlier boot's log), and nothing it printed may be
taken as a verdict.

usage:
  python3 -m ci.results.identity kernel KDIR IMAGE
                                        print the kernel's identity (JSON):
                                        banner, UTS_VERSION, build-id, image
  python3 -m ci.results.identity check CONSOLE KERNEL.json [INITRAMFS.id]
                                        exit 0 when CONSOLE booted that kernel
                                        (and initramfs), 2 with both named
"""

import hashlib
import json
import os
import re
import struct
import sys

from ci import args
from . import console
from .model import ExitCode

BANNER = re.compile(rb'Linux version [\x20-\x7e]{1,500}\n\0')
GUEST_INIT = re.compile(r'^nsfd-init: ', re.M)
# A kernel message may land inside the init's line: "nsfd-init: kernel
# build-id 0f1e[    1.2] clocksource: ...", the rest of the id at the
# start of the next line. Such a record is cut out before the value is read.
PRINTK_RECORD = re.compile(r'(?:<\d+>)?\[\s*\d+\.\d+\](?:\[\s*[CT]\d+\])? [^\n]*\n')
HEX_OR_RECORD = re.compile(r'(?:[0-9a-f]+|%s)*' % PRINTK_RECORD.pattern)
UTS_VERSION = re.compile(r'^#define UTS_VERSION "(.*)"$', re.M)
NT_GNU_BUILD_ID = 3


def vmlinux_banner(data, uts=None):
    """linux_banner as the kernel prints it, from vmlinux's bytes.

    vmlinux holds two: init/version.o's, with an empty UTS_VERSION, and
    init/version-timestamp.o's, the one that is printed, linked last. With
    UTS the one that ends with it, else the last."""
    found = [m.group(0)[:-2].decode('ascii') for m in BANNER.finditer(data)]
    if uts:
        found = [b for b in found if b.endswith(' ' + uts)] or found
    return found[-1] if found else None


def build_id(data):
    """The GNU build-id note of an ELF file's bytes, hex, or None."""
    if data[:4] != b'\x7fELF':
        return None
    bits, order = data[4], '<' if data[5] == 1 else '>'
    if bits == 2:
        shoff, = struct.unpack_from(order + 'Q', data, 0x28)
        shentsize, shnum = struct.unpack_from(order + 'HH', data, 0x3a)
    else:
        shoff, = struct.unpack_from(order + 'I', data, 0x20)
        shentsize, shnum = struct.unpack_from(order + 'HH', data, 0x2e)
    for i in range(shnum):
        sh = shoff + i * shentsize
        sh_type, = struct.unpack_from(order + 'I', data, sh + 4)
        if sh_type != 7:        # SHT_NOTE
            continue
        if bits == 2:
            off, size = struct.unpack_from(order + 'QQ', data, sh + 0x18)
        else:
            off, size = struct.unpack_from(order + 'II', data, sh + 0x10)
        found = notes_build_id(data[off:off + size], order)
        if found:
            return found
    return None


def notes_build_id(notes, order='<'):
    """The GNU build-id in a run of ELF notes (a section, /sys/kernel/notes)."""
    pos = 0
    while pos + 12 <= len(notes):
        namesz, descsz, ntype = struct.unpack_from(order + 'III', notes, pos)
        name_at = pos + 12
        desc_at = name_at + (namesz + 3) // 4 * 4
        if ntype == NT_GNU_BUILD_ID and notes[name_at:name_at + namesz].rstrip(b'\0') == b'GNU':
            return notes[desc_at:desc_at + descsz].hex()
        pos = desc_at + (descsz + 3) // 4 * 4
    return None


def kernel(kdir, image):
    """The identity of the kernel in KDIR: what its boots must print."""
    with open(os.path.join(kdir, 'vmlinux'), 'rb') as f:
        data = f.read()
    uts = None
    for name in ('include/generated/utsversion.h', 'include/generated/compile.h'):
        try:
            with open(os.path.join(kdir, name)) as f:
                m = UTS_VERSION.search(f.read())
        except OSError:
            continue
        if m:
            uts = m.group(1)
            break
    with open(os.path.join(kdir, image), 'rb') as f:
        image_sha = hashlib.sha256(f.read()).hexdigest()
    return {'banner': vmlinux_banner(data, uts), 'uts_version': uts, 'build_id': build_id(data),
            'image': image, 'image_sha256': image_sha}


def init_value(text, key):
    """The value the guest init printed as "nsfd-init: KEY VALUE" (hex, or
    'none'), with any kernel message that split the line cut out; None when
    it printed no such line."""
    for m in re.finditer(r'^nsfd-init: %s ' % re.escape(key), text, re.M):
        rest = text[m.end():]
        if rest.startswith('none'):
            return 'none'
        value = PRINTK_RECORD.sub('', HEX_OR_RECORD.match(rest).group(0))
        if value:
            return value
    return None


def console_banners(text):
    """Every 'Linux version' line a console shows, printk prefix removed."""
    out = []
    for line in text.splitlines():
        line = line.rstrip('\r')
        m = console.PRINTK.match(line)
        body = line[m.end():] if m else line
        if body.startswith('Linux version '):
            out.append(body.rstrip())
    return out


def check(text, ident, initramfs=None, guest=False):
    """None when the console TEXT booted the kernel IDENT (and, for a guest,
    its init saw that build-id and INITRAMFS); else what differs, naming
    both sides."""
    want = ident.get('banner')
    if not want:
        return 'the build has no linux_banner in vmlinux: cannot tell what a boot ran'
    seen = console_banners(text)
    if not seen:
        return ('the console shows no "Linux version" line: cannot prove it booted the '
                'kernel built (%s)' % want)
    if seen[0] != want.rstrip():
        return 'booted "%s", but the kernel built is "%s"' % (seen[0], want)
    if len(seen) > 1:
        return 'the console holds %d boots ("%s" and "%s"): a log left from an earlier run' % (
            len(seen), seen[0], seen[-1])
    if not guest:
        return None
    # The banner (build number and time) already names the kernel. A
    # guest whose init never ran (a kernel that dies while booting) says
    # nothing more, and its missing KTAP fails it: that is a verdict on
    # the kernel built. An init that ran and names another build-id or
    # initramfs, or none, is not.
    # An init that cannot read /sys/kernel/notes ("none": the kernel under
    # test broke sysfs) leaves the banner as the proof.
    if not GUEST_INIT.search(text):
        return None
    seen = init_value(text, 'kernel build-id')
    if seen is None:
        return 'the guest init printed no kernel build-id: cannot prove which vmlinux ran'
    if seen != 'none' and ident.get('build_id') and seen != ident['build_id']:
        return 'booted build-id %s, but vmlinux built has %s' % (seen, ident['build_id'])
    if initramfs is not None:
        seen = init_value(text, 'initramfs')
        if seen is None:
            return 'the guest init printed no initramfs id: cannot prove which tests ran'
        if seen != initramfs:
            return 'booted initramfs %s, but the one built is %s' % (seen, initramfs)
    return None


def main(argv):
    cmd, words = args.commands('python3 -m ci.results.identity', __doc__, ('kernel', 'check'), argv[1:])
    if cmd is None:
        return words
    argv = [argv[0], cmd] + words
    if len(argv) >= 4 and argv[1] == 'kernel':
        json.dump(kernel(argv[2], argv[3]), sys.stdout, indent=1)
        print()
        return ExitCode.PASS
    if len(argv) in (4, 5) and argv[1] == 'check':
        with open(argv[2], errors='replace') as f:
            text = f.read()
        with open(argv[3]) as f:
            ident = json.load(f)
        initramfs = None
        if len(argv) == 5:
            with open(argv[4]) as f:
                initramfs = f.read().strip()
        why = check(text, ident, initramfs, guest=len(argv) == 5)
        if why:
            print('identity: %s: %s' % (argv[2], why))
            return ExitCode.ENVIRONMENT
        return ExitCode.PASS
    print(__doc__.strip().split('usage:')[1], file=sys.stderr)
    return ExitCode.ENVIRONMENT


if __name__ == '__main__':
    sys.exit(args.run(main, sys.argv))
