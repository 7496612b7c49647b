#!/usr/bin/env bash
# tests/host/alerts.t: dist/prometheus/thpcow.rules.yml as Prometheus reads
# it (promtool check rules), each alert firing, and not, on the synthetic
# series of tests/data/alerts.yml (promtool test rules), every thpcow
# metric it names one that thpcowctl prints, and what thpcowctl prints
# (stats and usage --format prometheus, on the fake device) passing
# promtool's own lint (check metrics); ThpcowModuleDown's kernel series
# those dkms.conf builds for (and docs/install.md lists). promtool: Debian's
# prometheus.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
rules=$repo/dist/prometheus/thpcow.rules.yml
ctl_dir=$repo/tools/thpcowctl

need_promtool() {
	command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"
}

# stats, then usage, as thpcow-metrics.service writes them, on the fake device
metrics() {
	make -s -C "$ctl_dir" thpcowctl test_fakedev.so >&2 || return
	local c
	for c in stats usage; do
		THPCOWCTL_DEVICE=/nonexistent/thpcow FAKE_LOG=/dev/null \
			LD_PRELOAD="$ctl_dir/test_fakedev.so" "$ctl_dir/thpcowctl" "$c" --format prometheus || return
	done
}

check_rules() {
	need_promtool
	promtool check rules "$rules"
}

test_rules() {
	need_promtool
	promtool test rules "$repo/tests/data/alerts.yml"
}

# a rule on a metric renamed or never written never fires
names_exist() {
	local out name missing=()
	out=$(metrics) || return
	while read -r name; do
		grep -q "^# TYPE $name " <<<"$out" || missing+=("$name")
	done < <(grep -o 'thpcow_[a-z_]*' "$rules" | sort -u)
	check_eq "${missing[*]}" "" "metrics the rules name that thpcowctl does not print"
}

# ThpcowModuleDown fires on the series thpcow is built for: dkms.conf's
# BUILD_EXCLUSIVE_KERNEL, as docs/install.md (the package's install.md) lists them
series_match() {
	local dkms alert readme
	dkms=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="^(\([^)]*\))\\\.".*/\1/p' "$repo/dkms.conf" | tr -d "\\")
	alert=$(grep -o 'kernel=~"([^)]*' "$rules" | sed 's/.*(//' | tr -d "\\")
	readme=$(tr '\n' ' ' <"$repo/docs/install.md" |
		sed -n 's/.*another series than \([0-9., ]*\):.*/\1/p' | tr -s ' ' | sed 's/, /|/g; s/ *$//')
	[[ -n $dkms ]] || { echo "no BUILD_EXCLUSIVE_KERNEL in dkms.conf"; return 1; }
	check_eq "$alert" "$dkms" "ThpcowModuleDown's series against dkms.conf's" &&
		check_eq "$readme" "$dkms" "docs/install.md's series against dkms.conf's"
}

lint_metrics() {
	need_promtool
	local out
	out=$(metrics) || return
	check_eq "$(promtool check metrics <<<"$out" 2>&1)" "" "promtool check metrics"
}

cases=(
	check_rules  # promtool check rules: the file loads
	test_rules   # promtool test rules: each alert fires where it must, not elsewhere
	names_exist  # every thpcow_* metric the rules use is one thpcowctl prints
	series_match # ThpcowModuleDown's kernel series are dkms.conf's (and docs/install.md's)
	lint_metrics # stats and usage --format prometheus pass promtool check metrics
)
tap_run "${cases[@]}"
