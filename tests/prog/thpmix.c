// SPDX-License-Identifier: GPL-2.0
/*
 * thpmix: memory made of 4 KiB pages for thpcowctl collapse to work on, the
 * way a postcopy migration leaves guest RAM. A region of 2 MiB ranges is
 * written under MADV_NOHUGEPAGE, range k getting the k-th (cycling) entry
 * of --pattern: W pages of data, then Z pages only read (zero-page PTEs),
 * the rest untouched; then MADV_HUGEPAGE. --uffd adds a second region, all
 * data, registered with userfaultfd afterwards. It prints "ready" and
 * waits; on SIGUSR1 it checks every byte and reports which ranges are THPs
 * (pagemap and kpageflags: run as root), then exits. With --postcopy, each
 * SIGUSR2 plays the next step of what QEMU does to guest RAM on the
 * destination of a postcopy migration: the first marks the region
 * MADV_NOHUGEPAGE and registers it with userfaultfd (postcopy begins), the
 * second marks it MADV_HUGEPAGE again and unregisters it (it ends). With
 * --open-first the first only opens the userfaultfd (QEMU opens it and
 * starts its fault thread before it registers guest RAM), the second
 * registers the region, the third ends the postcopy.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prog.h"

#define PAGE		4096UL
#define HPAGE		(2UL << 20)
#define PTES		512
#define MAX_PATTERN	64

static unsigned int pat_w[MAX_PATTERN], pat_z[MAX_PATTERN], pat_n;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: thpmix [--size MiB] [--pattern W[/Z],...] [--uffd MiB] [--postcopy [--open-first]]\n"
"\n"
"  --size MiB        the region (default 64), 2 MiB aligned\n"
"  --pattern LIST    per 2 MiB range, cycling: W pages written, then Z\n"
"                    pages read (default 512)\n"
"  --uffd MiB        a second region, all data, under userfaultfd (0)\n"
"  --postcopy        SIGUSR2 begins, then ends, a postcopy on the region\n"
"  --open-first      the first SIGUSR2 only opens the userfaultfd\n"
"\n"
"Prints region=, uffd_region=, ready; on SIGUSR2 postcopy=opened|begun|ended;\n"
"on SIGUSR1: verify=ok|fail,\n"
"thp_map= (H: a THP, .: not, per range), anon_huge_kb=.\n");
}

/* The byte at offset off of a written page: never 0. */
static uint8_t pattern_byte(size_t off)
{
	return (uint8_t)((off >> 12) * 131 + (off & (PAGE - 1)) * 7) | 1;
}

static uint8_t *map_aligned(size_t size)
{
	uint8_t *p = mmap(NULL, size + HPAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	return (uint8_t *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
}

static void parse_pattern(char *s)
{
	char *tok, *save;

	pat_n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *slash = strchr(tok, '/');

		if (pat_n == MAX_PATTERN)
			die(EXIT_USAGE, "--pattern: more than %d entries", MAX_PATTERN);
		if (slash)
			*slash = '\0';
		pat_w[pat_n] = number_arg("--pattern", tok, 0, PTES);
		pat_z[pat_n] = slash ? number_arg("--pattern", slash + 1, 0,
						  PTES - pat_w[pat_n]) : 0;
		pat_n++;
	}
	if (!pat_n)
		die(EXIT_USAGE, "--pattern: empty");
}

static void fill(uint8_t *base, size_t size)
{
	volatile uint8_t sink = 0;
	size_t r, i, off;

	for (r = 0; r < size / HPAGE; r++) {
		unsigned int w = pat_w[r % pat_n], z = pat_z[r % pat_n];

		for (i = 0; i < w * PAGE; i++) {
			off = r * HPAGE + i;
			base[off] = pattern_byte(off);
		}
		for (i = w; i < w + z; i++)
			sink += base[r * HPAGE + i * PAGE];
	}
	(void)sink;
}

static bool verify(const uint8_t *base, size_t size, bool all_data)
{
	size_t r, i, off;

	for (r = 0; r < size / HPAGE; r++) {
		size_t w = all_data ? PTES : pat_w[r % pat_n];

		for (i = 0; i < HPAGE; i++) {
			off = r * HPAGE + i;
			if (base[off] != (i < w * PAGE ? pattern_byte(off) : 0)) {
				printf("mismatch=0x%zx\n", off);
				return false;
			}
		}
	}
	return true;
}

/* One character per range: H when it is mapped by one aligned THP. */
static void thp_map(const uint8_t *base, size_t size)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), kpf = open("/proc/kpageflags", O_RDONLY);
	uint64_t e[PTES], flags, pfn0;
	size_t r, i;
	bool thp;

	if (pm < 0 || kpf < 0) {	/* page frames: root only */
		printf("thp_map=unreadable (%s)\n", strerror(errno));
		return;
	}
	fputs("thp_map=", stdout);
	for (r = 0; r < size / HPAGE; r++) {
		if (pread(pm, e, sizeof(e), ((uintptr_t)base + r * HPAGE) / PAGE * 8) !=
		    sizeof(e))
			die(1, "pagemap: %s", strerror(errno));
		pfn0 = e[0] & ((1ULL << 55) - 1);
		thp = pfn0 % PTES == 0;
		for (i = 0; i < PTES; i++)
			thp &= (e[i] >> 63) && (e[i] & ((1ULL << 55) - 1)) == pfn0 + i;
		if (thp && pread(kpf, &flags, 8, pfn0 * 8) == 8)
			thp = (flags >> 22 & 1) && !(flags >> 24 & 1);
		putchar(thp ? 'H' : '.');
	}
	putchar('\n');
	close(pm);
	close(kpf);
}

