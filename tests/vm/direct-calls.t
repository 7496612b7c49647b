#!/usr/bin/env bash
# tests/vm/direct-calls.t: thpcow.ko, as built for each kernel series (6.1 on
# the host, the others in their release's chroot with vm/kbuild), makes
# no indirect call or jump that could reach a kernel function it resolved
# itself. On a CPU that enforces IBT such a call faults: the kernel sealed the
# ENDBR64 of every function whose address it never takes, at boot
# (apply_seal_endbr), which includes every function thpcow resolves. thpcow calls them
# through static calls, which the kernel patches into direct calls (the module
# checks that at load, module/compat/ibt.c); this reads the code as built.
#
# `objdump -dr` lists every `call *`, `jmp *` and call of a retpoline thunk
# (__x86_indirect_{thunk,call_thunk,jump_thunk}_*), with the function it is
# in. Each must be one of the kinds below, with the reason it is safe;
# anything else fails the case, naming the function and the instruction.
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# Indirect branches known to be safe: "FUNCTION TARGET" (TARGET: the
# relocation's symbol, pv_ops or a retpoline thunk), as extended regexes.
safe=(
	# Paravirt operations (page table reads and writes, irq flags): the
	# kernel patches these call sites into native code or direct calls when
	# it loads the module, and every pv_ops function has its address taken,
	# so it keeps its ENDBR64.
	'[^ ]+ pv_ops'
	# A tracepoint's iterator calls the probes registered on it (the event's
	# own, perf's), each registered by address, so each has its ENDBR64.
	'__traceiter_thpcow_fault __x86_indirect_thunk_[a-z0-9]+'
	# cgroup_put() -> percpu_ref_put() calls the css's release callback,
	# which percpu_ref_init() took by address: it has its ENDBR64.
	'thpcow_(rule_free|policy_set_cgroup|put_target)(\.[a-z]+\.[0-9]+)? __x86_indirect_thunk_[a-z0-9]+'
	# The rule walk calls the visitor ctl.c or debugfs.c passes: a function
	# of this module whose address is taken, so it has its ENDBR64.
	'thpcow_policy_walk __x86_indirect_thunk_[a-z0-9]+'
	# The usage table's reclaim (in its worker, where the compiler may inline
	# it) and walk put the cgroups they looked up by
	# id (cgroup_put(), as above); on 5.10 the lookup itself does.
	'thpcow_(usage_reclaim|usage_reclaim_fn|usage_walk|cgroup_get_from_id)(\.[a-z]+\.[0-9]+)? __x86_indirect_thunk_[a-z0-9]+'
	# The usage walk calls the visitor ctl.c or debugfs.c passes, and ctl.c
	# the walk it passes to thpcow_rows_out(): functions of this module
	# whose address is taken, so they have their ENDBR64.
	'thpcow_(usage_walk|usage_pid_row|rows_out)(\.[a-z]+\.[0-9]+)? __x86_indirect_thunk_[a-z0-9]+'
)

# indirect_branches KO: "FUNCTION TARGET INSTRUCTION" per indirect branch.
indirect_branches() {
	objdump -dr --no-show-raw-insn "$1" | awk '
		/^[0-9a-f]+ <[^>]+>:$/ { fn = substr($2, 2, length($2) - 3); next }
		/^ +[0-9a-f]+:\t(call|jmp)[a-z]* +\*/ {
			insn = $0; sub(/^ +/, "", insn); pending = 1; next
		}
		pending && /R_X86_64_/ {
			t = $3; sub(/[-+].*/, "", t)
			print fn, t, insn; pending = 0; next
		}
		pending { print fn, "-", insn; pending = 0 }
		/R_X86_64_PLT32\t__x86_indirect_(thunk|call_thunk|jump_thunk)_/ {
			t = $3; sub(/[-+].*/, "", t)
			print fn, t, "call " t
		}'
}

# The module built for SERIES.
module_for() {
	local release
	if [[ $1 == 6.1 ]]; then
		release=$(cat "$(vm/fetch-kernel 6.1)/release") || return 1
		make -s module KERNEL_DIR="/usr/src/linux-headers-$release" >&2 || return 1
		echo "$repo/module/thpcow.ko"
	else
		vm/kbuild "$1" 2>/dev/null
	fi
}

# direct SERIES: thpcow.ko for SERIES makes only the safe indirect branches,
# and has static call sites for the functions it resolved (objtool ran).
direct() {
	local ko found bad=0 line re ok sites
	ko=$(module_for "$1") || { echo "no thpcow.ko for $1"; return 1; }
	found=$(indirect_branches "$ko")
	while read -r line; do
		[[ -n $line ]] || continue
		ok=0
		for re in "${safe[@]}"; do
			[[ $line =~ ^$re\  ]] && ok=1 && break
		done
		((ok)) || { echo "indirect branch: $line"; bad=1; }
	done <<<"$found"
	echo "$(grep -c . <<<"$found") indirect branches, all of a safe kind: $((!bad))"
	sites=$(objdump -r -j .static_call_sites "$ko" 2>/dev/null | grep -c '__SCK__thpcow_ksym_')
	echo "$sites static call sites of resolved functions"
	((sites > 0)) || { echo "no static call sites: was objtool run?"; bad=1; }
	((!bad))
}

direct_5_10() { direct 5.10; }
direct_6_1() { direct 6.1; }
direct_6_12() { direct 6.12; }
direct_latest() { direct latest; }

cd "$repo" || exit 1
cases=(
	direct_5_10   # bullseye's 5.10 (no IBT in that kernel: the same code)
	direct_6_1    # bookworm's 6.1 (built without IBT: the same code)
	direct_6_12   # trixie's 6.12, built with CONFIG_X86_KERNEL_IBT
	direct_latest # trixie-backports' 7.x, built with CONFIG_X86_KERNEL_IBT
)
tap_run "${cases[@]}"
