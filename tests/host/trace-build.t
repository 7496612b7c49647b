#!/usr/bin/env bash
# tests/host/trace-build.t: thpcowctl built with and without libtracefs and
# libtraceevent. Without them (Debian 11: pkg-config finds no libtracefs
# 1.6; or make TRACEFS=no) it still builds, and `trace` says what it does,
# what the build lacks and how to read the event by hand, with exit status
# 1, while its command line is checked as before. Builds in a copy of the
# tree (the tools' own build is left alone).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
msg="thpcowctl: trace: not in this build: thpcowctl was built without libtracefs and libtraceevent, which trace needs to print the module's thpcow:thpcow_fault events as they happen (read them by hand: echo 1 >/sys/kernel/tracing/events/thpcow/thpcow_fault/enable; cat /sys/kernel/tracing/trace_pipe)"

# copy NAME: the sources the tool builds from, in $tmp/NAME
copy() {
	mkdir -p "$tmp/$1/tools"
	cp -r "$repo/include" "$tmp/$1/"
	cp -r "$repo/tools/thpcowctl" "$tmp/$1/tools/"
	make -s -C "$tmp/$1/tools/thpcowctl" clean
}

# linked BINARY: the trace libraries it needs, one a line
linked() { ldd "$1" | sed -n 's/^[[:space:]]*\(libtrace[a-z]*\)\.so.*/\1/p'; }

# the checks of a build without the libraries
without() {
	local ctl=$1 rc=0 out
	check_eq "$(linked "$ctl")" "" "trace libraries linked"
	out=$("$ctl" trace 2>"$tmp/stderr") || rc=$?
	check_eq "$rc" 1 "exit status of trace"
	check_eq "$out" "" "stdout of trace"
	check_eq "$(<"$tmp/stderr")" "$msg" "stderr of trace"
	rc=0
	"$ctl" trace --count 0 >/dev/null 2>&1 || rc=$?
	check_eq "$rc" 2 "exit status of trace --count 0"
	out=$("$ctl" trace --help) || return
	check_match "$out" "--buffer-size KB" "trace --help"
}

# as docs/install.md says: make -C tools/thpcowctl TRACEFS=no
make_variable() {
	copy var
	(cd "$tmp/var" && make -C tools/thpcowctl TRACEFS=no) >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log"
		return 1
	}
	without "$tmp/var/tools/thpcowctl/thpcowctl"
}

# pkg-config finding no libtracefs, as on Debian 11: nothing asked of make
not_found() {
	command -v pkg-config >/dev/null || skip "no pkg-config"
	copy hidden
	# every .pc file pkg-config knows, but those two
	local dir pc
	mkdir -p "$tmp/pc"
	for dir in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
		for pc in "$dir"/*.pc; do
			[[ -e $pc && $pc != */libtracefs.pc && $pc != */libtraceevent.pc ]] &&
				ln -sf "$pc" "$tmp/pc/"
		done
	done
	PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR=$tmp/pc \
		make -s -C "$tmp/hidden/tools/thpcowctl" thpcowctl >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log"
		return 1
	}
	without "$tmp/hidden/tools/thpcowctl/thpcowctl"
}

# where pkg-config finds them (make deps installs them), trace uses them
found() {
	pkg-config --atleast-version=1.6 libtracefs 2>/dev/null ||
		skip "no libtracefs 1.6 (make deps installs libtracefs-dev)"
	copy found
	make -s -C "$tmp/found/tools/thpcowctl" thpcowctl >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log"
		return 1
	}
	check_eq "$(linked "$tmp/found/tools/thpcowctl/thpcowctl" | sort | tr '\n' ' ')" \
		"libtraceevent libtracefs " "trace libraries linked"
	# not the stub: past the options it looks for tracefs
	check_eq "$("$tmp/found/tools/thpcowctl/thpcowctl" trace --count 1 2>&1 | grep -c 'not in this build')" \
		0 "the stub's message"
}

cases=(
	make_variable # TRACEFS=no: builds; trace says what it lacks, exit 1
	not_found     # no libtracefs for pkg-config: the same, by itself
	found         # with libtracefs: linked, and trace is the real one
)
tap_run "${cases[@]}"
