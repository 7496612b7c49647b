#!/usr/bin/env bash
# tests/vm/systemd.t: thpcow installed the way users install it, in a guest
# that boots with systemd as init. A copy of the bookworm root that
# vm/rootfs makes (cached) gets `make install-all` (module for 6.1,
# thpcowctl, thpcow.service enabled), an /etc/thpcow.conf and a modprobe.d
# option; Debian's stock 6.1 boots it as its root over 9p, and
# tests/guest/systemd.sh runs there as a unit after thpcow.service. The TAP
# comes from the guest; a kernel warning, oops or lockup fails the run (the
# guest panics on a WARN, as with vm/run). About a minute once the root
# is cached (making it: about 5 minutes, once).
#
# tests/vm/systemd.t --kernel latest (tests/vm/native.t) boots the same root
# with trixie-backports' 7.x, which gives whole THPs by itself and has no
# thpcow module installed: thpcow.service is skipped by its ExecCondition=
# (inactive, not failed, one line in the journal), and the system is not
# degraded.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$here/../../vm/lib/vm.sh" # repo, vm_scratch (removed on exit)
# shellcheck source=SCRIPTDIR/../../vm/lib/sysguest.sh
source "$here/../../vm/lib/sysguest.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$here/../lib/inguest.sh" # inguest_files
cd "$repo" || exit 1

timeout=300
series=6.1 tcg_threads=multi
if [[ ${1:-} == --kernel ]]; then
	series=$2
	# as vm/run: QEMU 7.2's multi-threaded TCG and 6.12/7.x do not mix
	[[ $series == 6.1 ]] || tcg_threads=single
fi

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

kdir=$(vm/fetch-kernel "$series") || bail "no $series kernel (vm/fetch-kernel $series)"
# the module, thpcowctl and the unit are installed for bookworm's 6.1 only
kdir61=$(vm/fetch-kernel 6.1) || bail "no 6.1 kernel (vm/fetch-kernel 6.1)"
release61=$(cat "$kdir61/release")
base=$(vm/rootfs) || bail "no bookworm root filesystem (vm/rootfs)"
make -s tools module KERNEL_DIR="/usr/src/linux-headers-$release61" >&2 ||
	bail "building thpcowctl or the module for $release61 failed"

# The guest's root: a copy (the guest writes to it), thpcow installed.
root=$vm_scratch/root
cp -a "$base" "$root" || bail "cannot copy $base"
make -s install-all DESTDIR="$root" PREFIX=/usr KERNELRELEASE="$release61" \
	KERNEL_DIR="/usr/src/linux-headers-$release61" >&2 || bail "make install-all failed"
printf '# tests/vm/systemd.t\nglobal kernel\ncgroup /machine.slice zero  # the guests\n' \
	>"$root/etc/thpcow.conf"
echo "options thpcow default_mode=zero" >"$root/etc/modprobe.d/thpcow.conf"
sysguest_test_unit "$root" tests/guest/systemd.sh \
	'/opt/thpcow-test/tests/guest/systemd.sh >tap.new 2>&1; mv tap.new tap' "${inguest_files[@]}" ||
	bail "systemctl --root enable failed"
echo "$series" >"$root/var/lib/thpcow-test/series"
systemctl --quiet --root="$root" enable thpcow.service || bail "systemctl --root enable failed"

rc=0
sysguest_boot "$kdir" "$root" "$timeout" "$tcg_threads" || rc=$?
tap=$root/var/lib/thpcow-test/tap
sysguest_problems "$rc" "$timeout" >&2 || bail "the guest timed out or its kernel reported a problem"
[[ -s $tap ]] || {
	tail -n 40 "$vm_scratch/console.log" >&2
	bail "tests/guest/systemd.sh left no results"
}
cat "$tap"
grep -q '^# Totals: pass:[0-9]* fail:0 ' "$tap"
