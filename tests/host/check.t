#!/usr/bin/env bash
# tests/host/check.t: tests/check counts TAP right. Each case runs a copy of
# tests/check over made-up test files and checks its last line and status.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# with NAME=BODY...: a tests/ tree with one executable host/NAME.t per
# argument, whose body is BODY; runs its tests/check and sets last and rc.
with() {
	local t=$scratch/$BASHPID arg
	mkdir -p "$t/host" "$t/vm"
	cp "$repo/tests/check" "$t/"
	for arg; do
		printf '#!/bin/sh\n%s\n' "${arg#*=}" >"$t/host/${arg%%=*}.t"
		chmod +x "$t/host/${arg%%=*}.t"
	done
	rc=0
	last=$("$t/check" ${filter:+"$filter"} | tail -n 1) || rc=$?
}

all_pass() {
	with a='echo 1..2; echo ok 1 x; echo ok 2 y' b='echo 1..1; echo ok 1 z'
	check_eq "$last" "3 passed, 0 failed" "last line"
	check_eq "$rc" 0 "exit status"
}

failure_counts() {
	with a='echo 1..2; echo ok 1 x; echo not ok 2 y; exit 1'
	check_eq "$last" "1 passed, 1 failed" "last line"
	check_eq "$rc" 1 "exit status"
}

skips_counted() {
	with a='echo 1..2; echo ok 1 x; echo "ok 2 y # SKIP no reason"'
	check_eq "$last" "1 passed, 0 failed, 1 skipped" "last line"
	check_eq "$rc" 0 "exit status"
}

plan_mismatch_fails() {
	with a='echo 1..3; echo ok 1 x; echo ok 2 y'
	check_eq "$last" "2 passed, 1 failed" "last line"
	check_eq "$rc" 1 "exit status"
}

crash_fails() {
	with a='echo 1..1; echo ok 1 x; exit 3'
	check_eq "$last" "1 passed, 1 failed" "last line"
}

no_tap_fails() {
	with a='echo hello'
	check_eq "$last" "0 passed, 1 failed" "last line"
}

filter_selects() {
	filter=host/b with a='echo 1..1; echo not ok 1 x' b='echo 1..1; echo ok 1 y'
	check_eq "$last" "1 passed, 0 failed" "last line"
}

cases=(
	all_pass            # passes add up across files; exit 0
	failure_counts      # a "not ok" is a failure; exit non-zero
	skips_counted       # "# SKIP" is counted apart, and only shown when there are some
	plan_mismatch_fails # fewer results than planned is a failure
	crash_fails         # a file exiting non-zero with no "not ok" is a failure
	no_tap_fails        # a file printing no TAP at all is a failure
	filter_selects      # tests/check FILTER runs only the matching files
)
tap_run "${cases[@]}"
