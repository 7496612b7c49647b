#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --mem 1024 --tcg-threads single --timeout 1800
# vm-all: --kernel 6.1-debug --mem 1024 --tcg-threads single --timeout 5400
# vm-all: --kernel 6.12-debug --mem 1024 --tcg-threads single --timeout 5400
# vm-all: --kernel rhel-10.0 --mem 1024 --tcg-threads single --timeout 1800
# Faults and limits, run inside a guest with thpcow loaded (the vm: line
# above is how tests/check boots it; one TCG thread: see --tcg-threads in
# vm/run, QEMU runs stale int3s when unloading): where thpcow cannot have a
# THP it must end exactly where the stock kernel does, and unloading it
# under load must lose nothing. Each case runs the write-after-read workload (prog/wrf).
#  - memcg: a cgroup whose memory.max, set after the read phase, has room
#    for all but one of the THPs; the same run under 'kernel' and 'zero'
#    ends the same way (no OOM kill, right data), and the THP that does not
#    fit is counted as a charge fallback (there must be one).
#  - no free 2 MiB block (tests/prog/fragment, THP defrag 'never'): every
#    fault that could not get a THP splits as stock and is counted.
#  - rmmod/insmod 10 times (50 in make check-all: THPCOW_CHECK=all) while 4
#    processes fault at full speed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

fragment=$guest_repo/tests/prog/fragment
manyrules=$guest_repo/tests/prog/manyrules
thp=/sys/kernel/mm/transparent_hugepage
size=64 # MiB per run: 32 huge pages
regions=$((size / 2))
# reload_under_load's cycles: each takes about 7 s here (RCU-tasks, SRCU)
reloads=10
[[ ${THPCOW_CHECK:-} != all ]] || reloads=50

# val_of TEXT KEY: KEY's value in key=value lines.
val_of() { sed -n "s/^$2=//p" <<<"$1"; }

# thps_of NAME: the THPs that back wrf run NAME's region at its end.
thps_of() { echo $(($(val "$1" anon_huge_kb) / 2048)); }

# memcg_run MODE: the workload under MODE, writing every 16 KiB, in a
# fresh cgroup; after its read phase, room for all its THPs but one, and
# 768 KiB (the last 2 MiB needs 512 KiB as 4 KiB pages); its output as
# memcg-MODE, the cgroup's OOM kills and the charge fallbacks as
# memcg-MODE.counts.
memcg_run() {
	local dir=$cg/thpcow-test/$1 fb0
	cg_make "$1"
	fb0=$(fallbacks charge)
	wrf_as "memcg-$1" in_cgroup "$dir" "$ctl" exec "$1" -- "$wrf" --size "$size" --stride 16384 \
		--verify --between "echo \$((\$(cat $dir/memory.current) + $(((regions - 1) * 2048 + 768)) * 1024)) \
			>$dir/memory.max"
	echo "$(sed -n 's/^oom_kill //p' "$dir/memory.events")" \
		"$(($(fallbacks charge) - fb0))" >"$out/memcg-$1.counts"
	rmdir "$dir"
}

memcg_parity() {
	local mode oom thps fb
	echo +memory >"$cg/cgroup.subtree_control"
	mkdir -p "$cg/thpcow-test"
	echo +memory >"$cg/thpcow-test/cgroup.subtree_control"
	memcg_run kernel
	memcg_run zero
	for mode in kernel zero; do
		read -r oom fb <"$out/memcg-$mode.counts"
		echo "$mode: OOM kills $oom, THPs $(thps_of "memcg-$mode"), charge fallbacks $fb"
		check_eq "$oom" 0 "$mode: OOM kills"
		check_eq "$(val "memcg-$mode" verify)" ok "$mode: data"
	done
	read -r oom fb <"$out/memcg-zero.counts"
	thps=$(thps_of memcg-zero)
	((thps > 0)) || {
		echo "zero: no THP made within the limit"
		return 1
	}
	check_eq $((thps + fb)) "$regions" "zero: THPs made + charge fallbacks"
	check_eq "$fb" 1 "zero: charge fallbacks (the one THP that did not fit)"
	check_eq "$(val memcg-zero thp_split_pmd)" "$fb" "zero: splits = charge fallbacks"
}

