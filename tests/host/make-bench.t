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

# The pool case (vm/lib/pool.py) from the data: zero's KVM rows of
# workload 5 doctored into zero + pool rows give its row, its goals and the
# pool's table; a skipped pool case (no pool in the module) is said so, with
# its reason, and measures nothing.
pool_case_reported() {
	local d=$scratch/pool md
	regenerate
	mkdir -p "$d"
	cp -r "$results/raw" "$d/"
	python3 - "$d/raw/kvm-w5.jsonl" "$d/raw/kvm-w7.jsonl" <<'EOF'
import json, sys
w5, w7 = sys.argv[1], sys.argv[2]
# the pool's runs, if any, replaced by the doctored ones
rows = [r for r in map(json.loads, open(w5)) if r['case'] != 'pool']
pool = {'pool_mib': 320, 'target': 160, 'thps_full': 160, 'fill_s': 0.5, 'drain_s': 0.1,
        'thps_at_end': 160, 'hits': 127, 'misses': 1, 'refilled': 287, 'released': 160,
        'refill_ns': 2_000_000_000, 'cpu_ns': 1_000_000_000, 'cpu_s_per_gib': 1.78,
        'refill_s_per_gib': 3.57}
extra = [dict(r, case='pool', pool=pool, write_s=r['write_s'] / 3) for r in rows
         if r['case'] == 'zero' and not r.get('postcopy')]
with open(w5, 'w') as f:
    for r in rows + extra:
        f.write(json.dumps(r) + '\n')
rows7 = [r for r in map(json.loads, open(w7)) if r['case'] != 'pool']
with open(w7, 'w') as f:
    f.writelines(json.dumps(r) + '\n' for r in rows7)
    f.write(json.dumps({'w': 7, 'kernel': '6.1.0-57-amd64', 'rep': 1, 'case': 'pool',
                        'skipped': 'no pool_mib here'}) + '\n')
EOF
	"$repo/bench/run" --report --out "$d" >/dev/null
	md=$(cat "$d/results.md")
	check_match "$md" $'\n''\| 6\.1\.0 \| KVM \| [0-9]+ \| \*\*zero \+ pool\*\* \|' "workload 5's zero + pool row"
	check_match "$md" $'\n''\| 5 \(KVM\): write phase, zero \+ pool × prealloc=on \| ≤ 1\.25 \| [0-9]' \
		"its goal against prealloc=on, measured"
	check_match "$md" $'\n''\| 5 \(KVM\): the pool.s refill, CPU time per GiB \| a bench line \| 1\.78 \(1\.78–1\.78\) s' \
		"the refill's CPU time per GiB"
	check_match "$md" $'\n''\| 6\.1\.0 \| 320 \| 160 \| 0\.5 \(0\.5–0\.5\) \| 127 \| 1 \| 0\.56 \| 1\.78 \(1\.78–1\.78\) \| 3\.57 \(3\.57–3\.57\) \|' \
		"the pool's table"
	check_match "$md" $'\n'"Not measured: zero \\+ pool in guest \`kvm\`: no pool_mib here" "workload 7's skipped pool case"
	check_eq "$(section "$d/results.md" "7. memtester in a migrated Linux guest (the seed's benchmark)" |
		grep -c 'zero + pool')" 1 "workload 7: no row for the skipped case, one line saying so"
}

# vm/lib/pool.py against a fake of the module's interface (the parameter
# and the debugfs file as plain files, a thread as the refill): the pool is
# full before the run and empty after it, the figures are the run's growth,
# and a pool that never fills times out with pool_mib back at 0.
pool_helper_fake() {
	mkdir -p "$scratch/fake"
	python3 - "$repo/vm/lib" "$scratch/fake" <<'EOF'
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
import pool
pool.PARAM, pool.DEBUGFS, pool.STATS = (os.path.join(sys.argv[2], n) for n in ('pool_mib', 'pool', 'stats'))
state = {'thps': 0, 'hits': 5, 'misses': 0, 'refilled': 40, 'released': 0, 'refill_ns': 10**9,
         'cpu_ns': 10**9, 'stuck': False}
stop = threading.Event()

def refill():
    while not stop.is_set():
        v = open(pool.PARAM).read().strip()
        if not v:  # being written
            continue
        target = int(v) // 2
        if state['thps'] < target and not state['stuck']:
            state['thps'] += min(16, target - state['thps'])
            state['refilled'] += 16
            state['cpu_ns'] += 16 * 10**6
        elif state['thps'] > target:
            state['released'] += state['thps'] - target
            state['thps'] = target
        # the pool's own figures in thpcow/pool, its counters in thpcow/stats
        own = ('thps', 'refill_ns', 'cpu_ns')
        with open(pool.DEBUGFS + '.new', 'w') as f:
            f.write(f'mib {v}\ntarget {target}\n' + ''.join(f'{k} {state[k]}\n' for k in own)
                    + f'node0_thps {state["thps"]}\nnode0_target {target}\n')
        with open(pool.STATS + '.new', 'w') as f:
            f.write('policies 0\n' + ''.join(f'{k} {state[name]}\n' for k, name in pool.STAT_NAMES.items()))
        os.rename(pool.DEBUGFS + '.new', pool.DEBUGFS)
        os.rename(pool.STATS + '.new', pool.STATS)
        time.sleep(0.01)

open(pool.PARAM, 'w').write('0\n')
t = threading.Thread(target=refill)
t.start()
try:
    time.sleep(0.1)
    with pool.Session(100) as s:
        assert open(pool.PARAM).read() == '164\n', open(pool.PARAM).read()
        assert pool.read()['thps'] == 82, pool.read()
        state['hits'] += 30  # the run takes 30 THPs
        time.sleep(0.1)  # (the fake writes its file every 10 ms)
    f = s.figures()
    assert open(pool.PARAM).read() == '0\n' and pool.read()['thps'] == 0
    assert f['target'] == 82 and f['thps_full'] == 82 and f['hits'] == 30, f
    assert f['refilled'] >= 82 and abs(f['cpu_s_per_gib'] - 16e-3 * f['refilled'] / 16 / (f['refilled'] / 512)) < 1e-6, f
    state['stuck'] = True
    try:
        with pool.Session(100, timeout=0.5):
            raise AssertionError('a pool that never fills: the run ran')
    except TimeoutError as e:
        print('timed out as expected:', e)
    assert open(pool.PARAM).read() == '0\n', 'pool_mib left set after a timeout'
finally:
    stop.set()
    t.join()
print('ok')
EOF
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
	pool_case_reported     # zero + pool: its rows, goals and pool figures; a skipped case said so
	pool_helper_fake       # vm/lib/pool.py: full before the run, empty after, the run's figures
	programs_run           # faultbench and migfw.bin build; faultbench runs
	usage_errors           # bench/run's usage, and the python scripts parse
)
tap_run "${cases[@]}"
