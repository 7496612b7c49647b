#!/usr/bin/env bash
# shellcheck disable=SC2016 # the made-up files' bodies expand for themselves
# tests/host/check.t: tests/check finds, runs and counts right, one file at a time (-j1) and
# side by side (-j2). Each case runs a copy of tests/check (and of
# tests/lib/tap.sh) in a made-up tree of test files, with a vm/run that only
# logs its options and runs COMMAND, and checks its last line, its status
# and what it ran; the -j cases also when each file ran (spans), its output
# kept whole and in order, and what it left running.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# tree PATH=BODY...: a tree ($t) with one executable file per argument at
# PATH (host/NAME.t, vm/NAME.t under tests/; guest/NAME.sh; vm/tests/NAME.t),
# whose body is BODY, a copy of tests/check, tests/lib/tap.sh and
# vm/lib/series.sh and vm/series, and a vm/run that logs its options to runs (one line
# of [OPTION] per run) and runs COMMAND.
tree() {
	local arg path
	t=$scratch/$BASHPID
	rm -rf "$t"
	mkdir -p "$t/tests/lib" "$t/vm/lib"
	cp "$repo/tests/check" "$t/tests/"
	cp "$repo/tests/lib/tap.sh" "$t/tests/lib/"
	cp "$repo/vm/lib/series.sh" "$t/vm/lib/"
	cp "$repo/vm/series" "$t/vm/"
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
}

