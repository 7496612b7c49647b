#!/usr/bin/env bash
# tests/host/unit.t: dist/thpcow.service as systemd sees it, without
# installing it: systemd-analyze security rates it at most 4.0 (what is left
# is what loading a module and /dev/thpcow need), it is skipped through
# ExecCondition= where thpcow is not needed, and the lines that systemd
# would ignore are none. tests/vm/systemd.t runs it in a guest.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
unit=$repo/dist/thpcow.service

need_analyze() {
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
	systemd-analyze security --help 2>/dev/null | grep -q -- --offline ||
		skip "systemd-analyze security has no --offline (systemd < 250)"
}

security_score() {
	local out score
	need_analyze
	out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1)
	score=$(sed -n 's/^→ Overall exposure level for thpcow.service: \([0-9.]*\) .*/\1/p' <<<"$out")
	echo "exposure $score; what is left:"
	grep '^✗' <<<"$out" | sed 's/  .*//'
	check_match "$score" '^[0-9]+\.[0-9]$' "the score"
	((${score/./} <= 40)) || {
		echo "exposure $score > 4.0"
		return 1
	}
}

# Every line systemd reads: an unknown key or a bad value is only a
# warning in the journal, so it is checked here.
no_ignored_lines() {
	local out
	need_analyze
	out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1 >/dev/null)
	check_eq "$out" "" "systemd-analyze's warnings"
}

skips_by_condition() {
	check_eq "$(grep '^ExecCondition=' "$unit")" "ExecCondition=thpcowctl probe --condition" \
		"ExecCondition="
	check_eq "$(grep -c '^ExecStart=' "$unit")" 2 "ExecStart= lines (modprobe, apply)"
}

cases=(
	security_score     # systemd-analyze security: exposure at most 4.0
	no_ignored_lines   # no line systemd warns about and ignores
	skips_by_condition # ExecCondition=thpcowctl probe --condition
)
tap_run "${cases[@]}"
