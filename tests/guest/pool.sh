#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# shellcheck disable=SC2119 # insmod_ko: no parameters beyond the run's
# vm: --kernel 6.1 --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 900
# vm-all: --kernel 6.12 --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 900
# vm-all: --kernel 5.10 --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 900
# vm-all: --kernel rhel-9.6 --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 900
# vm-all: --kernel 6.1-debug --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 3600
# vm-all: --kernel 6.12-debug --numa 2 --mem 1536 --append watchdog_thresh=30 --timeout 3600
# vm-all: --kernel latest --timeout 300
# (watchdog_thresh=30: pressure's memory hog, under TCG on a loaded host,
# once kept a vCPU in one fault's zeroing for 23 s with the pool off, which
# the default 20 s soft-lockup limit turns into a failed run)
# The pool of pre-zeroed THPs (module/pool.c, module parameter pool_mib),
# in a guest with two NUMA nodes:
#  - hits: a 'zero' process's substitutions map pooled THPs, zero but for
#    what it wrote; the refill threads top the pool up again; pool_mib 0
#    frees every page and stops the threads; the pool shows as KReclaimable
#  - bad_input: pool_mib refuses what is not a multiple of 2 MiB, too large
#    or not a number, and a writer without CAP_SYS_ADMIN, changing nothing
#  - memcg_full: a memcg that cannot take 2 MiB more: the charge fails, the
#    THP goes back into the pool (none freed), the kernel splits, as without
#    the pool
#  - numa: a process bound to node 1 running on node 0 gets no pooled THP
#    (the kernel's own allocation would not take node 0's first) and its
#    memory is on node 1; run on node 1, it takes node 1's; the same with a
#    cpuset instead of a policy
#  - pressure: memory pressure empties the pool through its shrinker, with
#    no OOM kill, as with the pool off; drop_caches empties it, and the
#    refill waits before it starts again
#  - cpu_hotplug: a node's CPUs going offline and online while it refills
#  - unload_full: rmmod with a full pool gives every page back
#  - poisoned: a pooled THP with a page memory_failure() marked (a machine
#    check, as /sys/devices/system/memory/hard_offline_page simulates it) is
#    never handed out: kept out of use, counted; the fault gets another
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"
# shellcheck source=SCRIPTDIR/../lib/errno.sh
source "$here/../lib/errno.sh"

param=/sys/module/thpcow/parameters/pool_mib
pool=/sys/kernel/debug/thpcow/pool
size=32 # MiB per run: 16 THPs
regions=$((size / 2))

pool_of() { awk -v k="$1" '$1 == k { print $2 }' "$pool"; }
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
vmstat_of() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
rose() { sed -n "s/^$1=//p" "$out/rose"; } # after rose_by ... >$out/rose
node_count() {
	local n=(/sys/devices/system/node/node[0-9]*)
	echo "${#n[@]}"
}
refill_threads() { pgrep -c '^thpcow-pool/' || true; }

# pool_set MIB: thpcowctl pool MIB (pool_mib = MIB per node), and wait
# (60 s at most) until the pool holds its target.
pool_set() {
	local i
	"$ctl" pool "$1" || return 1
	for ((i = 0; i < 600; i++)); do
		[[ $(pool_of thps) == "$(pool_of target)" ]] && return 0
		sleep 0.1
	done
	echo "the pool did not fill: $(tr '\n' ' ' <"$pool")"
	return 1
}

# pool_fill MIB: thpcowctl pool MIB, and wait until the pool holds its
# target or stops growing (a small node's free memory may not reach its high
# watermarks with a large pool on top: the refill stops short, politely).
pool_fill() {
	local i last=-1 still=0
	"$ctl" pool "$1" || return 1
	for ((i = 0; i < 600 && still < 30; i++)); do
		[[ $(pool_of thps) == "$(pool_of target)" ]] && return 0
		if [[ $(pool_of thps) == "$last" ]]; then still=$((still + 1)); else still=0; fi
		last=$(pool_of thps)
		sleep 0.1
	done
	(($(pool_of thps) > 0)) || { echo "the pool did not fill at all"; return 1; }
}

