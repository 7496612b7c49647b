#!/usr/bin/env bash
# tests/host/kbuild.t: the one-line refusals of module/Kbuild, read by make
# alone with the variables a kernel's build would give it (no kernel tree
# needed): a kernel for another architecture than x86-64, or without an
# option thpcow needs, or of a series module/compat/ does not know (Ubuntu's
# 5.15 and 6.8 are known, vanilla ones not), is refused with one
# "thpcow: ..." line before anything is compiled; an
# x86-64 kernel of a known series with the options passes them all. DKMS
# (dkms.conf) and an in-tree build (module/Kconfig) refuse other
# architectures too.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1

# What an x86-64 6.1 kernel with every option thpcow needs gives Kbuild.
good=(SRCARCH=x86 CONFIG_X86_64=y CONFIG_64BIT=y VERSION=6 PATCHLEVEL=1
	CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_KPROBES=y CONFIG_MEMCG=y
	CONFIG_DYNAMIC_FTRACE_WITH_REGS=y)

# refusal VAR=VALUE...: the thpcow: lines make prints reading module/Kbuild
# with the good variables overridden by these (empty: no refusal).
refusal() {
	make -s -f module/Kbuild src=module "${good[@]}" "$@" 2>&1 |
		sed -n 's/^module\/Kbuild:[0-9]*: \*\*\* \(thpcow: .*\)\.  Stop\.$/\1/p'
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

known="supported: 5.10 6.1 6.12 7.3 and Ubuntu's 5.15 6.8"
series_refused() {
	check_eq "$(refusal VERSION=6 PATCHLEVEL=2)" \
		"thpcow: Linux 6.2 is not supported ($known)" "6.2"
}

# Ubuntu's kernels by what they are: its series, configured from its tree
# (CONFIG_UBUNTU_ODM_DRIVERS, which only ubuntu/Kconfig defines).
ubuntu_series() {
	check_eq "$(refusal VERSION=6 PATCHLEVEL=8 CONFIG_UBUNTU_ODM_DRIVERS=y)" "" "Ubuntu's 6.8"
	check_eq "$(refusal VERSION=5 PATCHLEVEL=15 CONFIG_UBUNTU_ODM_DRIVERS=y)" "" "Ubuntu's 5.15"
	check_eq "$(refusal VERSION=6 PATCHLEVEL=8)" \
		"thpcow: Linux 6.8 is not supported ($known)" "a vanilla 6.8"
	check_eq "$(refusal VERSION=5 PATCHLEVEL=15)" \
		"thpcow: Linux 5.15 is not supported ($known)" "a vanilla 5.15"
	check_eq "$(refusal CONFIG_UBUNTU_ODM_DRIVERS=y)" \
		"thpcow: Linux 6.1 (Ubuntu's) is not supported ($known)" "an Ubuntu 6.1"
}

dkms_and_kconfig() {
	check_eq "$(sed -n 's/^BUILD_EXCLUSIVE_ARCH=//p' dkms.conf)" '"^x86_64$"' "dkms.conf BUILD_EXCLUSIVE_ARCH"
	check_match "$(<module/Kconfig)" $'\n\tdepends on X86_64\n' "module/Kconfig"
}

cases=(
	x86_64_passes      # x86-64, a known series, the options: no refusal
	other_arch_refused # arm64, 32-bit x86: one line, before any compiler
	option_refused     # a missing option, or PREEMPT_RT: one line naming it
	series_refused     # an unknown series: one line with the known ones
	ubuntu_series      # Ubuntu's 5.15 and 6.8 pass, vanilla ones do not
	dkms_and_kconfig   # DKMS and Kconfig refuse other architectures too
)
tap_run "${cases[@]}"
