#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vm/lib/pool.py: thpcow's pool of pre-zeroed THPs, for the programs that
measure with it inside a guest of vm/run: vm/mig.py's case pool (and so
bench/memtester.py's), and bench/guest/wrf.sh's through this file's
command line. It sizes the pool to cover a run, waits until the pool is
full, reads its figures and empties it again.

The module's interface: the parameter pool_mib (MiB per NUMA node, an even
number, 0 = off, the default; a refill thread per node fills the pool in
the background) and debugfs thpcow/pool, lines "KEY VALUE": target (THPs,
all nodes), thps (pooled now), refill_ns (the refill's wall time
allocating and clearing), cpu_ns (the refill threads' CPU time), per node
nodeN_thps, nodeN_target; the counters hits, misses, refilled, released
there too, or as pool_hit, pool_miss, pool_refilled, pool_released in
debugfs thpcow/stats (read() takes them from either).

A run's figures (Session.figures): the counters' growth from before the
pool was sized to after the run (hits, misses, refilled, released,
refill_ns, cpu_ns), the pool as it was once full (target, thps), the
seconds it took to fill and to empty.

As a program (what a shell script needs; JSON on stdout):
  pool.py check           exit 0 if the pool is there, else print
                          {"skipped": WHY} and exit 1
  pool.py fill MIB        size the pool (MIB per node), wait until full;
                          prints the state that drain needs
  pool.py drain STATE     pool_mib back to 0, wait until empty; prints the
                          run's figures
"""
import json
import os
import sys
import time

PARAM = '/sys/module/thpcow/parameters/pool_mib'
DEBUGFS = '/sys/kernel/debug/thpcow/pool'
STATS = '/sys/kernel/debug/thpcow/stats'
# thpcow/stats's names of the pool's counters: read()'s names
STAT_NAMES = {'pool_hit': 'hits', 'pool_miss': 'misses', 'pool_refilled': 'refilled',
              'pool_released': 'released'}
# what a run sizes the pool to beyond the memory it covers (MiB per node):
# QEMU's own allocations and the guest's firmware take THPs too
MARGIN_MIB = 64
COUNTERS = ('hits', 'misses', 'refilled', 'released', 'refill_ns', 'cpu_ns')


def absent():
    """Why there is no pool to measure here (a sentence), or None."""
    if not os.path.exists(PARAM):
        return f'no {PARAM}: this thpcow has no pool (or is not loaded)'
    if not os.path.exists(DEBUGFS):
        return f'no {DEBUGFS}: debugfs not mounted, or a thpcow without the pool'
    return None


def parse(path):
    """A file of "KEY VALUE" lines: {KEY: int} of those whose value is one."""
    with open(path) as f:
        return {k: int(v) for k, v in (line.split() for line in f if len(line.split()) == 2)
                if v.lstrip('-').isdigit()}


def read():
    """The pool's figures now: {KEY: int}, its counters from thpcow/stats
    where thpcow/pool does not have them."""
    fig = parse(DEBUGFS)
    try:
        stats = parse(STATS)
    except OSError:
        stats = {}
    for k, name in STAT_NAMES.items():
        if k in stats:
            fig.setdefault(name, stats[k])
    return fig


def set_mib(mib):
    with open(PARAM, 'w') as f:
        f.write(f'{mib}\n')


def wait(done, timeout, what):
    """Poll the figures until done(figures); (figures, seconds waited)."""
    t0 = time.monotonic()
    while True:
        fig = read()
        if done(fig):
            return fig, time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f'pool: not {what} after {timeout} s: {fig}')
        time.sleep(0.1)


def growth(after, before):
    """after - before of each counter; a counter that went down was reset
    (the module may count from when the pool was sized): its after value."""
    return {k: after[k] - before.get(k, 0) if after[k] >= before.get(k, 0) else after[k]
            for k in COUNTERS if k in after}


class Session:
    """The pool sized to cover mib MiB per node while the with block runs,
    full before it starts, empty after it; figures() for the JSON."""

    def __init__(self, mib, timeout=300):
        self.mib, self.timeout = (mib + MARGIN_MIB + 1) // 2 * 2, timeout
        self.before = self.full = None
        self.fill_s = self.drain_s = None

    def __enter__(self):
        self.before = read()
        set_mib(self.mib)
        try:
            self.full, self.fill_s = wait(lambda f: f['target'] > 0 and f['thps'] >= f['target'],
                                          self.timeout, 'full')
        except BaseException:
            set_mib(0)
            raise
        return self

    def __exit__(self, *exc):
        self.end = read()
        set_mib(0)
        _, self.drain_s = wait(lambda f: f['thps'] == 0, self.timeout, 'empty')
        return False

    def figures(self):
        """The run's figures (after the with block)."""
        g = growth(self.end, self.before)
        out = {'pool_mib': self.mib, 'target': self.full['target'], 'thps_full': self.full['thps'],
               'fill_s': self.fill_s, 'drain_s': self.drain_s, 'thps_at_end': self.end['thps']}
        out.update(g)
        if g.get('refilled'):
            # the refill threads' CPU time per GiB they put in the pool
            out['cpu_s_per_gib'] = g['cpu_ns'] / 1e9 / (g['refilled'] * 2 / 1024)
            out['refill_s_per_gib'] = g['refill_ns'] / 1e9 / (g['refilled'] * 2 / 1024)
        return out


def main(argv):
    if len(argv) == 2 and argv[1] == 'check':
        why = absent()
        if why:
            print(json.dumps({'skipped': why}))
        return 1 if why else 0
    if len(argv) == 3 and argv[1] == 'fill':
        s = Session(int(argv[2]))
        s.__enter__()
        print(json.dumps({k: getattr(s, k) for k in ('mib', 'timeout', 'before', 'full', 'fill_s')}))
        return 0
    if len(argv) == 3 and argv[1] == 'drain':
        st = json.loads(argv[2])
        s = Session(0, st['timeout'])
        for k, v in st.items():
            setattr(s, k, v)
        s.__exit__(None, None, None)
        print(json.dumps(s.figures()))
        return 0
    print('usage: pool.py check | fill MIB | drain STATE', file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
