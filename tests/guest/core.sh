#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --timeout 900
# vm: --kernel ubuntu-6.8 --modparams assume_ibt=1 --append transparent_hugepage=always --timeout 900
# vm: --kernel rhel-9.6 --modparams assume_ibt=1 --timeout 900
# vm-all: --kernel 6.1-debug --timeout 3600
# vm-all: --kernel 6.12-debug --timeout 3600
# vm-all: --kernel ubuntu-5.15 --modparams assume_ibt=1 --append transparent_hugepage=always --timeout 900
# vm-all: --kernel rhel-10.0 --modparams assume_ibt=1 --timeout 900
# The module core's tests, run inside a guest with thpcow loaded (the vm:
# line above is how tests/check boots it; tests/vm/compat.t runs it on the
# other series). Each case runs the write-after-read workload
# (prog/wrf: read one byte per 2 MiB, which maps the huge zero page,
# then write one byte per 4 KiB) under some policy and checks the kernel's
# own numbers: faults, thp_split_pmd, AnonHugePages, and the data.
# On a kernel that substitutes the huge zero page itself (6.13 on; thpcow's
# debugfs says native_zero 1) thpcow passes 'zero' through, and the stock
# path gives THPs too: the cases expect that there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

forcewrite=$guest_repo/tests/prog/forcewrite
size=64 # MiB per run: 32 huge pages
tracefs=/sys/kernel/tracing
regions=$((size / 2))

# expect_thps NAME [FAULTS]: the run got a whole THP per 2 MiB, its data are
# right, and it took at most FAULTS minor faults per 2 MiB (default 2: the
# read that maps the huge zero page, the write that replaces it).
expect_thps() {
	check_eq "$(val "$1" thp_split_pmd)" 0 "$1: thp_split_pmd"
	check_eq "$(val "$1" anon_huge_kb)" $((size * 1024)) "$1: AnonHugePages kB"
	check_eq "$(val "$1" verify)" ok "$1: data"
	local faults
	faults=$(val "$1" faults)
	((faults <= ${2:-2} * regions)) || {
		echo "$1: $faults faults for $regions huge pages"
		return 1
	}
}

# expect_split NAME: the run took the stock path, a split per 2 MiB.
expect_split() {
	check_eq "$(val "$1" thp_split_pmd)" "$regions" "$1: thp_split_pmd"
	check_eq "$(val "$1" anon_huge_kb)" 0 "$1: AnonHugePages kB"
	check_eq "$(val "$1" verify)" ok "$1: data"
}

# expect_stock NAME: the run took the stock path: a split per 2 MiB, or
# where the kernel substitutes the zero page itself, a THP.
expect_stock() {
	if ((native)); then expect_thps "$1"; else expect_split "$1"; fi
}

# made_by BEFORE AFTER: between two $(counts), thpcow made one THP per
# 2 MiB, or where the kernel makes them itself, left each fault to it
# (counted native) without taking it over.
counts() { echo "$(stat_of substituted) $(stat_of native) $(stat_of hook_calls)"; }
made_by() {
	local before after subst nat calls
	read -ra before <<<"$1"
	read -ra after <<<"$2"
	subst=$((after[0] - before[0]))
	nat=$((after[1] - before[1]))
	calls=$((after[2] - before[2]))
	if ((native)); then
		check_eq "$nat" "$regions" "faults left to a native kernel by thpcow"
		check_eq "$subst" 0 "THPs substituted by thpcow on a native kernel"
		check_eq "$calls" 0 "faults redirected to thpcow on a native kernel"
	else
		check_eq "$nat" 0 "faults left to the kernel as native"
		check_eq "$subst" "$regions" "THPs substituted by thpcow"
	fi
}

# --- cases -------------------------------------------------------------------

zero_pid_gets_thps() {
	local before
	before=$(counts)
	wrf_as zero "$ctl" exec zero -- "$wrf" --size "$size" --verify
	expect_thps zero
	made_by "$before" "$(counts)"
}