static uint64_t anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[256], perms[5];
	unsigned long start, end;
	uint64_t v = 0;
	bool in = false;

	if (!f)
		die(1, "smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) == 3)
			in = start <= (uintptr_t)addr && (uintptr_t)addr < end;
		else if (in && sscanf(line, "AnonHugePages: %lu", &start) == 1)
			v = start;
	}
	fclose(f);
	return v;
}

/* A userfaultfd, its API set, nothing registered yet. */
static int open_uffd(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);

	if (fd < 0 || ioctl(fd, UFFDIO_API, &api))
		die(1, "userfaultfd: %s", strerror(errno));
	return fd;
}

/* [p, p + size) registered with userfaultfd fd for missing pages. */
static void register_uffd(int fd, uint8_t *p, size_t size)
{
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)p, .len = size },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	if (ioctl(fd, UFFDIO_REGISTER, &reg))
		die(1, "userfaultfd: register: %s", strerror(errno));
}

/* Where --postcopy's steps are. */
enum postcopy { PC_BEFORE, PC_OPENED, PC_REGISTERED, PC_OVER };

/*
 * --postcopy's SIGUSR2: the next step of a postcopy on the region, in
 * QEMU's order (migration/postcopy-ram.c: nhp_range; the userfaultfd opened
 * and the fault thread started, then ram_block_enable_notify; at the end
 * cleanup_range, then the file closed); *uffd is the userfaultfd once opened.
 */
static void postcopy_step(uint8_t *p, size_t size, enum postcopy *pc, int *uffd,
			  bool open_first)
{
	struct uffdio_range range = { .start = (uintptr_t)p, .len = size };

	if (*pc == PC_BEFORE) {
		if (madvise(p, size, MADV_NOHUGEPAGE))
			die(1, "madvise: %s", strerror(errno));
		*uffd = open_uffd();
		*pc = PC_OPENED;
		if (open_first) {
			puts("postcopy=opened");
			fflush(stdout);
			return;
		}
	}
	if (*pc == PC_OPENED) {
		register_uffd(*uffd, p, size);
		*pc = PC_REGISTERED;
		puts("postcopy=begun");
	} else if (*pc == PC_REGISTERED) {
		if (madvise(p, size, MADV_HUGEPAGE) ||
		    ioctl(*uffd, UFFDIO_UNREGISTER, &range) || close(*uffd))
			die(1, "postcopy's end: %s", strerror(errno));
		*pc = PC_OVER;	/* later SIGUSR2s do nothing */
		puts("postcopy=ended");
	}
	fflush(stdout);
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "uffd", required_argument, NULL, 'u' },
		{ "postcopy", no_argument, NULL, 'P' },
		{ "open-first", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	size_t size = 64 * (1UL << 20), usize = 0;
	char def[] = "512";
	uint8_t *region, *uregion = NULL;
	sigset_t set;
	bool ok, postcopy = false, open_first = false;
	enum postcopy pc = PC_BEFORE;
	int opt, sig, pc_uffd = -1;

	parse_pattern(def);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			size = number_arg("--size", optarg, 2, 1 << 20) << 20;
			break;
		case 'p':
			parse_pattern(optarg);
			break;
		case 'u':
			usize = number_arg("--uffd", optarg, 0, 1 << 20) << 20;
			break;
		case 'P':
			postcopy = true;
			break;
		case 'O':
			open_first = true;
			break;
		default:
			usage_exit(usage, opt == 'h');
		}
	}
	no_operands(argc, argv, optind);
	if (open_first && !postcopy)
		die(EXIT_USAGE, "--open-first goes with --postcopy");
	if (size % HPAGE || usize % HPAGE)
		die(EXIT_USAGE, "sizes must be multiples of 2 MiB");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);

	region = map_aligned(size);
	if (madvise(region, size, MADV_NOHUGEPAGE))
		die(1, "madvise: %s", strerror(errno));
	fill(region, size);
	if (madvise(region, size, MADV_HUGEPAGE))
		die(1, "madvise: %s", strerror(errno));
	printf("region=0x%lx\n", (unsigned long)(uintptr_t)region);
	if (usize) {
		uregion = map_aligned(usize);
		madvise(uregion, usize, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < usize; off++)
			uregion[off] = pattern_byte(off);
		madvise(uregion, usize, MADV_HUGEPAGE);
		register_uffd(open_uffd(), uregion, usize);
		printf("uffd_region=0x%lx\n", (unsigned long)(uintptr_t)uregion);
	}
	printf("ready\n");
	fflush(stdout);

	while (!sigwait(&set, &sig) && sig == SIGUSR2)
		if (postcopy)
			postcopy_step(region, size, &pc, &pc_uffd, open_first);
	ok = verify(region, size, false);
	if (uregion)
		ok &= verify(uregion, usize, true);
	printf("verify=%s\n", ok ? "ok" : "fail");
	thp_map(region, size);
	if (uregion) {
		fputs("uffd_", stdout);
		thp_map(uregion, usize);
	}
	printf("anon_huge_kb=%lu\n", (unsigned long)anon_huge_kb(region));
	return ok ? 0 : 1;
}
