#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# thpcowctl collapse, run inside a 6.1 or 6.12 guest (tests/vm/collapse.t):
# memory made of 4 KiB pages (tests/prog/thpmix: written under
# MADV_NOHUGEPAGE, zero-page PTEs in part of it, then MADV_HUGEPAGE) gets
# THPs back in exactly the ranges with enough data, its bytes unchanged and
# RSS grown by what the holes held; a userfaultfd range, a process that
# exits mid-way and bad arguments each get what thpcowctl(8) says. With
# COLLAPSE_ONLY_UNSUPPORTED=1 (5.10) only the documented refusal is checked.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$here/../lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$here/../lib/guest.sh"

mix=$guest_repo/tests/prog/thpmix
mixpid=

# khugepaged would collapse thpmix's ranges itself as soon as they are
# MADV_HUGEPAGE (it wakes when a process first becomes eligible), so the
# cases run with THPs off: that stops khugepaged, and MADV_COLLAPSE does
# not depend on the setting.
thp_enabled=/sys/kernel/mm/transparent_hugepage/enabled
thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$thp_enabled")
echo never >"$thp_enabled"

# mix_start NAME ARGS...: thpmix in the background, its output in
# $out/NAME; waits for "ready" and sets mixpid.
mix_start() {
	local name=$1 i
	shift
	"$mix" "$@" >"$out/$name" 2>&1 &
	mixpid=$!
	# shellcheck disable=SC2064 # this one
	trap "kill -KILL $mixpid 2>/dev/null || true" EXIT
	for ((i = 0; i < 600; i++)); do
		grep -qx ready "$out/$name" && return 0
		kill -0 "$mixpid" 2>/dev/null || break
		sleep 0.1
	done
	echo "thpmix $* did not get ready:"
	cat "$out/$name"
	return 1
}

# mix_end NAME: SIGUSR1, wait for its check; fails if the data changed.
mix_end() {
	kill -USR1 "$mixpid"
	wait "$mixpid" || {
		cat "$out/$1"
		return 1
	}
	check_eq "$(val "$1" verify)" ok "data after collapse"
}

jval() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): d = d[k]
print(json.dumps(d) if isinstance(d, (dict, bool)) else d)' "$out/$1" "$2"; }

# jrange FILE KEY MIN [MAX]: MIN <= the number KEY of $out/FILE (< MAX).
jrange() {
	local v
	v=$(jval "$1" "$2")
	awk -v v="$v" -v lo="$3" -v hi="${4:-}" 'BEGIN { exit !(v >= lo && (hi == "" || v < hi)) }' || {
		echo "$2 in $1: $v, want >= $3${4:+ and < $4}"
		return 1
	}
}

rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"; }

# The layout of the main cases: 8 ranges per cycle, with 512, 502 (the
# default threshold), 501, 300 and 0 data pages, zero-page PTEs in some.
pattern=512,502/10,501/11,300/200,0/512,0,512/0,100
size=64 # MiB: 32 ranges, 4 cycles
# by threshold: which ranges (per cycle) are collapsed
map_default=HH....H.
map_300=HHHH..H.
holes_default=$((4 * 10 * 4)) # kB the collapsed ranges lacked: 4 x 10 pages
holes_300=$((4 * (10 + 11 + 212) * 4))

# collapse_check NAME MAP HOLES_KB ARGS...: collapse thpmix's pid with ARGS,
# then the THP map, the counts, the RSS and the data are as predicted.
collapse_check() {
	local name=$1 map=$2 holes=$3 before after want_n
	shift 3
	mix_start "$name" --size "$size" --pattern "$pattern"
	before=$(rss_kb "$mixpid")
	"$ctl" collapse --pid "$mixpid" "$@" --json >"$out/$name.json"
	after=$(rss_kb "$mixpid")
	mix_end "$name"
	check_eq "$(val "$name" thp_map)" "$map$map$map$map" "THP map"
	want_n=$(tr -cd H <<<"$map$map$map$map" | wc -c)
	check_eq "$(jval "$name.json" collapsed)" "$want_n" "collapsed"
	check_eq "$(jval "$name.json" failed)" "{}" "failed"
	check_eq "$(val "$name" anon_huge_kb)" $((want_n * 2048)) "AnonHugePages kB"
	# RSS: what the holes held, give or take the program's own pages
	echo "RSS $before kB -> $after kB, holes $holes kB"
	((after - before >= holes - 64 && after - before <= holes + 256)) || {
		echo "RSS grew by $((after - before)) kB, want about $holes"
		return 1
	}
	check_eq "$(jval "$name.json" rss_before_kb)" "$before" "rss_before_kb"
}

