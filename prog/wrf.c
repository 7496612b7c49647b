// SPDX-License-Identifier: GPL-2.0
/*
 * wrf: write after read fault. Maps an anonymous region, reads one byte per
 * 2 MiB (which maps the huge zero page where THP is on), then writes one
 * byte per stride and measures what the writes cost: time, minor faults,
 * THP events from /proc/vmstat (system-wide) and what the region ended up
 * as (AnonHugePages, Rss). See usage() for the options.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

#define MIB		(1UL << 20)
#define HPAGE		(2 * MIB)
#define MAX_THREADS	1024

struct options {
	size_t size;		/* bytes */
	size_t stride;
	unsigned int threads;
	unsigned int readers;
	int advice;		/* MADV_*, or -1 for none */
	bool read;
	bool hold;
	bool verify;
	bool json;
	bool fork_child;
	bool fork_exit;
	const char *between;	/* shell command between read and write */
	unsigned int repeat;	/* whole runs in this one process */
};

/* What one write phase cost and left behind. */
struct phase {
	uint64_t time_ns;
	uint64_t faults;
	uint64_t thp_split_pmd;
	uint64_t thp_fault_alloc;
	uint64_t thp_fault_fallback;
	uint64_t anon_huge_kb;
	uint64_t rss_kb;
	enum { SKIPPED, OK, FAIL } verify;
};

static const char *const verify_names[] = { "skipped", "ok", "fail" };

static uint8_t *region;
static atomic_bool readers_stop;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: wrf [--size MiB] [--no-read] [--stride BYTES] [--threads N]\n"
"           [--readers N] [--madvise hugepage|nohugepage|none] [--hold]\n"
"           [--verify] [--json] [--fork-child-write | --fork-child-exit]\n"
"           [--between CMD] [--repeat N]\n"
"\n"
"  --size MiB          region size (default 512), 2 MiB aligned\n"
"  --no-read           skip the read phase (no huge zero page first)\n"
"  --stride BYTES      write one byte every BYTES (default 4096)\n"
"  --threads N         writers, each with its own contiguous slice (1)\n"
"  --readers N         threads that keep reading every 2 MiB while the\n"
"                      writers run (0)\n"
"  --madvise ADVICE    madvise() the region first (default none)\n"
"  --verify            check every byte after writing; exit 1 on a mismatch\n"
"  --json              one JSON object instead of key=value lines\n"
"  --fork-child-write  then fork: the child writes every stride again (CoW\n"
"                      of what the parent wrote) and reports child_* keys\n"
"  --fork-child-exit   then fork a child that exits at once, and write\n"
"                      every stride again in the parent (its THPs are its\n"
"                      own again); reports that write as again_* keys\n"
"  --between CMD       run the shell command CMD after the read phase\n"
"                      and before the write phase (exit 1 if it fails)\n"
"  --repeat N          do the whole run N times in this process, with a\n"
"                      fresh region each time; report the last, verify all\n"
"  --hold              print 'ready' at the end, then wait for EOF on stdin\n"
"                      or a signal (only a signal if stdin is /dev/null)\n");
}

/* The byte written at off: nonzero, and different for the child (gen 1). */
static uint8_t pattern(size_t off, int gen)
{
	uint64_t x = (uint64_t)off * 0x9e3779b97f4a7c15ULL;

	return (uint8_t)((x >> 57) | 1 | (gen ? 0x80 : 0));
}

static uint64_t minor_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

struct vmstat {
	uint64_t thp_split_pmd, thp_fault_alloc, thp_fault_fallback;
};

static void read_vmstat(struct vmstat *vs)
{
	FILE *f = fopen("/proc/vmstat", "re");
	char name[64];
	uint64_t v;

	memset(vs, 0, sizeof(*vs));
	if (!f)
		die(1, "/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %" SCNu64, name, &v) == 2) {
		if (!strcmp(name, "thp_split_pmd"))
			vs->thp_split_pmd = v;
		else if (!strcmp(name, "thp_fault_alloc"))
			vs->thp_fault_alloc = v;
		else if (!strcmp(name, "thp_fault_fallback"))
			vs->thp_fault_fallback = v;
	}
	fclose(f);
}

/* Rss and AnonHugePages (kB) of the VMA holding addr, from smaps. */
static void region_smaps(const void *addr, uint64_t *rss_kb, uint64_t *huge_kb)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	unsigned long start, end;
	bool in_vma = false;
	char line[512];
	uint64_t v;

	*rss_kb = *huge_kb = 0;
	if (!f)
		die(1, "/proc/self/smaps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			if (in_vma)
				break;
			in_vma = start <= (unsigned long)addr &&
				 (unsigned long)addr < end;
		} else if (in_vma && sscanf(line, "Rss: %" SCNu64, &v) == 1) {
			*rss_kb = v;
		} else if (in_vma &&
			   sscanf(line, "AnonHugePages: %" SCNu64, &v) == 1) {
			*huge_kb = v;
		}
	}
	fclose(f);
}

