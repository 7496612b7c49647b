#!/usr/bin/env bash
# tests/host/make-bench.t: make bench's scripts do not rot, without running
# the benchmark (that takes a quarter of an hour of guests): the report is
# regenerated from the committed raw results and must come out as committed,
# the README shows its headline, and the programs it runs (prog/, bench/prog)
# build and run.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
source "$repo/tests/lib/tap.sh"
results=$repo/bench/results
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# regenerate: bench/run --report over a copy of the committed raw results.
regenerate() {
	[[ -s $results/results.md ]] || skip "no committed results (run make bench)"
	[[ -d $scratch/out ]] && return
	mkdir -p "$scratch/out"
	cp -r "$results/raw" "$scratch/out/"
	"$repo/bench/run" --report --out "$scratch/out" >"$scratch/stdout"
}

# section FILE TITLE: the lines of FILE's "## TITLE" section.
section() {
	awk -v t="## $2" '$0 == t { on = 1; next } /^## / { on = 0 } on' "$1"
}

report_as_committed() {
	regenerate
	diff -u "$results/results.md" "$scratch/out/results.md"
	check_eq "$(cat "$scratch/stdout")" "$(cat "$scratch/out/results.md")" "what bench/run --report prints"
}

every_workload_reported() {
	local w
	regenerate
	for w in 1 2 3 4 5 6 7; do
		check_match "$(cat "$scratch/out/results.md")" $'\n'"## $w\\. " "section of workload $w"
	done
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
missing = [w for w in ("w1", "w2", "w3", "w4", "w5", "w6", "w7") if w not in d["summary"]]
sys.exit("results.json: no summary of " + " ".join(missing) if missing else 0)' "$scratch/out/results.json"
}

readme_headline() {
	local table readme line
	regenerate
	table=$(section "$scratch/out/results.md" Headline | grep '^|')
	[[ -n $table ]] || check_eq "" "table lines" "results.md's headline"
	readme=$(section "$repo/README.md" Benchmark)
	while IFS= read -r line; do
		grep -qxF -- "$line" <<<"$readme" ||
			check_eq "missing" "present" "README's Benchmark section: $line"
	done <<<"$table"
	local plots
	plots=$(sed -n 's/^!\[.*\](\(.*\))$/\1/p' <<<"$readme")
	[[ -n $plots ]] || check_eq "" "a plot" "README's Benchmark section"
	while IFS= read -r line; do
		[[ -s $repo/$line ]] || check_eq "$line" "a committed file" "the README's plot"
	done <<<"$plots"
}

programs_run() {
	local out
	make -s -C "$repo/prog" >/dev/null
	make -s -C "$repo/bench/prog" >/dev/null
	check_eq "$(stat -c %s "$repo/prog/migfw.bin")" 65536 "migfw.bin's size"
	out=$("$repo/bench/prog/faultbench" forkwrite --size 4 --iters 1 --stride 2097152)
	check_match "$out" '^\{"test":"forkwrite",.*"faults":[0-9]+,.*"private_kb":[0-9]+' "faultbench forkwrite"
	out=$("$repo/bench/prog/faultbench" fault4k --size 2 --iters 1)
	check_match "$out" '"ops":512,' "faultbench fault4k"
	if "$repo/bench/prog/faultbench" nosuchtest 2>/dev/null; then
		echo "faultbench nosuchtest: exit status 0"
		return 1
	fi
}

usage_errors() {
	local rc=0 out
	"$repo/bench/run" --help | grep -q '^usage: bench/run' || check_eq "no usage" usage "--help"
	"$repo/bench/run" --bogus 2>/dev/null || rc=$?
	check_eq "$rc" 2 "exit status of an unknown option"
	rc=0
	out=$("$repo/bench/run" --report --out "$scratch/empty" 2>&1) || rc=$?
	check_eq "$rc" 0 "exit status of a report with no results"
	check_eq "$out" "# thpcow benchmark (make bench)" "a report with no results"
	# (vm/mig.py: the harness's migration driver, workload 5; memtester.py
	# imports it and vm/lib/qemu.py)
	for py in vm/mig.py bench/memtester.py bench/khugepaged.py; do
		rc=0
		python3 "$repo/$py" --help >/dev/null || rc=$?
		check_eq "$rc" 0 "$py --help"
	done
}

cases=(
	report_as_committed    # bench/run --report regenerates results.md as committed
	every_workload_reported # workloads 1-6 each have a table and a summary
	readme_headline        # the README shows the headline table and a committed plot
	programs_run           # faultbench and migfw.bin build; faultbench runs
	usage_errors           # bench/run's usage, and the python scripts parse
)
tap_run "${cases[@]}"
