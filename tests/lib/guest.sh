# shellcheck shell=bash
# tests/lib/guest.sh: what the guest-side test scripts (tests/guest/*.sh,
# run in a guest by vm/run with thpcow loaded) share. Sourced after
# tests/lib/tap.sh; sets up $out, a scratch directory the script removes.
#
#   $ctl $wrf $forkexec   thpcowctl ($THPCOW_CTL if set) and the workload
#                         programs
#   $ko                   the thpcow.ko vm/run loaded ($THPCOW_KO if set;
#                         for reloading)
#   $cg                   the cgroup v2 root; cg_make/cg_clean manage a
#                         scratch tree below it, thpcow-test/
#   $native               1 where the kernel substitutes the huge zero page
#                         itself (thpcow's debugfs native_zero), else 0
#   wrf_as NAME CMD...    run CMD (ending in a wrf invocation), keep its
#                         key=value output as NAME; val NAME KEY reads it
#   stat_of KEY           a line of thpcow's debugfs stats
#   rose_by BEFORE AFTER RE  KEY=N a line for each key matching RE of two
#                         "KEY VALUE" files (/proc/vmstat, debugfs stats):
#                         what it rose by from BEFORE to AFTER
#   fallbacks alloc|charge  THP faults that found no THP, or no room in the
#                         memcg: thpcow's count, or where the kernel
#                         substitutes itself, the kernel's (vmstat)
#   in_cgroup DIR CMD...  run CMD as a member of cgroup DIR
#   cgroup_exec DIR CMD...  become CMD, a member of cgroup DIR (started in
#                         the background, $! is CMD's pid)
#   settled KEY FILE      KEY of /proc/meminfo or /proc/vmstat after
#                         dropping caches
#   free_kb               free memory in kB, per-CPU lists included
#   kernel_since MAJOR MINOR  the guest's kernel is MAJOR.MINOR or later
#   thp_defaults          THP on, as the kernel boots with 512 MiB or more
# It also keeps khugepaged from collapsing the workloads' memory.

# shellcheck disable=SC2034 # for the scripts that source this
guest_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
{
	ctl=${THPCOW_CTL:-$guest_repo/tools/thpcowctl/thpcowctl}
	wrf=$guest_repo/prog/wrf
	forkexec=$guest_repo/tests/prog/forkexec
	ko=${THPCOW_KO:-${THPCOW_VM_MODULE:-$guest_repo/module/thpcow.ko}}
	cg=/sys/fs/cgroup
	out=$(mktemp -d)
}

wrf_as() {
	local name=$1
	shift
	"$@" >"$out/$name" || {
		echo "$* failed:"
		cat "$out/$name"
		return 1
	}
}

val() { sed -n "s/^$2=//p" "$out/$1"; }

# kernel_since MAJOR MINOR: the guest's kernel is Linux MAJOR.MINOR or later,
# by what its mm/ has: RHEL 9.6's 5.14 has the fault path of 6.6
# (module/compat/features.h: what it backported).
kernel_since() {
	local r
	r=$(uname -r)
	[[ $r != 5.14.0-*.el9[._]6* ]] || r=6.6
	[[ $r =~ ^([0-9]+)\.([0-9]+) ]] &&
		((BASH_REMATCH[1] * 100 + BASH_REMATCH[2] >= $1 * 100 + $2))
}

# debug_kernel: this guest boots one of the harness's debug kernels
# (vm/build-kernel: KASAN, kmemleak, lockdep; many times slower under TCG).
debug_kernel() { [[ $(uname -r) == *-debug ]]; }

stat_of() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/thpcow/stats; }

rose_by() {
	awk -v re="$3" 'NR == FNR { b[$1] = $2; next } $1 ~ re { print $1 "=" $2 - b[$1] }' "$1" "$2"
}
native=$(stat_of native_zero)

fallbacks() {
	local vmstat=thp_fault_fallback
	[[ $1 == alloc ]] || vmstat+=_$1
	if ((native)); then
		awk -v k="$vmstat" '$1 == k { print $2 }' /proc/vmstat
	else
		stat_of "fallback_$1"
	fi
}

cgroup_exec() {
	local dir=$1
	shift
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}
in_cgroup() { (cgroup_exec "$@"); }

# cg_make DIR...: directories below $cg/thpcow-test; cg_clean removes the
# tree again, deepest first.
cg_make() { mkdir -p "${@/#/$cg/thpcow-test/}"; }
cg_clean() {
	[[ -d $cg/thpcow-test ]] || return 0
	find "$cg/thpcow-test" -depth -type d -exec rmdir {} +
}

settled() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk -v k="$1" '$1 == k { print $2 }' "$2"
}

# 6.12 keeps whole THPs in the per-CPU lists: tens of MiB in MemFree's noise.
# pcp_kb: what those lists hold; free_kb: MemFree with them, caches dropped
# first (which empties thpcow's pool too).
pcp_kb() { awk '$1 == "count:" { n += $2 } END { print n * 4 }' /proc/zoneinfo; }
free_kb() { echo $(($(settled MemFree: /proc/meminfo) + $(pcp_kb))); }

# khugepaged would collapse the stock runs' split memory back into THPs
# while they run (within seconds when TCG makes a run slow), and the cases
# count THPs: let it sleep for an hour (writing the setting wakes it to
# read it).
echo 3600000 >/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs

# thp_defaults: THP as a kernel with 512 MiB of RAM or more boots with it
# (enabled always, Debian's default; defrag madvise; the huge zero page), where
# hugepage_init() turned it all off because the machine has less: 6.1-debug
# in a 1 GiB guest (limits.sh), its KASAN shadow and debug pools taken off.
# Says so on stderr (before the TAP stream) when it changes anything.
thp_defaults() {
	local t=/sys/kernel/mm/transparent_hugepage ram
	[[ $(<"$t/enabled") == *"[always]"* && $(<"$t/use_zero_page") == 1 ]] && return
	ram=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
	echo "${0##*/}: THP was off at boot ($ram kB of RAM, under 512 MiB): set to always, defrag madvise, the huge zero page on" >&2
	echo always >"$t/enabled"
	echo madvise >"$t/defrag"
	echo 1 >"$t/khugepaged/defrag"
	echo 1 >"$t/use_zero_page"
}

# insmod_ko [PARAM...]: load the run's module again, with the run's own
# parameters (vm/run --modparams, e.g. assume_ibt=1) and PARAMs after them.
insmod_ko() {
	# shellcheck disable=SC2086 # the parameters, one a word
	insmod "$ko" ${THPCOW_VM_MODPARAMS:-} "$@"
}

# guest_done RC: clean up, exit with RC (the status of tap_run).
guest_done() {
	cg_clean
	rm -rf "$out"
	exit "$1"
}
