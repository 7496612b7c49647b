// SPDX-License-Identifier: GPL-2.0
/*
 * stress: data integrity under races. A working set of 2 MiB slots, each
 * 4 KiB of which holds a known pattern (a hash of slot, page, generation
 * and word in every 8-byte word; generation 0 means never written: zero),
 * is read-faulted, write-faulted, forked, madvised, mprotected, unmapped,
 * mremapped, write-protected through userfaultfd and written from another
 * process with process_vm_writev, all at once, for a fixed time. A slot
 * belongs to one thread at a time, so its expected contents are always
 * known; whatever an operation is about to change is verified first, every
 * slot is verified periodically and at the end, and fork children verify
 * their own copies. A mismatch prints the address, the expected and the
 * found value and makes the exit status 1. See usage() for the options.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

#define MIB		(1UL << 20)
#define PAGE		4096UL
#define SLOT		(2 * MIB)
#define SLOT_PAGES	(SLOT / PAGE)
#define PAGE_WORDS	(PAGE / 8)
#define MAX_THREADS	256
#define MAX_FORK_SLOTS	4
#define MAX_REPORTS	10	/* mismatch lines per process */

/* Counters, in memory shared with fork children and the writer process. */
#define STATS(X)							\
	X(zero_reads)		/* untouched slots read (huge zero page) */ \
	X(hot_reads)		/* slots read while being write-faulted */ \
	X(zero_write_faults)	/* untouched slots written whole */	\
	X(rewrites)		/* written pages rewritten */		\
	X(dontneeds)		/* MADV_DONTNEED */			\
	X(frees)		/* MADV_FREE */				\
	X(pageouts)		/* MADV_FREE, then MADV_PAGEOUT */	\
	X(free_discarded)	/* MADV_FREE pages found reclaimed */	\
	X(mprotects)		/* read-only and back */		\
	X(remaps)		/* munmap + mmap */			\
	X(mremaps)		/* moved to the other place */		\
	X(uffd_wp_ops)		/* write-protected, written, released */ \
	X(uffd_wp_faults)	/* write-protect faults handled */	\
	X(pvm_writes)		/* process_vm_writev from another process */ \
	X(forks)		/* children that wrote and verified */	\
	X(written_bytes)						\
	X(verified_bytes)						\
	X(periodic_verifies)	/* passes over every slot */		\
	X(mismatches)

#define STAT_ENUM(name)	ST_##name,
#define STAT_NAME(name)	#name,
enum counter { STATS(STAT_ENUM) ST_NR };
static const char *const stat_names[] = { STATS(STAT_NAME) };

enum corrupt { CORRUPT_NONE, CORRUPT_PARENT, CORRUPT_CHILD };

struct options {
	unsigned int seconds, threads;
	size_t size;
	uint64_t seed;
	enum corrupt corrupt;
};

/*
 * A slot's mapping, as far as the faults go: USED, or all zero and mapped
 * by one PMD (the huge zero page) or nothing, not yet read or read since.
 */
enum fresh { USED, FRESH, FRESH_READ, ANY = -1 };

/* What one 4 KiB page must hold. */
struct pstate {
	uint32_t gen;		/* 0: zero */
	uint32_t maybe_zero;	/* MADV_FREE: gen's pattern, or zero */
};

struct slot {
	atomic_int owner;	/* 0: free; else the owner's id */
	atomic_int fresh;	/* enum fresh */
	unsigned int place;	/* which 2 MiB place it is mapped at */
	struct pstate pg[SLOT_PAGES];
};

/* A slot being write-faulted: readers may check it as it fills. */
struct hot {
	atomic_int active;
	atomic_int refs;
	const uint8_t *addr;
	unsigned int slot;
	uint32_t gen;
};

struct worker {
	pthread_t thread;
	int id;			/* owner id: index + 1 */
	void *(*role)(void *arg);
	uint64_t rng;
	struct hot *hot;	/* faulters: the entry they publish */
	uint64_t ops;		/* mixers: operations done */
	uint64_t frees;		/* of which MADV_FREE */
};

/* A request to the process_vm_writev writer; it answers bytes or -errno. */
struct pvm_req {
	uint64_t addr;
	uint32_t slot, p0, p1, gen;
};

static struct {
	struct options o;
	unsigned int nslots;
	uint8_t *places;	/* 2 * nslots places of 2 MiB: home, spare */
	struct slot *slots;
	_Atomic uint64_t *stats;	/* MAP_SHARED */
	atomic_uint gen;
	atomic_bool stop;
	atomic_bool corrupted;
	atomic_int reports;
	struct hot *hot;
	unsigned int nhot;
	int uffd;		/* -1: write-protect part skipped */
	atomic_bool uffd_stop;
	int pvm_sock;
	pid_t pvm_pid;
	pthread_mutex_t pvm_lock;
	uint64_t t_start, t_end;
} g = { .uffd = -1, .pvm_sock = -1, .pvm_lock = PTHREAD_MUTEX_INITIALIZER };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stress [--seconds N] [--threads N] [--size MiB] [--seed N]\n"
"\n"
"  --seconds N   run for N seconds (default 10)\n"
"  --threads N   worker threads, at least 4 (default 8): read-faulters,\n"
"                write-faulters, forkers and threads doing everything else\n"
"  --size MiB    working set live at a time, 2 MiB slots (default 256)\n"
"  --seed N      random seed (default: from the clock; printed)\n"
"  --selftest-corrupt parent|child\n"
"                flip one byte behind the checker's back, in this process\n"
"                or in a fork child: the run must then fail\n"
"\n"
"Prints key=value lines: operation counts, written_bytes, verified_bytes,\n"
"mismatches. Exit status 1 on any mismatch, 3 if it hangs.\n");
}

