#!/usr/bin/env bash
# tests/vm/collapse.t: thpcowctl collapse (tests/guest/collapse.sh) in a
# guest booting Debian's 6.1 kernel with thpcow loaded and in one booting
# 6.12 without it (collapse needs no module), and on 5.10, which has no
# MADV_COLLAPSE, its documented error; in make check-all on 6.1-debug and
# 6.12-debug too, thpcow loaded. Every guest on one TCG thread, as vm/run
# gives 6.12 (and 6.12-debug) anyway: collapse.sh needs no second one, and
# the file weighs 1 for tests/check -j.
# jobs: 1
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# collapse_on SERIES [RUN-OPTION...]: collapse.sh passes there.
collapse_on() {
	local series=$1
	shift
	vm_run --kernel "$series" --tcg-threads single --timeout 900 "$@" -- tests/guest/collapse.sh
	grep -E '^(not ok|ok .*# SKIP|# Totals)' <<<"$vm_stdout" || true
	tap_fold "$vm_stdout"
	[[ $vm_rc == 0 ]] || grep '^#' <<<"$vm_stdout" | tail -n 30
	vm_expect_rc 0
}

collapse_6_1() { collapse_on 6.1; }
collapse_6_12() { collapse_on 6.12 --no-module; }
collapse_6_1_debug() { collapse_on 6.1-debug --timeout 2400; }
collapse_6_12_debug() { collapse_on 6.12-debug --timeout 2400; }
unsupported_5_10() {
	vm_run --kernel 5.10 --no-module --tcg-threads single --timeout 300 -- \
		env COLLAPSE_ONLY_UNSUPPORTED=1 tests/guest/collapse.sh
	grep -E '^(not ok|# Totals)' <<<"$vm_stdout" || true
	tap_fold "$vm_stdout"
	[[ $vm_rc == 0 ]] || grep '^#' <<<"$vm_stdout" | tail -n 30
	vm_expect_rc 0
}

cd "$repo" || exit 1
cases=(
	collapse_6_1     # bookworm's 6.1, thpcow loaded: every collapse case
	collapse_6_12    # trixie's 6.12: the same
	unsupported_5_10 # bullseye's 5.10: "has no MADV_COLLAPSE", nothing changed
)
long_cases=(
	collapse_6_1_debug  # 6.1-debug (vm/build-kernel), thpcow loaded
	collapse_6_12_debug # 6.12-debug, the same
)
# the guests' skipped cases count (tap_fold), so the plan comes last
tap_plan_last=1
tap_run "${cases[@]}" --long "${long_cases[@]}"