no_policy_splits() {
	wrf_as stock "$wrf" --size "$size" --verify
	expect_stock stock
}

sibling_keeps_stock() {
	# A process with 'zero' is alive and faulting next to one without.
	"$ctl" exec zero -- "$wrf" --size "$size" --verify --hold >"$out/held" &
	local held=$!
	wrf_as sibling "$wrf" --size "$size" --verify
	kill "$held"
	wait "$held" || true
	expect_stock sibling
}

cgroup_subtree() {
	local before after
	cg_make vms/a other
	"$ctl" set --cgroup "$cg/thpcow-test/vms" zero
	before=$(counts)
	wrf_as incg in_cgroup "$cg/thpcow-test/vms/a" "$wrf" --size "$size" --verify
	after=$(counts)
	wrf_as outcg in_cgroup "$cg/thpcow-test/other" "$wrf" --size "$size" --verify
	"$ctl" clear --cgroup "$cg/thpcow-test/vms"
	cg_clean
	expect_thps incg
	made_by "$before" "$after"
	expect_stock outcg
}

global_default() {
	local before after
	"$ctl" set --global zero
	before=$(counts)
	wrf_as global "$wrf" --size "$size" --verify
	after=$(counts)
	"$ctl" clear --global
	wrf_as cleared "$wrf" --size "$size" --verify
	expect_thps global
	made_by "$before" "$after"
	expect_stock cleared
}

children_inherit() {
	wrf_as child "$ctl" exec zero --children -- "$forkexec" --depth 2 -- \
		"$wrf" --size "$size" --verify
	wrf_as nochild "$ctl" exec zero -- "$forkexec" -- \
		"$wrf" --size "$size" --verify
	expect_thps child
	expect_stock nochild
}

# Eight threads keep reading the range a ninth writes: the zero PMD stays
# present for them, so the writer's substitution always goes through. A
# reader that touches a PMD in the instant it is cleared for the new THP
# takes a fault itself (the process's count): allow one per reader per 2 MiB
# on top, far below the stock 512.
readers_do_not_starve_writer() {
	wrf_as readers timeout 120 "$ctl" exec zero -- "$wrf" --size "$size" \
		--readers 8 --verify
	expect_thps readers 10
}

# A removed cgroup's rule goes at its rmdir, without anyone reading the
# rules: it does not pin the cgroup (nr_dying_descendants drops back to 0),
# is not counted, and no fault path walks it.
removed_cgroup_leaves_no_rule() {
	local i dying
	cg_make gone
	"$ctl" set --cgroup "$cg/thpcow-test/gone" zero
	check_eq "$(stat_of policies)" 1 "rules with the cgroup's"
	rmdir "$cg/thpcow-test/gone"
	check_eq "$(stat_of policies)" 0 "rules right after the rmdir"
	# freed after RCU and SRCU grace periods, then the css's own RCU work
	for ((i = 0; i < 200; i++)); do
		dying=$(sed -n 's/^nr_dying_descendants //p' "$cg/thpcow-test/cgroup.stat")
		((dying == 0)) && break
		sleep 0.1
	done
	check_eq "$dying" 0 "dying cgroups below thpcow-test after 20 s"
}

exited_process_leaves_no_rule() {
	"$ctl" exec zero -- true
	sh -c "$ctl set --pid \$\$ --children zero && $forkexec -- true"
	check_eq "$(stat_of policies)" 0 "policies after the processes exited"
}

