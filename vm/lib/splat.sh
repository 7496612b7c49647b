# shellcheck shell=bash
# vm/lib/splat.sh: what counts as a guest kernel misbehaving, in its
# console log, its dmesg or the kmemleak report vm/guest leaves, for vm/run
# and vm/lib/sysguest.sh (grep -E):
#   WARN (WARNING: CPU:), BUG (BUG:, also KASAN's and KFENCE's reports and
#   soft lockups; kernel BUG at, as page_table_check's BUG_ON says), oops,
#   any stack dump, RCU stalls, hard lockups, hung tasks, panics; lockdep's
#   reports (WARNING: possible circular locking / recursive locking / irq
#   lock inversion, inconsistent lock state, bad unlock balance, held lock
#   freed, lock held when returning, suspicious RCU usage, the -safe ->
#   -unsafe lock orders); DEBUG_LIST's list_add/list_del corruption (a WARN
#   or, with BUG_ON_DATA_CORRUPTION, a BUG); UBSAN; kmemleak's
#   "unreferenced object" (the scan after COMMAND) and its own
#   "new suspected memory leaks" line.
# Not a bare "WARNING:": CPU mitigation notices such as "RETBleed: WARNING:
# ..." use it.
# shellcheck disable=SC2034 # for the scripts that source this
kernel_problems='WARNING: CPU:|BUG:|kernel BUG at|Oops|Call Trace|detected stall|soft lockup|hard LOCKUP'
kernel_problems+='|blocked for more than|Kernel panic'
kernel_problems+='|WARNING: (possible |inconsistent lock state|bad unlock balance|held lock freed'
kernel_problems+='|lock held when returning|suspicious RCU usage|.*-safe -> .*-unsafe)'
kernel_problems+='|list_(add|del) corruption|UBSAN:|unreferenced object 0x|new suspected memory leaks'
