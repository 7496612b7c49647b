# SPDX-License-Identifier: GPL-2.0
"""Workload 6, mode copy after fork: its table."""
from .text import caption, fmt, fmt_stat, table

TITLE = '## 6. Mode copy: fork, then write\n'


def writes(stride):
    """What the child writes, from its stride in bytes."""
    if stride == 4096:
        return 'every 4 KiB'
    return f'one per {stride // 1024 // 1024} MiB' if stride % 2**20 == 0 else f'one per {stride} B'


def render(s):
    md = [TITLE, caption(
        f"bench/prog/faultbench forkwrite: a parent first-touches {s['size_mib']} MiB of THPs "
        "and forks, the child writes. The child's write time per pass, median (min–max), and "
        'ratios in the same round.', '6-mode-copy-fork-then-write')]
    rows = []
    for stride, cs in s['strides'].items():
        for c, e in cs.items():
            rows.append([writes(int(stride)), '**copy**' if c == 'copy' else 'stock',
                         fmt_stat(e['write_s'], 3), fmt_stat(e['x_stock']),
                         fmt(e['faults_per_2m'], 1), fmt(e['private_mib'], 1),
                         fmt(e['anon_huge_pct'], 1)])
    md += table(['writes', 'case', 'child write s', '× stock', 'faults per 2 MiB',
                 'child Private MiB', 'child AnonHugePages %'], rows)
    return md, []
