#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# thpcow's load failing half-way, inside a guest (see tests/vm/loadfail.t):
# holdhook.ko ($THPCOW_HOLDHOOK) holds an IPMODIFY ftrace hook on
# do_huge_pmd_wp_page, as a livepatch would, so thpcow cannot install its
# own. The load must fail with a message that says so and leave nothing
# behind, and no way into the module (/dev/thpcow) may exist at any moment
# of it: a file opened there would outlive the module when its init fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$repo/tests/lib/guest.sh"

holdhook=${THPCOW_HOLDHOOK:?the holdhook.ko to load}
devwatch=$repo/tests/prog/devwatch
tries=20
watch=0 # devwatch's pid

# Whatever thpcow left behind: module, device, debugfs, sysfs.
leftovers() {
	local p
	for p in /sys/module/thpcow /dev/thpcow /sys/kernel/debug/thpcow /sys/class/misc/thpcow; do
		[[ ! -e $p ]] || echo "$p"
	done
}

# Loading thpcow fails while another IPMODIFY hook holds the function: a
# clear message, the error, nothing left; /dev/thpcow never appears.
load_fails_cleanly() {
	local i msgs
	trap 'kill "$watch" 2>/dev/null || true; rmmod holdhook 2>/dev/null || true' EXIT
	[[ ! -d /sys/module/thpcow ]] || rmmod thpcow
	insmod "$holdhook"
	: >"$out/watch"
	"$devwatch" /dev thpcow >"$out/watch" &
	watch=$!
	for ((i = 0; i < 100; i++)); do
		[[ $(<"$out/watch") == ready ]] && break
		sleep 0.1
	done
	check_eq "$(<"$out/watch")" ready "devwatch"
	dmesg -C
	for ((i = 0; i < tries; i++)); do
		if insmod "$ko" 2>/dev/null; then
			echo "insmod $ko succeeded with the function hooked"
			return 1
		fi
	done
	kill -TERM "$watch"
	wait "$watch"
	check_eq "$(tail -n 1 "$out/watch")" "created 0" "/dev/thpcow appearing during $tries failed loads"
	msgs=$(dmesg | grep -c 'thpcow: cannot hook do_huge_pmd_wp_page (-16); is another IPMODIFY user (livepatch) on it?')
	check_eq "$msgs" "$tries" "the refusal in dmesg"
	check_eq "$(leftovers)" "" "what the failed loads left"
}

# With the other hook gone, thpcow loads and works.
loads_after() {
	[[ ! -d /sys/module/thpcow ]] || rmmod thpcow
	[[ ! -d /sys/module/holdhook ]] || rmmod holdhook
	insmod "$ko"
	check_eq "$("$ctl" set --global zero && stat_of global_mode)" zero "the global mode"
	"$ctl" set --global kernel
}

cases=(
	load_fails_cleanly # IPMODIFY taken: 20 loads fail, say why, leave nothing, no /dev/thpcow
	loads_after        # the other hook gone: thpcow loads and takes a policy
)
tap_run "${cases[@]}"
rc=$?
rm -rf "$out"
exit $rc
