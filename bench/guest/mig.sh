#!/usr/bin/env bash
# make bench, workload 5: live migration end to end (vm/mig.py says how),
# each case in turn, repetitions interleaved, then the postcopy variant.
# Cases: stock, zero (thpcow), pool (zero with thpcow's pool of pre-zeroed
# THPs covering the guest's RAM; a line saying why it was skipped without
# the pool), prealloc (QEMU prealloc=on), nozero (use_zero_page=0), fresh
# (no migration: the floor). Without the module
# (the upstream-fixed kernel): stock, prealloc and fresh. Then, with the
# module, the postcopy variant that goes on after completion: khugepaged's
# defaults against thpcowctl collapse --await-postcopy, and collapse on a
# guest that touched a tenth of its RAM. Under KVM when the guest has it
# (vm/run --kvm). Prints JSON lines.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
reps=${THPCOW_BENCH_W5_REPS:-3}
ram=${THPCOW_BENCH_MIG_MIB:-1024}
postcopy=${THPCOW_BENCH_POSTCOPY:-1}
# the postcopy variant goes on after completion (6.1 and later: collapse)
after=${THPCOW_BENCH_AFTER:-1}
after_s=${THPCOW_BENCH_AFTER_S:-60}

mig() {
	local case=$1 rep=$2 rc=0 out
	shift 2
	[[ $case != nozero ]] || echo 0 >"$thp/use_zero_page"
	out=$(python3 "$repo/vm/mig.py" --accel "$accel" --ram "$ram" --ctl "$ctl" "$@" "$case") || rc=$?
	[[ $case != nozero ]] || echo 1 >"$thp/use_zero_page"
	((rc == 0)) || {
		echo "bench/guest/mig.sh: $case failed ($rc)" >&2
		return 1
	}
	json_wrap "\"w\":5,\"kernel\":\"$release\",\"rep\":$rep" <<<"$out"
}

cases=(stock prealloc fresh)
have_module && cases=(stock zero pool prealloc nozero fresh)
if [[ -n ${THPCOW_BENCH_MIG_CASES:-} ]]; then
	read -ra cases <<<"$THPCOW_BENCH_MIG_CASES"
fi
for ((r = 1; r <= reps; r++)); do
	for c in $(rotate "$r" "${cases[@]}"); do
		mig "$c" "$r"
	done
done
if ((postcopy)); then
	mig stock 1 --postcopy
	! have_module || mig zero 1 --postcopy
fi
if ((after)) && have_module; then
	mig zero 1 --postcopy --after khugepaged --after-s "$after_s"
	mig zero 1 --postcopy --after collapse --after-s "$after_s"
	mig zero 1 --postcopy --after collapse --after-s "$after_s" --touch 10
fi
