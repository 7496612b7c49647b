#!/usr/bin/env bash
# vm/tests/kernels.t: the harness boots every kernel series it offers, and
# builds and loads the module for a series other than the host's 6.1
# (tests/vm/compat.t runs the module's tests there).
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
)
tap_run "${cases[@]}"