by_pid_default() {
	collapse_check pid "$map_default" "$holes_default"
	check_eq "$(jval pid.json skipped.thp)" 0 "skipped THPs"
	check_eq "$(jval pid.json min_present)" 502 "default threshold"
}

by_pid_threshold() {
	collapse_check pid300 "$map_300" "$holes_300" --min-present 300
}

by_cgroup() {
	cg_make collapse
	mix_start cg --size "$size" --pattern "$pattern"
	echo "$mixpid" >"$cg/thpcow-test/collapse/cgroup.procs"
	"$ctl" collapse --cgroup thpcow-test/collapse --json >"$out/cg.json"
	mix_end cg
	check_eq "$(val cg thp_map)" "$map_default$map_default$map_default$map_default" "THP map"
	check_eq "$(jval cg.json processes)" 1 "processes"
	check_eq "$(jval cg.json collapsed)" 12 "collapsed"
}

# Run again, nothing is left to do: the THPs are counted as such.
second_run_is_noop() {
	mix_start again --size 16 --pattern 512
	"$ctl" collapse --pid "$mixpid" --json >"$out/1.json"
	"$ctl" collapse --pid "$mixpid" --json >"$out/2.json"
	mix_end again
	check_eq "$(jval 1.json collapsed)" 8 "first run"
	check_eq "$(jval 2.json collapsed)" 0 "second run"
	check_eq "$(jval 2.json skipped.thp)" 8 "second run: THPs"
}

uffd_range_skipped() {
	mix_start uffd --size 16 --pattern 512 --uffd 16
	"$ctl" collapse --pid "$mixpid" --json >"$out/uffd.json"
	mix_end uffd
	check_eq "$(val uffd thp_map)" HHHHHHHH "THP map"
	check_eq "$(val uffd uffd_thp_map)" ........ "THP map under uffd"
	check_eq "$(jval uffd.json skipped.uffd)" 8 "skipped under uffd"
}

# kill_during NAME SECONDS ARGS...: collapse thpmix with ARGS, kill thpmix
# after SECONDS (collapse still running then): status 1, "exited".
kill_during() {
	local name=$1 secs=$2 ctlpid rc=0
	shift 2
	"$ctl" collapse --pid "$mixpid" "$@" --json >"$out/$name.json" 2>"$out/$name.err" &
	ctlpid=$!
	sleep "$secs"
	kill -0 "$ctlpid" || {
		cat "$out/$name.err"
		echo "collapse $* ended before the process did"
		return 1
	}
	kill -KILL "$mixpid"
	wait "$ctlpid" || rc=$?
	wait "$mixpid" || true
	check_eq "$rc" 1 "exit status"
	check_eq "$(cat "$out/$name.err")" "thpcowctl: collapse: pid $mixpid exited" "stderr"
}

# --after-migration waits while uffd covers memory, then gives up with an
# error when the process goes.
after_migration_waits() {
	mix_start wait --size 16 --pattern 512 --uffd 16
	kill_during wait 3 --after-migration
}

# wait_line NAME LINE: until thpmix's output has LINE (10 s at most).
wait_line() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qx "$2" "$out/$1" && return 0
		sleep 0.1
	done
	echo "thpmix never printed $2"
	return 1
}

# napping PID: until PID sleeps in nanosleep (thpcowctl collapse has looked
# at the process once and naps between looks), 10 s at most.
napping() {
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(cat "/proc/$1/wchan" 2>/dev/null) == hrtimer_nanosleep ]] && return 0
		sleep 0.1
	done
	echo "pid $1 never napped (wchan $(cat "/proc/$1/wchan" 2>/dev/null))"
	return 1
}

# postcopy_step NAME STEP: thpmix --postcopy's next step (SIGUSR2), until it
# says postcopy=STEP.
postcopy_step() {
	kill -USR2 "$mixpid"
	wait_line "$1" "postcopy=$2"
}

