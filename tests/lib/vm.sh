# shellcheck shell=bash
# tests/lib/vm.sh: helpers for the host-side scripts tests/vm/*.t.
#   vm_run ARGS...   tests/vm/run ARGS...; sets vm_rc, vm_stdout, vm_stderr
#                    and vm_seconds (wall clock)
#   vm_expect_rc N   fail the case unless vm_rc is N, showing the run's stderr
#   $vm_cache        thpcow's cache (kernels, chroots, builds)
#   $vm_scratch      a host directory the guest sees at the same path (the
#                    guest's /tmp is its own), removed when the test exits
# Run directories of failed runs land in a private TMPDIR, removed too.

tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
repo=$(cd "$tests_dir/.." && pwd)
vm_cache=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow
# In the cache, which tests/vm/run shows the guest even under /tmp.
mkdir -p "$vm_cache"
vm_scratch=$(mktemp -d "$vm_cache/test.XXXXXX")
export TMPDIR=$vm_scratch/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$vm_scratch"' EXIT

# shellcheck disable=SC2034 # vm_* are for the test files
vm_run() {
	local t0=${EPOCHREALTIME/./}
	vm_rc=0
	"$repo/tests/vm/run" "$@" >"$vm_scratch/stdout" 2>"$vm_scratch/stderr" || vm_rc=$?
	vm_seconds=$(((${EPOCHREALTIME/./} - t0) / 1000000))
	vm_stdout=$(cat "$vm_scratch/stdout")
	vm_stderr=$(cat "$vm_scratch/stderr")
	echo "tests/vm/run $* -> exit $vm_rc after $vm_seconds s"
}

vm_expect_rc() {
	check_eq "$vm_rc" "$1" "exit status of tests/vm/run" && return
	echo "its stderr (the last 40 lines):"
	tail -n 40 "$vm_scratch/stderr"
	return 1
}
