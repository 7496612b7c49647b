#!/usr/bin/env bash
# make bench, workloads 1 and 2, in a guest (bench/run boots it):
#   bench/guest/wrf.sh w1: write after read (the seed's mechanism): MiB read one
#     byte per 2 MiB, then written one byte per 4 KiB, for each case:
#     stock (mode kernel), zero (thpcow), pool (zero with thpcow's pool of
#     pre-zeroed THPs covering the region: lib.sh's wrf_case), first-touch
#     (no read: the floor), nozero (use_zero_page=0). Only stock,
#     first-touch and nozero without the module (the upstream-fixed kernel).
#   bench/guest/wrf.sh w2: the same with 1, 2 and 4 writer threads, each on its
#     own slice of W2_MIB: stock, zero, first-touch.
# Repetitions are interleaved, each round in a rotated order. Prints JSON
# lines (prog/wrf's keys, plus w, kernel, case, rep, proc_ns: the
# whole process, read phase included).
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
what=${1:?w1 or w2}
size=${THPCOW_BENCH_MIB:-1024}

# The first pass over guest memory also faults in QEMU's own: warm up on
# more than any case uses.
warm=$((size * ${THPCOW_BENCH_WARM_X:-2}))
"$wrf" --size "$warm" --no-read >/dev/null
"$wrf" --size "$size" >/dev/null

case $what in
w1)
	reps=${THPCOW_BENCH_W1_REPS:-5}
	cases=(stock first-touch nozero)
	have_module && cases=(stock zero pool first-touch nozero)
	for ((r = 1; r <= reps; r++)); do
		for c in $(rotate "$r" "${cases[@]}"); do
			wrf_case 1 "$c" "$r" "" --size "$size"
		done
	done
	;;
w2)
	reps=${THPCOW_BENCH_W2_REPS:-3}
	size=${THPCOW_BENCH_W2_MIB:-128} # per thread
	# With more than one writer, the stock path's every 4 KiB write fault
	# replaces a zero-page PTE and so shoots down the other CPUs' TLBs: with
	# vCPUs sharing 2 host cores that takes milliseconds each. A smaller
	# slice for stock bounds the run time; throughputs are per MiB.
	stock_size=${THPCOW_BENCH_W2_STOCK_MIB:-8}
	cases=(stock first-touch)
	have_module && cases=(stock zero first-touch)
	for ((r = 1; r <= reps; r++)); do
		for n in 1 2 4; do
			for c in $(rotate "$r" "${cases[@]}"); do
				s=$size
				[[ $c != stock ]] || ((n == 1)) || s=$stock_size
				wrf_case 2 "$c" "$r" "\"threads\":$n" --size $((s * n)) --threads "$n"
			done
		done
	done
	;;
*)
	echo "bench/guest/wrf.sh: w1 or w2" >&2
	exit 2
	;;
esac