# No free 2 MiB block and no compaction: the THPs that cannot be had fall
# back to the stock split, one for one.
thp_alloc_failure() {
	# twice the usual region: the 64 MiB fragment leaves untouched (less
	# and the OOM killer takes it) may hold up to 32 free 2 MiB blocks
	local size=128 regions=64 defrag kdefrag proactive boost fb0 fb thps free2m
	defrag=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp/defrag")
	kdefrag=$(<"$thp/khugepaged/defrag")
	proactive=$(cat /proc/sys/vm/compaction_proactiveness 2>/dev/null || echo)
	boost=$(</proc/sys/vm/watermark_boost_factor)
	# This case runs in a subshell of its own: put everything back however
	# it ends (held is not local: the trap runs after the function).
	held=''
	# shellcheck disable=SC2064 # the values now
	trap "[[ -z \$held ]] || { kill \$held; wait \$held; } 2>/dev/null
		echo $defrag >$thp/defrag
		echo $kdefrag >$thp/khugepaged/defrag
		echo $boost >/proc/sys/vm/watermark_boost_factor
		[[ -z '$proactive' ]] || echo '$proactive' >/proc/sys/vm/compaction_proactiveness" EXIT
	# Nothing may compact: not the fault (defrag), not khugepaged's own
	# allocations (with 'always' it scans every process, and compacting
	# for a collapse frees blocks the fault then takes), not kcompactd:
	# neither proactively nor woken by kswapd for a watermark boost (set
	# when fragment's allocations steal pageblocks of another type).
	echo never >"$thp/defrag"
	echo 0 >"$thp/khugepaged/defrag"
	echo 0 >/proc/sys/vm/watermark_boost_factor
	[[ -z $proactive ]] || echo 0 >/proc/sys/vm/compaction_proactiveness
	cp /proc/vmstat "$out/vmstat-before"
	"$fragment" --leave 64 >"$out/fragment" &
	held=$!
	until grep -qx ready "$out/fragment"; do
		kill -0 "$held" 2>/dev/null || {
			echo "fragment failed"
			return 1
		}
		sleep 0.2
	done
	sed '/^ready$/d; s/^/fragment: /' "$out/fragment"
	free2m=$(sed -n 's/^free_2m=//p' "$out/fragment")
	fb0=$(fallbacks alloc)
	wrf_as frag "$ctl" exec zero -- "$wrf" --size "$size" --verify
	fb=$(($(fallbacks alloc) - fb0))
	thps=$(thps_of frag)
	echo "free 2 MiB blocks before the run: $free2m; THPs made $thps, alloc fallbacks $fb"
	echo "compaction and migration since fragmenting began: $(rose_by "$out/vmstat-before" /proc/vmstat \
		'^(compact_(stall|success|daemon_wake)|pgmigrate_success|thp_collapse_alloc)$' | tr '\n' ' ')"
	check_eq "$(val frag verify)" ok "data"
	check_eq $((thps + fb)) "$regions" "THPs made + alloc fallbacks"
	check_eq "$(val frag thp_split_pmd)" "$fb" "splits = alloc fallbacks"
	# Some fault found no THP. Not "at most one THP per free block seen":
	# /proc/buddyinfo does not count the 2 MiB pages the per-CPU lists hold
	# (5.13 on), nor blocks freed during the run (CI once: 29 blocks, 37
	# THPs, 27 fallbacks), so the blocks are shown, not counted on.
	((fb > 0)) || {
		echo "no fault of $regions found no THP: the memory was not fragmented"
		return 1
	}
}

