#!/usr/bin/env bash
# tests/host/collapse-virsh.t: thpcowctl collapse --domain against stand-ins
# for virsh (THPCOWCTL_VIRSH) that misbehave as a hung or absent libvirt
# would, on a process of this host (a sleep: nothing to collapse, nothing
# loaded). tests/guest/collapse.sh checks the waits themselves on a guest
# whose memory is split.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
ctl_dir=$repo/tools/thpcowctl
tmp=$(mktemp -d)
sleeper=
trap 'rm -rf "$tmp"; [[ -z $sleeper ]] || kill "$sleeper" 2>/dev/null' EXIT

make -s -C "$ctl_dir" thpcowctl >&2 || exit 1
sleep 600 &
sleeper=$!

# virsh_says DOMSTATE EVENT: a virsh whose domstate runs the shell command
# DOMSTATE and whose event runs EVENT.
virsh_says() {
	printf '#!/bin/sh\ncase " $* " in\n*" domstate "*) %s ;;\n*" event "*) %s ;;\nesac\n' \
		"$1" "$2" >"$tmp/virsh"
	chmod +x "$tmp/virsh"
}

# collapse_domain SECS: collapse --domain vm1 --await-postcopy SECS on the
# sleep; its stderr in $tmp/err, its JSON in $tmp/json, its time in
# whole seconds in $tmp/secs.
collapse_domain() {
	local t0=$SECONDS
	THPCOWCTL_VIRSH=$tmp/virsh timeout 60 "$ctl_dir/thpcowctl" collapse --pid "$sleeper" \
		--domain vm1 --await-postcopy "$1" --json >"$tmp/json" 2>"$tmp/err"
	echo $((SECONDS - t0)) >"$tmp/secs"
}

# a daemon that takes the connection and never answers: domstate given up
# within --await-postcopy, killed, and the /proc watch instead
domstate_hangs() {
	virsh_says 'exec sleep 29.5' 'exec sleep 29.5'
	collapse_domain 2
	(($(cat "$tmp/secs") <= 4)) || {
		echo "took $(cat "$tmp/secs") s for --await-postcopy 2"
		return 1
	}
	check_eq "$(cat "$tmp/err")" \
		"thpcowctl: collapse: libvirt domain vm1: virsh domstate: no answer; watching the process instead" \
		"stderr"
	check_match "$(cat "$tmp/json")" '"trigger":"timeout"' "the summary"
	check_eq "$(pgrep -fx 'sleep 29.5' || true)" "" "virsh left running"
}

# a virsh that fails: its first line of error in thpcowctl's message, none
# of its words bare on stderr (the journal); one that cannot be run: so
virsh_fails() {
	virsh_says 'echo "error: failed to get domain '"'"'vm1'"'"'" >&2; exit 1' \
		'printf "error: failed to connect to the hypervisor\\nerror: Failed to connect socket\\n" >&2; exit 1'
	collapse_domain 1
	check_eq "$(cat "$tmp/err")" \
		"thpcowctl: collapse: libvirt domain vm1: failed to connect to the hypervisor; watching the process instead" \
		"stderr of a virsh that fails"
	rm "$tmp/virsh"
	collapse_domain 1
	check_eq "$(cat "$tmp/err")" \
		"thpcowctl: collapse: libvirt domain vm1: cannot run virsh; watching the process instead" \
		"stderr without virsh"
}

# the migration completed between the first domstate and the subscription:
# no event ever comes, the next domstate (2 s on) says so
ended_unseen() {
	: >"$tmp/asked"
	virsh_says "echo >>$tmp/asked; if [ \$(wc -l <$tmp/asked) -gt 1 ]; then echo 'running (migrated)'; else echo 'paused (migrating)'; fi" \
		'exec sleep 29.5'
	collapse_domain 20
	(($(cat "$tmp/secs") <= 5)) || {
		echo "took $(cat "$tmp/secs") s, not about 2"
		return 1
	}
	check_match "$(cat "$tmp/json")" '"trigger":"state"' "the summary"
	check_eq "$(cat "$tmp/err")" "" "stderr"
}

cases=(
	ended_unseen   # no event after the first domstate: asked again 2 s on
	domstate_hangs # virsh domstate that never answers: killed within --await-postcopy
	virsh_fails    # virsh's error folded into thpcowctl's message; no virsh: "cannot run virsh"
)
tap_run "${cases[@]}"
