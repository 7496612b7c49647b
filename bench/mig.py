#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/mig.py: workload 5 of make bench, one case per run: a live migration
of a small no-OS guest (bench/prog/migfw.bin) between two QEMU processes on
this machine, over a unix socket, then the migrated guest writes its RAM.

The source QEMU boots migfw, which waits on its serial port. The
destination QEMU is started with -incoming (under CASE's conditions) and
receives the RAM through QEMU's own migration code, which reads every page
that arrives as a zero page (buffer_is_zero) before deciding not to write
it: with THP that maps the huge zero page, as in the seed report. Then the
migrated guest is told ('W' on its serial port) to write one byte per 4 KiB
of its RAM from 1 MiB up, as a guest's memory test would; that runs in the
destination QEMU's TCG, so the stores fault on QEMU's RAM mapping exactly as
a guest's do. Prints one JSON object.

Cases (the destination):
  stock     as is (thpcow loaded, mode kernel)
  zero      under `thpcowctl exec zero`
  prealloc  -object memory-backend-ram,prealloc=on (RAM allocated up front)
  nozero    /sys/kernel/mm/transparent_hugepage/use_zero_page is 0 (the
            caller sets it; this only records it)
  fresh     no migration: a destination that was never read (the floor)
"""
import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FW = os.path.join(HERE, 'prog', 'migfw.bin')


def connect_unix(path, timeout=120):
    """A socket connected to the unix socket path, once QEMU listens there."""
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class QMP:
    def __init__(self, path):
        self.s = connect_unix(path)
        self.f = self.s.makefile('rwb', buffering=0)
        self._read()  # the greeting
        self.cmd('qmp_capabilities')

    def _read(self):
        while True:
            line = self.f.readline()
            if not line:
                raise EOFError('QMP closed')
            msg = json.loads(line)
            if 'event' not in msg:
                return msg

    def cmd(self, name, **args):
        req = {'execute': name}
        if args:
            req['arguments'] = args
        self.f.write(json.dumps(req).encode() + b'\n')
        r = self._read()
        if 'error' in r:
            raise RuntimeError(f'{name}: {r["error"]}')
        return r.get('return')


class Serial:
    """The guest's COM1 on a unix socket (QEMU listens)."""

    def __init__(self, path):
        self.s = connect_unix(path)

    def expect(self, want, timeout=300):
        self.s.settimeout(timeout)
        while True:
            c = self.s.recv(1)
            if not c:
                raise EOFError('serial closed')
            if c == want:
                return
            if c not in b'R':
                raise RuntimeError(f'guest said {c!r}, not {want!r}')

    def send(self, c):
        self.s.sendall(c)


def spawn_qemu(qemu, d, name, ram, extra=(), wrapper=()):
    """Start QEMU paused (-S unless -incoming): the caller connects to its
    serial port before the guest can print anything, then continues it."""
    qmp = os.path.join(d, name + '.qmp')
    ser = os.path.join(d, name + '.serial')
    argv = list(wrapper) + [
        qemu, '-nodefaults', '-no-user-config', '-display', 'none',
        '-M', 'pc', '-accel', 'tcg', '-m', str(ram), '-bios', FW,
        '-chardev', f'socket,id=ser,path={ser},server=on,wait=off',
        '-serial', 'chardev:ser',
        '-qmp', f'unix:{qmp},server=on,wait=off'] + list(extra)
    if '-incoming' not in extra:
        argv.append('-S')
    log = open(os.path.join(d, name + '.log'), 'wb')
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    return p, qmp, ser


def connect_qemu(qmp, ser):
    q = QMP(qmp)
    s = Serial(ser)
    return q, s


def proc_minflt(pid):
    with open(f'/proc/{pid}/stat') as f:
        s = f.read()
    return int(s[s.rindex(')') + 2:].split()[7])  # field 10


def proc_status_kb(pid, key):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    return 0


def ram_mapping(pid, ram_bytes):
    """Rss and AnonHugePages (kB) of the smallest mapping that holds the
    guest's RAM (QEMU maps it anonymous, 2 MiB aligned)."""
    best = None
    cur = None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            first = line.split(None, 1)[0]
            if '-' in first and not first.endswith(':'):
                a, b = (int(x, 16) for x in first.split('-'))
                cur = {'size': b - a, 'Rss': 0, 'AnonHugePages': 0}
                if b - a >= ram_bytes and (best is None or b - a < best['size']):
                    best = cur
            elif first in ('Rss:', 'AnonHugePages:') and cur is not None:
                cur[first[:-1]] = int(line.split()[1])
    return best or {'size': 0, 'Rss': 0, 'AnonHugePages': 0}


def read_thpcow_stats():
    try:
        with open('/sys/kernel/debug/thpcow/stats') as f:
            return {k: int(v) for k, v in (l.split() for l in f) if v.isdigit()}
    except OSError:
        return {}


def vmstat(keys=('thp_split_pmd', 'thp_fault_alloc', 'thp_collapse_alloc')):
    out = {}
    with open('/proc/vmstat') as f:
        for line in f:
            k, v = line.split()
            if k in keys:
                out[k] = int(v)
    return out


def tlb_shootdowns():
    """TLB shootdown interrupts so far, all CPUs (/proc/interrupts)."""
    with open('/proc/interrupts') as f:
        for line in f:
            if 'TLB shootdowns' in line:
                return sum(int(x) for x in line.split()[1:] if x.isdigit())
    return 0


def wait_migration(qmp, want=('completed',), timeout=900):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = qmp.cmd('query-migrate')
        s = st.get('status')
        if s in want:
            return st
        if s in ('failed', 'cancelled'):
            raise RuntimeError(f'migration {s}: {st}')
        time.sleep(0.05)
    raise TimeoutError('migration did not finish')


def wait_status(qmp, want, timeout=900):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = qmp.cmd('query-status')['status']
        if s == want:
            return
        time.sleep(0.05)
    raise TimeoutError(f'destination never {want}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('case', choices=['stock', 'zero', 'prealloc', 'nozero', 'fresh'])
    ap.add_argument('--ram', type=int, default=1024, help='guest RAM, MiB')
    ap.add_argument('--qemu', default='qemu-system-x86_64')
    ap.add_argument('--ctl', default=os.path.join(HERE, '..', 'tools', 'thpcowctl', 'thpcowctl'))
    ap.add_argument('--postcopy', action='store_true',
                    help='switch to postcopy as soon as the migration starts; '
                    'the guest writes again once it has completed')
    ap.add_argument('--postcopy-bw', type=int, default=256,
                    help='max-postcopy-bandwidth, KiB/s (default 256)')
    ap.add_argument('--fill', action='store_true',
                    help='the guest writes every byte, not one per 4 KiB')
    args = ap.parse_args()
    ram = args.ram * 2**20
    res = {'case': args.case, 'ram_mib': args.ram, 'postcopy': args.postcopy,
           'write': 'fill' if args.fill else 'byte-per-4k'}
    with open('/sys/kernel/mm/transparent_hugepage/use_zero_page') as f:
        res['use_zero_page'] = int(f.read())
    procs = []
    d = tempfile.mkdtemp(prefix='thpcow-mig.')
    try:
        wrapper = [args.ctl, 'exec', 'zero', '--'] if args.case == 'zero' else []
        extra = []
        if args.case == 'prealloc':
            extra = ['-object', f'memory-backend-ram,id=pc.ram,size={args.ram}M,prealloc=on',
                     '-machine', 'memory-backend=pc.ram']
        sock = os.path.join(d, 'mig.sock')
        t0 = time.monotonic()
        if args.case != 'fresh':
            # both QEMUs start at once (their start-up is most of the wait)
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram,
                                       extra + ['-incoming', 'defer'], wrapper)
            procs.append(dst)
            src, sqp, ssp = spawn_qemu(args.qemu, d, 'src', args.ram)
            procs.append(src)
            dq, dser = connect_qemu(dqp, dsp)
            res['dst_start_s'] = time.monotonic() - t0
            sq, sser = connect_qemu(sqp, ssp)
            sq.cmd('cont')
            sser.expect(b'R')  # migfw runs and waits on its serial port
            caps = [{'capability': 'postcopy-ram', 'state': True}] if args.postcopy else []
            if caps:
                sq.cmd('migrate-set-capabilities', capabilities=caps)
                dq.cmd('migrate-set-capabilities', capabilities=caps)
                # slow the postcopy phase down so that the guest writes
                # while userfaultfd is still registered on its RAM
                sq.cmd('migrate-set-parameters',
                       **{'max-postcopy-bandwidth': args.postcopy_bw * 1024})
            sq.cmd('migrate-set-parameters', **{'max-bandwidth': 2**40})
            dq.cmd('migrate-incoming', uri=f'unix:{sock}')
            rss_before = proc_status_kb(dst.pid, 'VmRSS')
            uffd0 = read_thpcow_stats()
            t1 = time.monotonic()
            sq.cmd('migrate', uri=f'unix:{sock}')
            if args.postcopy:
                wait_migration(sq, ('active', 'completed'))
                sq.cmd('migrate-start-postcopy')
                wait_status(dq, 'running')  # the guest runs on the destination now
                res['postcopy_switch_s'] = time.monotonic() - t1
                res['src_status_at_write'] = sq.cmd('query-migrate')['status']
            else:
                wait_migration(sq)
                wait_status(dq, 'running')
                res['migration_s'] = time.monotonic() - t1
            res['dst_rss_before_kb'] = rss_before
        else:
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram, extra, wrapper)
            procs.append(dst)
            dq, dser = connect_qemu(dqp, dsp)
            res['dst_start_s'] = time.monotonic() - t0
            dq.cmd('cont')
            dser.expect(b'R')
            uffd0 = read_thpcow_stats()
        pid = dst.pid
        m = ram_mapping(pid, ram)
        res['dst_rss_kb'] = proc_status_kb(pid, 'VmRSS')
        res['dst_ram_rss_kb'] = m['Rss']
        res['dst_ram_anon_huge_kb'] = m['AnonHugePages']
        # the write phase
        f0, v0, tlb0 = proc_minflt(pid), vmstat(), tlb_shootdowns()
        t2 = time.monotonic()
        dser.send(b'F' if args.fill else b'W')
        dser.expect(b'D')
        res['write_s'] = time.monotonic() - t2
        f1, v1, tlb1 = proc_minflt(pid), vmstat(), tlb_shootdowns()
        res['write_faults'] = f1 - f0
        res['write_tlb_shootdowns'] = tlb1 - tlb0
        res['write_faults_per_2m'] = (f1 - f0) * 2**21 / ram
        for k in v1:
            res['write_' + k] = v1[k] - v0.get(k, 0)
        m = ram_mapping(pid, ram)
        res['after_ram_rss_kb'] = m['Rss']
        res['after_ram_anon_huge_kb'] = m['AnonHugePages']
        res['after_thp_pct'] = 100.0 * m['AnonHugePages'] * 1024 / ram
        if args.case != 'fresh':
            if args.postcopy:
                res['src_status_after_write'] = sq.cmd('query-migrate')['status']
            st = wait_migration(sq)
            m = ram_mapping(pid, ram)
            res['completed_ram_rss_kb'] = m['Rss']
            res['completed_ram_anon_huge_kb'] = m['AnonHugePages']
            res['migration_total_s'] = time.monotonic() - t1
            if args.postcopy:
                # the same writes again, now that userfaultfd is gone
                wait_status(dq, 'running')
                f0 = proc_minflt(pid)
                t3 = time.monotonic()
                dser.send(b'W')
                dser.expect(b'D')
                res['after_write_s'] = time.monotonic() - t3
                res['after_write_faults_per_2m'] = (proc_minflt(pid) - f0) * 2**21 / ram
            res['migration_ram'] = {k: st.get('ram', {}).get(k) for k in
                                    ('transferred', 'duplicate', 'normal', 'postcopy-requests')}
            src.send_signal(signal.SIGTERM)
            src.wait()
            procs.remove(src)
        dser.send(b'V')
        dser.expect(b'K')
        res['verify'] = 'ok'
        uffd1 = read_thpcow_stats()
        res['thpcow_stats'] = {k: uffd1[k] - uffd0.get(k, 0) for k in uffd1
                               if uffd1[k] != uffd0.get(k, 0)}
        dq.cmd('quit')
        dst.wait(timeout=60)
        procs.remove(dst)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for n in os.listdir(d):
            if n.endswith('.log'):
                with open(os.path.join(d, n), errors='replace') as f:
                    for line in f:
                        if 'terminating on signal' not in line:
                            sys.stderr.write(f'mig.py: {n}: {line}')
            os.unlink(os.path.join(d, n))
        os.rmdir(d)
    print(json.dumps(res))


if __name__ == '__main__':
    main()
