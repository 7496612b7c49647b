// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl trace: the module's thpcow_fault events, as they happen, read
 * through libtracefs and decoded field by field with libtraceevent (no
 * printed text is parsed). They are enabled in a tracefs instance of our
 * own, instances/thpcowctl-PID, with the "boot" clock, so the global trace
 * buffer and whoever uses it are left alone; the instance is removed again
 * however the verb ends (count, duration, SIGINT/SIGTERM/SIGHUP, a closed
 * pipe, an error). One killed with SIGKILL leaves its instance behind: the
 * next trace removes it. Built without the libraries (Debian 11), trace
 * only says so.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_LIBTRACEFS
#include <event-parse.h>
#include <tracefs.h>
#endif

#include "args.h"
#include "cmd_trace.h"
#include "device.h"
#include "thpcowctl.h"
#include "trace.h"

#define EVENT_FILE(name) TRACE_SYSTEM_DIR "/" TRACE_EVENT_NAME "/" name
#define INSTANCE_PREFIX	PROGRAM_NAME "-"
#define ROOT_NEEDED	"permission denied: root is needed"

struct tracer {
	bool json;
	pid_t pid;			/* only this process's events, or 0 */
	unsigned long long count;	/* stop after this many, or 0 */
	unsigned long long buffer_kb;	/* the instance's buffer, or 0 */
	struct trace_clock clock;
#ifdef HAVE_LIBTRACEFS
	const char *tracefs;
	char instance[PATH_MAX];	/* tracefs/instances/thpcowctl-PID */
	struct tracefs_instance *inst;	/* ours once created is set */
	bool created;
	struct tep_handle *tep;		/* the thpcow events' formats */
	struct trace_format format;	/* thpcow_fault's fields */
	int pipe_fd;			/* trace_pipe: only polled, never read */
	unsigned long long printed;
	bool timed;			/* --duration: until deadline */
	struct timespec deadline;	/* CLOCK_MONOTONIC */
	struct timespec lost_seen;	/* when report_lost() last looked */
	long cpus;			/* possible CPUs, the per_cpu/ dirs */
	unsigned long long *cpu_lost;	/* dropped on each, as reported */
	int write_err;			/* errno of a failed write to stdout */
	struct trace_queue queue;	/* read, not yet printed (trace.h) */
	unsigned long long until;	/* the pass prints events up to this */
#endif
};

#ifdef HAVE_LIBTRACEFS

/* Where tracefs may be: its own mount, or debugfs's automount. */
static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * The stop signals blocked; old becomes the mask that lets them in, which
 * ppoll() and read_and_print() use while they wait.
 */
static void catch_stop_signals(sigset_t *old)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++)
		sigaddset(&set, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
	for (i = 0; i < ARRAY_SIZE(stop_signals); i++) {
		sigaction(stop_signals[i], &sa, NULL);
		sigdelset(old, stop_signals[i]);
	}
	/* a reader that went away is a write error (EPIPE), not death */
	signal(SIGPIPE, SIG_IGN);
}

/* The tracefs mount, or NULL (reported). */
static const char *find_tracefs(void)
{
	const char *denied = NULL;
	struct statfs sfs;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tracefs_dirs); i++) {
		if (statfs(tracefs_dirs[i], &sfs) == 0) {
			if (sfs.f_type == TRACEFS_MAGIC)
				return tracefs_dirs[i];
		} else if (errno == EACCES || errno == EPERM) {
			denied = tracefs_dirs[i];
		}
	}
	if (denied)
		error_msg("trace: %s: " ROOT_NEEDED, denied);
	else
		error_msg("trace: tracefs is not mounted on %s or %s (mount -t "
			  "tracefs tracefs %s)", tracefs_dirs[0], tracefs_dirs[1],
			  tracefs_dirs[0]);
	return NULL;
}

