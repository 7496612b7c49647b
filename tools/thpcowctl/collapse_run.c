// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl collapse: the engine (see collapse_run.h). Its messages go
 * through error_msg() without the verb's name: cmd_collapse.c sets it as
 * the error_context().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "collapse.h"
#include "collapse_run.h"
#include "json.h"
#include "libvirt.h"
#include "procfs.h"
#include "thpcowctl.h"

/* MADV_COLLAPSE's EAGAIN is transient: tries after the first */
#define COLLAPSE_TRIES		4

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise	440
#endif

/*
 * The waits look at the process's open files for a userfaultfd ten times a
 * second (a postcopy shorter than that can go unseen), and read smaps (a
 * walk of all its page tables under its mmap lock: about 0.4 s for 120 GiB
 * of 4 KiB pages) only when that changes, or every SMAPS_POLL_NS; but while
 * a userfaultfd is open and nothing is registered yet, again FD_POLL_NS
 * after the change, then twice as long each time up to UNREG_POLL_MAX_NS:
 * QEMU opens its userfaultfd, starts its fault thread and only then
 * registers guest RAM, so the file comes before the registration, and a
 * postcopy shorter than SMAPS_POLL_NS would otherwise go unseen whole.
 */
#define FD_POLL_NS		100000000L
#define UNREG_POLL_MAX_NS	1000000000L
/* virsh domstate's answer: at most 10 s */
#define DOMSTATE_MAX_MS		10000
/* virsh domstate again while no event came: after 2 s, then every 30 s */
#define DOMSTATE_FIRST_S	2
#define DOMSTATE_AGAIN_S	30
#define SMAPS_POLL_NS		5000000000L
#define PROGRESS_NS		250000000L
#define ERRNO_MAX		134

struct tally {
	unsigned long long ranges;	/* 2 MiB ranges looked at */
	unsigned long long todo;	/* ranges known so far (progress) */
	unsigned long long collapsed;
	unsigned long long skipped[SKIP_NR];
	unsigned long long failed[ERRNO_MAX + 1];	/* by errno */
	unsigned long long rss_before_kb, rss_after_kb;
	unsigned int processes, exited;
	bool interrupted, postcopy_seen;
	double waited;		/* --after-migration's waits, in seconds */
	/* what ended the wait: "event" (libvirt's), "state" (libvirt's at the
	 * start), "userfaultfd" (its end seen in /proc), "timeout", "none" */
	const char *trigger;
	struct timespec start, shown;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) +
		(double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Sleep, cut short by Ctrl-C. */
static void nap(double secs)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	if (secs > 0 && !stop)
		nanosleep(&ts, NULL);
}

static const char *errno_name(int err, char *buf, size_t len)
{
	static const struct { int err; const char *name; } names[] = {
		{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EINVAL, "EINVAL" },
		{ EBUSY, "EBUSY" }, { EFAULT, "EFAULT" }, { EPERM, "EPERM" },
		{ EACCES, "EACCES" }, { ESRCH, "ESRCH" }, { EIO, "EIO" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].err == err)
			return names[i].name;
	snprintf(buf, len, "errno_%d", err);
	return buf;
}

/* Does this kernel know MADV_COLLAPSE? A zero length is a no-op that is
 * still refused for advice the kernel does not know. */
int collapse_check_kernel(void)
{
	struct utsname uts;
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (p == MAP_FAILED) {
		error_msg("mmap: %s", strerror(errno));
		return -1;
	}
	ret = madvise(p, 0, MADV_COLLAPSE);
	munmap(p, page);
	if (ret == 0)
		return 0;
	if (uname(&uts))
		strcpy(uts.release, "unknown");
	error_msg("kernel %s has no MADV_COLLAPSE (Linux 6.1 and later "
		  "collapse another process's memory with process_madvise); "
		  "nothing was changed", uts.release);
	return -1;
}

static bool eligible(const struct vma *v)
{
	return v->anon_private && !v->special && range_first(v) < range_end(v);
}

/* Has pidfd's process exited? A pidfd polls readable then. */
static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* Seconds spent collapsing: since the start, without the waits. */
static double busy(const struct tally *t)
{
	return since(&t->start) - t->waited;
}

