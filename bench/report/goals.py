# SPDX-License-Identifier: GPL-2.0
"""thpcow's goals as data: each names a metric of the summary (a path
into it), a target (as the table shows it) and a predicate that judges the
measured value; render() evaluates them all into one table.

A predicate gets the list of the goal's measured values (summary stats,
or plain numbers as {'median': x, 'n': 1}) and returns True (met), False
(missed) or a sentence (a verdict in between); None marks a bench line, a
value measured with no target."""
from typing import Callable, NamedTuple, Optional

from .text import W3_LABEL, fmt, fmt_stat, table


class Goal(NamedTuple):
    name: str
    metrics: tuple      # ((label, path), ...): label '' when there is one
    target: str
    predicate: Optional[Callable]
    context: tuple = ()  # ((template with {}, path[, nd]), ...): shown, not judged
    nd: object = 2       # decimals (or a format spec) of the measured values
    unit: str = ''
    unreached: str = ''  # what a measured None means (judged missed); else not measured


def bound(ok):
    """Met when ok(median) holds; where the median misses but the fastest
    runs (stats.rstat) meet it, the verdict says so."""
    def judge(ms):
        m = ms[0]
        if ok(m['median']):
            return True
        if m.get('fastest') is not None and ok(m['fastest']):
            return 'missed by the median, met by the fastest runs'
        return False
    return judge


def at_most(x):
    return bound(lambda v: v <= x)


def at_least(x):
    return bound(lambda v: v >= x)


def within_noise(ms):
    """Overhead verdict over several ratios to unloaded: met when every
    median is within 1 %, within noise when every range holds 1."""
    if all(abs(m['median'] - 1) < 0.01 for m in ms):
        return True
    fastest = [m.get('fastest') for m in ms]
    if all(f is not None and f < 1.01 for f in fastest):
        return 'met by the fastest runs (medians within noise)'
    worst = max((f for f in fastest if f is not None), default=None)
    if worst is not None and worst >= 1.05:
        return f'**missed**: the fastest runs {worst:.2f}×'
    if all(m['min'] <= 1 <= m['max'] for m in ms):
        return 'within noise, not < 1 %'
    return False


def one(path):
    return (('', path),)


W1 = ('w1', 'guests', '6.1')
W5_GUESTS = (('kvm', 'KVM'), ('6.1', 'TCG'))  # workload 5 on 6.1, inner QEMUs under KVM or TCG

