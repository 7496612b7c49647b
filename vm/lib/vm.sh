# shellcheck shell=bash
# vm/lib/vm.sh: helpers for the host-side scripts that drive vm/run: the
# tests' tests/vm/*.t and the harness's own vm/tests/*.t.
#   vm_run ARGS...   vm/run ARGS...; sets vm_rc, vm_stdout, vm_stderr
#                    and vm_seconds (wall clock)
#   vm_expect_rc N   fail the case unless vm_rc is N, showing the run's stderr
#                    from vm/run's verdict on and keeping its run directory
#                    under $vm_cache/failed/ (the newest $vm_failed_kept)
#   $repo            the repository's top directory
#   $vm_cache        thpcow's cache (kernels, chroots, builds)
#   $vm_scratch      a host directory the guest sees at the same path (the
#                    guest's /tmp is its own), removed when the test exits
# Run directories that vm/run keeps land in a private TMPDIR, removed too,
# but for those of the runs vm_expect_rc fails.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
vm_cache=${XDG_CACHE_HOME:-$HOME/.cache}/thpcow
# In the cache, which vm/run shows the guest even under /tmp.
mkdir -p "$vm_cache"
vm_scratch=$(mktemp -d "$vm_cache/test.XXXXXX")
export TMPDIR=$vm_scratch/tmp
mkdir -p "$TMPDIR"
trap 'rm -rf "$vm_scratch"' EXIT

# shellcheck disable=SC2034 # vm_* are for the test files
vm_run() {
	local t0=${EPOCHREALTIME/./}
	vm_rc=0
	"$repo/vm/run" "$@" >"$vm_scratch/stdout" 2>"$vm_scratch/stderr" || vm_rc=$?
	vm_seconds=$(((${EPOCHREALTIME/./} - t0) / 1000000))
	vm_stdout=$(cat "$vm_scratch/stdout")
	vm_stderr=$(cat "$vm_scratch/stderr")
	echo "vm/run $* -> exit $vm_rc after $vm_seconds s"
}

vm_failed_kept=10

vm_expect_rc() {
	local n kept dest
	check_eq "$vm_rc" "$1" "exit status of vm/run" && return
	# vm/run's verdict, then the excerpt of the kernel's report that starts
	# ten lines before it (the whole of a BUG, not only its tail).
	n=$(grep -m1 -n '^vm/run: FAIL' "$vm_scratch/stderr" | cut -d: -f1)
	if [[ -n $n ]]; then
		echo "its stderr, from vm/run's verdict on:"
		tail -n +"$n" "$vm_scratch/stderr" | head -n 200
	else
		echo "its stderr (the last 40 lines):"
		tail -n 40 "$vm_scratch/stderr"
	fi
	kept=$(sed -n 's/^vm\/run: run directory kept: //p' "$vm_scratch/stderr" | tail -n 1)
	if [[ -d $kept ]]; then
		dest=$vm_cache/failed/$(basename "$0" .t).$(date +%Y%m%d-%H%M%S).${kept##*.}
		mkdir -p "$vm_cache/failed" && mv "$kept" "$dest" &&
			echo "its run directory (console.log, share/dmesg) is kept: $dest"
		# shellcheck disable=SC2012 # names of our own making
		ls -dt "$vm_cache"/failed/*/ | tail -n +$((vm_failed_kept + 1)) | xargs -r rm -rf
	fi
	return 1
}

# vm_testmod DIR SERIES: build the test-only module in DIR (its .c files and
# Kbuild: vm/warnmod, vm/splatmod) for SERIES' kernel, on the host, into the
# cache, and set vm_ko to the .ko. Against /usr/src/linux-headers-RELEASE
# (6.1: make deps installs them) or a prebuilt series' headers (KDIR/build);
# skips the case when neither is there. The module is named after DIR.
# shellcheck disable=SC2034 # vm_ko is for the test files
vm_testmod() {
	local src=$repo/$1 kdir release headers dir
	kdir=$("$repo/vm/fetch-kernel" "$2") || return 1
	release=$(cat "$kdir/release")
	headers=/usr/src/linux-headers-$release
	[[ ! -e $kdir/build ]] || headers=$kdir/build
	[[ -d $headers ]] || skip "no $headers (make deps installs it)"
	dir=$vm_cache/$(basename "$1")/$release
	mkdir -p "$dir"
	cp -u "$src"/*.c "$src/Kbuild" "$dir/"
	make -s -C "$headers" M="$dir" modules >/dev/null 2>&1 || make -C "$headers" M="$dir" modules || return 1
	vm_ko=$dir/$(basename "$1").ko
}
