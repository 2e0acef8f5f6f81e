#!/bin/bash
# Install the Debian packages the pipeline needs, only those missing.
# usage: ci/deps.sh ARCH...   (ci/deps.sh --python3: python3 alone)
# Near-instant when everything is present; runs apt-get update first only
# when the package lists are absent (a fresh machine or container).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# apt_install PKG...: as root, refreshing the lists first where there are
# none (a fresh machine or container) and once more if they are stale.
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
		apt-get update -q
	fi
	if ! apt-get install -y -q --no-install-recommends "$@"; then
		apt-get update -q && apt-get install -y -q --no-install-recommends "$@"
	fi
}

# --python3: only the interpreter ci/nsfd needs before anything else.
if [ "${1:-}" = --python3 ]; then
	command -v python3 >/dev/null && exit 0
	[ "$(id -u)" = 0 ] || { echo "deps: python3 is missing: run as root, or: sudo apt-get install python3" >&2; exit 2; }
	echo "deps: installing python3"
	apt_install python3
	exit
fi

pkgs="linux-source-6.12 make gcc libc6-dev bc flex bison libelf-dev libssl-dev
      cpio xz-utils ccache python3 python3-ply python3-git git rsync perl
      qemu-system-data sparse mandoc python3-jsonschema python3-yaml procps
      busybox-static kmod"
for arch in "$@"; do
	conf=$here/arch/$arch.conf
	[ -f "$conf" ] || { echo "deps: no $conf; known arches: $(ls "$here/arch" | sed 's/\.conf$//' | xargs)" >&2; exit 2; }
	pkgs="$pkgs $(. "$conf"; echo "$PACKAGES")"
done

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
# A compiler for each arch and each compat ABI must link a static program:
# Debian's gcc-multilib conflicts with every cross gcc (it owns
# /usr/include/asm), so installing one silently removes the other.
check_toolchains() {
	local arch conf cc abi tmp bad=
	tmp=$(mktemp -d)
	for arch in "$@"; do
		conf=$here/arch/$arch.conf
		cc=$(. "$conf"; echo "${CROSS_COMPILE}gcc")
		for abi in "native:" $(. "$conf"; echo "${COMPAT_ABIS:-}"); do
			printf 'int main(void) { return 0; }\n' >"$tmp/t.c"
			if ! $cc ${abi#*:} -static -o "$tmp/t" "$tmp/t.c" 2>"$tmp/err"; then
				echo "deps: $cc ${abi#*:} cannot link a static program for $arch (${abi%%:*}):" >&2
				head -n 3 "$tmp/err" >&2
				bad=1
			fi
		done
	done
	rm -rf "$tmp"
	if [ -n "$bad" ]; then
		echo "deps: reinstall the packages named in ci/arch/<arch>.conf (gcc-multilib must not be installed: it removes cross compilers)" >&2
		return 2
	fi
}

if [ -z "$missing" ]; then
	check_toolchains "$@"
	exit
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root, or: sudo apt-get install$missing" >&2
	exit 2
fi
echo "deps: installing$missing"
# shellcheck disable=SC2086 # one argument a package
apt_install $missing || exit 2
check_toolchains "$@"
