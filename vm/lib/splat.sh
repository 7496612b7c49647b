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

# splat_alloc_blanked: stdin to stdout, with the kernel's own reports of an
# allocation that failed blanked, which a run that injects allocation
# failures expects:
#   - warn_alloc(): "COMM: page allocation failure: ..." or "COMM: vmalloc
#     error: ...", then the stack it dumps, up to its "</TASK>";
#   - the WARNs of the module loader's notifiers for jump labels and trace
#     events (kernel/jump_label.c, kernel/trace/trace_events.c), each up to
#     its "---[ end trace", which fire on an allocation that failed while a
#     module comes, then the load fails with ENOMEM: jump_label_module_notify()
#     ("Failed to allocate memory: jump_label may not work properly.") and
#     its cleanup, jump_label_del_module(), for each key it had not linked
#     yet; event_define_fields() when a field cannot be added, then
#     event_file_put() as the half-made event is taken down (6.12). thpcow
#     calls none of it; its own trace events are the kernel's to make.
# The lines stay, empty, so that line numbers do not move; a report blanks
# at most 150 lines (a stack dump is shorter), so one whose end is missing
# hides nothing after it.
splat_alloc_blanked() {
	awk '/: (page allocation failure|vmalloc error): / { end = "</TASK>"; n = 0 }
	/WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel\/(jump_label|trace\/trace_events)\.c:/ { end = "---\\[ end trace"; n = 0 }
	end != "" && n++ < 150 { if ($0 ~ end) end = ""; print ""; next }
	{ end = ""; print }'
}
