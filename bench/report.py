#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py DIR: make bench's report. Reads the guests' raw results
(DIR/raw/GUEST-wN.jsonl, GUEST.meta.json), writes DIR/results.json (summary
and raw), DIR/results.md (the tables, also printed) and DIR/*.png (gnuplot).

Timings under QEMU TCG on a shared machine are noisy: every ratio is taken
within one repetition round of one guest (cases interleaved), and reported
as the median over rounds with the range (min-max)."""
import datetime
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

MIB = 1024


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def rng(xs):
    xs = [x for x in xs if x is not None]
    return (min(xs), max(xs)) if xs else (None, None)


def stat(xs):
    lo, hi = rng(xs)
    return {'median': med(xs), 'min': lo, 'max': hi, 'n': len([x for x in xs if x is not None])}


def fmt(x, nd=2):
    if x is None:
        return '-'
    if isinstance(x, int):
        return f'{x:,}'.replace(',', ' ')
    return f'{x:.{nd}f}'


def fmt_stat(s, nd=2):
    if not s or s['median'] is None:
        return '-'
    if s['n'] == 1:
        return fmt(s['median'], nd)
    return f"{fmt(s['median'], nd)} ({fmt(s['min'], nd)}–{fmt(s['max'], nd)})"


def load_jsonl(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith('{'):
                    rows.append(json.loads(line))
    return rows


def ratios(rows, key, case, base, group=lambda r: r['rep']):
    """Per round: rows[case][key] / rows[base][key], matched by group."""
    by = {}
    for r in rows:
        by.setdefault(group(r), {})[r['case']] = r
    out = []
    for g, cs in sorted(by.items()):
        if case in cs and base in cs and cs[base][key]:
            out.append(cs[case][key] / cs[base][key])
    return out


def rstat(rows, key, case, base, group=lambda r: r['rep']):
    """stat() of the per-round ratios, plus 'fastest': case's fastest run over
    base's (host preemption only ever adds time, so on a loaded host the
    fastest runs are the least disturbed)."""
    s = stat(ratios(rows, key, case, base, group))
    a = [r[key] for r in rows if r['case'] == case and r.get(key)]
    b = [r[key] for r in rows if r['case'] == base and r.get(key)]
    s['fastest'] = min(a) / min(b) if a and b else None
    return s


# ---------------------------------------------------------------- workload 1
W1_LABEL = {'stock': "stock (kernel's own path)", 'zero': '**thpcow zero**',
            'first-touch': 'first touch (no read: the floor)',
            'nozero': 'use_zero_page=0'}


def w1(raw, summary, md):
    order = ['stock', 'zero', 'first-touch', 'nozero']
    rowsets = [(g, load_jsonl(f'{raw}/{g}-w1.jsonl')) for g in ('6.1', 'latest')]
    rowsets = [(g, rs) for g, rs in rowsets if rs]
    if not rowsets:
        return
    s1 = summary['w1'] = {}
    md.append('## 1. Write after read (the seed\'s mechanism)\n')
    size = rowsets[0][1][0]['size_mib']
    md.append(f'{size} MiB mapped, read one byte per 2 MiB (maps the huge zero page), then '
              'written one byte per 4 KiB. Times in seconds, median (min–max) over the '
              'repetitions; "× floor" is the write phase\'s time over first touch\'s in the '
              'same round; "process × floor" is the whole process (read phase, exec '
              'included) over first touch\'s. RSS after read is the region\'s.\n')
    md.append('| kernel | case | write s | × floor | process × floor | faults per 2 MiB | '
              'splits | AnonHugePages % | RSS after read MiB |')
    md.append('|---|---|---|---|---|---|---|---|---|')
    for g, rows in rowsets:
        kernel = rows[0]['kernel']
        for c in order:
            rs = [r for r in rows if r['case'] == c]
            if not rs:
                continue
            e = {
                'kernel': kernel, 'n': len(rs),
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
            s1.setdefault(g, {})[c] = e
            label = W1_LABEL[c] if g == '6.1' or c != 'stock' else 'stock (upstream fix)'
            md.append(f"| {kernel.split('-')[0] if g == '6.1' else kernel.split('+')[0]} | {label} | "
                      f"{fmt_stat(e['write_s'])} | {fmt_stat(e['x_first_touch'])} | "
                      f"{fmt_stat(e['process_x_first_touch'])} | {fmt(e['faults_per_2m'], 1)} | "
                      f"{fmt(e['thp_split_pmd'], 0)} | {fmt(e['anon_huge_pct'], 1)} | "
                      f"{fmt(e['read_rss_mib'], 0)} |")
    md.append('')
    z = s1.get('6.1', {}).get('zero')
    if z:
        md.append(f"thpcow zero on 6.1: {fmt(z['x_first_touch']['median'])}× first touch "
                  f"(goal ≤ 1.10), {fmt(z['stock_over_zero']['median'])}× faster than stock "
                  f"(goal ≥ 3; range {fmt(z['stock_over_zero']['min'])}–"
                  f"{fmt(z['stock_over_zero']['max'])}), {fmt(z['thp_split_pmd'], 0)} splits "
                  "(goal 0).\n")


# ---------------------------------------------------------------- workload 2
def w2_summary(rows):
    for r in rows:
        r['ns_per_mib'] = r['time_ns'] / r['size_mib']
    s2 = {}
    grp = (lambda r: (r['rep'], r['threads']))
    for n in sorted({r['threads'] for r in rows}):
        rn = [r for r in rows if r['threads'] == n]
        e = {}
        for c in ('stock', 'zero', 'first-touch'):
            rs = [r for r in rn if r['case'] == c]
            if rs:
                e[c] = {'mib_per_s': stat([r['size_mib'] / (r['time_ns'] / 1e9) for r in rs]),
                        'x_first_touch': rstat(rn, 'ns_per_mib', c, 'first-touch', grp),
                        'faults_per_2m': med([float(r['faults_per_2m']) for r in rs]),
                        'tlb_per_2m': med([r.get('tlb_shootdowns', 0) * 2 / r['size_mib'] for r in rs]),
                        'splits_per_2m': med([r['thp_split_pmd'] * 2 / r['size_mib'] for r in rs]),
                        'slice_mib': rs[0]['size_mib'] // n}
        if 'zero' in e:
            e['stock_over_zero'] = rstat(rn, 'ns_per_mib', 'stock', 'zero', grp)
        s2[n] = e
    one = s2[min(s2)]
    for n, e in s2.items():
        for c in ('stock', 'zero', 'first-touch'):
            if c in e and c in one:
                e[c]['scaling'] = e[c]['mib_per_s']['median'] / one[c]['mib_per_s']['median']
    return s2


def w2(raw, summary, md):
    sets = [(g, load_jsonl(f'{raw}/{g}-w2.jsonl')) for g in ('scale', 'scale-latest')]
    sets = [(g, rs) for g, rs in sets if rs]
    if not sets:
        return
    rows = sets[0][1]
    per = {c: sorted({r['size_mib'] // r['threads'] for r in rows if r['case'] == c and r['threads'] > 1})
           for c in ('stock', 'zero', 'first-touch')}
    md.append('## 2. Scaling: writer threads\n')
    md.append(f"N writer threads each write their own read-mapped slice (one byte per 4 KiB after "
              f"one read per 2 MiB) in a guest with 4 vCPUs, on a host with 2 cores: nothing can "
              f"scale past 2×. Slices of {'/'.join(map(str, per['zero'] or per['first-touch']))} MiB "
              f"per thread; stock's slices are {'/'.join(map(str, per['stock']))} MiB when N > 1 "
              "on 6.1 (see below). Throughput in MiB "
              "of region per second, median (min–max); × floor is time per MiB over first "
              "touch's in the same round; scaling is throughput over the same case's with one "
              "thread; TLB shootdowns are the guest's interrupts per 2 MiB written.\n")
    md.append('| kernel | threads | case | MiB/s | × floor | scaling | faults per 2 MiB | '
              'TLB shootdowns per 2 MiB | splits per 2 MiB |')
    md.append('|---|---|---|---|---|---|---|---|---|')
    summary['w2'] = {}
    for g, rows in sets:
        kernel = rows[0]['kernel']
        kshort = kernel.split('-')[0] if g == 'scale' else kernel.split('+')[0]
        s2 = summary['w2'][g] = w2_summary(rows)
        for n, e in s2.items():
            for c in ('stock', 'zero', 'first-touch'):
                if c not in e:
                    continue
                x = e[c]
                label = W1_LABEL[c] if g == 'scale' or c != 'stock' else 'stock (upstream fix)'
                md.append(f"| {kshort} | {n} | {label} | {fmt_stat(x['mib_per_s'], 0)} | "
                          f"{fmt_stat(x['x_first_touch'])} | {fmt(x.get('scaling'))} | "
                          f"{fmt(x['faults_per_2m'], 1)} | {fmt(x['tlb_per_2m'], 1)} | "
                          f"{fmt(x['splits_per_2m'], 2)} |")
    md.append('')
    md.append('With more than one thread in the process, every 4 KiB write fault of the stock '
              '6.1 path replaces a PTE of the (small) zero page and must shoot down the other '
              'CPUs\' TLBs; under thpcow, as under the upstream fix, that happens once per 2 MiB '
              '(the huge zero PMD is cleared and flushed before the THP is mapped); after a first '
              'touch never. With 4 vCPUs on 2 host cores (and other guests) a vCPU that must '
              'acknowledge a shootdown is often not running, so each costs milliseconds: stock '
              'collapses (hence its small slices), and zero, like the upstream fix, falls behind '
              'first touch at 4 threads.\n')


# ---------------------------------------------------------------- workload 3
W3_LABEL = {'fault4k': '4 KiB anonymous first-touch fault',
            'reuse': 'write fault on a private THP after fork (reused)',
            'cow': 'write fault on a THP shared with a child (split + CoW)',
            'fork': 'fork + exit + wait'}


def w3(raw, summary, md):
    icount = os.path.exists(f'{raw}/overhead-w3.jsonl')
    rows = load_jsonl(f'{raw}/overhead-w3.jsonl' if icount else f'{raw}/6.1-w3.jsonl')
    if not rows:
        return
    s3 = summary['w3'] = {}
    md.append('## 3. Overhead for everyone else\n')
    md.append('bench/prog/faultbench, module unloaded vs loaded with no policy vs loaded with a '
              'zero policy for another process vs loaded with 1000 other processes\' '
              'zero --children policies, interleaved rounds. Each run times several '
              'iterations and keeps the fastest one\'s time per operation (preemption by the '
              'host only ever adds time); the ratios are to "unloaded" in the same round, '
              'median (min–max) over the rounds; "mean-based" uses all iterations instead. The '
              'goal was < 1 % difference.'
              + (' The guest counts time in instructions (QEMU -icount, one CPU): '
                 '"µs" are thousands of guest instructions, the same whatever the host\'s '
                 'load; caches and TLBs are not modelled.' if icount else '') + '\n')
    md.append('| test | unloaded µs per op | loaded, no policy × unloaded | '
              "loaded, another process's policy × unloaded | "
              "loaded, 1000 other processes' policies × unloaded | "
              "mean-based: no policy, other's, 1000 others' |")
    md.append('|---|---|---|---|---|---|')
    for t in ('fault4k', 'reuse', 'cow', 'fork'):
        rt = [dict(r, case=r['config']) for r in rows if r['test'] == t]
        if not rt:
            continue
        key = 'best_ns_per_op' if 'best_ns_per_op' in rt[0] else 'ns_per_op'
        e = {'unloaded_us': stat([r[key] / 1e3 for r in rt if r['case'] == 'unloaded']),
             'none_x': rstat(rt, key, 'none', 'unloaded'),
             'other_x': rstat(rt, key, 'other', 'unloaded'),
             'mean_none_x': rstat(rt, 'ns_per_op', 'none', 'unloaded'),
             'mean_other_x': rstat(rt, 'ns_per_op', 'other', 'unloaded'),
             'many_x': rstat(rt, key, 'many', 'unloaded'),
             'mean_many_x': rstat(rt, 'ns_per_op', 'many', 'unloaded'),
             'ops_per_run': rt[0]['ops'], 'iterations': rt[0]['iters'], 'based_on': key}
        s3[t] = e
        md.append(f"| {W3_LABEL[t]} | {fmt_stat(e['unloaded_us'], 1)} | {fmt_stat(e['none_x'], 3)} | "
                  f"{fmt_stat(e['other_x'], 3)} | {fmt_stat(e['many_x'], 3)} | "
                  f"{fmt(e['mean_none_x']['median'], 3)}, "
                  f"{fmt(e['mean_other_x']['median'], 3)}, "
                  f"{fmt(e['mean_many_x']['median'], 3)} |")
    md.append('')


# ---------------------------------------------------------------- workload 4
def w4(raw, summary, md, plots):
    rows = load_jsonl(f'{raw}/6.1-w4.jsonl')
    if not rows:
        return
    s4 = summary['w4'] = {}
    size = rows[0]['size_mib']
    md.append('## 4. khugepaged as the alternative\n')
    md.append(f'AnonHugePages of the {size} MiB region over time, from the start of the write '
              'phase (one byte per 4 KiB after one read per 2 MiB). khugepaged defaults: '
              'pages_to_scan 4096, scan_sleep_millisecs 10000; "tuned" lowers '
              'scan_sleep_millisecs only.\n')
    md.append('| case | scan_sleep_millisecs | write phase s | THP % at end of writes | '
              'time to 50 % | time to 100 % | THP % at the last sample (t) | '
              'collapses | rate after writes, MiB/min |')
    md.append('|---|---|---|---|---|---|---|---|---|')
    for c in ('stock-default', 'stock-tuned', 'zero', 'first-touch'):
        rs = [r for r in rows if r['case'] == c]
        if not rs:
            continue
        full = size * MIB
        pct = [(r['t'], 100 * r['anon_huge_kb'] / full, r['writing']) for r in rs]
        wrf = rs[-1].get('wrf', {})
        write_s = wrf.get('time_ns', 0) / 1e9
        after = [p for p in pct if not p[2]]
        at_end = after[0][1] if after else None

        def first_t(th):
            for t, p, _ in pct:
                if p >= th:
                    return t
            return None
        rate = None
        if len(after) >= 2 and after[-1][0] > after[0][0]:
            rate = (after[-1][1] - after[0][1]) / 100 * size / (after[-1][0] - after[0][0]) * 60
        e = {'scan_sleep_ms': rs[0]['scan_sleep_ms'], 'write_s': write_s,
             'pct_at_write_end': at_end, 't50': first_t(50), 't100': first_t(100),
             'last_pct': pct[-1][1], 'last_t': pct[-1][0],
             'collapses': rs[-1]['thp_collapse_alloc'], 'rate_mib_per_min': rate,
             'samples': [[t, round(p, 2)] for t, p, _ in pct]}
        if rate and e['t100'] is None:
            e['t100_extrapolated'] = pct[-1][0] + (100 - pct[-1][1]) / 100 * size / rate * 60
        s4[c] = e
        t100 = fmt(e['t100'], 1) if e['t100'] is not None else (
            f"> {fmt(e['last_t'], 0)} (≈ {fmt(e.get('t100_extrapolated'), 0)} at this rate)"
            if e.get('t100_extrapolated') else f"> {fmt(e['last_t'], 0)}")
        md.append(f"| {c} | {e['scan_sleep_ms']} | {fmt(write_s)} | {fmt(at_end, 1)} | "
                  f"{fmt(e['t50'], 1) if e['t50'] is not None else '> ' + fmt(e['last_t'], 0)} | "
                  f"{t100} | {fmt(e['last_pct'], 1)} ({fmt(e['last_t'], 0)} s) | "
                  f"{e['collapses']} | {fmt(rate, 1)} |")
    md.append('')
    plots.append(('w4-khugepaged.png', plot_w4(s4, size)))


def plot_w4(s4, size):
    data = {c: '\n'.join(f'{t} {p}' for t, p in e['samples']) for c, e in s4.items()}
    title = {'stock-default': 'stock, then khugepaged (defaults)',
             'stock-tuned': 'stock, then khugepaged (scan_sleep_millisecs=%s)'
             % s4.get('stock-tuned', {}).get('scan_sleep_ms'),
             'zero': 'thpcow zero', 'first-touch': 'first touch (no read)'}
    lines = [f"'-' using 1:2 with steps lw 2 title \"{title[c]}\"" for c in data]
    script = f"""
set terminal pngcairo size 900,520 font ',11' noenhanced
set title "THP coverage of a {size} MiB region written after read (Debian 6.1, QEMU TCG)"
set xlabel 'seconds since the write phase began'
set ylabel 'AnonHugePages, % of the region'
set yrange [0:105]
set logscale x 2
set xrange [0.125:*]
set key right center
set grid
plot {', '.join(lines)}
"""
    return script + ''.join(d + '\ne\n' for d in data.values())


# ---------------------------------------------------------------- workload 5
W5_LABEL = {'stock': 'stock', 'zero': '**thpcow zero**', 'prealloc': 'prealloc=on',
            'nozero': 'use_zero_page=0', 'fresh': 'no migration (the floor)'}


# workload 5's guests: the inner QEMUs under KVM (vm/run --kvm) or TCG
W5_GUESTS = (('kvm', 'KVM'), ('kvm-latest', 'KVM'), ('6.1', 'TCG'), ('latest', 'TCG'))
UPSTREAM = ('latest', 'kvm-latest')  # the guests on the upstream-fixed kernel


def kshort(g, kernel):
    """6.1 or 7.3.4: the kernel's series as the tables show it."""
    return kernel.split('+')[0] if g in UPSTREAM else kernel.split('-')[0]


def case_label(g, c):
    """Workload 5's and 7's name of case c in guest g."""
    return 'stock (upstream fix)' if g in UPSTREAM and c == 'stock' else W5_LABEL[c]


def kvm_cell(p2m, p4k):
    """KVM's 2 MiB / 4 KiB mappings of the guest's RAM, or - under TCG."""
    if p2m is None:
        return '-'
    return f'{fmt(int(p2m))} / {fmt(int(p4k))}'


def w5(raw, summary, md, plots):
    sets = [(g, load_jsonl(f'{raw}/{g}-w5.jsonl')) for g, _ in W5_GUESTS]
    sets = [(g, rs) for g, rs in sets if rs]
    if not sets:
        return
    s5 = summary['w5'] = {}
    rams = sorted({r['ram_mib'] for _, rs in sets for r in rs})
    ram = rams[-1]
    md.append('## 5. QEMU live migration, end to end\n')
    md.append(f'A {" or ".join(map(str, rams))} MiB guest with no OS (bench/prog/migfw.bin) migrates '
              'between two QEMU processes over a unix socket inside the test guest, both under KVM '
              '(`vm/run --kvm`: the guest\'s stores are NPT faults that KVM resolves through GUP '
              'on the destination\'s RAM mapping, as on a production host) or under TCG (the '
              'destination QEMU\'s own stores fault on that mapping); the destination reads '
              'every zero page it receives (QEMU\'s own migration code), then the migrated guest '
              'writes one byte per 4 KiB of its RAM (its stores fault on the destination QEMU\'s '
              'RAM mapping). RSS is the destination QEMU\'s (VmRSS) right after migration, and '
              'of its RAM mapping; faults are the destination process\'s minor faults during the '
              'write phase; THP % is AnonHugePages of the RAM mapping after the writes. Write '
              'phase: median (min–max) seconds, and ratios in the same round. KVM 2 MiB / 4 KiB: '
              'KVM\'s mappings of the guest\'s RAM after the writes (debugfs pages_2m / pages_4k).\n')
    md.append('| kernel | inner | MiB | case | VmRSS after migration MiB | RAM RSS MiB | write s | '
              '× stock | × prealloc | × no migration | faults per 2 MiB | splits | THP % after | '
              'KVM 2 MiB / 4 KiB | migration s | destination start s |')
    md.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for g, rows in sets:
        pre = [r for r in rows if not r.get('postcopy')]
        kernel = rows[0]['kernel']
        ks = kshort(g, kernel)
        for c in ('stock', 'zero', 'prealloc', 'nozero', 'fresh'):
            rs = [r for r in pre if r['case'] == c]
            if not rs:
                continue
            e = {'kernel': kernel, 'n': len(rs), 'accel': dict(W5_GUESTS)[g],
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
                 'thpcow_stats': rs[-1].get('thpcow_stats', {})}
            s5.setdefault(g, {})[c] = e
            md.append(f"| {ks} | {e['accel']} | {e['ram_mib']} | "
                      f"{case_label(g, c)} | "
                      f"{fmt_stat(e['dst_rss_mib'], 0)} | {fmt_stat(e['dst_ram_rss_mib'], 0)} | "
                      f"{fmt_stat(e['write_s'])} | {fmt_stat(e['x_stock'])} | "
                      f"{fmt_stat(e['x_prealloc'])} | {fmt_stat(e['x_fresh'])} | "
                      f"{fmt(e['faults_per_2m'], 1)} | {fmt(e['splits'], 0)} | "
                      f"{fmt(e['thp_pct_after'], 1)} | "
                      f"{kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k'])} | "
                      f"{fmt_stat(e['migration_s'], 1)} | {fmt_stat(e['dst_start_s'], 1)} |")
    md.append('')
    for g in ('kvm', '6.1'):
        z, st = (s5.get(g, {}).get(c) for c in ('zero', 'stock'))
        if not (z and st):
            continue
        rows61 = [r for r in dict(sets).get(g, []) if not r.get('postcopy')]
        rss_ratio = ratios(rows61, 'dst_rss_kb', 'zero', 'stock')
        z['rss_x_stock'] = stat(rss_ratio)
        z['rss_minus_stock_mib'] = stat([(x - 1) * st['dst_rss_mib']['median'] for x in rss_ratio])
        z['stock_over_zero'] = rstat(rows61, 'write_s', 'stock', 'zero')
        md.append(f"Goals (6.1, {z['accel']}): destination RSS after migration, zero × stock: "
                  f"{fmt_stat(stat(rss_ratio), 3)} (goal ≤ 1.05); write phase, stock ÷ zero: "
                  f"{fmt_stat(z['stock_over_zero'])} "
                  f"(goal ≥ 2); zero × prealloc: {fmt_stat(z['x_prealloc'])} (goal ≤ 1.25).\n")
    post = [(g, r) for g, rows in sets for r in rows
            if r.get('postcopy') and not r.get('after')]
    if post:
        md.append('Postcopy (switched to postcopy as soon as the migration was active, '
                  'max-postcopy-bandwidth %s KiB/s; the guest writes while the destination '
                  'still has pages missing):\n' % '256')
        md.append('| inner | case | source state when writes began / ended | write s | '
                  'faults per 2 MiB | THP % after | postcopy requests | thpcow counters during '
                  'the run | data | after completion: write s, faults per 2 MiB |')
        md.append('|---|---|---|---|---|---|---|---|---|---|')
        for g, r in post:
            s5.setdefault('postcopy', []).append(r)
            md.append(f"| {dict(W5_GUESTS)[g]} | {r['case']} | {r.get('src_status_at_write')} / "
                      f"{r.get('src_status_after_write')} | {fmt(r['write_s'])} | "
                      f"{fmt(r['write_faults_per_2m'], 1)} | {fmt(r['after_thp_pct'], 1)} | "
                      f"{r.get('migration_ram', {}).get('postcopy-requests')} | "
                      f"{', '.join(f'{k} {v}' for k, v in r.get('thpcow_stats', {}).items()) or '-'} | "
                      f"{r['verify']} | {fmt(r.get('after_write_s'))}, "
                      f"{fmt(r.get('after_write_faults_per_2m'), 1)} |")
        md.append('')
        md.append('During postcopy the destination\'s RAM is registered with userfaultfd: thpcow '
                  'leaves those faults to the kernel (fallback_ineligible), so the guest writes at '
                  'stock\'s rate and userfaultfd sees every missing page. Postcopy places zero '
                  'pages as 4 KiB pages (no huge zero page), so after completion there is nothing '
                  'for thpcow to substitute either.\n')
    plots.append(('w5-migration.png', plot_w5(s5, ram)))
    w5_after([dict(r, guest=g) for g, rows in sets if g in ('kvm', '6.1')
              for r in rows if r.get('after')], s5, md, plots)


W5_AFTER_LABEL = {('khugepaged', 100): 'khugepaged (defaults)',
                  ('collapse', 100): '**thpcowctl collapse --await-postcopy**',
                  ('collapse', 10): 'thpcowctl collapse, guest touched 10 %'}


def w5_after(rows, s5, md, plots):
    """The postcopy variant that goes on after completion (collapse after postcopy)."""
    if not rows:
        return
    ram = rows[0]['ram_mib']
    md.append('After a postcopy migration (6.1, thpcow zero; the source guest wrote its RAM, '
              'one byte per 4 KiB, before migrating; the migration switched to postcopy at once '
              'and completed with the guest idle): THPs of the destination\'s RAM mapping '
              'over time from completion, with khugepaged\'s defaults, or with '
              '`thpcowctl collapse --await-postcopy 600` started with the incoming migration, '
              'as the libvirt hook starts it: it waits through precopy for postcopy to begin, '
              'then for it to end (--min-present 502). Eligible: 2 MiB ranges that are THPs or hold ≥ 502 data '
              'pages at the end. Guest write rate: the migrated guest\'s write passes over what '
              'it touched, for the first %s s after completion, then it stays idle until its '
              'data check at the end, which reads every page again. Under KVM: KVM\'s 2 MiB '
              'mappings of the RAM (pages_2m, sampled with the THPs) at completion, at most '
              'during the watch, at its end (the guest idle), and after the data check (the '
              'guest touched every range again); and when they first reached 95 %% of the '
              'eligible ranges.\n'
              % fmt(rows[0].get('write_window_s'), 0))
    md.append('| inner | case | eligible ranges | THP % of eligible at completion | time to ≥ 95 % | '
              'THP % of eligible at the end (s) | collapse MiB/s | collapse waited s '
              '(postcopy seen) | RAM RSS MiB at completion → end | RSS growth % | '
              'guest writes MiB/s (× khugepaged case) | KVM 2 MiB mappings: completion, max, '
              'end, after the data check | KVM 2 MiB ≥ 95 % at | data |')
    md.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    out = s5['after'] = []
    for r in rows:
        base = next((b for b in rows if b['after'] == 'khugepaged' and b['guest'] == r['guest']), None)
        accel = dict(W5_GUESTS)[r['guest']]
        el = r['eligible_ranges'] or 1
        ks = r.get('kvm_series') or []
        k95 = next((t for t, p2m, _ in ks if p2m >= 0.95 * el), None)
        first = r['series'][0][1] if r['series'] else 0
        c = r.get('collapse') or {}
        x = (r['write_mib_per_s'] / base['write_mib_per_s']
             if base and base is not r and r['touch_pct'] == base['touch_pct'] else None)
        e = {'after': r['after'], 'touch_pct': r['touch_pct'], 'eligible': r['eligible_ranges'],
             'pct_at_completion': 100 * first / 2048 / el, 't95_s': r['t95_s'],
             'pct_at_end': r['end_thp_pct_of_eligible'], 'end_s': r['series'][-1][0],
             'collapse_mib_per_s': c.get('mib_per_s'), 'collapse_s': c.get('seconds'),
             'collapse_waited_s': c.get('waited_s'), 'postcopy_seen': c.get('postcopy_seen'),
             'rss_completion_mib': r['completed_ram_rss_kb'] / MIB,
             'rss_end_mib': r['end_ram_rss_kb'] / MIB, 'rss_growth_pct': r['rss_growth_pct'],
             'write_mib_per_s': r['write_mib_per_s'], 'write_x_khugepaged': x,
             'verify': r['verify'], 'guest': r['guest'], 'accel': accel,
             'kvm_2m_completion': r.get('completed_kvm_pages_2m'),
             'kvm_2m_max': max((p2m for _, p2m, _ in ks), default=None),
             'kvm_2m_end_of_watch': ks[-1][1] if ks else None,
             'kvm_2m_after_check': r.get('end_kvm_pages_2m'), 'kvm_2m_95_s': k95,
             'samples': [[t, round(100 * h / 2048 / el, 2)] for t, h, _ in r['series']],
             'kvm_samples': [[t, round(100 * p2m / el, 2)] for t, p2m, _ in ks]}
        out.append(e)
        t95 = fmt(e['t95_s'], 1) + ' s' if e['t95_s'] is not None else f"> {fmt(e['end_s'], 0)} s"
        kvm = ('-' if not ks else ', '.join(fmt(e[k]) for k in (
            'kvm_2m_completion', 'kvm_2m_max', 'kvm_2m_end_of_watch', 'kvm_2m_after_check')))
        k95s = '-' if not ks else fmt(k95, 1) + ' s' if k95 is not None else f"> {fmt(ks[-1][0], 0)} s"
        md.append(f"| {accel} | {W5_AFTER_LABEL.get((r['after'], r['touch_pct']), r['after'])} | "
                  f"{e['eligible']} | {fmt(e['pct_at_completion'], 1)} | {t95} | "
                  f"{fmt(e['pct_at_end'], 1)} ({fmt(e['end_s'], 0)}) | "
                  f"{fmt(e['collapse_mib_per_s'], 1) if c else '-'} | "
                  f"{fmt(e['collapse_waited_s'], 1) + (' (yes)' if e['postcopy_seen'] else ' (no)') if c else '-'} | "
                  f"{fmt(e['rss_completion_mib'], 1)} → {fmt(e['rss_end_mib'], 1)} | "
                  f"{fmt(e['rss_growth_pct'], 2)} | {fmt(e['write_mib_per_s'], 0)}"
                  f"{' (' + fmt(x) + ')' if x else ''} | {kvm} | {k95s} | {e['verify']} |")
    md.append('')
    plots.append(('w5-collapse.png', plot_w5_after(out, ram)))


def plot_w5_after(out, ram):
    names = {('khugepaged', 100): 'khugepaged (defaults)',
             ('collapse', 100): 'thpcowctl collapse --await-postcopy',
             ('collapse', 10): 'collapse, guest touched 10 %'}
    curves = []  # (title, dash, samples)
    for e in out:
        name = f"{names.get((e['after'], e['touch_pct']))} ({e['accel']})"
        curves.append((f'THPs, {name}', 1, e['samples']))
        if e.get('kvm_samples'):
            curves.append((f'KVM 2 MiB mappings, {name}', 2, e['kvm_samples']))
    lines = [f"'-' using 1:2 with steps lw 2 dashtype {dt} title \"{t}\"" for t, dt, _ in curves]
    data = ''.join('\n'.join(f'{t} {p}' for t, p in smp) + '\ne\n' for _, _, smp in curves)
    return f"""
set terminal pngcairo size 1000,560 font ',10' noenhanced
set title "THPs and KVM's 2 MiB mappings back after a postcopy migration of a {ram} MiB guest (Debian 6.1)"
set xlabel 'seconds since the migration completed'
set ylabel '% of the eligible 2 MiB ranges'
set yrange [0:105]
set key outside below
set grid
plot {', '.join(lines)}
""" + data


# ---------------------------------------------------------------- workload 6
def w6(raw, summary, md):
    rows = load_jsonl(f'{raw}/6.1-w6.jsonl')
    if not rows:
        return
    s6 = summary['w6'] = {}
    size = rows[0]['size_mib']
    for r in rows:
        r['iter_s'] = r['ns'] / r['iters'] / 1e9
    md.append('## 6. Mode copy: fork, then write\n')
    md.append(f'bench/prog/faultbench forkwrite: a parent first-touches {size} MiB of THPs and '
              'forks; the child writes one byte per 4 KiB (everything) or per 2 MiB into the '
              'THPs it shares with its parent. stock (mode kernel) splits the PMD and copies '
              '4 KiB per fault; copy (`thpcowctl exec copy --children`) copies the 2 MiB whole. '
              'Child\'s write time per pass, median (min–max) over the rounds; × stock in the '
              'same round; the child\'s Private memory in the region afterwards (what its '
              'writes cost) and its AnonHugePages. The parent\'s data are checked after each '
              'child.\n')
    md.append('| writes | case | child write s | × stock | faults per 2 MiB | '
              'child Private MiB | child AnonHugePages % |')
    md.append('|---|---|---|---|---|---|---|')
    grp = (lambda r: (r['rep'], r['stride']))
    for stride in sorted({r['stride'] for r in rows}):
        rst = [r for r in rows if r['stride'] == stride]
        what = 'every 4 KiB' if stride == 4096 else f'one per {stride // 1024 // 1024} MiB' \
            if stride % 2**20 == 0 else f'one per {stride} B'
        for c in ('stock', 'copy'):
            rs = [r for r in rst if r['case'] == c]
            if not rs:
                continue
            e = {'write_s': stat([r['iter_s'] for r in rs]),
                 'x_stock': rstat(rst, 'iter_s', c, 'stock', grp),
                 'faults_per_2m': med([r['faults'] / r['iters'] * 2 / r['size_mib'] for r in rs]),
                 'private_mib': med([r['private_kb'] / MIB for r in rs]),
                 'anon_huge_pct': med([100 * r['anon_huge_kb'] / (r['size_mib'] * MIB) for r in rs])}
            s6.setdefault(str(stride), {})[c] = e
            md.append(f"| {what} | {'**copy**' if c == 'copy' else 'stock'} | "
                      f"{fmt_stat(e['write_s'], 3)} | {fmt_stat(e['x_stock'])} | "
                      f"{fmt(e['faults_per_2m'], 1)} | {fmt(e['private_mib'], 1)} | "
                      f"{fmt(e['anon_huge_pct'], 1)} |")
    md.append('')


# ---------------------------------------------------------------- workload 7
W7_GUESTS = ('kvm', 'kvm-latest')


def w7(raw, summary, md):
    """memtester in a migrated Linux guest (bench/memtester.py)."""
    sets = [(g, load_jsonl(f'{raw}/{g}-w7.jsonl')) for g in W7_GUESTS]
    sets = [(g, rs) for g, rs in sets if rs]
    if not sets:
        return
    s7 = summary['w7'] = {}
    r0 = sets[0][1][0]
    # the inner kernel's release (the same in every guest: bench/run)
    ik = r0.get('inner_kernel', r0['kernel'])
    inner = os.path.basename(os.path.dirname(ik)) if ik.startswith('/') else ik
    md.append('## 7. memtester in a migrated Linux guest (the seed\'s benchmark)\n')
    md.append(textwrap.fill(
        f"A {r0['ram_mib']} MiB Linux guest (Debian's {inner} kernel, an initramfs "
        "with busybox and Debian's memtester: bench/inner-initrd) boots under "
        f"{r0['accel'].upper()} inside the test guest and migrates (precopy) to a destination "
        "QEMU under each case's conditions, then runs `memtester "
        f"{r0['size']} 1` (MEMTESTER_TEST_MASK={r0['mask']}: Stuck Address, then Random "
        "Value), its lines timed as they arrive on the serial port. Take: from the command to "
        "memtester's \"locked.\" (malloc and mlock: the guest kernel faults in and clears every "
        "page, the guest's first writes to that RAM; what the seed timed as consuming the "
        "memory); first pass: from then to memtester's end. Faults, splits, THP % and KVM's "
        "mappings: the destination QEMU's, taken when memtester has locked its memory. "
        "Boot: the source guest's, from start to its /init.", 100) + '\n')
    md.append('| kernel | case | take s | × stock | × no migration | faults per 2 MiB | splits | '
              'THP % of RAM | KVM 2 MiB / 4 KiB | first pass s | × no migration | RAM RSS before '
              'memtester MiB | boot s | migration s | data |')
    md.append('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for g, rows in sets:
        for c in ('stock', 'zero', 'prealloc', 'nozero', 'fresh'):
            rs = [r for r in rows if r['case'] == c]
            if not rs:
                continue
            # the guest's release; raw lines before inner_kernel had the
            # inner kernel's path (.../RELEASE/vmlinux) in its place
            k = rows[0]['kernel']
            e = {'kernel': os.path.basename(os.path.dirname(k)) if k.startswith('/') else k,
                 'n': len(rs),
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
                 'rc': sorted({r['memtester_rc'] for r in rs})}
            s7.setdefault(g, {})[c] = e
            label = case_label(g, c)
            md.append(f"| {kshort(g, e['kernel'])} | {label} | {fmt_stat(e['take_s'])} | "
                      f"{fmt_stat(e['x_stock'])} | {fmt_stat(e['x_fresh'])} | "
                      f"{fmt(e['faults_per_2m'], 1)} | {fmt(e['splits'], 0)} | "
                      f"{fmt(e['thp_pct'], 1)} | {kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k'])} | "
                      f"{fmt_stat(e['first_pass_s'])} | {fmt_stat(e['first_pass_x_fresh'])} | "
                      f"{fmt(e['ram_rss_mib'], 0)} | "
                      f"{fmt_stat(e['boot_s'], 1)} | {fmt_stat(e['migration_s'], 1)} | "
                      f"{'ok' if e['rc'] == [0] else 'memtester rc ' + str(e['rc'])} |")
    md.append('')


# ---------------------------------------------------------------- headline
def goal(m, target, ok, measured=None):
    """One row of the goals table: measured stat m against target; ok(median)
    says met (True), missed (False) or something else (a string). Where the
    median misses but the fastest runs meet it, the row says so."""
    if not m or m.get('median') is None:
        return f'| {target} | - | not measured |'
    v = ok(m['median'])
    if v is False and m.get('fastest') is not None and ok(m['fastest']) is True:
        v = 'missed by the median, met by the fastest runs'
    v = v if isinstance(v, str) else 'met' if v else '**missed**'
    if measured is None:
        measured = fmt_stat(m) + (f"; fastest runs {fmt(m['fastest'])}"
                                  if m.get('fastest') is not None else '')
    return f"| {target} | {measured} | {v} |"


def within_noise(stats):
    """Overhead verdict over several stats (ratios to unloaded): met when
    every median is within 1 %, within noise when every range holds 1."""
    if all(abs(m['median'] - 1) < 0.01 for m in stats):
        return True
    fastest = [m.get('fastest') for m in stats]
    if all(f is not None and f < 1.01 for f in fastest):
        return 'met by the fastest runs (medians within noise)'
    worst = max((f for f in fastest if f is not None), default=None)
    if worst is not None and worst >= 1.05:
        return f'**missed**: the fastest runs {worst:.2f}×'
    if all(m['min'] <= 1 <= m['max'] for m in stats):
        return 'within noise, not < 1 %'
    return False


def headline_kvm(summary):
    """The headline's first tables: workload 5 under KVM, memtester (7),
    and workload 5 under TCG as the secondary table."""
    md = []
    s5 = summary.get('w5', {})
    kvm = [(g, s5[g]) for g in ('kvm', 'kvm-latest') if g in s5]
    cols = ('| kernel | case | write s | × stock | × no migration | faults per 2 MiB | splits | '
            'KVM 2 MiB / 4 KiB | VmRSS after migration MiB | RAM RSS after writes MiB |')

    def rows5(sets):
        out = [cols, '|---|---|---|---|---|---|---|---|---|---|']
        for g, cs in sets:
            for c, e in cs.items():
                label = case_label(g, c)
                out.append(f"| {kshort(g, e['kernel'])} | {label} | {fmt_stat(e['write_s'])} | "
                           f"{fmt_stat(e['x_stock'])} | {fmt_stat(e['x_fresh'])} | "
                           f"{fmt(e['faults_per_2m'], 1)} | {fmt(e['splits'], 0)} | "
                           f"{kvm_cell(e.get('kvm_pages_2m'), e.get('kvm_pages_4k'))} | "
                           f"{fmt(e['dst_rss_mib']['median'], 0)} | "
                           f"{fmt(e.get('ram_rss_after_mib'), 0)} |")
        return out + ['']
    if kvm:
        e0 = next(iter(kvm[0][1].values()))
        md += [textwrap.fill(
            f"Workload 5 under KVM, the production path: a {e0['ram_mib']} MiB guest migrated "
            "(precopy) between two QEMUs running it under KVM inside the test guest (AMD SVM "
            "with nested paging, emulated by TCG), then written one byte per 4 KiB: the "
            "guest's stores are NPT faults that KVM resolves through GUP on the destination's "
            "RAM mapping. Write phase: median (min–max) s, ratios in the same round; KVM's "
            "mappings of the guest's RAM after the writes.", 78) + '\n'] + rows5(kvm)
    after = [e for e in s5.get('after', []) if e.get('accel') == 'KVM']
    if after:
        md += [textwrap.fill(
            "After a postcopy migration under KVM (thpcow zero; the guest wrote all its RAM "
            "before migrating): THPs of the destination's RAM, and KVM's 2 MiB mappings, "
            "% of the eligible 2 MiB ranges.", 78) + '\n',
            '| after completion | THP % at completion → end (s) | KVM 2 MiB % at completion → '
            'end of watch → after the guest touched it all | KVM 2 MiB ≥ 95 % at |',
            '|---|---|---|---|']
        for e in after:
            el = e['eligible'] or 1
            pct = [None if e[k] is None else 100 * e[k] / el for k in
                   ('kvm_2m_completion', 'kvm_2m_end_of_watch', 'kvm_2m_after_check')]
            md.append(f"| {W5_AFTER_LABEL.get((e['after'], e['touch_pct']), e['after'])} | "
                      f"{fmt(e['pct_at_completion'], 1)} → {fmt(e['pct_at_end'], 1)} "
                      f"({fmt(e['end_s'], 0)}) | {' → '.join(fmt(x, 1) for x in pct)} | "
                      + (f"{fmt(e['kvm_2m_95_s'], 1)} s" if e['kvm_2m_95_s'] is not None
                         else 'not during the watch') + ' |')
        md.append('')
    s7 = summary.get('w7', {})
    if s7:
        md += [textwrap.fill(
            "Workload 7, the seed's memtester: a Linux guest migrated under KVM, then "
            "`memtester SIZE 1`: the time to take its memory (malloc and mlock), and its "
            "first pass; the destination's faults and KVM's mappings once it has locked.", 78)
            + '\n',
            '| kernel | case | take s | × stock | × no migration | faults per 2 MiB | '
            'KVM 2 MiB / 4 KiB | first pass s |',
            '|---|---|---|---|---|---|---|---|']
        for g, cs in s7.items():
            for c, e in cs.items():
                label = case_label(g, c)
                md.append(f"| {kshort(g, e['kernel'])} | {label} | {fmt_stat(e['take_s'])} | "
                          f"{fmt_stat(e['x_stock'])} | {fmt_stat(e['x_fresh'])} | "
                          f"{fmt(e['faults_per_2m'], 1)} | "
                          f"{kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k'])} | "
                          f"{fmt_stat(e['first_pass_s'])} |")
        md.append('')
    tcg = [(g, s5[g]) for g in ('6.1', 'latest') if g in s5]
    if tcg and kvm:
        md += ['Workload 5 with the inner QEMUs under TCG (secondary: the destination QEMU\'s '
               'own stores fault):\n'] + rows5(tcg)
    return md


def headline(summary):
    """The README's tables: workload 5 under KVM, memtester, workload 1 at a
    glance and the issue's goals."""
    if not summary:
        return []
    s1 = summary.get('w1', {})
    md = ['## Headline\n'] + headline_kvm(summary) + [
          textwrap.fill('Workload 1, write after read: time of the writes, and of the whole '
                        'process (read phase included), over first touch\'s in the same round; '
                        'median (min–max).', 78) + '\n',
          '| kernel | case | writes × first touch | process × first touch | faults per 2 MiB | '
          'splits | AnonHugePages % | RSS after read MiB |',
          '|---|---|---|---|---|---|---|---|']
    for g in ('6.1', 'latest'):
        for c, e in s1.get(g, {}).items():
            label = W1_LABEL[c] if g == '6.1' or c != 'stock' else 'stock (upstream fix)'
            kshort = e['kernel'].split('-')[0] if g == '6.1' else e['kernel'].split('+')[0]
            md.append(f"| {kshort} | {label} | {fmt_stat(e['x_first_touch'])} | "
                      f"{fmt_stat(e['process_x_first_touch'])} | {fmt(e['faults_per_2m'], 1)} | "
                      f"{fmt(e['thp_split_pmd'], 0)} | {fmt(e['anon_huge_pct'], 1)} | "
                      f"{fmt(e['read_rss_mib'], 0)} |")
    md += ['', 'The goals (Debian 6.1, thpcow zero):\n',
           '| goal | target | measured | |', '|---|---|---|---|']
    z1 = s1.get('6.1', {}).get('zero', {})
    md.append('| 1: writes, zero × first touch ' + goal(z1.get('x_first_touch'), '≤ 1.10',
                                                          lambda x: x <= 1.10))
    md.append('| 1: writes, stock ÷ zero ' + goal(z1.get('stock_over_zero'), '≥ 3',
                                                    lambda x: x >= 3))
    md.append('| 1: splits under zero ' + goal(
        {'median': z1.get('thp_split_pmd'), 'n': 1} if z1 else None, '0', lambda x: x == 0))
    s2 = summary.get('w2', {})
    for n in sorted(s2.get('scale', {})):
        z = s2['scale'][n].get('zero', {}).get('x_first_touch')
        up = s2.get('scale-latest', {}).get(n, {}).get('stock', {}).get('x_first_touch')
        md.append(f'| 2: {n} writer thread{"s" if n > 1 else ""}, zero × first touch '
                  + goal(z, 'like first touch (≤ 1.10)', lambda x: x <= 1.10,
                         fmt_stat(z) + (f"; fastest runs {fmt(z['fastest'])}" if z else '')
                         + (f'; upstream fix on 7.x: {fmt_stat(up)}' if up else '')))
    for t, e in summary.get('w3', {}).items():
        st = [e[k] for k in ('none_x', 'other_x') if e.get(k, {}).get('median') is not None]
        md.append(f'| 3: {W3_LABEL[t]}, loaded × unloaded (no policy; another\'s) '
                  + goal(st[0] if st else None, '< 1 %', lambda _: within_noise(st),
                         '; '.join(fmt_stat(x, 3) + (f" (fastest runs {fmt(x['fastest'], 3)})"
                                                      if x.get('fastest') else '') for x in st)))
    reuse = summary.get('w3', {}).get('reuse', {})
    for k, who in (('none_x', 'no policy'), ('other_x', "another process's policy")):
        md.append(f'| 3: {W3_LABEL["reuse"]}, loaded × unloaded, {who} '
                  + goal(reuse.get(k), '≤ 1.03 (fastest runs)', lambda x: x <= 1.03,
                         fmt_stat(reuse.get(k), 3) + (f" (fastest runs {fmt(reuse[k]['fastest'], 3)})"
                                                      if reuse.get(k, {}).get('fastest') else '')))
    for g in ('kvm', '6.1'):
        z5 = summary.get('w5', {}).get(g, {}).get('zero', {})
        f5 = summary.get('w5', {}).get(g, {}).get('fresh', {})
        if z5:
            break
    md.append('| 5: destination RSS after migration, zero × stock '
              + goal(z5.get('rss_x_stock'), '≤ 1.05', lambda x: x <= 1.05,
                     f"{fmt_stat(z5.get('rss_x_stock'), 3)}: "
                     f"{(z5.get('rss_minus_stock_mib') or {}).get('median') or 0:+.1f} MiB"))
    md.append('| 5: write phase, stock ÷ zero '
              + goal(z5.get('stock_over_zero'), '≥ 2', lambda x: x >= 2))
    md.append('| 5: write phase, zero × prealloc=on '
              + goal(z5.get('x_prealloc'), '≤ 1.25', lambda x: x <= 1.25,
                     fmt_stat(z5.get('x_prealloc'))
                     + (f"; fastest runs {fmt(z5['x_prealloc']['fastest'])}"
                        if z5.get('x_prealloc') else '')
                     + (f"; no migration at all: {fmt_stat(f5['x_prealloc'])}"
                        if f5.get('x_prealloc') else '')))
    for stride, what in (('4096', 'everything'), (str(2 << 20), 'one byte per 2 MiB')):
        w6s = summary.get('w6', {}).get(stride, {})
        c6, k6 = w6s.get('copy', {}), w6s.get('stock', {})
        md.append(f'| 6: copy, fork then write {what}, child\'s time × stock '
                  + goal(c6.get('x_stock'), 'a bench line (measured, no target)', lambda _: 'measured',
                         f"{fmt_stat(c6.get('x_stock'))}; its new memory "
                         f"{fmt(c6.get('private_mib'), 1)} MiB vs stock's "
                         f"{fmt(k6.get('private_mib'), 1)} MiB"))
    # KVM's runs where there are both (they come first)
    after = {(e['after'], e['touch_pct']): e for e in reversed(summary.get('w5', {}).get('after', []))}
    kh, co, co10 = (after.get(k) for k in (('khugepaged', 100), ('collapse', 100),
                                           ('collapse', 10)))
    if co:
        md.append('| 5, collapse: after postcopy, THPs on ≥ 95 % of the eligible ranges, collapse '
                  '--await-postcopy ' + goal(
                      {'median': co['t95_s'] if co['t95_s'] is not None else float('inf')},
                      'within seconds', lambda x: x <= 60,
                      (f"{fmt(co['t95_s'], 1)} s" if co['t95_s'] is not None else
                       f"> {fmt(co['end_s'], 0)} s")
                      + f"; {fmt(co['pct_at_end'], 1)} % at {fmt(co['end_s'], 0)} s; data "
                      + co['verify']
                      + (f"; khugepaged's defaults: {fmt(kh['pct_at_end'], 1)} % at "
                         f"{fmt(kh['end_s'], 0)} s" if kh else '')))
        md.append('| 5, collapse: RSS growth by the collapse ' + goal(
            {'median': co['rss_growth_pct']}, '≤ 2 %', lambda x: x <= 2,
            f"{fmt(co['rss_growth_pct'], 2)} %"))
        md.append("| 5, collapse: guest's writes while the collapse runs × khugepaged's run "
                  + goal({'median': co['write_x_khugepaged']}, 'a bench line',
                         lambda _: 'measured', fmt(co['write_x_khugepaged'])))
    if co10:
        md.append('| 5, collapse: guest that touched 10 % of its RAM, RSS growth by the collapse '
                  + goal({'median': co10['rss_growth_pct']}, 'within 2 %',
                         lambda x: abs(x) <= 2,
                         f"{fmt(co10['rss_growth_pct'], 2)} %: {fmt(co10['rss_completion_mib'], 1)}"
                         f" → {fmt(co10['rss_end_mib'], 1)} MiB; data {co10['verify']}"))
    md.append('')
    return md


def plot_w5(s5, ram):
    rows = []
    for g in ('6.1', 'latest'):
        for c, e in s5.get(g, {}).items():
            name = {'stock': 'stock', 'zero': 'thpcow zero', 'prealloc': 'prealloc=on',
                    'nozero': 'use_zero_page=0', 'fresh': 'no migration'}[c]
            if g == 'latest':
                name += ' (7.x)'
            rows.append(f'"{name}" {e["write_s"]["median"]} {e["write_s"]["min"]} '
                        f'{e["write_s"]["max"]} {e["dst_rss_mib"]["median"]}')
    data = '\n'.join(rows)
    return f"""
set terminal pngcairo size 1000,480 font ',10' noenhanced
set multiplot layout 1,2 title "Live migration of a {ram} MiB guest, then one write per 4 KiB (destination on Debian 6.1 unless 7.x; QEMU TCG)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set xtics rotate by -30
set grid ytics
set ylabel 'write phase, s (median, min-max)'
set yrange [0:*]
plot '-' using 2:3:4:xtic(1) notitle lc rgb '#4477aa'
{data}
e
set ylabel 'destination VmRSS right after migration, MiB'
set style histogram clustered
plot '-' using 5:xtic(1) notitle lc rgb '#cc6677'
{data}
e
unset multiplot
"""


def plot_w1(s1):
    rows = []
    for g in ('6.1', 'latest'):
        for c, e in s1.get(g, {}).items():
            name = {'stock': 'stock', 'zero': 'thpcow zero', 'first-touch': 'first touch',
                    'nozero': 'use_zero_page=0'}[c]
            name += ' (7.x)' if g == 'latest' else ' (6.1)'
            x = e['x_first_touch']
            p = e['process_x_first_touch']
            rows.append(f'"{name}" {x["median"]} {x["min"]} {x["max"]} '
                        f'{p["median"]} {p["min"]} {p["max"]}')
    data = '\n'.join(rows)
    return f"""
set terminal pngcairo size 900,480 font ',11' noenhanced
set title "Write after read, 1 byte per 4 KiB after 1 read per 2 MiB: time / first touch's (QEMU TCG)"
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set xtics rotate by -20
set grid ytics
set yrange [0:*]
set ylabel 'x first touch (median, min-max)'
plot '-' using 2:3:4:xtic(1) title 'write phase' lc rgb '#4477aa', \\
     '-' using 5:6:7 title 'whole process (read phase too)' lc rgb '#ddaa33'
{data}
e
{data}
e
"""


def plot_w2(s2all):
    series = []
    for g, s2 in s2all.items():
        for c in ('stock', 'zero', 'first-touch'):
            pts = [(n, e[c]['mib_per_s']['median']) for n, e in sorted(s2.items()) if c in e]
            if not pts:
                continue
            name = {'stock': 'stock', 'zero': 'thpcow zero', 'first-touch': 'first touch'}[c]
            name += ' (7.x)' if g == 'scale-latest' else ' (6.1)'
            if g == 'scale-latest' and c == 'stock':
                name = 'upstream fix (7.x)'
            series.append((name, '\n'.join(f'{n} {v}' for n, v in pts),
                           'dashtype 2' if g == 'scale-latest' else 'dashtype 1'))
    plots = ', '.join(f"'-' using 1:2 with linespoints lw 2 {dt} title \"{name}\""
                      for name, _, dt in series)
    return f"""
set terminal pngcairo size 800,480 font ',11' noenhanced
set title "Writers, each on its own read-mapped slice (4 vCPUs on 2 host cores, TCG)"
set xlabel 'writer threads'
set ylabel 'MiB of region written per second (log)'
set xtics (1, 2, 4)
set logscale xy 2
set grid
set key bottom left
plot {plots}
""" + ''.join(d + '\ne\n' for _, d, _ in series)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'results')
    raw = os.path.join(out, 'raw')
    summary, md, plots = {}, [], []
    meta = {}
    for f in sorted(glob.glob(f'{raw}/*.meta.json')):
        with open(f) as fh:
            meta[os.path.basename(f)[:-len('.meta.json')]] = json.load(fh)
    md.append('# thpcow benchmark (make bench)\n')
    guests = [m for k, m in meta.items() if k != 'total']
    if guests:
        gd = os.path.join(raw, 'git-describe')
        rev = open(gd).read().strip() if os.path.exists(gd) else '?'
        # the last run's guests: those that ended within its time of the
        # last one (bench/run --only keeps the others' raw results)
        # (total.meta.json names them; before it did, those that ended
        # within its time of the last one)
        last = max(m['date'] for m in guests)
        span = meta.get('total', {}).get('seconds')
        if 'guests' in meta.get('total', {}):
            ran = [g for g in meta['total']['guests'].split(',') if g in meta]
        else:
            ran = [m['guest'] for m in guests if span is not None and
                   (datetime.datetime.fromisoformat(last[:-1]) -
                    datetime.datetime.fromisoformat(m['date'][:-1])).total_seconds() <= span + 60]
        kept = [m for m in guests if m['guest'] not in ran]
        md.append(f"Source {rev}; guests under QEMU TCG (`-cpu max,-erms,-fsrm`) on a 2-core "
                  f"host. Host load average (1, 5, 15 min) when each guest started → ended: "
                  + '; '.join(f"{m['guest']} {m['load_before']} → {m['load_after']} "
                              f"({m['seconds']} s, {m['date'][:10]}{', quick' if m.get('quick') else ''}"
                              f"{', FAILED' if m.get('status') else ''})" for m in guests)
                  + (f"; the last run ({', '.join(ran)}) {span} s" if ran else '')
                  + (f". The other guests' results ({', '.join(m['guest'] for m in kept)}) are "
                     "from earlier runs (`bench/run --only` keeps them), of earlier sources: "
                     "compare ratios within a guest, not across runs." if ran and kept else '.')
                  + '\n')
    intro = len(md)
    w1(raw, summary, md)
    if 'w1' in summary:
        plots.append(('w1-write-after-read.png', plot_w1(summary['w1'])))
    w2(raw, summary, md)
    if 'w2' in summary:
        plots.append(('w2-scaling.png', plot_w2(summary['w2'])))
    w3(raw, summary, md)
    w4(raw, summary, md, plots)
    w5(raw, summary, md, plots)
    w6(raw, summary, md)
    w7(raw, summary, md)
    md[intro:intro] = headline(summary)
    if plots:
        md.append('Plots: ' + ', '.join(f'`{p}`' for p, _ in plots) + '.\n')
    text = '\n'.join(md)
    with open(os.path.join(out, 'results.md'), 'w') as f:
        f.write(text)
    rawdata = {os.path.basename(p)[:-len('.jsonl')]: load_jsonl(p)
               for p in sorted(glob.glob(f'{raw}/*.jsonl'))}
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump({'meta': meta, 'summary': summary, 'raw': rawdata}, f, indent=1)
    if shutil.which('gnuplot'):
        for name, script in plots:
            with tempfile.NamedTemporaryFile('w', suffix='.gp') as gp:
                gp.write(f"set output '{os.path.join(out, name)}'\n" + script)
                gp.flush()
                r = subprocess.run(['gnuplot', gp.name], capture_output=True, text=True)
                if r.returncode:
                    sys.stderr.write(f'report.py: gnuplot {name}: {r.stderr}')
    print(text)


if __name__ == '__main__':
    main()