/* A tracefs path that failed, in words: permissions, the module, errno. */
static int tracefs_error(const char *path, int err)
{
	if (err == EACCES || err == EPERM)
		error_msg("trace: %s: " ROOT_NEEDED, path);
	else if (err == ENOENT && !module_loaded())
		error_msg("trace: %s: module not loaded (try: %s)", path,
			  load_hint());
	else if (err == ENOENT)
		error_msg("trace: %s: no such directory, but the module is loaded "
			  "(built without its tracepoint?)", path);
	else
		error_msg("trace: %s: %s", path, strerror(err));
	return -1;
}

/* The module's events must be there before an instance is worth making. */
static int check_events(const char *tracefs)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/" TRACE_SYSTEM_DIR "/" TRACE_EVENT_NAME,
		 tracefs);
	if (stat(path, &st))
		return tracefs_error(path, errno);
	return 0;
}

/*
 * Instances of thpcowctl traces that were killed (their pid is gone).
 * Best effort: the instance of a live pid, or one we cannot remove, stays.
 */
static void remove_stale_instances(const char *tracefs)
{
	char dir[PATH_MAX], path[PATH_MAX + 256];
	unsigned long long pid;
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (strncmp(d->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) ||
		    parse_uint(d->d_name + strlen(INSTANCE_PREFIX), INT_MAX, &pid) ||
		    pid == 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		rmdir(path);
	}
	closedir(dp);
}

/* Write s to the instance's file name (relative to it). */
static int instance_write(const struct tracer *t, const char *name,
			  const char *s)
{
	if (tracefs_instance_file_write(t->inst, name, s) == (int)strlen(s))
		return 0;
	if (errno == EACCES || errno == EPERM || errno == ENOENT) {
		char path[PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/%s", t->instance, name);
		return tracefs_error(path, errno);
	}
	error_msg("trace: %s/%s: cannot write '%s': %s", t->instance, name, s,
		  strerror(errno));
	return -1;
}

/*
 * The formats of the module's events, read from tracefs: the fields are
 * then read by name, wherever this kernel's build put them.
 */
static int load_format(struct tracer *t)
{
	const char *systems[] = { TRACE_SYSTEM_NAME, NULL };
	struct tep_event *event = NULL;

	t->tep = tracefs_local_events_system(t->tracefs, systems);
	if (t->tep)
		event = tep_find_event_by_name(t->tep, TRACE_SYSTEM_NAME,
					       TRACE_EVENT_NAME);
	if (!event) {
		error_msg("trace: %s/" EVENT_FILE("format") ": cannot be read or "
			  "parsed", t->tracefs);
		return -1;
	}
	if (trace_format_init(&t->format, event)) {
		error_msg("trace: %s/" EVENT_FILE("format") ": not the fields pid, "
			  "comm, address and outcome (a module of another version?)",
			  t->tracefs);
		return -1;
	}
	return 0;
}

static int instance_create(struct tracer *t)
{
	char name[32], filter[32], kb[24];

	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	snprintf(t->instance, sizeof(t->instance), "%s/instances/%s",
		 t->tracefs, name);
	t->inst = tracefs_instance_create(name);
	if (!t->inst)
		return tracefs_error(t->instance, errno);
	if (!tracefs_instance_is_new(t->inst)) {
		error_msg("trace: %s: already exists (another " PROGRAM_NAME
			  " with this pid, in another pid namespace?)", t->instance);
		return -1;
	}
	t->created = true;
	/* timestamps comparable with clock_gettime(CLOCK_BOOTTIME) */
	if (instance_write(t, "trace_clock", "boot"))
		return -1;
	if (t->buffer_kb) {
		snprintf(kb, sizeof(kb), "%llu", t->buffer_kb);
		if (instance_write(t, "buffer_size_kb", kb))
			return -1;
	}
	/* wake the poll for any event, not a half-full buffer (best effort) */
	tracefs_instance_file_write(t->inst, "buffer_percent", "0");
	if (t->pid) {
		snprintf(filter, sizeof(filter), "pid == %d", (int)t->pid);
		if (instance_write(t, EVENT_FILE("filter"), filter))
			return -1;
	}
	if (instance_write(t, EVENT_FILE("enable"), "1"))
		return -1;
	t->pipe_fd = tracefs_instance_file_open(t->inst, "trace_pipe",
						O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe_fd < 0) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/trace_pipe", t->instance);
		return tracefs_error(path, errno);
	}
	return 0;
}

