#!/usr/bin/env bash
# tests/host/kbuild.t: the one-line refusals of module/Kbuild, read by make
# alone with the variables a kernel's build would give it and a stand-in
# for the headers files it reads (include/generated/package.h, Debian's;
# include/generated/uapi/linux/version.h, RHEL's release): a kernel for
# another architecture than x86-64, or without an option thpcow needs, or
# one thpcow is not tested on (by vendor and release: Debian's, Ubuntu's
# and RHEL's series; a vanilla or another vendor's kernel of the same
# version is not), is refused with one "thpcow: ..." line before anything
# is compiled, unless THPCOW_UNTESTED_KERNEL=1 says to build it anyway; an
# x86-64 kernel of a tested series with the options passes them all. And
# once through a real build: RHEL 10.0's headers package
# (../shared/kernels) with another release in its version.h, declined by
# make, then built with the override. DKMS (dkms.conf) and an in-tree build
# (module/Kconfig) refuse other architectures too.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tree NAME [RHEL_MAJOR RHEL_MINOR | debian]: $tmp/NAME, the files of a
# headers tree module/Kbuild reads to tell whose kernel it is
tree() {
	local d=$tmp/$1
	mkdir -p "$d/include/generated/uapi/linux"
	echo '#define LINUX_VERSION_CODE 0' >"$d/include/generated/uapi/linux/version.h"
	if [[ ${2:-} == debian ]]; then
		echo '#define LINUX_PACKAGE_ID " Debian 6.1.192-3"' >"$d/include/generated/package.h"
	elif [[ -n ${2:-} ]]; then
		printf '#define RHEL_MAJOR %s\n#define RHEL_MINOR %s\n#define RHEL_RELEASE_CODE %s\n' \
			"$2" "$3" $(($2 * 256 + $3)) >>"$d/include/generated/uapi/linux/version.h"
	fi
}
tree debian debian
tree vanilla
tree rhel-9.6 9 6
tree rhel-10.0 10 0
tree rhel-10.1 10 1

# What Debian's x86-64 6.1 kernel with every option thpcow needs gives Kbuild.
good=(SRCARCH=x86 CONFIG_X86_64=y CONFIG_64BIT=y VERSION=6 PATCHLEVEL=1
	CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_KPROBES=y CONFIG_MEMCG=y
	CONFIG_DYNAMIC_FTRACE_WITH_REGS=y objtree="$tmp/debian")

# refusal VAR=VALUE...: the thpcow: lines make prints reading module/Kbuild
# with the good variables overridden by these (empty: no refusal).
refusal() {
	make -s -f module/Kbuild src=module "${good[@]}" "$@" 2>&1 |
		sed -n 's/^module\/Kbuild:[0-9]*: \*\*\* \(thpcow: .*\)\.  Stop\.$/\1/p'
}

# warning VAR=VALUE...: the thpcow: warnings make prints reading module/Kbuild
warning() {
	make -s -f module/Kbuild src=module "${good[@]}" "$@" 2>&1 |
		sed -n 's/^module\/Kbuild:[0-9]*: \(thpcow: .*\)$/\1/p'
}

x86_64_passes() {
	check_eq "$(refusal)" "" "refusal of an x86-64 6.1 kernel"
}

other_arch_refused() {
	check_eq "$(refusal SRCARCH=arm64 CONFIG_X86_64= CONFIG_ARM64=y)" \
		"thpcow: this kernel is for arm64; thpcow supports x86-64 only" "arm64"
	check_eq "$(refusal CONFIG_X86_64= CONFIG_64BIT= CONFIG_X86_32=y)" \
		"thpcow: this kernel is for x86 (32-bit); thpcow supports x86-64 only" "32-bit x86"
}

option_refused() {
	check_eq "$(refusal CONFIG_KPROBES=)" \
		"thpcow: this kernel lacks CONFIG_KPROBES, which thpcow needs" "no KPROBES"
	check_eq "$(refusal CONFIG_PREEMPT_RT=y)" \
		"thpcow: this kernel is PREEMPT_RT, which thpcow does not support (its fork and exit tracepoint probes allocate and take a spinlock_t)" \
		"PREEMPT_RT"
	check_match "$(<module/Kconfig)" $'\n\tdepends on !PREEMPT_RT\n' "module/Kconfig: not PREEMPT_RT"
}

