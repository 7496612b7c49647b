# SPDX-License-Identifier: GPL-2.0
"""Workload 1, write after read: its table and w1-write-after-read.png."""
from .text import caption, case_label, each_case, fmt, fmt_stat, kshort, pool_table, skipped_lines, table

TITLE = "## 1. Write after read (the seed's mechanism)\n"


def render(s):
    md = [TITLE, caption(
        f"{s['size_mib']} MiB read one byte per 2 MiB, then written one byte per 4 KiB. "
        'Seconds and ratios to first touch in the same round, median (min–max).',
        '1-write-after-read')]
    rows = [[kshort(g, e['kernel']), case_label(g, c), fmt_stat(e['write_s']),
             fmt_stat(e['x_first_touch']), fmt_stat(e['process_x_first_touch']),
             fmt(e['faults_per_2m'], 1), fmt(e['thp_split_pmd'], 0),
             fmt(e['anon_huge_pct'], 1), fmt(e['read_rss_mib'], 0)]
            for g, c, e in each_case(s['guests'])]
    md += table(['kernel', 'case', 'write s', '× floor', 'process × floor', 'faults per 2 MiB',
                 'splits', 'AnonHugePages %', 'RSS after read MiB'], rows)
    md += pool_table(s['guests']) + skipped_lines(s['skipped'])
    return md, [('w1-write-after-read.png', plot(s['guests']))]


def plot(guests):
    rows = []
    for g in ('6.1', 'latest'):
        for c, e in guests.get(g, {}).items():
            name = {'stock': 'stock', 'zero': 'thpcow zero', 'pool': 'zero + pool', 'first-touch': 'first touch',
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
