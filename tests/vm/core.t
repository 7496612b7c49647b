#!/usr/bin/env bash
# tests/vm/core.t: the module core's tests (tests/guest/core.sh) in one guest
# booting Debian's 6.1 kernel with thpcow loaded. The TAP comes from the
# guest; a kernel oops, warning or lockup fails the run through vm/run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
exec vm/run --kernel 6.1 --timeout 900 -- tests/guest/core.sh
