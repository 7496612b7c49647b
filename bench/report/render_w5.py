# SPDX-License-Identifier: GPL-2.0
"""Workload 5, QEMU live migration: its tables (precopy, postcopy, after
postcopy), w5-migration.png and w5-collapse.png."""
from .text import (AFTER_LABEL, MIG_LABEL, caption, case_label, each_case, fmt, fmt_stat, kshort, kvm_cell,
                   pool_table, skipped_lines, table)

TITLE = '## 5. QEMU live migration, end to end\n'


def precopy(s):
    md = [caption(
        f"A {' or '.join(map(str, s['rams_mib']))} MiB guest with no OS migrated between two "
        'QEMUs inside the test guest, under KVM or TCG, then written one byte per 4 KiB. '
        'Write phase: median (min–max) seconds, and ratios in the same round.',
        '5-qemu-live-migration-end-to-end')]
    rows = [[kshort(g, e['kernel']), e['accel'], str(e['ram_mib']), case_label(g, c, MIG_LABEL),
             fmt_stat(e['dst_rss_mib'], 0), fmt_stat(e['dst_ram_rss_mib'], 0), fmt_stat(e['write_s']),
             fmt_stat(e['x_stock']), fmt_stat(e['x_prealloc']), fmt_stat(e['x_fresh']),
             fmt(e['faults_per_2m'], 1), fmt(e['splits'], 0), fmt(e['thp_pct_after'], 1),
             kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k']), fmt_stat(e['migration_s'], 1),
             fmt_stat(e['dst_start_s'], 1)]
            for g, c, e in each_case(s['precopy'])]
    return md + table(['kernel', 'inner', 'MiB', 'case', 'VmRSS after migration MiB', 'RAM RSS MiB',
                       'write s', '× stock', '× prealloc', '× no migration', 'faults per 2 MiB',
                       'splits', 'THP % after', 'KVM 2 MiB / 4 KiB', 'migration s',
                       'destination start s'], rows) + pool_table(s['precopy']) + skipped_lines(
        s['skipped'], MIG_LABEL)


def postcopy(s):
    if not s['postcopy']:
        return []
    md = [caption(
        'Postcopy, switched to as soon as the migration was active (max-postcopy-bandwidth '
        f"{s['postcopy_bandwidth_kib']} KiB/s): the guest writes while the destination still "
        'has pages missing.')]
    rows = []
    for r in s['postcopy']:
        rows.append([r['inner'], r['case'],
                     f"{r.get('src_status_at_write')} / {r.get('src_status_after_write')}",
                     fmt(r['write_s']), fmt(r['write_faults_per_2m'], 1), fmt(r['after_thp_pct'], 1),
                     str(r.get('migration_ram', {}).get('postcopy-requests')),
                     ', '.join(f'{k} {v}' for k, v in r.get('thpcow_stats', {}).items()) or '-',
                     r['verify'],
                     f"{fmt(r.get('after_write_s'))}, {fmt(r.get('after_write_faults_per_2m'), 1)}"])
    return md + table(['inner', 'case', 'source state when writes began / ended', 'write s',
                       'faults per 2 MiB', 'THP % after', 'postcopy requests',
                       'thpcow counters during the run', 'data',
                       'after completion: write s, faults per 2 MiB'], rows)


def after_rows(s):
    return [e for runs in s['after'].values() for e in runs.values()]


def after(s):
    runs = after_rows(s)
    if not runs:
        return []
    md = [caption(
        "After a postcopy migration (6.1, thpcow zero; the source guest wrote its RAM first): "
        "THPs of the destination's RAM from completion, with khugepaged's defaults or "
        '`thpcowctl collapse --await-postcopy 600 --min-present 502`, the guest writing for '
        f"the first {fmt(runs[0]['write_window_s'], 0)} s.", '5-after-a-postcopy-migration')]
    rows = []
    for e in runs:
        t95 = fmt(e['t95_s'], 1) + ' s' if e['t95_s'] is not None else f"> {fmt(e['end_s'], 0)} s"
        kvm = ('-' if not e['kvm'] else ', '.join(fmt(e[k]) for k in (
            'kvm_2m_completion', 'kvm_2m_max', 'kvm_2m_end_of_watch', 'kvm_2m_after_check')))
        k95 = ('-' if not e['kvm'] else fmt(e['kvm_2m_95_s'], 1) + ' s'
               if e['kvm_2m_95_s'] is not None else f"> {fmt(e['kvm_watch_end_s'], 0)} s")
        x = e['write_x_khugepaged']
        c = e['collapse']
        rows.append([e['accel'], AFTER_LABEL.get(e['run'], e['run']),
                     str(e['eligible']), fmt(e['pct_at_completion'], 1), t95,
                     f"{fmt(e['pct_at_end'], 1)} ({fmt(e['end_s'], 0)})",
                     fmt(e['collapse_mib_per_s'], 1) if c else '-',
                     fmt(e['collapse_waited_s'], 1) + (' (yes)' if e['postcopy_seen'] else ' (no)')
                     if c else '-',
                     f"{fmt(e['rss_completion_mib'], 1)} → {fmt(e['rss_end_mib'], 1)}",
                     fmt(e['rss_growth_pct'], 2),
                     fmt(e['write_mib_per_s'], 0) + (' (' + fmt(x) + ')' if x else ''),
                     kvm, k95, e['verify']])
    return md + table(['inner', 'case', 'eligible ranges', 'THP % of eligible at completion',
                       'time to ≥ 95 %', 'THP % of eligible at the end (s)', 'collapse MiB/s',
                       'collapse waited s (postcopy seen)', 'RAM RSS MiB at completion → end',
                       'RSS growth %', 'guest writes MiB/s (× khugepaged case)',
                       'KVM 2 MiB mappings: completion, max, end, after the data check',
                       'KVM 2 MiB ≥ 95 % at', 'data'], rows)


def render(s):
    md = [TITLE] + precopy(s) + postcopy(s) + after(s)
    plots = [('w5-migration.png', plot_migration(s['precopy'], s['rams_mib'][-1]))]
    runs = after_rows(s)
    if runs:
        plots.append(('w5-collapse.png', plot_collapse(runs, runs[0]['ram_mib'])))
    return md, plots


def plot_migration(pre, ram):
    rows = []
    for g in ('6.1', 'latest'):
        for c, e in pre.get(g, {}).items():
            name = {'stock': 'stock', 'zero': 'thpcow zero', 'pool': 'zero + pool', 'prealloc': 'prealloc=on',
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


def plot_collapse(runs, ram):
    names = {'khugepaged': 'khugepaged (defaults)', 'collapse': 'thpcowctl collapse --await-postcopy',
             'collapse-10pct': 'collapse, guest touched 10 %'}
    curves = []  # (title, dash, samples)
    for e in runs:
        name = f"{names.get(e['run'], e['run'])} ({e['accel']})"
        curves.append((f'THPs, {name}', 1, e['samples']))
        if e['kvm_samples']:
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