# Pid rules set on thousands of processes while they all exit at once
# (tests/prog/exitrace): every rule goes with its process, none stays for a
# dead one. The count is read first, as 'list' would reap what is left.
# Ten rounds of 2000 processes; two on the harness's debug kernels, where
# ten took more than the 600 s (6.12-debug beside three more guests).
rules_race_exits() {
	local rc=0 rounds=10 out sets
	! debug_kernel || rounds=2
	env_count rounds THPCOW_EXITRACE_ROUNDS
	out=$(timeout 600 "$guest_repo/tests/prog/exitrace" --procs 2000 --rounds "$rounds") || rc=$?
	echo "$out"
	((rc != 124)) || echo "exitrace did not end within 600 s"
	# No rule created, no race: every set refused (the processes gone
	# first) tests nothing.
	sets=$(sed -n 's/^sets=\([0-9]*\) .*/\1/p' <<<"$out")
	((${sets:-0} > 0)) || { echo "no set took (sets=${sets:-none}): no rule raced an exit" && return 1; }
	check_eq "$(stat_of policies)" 0 "rules after the processes exited"
	check_eq "$("$ctl" list | awk 'NR > 1' | wc -l)" 0 "rules listed"
	return "$rc"
}

bad_requests_change_nothing() {
	local before after msg
	before=$("$ctl" list)
	msg=$("$ctl" set --pid 999999 zero 2>&1) && return 1
	check_match "$msg" "no such process" "set on a missing pid"
	msg=$("$ctl" set --cgroup /proc zero 2>&1) && return 1
	check_match "$msg" "not a cgroup v2 directory" "set on /proc"
	msg=$("$ctl" set --global huge 2>&1) && return 1
	check_match "$msg" "huge" "an unknown mode"
	msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ctl" set --global zero 2>&1) && return 1
	check_match "$msg" "root|CAP_SYS_ADMIN" "set as nobody"
	after=$("$ctl" list)
	check_eq "$after" "$before" "the policy list"
	check_eq "$(stat_of global_mode)" kernel "the global mode"
}

# A FOLL_FORCE write (ptrace, /proc/PID/mem) into a read-only private
# mapping whose huge zero page a read mapped: one fault, as stock takes,
# and under 'zero' one THP. 5.10's GUP needs the fault to say
# VM_FAULT_WRITE (it sets FOLL_COW on it), or it faults a second time.
force_write_read_only() {
	local subst nzp rc=0
	"$forcewrite" >"$out/fw-stock" 2>&1 || rc=$?
	((rc != 4)) || skip "this kernel refuses FOLL_FORCE writes to /proc/PID/mem"
	check_eq "$rc" 0 "stock: forcewrite's exit status ($(<"$out/fw-stock"))"
	subst=$(stat_of substituted)
	nzp=$(stat_of not_zero_page)
	wrf_as fw-zero "$ctl" exec zero -- "$forcewrite"
	cat "$out/fw-zero"
	check_eq "$(val fw-zero verify)" ok "zero: data"
	check_eq "$(val fw-zero faults)" "$(val fw-stock faults)" "zero: faults, as stock's"
	check_eq $(($(stat_of not_zero_page) - nzp)) 0 "zero: faults on a THP"
	((!native)) || return 0
	check_eq "$(val fw-zero anon_huge_kb)" 2048 "zero: AnonHugePages kB"
	check_eq $(($(stat_of substituted) - subst)) 1 "zero: THPs substituted"
}

thp=/sys/kernel/mm/transparent_hugepage

# THPs switched off after the zero page was mapped: the kernel's split,
# counted. A kernel that substitutes itself does not ask sysfs again there.
fallback_thp_disabled() {
	local before rc=0 calls
	before=$(stat_of fallback_ineligible)
	calls=$(stat_of hook_calls)
	wrf_as never "$ctl" exec zero -- "$wrf" --size "$size" --verify \
		--between "echo never >$thp/enabled" || rc=1
	echo always >"$thp/enabled"
	((rc == 0))
	if ((native)); then
		expect_thps never
		check_eq $(($(stat_of hook_calls) - calls)) 0 "faults redirected to thpcow"
		return
	fi
	expect_split never
	check_eq $(($(stat_of fallback_ineligible) - before)) "$regions" \
		"fallback_ineligible counted"
}

