#!/usr/bin/env bash
# Inside the guest of tests/vm/systemd.t, which boots a bookworm root with
# systemd as init and thpcow installed by `make install-all`: thpcow.service
# ran at boot (modprobe with /etc/modprobe.d options, then thpcowctl apply
# /etc/thpcow.conf), a workload in machine.slice gets whole THPs from the
# cgroup rule, and `systemctl reload thpcow` applies an edited file, or
# refuses a bad one and changes nothing; a bad file when the unit starts
# fails it and libvirt starts all the same, after it; a "cgroup?" line of a
# slice made later is skipped, then applied by reload. Started by thpcow-test.service; the
# host set up /etc/thpcow.conf as 'global kernel' + 'cgroup /machine.slice
# zero', and default_mode=zero in /etc/modprobe.d/thpcow.conf.
# On trixie-backports' 7.x (series 'latest', no module installed for it):
# thpcow.service is skipped by ExecCondition=, inactive and not failed, and
# the kernel gives whole THPs by itself.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$top/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/inguest.sh
source "$top/tests/lib/inguest.sh" # key, wrf_in_machine_slice, unit_until, cgroup_rules

wrf=$top/prog/wrf
conf=/etc/thpcow.conf
stats=/sys/kernel/debug/thpcow/stats
cp "$conf" /run/thpcow.conf.orig

substituted() { awk '$1 == "substituted" { print $2 }' "$stats"; }
# reload_with TEXT: /etc/thpcow.conf := TEXT, then systemctl reload thpcow
reload_with() {
	printf '%s\n' "$1" >"$conf"
	systemctl reload thpcow
}
restore() { cp /run/thpcow.conf.orig "$conf" && systemctl reload thpcow; }

boot_finished() {
	local state
	state=$(systemctl is-system-running --wait)
	[[ $state == running ]] || systemctl --failed --no-pager
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P Result thpcow.service)" \
		active/success "thpcow.service"
	check_eq "$state" running "the system"
}

ordering() {
	check_match " $(systemctl show -P Before thpcow.service) " " libvirtd.service " \
		"thpcow.service comes before libvirtd"
	check_eq "$(systemctl show -P Before thpcow.service | tr ' ' '\n' | grep -c machined)" 0 \
		"and not before systemd-machined"
	check_eq "$(systemctl show -P TimeoutStartUSec thpcow.service)" "3min" "TimeoutStartSec"
	check_match " $(systemctl show -P After thpcow.service) " " machine.slice " \
		"and after machine.slice exists"
}

module_loaded() {
	check_eq "$(modinfo -F filename thpcow)" "/lib/modules/$(uname -r)/extra/thpcow.ko" \
		"the module make install installed"
	[[ -d /sys/module/thpcow ]] || {
		echo "thpcow is not loaded"
		return 1
	}
	check_match "$(journalctl -k -b --no-pager -o cat | grep 'thpcow: .* loaded')" \
		"loaded, default mode zero" "default_mode from /etc/modprobe.d at load"
	check_match "$(thpcowctl status)" $'module loaded: +yes' "thpcowctl status"
}

rules_applied() {
	check_eq "$(cgroup_rules)" "/machine.slice zero" "the cgroup rules"
	check_eq "$(thpcowctl get --global | sed -n 's/^mode: *//p')" kernel \
		"the global mode: the file's, over default_mode"
}

# wrf in machine.slice: one THP per 2 MiB from the rule; outside it splits.
workload_hits_rule() {
	local before out
	before=$(substituted)
	wrf_in_machine_slice
	check_eq "$(($(substituted) - before))" 8 "substituted"
	out=$("$wrf" --size 16 --verify)
	check_match "$(key thp_split_pmd "$out")" '^[1-9]' "splits outside machine.slice"
}

