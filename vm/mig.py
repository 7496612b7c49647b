#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""vm/mig.py CASE [OPTION...]: one live migration of a small no-OS guest
(prog/migfw.bin) between two QEMU processes on this machine, over a unix
socket, then the migrated guest writes its RAM. The harness's migration
driver, run as root in a guest of vm/run: make bench runs it for workload
5 (bench/guest/mig.sh), tests/guest/kvm.sh under KVM; bench/memtester.py
takes its cases. QEMU, QMP and /proc helpers: vm/lib/qemu.py.
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
  pool      zero with thpcow's pool of pre-zeroed THPs sized to cover the
            guest's RAM (vm/lib/pool.py) and full before the destination
            starts; emptied after the run; its figures in the JSON ('pool').
            Without the pool (no thpcow parameter pool_mib) the case is
            skipped: the JSON says why ('skipped') and has no measurement
  prealloc  -object memory-backend-ram,prealloc=on (RAM allocated up front)
  nozero    /sys/kernel/mm/transparent_hugepage/use_zero_page is 0 (the
            caller sets it; this only records it)
  fresh     no migration: a destination that was never read (the floor)
"""
import argparse
import collections
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
import pool  # noqa: E402
from qemu import (UnexpectedByte, cleanup, connect_qemu, diagnose, kernel_stack,  # noqa: E402
                  kvm_pages, proc_minflt, proc_status_kb, ram_mapping, read_thpcow_stats, spawn_qemu,
                  tlb_shootdowns, vmstat, wait_migration, wait_status)

FW = os.path.join(HERE, '..', 'prog', 'migfw.bin')
# the destinations (the docstring says what each is); bench/memtester.py's too
CASES = ('stock', 'zero', 'pool', 'prealloc', 'nozero', 'fresh')
# migfw never resets: a triple fault stops it where it is, for diagnose
# (run state 'shutdown'), instead of booting it again to wait for a
# command that was sent before
BOOT = ['-bios', FW, '-action', 'reboot=shutdown,shutdown=pause']


# mig.py's exit status when a vCPU lost its state, not the guest's memory
# (lost_state): it holds a state that migfw never enters (migfw_never),
# stopped at a reset (a triple fault) or answered a command as migfw never
# does (odd_answer), with all that migfw keeps in RAM as its commands left
# it (migfw_ram). Seen under KVM on QEMU 7.2's TCG emulation of SVM, under
# load: CS, EIP, ESP and CR3 of the outer kernel (a 64-bit code segment at
# a module's address) beside migfw's own general registers; and a 'K' (a
# data check's answer) to a write pass ('W'), migfw then back in its
# command loop with EDI at 0x16f000, where a write pass never stops and a
# data check stops only to answer 'X'.
EXIT_LOST_STATE = 3
# mig.py's exit status when the run failed otherwise (diagnosed on stderr)
EXIT_FAILED = 1
# with --postcopy, precopy's bandwidth until the switch (bytes/s)
PRECOPY_BW_BEFORE_SWITCH = 4 * 2**20
# migfw's image is at 0xf0000 (and at the reset vector), its stack below
# 0x90000, its writes from 1 MiB up (prog/migfw.S)
MIGFW_IMAGE = 0xf0000
MIGFW_STACK = 0x90000
MIGFW_DATA = 2**20


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


def migfw_returns():
    """The return addresses migfw's calls push: the address after each
    call instruction (e8 rel32) of its image whose target is in it."""
    with open(FW, 'rb') as f:
        img = f.read()
    return {MIGFW_IMAGE + i + 5 for i in range(len(img) - 4) if img[i] == 0xe8 and
            0 <= i + 5 + int.from_bytes(img[i + 1:i + 5], 'little', signed=True) < len(img)}


def migfw_pages(cmds, ram_bytes):
    """The first byte of each 4 KiB page from MIGFW_DATA to the end of RAM
    (ram_bytes) as migfw's commands cmds leave them ([byte, answered], in
    order, as Serial.log has them): (after the answered ones, after all),
    two bytes objects; the two differ only when the last command, a write
    pass, is unanswered (migfw may have done all of it, some or none).
    None when a command before the last is unanswered."""
    pages = bytearray((ram_bytes - MIGFW_DATA) // 4096)
    limit, n, before = len(pages), 0, None
    for i, (c, answered) in enumerate(cmds):
        if not answered:
            if i != len(cmds) - 1:
                return None
            before = bytes(pages)
        if c in (b'W', b'F'):  # pass n: its byte (never 0) up to the touch limit, or to the end
            n += 1
            top = limit if c == b'W' else len(pages)
            pages[:top] = bytes([(n | 1) & 0xff]) * top
        elif c == b'T':  # from now on, the first tenth (rounded down to a page)
            limit = len(pages) // 10
    return (bytes(pages) if before is None else before), bytes(pages)


def migfw_ram(pid, ram_bytes, cmds):
    """What of the guest's RAM in QEMU process pid (QEMU's view of it) is
    not as migfw left it after its commands cmds (Serial.log's, the
    source's first when it migrated), or None. migfw's code is its image,
    in a 64 KiB mapping that can hold no THP; all it keeps in RAM is the
    return address of its one level of calls, just below MIGFW_STACK (one
    of migfw_returns()), and the first byte of each 4 KiB page from
    MIGFW_DATA up, which its passes write (migfw_pages(); a pass writes
    upwards, so one unanswered leaves its own bytes below and the last
    pass's above). Only for RAM below 3.5 GiB (all of it below 4 GiB, as
    the pc machine maps it), and only when no userfaultfd is armed on it
    (no migration, or one that completed): reading an armed page fails.
    This is QEMU's view of the RAM: a vCPU that reads another page through
    a stale mapping of KVM's is not told apart, which kvm.sh's dma_zero,
    fork_dma_copy and race_zero check, with no run again; and a run is
    run again once only."""
    if ram_bytes >= 0xe0000000:
        return 'not checked: RAM from 3.5 GiB up'
    want = migfw_pages(cmds, ram_bytes)
    if want is None:
        return f'not checked: commands {cmds} unanswered before the last'
    base = ram_mapping(pid, ram_bytes)['start']
    if base is None:
        return 'no mapping holds the guest\'s RAM'
    with open(f'/proc/{pid}/mem', 'rb', buffering=0) as f:
        f.seek(base + MIGFW_STACK - 4)
        ret = int.from_bytes(f.read(4), 'little')
        if ret not in migfw_returns():
            return f'the return address on its stack is {ret:#x}, not after one of its calls'
        got = bytearray()
        for a in range(MIGFW_DATA, ram_bytes, 4096):
            f.seek(base + a)
            got += f.read(1)
    done, last = want
    k = next((i for i in range(len(got)) if got[i] != last[i]), len(got))
    bad = next((i for i in range(k, len(got)) if got[i] != done[i]), None)
    if bad is None:
        return None
    return (f'the page at {MIGFW_DATA + bad * 4096:#x} begins with {got[bad]:#x}, not {done[bad]:#x}'
            f'{f" or {last[bad]:#x}" if last[bad] != done[bad] else ""}, after commands '
            + ''.join(c.decode() for c, _ in cmds))


def odd_answer(err, ser):
    """What the guest on Serial ser did that migfw never does, when err
    (an exception) says it answered a command with another byte than
    migfw's answer to it, or None. An 'X' is migfw's own answer, to a
    data check ('V') that found its RAM changed: never odd."""
    if ser is None or not isinstance(err, UnexpectedByte) or err.serial is not ser or err.got == b'X':
        return None
    return f'it answered {err.got!r} where migfw answers {err.want!r}'


def lost_state(name, qmp, pid, ram_bytes, cmds, held, odd, say):
    """Whether the vCPU of QEMU name (QMP qmp, process pid) lost its
    state, not its memory: it held a state migfw never enters (held:
    migfw_never said so), or stopped at a reset (run state 'shutdown':
    BOOT stops it there; a triple fault, say), or did what migfw never
    does (odd: odd_answer()); and its RAM is as migfw's commands cmds left
    it (migfw_ram). When the RAM cannot be read (a migration still under
    way), held alone decides. say() what it found."""
    try:
        stopped = qmp.cmd('query-status')['status'] == 'shutdown'
        mig = qmp.cmd('query-migrate').get('status')
    except Exception:  # diagnose said why
        return held
    if not held and not stopped and not odd:
        return False
    what = ('its vCPU held a state migfw never enters' if held else
            'stopped at a reset' if stopped else odd)
    if mig not in (None, 'completed'):
        say(f'{name}: {what}, its migration {mig}: its RAM not read')
        return held
    try:
        wrong = migfw_ram(pid, ram_bytes, cmds)
    except Exception as e:  # gone meanwhile, a page that cannot be read
        wrong = f'not read: {e!r}'
    if wrong:
        say(f'{name}: {what}, and its RAM is not as migfw left it: {wrong}')
        return False
    say(f'{name}: {what}, its stack and pass numbers as migfw left them: '
        'the CPU under the guest lost its state, not its memory')
    return True


def eligible_ranges(pid, ram_bytes, min_present):
    """2 MiB ranges of the guest's RAM mapping that are THPs or hold at
    least min_present data pages (present, not a zero page), now.

    thpcowctl collapse decides the same of each range (its --min-present,
    whose default this one's is) but reports only what it did, when it ran,
    over every private anonymous mapping of the process (collapsed, skipped
    thp/sparse/uffd/nohugepage, failed): no verb of thpcowctl counts the
    eligible ranges without collapsing them, and the khugepaged case runs
    no thpcowctl. So this counts them itself, at the end and over the
    guest's RAM only: the denominator of end_thp_pct_of_eligible and t95_s.
    One difference: thpcowctl knows the zero page's frame (it maps it
    itself) and the huge zero page's (kpageflags); here a zero page is a
    frame the RAM maps more than once, which misses a zero page mapped at
    one address only (the huge zero page in a single range counts as data)."""
    m = ram_mapping(pid, ram_bytes)
    if m['start'] is None:
        raise RuntimeError(f'pid {pid} has no mapping of {ram_bytes} bytes or more')
    with open(f'/proc/{pid}/pagemap', 'rb') as f:
        f.seek(m['start'] // 4096 * 8)
        raw = f.read(m['size'] // 4096 * 8)
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
    under (zero, pool: thpcowctl exec zero) and its extra arguments
    (prealloc)."""
    wrapper = [ctl, 'exec', 'zero', '--'] if case in ('zero', 'pool') else []
    extra = []
    if case == 'prealloc':
        extra = ['-object', f'memory-backend-ram,id=pc.ram,size={ram}M,prealloc=on',
                 '-machine', 'memory-backend=pc.ram']
    return wrapper, extra


def case_pool(case, ram, res):
    """What runs around case's destination: for pool, the pool sized to
    cover ram MiB (a pool.Session: with it, the run), else nothing; None
    when the case cannot run here, with res['skipped'] saying why."""
    if case != 'pool':
        return contextlib.nullcontext()
    why = pool.absent()
    if why:
        res['skipped'] = why
        return None
    return pool.Session(ram)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('case', choices=CASES)
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
    res = {'case': args.case, 'ram_mib': args.ram, 'postcopy': args.postcopy, 'accel': args.accel,
           'write': 'fill' if args.fill else 'byte-per-4k'}
    with open('/sys/kernel/mm/transparent_hugepage/use_zero_page') as f:
        res['use_zero_page'] = int(f.read())
    around = case_pool(args.case, args.ram, res)
    if around is None:  # skipped: res says why
        print(json.dumps(res))
        return
    with around:
        status = migrate(args, res)
    if isinstance(around, pool.Session):
        res['pool'] = around.figures()
    if status:
        sys.exit(status)
    print(json.dumps(res))


def migrate(args, res):
    """The run (the docstring at the top), its figures into res; returns 0,
    or when it failed the exit status to give (EXIT_LOST_STATE when a vCPU
    lost its state, EXIT_FAILED otherwise), with the traceback and then
    the diagnosis on stderr: last, for a log that shows only its tail."""
    ram = args.ram * 2**20
    ctl_proc = None
    procs = []
    qmps = {}  # name: QMP, for diagnose
    diag, status = [], 0
    sser = dser = None  # the source's and the destination's Serial
    d = tempfile.mkdtemp(prefix='thpcow-mig.')
    try:
        wrapper, extra = case_qemu(args.case, args.ctl, args.ram)
        sock = os.path.join(d, 'mig.sock')
        t0 = time.monotonic()
        if args.case != 'fresh':
            # both QEMUs start at once (their start-up is most of the wait)
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram, BOOT,
                                       extra + ['-incoming', 'defer'], wrapper, args.accel)
            procs.append(dst)
            src, sqp, ssp = spawn_qemu(args.qemu, d, 'src', args.ram, BOOT, accel=args.accel)
            procs.append(src)
            dq, dser = connect_qemu(dqp, dsp, dst)
            qmps['dst'] = dq
            res['dst_start_s'] = time.monotonic() - t0
            sq, sser = connect_qemu(sqp, ssp, src)
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
            # Precopy runs unthrottled, or with --postcopy at
            # PRECOPY_BW_BEFORE_SWITCH until the switch, so that RAM is left
            # for the postcopy phase: on a loaded host the QMP round trips
            # before the switch let precopy send all 32 MiB, the postcopy
            # phase moved nothing and was over unseen, and thpcowctl
            # collapse --await-postcopy waited in vain. At the switch QEMU
            # takes max-postcopy-bandwidth (0: unlimited).
            sq.cmd('migrate-set-parameters',
                   **{'max-bandwidth': PRECOPY_BW_BEFORE_SWITCH if args.postcopy else 2**40})
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
            dst, dqp, dsp = spawn_qemu(args.qemu, d, 'dst', args.ram, BOOT, extra, wrapper, args.accel)
            procs.append(dst)
            dq, dser = connect_qemu(dqp, dsp, dst)
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
            return 0
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
    except Exception as e:
        traceback.print_exc()

        def say(line):
            diag.append(f'mig.py: diagnosis: {line}\n')
        held = diagnose(procs, qmps, say, migfw_never)
        src_log = sser.log if sser else []
        lost = False
        for name, proc, ser, cmds in (('src', 'src' in qmps and src, sser, src_log),
                                      ('dst', 'dst' in qmps and dst, dser,
                                       src_log + (dser.log if dser else []))):
            if proc:
                lost |= lost_state(name, qmps[name], proc.pid, ram, cmds, name in held,
                                   odd_answer(e, ser), say)
        if ctl_proc:
            where = kernel_stack(f'/proc/{ctl_proc.pid}') or 'not said'
            say('thpcowctl collapse: ' + (f'running; kernel stack: {where}' if ctl_proc.poll() is None
                                          else f'exited, status {ctl_proc.returncode}'))
        status = EXIT_LOST_STATE if lost else EXIT_FAILED
        say(f'exit {status}: ' + ('a vCPU lost its state' if lost else 'the run failed (traceback above)'))
    finally:
        if ctl_proc and ctl_proc.poll() is None:
            ctl_proc.kill()
            ctl_proc.wait()
        cleanup(procs, d, 'mig.py')
        sys.stderr.writelines(diag)  # last, after the QEMUs' logs
    return status


if __name__ == '__main__':
    main()
