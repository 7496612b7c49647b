// SPDX-License-Identifier: GPL-2.0
/*
 * forcewrite: a FOLL_FORCE write, as ptrace and debuggers make, into a
 * read-only private anonymous mapping whose huge zero page was mapped by a
 * read. Maps 4 MiB PROT_READ, reads the byte at the 2 MiB boundary, writes
 * it with pwrite() to /proc/self/mem (GUP with FOLL_FORCE | FOLL_WRITE),
 * and prints key=value lines: faults (minor faults the pwrite() took: GUP
 * faults count for the caller), anon_huge_kb (AnonHugePages of the
 * mapping), verify (the byte reads back through the mapping, the rest of
 * the 2 MiB is zero). Exits 4 where the kernel refuses the write (EIO:
 * proc_mem.force_override, CONFIG_PROC_MEM_NO_FORCE).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "prog.h"

#define HPAGE	(2UL << 20)

static long minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die(1, "getrusage: %s", strerror(errno));
	return ru.ru_minflt;
}

/* AnonHugePages (kB) of the VMA holding addr, from smaps. */
static uint64_t anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[256];
	uint64_t v = 0, lo, hi;
	bool in = false;

	if (!f)
		die(1, "/proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " ", &lo, &hi) == 2)
			in = lo <= (uintptr_t)addr && (uintptr_t)addr < hi;
		else if (in)
			sscanf(line, "AnonHugePages: %" SCNu64, &v);
	}
	fclose(f);
	return v;
}

int main(int argc, char *argv[])
{
	const char byte = 0x5a;
	volatile const char *p;
	char *base;
	long before, after;
	size_t i;
	bool ok;
	int fd;

	if (argc != 1)
		die(EXIT_USAGE, "usage: forcewrite (no arguments)");
	(void)argv;
	base = mmap(NULL, 2 * HPAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	p = (const char *)(((uintptr_t)base + HPAGE - 1) & ~(HPAGE - 1));
	if (*p)
		die(1, "fresh memory is not zero");
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(1, "/proc/self/mem: %s", strerror(errno));

	before = minflt();
	if (pwrite(fd, &byte, 1, (off_t)(uintptr_t)p) != 1)
		/* EIO: the kernel refuses FOLL_FORCE there (proc_mem.force_override) */
		die(errno == EIO ? 4 : 1, "pwrite /proc/self/mem: %s", strerror(errno));
	after = minflt();

	ok = p[0] == byte;
	for (i = 1; ok && i < HPAGE; i++)
		ok = !p[i];
	printf("faults=%ld\nanon_huge_kb=%" PRIu64 "\nverify=%s\n",
	       after - before, anon_huge_kb((const void *)p), ok ? "ok" : "fail");
	return ok ? 0 : 1;
}
