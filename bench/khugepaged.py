#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/khugepaged.py: workload 4 of make bench (run in a guest by
bench/guest/khugepaged.sh): THP coverage over time, khugepaged's
against thpcow's.

For each case, prog/wrf maps MiB, reads one byte per 2 MiB, writes one
byte per 4 KiB and then holds its region, while this samples the region's
AnonHugePages (/proc/PID/smaps) from the start of the write phase on:
  stock-default  the kernel's split path, then khugepaged at its defaults
  stock-tuned    the same with khugepaged/scan_sleep_millisecs lowered
  zero           under thpcow zero (thpcowctl exec zero)
  first-touch    no read phase (the floor)
Prints JSON lines: one per sample {"w":4,"case","t" (s since the write
phase began),"anon_huge_kb","writing",...}; each case's last line also
carries wrf's results ("wrf")."""
import argparse
import json
import os
import subprocess
import tempfile
import time

KHP = '/sys/kernel/mm/transparent_hugepage/khugepaged/'


def read(path):
    with open(path) as f:
        return f.read().strip()


def vmstat(key):
    with open('/proc/vmstat') as f:
        for line in f:
            k, v = line.split()
            if k == key:
                return int(v)
    return 0


def region_kb(pid, size_kb):
    """AnonHugePages (kB) of pid's mapping of exactly size_kb."""
    in_r = False
    try:
        with open(f'/proc/{pid}/smaps') as f:
            for line in f:
                if line.startswith('Size:'):
                    in_r = int(line.split()[1]) == size_kb
                elif in_r and line.startswith('AnonHugePages:'):
                    return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def watch(args, case, secs, wrapper=()):
    size_kb = args.size * 1024
    d = tempfile.mkdtemp(prefix='thpcow-khp.')
    start = os.path.join(d, 'start')
    argv = list(wrapper) + [args.wrf, '--size', str(args.size), '--json', '--hold',
                            '--between', f'touch {start}']
    if case == 'first-touch':
        argv.append('--no-read')
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    os.set_blocking(p.stdout.fileno(), False)
    while not os.path.exists(start):
        time.sleep(0.005)
    t0 = time.monotonic()
    col0, scans0 = vmstat('thp_collapse_alloc'), int(read(KHP + 'full_scans'))
    out, end = '', None
    base = {'w': 4, 'kernel': os.uname().release, 'case': case, 'size_mib': args.size,
            'scan_sleep_ms': int(read(KHP + 'scan_sleep_millisecs')),
            'pages_to_scan': int(read(KHP + 'pages_to_scan'))}
    while True:
        now = time.monotonic()
        kb = region_kb(p.pid, size_kb)
        if end is None:
            try:
                out += os.read(p.stdout.fileno(), 65536).decode()
            except BlockingIOError:
                pass
            if '\nready' in out:
                end = now
        s = dict(base, t=round(now - t0, 3), anon_huge_kb=kb, writing=end is None,
                 thp_collapse_alloc=vmstat('thp_collapse_alloc') - col0,
                 full_scans=int(read(KHP + 'full_scans')) - scans0)
        if end is not None and (kb >= size_kb or now - end > secs):
            s['wrf'] = json.loads(out.split('\n')[0])
            print(json.dumps(s), flush=True)
            break
        print(json.dumps(s), flush=True)
        time.sleep(args.interval)
    p.stdin.close()
    p.wait()
    os.unlink(start)
    os.rmdir(d)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--size', type=int, default=1024, help='MiB')
    ap.add_argument('--secs', type=float, default=60,
                    help='how long to watch after the write phase')
    ap.add_argument('--tuned-ms', type=int, default=10, help='scan_sleep_millisecs, tuned')
    ap.add_argument('--interval', type=float, default=0.2)
    ap.add_argument('--wrf', default=os.path.join(repo, 'prog/wrf'))
    ap.add_argument('--ctl', default=os.path.join(repo, 'tools/thpcowctl/thpcowctl'))
    args = ap.parse_args()
    # warm up
    subprocess.run([args.wrf, '--size', str(args.size * 2), '--no-read'], check=True,
                   stdout=subprocess.DEVNULL)
    dflt = read(KHP + 'scan_sleep_millisecs')
    watch(args, 'stock-default', args.secs)
    with open(KHP + 'scan_sleep_millisecs', 'w') as f:
        f.write(str(args.tuned_ms))
    try:
        watch(args, 'stock-tuned', args.secs)
    finally:
        with open(KHP + 'scan_sleep_millisecs', 'w') as f:
            f.write(dflt)
    if os.path.exists('/dev/thpcow'):
        watch(args, 'zero', 1, [args.ctl, 'exec', 'zero', '--'])
    watch(args, 'first-touch', 1)


if __name__ == '__main__':
    main()
