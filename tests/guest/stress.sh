#!/usr/bin/env bash
# vm: --kernel 6.1 --cpus 2 --mem 2048 --timeout 460
# vm-all: --kernel 6.1-debug --cpus 2 --mem 2048 --timeout 1800
# vm-all: --kernel 6.12-debug --cpus 2 --mem 2048 --timeout 1800
# vm-all: --kernel rhel-9.6 --cpus 2 --mem 2048 --timeout 460
# vm-all: --kernel rhel-10.0 --cpus 2 --mem 2048 --timeout 460
# Data integrity under races, run inside a guest with thpcow loaded (the vm:
# line above is how tests/check boots it, 2 CPUs): tests/prog/stress
# read-faults and write-faults the huge zero page, forks, madvises, mprotects, unmaps, mremaps, write-protects
# through userfaultfd and writes with process_vm_writev, all at once, under
# the global modes kernel, zero and copy; every byte must match at the end.
# Also: eight readers of one 2 MiB range do not starve its writer, and the
# stress program does catch a corrupted byte. THPCOW_STRESS_SECONDS sets the
# length of each stress run (default 40; the vm: line's --timeout is
# 4 x 40 + 300 s): a soak sets it higher, with a --timeout to match, e.g.
#   THPCOW_STRESS_SECONDS=300 vm/run --cpus 2 --timeout 1500 -- tests/guest/stress.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

stress=$guest_repo/tests/prog/stress
secs=40
env_count secs THPCOW_STRESS_SECONDS
size=256 # MiB live at a time
trap '"$ctl" clear --global 2>/dev/null; rm -rf "$out"' EXIT

# The operations every run must have done at least once.
ops=(zero_reads hot_reads zero_write_faults rewrites dontneeds frees pageouts
	mprotects remaps mremaps uffd_wp_ops uffd_wp_faults pvm_writes forks)

# run_stress NAME MODE: the stress program under the global mode MODE; its
# output in $out/NAME, the growth of thpcow's counters in $out/NAME.delta.
run_stress() {
	local name=$1 mode=$2 rc=0 k before=() after=() i
	local counters=(substituted copied native hook_calls fallback_uffd)
	for k in "${counters[@]}"; do before+=("$(stat_of "$k")"); done
	"$ctl" set --global "$mode"
	"$stress" --seconds "$secs" --threads 8 --size "$size" >"$out/$name" || rc=$?
	"$ctl" clear --global
	for k in "${counters[@]}"; do after+=("$(stat_of "$k")"); done
	for i in "${!counters[@]}"; do
		echo "${counters[i]}=$((after[i] - before[i]))"
	done >"$out/$name.delta"
	echo "$name: $(tr '\n' ' ' <"$out/$name")"
	echo "$name: thpcow counters grew by: $(tr '\n' ' ' <"$out/$name.delta")"
	check_eq "$rc" 0 "$name: exit status"
	check_eq "$(val "$name" mismatches)" 0 "$name: mismatches"
	check_eq "$(val "$name" uffd_wp)" ok "$name: userfaultfd write-protect"
	for k in "${ops[@]}"; do
		(($(val "$name" "$k") > 0)) || {
			echo "$name: no $k in $secs s"
			return 1
		}
	done
}

# grew NAME COUNTER: thpcow's COUNTER grew during run NAME.
grew() {
	local n
	n=$(val "$1.delta" "$2")
	((n > 0)) || {
		echo "$1: $2 did not grow"
		return 1
	}
}

# --- cases -------------------------------------------------------------------

stress_kernel() {
	run_stress kernel kernel
	check_eq "$(val kernel.delta substituted)" 0 "kernel: substituted"
	check_eq "$(val kernel.delta copied)" 0 "kernel: copied"
	# No rule and the global mode 'kernel': thpcow is not even entered.
	check_eq "$(val kernel.delta hook_calls)" 0 "kernel: hook calls"
}

# Write faults on the huge zero page get whole THPs (on a kernel that
# substitutes itself, 'zero' can act on nothing: thpcow is not even called).
stress_zero() {
	run_stress zero zero
	if ((native)); then
		check_eq "$(val zero.delta hook_calls)" 0 "zero: hook calls on a native kernel"
	else
		grew zero substituted
	fi
	check_eq "$(val zero.delta copied)" 0 "zero: copied"
}

# THPs shared after fork() are copied whole when either side writes.
stress_copy() {
	run_stress copy copy
	grew copy copied
	((native)) || grew copy substituted
}

# Eight threads keep reading one 2 MiB range while a ninth writes it, 20
# times over: each write gets its THP, in bounded time (the readers never
# fault on the present zero PMD, so they cannot keep the writer out).
one_range_readers() {
	local before runs=20 rc=0 ms
	before=$(stat_of substituted)
	timeout 120 "$ctl" exec zero -- "$wrf" --size 2 --readers 8 --verify \
		--repeat "$runs" >"$out/one" || rc=$?
	echo "one_range: $(tr '\n' ' ' <"$out/one")"
	check_eq "$rc" 0 "wrf exit status (124: it starved)"
	check_eq "$(val one verify)" ok "data"
	check_eq "$(val one thp_split_pmd)" 0 "thp_split_pmd"
	check_eq "$(val one anon_huge_kb)" 2048 "AnonHugePages kB"
	((native)) || check_eq $(($(stat_of substituted) - before)) "$runs" "THPs substituted"
	ms=$(($(val one time_ns) / 1000000))
	((ms < 10000)) || {
		echo "the last write phase took $ms ms"
		return 1
	}
}

# A byte changed behind the checker's back, in the parent or in a fork
# child, is reported and fails the run: the checks can fail. One second:
# the parent's corruption comes after it, so the run must outlast its
# --seconds until the corruption is done (on 6.1-debug a 4 s run once
# ended before the mixer's turn came, and passed).
catches_corruption() {
	local where rc
	for where in parent child; do
		rc=0
		"$stress" --seconds 1 --threads 4 --size 32 --selftest-corrupt "$where" \
			>"$out/corrupt-$where" 2>"$out/corrupt-$where.err" || rc=$?
		cat "$out/corrupt-$where.err"
		check_eq "$rc" 1 "$where: exit status"
		check_match "$(val "corrupt-$where" mismatches)" '^[1-9]' "$where: mismatches"
		check_match "$(cat "$out/corrupt-$where.err")" \
			'mismatch .* addr=0x[0-9a-f]+ .* expected=0x[0-9a-f]+.* got=0x' \
			"$where: the report"
	done
}

cases=(
	stress_kernel      # the stock kernel: every byte as expected
	stress_zero        # 'zero': the same, with THPs substituted
	stress_copy        # 'copy': the same, with shared THPs copied after fork
	one_range_readers  # 8 readers of one 2 MiB range never starve its writer
	catches_corruption # a corrupted byte is reported: the checker works
)
tap_run "${cases[@]}"
