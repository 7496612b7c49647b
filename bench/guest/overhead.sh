#!/usr/bin/env bash
# make bench, workload 3: what thpcow costs processes it does not act on.
# bench/prog/faultbench's tests (4 KiB anonymous faults; write faults on
# write-protected private THPs after fork, reused in place or split and
# copied; fork+exit) in three configurations, interleaved, each round in a
# rotated order:
#   unloaded  the module is not loaded (rmmod)
#   none      loaded, no policy at all (global mode kernel): the hook is
#             not even armed, once thpcow disarmed it
#   other     loaded, with a zero policy for another process
#   many      loaded, with 1000 other processes' zero --children policies
#             (the fork and exit probes look every process up)
# Prints JSON lines (faultbench's keys plus w, kernel, config, rep).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
reps=${THPCOW_BENCH_W3_REPS:-8}
q=${THPCOW_BENCH_QUICK:-0}
tests=(
	"fault4k --size 16 --iters $((q ? 2 : 8))"
	"reuse --size 256 --iters $((q ? 5 : 20))"
	"cow --size 64 --iters $((q ? 2 : 6))"
	"fork --iters $((q ? 20 : 50))"
)
if [[ -n ${THPCOW_BENCH_W3_TESTS:-} ]]; then # e.g. "reuse fork": only these
	sel=()
	for t in "${tests[@]}"; do
		[[ " $THPCOW_BENCH_W3_TESTS " != *" ${t%% *} "* ]] || sel+=("$t")
	done
	tests=("${sel[@]}")
fi
other=''
many=''
policies() { awk '$1 == "policies" { print $2 }' /sys/kernel/debug/thpcow/stats; }
# hook_armed: 1 while thpcow's ftrace hook is registered, 0 once it went
# (10 s after the last policy), empty for a module that always hooks.
hook_armed() { awk '$1 == "hook_armed" { print $2 }' /sys/kernel/debug/thpcow/stats; }

configure() {
	if [[ -n $other ]]; then
		kill "$other" 2>/dev/null || true
		wait "$other" 2>/dev/null || true
		other=''
	fi
	if [[ -n $many ]]; then # the whole session, and wait until it is gone
		kill -- "-$many" 2>/dev/null || true
		wait "$many" 2>/dev/null || true
		while pgrep -s "$many" >/dev/null; do sleep 0.2; done
		many=''
	fi
	if [[ $1 == unloaded ]]; then
		! have_module || rmmod thpcow
		return
	fi
	have_module || insmod "$module_ko"
	"$ctl" set --global kernel >/dev/null
	if [[ $1 == none ]]; then # measure the idle state, not the second before it
		while [[ $(hook_armed) == 1 ]]; do sleep 0.2; done
	elif [[ $1 == other ]]; then
		sleep 100000 &
		other=$!
		"$ctl" set --pid "$other" zero >/dev/null
	elif [[ $1 == many ]]; then
		# a rule on a session leader, inherited by its 999 children
		# shellcheck disable=SC2016 # expanded by that sh
		setsid "$ctl" exec zero --children -- sh -c \
			'for i in $(seq 999); do sleep 100000 & done; exec sleep 100000' &
		many=$!
		while (($(policies) < 1000)); do sleep 0.2; done
	fi
}

[[ -e $module_ko ]] || {
	echo "bench/guest/overhead.sh: no module $module_ko" >&2
	exit 1
}
# warm up: every test once
for t in "${tests[@]}"; do
	# shellcheck disable=SC2086 # t holds the arguments
	"$faultbench" $t >/dev/null
done
for ((r = 1; r <= reps; r++)); do
	for c in $(rotate "$r" unloaded none other many); do
		configure "$c"
		for t in "${tests[@]}"; do
			# shellcheck disable=SC2086
			"$faultbench" $t |
				json_wrap "\"w\":3,\"kernel\":\"$release\",\"config\":\"$c\",\"rep\":$r"
		done
	done
done
configure none
