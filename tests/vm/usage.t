#!/usr/bin/env bash
# tests/vm/usage.t: per-cgroup and per-process accounting (thpcowctl usage,
# THPCOW_IOC_USAGE, debugfs usage; tests/guest/usage.sh) in one guest booting
# Debian's 6.1 kernel with thpcow loaded. A kernel oops, warning or lockup
# fails the run through vm/run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
exec vm/run --kernel 6.1 --timeout 900 -- tests/guest/usage.sh
