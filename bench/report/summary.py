# SPDX-License-Identifier: GPL-2.0
"""The summary step: the guests' raw results (RAW/GUEST-wN.jsonl,
GUEST.meta.json, git-describe) in, one dict out, written as results.json:
{'run': how the guests ran, 'summary': {'w1': ..., 'w7': ...}, 'meta': the
guests' meta files, 'raw': every raw line}. Every number the renderers show
is computed here; they only format it."""
import datetime
import glob
import json
import os

from .stats import load_jsonl, med, ratios, rstat, stat

MIB = 1024
# vm/mig.py's max-postcopy-bandwidth, KiB/s
POSTCOPY_BANDWIDTH_KIB = 256
# workload 5's guests and how their inner QEMUs run (vm/run --kvm or not)
W5_GUESTS = {'kvm': 'KVM', 'kvm-latest': 'KVM', '6.1': 'TCG', 'latest': 'TCG'}
CASES = ('stock', 'zero', 'pool', 'prealloc', 'nozero', 'fresh')  # workloads 5 and 7
GIB_PER_THP = 2 / 1024


def present(raw, guests, w):
    """[(guest, rows)] of the guests that left results of workload w, the
    rows of cases skipped (a line saying why, no measurement) left out."""
    sets = [(g, [r for r in load_jsonl(f'{raw}/{g}-{w}.jsonl') if 'skipped' not in r]) for g in guests]
    return [(g, rs) for g, rs in sets if rs]


def skipped(raw, guests, w):
    """{guest: {case: why}} of the cases that guest skipped in workload w
    (vm/lib/pool.py: the pool case without the pool)."""
    out = {}
    for g in guests:
        for r in load_jsonl(f'{raw}/{g}-{w}.jsonl'):
            if 'skipped' in r:
                out.setdefault(g, {})[r['case']] = r['skipped']
    return out


def pool(rs):
    """The pool's figures over a case's runs (vm/lib/pool.py's 'pool'), or
    None: seconds to fill it, THPs it held, hits and misses during a run,
    and the refill threads' CPU and wall time per GiB they put in it."""
    ps = [r['pool'] for r in rs if r.get('pool')]
    if not ps:
        return None
    return {'pool_mib': ps[0]['pool_mib'], 'target': med([p['target'] for p in ps]),
            'fill_s': stat([p['fill_s'] for p in ps]),
            'hits': med([p.get('hits') for p in ps]), 'misses': med([p.get('misses') for p in ps]),
            'refilled_gib': med([p['refilled'] * GIB_PER_THP for p in ps if 'refilled' in p]),
            'cpu_s_per_gib': stat([p.get('cpu_s_per_gib') for p in ps]),
            'refill_s_per_gib': stat([p.get('refill_s_per_gib') for p in ps])}


# ---------------------------------------------------------------- workload 1
def w1(raw):
    sets = present(raw, ('6.1', 'latest'), 'w1')
    if not sets:
        return None
    guests = {}
    for g, rows in sets:
        for c in ('stock', 'zero', 'pool', 'first-touch', 'nozero'):
            rs = [r for r in rows if r['case'] == c]
            if not rs:
                continue
            e = {'pool': pool(rs),
                'kernel': rows[0]['kernel'], 'n': len(rs),
                'write_s': stat([r['time_ns'] / 1e9 for r in rs]),
                'process_s': stat([r['proc_ns'] / 1e9 for r in rs]),
                'x_first_touch': rstat(rows, 'time_ns', c, 'first-touch'),
                'process_x_first_touch': rstat(rows, 'proc_ns', c, 'first-touch'),
                'faults_per_2m': med([float(r['faults_per_2m']) for r in rs]),
                'faults': med([r['faults'] for r in rs]),
                'thp_split_pmd': med([r['thp_split_pmd'] for r in rs]),
                'anon_huge_pct': med([100 * r['anon_huge_kb'] / (r['size_mib'] * MIB) for r in rs]),
                'read_rss_mib': med([r['read_rss_kb'] / MIB for r in rs]),
            }
            if c == 'zero':
                e['stock_over_zero'] = rstat(rows, 'time_ns', 'stock', 'zero')
            if c == 'pool':
                e['x_zero'] = rstat(rows, 'time_ns', 'pool', 'zero')
            guests.setdefault(g, {})[c] = e
    return {'size_mib': sets[0][1][0]['size_mib'], 'guests': guests,
            'skipped': skipped(raw, ('6.1', 'latest'), 'w1')}


