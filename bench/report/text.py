# SPDX-License-Identifier: GPL-2.0
"""What the renderers share: number formats, case labels, markdown tables."""
import textwrap


def fmt(x, nd=2):
    """A number as the tables show it: ints with thin groups, floats with nd
    decimals (nd may also be a format spec such as '+.1f'), None as '-'."""
    if x is None:
        return '-'
    if isinstance(nd, str):
        return format(x, nd)
    if isinstance(x, int):
        return f'{x:,}'.replace(',', ' ')
    return f'{x:.{nd}f}'


def fmt_stat(s, nd=2):
    """A stat (summary.stat) as 'median (min–max)', or the value of one run."""
    if not s or s['median'] is None:
        return '-'
    if s['n'] == 1:
        return fmt(s['median'], nd)
    return f"{fmt(s['median'], nd)} ({fmt(s['min'], nd)}–{fmt(s['max'], nd)})"


def table(head, rows):
    """A markdown table, then a blank line: head and rows are lists of cells."""
    return (['| ' + ' | '.join(head) + ' |', '|' + '---|' * len(head)]
            + ['| ' + ' | '.join(r) + ' |' for r in rows] + [''])


def caption(text, anchor=None, width=None):
    """A paragraph under a section's title, wrapped at width if given, ending
    with a link to bench/README.md's explanation of the columns at anchor."""
    if anchor:
        text += f' The columns: [bench/README.md](../README.md#{anchor}).'
    return (textwrap.fill(text, width) if width else text) + '\n'


def each_case(guests):
    """(guest, case, entry) of a {guest: {case: entry}} summary, in order."""
    for g, cs in guests.items():
        for c, e in cs.items():
            yield g, c, e


CASE_LABEL = {'stock': "stock (kernel's own path)", 'zero': '**thpcow zero**', 'pool': '**zero + pool**',
              'first-touch': 'first touch (no read: the floor)', 'nozero': 'use_zero_page=0',
              'prealloc': 'prealloc=on', 'fresh': 'no migration (the floor)'}
# workload 5's and 7's name of stock, where the migration is the point
MIG_LABEL = dict(CASE_LABEL, stock='stock')
# the guests on the upstream-fixed kernel
UPSTREAM = ('latest', 'kvm-latest', 'scale-latest')


def case_label(g, c, labels=CASE_LABEL):
    """The name of case c in guest g."""
    return 'stock (upstream fix)' if g in UPSTREAM and c == 'stock' else labels[c]


def kshort(g, kernel):
    """6.1.0 or 7.3.4: the kernel's series as the tables show it."""
    return kernel.split('+')[0] if g in UPSTREAM else kernel.split('-')[0]


def kvm_cell(p2m, p4k):
    """KVM's 2 MiB / 4 KiB mappings of the guest's RAM, or - under TCG."""
    if p2m is None:
        return '-'
    return f'{fmt(int(p2m))} / {fmt(int(p4k))}'


AFTER_LABEL = {'khugepaged': 'khugepaged (defaults)',
               'collapse': '**thpcowctl collapse --await-postcopy**',
               'collapse-10pct': 'thpcowctl collapse, guest touched 10 %'}

W3_LABEL = {'fault4k': '4 KiB anonymous first-touch fault',
            'reuse': 'write fault on a private THP after fork (reused)',
            'cow': 'write fault on a THP shared with a child (split + CoW)',
            'fork': 'fork + exit + wait'}


def pool_table(guests):
    """thpcow's pool in a workload's zero + pool runs (summary.pool): a
    caption and a table, or [] when no run had the pool."""
    rows = [[kshort(g, e['kernel']), fmt(p['pool_mib']), fmt(p['target'], 0), fmt_stat(p['fill_s'], 1),
             fmt(p['hits'], 0), fmt(p['misses'], 0), fmt(p['refilled_gib']),
             fmt_stat(p['cpu_s_per_gib']), fmt_stat(p['refill_s_per_gib'])]
            for g, _, e in each_case(guests) for p in [e.get('pool')] if p]
    if not rows:
        return []
    return [caption(
        "thpcow's pool in the zero + pool runs (per run, median (min–max)): pool_mib per node, "
        'the THPs it held when full, the seconds to fill it before the run, hits and misses '
        'during the run, the GiB the refill threads put in it (the fill and the refills '
        "after hits), and their CPU time and wall time per GiB.", 'thpcows-pool')] + table(
        ['kernel', 'pool_mib', 'THPs when full', 'fill s', 'hits', 'misses', 'refilled GiB',
         'refill CPU s per GiB', 'refill wall s per GiB'], rows)


def skipped_lines(skipped, labels=CASE_LABEL):
    """A line for each case a guest skipped, saying why (no measurement)."""
    return [f"Not measured: {labels[c].strip('*')} in guest `{g}`: {why}\n"
            for g, cs in skipped.items() for c, why in cs.items()]
