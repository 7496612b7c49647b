#!/usr/bin/env bash
# tests/vm/kernels.t: the bench boots every kernel series it offers, without
# the module (building it for series other than 6.1 is later work).
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$tests/lib/vm.sh"

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

# With the module asked for on a series the bench cannot build it for, the
# run fails with a message rather than booting without it.
module_elsewhere_refused() {
	[[ -d $repo/module ]] || skip "no module/ yet"
	vm_run --kernel 6.12 -- true
	vm_expect_rc 123
	check_match "$vm_stderr" 'use --no-module' "the message"
}

cases=(
	boots_5_10               # bullseye's 5.10 boots
	boots_6_12               # trixie's 6.12 boots
	boots_latest             # trixie-backports' newest (7.x) boots
	module_elsewhere_refused # module asked for on 6.12: a clear failure
)
tap_run "${cases[@]}"
