#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --kvm --timeout 900
# vm: --kernel 6.12 --kvm --timeout 900
# vm-all: --kernel 5.10 --kvm --timeout 900
# vm-all: --kernel latest --kvm --timeout 900
# vm-all: --kernel 6.1-debug --kvm --timeout 3600
# vm-all: --kernel 6.12-debug --kvm --timeout 3600
# vm-all: --kernel ubuntu-6.8 --kvm --timeout 900
# vm-all: --kernel ubuntu-5.15 --kvm --timeout 900
# vm-all: --kernel rhel-9.6 --kvm --timeout 900
# vm-all: --kernel rhel-10.0 --kvm --timeout 900
# vm-all: --kernel 6.1 --kvm --modparams pool_mib=64 --timeout 900
# The production path: guests under KVM (vm/run --kvm loads it; TCG
# emulates AMD SVM with nested paging), whose writes are NPT faults that KVM
# resolves through GUP on the VMM's RAM mapping, and whose NPT may map the
# huge zero page at 2 MiB: every PMD thpcow replaces must be invalidated
# there too, or the guest reads stale memory. The guests are
# tests/prog/kvmvm's (a tiny VMM with a few instructions of guest, 32 MiB)
# and vm/mig.py's migfw under QEMU -accel kvm (32 MiB). KVM's own view
# comes from debugfs (kvm/PID-FD/pages_2m, pages_4k).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

kvmvm=$guest_repo/tests/prog/kvmvm
mib=32
ranges=$(((mib - 2) / 2)) # the 2 MiB ranges kvmvm tests (the first holds its code)

# vm NAME [MODE] -- ARGS...: kvmvm ARGS (under thpcowctl exec MODE), its
# key=value output kept as NAME (val NAME KEY) and shown; with the stats
# of thpcow that moved meanwhile as NAME.d_KEY.
vm() {
	local name=$1 mode=$2 rc=0 before
	shift 3
	before=$(cat /sys/kernel/debug/thpcow/stats)
	if [[ $mode == kernel ]]; then
		"$kvmvm" --mib "$mib" "$@" >"$out/$name" || rc=$?
	else
		"$ctl" exec "$mode" -- "$kvmvm" --mib "$mib" "$@" >"$out/$name" || rc=$?
	fi
	awk 'NR == FNR { b[$1] = $2; next } $2 ~ /^[0-9]+$/ && $2 != b[$1] { print "d_" $1 "=" $2 - b[$1] }' \
		<(echo "$before") /sys/kernel/debug/thpcow/stats >>"$out/$name"
	tr '\n' ' ' <"$out/$name"
	echo
	check_eq "$rc" 0 "kvmvm's exit status"
}

# at_least GOT MIN WHAT
at_least() {
	(($1 >= $2)) && return
	echo "$3: got $1, want at least $2"
	return 1
}

# The mismatch counts kvmvm reports are all 0 (it exits 1 otherwise, but
# say which).
no_mismatch() {
	local bad
	bad=$(grep -v '_mismatches=0$' "$out/$1" | grep _mismatches= || true)
	[[ -z $bad ]] || { echo "data: $bad"; return 1; }
}

# Substitutions in thpcow's stats: none where the kernel substitutes itself.
substituted() {
	local n
	n=$(val "$1" "d_$2")
	if ((native)); then check_eq "${n:-0}" 0 "thpcow's $2"; else check_eq "$n" "$ranges" "thpcow's $2"; fi
}

# The guest has read its RAM, so its NPT maps the huge zero page at 2 MiB
# (KVM maps 2 MiB where the host's PMD is huge); then the VMM writes a byte
# per 4 KiB through /proc/self/mem, as DMA would: thpcow replaces each PMD
# and must invalidate KVM's mapping, or the guest keeps reading zeroes.
dma_zero() {
	vm dma zero -- dma
	no_mismatch dma
	at_least "$(val dma read_pages_2m)" "$ranges" "KVM's 2 MiB mappings after the guest's reads"
	substituted dma substituted
	at_least "$(val dma end_pages_2m)" "$ranges" "KVM's 2 MiB mappings at the end"
}

# The same with the kernel's own path (it splits the huge zero PMD).
dma_stock() {
	vm dma kernel -- dma
	no_mismatch dma
	at_least "$(val dma read_pages_2m)" "$ranges" "KVM's 2 MiB mappings after the guest's reads"
	if [[ $(val dma end_pages_4k) == -1 ]]; then
		echo "no KVM count of 4 KiB mappings on $(uname -r) (pages_4k came with 5.13)"
	elif ((!native)); then
		at_least "$(val dma end_pages_4k)" $((ranges * 512)) "KVM's 4 KiB mappings at the end (split)"
	fi
}

