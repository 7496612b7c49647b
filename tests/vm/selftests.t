#!/usr/bin/env bash
# tests/vm/selftests.t: the kernel's own mm selftests, each run with thpcow
# off and in the modes zero and copy (the global mode), must pass and fail the
# same sub-tests but for the differences listed with their reasons in
# tests/guest/selftests.sh: one guest, one case per kernel series (6.1;
# make check-all adds 5.10, 6.12 and latest). The programs come from each
# series' own Debian source package
# (cow from the newest), built on the host into the cache by
# vm/selftests-build (the first time it fetches four linux-source packages
# with apt, about 3 minutes; building them again from those, 2.5 minutes).
# The guest's TAP, with its counts per program and run, becomes this case's
# diagnostics; a kernel oops, warning or lockup fails the run through
# vm/run. thpcow runs with assume_ibt=1 (as on a CPU that enforces
# IBT: tests/vm/ibt.t), which changes nothing else. About 2-6 minutes a kernel here (TCG, 2 shared cores; the
# slow programs are bounded in tests/guest/selftests.sh and
# vm/selftests-build, each bound the same in every mode).
set -uo pipefail
tests=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$tests/lib/tap.sh"
# shellcheck source=SCRIPTDIR/../../vm/lib/vm.sh
source "$tests/../vm/lib/vm.sh"

