#!/usr/bin/env bash
# tests/host/splat.t: what vm/run counts as a guest kernel's problem in its
# logs (vm/lib/splat.sh), on excerpts of real console logs (6.12-debug):
# every report fails a run, but for the kernel's own reports of a failed
# allocation, which a run with --fault-injection expects
# (splat_alloc_blanked): warn_alloc()'s, and the WARNs of the module
# loader's jump-label code. Anything after or between them still counts.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/splat.sh
source "$repo/vm/lib/splat.sh"

# warn_alloc() of a vmalloc() that fail-nth failed, in finit_module()
vmalloc_error() {
	cat <<-'EOF'
		236.73| [  225.668495] failnth: vmalloc error: size 340504, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), nodemask=(null),cpuset=/,mems_allowed=0
		236.74| [  225.684201] CPU: 1 UID: 0 PID: 245 Comm: failnth Tainted: G           OE      6.12.118-thpcow-debug #1+debug
		236.74| [  225.684789] Call Trace:
		236.74| [  225.684878]  <TASK>
		236.75| [  225.685002]  dump_stack_lvl+0x91/0xb0
		236.75| [  225.685147]  warn_alloc+0x23d/0x310
		236.75| [  225.687026]  kernel_read_file+0x3f4/0x470
		236.76| [  225.688452]  do_syscall_64+0x9c/0x1b0
		236.76| [  225.688500]  </TASK>
	EOF
}

# the jump-label notifier's WARN, then the load fails with ENOMEM
jump_label_warn() {
	cat <<-'EOF'
		441.48| [  430.214333] ------------[ cut here ]------------
		441.48| [  430.216416] Failed to allocate memory: jump_label may not work properly.
		441.48| [  430.219226] WARNING: CPU: 1 PID: 242 at kernel/jump_label.c:840 jump_label_module_notify+0x4a0/0x540
		441.50| [  430.232595] Call Trace:
		441.50| [  430.232850]  <TASK>
		441.50| [  430.235593]  notifier_call_chain+0x60/0x1b0
		441.50| [  430.238790]  load_module+0x2ed6/0x3660
		441.56| [  430.297742]  </TASK>
		441.56| [  430.297800] ---[ end trace 0000000000000000 ]---
	EOF
}

kasan() { echo "450.00| [  440.000000] BUG: KASAN: slab-out-of-bounds in thpcow_ioctl+0x10/0x20 [thpcow]"; }

# problems WITH_BLANKING: the line numbers that count as problems on stdin
problems() {
	if (($1)); then splat_alloc_blanked; else cat; fi | grep -nE "$kernel_problems" | cut -d: -f1 | paste -sd' '
}

reports_count_without_injection() {
	check_eq "$(vmalloc_error | problems 0)" "3" "warn_alloc's stack dump"
	check_eq "$(jump_label_warn | problems 0)" "3 4" "the jump-label WARN"
}

alloc_reports_blanked() {
	check_eq "$({ vmalloc_error && jump_label_warn && vmalloc_error; } | problems 1)" "" "both reports"
	check_eq "$({ vmalloc_error && jump_label_warn; } | splat_alloc_blanked | wc -l)" 18 "lines kept, blank"
}

other_reports_still_count() {
	check_eq "$({ vmalloc_error && kasan && jump_label_warn && kasan; } | problems 1)" "10 20" "KASAN between and after them"
	# a report without its end hides at most 150 lines
	check_eq "$({ vmalloc_error | head -n 4; yes . | head -n 200; kasan; } | problems 1)" "205" "KASAN after an unended report"
	# the same WARN from anywhere else counts
	check_eq "$(jump_label_warn | sed 's%kernel/jump_label.c:840 jump_label_module_notify%mm/huge_memory.c:1 x%' |
		problems 1)" "3 4" "a WARN of another file"
}

tap_run reports_count_without_injection alloc_reports_blanked other_reports_still_count