# still_waiting CTLPID WHAT: collapse is running and has collapsed nothing.
still_waiting() {
	kill -0 "$1" 2>/dev/null || {
		echo "collapse ended $2"
		return 1
	}
	check_eq "$(awk '$1 == "AnonHugePages:" { print $2 }' "/proc/$mixpid/smaps_rollup")" 0 \
		"AnonHugePages kB $2"
}

# --await-postcopy: an incoming migration still in precopy shows no
# userfaultfd registration; collapse waits for postcopy to begin, then to
# end (thpmix --postcopy plays QEMU's steps), and only then collapses.
await_postcopy() {
	local ctlpid rc=0 map=$map_default$map_default$map_default$map_default
	mix_start await --size "$size" --pattern "$pattern" --postcopy
	"$ctl" collapse --pid "$mixpid" --await-postcopy 600 --json >"$out/await.json" &
	ctlpid=$!
	sleep 2
	still_waiting "$ctlpid" "before postcopy began" || return 1
	postcopy_step await begun || return 1
	sleep 2
	still_waiting "$ctlpid" "during postcopy" || return 1
	postcopy_step await ended || return 1
	wait "$ctlpid" || rc=$?
	mix_end await
	check_eq "$rc" 0 "exit status"
	check_eq "$(val await thp_map)" "$map" "THP map"
	check_eq "$(jval await.json postcopy_seen)" true "postcopy_seen"
	jrange await.json waited_s 4
}

# --await-postcopy, in QEMU's order: the userfaultfd opened first and
# guest RAM registered a second later (QEMU starts its fault thread in
# between), the postcopy over within 5 s. The registration is seen and its
# end ends the wait; while smaps was read again only when the open files
# changed or every 5 s, it went unseen and the wait ran to SECS.
await_postcopy_open_first() {
	local ctlpid rc=0
	mix_start open --size 16 --pattern 512 --postcopy --open-first
	"$ctl" collapse --pid "$mixpid" --await-postcopy 30 --json >"$out/open.json" &
	ctlpid=$!
	napping "$ctlpid" || return 1
	postcopy_step open opened || return 1
	sleep 1
	postcopy_step open begun || return 1
	sleep 2
	still_waiting "$ctlpid" "during postcopy" || return 1
	postcopy_step open ended || return 1
	wait "$ctlpid" || rc=$?
	mix_end open
	check_eq "$rc" 0 "exit status"
	check_eq "$(val open thp_map)" HHHHHHHH "THP map"
	check_eq "$(jval open.json trigger)" userfaultfd "what ended the wait"
	check_eq "$(jval open.json postcopy_seen)" true "postcopy_seen"
	# the wait holds the two sleeps after napping: 3 s (3.41 once on 6.12);
	# a wait that "opened" or "begun" ended would be 2 s shorter
	jrange open.json waited_s 3 20
}

# --await-postcopy SECS with no postcopy (a migration that ended in
# precopy): after SECS it collapses anyway; --pidfile names the process.
# SECS count from the command's start, waited_s from the wait's: what came
# before (pidfd, pagemap checks) is not in it, 0.11 s once on 6.12-debug,
# hence the lower bound of 2.5 for 3 s (a wait cut short is far below).
await_postcopy_none() {
	mix_start none --size 16 --pattern 512 --postcopy
	echo "$mixpid" >"$out/none.pid"
	"$ctl" collapse --pidfile "$out/none.pid" --await-postcopy 3 --json >"$out/none.json"
	mix_end none
	check_eq "$(val none thp_map)" HHHHHHHH "THP map"
	check_eq "$(jval none.json postcopy_seen)" false "postcopy_seen"
	jrange none.json waited_s 2.5 10
}