static void count(enum counter st, uint64_t n)
{
	atomic_fetch_add_explicit(&g.stats[st], n, memory_order_relaxed);
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(struct worker *w)
{
	uint64_t x = w->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	w->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned int rnd_below(struct worker *w, unsigned int n)
{
	return (unsigned int)(rnd(w) >> 32) % n;
}

/* The pattern: never zero, different for every slot, page, gen and word. */
static uint64_t page_base(unsigned int slot, unsigned int page, uint32_t gen)
{
	return mix64((uint64_t)gen << 32 | (slot * SLOT_PAGES + page));
}

static inline uint64_t pattern_word(uint64_t base, unsigned int word)
{
	return (base + word * 0x9e3779b97f4a7c15ULL) | 1;
}

static void fill_page(uint64_t *p, unsigned int slot, unsigned int page,
		      uint32_t gen)
{
	uint64_t base = page_base(slot, page, gen);
	unsigned int w;

	for (w = 0; w < PAGE_WORDS; w++)
		p[w] = pattern_word(base, w);
}

static uint32_t new_gen(void)
{
	return atomic_fetch_add(&g.gen, 1) + 1;
}

static uint8_t *slot_addr(unsigned int s)
{
	return g.places + (size_t)g.slots[s].place * SLOT;
}

static void set_fresh(unsigned int s, enum fresh f)
{
	atomic_store(&g.slots[s].fresh, f);
}

/* Nothing to do for now: let the others run (no spinning in syscalls). */
static void idle(void)
{
	usleep(500);
}
/* write(2) all of it: usable in a fork child of a threaded process. */
static void say(const char *buf, size_t n)
{
	ssize_t k;

	while (n) {
		k = write(STDERR_FILENO, buf, n);
		if (k <= 0)
			return;
		buf += k;
		n -= k;
	}
}

/* One mismatch: counted, stops the run, the first few are printed. */
static void mismatch(const uint64_t *word, unsigned int slot,
		     unsigned int page, uint64_t want, const char *alt,
		     uint64_t got, const char *where)
{
	const uint8_t *byte = (const uint8_t *)word;
	char buf[320];
	unsigned int b = 0;
	int n;

	while (b < 7 && ((want ^ got) >> (8 * b) & 0xff) == 0)
		b++;
	count(ST_mismatches, 1);
	atomic_store(&g.stop, true);
	if (atomic_fetch_add(&g.reports, 1) >= MAX_REPORTS)
		return;
	n = snprintf(buf, sizeof(buf), "%s: mismatch (%s, pid %d): "
		     "addr=%p slot=%u page=%u offset=%lu expected=0x%02x%s "
		     "got=0x%02x (word expected=0x%016" PRIx64 "%s "
		     "got=0x%016" PRIx64 ")\n", program_invocation_short_name,
		     where, (int)getpid(), (const void *)(byte + b), slot, page,
		     (unsigned long)((uintptr_t)(byte + b) & (PAGE - 1)),
		     (unsigned int)(want >> (8 * b) & 0xff), alt,
		     (unsigned int)(got >> (8 * b) & 0xff), want, alt, got);
	say(buf, n);
}

/*
 * How a page may read besides exactly gen's pattern: EXACT nothing else;
 * THEN_ZERO (MADV_FREE) a prefix of the pattern then zero, as reclaim may
 * drop the page between two reads; ANY_ZERO (a page being written while
 * read) each word the pattern or still zero.
 */
enum check { EXACT, THEN_ZERO, ANY_ZERO };

/*
 * Checks one page, 64 bytes at a time (one branch per 64 bytes: TCG guests
 * are slow); returns 1 if a THEN_ZERO page read zero (it was reclaimed:
 * zero from now on, as the pattern has no zero word), -1 on a mismatch.
 */
static int check_page(const uint64_t *p, unsigned int slot, unsigned int page,
		      uint32_t gen, enum check how, const char *where)
{
	uint64_t base = page_base(slot, page, gen), v[8], want, d;
	bool zero = !gen, zeroed = false;
	unsigned int w, i;

	for (w = 0; w < PAGE_WORDS; w += 8) {
		d = 0;
		if (zero)
			for (i = 0; i < 8; i++)
				d |= v[i] = p[w + i];
		else
			for (i = 0; i < 8; i++)
				d |= (v[i] = p[w + i]) ^
				     pattern_word(base, w + i);
		if (!d)
			continue;
		for (i = 0; i < 8; i++) {
			want = zero ? 0 : pattern_word(base, w + i);
			if (v[i] == want)
				continue;
			if (!v[i] && how != EXACT) {
				if (how == THEN_ZERO)
					zeroed = zero = true;
				continue;
			}
			mismatch(p + w + i, slot, page, want,
				 how == EXACT || zero ? "" : "|0", v[i], where);
			return -1;
		}
	}
	return zeroed;
}

/* Verifies pages [p0, p1) of an owned slot against its state. */
static bool verify_range(unsigned int s, unsigned int p0, unsigned int p1,
			 const char *where)
{
	struct slot *sl = &g.slots[s];
	const uint8_t *a = slot_addr(s);
	unsigned int pg;
	bool ok = true;
	int r;

	for (pg = p0; pg < p1; pg++) {
		struct pstate *st = &sl->pg[pg];

		r = check_page((const uint64_t *)(a + pg * PAGE), s, pg,
			       st->gen, st->maybe_zero ? THEN_ZERO : EXACT,
			       where);
		if (r < 0) {
			ok = false;
		} else if (r > 0) {
			/* reclaimed after MADV_FREE: zero from now on */
			*st = (struct pstate){ 0 };
			count(ST_free_discarded, 1);
		}
	}
	count(ST_verified_bytes, (p1 - p0) * PAGE);
	return ok;
}

static bool verify_slot(unsigned int s, const char *where)
{
	return verify_range(s, 0, SLOT_PAGES, where);
}

/* Writes generation gen into pages [p0, p1) of an owned slot. */
static void write_gen(unsigned int s, unsigned int p0, unsigned int p1,
		      uint32_t gen)
{
	struct slot *sl = &g.slots[s];
	uint8_t *a = slot_addr(s);
	unsigned int pg;

	for (pg = p0; pg < p1; pg++) {
		fill_page((uint64_t *)(a + pg * PAGE), s, pg, gen);
		sl->pg[pg] = (struct pstate){ .gen = gen };
	}
	set_fresh(s, USED);
	count(ST_written_bytes, (p1 - p0) * PAGE);
}

/* Writes a new generation into pages [p0, p1) of an owned slot. */
static void write_range(unsigned int s, unsigned int p0, unsigned int p1)
{
	write_gen(s, p0, p1, new_gen());
}

static void set_zero(unsigned int s, unsigned int p0, unsigned int p1)
{
	memset(&g.slots[s].pg[p0], 0, (p1 - p0) * sizeof(struct pstate));
}

static bool try_own(unsigned int s, int id)
{
	int expected = 0;

	return atomic_compare_exchange_strong(&g.slots[s].owner, &expected, id);
}

static void release(unsigned int s)
{
	atomic_store(&g.slots[s].owner, 0);
}

/* Owns a free slot in state want (or ANY), or returns -1. */
static int pick_slot(struct worker *w, enum fresh want)
{
	unsigned int i, s, start = rnd_below(w, g.nslots);

	for (i = 0; i < g.nslots; i++) {
		s = (start + i) % g.nslots;
		if (want != ANY && atomic_load_explicit(&g.slots[s].fresh,
				memory_order_relaxed) != (int)want)
			continue;
		if (!try_own(s, w->id))
			continue;
		if (want == ANY || atomic_load(&g.slots[s].fresh) == (int)want)
			return s;
		release(s);
	}
	return -1;
}


/* Half the time the whole slot, else a random run of pages in it. */
static void pick_range(struct worker *w, unsigned int *p0, unsigned int *p1)
{
	unsigned int a, b;

	if (rnd(w) & 1) {
		*p0 = 0;
		*p1 = SLOT_PAGES;
		return;
	}
	a = rnd_below(w, SLOT_PAGES);
	b = rnd_below(w, SLOT_PAGES);
	*p0 = a < b ? a : b;
	*p1 = (a < b ? b : a) + 1;
}

static void sys_check(int ret, const char *what)
{
	if (ret)
		die(1, "%s: %s", what, strerror(errno));
}

/* Whole slot: MADV_DONTNEED, so that a read maps the huge zero page again. */
static void make_fresh(unsigned int s)
{
	sys_check(madvise(slot_addr(s), SLOT, MADV_DONTNEED), "MADV_DONTNEED");
	set_zero(s, 0, SLOT_PAGES);
	set_fresh(s, FRESH);
	count(ST_dontneeds, 1);
}

/*
 * The run ends after --seconds, but not before --selftest-corrupt has
 * corrupted its byte: on a slow (debug) kernel the mixer's or forker's turn
 * may come after the time is up. The alarm still bounds the run.
 */
static bool stopping(void)
{
	if (atomic_load_explicit(&g.stop, memory_order_relaxed))
		return true;
	return now_ns() >= g.t_end &&
	       (g.o.corrupt == CORRUPT_NONE || atomic_load(&g.corrupted));
}

/* --- mixer operations on an owned slot ------------------------------------ */

static void op_rewrite(struct worker *w, unsigned int s)
{
	unsigned int p0, p1;

	pick_range(w, &p0, &p1);
	verify_range(s, p0, p1, "before rewrite");
	write_range(s, p0, p1);
	count(ST_rewrites, 1);
}

static void op_dontneed(struct worker *w, unsigned int s)
{
	unsigned int p0, p1;

	pick_range(w, &p0, &p1);
	verify_range(s, p0, p1, "before MADV_DONTNEED");
	if (p1 - p0 == SLOT_PAGES)
		return make_fresh(s);
	sys_check(madvise(slot_addr(s) + p0 * PAGE, (p1 - p0) * PAGE,
			  MADV_DONTNEED), "MADV_DONTNEED");
	set_zero(s, p0, p1);
	set_fresh(s, USED);
	count(ST_dontneeds, 1);
}

static void op_free(struct worker *w, unsigned int s)
{
	struct slot *sl = &g.slots[s];
	unsigned int p0, p1, pg;

	pick_range(w, &p0, &p1);
	verify_range(s, p0, p1, "before MADV_FREE");
	sys_check(madvise(slot_addr(s) + p0 * PAGE, (p1 - p0) * PAGE,
			  MADV_FREE), "MADV_FREE");
	for (pg = p0; pg < p1; pg++)
		sl->pg[pg].maybe_zero = sl->pg[pg].gen != 0;
	if (!(w->frees++ & 1)) {
		/* every other time, reclaim them now: clean ones are dropped */
		sys_check(madvise(slot_addr(s) + p0 * PAGE, (p1 - p0) * PAGE,
				  MADV_PAGEOUT), "MADV_PAGEOUT");
		count(ST_pageouts, 1);
	}
	set_fresh(s, USED);
	count(ST_frees, 1);
}

static void op_mprotect(struct worker *w, unsigned int s)
{
	unsigned int p0, p1;
	uint8_t *a = slot_addr(s);

	pick_range(w, &p0, &p1);
	sys_check(mprotect(a + p0 * PAGE, (p1 - p0) * PAGE, PROT_READ),
		  "mprotect PROT_READ");
	verify_range(s, p0, p1, "read-only");
	sys_check(mprotect(a + p0 * PAGE, (p1 - p0) * PAGE,
			   PROT_READ | PROT_WRITE), "mprotect PROT_READ|PROT_WRITE");
	if (p1 - p0 < SLOT_PAGES)
		set_fresh(s, USED);
	count(ST_mprotects, 1);
}

/* Maps 2 MiB at a place that must be free (nobody else maps meanwhile). */
static void map_place(unsigned int place, int prot)
{
	void *want = g.places + (size_t)place * SLOT, *got;

	got = mmap(want, SLOT, prot, MAP_PRIVATE | MAP_ANONYMOUS |
		   MAP_FIXED_NOREPLACE | (prot ? 0 : MAP_NORESERVE), -1, 0);
	if (got != want)
		die(1, "mmap at %p: %s", want,
		    got == MAP_FAILED ? strerror(errno) : "placed elsewhere");
}

static void op_remap(struct worker *w, unsigned int s)
{
	(void)w;
	verify_slot(s, "before munmap");
	sys_check(munmap(slot_addr(s), SLOT), "munmap");
	map_place(g.slots[s].place, PROT_READ | PROT_WRITE);
	set_zero(s, 0, SLOT_PAGES);
	set_fresh(s, FRESH);
	count(ST_remaps, 1);
}

/* Moves the slot to its other place, then checks what arrived there. */
static void op_mremap(struct worker *w, unsigned int s)
{
	struct slot *sl = &g.slots[s];
	unsigned int from = sl->place, to = from ^ 1;
	void *got, *dst = g.places + (size_t)to * SLOT;

	(void)w;
	got = mremap(slot_addr(s), SLOT, SLOT, MREMAP_MAYMOVE | MREMAP_FIXED,
		     dst);
	if (got != dst)
		die(1, "mremap to %p: %s", dst, strerror(errno));
	sl->place = to;
	map_place(from, PROT_NONE);	/* keep the place reserved */
	verify_slot(s, "after mremap");
	count(ST_mremaps, 1);
}

static void uffd_range(unsigned long req, uint8_t *a, size_t len, __u64 mode)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = (uintptr_t)a, .len = len }, .mode = mode,
	};
	struct uffdio_range r = { .start = (uintptr_t)a, .len = len };
	struct uffdio_register reg = {
		.range = r, .mode = UFFDIO_REGISTER_MODE_WP,
	};
	void *arg = req == UFFDIO_WRITEPROTECT ? (void *)&wp :
		    req == UFFDIO_REGISTER ? (void *)&reg : (void *)&r;

	if (ioctl(g.uffd, req, arg))
		die(1, "userfaultfd ioctl 0x%lx on %p+%zu: %s", req, (void *)a,
		    len, strerror(errno));
}

