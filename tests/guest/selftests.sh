#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# The kernel's own mm selftests with thpcow off and on (see
# tests/vm/selftests.t), run inside a guest. Each case runs one selftest
# program with the module not loaded, then once per mode (zero and copy by
# default; copy not on the programs listed in zero_only, with the reason) with
# module/thpcow.ko loaded and that mode made the global one
# with thpcowctl (every process's faults take the module's path), each
# invocation under timeout. It passes when every mode passes every sub-test
# the 'off' run passed and fails nothing that run did not, and no run hung;
# differences a mode is expected to make are listed in 'allowed' below, each
# with its reason, and reported as diagnostics. A selftest that fails the
# same way without the module is the stock kernel's (under TCG) business,
# not thpcow's, and so is one that passes in a mode where it failed without
# the module (a diagnostic). Each run is judged once: no second round. The
# only invocations run again are the two below whose run did not reach its
# end for a reason of the stock kernel's (khugepaged, userfaultfd's unit
# tests on hugetlb), and the line "# retries: ..." after the totals counts
# them.
#
# Sub-tests come from each program's own output: kselftest TAP (cow,
# madv_populate, mremap_test, 7.x's uffd-unit-tests), khugepaged's
# "step... OK|Fail|Skip" lines, 6.x's uffd-unit-tests "Testing X... done"
# lines, or the exit status of each invocation (0 pass, 4 skip, else fail).
#
# The binaries come from vm/selftests-build (run on the host first).
# Environment: THPCOW_SELFTESTS_BIN where they are (the series' directory of
# the build), THPCOW_SELFTESTS_LIMIT the seconds an invocation may take before
# it counts as hung (240), THPCOW_SELFTESTS_MODES the modes to compare with
# 'off' ("zero copy"), THPCOW_VM_MODULE the module to load (vm/run sets
# it), THPCOW_CTL the thpcowctl to set the mode with.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"

bin=${THPCOW_SELFTESTS_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/thpcow/selftests/6.1}
ko=${THPCOW_VM_MODULE:-$repo/module/thpcow.ko}
ctl=${THPCOW_CTL:-$repo/tools/thpcowctl/thpcowctl}
limit=240 # seconds per invocation before it counts as hung
env_count limit THPCOW_SELFTESTS_LIMIT
read -ra modes <<<"${THPCOW_SELFTESTS_MODES:-zero copy}"
for m in "${modes[@]}"; do
	[[ $m == @(zero|copy|split) ]] || { echo "THPCOW_SELFTESTS_MODES: zero, copy or split, not '$m'" >&2 && exit 2; }
done
# work MODE: the counters of what the module did itself in that mode.
work() {
	case $1 in
	zero) echo substituted ;;
	copy) echo substituted copied ;;
	split) echo split ;;
	esac
}

# Differences from 'off' that a mode is expected to make, each read in the
# selftest's source: "MODE<TAB>GLOB of sub-test ids<TAB>why". Any other
# difference fails the case.
allowed=(
	# khugepaged's collapse_max_ptes_shared forks while a THP is mapped, writes
	# to it in the child and expects the child's PMD to be split ("Trigger CoW
	# on page 255 of 512" checks for no THP), so that khugepaged then finds
	# ptes shared with the parent. 'copy' gives the child a whole new THP
	# instead (what 'copy' is for): there is no PTE left to share, the check
	# fails, and from 6.1 on the child exits at the next collapse check
	# ("Unexpected huge page"), so its later steps do not run. The parent's
	# "Check if parent still has huge page" passes in every mode. 5.10 has no
	# "Run test:" headings; its steps (the same, with "Do not collapse with
	# max_ptes_shared exceeded") are named alone.
	"copy	khugepaged/collapse_max_ptes_shared (*: Trigger CoW on page * of 512 #1	'copy' gives the forked child a whole THP where the test expects its PMD split and PTEs shared"
	"copy	khugepaged/collapse_max_ptes_shared (*: *max_ptes_shared* #1	the child's collapse steps after that check: they see the child's own THP"
	"copy	khugepaged/Trigger CoW on page * of 512 #1	5.10: the same check of collapse_max_ptes_shared"
	"copy	khugepaged/*max_ptes_shared* #1	5.10: the same collapse steps of collapse_max_ptes_shared"
)
out=$(mktemp -d)
stats=/sys/kernel/debug/thpcow/stats
rundir='' # the directory of the run going on: $out/SELFTEST/RUN (off or a mode)

