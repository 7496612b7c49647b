#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --timeout 600
# vm-all: --kernel 6.12 --timeout 900
# vm-all: --kernel 5.10 --timeout 600
# vm-all: --kernel latest --timeout 900
# vm-all: --kernel 6.1-debug --mem 3072 --timeout 2400
# vm-all: --kernel 6.12-debug --mem 3072 --timeout 2400
# vm-all: --kernel 6.1 --modparams pool_mib=64 --timeout 600
# stress-ng, a suite nobody here wrote, in a guest with thpcow loaded (how
# tests/check boots it: the lines above): its vm, mmap, madvise, mremap,
# mlock, fork, memfd and userfaultfd stressors, all at once, each as its
# own stress-ng in its own cgroup, with --verify (madvise has none in
# bookworm's 0.15.06) and --page-in, under the global modes kernel (the
# control), zero and copy, with THP enabled always. Each stressor must exit
# 0 with bogo ops and no verification failure, and the guest kernel must
# not warn (vm/run exits 125 on a splat). thpcow must have been reached:
# under zero and copy it must have substituted THPs in the vm stressor's
# cgroup (its buffer is read, MADV_POPULATE_READ or on 5.10 --page-in,
# before each method writes it), and under copy copied THPs in the fork
# stressor's, where the stressor writes a THP its children share. Each
# stressor's bogo ops (from --yaml), verification failures and exit status
# (from its log) and what thpcow did in its cgroup (thpcowctl usage) are
# printed. THPCOW_STRESSNG_SECONDS sets the length of each round (default
# 12, 60 on a debug kernel), THPCOW_STRESSNG another stress-ng to run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

# On the harness's debug kernels (vm/build-kernel: KASAN, kmemleak, lockdep)
# a 12 s round ends with no bogo op of vm, mmap or mremap (6.1-debug under
# TCG), so their rounds are five times as long; and even then one may do no
# bogo op (vm, mmap, memfd on 6.1-debug beside three more guests) or find
# no memory for its buffer (exit 3, "no resource", which stress-ng's own
# runs count as skipped). There (lax) only a verification failure or
# another exit status fails a round; the splats and thpcow's counters are
# checked as anywhere. Their guests get 3 GiB (KASAN's shadow and quarantine).
secs=12 lax=0
! debug_kernel || secs=60 lax=1
env_count secs THPCOW_STRESSNG_SECONDS
stressng=${THPCOW_STRESSNG:-stress-ng}
thp=/sys/kernel/mm/transparent_hugepage
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp/enabled")
trap '"$ctl" clear --global 2>/dev/null; echo "$thp_was" >"$thp/enabled"; cg_clean; rm -rf "$out"' EXIT
echo always >"$thp/enabled"

# The stressors and their options: small, so that each completes bogo ops
# in a round under TCG on a loaded host (mremap on 16 MiB did none in 12 s
# on 7.3), and all eight fit in the guest's 2 GiB at once.
stressors=(vm mmap madvise mremap mlock fork memfd userfaultfd)
declare -A opts=(
	[vm]="--vm-bytes 16m"
	[mmap]="--mmap-bytes 4m"
	[madvise]=""
	[mremap]="--mremap-bytes 4m"
	[mlock]=""
	[fork]="--fork-vm"
	[memfd]="--memfd-bytes 8m --memfd-fds 32"
	[userfaultfd]="--userfaultfd-bytes 16m"
)
# mmap on 4 MiB did no bogo op in any of three 60 s rounds on 6.1-debug
# (beside one more guest); 2 MiB is still a THP's worth.
((!lax)) || opts[mmap]="--mmap-bytes 2m"
# Who runs each: root, but madvise as nobody, so that its MADV_HWPOISON
# and MADV_SOFT_OFFLINE get EPERM: 0.15.06 poisons pages unless told not
# to (0.16 only with --madvise-hwpoison), and on 6.12 a poisoned page
# sends SIGBUS at once, which kills its madvise threads (SIGBUS blocked
# there), with or without thpcow.
declare -A as=([madvise]="setpriv --reuid=65534 --regid=65534 --clear-groups")

