// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl trace: the module's thpcow_fault events, as they happen. They
 * are enabled in a tracefs instance of our own, instances/thpcowctl-PID,
 * so the global trace buffer and whoever uses it are left alone; the
 * instance is removed again however the verb ends (count, duration,
 * SIGINT/SIGTERM/SIGHUP, a closed pipe, an error). One killed with SIGKILL
 * leaves its instance behind: the next trace removes it.
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

#include "device.h"
#include "thpcowctl.h"
#include "trace.h"

#define INSTANCE_PREFIX	PROGRAM_NAME "-"
#define ROOT_NEEDED	"permission denied: root is needed"
#define READ_BUF	65536

/* Where tracefs may be: its own mount, or debugfs's automount. */
static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

struct tracer {
	const char *tracefs;
	char instance[PATH_MAX];	/* tracefs/instances/thpcowctl-PID */
	bool created;
	int pipe_fd;
	bool json;
	pid_t pid;			/* only this process's events, or 0 */
	unsigned long long count;	/* stop after this many, or 0 */
	unsigned long long printed;
	int write_err;			/* errno of a failed write to stdout */
	char buf[READ_BUF];
	size_t len;			/* bytes of an unfinished line in buf */
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
		error_msg("trace: %s: module not loaded (try: " PROGRAM_NAME
			  " load)", path);
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
	char path[PATH_MAX + 64];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", t->instance, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return tracefs_error(path, errno);
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	if (n == (ssize_t)strlen(s))
		return 0;
	error_msg("trace: %s: cannot write '%s': %s", path, s,
		  n < 0 ? strerror(err) : "short write");
	return -1;
}

#define EVENT_FILE(name) TRACE_SYSTEM_DIR "/" TRACE_EVENT_NAME "/" name

static int instance_create(struct tracer *t)
{
	char filter[32], path[PATH_MAX + 16];

	snprintf(t->instance, sizeof(t->instance), "%s/instances/"
		 INSTANCE_PREFIX "%d", t->tracefs, (int)getpid());
	if (mkdir(t->instance, 0700)) {
		if (errno == EEXIST)
			error_msg("trace: %s: already exists (another " PROGRAM_NAME
				  " with this pid, in another pid namespace?)",
				  t->instance);
		else
			tracefs_error(t->instance, errno);
		return -1;
	}
	t->created = true;
	if (t->pid) {
		snprintf(filter, sizeof(filter), "pid == %d", (int)t->pid);
		if (instance_write(t, EVENT_FILE("filter"), filter))
			return -1;
	}
	if (instance_write(t, EVENT_FILE("enable"), "1"))
		return -1;
	snprintf(path, sizeof(path), "%s/trace_pipe", t->instance);
	t->pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (t->pipe_fd < 0)
		return tracefs_error(path, errno);
	return 0;
}

/* Close the pipe (an open one keeps the instance busy), then remove it. */
static int instance_remove(struct tracer *t)
{
	int tries;

	if (t->pipe_fd >= 0)
		close(t->pipe_fd);
	t->pipe_fd = -1;
	if (!t->created)
		return 0;
	for (tries = 0; rmdir(t->instance) && errno == EBUSY && tries < 50; tries++)
		usleep(20000);
	if (access(t->instance, F_OK) == 0) {
		error_msg("trace: %s: cannot remove the instance: %s", t->instance,
			  strerror(errno));
		return -1;
	}
	t->created = false;
	return 0;
}

