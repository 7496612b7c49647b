# shellcheck shell=bash
# shellcheck disable=SC2154 # $out is the sourcing script's
# tests/lib/run.sh: a command under test and what it printed, for the guest
# scripts that check thpcowctl's output (tests/guest/cli.sh, usage.sh).
# Needs $out, a scratch directory.
#
#   run STATUS CMD...            run CMD, its stdout in $so and stderr in $se;
#                                fail the case unless it exits with STATUS
#   fails STATUS MESSAGE CMD...  CMD exits with STATUS, prints nothing to
#                                stdout and exactly MESSAGE to stderr
#   jqso FILTER                  FILTER applied to $so, which jq must parse

run() {
	local want=$1 rc=0
	shift
	"$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
	so=$(<"$out/stdout") se=$(<"$out/stderr")
	((rc == want)) && return
	echo "$*: exit status $rc, want $want"
	echo "stdout: $so"
	echo "stderr: $se"
	return 1
}

fails() {
	local want=$1 msg=$2
	shift 2
	run "$want" "$@"
	check_eq "$so" "" "stdout of $*"
	check_eq "$se" "$msg" "stderr of $*"
}

jqso() { jq -c "$1" <<<"$so"; }