/*
 * size bytes at a 2 MiB boundary, with a PROT_NONE page on either side so
 * that the VMA is exactly the region (it cannot merge with a neighbour,
 * and smaps then speaks of this region alone).
 */
static uint8_t *map_region(size_t size, int advice)
{
	size_t page = sysconf(_SC_PAGESIZE), total = size + HPAGE + 2 * page;
	uint8_t *raw, *start, *end;

	raw = mmap(NULL, total, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		die(1, "mmap %zu MiB: %s", size / MIB, strerror(errno));
	start = (uint8_t *)(((uintptr_t)raw + page + HPAGE - 1) & ~(HPAGE - 1));
	end = start + size;
	if (start - page > raw)
		munmap(raw, start - page - raw);
	if (raw + total > end + page)
		munmap(end + page, raw + total - (end + page));
	if (mprotect(start - page, page, PROT_NONE) ||
	    mprotect(end, page, PROT_NONE))
		die(1, "mprotect: %s", strerror(errno));
	if (advice >= 0 && madvise(start, size, advice))
		die(1, "madvise: %s", strerror(errno));
	return start;
}

/* Touch one byte per 2 MiB: with THP, maps the huge zero page. */
static void read_phase(size_t size)
{
	volatile uint8_t *p = region;
	size_t off;

	for (off = 0; off < size; off += HPAGE)
		(void)p[off];
}

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	size_t from, to, stride, size;	/* writers: offsets [from, to) */
	int gen;
};

static void *writer(void *arg)
{
	struct worker *w = arg;
	size_t off;

	pthread_barrier_wait(w->start);
	for (off = w->from; off < w->to; off += w->stride)
		region[off] = pattern(off, w->gen);
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *w = arg;
	volatile uint8_t *p = region;
	size_t off;

	pthread_barrier_wait(w->start);
	while (!atomic_load_explicit(&readers_stop, memory_order_relaxed))
		for (off = 0; off < w->size; off += HPAGE)
			(void)p[off];
	return NULL;
}

/*
 * Write every stride with generation gen, split over the writers, while
 * the readers read. The counters are taken with every thread created and
 * waiting, so thread start-up is not counted.
 */
static void write_phase(const struct options *o, int gen, struct phase *ph)
{
	unsigned int i, n = o->threads + o->readers;
	size_t writes = (o->size + o->stride - 1) / o->stride;
	struct worker *w = calloc(n, sizeof(*w));
	struct vmstat before, after;
	pthread_barrier_t start;
	uint64_t t0, f0;
	int ret;

	if (!w)
		die(1, "out of memory");
	atomic_store(&readers_stop, false);
	pthread_barrier_init(&start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		w[i].start = &start;
		w[i].stride = o->stride;
		w[i].size = o->size;
		w[i].gen = gen;
		if (i < o->threads) {
			w[i].from = writes * i / o->threads * o->stride;
			w[i].to = writes * (i + 1) / o->threads * o->stride;
		}
		ret = pthread_create(&w[i].thread, NULL,
				     i < o->threads ? writer : reader, &w[i]);
		if (ret)
			die(1, "pthread_create: %s", strerror(ret));
	}
	read_vmstat(&before);
	f0 = minor_faults();
	t0 = now_ns();
	pthread_barrier_wait(&start);
	for (i = 0; i < o->threads; i++)
		pthread_join(w[i].thread, NULL);
	ph->time_ns = now_ns() - t0;
	ph->faults = minor_faults() - f0;
	read_vmstat(&after);
	atomic_store(&readers_stop, true);
	for (i = o->threads; i < n; i++)
		pthread_join(w[i].thread, NULL);
	pthread_barrier_destroy(&start);
	free(w);

	ph->thp_split_pmd = after.thp_split_pmd - before.thp_split_pmd;
	ph->thp_fault_alloc = after.thp_fault_alloc - before.thp_fault_alloc;
	ph->thp_fault_fallback = after.thp_fault_fallback -
				 before.thp_fault_fallback;
	region_smaps(region, &ph->rss_kb, &ph->anon_huge_kb);
	ph->verify = SKIPPED;
}

/* The first nonzero byte in [p, p + n), or NULL. */
static const uint8_t *find_nonzero(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;

	for (; p < end && ((uintptr_t)p & 7); p++)
		if (*p)
			return p;
	for (; p + 8 <= end; p += 8)
		if (*(const uint64_t *)p)
			break;
	for (; p < end; p++)
		if (*p)
			return p;
	return NULL;
}

