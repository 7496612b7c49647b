#!/usr/bin/env bash
# The policy modes beyond 'zero', run inside a guest with thpcow loaded (see
# tests/vm/modes.t). 'copy': after fork(), a child writing into THPs it
# shares with its parent gets whole copies instead of the stock split.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../lib/tap.sh
source "$repo/tests/lib/tap.sh"

ctl=$repo/tools/thpcowctl/thpcowctl
wrf=$repo/tests/prog/wrf
size=64 # MiB: 32 huge pages
regions=$((size / 2))
out=$(mktemp -d)

# fork_write NAME MODE: the parent first-touches the region (THPs), forks,
# and the child writes one byte per 2 MiB into the shared THPs, then the
# parent checks its own copy; under MODE for both, inherited.
fork_write() {
	"$ctl" exec "$2" --children -- "$wrf" --size $size --no-read \
		--stride $((2 << 20)) --fork-child-write --verify >"$out/$1"
}

val() { sed -n "s/^$2=//p" "$out/$1"; }

copy_after_fork() {
	fork_write copy copy
	check_eq "$(val copy child_thp_split_pmd)" 0 "child splits"
	check_eq "$(val copy child_anon_huge_kb)" $((size * 1024)) "child AnonHugePages kB"
	local faults
	faults=$(val copy child_faults)
	((faults <= regions + 8)) || {
		echo "child: $faults faults for $regions huge pages"
		return 1
	}
	check_eq "$(val copy child_verify)" ok "child data"
	check_eq "$(val copy verify)" ok "parent data after the child wrote"
	check_eq "$(val copy anon_huge_kb)" $((size * 1024)) "parent AnonHugePages kB"
}

kernel_after_fork_splits() {
	fork_write kernel kernel
	check_eq "$(val kernel child_thp_split_pmd)" "$regions" "child splits"
	check_eq "$(val kernel child_anon_huge_kb)" 0 "child AnonHugePages kB"
	check_eq "$(val kernel child_verify)" ok "child data"
	check_eq "$(val kernel verify)" ok "parent data after the child wrote"
}

# 'split' on a kernel that splits anyway is 'kernel': write after read
# splits every 2 MiB, where 'zero' would have given THPs.
split_is_stock_here() {
	[[ $(awk '$1 == "native_zero" { print $2 }' /sys/kernel/debug/thpcow/stats) == 0 ]] ||
		skip "this kernel substitutes natively"
	"$ctl" exec split -- "$wrf" --size $size --verify >"$out/split"
	check_eq "$(val split thp_split_pmd)" "$regions" "splits"
	check_eq "$(val split anon_huge_kb)" 0 "AnonHugePages kB"
	check_eq "$(val split verify)" ok "data"
}

cases=(
	copy_after_fork          # 'copy': one whole copy per 2 MiB, parent untouched
	kernel_after_fork_splits # 'kernel': the stock split after fork stays
	split_is_stock_here      # 'split' where the kernel splits anyway: the same
)
tap_run "${cases[@]}"
rc=$?
rm -rf "$out"
exit $rc