static void show_progress(struct tally *t, const struct collapse_opts *o,
			  bool last)
{
	double secs = busy(t);
	double mib = (double)t->collapsed * 2, rate = secs > 0 ? mib / secs : 0;
	double left = (double)(t->todo - t->ranges);

	if (!o->progress || (!last && since(&t->shown) * 1e9 < PROGRESS_NS))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t->shown);
	fprintf(stderr, "\r\033[Kcollapse: %llu/%llu ranges, %.0f MiB collapsed, "
		"%.1f MiB/s", t->ranges, t->todo, mib, rate);
	if (t->ranges && !last)
		fprintf(stderr, ", ETA %.0f s", left * secs / (double)t->ranges);
	fputs(last ? "\n" : "", stderr);
}

/* Keep the copy bandwidth at or under --rate. */
static void throttle(const struct tally *t, const struct collapse_opts *o)
{
	if (o->rate)
		nap((double)t->collapsed * HPAGE_SIZE / (double)o->rate -
		    busy(t));
}

/* The /proc/kpageflags bits of frame pfn; 0, or -1 if unreadable. */
static int kpageflags(int fd, uint64_t pfn, uint64_t *flags)
{
	return pread(fd, flags, sizeof(*flags), (off_t)(pfn * sizeof(*flags))) ==
		sizeof(*flags) ? 0 : -1;
}

struct target {
	pid_t pid;
	int pidfd, pagemap, kpageflags;
	uint64_t zero_pfn;
};

/* One range: collapsed, skipped or failed; -ESRCH when PID is gone. */
static int collapse_range(struct target *tg, const struct vma *v,
			  unsigned long addr, struct tally *t,
			  const struct collapse_opts *o)
{
	uint64_t pm[HPAGE_PTES], flags;
	struct range_scan s;
	struct iovec iov = { (void *)addr, HPAGE_SIZE };
	struct timespec pause_ms = { 0, 0 };
	ssize_t ret;
	int tries;

	t->ranges++;
	if (v->nohugepage) {
		t->skipped[SKIP_NOHUGEPAGE]++;
		return 0;
	}
	if (v->uffd) {
		t->skipped[SKIP_UFFD]++;
		return 0;
	}
	ret = pread(tg->pagemap, pm, sizeof(pm),
		    (off_t)(addr / 4096 * sizeof(pm[0])));
	if (ret != sizeof(pm))
		return -ESRCH;
	range_scan(pm, tg->zero_pfn, &s);
	if (s.aligned_run) {
		if (kpageflags(tg->kpageflags, s.pfn0, &flags))
			return -EIO;
		if (flags & (1ULL << KPF_ZERO_BIT)) {
			s.data = 0;	/* the huge zero page */
		} else if (flags & (1ULL << KPF_THP_BIT)) {
			t->skipped[SKIP_THP]++;
			return 0;
		}
	}
	if (s.data < o->min_present) {
		t->skipped[SKIP_SPARSE]++;
		return 0;
	}
	throttle(t, o);
	if (stop) {
		t->ranges--;
		return 0;
	}
	for (tries = 0;; tries++) {
		ret = syscall(SYS_process_madvise, tg->pidfd, &iov, 1UL,
			      MADV_COLLAPSE, 0U);
		if (ret >= 0 || errno != EAGAIN || tries == COLLAPSE_TRIES)
			break;
		/*
		 * Transient (madvise(2)): a page of the range was locked or
		 * referenced meanwhile, as when a KVM guest or another thread
		 * writes it; again after 1, 4, 16, 64 ms.
		 */
		pause_ms.tv_nsec = 1000000L << (2 * tries);
		nanosleep(&pause_ms, NULL);
	}
	if (ret >= 0) {
		t->collapsed++;
		return 0;
	}
	if (errno == ESRCH)
		return -ESRCH;
	t->failed[errno <= ERRNO_MAX ? errno : 0]++;
	return 0;
}

