#!/usr/bin/env bash
# shellcheck disable=SC2317 # the cases are called through tap_run
# vm: --kernel 6.1 --timeout 900
# thpcowctl against the real module, run inside a guest with thpcow loaded
# (tests/check boots it as the line above says): every verb, its text and
# JSON output, and its error paths with their exact messages and exit
# statuses (1: the operation failed, 2: the command line was wrong). The
# last case unloads and loads the module and leaves it loaded with the
# global mode kernel. A TCG thread per vCPU: the stats case times 1 s
# intervals of stats --watch while a workload runs, which one thread for
# all vCPUs oversleeps (tests/vm/ibt.t skips it there).
# THPCOW_CTL names the thpcowctl to test (default: the one built in tools/),
# THPCOW_KO the module file that was loaded (default: the one vm/run
# loaded, else module/thpcow.ko): see tests/lib/guest.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/guest.sh
source "$repo/tests/lib/guest.sh" # ctl wrf ko cg out cg_make cg_clean cgroup_exec guest_done

uapi=$repo/include/uapi/thpcow.h
kernel=$(uname -r)
version=$(sed -n 's/^#define THPCOW_VERSION\t*"\(.*\)"$/\1/p' "$uapi")
abi=$(sed -n 's/^#define THPCOW_ABI_VERSION\t*\([0-9]*\)$/\1/p' "$uapi")
thp=/sys/kernel/mm/transparent_hugepage
tracefs=/sys/kernel/tracing
event=events/thpcow/thpcow_fault
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# shellcheck source=SCRIPTDIR/../lib/run.sh
source "$repo/tests/lib/run.sh" # run, fails, jqso

# A process costs a quarter of a second in the guest (TCG): the helpers
# below use bash alone where they can.

# field LABEL: the value of "LABEL: value" in $so (text output).
field() {
	local line
	while IFS= read -r line; do
		[[ $line =~ ^"$1":\ +(.*)$ ]] && echo "${BASH_REMATCH[1]}"
	done <<<"$so"
}

# thp_word FILE: the [chosen] word of a THP sysfs file
thp_word() {
	local v
	v=$(<"$thp/$1")
	v=${v#*[}
	echo "${v%%]*}"
}

# cleanup: for a case that changes anything, as its first command. When
# the case ends, passed or not, its background processes are killed, the
# cgroups it made removed, and the module left loaded, without policies.
bgpids=()
cleanup() { trap case_exit EXIT; }
case_exit() {
	local procs
	set +e
	procs=$(cat "$cg"/thpcow-test/cgroup.procs "$cg"/thpcow-test/*/cgroup.procs \
		"$cg"/thpcow-test/*/*/cgroup.procs 2>/dev/null)
	# shellcheck disable=SC2086 # one pid a word
	kill "${bgpids[@]}" $procs 2>/dev/null
	wait 2>/dev/null
	[[ -d /sys/module/thpcow ]] || "$ctl" load --path "$ko" || insmod "$ko"
	"$ctl" list --json | jq -r '.policies[] | select(.scope == "cgroup") | .cgroup' |
		while read -r c; do "$ctl" clear --cgroup "$c"; done
	"$ctl" clear --global
	cg_clean
}

# expect_json FILTER WANT WHAT CMD...: CMD succeeds, and FILTER applied to
# the JSON it prints is WANT.
expect_json() {
	local filter=$1 want=$2 what=$3
	shift 3
	run 0 "$@"
	check_eq "$(jqso "$filter")" "$want" "$what"
}

# spawn VAR CMD...: start CMD in the background (with the call's redirections),
# its pid in VAR; killed when the case ends (see cleanup). CMD must be a
# program, or a function that ends in exec: the pid is that of the process.
spawn() {
	local -n pid=$1
	shift
	"$@" &
	pid=$!
	bgpids+=("$pid")
}

# wait_for CONDITION...: until the command CONDITION succeeds (10 s at most;
# then what it says, once).
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		"$@" >/dev/null 2>&1 && return
		sleep 0.05
	done
	echo "timed out waiting for: $*"
	"$@"
	return 1
}

# reap PID [SECONDS]: wait for the child PID, but not for ever: after
# SECONDS (default 120) show what every process is doing, kill it, and
# return 124, so that a hang fails its case and says where it hung.
reap() {
	local pid=$1 i state
	for ((i = 0; i < ${2:-120} * 10; i++)); do
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
		[[ -z $state || $state == Z ]] && {
			wait "$pid"
			return
		}
		sleep 0.1
	done
	echo "pid $pid still running after ${2:-120} s; the processes:"
	ps -eo pid,ppid,stat,wchan:30,args | sed 's/^/  /'
	sed 's/^/  its kernel stack: /' "/proc/$pid/stack" 2>/dev/null
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 124
}

