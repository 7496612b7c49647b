#!/usr/bin/env bash
# make bench, workload 4: khugepaged as the alternative (bench/khugepaged.py
# says how). Prints JSON lines.
set -euo pipefail
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "$0")/lib.sh"
exec python3 "$repo/bench/khugepaged.py" --size "${THPCOW_BENCH_MIB:-1024}" \
	--secs "${THPCOW_BENCH_KHP_SECS:-60}" --tuned-ms "${THPCOW_BENCH_KHP_MS:-10}" \
	--wrf "$wrf" --ctl "$ctl"
