# shellcheck shell=bash
# tests/lib/inguest.sh: helpers of the guest scripts that tests/vm/systemd.t
# and tests/vm/packages.t run in a root of their own (copied there with
# tests/prog/wrf as ../prog/wrf).

# key KEY TEXT: the value of KEY=value in wrf's output TEXT
key() { sed -n "s/^$1=//p" <<<"$2"; }

# wrf_in_machine_slice: wrf's write after read of 16 MiB in machine.slice
# gets a whole THP per 2 MiB, its data intact.
wrf_in_machine_slice() {
	local out wrf
	wrf=$(cd "$(dirname "${BASH_SOURCE[0]}")/../prog" && pwd)/wrf
	# (no D-Bus here, so no --wait or --pipe: a oneshot's start job ends with it)
	systemd-run --quiet --slice=machine.slice --unit=thpcow-wrf -p Type=oneshot \
		-p StandardOutput=file:/run/wrf.out "$wrf" --size 16 --verify
	out=$(</run/wrf.out)
	check_eq "$(key verify "$out")" ok "data"
	check_eq "$(key thp_split_pmd "$out")" 0 "splits in machine.slice"
	check_eq "$(key anon_huge_kb "$out")" 16384 "AnonHugePages kB in machine.slice"
}
