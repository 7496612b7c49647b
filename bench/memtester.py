#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/memtester.py: the seed's own benchmark, one case per run: a real
Linux guest (a Debian kernel and bench/inner-initrd's initramfs: busybox and
memtester) is live-migrated (precopy) between two QEMU processes on this
machine, then runs `memtester SIZE 1` on the destination.

What is timed is what the seed timed: memtester taking its memory (its
malloc and mlock: the guest kernel faults every page in and clears it, so
each of the guest's first writes to its RAM lands on the destination's
mapping of the huge zero page) and its first pass (the "Stuck Address"
test, then the tests MASK selects, MEMTESTER_TEST_MASK). Each of memtester's
lines is timed as it arrives on the guest's serial port. The destination's
minor faults, THP splits and AnonHugePages of its RAM mapping, and under
KVM its 2 MiB / 4 KiB mappings (debugfs kvm/PID-FD/pages_2m, pages_4k), are
read when memtester has locked its memory. Prints one JSON object.

Cases (the destination) are vm/mig.py's: stock, zero, pool (zero with
thpcow's pool of pre-zeroed THPs covering the guest's RAM, its figures in
'pool'; skipped, saying why, without it), prealloc, nozero (the caller sets
use_zero_page to 0), fresh (a guest booted there, never migrated: the
floor). With --boot-only: boot the guest once (no migration)
and print what its boot cost.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path[:0] = [os.path.join(REPO, 'vm'), os.path.join(REPO, 'vm', 'lib')]
import mig  # noqa: E402  (vm/mig.py: the destination's cases)
import pool  # noqa: E402  (vm/lib/pool.py)
import qemu  # noqa: E402  (vm/lib/qemu.py)


class Console:
    """The guest's serial console on a unix socket. until() searches what
    has arrived, partial lines included (memtester prints "trying mlock
    ..." and "locked." on one line, with a pause between), from where the
    last match ended; lines keeps each complete line with the monotonic
    time it ended (memtester's backspaced progress output edited away)."""

    def __init__(self, path):
        self.s = qemu.connect_unix(path)
        self.text = ''
        self.pos = 0
        self.partial = ''
        self.lines = []  # (t, text)

    def until(self, pattern, timeout):
        """Wait until pattern (a regex) matches what arrived; its match."""
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f'no {pattern!r} on the console; last: {self.lines[-3:]}')
            self.s.settimeout(left)
            c = self.s.recv(65536)
            if not c:
                raise EOFError(f'console closed waiting for {pattern!r}; last: {self.lines[-3:]}')
            now = time.monotonic()
            c = c.decode(errors='replace')
            self.text += c
            *done, self.partial = (self.partial + c).split('\n')
            for raw in done:
                while '\x08' in raw:  # a backspace undoes the character before it
                    raw = re.sub('[^\x08]\x08', '', raw).lstrip('\x08')
                if raw.strip():
                    self.lines.append((now, raw.strip()))

    def send(self, line):
        self.s.sendall(line.encode() + b'\n')


def spawn(args, d, name, extra=(), wrapper=()):
    """QEMU booting the inner Linux, stopped (-S) unless -incoming."""
    accel = ['-accel', args.accel]
    if args.accel == 'tcg':
        accel += ['-cpu', 'max,-erms,-fsrm']
    else:
        accel += ['-cpu', 'host']
    boot = ['-no-reboot', '-kernel', args.kernel, '-initrd', args.initrd,
            '-append', 'console=ttyS0 quiet panic=-1']
    p, qmp, ser = qemu.spawn_qemu(args.qemu, d, name, args.ram, boot, extra, wrapper, accel)
    return p, qemu.QMP(qmp), Console(ser)


def boot(q, con, timeout):
    """Continue a stopped guest; seconds until its /init says ready."""
    t = time.monotonic()
    q.cmd('cont')
    m = con.until(r'inner: ready at ([0-9.]+) s', timeout)
    return time.monotonic() - t, float(m.group(1))


