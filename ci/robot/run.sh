#!/bin/bash
# make robot: the series as a kernel test robot takes it from the list.
#
#  1. series: ci/series/mail.sh writes the mail (out/series/), as make
#     series does;
#  2. apply:  `git am` of its patches, cover letter aside, on the pristine
#     Debian 6.12 tree (tag nsfd-base of build/patched/src), in a tree of
#     the robot's own, build/robot/src: nothing of kunit/ or selftests/nsfd/
#     reaches it except through the mail;
#  3. config: tinyconfig, ci/robot/ARCH.config (what a QEMU boot into a
#     busybox initramfs needs) and tools/testing/selftests/nsfd/config
#     merged onto it as kselftest-merge merges (merge_config.sh -m), then
#     olddefconfig; every symbol the nsfd config asks for must come out as
#     asked, or the config file misses a dependency a robot cannot guess;
#  4. kernel: the image and the modules;
#  5. kselftests: `make headers`, then tools/testing/selftests' own install
#     (nsfd must be in its default TARGETS; built and installed with
#     TARGETS=nsfd, dynamically linked, as a robot's distro build is);
#  6. rootfs: Debian's busybox-static, the glibc the tests link, coreutils'
#     timeout (run_kselftest.sh's runner calls /usr/bin/timeout
#     --foreground, which busybox's lacks), the installed kselftests in
#     /opt/kselftest, the modules; /init is ci/robot/init;
#  7. boot:   QEMU under TCG, KernelCI's 10-minute job budget as the hard
#     timeout: run_kselftest.sh -c nsfd, every KUnit module by modprobe,
#     dmesg;
#  8. verdict: ci/robot/verdict.py, from the console alone.
#
# Results in out/robot-ARCH/ (results.json, kselftest.ktap, kunit.ktap,
# junit.xml, kcidb.json, console.log and each stage's log); the last line
# is the summary.
#
# usage: ci/robot/run.sh [ARCH]
# Exit: 0 passed, 1 a test failed or the mail does not apply or build,
# 2 an environment error (README, "Exit codes").
set -uo pipefail
robot=$(cd "$(dirname "$0")" && pwd)
ci=$(dirname "$robot")
top=$(dirname "$ci")
. "$ci/stop-on-signal.sh"
. "$ci/stages.sh"
. "$ci/build-lock.sh"
export PYTHONDONTWRITEBYTECODE=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top/build}
[ -n "${CCACHE_NODEPEND:-}" ] || export CCACHE_DEPEND=1
export NSFD_CC_NOCACHE=0
jobs=${NSFD_JOBS:-$(nproc)}
# KernelCI's kselftest job budget: the whole boot, every test included.
budget=${NSFD_ROBOT_TIMEOUT:-600}

arch=${1:-x86_64}
variant=robot-$arch
if [ ! -f "$robot/$arch.config" ] || [ ! -f "$ci/arch/$arch.conf" ]; then
	log "robot: no ci/robot/$arch.config; the robot runs on: $(cd "$robot" && ls -- *.config | sed 's/\.config$//' | xargs)"
	echo "nsfd: 0 passed, 0 failed, 0 skipped"
	exit 2
fi
. "$ci/arch/$arch.conf"
out=$top/out/$variant
bld=$top/build/robot
src=$bld/src
kdir=$bld/$arch/kernel
ksft=$bld/$arch/kselftest
rootfs=$bld/$arch/rootfs
start=$(now)

verdict() {
	python3 "$robot/verdict.py" "$out" "$top" "$arch"
	exit $?
}

mkdir -p "$out"
rm -f "$out"/*
t=$(now)
log "deps: checking packages"
interruptible "$ci/deps.sh" "$arch" || env_exit "deps: failed; see the apt-get output above"

# make test, which runs this as its last stage, passes its lock down.
hold_build_lock "$top" || env_exit "$top/build/.lock still held after an hour: is an nsfd run stuck?"

# 1. The mail.
t=$(now)
log "$variant: series: writing the mail (log: out/$variant/series.log)"
interruptible "$ci/series/mail.sh" >"$out/series.log" 2>&1
case $? in
0|1) stage_end "$out" series ok "$t" "$(ls "$top"/out/series/0*.patch | wc -l) mails in out/series/" ;;
*) stage_end "$out" series env-error "$t" "ci/series/mail.sh failed: see out/$variant/series.log"; verdict ;;
esac

# 2. The mail on the pristine tree.
t=$(now)
g() { git -C "$src" -c user.name=robot -c user.email=robot@localhost \
	-c advice.detachedHead=false -c gc.auto=0 "$@"; }
mails=()
for p in "$top"/out/series/0*.patch; do
	[ "${p##*/}" = 0000-cover-letter.patch ] || mails+=("$p")