# A stand-in for virsh, as collapse --domain runs it: 'event' prints the
# lines appended to $out/virsh/events (libvirt's lifecycle events), and
# 'domstate' the line in $out/virsh/state; each call is logged.
fake_virsh() {
	local d=$out/virsh
	mkdir -p "$d"
	: >"$d/events"
	: >"$d/calls"
	echo "${1:-paused (migrating)}" >"$d/state"
	# shellcheck disable=SC2016 # the stand-in's own $*
	printf '#!/bin/sh\necho "$*" >>%s/calls\ncase " $* " in\n*" domstate "*) cat %s/state ;;\n*" event "*) exec tail -n +1 -f %s/events ;;\nesac\n' \
		"$d" "$d" "$d" >"$d/virsh"
	chmod +x "$d/virsh"
	export THPCOWCTL_VIRSH=$d/virsh
}

# event LINE: libvirt emits the lifecycle event LINE for vm1.
event() { echo "event 'lifecycle' for domain 'vm1': $1" >>"$out/virsh/events"; }

# --domain, a precopy migration: "Resumed Migrated" ends the wait at once
# (not --await-postcopy's 600 s), another domain's event does not, and
# the collapse follows; virsh is asked for every domain's events.
events_precopy() {
	local ctlpid rc=0
	fake_virsh
	mix_start evpre --size 16 --pattern 512 --postcopy
	"$ctl" collapse --pid "$mixpid" --domain vm1 --await-postcopy 600 --json >"$out/evpre.json" &
	ctlpid=$!
	sleep 1
	echo "event 'lifecycle' for domain 'vm10': Resumed Migrated" >>"$out/virsh/events"
	sleep 1
	still_waiting "$ctlpid" "before libvirt's event" || return 1
	event "Resumed Migrated"
	wait "$ctlpid" || rc=$?
	mix_end evpre
	check_eq "$rc" 0 "exit status"
	check_eq "$(val evpre thp_map)" HHHHHHHH "THP map"
	check_eq "$(jval evpre.json trigger)" event "trigger"
	check_eq "$(jval evpre.json postcopy_seen)" false "postcopy_seen"
	jrange evpre.json waited_s 1.9 10
	# domstate is asked again 2 s after the first time while no event
	# came, which the second sleep can reach: the calls made, not how often
	check_eq "$(sort -u "$out/virsh/calls")" "-q -c qemu:///system domstate --reason -- vm1
-q -c qemu:///system event --loop --event lifecycle" "virsh's calls"
}

# --domain, a postcopy: "Resumed Post-copy" does not end the wait, the
# end of the migration does, and the collapse comes after postcopy ended.
events_postcopy() {
	local ctlpid rc=0 map=$map_default$map_default$map_default$map_default
	fake_virsh
	mix_start evpost --size "$size" --pattern "$pattern" --postcopy
	"$ctl" collapse --pid "$mixpid" --domain vm1 --await-postcopy 600 --json >"$out/evpost.json" &
	ctlpid=$!
	sleep 1
	postcopy_step evpost begun || return 1
	event "Resumed Post-copy"
	sleep 2
	still_waiting "$ctlpid" "during postcopy" || return 1
	postcopy_step evpost ended || return 1
	event "Resumed Migrated"
	wait "$ctlpid" || rc=$?
	mix_end evpost
	check_eq "$rc" 0 "exit status"
	check_eq "$(val evpost thp_map)" "$map" "THP map"
	check_eq "$(jval evpost.json trigger)" event "trigger"
	check_eq "$(jval evpost.json postcopy_seen)" true "postcopy_seen"
}

# --domain where the migration completed before the subscription: libvirt's
# state says so, no wait; a domain that stops: an error, nothing collapsed.
events_state_and_stop() {
	local rc=0
	fake_virsh "running (migrated)"
	mix_start evst --size 16 --pattern 512
	"$ctl" collapse --pid "$mixpid" --domain vm1 --await-postcopy 600 --json >"$out/evst.json"
	check_eq "$(jval evst.json trigger)" state "trigger"
	check_eq "$(jval evst.json collapsed)" 8 "collapsed"
	jrange evst.json waited_s 0 5
	fake_virsh
	event "Stopped Failed"
	"$ctl" collapse --pid "$mixpid" --domain vm1 --await-postcopy 600 --json \
		>"$out/evstop.json" 2>"$out/evstop.err" || rc=$?
	mix_end evst
	check_eq "$rc" 1 "exit status when the domain stopped"
	check_eq "$(cat "$out/evstop.err")" "thpcowctl: collapse: libvirt domain vm1: Stopped Failed" "stderr"
}

