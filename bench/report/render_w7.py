# SPDX-License-Identifier: GPL-2.0
"""Workload 7, memtester in a migrated Linux guest: its table."""
from .text import (MIG_LABEL, caption, case_label, each_case, fmt, fmt_stat, kshort, kvm_cell, pool_table,
                   skipped_lines, table)

TITLE = "## 7. memtester in a migrated Linux guest (the seed's benchmark)\n"


def render(s):
    i = s['inner']
    md = [TITLE, caption(
        f"A {i['ram_mib']} MiB Linux guest (Debian's {i['kernel']} kernel) boots under "
        f"{i['accel'].upper()} inside the test guest, migrates (precopy) to each case's "
        f"destination and runs `memtester {i['size']} 1` (MEMTESTER_TEST_MASK={i['mask']}), "
        f"{s['rounds']} round{'s' if s['rounds'] > 1 else ''}, the cases interleaved in an order rotated each round. "
        'Take: to memtester\'s "locked."; first pass: from then to its end. Seconds and ratios '
        'in the same round: median (min–max) over the rounds.',
        '7-memtester-in-a-migrated-linux-guest')]
    rows = [[kshort(g, e['kernel']), case_label(g, c, MIG_LABEL), str(e['n']), fmt_stat(e['take_s']),
             fmt_stat(e['x_stock']), fmt_stat(e['x_fresh']), fmt(e['faults_per_2m'], 1),
             fmt(e['splits'], 0), fmt(e['thp_pct'], 1), kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k']),
             fmt_stat(e['first_pass_s']), fmt_stat(e['first_pass_x_fresh']), fmt(e['ram_rss_mib'], 0),
             fmt_stat(e['boot_s'], 1), fmt_stat(e['migration_s'], 1),
             'ok' if e['rc'] == [0] else 'memtester rc ' + str(e['rc'])]
            for g, c, e in each_case(s['guests'])]
    md += table(['kernel', 'case', 'runs', 'take s', '× stock', '× no migration', 'faults per 2 MiB',
                 'splits', 'THP % of RAM', 'KVM 2 MiB / 4 KiB', 'first pass s', '× no migration',
                 'RAM RSS before memtester MiB', 'boot s', 'migration s', 'data'], rows)
    return md + pool_table(s['guests']) + skipped_lines(s['skipped'], MIG_LABEL), []
