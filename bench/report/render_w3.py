# SPDX-License-Identifier: GPL-2.0
"""Workload 3, overhead for processes without a policy: its table."""
from .text import W3_LABEL, caption, fmt, fmt_stat, table

TITLE = '## 3. Overhead for everyone else\n'


def render(s):
    md = [TITLE, caption(
        'bench/prog/faultbench, each run\'s fastest iteration; ratios to "unloaded" in the same '
        'round, median (min–max); "mean-based" uses all iterations.'
        + (' Guest time in instructions (QEMU -icount): "µs" are thousands of guest '
           'instructions.' if s['icount'] else ''), '3-overhead-for-everyone-else')]
    rows = []
    for t, e in s['tests'].items():
        rows.append([W3_LABEL[t], fmt_stat(e['unloaded_us'], 1), fmt_stat(e['none_x'], 3),
                     fmt_stat(e['other_x'], 3), fmt_stat(e['many_x'], 3),
                     ', '.join(fmt(e[k]['median'], 3)
                               for k in ('mean_none_x', 'mean_other_x', 'mean_many_x'))])
    md += table(['test', 'unloaded µs per op', 'loaded, no policy × unloaded',
                 "loaded, another process's policy × unloaded",
                 "loaded, 1000 other processes' policies × unloaded",
                 "mean-based: no policy, other's, 1000 others'"], rows)
    return md, []
