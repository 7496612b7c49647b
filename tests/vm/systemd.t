#!/usr/bin/env bash
# tests/vm/systemd.t: thpcow installed the way users install it, in a guest
# that boots with systemd as init. A copy of the bookworm root that
# vm/rootfs makes (cached) gets `make install-all` (module for 6.1,
# thpcowctl, thpcow.service enabled), an /etc/thpcow.conf and a modprobe.d
# option; Debian's stock 6.1 boots it as its root over 9p, and
# tests/guest/systemd.sh runs there as a unit after thpcow.service. A kernel
# warning, oops or lockup fails the run (the guest panics on a WARN, as with
# vm/run). 4 to 7 minutes once the root is cached, both guests (6.1's
# guest 176 to 252 s, latest's 29 to 79, as the machine is loaded; making
# the root: a minute or a few, once).
#
# Then another copy boots trixie-backports' 7.x, which gives whole THPs by
# itself and has no thpcow module installed: thpcow.service is skipped by
# its ExecCondition= (inactive, not failed, one line in the journal), and the
# system is not degraded.
#
# The two guests' TAP is this file's, numbered on, each case named after its
# series; a guest that leaves no results is one failed case.
# tests/vm/systemd.t --kernel SERIES boots only SERIES (6.1 or latest).
# THPCOW_CHECK, TAP_ONLY and TAP_SKIP (tests/lib/tap.sh) are passed on to
# the guest script: TAP_ONLY='CASE ...' runs only those cases.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$here/../../vm/lib/vm.sh" # repo, vm_scratch (removed on exit)
# shellcheck source=SCRIPTDIR/../../vm/lib/sysguest.sh
source "$here/../../vm/lib/sysguest.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$here/../lib/inguest.sh" # inguest_files
cd "$repo" || exit 1

# 6.1's guest took 252 s on a loaded machine (2 cores, a kernel build
# beside it): 300 s left too little room; at load 10 (make check and two
# other guests beside it), with the broken-file and late-slice cases, 420 s
# ran out in the collapse cases
timeout=600
serieses=(6.1 latest)
[[ ${1:-} != --kernel ]] || serieses=("$2")

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

# the module, thpcowctl and the unit are installed for bookworm's 6.1 only
kdir61=$(vm/fetch-kernel 6.1) || bail "no 6.1 kernel (vm/fetch-kernel 6.1)"
release61=$(cat "$kdir61/release")
base=$(vm/rootfs) || bail "no bookworm root filesystem (vm/rootfs)"
make -s tools module KERNEL_DIR="/usr/src/linux-headers-$release61" >&2 ||
	bail "building thpcowctl or the module for $release61 failed"

# guest_env ROOT: THPCOW_CHECK, TAP_ONLY, TAP_SKIP of this run in
# thpcow-test.service's environment (a drop-in)
guest_env() {
	local v d=$1/etc/systemd/system/thpcow-test.service.d
	mkdir -p "$d"
	{
		echo "[Service]"
		for v in THPCOW_CHECK TAP_ONLY TAP_SKIP; do
			[[ -z ${!v:-} ]] || echo "Environment=\"$v=${!v}\""
		done
	} >"$d/env.conf"
}

# boot SERIES: a copy of the root (the guest writes to it) with thpcow
# installed, booted on SERIES; the guest's TAP into $vm_scratch/tap-SERIES,
# or, returning 1, why not.
boot() {
	local series=$1 threads=multi root=$vm_scratch/root kdir rc=0 tap
	# as vm/run: QEMU 7.2's multi-threaded TCG and 6.12/7.x do not mix
	[[ $series == 6.1 ]] || threads=single
	kdir=$(vm/fetch-kernel "$series") || { echo "no $series kernel (vm/fetch-kernel $series)"; return 1; }
	rm -rf "$root"
	cp -a "$base" "$root" || { echo "cannot copy $base"; return 1; }
	make -s install-all DESTDIR="$root" PREFIX=/usr KERNELRELEASE="$release61" \
		KERNEL_DIR="/usr/src/linux-headers-$release61" >&2 || { echo "make install-all failed"; return 1; }
	printf '# tests/vm/systemd.t\nglobal kernel\ncgroup /machine.slice zero  # the guests\ncollapse-hook on\n' \
		>"$root/etc/thpcow.conf"
	echo "options thpcow default_mode=zero" >"$root/etc/modprobe.d/thpcow.conf"
	if ! sysguest_test_unit "$root" tests/guest/systemd.sh \
		'/opt/thpcow-test/tests/guest/systemd.sh >tap.new 2>&1; mv tap.new tap' "${inguest_files[@]}" ||
		! systemctl --quiet --root="$root" enable thpcow.service; then
		echo "systemctl --root enable failed"
		return 1
	fi
	echo "$series" >"$root/var/lib/thpcow-test/series"
	guest_env "$root"
	sysguest_boot "$kdir" "$root" "$timeout" "$threads" || rc=$?
	tap=$root/var/lib/thpcow-test/tap
	sysguest_problems "$rc" "$timeout" || {
		# the case that did not end: the last one the guest began
		[[ ! -s $tap.new ]] || sed 's/^/  | /' "$tap.new"
		echo "(above: what tests/guest/systemd.sh printed before the guest was stopped)"
		return 1
	}
	[[ -s $tap ]] || {
		tail -n 40 "$vm_scratch/console.log"
		echo "tests/guest/systemd.sh left no results"
		return 1
	}
	cp "$tap" "$vm_scratch/tap-$series"
	rm -rf "$root"
}

# The guests' TAP, numbered on: "ok N SERIES: CASE", diagnostics as they
# are, their own version and plan lines dropped; the plan last.
echo "TAP version 13"
n=0 fail=0 plan=''
for s in "${serieses[@]}"; do
	tap=$vm_scratch/tap-$s
	if boot "$s" >"$vm_scratch/why-$s" 2>&1; then
		sed 's/^/# /' "$vm_scratch/why-$s"
		awk -v s="$s" -v n="$n" '
			/^TAP version/ || /^1\.\./ { next }
			match($0, /^(not )?ok [0-9]+ ?/) {
				word = $1 == "not" ? "not ok" : "ok"
				print word, ++n, s ": " substr($0, RLENGTH + 1); next
			}
			{ print }' "$tap"
		n=$((n + $(grep -cE '^(not )?ok [0-9]+' "$tap")))
		! grep -qE '^not ok [0-9]+' "$tap" || fail=1
		# a guest run cut short: its own plan unmet, or no totals line
		plan=$(sed -n 's/^1\.\.\([0-9]\+\).*/\1/p' "$tap" | head -n 1)
		if [[ $plan != "$(grep -cE '^(not )?ok [0-9]+' "$tap")" ]] ||
			! grep -qE '^# Totals: .*fail:0' "$tap"; then
			n=$((n + 1)) fail=1
			echo "not ok $n $s: tests/guest/systemd.sh planned ${plan:-no} cases and did not end with its totals"
		fi
	else
		n=$((n + 1)) fail=1
		echo "not ok $n $s: the guest ran tests/guest/systemd.sh"
		sed 's/^/# /' "$vm_scratch/why-$s"
	fi
done
echo "1..$n"
((!fail))
