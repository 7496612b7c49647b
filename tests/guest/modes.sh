#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --tcg-threads single --timeout 600
# vm-all: --kernel 6.1-debug --timeout 2400
# vm-all: --kernel 6.12-debug --timeout 2400
# vm-all: --kernel ubuntu-6.8 --modparams assume_ibt=1 --append transparent_hugepage=always --timeout 600
# vm-all: --kernel ubuntu-5.15 --modparams assume_ibt=1 --append transparent_hugepage=always --timeout 600
# vm-all: --kernel rhel-9.6 --modparams assume_ibt=1 --timeout 600
# vm-all: --kernel rhel-10.0 --modparams assume_ibt=1 --timeout 600
# The policy modes beyond 'zero', run inside a guest with thpcow loaded
# (tests/check boots it as the line above says; tests/vm/compat.t runs it
# on the other series). 'copy': after
# fork(), a child writing into THPs it shares with its parent gets whole
# copies instead of the stock split. 'split': where the kernel substitutes
# the huge zero page itself (7.x), a write on it splits as before 6.13.
# One TCG thread (weight 1 in tests/check -j): no case needs vCPUs running
# at once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

size=64 # MiB: 32 huge pages
thpregion=$guest_repo/tests/lib/thpregion.py
regions=$((size / 2))

# fork_write NAME MODE: the parent first-touches the region (THPs), forks,
# and the child writes one byte per 2 MiB into the shared THPs, then the
# parent checks its own copy; under MODE for both, inherited.
fork_write() {
	"$ctl" exec "$2" --children -- "$wrf" --size "$size" --no-read \
		--stride $((2 << 20)) --fork-child-write --verify >"$out/$1"
}

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

# 'copy' leaves to the kernel a THP nobody shares any more: once the child
# exited, the parent's writes reuse its THPs in place, as without thpcow,
# instead of allocating, charging and copying 2 MiB each for nothing.
copy_reuses_after_child_exit() {
	local copied
	copied=$(stat_of copied)
	"$ctl" exec copy -- "$wrf" --size "$size" --no-read --stride $((2 << 20)) \
		--fork-child-exit --verify >"$out/reuse"
	check_eq "$(val reuse anon_huge_kb)" $((size * 1024)) "AnonHugePages kB before the fork"
	check_eq "$(val reuse again_thp_fault_alloc)" 0 "THPs allocated by the writes after the child exited"
	check_eq "$(($(stat_of copied) - copied))" 0 "THPs thpcow copied"
	check_eq "$(val reuse again_thp_split_pmd)" 0 "splits"
	check_eq "$(val reuse again_anon_huge_kb)" $((size * 1024)) "AnonHugePages kB after"
	check_eq "$(val reuse verify)" ok "data"
}

# 'zero' acts on write faults on the huge zero page only (and where the
# kernel substitutes it itself, on none): a child's write faults on the THPs
# it shares after fork are not even redirected to thpcow, which counts
# nothing, and split as stock.
zero_leaves_shared_thps() {
	local calls nzp
	calls=$(stat_of hook_calls)
	nzp=$(stat_of not_zero_page)
	fork_write zerofork zero
	check_eq "$(val zerofork child_thp_split_pmd)" "$regions" "child splits"
	check_eq "$(val zerofork child_verify)" ok "child data"
	check_eq "$(val zerofork verify)" ok "parent data after the child wrote"
	check_eq $(($(stat_of hook_calls) - calls)) 0 "faults redirected to thpcow"
	check_eq $(($(stat_of not_zero_page) - nzp)) "$regions" "not_zero_page counted"
}

# copy_leaves ACTION COUNTER WANT: under 'copy', tests/lib/thpregion.py
# ACTION prints WANT, and each of its faults on a huge PMD (one per 2 MiB)
# is left to the kernel, counted as COUNTER, none redirected to thpcow.
copy_leaves() {
	local calls n got
	calls=$(stat_of hook_calls)
	n=$(stat_of "$2")
	got=$("$ctl" exec copy --children -- "$thpregion" "$1" "$size") || return 1
	check_eq "$got" "$3" "what $1 printed"
	check_eq $(($(stat_of "$2") - n)) "$regions" "$2 counted"
	check_eq $(($(stat_of hook_calls) - calls)) 0 "faults redirected to thpcow"
}