# Every case starts and ends with the pool off.
pool_off() {
	"$ctl" pool off
	check_eq "$(pool_of thps)" 0 "THPs pooled after pool_mib 0"
}

hits() {
	local nodes before kr_full
	nodes=$(node_count)
	check_eq "$(refill_threads)" 0 "refill threads while off"
	pool_set 64
	check_eq "$(pool_of target)" $((32 * nodes)) "target: 32 THPs per node"
	check_eq "$(refill_threads)" "$nodes" "refill threads (one per node)"
	kr_full=$(meminfo_kb KReclaimable)
	before=$(cat /sys/kernel/debug/thpcow/stats)
	wrf_as hit "$ctl" exec zero -- "$wrf" --size "$size" --verify
	rose_by <(echo "$before") /sys/kernel/debug/thpcow/stats '^(substituted|pool_.*)$' | tee "$out/rose"
	check_eq "$(val hit verify)" ok "data: zero but what was written"
	check_eq "$(val hit anon_huge_kb)" $((size * 1024)) "AnonHugePages"
	check_eq "$(rose substituted)" "$regions" "substituted"
	check_eq "$(rose pool_hit)" "$regions" "pool hits"
	check_eq "$(rose pool_miss)" 0 "pool misses"
	"$ctl" pool | tee "$out/pool"
	check_match "$(cat "$out/pool")" "(^|"$'\n'")mib: +64"$'\n' "thpcowctl pool"
	# the refill puts back what was taken
	pool_set 64
	pool_off
	check_eq "$(refill_threads)" 0 "refill threads after pool_mib 0"
	check_match "$("$ctl" pool -J)" '"thps": ?0[,}]' "thpcowctl pool -J"
	# KReclaimable held the pool: 64 MiB per node, give or take the slab's
	echo "KReclaimable: full $kr_full kB, empty $(meminfo_kb KReclaimable) kB"
	(($(meminfo_kb KReclaimable) + 64 * 1024 * nodes - 8192 <= kr_full)) || {
		echo "KReclaimable fell by less than the pool"
		return 1
	}
}

bad_input() {
	local v msg
	pool_set 4
	for v in 3 1000000 abc -2 ''; do
		check_eq "$("${write_errno[@]}" "$param" "\"$v\\n\"")" EINVAL "pool_mib '$v'"
		check_eq "$(cat "$param")" 4 "pool_mib after '$v'"
	done
	msg=$("$ctl" pool 3 2>&1) && { echo "thpcowctl pool 3 succeeded"; return 1; }
	check_eq "$msg" "thpcowctl: pool: 3 MiB: not a multiple of 2 MiB, or more than half of the memory over all NUMA nodes" \
		"thpcowctl pool 3"
	# root without CAP_SYS_ADMIN, as a container's root mapped to the host's
	msg=$(setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "${write_errno[@]}" "$param" '"8\n"')
	check_eq "$msg" EPERM "pool_mib as uid 0 without CAP_SYS_ADMIN"
	check_eq "$(cat "$param")" 4 "pool_mib after the unprivileged write"
	pool_off
}

memcg_full() {
	local dir=$cg/thpcow-test/full before
	echo +memory >"$cg/cgroup.subtree_control"
	cg_make full
	echo +memory >"$cg/thpcow-test/cgroup.subtree_control"
	pool_set 64
	before=$(cat /sys/kernel/debug/thpcow/stats)
	# room for 2 THPs after wrf's own start: the others' charges fail
	wrf_as memcg in_cgroup "$dir" "$ctl" exec zero -- "$wrf" --size "$size" --stride $((2 << 20)) \
		--verify --between "echo \$((\$(cat $dir/memory.current) + 5 * 1024 * 1024)) >$dir/memory.max"
	rose_by <(echo "$before") /sys/kernel/debug/thpcow/stats '^(substituted|fallback_charge|pool_.*)$' |
		tee "$out/rose"
	check_eq "$(val memcg verify)" ok "data"
	check_eq "$(sed -n 's/^oom_kill //p' "$dir/memory.events")" 0 "OOM kills"
	check_eq "$(rose substituted)" 2 "THPs charged"
	check_eq "$(rose pool_hit)" 2 "pool hits"
	check_eq "$(rose fallback_charge)" $((regions - 2)) "charge fallbacks"
	check_eq "$(rose pool_released)" 0 "THPs freed (none: back into the pool)"
	check_eq "$(val memcg thp_split_pmd)" $((regions - 2)) "the kernel's splits"
	rmdir "$dir"
	pool_off
}