/*
 * Verified (which maps what was not: only mapped pages can be protected),
 * registered for write-protect, protected (the range or the whole slot),
 * then written: the first write on a protected page, at least, waits for
 * the handler thread.
 */
static void op_uffd_wp(struct worker *w, unsigned int s)
{
	unsigned int p0, p1;
	uint8_t *a = slot_addr(s);

	if (g.uffd < 0)
		return op_rewrite(w, s);
	pick_range(w, &p0, &p1);
	verify_range(s, p0, p1, "before write-protect");
	uffd_range(UFFDIO_REGISTER, a, SLOT, 0);
	if (rnd(w) & 1)
		uffd_range(UFFDIO_WRITEPROTECT, a, SLOT,
			   UFFDIO_WRITEPROTECT_MODE_WP);
	else
		uffd_range(UFFDIO_WRITEPROTECT, a + p0 * PAGE,
			   (p1 - p0) * PAGE, UFFDIO_WRITEPROTECT_MODE_WP);
	write_range(s, p0, p1);
	uffd_range(UFFDIO_WRITEPROTECT, a, SLOT, 0);
	uffd_range(UFFDIO_UNREGISTER, a, SLOT, 0);
	count(ST_uffd_wp_ops, 1);
}

static void *uffd_handler(void *arg)
{
	struct pollfd pfd = { .fd = g.uffd, .events = POLLIN };
	struct worker *w = arg;
	struct uffd_msg msg;
	uint64_t addr;
	ssize_t n;

	while (!atomic_load(&g.uffd_stop)) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(g.uffd, &msg, sizeof(msg));
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n != sizeof(msg))
			die(1, "userfaultfd read: %s", n < 0 ? strerror(errno) :
			    "short read");
		if (msg.event != UFFD_EVENT_PAGEFAULT ||
		    !(msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP))
			die(1, "userfaultfd: unexpected event %u flags 0x%llx",
			    msg.event, (unsigned long long)msg.arg.pagefault.flags);
		/* the page, or its whole 2 MiB: both wake the writer */
		addr = msg.arg.pagefault.address;
		if (rnd(w) & 1)
			uffd_range(UFFDIO_WRITEPROTECT,
				   (uint8_t *)(uintptr_t)(addr & ~(PAGE - 1)),
				   PAGE, 0);
		else
			uffd_range(UFFDIO_WRITEPROTECT,
				   (uint8_t *)(uintptr_t)(addr & ~(SLOT - 1)),
				   SLOT, 0);
		count(ST_uffd_wp_faults, 1);
	}
	return NULL;
}

