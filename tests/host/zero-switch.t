#!/usr/bin/env bash
# tests/host/zero-switch.t: where a kernel has its own switch for a write
# fault on the huge zero page (openEuler's 6.6:
# /sys/kernel/mm/transparent_hugepage/zero_page_full_cow), `thpcowctl probe`
# and `status` show it and say which path the fault takes; where it has
# none (every kernel here), they show nothing of it. No such kernel boots
# here: in a mount namespace of its own, a tmpfs over the THP sysfs
# directory holds copies of its files and the switch, on or off (the
# kernel itself is not touched). Needs root (unshare, mount).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
ctl=$repo/tools/thpcowctl/thpcowctl
thp=/sys/kernel/mm/transparent_hugepage

make -s -C "$repo/tools/thpcowctl" thpcowctl >&2 || {
	echo "Bail out! thpcowctl does not build"
	exit 1
}

# with_switch VALUE CMD...: CMD with zero_page_full_cow reading VALUE
# (none: no such file), the other THP files as the kernel has them.
with_switch() {
	local value=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare -m bash -c '
		set -e
		copy=$(mktemp -d)
		cp "$1"/enabled "$1"/defrag "$1"/use_zero_page "$copy"/
		mount -t tmpfs none "$1"
		cp "$copy"/* "$1"/
		[[ $2 == none ]] || echo "$2" >"$1"/zero_page_full_cow
		shift 2
		exec "$@"' with_switch "$thp" "$value" "$@"
}

# needs_root: skips the case without root or the THP sysfs directory (each
# case, so that tests/check counts them as skipped: a plan of 1..0 counts
# as nothing).
needs_root() { [[ -d $thp && $EUID == 0 ]] || skip "needs root and $thp"; }

# field OUTPUT LABEL: the value of LABEL in thpcowctl's "label: value" text.
field() { sed -n "s/^$2: *//p" <<<"$1"; }

no_switch() {
	local out
	needs_root
	out=$(with_switch none "$ctl" probe)
	check_eq "$(field "$out" "kernel switch")" - "probe: kernel switch"
	check_eq "$(field "$out" "zero-page path")" - "probe: zero-page path"
}

switch_off() {
	local out
	needs_root
	out=$(with_switch 0 "$ctl" probe)
	check_eq "$(field "$out" "kernel switch")" off "probe: kernel switch"
	check_eq "$(field "$out" "zero-page path")" \
		"the kernel's split (its zero_page_full_cow is off: writing 1 there gives whole THPs without thpcow)" \
		"probe: zero-page path"
	local rc=0
	out=$(with_switch 0 "$ctl" status) || rc=$?
	check_eq "$rc" 3 "status's exit status (no module loaded)"
	check_eq "$(field "$out" "kernel switch")" off "status: kernel switch"
	check_match "$(field "$out" "zero-page path")" "^the kernel's split" "status: zero-page path"
}

# On, the probe's own try finds whole THPs only where the kernel gives
# them; the switch and the path are said whatever the try found.
switch_on() {
	local out
	needs_root
	out=$(with_switch 1 "$ctl" probe)
	check_eq "$(field "$out" "kernel switch")" on "probe: kernel switch"
	check_eq "$(field "$out" "zero-page path")" \
		"the kernel's own whole THP (its zero_page_full_cow is on)" "probe: zero-page path"
	if [[ $(field "$out" "without thpcow") == "whole THP" ]]; then
		check_eq "$(field "$out" thpcow)" \
			"this kernel gives whole THPs by itself (its zero_page_full_cow switch is on): thpcow is needed only for copy or split" \
			"probe: advice"
	fi
	out=$(with_switch 1 "$ctl" -J probe)
	check_match "$out" '"zero_page_full_cow": *"on"' "probe -J: zero_page_full_cow"
}

cases=(
	no_switch  # no switch (Debian's, Ubuntu's kernels): nothing said of it
	switch_off # off: the kernel splits, and how to turn its own path on
	switch_on  # on: the kernel's own whole THP, also in -J
)
tap_run "${cases[@]}"
