#!/usr/bin/env bash
# tests/vm/compat.t: the module core's tests (tests/guest/core.sh) and the
# modes' (tests/guest/modes.sh) on the other kernel series, one guest each,
# with thpcow built for that series in a chroot of its Debian release
# (vm/kbuild; the first run creates the chroots, a few minutes each); 6.12
# only in make check-all. On 6.1 the two run from their own "# vm:" lines
# (tests/check). Each case also
# checks how thpcow judged the kernel at load: 5.10 and 6.12 split the huge
# zero page on a write (thpcow substitutes), 7.x gives it a THP itself
# (thpcow passes 'zero' through, native_zero 1). thpcow runs with
# assume_ibt=1, as on a CPU that enforces IBT (tests/vm/ibt.t).
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# core_on SERIES NATIVE: core.sh and modes.sh pass on SERIES, whose kernel
# thpcow found to substitute the huge zero page itself (NATIVE 1) or not (0).
core_on() {
	# shellcheck disable=SC2016 # for the guest's shell
	vm_run --kernel "$1" --modparams assume_ibt=1 --timeout 1500 -- sh -c \
		'tests/guest/core.sh; a=$?; tests/guest/modes.sh; b=$?
		grep native_zero /sys/kernel/debug/thpcow/stats; [ $a = 0 ] && [ $b = 0 ]'
	grep -E '^(not ok|ok .*# SKIP|# Totals)' <<<"$vm_stdout" || true
	tap_fold "$vm_stdout"
	vm_expect_rc 0
	check_eq "$(tail -n 1 <<<"$vm_stdout")" "native_zero $2" "how thpcow judged $1"
}

core_5_10() { core_on 5.10 0; }
core_6_12() { core_on 6.12 0; }
core_latest() { core_on latest 1; }

cd "$repo" || exit 1
cases=(
	core_5_10   # bullseye's 5.10: thpcow substitutes and copies; all passes
	core_6_12   # trixie's 6.12: the same, with 6.12's folio, mTHP and memcg
	            # pieces, and its underused-THP shrinker splitting thpcow's THPs
	core_latest # trixie-backports' 7.x: the kernel substitutes, thpcow passes
	            # 'zero' through, 'split' splits, 'copy' copies
)
# the guests' skipped cases count (tap_fold), so the plan comes last
tap_plan_last=1
tap_run "${cases[@]}"