# --- the guest's mm settings, the same for every run ------------------------

thp=/sys/kernel/mm/transparent_hugepage
settings=(
	"$thp"/enabled "$thp"/defrag "$thp"/use_zero_page "$thp"/shmem_enabled
	"$thp"/khugepaged/{defrag,pages_to_scan,scan_sleep_millisecs,alloc_sleep_millisecs}
	"$thp"/khugepaged/{max_ptes_none,max_ptes_swap,max_ptes_shared}
	/sys/kernel/mm/ksm/{run,pages_to_scan,sleep_millisecs,use_zero_pages,merge_across_nodes}
	/sys/kernel/mm/ksm/max_page_sharing /sys/block/*/queue/read_ahead_kb
)

# Saves each setting as "file value" (the [selected] word of a choice).
settings_save() {
	local f v
	for f in "${settings[@]}"; do
		[[ -f $f ]] || continue
		v=$(<"$f")
		[[ $v =~ \[([a-z+]+)\] ]] && v=${BASH_REMATCH[1]}
		echo "$f $v"
	done >"$out/settings"
}

# Puts them back, as a selftest killed by timeout may not have.
settings_restore() {
	local f v
	while read -r f v; do
		[[ $(<"$f") == "$v" || $(<"$f") == *"[$v]"* ]] || echo "$v" >"$f" 2>/dev/null || true
	done <"$out/settings"
}

stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$stats"; }

module_off() {
	[[ ! -d /sys/module/thpcow ]] || rmmod thpcow
}

# module_for RUN: the module as that run needs it: off, or loaded afresh
# (counters at zero) with RUN as the global mode.
module_for() {
	module_off
	[[ $1 == off ]] && return
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$ko" ${THPCOW_VM_MODPARAMS:-}
	"$ctl" set --global "$1" >/dev/null
	check_eq "$(stat_of global_mode)" "$1" "global mode after thpcowctl set --global $1"
}

# --- result parsers: program output -> "status<TAB>id" lines ----------------

# kselftest TAP: the id is the test number, the last "# [RUN]" heading and
# the description without its directive; XFAIL counts as a pass.
parse_tap() {
	awk -v name="$1" '
	/^# \[RUN\] / { ctx = substr($0, 9); next }
	/^(not )?ok [0-9]+/ {
		st = ($1 == "not") ? "fail" : ($0 ~ /# SKIP/) ? "skip" : "pass"
		id = $0
		sub(/^(not )?ok /, "", id)
		sub(/ *#.*/, "", id)
		print st "\t" name "/" id (ctx == "" ? "" : " [" ctx "]")
	}'
}