/*
 * Events the kernel dropped on cpu so far in the instance: overwritten
 * before we read them (overrun), or refused when full (dropped events),
 * from per_cpu/cpuN/stats; 0 if that cannot be read.
 */
static unsigned long long cpu_lost(const struct tracer *t, long cpu)
{
	unsigned long long sum = 0, v;
	char name[64], *stats, *line, *save;

	snprintf(name, sizeof(name), "per_cpu/cpu%ld/stats", cpu);
	stats = tracefs_instance_file_read(t->inst, name, NULL);
	if (!stats)
		return 0;
	for (line = strtok_r(stats, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "overrun: %llu", &v) == 1 ||
		    sscanf(line, "dropped events: %llu", &v) == 1)
			sum += v;
	free(stats);
	return sum;
}

/* Now on the instance's clock ("boot"), in ns. */
static unsigned long long boot_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_BOOTTIME, &now);
	return now.tv_sec * 1000000000ULL + now.tv_nsec;
}

/*
 * Report what the kernel dropped since the last look, CPU by CPU, at the
 * time seen. From the stats, which count every event dropped, also those
 * a record's missed_events (a flag on the page read next) leaves uncounted
 * (-1) or never gets to when the trace stops first.
 */
static void report_lost(struct tracer *t)
{
	unsigned long long v, now = boot_ns();
	long cpu;

	for (cpu = 0; cpu < t->cpus; cpu++) {
		v = cpu_lost(t, cpu);
		if (v <= t->cpu_lost[cpu])
			continue;
		print_trace_lost(t->json ? stdout : stderr, (int)cpu,
				 v - t->cpu_lost[cpu], now, &t->clock, t->json);
		t->cpu_lost[cpu] = v;
	}
}

/* All the events dropped, after the event is disabled: the final count. */
static unsigned long long instance_lost(const struct tracer *t)
{
	unsigned long long sum = 0;
	long cpu;

	for (cpu = 0; cpu < t->cpus; cpu++)
		sum += cpu_lost(t, cpu);
	return sum;
}

/* Close the pipe (an open one keeps the instance busy), then remove it. */
static int instance_remove(struct tracer *t)
{
	int tries, ret = 0;

	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	t->pipe_fd = -1;
	if (t->created) {
		for (tries = 0; rmdir(t->instance) && errno == EBUSY && tries < 50;
		     tries++)
			usleep(20000);
		if (access(t->instance, F_OK) == 0) {
			error_msg("trace: %s: cannot remove the instance: %s",
				  t->instance, strerror(errno));
			ret = -1;
		}
		t->created = false;
	}
	tracefs_instance_free(t->inst);
	t->inst = NULL;
	return ret;
}

static struct timespec timespec_sub(struct timespec a, struct timespec b)
{
	struct timespec d = { a.tv_sec - b.tv_sec, a.tv_nsec - b.tv_nsec };

	if (d.tv_nsec < 0) {
		d.tv_sec--;
		d.tv_nsec += 1000000000L;
	}
	return d;
}

/* Time to stop: a signal, count events, the deadline, a write error. */
static bool done(const struct tracer *t)
{
	struct timespec now;

	if (stop_signal || (t->count && t->printed >= t->count) || t->write_err)
		return true;
	if (!t->timed)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return timespec_sub(t->deadline, now).tv_sec < 0;
}

/*
 * A second since report_lost() last looked: it looks between events too,
 * as a stream of them may never let tracefs_iterate_raw_events() return.
 */