# An edited file: its new rule set, the dropped one cleared; then back.
reload_applies() {
	reload_with "global zero
cgroup /system.slice kernel"
	check_eq "$(cgroup_rules)" "/system.slice kernel" "cgroup rules after reload"
	check_eq "$(thpcowctl get --global | sed -n 's/^mode: *//p')" zero "the global mode after reload"
	restore
	check_eq "$(cgroup_rules)" "/machine.slice zero" "cgroup rules after restoring the file"
}

# A bad file: reload fails, says where, and changes nothing.
# apply says in the journal what it set, file and line.
apply_logged() {
	local log
	log=$(journalctl -b -u thpcow.service --no-pager -o cat)
	check_match "$log" "(^|"$'\n'")$conf:2: global kernel"$'\n'"$conf:3: cgroup /machine.slice zero"$'\n'"applied $conf" \
		"the journal"
}

# The unit's sandbox is in force (tests/host/unit.t rates it).
hardened() {
	check_eq "$(systemctl show -P ProtectSystem thpcow.service)" strict "ProtectSystem"
	check_eq "$(systemctl show -P CapabilityBoundingSet thpcow.service)" "cap_sys_module cap_sys_admin" \
		"CapabilityBoundingSet"
	check_eq "$(systemctl show -P PrivateNetwork thpcow.service)" yes "PrivateNetwork"
}

reload_refuses_bad_file() {
	local before msg
	before=$(thpcowctl list)
	if reload_with "cgroup /system.slice zero
cgroup /machine.slice fast"; then
		echo "systemctl reload succeeded with a bad file"
		restore
		return 1
	fi
	msg=$(journalctl -b -u thpcow.service --no-pager -o cat | grep "$conf:2: unknown")
	restore
	check_eq "$msg" "thpcowctl: $conf:2: unknown mode 'fast': expected one of kernel, zero, copy, split" \
		"the journal"
	check_eq "$(thpcowctl list)" "$before" "the rules"
	check_eq "$(systemctl show -P ActiveState thpcow.service)" active "the unit"
}

# A broken /etc/thpcow.conf at boot: thpcow.service fails, saying why in the
# journal, and libvirt starts all the same, after it: here a stand-in for
# libvirtd.service (or virtqemud.service, whichever is not installed: both
# are ordered after thpcow.service as the real ones), started with it in
# one transaction as at boot.
broken_conf_starts_libvirt() {
	local u t_fail
	for u in libvirtd.service virtqemud.service ''; do
		systemctl cat "$u" >/dev/null 2>&1 || break
	done
	[[ -n $u ]] || skip "libvirtd and virtqemud are both installed"
	printf '[Service]\nType=oneshot\nRemainAfterExit=yes\nExecStart=true\n' >"/run/systemd/system/$u"
	systemctl daemon-reload
	printf 'cgroup /machine.slice fast\n' >"$conf"
	systemctl stop thpcow
	systemctl start thpcow.service "$u" 2>/dev/null || true
	t_fail=$(systemctl show -P ExecMainExitTimestampMonotonic thpcow.service)
	check_eq "$(systemctl show -P ActiveState thpcow.service)" failed "thpcow.service"
	check_eq "$(systemctl show -P ActiveState "$u")" active "$u, after it"
	check_eq "$(($(systemctl show -P ActiveEnterTimestampMonotonic "$u") >= t_fail))" 1 "$u started after thpcow.service ended"
	check_match "$(journalctl -b -u thpcow.service --no-pager -o cat)" "thpcowctl: $conf:1: unknown mode 'fast'" \
		"the journal says why"
	systemctl stop "$u"
	rm "/run/systemd/system/$u"
	systemctl daemon-reload
	cp /run/thpcow.conf.orig "$conf"
	systemctl start thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)" active "thpcow.service with the file restored"
}

