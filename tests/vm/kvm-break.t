#!/usr/bin/env bash
# tests/vm/kvm-break.t: tests/guest/kvm.sh's first checks catch a module
# that leaves out the secondary-MMU invalidation (module/subst.c, built with
# THPCOW_BREAK=NO_MMU_NOTIFY, here for 6.1): the KVM guest that read its
# RAM keeps reading the huge zero page after the VMM wrote it, in zero and
# in copy after a fork; then KVM's own check ("different PFN") stops the
# guest kernel, so each runs in a guest of its own. make check-all only:
# the build and two boots cost about 2 minutes.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$here/../../vm/lib/vm.sh"

# The broken module for 6.1, built from a copy of module/ and include/.
build_broken() {
	local release dir
	release=$(cat "$("$repo/vm/fetch-kernel" 6.1)/release")
	[[ -d /usr/src/linux-headers-$release ]] || skip "no linux-headers-$release (make deps installs it)"
	dir=$vm_cache/kvm-break/$release
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$repo/module" "$repo/include" "$dir/"
	find "$dir/module" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \) -delete
	make -s -C "/usr/src/linux-headers-$release" M="$dir/module" THPCOW_BREAK=NO_MMU_NOTIFY \
		modules >&2 || return 1
	broken=$dir/module/thpcow.ko
}

# caught MODE SCENARIO: kvmvm reports every page stale, and the run fails.
caught() {
	build_broken
	vm_run --kernel 6.1 --kvm --module "$broken" --timeout 300 -- \
		"$repo/tools/thpcowctl/thpcowctl" exec "$1" -- "$repo/tests/prog/kvmvm" --mib 32 "$2"
	echo "$vm_stdout"
	grep -qx 'guest_sees_dma_mismatches=7680' <<<"$vm_stdout" ||
		{ echo "not every page stale (15 ranges of 512): $(grep guest_sees_dma <<<"$vm_stdout")"; return 1; }
	[[ $vm_rc != 0 ]] || { echo "the run passed"; return 1; }
}

zero_caught() { caught zero dma; }
copy_caught() { caught copy fork-dma; }

cases=()
long_cases=(
	zero_caught # zero: the guest reads the huge zero page after the VMM wrote through /proc/PID/mem
	copy_caught # copy after a fork: the guest reads the old shared THP after the VMM wrote
)
tap_run ${cases[@]+"${cases[@]}"} --long "${long_cases[@]}"
