# SPDX-License-Identifier: GPL-2.0
"""vm/lib/qemu.py: the harness's QEMU helpers for programs that drive QEMU
processes of their own inside a guest of vm/run (inner guests, live
migrations between two QEMUs): vm/mig.py, which tests/guest/kvm.sh and
the benchmark run, and bench/memtester.py.

  spawn_qemu, connect_qemu   start a QEMU paused, reach its QMP and serial port
  QMP, Serial                a QMP client; a guest's COM1, a byte at a time
                             (UnexpectedByte: it said another)
  wait_migration, wait_status  poll QMP until a migration or a run state
  ram_mapping, proc_*, vmstat, kvm_pages, read_thpcow_stats, tlb_shootdowns
                             what a QEMU process's guest RAM looks like
  diagnose, cleanup          what a failed run was waiting for; the QEMUs
                             killed and their logs copied to stderr

Import it with vm/lib on sys.path (vm/mig.py and bench/memtester.py put it there).
"""
import json
import os
import re
import socket
import subprocess
import sys
import time


def connect_unix(path, timeout=120, proc=None):
    """A socket connected to the unix socket path, once QEMU (proc, a
    Popen, if given: an exit ends the wait) listens there."""
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX)
        try:
            s.connect(path)
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
            if proc and proc.poll() is not None:
                raise RuntimeError(f'{path}: QEMU exited, status {proc.returncode}, before it listened')
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class QMP:
    """A QMP client. A QEMU whose main loop stops answering fails the run
    after timeout s instead of holding it until the guest's own timeout."""

    def __init__(self, path, timeout=120, proc=None):
        self.s = connect_unix(path, proc=proc)
        self.s.settimeout(timeout)
        self.f = self.s.makefile('rwb', buffering=0)
        self.broken = None  # why no command can be sent any more
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
        """Run command name; its return value. After one whose answer did
        not come (a timeout: it may come later, as the next one's), every
        command raises."""
        if self.broken:
            raise RuntimeError(f'{name}: not sent: {self.broken}')
        req = {'execute': name}
        if args:
            req['arguments'] = args
        try:
            self.f.write(json.dumps(req).encode() + b'\n')
            r = self._read()
        except OSError as e:
            self.broken = f'{name}: {e!r}'
            raise
        if 'error' in r:
            raise RuntimeError(f'{name}: {r["error"]}')
        return r.get('return')


class UnexpectedByte(RuntimeError):
    """What Serial.expect() raises when the guest says another byte than it
    waited for (got, want: bytes; serial: the Serial)."""

    def __init__(self, serial, got, want):
        super().__init__(f'guest said {got!r}, not {want!r}')
        self.serial, self.got, self.want = serial, got, want


class Serial:
    """The guest's COM1 on a unix socket (QEMU listens): a guest that
    speaks one byte at a time; 'R' (ready) may come at any time. log: the
    commands sent, each [byte, answered], in order (a command is answered
    when expect() gets the byte it waits for, not another)."""

    def __init__(self, path, proc=None):
        self.s = connect_unix(path, proc=proc)
        self.log = []

    def expect(self, want, timeout=300):
        self.s.settimeout(timeout)
        while True:
            c = self.s.recv(1)
            if not c:
                raise EOFError('serial closed')
            if c == want:
                for entry in self.log if want != b'R' else ():
                    if not entry[1]:
                        entry[1] = True
                        break
                return
            if c not in b'R':
                raise UnexpectedByte(self, c, want)

    def send(self, c):
        self.log.append([c, False])
        self.s.sendall(c)


def spawn_qemu(qemu, d, name, ram, boot, extra=(), wrapper=(), accel='tcg'):
    """Start QEMU paused (-S unless -incoming): the caller connects to its
    serial port before the guest can print anything, then continues it.
    boot: the arguments saying what the guest boots (-bios FILE, -kernel
    ...); accel: an accelerator's name, or its QEMU arguments (a list);
    wrapper: the command QEMU runs under. Its QMP socket, serial socket and
    log are d/name.qmp, .serial, .log. Returns (Popen, qmp path, serial path)."""
    qmp = os.path.join(d, name + '.qmp')
    ser = os.path.join(d, name + '.serial')
    accel = ['-accel', accel] if isinstance(accel, str) else list(accel)
    argv = list(wrapper) + [
        qemu, '-nodefaults', '-no-user-config', '-display', 'none',
        '-name', 'debug-threads=on',  # 'CPU N/KVM': diagnose finds the vCPUs
        '-M', 'pc'] + accel + ['-m', str(ram)] + list(boot) + [
        '-chardev', f'socket,id=ser,path={ser},server=on,wait=off',
        '-serial', 'chardev:ser',
        '-qmp', f'unix:{qmp},server=on,wait=off'] + list(extra)
    if '-incoming' not in extra:
        argv.append('-S')
    log = open(os.path.join(d, name + '.log'), 'wb')
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    return p, qmp, ser