# numa_run NAME CMD...: wrf under zero, run by CMD (numactl ...,
# cgroup_exec DIR: a command that becomes wrf), held; its memory's nodes
# (numa_maps) as NAME.maps
numa_run() {
	local name=$1 pid i
	shift
	"$@" "$ctl" exec zero -- "$wrf" --size "$size" --verify --hold >"$out/$name" </dev/null &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		grep -q '^ready' "$out/$name" && break
		sleep 0.1
	done
	grep -q '^ready' "$out/$name" || { kill "$pid"; echo "$name: wrf did not finish"; return 1; }
	# the region: the mapping of all its pages, by node
	grep -E " anon=$((size * 256))( |$)" "/proc/$pid/numa_maps" >"$out/$name.maps" || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	cat "$out/$name.maps"
}

# numa_case NAME HITS NODE CMD...: numa_run NAME CMD...; the pool served
# HITS of its THPs (0: all missed), all on node NODE
numa_case() {
	local name=$1 hits=$2 node=$3 before
	shift 3
	pool_set 64
	before=$(cat /sys/kernel/debug/thpcow/stats)
	numa_run "$name" "$@"
	rose_by <(echo "$before") /sys/kernel/debug/thpcow/stats '^(substituted|fallback_alloc|pool_.*)$' |
		tee "$out/rose"
	check_eq "$(val "$name" verify)" ok "$name: data"
	# where the cpuset does not allow the CPU's node, the kernel's own
	# THP allocation fails (it tries that node only, without reclaim)
	check_eq $(($(rose substituted) + $(rose fallback_alloc))) "$regions" "$name: substituted + fallback_alloc"
	check_eq "$(rose pool_hit)" "$hits" "$name: pool hits"
	check_eq "$(rose pool_miss)" $((regions - hits)) "$name: pool misses"
	check_match "$(cat "$out/$name.maps")" " N$node=$((size * 256))( |$)" "$name: its pages on node $node only"
}

numa() {
	local dir=$cg/thpcow-test/numa
	[[ -d /sys/devices/system/node/node1 ]] || skip "one NUMA node"
	# a bind policy without the CPU's node: not the kernel's first choice
	numa_case bind_remote 0 1 numactl --cpunodebind=0 --membind=1
	numa_case bind_local "$regions" 1 numactl --cpunodebind=1 --membind=1
	# a cpuset whose memory is not its CPU's node, then is
	echo +cpuset >"$cg/cgroup.subtree_control"
	cg_make numa
	echo +cpuset >"$cg/thpcow-test/cgroup.subtree_control"
	echo 0 >"$dir/cpuset.cpus"
	echo 1 >"$dir/cpuset.mems"
	numa_case cpuset_remote 0 1 cgroup_exec "$dir"
	echo 0 >"$dir/cpuset.mems"
	numa_case cpuset_local "$regions" 0 cgroup_exec "$dir"
	rmdir "$dir"
	pool_off
}

pressure() {
	local mode hog free_kb oom0 rel0
	for mode in off on; do
		echo 3 >/proc/sys/vm/drop_caches
		if [[ $mode == on ]]; then
			# half of the memory over all nodes: the largest pool allowed
			pool_fill $(($(meminfo_kb MemTotal) / 1024 / 2 / $(node_count) / 2 * 2))
		fi
		# what is free, and most of the pool: the shrinker must give it back
		free_kb=$(meminfo_kb MemFree)
		hog=$(((free_kb - 65536 + $(pool_of thps) * 2048 * 3 / 4) / 1024))
		oom0=$(vmstat_of oom_kill)
		rel0=$(stat_of pool_released)
		echo "pool $mode: $(pool_of thps) THPs pooled, MemFree $free_kb kB, hog $hog MiB"
		wrf_as "hog-$mode" "$wrf" --size "$hog" --no-read --stride 4096
		echo "pool $mode: $(($(stat_of pool_released) - rel0)) THPs released, $(pool_of thps) left"
		check_eq "$(vmstat_of oom_kill)" "$oom0" "pool $mode: OOM kills"
		if [[ $mode == on ]]; then
			(($(stat_of pool_released) > rel0)) || { echo "the shrinker freed nothing"; return 1; }
		fi
	done
	# drop_caches empties the pool at once, and the refill waits
	pool_set 64
	echo 3 >/proc/sys/vm/drop_caches
	check_eq "$(pool_of thps)" 0 "THPs pooled right after drop_caches"
	sleep 2
	check_eq "$(pool_of thps)" 0 "THPs pooled 2 s after drop_caches"
	pool_set 64 # within 60 s: the back-off is 10 s
	pool_off
}

