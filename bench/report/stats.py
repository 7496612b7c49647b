# SPDX-License-Identifier: GPL-2.0
"""Statistics over repetition rounds. Timings under QEMU TCG on a shared
machine are noisy: every ratio is taken within one repetition round of one
guest (cases interleaved), and reported as the median over rounds with the
range (min-max)."""
import json
import os
import statistics


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def rng(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def stat(xs):
    lo, hi = rng(xs)
    return {'median': med(xs), 'min': lo, 'max': hi, 'n': len([x for x in xs if x is not None])}


def load_jsonl(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith('{'):
                    rows.append(json.loads(line))
    return rows


def by_round(r):
    return r['rep']


def ratios(rows, key, case, base, group=by_round):
    """Per round: rows[case][key] / rows[base][key], matched by group."""
    by = {}
    for r in rows:
        by.setdefault(group(r), {})[r['case']] = r
    out = []
    for g, cs in sorted(by.items()):
        if case in cs and base in cs and cs[base][key]:
            out.append(cs[case][key] / cs[base][key])
    return out


def rstat(rows, key, case, base, group=by_round):
    """stat() of the per-round ratios, plus 'fastest': case's fastest run over
    base's (host preemption only ever adds time, so on a loaded host the
    fastest runs are the least disturbed)."""
    s = stat(ratios(rows, key, case, base, group))
    a = [r[key] for r in rows if r['case'] == case and r.get(key)]
    b = [r[key] for r in rows if r['case'] == base and r.get(key)]
    s['fastest'] = min(a) / min(b) if a and b else None
    return s