# rmmod/insmod $reloads times while four processes write-fault zero-page memory
# under the global mode 'zero' that each load sets: no oops (vm/run
# checks), no corrupt data, every process still running at the end and
# gone when killed, no rule left, no huge page left behind, and the free
# memory comes back (within 32 MiB: caches drop_caches does not empty).
reload_under_load() {
	local i p pids=() free0 free1 thp0 thp1
	free0=$(free_kb)
	thp0=$(settled nr_anon_transparent_hugepages /proc/vmstat)
	for i in 1 2 3 4; do
		"$wrf" --size 16 --verify --repeat 1000000 >/dev/null 2>"$out/reload-$i" &
		pids+=($!)
	done
	for ((i = 1; i <= reloads; i++)); do
		rmmod thpcow
		insmod_ko default_mode=zero
		sleep 0.2
		((i % 10)) || echo "$i cycles of $reloads at $SECONDS s"
	done
	check_eq "$(stat_of policies)" 0 "rules after the cycles"
	(($(stat_of substituted) > 0)) || {
		echo "the last load substituted nothing: the writers were not faulting"
		return 1
	}
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null || {
			echo "writer $p died:"
			cat "$out"/reload-*
			return 1
		}
	done
	kill "${pids[@]}"
	for p in "${pids[@]}"; do
		timeout 30 tail --pid="$p" -f /dev/null || {
			echo "writer $p did not exit within 30 s of SIGTERM"
			return 1
		}
		wait "$p" || true
	done
	rmmod thpcow
	insmod_ko
	! grep -q . "$out"/reload-* || {
		echo "a writer saw corrupt data:"
		cat "$out"/reload-*
		return 1
	}
	thp1=$(settled nr_anon_transparent_hugepages /proc/vmstat)
	check_eq "$thp1" "$thp0" "anonymous huge pages after the writers exited"
	free1=$(free_kb)
	echo "free $free0 -> $free1 kB; anonymous THPs $thp0 -> $thp1"
	((free0 - free1 < 32768)) || {
		echo "free memory went from $free0 kB to $free1 kB"
		return 1
	}
}

# The rule table holds max_rules rules: loaded with max_rules=4, a fifth
# cgroup rule is refused with ENOSPC (and thpcowctl says why), changing an
# existing one still works, a --children fork past the limit counts
# inherit_failed, and a rule that goes makes room again.
rule_table_full() {
	local got msg
	trap 'cg_clean; rmmod thpcow; insmod_ko' EXIT
	rmmod thpcow
	insmod_ko max_rules=4
	check_eq "$(</sys/module/thpcow/parameters/max_rules)" 4 "max_rules"
	cg_make full
	got=$("$manyrules" "$cg/thpcow-test/full" 5)
	echo "$got" | tr '\n' ' '
	echo
	check_eq "$(val_of "$got" set_ok)" 4 "rules set"
	check_eq "$(val_of "$got" set_errno)" ENOSPC "the fifth's error"
	check_eq "$(stat_of policies)" 4 "rules"
	msg=$("$ctl" set --cgroup "$cg/thpcow-test/full/r4" zero 2>&1) && return 1
	check_match "$msg" "rule table is full \(module parameter max_rules\)" "thpcowctl's message"
	"$ctl" set --cgroup "$cg/thpcow-test/full/r0" copy
	check_match "$("$ctl" get --cgroup "$cg/thpcow-test/full/r0" --json)" '"mode": ?"copy"' \
		"an existing rule changed"
	"$ctl" clear --cgroup "$cg/thpcow-test/full/r0"
	got=$(stat_of inherit_failed)
	"$ctl" exec zero --children -- "$forkexec" -- true
	check_eq $(($(stat_of inherit_failed) - got)) 1 "inherit_failed for a fork past the limit"
	"$ctl" set --cgroup "$cg/thpcow-test/full/r4" zero
	check_eq "$(stat_of policies)" 4 "rules after one went and another came"
}

thp_defaults
cases=(
	memcg_parity      # memory.max just above the working set: kernel = zero
	thp_alloc_failure # no free 2 MiB block: stock split, counted
	reload_under_load # rmmod/insmod under 4 faulting processes
	rule_table_full   # max_rules: ENOSPC with a clear message, inherit_failed
)
tap_run "${cases[@]}"
guest_done $?
