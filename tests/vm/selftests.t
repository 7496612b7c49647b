#!/usr/bin/env bash
# tests/vm/selftests.t: the kernel's own mm selftests (6.1's selftests/vm and
# 6.12's cow), each run with thpcow off and on (global mode zero) in one guest
# booting Debian's 6.1 kernel, must pass and fail the same sub-tests
# (tests/guest/selftests.sh). The binaries are built on the host first, into
# the cache (tests/selftests/build; the first time it fetches linux-source-6.1
# and trixie's linux-source-6.12 with apt). The TAP comes from the guest; a
# kernel oops, warning or lockup fails the run through tests/vm/run.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
if ! build_log=$(tests/selftests/build 2>&1); then
	printf 'TAP version 13\n1..1\nnot ok 1 selftests_build\n'
	tail -n 30 <<<"$build_log" | sed 's/^/# /'
	exit 1
fi
exec tests/vm/run --kernel 6.1 --mem 3072 --timeout 1500 -- tests/guest/selftests.sh
