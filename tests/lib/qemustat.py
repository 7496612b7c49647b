#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/lib/qemustat.py PID MIB: what a QEMU process's guest RAM (MIB
MiB) looks like now, as key=value lines, for the guest scripts that find
QEMU started by someone else (libvirt: tests/guest/libvirt.sh): minflt
(the process's minor faults so far), rss_kb and anon_huge_kb (of its RAM
mapping), and under KVM pages_2m and pages_4k (KVM's mappings of it).
vm/lib/qemu.py's helpers, which vm/mig.py uses the same way."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'vm', 'lib'))
from qemu import kvm_pages, proc_minflt, ram_mapping  # noqa: E402


def main():
    pid, mib = int(sys.argv[1]), int(sys.argv[2])
    m = ram_mapping(pid, mib * 2**20)
    print(f'minflt={proc_minflt(pid)}')
    print(f"rss_kb={m['Rss']}")
    print(f"anon_huge_kb={m['AnonHugePages']}")
    for k, v in sorted(kvm_pages(pid).items()):
        print(f'{k}={v}')


if __name__ == '__main__':
    main()
