// SPDX-License-Identifier: GPL-2.0
/*
 * fragment: leave the page allocator without free 2 MiB blocks, so that a
 * THP allocation that may not compact (THP defrag 'never') fails.
 *
 * It takes all free memory but --leave MiB in 4 KiB pages (MADV_NOHUGEPAGE,
 * so neither the fault nor khugepaged makes THPs of it), then gives back
 * every other 4 KiB page: about half of that memory is free again, but no
 * free page has its buddy, and nothing larger than 4 KiB can be formed until
 * something migrates the pages held (compaction: switch off proactive
 * compaction, vm.compaction_proactiveness, for as long as it runs).
 *
 * Prints "free_kb=N" (free memory once fragmented) and "free_2m=N" (free
 * blocks of 2 MiB or more, from /proc/buddyinfo), then "ready", and waits
 * for a signal; with --for SECONDS it exits after that long instead.
 */
#include <getopt.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#define PAGE	4096UL
#define MIB	(1UL << 20)
#define HPAGE_ORDER	9

static void usage(FILE *f)
{
	fprintf(f,
"usage: fragment [--leave MiB] [--for SECONDS]\n"
"  --leave MiB     free memory not taken at all (default 64)\n"
"  --for SECONDS   hold the memory this long (default: until a signal)\n");
}

/* A "Key:  N kB" line of /proc/meminfo, in kB. */
static unsigned long meminfo_kb(const char *key)
{
	unsigned long kb = 0;
	char line[256];
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		die(1, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			kb = strtoul(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}

/* Free blocks of order HPAGE_ORDER and above, all zones. */
static unsigned long free_huge_blocks(void)
{
	unsigned long n = 0, count;
	char line[512], *p, *end;
	FILE *f = fopen("/proc/buddyinfo", "r");
	int order;

	if (!f)
		die(1, "/proc/buddyinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		/* "Node 0, zone   Normal   c0 c1 ... c10" */
		p = strstr(line, "zone");
		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		p += strcspn(p, " ");	/* the zone's name */
		for (order = 0;; order++) {
			count = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (order >= HPAGE_ORDER)
				n += count << (order - HPAGE_ORDER);
			p = end;
		}
	}
	fclose(f);
	return n;
}

static void on_signal(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "leave", required_argument, NULL, 'l' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned long leave = 64, seconds = 0, free_kb, len, off;
	char *mem;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			leave = number_arg("--leave", optarg, 0, 1UL << 20);
			break;
		case 'f':
			seconds = number_arg("--for", optarg, 1, 86400);
			break;
		default:
			usage_exit(usage, c == 'h');
		}
	}
	no_operands(argc, argv, optind);

	free_kb = meminfo_kb("MemFree");
	if (free_kb <= leave * 1024 + 1024)
		die(1, "only %lu kB free, less than --leave %lu MiB", free_kb,
		    leave);
	len = (free_kb - leave * 1024) * 1024 & ~(PAGE - 1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		die(1, "mmap %lu bytes: %s", len, strerror(errno));
	if (madvise(mem, len, MADV_NOHUGEPAGE))
		die(1, "MADV_NOHUGEPAGE: %s", strerror(errno));
	for (off = 0; off < len; off += PAGE)
		mem[off] = 1;
	for (off = PAGE; off < len; off += 2 * PAGE)
		if (madvise(mem + off, PAGE, MADV_DONTNEED))
			die(1, "MADV_DONTNEED: %s", strerror(errno));

	printf("held_kb=%lu\n", len / 2 / 1024);
	printf("free_kb=%lu\n", meminfo_kb("MemFree"));
	printf("free_2m=%lu\n", free_huge_blocks());
	printf("ready\n");
	fflush(stdout);

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (seconds)
		sleep(seconds);
	else
		pause();
	return 0;
}
