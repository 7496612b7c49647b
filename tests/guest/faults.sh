#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm-all: --kernel 6.1-debug --fault-injection --timeout 5400
# vm-all: --kernel 6.12-debug --fault-injection --timeout 5400
# The module's failure paths, driven by the kernel's fault injection, which
# only the harness's debug kernels have (vm/build-kernel: FAULT_INJECTION,
# FAILSLAB, FAIL_PAGE_ALLOC; stock kernels have none, so this runs in make
# check-all only). vm/run fails the run on any splat, and on any object
# kmemleak finds leaked since the module's load (two scans at the end).
#  - every failure point of every ioctl, each argument shape, and of the
#    module's load (tests/prog/failnth: /proc/thread-self/fail-nth = 1, 2,
#    ... until a call runs with no failure left): ENOMEM and nothing
#    changed, then the same call works;
#  - THP allocations failing under 'zero' and 'copy' (fail_page_alloc,
#    order 9, for the one process: make-it-fail): each 2 MiB substituted or
#    left to the kernel's split, counted, the data intact;
#  - the fork probe's allocation failing (failslab, atomic allocations
#    only) under a --children rule: counted as inherit_failed, and no rule
#    left for the processes once they exited.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

failnth=$guest_repo/tests/prog/failnth
size=64 # MiB: 32 huge pages
regions=$((size / 2))
debugfs=/sys/kernel/debug

[[ -e /proc/self/fail-nth ]] || {
	echo "1..0 # SKIP no fault injection in this kernel (CONFIG_FAULT_INJECTION)"
	exit 0
}

# walk OP [OPTION...]: failnth walks every failure point of OP.
walk() {
	local op=$1 rc=0
	shift
	"$failnth" "$@" --cgroup "$cg/thpcow-test" "$op" >"$out/$op" 2>&1 || rc=$?
	tail -n 1 "$out/$op"
	((rc == 0)) || {
		echo "failnth $op: exit $rc:"
		tail -n 20 "$out/$op"
		return 1
	}
}

# fail-nth counts every allocation the call makes: those that may sleep
# too (failslab and fail_page_alloc leave them alone by default), of every
# order, and nothing else fails meanwhile.
nth_counts_all() {
	failing failslab probability=0 ignore-gfp-wait=N
	failing fail_page_alloc probability=0 ignore-gfp-wait=N ignore-gfp-highmem=N min-order=0
}

ioctl_failure_points() {
	local op rc=0
	nth_counts_all
	cg_make t base
	for op in version stats list usage get-global get-pid get-cgroup set-global set-pid \
		set-pid-children set-cgroup clear-global clear-pid clear-cgroup; do
		walk "$op" || rc=1
	done
	# with no other rule: the call arms the hook (and a failure disarms it)
	for op in set-global set-pid set-cgroup; do
		walk "$op" --unarmed || rc=1
	done
	check_eq "$(stat_of policies)" 0 "rules after the walks"
	cg_clean
	return "$rc"
}

load_failure_points() {
	local rc=0
	nth_counts_all
	rmmod thpcow
	"$failnth" load "$ko" "${THPCOW_VM_MODPARAMS:-}" >"$out/load" 2>&1 || rc=$?
	tail -n 1 "$out/load"
	# shellcheck disable=SC2119 # the run's own parameters, no more
	[[ -d /sys/module/thpcow ]] || insmod_ko
	((rc == 0)) || {
		tail -n 20 "$out/load"
		return 1
	}
	"$ctl" exec zero -- "$wrf" --size 8 --verify >/dev/null
}

# failing NAME KEY=VALUE...: set fault injection NAME's (failslab,
# fail_page_alloc) knobs, for the tasks that ask (task-filter).
failing() {
	local dir=$debugfs/$1 kv
	shift
	for kv in interval=1 times=-1 verbose=0 task-filter=Y "$@"; do
		echo "${kv#*=}" >"$dir/${kv%%=*}"
	done
}

# make_it_fail CMD...: CMD, and what it forks, subject to fault injection.
make_it_fail() { sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh "$@"; }

thp_allocations_fail() {
	local mode before after rc=0 k made fb
	failing fail_page_alloc probability=50 min-order=9 ignore-gfp-wait=N ignore-gfp-highmem=N
	for mode in zero copy; do
		before=$(cat "$debugfs/thpcow/stats")
		if [[ $mode == zero ]]; then
			make_it_fail "$ctl" exec zero -- "$wrf" --size "$size" --verify >"$out/$mode" || rc=1
		else
			make_it_fail "$ctl" exec copy --children -- "$wrf" --size "$size" --no-read \
				--stride $((2 << 20)) --fork-child-write --verify >"$out/$mode" || rc=1
		fi
		after=$(cat "$debugfs/thpcow/stats")
		rose_by <(echo "$before") <(echo "$after") '^(substituted|copied|fallback_alloc)$' >"$out/$mode.delta"
		echo "$mode: $(tr '\n' ' ' <"$out/$mode.delta")"
		for k in verify child_verify; do
			[[ -z $(val "$mode" "$k") ]] || check_eq "$(val "$mode" "$k")" ok "$mode: $k"
		done
		made=$(val "$mode.delta" "$([[ $mode == zero ]] && echo substituted || echo copied)")
		fb=$(val "$mode.delta" fallback_alloc)
		if [[ $mode == zero ]]; then
			check_eq $((made + fb)) "$regions" "$mode: THPs made and allocations that failed"
		else
			# the parent's own first writes may get no THP either: a
			# copy for each THP it had at the fork, at most
			((made + fb > 0 && made + fb <= regions)) || {
				echo "$mode: $made copied, $fb failed, of $regions"
				rc=1
			}
		fi
		((fb > 0)) || {
			echo "$mode: no THP allocation failed"
			rc=1
		}
	done
	echo 0 >"$debugfs/fail_page_alloc/probability"
	return "$rc"
}

fork_probe_fails() {
	local i before
	failing failslab probability=50 ignore-gfp-wait=Y
	before=$(stat_of inherit_failed)
	for ((i = 0; i < 20; i++)); do
		make_it_fail "$ctl" exec zero --children -- "$forkexec" --depth 2 -- true >/dev/null 2>&1 || true
	done
	echo 0 >"$debugfs/failslab/probability"
	echo "inherit_failed rose by $(($(stat_of inherit_failed) - before))"
	(($(stat_of inherit_failed) > before)) || {
		echo "no fork's rule allocation failed"
		return 1
	}
	check_eq "$(stat_of policies)" 0 "rules after the processes exited"
}

cases=(
	ioctl_failure_points # every ioctl, each allocation failing once: ENOMEM, nothing changed
	load_failure_points  # the load, each allocation failing once: nothing left behind
	thp_allocations_fail # 'zero' and 'copy' without a THP: the kernel's split, counted
	fork_probe_fails     # --children's rule for a new process not allocated: counted
)
tap_run "${cases[@]}"
guest_done $?