# ---------------------------------------------------------------- workload 2
def w2_guest(rows):
    """{'kernel', 'threads': {N: {'cases': {case: ...}, 'stock_over_zero'}}},
    N as a string (as JSON keeps it)."""
    for r in rows:
        r['ns_per_mib'] = r['time_ns'] / r['size_mib']

    def grp(r):
        return (r['rep'], r['threads'])
    threads = {}
    for n in sorted({r['threads'] for r in rows}):
        rn = [r for r in rows if r['threads'] == n]
        cases = {}
        for c in ('stock', 'zero', 'first-touch'):
            rs = [r for r in rn if r['case'] == c]
            if rs:
                cases[c] = {'mib_per_s': stat([r['size_mib'] / (r['time_ns'] / 1e9) for r in rs]),
                            'x_first_touch': rstat(rn, 'ns_per_mib', c, 'first-touch', grp),
                            'faults_per_2m': med([float(r['faults_per_2m']) for r in rs]),
                            'tlb_per_2m': med([r.get('tlb_shootdowns', 0) * 2 / r['size_mib'] for r in rs]),
                            'splits_per_2m': med([r['thp_split_pmd'] * 2 / r['size_mib'] for r in rs]),
                            'slice_mib': rs[0]['size_mib'] // n}
        e = {'cases': cases}
        if 'zero' in cases:
            e['stock_over_zero'] = rstat(rn, 'ns_per_mib', 'stock', 'zero', grp)
        threads[str(n)] = e
    one = next(iter(threads.values()))['cases']
    for e in threads.values():
        for c, x in e['cases'].items():
            if c in one:
                x['scaling'] = x['mib_per_s']['median'] / one[c]['mib_per_s']['median']
    return {'kernel': rows[0]['kernel'], 'threads': threads}


def w2(raw):
    sets = present(raw, ('scale', 'scale-latest'), 'w2')
    if not sets:
        return None
    rows = sets[0][1]
    slices = {c: sorted({r['size_mib'] // r['threads'] for r in rows
                         if r['case'] == c and r['threads'] > 1})
              for c in ('stock', 'zero', 'first-touch')}
    return {'slices_mib': slices, 'guests': {g: w2_guest(rows) for g, rows in sets}}


# ---------------------------------------------------------------- workload 3
def w3(raw):
    icount = os.path.exists(f'{raw}/overhead-w3.jsonl')
    rows = load_jsonl(f'{raw}/overhead-w3.jsonl' if icount else f'{raw}/6.1-w3.jsonl')
    if not rows:
        return None
    tests = {}
    for t in ('fault4k', 'reuse', 'cow', 'fork'):
        rt = [dict(r, case=r['config']) for r in rows if r['test'] == t]
        if not rt:
            continue
        key = 'best_ns_per_op' if 'best_ns_per_op' in rt[0] else 'ns_per_op'
        tests[t] = {'unloaded_us': stat([r[key] / 1e3 for r in rt if r['case'] == 'unloaded']),
                    'none_x': rstat(rt, key, 'none', 'unloaded'),
                    'other_x': rstat(rt, key, 'other', 'unloaded'),
                    'mean_none_x': rstat(rt, 'ns_per_op', 'none', 'unloaded'),
                    'mean_other_x': rstat(rt, 'ns_per_op', 'other', 'unloaded'),
                    'many_x': rstat(rt, key, 'many', 'unloaded'),
                    'mean_many_x': rstat(rt, 'ns_per_op', 'many', 'unloaded'),
                    'ops_per_run': rt[0]['ops'], 'iterations': rt[0]['iters'], 'based_on': key}
    return {'icount': icount, 'tests': tests}


# ---------------------------------------------------------------- workload 4
def w4_case(rs, size):
    full = size * MIB
    pct = [(r['t'], 100 * r['anon_huge_kb'] / full, r['writing']) for r in rs]
    after = [p for p in pct if not p[2]]

    def first_t(th):
        return next((t for t, p, _ in pct if p >= th), None)
    rate = None
    if len(after) >= 2 and after[-1][0] > after[0][0]:
        rate = (after[-1][1] - after[0][1]) / 100 * size / (after[-1][0] - after[0][0]) * 60
    e = {'scan_sleep_ms': rs[0]['scan_sleep_ms'],
         'write_s': rs[-1].get('wrf', {}).get('time_ns', 0) / 1e9,
         'pct_at_write_end': after[0][1] if after else None, 't50': first_t(50), 't100': first_t(100),
         'last_pct': pct[-1][1], 'last_t': pct[-1][0],
         'collapses': rs[-1]['thp_collapse_alloc'], 'rate_mib_per_min': rate,
         'samples': [[t, round(p, 2)] for t, p, _ in pct]}
    if rate and e['t100'] is None:
        e['t100_extrapolated'] = pct[-1][0] + (100 - pct[-1][1]) / 100 * size / rate * 60
    return e


def w4(raw):
    rows = load_jsonl(f'{raw}/6.1-w4.jsonl')
    if not rows:
        return None
    size = rows[0]['size_mib']
    cases = {}
    for c in ('stock-default', 'stock-tuned', 'zero', 'first-touch'):
        rs = [r for r in rows if r['case'] == c]
        if rs:
            cases[c] = w4_case(rs, size)
    return {'size_mib': size, 'cases': cases}


# ---------------------------------------------------------------- workload 5
def w5_case(g, c, pre, rs):
    return {'kernel': rs[0]['kernel'], 'n': len(rs), 'accel': W5_GUESTS[g],
            'ram_mib': rs[0]['ram_mib'],
            'dst_rss_mib': stat([r['dst_rss_kb'] / MIB for r in rs]),
            'dst_ram_rss_mib': stat([r['dst_ram_rss_kb'] / MIB for r in rs]),
            'write_s': stat([r['write_s'] for r in rs]),
            'x_stock': rstat(pre, 'write_s', c, 'stock'),
            'x_prealloc': rstat(pre, 'write_s', c, 'prealloc'),
            'x_fresh': rstat(pre, 'write_s', c, 'fresh'),
            'faults_per_2m': med([r['write_faults_per_2m'] for r in rs]),
            'thp_pct_after': med([r['after_thp_pct'] for r in rs]),
            'splits': med([r['write_thp_split_pmd'] for r in rs]),
            'migration_s': stat([r.get('migration_s') for r in rs]),
            'dst_start_s': stat([r.get('dst_start_s') for r in rs]),
            'verify': sorted({r['verify'] for r in rs}),
            'kvm_pages_2m': med([r.get('write_kvm_pages_2m') for r in rs]),
            'kvm_pages_4k': med([r.get('write_kvm_pages_4k') for r in rs]),
            'ram_rss_after_mib': med([r['after_ram_rss_kb'] / MIB for r in rs]),
            'thpcow_stats': rs[-1].get('thpcow_stats', {}), 'pool': pool(rs)}


def w5_after_key(r):
    """The name of a run after completion: khugepaged, collapse, collapse-10pct."""
    return r['after'] + ('' if r['touch_pct'] == 100 else f"-{r['touch_pct']}pct")


def w5_after(g, rows):
    """The postcopy variant that goes on after completion (collapse after
    postcopy): {name: ...} in the order the guest ran them."""
    out = {}
    for r in rows:
        base = next((b for b in rows if b['after'] == 'khugepaged'), None)
        el = r['eligible_ranges'] or 1
        ks = r.get('kvm_series') or []
        c = r.get('collapse') or {}
        x = (r['write_mib_per_s'] / base['write_mib_per_s']
             if base and base is not r and r['touch_pct'] == base['touch_pct'] else None)
        e = {'run': w5_after_key(r), 'after': r['after'], 'touch_pct': r['touch_pct'], 'eligible': r['eligible_ranges'],
             'ram_mib': r['ram_mib'], 'write_window_s': r.get('write_window_s'),
             'pct_at_completion': 100 * (r['series'][0][1] if r['series'] else 0) / 2048 / el,
             't95_s': r['t95_s'], 'pct_at_end': r['end_thp_pct_of_eligible'],
             'end_s': r['series'][-1][0],
             'collapse': bool(c), 'collapse_mib_per_s': c.get('mib_per_s'),
             'collapse_s': c.get('seconds'), 'collapse_waited_s': c.get('waited_s'),
             'postcopy_seen': c.get('postcopy_seen'),
             'rss_completion_mib': r['completed_ram_rss_kb'] / MIB,
             'rss_end_mib': r['end_ram_rss_kb'] / MIB, 'rss_growth_pct': r['rss_growth_pct'],
             'write_mib_per_s': r['write_mib_per_s'], 'write_x_khugepaged': x,
             'verify': r['verify'], 'guest': g, 'accel': W5_GUESTS[g],
             'kvm': bool(ks),
             'kvm_2m_completion': r.get('completed_kvm_pages_2m'),
             'kvm_2m_max': max((p2m for _, p2m, _ in ks), default=None),
             'kvm_2m_end_of_watch': ks[-1][1] if ks else None,
             'kvm_2m_after_check': r.get('end_kvm_pages_2m'),
             'kvm_2m_95_s': next((t for t, p2m, _ in ks if p2m >= 0.95 * el), None),
             'kvm_watch_end_s': ks[-1][0] if ks else None,
             'samples': [[t, round(100 * h / 2048 / el, 2)] for t, h, _ in r['series']],
             'kvm_samples': [[t, round(100 * p2m / el, 2)] for t, p2m, _ in ks]}
        out.setdefault(w5_after_key(r), e)
    return out


def w5(raw):
    sets = present(raw, W5_GUESTS, 'w5')
    if not sets:
        return None
    precopy = {}
    for g, rows in sets:
        pre = [r for r in rows if not r.get('postcopy')]
        for c in CASES:
            rs = [r for r in pre if r['case'] == c]
            if rs:
                precopy.setdefault(g, {})[c] = w5_case(g, c, pre, rs)
        st = precopy.get(g, {}).get('stock')
        for c in ('zero', 'pool'):
            z = precopy.get(g, {}).get(c)
            if z and st:
                rss_ratio = ratios(pre, 'dst_rss_kb', c, 'stock')
                z['rss_x_stock'] = stat(rss_ratio)
                z['rss_minus_stock_mib'] = stat([(x - 1) * st['dst_rss_mib']['median'] for x in rss_ratio])
                z['stock_over_zero'] = rstat(pre, 'write_s', 'stock', c)
        if 'pool' in precopy.get(g, {}):
            precopy[g]['pool']['x_zero'] = rstat(pre, 'write_s', 'pool', 'zero')
    return {'rams_mib': sorted({r['ram_mib'] for _, rs in sets for r in rs}),
            'skipped': skipped(raw, W5_GUESTS, 'w5'),
            'postcopy_bandwidth_kib': POSTCOPY_BANDWIDTH_KIB,
            'precopy': precopy,
            'postcopy': [dict(r, guest=g, inner=W5_GUESTS[g]) for g, rows in sets for r in rows
                         if r.get('postcopy') and not r.get('after')],
            'after': {g: w5_after(g, [r for r in rows if r.get('after')])
                      for g, rows in sets if any(r.get('after') for r in rows)}}


# ---------------------------------------------------------------- workload 6
def w6(raw):
    rows = load_jsonl(f'{raw}/6.1-w6.jsonl')
    if not rows:
        return None
    for r in rows:
        r['iter_s'] = r['ns'] / r['iters'] / 1e9

    def grp(r):
        return (r['rep'], r['stride'])
    strides = {}
    for stride in sorted({r['stride'] for r in rows}):
        rst = [r for r in rows if r['stride'] == stride]
        for c in ('stock', 'copy'):
            rs = [r for r in rst if r['case'] == c]
            if not rs:
                continue
            strides.setdefault(str(stride), {})[c] = {
                'write_s': stat([r['iter_s'] for r in rs]),
                'x_stock': rstat(rst, 'iter_s', c, 'stock', grp),
                'faults_per_2m': med([r['faults'] / r['iters'] * 2 / r['size_mib'] for r in rs]),
                'private_mib': med([r['private_kb'] / MIB for r in rs]),
                'anon_huge_pct': med([100 * r['anon_huge_kb'] / (r['size_mib'] * MIB) for r in rs])}
    return {'size_mib': rows[0]['size_mib'], 'strides': strides}


# ---------------------------------------------------------------- workload 7
def release(k):
    """A kernel's release; raw lines before inner_kernel had the inner
    kernel's path (.../RELEASE/vmlinux) in its place."""
    return os.path.basename(os.path.dirname(k)) if k.startswith('/') else k


def w7(raw):
    """memtester in a migrated Linux guest (bench/memtester.py)."""
    sets = present(raw, ('kvm', 'kvm-latest'), 'w7')
    if not sets:
        return None
    r0 = sets[0][1][0]
    guests = {}
    for g, rows in sets:
        for c in CASES:
            rs = [r for r in rows if r['case'] == c]
            if not rs:
                continue
            guests.setdefault(g, {})[c] = {
                'kernel': release(rows[0]['kernel']), 'n': len(rs),
                'take_s': stat([r['take_s'] for r in rs]),
                'x_stock': rstat(rows, 'take_s', c, 'stock'),
                'x_fresh': rstat(rows, 'take_s', c, 'fresh'),
                'faults_per_2m': med([r['take_faults_per_2m'] for r in rs]),
                'splits': med([r.get('take_thp_split_pmd') for r in rs]),
                'thp_pct': med([r['locked_thp_pct'] for r in rs]),
                'kvm_pages_2m': med([(r.get('kvm_locked') or {}).get('pages_2m') for r in rs]),
                'kvm_pages_4k': med([(r.get('kvm_locked') or {}).get('pages_4k') for r in rs]),
                'first_pass_s': stat([r['first_pass_s'] for r in rs]),
                'first_pass_x_fresh': rstat(rows, 'first_pass_s', c, 'fresh'),
                'ram_rss_mib': med([r['dst_ram_rss_kb'] / MIB for r in rs if 'dst_ram_rss_kb' in r]),
                'boot_s': stat([r['boot_s'] for r in rs]),
                'migration_s': stat([r.get('migration_s') for r in rs]),
                'rc': sorted({r['memtester_rc'] for r in rs}), 'pool': pool(rs)}
            if c == 'pool':
                guests[g][c]['x_zero'] = rstat(rows, 'take_s', 'pool', 'zero')
    # the inner kernel is the same in every guest (bench/run)
    return {'inner': {'ram_mib': r0['ram_mib'], 'kernel': release(r0.get('inner_kernel', r0['kernel'])),
                      'accel': r0['accel'], 'size': r0['size'], 'mask': r0['mask']},
            'rounds': max(r['rep'] for _, rows in sets for r in rows),
            'guests': guests, 'skipped': skipped(raw, ('kvm', 'kvm-latest'), 'w7')}


WORKLOADS = {'w1': w1, 'w2': w2, 'w3': w3, 'w4': w4, 'w5': w5, 'w6': w6, 'w7': w7}


# ---------------------------------------------------------------- the run
def run(raw, meta):
    """The guests that ran and the source they ran; None without results."""
    guests = [m for k, m in meta.items() if k != 'total']
    if not guests:
        return None
    gd = os.path.join(raw, 'git-describe')
    rev = open(gd).read().strip() if os.path.exists(gd) else '?'
    # the last run's guests: total.meta.json names them (bench/run --only
    # keeps the others' raw results); before it did, those that ended within
    # its time of the last one
    total = meta.get('total', {})
    span = total.get('seconds')
    if 'guests' in total:
        ran = [g for g in total['guests'].split(',') if g in meta]
    else:
        last = max(m['date'] for m in guests)
        ran = [m['guest'] for m in guests if span is not None and
               (datetime.datetime.fromisoformat(last[:-1]) -
                datetime.datetime.fromisoformat(m['date'][:-1])).total_seconds() <= span + 60]
    return {'source': rev, 'seconds': span, 'ran': ran,
            'kept': [m['guest'] for m in guests if m['guest'] not in ran],
            'guests': [{k: m.get(k) for k in ('guest', 'load_before', 'load_after', 'seconds',
                                              'date', 'quick', 'status')} for m in guests]}


def summarize(raw):
    """results.json's content from the raw results in directory raw."""
    meta = {}
    for f in sorted(glob.glob(f'{raw}/*.meta.json')):
        with open(f) as fh:
            meta[os.path.basename(f)[:-len('.meta.json')]] = json.load(fh)
    summary = {}
    for w, fn in WORKLOADS.items():
        s = fn(raw)
        if s is not None:
            summary[w] = s
    return {'run': run(raw, meta), 'summary': summary, 'meta': meta,
            'raw': {os.path.basename(p)[:-len('.jsonl')]: load_jsonl(p)
                    for p in sorted(glob.glob(f'{raw}/*.jsonl'))}}
