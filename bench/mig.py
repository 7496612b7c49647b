#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/mig.py: workload 5 of make bench, one case per run: a live migration
of a small no-OS guest (prog/migfw.bin) between two QEMU processes on
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

With --after (postcopy only) the source guest writes first (all of its RAM,
or with --touch 10 a tenth), the migration switches to postcopy at once and
runs to completion with the guest idle, and then the run goes on: the THPs
of the destination's RAM and its RSS over time, with khugepaged's defaults
('khugepaged') or with `thpcowctl collapse --await-postcopy` started with
the incoming migration, as the libvirt hook dist/libvirt-hook-qemu starts it
('collapse'): it waits through precopy for postcopy to begin, then for it
to end; the guest's write rate meanwhile (W passes in a loop), and its data
check.

With --accel kvm both QEMUs run migfw under KVM (the caller has loaded it:
vm/run --kvm): the guest's stores become NPT faults that KVM resolves
through GUP on the destination's RAM mapping, as on a production host, and
the results add KVM's own mappings of the guest's RAM (debugfs
kvm/PID-FD/pages_4k and pages_2m).

Cases (the destination):
  stock     as is (thpcow loaded, mode kernel)
  zero      under `thpcowctl exec zero`
  prealloc  -object memory-backend-ram,prealloc=on (RAM allocated up front)
  nozero    /sys/kernel/mm/transparent_hugepage/use_zero_page is 0 (the
            caller sets it; this only records it)
  fresh     no migration: a destination that was never read (the floor)
"""
import argparse
import collections
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
FW = os.path.join(HERE, '..', 'prog', 'migfw.bin')


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
    """A QMP client. A QEMU whose main loop stops answering fails the run
    after timeout s instead of holding it until the guest's own timeout."""

    def __init__(self, path, timeout=120):
        self.s = connect_unix(path)
        self.s.settimeout(timeout)
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