# summarize LABEL: one line per stressor of round LABEL, "NAME EXIT BOGO_OPS
# FAILURES SECONDS SUBSTITUTED COPIED FALLBACKS", from its exit status, its
# --yaml metrics, its log (verification failures and the run's time) and
# thpcowctl usage's row of its cgroup (zeros when it has none); one awk, as
# every process costs a TCG guest much.
summarize() {
	local label=$1 name files=("$out/usage")
	for name in "${stressors[@]}"; do
		files+=("$out/$label.$name.rc" "$out/$label.$name.yaml" "$out/$label.$name.log")
	done
	awk -v names="${stressors[*]}" -v label="$label" '
		FNR == 1 {
			f = FILENAME
			sub(".*/", "", f)
			ext = f
			sub("^" label "\\.", "", f)
			sub("\\.[a-z]+$", "", f)
			sub(".*\\.", "", ext)
		}
		ext == "usage" {
			if (sub("^/thpcow-test/stressng/", "", $1)) {
				subst[$1] = $2
				copied[$1] = $3
				fallbacks[$1] = $4
			}
			next
		}
		ext == "rc" { rc[f] = $1 }
		ext == "yaml" && $1 == "-" && $2 == "stressor:" { s = $3 }
		ext == "yaml" && $1 == "bogo-ops:" && s == f { bogo[f] = $2 }
		ext == "log" && /^stress-ng: fail: +\[[0-9]+\] / { fails[f]++ } # pr_fail()
		# "run completed in 25.65s", or past a minute "in 61.20s (1 min, 1.20 secs)"
		ext == "log" && match($0, / run completed in [0-9.]+s/) {
			secs[f] = substr($0, RSTART + 18, RLENGTH - 19)
		}
		END {
			n = split(names, name, " ")
			for (i = 1; i <= n; i++) {
				k = name[i]
				printf "%s %s %d %d %s %d %d %d\n", k, (k in rc) ? rc[k] : "none",
					bogo[k], fails[k], (k in secs) ? secs[k] : "-",
					subst[k], copied[k], fallbacks[k]
			}
		}' "${files[@]}"
}

# round MODE [LABEL]: the stressors at once under the global MODE, each in its
# own cgroup; what each did goes to $out/LABEL.NAME (key=value: exit, bogo_ops,
# verify_failures, seconds and thpcow's substituted, copied and fallbacks
# in its cgroup), its log to $out/LABEL.NAME.log and the growth of thpcow's
# counters to $out/LABEL.delta (LABEL is MODE unless given). Fails, naming
# them, unless every stressor exited 0 with bogo ops and no verification
# failure.
round() {
	local mode=$1 label=${2:-$1} name pids=() t0=$SECONDS bad=0
	local rc bogo fails took subst copied fallbacks
	command -v "$stressng" >/dev/null || {
		echo "no $stressng here (make deps installs Debian's stress-ng)"
		return 1
	}
	echo +memory >"$cg/cgroup.subtree_control"
	cg_make "${stressors[@]/#/stressng/}"
	echo +memory >"$cg/thpcow-test/cgroup.subtree_control"
	echo +memory >"$cg/thpcow-test/stressng/cgroup.subtree_control"
	# nobody's: the temporary directory, and its yaml file (madvise's)
	chmod 0711 "$out"
	mkdir -p "$out/tmp"
	chmod 1777 "$out/tmp"
	cp /sys/kernel/debug/thpcow/stats "$out/$label.before"
	"$ctl" set --global "$mode"
	for name in "${stressors[@]}"; do
		: >"$out/$label.$name.yaml"
		chmod 0666 "$out/$label.$name.yaml"
		{
			rc=0
			# shellcheck disable=SC2086 # the prefix and options, one a word
			in_cgroup "$cg/thpcow-test/stressng/$name" ${as[$name]:-} "$stressng" --"$name" 1 ${opts[$name]} \
				--verify --page-in --timeout "${secs}s" --metrics-brief --temp-path "$out/tmp" \
				--yaml "$out/$label.$name.yaml" >"$out/$label.$name.log" 2>&1 || rc=$?
			echo "$rc" >"$out/$label.$name.rc"
		} &
		pids+=($!)
	done
	wait "${pids[@]}"
	"$ctl" clear --global
	rose_by "$out/$label.before" /sys/kernel/debug/thpcow/stats \
		'^(substituted|copied|hook_calls|fallback_uffd)$' >"$out/$label.delta"
	"$ctl" -n -r -o TARGET,SUBSTITUTED,COPIED,FALLBACKS usage >"$out/usage"
	cg_clean
	while read -r name rc bogo fails took subst copied fallbacks; do
		printf '%s=%s\n' exit "$rc" bogo_ops "$bogo" verify_failures "$fails" seconds "$took" \
			substituted "$subst" copied "$copied" fallbacks "$fallbacks" >"$out/$label.$name"
		echo "$label: $name: bogo ops $bogo, verification failures $fails, exit $rc, $took s;" \
			"thpcow in its cgroup: substituted $subst, copied $copied, fallbacks $fallbacks"
		[[ $rc == 0 && $fails == 0 && $bogo != 0 ]] && continue
		if ((lax)) && [[ $fails == 0 && ($rc == 0 || $rc == 3) ]]; then
			echo "$label: stressor $name verified nothing here (exit $rc, $bogo bogo ops): not failed on a debug kernel"
			continue
		fi
		echo "$label: stressor $name FAILED (exit $rc, $fails verification failures, $bogo bogo ops):"
		grep -E '^stress-ng: (fail|error): ' "$out/$label.$name.log" | head -n 5
		tail -n 3 "$out/$label.$name.log"
		bad=1
	done < <(summarize "$label")
	echo "$label: thpcow's counters grew by: $(tr '\n' ' ' <"$out/$label.delta")"
	echo "$label: $((SECONDS - t0)) s"
	((!bad))
}