# copy: the guest wrote its RAM (THPs), the VMM forked, the guest read the
# now shared THPs (NPT maps them at 2 MiB); a write through /proc/self/mem
# gets a whole copy from thpcow, which KVM must stop mapping the old one of;
# the child keeps its data.
fork_dma_copy() {
	vm fork copy -- fork-dma
	no_mismatch fork
	check_eq "$(val fork child_data)" ok "the child's data"
	at_least "$(val fork shared_pages_2m)" "$ranges" "KVM's 2 MiB mappings of the shared THPs"
	check_eq "$(val fork d_copied)" "$ranges" "thpcow's copied"
	at_least "$(val fork end_pages_2m)" "$ranges" "KVM's 2 MiB mappings at the end"
}

# Two vCPUs write the same pages (bytes 0 and 1 of every 4 KiB) at once
# over the huge zero page, while a VMM thread reads them: the substitution
# races KVM's own faults on both vCPUs, 4 rounds.
race_zero() {
	vm race zero -- race --rounds 4
	no_mismatch race
	((native)) || at_least "$(val race d_substituted)" "$ranges" "thpcow's substituted"
	at_least "$(val race end_pages_2m)" "$ranges" "KVM's 2 MiB mappings at the end"
	! dmesg | grep -E 'WARNING|BUG' || { echo "kernel warnings"; return 1; }
}

# needs_collapse: skip the case on a kernel before 6.1 (5.10, Ubuntu's
# 5.15), which has no MADV_COLLAPSE for thpcowctl collapse to use (RHEL
# 9.6's 5.14 has it: kernel_since).
needs_collapse() {
	kernel_since 6 1 || skip "$(uname -r) has no MADV_COLLAPSE (6.1 on)"
}

# On the kernel's own path the guest's writes leave its RAM split (KVM maps
# 4 KiB); thpcowctl collapse runs while the guest keeps writing, and KVM
# maps 2 MiB again once the guest touches it.
collapse_while_writing() {
	needs_collapse
	vm collapse kernel -- collapse --ctl "$ctl"
	no_mismatch collapse
	check_eq "$(val collapse collapse_rc)" 0 "thpcowctl collapse's exit status"
	((native)) || at_least "$(val collapse before_pages_4k)" $((ranges * 512)) "KVM's 4 KiB mappings before"
	at_least "$(val collapse after_anon_huge_kb)" $((mib * 1024)) "AnonHugePages after the collapse"
	at_least "$(val collapse after_pages_2m)" "$ranges" "KVM's 2 MiB mappings after"
}

# mig NAME CASE [ARGS...]: vm/mig.py under KVM, its JSON as NAME; jv
# NAME KEY reads one value (KEY.KEY for one inside an object). Once more,
# and only once, when mig.py exits 3: the destination's vCPU held a state
# migfw never enters (a 64-bit code segment, paging), stopped at a reset
# or answered a command with another's byte (never a data check's X), while
# migfw's RAM is as its commands left it: the CPU under it lost its
# state; QEMU 7.2's TCG emulation of SVM does that under a heavy host
# load (1 of 10 kvm.sh runs with two such guests at once beside the debug
# kernels' suites; a vCPU's registers are no memory of the guest's that
# thpcow handles). Any other failure is one. Each such run again counts in
# the "# retries: ..." line after the totals.
mig() {
	local name=$1 try rc
	shift
	for try in 1 2; do
		rc=0
		python3 "$guest_repo/vm/mig.py" --accel kvm --ram "$mib" --ctl "$ctl" "$@" >"$out/$name" || rc=$?
		((rc == 3 && try == 1)) || break
		echo "the emulated CPU lost the destination guest's state (mig.py's diagnosis above): once more"
		echo "$name" >>"$out/retries"
	done
	cat "$out/$name"
}
jv() {
	python3 -c 'import json, sys
try:
    v = json.load(open(sys.argv[1]))
except ValueError:  # mig.py failed and printed none (its diagnosis is above)
    v = None
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print(v)' "$out/$1" "$2"
}