/*
 * A userfaultfd that can write-protect anonymous memory, or NULL with the
 * reason the kernel refuses.
 */
static const char *uffd_open(void)
{
	struct uffdio_api api = {
		.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP,
	};
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	static char why[128];
	uint8_t *probe;
	int fd;

	fd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, sizeof(why), "userfaultfd: %s", strerror(errno));
		return why;
	}
	if (ioctl(fd, UFFDIO_API, &api)) {
		snprintf(why, sizeof(why), "UFFDIO_API with write-protect: %s",
			 strerror(errno));
		close(fd);
		return why;
	}
	probe = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	reg.range = (struct uffdio_range){ (uintptr_t)probe, PAGE };
	if (ioctl(fd, UFFDIO_REGISTER, &reg) ||
	    !(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT))) {
		snprintf(why, sizeof(why), "UFFDIO_REGISTER_MODE_WP on "
			 "anonymous memory: %s",
			 errno ? strerror(errno) : "no UFFDIO_WRITEPROTECT");
		close(fd);
		munmap(probe, PAGE);
		return why;
	}
	munmap(probe, PAGE);
	g.uffd = fd;
	return NULL;
}

/* The writer process: fills pages in its own buffer, writes them over. */
static void __attribute__((noreturn)) pvm_writer(int sock, pid_t target)
{
	struct iovec local, remote[SLOT_PAGES];
	struct pvm_req req;
	uint64_t *buf;
	int64_t ret;
	unsigned int i, n;

	buf = mmap(NULL, SLOT, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die(1, "pvm writer: mmap: %s", strerror(errno));
	while (recv(sock, &req, sizeof(req), 0) == sizeof(req)) {
		n = req.p1 - req.p0;
		for (i = 0; i < n; i++) {
			fill_page(buf + i * PAGE_WORDS, req.slot, req.p0 + i,
				  req.gen);
			/* one iovec per page, in the target's order */
			remote[i].iov_base = (void *)(uintptr_t)
				(req.addr + (req.p0 + i) * PAGE);
			remote[i].iov_len = PAGE;
		}
		local = (struct iovec){ buf, n * PAGE };
		ret = process_vm_writev(target, &local, 1, remote, n, 0);
		if (ret < 0)
			ret = -errno;
		if (send(sock, &ret, sizeof(ret), 0) != sizeof(ret))
			break;
	}
	_exit(0);
}

static void pvm_start(void)
{
	pid_t parent = getpid();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		die(1, "socketpair: %s", strerror(errno));
	fflush(NULL);
	g.pvm_pid = fork();
	if (g.pvm_pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (!g.pvm_pid) {
		close(sv[0]);
		pvm_writer(sv[1], parent);
	}
	close(sv[1]);
	g.pvm_sock = sv[0];
	/* under Yama's ptrace_scope 1, let the child write into us */
	prctl(PR_SET_PTRACER, g.pvm_pid, 0, 0, 0);
}

static void op_pvm(struct worker *w, unsigned int s)
{
	unsigned int p0, p1, pg;
	struct pvm_req req;
	int64_t ret = 0;

	pick_range(w, &p0, &p1);
	verify_range(s, p0, p1, "before process_vm_writev");
	req = (struct pvm_req){ .addr = (uintptr_t)slot_addr(s), .slot = s,
				.p0 = p0, .p1 = p1, .gen = new_gen() };
	pthread_mutex_lock(&g.pvm_lock);
	if (send(g.pvm_sock, &req, sizeof(req), 0) != sizeof(req) ||
	    recv(g.pvm_sock, &ret, sizeof(ret), 0) != sizeof(ret))
		die(1, "the process_vm_writev writer is gone");
	pthread_mutex_unlock(&g.pvm_lock);
	if (ret != (int64_t)((p1 - p0) * PAGE))
		die(1, "process_vm_writev of %u pages: %s", p1 - p0,
		    ret < 0 ? strerror(-ret) : "short write");
	for (pg = p0; pg < p1; pg++)
		g.slots[s].pg[pg] = (struct pstate){ .gen = req.gen };
	set_fresh(s, USED);
	count(ST_written_bytes, (p1 - p0) * PAGE);
	count(ST_pvm_writes, 1);
}

static void op_verify(struct worker *w, unsigned int s)
{
	(void)w;
	verify_slot(s, "verify");
}

/* --selftest-corrupt parent: one byte changes, the state does not. */
static void op_corrupt(struct worker *w, unsigned int s)
{
	unsigned int pg = rnd_below(w, SLOT_PAGES);

	slot_addr(s)[pg * PAGE + 1234] ^= 0x40;
	fprintf(stderr, "%s: selftest: corrupted slot %u page %u\n",
		program_invocation_short_name, s, pg);
}

static const struct {
	void (*op)(struct worker *w, unsigned int s);
	unsigned int weight;
} mixer_ops[] = {
	{ op_rewrite, 2 },
	{ op_dontneed, 2 },
	{ op_free, 2 },
	{ op_mprotect, 2 },
	{ op_remap, 2 },
	{ op_mremap, 2 },
	{ op_uffd_wp, 2 },
	{ op_pvm, 2 },
	{ op_verify, 1 },
};

#define MIXER_OPS	(sizeof(mixer_ops) / sizeof(mixer_ops[0]))

/* Each operation once in turn (so that every kind runs), then at random. */
static void *mixer(void *arg)
{
	struct worker *w = arg;
	unsigned int i, total = 0, r;
	int s;

	for (i = 0; i < MIXER_OPS; i++)
		total += mixer_ops[i].weight;
	while (!stopping()) {
		s = pick_slot(w, ANY);
		if (s < 0) {
			idle();
			continue;
		}
		if (g.o.corrupt == CORRUPT_PARENT &&
		    now_ns() - g.t_start > 1000000000ULL &&
		    !atomic_exchange(&g.corrupted, true)) {
			op_corrupt(w, s);
			release(s);
			continue;
		}
		if (w->ops < MIXER_OPS) {
			i = w->ops;
		} else {
			r = rnd_below(w, total);
			for (i = 0; r >= mixer_ops[i].weight; i++)
				r -= mixer_ops[i].weight;
		}
		mixer_ops[i].op(w, s);
		w->ops++;
		release(s);
	}
	return NULL;
}

/* --- read-faulters, write-faulters, forkers -------------------------------- */

/*
 * Reads an untouched slot: one byte per 2 MiB (the read fault that maps
 * the huge zero page), then one word per 4 KiB. The whole of it is checked
 * by the write-faulter that takes it next, before it writes.
 */
static void read_untouched(unsigned int s)
{
	const uint64_t *a = (const uint64_t *)slot_addr(s);
	unsigned int pg;

	for (pg = 0; pg < SLOT_PAGES; pg++)
		if (a[pg * PAGE_WORDS + pg % PAGE_WORDS])
			check_page(a + pg * PAGE_WORDS, s, pg, 0, EXACT,
				   "untouched, read");
}

/*
 * Checks every page of a slot being write-faulted, once per generation
 * (last: the one it read last time).
 */
static bool read_hot(struct hot *h, uint32_t *last)
{
	unsigned int pg;
	bool read = false;

	atomic_fetch_add(&h->refs, 1);
	if (atomic_load(&h->active) && h->gen != *last) {
		for (pg = 0; pg < SLOT_PAGES; pg++)
			check_page((const uint64_t *)(h->addr + pg * PAGE),
				   h->slot, pg, h->gen, ANY_ZERO,
				   "read while write-faulted");
		*last = h->gen;
		read = true;
	}
	atomic_fetch_sub(&h->refs, 1);
	return read;
}

/* Untouched slots read (the huge zero page), or ones being written. */
static void *reader(void *arg)
{
	struct worker *w = arg;
	uint32_t last[MAX_THREADS] = { 0 };
	unsigned int h;
	int s;

	while (!stopping()) {
		h = rnd_below(w, g.nhot);
		if (read_hot(&g.hot[h], &last[h])) {
			count(ST_verified_bytes, SLOT);
			count(ST_hot_reads, 1);
			continue;
		}
		s = pick_slot(w, FRESH);
		if (s < 0) {
			idle();
			continue;
		}
		read_untouched(s);
		set_fresh(s, FRESH_READ);
		count(ST_zero_reads, 1);
		release(s);
	}
	return NULL;
}

/* Untouched slots (read first: the huge zero page) written whole. */
static void *faulter(void *arg)
{
	struct worker *w = arg;
	struct hot *h = w->hot;
	int s;

	while (!stopping()) {
		s = pick_slot(w, FRESH_READ);
		if (s < 0)
			s = pick_slot(w, FRESH);
		if (s < 0) {
			s = pick_slot(w, ANY);
			if (s < 0) {
				idle();
				continue;
			}
			verify_slot(s, "before MADV_DONTNEED");
			make_fresh(s);
		}
		verify_slot(s, "untouched, before the write");
		h->addr = slot_addr(s);
		h->slot = s;
		h->gen = new_gen();
		atomic_store(&h->active, 1);
		write_gen(s, 0, SLOT_PAGES, h->gen);
		atomic_store(&h->active, 0);
		while (atomic_load(&h->refs))
			sched_yield();
		count(ST_zero_write_faults, 1);
		release(s);
	}
	return NULL;
}

/*
 * Owns a few slots, forks: the child verifies them, writes them, verifies
 * again, while the parent writes its own copies; then the parent checks
 * the child's verdict and its copies.
 */
static void fork_once(struct worker *w, const int *owned, unsigned int k)
{
	bool ok = true, corrupt;
	unsigned int i, p0, p1;
	int status;
	pid_t pid;

	corrupt = g.o.corrupt == CORRUPT_CHILD &&
		  !atomic_exchange(&g.corrupted, true);
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (!pid) {
		for (i = 0; i < k; i++)
			ok &= verify_slot(owned[i], "child, inherited");
		for (i = 0; i < k; i++) {
			pick_range(w, &p0, &p1);
			write_range(owned[i], p0, p1);
		}
		if (corrupt)
			slot_addr(owned[0])[4096 + 99] ^= 0x10;
		for (i = 0; i < k; i++)
			ok &= verify_slot(owned[i], "child, after writing");
		_exit(ok ? 0 : 1);
	}
	for (i = 0; i < k; i++) {
		pick_range(w, &p0, &p1);
		verify_range(owned[i], p0, p1, "parent, before writing");
		write_range(owned[i], p0, p1);
	}
	if (waitpid(pid, &status, 0) != pid)
		die(1, "waitpid: %s", strerror(errno));
	if (status) {
		/* exit status 1: the child counted and printed its mismatches */
		atomic_store(&g.stop, true);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
			fprintf(stderr, "%s: fork child %d failed (status "
				"0x%x)\n", program_invocation_short_name,
				(int)pid, status);
			count(ST_mismatches, 1);
		}
	}
	for (i = 0; i < k; i++)
		verify_slot(owned[i], "parent, after the child");
	count(ST_forks, 1);
}

static void *forker(void *arg)
{
	struct worker *w = arg;
	int owned[MAX_FORK_SLOTS];
	unsigned int k, i, want;

	while (!stopping()) {
		want = 1 + rnd_below(w, MAX_FORK_SLOTS);
		for (k = 0; k < want; k++) {
			owned[k] = pick_slot(w, ANY);
			if (owned[k] < 0)
				break;
		}
		if (k)
			fork_once(w, owned, k);
		else
			idle();
		for (i = 0; i < k; i++)
			release(owned[i]);
	}
	return NULL;
}

/* --- setup, the run, the report -------------------------------------------- */

/* Every slot, owned in turn (waiting for its owner). */
static void verify_all(const char *where)
{
	unsigned int s;

	for (s = 0; s < g.nslots; s++) {
		while (!try_own(s, MAX_THREADS + 1))
			usleep(100);
		verify_slot(s, where);
		release(s);
	}
}

static void map_slots(void)
{
	size_t total = 2 * (size_t)g.nslots * SLOT;
	uint8_t *raw;
	unsigned int s;

	raw = mmap(NULL, total + SLOT, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		die(1, "mmap %zu MiB: %s", total / MIB, strerror(errno));
	g.places = (uint8_t *)(((uintptr_t)raw + SLOT - 1) & ~(SLOT - 1));
	g.slots = calloc(g.nslots, sizeof(*g.slots));
	if (!g.slots)
		die(1, "out of memory");
	for (s = 0; s < g.nslots; s++) {
		g.slots[s].place = 2 * s;
		atomic_init(&g.slots[s].fresh, FRESH);
		if (mmap(slot_addr(s), SLOT, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			die(1, "mmap: %s", strerror(errno));
	}
}

static void on_alarm(int sig)
{
	static const char msg[] = "stress: hung: still running long after "
				  "--seconds\n";

	(void)sig;
	say(msg, sizeof(msg) - 1);
	_exit(3);
}

static void parse_options(int argc, char *argv[], struct options *o)
{
	enum { SECONDS = 0x100, THREADS, SIZE, SEED, CORRUPT, HELP };
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, SECONDS },
		{ "threads", required_argument, NULL, THREADS },
		{ "size", required_argument, NULL, SIZE },
		{ "seed", required_argument, NULL, SEED },
		{ "selftest-corrupt", required_argument, NULL, CORRUPT },
		{ "help", no_argument, NULL, HELP },
		{ 0 }
	};
	int opt;

	*o = (struct options){ .seconds = 10, .threads = 8, .size = 256 * MIB,
			       .seed = (uint64_t)time(NULL) ^ getpid() };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case SECONDS:
			o->seconds = number_arg("--seconds", optarg, 1, 86400);
			break;
		case THREADS:
			o->threads = number_arg("--threads", optarg, 4,
						MAX_THREADS);
			break;
		case SIZE:
			o->size = number_arg("--size", optarg, 8, 1 << 20) * MIB;
			if (o->size % SLOT)
				die(EXIT_USAGE, "--size: %zu MiB is not a "
				    "multiple of 2", o->size / MIB);
			break;
		case SEED:
			o->seed = number_arg("--seed", optarg, 0, UINT64_MAX);
			break;
		case CORRUPT:
			if (!strcmp(optarg, "parent"))
				o->corrupt = CORRUPT_PARENT;
			else if (!strcmp(optarg, "child"))
				o->corrupt = CORRUPT_CHILD;
			else
				die(EXIT_USAGE, "--selftest-corrupt: '%s' is "
				    "not parent or child", optarg);
			break;
		default:
			usage_exit(usage, opt == HELP);
		}
	}
	no_operands(argc, argv, optind);
}