# selftests_on SERIES [PROGRAMS [TIMEOUT [VM/RUN OPTIONS...]]]:
# tests/guest/selftests.sh in a guest of SERIES, with the programs
# vm/selftests-build built for the series PROGRAMS (default SERIES: a
# prebuilt series has no Debian source of its own).
selftests_on() {
	local series=$1 programs=${2:-$1} timeout=${3:-1500}
	shift $(($# < 3 ? $# : 3))
	[[ -n $built ]] || { echo "vm/selftests-build failed:" && tail -n 30 "$vm_scratch/build.log" && return 1; }
	THPCOW_SELFTESTS_BIN=$built/$programs vm_run --kernel "$series" --modparams assume_ibt=1 \
		--mem 3072 --timeout "$timeout" "$@" -- tests/guest/selftests.sh
	echo "$vm_stdout"
	tap_fold "$vm_stdout"
	vm_expect_rc 0
}

selftests_5_10() { selftests_on 5.10; }
selftests_6_1() { selftests_on 6.1; }
selftests_6_12() { selftests_on 6.12; }
# With the pool of pre-zeroed THPs (64 MiB per node): zero's and copy's
# substitutions take pooled THPs, and must pass as without it.
selftests_6_1_pool() { selftests_on 6.1 6.1 1500 --modparams "assume_ibt=1 pool_mib=64"; }
selftests_latest() { selftests_on latest; }
# The debug kernels: 90 minutes in all, and 600 s an invocation may take
# before it counts as hung, not 240 (6.1-debug's khugepaged took 242 s with
# thpcow off, and was killed at 240 s once under copy).
selftests_debug() {
	local series=$1
	shift
	THPCOW_SELFTESTS_LIMIT=600 selftests_on "$series-debug" "$series" 5400 "$@"
}
selftests_6_1_debug() { selftests_debug 6.1; }
# Without 1 GiB pages: cow reserves two of every hugetlb size, and 6.12's
# page_table_check BUGs on a 1 GiB one with thpcow not even loaded
# (vm/tests/kernels.t gigantic_bug_6_12_debug says why).
selftests_6_12_debug() { selftests_debug 6.12 --cpu-off pdpe1gb; }
selftests_ubuntu_6_8() { selftests_on ubuntu-6.8 6.12; }
selftests_ubuntu_5_15() { selftests_on ubuntu-5.15 6.1; }
selftests_rhel_9_6() { selftests_on rhel-9.6 6.12; }
selftests_rhel_10_0() { selftests_on rhel-10.0 6.12; }

# The comparison itself, with a stand-in for 6.x's uffd-unit-tests on 6.1
# (FAKE_UFFD says where it stops at an ERROR, and when):
#   flaky    on hugetlb, every other time: each run finishes on its second
#            try, off and each mode alike, and the case passes;
#   anon     on anonymous memory, whenever thpcow is loaded: not run again,
#            the case fails;
#   hugetlb  on hugetlb, whenever thpcow is loaded: three tries, then the
#            case fails.
reruns_hugetlb_abort() {
	local fake=$vm_scratch/fake f
	mkdir -p "$fake"
	cat >"$fake/uffd-unit-tests" <<-'EOF'
		#!/bin/sh
		# "Testing" on stdout, flushed; the ERROR on stderr, then exit 1
		n=$(($(cat "/tmp/calls.$FAKE_UFFD" 2>/dev/null || echo 0) + 1))
		echo "$n" >"/tmp/calls.$FAKE_UFFD"
		loaded=$([ -d /sys/module/thpcow ] && echo 1)
		echo "Testing register on anon... done"
		printf 'Testing events on anon... '
		if [ "$FAKE_UFFD" = anon ] && [ -n "$loaded" ]; then
			echo "ERROR: nr 3 memory corruption 0 1 (errno=0, @fake:1)" >&2
			exit 1
		fi
		echo done
		printf 'Testing events on hugetlb... '
		if { [ "$FAKE_UFFD" = flaky ] && [ $((n % 2)) = 1 ]; } ||
			{ [ "$FAKE_UFFD" = hugetlb ] && [ -n "$loaded" ]; }; then
			echo "ERROR: UFFDIO_COPY error: -2 (errno=2, @fake:1)" >&2
			exit 1
		fi
		echo done
		echo "Testing poison on anon... done"
	EOF
	printf '#!/bin/sh\nexit 0\n' >"$fake/uffd-stress"
	cp "$fake/uffd-stress" "$fake/cow"
	chmod +x "$fake"/*
	# shellcheck disable=SC2016 # the guest's shell expands them
	vm_run --timeout 600 -- bash -c 'for f in flaky anon hugetlb; do
		FAKE_UFFD=$f THPCOW_SELFTESTS_BIN=$0 TAP_ONLY=userfaultfd tests/guest/selftests.sh 2>&1 |
			sed "s/^/$f: /"
		echo "$f: exit ${PIPESTATUS[0]}"
	done' "$fake"
	vm_expect_rc 0 || return 1
	echo "$vm_stdout" | grep -E '^[a-z]+: (ok|not ok|#.*(did not finish|differs|\(userfaultfd/unit)|exit)'
	for f in 'flaky: exit 0' 'flaky: ok 2 userfaultfd' \
		'flaky: # off: userfaultfd/unit: try 1 did not finish (Testing events on hugetlb... ERROR: UFFDIO_COPY' \
		'flaky: # copy: pass 7 fail 0 skip 0 hang 0 (userfaultfd/unit: exit 0 (try 2)' \
		'anon: exit 1' 'anon: not ok 2 userfaultfd' \
		'anon: # zero: pass 4 fail 1 skip 0 hang 0 (userfaultfd/unit: exit 1, ' \
		'anon: # zero: differs from off: userfaultfd/unit/events on anon' \
		'hugetlb: exit 1' 'hugetlb: not ok 2 userfaultfd' \
		'hugetlb: # zero: userfaultfd/unit: try 2 did not finish' \
		'hugetlb: # zero: pass 5 fail 1 skip 0 hang 0 (userfaultfd/unit: exit 1 (try 3)' \
		'hugetlb: # zero: differs from off: userfaultfd/unit/events on hugetlb' \
		'flaky: # retries: userfaultfd/unit 3' 'anon: # retries: userfaultfd/unit 0' \
		'hugetlb: # retries: userfaultfd/unit 4'; do
		echo "$vm_stdout" | grep -qF "$f" || { echo "no line '$f'" && return 1; }
	done
	! echo "$vm_stdout" | grep -q '^anon: .*did not finish' || { echo "anon: an ERROR on anon memory was run again" && return 1; }
}

# Each run judged once, with stand-ins on 6.1 (each case of
# tests/guest/selftests.sh that one needs, with THPCOW_SELFTESTS_LIMIT=5):
#   once     split_huge_page_test fails its first run with thpcow loaded
#            (in 'zero'), then passes: not run again, the case fails;
#   hang     khugepaged reports one step, then hangs, off and each mode
#            alike: the case fails, the step it reported is compared;
#   setup    khugepaged's first run with thpcow loaded stops in its setup
#            ("Failed to allocate VMA at ...", then its exit's "Restore"
#            line, as 6.12's did once without thpcow reaching its hook):
#            run again, counted, and the case passes;
#   nocopy   cow only writes after a read (wrf, madvised, no fork): 'copy'
#            substitutes and never copies, and module_worked fails.
judges_each_run_once() {
	local fake=$vm_scratch/fake f
	mkdir -p "$fake"
	cat >"$fake/split_huge_page_test" <<-'EOF'
		#!/bin/sh
		[ -d /sys/module/thpcow ] && [ ! -e /tmp/split-failed ] &&
			touch /tmp/split-failed && echo "Still AnonHugePages not split" && exit 1
		exit 0
	EOF
	cat >"$fake/khugepaged" <<-'EOF'
		#!/bin/sh
		echo "Run test: collapse_full (anon)"
		if [ "$FAKE" = setup ] && [ -d /sys/module/thpcow ] && [ ! -e /tmp/vma-failed ]; then
			touch /tmp/vma-failed
			echo "Failed to allocate VMA at 0x40000000"
			echo "Restore THP and khugepaged settings... done"
			exit 1
		fi
		echo "Collapse fully populated PTE table.... OK"
		[ "$FAKE" = hang ] && exec sleep 60
		echo "Restore THP and khugepaged settings... done"
	EOF
	cat >"$fake/cow" <<-EOF
		#!/bin/sh
		"$repo/prog/wrf" --size 8 --madvise hugepage >/dev/null && echo "ok 1 write after read" || echo "not ok 1 write after read"
	EOF
	chmod +x "$fake"/*
	# shellcheck disable=SC2016 # the guest's shell expands them
	vm_run --timeout 600 -- bash -c 'export THPCOW_SELFTESTS_BIN=$0 THPCOW_SELFTESTS_LIMIT=5
	for f in "once split_huge_page_test" "hang khugepaged" "setup khugepaged" "nocopy cow module_worked"; do
		FAKE=${f%% *} TAP_ONLY=${f#* } tests/guest/selftests.sh 2>&1 | sed "s/^/${f%% *}: /"
		echo "${f%% *}: exit ${PIPESTATUS[0]}"
	done' "$fake"
	vm_expect_rc 0 || return 1
	echo "$vm_stdout" | grep -E '^[a-z]+: (ok|not ok|#.*(differs|hung|over all|did not finish|retries)|exit)'
	for f in 'once: exit 1' 'once: not ok 3 split_huge_page_test' \
		'once: # zero: differs from off: split_huge_page_test' \
		'hang: exit 1' 'hang: not ok 1 khugepaged' \
		'hang: # off: hung (killed after 5s; its sub-tests until then are compared): khugepaged' \
		'hang: # copy: hung (killed after 5s; its sub-tests until then are compared): khugepaged' \
		'hang: # retries: khugepaged 0' \
		'setup: exit 0' 'setup: ok 1 khugepaged' 'setup: # retries: khugepaged 1' \
		'setup: # zero: khugepaged: try 1 did not finish (Failed to allocate VMA at 0x40000000); running it again' \
		'nocopy: exit 1' 'nocopy: ok 10 cow' 'nocopy: not ok 11 module_worked' \
		'nocopy: # copy: copied over all its runs: 0'; do
		echo "$vm_stdout" | grep -qF "$f" || { echo "no line '$f'" && return 1; }
	done
	for f in 'nocopy: # zero: substituted over all its runs: 0' 'nocopy: # copy: substituted over all its runs: 0' \
		'hang: # zero: differs from off' 'once: # copy: differs from off'; do
		! echo "$vm_stdout" | grep -qF "$f" || { echo "a line '$f'" && return 1; }
	done
}

cd "$repo" || exit 1
# the series the cases below run (vm/selftests-build adds the trees that
# 6.12's and latest's programs come from)
series=(6.1)
[[ ${THPCOW_CHECK:-} != all ]] || series+=(5.10 6.12 latest)
built=$(vm/selftests-build "${series[@]}" 2>"$vm_scratch/build.log") || built=''
cases=(
	selftests_6_1    # bookworm's 6.1 (selftests/vm)
	reruns_hugetlb_abort # which runs of a program are run again
	judges_each_run_once # a failure once, a hang, a mode that did not work: each fails
)
# make check-all only: the same comparison on the other series; make check
# runs core.sh and modes.sh with thpcow there (compat.t)
long_cases=(
	selftests_5_10   # bullseye's 5.10 (selftests/vm; 6.1's programs where 5.10 has none)
	selftests_6_12   # trixie's 6.12 (selftests/mm)
	selftests_6_1_pool # 6.1 with the pool of pre-zeroed THPs on (pool_mib=64)
	selftests_latest # trixie-backports' 7.x (selftests/mm), where the kernel substitutes itself
	selftests_6_1_debug   # 6.1-debug (vm/build-kernel), 6.1's programs
	selftests_6_12_debug  # 6.12-debug, 6.12's programs
	# Ubuntu ships no selftests beside its packages (source-mm-kvm.tar.xz:
	# mm/ and KVM; no tools/ in the headers package): Debian's programs
	# of the nearest series with the same layout
	selftests_ubuntu_6_8  # Ubuntu's 6.8, 6.12's programs (selftests/mm, as 6.8's)
	selftests_ubuntu_5_15 # Ubuntu's 5.15, 6.1's programs (selftests/vm, as 5.15's; 5.10's lack four)
	# RHEL's trees have their own (source-mm-kvm.tar.xz), which
	# vm/selftests-build does not build: Debian's 6.12 programs, of
	# selftests/mm as RHEL 9.6's and 10.0's
	selftests_rhel_9_6    # RHEL's 9.6, 6.12's programs
	selftests_rhel_10_0   # RHEL's 10.0, 6.12's programs
)
# the guests' skipped cases count (tap_fold), so the plan comes last
tap_plan_last=1
tap_run "${cases[@]}" --long "${long_cases[@]}"
