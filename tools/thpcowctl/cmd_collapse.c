// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl collapse: huge pages back in another process's memory, e.g. a
 * QEMU whose guest RAM a postcopy migration left in 4 KiB pages. Each 2 MiB
 * range of a private anonymous mapping that is not a THP yet and holds at
 * least --min-present pages of data (present, not the zero page) is
 * collapsed with process_madvise(MADV_COLLAPSE) (Linux 6.1 and later).
 * Nothing needs the module.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "args.h"
#include "cgroup.h"
#include "cmd_collapse.h"
#include "collapse.h"
#include "json.h"
#include "parse.h"
#include "thpcowctl.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise	440
#endif

#define PF_KTHREAD		0x00200000
/*
 * The default --min-present: a range is collapsed only when at least this
 * many of its 512 pages hold data, so a collapse adds at most 10 pages to
 * 502, and the process's RSS grows by at most 2 % (10 / 502), whatever its
 * memory looks like. See thpcowctl(8).
 */
#define MIN_PRESENT_DEFAULT	502
#define EXIT_INTERRUPTED	130	/* Ctrl-C or SIGTERM: 128 + SIGINT */
/*
 * The waits look at the process's open files for a userfaultfd ten times a
 * second (a postcopy shorter than that can go unseen), and read smaps (a
 * walk of all its page tables under its mmap lock: about 0.4 s for 120 GiB
 * of 4 KiB pages) only when that changes, or every SMAPS_POLL_NS.
 */
#define FD_POLL_NS		100000000L
#define SMAPS_POLL_NS		5000000000L
#define PROGRESS_NS		250000000L
#define ERRNO_MAX		134

struct opts {
	unsigned int min_present;
	unsigned long long rate;	/* bytes per second; 0: as fast as it goes */
	unsigned int await;	/* --await-postcopy: seconds */
	bool json, after_migration, progress;
};

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
static int check_kernel(void)
{
	struct utsname uts;
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (p == MAP_FAILED) {
		error_msg("collapse: mmap: %s", strerror(errno));
		return -1;
	}
	ret = madvise(p, 0, MADV_COLLAPSE);
	munmap(p, page);
	if (ret == 0)
		return 0;
	if (uname(&uts))
		strcpy(uts.release, "unknown");
	error_msg("collapse: kernel %s has no MADV_COLLAPSE (Linux 6.1 and later "
		  "collapse another process's memory with process_madvise); "
		  "nothing was changed", uts.release);
	return -1;
}

/* The zero page's frame: map it here and look it up; 0 if pagemap hides
 * frames (without CAP_SYS_ADMIN). */
static int zero_pfn(uint64_t *pfn)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, page, PROT_READ,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t pm = 0;
	int fd;

	if (p == MAP_FAILED)
		return -errno;
	(void)p[0];	/* a read fault maps the zero page */
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || pread(fd, &pm, sizeof(pm),
			    (off_t)((uintptr_t)p / page * sizeof(pm))) != sizeof(pm))
		pm = 0;
	if (fd >= 0)
		close(fd);
	munmap((void *)p, page);
	*pfn = pm & PM_PRESENT ? pm & PM_PFN_MASK : 0;
	return 0;
}

/* VmRSS of /proc/PID/status in kB; -1 once the process is gone. */
static long long rss_kb(pid_t pid)
{
	char path[64], *line = NULL;
	long long kb = -1;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0)
		if (sscanf(line, "VmRSS: %lld", &kb) == 1)
			break;
	free(line);
	fclose(f);
	return kb;
}

/*
 * Can PID be collapsed at all? No such process, a kernel thread, or one
 * whose page map this user may not read is an error (reported); returns 0
 * or -1.
 */
