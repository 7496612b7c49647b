#!/usr/bin/env bash
# shellcheck disable=SC2016 # $ in single quotes is for the guest's shell
# vm/tests/run.t: the harness's own tests. Each case is one vm/run
# of Debian's 6.1 kernel, without the thpcow module; a test-only module,
# vm/warnmod, stands in where a module is needed.
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$vm/lib/vm.sh"

# bookworm's current 6.1 ABI, asked of apt here rather than of the harness.
debian_6_1_release() {
	apt-cache show --no-all-versions linux-image-amd64 |
		sed -n 's/^Depends:.*linux-image-\([^ ,]*\).*/\1/p'
}

# warnmod built for the 6.1 guest, in the cache (which the guest sees).
build_warnmod() {
	vm_testmod vm/warnmod 6.1
	warnmod=$vm_ko
}

boots_debian_6_1() {
	local want
	want=$(debian_6_1_release)
	check_match "$want" '^6\.1\.' "apt's linux-image-amd64 ABI"
	vm_run --no-module -- uname -r
	vm_expect_rc 0
	check_eq "$vm_stdout" "$want" "uname -r in the guest"
}

thp_enabled() {
	vm_run --no-module -- sh -c 'cat /sys/kernel/mm/transparent_hugepage/enabled; ls /sys/kernel/mm/hugepages'
	vm_expect_rc 0
	check_match "$vm_stdout" '\[(always|madvise)\]' "THP enabled"
	check_match "$vm_stdout" 'hugepages-1048576kB' "1 GiB hugetlb pages offered (what --cpu-off pdpe1gb takes)"
}

# --cpu-off takes features from the guest's CPU: without pdpe1gb the kernel
# offers no 1 GiB hugetlb pages. A bad list is refused before anything boots.
cpu_off_features() {
	vm_run --no-module --cpu-off pdpe1gb -- sh -c 'grep -cw pdpe1gb /proc/cpuinfo; ls /sys/kernel/mm/hugepages'
	vm_expect_rc 0
	check_eq "$(sed -n 1p <<<"$vm_stdout")" 0 "CPUs with pdpe1gb"
	check_eq "$(sed -n '2,$p' <<<"$vm_stdout")" hugepages-2048kB "hugetlb page sizes"
	vm_run --no-module --cpu-off 'pdpe1gb erms' -- true
	vm_expect_rc 2
	check_match "$vm_stderr" "--cpu-off takes QEMU feature names" "the usage error"
}

# --numa 2: two nodes, a CPU and half of the memory each, no automatic
# NUMA balancing; a count that does not divide the CPUs is a usage error.
numa_nodes() {
	vm_run --no-module --numa 2 -- sh -c 'cat /sys/devices/system/node/node*/cpulist
		cat /proc/sys/kernel/numa_balancing'
	vm_expect_rc 0
	check_eq "$vm_stdout" $'0\n1\n0' "the nodes' CPUs, then numa_balancing"
	vm_run --no-module --numa 3 -- true
	vm_expect_rc 2
	check_match "$vm_stderr" "--numa takes a number of nodes that divides" "the usage error"
}

# Also from a working directory under the host's /tmp, which the guest's
# own /tmp would hide (a CI clone may live there).
host_file_same_path() {
	local f=$vm_scratch/hello dir
	echo "from the host $RANDOM$RANDOM" >"$f"
	dir=$(mktemp -d /tmp/thpcow-vm-test.XXXXXX)
	echo "from the host's /tmp" >"$dir/there"
	cd "$dir" || return
	vm_run --no-module -- sh -c "cat '$f' there"
	rm -rf "$dir"
	vm_expect_rc 0
	check_eq "$vm_stdout" "$(cat "$f")"$'\n'"from the host's /tmp" "the host files read in the guest"
}

exit_status() {
	vm_run --no-module -- sh -c 'exit 7'
	vm_expect_rc 7
}

stdout_and_stderr() {
	vm_run --no-module -- sh -c 'echo to-stdout; echo to-stderr >&2'
	vm_expect_rc 0
	check_eq "$vm_stdout" to-stdout "stdout"
	check_match "$vm_stderr" '(^|'$'\n'')to-stderr($|'$'\n'')' "stderr"
}

env_and_cwd() {
	local out
	cd "$repo/tests" || return
	THPCOW_TEST_VALUE='a b $c' vm_run --no-module -- sh -c \
		'echo "$PWD|$HOME|$TERM|$THPCOW_TEST_VALUE|$(id -u)|${THPCOW_VM_OUT:+set}"'
	vm_expect_rc 0
	out="$repo/tests|/root|dumb|a b \$c|0|set"
	check_eq "$vm_stdout" "$out" "cwd|HOME|TERM|THPCOW_TEST_VALUE|uid|THPCOW_VM_OUT"
}