static bool lost_due(struct tracer *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (timespec_sub(now, t->lost_seen).tv_sec < 1)
		return false;
	t->lost_seen = now;
	return true;
}

static void print_event(struct tracer *t, const struct trace_event *ev)
{
	print_trace_event(stdout, ev, &t->clock, t->json);
	t->printed++;
	if (ferror(stdout) && !stop_signal)
		t->write_err = errno ? errno : EIO;
}

/* The queued events up to until, oldest first, while not done. */
static void print_queued(struct tracer *t, unsigned long long until)
{
	const struct trace_event *ev;

	while (!done(t) && (ev = trace_queue_take(&t->queue, until)))
		print_event(t, ev);
}

/*
 * Into the queue (trace.h says why). Its order is kept up to a bound: in
 * a pass that a flood of events never lets end, a full queue gives out
 * what is not newer than ev, then, if still full, all of it; without the
 * memory to queue it, an event is printed at once.
 */
static void queue_event(struct tracer *t, const struct trace_event *ev)
{
	if (trace_queue_len(&t->queue) >= TRACE_QUEUE_MAX)
		print_queued(t, ev->ts);
	if (trace_queue_len(&t->queue) >= TRACE_QUEUE_MAX)
		print_queued(t, ULLONG_MAX);
	if (trace_queue_add(&t->queue, ev) && !done(t))
		print_event(t, ev);
}

/* One record from tracefs_iterate_raw_events(); non-zero stops it. */
static int on_record(struct tep_event *event, struct tep_record *rec, int cpu,
		     void *ctx)
{
	struct tracer *t = ctx;
	struct trace_event ev;

	if (done(t))
		return 1;
	if (event != t->format.event)
		return 0;
	if (trace_decode(&t->format, rec, &ev)) {
		error_msg("trace: an event on CPU %d that does not match its format",
			  cpu);
		return 0;
	}
	if (t->pid && ev.pid != t->pid)
		return 0;
	queue_event(t, &ev);
	print_queued(t, trace_pass_due(t->until, ev.ts));
	if (!done(t) && lost_due(t))
		report_lost(t);
	return done(t);
}

/*
 * Read what is there and print it, oldest first across the CPUs: what
 * happened before the pass began, less the margin; the rest waits. The stop
 * signals are let in meanwhile: a write that a stalled reader of our output
 * blocks ends with EINTR then. Nothing more is written once one came.
 */
static int read_and_print(struct tracer *t, const sigset_t *waitmask)
{
	sigset_t blocked;
	int ret;

	sigprocmask(SIG_SETMASK, waitmask, &blocked);
	t->until = boot_ns();
	t->until = t->until > TRACE_ORDER_MARGIN_NS ?
		   t->until - TRACE_ORDER_MARGIN_NS : 0;
	errno = 0;
	ret = tracefs_iterate_raw_events(t->tep, t->inst, NULL, 0, on_record, t);
	print_queued(t, t->until);
	if (ret && !stop_signal)
		error_msg("trace: %s/per_cpu: cannot read the buffers: %s",
			  t->instance, strerror(errno ? errno : EIO));
	if (!ret && !done(t) && lost_due(t))
		report_lost(t);
	/* a stop signal may interrupt the flush: that is no write error */
	if (!ret && !stop_signal && !t->write_err && fflush(stdout) &&
	    !stop_signal)
		t->write_err = errno;
	if (t->write_err)
		ret = -1;
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	return stop_signal ? 0 : ret;
}

/*
 * Until count events, the deadline (if duration), a stop signal, or the
 * reader of our stdout pipe leaving (POLLERR, even with no event to write).
 * The wait is never longer than a second: a missed wakeup costs that much;
 * with events queued, twice the margin, for them to come out. At the
 * deadline the queue is printed whole: it all happened before.
 */