tested="tested: Debian's 5.10 6.1 6.12 7.3, Ubuntu's 5.15 6.8, RHEL's 9.6 (5.14) 10.0 (6.12)"
override="THPCOW_UNTESTED_KERNEL=1 builds it anyway"
series_refused() {
	check_eq "$(refusal VERSION=6 PATCHLEVEL=2)" \
		"thpcow: Linux 6.2 (Debian's) is not a kernel thpcow is tested on ($tested); $override" "Debian's 6.2"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=9 objtree="$tmp/vanilla")" \
		"thpcow: Linux 6.9 (not Debian's, Ubuntu's or RHEL's) is not a kernel thpcow is tested on ($tested); $override" \
		"a vanilla 6.9"
}

# Debian's kernels by what they are: its series, built from a tree with its
# patches (include/generated/package.h); a vanilla kernel of a Debian series
# is not one (another vendor's 6.12, say).
debian_series() {
	local v
	for v in 5.10 6.1 6.12 7.3; do
		check_eq "$(refusal VERSION="${v%.*}" PATCHLEVEL="${v#*.}")" "" "Debian's $v"
	done
	check_eq "$(refusal VERSION=6 PATCHLEVEL=12 objtree="$tmp/vanilla")" \
		"thpcow: Linux 6.12 (not Debian's, Ubuntu's or RHEL's) is not a kernel thpcow is tested on ($tested); $override" \
		"a vanilla 6.12"
}

# Ubuntu's kernels by what they are: its series, configured from its tree
# (CONFIG_UBUNTU_ODM_DRIVERS, which only ubuntu/Kconfig defines).
ubuntu_series() {
	local u=(CONFIG_UBUNTU_ODM_DRIVERS=y objtree="$tmp/vanilla")
	check_eq "$(refusal VERSION=6 PATCHLEVEL=8 "${u[@]}")" "" "Ubuntu's 6.8"
	check_eq "$(refusal VERSION=5 PATCHLEVEL=15 "${u[@]}")" "" "Ubuntu's 5.15"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=8 objtree="$tmp/vanilla")" \
		"thpcow: Linux 6.8 (not Debian's, Ubuntu's or RHEL's) is not a kernel thpcow is tested on ($tested); $override" \
		"a vanilla 6.8"
	check_eq "$(refusal VERSION=5 PATCHLEVEL=15 objtree="$tmp/vanilla")" \
		"thpcow: Linux 5.15 (not Debian's, Ubuntu's or RHEL's) is not a kernel thpcow is tested on ($tested); $override" \
		"a vanilla 5.15"
	check_eq "$(refusal "${u[@]}")" \
		"thpcow: Linux 6.1 (Ubuntu's) is not a kernel thpcow is tested on ($tested); $override" "an Ubuntu 6.1"
}

# RHEL's kernels by their release (version.h's RHEL_RELEASE_CODE) and its
# base version together: 9.6's 5.14 and 10.0's 6.12 pass; 10.1, or a 9.6
# release code on another version, do not.
rhel_releases() {
	check_eq "$(refusal VERSION=5 PATCHLEVEL=14 objtree="$tmp/rhel-9.6")" "" "RHEL 9.6's 5.14"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=12 objtree="$tmp/rhel-10.0")" "" "RHEL 10.0's 6.12"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=12 objtree="$tmp/rhel-10.1")" \
		"thpcow: Linux 6.12 (RHEL 10.1's, RHEL_RELEASE_CODE 2561) is not a kernel thpcow is tested on ($tested); $override" \
		"RHEL 10.1's 6.12"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=12 objtree="$tmp/rhel-9.6")" \
		"thpcow: Linux 6.12 (RHEL 9.6's, RHEL_RELEASE_CODE 2310) is not a kernel thpcow is tested on ($tested); $override" \
		"RHEL 9.6's code on a 6.12"
	# a vendor's headers that look like Debian's by version alone
	check_eq "$(refusal VERSION=5 PATCHLEVEL=14 objtree="$tmp/debian")" \
		"thpcow: Linux 5.14 (Debian's) is not a kernel thpcow is tested on ($tested); $override" "Debian's 5.14"
}