GOALS = [
    Goal('1: writes, zero × first touch', one(W1 + ('zero', 'x_first_touch')), '≤ 1.10', at_most(1.10)),
    Goal('1: writes, stock ÷ zero', one(W1 + ('zero', 'stock_over_zero')), '≥ 3', at_least(3)),
    Goal('1: splits under zero', one(W1 + ('zero', 'thp_split_pmd')), '0', bound(lambda v: v == 0), nd=0),
] + [
    Goal(f'2: {n} writer thread{"s" if n != "1" else ""}, zero × first touch',
         one(('w2', 'guests', 'scale', 'threads', n, 'cases', 'zero', 'x_first_touch')),
         'like first touch (≤ 1.10)', at_most(1.10),
         context=(('upstream fix on 7.x: {}',
                   ('w2', 'guests', 'scale-latest', 'threads', n, 'cases', 'stock', 'x_first_touch')),))
    for n in ('1', '2', '4')
] + [
    Goal(f'3: {label}, loaded × unloaded',
         (('no policy', ('w3', 'tests', t, 'none_x')), ("another's", ('w3', 'tests', t, 'other_x'))),
         '< 1 %', within_noise, nd=3)
    for t, label in W3_LABEL.items()
] + [
    Goal(f'3: {W3_LABEL["reuse"]}, loaded × unloaded, {who}', one(('w3', 'tests', 'reuse', k)),
         '≤ 1.03 (fastest runs)', at_most(1.03), nd=3)
    for k, who in (('none_x', 'no policy'), ('other_x', "another process's policy"))
] + [
    goal for g, accel in W5_GUESTS for goal in (
        Goal(f'5 ({accel}): destination RSS after migration, zero × stock',
             one(('w5', 'precopy', g, 'zero', 'rss_x_stock')), '≤ 1.05', at_most(1.05), nd=3,
             context=(('{} MiB', ('w5', 'precopy', g, 'zero', 'rss_minus_stock_mib', 'median'), '+.1f'),)),
        Goal(f'5 ({accel}): write phase, stock ÷ zero', one(('w5', 'precopy', g, 'zero', 'stock_over_zero')),
             '≥ 2', at_least(2)),
        Goal(f'5 ({accel}): write phase, zero × prealloc=on', one(('w5', 'precopy', g, 'zero', 'x_prealloc')),
             '≤ 1.25', at_most(1.25),
             context=(('no migration at all: {}', ('w5', 'precopy', g, 'fresh', 'x_prealloc')),)),
        Goal(f'5 ({accel}): write phase, zero + pool × prealloc=on',
             one(('w5', 'precopy', g, 'pool', 'x_prealloc')), '≤ 1.25', at_most(1.25),
             context=(('zero: {}', ('w5', 'precopy', g, 'zero', 'x_prealloc')),)),
        Goal(f'5 ({accel}): write phase, zero + pool × no migration (the floor)',
             one(('w5', 'precopy', g, 'pool', 'x_fresh')), '< 1', bound(lambda v: v < 1),
             context=(('zero: {}', ('w5', 'precopy', g, 'zero', 'x_fresh')),)),
        Goal(f'5 ({accel}): destination RSS after migration, zero + pool × stock',
             one(('w5', 'precopy', g, 'pool', 'rss_x_stock')), '≤ 1.05', at_most(1.05), nd=3,
             context=(('{} MiB', ('w5', 'precopy', g, 'pool', 'rss_minus_stock_mib', 'median'), '+.1f'),)),
        Goal(f"5 ({accel}): the pool's refill, CPU time per GiB",
             one(('w5', 'precopy', g, 'pool', 'pool', 'cpu_s_per_gib')), 'a bench line', None, unit=' s',
             context=(('wall time {} s per GiB', ('w5', 'precopy', g, 'pool', 'pool', 'refill_s_per_gib')),)))
] + [
    Goal(f"6: copy, fork then write {what}, child's time × stock",
         one(('w6', 'strides', stride, 'copy', 'x_stock')), 'a bench line (measured, no target)', None,
         context=(('its new memory {} MiB', ('w6', 'strides', stride, 'copy', 'private_mib'), 1),
                  ("stock's {} MiB", ('w6', 'strides', stride, 'stock', 'private_mib'), 1)))
    for stride, what in (('4096', 'everything'), (str(2 << 20), 'one byte per 2 MiB'))
] + [
    goal for g, accel in W5_GUESTS for goal in (
        Goal(f'5, collapse ({accel}): after postcopy, THPs on ≥ 95 % of the eligible ranges, '
             'collapse --await-postcopy', one(('w5', 'after', g, 'collapse', 't95_s')),
             'within seconds', at_most(60), nd=1, unit=' s', unreached='not during the watch',
             context=(('{} % at the end', ('w5', 'after', g, 'collapse', 'pct_at_end'), 1),
                      ('watched {} s', ('w5', 'after', g, 'collapse', 'end_s'), 0),
                      ('data {}', ('w5', 'after', g, 'collapse', 'verify')),
                      ("khugepaged's defaults: {} % at the end",
                       ('w5', 'after', g, 'khugepaged', 'pct_at_end'), 1))),
        Goal(f'5, collapse ({accel}): RSS growth by the collapse',
             one(('w5', 'after', g, 'collapse', 'rss_growth_pct')), '≤ 2 %', at_most(2), unit=' %'),
        Goal(f"5, collapse ({accel}): guest's writes while the collapse runs × khugepaged's run",
             one(('w5', 'after', g, 'collapse', 'write_x_khugepaged')), 'a bench line', None),
        Goal(f'5, collapse ({accel}): guest that touched 10 % of its RAM, RSS growth by the collapse',
             one(('w5', 'after', g, 'collapse-10pct', 'rss_growth_pct')), 'within 2 %',
             bound(lambda v: abs(v) <= 2), unit=' %',
             context=(('RAM RSS {} MiB at completion', ('w5', 'after', g, 'collapse-10pct',
                                                         'rss_completion_mib'), 1),
                      ('{} MiB at the end', ('w5', 'after', g, 'collapse-10pct', 'rss_end_mib'), 1),
                      ('data {}', ('w5', 'after', g, 'collapse-10pct', 'verify')))))
]

MISSING = object()


def get(summary, path):
    """The value at path in the summary, or MISSING."""
    v = summary
    for k in path:
        if not isinstance(v, dict) or k not in v:
            return MISSING
        v = v[k]
    return v


def as_stat(v):
    return v if isinstance(v, dict) else {'median': v, 'n': 1}


def shown(v, nd):
    return v if isinstance(v, str) else fmt_stat(v, nd) if isinstance(v, dict) else fmt(v, nd)


def evaluate(goal, summary):
    """The goal's row: name, target, measured, verdict."""
    vals = [get(summary, p) for _, p in goal.metrics]
    if any(v is MISSING or as_stat(v)['median'] is None for v in vals):
        if goal.unreached and not any(v is MISSING for v in vals):
            measured, verdict = goal.unreached, '**missed**'
        else:
            return [goal.name, goal.target, '-', 'not measured']
    else:
        ms = [as_stat(v) for v in vals]
        parts = []
        for (label, _), m in zip(goal.metrics, ms):
            part = (label + ': ' if label else '') + fmt_stat(m, goal.nd) + goal.unit
            if goal.predicate and m.get('fastest') is not None:
                part += (', ' if label else '; ') + f"fastest runs {fmt(m['fastest'], goal.nd)}"
            parts.append(part)
        measured = '; '.join(parts)
        v = goal.predicate(ms) if goal.predicate else 'measured'
        verdict = v if isinstance(v, str) else 'met' if v else '**missed**'
    for template, path, *nd in goal.context:
        v = get(summary, path)
        if v is not MISSING and v is not None:
            measured += '; ' + template.format(shown(v, nd[0] if nd else 2))
    return [goal.name, goal.target, measured, verdict]


def render(summary, goals=GOALS):
    """The goals table, evaluated against the summary."""
    return table(['goal', 'target', 'measured', 'verdict'], [evaluate(g, summary) for g in goals])