/* Every range of PID; -ESRCH if it went away, -1 reported. */
static int collapse_pid(struct target *tg, struct tally *t,
			const struct collapse_opts *o)
{
	struct vma *vmas;
	unsigned long addr;
	size_t n, i;
	int ret;

	ret = read_vmas(tg->pid, &vmas, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (eligible(&vmas[i]))
			t->todo += (range_end(&vmas[i]) - range_first(&vmas[i])) /
				HPAGE_SIZE;
	tg->pagemap = open_pagemap(tg->pid);
	ret = tg->pagemap < 0 ? tg->pagemap : 0;
	for (i = 0; i < n && !ret && !stop; i++) {
		if (!eligible(&vmas[i]))
			continue;
		for (addr = range_first(&vmas[i]); addr < range_end(&vmas[i]) &&
		     !ret && !stop; addr += HPAGE_SIZE) {
			ret = collapse_range(tg, &vmas[i], addr, t, o);
			show_progress(t, o, false);
		}
	}
	if (tg->pagemap >= 0)
		close(tg->pagemap);
	free(vmas);
	if (ret == -EIO)
		error_msg("cannot read /proc/kpageflags: %s", strerror(errno));
	return ret == -EIO ? -1 : ret;
}

/* What the waits know of a process's use of userfaultfd. */
struct uffd_state {
	int files;		/* userfaultfd files open; -ESRCH, -1 */
	long long mib;		/* memory registered; -ESRCH, -1 */
	struct timespec checked;	/* smaps last read */
	long interval_ns;	/* until smaps is read again */
};

/*
 * Look again: at the open files each time, at smaps the first time, when
 * their count changes, and every SMAPS_POLL_NS (a registration's file may
 * be open in another process only, or kept open after unregistering), or
 * sooner while a file is open with nothing registered (above).
 */
static void uffd_poll(const struct target *tg, struct uffd_state *u,
		      bool first)
{
	int files = pidfd_exited(tg->pidfd) ? -ESRCH : uffd_files(tg->pid);

	if (files >= 0 && (first || files != u->files))
		u->interval_ns = 0;
	if (files >= 0 && since(&u->checked) * 1e9 >= u->interval_ns) {
		u->mib = uffd_mib(tg->pid);
		clock_gettime(CLOCK_MONOTONIC, &u->checked);
		if (files == 0 || u->mib != 0)
			u->interval_ns = SMAPS_POLL_NS;
		else if (!u->interval_ns)
			u->interval_ns = FD_POLL_NS;
		else if (u->interval_ns < UNREG_POLL_MAX_NS / 2)
			u->interval_ns *= 2;
		else
			u->interval_ns = UNREG_POLL_MAX_NS;
	}
	u->files = files;
}

/*
 * --after-migration: until no userfaultfd registration is left. QEMU
 * registers guest RAM only when an incoming migration switches to
 * postcopy, so one still in precopy looks like one that has ended; with
 * --await-postcopy SECS, first wait until SECS after the start for a
 * registration to appear. -ESRCH if the process exits meanwhile, -1.
 */
static int wait_uffd(const struct target *tg, struct tally *t,
		     const struct collapse_opts *o)
{
	struct uffd_state u = { 0 };
	struct timespec t0;
	bool shown = false;
	double left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	uffd_poll(tg, &u, true);
	while (u.files >= 0 && !u.mib && !stop &&
	       (left = o->await - since(&t->start)) > 0) {
		if (o->progress) {
			fprintf(stderr, "\r\033[Kcollapse: pid %d: waiting %.0f s "
				"more for postcopy to begin", (int)tg->pid, left);
			shown = true;
		}
		nap(left < FD_POLL_NS / 1e9 ? left : FD_POLL_NS / 1e9);
		uffd_poll(tg, &u, false);
	}
	t->postcopy_seen |= u.files >= 0 && u.mib > 0;
	/* stopped, or the process gone: nothing ended the wait */
	t->trigger = u.mib > 0 ? "userfaultfd" :
		     o->await && !stop && u.files >= 0 ? "timeout" : "none";
	while (u.files >= 0 && u.mib > 0 && !stop) {
		if (o->progress) {
			fprintf(stderr, "\r\033[Kcollapse: pid %d: waiting, %lld MiB "
				"still under userfaultfd", (int)tg->pid, u.mib);
			shown = true;
		}
		nap(FD_POLL_NS / 1e9);
		uffd_poll(tg, &u, false);
	}
	if (shown)
		fputc('\n', stderr);
	t->waited += since(&t0);
	return u.files < 0 ? u.files : u.mib < 0 ? (int)u.mib : 0;
}

/* How long virsh domstate may take: the rest of --await-postcopy, at most
 * DOMSTATE_MAX_MS. */
static int domstate_ms(const struct tally *t, const struct collapse_opts *o)
{
	double left = o->await ? o->await - since(&t->start) : 0;

	if (!o->await || left * 1000 > DOMSTATE_MAX_MS)
		return DOMSTATE_MAX_MS;
	return left > 0 ? (int)(left * 1000) : 1;
}

/*
 * --domain: until libvirt says the incoming migration has completed
 * ("Resumed Migrated"; or domstate says so, at once and while no event
 * comes, for a migration that ended before the subscription), at most
 * --await-postcopy seconds; then, after a postcopy, until no userfaultfd
 * registration is left (QEMU ends them as postcopy ends). Without an
 * answer from libvirt (no virsh, no daemon): the /proc watch of
 * --await-postcopy. -ESRCH if the process is gone, -1 (reported) if the
 * domain stopped.
 */
static int wait_domain(const struct target *tg, struct tally *t,
		       const struct collapse_opts *o)
{
	struct collapse_opts after = *o;
	enum mig_state state = MIG_WAITING;
	struct virsh_events e;
	struct timespec t0;
	bool shown = false, lost = false;
	char why[256];
	double left = 1, requery = DOMSTATE_FIRST_S;
	int ret;

	if (virsh_events_start(&e))
		return wait_uffd(tg, t, o);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* its error (the domain not defined here yet, say) only matters
	 * if the events do not come either */
	ret = virsh_domstate(o->domain, domstate_ms(t, o), &state, why,
			     sizeof(why));
	if (ret == -ETIMEDOUT) {
		/* a daemon that does not answer sends no events either */
		virsh_events_stop(&e);
		t->waited += since(&t0);
		error_msg("libvirt domain %s: virsh domstate: no answer; "
			  "watching the process instead", o->domain);
		return wait_uffd(tg, t, o);
	}
	if (ret == 0 && state == MIG_DONE)
		t->trigger = "state";
	while (state < MIG_DONE && !stop && !pidfd_exited(tg->pidfd) &&
	       (!o->await || (left = o->await - since(&t->start)) > 0)) {
		if (state == MIG_POSTCOPY)
			t->postcopy_seen = true;
		if (o->progress) {
			fprintf(stderr, "\r\033[Kcollapse: pid %d: waiting %.0f s "
				"more for libvirt's domain %s to be migrated%s",
				(int)tg->pid, left, o->domain,
				state == MIG_POSTCOPY ? " (postcopy)" : "");
			shown = true;
		}
		if (virsh_events_wait(&e, o->domain, FD_POLL_NS / 1000000,
				      &state)) {
			lost = true;
			break;
		}
		if (state == MIG_DONE && !t->trigger)
			t->trigger = "event";
		/* a migration that ended between the first query and the
		 * subscription sends no event: ask again, after 2 s, then
		 * every 30 s */
		if (state < MIG_DONE && since(&t0) >= requery) {
			enum mig_state now = MIG_WAITING;

			if (virsh_domstate(o->domain, domstate_ms(t, o), &now,
					   why, sizeof(why)) == 0 && now > state) {
				state = now;
				if (state == MIG_DONE)
					t->trigger = "state";
			}
			requery = since(&t0) + DOMSTATE_AGAIN_S;
		}
	}
	if (state == MIG_POSTCOPY)
		t->postcopy_seen = true;
	virsh_events_stop(&e);
	if (shown)
		fputc('\n', stderr);
	t->waited += since(&t0);
	if (state == MIG_GONE) {
		error_msg("libvirt domain %s: %s", o->domain,
			  e.last[0] ? e.last : "not running");
		return -1;
	}
	if (pidfd_exited(tg->pidfd))
		return -ESRCH;
	if (stop)
		return 0;
	if (state < MIG_DONE) {
		/* libvirt said nothing, or went: what /proc shows (the rest
		 * of --await-postcopy), as without --domain */
		if (lost)
			error_msg("libvirt domain %s: %s; watching the process "
				  "instead", o->domain,
				  e.why[0] ? e.why : "no events (virsh ended)");
		ret = wait_uffd(tg, t, o);
		return ret;
	}
	/* migrated: after a postcopy, the last registrations go with it */
	after.await = 0;
	if (!t->postcopy_seen)
		return 0;
	{
		const char *trigger = t->trigger;

		ret = wait_uffd(tg, t, &after);
		t->postcopy_seen = true;
		t->trigger = trigger;
	}
	return ret;
}

static void print_summary(const struct tally *t,
			  const struct collapse_opts *o)
{
	double secs = busy(t), mib = (double)t->collapsed * 2;
	char buf[32];
	struct json j;
	int i;

	if (o->json) {
		json_init(&j, stdout);
		json_object(&j, NULL);
		json_uint(&j, "processes", t->processes);
		json_uint(&j, "exited", t->exited);
		json_uint(&j, "min_present", o->min_present);
		json_uint(&j, "ranges", t->ranges);
		json_uint(&j, "collapsed", t->collapsed);
		json_object(&j, "skipped");
		for (i = 0; i < SKIP_NR; i++)
			json_uint(&j, skip_names[i], t->skipped[i]);
		json_end(&j);
		json_object(&j, "failed");
		for (i = 0; i <= ERRNO_MAX; i++)
			if (t->failed[i])
				json_uint(&j, errno_name(i, buf, sizeof(buf)),
					  t->failed[i]);
		json_end(&j);
		json_uint(&j, "rss_before_kb", t->rss_before_kb);
		json_uint(&j, "rss_after_kb", t->rss_after_kb);
		json_double(&j, "seconds", secs);
		json_double(&j, "waited_s", t->waited);
		json_bool(&j, "postcopy_seen", t->postcopy_seen);
		if (o->domain)
			json_string(&j, "domain", o->domain);
		json_string(&j, "trigger", t->trigger ? t->trigger : "none");
		json_double(&j, "mib_per_s", secs > 0 ? mib / secs : 0);
		json_bool(&j, "interrupted", t->interrupted);
		json_end(&j);
		return;
	}
	printf("processes:     %u (%u exited)\n", t->processes, t->exited);
	printf("ranges:        %llu of 2 MiB\n", t->ranges);
	printf("collapsed:     %llu (%.0f MiB)\n", t->collapsed, mib);
	for (i = 0; i < SKIP_NR; i++)
		printf("skipped %-10s %llu\n", skip_names[i], t->skipped[i]);
	for (i = 0; i <= ERRNO_MAX; i++)
		if (t->failed[i])
			printf("failed %-11s %llu\n",
			       errno_name(i, buf, sizeof(buf)), t->failed[i]);
	printf("rss before:    %llu kB\n", t->rss_before_kb);
	printf("rss after:     %llu kB\n", t->rss_after_kb);
	printf("time:          %.2f s (%.1f MiB/s)\n", secs,
	       secs > 0 ? mib / secs : 0);
	if (o->after_migration || o->domain)
		printf("waited:        %.2f s (postcopy %s)\n", t->waited,
		       t->postcopy_seen ? "seen" : "not seen");
	if (o->domain)
		printf("until:         %s\n", t->trigger ? t->trigger : "none");
	if (t->interrupted)
		printf("interrupted:   yes\n");
}

/*
 * One process, waited for first with --after-migration; -ESRCH, -1. Its
 * pidfd, taken first, keeps a pid reused meanwhile from being collapsed.
 */
static int do_pid(struct target *tg, struct tally *t,
		  const struct collapse_opts *o)
{
	long long before, after;
	int ret = 0;

	tg->pidfd = (int)syscall(SYS_pidfd_open, tg->pid, 0U);
	if (tg->pidfd < 0) {
		if (errno == ESRCH)
			return -ESRCH;
		error_msg("pid %d: pidfd_open: %s", (int)tg->pid,
			  strerror(errno));
		return -1;
	}
	if (o->domain)
		ret = wait_domain(tg, t, o);
	else if (o->after_migration)
		ret = wait_uffd(tg, t, o);
	before = rss_kb(tg->pid);
	if (ret || stop || before < 0) {
		close(tg->pidfd);
		return ret ? ret : stop ? 0 : -ESRCH;
	}
	t->processes++;
	ret = collapse_pid(tg, t, o);
	after = rss_kb(tg->pid);
	if (after < 0 && !ret)
		ret = -ESRCH;
	t->rss_before_kb += (unsigned long long)before;
	t->rss_after_kb += (unsigned long long)(after < 0 ? 0 : after);
	close(tg->pidfd);
	return ret;
}

int collapse_run(const pid_t *pids, size_t n, bool cgroup,
		 const struct collapse_opts *o)
{
	struct target tg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct tally t = { 0 };
	int ret, status = EXIT_OK;
	size_t i;

	tg.kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (zero_pfn(&tg.zero_pfn) || !tg.zero_pfn || tg.kpageflags < 0) {
		error_msg("page frame numbers are hidden from this user "
			  "(pagemap, /proc/kpageflags): CAP_SYS_ADMIN is needed");
		return EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t.start);
	for (i = 0; i < n && !stop && status == EXIT_OK; i++) {
		tg.pid = pids[i];
		ret = do_pid(&tg, &t, o);
		if (ret == -ESRCH) {
			t.exited++;
			if (!cgroup) {
				error_msg("pid %d exited", (int)pids[i]);
				status = EXIT_FAIL;
			}
		} else if (ret) {
			status = EXIT_FAIL;
		}
	}
	close(tg.kpageflags);
	t.interrupted = stop;
	show_progress(&t, o, true);
	print_summary(&t, o);
	if (stop)
		return EXIT_INTERRUPTED;
	return status;
}
