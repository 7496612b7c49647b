# shellcheck shell=bash
# tests/lib/inguest.sh: helpers of the guest scripts that tests/vm/systemd.t,
# tests/vm/packages.t and tests/vm/ansible.t run in a root of their own. They copy them there
# with the files inguest_files lists (sysguest_test_unit in vm/lib/sysguest.sh),
# at the same paths as in the repository.

# shellcheck disable=SC2034 # for the host scripts that source this
inguest_files=(tests/lib/tap.sh tests/lib/inguest.sh prog/wrf tests/prog/thpmix)

# key KEY TEXT: the value of KEY=value in wrf's output TEXT
key() { sed -n "s/^$1=//p" <<<"$2"; }

# wrf_in_machine_slice: wrf's write after read of 16 MiB in machine.slice
# gets a whole THP per 2 MiB, its data intact.
wrf_in_machine_slice() {
	local out wrf
	wrf=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/prog/wrf
	# (no D-Bus here, so no --wait or --pipe: a oneshot's start job ends with it)
	systemd-run --quiet --slice=machine.slice --unit=thpcow-wrf -p Type=oneshot \
		-p StandardOutput=file:/run/wrf.out "$wrf" --size 16 --verify
	out=$(</run/wrf.out)
	check_eq "$(key verify "$out")" ok "data"
	check_eq "$(key thp_split_pmd "$out")" 0 "splits in machine.slice"
	check_eq "$(key anon_huge_kb "$out")" 16384 "AnonHugePages kB in machine.slice"
}

# unit_until UNIT PROPERTY VALUE [SECONDS]: wait until systemctl shows
# UNIT's PROPERTY as VALUE, or, with VALUE "!V", as anything but V; at most
# SECONDS (5). It always returns 0: the check that follows says what it was.
unit_until() {
	local i now
	for ((i = 0; i < ${4:-5} * 10; i++)); do
		now=$(systemctl show -P "$2" "$1")
		if [[ $3 == !* ]]; then
			[[ $now != "${3#!}" ]] && return 0
		else
			[[ $now == "$3" ]] && return 0
		fi
		sleep 0.1
	done
	return 0
}

# cgroup_rules: the cgroup rules thpcowctl list shows, "PATH MODE" a line
cgroup_rules() { thpcowctl list | awk '$1 == "cgroup" { print $2, $3 }'; }

# hook_starts_collapse GUEST: the libvirt hook the package installs, called
# as libvirt calls it on "migrate begin" with "collapse-hook on" in the
# configuration, prints nothing and starts thpcow-collapse@GUEST, which
# waits for QEMU's pid file (stopped again here).
hook_starts_collapse() {
	local unit=thpcow-collapse@$1.service
	check_eq "$(/etc/libvirt/hooks/qemu.d/thpcow "$1" migrate begin - </dev/null)" "" "the hook's output"
	unit_until "$unit" ActiveState '!inactive'
	check_eq "$(systemctl show -P ActiveState "$unit")" activating "$unit, waiting for QEMU"
	systemctl stop "$unit"
}

# thpcowctl check, as a monitoring plugin runs it: OK, the module loaded
# with a rule and nothing fallen back.
monitoring() {
	local out rc=0
	out=$(thpcowctl check) || rc=$?
	echo "$out"
	check_eq "$rc" 0 "thpcowctl check's exit status"
	check_match "$out" '^THPCOW OK - ' "thpcowctl check"
}
