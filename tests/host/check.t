#!/usr/bin/env bash
# shellcheck disable=SC2016 # the made-up files' bodies expand for themselves
# tests/host/check.t: tests/check finds, runs and counts right. Each case runs
# a copy of tests/check (and of tests/lib/tap.sh) in a made-up tree of test
# files, with a vm/run that only logs its options and runs COMMAND, and
# checks its last line, its status and what it ran.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# with PATH=BODY...: a tree with one executable file per argument at PATH
# (host/NAME.t, vm/NAME.t under tests/; guest/NAME.sh; vm/tests/NAME.t),
# whose body is BODY; runs its tests/check (FILTER if set) and sets out (all
# it printed), last (its last line), rc and runs (vm/run's log: one line of
# [OPTION] per run).
with() {
	local t=$scratch/$BASHPID arg path
	rm -rf "$t"
	mkdir -p "$t/tests/lib" "$t/vm"
	cp "$repo/tests/check" "$t/tests/"
	cp "$repo/tests/lib/tap.sh" "$t/tests/lib/"
	printf '#!/bin/sh\nwhile [ "$1" != -- ]; do printf "[%%s]" "$1" >>"%s/runs"; shift; done\necho >>"%s/runs"\nshift\nexec "$@"\n' \
		"$t" "$t" >"$t/vm/run"
	chmod +x "$t/vm/run"
	for arg; do
		path=${arg%%=*}
		[[ $path == vm/tests/* ]] || path=tests/$path
		mkdir -p "$t/$(dirname "$path")"
		printf '#!/bin/bash\n%s\n' "${arg#*=}" >"$t/$path"
		chmod +x "$t/$path"
	done
	rc=0
	out=$("$t/tests/check" ${filter:+"$filter"}) || rc=$?
	last=$(tail -n 1 <<<"$out")
	runs=$(cat "$t/runs" 2>/dev/null || true)
}

all_pass() {
	with host/a.t='echo 1..2; echo ok 1 x; echo ok 2 y' host/b.t='echo 1..1; echo ok 1 z'
	check_eq "$last" "3 passed, 0 failed" "last line"
	check_eq "$rc" 0 "exit status"
}

failure_counts() {
	with host/a.t='echo 1..2; echo ok 1 x; echo not ok 2 y; exit 1'
	check_eq "$last" "1 passed, 1 failed" "last line"
	check_eq "$rc" 1 "exit status"
}

skips_counted() {
	with host/a.t='echo 1..2; echo ok 1 x; echo "ok 2 y # SKIP no reason"'
	check_eq "$last" "1 passed, 0 failed, 1 skipped" "last line"
	check_eq "$rc" 0 "exit status"
}

plan_mismatch_fails() {
	with host/a.t='echo 1..3; echo ok 1 x; echo ok 2 y'
	check_eq "$last" "2 passed, 1 failed" "last line"
	check_eq "$rc" 1 "exit status"
}

crash_fails() {
	with host/a.t='echo 1..1; echo ok 1 x; exit 3'
	check_eq "$last" "1 passed, 1 failed" "last line"
}

no_tap_fails() {
	with host/a.t='echo hello'
	check_eq "$last" "0 passed, 1 failed" "last line"
}

filter_selects() {
	filter=host/b with host/a.t='echo 1..1; echo not ok 1 x' host/b.t='echo 1..1; echo ok 1 y'
	check_eq "$last" "1 passed, 0 failed" "last line"
}

# The order: host tests, the harness's, guest scripts, then tests/vm/*.t.
groups_in_order() {
	with vm/z.t='echo 1..1; echo ok 1 vm' guest/y.sh='# vm: --kernel 6.1
echo 1..1; echo ok 1 guest' vm/tests/x.t='echo 1..1; echo ok 1 harness' host/w.t='echo 1..1; echo ok 1 host'
	check_eq "$(grep -v ' s$' <<<"$out" | grep -o '^# ---- [^:(]*' | tr '\n' ' ')" \
		"# ---- tests/host/w.t # ---- vm/tests/x.t # ---- tests/guest/y.sh  # ---- tests/vm/z.t " "the files run, in order"
	check_eq "$last" "4 passed, 0 failed" "last line"
}

# A guest script runs under vm/run with its header's options, from the
# repository's top, once per "# vm:" line; one without a header is not run.
header_runs_guest_script() {
	with guest/a.sh='# vm: --kernel 6.1 --append "a b" --timeout 9
# vm: --kernel 6.12
echo 1..1; echo "ok 1 in $PWD"' guest/lib.sh='echo 1..1; echo not ok 1 run'
	check_eq "$last" "2 passed, 0 failed" "last line"
	check_eq "$runs" $'[--kernel][6.1][--append][a b][--timeout][9]\n[--kernel][6.12]' "vm/run's options"
	check_match "$out" $'\nok 1 in '"$scratch/[0-9]+"$'\n' "the working directory"
	check_match "$out" '# ---- tests/guest/a\.sh \(--kernel 6\.12\): [0-9]+\.[0-9] s' "the second run's name and time"
}

# Only the leading comments are read: a "# vm:" line further down is not a header.
header_only_leading() {
	with guest/a.sh='true
# vm: --kernel 6.1
echo 1..1; echo ok 1 x' host/b.t='echo 1..1; echo ok 1 y'
	check_eq "$last" "1 passed, 0 failed" "last line"
	check_eq "$runs" "" "vm/run's runs"
}

# A header-driven run that exits non-zero with passing TAP (vm/run's 125: the
# guest kernel warned) fails.
header_run_status_counts() {
	with guest/a.sh='# vm: --kernel 6.1
echo 1..1; echo ok 1 x; exit 125'
	check_eq "$last" "1 passed, 1 failed" "last line"
	check_match "$out" 'tests/guest/a\.sh \(--kernel 6\.1\): FAILED: exit status 125' "the reason"
}

# "# vm-all:" runs only with THPCOW_CHECK=all, which reaches the script too.
vm_all_only_in_check_all() {
	local body='# vm: --kernel 6.1
# vm-all: --kernel 6.12
echo 1..1; echo "ok 1 check=${THPCOW_CHECK:-}"'
	THPCOW_CHECK='' with guest/a.sh="$body"
	check_eq "$last" "1 passed, 0 failed" "make check's last line"
	check_eq "$runs" "[--kernel][6.1]" "make check's runs"
	check_match "$out" 'tests/guest/a\.sh \(--kernel 6\.12\): long, not in make check' "the run left out, named"
	THPCOW_CHECK=all with guest/a.sh="$body"
	check_eq "$last" "2 passed, 0 failed" "make check-all's last line"
	check_eq "$runs" $'[--kernel][6.1]\n[--kernel][6.12]' "make check-all's runs"
	check_match "$out" 'ok 1 check=all' "THPCOW_CHECK in the script"
}

# tap_run's --long cases: planned and run only with THPCOW_CHECK=all.
long_cases() {
	local body='source "$(dirname "$0")/../lib/tap.sh"
a() { true; }; b() { false; }
tap_run a --long b'
	THPCOW_CHECK='' with host/a.t="$body"
	check_eq "$last" "1 passed, 0 failed" "make check's last line"
	check_match "$out" $'\n1\\.\\.1\n# long, not planned [^\n]*: b\n' "make check's plan, and the case left out"
	THPCOW_CHECK=all with host/a.t="$body"
	check_eq "$last" "1 passed, 1 failed" "make check-all's last line"
	check_match "$out" $'\n1\\.\\.2\n' "make check-all's plan"
}

# A bare "# vm:" is a run with vm/run's defaults, a tab after the colon
# is a space; a line the shell could not split (an open quote) fails,
# naming the line, and runs nothing.
header_forms() {
	with guest/a.sh='# vm:
# vm:	--kernel 6.12
echo 1..1; echo ok 1 x'
	check_eq "$last" "2 passed, 0 failed" "last line"
	check_eq "$runs" $'\n[--kernel][6.12]' "vm/run's options"
	with guest/a.sh='# vm: --timeout 9 "x
echo 1..1; echo ok 1 x'
	check_eq "$last" "0 passed, 1 failed" "a bad header's last line"
	check_eq "$rc" 1 "a bad header's exit status"
	check_eq "$runs" "" "a bad header's runs"
	check_match "$out" 'tests/guest/a\.sh: FAILED: a bad "# vm:" line: --timeout 9 "x' "the reason"
}

# Every guest script of the real tree runs somewhere: it has a "# vm:" line,
# or a tests/vm/*.t names it (a header mistyped or pushed below the leading
# comments would drop it from make check without a word).
guest_scripts_all_run() {
	local g name orphans=()
	for g in "$repo"/tests/guest/*.sh; do
		name=tests/guest/${g##*/}
		grep -qE '^# vm(-all)?:( |	|$)' <(awk '!/^#/ { exit } { print }' "$g") && continue
		grep -qF "$name" "$repo"/tests/vm/*.t && continue
		orphans+=("$name")
	done
	check_eq "${orphans[*]}" "" "guest scripts that nothing runs"
}

# Each file's time, then the slowest and the total, before the last line.
times_shown() {
	with host/a.t='sleep 0.3; echo 1..1; echo ok 1 x' host/b.t='echo 1..1; echo ok 1 y'
	check_match "$out" $'\nok 1 x\n# ---- tests/host/a\\.t: 0\\.[3-9] s\n' "a.t's time after its TAP"
	check_match "$(tail -n 5 <<<"$out")" $'^# the slowest:\n#  +0\\.[3-9] s  tests/host/a\\.t\n#  +[0-9.]+ s  tests/host/b\\.t\n# total: [0-9]+\\.[0-9] s for 2 runs[^\n]*\n2 passed, 0 failed$' \
		"the slowest first, the total, then the last line"
}

cases=(
	all_pass            # passes add up across files; exit 0
	failure_counts      # a "not ok" is a failure; exit non-zero
	skips_counted       # "# SKIP" is counted apart, and only shown when there are some
	plan_mismatch_fails # fewer results than planned is a failure
	crash_fails         # a file exiting non-zero with no "not ok" is a failure
	no_tap_fails        # a file printing no TAP at all is a failure
	filter_selects      # tests/check FILTER runs only the matching files
	groups_in_order     # host, harness, guest scripts, tests/vm/*.t
	header_runs_guest_script # "# vm: OPTIONS" runs the script under vm/run, once a line
	header_only_leading # a "# vm:" line below the leading comments is no header
	header_run_status_counts # a header-driven run's exit status counts
	vm_all_only_in_check_all # "# vm-all:" only with THPCOW_CHECK=all (make check-all)
	long_cases          # tap_run --long: planned only with THPCOW_CHECK=all
	header_forms        # a bare "# vm:", a tab; an unsplittable line fails
	guest_scripts_all_run # every tests/guest/*.sh has a header or a tests/vm/*.t
	times_shown         # each file's time; the slowest and the total before the last line
)
tap_run "${cases[@]}"
