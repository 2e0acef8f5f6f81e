"""ci/arch/ARCH.conf, read as data: shell assignments, no code."""

import os
import shlex

CI = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS = ('LINUX_ARCH', 'CROSS_COMPILE', 'KERNEL_IMAGE', 'QEMU', 'QEMU_FLAGS', 'FIRMWARE',
        'CONSOLE', 'PACKAGES', 'KTAP_QEMU_ARGS', 'KTAP_DEV', 'COMPAT_ABIS',
        'EARLY_CONSOLE')


def known():
    return sorted(f[:-5] for f in os.listdir(os.path.join(CI, 'arch')) if f.endswith('.conf'))


def load(arch):
    """ARCH's settings: every key of KEYS, '' where the file has none."""
    path = os.path.join(CI, 'arch', arch + '.conf')
    conf = dict.fromkeys(KEYS, '')
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            words = shlex.split(line, comments=True)
            if not words:
                continue
            key, eq, value = words[0].partition('=')
            if len(words) != 1 or not eq or not key.isidentifier():
                raise ValueError('%s:%d: not NAME=VALUE: %s' % (path, lineno, line.strip()))
            conf[key] = value
    return conf
