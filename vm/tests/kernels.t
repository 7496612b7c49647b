#!/usr/bin/env bash
# vm/tests/kernels.t: the harness boots every kernel series it offers, and
# builds and loads the module for a series other than the host's 6.1
# (tests/vm/compat.t runs the module's tests there). The prebuilt series
# (vm/lib/prebuilt.sh): Ubuntu's two in make check (about 15-30 s each;
# 6.8 through module_on_prebuilt, its bare boot in make check-all), the
# debug kernels in make check-all (vm/build-kernel builds them first if it
# has not: an hour or more each).
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$vm/lib/vm.sh"

# boots SERIES REGEX: the guest's uname -r matches REGEX and THP is on.
boots() {
	vm_run --kernel "$1" --no-module -- sh -c \
		'uname -r; cat /sys/kernel/mm/transparent_hugepage/enabled'
	vm_expect_rc 0
	check_match "$(sed -n 1p <<<"$vm_stdout")" "$2" "uname -r"
	check_match "$(sed -n 2p <<<"$vm_stdout")" '\[(always|madvise)\]' "THP enabled"
}

boots_5_10() { boots 5.10 '^5\.10\.[0-9]+-[0-9]+-amd64$'; }
boots_6_12() { boots 6.12 '^6\.12\.[0-9]+\+deb13-amd64$'; }
boots_latest() { boots latest '^[7-9]\.[0-9]+\.[0-9]+\+deb13-amd64$'; }
boots_ubuntu_6_8() { boots ubuntu-6.8 '^6\.8\.12-49-generic$'; }
boots_ubuntu_5_15() { boots ubuntu-5.15 '^5\.15\.200-185-generic$'; }
boots_6_1_debug() { boots 6.1-debug '^6\.1\.[0-9]+-thpcow-debug$'; }
boots_6_12_debug() { boots 6.12-debug '^6\.12\.[0-9]+-thpcow-debug$'; }

# The module asked for on a prebuilt series: built on the host against its
# headers package (vm/kbuild), loaded, named to COMMAND. Skipped while
# module/Kbuild refuses the series (its one line says so).
module_on_prebuilt() {
	# shellcheck disable=SC2016 # for the guest's shell
	vm_run --kernel ubuntu-6.8 -- sh -c 'cat /sys/module/thpcow/version; echo "$THPCOW_VM_MODULE"'
	[[ $vm_rc != 123 || $vm_stderr != *'thpcow: Linux 6.8 is not supported'* ]] ||
		skip "module/Kbuild refuses 6.8: $(grep -o 'thpcow: Linux 6.8 is not supported.*' <<<"$vm_stderr")"
	vm_expect_rc 0
	check_match "$(sed -n 1p <<<"$vm_stdout")" '^[0-9]+\.[0-9]+\.[0-9]+$' "the loaded module's version"
	check_match "$(sed -n 2p <<<"$vm_stdout")" '/thpcow/module/ubuntu-6\.8/[0-9a-f]{16}/thpcow\.ko$' "THPCOW_VM_MODULE"
}

# A prebuilt series' packages are checked against their SHA256SUMS: a copy
# of Ubuntu's 6.8 folder with one byte of its image changed is refused
# (vm/fetch-kernel exits 1 before anything boots).
prebuilt_checked() {
	local src dir=$vm_scratch/kernels/ubuntu-noble-6.8.0-49 out
	src=${THPCOW_KERNELS:-/work/shared/kernels}/ubuntu-noble-6.8.0-49
	[[ -d $src ]] || skip "no $src"
	mkdir -p "$dir"
	cp "$src"/SHA256SUMS "$src"/linux-*.deb "$dir/"
	printf 'x' | dd of="$(echo "$dir"/linux-image-*.deb)" bs=1 seek=100000 conv=notrunc status=none
	out=$(XDG_CACHE_HOME=$vm_scratch/cache THPCOW_KERNELS=$vm_scratch/kernels "$repo/vm/fetch-kernel" ubuntu-6.8 2>&1) &&
		{ echo "$out"; check_eq 0 1 "fetch-kernel's exit status"; }
	check_match "$out" 'do not match its SHA256SUMS' "fetch-kernel's message"
}

# With the module asked for on another series, the harness builds it in that
# series' chroot (vm/kbuild), loads it and names it to COMMAND.
module_built_elsewhere() {
	# shellcheck disable=SC2016 # for the guest's shell
	vm_run --kernel 6.12 -- sh -c 'cat /sys/module/thpcow/version; echo "$THPCOW_VM_MODULE"'
	vm_expect_rc 0
	check_match "$(sed -n 1p <<<"$vm_stdout")" '^[0-9]+\.[0-9]+\.[0-9]+$' "the loaded module's version"
	check_match "$(sed -n 2p <<<"$vm_stdout")" '/thpcow/module/6\.12/[0-9a-f]{16}/thpcow\.ko$' "THPCOW_VM_MODULE"
}

cases=(
	boots_5_10               # bullseye's 5.10 boots
	boots_6_12               # trixie's 6.12 boots
	boots_latest             # trixie-backports' newest (7.x) boots
	module_built_elsewhere   # module asked for on 6.12: built in trixie, loaded
	boots_ubuntu_5_15        # Ubuntu 22.04's 5.15.0-185 boots
	module_on_prebuilt       # module asked for on Ubuntu's 6.8: built against its headers, loaded
	prebuilt_checked         # a prebuilt package that does not match SHA256SUMS is refused
)
long_cases=(
	boots_ubuntu_6_8         # Ubuntu 24.04's 6.8.0-49 boots (make check boots it with the module)
	boots_6_1_debug          # 6.1-debug (vm/build-kernel) boots
	boots_6_12_debug         # 6.12-debug boots
)
tap_run "${cases[@]}" --long "${long_cases[@]}"