# A memcg with room for 4 KiB pages but not for another 2 MiB: the last
# huge page cannot be charged, the fault still succeeds the stock way, no OOM.
# A kernel that substitutes itself counts that in its own vmstat.
fallback_memcg_full() {
	local dir=$cg/thpcow-test/mem before stride=16384
	cg_make mem
	echo +memory >"$cg/thpcow-test/cgroup.subtree_control"
	before=$(fallbacks charge)
	# After the read phase: room for 31 huge pages and 768 KiB, where the
	# last 2 MiB written every 16 KiB needs 512 KiB as 4 KiB pages.
	wrf_as memcg in_cgroup "$dir" "$ctl" exec zero -- "$wrf" --size "$size" \
		--stride "$stride" --verify --between \
		"echo \$((\$(cat $dir/memory.current) + 62 * 1048576 + 786432)) >$dir/memory.max"
	check_eq "$(sed -n 's/^oom_kill //p' "$dir/memory.events")" 0 "OOM kills"
	cg_clean
	check_eq "$(val memcg verify)" ok "memcg: data"
	check_eq "$(val memcg anon_huge_kb)" $(((size - 2) * 1024)) "memcg: AnonHugePages kB"
	(($(fallbacks charge) > before)) || {
		echo "the charge fallbacks did not move"
		return 1
	}
}

# hooked: is do_huge_pmd_wp_page under an ftrace callback of thpcow's,
# as ftrace itself and thpcow's debugfs say ("1 1" or "0 0")?
hooked() {
	local listed=0
	grep -q '^do_huge_pmd_wp_page ' "$tracefs/enabled_functions" && listed=1
	echo "$listed $(stat_of hook_armed)"
}

# within SECONDS WANT: hooked says WANT within SECONDS.
hooked_within() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		[[ $(hooked) == "$2" ]] && return 0
		sleep 0.1
	done
	echo "hooked: $(hooked) after $1 s, want $2"
	return 1
}

hook_armed_only_with_policy() {
	local pid
	check_eq "$("$ctl" list --json | grep -c '"scope"')" 0 "rules at start"
	# Disarmed 10 s after the last policy went (or the load), then RCU-tasks
	# waits and text patching: 30 s under TCG's load.
	hooked_within 30 "0 0" || return 1
	# (alive until killed below: the steps between took over 30 s on 6.12-debug)
	sleep 600 &
	pid=$!
	"$ctl" set --pid "$pid" zero
	# In force when set returns.
	check_eq "$(hooked)" "1 1" "hooked right after set --pid"
	"$ctl" clear --pid "$pid"
	hooked_within 30 "0 0" || return 1
	"$ctl" set --global copy
	check_eq "$(hooked)" "1 1" "hooked right after set --global"
	"$ctl" clear --global
	hooked_within 30 "0 0" || return 1
	# A rule that goes with its process disarms too.
	"$ctl" set --pid "$pid" zero
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	hooked_within 30 "0 0" || return 1
	# And a policy works again after all that.
	wrf_as rearmed "$ctl" exec zero -- "$wrf" --size "$size" --verify
	expect_thps rearmed
}