def spawn_qemu(qemu, d, name, ram, extra=(), wrapper=(), accel='tcg', boot=None):
    """Start QEMU paused (-S unless -incoming): the caller connects to its
    serial port before the guest can print anything, then continues it.
    accel: an accelerator's name, or its QEMU arguments (a list); boot: what
    the guest boots (default migfw as its BIOS)."""
    qmp = os.path.join(d, name + '.qmp')
    ser = os.path.join(d, name + '.serial')
    accel = ['-accel', accel] if isinstance(accel, str) else list(accel)
    boot = ['-bios', FW] if boot is None else list(boot)
    argv = list(wrapper) + [
        qemu, '-nodefaults', '-no-user-config', '-display', 'none',
        '-M', 'pc'] + accel + ['-m', str(ram)] + boot + [
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


def kvm_stats(pid, stats):
    """KVM's counters of process pid's VMs (debugfs kvm/PID-FD/, one
    directory per VM), summed: {KEY: N} for each (KEY, NAMES) of stats, the
    first of NAMES that the kernel has; {} without KVM."""
    out = {}
    base = '/sys/kernel/debug/kvm'
    try:
        vms = [n for n in os.listdir(base) if n.split('-')[0] == str(pid)]
    except OSError:
        return out
    for vm in vms:
        for k, names in stats:
            for name in names:
                try:
                    with open(os.path.join(base, vm, name)) as f:
                        out[k] = out.get(k, 0) + int(f.read())
                    break
                except FileNotFoundError:
                    continue
    return out


def kvm_pages(pid):
    """KVM's mappings of the guest's RAM now, by size: pages_4k, pages_2m,
    or {}. 5.10 counts only the large ones (largepages: pages_2m here)."""
    return kvm_stats(pid, (('pages_4k', ('pages_4k',)), ('pages_2m', ('pages_2m', 'largepages'))))


# mig.py's exit status when the destination's vCPU holds a state that migfw
# never enters (migfw_never): the CPU under the guest lost it, not the
# guest's memory. Seen under KVM on QEMU 7.2's TCG emulation of SVM, under
# load: CS, EIP, ESP and CR3 of the outer kernel (a 64-bit code segment at
# a module's address) beside migfw's own general registers.
EXIT_LOST_STATE = 3


def migfw_never(regs):
    """What of a vCPU's registers (QEMU's `info registers`) migfw never
    enters, or None. migfw runs in real mode, then in flat 32-bit segments
    with paging off: no 64-bit code segment, CR0.PG clear, CR3 0."""
    for line in regs.splitlines():
        if line.startswith('CS =') and 'CS64' in line:
            return 'a 64-bit code segment: ' + line.strip()
        m = re.match(r'CR0=([0-9a-f]+) CR2=[0-9a-f]+ CR3=([0-9a-f]+)', line)
        if m and (int(m[1], 16) & 0x80000000 or int(m[2], 16)):
            return 'paging: ' + line.strip()
    return None


# What a stopped guest's VM was doing (diagnose): exits of each kind, faults
# taken, fixed and emulated, instructions KVM failed to emulate.
KVM_DIAG = tuple((k, (k,)) for k in (
    'exits', 'io_exits', 'mmio_exits', 'halt_exits', 'pf_taken', 'pf_fixed', 'pf_spurious',
    'pf_emulate', 'insn_emulation', 'insn_emulation_fail', 'pages_4k', 'pages_2m'))


def diagnose(procs, qmps, ctl_proc):
    """Lines that say what a failed run was waiting for, for a log that
    shows only its tail: each QEMU's run state, its migration's and where
    its guest is; each QEMU's threads and KVM's counters a second apart;
    and whether thpcowctl collapse was still waiting. And whether a guest's
    vCPU holds a state migfw never enters (migfw_never)."""
    out = []
    lost = False

    def say(line):
        out.append(f'mig.py: diagnosis: {line}\n')

    for name, q in qmps.items():
        try:
            q.s.settimeout(10)
            status = q.cmd('query-status')['status']
            mig = q.cmd('query-migrate')
            ram = {k: mig.get('ram', {}).get(k) for k in ('remaining', 'postcopy-requests')}
            say(f'{name}: {status}, migration {mig.get("status")} {ram}')
            regs = q.cmd('human-monitor-command', **{'command-line': 'info registers'})
            for line in regs.splitlines():
                if line.startswith(('EAX=', 'ESI=', 'EIP=', 'RIP=', 'CS =', 'CR0=')):
                    say(f'{name}: {line.strip()}')
            never = migfw_never(regs)
            if never:
                lost = True
                say(f'{name}: its vCPU holds a state migfw never enters ({never}): the CPU '
                    f'under the guest lost its state, not its memory (exit {EXIT_LOST_STATE})')
        except Exception as e:  # a QEMU that does not answer is an answer too
            say(f'{name}: QMP: {e!r}')
    for p in procs:
        if p.poll() is not None:
            say(f'pid {p.pid}: exited, status {p.returncode}')
            continue
        threads = []
        try:
            tids = sorted(os.listdir(f'/proc/{p.pid}/task'), key=int)
        except OSError:  # gone meanwhile
            tids = []
        for tid in tids:
            try:
                with open(f'/proc/{p.pid}/task/{tid}/stat') as f:
                    state = f.read().rsplit(')', 1)[1].split()[0]
                with open(f'/proc/{p.pid}/task/{tid}/wchan') as f:
                    wchan = f.read() or '-'
            except OSError:
                continue
            threads.append(f'{tid}:{state}:{wchan}')
        say(f'pid {p.pid} threads (tid:state:wchan): {" ".join(threads)}')
        k0 = kvm_stats(p.pid, KVM_DIAG)
        if k0:
            time.sleep(1)
            k1 = kvm_stats(p.pid, KVM_DIAG)
            say(f'pid {p.pid} KVM (count +1 s later): ' +
                ' '.join(f'{k} {v} +{k1.get(k, v) - v}' for k, v in k0.items()))
    if ctl_proc:
        say('thpcowctl collapse: ' + ('still waiting' if ctl_proc.poll() is None
                                     else f'exited, status {ctl_proc.returncode}'))
    return out, lost


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


def eligible_ranges(pid, ram_bytes, min_present):
    """2 MiB ranges of the guest's RAM mapping that are THPs or hold at
    least min_present data pages (present, not the zero page: the one frame
    mapped more than once)."""
    start = None
    with open(f'/proc/{pid}/maps') as f:
        for line in f:
            a, b = (int(x, 16) for x in line.split(None, 1)[0].split('-'))
            if b - a >= ram_bytes and (start is None or b - a < size):
                start, size = a, b - a
    with open(f'/proc/{pid}/pagemap', 'rb') as f:
        f.seek(start // 4096 * 8)
        raw = f.read(size // 4096 * 8)
    ents = memoryview(raw).cast('Q')
    pfn = [e & ((1 << 55) - 1) if e >> 63 else None for e in ents]
    zero = {p for p, n in collections.Counter(x for x in pfn if x).items() if n > 1}
    n = 0
    for r in range(0, len(pfn) - 511, 512):
        data = sum(1 for x in pfn[r:r + 512] if x and x not in zero)
        n += data >= min_present
    return n


class Sampler(threading.Thread):
    """THP kB and RSS kB of the guest's RAM mapping every period seconds,
    and under KVM its pages_2m and pages_4k."""

    def __init__(self, pid, ram_bytes, t0, period=0.5):
        super().__init__(daemon=True)
        self.pid, self.ram, self.t0, self.period = pid, ram_bytes, t0, period
        self.samples = []
        self.kvm = []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            m = ram_mapping(self.pid, self.ram)
            t = round(time.monotonic() - self.t0, 2)
            self.samples.append((t, m['AnonHugePages'], m['Rss']))
            k = kvm_pages(self.pid)
            if k:  # under KVM: its 2 MiB and 4 KiB mappings of the RAM
                self.kvm.append((t, k.get('pages_2m', 0), k.get('pages_4k', 0)))
            self.stop.wait(self.period)


def after_phase(args, res, sq, dq, dser, pid, ram, ctl_proc):
    """After a postcopy migration has completed: THPs over time, RSS, the
    guest's write rate, the data check (bench/README.md, workload 5)."""
    t0 = time.monotonic()
    res['after'] = args.after
    res['touch_pct'] = args.touch
    m = ram_mapping(pid, ram)
    res['completed_ram_rss_kb'] = m['Rss']
    res['completed_ram_anon_huge_kb'] = m['AnonHugePages']
    res.update({'completed_kvm_' + k: v for k, v in kvm_pages(pid).items()})
    sampler = Sampler(pid, ram, t0)
    sampler.start()
    # the guest writes what it touched, pass after pass, for write_window s
    passes = 0
    tw = time.monotonic()
    while time.monotonic() - tw < args.write_window:
        dser.send(b'W')
        dser.expect(b'D')
        passes += 1
    res['write_passes'] = passes
    res['write_window_s'] = time.monotonic() - tw
    res['write_mib_per_s'] = passes * args.touch / 100 * (ram - 2**20) / 2**20 / res['write_window_s']
    if ctl_proc:
        out, _ = ctl_proc.communicate(
            timeout=max(1, args.after_s - (time.monotonic() - t0)) + args.await_postcopy)
        res['collapse_rc'] = ctl_proc.returncode
        res['collapse'] = json.loads(out) if out.strip() else None
        res['collapse_done_s'] = time.monotonic() - t0
    while time.monotonic() - t0 < args.after_s:
        time.sleep(0.2)
    sampler.stop.set()
    sampler.join()
    res['series'] = sampler.samples
    if sampler.kvm:
        res['kvm_series'] = sampler.kvm
    # at the end (a THP counts as data): computing it takes seconds of the
    # GIL that the sampler needs meanwhile
    res['eligible_ranges'] = eligible_ranges(pid, ram, args.min_present)
    want = 0.95 * res['eligible_ranges'] * 2048
    res['t95_s'] = next((t for t, huge, _ in sampler.samples if huge >= want), None)
    m = ram_mapping(pid, ram)
    res['end_ram_rss_kb'] = m['Rss']
    res['end_ram_anon_huge_kb'] = m['AnonHugePages']
    res['end_thp_pct_of_eligible'] = (100.0 * m['AnonHugePages'] / 2048 / res['eligible_ranges']
                                      if res['eligible_ranges'] else None)
    res['rss_growth_pct'] = 100.0 * (m['Rss'] - res['completed_ram_rss_kb']) / res['completed_ram_rss_kb']
    dser.send(b'V')
    dser.expect(b'K')
    res['verify'] = 'ok'
    # after the verify pass has touched every page again: what KVM maps now
    res.update({'end_kvm_' + k: v for k, v in kvm_pages(pid).items()})


def case_qemu(case, ctl, ram):
    """How the destination QEMU of case is started: the command it runs
    under (zero: thpcowctl exec zero) and its extra arguments (prealloc)."""
    wrapper = [ctl, 'exec', 'zero', '--'] if case == 'zero' else []
    extra = []
    if case == 'prealloc':
        extra = ['-object', f'memory-backend-ram,id=pc.ram,size={ram}M,prealloc=on',
                 '-machine', 'memory-backend=pc.ram']
    return wrapper, extra


# A line of QEMU's register dump (x86_cpu_dump_state): EAX=..., CS =..., Code=...
REGISTER_DUMP = re.compile(r'^(?:[A-Z][A-Z0-9]{1,3} ?=|Code=|[A-Z]{1,5}[0-9]*=[0-9a-f]{4})')


def cleanup(procs, d, who):
    """Kill the QEMUs still running, copy their logs to stderr (but for
    their exit on our signal) and remove their directory d."""
    for p in procs:
        p.kill()
        p.wait()
    said = []
    for n in os.listdir(d):
        if n.endswith('.log'):
            with open(os.path.join(d, n), errors='replace') as f:
                for line in f:
                    if 'terminating on signal' not in line:
                        sys.stderr.write(f'{who}: {n}: {line}')
                        if not REGISTER_DUMP.match(line) or line.startswith(('EIP=', 'RIP=')):
                            said.append(f'{who}: {n} said: {line}')
        os.unlink(os.path.join(d, n))
    os.rmdir(d)
    # once more after the register dumps, which can be long: what QEMU said
    # (a KVM error names itself there) and where the guest was, where a short
    # tail of the output shows it
    sys.stderr.writelines(said[:20])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('case', choices=['stock', 'zero', 'prealloc', 'nozero', 'fresh'])
    ap.add_argument('--ram', type=int, default=1024, help='guest RAM, MiB')
    ap.add_argument('--qemu', default='qemu-system-x86_64')
    ap.add_argument('--accel', choices=['tcg', 'kvm'], default='tcg',
                    help='how both QEMUs run the guest (tcg; kvm needs /dev/kvm)')
    ap.add_argument('--ctl', default=os.path.join(HERE, '..', 'tools', 'thpcowctl', 'thpcowctl'))
    ap.add_argument('--postcopy', action='store_true',
                    help='switch to postcopy as soon as the migration starts; '
                    'the guest writes again once it has completed')
    ap.add_argument('--postcopy-bw', type=int, default=256,
                    help='max-postcopy-bandwidth, KiB/s (default 256)')
    ap.add_argument('--fill', action='store_true',
                    help='the guest writes every byte, not one per 4 KiB')
    ap.add_argument('--after', choices=['khugepaged', 'collapse'],
                    help='with --postcopy: the source writes first, and after '
                    'completion THPs come back by khugepaged or thpcowctl collapse')
    ap.add_argument('--after-s', type=float, default=60,
                    help='--after: seconds to watch after completion (60)')
    ap.add_argument('--write-window', type=float, default=10,
                    help='--after: seconds of guest write passes after completion (10)')
    ap.add_argument('--touch', type=int, choices=[10, 100], default=100,
                    help='--after: percent of its RAM the guest writes (100)')
    ap.add_argument('--min-present', type=int, default=502,
                    help='--after collapse: thpcowctl collapse --min-present')
    ap.add_argument('--await-postcopy', type=int, default=600,
                    help='--after collapse: thpcowctl collapse --await-postcopy (600)')
    args = ap.parse_args()
    if args.after and not args.postcopy:
        ap.error('--after needs --postcopy')
    ram = args.ram * 2**20
    ctl_proc = None
    res = {'case': args.case, 'ram_mib': args.ram, 'postcopy': args.postcopy, 'accel': args.accel,
           'write': 'fill' if args.fill else 'byte-per-4k'}
    with open('/sys/kernel/mm/transparent_hugepage/use_zero_page') as f:
        res['use_zero_page'] = int(f.read())
    procs = []
    qmps = {}  # name: QMP, for diagnose
    diag, lost = [], False
    d = tempfile.mkdtemp(prefix='thpcow-mig.')
    try:
        wrapper, extra = case_qemu(args.case, args.ctl, args.ram)
        sock = os.path.join(d, 'mig.sock')
        t0 = time.monotonic()
        if args.case != 'fresh':
            # both QEMUs start at once (their start-up is most of the wait)
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram,
                                       extra + ['-incoming', 'defer'], wrapper, args.accel)
            procs.append(dst)
            src, sqp, ssp = spawn_qemu(args.qemu, d, 'src', args.ram, accel=args.accel)
            procs.append(src)
            dq, dser = connect_qemu(dqp, dsp)
            qmps['dst'] = dq
            res['dst_start_s'] = time.monotonic() - t0
            sq, sser = connect_qemu(sqp, ssp)
            qmps['src'] = sq
            sq.cmd('cont')
            sser.expect(b'R')  # migfw runs and waits on its serial port
            if args.after:  # the source guest's data, before migrating
                if args.touch == 10:
                    sser.send(b'T')
                    sser.expect(b'D')
                sser.send(b'W')
                sser.expect(b'D')
            caps = [{'capability': 'postcopy-ram', 'state': True}] if args.postcopy else []
            if caps:
                sq.cmd('migrate-set-capabilities', capabilities=caps)
                dq.cmd('migrate-set-capabilities', capabilities=caps)
                # slow the postcopy phase down so that the guest writes
                # while userfaultfd is still registered on its RAM
                sq.cmd('migrate-set-parameters',
                       **{'max-postcopy-bandwidth': 0 if args.after else args.postcopy_bw * 1024})
            sq.cmd('migrate-set-parameters', **{'max-bandwidth': 2**40})
            dq.cmd('migrate-incoming', uri=f'unix:{sock}')
            if args.after == 'collapse':
                ctl_proc = subprocess.Popen(
                    [args.ctl, 'collapse', '--await-postcopy', str(args.await_postcopy),
                     '--pid', str(dst.pid),
                     '--min-present', str(args.min_present), '--json'],
                    stdout=subprocess.PIPE, text=True)
            rss_before = proc_status_kb(dst.pid, 'VmRSS')
            uffd0 = read_thpcow_stats()
            t1 = time.monotonic()
            sq.cmd('migrate', uri=f'unix:{sock}')
            if args.postcopy:
                wait_migration(sq, ('active', 'completed'))
                sq.cmd('migrate-start-postcopy')
                wait_status(dq, 'running')  # the guest runs on the destination now
                res['postcopy_switch_s'] = time.monotonic() - t1
                if args.after:
                    wait_migration(sq)
                    res['migration_total_s'] = time.monotonic() - t1
                res['src_status_at_write'] = sq.cmd('query-migrate')['status']
            else:
                wait_migration(sq)
                wait_status(dq, 'running')
                res['migration_s'] = time.monotonic() - t1
            res['dst_rss_before_kb'] = rss_before
        else:
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram, extra, wrapper, args.accel)
            procs.append(dst)
            dq, dser = connect_qemu(dqp, dsp)
            qmps['dst'] = dq
            res['dst_start_s'] = time.monotonic() - t0
            dq.cmd('cont')
            dser.expect(b'R')
            uffd0 = read_thpcow_stats()
        pid = dst.pid
        if args.after:
            after_phase(args, res, sq, dq, dser, pid, ram, ctl_proc)
            src.send_signal(signal.SIGTERM)
            src.wait()
            procs.remove(src)
            dq.cmd('quit')
            dst.wait(timeout=60)
            procs.remove(dst)
            print(json.dumps(res))
            return
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
        res.update({'write_kvm_' + k: v for k, v in kvm_pages(pid).items()})
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
    except BaseException:
        diag, lost = diagnose(procs, qmps, ctl_proc)
        if not lost:
            raise
        traceback.print_exc()
    finally:
        if ctl_proc and ctl_proc.poll() is None:
            ctl_proc.kill()
            ctl_proc.wait()
        cleanup(procs, d, 'mig.py')
        sys.stderr.writelines(diag)  # last, after the QEMUs' logs
    if lost:
        sys.exit(EXIT_LOST_STATE)
    print(json.dumps(res))


if __name__ == '__main__':
    main()