static int check_pid(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_line(path, buf, sizeof(buf))) {
		error_msg("collapse: no such process: %d", (int)pid);
		return -1;
	}
	/* pid (comm) state ppid pgrp session tty tpgid flags */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1) {
		error_msg("collapse: %s: unexpected contents", path);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		error_msg("collapse: pid %d is a kernel thread: it has no user "
			  "memory", (int)pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_msg("collapse: pid %d: cannot read %s: %s", (int)pid, path,
			  strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* Room for element n of an array of cap elements of size bytes. */
static void *grow(void *array, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return array;
	*cap = *cap ? *cap * 2 : 64;
	array = realloc(array, *cap * size);
	if (!array)
		abort();
	return array;
}

/* The pids of a cgroup's cgroup.procs; -1 reported. */
static int cgroup_pids(const char *arg, pid_t **pids, size_t *n)
{
	char mnt[PATH_MAX], abs[PATH_MAX], rel[PATH_MAX], path[PATH_MAX + 16];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool have_mnt = false;
	size_t cap = 0;
	int pid, ret;

	if (f) {
		have_mnt = cgroup2_mount(f, mnt, sizeof(mnt)) == 0;
		fclose(f);
	}
	ret = cgroup_resolve(have_mnt ? mnt : NULL, arg, abs, sizeof(abs), rel,
			     sizeof(rel));
	if (ret) {
		error_msg("collapse: cgroup '%s': %s", arg, ret == -ENOENT ?
			  "no cgroup2 mount for a relative path" : strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", abs);
	f = fopen(path, "re");
	if (!f) {
		error_msg("collapse: cgroup %s: cannot read %s: %s", rel, path,
			  strerror(errno));
		return -1;
	}
	*pids = NULL;
	*n = 0;
	while (fscanf(f, "%d", &pid) == 1) {
		*pids = grow(*pids, *n, &cap, sizeof(**pids));
		(*pids)[(*n)++] = pid;
	}
	fclose(f);
	return 0;
}

/* "cannot read" PATH of PID, reported; -ESRCH if it has exited, else -1. */
static int proc_error(pid_t pid, const char *path)
{
	if (errno == ENOENT || errno == ESRCH)
		return -ESRCH;
	error_msg("collapse: pid %d: cannot read %s: %s", (int)pid, path,
		  strerror(errno));
	return -1;
}

/* The mappings of /proc/PID/smaps; -ESRCH once the process is gone, -1. */
static int read_vmas(pid_t pid, struct vma **vmas, size_t *n)
{
	char path[64];
	size_t cap = 0;
	struct vma v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return proc_error(pid, path);
	*vmas = NULL;
	*n = 0;
	while (smaps_next(f, &v) > 0) {
		*vmas = grow(*vmas, *n, &cap, sizeof(**vmas));
		(*vmas)[(*n)++] = v;
	}
	fclose(f);
	/* a process that has exited has an empty smaps */
	return *n == 0 && kill(pid, 0) && errno == ESRCH ? -ESRCH : 0;
}

static bool eligible(const struct vma *v)
{
	return v->anon_private && !v->special && range_first(v) < range_end(v);
}

/* How much of PID's eligible memory is registered with userfaultfd (MiB),
 * or -ESRCH, -1. */
static long long uffd_mib(pid_t pid)
{
	unsigned long long bytes = 0;
	struct vma *vmas;
	size_t n, i;
	int ret = read_vmas(pid, &vmas, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (vmas[i].anon_private && vmas[i].uffd)
			bytes += vmas[i].end - vmas[i].start;
	free(vmas);
	return (long long)(bytes >> 20);
}

/* How many userfaultfd files PID has open, or -ESRCH, -1. */
static int uffd_files(pid_t pid)
{
	char dir[32], path[300], link[32];
	struct dirent *d;
	ssize_t len;
	int n = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dp = opendir(dir);
	if (!dp)
		return proc_error(pid, dir);
	while ((d = readdir(dp))) {
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;	/* ".", "..", or closed meanwhile */
		link[len] = '\0';
		n += !strcmp(link, "anon_inode:[userfaultfd]");
	}
	closedir(dp);
	return n;
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

static void show_progress(struct tally *t, const struct opts *o, bool last)
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
static void throttle(const struct tally *t, const struct opts *o)
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
			  const struct opts *o)
{
	uint64_t pm[HPAGE_PTES], flags;
	struct range_scan s;
	struct iovec iov = { (void *)addr, HPAGE_SIZE };
	ssize_t ret;

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
	ret = syscall(SYS_process_madvise, tg->pidfd, &iov, 1UL, MADV_COLLAPSE, 0U);
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
static int collapse_pid(struct target *tg, struct tally *t, const struct opts *o)
{
	char path[64];
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
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)tg->pid);
	tg->pagemap = open(path, O_RDONLY | O_CLOEXEC);
	ret = tg->pagemap < 0 ? proc_error(tg->pid, path) : 0;
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
		error_msg("collapse: cannot read /proc/kpageflags: %s",
			  strerror(errno));
	return ret == -EIO ? -1 : ret;
}

/* What the waits know of a process's use of userfaultfd. */
struct uffd_state {
	int files;		/* userfaultfd files open; -ESRCH, -1 */
	long long mib;		/* memory registered; -ESRCH, -1 */
	struct timespec checked;	/* smaps last read */
};

/*
 * Look again: at the open files each time, at smaps the first time, when
 * their count changes, and every SMAPS_POLL_NS (a registration's file may
 * be open in another process only, or kept open after unregistering).
 */
static void uffd_poll(const struct target *tg, struct uffd_state *u,
		      bool first)
{
	int files = pidfd_exited(tg->pidfd) ? -ESRCH : uffd_files(tg->pid);

	if (files >= 0 && (first || files != u->files ||
			   since(&u->checked) * 1e9 >= SMAPS_POLL_NS)) {
		u->mib = uffd_mib(tg->pid);
		clock_gettime(CLOCK_MONOTONIC, &u->checked);
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
		     const struct opts *o)
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

static void print_summary(const struct tally *t, const struct opts *o)
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
	if (o->after_migration)
		printf("waited:        %.2f s (postcopy %s)\n", t->waited,
		       t->postcopy_seen ? "seen" : "not seen");
	if (t->interrupted)
		printf("interrupted:   yes\n");
}

/*
 * One process, waited for first with --after-migration; -ESRCH, -1. Its
 * pidfd, taken first, keeps a pid reused meanwhile from being collapsed.
 */
static int do_pid(struct target *tg, struct tally *t, const struct opts *o)
{
	long long before, after;
	int ret = 0;

	tg->pidfd = (int)syscall(SYS_pidfd_open, tg->pid, 0U);
	if (tg->pidfd < 0) {
		if (errno == ESRCH)
			return -ESRCH;
		error_msg("collapse: pid %d: pidfd_open: %s", (int)tg->pid,
			  strerror(errno));
		return -1;
	}
	if (o->after_migration)
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

/*
 * --pidfile: the pid a daemon wrote (libvirt's /run/libvirt/qemu/NAME.pid);
 * 0, or -1 reported.
 */
static int read_pidfile(const char *path, pid_t *pid)
{
	char buf[32];
	int ret = read_line(path, buf, sizeof(buf));

	if (ret == -ENODATA) {
		error_msg("collapse: pid file %s: empty", path);
	} else if (ret) {
		error_msg("collapse: pid file %s: %s", path, strerror(-ret));
	} else if (parse_pid(buf, pid)) {
		error_msg("collapse: pid file %s: '%s' is not a pid", path, buf);
		ret = -EINVAL;
	}
	return ret ? -1 : 0;
}

static int cmd_collapse(const struct verb *v, int argc, char *argv[])
{
	enum { OPT_MIN = 0x200, OPT_RATE, OPT_AFTER, OPT_AWAIT, OPT_PIDFILE };
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, OPT_PID },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "min-present", required_argument, NULL, OPT_MIN },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "after-migration", no_argument, NULL, OPT_AFTER },
		{ "await-postcopy", required_argument, NULL, OPT_AWAIT },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct opts o = { .min_present = MIN_PRESENT_DEFAULT };
	struct target tg = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct tally t = { 0 };
	const char *cgroup = NULL, *pidfile = NULL;
	unsigned long long num;
	pid_t *pids = NULL, pid = 0;
	size_t n = 0, i;
	int opt, ret = 0, status = EXIT_OK;

	while ((opt = verb_getopt(v, argc, argv, opts)) != -1) {
		switch (opt) {
		case OPT_PID:
		case OPT_CGROUP:
		case OPT_PIDFILE:
			if (pid || cgroup || pidfile)
				return usage_error(v, "--pid, --cgroup and "
						   "--pidfile are mutually "
						   "exclusive");
			if (opt == OPT_CGROUP)
				cgroup = optarg;
			else if (opt == OPT_PIDFILE)
				pidfile = optarg;
			else if (arg_uint(v, "PID", optarg, INT_MAX, &num))
				return EXIT_USAGE;
			else
				pid = (pid_t)num;
			break;
		case OPT_MIN:
			if (arg_uint(v, "page count", optarg, HPAGE_PTES, &num))
				return EXIT_USAGE;
			o.min_present = (unsigned int)num;
			break;
		case OPT_RATE:
			if (arg_uint(v, "MiB/s", optarg, 1ULL << 30, &num))
				return EXIT_USAGE;
			o.rate = num << 20;
			break;
		case OPT_AWAIT:
			if (arg_uint(v, "seconds", optarg, INT_MAX, &num))
				return EXIT_USAGE;
			o.await = (unsigned int)num;
			/* fall through */
		case OPT_AFTER:
			o.after_migration = true;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		}
	}
	verb_no_args(v, argc, argv);
	if (!pid && !cgroup && !pidfile)
		return usage_error(v, "one of --pid, --cgroup or --pidfile is "
				   "required");
	o.progress = !o.json && isatty(STDERR_FILENO);

	if (check_kernel() || (pidfile && read_pidfile(pidfile, &pid)))
		return EXIT_FAIL;
	if (cgroup) {
		if (cgroup_pids(cgroup, &pids, &n))
			return EXIT_FAIL;
	} else {
		if (check_pid(pid))
			return EXIT_FAIL;
		pids = malloc(sizeof(*pids));
		if (!pids)
			abort();
		pids[0] = pid;
		n = 1;
	}
	tg.kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (zero_pfn(&tg.zero_pfn) || !tg.zero_pfn || tg.kpageflags < 0) {
		error_msg("collapse: page frame numbers are hidden from this "
			  "user (pagemap, /proc/kpageflags): CAP_SYS_ADMIN is "
			  "needed");
		free(pids);
		return EXIT_FAIL;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t.start);
	for (i = 0; i < n && !stop && status == EXIT_OK; i++) {
		tg.pid = pids[i];
		ret = do_pid(&tg, &t, &o);
		if (ret == -ESRCH) {
			t.exited++;
			if (!cgroup) {
				error_msg("collapse: pid %d exited", (int)pids[i]);
				status = EXIT_FAIL;
			}
		} else if (ret) {
			status = EXIT_FAIL;
		}
	}
	close(tg.kpageflags);
	free(pids);
	t.interrupted = stop;
	show_progress(&t, &o, true);
	print_summary(&t, &o);
	if (stop)
		return EXIT_INTERRUPTED;
	return status;
}

const struct verb collapse_verb = {
	.name = "collapse", .fn = cmd_collapse,
	.summary = "give a process's 4 KiB-page memory its THPs back",
	.synopsis = "(-p PID | -c PATH | --pidfile FILE) [--min-present N] "
		"[--rate MiB/s] [--after-migration] [--await-postcopy SECS] "
		"[-J]",
	.help = HELP_PID
		"  -c, --cgroup PATH\n"
		"                  every process of a cgroup v2 directory\n"
		"  --pidfile FILE  the process whose pid FILE holds (libvirt:\n"
		"                  /run/libvirt/qemu/NAME.pid)\n"
		"  --min-present N collapse a 2 MiB range only if N of its 512\n"
		"                  pages hold data (default 502: RSS grows <= 2 %)\n"
		"  --rate MiB/s    collapse at most this much per second\n"
		"  --after-migration\n"
		"                  first wait until no memory is registered with\n"
		"                  userfaultfd (a postcopy migration has ended)\n"
		"  --await-postcopy SECS\n"
		"                  --after-migration, and if no memory is under\n"
		"                  userfaultfd yet, wait up to SECS for postcopy\n"
		"                  to begin (an incoming migration in precopy)\n"
		HELP_JSON,
};
