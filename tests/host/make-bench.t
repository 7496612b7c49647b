#!/usr/bin/env bash
# tests/host/make-bench.t: make bench's scripts do not rot, without running
# the benchmark (that takes a quarter of an hour of guests): the report is
# regenerated from the committed raw results and must come out as committed,
# the README links to its headline (and no document copies its figures), and
# the programs it runs (prog/, bench/prog) build and run.
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

# The README points to the headline; the figures live in results.md only:
# no row of its tables is copied into README.md, docs/ or bench/README.md.
readme_links_headline() {
	local table readme line doc rows
	regenerate
	table=$(section "$scratch/out/results.md" Headline | grep '^|')
	[[ -n $table ]] || check_eq "" "table lines" "results.md's headline"
	readme=$(section "$repo/README.md" Benchmark)
	check_match "$readme" '\]\(bench/results/results\.md#headline\)' "README's Benchmark section: a link to the headline"
	rows=$(grep -E '^\|' "$results/results.md" | grep -vE '^\|[-| ]+\|$')
	for doc in "$repo/README.md" "$repo"/docs/*.md "$repo/bench/README.md"; do
		while IFS= read -r line; do
			! grep -qxF -- "$line" <<<"$rows" ||
				check_eq "${doc#"$repo"/}: $line" "" "a row of results.md copied"
		done < <(grep -E '^\|' "$doc")
	done
}

# The goals table comes from the data: a doctored raw result turns a met goal
# into a missed one, and a workload with no results leaves its goals not
# measured.
goals_from_data() {
	local d=$scratch/doctored row
	regenerate
	row=$(grep '^| 1: splits under zero |' "$scratch/out/results.md")
	check_match "$row" '\| 0 \| met \|$' "the splits goal on the committed results"
	mkdir -p "$d"
	cp -r "$results/raw" "$d/"
	rm "$d/raw/overhead-w3.jsonl"
	python3 - "$d/raw/6.1-w1.jsonl" <<'EOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
with open(sys.argv[1], 'w') as f:
    for r in rows:
        if r['case'] == 'zero':
            r['thp_split_pmd'] = 3
        f.write(json.dumps(r) + '\n')
EOF
	"$repo/bench/run" --report --out "$d" >/dev/null
	row=$(grep '^| 1: splits under zero |' "$d/results.md")
	check_match "$row" '\| 3 \| \*\*missed\*\* \|$' "the splits goal with 3 splits under zero"
	row=$(grep '^| 3: fork + exit + wait, loaded × unloaded |' "$d/results.md")
	check_match "$row" '\| - \| not measured \|$' "an overhead goal without workload 3's results"
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
	every_workload_reported # workloads 1-7 each have a table and a summary
	readme_links_headline  # the README links to results.md's headline; no document copies its rows
	goals_from_data        # the goals table judges the data: met, missed, not measured
	programs_run           # faultbench and migfw.bin build; faultbench runs
	usage_errors           # bench/run's usage, and the python scripts parse
)
tap_run "${cases[@]}"
