#!/usr/bin/env bash
# tests/vm/loadfail.t: thpcow's load failing half-way (tests/guest/loadfail.sh),
# one guest a kernel: Debian's 6.1, and in make check-all 6.1-debug and
# 6.12-debug
# (vm/build-kernel: lockdep, KASAN, kmemleak and the rest watch the failed
# loads). tests/modules/holdhook (a test-only module holding an IPMODIFY
# ftrace hook on do_huge_pmd_wp_page, as a livepatch would) is built for that
# kernel into the cache, which the guest sees. The guest's TAP becomes the
# case's diagnostics; a kernel oops, warning or splat fails the run through
# vm/run.
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# loadfail_on SERIES TIMEOUT: tests/guest/loadfail.sh passes there.
loadfail_on() {
	vm_testmod tests/modules/holdhook "$1"
	THPCOW_HOLDHOOK=$vm_ko vm_run --kernel "$1" --timeout "$2" -- tests/guest/loadfail.sh
	echo "$vm_stdout"
	tap_fold "$vm_stdout"
	vm_expect_rc 0
}

loadfail_6_1() { loadfail_on 6.1 600; }
loadfail_6_1_debug() { loadfail_on 6.1-debug 2400; }
loadfail_6_12_debug() { loadfail_on 6.12-debug 2400; }

cd "$repo" || exit 1
cases=(
	loadfail_6_1       # bookworm's 6.1
)
long_cases=(
	loadfail_6_1_debug  # 6.1-debug (vm/build-kernel)
	loadfail_6_12_debug # 6.12-debug
)
# the guests' skipped cases count (tap_fold), so the plan comes last
tap_plan_last=1
tap_run "${cases[@]}" --long "${long_cases[@]}"
