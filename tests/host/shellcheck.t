#!/usr/bin/env bash
# shellcheck disable=SC2034 # the lists: lint and every_script_listed read them by name
# tests/host/shellcheck.t: the shell scripts of the harness (vm/), the tests,
# the benchmark and the build are shellcheck-clean (shellcheck comes with make
# deps), and none is left out.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
cd "$repo" || exit 1

# Each case's scripts, by area (paths in the repository).
vm_harness=(vm/run vm/fetch-kernel vm/kbuild vm/debbuild vm/rootfs vm/init vm/guest vm/selftests-build vm/build-kernel vm/lib/*.sh vm/tests/*.t)
test_harness=(tests/check tests/lib/tap.sh tests/vm/{compat,ibt,direct-calls,selftests}.t tests/host/*.t)
build_scripts=(scripts/deps .ci/run)
bench_scripts=(bench/run bench/demo bench/guest/*.sh bench/inner-initrd bench/inner-init)
install_scripts=(tests/vm/systemd.t tests/guest/systemd.sh tests/vm/packages.t tests/guest/packages.sh tests/lib/debroot.sh tests/lib/localrepo.sh
	tests/vm/ansible.t tests/guest/ansible.sh
	tests/lib/inguest.sh dist/libvirt-hook-qemu dist/libvirt-hook-qemu.d-thpcow dist/dkms-kernel-hook rpm/50-thpcow.install
	tests/lib/deb-kernel-updates.sh tests/lib/dkms-prebuilt.sh
	debian/thpcow-dkms.postinst debian/thpcow-dkms.prerm debian/thpcowctl.postrm debian/thpcowctl.prerm)
stress_scripts=(tests/guest/stress.sh tests/guest/stressng.sh)
guest_scripts=(tests/lib/guest.sh tests/lib/run.sh tests/lib/errno.sh
	tests/guest/{cli,core,faults,hostile,modes,limits,loadfail,pool,selftests,usage}.sh tests/vm/{demo,loadfail,pool-break}.t)
collapse_scripts=(tests/guest/collapse.sh tests/vm/collapse.t)
kvm_scripts=(tests/guest/kvm.sh tests/vm/kvm-break.t)
libvirt_scripts=(tests/vm/libvirt.t tests/guest/libvirt.sh)
areas=(vm_harness test_harness build_scripts bench_scripts install_scripts stress_scripts guest_scripts collapse_scripts
	kvm_scripts libvirt_scripts)

lint() {
	local -n files=$1
	command -v shellcheck >/dev/null || skip "no shellcheck (apt-get install shellcheck)"
	shellcheck -x "${files[@]}"
}

# Every shell script in git (by name, *.sh and *.t, or by its #! line)
# outside module/ and tools/ is in one of the lists above.
every_script_listed() {
	local f listed=" " area missing=()
	for area in "${areas[@]}"; do
		local -n l=$area
		listed+="${l[*]} "
	done
	while read -r f; do
		[[ -f $f && $f != module/* && $f != tools/* ]] || continue
		[[ $f == *.sh || $f == *.t ]] || head -n 1 "$f" | grep -qE '^#!.*\b(ba)?sh\b' || continue
		[[ $listed == *" $f "* ]] || missing+=("$f")
	done < <(git ls-files)
	((${#missing[@]} == 0)) || { echo "not linted: ${missing[*]}"; return 1; }
}

for area in "${areas[@]}"; do eval "$area() { lint $area; }"; done
cases=(
	vm_harness       # vm/: run, its guest's stages, kernels, chroots, roots, selftests, its own tests
	test_harness     # tests/check, the TAP helpers, the host tests, the series' test files
	build_scripts    # make deps and CI
	bench_scripts    # make bench, make demo and their guest scripts
	install_scripts  # make install-all, DKMS, the systemd guest
	stress_scripts   # data integrity under races
	guest_scripts    # the module's guest tests and their helpers
	collapse_scripts # thpcowctl collapse's guest tests
	kvm_scripts      # the KVM guests' tests
	libvirt_scripts  # two libvirt hosts, virsh migrate
	every_script_listed # no shell script outside module/ and tools/ is left out
)
tap_run "${cases[@]}"
