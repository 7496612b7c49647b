#!/usr/bin/env bash
# vm/tests/detectors.t: each of the kernel's bug detectors that a debug
# kernel (vm/build-kernel) enables makes vm/run fail the run (exit 125) with
# its report in the excerpt, whatever COMMAND returned: a test-only module,
# vm/splatmod, loaded with splat=NAME, makes that detector report at once.
# make check runs the two that stock kernels have: DEBUG_LIST on Debian's 6.1
# and KFENCE on Ubuntu's 6.8 and RHEL's 9.6 (about 15 s a guest); make check-all runs
# them all on 6.1-debug, and first a clean load there (splat=none), which
# must pass: the kmemleak scan after COMMAND finds nothing of its own; on
# 6.12-debug the clean load, page_table_check and the broken build.
#
# And thpcow built broken on purpose (module/Kbuild's THPCOW_BREAK=RMAP,
# module/subst.c): on a 'copy', the shared THP's rmap is not dropped, so it
# is freed still counted as mapped. Debian's stock 6.1 does not notice
# (tests/guest/modes.sh passes; only /proc/meminfo's AnonHugePages stays
# high); 6.1-debug's DEBUG_VM does ("Bad page state", nonzero mapcount).
set -uo pipefail
vm=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../../tests/lib/tap.sh
source "$vm/../tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/vm.sh
source "$vm/lib/vm.sh"

# splat SERIES NAME CONFIG RC REGEX [VM_RUN_OPTION...]: on SERIES, whose
# kernel has CONFIG (else the case is skipped), splatmod splat=NAME ends the
# run with RC and the run's stderr matching REGEX.
splat() {
	local kdir
	kdir=$("$repo/vm/fetch-kernel" "$1") || return 1
	grep -q "^CONFIG_$3=y" "$kdir/config" || skip "$1 is built without CONFIG_$3"
	vm_testmod vm/splatmod "$1"
	vm_run --kernel "$1" --module "$vm_ko" --modparams "splat=$2" --timeout 900 "${@:6}" -- echo ran
	vm_expect_rc "$4"
	[[ -z $5 ]] || check_match "$vm_stderr" "$5" "the report in vm/run's stderr"
}

list_6_1() { splat 6.1 list DEBUG_LIST 125 'list_add corruption'; }
# Ubuntu builds KFENCE in but samples nothing unless told to (interval 0).
kfence_ubuntu_6_8() {
	splat ubuntu-6.8 kfence KFENCE 125 'BUG: KFENCE: use-after-free read' --append kfence.sample_interval=100
}
# RHEL samples every 100 ms by itself (CONFIG_KFENCE_SAMPLE_INTERVAL=100).
kfence_rhel_9_6() { splat rhel-9.6 kfence KFENCE 125 'BUG: KFENCE: use-after-free read'; }

# broken SERIES RC REGEX: modes.sh with the THPCOW_BREAK=RMAP module on SERIES.
broken() {
	local ko
	ko=$(THPCOW_BREAK=RMAP "$repo/vm/kbuild" "$1") || return 1
	cd "$repo" || return 1
	vm_run --kernel "$1" --module "$ko" --timeout 1500 -- tests/guest/modes.sh
	vm_expect_rc "$2"
	[[ -z $3 ]] || check_match "$vm_stderr" "$3" "vm/run's stderr"
}
broken_stock() { broken 6.1 0 ''; }
# broken_on_debug SERIES: 6.1-debug and 6.12-debug fail it: Bad page state.
broken_on_debug() { broken "$1" 125 'BUG: Bad page state'; }
broken_debug() { broken_on_debug "$debug"; }

debug=6.1-debug
# clean SERIES: splatmod loaded to do nothing passes, kmemleak scan and all.
clean() {
	splat "$1" none DEBUG_KMEMLEAK 0 ''
	check_eq "$vm_stdout" ran "COMMAND's output"
}
clean_debug() { clean "$debug"; }
kasan_debug() { splat "$debug" kasan KASAN 125 'BUG: KASAN: slab-out-of-bounds'; }
kfence_debug() { splat "$debug" kfence KFENCE 125 'BUG: KFENCE: use-after-free read'; }
lockdep_debug() { splat "$debug" lockdep PROVE_LOCKING 125 'WARNING: possible circular locking dependency'; }
rcu_debug() { splat "$debug" rcu PROVE_RCU 125 'WARNING: suspicious RCU usage'; }
list_debug() { splat "$debug" list DEBUG_LIST 125 'list_add corruption'; }
# ptc SERIES: page_table_check's BUG_ON: kernel BUG at mm/page_table_check.c
ptc() { splat "$1" ptc PAGE_TABLE_CHECK 125 'kernel BUG at mm/page_table_check\.c'; }
ptc_debug() { ptc "$debug"; }
leak_debug() { splat "$debug" leak DEBUG_KMEMLEAK 125 'unreferenced object 0x[0-9a-f]+ \(size 64\)'; }
# 6.12-debug has the same options (vm/build-kernel): a clean run, the
# detector of page table bookkeeping, and the broken build.
clean_debug_6_12() { clean 6.12-debug; }
ptc_debug_6_12() { ptc 6.12-debug; }
broken_debug_6_12() { broken_on_debug 6.12-debug; }

cases=(
	list_6_1          # Debian's 6.1 (DEBUG_LIST, BUG_ON_DATA_CORRUPTION): list_add corruption
	kfence_ubuntu_6_8 # Ubuntu's 6.8 (KFENCE): a KFENCE use-after-free report
	kfence_rhel_9_6   # RHEL's 9.6 (KFENCE): the same
)
long_cases=(
	clean_debug   # 6.1-debug: a module that does nothing passes, kmemleak scan and all
	kasan_debug   # BUG: KASAN: slab-out-of-bounds
	kfence_debug  # BUG: KFENCE: use-after-free read
	lockdep_debug # WARNING: possible circular locking dependency detected
	rcu_debug     # WARNING: suspicious RCU usage
	list_debug    # list_add corruption
	ptc_debug     # page_table_check's BUG_ON: kernel BUG at mm/page_table_check.c
	leak_debug    # kmemleak: unreferenced object, after the module's unload
	broken_stock  # thpcow with THPCOW_BREAK=RMAP: stock 6.1 passes modes.sh
	broken_debug  # and 6.1-debug fails it: Bad page state
	clean_debug_6_12  # 6.12-debug: as clean_debug
	ptc_debug_6_12    # as ptc_debug
	broken_debug_6_12 # as broken_debug
)
tap_run "${cases[@]}" --long "${long_cases[@]}"