# THPCOW_UNTESTED_KERNEL=1, on make's command line or in the environment,
# builds for such a kernel, saying so in one warning; any other value does not.
override_builds() {
	local v=(VERSION=6 PATCHLEVEL=12 objtree="$tmp/rhel-10.1")
	check_eq "$(refusal "${v[@]}" THPCOW_UNTESTED_KERNEL=1)" "" "refusal with the override"
	check_eq "$(warning "${v[@]}" THPCOW_UNTESTED_KERNEL=1)" \
		"thpcow: building for Linux 6.12 (RHEL 10.1's, RHEL_RELEASE_CODE 2561), which thpcow is not tested on (THPCOW_UNTESTED_KERNEL=1)" \
		"the override's warning"
	check_eq "$(THPCOW_UNTESTED_KERNEL=1 refusal "${v[@]}")" "" "refusal with the override in the environment"
	check_match "$(refusal "${v[@]}" THPCOW_UNTESTED_KERNEL=yes)" "RHEL 10.1's" "THPCOW_UNTESTED_KERNEL=yes"
	check_eq "$(warning)" "" "no warning for a tested kernel"
}

# The gate in a real build: RHEL 10.0's headers package made another
# release's (10.1 in version.h), then the module built with the override.
rhel_headers_build() {
	local kernels=${THPCOW_KERNELS:-$repo/../shared/kernels} deb hdr out rc=0
	deb=$(compgen -G "$kernels/alma-10.0-*/linux-headers-*.deb" | head -n1) || true
	[[ -n $deb ]] || skip "no RHEL 10.0 headers package in $kernels (THPCOW_KERNELS)"
	dpkg-deb -x "$deb" "$tmp/rh" || return 1
	hdr=$(compgen -G "$tmp/rh/usr/src/linux-headers-*" | head -n1)
	sed -i 's/^#define RHEL_MINOR 0$/#define RHEL_MINOR 1/; s/^#define RHEL_RELEASE_CODE 2560$/#define RHEL_RELEASE_CODE 2561/' \
		"$hdr/include/generated/uapi/linux/version.h"
	check_match "$(<"$hdr/include/generated/uapi/linux/version.h")" $'\n#define RHEL_RELEASE_CODE 2561\n' "the edited version.h"
	mkdir -p "$tmp/src" && cp -r module include "$tmp/src/"
	# (only the sources: no objects of a build in the work tree)
	find "$tmp/src" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
	out=$(make -s -C "$hdr" M="$tmp/src/module" modules 2>&1) || rc=$?
	check_eq "$rc" 2 "make's exit status, declined"
	check_eq "$(grep -c 'thpcow: ' <<<"$out")" 1 "one thpcow: line"
	check_match "$out" "thpcow: Linux 6\.12 \(RHEL 10\.1's, RHEL_RELEASE_CODE 2561\) is not a kernel thpcow is tested on" "the line"
	[[ ! -e $tmp/src/module/thpcow.o ]] || check_eq "compiled" "nothing compiled" "objects"
	rc=0
	out=$(make -s -C "$hdr" M="$tmp/src/module" THPCOW_UNTESTED_KERNEL=1 THPCOW_WERROR=1 modules 2>&1) || rc=$?
	check_eq "$rc" 0 "make's exit status with THPCOW_UNTESTED_KERNEL=1" || { echo "$out"; return 1; }
	check_eq "$(modinfo -F vermagic "$tmp/src/module/thpcow.ko" | cut -d' ' -f1)" "${hdr##*/linux-headers-}" "the module's vermagic"
}

dkms_and_kconfig() {
	check_eq "$(sed -n 's/^BUILD_EXCLUSIVE_ARCH=//p' dkms.conf)" '"^x86_64$"' "dkms.conf BUILD_EXCLUSIVE_ARCH"
	check_match "$(<module/Kconfig)" $'\n\tdepends on X86_64\n' "module/Kconfig"
}

cases=(
	x86_64_passes      # x86-64, a tested series, the options: no refusal
	other_arch_refused # arm64, 32-bit x86: one line, before any compiler
	option_refused     # a missing option, or PREEMPT_RT: one line naming it
	series_refused     # an untested series: one line with the tested ones
	debian_series      # Debian's series pass, vanilla ones do not
	ubuntu_series      # Ubuntu's 5.15 and 6.8 pass, vanilla ones do not
	rhel_releases      # RHEL 9.6's 5.14 and 10.0's 6.12 pass, 10.1 does not
	override_builds    # THPCOW_UNTESTED_KERNEL=1 builds an untested one, with a warning
	rhel_headers_build # RHEL 10.0's headers as 10.1: declined by make, built with the override
	dkms_and_kconfig   # DKMS and Kconfig refuse other architectures too
)
tap_run "${cases[@]}"
