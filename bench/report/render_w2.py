# SPDX-License-Identifier: GPL-2.0
"""Workload 2, scaling with writer threads: its table and w2-scaling.png."""
from .text import caption, case_label, fmt, fmt_stat, kshort, table

TITLE = '## 2. Scaling: writer threads\n'


def render(s):
    sl = s['slices_mib']
    md = [TITLE, caption(
        "N writer threads, each on its own read-mapped slice of "
        f"{'/'.join(map(str, sl['zero'] or sl['first-touch']))} MiB (stock's: "
        f"{'/'.join(map(str, sl['stock']))} MiB when N > 1 on 6.1), 4 vCPUs on 2 host cores. "
        'MiB of region per second and ratios to first touch in the same round, median '
        '(min–max).', '2-scaling-writer-threads')]
    rows = []
    for g, k in s['guests'].items():
        for n, e in k['threads'].items():
            for c, x in e['cases'].items():
                rows.append([kshort(g, k['kernel']), n, case_label(g, c),
                             fmt_stat(x['mib_per_s'], 0), fmt_stat(x['x_first_touch']),
                             fmt(x.get('scaling')), fmt(x['faults_per_2m'], 1),
                             fmt(x['tlb_per_2m'], 1), fmt(x['splits_per_2m'], 2)])
    md += table(['kernel', 'threads', 'case', 'MiB/s', '× floor', 'scaling', 'faults per 2 MiB',
                 'TLB shootdowns per 2 MiB', 'splits per 2 MiB'], rows)
    return md, [('w2-scaling.png', plot(s['guests']))]


def plot(guests):
    series = []
    for g, k in guests.items():
        for c in ('stock', 'zero', 'first-touch'):
            pts = [(n, e['cases'][c]['mib_per_s']['median'])
                   for n, e in k['threads'].items() if c in e['cases']]
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
