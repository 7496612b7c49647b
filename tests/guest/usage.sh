#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --tcg-threads single --timeout 900
# vm-all: --kernel 6.1-debug --timeout 3600
# vm-all: --kernel 6.12-debug --timeout 3600
# vm-all: --kernel rhel-9.6 --tcg-threads single --timeout 900
# vm-all: --kernel rhel-10.0 --tcg-threads single --timeout 900
# Accounting where the memory is, against the real module, in a guest with
# thpcow loaded (the vm: line above is how tests/check boots it): 'thpcowctl usage' (table, JSON,
# Prometheus), debugfs 'usage', THPCOW_IOC_USAGE's checks, and 'get --pid'
# naming the cgroup whose rule applies. Two processes in two child cgroups
# under one parent-cgroup rule write 256 and 128 MiB after reading; each
# must show on its own cgroup's row, and the rows go when the cgroups do.
# One TCG thread (weight 1 in tests/check -j): no case needs vCPUs running
# at once.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$repo/tests/lib/guest.sh" # ctl wrf cg cg_make cg_clean out insmod_ko
# shellcheck source=SCRIPTDIR/../lib/run.sh
source "$repo/tests/lib/run.sh" # run, fails, jqso

fuzz=$repo/tests/prog/ioctl_fuzz
dbg=/sys/kernel/debug/thpcow/usage
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
parent=thpcow-test/parent
MiB=1048576


# hold NAME DIR MiB [PREFIX...]: in cgroup DIR (below $cg), start PREFIX
# wrf that reads then writes MiB and stays; wait until it has written. Its
# pid goes to $out/NAME.pid. All output to files: a case's output is a pipe
# that a process left behind would keep open.
hold() {
	local name=$1 dir=$2 mib=$3 i
	shift 3
	# cgroup_exec, not in_cgroup: $! must be the pid of wrf itself
	cgroup_exec "$cg/$dir" "$@" "$wrf" --size "$mib" --hold </dev/null >"$out/$name" 2>"$out/$name.err" &
	echo $! >"$out/$name.pid"
	for ((i = 0; i < 1200; i++)); do
		grep -qx ready "$out/$name" && return
		sleep 0.1
	done
	echo "wrf $name never got ready:"
	cat "$out/$name" "$out/$name.err"
	return 1
}

pid_of() { cat "$out/$1.pid"; }

# stop NAME...: end the wrf processes NAME and wait until they are gone.
stop() {
	local name p
	for name; do
		p=$(pid_of "$name")
		kill "$p" 2>/dev/null || true
		while [[ -e /proc/$p ]]; do sleep 0.05; done
	done
}

# dbg_row SCOPE TARGET: the debugfs usage line of that row, or nothing.
dbg_row() { awk -F'\t' -v s="$1" -v t="$2" '$1 == s && $2 == t' "$dbg"; }
# dbg_col LINE NAME: the column NAME (of the debugfs header) of LINE.
dbg_col() {
	local -a head cols
	local i
	IFS=$'\t' read -r -a head < <(sed -n '1s/^# //p' "$dbg")
	IFS=$'\t' read -r -a cols <<<"$1"
	for i in "${!head[@]}"; do
		[[ ${head[i]} == "$2" ]] && echo "${cols[i]}"
	done
	return 0
}

# --- cases -------------------------------------------------------------------

# The parent's rule, two children, a wrf in each (kept for the next cases).
setup_two_cgroups() {
	cg_clean
	echo +memory >"$cg/cgroup.subtree_control"
	cg_make parent/a parent/b
	echo +memory >"$cg/thpcow-test/cgroup.subtree_control"
	echo +memory >"$cg/$parent/cgroup.subtree_control"
	"$ctl" set --cgroup "$parent" zero
	hold a "$parent/a" 256
	hold b "$parent/b" 128
}