# A cgroup made after the unit ran: its "cgroup?" line skipped, saying so,
# the rest of the file applied; once the slice exists, reload applies it.
late_slice() {
	printf 'global kernel\ncgroup /machine.slice zero\ncgroup? /late.slice copy\n' >"$conf"
	systemctl restart thpcow
	check_eq "$(systemctl show -P ActiveState thpcow.service)/$(systemctl show -P Result thpcow.service)" \
		active/success "thpcow.service"
	check_match "$(journalctl -b -u thpcow.service --no-pager -o cat)" \
		"$conf:3: cgroup\\? /late\\.slice: no such cgroup yet: skipped" "the journal"
	check_eq "$(cgroup_rules)" "/machine.slice zero" "the cgroup rules"
	systemd-run --quiet --slice=late.slice --unit=late-sleep sleep 600
	systemctl reload thpcow
	check_eq "$(cgroup_rules | sort)" "/late.slice copy
/machine.slice zero" "the cgroup rules once late.slice exists"
	restore
	systemctl stop late-sleep
}

# latest: the unit skipped, not failed; one line in the journal says why.
skipped_natively() {
	local state
	state=$(systemctl is-system-running --wait)
	[[ $state == running ]] || systemctl --failed --no-pager
	check_eq "$state" running "the system"
	check_eq "$(systemctl show -P ActiveState thpcow.service)" inactive "thpcow.service"
	check_eq "$(systemctl show -P Result thpcow.service)" exec-condition "its result"
	check_eq "$(systemctl is-failed thpcow.service)" inactive "systemctl is-failed"
	check_eq "$(journalctl -b -u thpcow.service --no-pager -o cat | grep '^thpcow.service skipped: ')" \
		"thpcow.service skipped: Linux $(uname -r) gives whole THPs by itself (Linux >= 6.13) and has no thpcow module; thpcow is needed only for copy or split" \
		"the journal's one line"
	[[ ! -d /sys/module/thpcow ]] || {
		echo "thpcow is loaded"
		return 1
	}
}

# latest: status and probe say so, without the module (status exits 0:
# nothing is missing; 3 would be UNKNOWN to Nagios).
status_says_native() {
	local st rc=0
	st=$(thpcowctl status) || rc=$?
	check_eq "$rc" 0 "thpcowctl status: exit 0, not loaded and not needed"
	check_match "$(thpcowctl check)" '^THPCOW OK - not needed: Linux ' "thpcowctl check"
	check_match "$st" $'\nwithout thpcow: +whole THP\n' "thpcowctl status"
	check_match "$st" $'\nthis kernel gives whole THPs by itself \\(Linux >= 6.13\\): thpcow is needed only for copy or split$' \
		"thpcowctl status's last line"
	check_match "$(thpcowctl probe --json)" '"without_thpcow":"whole THP"' "thpcowctl probe --json"
}

# unit_log UNIT: its journal (the unit itself is unloaded once finished)
unit_log() { journalctl -u "$1" --no-pager -o cat; }

# collapse_setup: for the collapse cases, THPs "never" (khugepaged off, so
# that every THP is the unit's) and unprivileged userfaultfd allowed; all
# put back, and thpmix killed, when the case ends, passed or failed (its
# EXIT trap: tap_run runs each case in a subshell).
collapse_setup() {
	thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
	uffd_was=$(</proc/sys/vm/unprivileged_userfaultfd)
	mix_pid=''
	trap collapse_cleanup EXIT
	echo never >/sys/kernel/mm/transparent_hugepage/enabled
	echo 1 >/proc/sys/vm/unprivileged_userfaultfd
	mkdir -p /run/libvirt/qemu
}
collapse_cleanup() {
	if [[ -n $mix_pid ]]; then
		echo "thpmix (pid $mix_pid) still running as the case ended: killed"
		kill -KILL "$mix_pid" 2>/dev/null || true
		wait "$mix_pid" 2>/dev/null || true
	fi
	echo "$thp_was" >/sys/kernel/mm/transparent_hugepage/enabled
	echo "$uffd_was" >/proc/sys/vm/unprivileged_userfaultfd
	rm -f /usr/local/bin/virsh /run/libvirt/qemu/vm-[134].pid
	return 0
}

