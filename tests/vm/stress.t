#!/usr/bin/env bash
# tests/vm/stress.t: data integrity under races (tests/guest/stress.sh) in
# one guest booting Debian's 6.1 kernel with thpcow loaded, 2 CPUs. The TAP
# comes from the guest; a kernel oops, warning, RCU stall or lockup fails the
# run through vm/run. STRESS_SECONDS (default 40) is the length of each
# of the three stress runs: a soak sets it higher.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
export THPCOW_STRESS_SECONDS=${STRESS_SECONDS:-40}
exec vm/run --kernel 6.1 --cpus 2 --mem 2048 \
	--timeout $((4 * THPCOW_STRESS_SECONDS + 300)) -- tests/guest/stress.sh
