#!/usr/bin/env bash
# tests/vm/hostile.t: hostile input and privilege (tests/guest/hostile.sh) in
# one guest booting Debian's 6.1 kernel with thpcow loaded: /dev/thpcow as
# nobody, 100000 random ioctls (tests/prog/ioctl_fuzz), garbage written to
# default_mode and to debugfs. A kernel oops, warning or lockup fails the run
# through vm/run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
make -s -C tests/prog >&2
exec vm/run --kernel 6.1 --timeout 900 -- tests/guest/hostile.sh
