#!/usr/bin/env bash
# tests/vm/ibt.t: thpcow as on a CPU that enforces indirect branch tracking.
# QEMU's TCG does not emulate IBT, so the module parameter assume_ibt=1 makes
# thpcow act as if the CPU enforced it: any call that would need an ENDBR64
# that is not there refuses the load (module/compat/ibt.c). Debian's 6.12 and
# 7.x are built with IBT and seal the ENDBR64 of every kernel function thpcow
# calls; it calls them through static calls, patched into direct calls.
# Before that change, `vm/run --kernel 6.12 --modparams assume_ibt=1`
# failed at insmod ("cannot call kallsyms_lookup_name: this CPU enforces IBT
# and its ENDBR64 is sealed").
#
# Each case loads thpcow with assume_ibt=1 and checks what it reports: the
# parameter (read-only), IBT taken as enforced, the kernel functions called
# directly with their call sites checked, how many have a sealed ENDBR64, and
# `thpcowctl status`. Then, in the same guest, the stress tests
# (tests/guest/stress.sh) on 6.12 and 7.x (and, in make check-all, the CLI's,
# tests/guest/cli.sh, in a guest of each of them); core.sh,
# modes.sh (tests/vm/compat.t) and the mm selftests (tests/vm/selftests.t)
# run with assume_ibt=1 there too. Ubuntu's 6.8 and 5.15 (make check-all)
# are built without IBT, as Debian's 6.1 and RHEL's 9.6: thpcow loads and
# calls direct (their core.sh and modes.sh runs have assume_ibt=1 too);
# RHEL's 10.0 is built with IBT and seals, as Debian's 6.12.
# Every guest here runs on one TCG thread: 6.12 and 7.x (stress.sh, cli.sh)
# had it from vm/run already, and the loads on the other series need no
# second one; so the file weighs 1 for tests/check -j.
# jobs: 1
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# What the guest reports, one item a line, before any suite runs.
# shellcheck disable=SC2016 # for the guest's shell
report='p=/sys/module/thpcow/parameters/assume_ibt
cat $p
if (echo N >$p) 2>/dev/null; then echo writable; else echo read-only; fi
grep -E "^(ibt_enforced|direct_calls|call_sites|sealed_endbr) " /sys/kernel/debug/thpcow/stats
tools/thpcowctl/thpcowctl status --json'

# stat NAME: the value of a debugfs stats line the guest reported.
stat() { sed -n "s/^$1 //p" <<<"$vm_stdout"; }

# assumed SERIES SEALED [SUITES]: thpcow loads on SERIES with assume_ibt=1 and
# reports IBT enforced, every resolved function called directly, SEALED
# (some, none) of them with a sealed ENDBR64; then SUITES pass in the guest.
assumed() {
	local series=$1 sealed=$2 suites=${3:-true} direct sites
	vm_run --kernel "$series" --tcg-threads single --modparams assume_ibt=1 --timeout 900 -- \
		sh -c "$report"'; echo ---; '"$suites"'; echo "suites: $?"'
	vm_expect_rc 0
	check_eq "$(sed -n 1p <<<"$vm_stdout")" Y "assume_ibt"
	check_eq "$(sed -n 2p <<<"$vm_stdout")" read-only "writing assume_ibt after load"
	check_eq "$(stat ibt_enforced)" 1 "ibt_enforced"
	direct=$(stat direct_calls) sites=$(stat call_sites)
	echo "$direct functions called directly, $sites call sites checked, $(stat sealed_endbr) sealed"
	((direct > 0 && sites >= direct)) || { echo "no direct calls, or fewer call sites than functions"; return 1; }
	case $sealed in
	none) check_eq "$(stat sealed_endbr)" 0 "sealed_endbr (a kernel built without IBT)" ;;
	some) (($(stat sealed_endbr) > 0)) || { echo "no sealed ENDBR64 on an IBT-built kernel?"; return 1; } ;;
	esac
	check_match "$vm_stdout" '"ibt":"assumed \(assume_ibt=1\)","direct_calls":true' "thpcowctl status --json"
	grep -E '^(not ok|# Totals)' <<<"$vm_stdout" || true
	tap_fold "$vm_stdout"
	check_eq "$(tail -n 1 <<<"$vm_stdout")" "suites: 0" "the suites' exit status"
}

# cli.sh's stats case times 1 s intervals of `stats --watch` while a
# workload runs: with one TCG thread for all vCPUs (6.12, 7.x) the guest
# oversleeps them; cli.sh's own "# vm:" run on 6.1 has it. On 7.x, where the kernel gives
# whole THPs by itself, the cases that expect a splitting kernel (status's
# native zero, substituted trace events, splits outside a cgroup rule) are
# skipped too: cli.sh is written for one.
stress='THPCOW_STRESS_SECONDS=15 tests/guest/stress.sh'
cli_splitting="TAP_SKIP=stats tests/guest/cli.sh"
cli_native="TAP_SKIP='stats status_text status_json trace_json trace_text trace_fields trace_lost_events trace_stalled_reader apply_file' tests/guest/cli.sh"
loads_5_10() { assumed 5.10 none; }
loads_6_1() { assumed 6.1 none; }
stress_6_12() { assumed 6.12 some "$stress"; }
cli_6_12() { assumed 6.12 some "$cli_splitting"; }
loads_latest() { assumed latest some "$stress"; }
cli_latest() { assumed latest some "$cli_native"; }
loads_ubuntu_6_8() { assumed ubuntu-6.8 none; }
loads_ubuntu_5_15() { assumed ubuntu-5.15 none; }
loads_rhel_9_6() { assumed rhel-9.6 none; }
loads_rhel_10_0() { assumed rhel-10.0 some; }

cd "$repo" || exit 1
cases=(
	loads_5_10    # bullseye's 5.10 (not built with IBT): loads, calls direct
	loads_6_1     # bookworm's 6.1 (not built with IBT): the same
	stress_6_12   # trixie's 6.12 (IBT, all sealed): loads; stress passes
	loads_latest  # trixie-backports' 7.x (the same, its own seal): loads;
	              # stress passes
)
long_cases=(
	cli_6_12      # 6.12 again: loads; cli passes
	cli_latest    # 7.x again: loads; cli passes (but for what assumes a
	              # splitting kernel)
	loads_ubuntu_6_8  # Ubuntu's 6.8 (not built with IBT): loads, calls direct
	loads_ubuntu_5_15 # Ubuntu's 5.15 (not built with IBT): the same
	loads_rhel_9_6    # RHEL's 9.6 (not built with IBT): the same
	loads_rhel_10_0   # RHEL's 10.0 (IBT, sealed): loads, calls direct
)
# the guests' skipped cases count (tap_fold), so the plan comes last
tap_plan_last=1
tap_run "${cases[@]}" --long "${long_cases[@]}"
