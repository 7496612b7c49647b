# SPDX-License-Identifier: GPL-2.0
"""Workload 4, khugepaged as the alternative: its table and w4-khugepaged.png."""
from .text import caption, fmt, table

TITLE = '## 4. khugepaged as the alternative\n'


def t100(e):
    if e['t100'] is not None:
        return fmt(e['t100'], 1)
    if e.get('t100_extrapolated'):
        return f"> {fmt(e['last_t'], 0)} (≈ {fmt(e['t100_extrapolated'], 0)} at this rate)"
    return f"> {fmt(e['last_t'], 0)}"


def render(s):
    md = [TITLE, caption(
        f"AnonHugePages of the {s['size_mib']} MiB region over time from the start of the "
        'writes; "tuned" lowers scan_sleep_millisecs only.', '4-khugepaged-as-the-alternative')]
    rows = []
    for c, e in s['cases'].items():
        rows.append([c, str(e['scan_sleep_ms']), fmt(e['write_s']), fmt(e['pct_at_write_end'], 1),
                     fmt(e['t50'], 1) if e['t50'] is not None else '> ' + fmt(e['last_t'], 0),
                     t100(e), f"{fmt(e['last_pct'], 1)} ({fmt(e['last_t'], 0)} s)",
                     str(e['collapses']), fmt(e['rate_mib_per_min'], 1)])
    md += table(['case', 'scan_sleep_millisecs', 'write phase s', 'THP % at end of writes',
                 'time to 50 %', 'time to 100 %', 'THP % at the last sample (t)', 'collapses',
                 'rate after writes, MiB/min'], rows)
    return md, [('w4-khugepaged.png', plot(s['cases'], s['size_mib']))]


def plot(s4, size):
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
