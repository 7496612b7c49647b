#!/usr/bin/env bash
# tests/vm/loadfail.t: thpcow's load failing half-way (tests/guest/loadfail.sh)
# in a Debian 6.1 guest, with tests/modules/holdhook (a test-only module holding an
# IPMODIFY ftrace hook on do_huge_pmd_wp_page, as a livepatch would) built
# for that kernel into the cache, which the guest sees. The TAP comes from
# the guest; a kernel oops or warning fails the run through vm/run.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow
release=$(cat "$(vm/fetch-kernel 6.1)/release")
dir=$cache/holdhook/$release
mkdir -p "$dir"
cp -u tests/modules/holdhook/{holdhook.c,Kbuild} "$dir/"
make -s -C "/usr/src/linux-headers-$release" M="$dir" modules >/dev/null 2>&1 ||
	make -C "/usr/src/linux-headers-$release" M="$dir" modules >&2 ||
	{ echo "1..0 # SKIP cannot build tests/modules/holdhook for $release"; exit 0; }
THPCOW_HOLDHOOK=$dir/holdhook.ko exec vm/run --kernel 6.1 --timeout 600 -- tests/guest/loadfail.sh