done
if [ ! -d "$src/.git" ]; then
	rm -rf "$src"
	git clone -q --no-checkout --shared "$top/build/patched/src" "$src" ||
		{ stage_end "$out" apply env-error "$t" "cannot clone build/patched/src"; verdict; }
fi
g fetch -q -f "$top/build/patched/src" '+refs/tags/nsfd-base:refs/tags/nsfd-base'
# The same mail as last time: the tree is left as it is, mtimes and all.
mail_id=$(cat "${mails[@]}" | git patch-id --stable | awk '{print $1}' | sha256sum | cut -c1-16)
if [ "$(cat "$src/.git/nsfd-robot-mail" 2>/dev/null)" != "$mail_id $(g rev-parse nsfd-base)" ] ||
   [ -n "$(g status --porcelain --untracked-files=no)" ]; then
	g am --abort >/dev/null 2>&1
	g checkout -q -f -B robot nsfd-base
	if ! g am -q "${mails[@]}" >"$out/apply.log" 2>&1; then
		g am --abort >/dev/null 2>&1
		rm -f "$src/.git/nsfd-robot-mail"
		stage_end "$out" apply fail "$t" "git am of the mail on pristine 6.12 failed: see out/$variant/apply.log"
		verdict
	fi
	echo "$mail_id $(g rev-parse nsfd-base)" >"$src/.git/nsfd-robot-mail"
fi
stage_end "$out" apply ok "$t" "${#mails[@]} patches on $(g log -1 --format='%h %s' nsfd-base)"

mk() { make -C "$src" O="$kdir" ARCH="$LINUX_ARCH" CROSS_COMPILE="$CROSS_COMPILE" \
	CC="$ci/cc-ccache ${CROSS_COMPILE}gcc" "$@"; }

# 3. The config, made again only when its inputs change (the tree as
# applied, the two fragments), and written to the build only when it
# differs (the build stays incremental).
t=$(now)
cfgdir=$bld/$arch/config
mkdir -p "$cfgdir" "$kdir"
nsfd_config=$src/tools/testing/selftests/nsfd/config
inputs=$({ g rev-parse HEAD; cat "$robot/$arch.config" "$nsfd_config"; } | sha256sum | cut -c1-16)
made="inputs unchanged, not made again"
if [ -f "$cfgdir/.config" ] && [ "$(cat "$cfgdir/.inputs" 2>/dev/null)" = "$inputs" ]; then
	:
elif rm -f "$cfgdir/.config" "$cfgdir/.inputs" && {
	make -C "$src" O="$cfgdir" ARCH="$LINUX_ARCH" CROSS_COMPILE="$CROSS_COMPILE" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$cfgdir" "$cfgdir/.config" \
		"$robot/$arch.config" "$nsfd_config" &&
	make -C "$src" O="$cfgdir" ARCH="$LINUX_ARCH" CROSS_COMPILE="$CROSS_COMPILE" olddefconfig
} >"$out/config.log" 2>&1; then
	echo "$inputs" >"$cfgdir/.inputs"
	made="tinyconfig + ci/robot/$arch.config + selftests/nsfd/config"
else
	stage_end "$out" config env-error "$t" "see out/$variant/config.log"; verdict
fi
cmp -s "$cfgdir/.config" "$kdir/.config" || cp "$cfgdir/.config" "$kdir/.config"
# What the nsfd config asks for and did not get, one "SYMBOL asked got" a
# line: the verdict fails each (config.SYMBOL).
python3 "$robot/verdict.py" --config-misses "$nsfd_config" "$kdir/.config" >"$out/config-misses.tsv"
stage_end "$out" config ok "$t" "$made; $(wc -l <"$out/config-misses.tsv") symbols not as asked"