clean_module_passes() {
	build_warnmod
	vm_run --module "$warnmod" --modparams warn=0 -- grep -q '^warnmod ' /proc/modules
	vm_expect_rc 0 # taints O and E only
}

warn_fails_run() {
	build_warnmod
	vm_run --module "$warnmod" --modparams warn=1 -- true
	vm_expect_rc 125
	check_match "$vm_stderr" 'WARNING: CPU: [^'$'\n'']* warnmod_init' "warnmod's WARN in the excerpt"
}

crash_fails_run() {
	vm_run --no-module -- sh -c 'echo crashing; echo c >/proc/sysrq-trigger'
	vm_expect_rc 125
	check_eq "$vm_stdout" crashing "COMMAND's output before the crash"
	check_match "$vm_stderr" 'sysrq: Trigger a crash' "the crash in the excerpt"
	# Had the case expected another status: vm_expect_rc shows the verdict and
	# the report from its start, and keeps the run directory for a post mortem.
	local shown kept
	shown=$(vm_expect_rc 0) && check_eq "vm_expect_rc 0 passed" "it failed" "vm_expect_rc on exit 125"
	check_match "$shown" $'vm/run: FAIL: the guest kernel reported a problem\n(.*\n)*.*sysrq: Trigger a crash' \
		"the verdict, then the report's first line"
	kept=$(sed -n 's/.*run directory (console.log, share\/dmesg) is kept: //p' <<<"$shown")
	[[ $kept == "$vm_cache"/failed/run.* && -s $kept/console.log ]] ||
		check_eq "${kept:-nothing}" "$vm_cache/failed/run.* with console.log" "the directory kept"
	rm -rf "$kept"
}

taint_fails_run() {
	vm_run --no-module -- sh -c 'echo 32 >/proc/sys/kernel/tainted' # B: bad page
	vm_expect_rc 125
	check_match "$vm_stderr" 'tainted: 32' "the taint in the message"

}

# An RCU stall or a "BUG: sleeping function called from invalid context"
# neither panics nor always taints: the kernel log is searched for them too.
log_problem_fails_run() {
	vm_run --no-module -- sh -c 'echo "BUG: written by run.t" >/dev/kmsg'
	vm_expect_rc 125
	check_match "$vm_stderr" 'BUG: written by run.t' "the line in the excerpt"
}

insmod_failure_fails_run() {
	build_warnmod
	vm_run --module "$warnmod" --modparams warn=maybe -- echo ran
	vm_expect_rc 123
	check_eq "$vm_stdout" "" "COMMAND's output"
}

timeout_kills_guest() {
	vm_run --no-module --timeout 30 -- sleep 1000
	vm_expect_rc 124
	check_match "$vm_stderr" 'timed out after 30 s' "the message"
	((vm_seconds < 60)) || check_eq "$vm_seconds" "< 60" "seconds until the run ended"
}

out_dir_comes_back() {
	local out=$vm_scratch/out
	vm_run --no-module --out "$out" -- sh -c 'mkdir "$THPCOW_VM_OUT/d" && echo result >"$THPCOW_VM_OUT/d/f"'
	vm_expect_rc 0
	check_eq "$(cat "$out/d/f" 2>&1)" result "the file the guest wrote"
}

cases=(
	boots_debian_6_1         # uname -r is bookworm's current 6.1 ABI (apt says which)
	thp_enabled              # the guest has THP on (Debian's default: always) and 1 GiB hugetlb pages
	cpu_off_features         # --cpu-off pdpe1gb: no 1 GiB pages; a bad list is a usage error
	numa_nodes               # --numa 2: two nodes of a CPU each, no NUMA balancing; a bad count is a usage error
	host_file_same_path      # host files are at the same paths in the guest
	exit_status              # COMMAND's exit status is the run's
	stdout_and_stderr        # COMMAND's stdout and stderr reach the runner's, apart
	env_and_cwd              # cwd, HOME, TERM, root, THPCOW_* pass-through, THPCOW_VM_OUT
	clean_module_passes      # an out-of-tree module's taint (O, E) does not fail the run
	warn_fails_run           # a kernel WARN fails the run (125), excerpt shown
	crash_fails_run          # a kernel crash fails the run (125)
	taint_fails_run          # a taint other than O and E fails the run (125)
	log_problem_fails_run    # a problem only the kernel log shows fails the run (125)
	insmod_failure_fails_run # a module that does not load fails the run (123)
	timeout_kills_guest      # a hung COMMAND is killed at --timeout (124)
	out_dir_comes_back       # --out copies back what the guest wrote to $THPCOW_VM_OUT
)
tap_run "${cases[@]}"