# with PATH=BODY...: tree PATH=BODY..., then its tests/check (with the
# options in j, split at spaces, and FILTER if set); sets out (all it
# printed), last (its last line), rc and runs (vm/run's log).
with() {
	tree "$@"
	rc=0
	# shellcheck disable=SC2086 # j is split on purpose: -j 1
	out=$("$t/tests/check" ${j:-} ${filter:+"$filter"}) || rc=$?
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

# untimed OUT: OUT without what depends on the clock (each file's time, the
# slowest, the total).
untimed() {
	grep -vE '^# ---- .*: [0-9]+\.[0-9] s$|^# the slowest:$|^#  +[0-9]+\.[0-9] s  |^# total: ' <<<"$1"
}

# -j2 shows what -j1 shows, but for the times: each file whole, in the
# order of the files, though b.t ends before a.t; counted the same.
parallel_output_as_serial() {
	local files=(host/a.t='echo 1..2; sleep 0.5; echo ok 1 a; echo not ok 2 a; exit 1'
		host/b.t='echo 1..1; echo "ok 1 b # SKIP b"'
		guest/c.sh='# vm: --kernel 6.12
# vm: --tcg-threads single
# vm-all: --kernel 5.10
echo 1..1; sleep 0.2; echo ok 1 c'
		vm/d.t='echo 1..2; echo ok 1 d') serial
	j=-j1 with "${files[@]}"
	serial=$out
	check_eq "$last" "4 passed, 2 failed, 1 skipped" "-j1's last line"
	j=-j2 with "${files[@]}"
	check_eq "$(untimed "$out")" "$(untimed "$serial")" "-j2's output, but for the times"
	check_eq "$rc" 1 "-j2's exit status"
}

# span NAME WEIGHT SECONDS: the body of a test file that sleeps SECONDS and
# appends "NAME WEIGHT START END" to the tree's spans.
span() {
	printf 't0=$EPOCHREALTIME; sleep %s; echo "%s %s $t0 $EPOCHREALTIME" >>"$(dirname "$0")/../../spans"
echo 1..1; echo ok 1 %s' "$3" "$1" "$2" "$1"
}

# peak: the most weight that ran at once (spans: at each start, the weights
# of the files running then), and the most files.
peak() {
	awk '{ n++; name[n] = $1; w[n] = $2; t0[n] = $3; t1[n] = $4 }
		END { for (i = 1; i <= n; i++) {
			sum = 0; files = 0
			for (j = 1; j <= n; j++) if (t0[j] <= t0[i] && t0[i] < t1[j]) { sum += w[j]; files++ }
			if (sum > pw) pw = sum
			if (files > pf) pf = files
		} print pw, pf }' "$t/spans"
}

# Files run side by side up to -j's weight: a host .t weighs 1 or its
# "# jobs:", a tests/vm/*.t 2, a guest script's run 1 with one TCG thread
# (6.12, --tcg-threads single, a prebuilt series of one thread), else its
# vCPUs. -j 1 and THPCOW_JOBS=1 run one at a time (-j1: see
# parallel_output_as_serial); -j2 is the default on 2 cores or more.
parallel_weights() {
	local want files=(host/a.t="$(span a 1 2)" host/b.t="# jobs: 2
$(span b 2 1)" guest/c.sh="# vm: --kernel 6.1
$(span c 2 1)" guest/d.sh="# vm: --kernel 6.12 --append '--cpus 4'
$(span d 1 1)" guest/e.sh="# vm: --cpus 4 --tcg-threads single
$(span e 1 1)" guest/f.sh="# vm: --kernel ubuntu-6.8
$(span f 1 1)" guest/g.sh="# vm: --cpus 1
$(span g 1 1)" vm/h.t="$(span h 2 1)")
	j=-j2 with "${files[@]}"
	check_eq "$last" "8 passed, 0 failed" "-j2's last line"
	check_eq "$(peak)" "2 2" "-j2: the most weight and files at once"
	j='-j 1' with host/a.t="$(span a 1 1)" host/b.t="$(span b 1 1)"
	check_eq "$(peak)" "1 1" "-j 1: the most weight and files at once"
	THPCOW_JOBS=1 with host/a.t="$(span a 1 1)" host/b.t="$(span b 1 1)"
	check_eq "$(peak)" "1 1" "THPCOW_JOBS=1: the most weight and files at once"
	unset THPCOW_JOBS
	j='' with host/a.t="$(span a 1 1)" host/b.t="$(span b 1 1)"
	want="1 1"
	(($(nproc) < 2)) || want="2 2"
	check_eq "$(peak)" "$want" "by default ($(nproc) cores): the most weight and files at once"
	j=-j3 with host/a.t="# jobs: 2
$(span a 2 1)" host/b.t="$(span b 1 1)" host/c.t="# jobs: 9
$(span c 3 1)"
	check_eq "$(peak)" "3 2" "-j3: the most weight and files at once (9 runs alone)"
}

# A bad -j is a usage error; a bad "# jobs:" line fails that file, unrun.
jobs_errors() {
	j=-j0 with host/a.t='echo 1..1; echo ok 1 x'
	check_eq "$rc" 2 "-j0's exit status"
	j=-j with host/a.t='echo 1..1; echo ok 1 x'
	check_eq "$rc" 2 "-j's exit status"
	THPCOW_JOBS=x with host/a.t='echo 1..1; echo ok 1 x'
	check_eq "$rc" 2 "THPCOW_JOBS=x's exit status"
	with host/a.t='# jobs: two
echo 1..1; echo ok 1 x' host/b.t='echo 1..1; echo ok 1 y'
	check_eq "$last" "1 passed, 1 failed" "last line"
	check_match "$out" '# tests/host/a\.t: FAILED: a bad "# jobs:" line: two' "the reason"
}

# The first file not yet shown streams while it runs: a.t waits for the
# file go, made once a.t's first line is out.
head_streams() {
	tree host/a.t='echo 1..1; top=$(dirname "$0")/../..
for i in $(seq 100); do [ -e "$top/go" ] && echo "ok 1 saw go" && exit; sleep 0.1; done
echo "not ok 1 no go"' host/b.t='echo 1..1; echo ok 1 b'
	"$t/tests/check" -j2 >"$t/out" &
	for _ in $(seq 100); do
		grep -qs '^1\.\.1$' "$t/out" && break
		sleep 0.1
	done
	touch "$t/go"
	wait $! || true
	check_eq "$(tail -n 1 "$t/out")" "2 passed, 0 failed" "last line"
}

# gone PID: PID ends within 2 s (a signal takes effect a moment after kill
# returns); a zombie not reaped yet counts as ended.
gone() {
	local stat
	for _ in $(seq 20); do
		stat=$(ps -o stat= -p "$1") && [[ $stat != Z* ]] || return 0
		sleep 0.1
	done
	echo "$1 is still running"
	kill "$1"
	return 1
}

# A file ended leaves nothing running (a failing one here), and
# tests/check ended (SIGTERM) ends every file running, a guest's too.
nothing_left() {
	local pid
	j=-j2 with host/a.t='sleep 300 >/dev/null & echo $! >"$(dirname "$0")/../../pid.a"
echo 1..1; echo not ok 1 a; exit 1'
	check_eq "$last" "0 passed, 1 failed" "last line"
	pid=$(cat "$t/pid.a")
	gone "$pid"
	tree host/a.t='sleep 300 & echo $! >"$(dirname "$0")/../../pid.a"; wait' guest/b.sh='# vm: --kernel 6.12
sleep 300 & echo $! >pid.b; wait'
	"$t/tests/check" -j2 >"$t/out" &
	for _ in $(seq 100); do
		[[ -s $t/pid.a && -s $t/pid.b ]] && break
		sleep 0.1
	done
	kill -TERM $!
	rc=0
	wait $! || rc=$?
	check_eq "$rc" 130 "tests/check's exit status"
	for pid in "$(cat "$t/pid.a")" "$(cat "$t/pid.b")"; do
		gone "$pid"
	done
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
	parallel_output_as_serial # -j2's output is -j1's but for the times, in order, counted the same
	parallel_weights    # side by side up to -j's weight; -j1, THPCOW_JOBS=1: one at a time
	jobs_errors         # a bad -j, THPCOW_JOBS or "# jobs:" line
	head_streams        # the first file not yet shown streams as it runs
	nothing_left        # a file's leftovers and, on SIGTERM, every running file, ended
)
tap_run "${cases[@]}"