cpu_hotplug() {
	local c i
	c=/sys/devices/system/cpu/cpu1/online
	[[ -w $c ]] || skip "CPU 1 cannot go offline"
	"$ctl" pool 128 # as README.md says
	for ((i = 0; i < 3; i++)); do
		echo 0 >"$c"
		sleep 0.5
		echo 1 >"$c"
		sleep 0.5
	done
	pool_set 128
	check_eq "$(refill_threads)" "$(node_count)" "refill threads"
	pool_off
}

unload_full() {
	local free0
	free0=$(free_kb)
	pool_set 64
	# (free_kb drops caches, which would empty the pool)
	(($(meminfo_kb MemFree) + $(pcp_kb) < free0 - 64 * 1024)) ||
		{ echo "free memory did not fall by the pool"; return 1; }
	rmmod thpcow
	echo "free memory: before $free0 kB, after rmmod $(free_kb) kB"
	(($(free_kb) > free0 - 16 * 1024)) || { echo "rmmod did not free the pool"; insmod_ko; return 1; }
	insmod_ko
	check_eq "$(cat "$param")" 0 "pool_mib after a reload"
}

poisoned() {
	local hop=/sys/devices/system/memory/hard_offline_page node pfn before
	[[ -w $hop ]] || skip "no $hop (CONFIG_MEMORY_FAILURE)"
	pool_set 4
	read -r node pfn < <(head -n 1 /sys/kernel/debug/thpcow/pool_pfns)
	echo "poisoning page 1 of the THP at pfn $pfn, node $node"
	# memory_failure() cannot handle a page on no LRU list: it marks it
	# and says so (EBUSY or EIO here)
	printf '%#x\n' $(((pfn + 1) * 4096)) >"$hop" 2>/dev/null || true
	before=$(cat /sys/kernel/debug/thpcow/stats)
	# the node's two pooled THPs, and more
	numactl --cpunodebind="$node" --membind="$node" "$ctl" exec zero -- \
		"$wrf" --size 8 --verify >"$out/poisoned"
	rose_by <(echo "$before") /sys/kernel/debug/thpcow/stats '^(substituted|pool_.*)$' | tee "$out/rose"
	check_eq "$(val poisoned verify)" ok "data"
	check_eq "$(rose substituted)" 4 "substituted"
	check_eq "$(rose pool_poisoned)" 1 "pool_poisoned"
	check_eq "$(pool_of poisoned)" 1 "poisoned THPs kept"
	# the node's other pooled THP, and those the refill added meanwhile
	(($(rose pool_hit) >= 1)) || { echo "no pooled THP taken"; return 1; }
	check_eq $(($(rose pool_hit) + $(rose pool_miss))) 4 "pool hits + misses"
	! grep -q " $pfn\$" /sys/kernel/debug/thpcow/pool_pfns || { echo "$pfn pooled again"; return 1; }
	pool_off
}

thp_defaults
[[ -e $param ]] || { echo "Bail out! no $param"; exit 2; }
if ((native)); then
	echo "1..1"
	msg=$({ echo 64 >"$param"; } 2>&1) && { echo "not ok 1 native"; exit 1; }
	check_match "$msg" "not supported" "pool_mib on a kernel that substitutes itself" &&
		echo "ok 1 native # pool_mib refused: $msg" || echo "not ok 1 native"
	exit 0
fi
cases=(hits bad_input memcg_full numa pressure cpu_hotplug unload_full poisoned)
tap_run "${cases[@]}"
guest_done $?