# mix_start OUT ARGS...: thpmix ARGS as QEMU's stand-in, as another user
# (QEMU is), its pid in mix_pid once it has said "ready" in OUT. Its
# standard error goes to OUT too: a process left writing to tap_run's pipe
# keeps it open, and tap_run waits for it for ever.
mix_start() {
	local out=$1 i
	shift
	setpriv --reuid=65534 --regid=65534 --clear-groups "$top/tests/prog/thpmix" "$@" >"$out" 2>&1 &
	mix_pid=$!
	for ((i = 0; i < 100; i++)); do grep -qx ready "$out" && break; sleep 0.1; done
}

# mix_end OUT: thpmix checks its data (SIGUSR1) and exits; verify=ok
mix_end() {
	kill -USR1 "$mix_pid"
	wait "$mix_pid"
	mix_pid=''
	check_eq "$(key verify "$(<"$1")")" ok "data"
}

# The libvirt hook, as libvirt calls it on a migration's destination, starts
# thpcow-collapse@vm-1.service; it waits for QEMU's pid file, for postcopy
# to begin and end (thpmix --postcopy plays QEMU, as another user, pid file
# and all), then collapses in its sandbox, and ends. Then "release end"
# stops a unit still waiting, which is not a failure. khugepaged is kept
# off (THPs "never") so that every THP is the unit's.
collapse_after_migration() {
	local hook=/etc/libvirt/hooks/qemu.d/thpcow unit='thpcow-collapse@vm\x2d1.service'
	local unit3='thpcow-collapse@vm\x2d3.service' out=/run/thpmix.out
	collapse_setup
	check_eq "$("$hook" vm-1 migrate begin - </dev/null)" "" "the hook's output"
	"$hook" vm-2 started begin - </dev/null
	unit_until "$unit" ActiveState '!inactive'
	check_eq "$(systemctl show -P ActiveState "$unit")" activating "the unit, waiting for QEMU's pid file"
	check_eq "$(systemctl show -P ActiveState 'thpcow-collapse@vm\x2d2.service')" inactive \
		"no unit for an operation other than migrate"
	mix_start "$out" --size 16 --pattern 512 --postcopy
	echo "$mix_pid" >/run/libvirt/qemu/vm-1.pid
	sleep 2
	kill -USR2 "$mix_pid"
	sleep 2
	check_eq "$(systemctl show -P SubState "$unit")" running "the unit during postcopy"
	kill -USR2 "$mix_pid"
	unit_until "$unit" ActiveState '!active' 60
	unit_log "$unit" | sed 's/^/    /'
	# one JSON line; no virsh here: the /proc watch saw postcopy end
	check_match "$(unit_log "$unit")" $'(^|\n)\\{"processes":1,"exited":0,"min_present":502,"ranges":8,"collapsed":8,' \
		"the summary in the journal"
	check_match "$(unit_log "$unit")" '"postcopy_seen":true,"domain":"vm-1","trigger":"userfaultfd"' \
		"postcopy seen, in /proc (no libvirt here)"
	check_match "$(unit_log "$unit")" "Deactivated successfully" "the unit succeeded"
	check_eq "$(awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$mix_pid/smaps_rollup")" 16384 \
		"AnonHugePages kB of QEMU's stand-in"
	# a unit still waiting when the guest is released: stopped, not failed
	echo "$mix_pid" >/run/libvirt/qemu/vm-3.pid
	"$hook" vm-3 migrate begin - </dev/null
	unit_until "$unit3" SubState running
	sleep 1
	"$hook" vm-3 release end - </dev/null
	unit_until "$unit3" ActiveState inactive
	unit_log "$unit3" | sed 's/^/    /'
	check_match "$(unit_log "$unit3")" '"interrupted":true}' "stopped: its summary"
	check_match "$(unit_log "$unit3")" "Deactivated successfully" "stopped: not failed"
	mix_end "$out"
}

