# shellcheck shell=bash
# What make bench's guest scripts (bench/guest/*.sh) share. Sourced.
# Each script prints JSON lines: one object per measurement, with the
# workload ("w"), the case, the repetition and the kernel's release.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# The programs and the module, overridable (bench/run passes its choice).
ctl=${THPCOW_BENCH_CTL:-$repo/tools/thpcowctl/thpcowctl}
wrf=${THPCOW_BENCH_WRF:-$repo/prog/wrf}
# shellcheck disable=SC2034 # for the scripts that source this
faultbench=$repo/bench/prog/faultbench
# shellcheck disable=SC2034
module_ko=${THPCOW_BENCH_MODULE:-$repo/module/thpcow.ko}
thp=/sys/kernel/mm/transparent_hugepage
release=$(uname -r)

have_module() { [[ -e /dev/thpcow ]]; }

# How the inner guests of workloads 5 and 7 run: under KVM when the guest
# has it (vm/run --kvm), else TCG.
accel=tcg
# shellcheck disable=SC2034
[[ ! -w /dev/kvm ]] || accel=kvm

# now_ns: the monotonic clock is what the programs use; EPOCHREALTIME is
# close enough for whole-process wall times.
now_ns() { echo $((${EPOCHREALTIME/./} * 1000)); }

# json_wrap FIELDS: read one JSON object on stdin, print it with FIELDS
# ("k":v,... without braces) put first.
json_wrap() {
	local obj
	IFS= read -r obj || return 1
	[[ $obj == '{'* ]] || {
		echo "bench: not JSON: $obj" >&2
		return 1
	}
	echo "{$1,${obj#\{}"
}

# rotate N ITEM...: ITEMs rotated left by N (interleaving: each case takes
# each position in turn).
rotate() {
	local n=$1
	shift
	local a=("$@")
	n=$((n % ${#a[@]}))
	echo "${a[@]:n}" "${a[@]:0:n}"
}

# thpcow's pool of pre-zeroed THPs (vm/lib/pool.py: check, fill, drain)
pool_py=$repo/vm/lib/pool.py

# wrf_case W CASE REP EXTRA WRF-ARGS...: run wrf for CASE, print one line.
# CASE zero runs under thpcowctl exec zero; pool as zero with thpcow's pool
# sized to cover wrf's --size and full before wrf starts (its figures in
# "pool"; without the pool a line that says why it was skipped); nozero
# with use_zero_page=0.
wrf_case() {
	local w=$1 case=$2 rep=$3 extra=$4 t0 t1 out rc=0 tlb0 tlb1 state='' skip
	shift 4
	local cmd=("$wrf" --json "$@")
	case $case in
	zero | pool) cmd=("$ctl" exec zero -- "${cmd[@]}") ;;
	first-touch) cmd+=(--no-read) ;;
	nozero) echo 0 >"$thp/use_zero_page" ;;
	esac
	if [[ $case == pool ]]; then
		if ! skip=$(python3 "$pool_py" check); then
			json_wrap "\"w\":$w,\"kernel\":\"$release\",\"case\":\"$case\",\"rep\":$rep" <<<"$skip"
			return
		fi
		state=$(python3 "$pool_py" fill "$(arg_of --size "$@")")
	fi
	tlb0=$(tlb_shootdowns)
	t0=$(now_ns)
	out=$("${cmd[@]}") || rc=$?
	t1=$(now_ns)
	tlb1=$(tlb_shootdowns)
	[[ $case != nozero ]] || echo 1 >"$thp/use_zero_page"
	[[ -z $state ]] || extra="${extra:+$extra,}\"pool\":$(python3 "$pool_py" drain "$state")"
	((rc == 0)) || {
		echo "bench: ${cmd[*]} failed ($rc)" >&2
		return 1
	}
	json_wrap "\"w\":$w,\"kernel\":\"$release\",\"case\":\"$case\",\"rep\":$rep,\"proc_ns\":$((t1 - t0)),\"tlb_shootdowns\":$((tlb1 - tlb0))${extra:+,$extra}" <<<"$out"
}

# arg_of OPTION ARG...: the value that follows OPTION among ARGs
arg_of() {
	local opt=$1
	shift
	while (($# >= 2)); do
		[[ $1 != "$opt" ]] || {
			echo "$2"
			return
		}
		shift
	done
	return 1
}

# tlb_shootdowns: TLB shootdown interrupts so far, all CPUs
tlb_shootdowns() {
	awk '/TLB shootdowns/ { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) s += $i }
		END { print s + 0 }' /proc/interrupts
}