/*
 * Roles: a quarter write-faulters (each with its hot entry), a quarter
 * read-faulters, an eighth forkers (at least one of each), the rest
 * everything else.
 */
static void assign_roles(struct worker *w, unsigned int n)
{
	unsigned int readers = n / 4, forkers = n / 8, i;

	g.nhot = n / 4 + !(n / 4);
	readers += !readers;
	forkers += !forkers;
	for (i = 0; i < n; i++) {
		if (i < g.nhot) {
			w[i].role = faulter;
			w[i].hot = &g.hot[i];
		} else if (i < g.nhot + readers) {
			w[i].role = reader;
		} else if (i < g.nhot + readers + forkers) {
			w[i].role = forker;
		} else {
			w[i].role = mixer;
		}
	}
}

int main(int argc, char *argv[])
{
	struct worker *w, handler = { .rng = 1 };
	const char *uffd_skip;
	unsigned int i, n;
	uint64_t next;
	int ret, status;

	parse_options(argc, argv, &g.o);
	n = g.o.threads;
	g.nslots = g.o.size / SLOT;
	g.stats = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g.stats == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	map_slots();
	pvm_start();
	uffd_skip = uffd_open();
	if (uffd_skip)
		fprintf(stderr, "%s: userfaultfd write-protect skipped: %s\n",
			program_invocation_short_name, uffd_skip);
	signal(SIGALRM, on_alarm);
	alarm(2 * g.o.seconds + 120);

	w = calloc(n, sizeof(*w));
	g.hot = calloc(n, sizeof(*g.hot));
	if (!w || !g.hot)
		die(1, "out of memory");
	assign_roles(w, n);
	for (i = 0; i < n; i++) {
		w[i].id = i + 1;
		w[i].rng = mix64(g.o.seed + i + 1) | 1;
	}
	g.t_start = now_ns();
	g.t_end = g.t_start + g.o.seconds * 1000000000ULL;
	if (g.uffd >= 0) {
		handler.rng = mix64(g.o.seed) | 1;
		ret = pthread_create(&handler.thread, NULL, uffd_handler,
				     &handler);
		if (ret)
			die(1, "pthread_create: %s", strerror(ret));
	}
	for (i = 0; i < n; i++) {
		ret = pthread_create(&w[i].thread, NULL, w[i].role, &w[i]);
		if (ret)
			die(1, "pthread_create: %s", strerror(ret));
	}

	/* every slot verified about 5 times over the run */
	for (next = g.t_start; !stopping();) {
		next += g.o.seconds * 1000000000ULL / 5;
		while (!stopping() && now_ns() < next)
			usleep(20000);
		if (stopping())
			break;
		verify_all("periodic");
		count(ST_periodic_verifies, 1);
	}
	for (i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);

	if (g.uffd >= 0) {
		atomic_store(&g.uffd_stop, true);
		pthread_join(handler.thread, NULL);
	}
	close(g.pvm_sock);
	if (waitpid(g.pvm_pid, &status, 0) != g.pvm_pid || status)
		die(1, "the process_vm_writev writer failed (status 0x%x)",
		    status);
	verify_all("final");
	count(ST_periodic_verifies, 1);
	alarm(0);

	printf("seconds=%u\nthreads=%u\nsize_mib=%zu\nseed=%" PRIu64 "\n"
	       "elapsed_ms=%" PRIu64 "\nuffd_wp=%s\n", g.o.seconds, n,
	       g.o.size / MIB, g.o.seed, (now_ns() - g.t_start) / 1000000,
	       uffd_skip ? "skipped" : "ok");
	for (i = 0; i < ST_NR; i++)
		printf("%s=%" PRIu64 "\n", stat_names[i], g.stats[i]);
	return g.stats[ST_mismatches] ? 1 : 0;
}
