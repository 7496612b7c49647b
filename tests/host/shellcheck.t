#!/usr/bin/env bash
# tests/host/shellcheck.t: the shell scripts of the test bench and the build
# are shellcheck-clean (shellcheck comes with make deps).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"

lint() {
	command -v shellcheck >/dev/null || skip "no shellcheck (apt-get install shellcheck)"
	cd "$repo" || return
	shellcheck -x "$@"
}

vm_bench() { lint tests/vm/run tests/vm/fetch-kernel tests/vm/kbuild tests/vm/init tests/vm/guest; }
test_harness() { lint tests/check tests/lib/tap.sh tests/lib/vm.sh tests/lib/mirror.sh tests/vm/{bench,kernels,compat}.t tests/host/{shellcheck,check}.t; }
build_scripts() { lint scripts/deps .ci/run; }

cases=(
	vm_bench      # tests/vm/run and the guest's stages
	test_harness  # tests/check, the TAP and VM helpers, the test files
	build_scripts # make deps and CI
)
tap_run "${cases[@]}"