static int trace_loop(struct tracer *t, unsigned long long duration,
		      const sigset_t *waitmask)
{
	struct timespec now, deadline, left, rest;
	sigset_t blocked;
	struct pollfd pfd[] = {
		{ .fd = t->pipe_fd, .events = POLLIN },
		{ .fd = STDOUT_FILENO, .events = 0 },
	};

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += duration;
	t->timed = duration != 0;
	t->deadline = deadline;
	while (!done(t)) {
		left = (struct timespec){ 1, 0 };
		if (!trace_queue_empty(&t->queue))
			left = (struct timespec){ 0, 2 * TRACE_ORDER_MARGIN_NS };
		if (duration) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			rest = timespec_sub(deadline, now);
			if (rest.tv_sec < 0)
				break;
			if (timespec_sub(rest, left).tv_sec < 0)
				left = rest;
		}
		if (ppoll(pfd, ARRAY_SIZE(pfd), &left, waitmask) < 0 &&
		    errno != EINTR) {
			error_msg("trace: poll: %s", strerror(errno));
			return -1;
		}
		if (stop_signal)
			break;
		if (pfd[1].revents & POLLERR) {
			t->write_err = EPIPE;
			return -1;
		}
		if (read_and_print(t, waitmask))
			return -1;
	}
	if (!stop_signal && !t->write_err) {
		/* as read_and_print(): a stalled reader cannot hold a signal */
		sigprocmask(SIG_SETMASK, waitmask, &blocked);
		t->timed = false;	/* past the deadline: what it read is due */
		print_queued(t, ULLONG_MAX);
		if (!stop_signal && fflush(stdout) && !stop_signal)
			t->write_err = errno;
		sigprocmask(SIG_SETMASK, &blocked, NULL);
	}
	if (stop_signal) {
		/* what a stalled reader did not take (see read_and_print) */
		__fpurge(stdout);
		clearerr(stdout);
		return 0;
	}
	return t->write_err ? -1 : 0;
}

/* Can fd take a line now? Not when a stalled reader filled its pipe. */
static bool writable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT);
}

/* The end: how many were lost, unless nobody can read it. */
static void report_end(struct tracer *t)
{
	FILE *f = t->json ? stdout : stderr;
	unsigned long long lost;

	tracefs_instance_file_write(t->inst, EVENT_FILE("enable"), "0");
	lost = instance_lost(t);
	if (t->write_err || (stop_signal && !writable(fileno(f))))
		return;
	print_trace_end(f, t->printed, lost, t->json);
	if (fflush(f) == 0 || f != stdout)
		return;
	/* the reader left meanwhile: end by SIGPIPE; else say nothing more */
	if (errno == EPIPE)
		t->write_err = EPIPE;
	__fpurge(stdout);
	clearerr(stdout);
}

/* The clock of the instance, and how far the wall clock is from it. */
static void set_clock(struct trace_clock *c)
{
	struct timespec boot, wall;

	clock_gettime(CLOCK_BOOTTIME, &boot);
	clock_gettime(CLOCK_REALTIME, &wall);
	c->wall_offset = ((long long)wall.tv_sec - boot.tv_sec) * 1000000000LL +
			 (wall.tv_nsec - boot.tv_nsec);
}