# The same unit where libvirt answers: a stand-in virsh (first in the
# unit's PATH) prints libvirt's lifecycle events as they are appended to
# /run/fakevirsh/events. A precopy migration: "Resumed Migrated" ends the
# wait at once (not after --await-postcopy's hour), and the unit collapses
# what is split and ends, with one JSON line saying what ended the wait.
# virsh's standard error is thpcowctl's to read (its first line is the why
# of a message when virsh fails), never the journal's: the stand-in notes
# its calls in the unit's private /tmp, seen through /proc/PID/root.
collapse_on_libvirt_event() {
	local hook=/etc/libvirt/hooks/qemu.d/thpcow unit='thpcow-collapse@vm\x2d4.service'
	local out=/run/thpmix4.out t0 d=/run/fakevirsh calls i
	local subscribe='virsh -q -c qemu:///system event --loop --event lifecycle'
	collapse_setup
	mkdir -p "$d"
	: >"$d/events"
	# shellcheck disable=SC2016 # the stand-in's own $*
	printf '#!/bin/sh\necho "virsh $*" >>/tmp/fakevirsh.calls\ncase " $* " in\n*" domstate "*) echo "paused (migrating)" ;;\n*" event "*) exec tail -n +1 -f %s/events ;;\nesac\n' "$d" >/usr/local/bin/virsh
	chmod +x /usr/local/bin/virsh
	"$hook" vm-4 migrate begin - </dev/null
	mix_start "$out" --size 16 --pattern 512
	echo "$mix_pid" >/run/libvirt/qemu/vm-4.pid
	unit_until "$unit" SubState running
	sleep 2
	check_eq "$(systemctl show -P SubState "$unit")" running "the unit before libvirt's event"
	calls=/proc/$(systemctl show -P MainPID "$unit")/root/tmp/fakevirsh.calls
	for ((i = 0; i < 50; i++)); do grep -qxF "$subscribe" "$calls" 2>/dev/null && break; sleep 0.1; done
	check_match "$(cat "$calls")" "(^|"$'\n'")$subscribe("$'\n'"|\$)" "virsh event, all domains, before the event"
	t0=$SECONDS
	echo "event 'lifecycle' for domain 'vm-4': Resumed Migrated" >>"$d/events"
	unit_until "$unit" ActiveState '!active' 60
	unit_log "$unit" | sed 's/^/    /'
	((SECONDS - t0 < 30)) || {
		echo "the unit took $((SECONDS - t0)) s after the event"
		return 1
	}
	check_match "$(unit_log "$unit")" '"collapsed":8,' "collapsed what was split"
	check_match "$(unit_log "$unit")" '"postcopy_seen":false,"domain":"vm-4","trigger":"event"' \
		"ended by the event, precopy"
	check_match "$(unit_log "$unit")" "Deactivated successfully" "the unit succeeded"
	mix_end "$out"
}

# latest: wrf in machine.slice gets whole THPs from the kernel alone.
native_whole_thps() { wrf_in_machine_slice; }

if [[ $(cat /var/lib/thpcow-test/series) == latest ]]; then
	tap_run skipped_natively status_says_native native_whole_thps
	exit
fi
cases=(
	boot_finished           # systemd reached 'running'; thpcow.service succeeded
	ordering                # Before=libvirtd (not machined), After=machine.slice, bounded
	module_loaded           # modprobe found make install's module, modprobe.d applied
	rules_applied           # thpcowctl list: the file's cgroup rule and global mode
	apply_logged            # the journal: each rule applied, FILE:LINE
	hardened                # the unit's sandbox is in force
	workload_hits_rule      # wrf in machine.slice: whole THPs; outside: splits
	reload_applies          # systemctl reload: new rules set, dropped ones cleared
	reload_refuses_bad_file # a bad line: reload fails with FILE:LINE, nothing changes
	broken_conf_starts_libvirt # a bad line at boot: the unit fails, libvirt starts after it
	late_slice              # cgroup? of a slice made later: skipped, then applied by reload
	collapse_after_migration  # libvirt hook -> thpcow-collapse@.service -> collapse
	collapse_on_libvirt_event # the same, ended by libvirt's "Resumed Migrated"
)
tap_run "${cases[@]}"
