#!/usr/bin/env bash
# make bench, workload 7: the seed's memtester in a real Linux guest after a
# live migration (bench/memtester.py says how), under KVM when the guest has
# it (vm/run --kvm), each case in turn, 5 rounds interleaved (each in a
# rotated order). Cases as workload 5's: stock, zero, pool, prealloc,
# nozero, fresh (the floor); without the module (the upstream-fixed
# kernel) stock, prealloc and fresh. A 1 GiB guest, memtester taking a
# quarter of it: clearing is most of the time to take it, and its first
# pass (tens of seconds under KVM in TCG, each round of each case) stays
# short enough for 5 rounds. Prints JSON lines.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
reps=${THPCOW_BENCH_W7_REPS:-5}
ram=${THPCOW_BENCH_W7_MIB:-1024}
size=${THPCOW_BENCH_W7_SIZE:-256M}
# the inner guest bench/run chose on the host (the initramfs's cache is
# read-only here); else memtester.py's defaults
inner=()
[[ -z ${THPCOW_BENCH_INITRD:-} ]] || inner+=(--initrd "$THPCOW_BENCH_INITRD")
[[ -z ${THPCOW_BENCH_INNER_KERNEL:-} ]] || inner+=(--kernel "$THPCOW_BENCH_INNER_KERNEL")

cases=(stock prealloc fresh)
have_module && cases=(stock zero pool prealloc nozero fresh)
if [[ -n ${THPCOW_BENCH_W7_CASES:-} ]]; then
	read -ra cases <<<"$THPCOW_BENCH_W7_CASES"
fi
for ((r = 1; r <= reps; r++)); do
	for c in $(rotate "$r" "${cases[@]}"); do
		[[ $c != nozero ]] || echo 0 >"$thp/use_zero_page"
		rc=0
		out=$(python3 "$repo/bench/memtester.py" --accel "$accel" --ram "$ram" --size "$size" \
			--ctl "$ctl" "${inner[@]}" "$c") || rc=$?
		[[ $c != nozero ]] || echo 1 >"$thp/use_zero_page"
		((rc == 0)) || {
			echo "bench/guest/memtester.sh: $c failed ($rc): $out" >&2
			exit 1
		}
		json_wrap "\"w\":7,\"kernel\":\"$release\",\"rep\":$r" <<<"$out"
	done
done