# --domain without libvirt (no virsh): the /proc watch, as --await-postcopy
events_no_libvirt() {
	export THPCOWCTL_VIRSH=/nonexistent/virsh
	mix_start evno --size 16 --pattern 512 --postcopy
	"$ctl" collapse --pid "$mixpid" --domain vm1 --await-postcopy 3 --json \
		>"$out/evno.json" 2>"$out/evno.err"
	mix_end evno
	check_eq "$(val evno thp_map)" HHHHHHHH "THP map"
	check_eq "$(jval evno.json trigger)" timeout "trigger"
	check_eq "$(cat "$out/evno.err")" "thpcowctl: collapse: libvirt domain vm1: cannot run virsh; watching the process instead" "stderr"
	jrange evno.json waited_s 2.5 10 # as in await_postcopy_none
}

# A process gone mid-way: an error, the summary of what was done.
exits_midway() {
	mix_start exit --size 128 --pattern 512
	kill_during exit 2 --rate 4
	check_eq "$(jval exit.json exited)" 1 "exited"
	local n
	n=$(jval exit.json collapsed)
	((n > 0 && n < 64)) || {
		echo "collapsed $n ranges of 64 before the exit"
		return 1
	}
}

# --rate 4: 16 MiB takes about 4 s, never less than 3.
rate_bounds() {
	mix_start rate --size 16 --pattern 512
	"$ctl" collapse --pid "$mixpid" --rate 4 --json >"$out/rate.json"
	mix_end rate
	check_eq "$(jval rate.json collapsed)" 8 "collapsed"
	jrange rate.json seconds 3.4 # 16 MiB at 4 MiB/s
}

# interrupt NAME SECS SIZE ARG...: collapse ARG... of a mix of SIZE MiB,
# SIGINT after SECS: exit status 130 and a summary, in $out/NAME.json.
interrupt() {
	local name=$1 secs=$2 size=$3 ctlpid rc=0
	shift 3
	mix_start "$name" --size "$size" --pattern 512
	"$ctl" collapse --pid "$mixpid" "$@" --json >"$out/$name.json" &
	ctlpid=$!
	sleep "$secs"
	kill -INT "$ctlpid"
	wait "$ctlpid" || rc=$?
	mix_end "$name"
	check_eq "$rc" 130 "exit status"
	check_eq "$(jval "$name.json" interrupted)" true "interrupted"
}

# SIGINT stops between ranges: exit 130 and a summary.
interrupted() {
	interrupt int 2 64 --rate 2
	local n
	n=$(jval int.json collapsed)
	check_eq "$(tr -cd H <<<"$(val int thp_map)" | wc -c)" "$n" "THPs as counted"
}

# expect_error STATUS STDERR ARGS...: thpcowctl ARGS fails so, prints
# nothing (run as root, or as as_user says).
as_user=(env)
expect_error() {
	local want=$1 err=$2 rc=0
	shift 2
	"${as_user[@]}" "$ctl" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	[[ $rc == "$want" ]] || cat "$out/stderr"
	check_eq "$rc" "$want" "exit status of $*"
	check_eq "$(head -n 1 "$out/stderr")" "$err" "stderr of $*"
	check_eq "$(cat "$out/stdout")" "" "stdout of $*"
}

bad_arguments() {
	expect_error 1 "thpcowctl: collapse: no such process: 999999" collapse --pid 999999
	local kthread=2 # kthreadd
	check_eq "$(cat "/proc/$kthread/comm")" kthreadd "pid 2"
	expect_error 1 "thpcowctl: collapse: pid $kthread is a kernel thread: it has no user memory" \
		collapse --pid "$kthread"
	expect_error 2 "thpcowctl: collapse: invalid MiB/s '0': not a positive decimal number" \
		collapse --pid 1 --rate 0
	expect_error 2 "thpcowctl: collapse: invalid page count '0': not a positive decimal number" \
		collapse --pid 1 --min-present 0
	expect_error 1 "thpcowctl: collapse: cgroup /thpcow-no-such: cannot read $cg/thpcow-no-such/cgroup.procs: No such file or directory" \
		collapse --cgroup thpcow-no-such
	expect_error 1 "thpcowctl: collapse: pid file /run/thpcow-no-such.pid: No such file or directory" \
		collapse --pidfile /run/thpcow-no-such.pid
	echo vm1 >"$out/bad.pid"
	expect_error 1 "thpcowctl: collapse: pid file $out/bad.pid: 'vm1' is not a pid" \
		collapse --pidfile "$out/bad.pid"
}

