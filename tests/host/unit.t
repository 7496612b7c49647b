#!/usr/bin/env bash
# tests/host/unit.t: dist/thpcow.service as systemd sees it, without
# installing it: systemd-analyze security rates it at most 4.0 (what is left
# is what loading a module and /dev/thpcow need), it is skipped through
# ExecCondition= where thpcow is not needed, and the lines that systemd
# would ignore are none. tests/vm/systemd.t runs it in a guest.
# dist/thpcow-metrics.service: its command, run here against the
# fake device, writes the Prometheus file whole (stats, then usage), and
# without the module one that says thpcow_up 0.
# dist/thpcow-collapse@.service: rated and checked the same way;
# tests/vm/systemd.t runs it, started by dist/libvirt-hook-qemu.
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

# exposure UNIT MAX: systemd-analyze security rates UNIT at most MAX.
exposure() {
	local out score name=${1##*/}
	need_analyze
	out=$(systemd-analyze security --offline=yes --no-pager "$1" 2>&1)
	# a template is rated as an instance: NAME@i.service in systemd 252
	score=$(sed -n "s/^→ Overall exposure level for ${name%%@*}[^:]*: \([0-9.]*\) .*/\1/p" <<<"$out")
	echo "exposure $score; what is left:"
	grep '^✗' <<<"$out" | sed 's/  .*//'
	check_match "$score" '^[0-9]+\.[0-9]$' "the score"
	((${score/./} <= ${2/./})) || {
		echo "exposure $score > $2"
		return 1
	}
}

security_score() { exposure "$unit" 4.0; }

# Every line systemd reads: an unknown key or a bad value is only a
# warning in the journal, so it is checked here.
no_ignored_lines() {
	local out
	need_analyze
	out=$(systemd-analyze security --offline=yes --no-pager "$unit" 2>&1 >/dev/null)
	check_eq "$out" "" "systemd-analyze's warnings"
}

collapse=$repo/dist/thpcow-collapse@.service

# What is left: mostly the capabilities of reading another process's page
# map and collapsing it, and a deny list of system calls (see the unit).
collapse_score() { exposure "$collapse" 2.5; }

collapse_unit() {
	need_analyze
	check_eq "$(systemd-analyze verify --man=no "$collapse" 2>&1 | grep -v 'Command thpcowctl is not executable')" "" \
		"systemd-analyze verify"
	check_eq "$(systemd-analyze security --offline=yes --no-pager "$collapse" 2>&1 >/dev/null)" "" \
		"systemd-analyze's warnings"
}

# dist/libvirt-hook-qemu NAME OP PHASE: nothing until thpcow.conf (here
# THPCOW_CONF) says "collapse-hook on"; then on "migrate begin" and "restore
# begin" it starts the unit for NAME, escaped, on "release end" it stops it, on anything else
# nothing; it prints nothing, even when what it runs does, and succeeds
# even when systemctl fails.
hook() {
	local h=$repo/dist/libvirt-hook-qemu
	mkdir -p "$tmp/hookbin" "$tmp/thpcow.conf.d"
	export THPCOW_CONF=$tmp/thpcow.conf
	printf 'cgroup /machine.slice zero\n#collapse-hook on\ncollapse-hook off\n' >"$THPCOW_CONF"
	# stubs that log how they are called ($* and $FAIL are theirs)
	# shellcheck disable=SC2016
	printf '#!/bin/sh\necho "systemctl $*" >>"%s/calls"\necho noise\nexit ${FAIL:-0}\n' "$tmp" >"$tmp/hookbin/systemctl"
	# shellcheck disable=SC2016
	printf '#!/bin/sh\necho "logger $*" >>"%s/calls"\n' "$tmp" >"$tmp/hookbin/logger"
	chmod +x "$tmp/hookbin/"*
	: >"$tmp/calls"
	PATH="$tmp/hookbin:$PATH" "$h" web-1 migrate begin - </dev/null
	check_eq "$(cat "$tmp/calls")" "" "without collapse-hook on: nothing"
	echo 'collapse-hook   on  # the hook' >"$tmp/thpcow.conf.d/hook.conf"
	check_eq "$(PATH="$tmp/hookbin:$PATH" "$h" web-1 migrate begin - </dev/null)" "" "migrate begin: stdout"
	PATH="$tmp/hookbin:$PATH" "$h" web-1 started begin - </dev/null
	PATH="$tmp/hookbin:$PATH" "$h" web-2 restore begin - </dev/null
	PATH="$tmp/hookbin:$PATH" "$h" web-1 stopped end - </dev/null
	check_eq "$(PATH="$tmp/hookbin:$PATH" "$h" web-1 release end - </dev/null)" "" "release end: stdout"
	FAIL=1 PATH="$tmp/hookbin:$PATH" "$h" 'a b' migrate begin - </dev/null || {
		echo "the hook failed with systemctl"
		return 1
	}
	check_eq "$(cat "$tmp/calls")" 'systemctl start --no-block thpcow-collapse@web\x2d1.service
systemctl start --no-block thpcow-collapse@web\x2d2.service
systemctl stop --no-block thpcow-collapse@web\x2d1.service
systemctl start --no-block thpcow-collapse@a\x20b.service
logger -t thpcow cannot start thpcow-collapse for guest a b' "what it ran"
}

# /etc/libvirt/hooks/qemu.d/thpcow where the hook is not installed (the
# package removed, not purged; nor is it on this host): nothing, exit 0
# (libvirt would fail a migration on a hook that fails)
hook_conffile_alone() {
	local h=$repo/dist/libvirt-hook-qemu.d-thpcow
	[[ ! -e /usr/libexec/thpcow/libvirt-hook-qemu && ! -e /usr/local/libexec/thpcow/libvirt-hook-qemu ]] ||
		skip "thpcow's libvirt hook is installed on this host"
	check_eq "$("$h" vm1 migrate begin - </dev/null 2>&1; echo "rc=$?")" "rc=0" "its output and status"
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

# Without node-exporter its directory is absent: ReadWritePaths= on it
# would fail the unit (226/NAMESPACE) every minute; the unit is skipped
# instead (ConditionPathIsDirectory=), and the path optional ("-").
metrics_no_exporter() {
	local rw
	rw=$(sed -n 's/^ReadWritePaths=//p' "$metrics")
	check_eq "$rw" "-/var/lib/prometheus/node-exporter" "ReadWritePaths=" &&
		check_eq "$(sed -n 's/^ConditionPathIsDirectory=//p' "$metrics")" "${rw#-}" \
			"ConditionPathIsDirectory="
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
	check_eq "$("$repo/tests/lib/prometheus-check.py" "$out/thpcow.prom" "$tmp/stats" 2097152)" ok \
		"prometheus_client parses it"
	check_eq "$(grep -c '^thpcow_usage_slots 1024$' "$out/thpcow.prom")" 1 \
		"usage's metrics follow stats'"
	echo old >"$out/thpcow.prom"
	metrics_exec "$out" || {
		echo "without the module the unit failed"
		return 1
	}
	check_eq "$(ls -A "$out" && grep -v '^#' "$out/thpcow.prom" | sed 's/{.*}/{}/')" "thpcow.prom
thpcow_up 0
thpcow_build_info{} 1" "without the module: thpcow_up 0, not the old file"
}

cases=(
	security_score     # systemd-analyze security: exposure at most 4.0
	no_ignored_lines   # no line systemd warns about and ignores
	skips_by_condition # ExecCondition=thpcowctl probe --condition
	metrics_unit       # thpcow-metrics.service and .timer: systemd-analyze verify
	metrics_atomic     # its command: the .prom file whole; thpcow_up 0 without the module
	metrics_no_exporter # ... skipped, not failed, without node-exporter's directory
	collapse_score     # thpcow-collapse@.service: exposure at most 2.5
	collapse_unit      # ... systemd-analyze verify, no warnings
	hook               # libvirt-hook-qemu: migrate begin starts the unit, release end stops it
	hook_conffile_alone # /etc/libvirt/hooks/qemu.d/thpcow without the hook: nothing, exit 0
)
tap_run "${cases[@]}"