/* Every stride holds gen's pattern, every other byte 0. */
static int verify(const struct options *o, int gen)
{
	const uint8_t *bad;
	size_t off, gap;

	for (off = 0; off < o->size; off += o->stride) {
		if (region[off] != pattern(off, gen)) {
			fprintf(stderr, "%s: verify: offset %zu holds 0x%02x, "
				"not 0x%02x\n", program_invocation_short_name,
				off, region[off], pattern(off, gen));
			return FAIL;
		}
		gap = o->size - off - 1 < o->stride - 1 ?
		      o->size - off - 1 : o->stride - 1;
		bad = find_nonzero(region + off + 1, gap);
		if (bad) {
			fprintf(stderr, "%s: verify: offset %zu holds 0x%02x, "
				"not 0\n", program_invocation_short_name,
				(size_t)(bad - region), *bad);
			return FAIL;
		}
	}
	return OK;
}

/* After the parent's writes: a child writes again and reports back. */
static void child_phase(const struct options *o, struct phase *ph)
{
	struct phase *shared;
	int status;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		write_phase(o, 1, shared);
		if (o->verify)
			shared->verify = verify(o, 1);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die(1, "the child writer failed (status 0x%x)", status);
	*ph = *shared;
	munmap(shared, sizeof(*shared));
}

/*
 * After the parent's writes: a child that exits at once, then the parent
 * writes every stride again (gen 1), into THPs nobody shares any more.
 */
static void exit_child_phase(const struct options *o, struct phase *ph)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die(1, "the child failed (status 0x%x)", status);
	write_phase(o, 1, ph);
}

struct output {
	const char *prefix;	/* "", "child_" or "again_" */
	const char *key;
	uint64_t value;
	const char *str;	/* instead of value */
	bool fixed2;		/* value is hundredths: print as x.yy */
};

#define NUM(p, k, v)	((struct output){ .prefix = p, .key = k, .value = v })

static size_t phase_output(const struct phase *ph, const char *p, size_t size,
			   struct output *out)
{
	size_t n = 0;

	out[n++] = NUM(p, "time_ns", ph->time_ns);
	out[n++] = NUM(p, "faults", ph->faults);
	out[n] = NUM(p, "faults_per_2m", ph->faults * 100 * HPAGE / size);
	out[n++].fixed2 = true;
	out[n++] = NUM(p, "thp_split_pmd", ph->thp_split_pmd);
	out[n++] = NUM(p, "thp_fault_alloc", ph->thp_fault_alloc);
	out[n++] = NUM(p, "thp_fault_fallback", ph->thp_fault_fallback);
	out[n++] = NUM(p, "anon_huge_kb", ph->anon_huge_kb);
	out[n++] = NUM(p, "rss_kb", ph->rss_kb);
	out[n] = NUM(p, "verify", 0);
	out[n++].str = verify_names[ph->verify];
	return n;
}

/* key=value lines, or one JSON object (keys and values need no escaping). */
static void print_output(const struct output *out, size_t n, bool json)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (json)
			printf("%s\"%s%s\":", i ? "," : "{", out[i].prefix,
			       out[i].key);
		else
			printf("%s%s=", out[i].prefix, out[i].key);
		if (out[i].str)
			printf(json ? "\"%s\"" : "%s", out[i].str);
		else if (out[i].fixed2)
			printf("%" PRIu64 ".%02" PRIu64, out[i].value / 100,
			       out[i].value % 100);
		else
			printf("%" PRIu64, out[i].value);
		fputs(json ? "" : "\n", stdout);
	}
	if (json)
		puts("}");
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * --hold: until EOF on stdin or a signal. A shell starts a background job
 * with stdin /dev/null, which is at EOF at once: on a character device
 * that is not a terminal, only a signal ends the wait.
 */
static void hold(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	struct stat st;
	char buf[256];

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	puts("ready");
	fflush(stdout);
	if (fstat(STDIN_FILENO, &st) == 0 && S_ISCHR(st.st_mode) &&
	    !isatty(STDIN_FILENO)) {
		pause();
		return;
	}
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
}