# grew MODE COUNTER [NAME]: thpcow's COUNTER grew in round MODE (in the
# cgroup of stressor NAME).
grew() {
	local n where=''
	if (($# == 3)); then
		n=$(val "$1.$3" "$2") where=" in the cgroup of $3"
	else
		n=$(val "$1.delta" "$2")
	fi
	((n > 0)) || {
		echo "$1: $2 did not grow$where: the stressors never reached thpcow"
		return 1
	}
}

# --- cases -------------------------------------------------------------------

# The control: the stock kernel's own paths, thpcow not even called.
stressng_kernel() {
	round kernel
	check_eq "$(val kernel.delta substituted)" 0 "kernel: substituted"
	check_eq "$(val kernel.delta copied)" 0 "kernel: copied"
	check_eq "$(val kernel.delta hook_calls)" 0 "kernel: hook calls"
}

# 'zero': the same, with the huge zero page's write faults given whole THPs
# (where the kernel does that itself, 'zero' leaves them to it).
stressng_zero() {
	round zero
	if ((native)); then
		check_eq "$(val zero.delta hook_calls)" 0 "zero: hook calls on a native kernel"
	else
		grew zero substituted vm
	fi
	check_eq "$(val zero.delta copied)" 0 "zero: copied"
}

# 'copy': the same, and THPs shared after fork copied whole.
stressng_copy() {
	round copy
	((native)) || grew copy substituted vm
	grew copy copied fork
}

# A stress-ng that reports a verification failure in one stressor, as
# bookworm's 0.15.06 does (its words and exit status 2, "stressor failed"),
# and one that does nothing, fail the round, which names them and only them:
# the round can fail.
catches_failure() {
	local fake=$out/fake-stress-ng rc=0
	cat >"$fake" <<-'EOF'
		#!/bin/sh
		# fake-stress-ng --NAME 1 ... --yaml FILE ...: as stress-ng 0.15.06 says it
		name=${1#--}
		while [ $# -gt 1 ] && [ "$1" != --yaml ]; do shift; done
		ops=7
		[ "$name" = fork ] && ops=0
		printf -- '---\nmetrics:\n    - stressor: %s\n      bogo-ops: %d\n' "$name" "$ops" >"$2"
		echo "stress-ng: info:  [42] dispatching hogs: 1 $name"
		if [ "$name" = mmap ]; then
			echo "stress-ng: fail:  [43] mmap: mmap'd region of 4194304 bytes does not contain expected data"
			echo "stress-ng: error: [42] process [43] (mmap) terminated with an error, exit status=2 (stressor failed)"
			echo "stress-ng: info:  [42] unsuccessful run completed in 0.01s"
			exit 2
		fi
		echo "stress-ng: info:  [42] successful run completed in 0.01s"
	EOF
	chmod +x "$fake"
	lax=0 stressng=$fake round kernel fake >"$out/fake.out" || rc=$?
	cat "$out/fake.out"
	check_eq "$rc" 1 "the round's status"
	check_eq "$(grep -o 'stressor [a-z]* FAILED' "$out/fake.out" | tr '\n' ' ')" \
		"stressor mmap FAILED stressor fork FAILED " "the stressors named"
	check_match "$(cat "$out/fake.out")" "mmap: bogo ops 7, verification failures 1, exit 2" "mmap's line"
	check_match "$(cat "$out/fake.out")" "fork: bogo ops 0, verification failures 0, exit 0" "fork's line"
}

cases=(
	catches_failure # a verification failure fails the round, naming its stressor
	stressng_kernel # the control: every stressor verifies, thpcow not called
	stressng_zero   # 'zero': every stressor verifies, THPs substituted
	stressng_copy   # 'copy': every stressor verifies, THPs substituted, THPs copied
)
tap_run "${cases[@]}"