# Another user's process: its memory map is not ours to read; and our own
# process without CAP_SYS_ADMIN: page frames are hidden.
no_permission() {
	mix_start perm --size 4 --pattern 512
	local as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	expect_error 1 "thpcowctl: collapse: pid $mixpid: cannot read /proc/$mixpid/pagemap: Permission denied" \
		collapse --pid "$mixpid"
	mix_end perm
	check_eq "$(val perm thp_map)" .. "THP map"
}

# A process that changes user after it was checked, as QEMU does after
# libvirt has written its pid file: without the capability to read its
# files now (CAP_DAC_READ_SEARCH, which thpcow-collapse@.service keeps), a
# clear error, not "exited".
lost_permission() {
	local pid rc=0
	sh -c "sleep 1; exec setpriv --reuid=65534 --regid=65534 --clear-groups $mix --size 4 --pattern 512" \
		>"$out/lost" 2>&1 &
	pid=$!
	setpriv --bounding-set -dac_read_search,-dac_override "$ctl" collapse --pid "$pid" \
		--await-postcopy 10 >/dev/null 2>"$out/lost.err" || rc=$?
	kill "$pid" || true
	wait "$pid" 2>/dev/null || true
	check_eq "$rc" 1 "exit status"
	check_eq "$(cat "$out/lost.err")" \
		"thpcowctl: collapse: pid $pid: cannot read /proc/$pid/fd: Permission denied" "stderr"
}

# 5.10: the documented refusal, nothing changed.
unsupported_kernel() {
	mix_start old --size 4 --pattern 512
	expect_error 1 "thpcowctl: collapse: kernel $(uname -r) has no MADV_COLLAPSE (Linux 6.1 and later collapse another process's memory with process_madvise); nothing was changed" \
		collapse --pid "$mixpid"
	mix_end old
	check_eq "$(val old thp_map)" .. "THP map"
}

# SIGINT while waiting for a postcopy: status 130, and the summary says
# nothing ended the wait (not "timeout", which SECS passing would be).
interrupted_wait() {
	interrupt intw 1 16 --await-postcopy 600
	check_eq "$(jval intw.json trigger)" none "trigger"
	check_eq "$(jval intw.json collapsed)" 0 "collapsed"
}

if [[ ${COLLAPSE_ONLY_UNSUPPORTED:-0} == 1 ]]; then
	cases=(
		unsupported_kernel  # no MADV_COLLAPSE: the documented error
	)
else
	cases=(
		by_pid_default      # default threshold: ranges with >= 502 data pages
		by_pid_threshold    # --min-present 300: more ranges, RSS as predicted
		by_cgroup           # every process of a cgroup
		second_run_is_noop  # THPs are left alone and counted
		uffd_range_skipped  # a userfaultfd range is skipped and counted
		after_migration_waits # waits while uffd is registered; the process exits
		await_postcopy      # started in precopy: waits for postcopy's start and end
		await_postcopy_open_first # the file opened before the registration (QEMU's order)
		await_postcopy_none # no postcopy within SECS: collapses; --pidfile
		events_precopy      # --domain: libvirt's "Resumed Migrated" ends the wait at once
		events_postcopy     # --domain: a postcopy's end, not its start
		events_state_and_stop # --domain: migrated already; the domain stopped
		events_no_libvirt   # --domain without virsh: the /proc watch
		exits_midway        # the process exits mid-way: error and summary
		rate_bounds         # --rate bounds the bandwidth
		interrupted         # SIGINT stops between ranges, status 130
		interrupted_wait    # SIGINT while waiting: status 130, trigger none
		bad_arguments       # no such pid, kernel thread, rate 0, no cgroup, pid files
		no_permission       # another user's process
		lost_permission     # one that changes user later: a clear error
	)
fi
tap_run "${cases[@]}"
rc=$?
echo "$thp_was" >"$thp_enabled"
guest_done "$rc"
