#!/usr/bin/env bash
# tests/vm/modes.t: the modes beyond 'zero' (tests/guest/modes.sh) in a guest
# booting Debian's 6.1 kernel with thpcow loaded.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
exec vm/run --kernel 6.1 --timeout 600 -- tests/guest/modes.sh
