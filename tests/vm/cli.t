#!/usr/bin/env bash
# tests/vm/cli.t: thpcowctl against the real module (tests/guest/cli.sh) in
# one guest booting Debian's 6.1 kernel with thpcow loaded. The TAP comes
# from the guest; a kernel oops, warning or lockup fails the run through
# vm/run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
exec vm/run --kernel 6.1 --timeout 900 -- tests/guest/cli.sh