def connect_qemu(qmp, ser, proc=None):
    """QMP and Serial of the QEMU spawn_qemu started (proc, its Popen: its
    exit ends the wait for its sockets)."""
    q = QMP(qmp, proc=proc)
    s = Serial(ser, proc=proc)
    return q, s


def wait_migration(qmp, want=('completed',), timeout=900):
    """query-migrate until its status is one of want (its answer); a
    failed or cancelled migration raises."""
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
    """query-status until the run state is want."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = qmp.cmd('query-status')['status']
        if s == want:
            return
        time.sleep(0.05)
    raise TimeoutError(f'destination never {want}')


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
    """The smallest mapping of process pid that holds the guest's RAM (QEMU
    maps it anonymous, 2 MiB aligned): its start and size (bytes), Rss and
    AnonHugePages (kB); start None and the rest 0 when there is none."""
    best = None
    cur = None
    with open(f'/proc/{pid}/smaps') as f:
        for line in f:
            first = line.split(None, 1)[0]
            if '-' in first and not first.endswith(':'):
                a, b = (int(x, 16) for x in first.split('-'))
                cur = {'start': a, 'size': b - a, 'Rss': 0, 'AnonHugePages': 0}
                if b - a >= ram_bytes and (best is None or b - a < best['size']):
                    best = cur
            elif first in ('Rss:', 'AnonHugePages:') and cur is not None:
                cur[first[:-1]] = int(line.split()[1])
    return best or {'start': None, 'size': 0, 'Rss': 0, 'AnonHugePages': 0}


def read_thpcow_stats():
    """thpcow's debugfs counters, {} without the module."""
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


def tlb_shootdowns():
    """TLB shootdown interrupts so far, all CPUs (/proc/interrupts)."""
    with open('/proc/interrupts') as f:
        for line in f:
            if 'TLB shootdowns' in line:
                return sum(int(x) for x in line.split()[1:] if x.isdigit())
    return 0


# What a stopped guest's VM was doing (diagnose): exits of each kind, faults
# taken, fixed and emulated, instructions KVM failed to emulate.
KVM_DIAG = tuple((k, (k,)) for k in (
    'exits', 'io_exits', 'mmio_exits', 'halt_exits', 'pf_taken', 'pf_fixed', 'pf_spurious',
    'pf_emulate', 'insn_emulation', 'insn_emulation_fail', 'pages_4k', 'pages_2m'))


def diagnose(procs, qmps, say, never=None):
    """Tell say() what a failed run was waiting for, for a log that shows
    only its tail: each QEMU's run state, its migration's and where its
    guest is; each QEMU's threads and KVM's counters a second apart.
    never(regs): what of a vCPU's registers (QEMU's `info registers`) the
    guest never enters, or None; returns the names (of qmps) of the QEMUs
    whose vCPU held such a state (the CPU under the guest lost it)."""
    lost = set()
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
            what = never(regs) if never else None
            if what:
                lost.add(name)
                say(f'{name}: its vCPU holds a state the guest never enters ({what}): the CPU '
                    f'under the guest lost its state, not its memory')
        except Exception as e:  # a QEMU that does not answer is an answer too
            say(f'{name}: QMP: {e!r}')
    for p in procs:
        if p.poll() is not None:
            say(f'pid {p.pid}: exited, status {p.returncode}')
            continue
        threads, stacks = [], []
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
            stack = vcpu_stack(p.pid, tid)
            if stack:
                stacks.append(f'pid {p.pid} {stack}')
        say(f'pid {p.pid} threads (tid:state:wchan): {" ".join(threads)}')
        for line in stacks:
            say(line)
        k0 = kvm_stats(p.pid, KVM_DIAG)
        if k0:
            time.sleep(1)
            k1 = kvm_stats(p.pid, KVM_DIAG)
            say(f'pid {p.pid} KVM (count +1 s later): ' +
                ' '.join(f'{k} {v} +{k1.get(k, v) - v}' for k, v in k0.items()))
    return lost


def kernel_stack(task):
    """Where the kernel holds task (/proc/PID or /proc/PID/task/TID):
    'FUNCTION < CALLER < ...', '(running)' when it holds it nowhere, or
    None when it does not say."""
    try:
        with open(f'{task}/stack') as f:
            frames = [line.split()[-1].split('+')[0] for line in f if line.strip()]
    except OSError:
        return None
    return ' < '.join(frames) or '(running)'


def vcpu_stack(pid, tid):
    """'NAME: kernel_stack()' of thread tid of QEMU pid if it runs a vCPU
    (its name is 'CPU N/KVM' or 'CPU N/TCG'), else None."""
    task = f'/proc/{pid}/task/{tid}'
    try:
        with open(f'{task}/comm') as f:
            name = f.read().strip()
    except OSError:
        return None
    if not name.startswith('CPU '):
        return None
    return f'{name}: {kernel_stack(task) or "(the kernel does not say)"}'


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
