#!/usr/bin/env bash
# tests/vm/demo.t: make demo (bench/demo) runs and shows what the README says
# it shows, on a 64 MiB region to keep it short: on 6.1 the kernel's own path
# splits every 2 MiB and faults per 4 KiB, thpcow zero takes a fault per
# 2 MiB and no split and ends all THP, as first touch and the upstream fix.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# row KERNEL CASE: the demo table's row, its columns after the case name.
row() { grep -E "^$1 +$2 " "$out" | sed -E "s/^$1 +$2 +//"; }

# expect KERNEL CASE SPLITS THP-MIB: a row's splits, THP MiB and data.
expect() {
	local cols
	read -ra cols <<<"$(row "$1" "$2")"
	# time, x floor, faults, per 2M, splits, THP MiB, read MiB, data
	((${#cols[@]} == 8)) || {
		echo "no row for $1 $2"
		return 1
	}
	check_eq "${cols[4]}" "$3" "$1 $2: splits"
	check_eq "${cols[5]}" "$4" "$1 $2: THP MiB"
	check_eq "${cols[7]}" ok "$1 $2: data"
}

demo_runs() {
	# Its progress lines go to stderr: shown only when it fails, with vm/run's reason.
	THPCOW_DEMO_MIB=64 "$repo/bench/demo" >"$out" 2>"$err" || {
		cat "$out" "$err"
		return 1
	}
	cat "$out"
}

demo_table() {
	[[ -s $out ]] || skip "the demo did not run"
	expect 6.1 "kernel's own path" 32 0
	expect 6.1 "thpcow zero" 0 64
	expect 6.1 "first touch \(floor\)" 0 64
	expect latest "kernel's own path" 0 64
}

cases=(
	demo_runs  # make demo boots both guests and prints its table
	demo_table # the regression on 6.1, thpcow's fix, the upstream fix
)
tap_run "${cases[@]}"