/* Print the whole lines in t->buf; keep the unfinished one. */
static void handle_lines(struct tracer *t)
{
	unsigned long long lost;
	struct trace_event ev;
	char *line = t->buf, *nl;

	while (!stop_signal && (!t->count || t->printed < t->count) &&
	       (nl = memchr(line, '\n', t->buf + t->len - line))) {
		*nl = '\0';
		switch (trace_parse_line(line, &ev, &lost)) {
		case TRACE_LINE_EVENT:
			if (t->pid && ev.pid != t->pid)
				break;
			print_trace_event(stdout, &ev, t->json);
			t->printed++;
			break;
		case TRACE_LINE_LOST:
			if (lost)
				error_msg("trace: %llu events lost (the trace "
					  "buffer overflowed)", lost);
			else
				error_msg("trace: events lost (the trace buffer "
					  "overflowed)");
			break;
		case TRACE_LINE_BAD:
			error_msg("trace: a line not understood: %s", line);
			break;
		case TRACE_LINE_OTHER:
			break;
		}
		line = nl + 1;
	}
	t->len -= line - t->buf;
	memmove(t->buf, line, t->len);
	/* a line longer than the buffer is no event of ours: drop it */
	if (t->len == sizeof(t->buf) - 1)
		t->len = 0;
}

/* Read what is there; -1 (reported) on an error or if tracing stopped. */
static int read_pipe(struct tracer *t)
{
	ssize_t n;

	for (;;) {
		n = read(t->pipe_fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
		if (n < 0 && errno == EINTR)
			return 0;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			error_msg("trace: %s/trace_pipe: %s", t->instance,
				  strerror(errno));
			return -1;
		}
		if (n == 0) {
			error_msg("trace: %s: tracing was switched off", t->instance);
			return -1;
		}
		t->len += n;
		handle_lines(t);
		if (stop_signal || (t->count && t->printed >= t->count))
			return 0;
	}
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

/*
 * Read and print what is there. The stop signals are let in meanwhile: a
 * write that a stalled reader of our output blocks ends with EINTR then.
 * Nothing more is written once one came.
 */
static int read_and_print(struct tracer *t, const sigset_t *waitmask)
{
	sigset_t blocked;
	int ret;

	sigprocmask(SIG_SETMASK, waitmask, &blocked);
	ret = read_pipe(t);
	if (!ret && !stop_signal && fflush(stdout)) {
		t->write_err = errno;
		ret = -1;
	}
	sigprocmask(SIG_SETMASK, &blocked, NULL);
	return stop_signal ? 0 : ret;
}

/*
 * Until count events, the deadline (if duration), a stop signal, or the
 * reader of our stdout pipe leaving (POLLERR, even with no event to write).
 * The wait is never longer than a second: a missed wakeup costs that much.
 */
static int trace_loop(struct tracer *t, unsigned long long duration,
		      const sigset_t *waitmask)
{
	struct timespec now, deadline, left;
	struct pollfd pfd[] = {
		{ .fd = t->pipe_fd, .events = POLLIN },
		{ .fd = STDOUT_FILENO, .events = 0 },
	};

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += duration;
	while (!stop_signal && (!t->count || t->printed < t->count)) {
		left = (struct timespec){ 1, 0 };
		if (duration) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = timespec_sub(deadline, now);
			if (left.tv_sec < 0)
				break;
			if (left.tv_sec >= 1)
				left = (struct timespec){ 1, 0 };
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
	if (stop_signal) {
		/* what a stalled reader did not take (see read_and_print) */
		__fpurge(stdout);
		clearerr(stdout);
	}
	return 0;
}

int cmd_trace(const struct verb *v, int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct tracer t = { .pipe_fd = -1 };
	unsigned long long duration = 0;
	sigset_t waitmask;
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
	}
	if (ret)
		return ret;
	verb_no_args(v, argc, argv);

	t.tracefs = find_tracefs();
	if (!t.tracefs || check_events(t.tracefs))
		return EXIT_FAIL;
	remove_stale_instances(t.tracefs);
	/* from here a stop signal waits for the instance to be removed */
	catch_stop_signals(&waitmask);
	if (instance_create(&t) == 0) {
		if (!t.json)
			print_trace_header(stdout);
		ret = trace_loop(&t, duration, &waitmask) ? EXIT_FAIL : EXIT_OK;
	} else {
		ret = EXIT_FAIL;
	}
	if (instance_remove(&t))
		ret = EXIT_FAIL;
	if (t.write_err == EPIPE) {
		/* the reader left (| head): end as a pipeline's writer does */
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &waitmask, NULL);
		raise(SIGPIPE);
	}
	return ret;
}