# each cgroup's row holds its own process's THPs, in MiB and in faults
usage_json_rows() {
	local want slack=0
	# the kernel's own figure (anon_thp) is at least what thpcow gave once
	# the memcg statistics are flushed: every 2 s since 5.15
	# (flush_memcg_stats_dwork); before, a CPU may hold back up to
	# MEMCG_CHARGE_BATCH, 32 THPs, which only a slack that large allows
	if kernel_since 5 15; then sleep 3; else slack=$((32 * 2 * MiB * $(nproc))); fi
	run 0 "$ctl" usage --json
	for want in "a 128 256" "b 64 128"; do
		# shellcheck disable=SC2086 # the words of one row
		set -- $want
		check_eq "$(jqso "[.usage[] | select(.cgroup == \"/$parent/$1\") |
			[.scope, .cgroup_id, .substituted, .thp_mib, .thp_bytes, .fallbacks]]")" \
			"[[\"cgroup\",$(stat -c %i "$cg/$parent/$1"),$2,$3,$(($3 * MiB)),0]]" \
			"row of $1"
		check_eq "$(jqso ".usage[] | select(.cgroup == \"/$parent/$1\") |
			[.anon_thp_bytes + $slack >= .thp_bytes, .anon_thp_bytes > 0]")" "[true,true]" \
			"anon_thp of $1 (+ $slack) against thp_bytes"
	done
	check_eq "$(jqso "[.usage[] | select(.cgroup == \"/$parent\")] | length")" 0 \
		"no row for the parent, where no process is"
	check_eq "$(jqso .slots)" 1024 "slots"
}

usage_table_rows() {
	run 0 "$ctl" usage
	check_match "$so" "^SCOPE +TARGET +SUBSTITUTED +COPIED +FALLBACKS +THP_MIB +ANON_THP_MIB"$'\n' \
		"header"
	check_match "$so" $'\n'"cgroup +/$parent/a +128 +0 +0 +256 +[0-9]+("$'\n'"|$)" "row of a"
	check_match "$so" $'\n'"cgroup +/$parent/b +64 +0 +0 +128 +[0-9]+("$'\n'"|$)" "row of b"
	# one cgroup's row only, by any of the path forms of --cgroup
	run 0 "$ctl" usage --cgroup "$cg/$parent/a" --json
	check_eq "$(jqso '[.usage[] | [.cgroup, .substituted]]')" "[[\"/$parent/a\",128]]" \
		"usage --cgroup"
	run 0 "$ctl" usage --cgroup "$parent" --json
	check_eq "$(jqso '[.usage[] | [.cgroup, .substituted, .thp_mib]]')" \
		"[[\"/$parent\",0,0]]" "a cgroup without a row is zeros"
}

# debugfs says what the ioctl says
debugfs_agrees() {
	local name line want
	for want in "a 128" "b 64"; do
		# shellcheck disable=SC2086 # the words of one row
		set -- $want
		line=$(dbg_row cgroup "$(stat -c %i "$cg/$parent/$1")")
		check_eq "$(dbg_col "$line" substituted) $(dbg_col "$line" thp_bytes) $(dbg_col "$line" name)" \
			"$2 $(($2 * 2 * MiB)) /$parent/$1" "debugfs row of $1"
		name=/$parent/$1
		run 0 "$ctl" usage --cgroup "$name" --json
		check_eq "$(jqso '.usage[0] | [.substituted, .copied, .split, .fallback_ineligible,
			.fallback_uffd, .fallback_alloc, .fallback_charge, .fallback_unstable,
			.fallback_pinned, .thp_bytes] | map(tostring) | join(" ")')" \
			"\"$(cut -f3-12 <<<"$line" | tr '\t' ' ')\"" "ioctl and debugfs of $1"
	done
}

# node-exporter's textfile format, parsed by prometheus_client, against
# debugfs usage (read before and after: equal, or the rows moved: again);
# and the kernel's own figure, which debugfs does not have
usage_prometheus() {
	local before after i
	for ((i = 0; i < 5; i++)); do
		before=$(<"$dbg")
		run 0 "$ctl" usage --format prometheus || return
		after=$(<"$dbg")
		[[ $before == "$after" ]] && break
	done
	check_eq "$after" "$before" "debugfs unchanged around the read"
	printf '%s\n' "$so" >"$out/prom"
	printf '%s\n' "$after" >"$out/dbg"
	check_eq "$("$repo/tests/lib/prometheus-check.py" --usage "$out/prom" "$out/dbg" 2>&1)" ok \
		"prometheus_client parses it; the rows are debugfs'"
	check_match "$so" $'\n'"thpcow_usage_substituted_total\\{scope=\"cgroup\",cgroup=\"/$parent/a\"\\} 128"$'\n' \
		"substituted of a"
	check_match "$so" $'\n'"thpcow_usage_anon_thp_bytes\\{scope=\"cgroup\",cgroup=\"/$parent/a\"\\} [0-9]+" \
		"the kernel's anon_thp of a"
	fails 2 "thpcowctl: usage: --format prometheus takes none of -o, -n, -r
Try 'thpcowctl usage --help' for more information." "$ctl" usage --format prometheus -n
}

# the table options of list and stats, and the short options -c and -p
usage_table_options() {
	local id
	id=$(stat -c %i "$cg/$parent/a")
	run 0 "$ctl" usage -c "$parent/a" -n -r -o CGROUP,CGROUP_ID,SUBSTITUTED,THP_BYTES
	check_eq "$so" "/$parent/a $id 128 $((256 * MiB))" "usage -c -n -r -o"
	run 0 "$ctl" -J -o SCOPE,CGROUP,THP_MIB,PID usage -c "$parent/b"
	check_eq "$(jqso .)" "{\"usage\":[{\"scope\":\"cgroup\",\"cgroup\":\"/$parent/b\",\"thp_mib\":128,\"pid\":null}]}" \
		"-J -o before the verb"
}

# get --pid names the cgroup whose rule applies: the parent, not the leaf
get_names_cgroup() {
	local p
	p=$(pid_of a)
	run 0 "$ctl" get --pid "$p" --json
	check_eq "$(jqso '[.effective_mode, .effective_scope, .effective_cgroup, .effective_cgroup_id]')" \
		"[\"zero\",\"cgroup\",\"/$parent\",$(stat -c %i "$cg/$parent")]" "get --pid --json"
	run 0 "$ctl" get --pid "$p"
	check_match "$so" $'\n'"effective cgroup: +/$parent"$'\n' "get --pid text"
	run 0 "$ctl" get --pid $$ --json
	check_eq "$(jqso '[.effective_scope, .effective_cgroup, .effective_cgroup_id]')" \
		'["global",null,null]' "no cgroup when none applies"
}

# THPCOW_IOC_USAGE refuses malformed requests (made while rows exist)
ioctl_checks() {
	local line want
	run 0 "$fuzz" --usage-checks
	echo "$so" | tr '\n' ' '
	echo
	for want in "good ok" "sizing ok" "entry_size_small EINVAL" "entry_size_large EINVAL" \
		"size_small EINVAL" "slots_set EINVAL" "slots_used_set EINVAL" "reserved_set EINVAL" \
		"entries_null EFAULT" "tail_zero ok" "tail_set EINVAL" "good_slots 1024"; do
		line=$(grep "^${want%% *} " <<<"$so")
		check_eq "$line" "$want" "${want%% *}"
	done
}

# The rows go when the cgroups go, and so do their slots in the module's
# table (reclaimed when usage is read).
rows_go_with_cgroups() {
	local ida idb used
	ida=$(stat -c %i "$cg/$parent/a")
	idb=$(stat -c %i "$cg/$parent/b")
	run 0 "$ctl" usage --json
	used=$(jqso .slots_used)
	((used >= 2)) || { echo "slots_used $used with two rows"; return 1; }
	check_eq "$(tail -n 1 "$dbg")" "# slots $used of 1024" "debugfs slots"
	stop a b
	rmdir "$cg/$parent/a" "$cg/$parent/b"
	check_eq "$(tail -n 1 "$dbg")" "# slots $((used - 2)) of 1024" \
		"debugfs slots after the cgroups went"
	run 0 "$ctl" usage --json
	check_eq "$(jqso .slots_used)" $((used - 2)) "slots_used after the cgroups went"
	check_eq "$(jqso "[.usage[] | select(.cgroup // \"\" | startswith(\"/$parent/\"))]")" \
		'[]' "rows of removed cgroups"
	check_eq "$(dbg_row cgroup "$ida")$(dbg_row cgroup "$idb")" "" "debugfs rows"
	"$ctl" clear --cgroup "$parent"
}

# A pid rule's process has its own row, and its cgroup's row counts too.
pid_rule_row() {
	local p line
	cg_make solo
	hold solo thpcow-test/solo 64 "$ctl" exec zero --
	p=$(pid_of solo)
	run 0 "$ctl" usage --pid "$p" --json
	check_eq "$(jqso '[.usage[] | [.scope, .pid, .comm, .substituted, .thp_mib]]')" \
		"[[\"pid\",$p,\"wrf\",32,64]]" "usage --pid"
	run 0 "$ctl" usage -p "$p" -J
	check_eq "$(jqso '[.usage[] | [.pid, .substituted]]')" "[[$p,32]]" "usage -p -J"
	check_eq "$(jqso '.usage[0].anon_thp_bytes >= .usage[0].thp_bytes')" true \
		"AnonHugePages of the process"
	run 0 "$ctl" usage
	check_match "$so" $'\n'"pid +$p \\(wrf\\) +32 +0 +0 +64 +[0-9]+("$'\n'"|$)" "table row"
	check_match "$so" $'\n'"cgroup +/thpcow-test/solo +32 +0 +0 +64 +[0-9]+("$'\n'"|$)" \
		"its cgroup's row"
	line=$(dbg_row pid "$p")
	check_eq "$(dbg_col "$line" substituted)/$(dbg_col "$line" name)" 32/wrf "debugfs row"
	stop solo
	fails 1 "thpcowctl: no such process: $p" "$ctl" usage --pid "$p"
	check_eq "$(dbg_row pid "$p")" "" "debugfs row after exit"
	rmdir "$cg/thpcow-test/solo"
}

# insmod the module again, with PARAMS (and the run's own parameters).
reload() {
	[[ ! -e /sys/module/thpcow ]] || rmmod thpcow
	insmod_ko "$@"
}

# The module as the other cases want it: loaded with its defaults, the
# small table's cgroups and rule gone.
small_table_undo() {
	set +e
	[[ ! -d /sys/module/thpcow ]] || "$ctl" clear --cgroup thpcow-test/small 2>/dev/null
	[[ ! -d $cg/thpcow-test/small ]] || find "$cg/thpcow-test/small" -depth -type d -exec rmdir {} +
	[[ $(cat /sys/module/thpcow/parameters/usage_slots 2>/dev/null) == 1024 ]] || reload
}

# in_small C MiB: wrf writes MiB after reading, in cgroup small/C.
in_small() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg/thpcow-test/small/$1" \
		"$wrf" --size "$2" >/dev/null
}

# usage_slots bounds the table: with 2 slots a third cgroup counts in the
# other row, and removed cgroups give their slots to new ones.
small_table() {
	local c
	trap small_table_undo EXIT
	rmmod thpcow
	run 1 reload usage_slots=0
	check_match "$(dmesg | tail -n 5)" "thpcow: usage_slots=0: must be 1 to 65536" \
		"usage_slots=0 refused"
	reload usage_slots=3
	check_eq "$(</sys/module/thpcow/parameters/usage_slots)" 4 "3 rounded up"
	reload usage_slots=2
	cg_make small/c1 small/c2 small/c3 small/c4 small/c5
	"$ctl" set --cgroup thpcow-test/small zero
	for c in c1 c2 c3; do in_small "$c" 4; done
	run 0 "$ctl" usage --json
	check_eq "$(jqso '[.slots, .slots_used]')" "[2,2]" "slots"
	check_eq "$(jqso '[.usage[] | select(.scope == "cgroup") | .substituted]')" "[2,2]" \
		"two cgroup rows"
	check_eq "$(jqso '[.usage[] | select(.scope == "other") | .substituted]')" "[2]" \
		"the third cgroup in the other row"
	run 0 "$ctl" usage
	check_match "$so" $'\n'"other +\\(other\\) +2 +0 +0 +4 +-$" "the other row in the table"
	# removed, and nobody reads usage: a fault that finds no slot (c4's
	# first) has a worker reclaim theirs, so c5 later gets a row
	rmdir "$cg"/thpcow-test/small/c{1,2,3}
	in_small c4 4
	sleep 3
	in_small c5 6
	run 0 "$ctl" usage --json
	check_eq "$(jqso '[.usage[] | select(.cgroup == "/thpcow-test/small/c5") | .substituted]')" \
		"[3]" "a new cgroup's row, after the worker reclaimed"
	check_eq "$(jqso '[.usage[] | select(.cgroup == "/thpcow-test/small/c4" or .scope == "other") |
		.substituted] | add')" 4 "c3's and c4's faults: c4's row or the other row"
	# and when usage is read: c4 and c5 removed, their slots are free
	rmdir "$cg"/thpcow-test/small/c{4,5}
	run 0 "$ctl" usage --json
	check_eq "$(jqso '[.slots_used, ([.usage[] | select(.scope == "cgroup")] | length)]')" \
		"[0,0]" "slots after a read"
}

bad_input() {
	fails 1 "thpcowctl: /proc: not a cgroup v2 directory" "$ctl" usage --cgroup /proc
	fails 1 "thpcowctl: $cg/thpcow-test/none: No such file or directory" \
		"$ctl" usage --cgroup thpcow-test/none
	fails 1 "thpcowctl: pid 1: no pid rule covers it; its memory counts in its cgroup's row (see 'get --pid 1')" \
		"$ctl" usage --pid 1
	run 2 "$ctl" usage --format xml
	check_eq "${se%%$'\n'*}" "thpcowctl: usage: unknown format 'xml': expected text, json or prometheus" \
		"--format xml"
	run 2 "$ctl" usage --pid 1 --cgroup /
	check_eq "${se%%$'\n'*}" "thpcowctl: usage: --pid, --cgroup and --machine are mutually exclusive" \
		"--pid with --cgroup"
	run 2 "$ctl" usage --pid 0
	check_eq "${se%%$'\n'*}" "thpcowctl: usage: invalid PID '0': not a positive decimal number" \
		"--pid 0"
}

unprivileged() {
	fails 1 "thpcowctl: /dev/thpcow: permission denied: root (CAP_SYS_ADMIN) is needed" \
		"${nobody[@]}" "$ctl" usage
	run 1 "${nobody[@]}" "$fuzz" --usage-checks
	check_eq "$so" "open EACCES" "ioctl as nobody"
}

cases=(
	setup_two_cgroups     # parent rule, wrf 256 MiB in a, 128 MiB in b
	usage_json_rows       # JSON: 128/256 and 64/128 on the right rows, anon_thp
	usage_table_rows      # the table's rows, --cgroup, a cgroup without a row
	debugfs_agrees        # debugfs usage = the ioctl, counter by counter
	usage_prometheus      # --format prometheus: parsed, equal to debugfs
	usage_table_options   # -o -n -r -J -o, and -c
	get_names_cgroup      # get --pid: effective cgroup is the parent's
	ioctl_checks          # USAGE: bad sizes, reserved, pointers, newer tails
	rows_go_with_cgroups  # removed cgroups: no rows in usage or debugfs
	pid_rule_row          # exec zero: a process row, its cgroup counts too
	small_table           # usage_slots=2: the bound, the other row, reuse
	bad_input             # unknown pid, non-cgroup paths, bad options
	unprivileged          # nobody: no device, a clear error
)
tap_run "${cases[@]}"
rc=$?
for f in "$out"/*.pid; do [[ -e $f ]] && kill "$(<"$f")" 2>/dev/null; done
wait
"$ctl" clear --cgroup "$parent" 2>/dev/null
cg_clean
rm -rf "$out"
exit "$rc"
