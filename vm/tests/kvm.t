#!/usr/bin/env bash
# shellcheck disable=SC2016 # $ in single quotes is for the guest's shell
# vm/tests/kvm.t: vm/run --kvm loads KVM (kvm, kvm-amd and their
# dependencies, from the series' own kernel package) in the guest, which
# then has /dev/kvm, and an inner QEMU runs with -accel kvm; a run whose
# KVM cannot load fails with 123. Without the thpcow module.
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$vm/lib/vm.sh"

# What the guest reports: the CPU's svm and npt flags, KVM's modules as
# loaded, /dev/kvm, and an inner QEMU's answer to query-kvm.
report='grep -qw svm /proc/cpuinfo && echo svm; grep -qw npt /proc/cpuinfo && echo npt
for m in irqbypass kvm ccp kvm_amd; do [ -d /sys/module/$m ] && echo "module $m"; done
[ -c /dev/kvm ] && echo /dev/kvm
printf "%s\n" "{\"execute\":\"qmp_capabilities\"}" "{\"execute\":\"query-kvm\"}" "{\"execute\":\"quit\"}" |
	timeout 120 qemu-system-x86_64 -nodefaults -no-user-config -display none -M pc -accel kvm \
		-m 16 -S -qmp stdio | grep -o "\"enabled\": *[a-z]*"'

# kvm_loads SERIES: the guest of SERIES has KVM loaded and working.
kvm_loads() {
	vm_run --kernel "$1" --no-module --kvm --timeout 400 -- sh -c "$report"
	vm_expect_rc 0
	check_eq "$vm_stdout" "svm
npt
module irqbypass
module kvm
module ccp
module kvm_amd
/dev/kvm
\"enabled\": true" "what the guest reports"
}

kvm_6_1() { kvm_loads 6.1; }
kvm_6_12() { kvm_loads 6.12; }
kvm_5_10() { kvm_loads 5.10; }
kvm_latest() { kvm_loads latest; }

# The kernel refuses a module named in module_blacklist=: the harness says
# which one and does not run COMMAND.
kvm_cannot_load() {
	vm_run --no-module --kvm --append module_blacklist=kvm_amd -- echo ran
	vm_expect_rc 123
	check_eq "$vm_stdout" "" "COMMAND's output"
	check_match "$vm_stderr" '--kvm: insmod [^ ]*/kvm-amd\.ko failed' "the message"
}

cases=(
	kvm_6_1          # 6.1 (modules uncompressed in the package): KVM loads, inner QEMU -accel kvm runs
	kvm_6_12         # 6.12 (.ko.xz): the same
	kvm_cannot_load  # kvm-amd refused: exit 123, COMMAND not run, the module named
)
long_cases=(
	kvm_5_10         # 5.10 (kvm-amd needs rng-core too): the same
	kvm_latest       # 7.x (split linux-modules package): the same
)
tap_run "${cases[@]}" --long "${long_cases[@]}"
