// SPDX-License-Identifier: GPL-2.0
/*
 * faultbench: the page-fault microbenchmarks of make bench's workload 3
 * (what thpcow costs everybody else). Each test runs --iters times and
 * prints one JSON object with the total time of the timed parts:
 *
 *   fault4k  map --size MiB with MADV_NOHUGEPAGE, write one byte per 4 KiB
 *            (timed: 4 KiB anonymous first-touch faults), unmap
 *   reuse    a region of THPs (first touch, untimed); each iteration forks
 *            a child that exits at once, then writes one byte per 2 MiB
 *            (timed): every write is a write fault on a write-protected,
 *            now exclusive huge PMD, which the kernel reuses in place
 *            (do_huge_pmd_wp_page, the function thpcow hooks)
 *   cow      each iteration maps and first-touches a region of THPs
 *            (untimed), forks a child that waits, and writes one byte per
 *            2 MiB (timed): a write fault on a shared anon THP, which the
 *            kernel splits and copies 4 KiB of (also do_huge_pmd_wp_page)
 *   fork     fork + exit + wait of a small process (timed; thpcow has
 *            tracepoint probes on fork and exit)
 *   forkwrite (workload 6, mode copy) each iteration maps and first-touches
 *            a region of THPs (untimed) and forks a child that writes one
 *            byte per --stride (timed: write faults on anon THPs shared
 *            with the parent) and reports its faults and what its region
 *            then holds: Private (the memory its writes cost) and
 *            AnonHugePages; the parent checks that its data are untouched
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB	(1UL << 20)
#define HPAGE	(2 * MIB)
#define PAGE	4096UL

static void die(const char *what)
{
	fprintf(stderr, "faultbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* size bytes, 2 MiB aligned */
static uint8_t *map_aligned(size_t size, int advice)
{
	uint8_t *raw, *p;

	raw = mmap(NULL, size + HPAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		die("mmap");
	p = (uint8_t *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
	if (p > raw)
		munmap(raw, p - raw);
	munmap(p + size, raw + HPAGE - p);
	if (madvise(p, size, advice))
		die("madvise");
	return p;
}

static void touch(uint8_t *p, size_t size, size_t stride, uint8_t v)
{
	volatile uint8_t *q = p;
	size_t off;

	for (off = 0; off < size; off += stride)
		q[off] = v;
}

struct result {
	uint64_t ns, faults, ops;
	double best;	/* the fastest iteration's ns per op */
	uint64_t private_kb, anon_huge_kb;	/* forkwrite: the last child's */
};

/* One timed iteration: ns for ops operations. */
static void account(struct result *r, uint64_t ns, uint64_t ops)
{
	double per = (double)ns / ops;

	r->ns += ns;
	r->ops += ops;
	if (r->best == 0 || per < r->best)
		r->best = per;
}

static void fault4k(size_t size, unsigned int iters, struct result *r)
{
	unsigned int i;
	uint64_t t, f;

	for (i = 0; i < iters; i++) {
		uint8_t *p = map_aligned(size, MADV_NOHUGEPAGE);

		f = minflt();
		t = now_ns();
		touch(p, size, PAGE, 1);
		account(r, now_ns() - t, size / PAGE);
		r->faults += minflt() - f;
		munmap(p, size);
	}
}

/* A child that exits at once, or when fds[1] is closed (fds may be NULL) */
static pid_t fork_child(const int *fds)
{
	char c;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (fds) {
			close(fds[1]);
			if (read(fds[0], &c, 1) < 0)
				_exit(1);
		}
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("child");
}

static void reuse(size_t size, unsigned int iters, struct result *r)
{
	uint8_t *p = map_aligned(size, MADV_HUGEPAGE);
	unsigned int i;
	uint64_t t, f;

	touch(p, size, PAGE, 1);
	for (i = 0; i < iters; i++) {
		reap(fork_child(NULL));
		f = minflt();
		t = now_ns();
		touch(p, size, HPAGE, (uint8_t)(i + 2));
		account(r, now_ns() - t, size / HPAGE);
		r->faults += minflt() - f;
	}
	munmap(p, size);
}

static void cow(size_t size, unsigned int iters, struct result *r)
{
	unsigned int i;
	uint64_t t, f;
	int fds[2];
	pid_t pid;

	for (i = 0; i < iters; i++) {
		uint8_t *p = map_aligned(size, MADV_HUGEPAGE);

		touch(p, size, PAGE, 1);
		if (pipe(fds))
			die("pipe");
		pid = fork_child(fds);
		f = minflt();
		t = now_ns();
		touch(p, size, HPAGE, 2);
		account(r, now_ns() - t, size / HPAGE);
		r->faults += minflt() - f;
		close(fds[1]);
		close(fds[0]);
		reap(pid);
		munmap(p, size);
	}
}

/* Private and AnonHugePages (kB) of this process's mapping that starts at p */
static void region_kb(const uint8_t *p, uint64_t *private_kb,
		      uint64_t *anon_huge_kb)
{
	unsigned long start, end, kb;
	char line[256], key[64];
	bool in = false;
	FILE *f;

	*private_kb = *anon_huge_kb = 0;
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		die("/proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start == (uintptr_t)p;
		else if (in && sscanf(line, "%63s %lu", key, &kb) == 2) {
			if (!strcmp(key, "Private_Clean:") ||
			    !strcmp(key, "Private_Dirty:"))
				*private_kb += kb;
			else if (!strcmp(key, "AnonHugePages:"))
				*anon_huge_kb = kb;
		}
	}
	fclose(f);
}

static void forkwrite(size_t size, size_t stride, unsigned int iters,
		      struct result *r)
{
	struct result *child = mmap(NULL, sizeof(*child), PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	unsigned int i;
	uint64_t t, f;
	size_t off;
	pid_t pid;

	if (child == MAP_FAILED)
		die("mmap");
	for (i = 0; i < iters; i++) {
		uint8_t *p = map_aligned(size, MADV_HUGEPAGE);

		touch(p, size, PAGE, 1);
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			memset(child, 0, sizeof(*child));
			f = minflt();
			t = now_ns();
			touch(p, size, stride, 2);
			account(child, now_ns() - t, size / stride);
			child->faults = minflt() - f;
			region_kb(p, &child->private_kb, &child->anon_huge_kb);
			_exit(0);
		}
		reap(pid);
		account(r, child->ns, child->ops);
		r->faults += child->faults;
		r->private_kb = child->private_kb;
		r->anon_huge_kb = child->anon_huge_kb;
		for (off = 0; off < size; off += PAGE)
			if (p[off] != 1) {
				errno = EIO;
				die("the parent's data changed");
			}
		munmap(p, size);
	}
	munmap(child, sizeof(*child));
}

static void forks(unsigned int iters, struct result *r)
{
	unsigned int i;
	uint64_t t;

	for (i = 0; i < iters; i++) {
		t = now_ns();
		reap(fork_child(NULL));
		account(r, now_ns() - t, 1);
	}
}

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: faultbench fault4k|reuse|cow|fork|forkwrite [--size MiB]\n"
		"                  [--iters N] [--stride BYTES (forkwrite)]\n"
		"Prints {\"test\":...,\"ns\":...,\"ops\":...,\"ns_per_op\":...,\n"
		"        \"best_ns_per_op\":...,\"faults\":...,\"private_kb\":...,\n"
		"        \"anon_huge_kb\":...}\n");
	exit(status);
}

