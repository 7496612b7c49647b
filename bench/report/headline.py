# SPDX-License-Identifier: GPL-2.0
"""The headline, which the README copies: workload 5 under KVM, the
collapse after postcopy under KVM, memtester (7), workload 5 under TCG,
workload 1 at a glance, and the goals table."""
from . import goals
from .text import AFTER_LABEL, MIG_LABEL, caption, case_label, each_case, fmt, fmt_stat, kshort, kvm_cell, table


def rows5(sets):
    rows = [[kshort(g, e['kernel']), case_label(g, c, MIG_LABEL), fmt_stat(e['write_s']),
             fmt_stat(e['x_stock']), fmt_stat(e['x_prealloc']), fmt_stat(e['x_fresh']),
             fmt(e['faults_per_2m'], 1),
             fmt(e['splits'], 0), kvm_cell(e.get('kvm_pages_2m'), e.get('kvm_pages_4k')),
             fmt(e['dst_rss_mib']['median'], 0), fmt(e.get('ram_rss_after_mib'), 0)]
            for g, c, e in each_case(dict(sets))]
    return table(['kernel', 'case', 'write s', '× stock', '× prealloc', '× no migration', 'faults per 2 MiB',
                  'splits', 'KVM 2 MiB / 4 KiB', 'VmRSS after migration MiB',
                  'RAM RSS after writes MiB'], rows)


def kvm5(s5):
    pre = s5.get('precopy', {})
    kvm = [(g, pre[g]) for g in ('kvm', 'kvm-latest') if g in pre]
    if not kvm:
        return []
    e0 = next(iter(kvm[0][1].values()))
    return [caption(
        f"Workload 5 under KVM, the production path: a {e0['ram_mib']} MiB guest migrated "
        "(precopy) between two QEMUs running it under KVM inside the test guest (AMD SVM "
        "with nested paging, emulated by TCG), then written one byte per 4 KiB: the "
        "guest's stores are NPT faults that KVM resolves through GUP on the destination's "
        "RAM mapping. Write phase: median (min–max) s, ratios in the same round; KVM's "
        "mappings of the guest's RAM after the writes.", width=78)] + rows5(kvm)


def after5(s5):
    runs = [e for g in ('kvm', 'kvm-latest') for e in s5.get('after', {}).get(g, {}).values()]
    if not runs:
        return []
    rows = []
    for e in runs:
        el = e['eligible'] or 1
        pct = [None if e[k] is None else 100 * e[k] / el for k in
               ('kvm_2m_completion', 'kvm_2m_end_of_watch', 'kvm_2m_after_check')]
        rows.append([AFTER_LABEL.get(e['run'], e['run']),
                     f"{fmt(e['pct_at_completion'], 1)} → {fmt(e['pct_at_end'], 1)} ({fmt(e['end_s'], 0)})",
                     ' → '.join(fmt(x, 1) for x in pct),
                     f"{fmt(e['kvm_2m_95_s'], 1)} s" if e['kvm_2m_95_s'] is not None
                     else 'not during the watch'])
    return [caption(
        "After a postcopy migration under KVM (thpcow zero; the guest wrote all its RAM "
        "before migrating): THPs of the destination's RAM, and KVM's 2 MiB mappings, "
        "% of the eligible 2 MiB ranges.", width=78)] + table(
        ['after completion', 'THP % at completion → end (s)',
         'KVM 2 MiB % at completion → end of watch → after the guest touched it all',
         'KVM 2 MiB ≥ 95 % at'], rows)


def memtester(s7):
    if not s7:
        return []
    rows = [[kshort(g, e['kernel']), case_label(g, c, MIG_LABEL), fmt_stat(e['take_s']),
             fmt_stat(e['x_stock']), fmt_stat(e['x_fresh']), fmt(e['faults_per_2m'], 1),
             kvm_cell(e['kvm_pages_2m'], e['kvm_pages_4k']), fmt_stat(e['first_pass_s'])]
            for g, c, e in each_case(s7['guests'])]
    return [caption(
        "Workload 7, the seed's memtester: a Linux guest migrated under KVM, then "
        f"`memtester {s7['inner']['size']} 1`, {s7['rounds']} round{'s' if s7['rounds'] > 1 else ''}: the time to take its memory "
        "(malloc and mlock), and its first pass, median (min–max); the destination's faults and "
        "KVM's mappings once it has locked.", width=78)] + table(
        ['kernel', 'case', 'take s', '× stock', '× no migration', 'faults per 2 MiB',
         'KVM 2 MiB / 4 KiB', 'first pass s'], rows)


def tcg5(s5):
    pre = s5.get('precopy', {})
    tcg = [(g, pre[g]) for g in ('6.1', 'latest') if g in pre]
    if not (tcg and any(g in pre for g in ('kvm', 'kvm-latest'))):
        return []
    return ['Workload 5 with the inner QEMUs under TCG (secondary: the destination QEMU\'s '
            'own stores fault):\n'] + rows5(tcg)


def glance1(s1):
    rows = [[kshort(g, e['kernel']), case_label(g, c), fmt_stat(e['x_first_touch']),
             fmt_stat(e['process_x_first_touch']), fmt(e['faults_per_2m'], 1),
             fmt(e['thp_split_pmd'], 0), fmt(e['anon_huge_pct'], 1), fmt(e['read_rss_mib'], 0)]
            for g, c, e in each_case(s1.get('guests', {}))]
    return [caption('Workload 1, write after read: time of the writes, and of the whole '
                    'process (read phase included), over first touch\'s in the same round; '
                    'median (min–max).', width=78)] + table(
        ['kernel', 'case', 'writes × first touch', 'process × first touch', 'faults per 2 MiB',
         'splits', 'AnonHugePages %', 'RSS after read MiB'], rows)


def render(summary):
    if not summary:
        return []
    s5 = summary.get('w5', {})
    return (['## Headline\n'] + kvm5(s5) + after5(s5) + memtester(summary.get('w7'))
            + tcg5(s5) + glance1(summary.get('w1', {}))
            + ['The goals (Debian 6.1, thpcow zero):\n'] + goals.render(summary))