# 4. The kernel and its modules.
t=$(now)
log "$variant: kernel: building in $kdir (log: out/$variant/kernel.log)"
if ! interruptible mk -j"$jobs" olddefconfig all >"$out/kernel.log" 2>&1; then
	show_tail "$out/kernel.log"
	stage_end "$out" kernel fail "$t" "the mailed tree does not build: see out/$variant/kernel.log"
	verdict
fi
python3 "$ci/results/identity.py" kernel "$kdir" "$KERNEL_IMAGE" >"$out/identity-kernel.json" ||
	{ stage_end "$out" kernel env-error "$t" "cannot read the banner of $kdir/vmlinux"; verdict; }
stage_end "$out" kernel ok "$t" "$(ls "$kdir"/modules.order >/dev/null 2>&1 && wc -l <"$kdir/modules.order") modules"

# 5. The kselftests, installed the robots' way.
t=$(now)
log "$variant: selftests: make headers, then tools/testing/selftests install (log: out/$variant/selftests.log)"
default_targets=$(make -s --no-print-directory -C "$src/tools/testing/selftests" -f Makefile -f - \
	nsfd-print-targets <<<'nsfd-print-targets: ; @echo $(TARGETS)' 2>>"$out/selftests.log")
if ! tr ' ' '\n' <<<"$default_targets" | grep -qx nsfd; then
	stage_end "$out" selftests fail "$t" "nsfd is not in tools/testing/selftests/Makefile's default TARGETS: a robot would never build it"
	verdict
fi
rm -rf "$ksft"
if ! { interruptible mk -j"$jobs" headers &&
       interruptible mk -j"$jobs" TARGETS=nsfd KSFT_INSTALL_PATH="$ksft" kselftest-install; } \
       >>"$out/selftests.log" 2>&1 || [ ! -x "$ksft/run_kselftest.sh" ]; then
	show_tail "$out/selftests.log"
	stage_end "$out" selftests fail "$t" "the kselftests do not build or install: see out/$variant/selftests.log"
	verdict
fi
stage_end "$out" selftests ok "$t" "$(grep -c '^nsfd:' "$ksft/kselftest-list.txt") programs in kselftest-list.txt"

# 6. The rootfs.
t=$(now)
if ! "$robot/rootfs.sh" "$kdir" "$ksft" "$rootfs" "$bld/$arch/rootfs.cpio" "$LINUX_ARCH" "$CROSS_COMPILE" \
	>"$out/rootfs.log" 2>&1; then
	show_tail "$out/rootfs.log"
	stage_end "$out" rootfs env-error "$t" "see out/$variant/rootfs.log"
	verdict
fi
stage_end "$out" rootfs ok "$t" "$(du -k "$bld/$arch/rootfs.cpio" | cut -f1) KiB"

# 7. The boot: the robot's job.
t=$(now)
log "$variant: boot: run_kselftest.sh -c nsfd, then the KUnit modules ($budget s budget; console: out/$variant/console.log)"
# shellcheck disable=SC2086 # QEMU_FLAGS and NSFD_QEMU_ARGS are word lists
interruptible timeout --kill-after=10 "$budget" "$QEMU" -nodefaults -nographic -serial stdio \
	-no-reboot -nic none -m 1024 $QEMU_FLAGS ${NSFD_QEMU_ARGS:-} \
	-kernel "$kdir/$KERNEL_IMAGE" -initrd "$bld/$arch/rootfs.cpio" \
	-append "console=$CONSOLE panic=-1 rdinit=/init" </dev/null >"$out/console.log" 2>&1
rc=$?
case $rc in
0) stage_end "$out" boot ok "$t" ;;
124|137) stage_end "$out" boot timeout "$t" "the job did not end within $budget s" ;;
*) if grep -q 'Linux version' "$out/console.log"; then
	stage_end "$out" boot fail "$t" "$QEMU exit $rc"
   else
	stage_end "$out" boot env-error "$t" "$QEMU exit $rc before a kernel booted: $(head -n 1 "$out/console.log")"
   fi ;;
esac
log "robot: done in $(since "$start") s; results in out/$variant/"
verdict
