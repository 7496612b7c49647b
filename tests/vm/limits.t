#!/usr/bin/env bash
# tests/vm/limits.t: thpcow at the limits (tests/guest/limits.sh: a full
# memcg, no free 2 MiB block, 50 reloads under load) in one guest booting
# Debian's 6.1 kernel. The TAP comes from the guest; a kernel oops, warning
# or lockup fails the run through vm/run. One TCG thread: see
# --tcg-threads in vm/run (QEMU runs stale int3s when unloading).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
exec vm/run --kernel 6.1 --mem 1024 --tcg-threads single --timeout 1800 -- tests/guest/limits.sh
