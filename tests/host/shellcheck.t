#!/usr/bin/env bash
# tests/host/shellcheck.t: the shell scripts of the harness (vm/), the tests,
# the benchmark and the build are shellcheck-clean (shellcheck comes with make deps).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"

lint() {
	command -v shellcheck >/dev/null || skip "no shellcheck (apt-get install shellcheck)"
	cd "$repo" || return
	shellcheck -x "$@"
}

vm_harness() { lint vm/run vm/fetch-kernel vm/kbuild vm/rootfs vm/init vm/guest vm/selftests-build vm/lib/*.sh vm/tests/*.t; }
test_harness() { lint tests/check tests/lib/tap.sh tests/vm/{compat,ibt,direct-calls,selftests}.t tests/host/{shellcheck,check,kstyle,trace-build}.t; }
build_scripts() { lint scripts/deps .ci/run; }
bench_scripts() { lint bench/run bench/demo bench/guest/*.sh tests/host/make-bench.t; }
install_scripts() { lint tests/vm/systemd.t tests/vm/native.t tests/guest/systemd.sh tests/vm/packages.t tests/guest/packages.sh tests/lib/inguest.sh tests/host/install.t tests/host/deb.t tests/host/unit.t dist/libvirt-hook-qemu; }
stress_scripts() { lint tests/vm/stress.t tests/guest/stress.sh; }
guest_scripts() { lint tests/lib/guest.sh tests/lib/run.sh tests/guest/{core,modes,limits,loadfail,usage}.sh tests/vm/{core,modes,limits,demo,loadfail,usage}.t; }
collapse_scripts() { lint tests/guest/collapse.sh tests/vm/collapse.t; }

cases=(
	vm_harness    # vm/: run, its guest's stages, kernels, chroots, roots, selftests, its own tests
	test_harness  # tests/check, the TAP and VM helpers, the test files
	build_scripts # make deps and CI
	bench_scripts # make bench, make demo and their guest scripts
	install_scripts # make install-all, DKMS, the systemd guest
	stress_scripts # data integrity under races
	guest_scripts # the module's guest tests and their helpers
	collapse_scripts # thpcowctl collapse's guest tests
)
tap_run "${cases[@]}"