def run_memtester(args, res, pid, con):
    """memtester SIZE 1 in the guest, its lines timed; the destination's
    counters when it has locked its memory and at its end."""
    f0, v0, k0 = qemu.proc_minflt(pid), qemu.vmstat(), qemu.kvm_pages(pid)
    t0 = time.monotonic()
    con.send(f'M {args.size} {args.mask}')
    con.until(r'trying mlock', args.timeout)
    t_got = time.monotonic()
    con.until(r'locked\.', args.timeout)
    t_locked = time.monotonic()
    f1, v1, k1 = qemu.proc_minflt(pid), qemu.vmstat(), qemu.kvm_pages(pid)
    m = qemu.ram_mapping(pid, args.ram * 2**20)
    res['take_s'] = t_locked - t0  # the seed's "time to consume" the memory
    res['mlock_s'] = t_locked - t_got
    res['take_faults'] = f1 - f0
    res['take_faults_per_2m'] = (f1 - f0) * 2**21 / (args.ram * 2**20)
    for k in v1:
        res['take_' + k] = v1[k] - v0.get(k, 0)
    res['locked_ram_rss_kb'] = m['Rss']
    res['locked_ram_anon_huge_kb'] = m['AnonHugePages']
    res['locked_thp_pct'] = 100.0 * m['AnonHugePages'] * 1024 / (args.ram * 2**20)
    if k1:
        res['kvm_before'] = k0
        res['kvm_locked'] = k1
    con.until(r'Stuck Address.*ok', args.timeout)
    t_stuck = time.monotonic()
    res['stuck_address_s'] = t_stuck - t_locked
    m = con.until(r'inner: rc=(\d+)', args.timeout)
    t_end = time.monotonic()
    res['memtester_rc'] = int(m.group(1))
    res['masked_tests_s'] = t_end - t_stuck
    res['first_pass_s'] = t_end - t_locked
    res['memtester_s'] = t_end - t0
    res['memtester_lines'] = [[round(t - t0, 2), text] for t, text in con.lines
                              if t >= t0 and len(text) < 200]
    k2 = qemu.kvm_pages(pid)
    if k2:
        res['kvm_end'] = k2
    res['end_ram_anon_huge_kb'] = qemu.ram_mapping(pid, args.ram * 2**20)['AnonHugePages']
    if res['memtester_rc'] != 0:
        raise RuntimeError(f'memtester failed ({res["memtester_rc"]}): {con.lines[-5:]}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('case', choices=mig.CASES, nargs='?')
    ap.add_argument('--boot-only', action='store_true', help='boot once and print its cost')
    ap.add_argument('--ram', type=int, default=640, help='guest RAM, MiB (640; a Debian '
                    'kernel turns THP off below 512 MiB)')
    ap.add_argument('--size', default='256M', help="memtester's SIZE (256M)")
    ap.add_argument('--mask', default='1', help='MEMTESTER_TEST_MASK (1: Random Value '
                    'after Stuck Address; 0: every test)')
    ap.add_argument('--accel', choices=['tcg', 'kvm'], default='tcg')
    ap.add_argument('--qemu', default='qemu-system-x86_64')
    ap.add_argument('--kernel', help="the guest kernel (default: the running kernel's "
                    'vmlinux, else vmlinuz, cached by vm/fetch-kernel)')
    ap.add_argument('--initrd', help='default: bench/inner-initrd')
    ap.add_argument('--ctl', default=os.path.join(REPO, 'tools', 'thpcowctl', 'thpcowctl'))
    ap.add_argument('--timeout', type=float, default=1200, help='per step, seconds')
    args = ap.parse_args()
    if not args.case and not args.boot_only:
        ap.error('a case, or --boot-only')
    if not args.initrd:
        args.initrd = subprocess.check_output([os.path.join(HERE, 'inner-initrd')], text=True).strip()
    if not args.kernel:
        # the running kernel's own, as vm/fetch-kernel cached it
        cache = os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache'))
        found = [k for n in ('vmlinux', 'vmlinuz')
                 for k in glob.glob(os.path.join(cache, 'thpcow', '*', os.uname().release, n))]
        if not found:
            ap.error(f'no vmlinux of {os.uname().release} under {cache}/thpcow: --kernel')
        args.kernel = found[0]
    res = {'case': args.case or 'boot', 'accel': args.accel, 'ram_mib': args.ram,
           'size': args.size, 'mask': args.mask, 'inner_kernel': args.kernel}
    with open('/sys/kernel/mm/transparent_hugepage/use_zero_page') as f:
        res['use_zero_page'] = int(f.read())
    around = mig.case_pool(args.case, args.ram, res)
    try:
        if around is None:  # skipped: res says why
            return
        with around:
            migrate_and_test(args, res)
        if isinstance(around, pool.Session):
            res['pool'] = around.figures()
    finally:
        print(json.dumps(res))


def migrate_and_test(args, res):
    """Boot, migrate (but for fresh), run memtester: into res."""
    procs = []
    d = tempfile.mkdtemp(prefix='thpcow-memtester.')
    try:
        wrapper, extra = mig.case_qemu(args.case, args.ctl, args.ram)
        if args.boot_only or args.case == 'fresh':
            t = time.monotonic()
            dst, dq, dcon = spawn(args, d, 'dst', extra, wrapper)
            procs.append(dst)
            res['dst_start_s'] = time.monotonic() - t
            res['boot_s'], res['boot_guest_uptime_s'] = boot(dq, dcon, args.timeout)
            res['boot_ram_rss_kb'] = qemu.ram_mapping(dst.pid, args.ram * 2**20)['Rss']
            res['boot_lines'] = [text for _, text in dcon.lines][-5:]
            if args.boot_only:
                return
        else:
            sock = os.path.join(d, 'mig.sock')
            dst, dq, dcon = spawn(args, d, 'dst', extra + ['-incoming', 'defer'], wrapper)
            procs.append(dst)
            src, sq, scon = spawn(args, d, 'src')
            procs.append(src)
            res['boot_s'], res['boot_guest_uptime_s'] = boot(sq, scon, args.timeout)
            sq.cmd('migrate-set-parameters', **{'max-bandwidth': 2**40})
            dq.cmd('migrate-incoming', uri=f'unix:{sock}')
            rss0 = qemu.proc_status_kb(dst.pid, 'VmRSS')
            t1 = time.monotonic()
            sq.cmd('migrate', uri=f'unix:{sock}')
            st = qemu.wait_migration(sq, timeout=args.timeout)
            qemu.wait_status(dq, 'running', timeout=args.timeout)
            res['migration_s'] = time.monotonic() - t1
            res['migration_ram'] = {k: st.get('ram', {}).get(k) for k in
                                    ('transferred', 'duplicate', 'normal')}
            res['dst_rss_before_kb'] = rss0
            src.send_signal(15)
            src.wait()
            procs.remove(src)
        m = qemu.ram_mapping(dst.pid, args.ram * 2**20)
        res['dst_ram_rss_kb'] = m['Rss']
        res['dst_ram_anon_huge_kb'] = m['AnonHugePages']
        s0 = qemu.read_thpcow_stats()
        run_memtester(args, res, dst.pid, dcon)
        s1 = qemu.read_thpcow_stats()
        res['thpcow_stats'] = {k: s1[k] - s0.get(k, 0) for k in s1 if s1[k] != s0.get(k, 0)}
        dq.cmd('quit')
        dst.wait(timeout=60)
        procs.remove(dst)
    finally:
        qemu.cleanup(procs, d, 'memtester.py')


if __name__ == '__main__':
    main()