# 6.12's shrinker splits THPs that are mostly zero (more zero-filled
# subpages than khugepaged/max_ptes_none; shrink_underused), finding them
# on the deferred split queue: thpcow's THPs must be queued there as a
# first-touch THP is (6.12 queues every new anonymous THP; 7.x's own
# zero-page path does since 6.18.3). One byte written per 2 MiB: every
# THP is underused, and drop_caches runs the shrinker.
underused_thps_split() {
	[[ -e $thp/shrink_underused ]] || skip "no underused-THP shrinker before 6.12"
	local i mpn split
	mpn=$(<"$thp/khugepaged/max_ptes_none")
	echo 1 >"$thp/shrink_underused"
	echo 409 >"$thp/khugepaged/max_ptes_none"
	"$ctl" exec zero -- "$wrf" --size "$size" --stride $((2 << 20)) --hold >"$out/underused" &
	# (globals: the EXIT trap runs after the function returned)
	held=$! ptes_none=$mpn
	trap 'echo "$ptes_none" >"$thp/khugepaged/max_ptes_none"; kill "$held"' EXIT
	for ((i = 0; i < 300; i++)); do
		grep -qx ready "$out/underused" && break
		sleep 0.1
	done
	check_eq "$(val underused anon_huge_kb)" $((size * 1024)) "AnonHugePages kB after the writes"
	split=$(awk '$1 == "thp_underused_split_page" { print $2 }' /proc/vmstat)
	settled MemFree: /proc/meminfo >/dev/null
	split=$(($(awk '$1 == "thp_underused_split_page" { print $2 }' /proc/vmstat) - split))
	# the counter is the machine's: at least ours, and none of ours left whole
	((split >= regions)) || { echo "underused THPs split by the shrinker: $split, want >= $regions"; return 1; }
	check_eq "$(awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$held/smaps_rollup")" 0 \
		"AnonHugePages kB of the process after the shrinker"
}

# ipis: the function-call and TLB-shootdown IPIs all CPUs took so far.
ipis() { awk '$1 == "CAL:" || $1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n }' /proc/interrupts; }

# Short-lived pid rules, one every 1.5 s (thpcowctl exec zero -- true in a
# loop), arm the hook once, not once each: arming patches text with an IPI
# to every CPU. It disarms only after some seconds without any policy.
arming_survives_churn() {
	local arms ipi i t end=0 longest=0
	hooked_within 30 "0 0" || return 1
	arms=$(stat_of hook_arms)
	ipi=$(ipis)
	for ((i = 0; i < 8; i++)); do
		"$ctl" exec zero -- true
		# From one rule's end to the next's (in ms): longer than the
		# module's 10 s disarm delay, and a disarm between is right.
		t=${EPOCHREALTIME/./} t=$((t / 1000))
		((end == 0 || t - end <= longest)) || longest=$((t - end))
		end=$t
		sleep 1.5
	done
	arms=$(($(stat_of hook_arms) - arms))
	echo "arms $arms, CAL+TLB IPIs $(($(ipis) - ipi)), longest gap $longest ms"
	((arms == 1 || longest < 10000)) ||
		skip "a rule came $longest ms after the one before (6.12-debug beside other guests): too slow to tell"
	check_eq "$arms" 1 "arms for 8 short-lived rules"
}

cases=(
	zero_pid_gets_thps           # a pid policy 'zero': one THP per 2 MiB, no split
	no_policy_splits             # without a policy the stock split stays
	sibling_keeps_stock          # a policy is per process, not per guest
	cgroup_subtree               # a cgroup rule covers its subtree, not siblings
	global_default               # the global default applies, and clears
	children_inherit             # --children follows fork+exec two levels deep
	readers_do_not_starve_writer # no livelock against readers of the same range
	exited_process_leaves_no_rule # pid rules go away with their process
	removed_cgroup_leaves_no_rule # cgroup rules go away with their cgroup
	rules_race_exits             # ... also when set while it exits
	bad_requests_change_nothing  # ESRCH, ENOTDIR, bad mode, EPERM: nothing changes
	force_write_read_only        # a FOLL_FORCE write to a read-only mapping: one fault
	fallback_thp_disabled        # THP off after the zero page was mapped: stock split
	fallback_memcg_full          # memcg cannot take 2 MiB more: stock split, no OOM
	hook_armed_only_with_policy  # no policy: do_huge_pmd_wp_page is not even hooked
	arming_survives_churn        # rules coming and going arm the hook once
	underused_thps_split         # 6.12 on: mostly-zero THPs split by the shrinker
)
tap_run "${cases[@]}"
guest_done $?
