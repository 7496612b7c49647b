#!/usr/bin/env python3
"""tests/lib/thpregion.py ACTION MIB: THPs first-touched in a 2 MiB-aligned
private anonymous region of MIB MiB (MADV_HUGEPAGE), one byte written per
2 MiB, then ACTION; prints one number. For tests/guest/modes.sh.

  softdirty   write-protect the THPs by clearing their soft-dirty bits
              (/proc/self/clear_refs 4: they stay exclusive, the process's
              own) and write one byte per 2 MiB again; prints AnonHugePages
              kB of the region after
  pin-shared  fork, and read 4 KiB of each 2 MiB of the child's memory with
              process_vm_readv(), which pins the child's pages read-only
              (FOLL_PIN): each THP the two share is unshared first (5.19
              on); prints the bytes read
"""
import ctypes
import os
import re
import sys

HP = 2 << 20
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def region(size):
    """A 2 MiB-aligned RW private anonymous region with MADV_HUGEPAGE."""
    raw = libc.mmap(None, size + HP, 3, 0x22, -1, 0)  # RW, PRIVATE|ANONYMOUS
    base = (raw + HP - 1) & ~(HP - 1)
    libc.madvise(ctypes.c_void_p(base), ctypes.c_size_t(size), 14)  # MADV_HUGEPAGE
    return base


def touch(base, size):
    for off in range(0, size, HP):
        ctypes.c_char.from_address(base + off).value = b"x"


def anon_huge_kb(base):
    kb, inside = 0, False
    for line in open("/proc/self/smaps"):
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
        if m:
            inside = int(m.group(1), 16) <= base < int(m.group(2), 16)
        elif inside and line.startswith("AnonHugePages:"):
            kb = int(line.split()[1])
    return kb


def softdirty(base, size):
    with open("/proc/self/clear_refs", "w") as f:
        f.write("4")
    touch(base, size)
    return anon_huge_kb(base)


def pin_shared(base, size):
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.read(r, 1)
        os._exit(0)
    buf = ctypes.create_string_buffer(4096)
    total = 0
    for off in range(0, size, HP):
        local = Iovec(ctypes.cast(buf, ctypes.c_void_p), 4096)
        remote = Iovec(base + off, 4096)
        n = libc.process_vm_readv(child, ctypes.byref(local), 1,
                                  ctypes.byref(remote), 1, 0)
        if n != 4096 or buf.raw[0:1] != b"x":
            sys.exit("process_vm_readv: %d, errno %d" % (n, ctypes.get_errno()))
        total += n
    os.write(w, b"x")
    os.waitpid(child, 0)
    return total


def main():
    actions = {"softdirty": softdirty, "pin-shared": pin_shared}
    if len(sys.argv) != 3 or sys.argv[1] not in actions:
        sys.exit(__doc__)
    size = int(sys.argv[2]) << 20
    base = region(size)
    touch(base, size)
    print(actions[sys.argv[1]](base, size))


if __name__ == "__main__":
    main()