static void parse_options(int argc, char *argv[], struct options *o)
{
	enum { SIZE = 0x100, NO_READ, STRIDE, THREADS, READERS, MADVISE,
	       HOLD, VERIFY, JSON, FORK_CHILD, FORK_EXIT, BETWEEN, REPEAT,
	       HELP };
	static const struct option opts[] = {
		{ "size", required_argument, NULL, SIZE },
		{ "no-read", no_argument, NULL, NO_READ },
		{ "stride", required_argument, NULL, STRIDE },
		{ "threads", required_argument, NULL, THREADS },
		{ "readers", required_argument, NULL, READERS },
		{ "madvise", required_argument, NULL, MADVISE },
		{ "hold", no_argument, NULL, HOLD },
		{ "verify", no_argument, NULL, VERIFY },
		{ "json", no_argument, NULL, JSON },
		{ "fork-child-write", no_argument, NULL, FORK_CHILD },
		{ "fork-child-exit", no_argument, NULL, FORK_EXIT },
		{ "between", required_argument, NULL, BETWEEN },
		{ "repeat", required_argument, NULL, REPEAT },
		{ "help", no_argument, NULL, HELP },
		{ 0 }
	};
	int opt;

	*o = (struct options){ .size = 512 * MIB, .stride = 4096, .threads = 1,
			       .advice = -1, .read = true, .repeat = 1 };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case SIZE:
			o->size = number_arg("--size", optarg, 1,
					     SIZE_MAX / 2 / MIB) * MIB;
			break;
		case NO_READ:
			o->read = false;
			break;
		case STRIDE:
			o->stride = number_arg("--stride", optarg, 1, SIZE_MAX / 2);
			break;
		case THREADS:
			o->threads = number_arg("--threads", optarg, 1, MAX_THREADS);
			break;
		case READERS:
			o->readers = number_arg("--readers", optarg, 0, MAX_THREADS);
			break;
		case MADVISE:
			if (!strcmp(optarg, "hugepage"))
				o->advice = MADV_HUGEPAGE;
			else if (!strcmp(optarg, "nohugepage"))
				o->advice = MADV_NOHUGEPAGE;
			else if (!strcmp(optarg, "none"))
				o->advice = -1;
			else
				die(EXIT_USAGE, "--madvise: '%s' is not "
				    "hugepage, nohugepage or none", optarg);
			break;
		case HOLD:
			o->hold = true;
			break;
		case VERIFY:
			o->verify = true;
			break;
		case JSON:
			o->json = true;
			break;
		case FORK_CHILD:
			o->fork_child = true;
			break;
		case FORK_EXIT:
			o->fork_exit = true;
			break;
		case BETWEEN:
			o->between = optarg;
			break;
		case REPEAT:
			o->repeat = number_arg("--repeat", optarg, 1, UINT_MAX);
			break;
		case HELP:
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(EXIT_USAGE);
		}
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s'", argv[optind]);
	if (o->fork_child && o->fork_exit)
		die(EXIT_USAGE, "--fork-child-write and --fork-child-exit exclude each other");
}

/* Unmaps what map_region() mapped, guard pages included. */
static void unmap_region(uint8_t *start, size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE);

	munmap(start - page, size + 2 * page);
}

/*
 * One whole run: map, read, --between, write, fork child, verify. The
 * region stays mapped (for --hold); the caller unmaps it before the next.
 */
static bool run_once(const struct options *o, struct phase *parent,
		     struct phase *child, uint64_t *read_rss_kb)
{
	uint64_t unused;

	region = map_region(o->size, o->advice);
	if (o->read)
		read_phase(o->size);
	region_smaps(region, read_rss_kb, &unused);
	if (o->between && system(o->between) != 0)
		die(1, "--between: '%s' failed", o->between);

	write_phase(o, 0, parent);
	if (o->fork_child)
		child_phase(o, child);
	if (o->fork_exit)
		exit_child_phase(o, child);
	/* after the child: the parent's copy must not have changed */
	if (o->verify)
		parent->verify = verify(o, o->fork_exit);
	return parent->verify != FAIL &&
	       (!o->fork_child || child->verify != FAIL);
}

int main(int argc, char *argv[])
{
	struct output out[32];
	struct phase parent, child;
	struct options o;
	uint64_t read_rss_kb;
	unsigned int i;
	size_t n = 0;
	bool ok = true;

	parse_options(argc, argv, &o);
	for (i = 0; i < o.repeat; i++) {
		if (i)
			unmap_region(region, o.size);
		ok &= run_once(&o, &parent, &child, &read_rss_kb);
	}

	out[n++] = NUM("", "size_mib", o.size / MIB);
	out[n++] = NUM("", "read_rss_kb", read_rss_kb);
	n += phase_output(&parent, "", o.size, out + n);
	if (o.fork_child || o.fork_exit)
		n += phase_output(&child, o.fork_child ? "child_" : "again_",
				  o.size, out + n);
	print_output(out, n, o.json);

	if (o.hold)
		hold();
	return ok ? 0 : 1;
}