# A trace (or N) has its instance and its event enabled there.
trace_ready() {
	local f n=0
	for f in "$tracefs"/instances/thpcowctl-*/"$event/enable"; do
		[[ -r $f && $(<"$f") == 1 ]] && n=$((n + 1))
	done
	((n >= ${1:-1}))
}
no_instances() {
	local left=("$tracefs"/instances/*)
	[[ ! -e ${left[0]} ]] && return
	echo "instances left: ${left[*]}"
	return 1
}
file_has() { [[ -s $1 ]]; }
# lines_with FILE TEXT N: at least N lines of FILE hold TEXT.
lines_with() {
	local l n=0
	while IFS= read -r l; do [[ $l == *"$2"* ]] && n=$((n + 1)); done <"$1"
	((n >= $3))
}
# comments_only FILE: every line of FILE starts with '#'.
comments_only() {
	local l
	while IFS= read -r l; do
		[[ $l == '#'* ]] && continue
		echo "$1: $l"
		return 1
	done <"$1"
}
# line_in FILE LINE: FILE has the line LINE.
line_in() {
	local l
	while IFS= read -r l; do [[ $l == "$2" ]] && return; done <"$1"
	return 1
}

# wrf_gated NAME: become wrf (8 MiB, 4 huge pages) under 'zero' that reads,
# waits for the file $out/go-NAME, then writes; its output in $out/NAME.
# Each NAME is used once.
wrf_gated() {
	exec "$ctl" exec zero -- "$wrf" --size 8 --verify \
		--between "while [ ! -e $out/go-$1 ]; do sleep 0.05; done" >"$out/$1"
}

# A fresh cgroup tree for a case, removed again with rmdir (deepest first).

# --- cases -------------------------------------------------------------------

status_text() {
	run 0 "$ctl" status
	check_eq "$(field "module loaded")" yes "module loaded"
	check_eq "$(field "module version")" "$version" "module version"
	check_eq "$(field "module abi")" "$abi" "module abi"
	check_eq "$(field "thpcowctl version")" "$version" "thpcowctl version"
	check_eq "$(field kernel)" "$kernel" "kernel"
	check_eq "$(field "native zero")" no "native zero on 6.1"
	check_eq "$(field "global mode")" kernel "global mode"
	check_match "$(field substituted)" '^[0-9]+$' "substituted"
	check_eq "$se" "" "stderr"
	# the THP settings behind fallback_ineligible and fallback_alloc
	check_eq "$(field "thp enabled")/$(field "thp defrag")" \
		"$(thp_word enabled)/$(thp_word defrag)" "thp enabled/defrag"
	check_eq "$(field "thp use_zero_page")/$(field "khugepaged defrag")" \
		"$(<"$thp"/use_zero_page)/$(<"$thp"/khugepaged/defrag)" "use_zero_page/khugepaged defrag"
	check_eq "$(field "thp 2048kB enabled")" \
		"$(if [[ -e $thp/hugepages-2048kB/enabled ]]; then thp_word hugepages-2048kB/enabled; else echo -; fi)" \
		"thp 2048kB enabled (- before 6.8)"
}

status_json() {
	run 0 "$ctl" status --json
	check_eq "$(jqso '[.loaded, .native_zero, .module_version, .tool_version, .abi == .tool_abi, .global_mode, .kernel]')" \
		"[true,false,\"$version\",\"$version\",true,\"kernel\",\"$kernel\"]" "status --json"
	check_eq "$(jqso '[.policies, .substituted, .fallbacks, .hook_calls] | map(type) | unique')" \
		'["number"]' "the counters are numbers"
	check_eq "$(jqso '[.thp_enabled, .thp_defrag, .thp_use_zero_page]')" \
		"[\"$(thp_word enabled)\",\"$(thp_word defrag)\",\"$(<"$thp"/use_zero_page)\"]" \
		"the THP settings"
	# global options before the verb
	run 0 "$ctl" -J status
	check_eq "$(jqso .loaded)" true "-J status"
	run 0 "$ctl" --json status
	check_eq "$(jqso .loaded)" true "--json status"
}

version() {
	run 0 "$ctl" version
	check_eq "$so" "thpcowctl $version (ABI $abi)
thpcow $version (ABI $abi)" "version"
	check_eq "$(</sys/module/thpcow/version)" "$version" "the module's own version"
	run 0 "$ctl" --version
	check_eq "${so%%$'\n'*}" "thpcowctl $version (ABI $abi)" "--version"
}

pid_set_get_clear() {
	local p
	cleanup
	spawn p sleep 600
	fails 0 "" "$ctl" set -p "$p" zero
	run 0 "$ctl" get -p "$p"
	check_eq "$(field scope)/$(field pid)/$(field comm)" "pid/$p/sleep" "target"
	check_eq "$(field mode)/$(field flags)/$(field present)" "zero/-/yes" "own policy"
	check_eq "$(field "effective mode")/$(field "effective scope")" zero/pid "in effect"
	run 0 "$ctl" get --pid "$p" --json
	check_eq "$(jqso '[.scope, .pid, .comm, .mode, .flags, .substitutions, .present]')" \
		"[\"pid\",$p,\"sleep\",\"zero\",[],0,true]" "get --json"
	run 0 "$ctl" -J get -p "$p"
	check_eq "$(jqso .mode)" '"zero"' "-J get -p"
	fails 0 "" "$ctl" clear -p "$p"
	run 0 "$ctl" get --pid "$p" --json
	check_eq "$(jqso '[.mode, .present, .effective_mode, .effective_scope]')" \
		'[null,false,"kernel","global"]' "after clear"
	fails 1 "thpcowctl: no policy for pid $p" "$ctl" clear --pid "$p"
}

# A shell sets a policy on itself, then forks: with --children the child
# gets the policy too, without it the child has none.
pid_children() {
	local flags parent_want child_want parent child
	cleanup
	# FLAGS (- for none), the parent's [mode, flags], the child's
	# [present, mode, flags, effective_mode]
	while read -r flags parent_want child_want; do
		[[ $flags == - ]] && flags=''
		rm -f "$out/child"
		# shellcheck disable=SC2016 # the inner shell's
		spawn parent sh -c '"$0" set --pid $$ $1 zero && { sleep 600 & echo $! >"$2"; wait; }' \
			"$ctl" "$flags" "$out/child"
		wait_for file_has "$out/child"
		child=$(<"$out/child")
		bgpids+=("$child")
		expect_json '[.mode, .flags]' "$parent_want" \
			"the parent, set ${flags:-without --children}" "$ctl" get --pid "$parent" --json
		expect_json '[.present, .mode, .flags, .effective_mode]' "$child_want" \
			"its child" "$ctl" get --pid "$child" --json
	done <<'EOF'
--children ["zero",["children"]] [true,"zero",["children"],"zero"]
- ["zero",[]] [false,null,[],"kernel"]
EOF
}

# --cgroup as an absolute path, below the root with and without a leading
# slash, and nested: the nearest cgroup policy above a process wins.
cgroup_policy() {
	local in_a in_vms id
	cleanup
	cg_make vms/a
	fails 0 "" "$ctl" set --cgroup "$cg/thpcow-test/vms" zero
	fails 0 "" "$ctl" set --cgroup thpcow-test/vms/a/ kernel
	run 0 "$ctl" get --cgroup thpcow-test/vms
	check_eq "$(field scope)/$(field cgroup)/$(field mode)/$(field present)" \
		"cgroup//thpcow-test/vms/zero/yes" "get, relative"
	id=$(stat -c %i "$cg/thpcow-test/vms")
	run 0 "$ctl" get --cgroup /thpcow-test/vms/a --json
	check_eq "$(jqso '[.scope, .cgroup, .mode, .present]')" \
		'["cgroup","/thpcow-test/vms/a","kernel",true]' "get --json, leading slash"
	expect_json .cgroup_id "$id" "the cgroup id is the directory's inode" \
		"$ctl" get --cgroup "$cg/thpcow-test/vms" --json
	spawn in_a cgroup_exec "$cg/thpcow-test/vms/a" sleep 600
	spawn in_vms cgroup_exec "$cg/thpcow-test/vms" sleep 600
	wait_for line_in "$cg/thpcow-test/vms/a/cgroup.procs" "$in_a"
	wait_for line_in "$cg/thpcow-test/vms/cgroup.procs" "$in_vms"
	expect_json '[.effective_mode, .effective_scope]' '["kernel","cgroup"]' \
		"a process in the nested cgroup" "$ctl" get --pid "$in_a" --json
	expect_json '[.effective_mode, .effective_scope]' '["zero","cgroup"]' \
		"a process in the outer cgroup" "$ctl" get --pid "$in_vms" --json
	fails 0 "" "$ctl" clear --cgroup "$cg/thpcow-test/vms/a"
	fails 0 "" "$ctl" clear --cgroup thpcow-test/vms
	expect_json '[.mode, .present]' '[null,false]' "after clear" \
		"$ctl" get --cgroup thpcow-test/vms --json
	fails 1 "thpcowctl: no policy for cgroup /thpcow-test/vms/a" \
		"$ctl" clear --cgroup /thpcow-test/vms/a
}

global_policy() {
	cleanup
	fails 0 "" "$ctl" set --global zero
	run 0 "$ctl" get --global --json
	check_eq "$so" '{"scope":"global","mode":"zero","flags":[],"substitutions":0,"present":true}' \
		"get --global --json"
	run 0 "$ctl" status
	check_eq "$(field "global mode")" zero "status"
	fails 0 "" "$ctl" clear --global
	run 0 "$ctl" get --global
	check_eq "$(field mode)/$(field present)" kernel/yes "after clear --global"
}

# A process whose name has a space, and a cgroup.
list_policies() {
	local p
	cleanup
	cp /bin/sleep "$out/odd name"
	spawn p "$out/odd name" 600
	cg_make listed
	"$ctl" set --pid "$p" --children zero
	"$ctl" set --cgroup thpcow-test/listed zero
	run 0 "$ctl" list
	check_match "$so" $'^SCOPE +TARGET +MODE +FLAGS +SUBSTITUTIONS\n' "the header"
	check_match "$so" $'\npid +'"$p"' \(odd name\) +zero +children +0'$'(\n|$)' "the pid row"
	check_match "$so" $'\ncgroup +/thpcow-test/listed +zero +- +0'$'(\n|$)' "the cgroup row"
	run 0 "$ctl" list --json
	check_eq "$(jqso "[.policies[] | select(.pid == $p) | .comm, .mode, .flags]")" \
		'["odd name","zero",["children"]]' "the pid entry"
	check_eq "$(jqso '[.policies[] | select(.scope == "cgroup") | .cgroup, .mode]')" \
		'["/thpcow-test/listed","zero"]' "the cgroup entry"
	# the options of a table, and the same before the verb
	run 0 "$ctl" -n -o SCOPE,PID,COMM,CGROUP,CGROUP_ID,MODE,FLAGS,SUBSTITUTIONS,TARGET list
	check_match "$so" '(^|'$'\n'')pid +'"$p"' odd name +zero +children +0 +'"$p"' \(odd name\)'$'(\n|$)' "-n -o: the pid row"
	check_match "$so" '(^|'$'\n'')cgroup +/thpcow-test/listed +'"$(stat -c %i "$cg/thpcow-test/listed")"' +zero +- +0 +/thpcow-test/listed'$'(\n|$)' \
		"-n -o: the cgroup row, its id"
	run 0 "$ctl" -n -o +CGROUP_ID list
	check_match "$so" '(^|'$'\n'')pid +'"$p"' \(odd name\) +zero +children +0 *'$'(\n|$)' "-n -o +COLUMNS before the verb"
	run 0 "$ctl" list -r
	check_match "$so" $'^SCOPE TARGET MODE FLAGS SUBSTITUTIONS\n' "-r: the header"
	check_eq "$(grep -cxF "pid $p\\x20(odd\\x20name) zero children 0" <<<"$so")" 1 "-r: the pid row"
	run 0 "$ctl" -J list
	check_eq "$(jqso "[.policies[] | select(.pid == $p) | .comm]")" '["odd name"]' "-J list"
	run 0 "$ctl" list -J -o PID,SUBSTITUTIONS,CGROUP
	check_eq "$(jqso "[.policies[] | select(.pid == $p)]")" "[{\"pid\":$p,\"substitutions\":0,\"cgroup\":null}]" \
		"-J -o: libsmartcols' JSON, numbers as numbers"
	fails 2 "thpcowctl: list: unknown column 'BOGUS' (see 'thpcowctl list --help')
Try 'thpcowctl list --help' for more information." "$ctl" list -o SCOPE,BOGUS
}

# stats has the debugfs file's counters; --watch shows what moved per second.
stats() {
	# shellcheck disable=SC2034 # load is set through spawn's nameref
	local names load
	cleanup
	run 0 "$ctl" stats
	# the counters come first, up to "policies"
	names=$(awk '$1 == "policies" { exit } { print $1 }' /sys/kernel/debug/thpcow/stats)
	check_eq "$(awk 'NR > 1 { print $1 }' <<<"$so")" "$names" "the counters' names"
	check_match "$so" $'^COUNTER +VALUE\n' "the header"
	check_match "$so" $'\nsubstituted +[0-9]+\n' "substituted"
	run 0 "$ctl" stats -n -o COUNTER
	check_eq "$so" "$names" "-n -o COUNTER"
	run 0 "$ctl" stats -r -o COUNTER,DESCRIPTION
	check_eq "$(grep -cF 'fallback_alloc Fallbacks:\x20no\x20free\x20THP' <<<"$so")" 1 "-r -o DESCRIPTION"
	run 0 "$ctl" stats -J -o COUNTER,VALUE
	check_eq "$(jqso '.counters | map(.counter) | join(" ")')" "\"${names//$'\n'/ }\"" "-J -o"
	run 0 "$ctl" stats --json
	check_eq "$(jqso '.counters.substituted')" \
		"$(awk '$1 == "substituted" { print $2 }' /sys/kernel/debug/thpcow/stats)" \
		"counters.substituted"
	check_eq "$(jqso '.counters | keys_unsorted')" "$(jq -Rnc '[inputs]' <<<"$names")" \
		"the counters' keys"
	# substitutions all the time, in both intervals
	spawn load "$ctl" exec zero -- "$wrf" --size 8 --repeat 1000000 >/dev/null
	run 0 "$ctl" stats --watch 1 --count 2
	check_match "$so" '^TIME +HOOK_CALLS +SUBSTITUTED +PASSTHROUGH +FALLBACKS +COPIED +SPLIT'$'\n' "the header, once"
	check_eq "$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}[+-][0-9]{4} ' <<<"$so")" 2 "timestamped rows"
	check_eq "$(awk 'NR > 1 && $3 > 0' <<<"$so" | wc -l)" 2 "intervals with substitutions"
	run 0 "$ctl" stats --watch 1 --count 1 -n -o SUBSTITUTED,FALLBACK_ALLOC
	check_match "$so" '^ +[1-9][0-9]* +[0-9]+$' "--watch -n -o"
	run 0 "$ctl" stats --watch 1 --count 1 --json
	check_eq "$(jqso '[(.time | test("^[0-9-]{10}T")), (.interval_s | type), (.rates | map_values(type) | to_entries | map(.value) | unique), (.deltas.substituted > 0)]')" \
		'[true,"number",["number"],true]' "stats --watch --json"
}

# stats --format prometheus, parsed by prometheus_client, against debugfs
# (read before and after: equal, or the counters moved meanwhile: again).
stats_prometheus() {
	local before after i
	cleanup
	for ((i = 0; i < 5; i++)); do
		before=$(</sys/kernel/debug/thpcow/stats)
		run 0 "$ctl" stats --format prometheus || return
		after=$(</sys/kernel/debug/thpcow/stats)
		[[ $before == "$after" ]] && break
	done
	check_eq "$after" "$before" "debugfs unchanged around the read"
	printf '%s\n' "$so" >"$out/prom"
	# what debugfs said around the read, not now: the hook disarms 10 s
	# after the last rule went (cleanup), whenever that falls
	printf '%s\n' "$after" >"$out/prom-debugfs"
	check_eq "$("$repo/tests/lib/prometheus-check.py" "$out/prom" \
		"$out/prom-debugfs" "$(<"$thp"/hpage_pmd_size)" 2>&1)" ok \
		"prometheus_client parses it; the values are debugfs'"
	fails 2 "thpcowctl: stats: --format prometheus takes none of -J, -o, -n, -r, --watch
Try 'thpcowctl stats --help' for more information." "$ctl" stats --format prometheus --watch 1
}

# The short options of the scopes, and stats --format json and text.
short_options() {
	cleanup
	cg_make short
	fails 0 "" "$ctl" set -c thpcow-test/short zero
	run 0 "$ctl" get -J -c thpcow-test/short
	check_eq "$(jqso '[.scope, .cgroup, .mode]')" '["cgroup","/thpcow-test/short","zero"]' "get -J -c"
	fails 0 "" "$ctl" clear -c thpcow-test/short
	fails 0 "" "$ctl" set -g zero
	run 0 "$ctl" get -g
	check_eq "$(field scope)/$(field mode)" global/zero "get -g"
	fails 0 "" "$ctl" clear -g
	run 0 "$ctl" stats --format json
	check_eq "$(jqso '.counters | has("substituted")')" true "stats --format json"
	run 0 "$ctl" stats --format text
	check_match "$so" $'^COUNTER +VALUE\nhook_calls +[0-9]+\n' "stats --format text"
}

exec_gets_thps() {
	cleanup
	run 0 "$ctl" exec zero -- "$wrf" --size 16 --verify
	check_eq "$(sed -n 's/^anon_huge_kb=//p' <<<"$so")" 16384 "AnonHugePages kB"
	check_eq "$(sed -n 's/^thp_split_pmd=//p' <<<"$so")" 0 "thp_split_pmd"
	check_eq "$(sed -n 's/^verify=//p' <<<"$so")" ok "data"
	expect_json '.policies' '[]' "the policy left with the process" \
		"$ctl" list --json
}

# Two processes under 'zero', one after the other: trace --pid sees only its
# own, and the JSON carries the pid, comm, address and outcome.
trace_json() {
	local first second tr
	cleanup
	spawn first wrf_gated first
	spawn second wrf_gated second
	spawn tr timeout 60 "$ctl" trace --count 3 --json --pid "$second" >"$out/trace"
	wait_for trace_ready
	touch "$out/go-first"
	reap "$first"
	touch "$out/go-second"
	reap "$second"
	reap "$tr" || {
		echo "trace: exit status $?"
		return 1
	}
	so=$(<"$out/trace")
	check_eq "$(jq -c .type <<<"$so" | uniq -c | tr -s ' ')" ' 3 "fault"
 1 "end"' "three events, then the end"
	check_eq "$(jq -c 'select(.type == "fault") | [.pid, .comm, .outcome]' <<<"$so" | sort -u)" \
		"[$second,\"wrf\",\"substituted\"]" "the events"
	check_eq "$(jq -r 'select(.type == "fault") | .address' <<<"$so" | sort -u |
		grep -c '^0x[0-9a-f]*00000$')" 3 "three distinct addresses, 1 MiB aligned"
	check_eq "$(jq -c 'select(.type == "end") | [.events, .lost]' <<<"$so")" "[3,0]" \
		"the end: 3 events, none lost"
	wait_for no_instances
}

# A comm that looks like the event's printed fields ("a address=1 b"):
# read by name from the record, each field is what the process was. Two
# traces at once, JSON and text; times since boot, as /proc/uptime counts,
# in order; the wall-clock time of day within a minute of date's.
trace_fields() {
	local p tr tt name="a address=1 b" t up prev=0 ok=1 now
	cleanup
	ln -s "$wrf" "$out/$name"
	spawn p "$ctl" exec zero -- "$out/$name" --size 8 --verify \
		--between "while [ ! -e $out/go-fields ]; do sleep 0.05; done" >/dev/null
	spawn tr timeout 60 "$ctl" trace --count 4 --json --pid "$p" >"$out/trace.json"
	spawn tt timeout 60 "$ctl" trace --count 4 --wall-clock --pid "$p" >"$out/trace.txt"
	wait_for trace_ready 2
	touch "$out/go-fields"
	reap "$p"
	reap "$tr" || {
		echo "trace --json: exit status $?"
		return 1
	}
	reap "$tt" || {
		echo "trace --wall-clock: exit status $?"
		return 1
	}
	so=$(<"$out/trace.json")
	jq -e . <<<"$so" >/dev/null || {
		echo "not JSON: $so"
		return 1
	}
	check_eq "$(jq -c 'select(.type == "fault") | [.pid, .comm, .outcome]' <<<"$so" | sort -u)" \
		"[$p,\"$name\",\"substituted\"]" "pid, comm and outcome"
	check_eq "$(jq -r 'select(.type == "fault") | .address' <<<"$so" | sort -u |
		grep -c '^0x[0-9a-f]*[02468ace]00000$')" 4 "four distinct addresses, 2 MiB aligned"
	# (as printed: jq would drop a last 0)
	check_eq "$(grep -cE '^\{"type":"fault","time":[0-9]+\.[0-9]{6},' <<<"$so")" 4 \
		"times with microseconds"
	up=$(cut -d' ' -f1 /proc/uptime)
	while read -r t; do
		awk -v t="$t" -v p="$prev" -v u="$up" 'BEGIN { exit !(t >= p && t > 0 && t <= u && u - t < 60) }' || ok=0
		prev=$t
	done < <(jq -r 'select(.type == "fault") | .time' <<<"$so")
	((ok)) || {
		echo "times not in order, or not since boot (uptime $up):"
		jq -r .time <<<"$so"
		return 1
	}
	now=$(date -u +%s)
	while read -r t; do
		t=$(date -u -d "${t%Z}" +%s) && ((now - t < 60 && t <= now)) || ok=0
	done < <(jq -r 'select(.type == "fault") | .wall_time' <<<"$so")
	((ok)) || {
		echo "wall_time not within a minute of $(date -u)"
		return 1
	}
	so=$(<"$out/trace.txt")
	check_eq "${so%%$'\n'*}" "TIME                                 PID  COMM             ADDRESS             OUTCOME" \
		"the header with --wall-clock"
	check_eq "$(grep -cE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{6}[+-][0-9]{4} +$p  $name  +0x[0-9a-f]+ +substituted$" <<<"$so")" 4 \
		"rows: time of day, pid, the whole comm, address, outcome"
	wait_for no_instances
}

# A trace buffer of one page a CPU and a reader that stops reading: the
# kernel overwrites events, the trace says so when it sees it and, at
# the end, how many in all; the overrun in the instance's stats is that.
trace_lost_events() {
	# shellcheck disable=SC2034 # set through spawn's nameref
	local reader tr load kb
	cleanup
	mkfifo "$out/lost"
	# the reader holds the pipe from the start, and reads it once told to
	# (a moment without a reader would end the trace with EPIPE)
	# shellcheck disable=SC2016 # the inner shell's
	spawn reader sh -c 'exec 3<>"$0"; while [ ! -e "$1" ]; do sleep 0.05; done; exec cat <&3' \
		"$out/lost" "$out/go-drain" >"$out/lost.json"
	# (--pid: another process's faults would keep the trace busy)
	spawn load "$ctl" exec zero -- "$wrf" --size 8 --repeat 1000000 \
		--between "while [ ! -e $out/go-lost ]; do sleep 0.05; done" >/dev/null
	spawn tr "$ctl" trace --json --buffer-size 4 --pid "$load" >"$out/lost"
	wait_for trace_ready
	# (the kernel rounds it up to whole pages, and more)
	kb=$(<"$tracefs/instances/thpcowctl-$tr/buffer_size_kb")
	((kb < 16)) || {
		echo "buffer_size_kb: $kb, not the 4 asked (rounded up)"
		return 1
	}
	touch "$out/go-lost"
	wait_for in_pipe_write "$tr"
	wait_for overrun "$tr"
	kill "$load"
	touch "$out/go-drain"
	wait_for lines_with "$out/lost.json" '"type":"lost"' 1 || {
		tail -n 3 "$out/lost.json"
		echo "trace: $(cat "/proc/$tr/wchan" 2>&1)"
		return 1
	}
	kill -TERM "$tr"
	reap "$tr" || {
		echo "trace: exit status $?"
		return 1
	}
	wait_for lines_with "$out/lost.json" '"type":"end"' 1
	so=$(<"$out/lost.json")
	jq -e . <<<"$so" >/dev/null || {
		echo "not JSON: $(tail -n 3 <<<"$so")"
		return 1
	}
	check_eq "$(tail -n 1 <<<"$so" | jq -c '[.type, .lost > 0, .events > 0]')" '["end",true,true]' \
		"the end: events, and some lost"
	check_eq "$(jq -s '(map(select(.type == "lost")) | map(.lost) | add) <=
		(map(select(.type == "end")) | .[0].lost)' <<<"$so")" true \
		"lost as seen, at most the total"
	no_instances
}
# overrun PID: trace PID's instance has overwritten events
overrun() {
	local f v n=0
	for f in "$tracefs"/instances/thpcowctl-"$1"/per_cpu/cpu*/stats; do
		v=$(sed -n 's/^overrun: //p' "$f")
		n=$((n + v))
	done
	((n > 0))
}

# Text; a private instance, gone after SIGTERM, SIGINT and --duration;
# the global buffer untouched; a dead trace's instance removed.
trace_text() {
	local tr first
	cleanup
	spawn first wrf_gated text
	spawn tr "$ctl" trace >"$out/trace"
	wait_for trace_ready
	touch "$out/go-text"
	reap "$first"
	wait_for lines_with "$out/trace" " $first  wrf " 4 || {
		cat "$out/trace"
		return 1
	}
	kill -TERM "$tr"
	reap "$tr" || {
		echo "trace stopped by SIGTERM: exit status $?"
		return 1
	}
	so=$(<"$out/trace")
	check_eq "${so%%$'\n'*}" "           TIME      PID  COMM             ADDRESS             OUTCOME" "the header"
	check_eq "$(grep -cE "^ *[0-9]+\.[0-9]{6} +$first  wrf +0x[0-9a-f]+ +substituted$" <<<"$so")" 4 \
		"rows of wrf's substitutions"
	no_instances
	check_eq "$(<"$tracefs/$event/enable")" 0 "the global event enabled"
	comments_only "$tracefs/trace" # no events in the global buffer
	spawn tr "$ctl" trace --json >/dev/null
	wait_for trace_ready
	kill -INT "$tr"
	reap "$tr" || {
		echo "trace stopped by SIGINT: exit status $?"
		return 1
	}
	no_instances
	mkdir "$tracefs/instances/thpcowctl-999999"
	run 0 "$ctl" trace --duration 1
	check_eq "$so" "           TIME      PID  COMM             ADDRESS             OUTCOME" "an idle second"
	no_instances
}

# A reader that stopped reading blocks the trace in a write: SIGTERM still
# ends it, at once, and its instance is removed.
trace_stalled_reader() {
	# shellcheck disable=SC2034 # load and reader are set through spawn's nameref
	local load reader tr
	cleanup
	# Each step says it began: a failure that prints nothing (seen once,
	# not explained) then shows where it happened.
	mkfifo "$out/stalled"
	# shellcheck disable=SC2016 # the inner shell's
	spawn reader sh -c 'exec sleep 600 <>"$0"' "$out/stalled"
	spawn tr "$ctl" trace >"$out/stalled"
	echo "step: trace $tr started, waiting for its instance"
	wait_for trace_ready
	spawn load "$ctl" exec zero -- "$wrf" --size 8 --repeat 1000000 >/dev/null
	echo "step: load $load started, waiting for trace to block in pipe_write"
	wait_for in_pipe_write "$tr"
	echo "step: SIGTERM to trace"
	kill -TERM "$tr"
	wait_for gone "$tr"
	echo "step: trace gone, its exit status"
	reap "$tr" || {
		echo "trace: exit status $?"
		return 1
	}
	no_instances
}
in_pipe_write() { [[ $(<"/proc/$1/wchan") == pipe_write ]]; }
gone() { [[ ! -e /proc/$1/wchan || $(<"/proc/$1/stat") == *") Z "* ]]; }

trace_errors() {
	fails 1 "thpcowctl: trace: $tracefs/$event: permission denied: root is needed" \
		"${nobody[@]}" "$ctl" trace --count 1
	# shellcheck disable=SC2016 # the inner shell's
	fails 1 "thpcowctl: trace: tracefs is not mounted on $tracefs or /sys/kernel/debug/tracing (mount -t tracefs tracefs $tracefs)" \
		unshare -m sh -c 'umount -l "$1" && umount -l /sys/kernel/debug && exec "$0" trace' \
		"$ctl" "$tracefs"
	fails 2 "thpcowctl: trace: invalid N '0': not a positive decimal number
Try 'thpcowctl trace --help' for more information." "$ctl" trace --count 0
}

# Wrong command lines: exit 2, and a pointer to the help.
usage_errors() {
	fails 2 "thpcowctl: set: unknown mode 'fast': expected one of kernel, zero, copy, split
Try 'thpcowctl set --help' for more information." "$ctl" set --global fast
	fails 2 "thpcowctl: set: invalid PID '12x': not a positive decimal number
Try 'thpcowctl set --help' for more information." "$ctl" set --pid 12x zero
	fails 2 "thpcowctl: get: one of --pid, --cgroup or --global is required
Try 'thpcowctl get --help' for more information." "$ctl" get
	fails 2 "thpcowctl: unknown verb 'frobnicate'
Try 'thpcowctl --help' for more information." "$ctl" frobnicate
}

# Requests the module or the system refuse: exit 1, nothing changed.
refused_requests() {
	local before
	cleanup
	mkdir -p "$cg/thpcow-test"
	before=$("$ctl" list)
	fails 1 "thpcowctl: no such process: 999999" "$ctl" set --pid 999999 zero
	fails 1 "thpcowctl: /proc: not a cgroup v2 directory" "$ctl" set --cgroup /proc zero
	fails 1 "thpcowctl: $cg/thpcow-test/missing: No such file or directory" \
		"$ctl" set --cgroup thpcow-test/missing zero
	fails 1 "thpcowctl: $cg/thpcow-test/cgroup.procs: not a cgroup v2 directory" \
		"$ctl" get --cgroup thpcow-test/cgroup.procs
	fails 1 "thpcowctl: /dev/thpcow: permission denied: root (CAP_SYS_ADMIN) is needed" \
		"${nobody[@]}" "$ctl" set --global zero
	check_eq "$("$ctl" list)" "$before" "the policy list"
	run 0 "$ctl" get --global
	check_eq "$(field mode)" kernel "the global mode"
}

# Modes this module version refuses (EOPNOTSUPP), if any; copy was one until
# it was implemented.
unsupported_mode() {
	local m refused=0
	cleanup
	for m in copy split; do
		if "$ctl" set --global "$m" 2>/dev/null; then
			"$ctl" clear --global
			continue
		fi
		fails 1 "thpcowctl: mode '$m' is not supported by this module version" \
			"$ctl" set --global "$m"
		run 0 "$ctl" get --global
		check_eq "$(field mode)" kernel "the global mode after set --global $m"
		refused=$((refused + 1))
	done
	((refused)) || skip "this module supports every mode"
}

# apply FILE: the file's rules set, other cgroup rules cleared, pid rules
# kept; a bad file or a missing cgroup changes nothing.
apply_file() {
	local p split before f=$out/thpcow.conf
	cleanup
	cg_make vms other
	spawn p sleep 600
	"$ctl" set --pid "$p" zero
	"$ctl" set --global zero
	"$ctl" set --cgroup thpcow-test/other zero
	printf '# test\nglobal kernel\ncgroup /thpcow-test/vms zero # the guests\n' >"$f"
	fails 0 "" "$ctl" apply --check "$f"
	check_eq "$("$ctl" list | grep -c '^cgroup')" 1 "rules after --check"
	# apply says what it set and cleared (thpcow.service's journal), nothing else
	run 0 "$ctl" apply "$f"
	check_eq "$se" "" "stderr of apply"
	check_eq "$so" "$f:2: global kernel
$f:3: cgroup /thpcow-test/vms zero
cleared cgroup /thpcow-test/other (not in $f)
applied $f" "what apply says it did"
	check_eq "$("$ctl" list --json | jq -c '[.policies[] | [.scope, .cgroup // .pid, .mode]] | sort')" \
		"[[\"cgroup\",\"/thpcow-test/vms\",\"zero\"],[\"pid\",$p,\"zero\"]]" "the rules"
	check_eq "$("$ctl" get --global --json | jq -r .mode)" kernel "the global mode"
	# shellcheck disable=SC2016 # for sh -c
	run 0 sh -c 'echo $$ >"$0/cgroup.procs" && exec "$1" --size 8 --verify' "$cg/thpcow-test/vms" "$wrf"
	check_eq "$(sed -n 's/^thp_split_pmd=//p' <<<"$so")" 0 "splits in the cgroup"
	run 0 "$wrf" --size 8 --verify
	split=$(sed -n 's/^thp_split_pmd=//p' <<<"$so")
	((split > 0)) || { echo "no splits outside the cgroup (global kernel)"; return 1; }
	before=$("$ctl" list)
	printf 'global zero\ncgroup /thpcow-test/other fast\n' >"$f"
	fails 1 "thpcowctl: $f:2: unknown mode 'fast': expected one of kernel, zero, copy, split
thpcowctl: $f: 1 error; nothing applied" "$ctl" apply "$f"
	printf 'global zero\ncgroup thpcow-test/missing zero\n' >"$f"
	fails 1 "thpcowctl: $f:2: $cg/thpcow-test/missing: No such file or directory
thpcowctl: $f: nothing applied" "$ctl" apply "$f"
	check_eq "$("$ctl" list)" "$before" "the rules after refused files"
	check_eq "$("$ctl" get --global --json | jq -r .mode)" kernel "the global mode after them"
	fails 1 "thpcowctl: /dev/thpcow: permission denied: root (CAP_SYS_ADMIN) is needed" \
		"${nobody[@]}" "$ctl" apply - <<<"global zero"
}

load_when_loaded() {
	cleanup
	# as modprobe: loaded already from the same file is success
	fails 0 "" "$ctl" load --path "$ko"
	fails 0 "" "$ctl" load
	fails 0 "" "$ctl" load --path "$ko" --default kernel
	fails 1 "thpcowctl: thpcow: already loaded, with the global mode kernel (to change it: thpcowctl set --global zero)" \
		"$ctl" load --path "$ko" --default zero
}

unload_in_use() {
	local holder
	cleanup
	spawn holder sh -c 'exec 3<>/dev/thpcow && exec sleep 600'
	wait_for test -e "/proc/$holder/fd/3"
	fails 1 "thpcowctl: thpcow: module is in use (close what holds /dev/thpcow, then try again)" \
		"$ctl" unload
	[[ -d /sys/module/thpcow ]] || {
		echo "the module is gone"
		return 1
	}
}

# unload; what each verb says without the module; load it back with
# --default zero, then as it was (global mode kernel).
unload_load() {
	cleanup
	fails 0 "" "$ctl" unload
	[[ ! -d /sys/module/thpcow ]] || {
		echo "the module is still loaded"
		return 1
	}
	fails 1 "thpcowctl: /dev/thpcow: module not loaded (try: thpcowctl load)" \
		"$ctl" set --global zero
	fails 1 "thpcowctl: /dev/thpcow: module not loaded (try: thpcowctl load)" \
		"$ctl" list
	fails 1 "thpcowctl: trace: $tracefs/$event: module not loaded (try: thpcowctl load)" \
		"$ctl" trace
	fails 1 "thpcowctl: thpcow: module not loaded" "$ctl" unload
	# exit 3 (not loaded), but 0 where the kernel needs no module (7.x)
	local want=3
	[[ $("$ctl" probe --json) == *'"without_thpcow":"whole THP"'* ]] && want=0
	run "$want" "$ctl" status
	check_eq "$(field "module loaded")/$(field "global mode")" no/- "status: exit $want"
	run "$want" "$ctl" status --json
	check_eq "$(jqso .loaded)" false "status --json: exit $want"
	run 0 "$ctl" version
	check_eq "$so" "thpcowctl $version (ABI $abi)
thpcow module not loaded" "version"
	fails 1 "thpcowctl: thpcow: module not installed for $kernel (try: thpcowctl load --path FILE.ko, or make install)" \
		"$ctl" load
	for m in copy split; do # a mode this version refuses, as default_mode
		if "$ctl" load --path "$ko" --default "$m" 2>/dev/null; then
			"$ctl" unload
			continue
		fi
		fails 1 "thpcowctl: $ko: Operation not supported: a module parameter was refused (is the mode supported?) (see dmesg)" \
			"$ctl" load --path "$ko" --default "$m"
		[[ ! -d /sys/module/thpcow ]]
	done
	fails 0 "" "$ctl" load --path "$ko" --default zero
	run 0 "$ctl" get --global
	check_eq "$(field mode)" zero "the global mode after load --default zero"
	fails 0 "" "$ctl" unload
	fails 0 "" "$ctl" load --path "$ko"
	expect_json '[.loaded, .global_mode]' '[true,"kernel"]' "loaded, as it was" \
		"$ctl" status --json
}

cases=(
	status_text       # status: module, versions, native zero, global mode
	status_json       # status --json: valid, the same facts, counters as numbers
	version           # version and --version: the tool's and the module's
	pid_set_get_clear # set/get/clear --pid, text and JSON; clear twice fails
	pid_children      # --children: a later fork inherits; without it, not
	cgroup_policy     # --cgroup absolute, relative, nested: nearest wins
	global_policy     # set/get/clear --global, and status shows it
	list_policies     # list: comm with a space, cgroup path, text, JSON, -o -n -r -J
	stats             # stats: the debugfs counters; -n -r -o -J; --watch rows, --json
	stats_prometheus  # stats --format prometheus: parsed, equal to debugfs
	short_options     # -p, -c, -g; stats --format json and text
	exec_gets_thps    # exec zero: a THP per 2 MiB, no split, no policy left
	trace_json        # trace --json --pid --count: wrf's substitutions only
	trace_text        # trace: header, columns, private instance, signals
	trace_fields      # a comm like "a address=1 b"; times; JSON and text at once
	trace_lost_events # a tiny buffer overwritten: lost events where and in all
	trace_stalled_reader # SIGTERM ends a trace blocked by its reader
	trace_errors      # trace as nobody, without tracefs, bad --count
	usage_errors      # bad mode, bad pid, no scope, bad verb: exit 2
	refused_requests  # ESRCH, not a cgroup, EACCES: exit 1, nothing changed
	unsupported_mode  # a mode the module refuses: EOPNOTSUPP, exit 1
	apply_file        # apply: rules set, stale cgroup rules cleared, bad files refused
	load_when_loaded  # load while loaded from the same file: success
	unload_in_use     # unload with /dev/thpcow open: "in use"
	unload_load       # unload, every verb without it, load --default zero, load
)
tap_run "${cases[@]}"
guest_done $?