# Precopy: the destination reads what arrives (huge zero page), then the
# guest writes a byte per 4 KiB and checks its data itself (migfw's V).
precopy_stock() {
	mig stock stock
	check_eq "$(jv stock verify)" ok "the guest's data check"
	if ((native)); then # the kernel's own path gives whole THPs
		check_eq "$(jv stock write_thp_split_pmd)" 0 "splits (stock, $(uname -r))"
		at_least "$(jv stock write_kvm_pages_2m)" "$ranges" "KVM's 2 MiB mappings (stock, $(uname -r))"
	else
		at_least "$(jv stock write_thp_split_pmd)" 1 "splits (stock)"
		check_eq "$(jv stock write_kvm_pages_2m)" 0 "KVM's 2 MiB mappings (stock)"
	fi
}
precopy_zero() {
	mig zero zero
	check_eq "$(jv zero verify)" ok "the guest's data check"
	check_eq "$(jv zero write_thp_split_pmd)" 0 "splits (zero)"
	at_least "$(jv zero write_kvm_pages_2m)" $(((mib - 2) / 2)) "KVM's 2 MiB mappings (zero)"
}

# Postcopy (userfaultfd armed on the destination's RAM, which stays in
# 4 KiB pages), then thpcowctl collapse --await-postcopy, as the libvirt
# hook runs it: the guest's data, THPs and KVM's 2 MiB mappings back. The
# collapse must have seen the postcopy end (not waited out its SECS: a
# postcopy of this guest lasts a few seconds).
postcopy_collapse() {
	needs_collapse
	mig post zero --postcopy --after collapse --after-s 4 --write-window 2 --await-postcopy 120
	check_eq "$(jv post verify)" ok "the guest's data check"
	check_eq "$(jv post collapse_rc)" 0 "thpcowctl collapse's exit status"
	check_eq "$(jv post collapse.trigger)" userfaultfd "what ended thpcowctl collapse's wait"
	check_eq "$(jv post completed_kvm_pages_2m)" 0 "KVM's 2 MiB mappings after postcopy"
	# MADV_COLLAPSE fails with EAGAIN on a range the guest is writing
	# through KVM at that moment (measured on 6.1: 2 of 15), and thpcowctl
	# collapse does not retry it.
	at_least "$(jv post end_thp_pct_of_eligible | cut -d. -f1)" 75 "THP % of the eligible ranges"
	# once the guest has read it all again (migfw's V), KVM maps every THP
	# at 2 MiB but the first (the pc machine's memory slots below 1 MiB,
	# VGA and ROMs, keep KVM from mapping 0-2 MiB at once)
	at_least "$(jv post end_kvm_pages_2m)" $(($(jv post end_ram_anon_huge_kb) / 2048 - 1)) \
		"KVM's 2 MiB mappings after the collapse (THPs of the guest's RAM: $(jv post end_ram_anon_huge_kb) kB)"
}

# With the pool of pre-zeroed THPs on (vm/run --modparams pool_mib=N): the
# cases above took pooled THPs, KVM's mappings and the data as without it.
pool_served() {
	local mib
	mib=$(cat /sys/module/thpcow/parameters/pool_mib)
	((mib > 0)) || skip "no pool (pool_mib 0)"
	echo "pool: $(tr '\n' ' ' </sys/kernel/debug/thpcow/pool)"
	(($(stat_of pool_hit) > 0)) || { echo "no substitution took a pooled THP"; return 1; }
}

cases=(
	dma_zero               # zero: a KVM guest that read its RAM sees the VMM's writes (/proc/PID/mem), and the VMM its
	dma_stock              # the same on the kernel's own path
	fork_dma_copy          # copy: the same on THPs shared with a forked child; the child keeps its data
	race_zero              # two vCPUs write the same 2 MiB ranges at once while the VMM reads: data intact
	collapse_while_writing # thpcowctl collapse while the guest writes: data intact, KVM back to 2 MiB
	precopy_stock          # precopy under KVM, stock: data ok, splits, KVM maps 4 KiB
	precopy_zero           # precopy under KVM, zero: data ok, 0 splits, KVM maps 2 MiB
	postcopy_collapse      # postcopy under KVM, then collapse: data ok, THPs and KVM's 2 MiB back
	pool_served            # with pool_mib set: the THPs above came from the pool
)
# 6.12 runs its vCPUs on one TCG thread (vm/run): there make check takes the
# cases that thpcow's own paths decide (zero, copy, the race, precopy), and
# make check-all the rest too (the kernel's own path, collapse, postcopy),
# which 6.1 runs in make check.
long_cases=()
if [[ $(uname -r) == 6.12.* ]]; then
	long_cases=(dma_stock collapse_while_writing precopy_stock postcopy_collapse)
	mapfile -t cases < <(printf '%s\n' "${cases[@]}" | grep -vxF "${long_cases[@]/#/-e}")
fi
: >"$out/retries"
tap_run "${cases[@]}" --long "${long_cases[@]}"
rc=$?
echo "# retries: vm/mig.py exit 3 $(wc -l <"$out/retries")"
guest_done "$rc"