# khugepaged: "Run test: NAME (ctx:mem)" headings (none in 5.10), then steps
# that end in OK, Fail..., Timeout or Skip, coloured, after a variable run of
# dots. A step repeated under one heading gets #2, #3...: numbering by name,
# not position, keeps a step's id when a child before it stops early.
parse_khugepaged() {
	awk -v name="$1" '
	{
		gsub(/\033\[[0-9;]*m/, "")
		n = split($0, part, "\r")
		line = part[n]
		sub(/^# /, "", line) # 7.x prints them with ksft_print_msg
	}
	line ~ /^Run test: / { ctx = substr(line, 11); next }
	line ~ /\.\.\. *(OK|Fail.*|Timeout|Skip)$/ {
		st = line
		sub(/^.*\.\.\. */, "", st)
		st = (st == "OK") ? "pass" : (st == "Skip") ? "skip" : "fail"
		step = line
		sub(/\.\.\.+ *(OK|Fail.*|Timeout|Skip)$/, "", step)
		sub(/\.+$/, "", step)
		id = name "/" (ctx == "" ? "" : ctx ": ") step
		print st "\t" id " #" ++seen[id]
	}'
}

# uffd-unit-tests: 6.x prints "Testing NAME on MEM... done|skipped [reason:
# ...]|failed [reason: ...]", 7.x kselftest TAP.
parse_uffd() {
	awk -v name="$1" '
	/^(not )?ok [0-9]+/ {
		st = ($1 == "not") ? "fail" : ($0 ~ /# SKIP/) ? "skip" : "pass"
		id = $0
		sub(/^(not )?ok [0-9]+ /, "", id)
		sub(/ *(#.*|\(.*)$/, "", id)
		print st "\t" name "/" id
		next
	}
	/^Testing .*\.\.\. / {
		id = $0
		sub(/^Testing /, "", id)
		sub(/\.\.\. .*$/, "", id)
		r = $0
		sub(/^.*\.\.\. /, "", r)
		st = (r ~ /^done/) ? "pass" : (r ~ /^skipped/) ? "skip" : "fail"
		print st "\t" name "/" id
	}'
}

# One invocation is one sub-test: its exit status.
parse_exit() {
	local name=$1 rc=$2 st=fail
	((rc == 0)) && st=pass
	((rc == 4)) && st=skip
	printf '%s\t%s\n' "$st" "$name"
}

# sub PARSER NAME CMD...: run CMD under the hang limit, its output to
# $rundir/NAME.log, its sub-tests appended to $rundir/results, and "hang"
# when the limit was hit (timeout's 124, or 137 when it had to SIGKILL),
# after the sub-tests it reported until then. With tries=N and
# finished=FUNCTION a CMD that did not finish (FUNCTION LOG fails; what it
# prints says why) is tried up to N times in all; the log of each try that
# did not finish is kept as NAME.tryK.log, and each try again counts in
# $out/retries.
sub() {
	local parser=$1 name=$2 rc log t0=$SECONDS try=0 why
	shift 2
	log=$rundir/${name//\//_}.log
	[[ -z ${finished:-} ]] || echo "$name 0" >>"$out/retries"
	while :; do
		try=$((try + 1))
		settings_restore
		rc=0
		timeout -k 10 "$limit" "$@" >"$log" 2>&1 || rc=$?
		((rc == 124 || rc == 137 || try >= ${tries:-1})) && break
		why=$("$finished" "$log") && break
		# kept, and shown with the other logs if the case fails
		cp "$log" "${log%.log}.try$try.log"
		echo "${rundir##*/}: $name: try $try did not finish${why:+ ($why)}; running it again"
		echo "$name 1" >>"$out/retries"
	done
	{
		if [[ $parser == exit ]]; then
			((rc == 124 || rc == 137)) || parse_exit "$name" "$rc"
		else
			"parse_$parser" "$name" <"$log"
		fi
		((rc != 124 && rc != 137)) || printf 'hang\t%s\n' "$name"
	} >>"$rundir/results"
	echo "$name: exit $rc$( ((try == 1)) || echo " (try $try)"), $((SECONDS - t0)) s" >>"$rundir/exits"
}

# --- the selftests: what each program's runs are -----------------------------

# It starts from its own default 'enabled' (madvise), not the guest's
# (always): 7.x's khugepaged restores the settings it found at exit(), also in
# a forked child that fails a check (in 'copy', collapse_max_ptes_shared's, see
# 'allowed'), and the parent's later tests would then run with THPs always on.
# It exits non-zero whenever a step fails (4 of them fail on every series
# here), and once in some ten runs on 6.12, without the module, it stopped
# before its first test: a run that did not reach its end is run again, once.
# So is a run that stopped in a test's setup, mapping its area at the fixed
# address it needs ("Failed to allocate VMA at 0x40000000", then exit(), whose
# handler prints the "Restore" line too): once on 6.12 in 'zero', with
# hook_calls 0. That mmap() is of a new, empty area: no fault of thpcow's
# comes before it. A step that fails is the run's result.
khugepaged_finished() {
	! grep -m1 '^Failed to allocate VMA at ' "$1" || return 1
	grep -q 'Restore THP and khugepaged settings' "$1" || # until 6.x
		awk '/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0 } # 7.x: its last test reported
		/^(not )?ok [0-9]+/ { k = ($1 == "not") ? $3 : $2; if (k + 0 > max) max = k + 0 }
		END { exit !(plan > 0 && max == plan) }' "$1"
}
st_khugepaged() {
	# shellcheck disable=SC2016 # $0 is the inner shell's
	tries=2 finished=khugepaged_finished sub khugepaged khugepaged \
		sh -c 'echo madvise >"$1/enabled" && exec "$0"' "$bin/khugepaged" "$thp"
}

# uffd-unit-tests stops at its first ERROR (6.x: "Testing NAME on MEM...
# ERROR: ..."), and the tests after it do not run. On hugetlb memory, which
# thpcow never handles (a hugetlb fault goes to hugetlb_fault(), never to
# do_huge_pmd_wp_page()), 6.12-debug's "events" and "events-wp" tests stopped
# so now and then on a loaded host, with thpcow not loaded (and once in
# 'zero' with no fault reaching it): "UFFDIO_COPY error: -2", the test's
# handler resolving a fault of its forked child. Such a run is run again, up
# to twice, off and each mode alike; an ERROR on any other memory (a
# corruption the test found, say) is the run's result. 7.x prints TAP, with
# no "Testing ... ERROR" line, so its runs are never repeated.
uffd_finished() {
	! grep -m1 -E '^Testing .* on hugetlb(-private)?\.\.\. ERROR: ' "$1"
}

# MiB and bounces: small, as TCG runs its threads slowly; hugetlb needs 2 MiB
# per CPU. Until 6.3 one program (whose hugetlb test maps a file on hugetlbfs
# until 6.1: the last argument), since then the stress part and unit tests.
st_userfaultfd() {
	local stress=$bin/userfaultfd huge=()
	if [[ -x $stress ]]; then
		mkdir -p "$out/hugetlbfs"
		mountpoint -q "$out/hugetlbfs" || mount -t hugetlbfs none "$out/hugetlbfs"
		huge=("$out/hugetlbfs/file")
	else
		stress=$bin/uffd-stress
		tries=3 finished=uffd_finished sub uffd userfaultfd/unit "$bin/uffd-unit-tests"
	fi
	sub exit userfaultfd/anon "$stress" anon 4 4
	sub exit userfaultfd/shmem "$stress" shmem 4 4
	sub exit userfaultfd/hugetlb "$stress" hugetlb 8 4 "${huge[@]}"
}

# Its anonymous sub-tests (7.x: "Split huge pages to order N", "Split zero
# filled huge pages") exit at the first THP that the debugfs split left whole,
# and that split skips, silently, a THP whose refcount is not the expected one
# or whose lock another context holds at that moment (mm/huge_memory.c,
# split_huge_pages_pid(): no split attempted, thp_split_page_failed stays).
# Under TCG that happens without the module too: on 7.3, 22 runs each in two
# guests failed off 2, zero 0, copy 3 ("order 8: expected: 8 got 6" with
# "order 9: expected: 0 got 1", off once with all 4 THPs left whole, or "Still
# AnonHugePages not split"), and the program never reaches thpcow's hook (no
# fork, every first touch a write: hook_calls 0 in every mode). It is not run
# again all the same: a failure thpcow caused half the time would pass on a
# second try; a run that fails where 'off' passed fails the case.
st_split_huge_page_test() { sub exit split_huge_page_test "$bin/split_huge_page_test"; }

# KSM's counters, which the tests check, are global: before each, unmerge
# everything (run=2 also drops the stale stable nodes of exited processes).
# Even so -U fails now and then on the stock kernel (1 to 5 runs in 25 here,
# without the module too: it counts ksmd's full scans racily); it is not run
# again either (see split_huge_page_test).
# The THP merge on 4 MiB (2 THPs; run_vmtests.sh uses 100 MiB): 16 MiB took
# 15-30 s a run here.
ksm_sub() {
	echo 2 >/sys/kernel/mm/ksm/run
	sub exit "$@"
}

st_ksm_tests() {
	ksm_sub ksm_tests/merge "$bin/ksm_tests" -M -p 100
	ksm_sub ksm_tests/unmerge "$bin/ksm_tests" -U -p 100
	ksm_sub ksm_tests/zero-z0 "$bin/ksm_tests" -Z -p 100 -z 0
	ksm_sub ksm_tests/zero-z1 "$bin/ksm_tests" -Z -p 100 -z 1
	ksm_sub ksm_tests/thp-merge "$bin/ksm_tests" -H -s 4
}

st_madv_populate() { sub tap madv_populate "$bin/madv_populate"; }
st_mremap_test() { sub tap mremap_test "$bin/mremap_test"; }
st_mlock2_tests() { sub exit mlock2-tests "$bin/mlock2-tests"; }
st_mlock_random_test() { sub exit mlock-random-test "$bin/mlock-random-test"; }
# It never ends by itself: it passes when the 5 s bound (timeout's 124) stops
# it, allocating and splitting THPs all along.
st_transhuge_stress() {
	# shellcheck disable=SC2016 # $0 and $? are the inner shell's
	sub exit transhuge-stress sh -c 'timeout 5 "$0" 128; [ $? -eq 124 ]' "$bin/transhuge-stress"
}
st_cow() { sub tap cow "$bin/cow"; }

# --- the comparison ----------------------------------------------------------

# counts DIR|FILE: "pass N fail N skip N hang N" of a run (DIR/results).
counts() {
	local f=$1
	[[ -d $f ]] && f=$1/results
	awk -F'\t' '{ n[$1]++ } END {
		printf "pass %d fail %d skip %d hang %d", n["pass"], n["fail"], n["skip"], n["hang"]
	}' "$f"
}

# runs DIR: each invocation's exit status and time.
runs() { paste -sd';' "$1/exits" | sed 's/;/; /g'; }

# ids DIR STATUS: the sorted sub-tests of a run with that status.
ids() { awk -F'\t' -v st="$2" '$1 == st { print $2 }' "$1/results" | LC_ALL=C sort; }

# why_allowed MODE ID: the reason ID may differ from 'off' in MODE, if any.
why_allowed() {
	local a m pat why
	for a in "${allowed[@]}"; do
		IFS=$'\t' read -r m pat why <<<"$a"
		# shellcheck disable=SC2053 # pat is a glob
		[[ $m == "$1" && $2 == $pat ]] && echo "$why" && return
	done
	return 1
}

# hung RUN: fails when an invocation of RUN (off or a mode) hit the limit:
# what it did not reach is compared with nothing, so a hang fails the case
# also where 'off' hung too (then the limit is too short for this kernel).
hung() {
	local id bad=0
	while IFS= read -r id; do
		echo "$1: hung (killed after ${limit}s; its sub-tests until then are compared): $id"
		bad=1
	done < <(ids "$out/$st/$1" hang)
	return "$bad"
}

# compare MODE: judge the run of MODE against 'off' (in $out/$st).
compare() {
	local mode=$1 off=$out/$st/off on=$out/$st/$1 bad=0 id why
	hung "$mode" || bad=1
	# Sub-tests 'off' passed and MODE did not, and new failures.
	while IFS= read -r id; do
		if why=$(why_allowed "$mode" "$id"); then
			echo "$mode: allowed difference: $id: $why"
		else
			echo "$mode: differs from off: $id"
			bad=1
		fi
	done < <({
		LC_ALL=C comm -23 <(ids "$off" pass) <(ids "$on" pass)
		LC_ALL=C comm -13 <(ids "$off" fail) <(ids "$on" fail)
	} | LC_ALL=C sort -u)
	# ... and the other way round: the stock kernel's failure, not thpcow's.
	while IFS= read -r id; do
		echo "$mode: passed where off did not (the stock kernel's failure): $id"
	done < <(LC_ALL=C comm -13 <(ids "$off" pass) <(ids "$on" pass))
	return "$bad"
}

# run_mode MODE: run $st's programs in MODE into $out/$st/MODE.
run_mode() {
	local r=$1 c
	mkdir -p "$out/$st/$r"
	: >"$out/$st/$r/results"
	: >"$out/$st/$r/exits"
	module_for "$r"
	rundir=$out/$st/$r "st_$st"
	echo "$r: $(counts "$out/$st/$r") ($(runs "$out/$st/$r"))"
	[[ $r == off ]] && return
	echo "$r $(for c in $(work "$r"); do echo "$c $(stat_of "$c")"; done | tr '\n' ' ')" >>"$out/work"
	# What the hook saw during this run: its nonzero counters.
	echo "$r: thpcow counters: $(awk '$2 ~ /^[0-9]+$/ && $2 > 0 && $1 != "policies" &&
		$1 != "native_zero" { printf "%s %s ", $1, $2; n++ } END { if (!n) print "none" }' "$stats")"
}

# off_on SELFTEST: run it without the module and in each mode, and compare.
off_on() {
	local st=$1 r bad=0 f c p on=() t0=$SECONDS
	shift
	for p; do
		[[ -x $bin/$p ]] || skip "no $p in $bin"
		echo "$p: $(awk -v p="$p" '$1 == p { $1 = ""; print "from" $0 }' "$bin/origin" 2>/dev/null)"
	done
	for r in "${modes[@]}"; do
		[[ $r == copy && " ${zero_only[*]} " == *" $st "* ]] || on+=("$r")
	done
	for r in off "${on[@]}"; do
		run_mode "$r"
	done
	[[ -s $out/$st/off/results ]] || { echo "the off run reported no sub-test" && bad=1; }
	echo "runs: off ${on[*]}, $((SECONDS - t0)) s in all"
	hung off || bad=1
	for r in "${on[@]}"; do
		compare "$r" || bad=1
	done
	if ((bad)); then
		for r in off "${on[@]}"; do
			for f in "$out/$st/$r"/*.log; do
				echo "--- the end of $f"
				tail -n 15 "$f"
			done
		done
	fi
	return "$bad"
}

# 'copy' differs from 'zero' only on a write to a THP shared after fork(); these
# programs never fork, so their writes on the huge zero page are all 'zero'
# needs to see, and they run in 'zero' only ('copy' on them would take 3-4
# minutes a kernel, ksm_tests' THP merge most of it). 'copy' runs the ones that
# fork (cow, khugepaged, userfaultfd) and split_huge_page_test and
# transhuge-stress, the THP split paths.
zero_only=(ksm_tests mremap_test madv_populate mlock2_tests mlock_random_test)

# Each case: off_on SELFTEST PROGRAM... (the programs it needs).
khugepaged() { off_on khugepaged khugepaged; }
userfaultfd() {
	if [[ -x $bin/userfaultfd ]]; then off_on userfaultfd userfaultfd; else
		off_on userfaultfd uffd-stress uffd-unit-tests; fi
}
split_huge_page_test() { off_on split_huge_page_test split_huge_page_test; }
ksm_tests() { off_on ksm_tests ksm_tests; }
madv_populate() { off_on madv_populate madv_populate; }
mremap_test() { off_on mremap_test mremap_test; }
mlock2_tests() { off_on mlock2_tests mlock2-tests; }
mlock_random_test() { off_on mlock_random_test mlock-random-test; }
transhuge_stress() { off_on transhuge_stress transhuge-stress; }
cow() { off_on cow cow; }

# The comparisons only mean something if the modes' runs took the module's
# path: in each mode each of its own counters grew ('copy': substituted and
# copied), summed over its runs. Also the totals of every run.
module_worked() {
	local r bad=0 n c
	for r in off "${modes[@]}"; do
		echo "total $r ($(find "$out" -mindepth 2 -maxdepth 2 -name "$r" | wc -l) selftests):" \
			"$(cat "$out"/*/"$r"/results 2>/dev/null | counts /dev/stdin)"
	done
	for r in "${modes[@]}"; do
		# On a kernel that substitutes itself (7.x) 'zero' passes through.
		if [[ $r == zero && $(stat_of native_zero) == 1 ]]; then
			echo "zero: the kernel substitutes natively (native_zero 1): nothing to count"
			continue
		fi
		for c in $(work "$r"); do
			n=$(awk -v r="$r" -v c="$c" '$1 == r { for (i = 2; i < NF; i += 2) if ($i == c) s += $(i + 1) }
				END { print s + 0 }' "$out/work" 2>/dev/null)
			echo "$r: $c over all its runs: $n"
			((n > 0)) || bad=1
		done
	done
	return "$bad"
}

cases=(
	khugepaged             # collapse of anon memory, both contexts
	userfaultfd            # (6.4+: unit tests,) anon, shmem, hugetlb stress, 4 bounces
	split_huge_page_test   # debugfs splits of PMD- and PTE-mapped THPs
	ksm_tests              # merge, unmerge, zero pages (both ways), THP merge
	madv_populate          # MADV_POPULATE_READ/WRITE, holes, soft-dirty
	mremap_test            # mremap of PTE/PMD/PUD-aligned regions
	mlock2_tests           # mlock2 and MLOCK_ONFAULT
	mlock_random_test      # mlock within and over RLIMIT_MEMLOCK
	transhuge_stress       # 15 s of THP allocate and split, no error
	cow                    # the newest tree's CoW tests, huge zeropage ones included
	module_worked          # each mode's runs took the module's path; totals
)

[[ -x $bin/cow ]] || { echo "no selftests in $bin: run vm/selftests-build first" >&2; exit 1; }
[[ -x $ctl ]] || { echo "no $ctl: make tools first" >&2; exit 1; }
[[ -f $ko ]] || { echo "no $ko" >&2; exit 1; }
echo 64 >/proc/sys/vm/nr_hugepages # userfaultfd hugetlb and cow's hugetlb tests
settings_save
# Afterwards the module is loaded as vm/run left it, with no parameter.
# shellcheck disable=SC2086 # one word per parameter
trap 'module_off; insmod "$ko" ${THPCOW_VM_MODPARAMS:-}; rm -rf "$out"' EXIT
: >"$out/retries"
tap_run "${cases[@]}"
rc=$?
# Each invocation that may be run again, and how often it was, over all runs.
retries=$(awk '{ n[$1] += $2 } END { for (k in n) print k " " n[k] }' "$out/retries" | sort | paste -sd, | sed "s/,/, /g")
echo "# retries: ${retries:-none of the programs run may be run again}"
exit "$rc"