# 'copy' leaves to the kernel, without even a detour through thpcow, a
# write fault on a THP the kernel reuses at once because it is the
# process's own (PageAnonExclusive, 5.19 on): here, THPs write-protected
# by clearing their soft-dirty bits, all still THPs after the writes.
copy_skips_exclusive() {
	kernel_since 5 19 || skip "no PageAnonExclusive before 5.19: thpcow looks under the PMD lock"
	copy_leaves softdirty not_shared $((size * 1024))
}

# A read-only pin of THPs shared after fork (process_vm_readv from the
# parent) unshares them in the child: under a mode that acts, each such
# fault is left to the kernel and counted as unshare, not taken over.
unshare_left_to_kernel() {
	kernel_since 5 19 || skip "no unshare faults on THPs before 5.19"
	copy_leaves pin-shared unshare $((regions * 4096))
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
	((!native)) || skip "this kernel substitutes natively"
	local calls pass
	calls=$(stat_of hook_calls)
	pass=$(stat_of passthrough)
	"$ctl" exec split -- "$wrf" --size "$size" --verify >"$out/split"
	check_eq "$(val split thp_split_pmd)" "$regions" "splits"
	check_eq "$(val split anon_huge_kb)" 0 "AnonHugePages kB"
	check_eq "$(val split verify)" ok "data"
	check_eq $(($(stat_of passthrough) - pass)) "$regions" "passthrough counted"
	check_eq $(($(stat_of hook_calls) - calls)) 0 "faults redirected to thpcow"
}

# 'split' where the kernel substitutes: what stock 6.12 does, a split and a
# fault per 4 KiB, while a process without a policy gets the kernel's THPs.
split_on_native() {
	((native)) || skip "this kernel splits by itself: 'split' is 'kernel' here"
	local before faults
	before=$(stat_of split)
	"$ctl" exec split -- "$wrf" --size "$size" --verify >"$out/split"
	"$wrf" --size "$size" --verify >"$out/nopolicy"
	check_eq "$(val split thp_split_pmd)" "$regions" "splits under 'split'"
	check_eq "$(val split anon_huge_kb)" 0 "AnonHugePages kB under 'split'"
	check_eq "$(val split verify)" ok "data under 'split'"
	check_eq $(($(stat_of split) - before)) "$regions" "split counted"
	faults=$(val split faults)
	((faults >= size * 256)) || {
		echo "'split': $faults faults, fewer than one per 4 KiB"
		return 1
	}
	check_eq "$(val nopolicy thp_split_pmd)" 0 "splits without a policy"
	check_eq "$(val nopolicy anon_huge_kb)" $((size * 1024)) "AnonHugePages kB without a policy"
	check_eq "$(val nopolicy verify)" ok "data without a policy"
}

# At unload the module logs every counter that moved, as debugfs had them
# once the hook disarmed (nothing can count after that); then it loads
# again for the cases after this one.
unload_reports_counters() {
	local names want got i
	for ((i = 0; i < 30; i++)); do
		[[ $(stat_of hook_armed) == 0 ]] && break
		sleep 1
	done
	check_eq "$(stat_of hook_armed)" 0 "armed 30 s after the last rule went"
	names=$(sed -n 's/^THPCOW_STAT([A-Z_]*, \([a-z_]*\))$/\1/p' "$guest_repo/include/uapi/thpcow-stats.h")
	want=$(awk 'NR == FNR { c[$1] = 1; next } ($1 in c) && $2 != 0 { printf " %s=%s", $1, $2 }' \
		<(echo "$names") /sys/kernel/debug/thpcow/stats)
	[[ -n $want ]] || {
		echo "no counter moved before the unload"
		return 1
	}
	rmmod thpcow
	got=$(dmesg | sed -n 's/.*thpcow: unloaded; counters://p' | tail -n 1)
	# shellcheck disable=SC2119 # the run's own parameters, no more
	insmod_ko
	check_eq "$got" "$want" "the unload line"
}

cases=(
	copy_after_fork          # 'copy': one whole copy per 2 MiB, parent untouched
	copy_reuses_after_child_exit # 'copy' after the child exited: reused in place, no copy
	zero_leaves_shared_thps  # 'zero' and shared THPs: not redirected, stock split, counted
	copy_skips_exclusive     # 'copy' and a process's own THPs: not redirected
	kernel_after_fork_splits # 'kernel': the stock split after fork stays
	split_is_stock_here      # 'split' where the kernel splits anyway: the same
	split_on_native          # 'split' on 7.x: the stock <= 6.12 split
	unshare_left_to_kernel   # a read-only pin unsharing THPs: the kernel's, counted
	unload_reports_counters  # the unload line: every counter that moved
)
tap_run "${cases[@]}"
guest_done $?
