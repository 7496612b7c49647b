#!/usr/bin/env bash
# make bench, workload 6: mode copy after fork. bench/prog/faultbench
# forkwrite: a parent first-touches a region of THPs and forks; the child
# writes one byte per 4 KiB (everything) or per 2 MiB (sparse) into the THPs
# it shares with the parent. Cases: stock (mode kernel: split, copy 4 KiB)
# and copy (thpcowctl exec copy --children: copy the 2 MiB whole), rounds
# interleaved in a rotated order. Prints JSON lines (faultbench's keys plus
# w, kernel, case, rep).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
reps=${THPCOW_BENCH_W6_REPS:-3}
size=${THPCOW_BENCH_W6_MIB:-256}
iters=${THPCOW_BENCH_W6_ITERS:-2}

have_module || {
	echo "bench/guest/copy.sh: mode copy needs the module" >&2
	exit 1
}
fb=("$faultbench" forkwrite --size "$size" --iters "$iters")
"${fb[@]}" >/dev/null # warm up
for ((r = 1; r <= reps; r++)); do
	for c in $(rotate "$r" stock copy); do
		pre=()
		[[ $c == stock ]] || pre=("$ctl" exec copy --children --)
		for stride in 4096 $((2 << 20)); do
			"${pre[@]}" "${fb[@]}" --stride "$stride" |
				json_wrap "\"w\":6,\"kernel\":\"$release\",\"case\":\"$c\",\"rep\":$r"
		done
	done
done
