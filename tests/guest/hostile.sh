#!/usr/bin/env bash
# vm: --kernel 6.1 --timeout 900
# vm-all: --kernel 6.1-debug --timeout 3600
# vm-all: --kernel 6.12-debug --timeout 3600
# vm-all: --kernel rhel-9.6 --timeout 900
# vm-all: --kernel rhel-10.0 --timeout 900
# Hostile input and privilege against thpcow's interfaces, inside a guest with
# the module loaded (the vm: line above is how tests/check boots it; make
# tools builds tests/prog first): /dev/thpcow as an unprivileged
# user and under random ioctls (tests/prog/ioctl_fuzz), garbage written to
# the default_mode parameter (and writes to it without CAP_SYS_ADMIN),
# writes to the read-only debugfs files. Each
# case also checks that what it threw changed nothing: the policy list, the
# global mode, the files' permissions. vm/run fails the whole run on
# any kernel WARN/oops; the fuzz case checks dmesg itself as well.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/errno.sh
source "$repo/tests/lib/errno.sh"

ctl=$repo/tools/thpcowctl/thpcowctl
fuzz=$repo/tests/prog/ioctl_fuzz
fuzz_count=100000
env_count fuzz_count THPCOW_FUZZ_COUNT
dev=/dev/thpcow
param=/sys/module/thpcow/parameters/default_mode
dbg=/sys/kernel/debug/thpcow
cg=/sys/fs/cgroup
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# probe_as WHO: ioctl_fuzz --probe as root or nobody; "name result" lines.
probe_as() {
	if [[ $1 == nobody ]]; then
		"${nobody[@]}" "$fuzz" --probe
	else
		"$fuzz" --probe
	fi
}

# result_of NAME OUTPUT: the result of NAME in --probe's or the fuzzer's output.
result_of() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }

# The state a hostile request must not change: rules (without their
# substitution counts), the global mode, the permissions of the interfaces.
state() {
	echo "mode $(<"$param")"
	awk '$1 == "global_mode" || $1 == "policies"' "$dbg/stats"
	cut -f1-4,6 "$dbg/policies"
	stat -c '%n %a %U' "$dev" "$param" "$dbg" "$dbg"/*
}

# Some policies that must survive everything: one on a sleeping process,
# one on a cgroup. Removed again with keep_clean.
keep_pid=''
keep_make() {
	mkdir -p "$cg/thpcow-keep"
	"$ctl" set --cgroup "$cg/thpcow-keep" zero
	sleep 1000 &
	keep_pid=$!
	"$ctl" set --pid "$keep_pid" --children zero
}
keep_clean() {
	[[ -z $keep_pid ]] || kill "$keep_pid" 2>/dev/null || true
	[[ ! -d $cg/thpcow-keep ]] || { "$ctl" clear --cgroup "$cg/thpcow-keep" 2>/dev/null; rmdir "$cg/thpcow-keep"; } || true
}

# New kernel trouble in dmesg since line $1.
dmesg_trouble() {
	dmesg | tail -n +"$(($1 + 1))" | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection' || true
}

# --- cases -------------------------------------------------------------------

nobody_cannot_open() {
	local out
	check_eq "$(stat -c %a "$dev")" 600 "mode of $dev"
	out=$(probe_as nobody)
	check_eq "$(result_of open "$out")" EACCES "open as nobody"
}

# With the node opened up, reading works and changing still needs
# CAP_SYS_ADMIN: one call of each command, then 20000 random ones.
nobody_reads_not_writes() {
	local out before call
	trap 'chmod 0600 "$dev"' EXIT
	chmod 0666 "$dev"
	before=$(state)
	out=$(probe_as nobody)
	echo "$out" | tr '\n' ' '
	echo
	for call in open version stats list usage get_global get_pid; do
		check_eq "$(result_of "$call" "$out")" ok "$call as nobody"
	done
	check_eq "$(result_of set_global "$out")" EPERM "set (global, to its own mode) as nobody"
	check_eq "$(result_of clear_pid "$out")" EPERM "clear (its own pid) as nobody"
	out=$("${nobody[@]}" "$fuzz" --count 20000 --seed 7) || {
		echo "ioctl_fuzz as nobody failed:"
		echo "$out"
		return 1
	}
	grep -E '^(ok_|unexpected|EPERM|policies )' <<<"$out" | tr '\n' ' '
	echo
	check_eq "$(result_of ok_set "$out")" 0 "SETs that worked for nobody"
	check_eq "$(result_of ok_clear "$out")" 0 "CLEARs that worked for nobody"
	check_eq "$(state)" "$before" "the state"
}

nobody_cannot_write_files() {
	local f before
	before=$(state)
	for f in "$dbg/stats" "$dbg/policies" "$param"; do
		check_eq "$("${nobody[@]}" "${write_errno[@]}" "$f" '"zero\n"')" open:EACCES \
			"nobody writing $f"
	done
	check_eq "$(state)" "$before" "the state"
}

# ioctl_fuzz as root: 100000 random ioctls (THPCOW_FUZZ_COUNT, _SEED),
# with the keep_make policies and a cgroup of its own to play with.
fuzz_as_root() {
	local out before lines rc=0
	trap 'keep_clean; rmdir "$cg/thpcow-fuzz" 2>/dev/null' EXIT
	keep_make
	mkdir -p "$cg/thpcow-fuzz"
	before=$(state)
	lines=$(dmesg | wc -l)
	out=$("$fuzz" --count "$fuzz_count" --seed "${THPCOW_FUZZ_SEED:-1}" \
		--cgroup "$cg/thpcow-fuzz" 2>&1) || rc=$?
	grep -vE '^policy_' <<<"$out"
	check_eq "$rc" 0 "ioctl_fuzz's exit status"
	check_eq "$(result_of unexpected "$out")" 0 "calls with an unexpected result"
	check_match "$out" 'policies unchanged' "the policy list, says the fuzzer"
	check_eq "$(state)" "$before" "the state"
	check_eq "$(dmesg_trouble "$lines")" "" "new kernel warnings"
}

# A rule on a kernel thread (kthreadd, pid 2) is refused, also for root;
# the probe clears one it wrongly got. (The fuzzer's SETs on pid 2, like any
# on a target not its own, count as unexpected when they succeed.)
kthread_refused() {
	local out before
	before=$(state)
	out=$(probe_as root)
	check_eq "$(result_of set_kthread "$out")" EINVAL "a SET on kthreadd as root"
	check_eq "$(state)" "$before" "the state"
}

# Writes to default_mode that are not a mode name are refused with EINVAL and
# leave the mode as it was, from every mode (so that a write wrongly taken as
# another mode shows). copy and split are modes: refused with EOPNOTSUPP by a
# module that does not implement them yet, else taken.
mode_param_garbage() {
	local start data got before modes=(kernel zero) m
	local bad=(
		'"\n"' '"zer"' '"zero\n\n"' '"z" x 4096' '"zero" x 1025' '"\xff\xfe\x00zero\x01"'
		'"\x00"' '"kernel extra"' '" zero"' '"ZERO"' '"cop"' '"copy split"' '"split\n\n"'
	)
	trap 'echo kernel >"$param"' EXIT
	for m in copy split; do
		echo kernel >"$param"
		got=$("${write_errno[@]}" "$param" "\"$m\\n\"")
		case $got in
		EOPNOTSUPP) check_eq "$(<"$param")" kernel "the mode after $m was refused" ;;
		"ok $((${#m} + 1))")
			check_eq "$(<"$param")" "$m" "the mode after writing $m"
			modes+=("$m")
			;;
		*) check_eq "$got" "EOPNOTSUPP or ok" "writing $m" ;;
		esac
	done
	echo "modes: ${modes[*]}"
	for start in "${modes[@]}"; do
		echo "$start" >"$param"
		before=$(state)
		check_eq "$(<"$param")" "$start" "the mode to start from"
		for data in "${bad[@]}"; do
			got=$("${write_errno[@]}" "$param" "$data")
			check_eq "$got" EINVAL "writing $data from $start"
			check_eq "$(state)" "$before" "the state after writing $data from $start"
		done
		# A zero-length write never reaches the module (sysfs takes 0 bytes).
		got=$("${write_errno[@]}" "$param" '""')
		check_match "$got" '^(ok 0|EINVAL)$' "an empty write from $start"
		check_eq "$(state)" "$before" "the state after an empty write from $start"
	done
}

# default_mode changes only with CAP_SYS_ADMIN, like a policy through
# /dev/thpcow: a uid-0 process without it (a container's root mapped to the
# host's, /sys writable) gets EPERM and the mode stays; root with it may.
mode_param_needs_cap_sys_admin() {
	local before got
	local no_admin=(setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin)
	trap 'echo kernel >"$param"' EXIT
	echo kernel >"$param"
	before=$(state)
	got=$("${no_admin[@]}" "${write_errno[@]}" "$param" '"zero\n"')
	check_eq "$got" EPERM "writing zero as uid 0 without CAP_SYS_ADMIN"
	check_eq "$(state)" "$before" "the state"
	got=$("${write_errno[@]}" "$param" '"zero\n"')
	check_eq "$got" "ok 5" "writing zero as root"
	check_eq "$(<"$param")" zero "the mode root set"
}

# The same while the module loads and unloads: its sysfs file exists during
# all of init (kprobe, symbol lookups, the probe fault, ftrace) and exit
# (RCU-tasks and SRCU waits). A uid-0 writer without CAP_SYS_ADMIN (nor
# CAP_SYS_MODULE) keeps writing zero through 10 loads and unloads: not one
# write is taken, and every load comes up in mode kernel. Each write comes
# between two reads of the module's initstate: one with "coming" (or
# "going") on both sides fell inside init (or exit), and some must have.
mode_param_cap_during_load() {
	local writer i got
	local caps=-sys_admin,-sys_module
	local no_admin=(setpriv "--inh-caps=$caps" "--bounding-set=$caps")
	# shellcheck disable=SC2016 # Perl code
	local loop='
		my ($file, $state, $stop) = @ARGV;
		my %n;
		sub initstate {
			open(my $fh, "<", $state) or return "absent";
			my $s = <$fh> // "";
			chomp $s;
			return $s;
		}
		until (-e $stop) {
			my $before = initstate();
			if (open(my $fh, ">", $file)) {
				my $r = defined(syswrite($fh, "zero\n")) ? "ok" :
					$!{EPERM} ? "EPERM" : "other";
				$n{$r}++;
				my $after = initstate();
				$n{"$r-$after"}++ if $before eq $after;
			} else {
				$n{absent}++;
			}
		}
		print join(" ", map { "$_=" . ($n{$_} // 0) }
			qw(ok EPERM other absent EPERM-coming EPERM-going)), "\n";
	'
	# globals: the EXIT trap runs after the function returned
	ko=${THPCOW_VM_MODULE:?the module vm/run loaded}
	tmp=$(mktemp -d)
	# shellcheck disable=SC2086 # the parameters are words
	trap 'touch "$tmp/stop"; wait; rm -rf "$tmp"; [[ -d /sys/module/thpcow ]] || insmod "$ko" ${THPCOW_VM_MODPARAMS:-}' EXIT
	echo kernel >"$param"
	"${no_admin[@]}" perl -MErrno -e "$loop" "$param" /sys/module/thpcow/initstate \
		"$tmp/stop" >"$tmp/writer" &
	writer=$!
	for ((i = 0; i < 10; i++)); do
		rmmod thpcow
		# shellcheck disable=SC2086
		insmod "$ko" ${THPCOW_VM_MODPARAMS:-}
		got=$(<"$param")
		check_eq "$got" kernel "the mode after load $i"
	done
	touch "$tmp/stop"
	wait "$writer"
	cat "$tmp/writer"
	# (other: a write to the file of a module being removed, ENODEV)
	check_match "$(<"$tmp/writer")" '^ok=0 EPERM=[1-9]' "the writer's writes"
	check_match "$(<"$tmp/writer")" 'EPERM-coming=[1-9][0-9]* EPERM-going=[1-9]' \
		"the writer's refusals during init and exit"
}

debugfs_read_only() {
	local f data got before
	trap 'keep_clean' EXIT
	keep_make
	before=$(state)
	for f in "$dbg/stats" "$dbg/policies"; do
		for data in '"0\n"' '"zero\n"' '"global zero\n"' '"\x00" x 4096' '""'; do
			got=$("${write_errno[@]}" "$f" "$data")
			check_match "$got" '^(EINVAL|EACCES|EPERM|open:EACCES|open:EPERM)$' \
				"writing $data to $f"
		done
		check_match "$(<"$f")" . "$f still reads"
	done
	check_eq "$(state)" "$before" "the state"
}

cases=(
	nobody_cannot_open        # /dev/thpcow is 0600: nobody gets EACCES
	nobody_reads_not_writes   # node 0666: nobody reads all, SET/CLEAR get EPERM
	nobody_cannot_write_files # debugfs and default_mode refuse nobody (EACCES)
	fuzz_as_root              # random ioctls: allowed errnos only, no rule changed
	kthread_refused           # a SET on a kernel thread: EINVAL, also for root
	mode_param_garbage        # bad default_mode writes: EINVAL, the mode stays
	mode_param_needs_cap_sys_admin # uid 0 without CAP_SYS_ADMIN: EPERM, the mode stays
	mode_param_cap_during_load # ... also while the module loads and unloads
	debugfs_read_only         # writes to stats and policies are refused, change nothing
)
[[ -x $fuzz ]] || { echo "no $fuzz: make -C tests/prog" >&2; exit 1; }
tap_run "${cases[@]}"