int main(int argc, char *argv[])
{
	struct result r = { 0 };
	size_t size = 64 * MIB, stride = PAGE;
	unsigned int iters = 10;
	const char *test;
	int i;

	if (argc < 2 || !strcmp(argv[1], "--help"))
		usage(argc < 2 ? 2 : 0);
	test = argv[1];
	for (i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--size"))
			size = strtoul(argv[i + 1], NULL, 10) * MIB;
		else if (!strcmp(argv[i], "--iters"))
			iters = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--stride"))
			stride = strtoul(argv[i + 1], NULL, 10);
		else
			usage(2);
	}
	if (i != argc || !size || size % HPAGE || !iters || !stride ||
	    stride > size)
		usage(2);

	if (!strcmp(test, "fault4k"))
		fault4k(size, iters, &r);
	else if (!strcmp(test, "reuse"))
		reuse(size, iters, &r);
	else if (!strcmp(test, "cow"))
		cow(size, iters, &r);
	else if (!strcmp(test, "fork"))
		forks(iters, &r);
	else if (!strcmp(test, "forkwrite"))
		forkwrite(size, stride, iters, &r);
	else
		usage(2);
	printf("{\"test\":\"%s\",\"size_mib\":%zu,\"iters\":%u,\"ns\":%" PRIu64
	       ",\"ops\":%" PRIu64 ",\"ns_per_op\":%.1f,\"best_ns_per_op\":%.1f"
	       ",\"faults\":%" PRIu64 ",\"stride\":%zu,\"private_kb\":%" PRIu64
	       ",\"anon_huge_kb\":%" PRIu64 "}\n",
	       test, size / MIB, iters, r.ns, r.ops,
	       r.ops ? (double)r.ns / r.ops : 0.0, r.best, r.faults, stride,
	       r.private_kb, r.anon_huge_kb);
	return 0;
}
