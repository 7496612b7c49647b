#!/usr/bin/env bash
# tests/host/unit.t: dist/thpcow.service as systemd sees it, without
# installing it: systemd-analyze security rates it at most 4.0 (what is left
# is what loading a module and /dev/thpcow need), it is skipped through
# ExecCondition= where thpcow is not needed, and the lines that systemd
# would ignore are none. tests/vm/systemd.t runs it in a guest. The
# example dist/thpcow-metrics.service: its command, run here against the
# fake device, writes the Prometheus file whole or not at all.
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

metrics=$repo/dist/thpcow-metrics.service
ctl_dir=$repo/tools/thpcowctl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# metrics_exec DIR: the unit's ExecStart= with DIR, thpcowctl the one
# built here, on the fake device with FAKE=1 (else on none).
metrics_exec() {
	local cmd
	cmd=$(sed -n "s/^ExecStart=sh -c '\\(.*\\)'$/\\1/p" "$metrics")
	mkdir -p "$tmp/bin"
	printf '#!/bin/sh\nexport THPCOWCTL_DEVICE=/nonexistent/thpcow FAKE_LOG=/dev/null\n%s\nexec "%s" "$@"\n' \
		"${FAKE:+export LD_PRELOAD=$ctl_dir/test_fakedev.so}" "$ctl_dir/thpcowctl" >"$tmp/bin/thpcowctl"
	chmod +x "$tmp/bin/thpcowctl"
	DIR=$1 PATH="$tmp/bin:$PATH" sh -c "$cmd"
}

metrics_unit() {
	need_analyze
	check_eq "$(systemd-analyze verify --man=no "$metrics" "${metrics%.service}.timer" 2>&1)" "" \
		"systemd-analyze verify"
}

metrics_atomic() {
	local out=$tmp/textfile
	make -s -C "$ctl_dir" thpcowctl test_fakedev.so >&2 || return
	mkdir -p "$out"
	FAKE=1 metrics_exec "$out" || return
	check_eq "$(ls -A "$out")" thpcow.prom "the directory: the file, no temporary"
	FAKE=1 metrics_exec "$tmp" # rewrites bin/thpcowctl with the fake
	"$tmp/bin/thpcowctl" stats -n -r >"$tmp/stats"
	printf 'policies 2\nglobal_mode zero\n' >>"$tmp/stats"
	check_eq "$("$repo/tests/guest/prometheus-check.py" "$out/thpcow.prom" "$tmp/stats" 2097152)" ok \
		"prometheus_client parses it"
	echo old >"$out/thpcow.prom"
	if metrics_exec "$out" 2>/dev/null; then
		echo "without the module it succeeded"
		return 1
	fi
	check_eq "$(ls -A "$out" && cat "$out/thpcow.prom")" "thpcow.prom
old" "without the module: the old file, no temporary"
}

cases=(
	security_score     # systemd-analyze security: exposure at most 4.0
	no_ignored_lines   # no line systemd warns about and ignores
	skips_by_condition # ExecCondition=thpcowctl probe --condition
	metrics_unit       # thpcow-metrics.service and .timer: systemd-analyze verify
	metrics_atomic     # its command: the .prom file whole, or the old one
)
tap_run "${cases[@]}"
