#!/usr/bin/env bash
# tests/vm/pool-break.t: the pool hands out only zeroed THPs, and a guest
# reading what it got catches a build that skips the zeroing (module/pool.c,
# THPCOW_BREAK=PREZERO, here for 6.1). The guests boot with init_on_alloc=0
# (Debian's kernels zero every allocation by default, which would hide the
# missing zeroing) and first dirty their free memory: a process writes 1 GiB,
# one byte per 4 KiB, and exits. Then pool_mib=64, and a 'zero' process
# reads and writes one byte per 2 MiB of 32 MiB and checks every byte:
#   control  the module as built: every byte but those written is zero, and
#            the THPs came from the pool
#   caught   THPCOW_BREAK=PREZERO: the check finds old bytes, the run fails
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$here/../../vm/lib/vm.sh"

# shellcheck disable=SC2016 # expanded in the guest
guest='wrf=$0/prog/wrf ctl=$0/tools/thpcowctl/thpcowctl pool=/sys/kernel/debug/thpcow/pool
	"$wrf" --size 1024 --no-read >/dev/null || exit 3
	echo 64 >/sys/module/thpcow/parameters/pool_mib
	i=0
	until [ "$(awk "\$1 == \"thps\" { print \$2 }" $pool)" = 32 ]; do
		i=$((i + 1)); [ $i -lt 600 ] || { cat $pool; exit 3; }; sleep 0.1
	done
	"$ctl" exec zero -- "$wrf" --size 32 --stride 2097152 --verify
	rc=$?
	awk "\$1 ~ /^(substituted|pool_hit)\$/ { print \$1 \"=\" \$2 }" /sys/kernel/debug/thpcow/stats
	exit $rc'

# run KO: the guest above with module KO (empty: the module as built)
run() {
	vm_run --kernel 6.1 ${1:+--module "$1"} --append init_on_alloc=0 --timeout 300 -- \
		sh -c "$guest" "$repo"
	echo "$vm_stdout"
}

control() {
	run ''
	vm_expect_rc 0
	check_match "$vm_stdout" $'(^|\n)verify=ok' "the data"
	check_match "$vm_stdout" $'(^|\n)pool_hit=16' "THPs from the pool"
}

caught() {
	local ko
	ko=$(THPCOW_BREAK=PREZERO "$repo/vm/kbuild" 6.1) || return 1
	run "$ko"
	check_match "$vm_stdout" $'(^|\n)verify=fail' "the data"
	check_match "$vm_stdout" $'(^|\n)pool_hit=16' "THPs from the pool"
	[[ $vm_rc != 0 ]] || { echo "the run passed"; return 1; }
}

cases=(
	control # the module as built: zero
	caught  # THPCOW_BREAK=PREZERO: the guest reads old bytes
)
tap_run "${cases[@]}"