static int trace_run(struct tracer *t, unsigned long long duration)
{
	sigset_t waitmask;
	int ret;

	t->pipe_fd = -1;
	t->tracefs = find_tracefs();
	if (!t->tracefs || check_events(t->tracefs))
		return EXIT_FAIL;
	if (tracefs_set_tracing_dir((char *)t->tracefs)) {
		error_msg("trace: %s: %s", t->tracefs, strerror(errno));
		return EXIT_FAIL;
	}
	if (load_format(t))
		return EXIT_FAIL;
	set_clock(&t->clock);
	t->cpus = sysconf(_SC_NPROCESSORS_CONF);
	t->cpu_lost = calloc(t->cpus > 0 ? t->cpus : 1, sizeof(*t->cpu_lost));
	if (!t->cpu_lost) {
		error_msg("trace: %s", strerror(ENOMEM));
		return EXIT_FAIL;
	}
	remove_stale_instances(t->tracefs);
	/* from here a stop signal waits for the instance to be removed */
	catch_stop_signals(&waitmask);
	if (instance_create(t) == 0) {
		if (!t->json)
			print_trace_header(stdout, &t->clock);
		ret = trace_loop(t, duration, &waitmask) ? EXIT_FAIL : EXIT_OK;
		report_end(t);
	} else {
		ret = EXIT_FAIL;
	}
	if (instance_remove(t))
		ret = EXIT_FAIL;
	trace_queue_free(&t->queue);
	tep_free(t->tep);
	free(t->cpu_lost);
	if (t->write_err == EPIPE) {
		/* the reader left (| head): end as a pipeline's writer does */
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &waitmask, NULL);
		raise(SIGPIPE);
	} else if (t->write_err) {
		error_msg("trace: standard output: %s", strerror(t->write_err));
	}
	return ret;
}

#else /* !HAVE_LIBTRACEFS */

/* Built without libtracefs: say what trace does and how to do it by hand. */
static int trace_run(struct tracer *t, unsigned long long duration)
{
	(void)t;
	(void)duration;
	error_msg("trace: not in this build: " PROGRAM_NAME " was built without "
		  "libtracefs and libtraceevent, which trace needs to print the "
		  "module's thpcow:thpcow_fault events as they happen (read them by "
		  "hand: echo 1 >/sys/kernel/tracing/" EVENT_FILE("enable")
		  "; cat /sys/kernel/tracing/trace_pipe)");
	return EXIT_FAIL;
}

#endif /* HAVE_LIBTRACEFS */

/* trace's own options, beyond the shared OPT_* */
enum { OPT_BUFFER_SIZE = 0x200, OPT_WALL_CLOCK };

#define BUFFER_KB_MAX	(1024 * 1024)	/* 1 GiB a CPU */

static int cmd_trace(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
		{ "wall-clock", no_argument, NULL, OPT_WALL_CLOCK },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct tracer t;
	unsigned long long duration = 0;
	int opt, ret = 0, err;

	while (!ret && (opt = verb_getopt(v, argc, argv, opts)) != -1) {
		if (opt == OPT_JSON)
			t.json = true;
		else if (opt == OPT_COUNT)
			ret = arg_uint(v, "N", optarg, UINT_MAX, &t.count);
		else if (opt == OPT_DURATION)
			ret = arg_uint(v, "SECONDS", optarg, UINT_MAX, &duration);
		else if (opt == OPT_PID && (err = parse_pid(optarg, &t.pid)))
			ret = number_error(v, "PID", optarg, err);
		else if (opt == OPT_BUFFER_SIZE)
			ret = arg_uint(v, "KB", optarg, BUFFER_KB_MAX, &t.buffer_kb);
		else if (opt == OPT_WALL_CLOCK)
			t.clock.wall = true;
	}
	if (ret)
		return ret;
	verb_no_args(v, argc, argv);
	return trace_run(&t, duration);
}

const struct verb trace_verb = {
	.name = "trace", .fn = cmd_trace,
	.summary = "print the module's fault events as they happen",
	.synopsis = "[-J] [--count N] [--duration SECONDS] [-p PID]\n"
		 "                 [--buffer-size KB] [--wall-clock]",
	.help = "  -J, --json      one JSON object per event (JSON Lines)\n"
		"      --count N   stop after N events\n"
		"      --duration SECONDS\n"
		"                  stop after SECONDS\n"
		"  -p, --pid PID   only the events of process PID\n"
		"      --buffer-size KB\n"
		"                  the trace buffer of each CPU (default: the\n"
		"                  kernel's, 1408 KB on Debian's)\n"
		"      --wall-clock\n"
		"                  show the time of day instead of seconds since\n"
		"                  boot\n",
};
