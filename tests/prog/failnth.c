// SPDX-License-Identifier: GPL-2.0
/*
 * failnth [--max N] --cgroup DIR OP
 * failnth [--max N] load KO [PARAMS]
 *
 * Every failure point of one /dev/thpcow ioctl, or of loading the module,
 * driven by the kernel's fault injection (CONFIG_FAULT_INJECTION): for
 * N = 1, 2, 3, ... it writes N to /proc/thread-self/fail-nth, so that the
 * Nth allocation (slab or page) the call makes fails, runs the call, and
 * reads fail-nth back (0: the failure was injected), until a run completes
 * with no failure left to inject. The kernel's own syzkaller walks ioctls
 * the same way.
 *
 * After each injected failure: the call failed with ENOMEM (or, where the
 * module can do without the allocation, succeeded and did what it should),
 * the rules (THPCOW_IOC_LIST), their count (THPCOW_IOC_STATS), the global
 * mode and the hook's arming (debugfs; a disarm comes the module's 10 s
 * delay later) are as before the call, and the same call then succeeds.
 * For 'load': the load failed and left nothing behind (no /sys/module/thpcow,
 * /dev/thpcow, debugfs directory, tracepoint or ftrace site), and the next
 * load works.
 *
 * OP: version stats list usage get-global get-pid get-cgroup set-global
 * set-pid set-pid-children set-cgroup clear-global clear-pid clear-cgroup.
 * Pid rules are set on a child of this program; cgroup rules on DIR/t,
 * with another rule on DIR/base throughout unless --unarmed (then the
 * call itself may arm the hook). DIR/t and DIR/base must exist.
 *
 * Prints a line per N (n=, injected=, result=) and, last,
 * "op=OP points=P" (P: the failure points found, the highest N that
 * injected one). Exits 1 at the first wrong answer.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"
#include "uapi/thpcow.h"

#define MAX_ENTRIES	64
#define STATS_FILE	"/sys/kernel/debug/thpcow/stats"

static int dev = -1, nth_fd = -1;
static const char *cgdir;
static pid_t child;
static bool unarmed;

static void usage(FILE *f)
{
	fprintf(f, "Usage: failnth [--max N] [--unarmed] --cgroup DIR OP\n"
		   "       failnth [--max N] load KO [PARAMS]\n");
}

/* --- fail-nth ------------------------------------------------------------ */

static void nth_write(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		die(1, "fail-nth: %s", strerror(errno));
}

/* Whether the failure set up by nth_write() was injected; disarms it. */
static bool nth_injected(void)
{
	char buf[16] = "";
	ssize_t len = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	if (len <= 0)
		die(1, "fail-nth: %s", len ? strerror(errno) : "empty");
	if (atoi(buf) == 0)
		return true;
	nth_write(0);
	return false;
}

/* --- the module's state ------------------------------------------------- */

static long debugfs_stat(const char *key)
{
	char line[128];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen(STATS_FILE, "re");

	if (!f)
		die(1, "%s: %s", STATS_FILE, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = strtol(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

struct state {
	unsigned int count, policies, global;
	long armed;
	struct { __u32 scope, mode, flags; __s32 pid; __u64 cgroup_id; } e[MAX_ENTRIES];
};

static void state_read(struct state *s)
{
	struct thpcow_entry entries[MAX_ENTRIES];
	struct thpcow_list l = {
		.size = sizeof(l), .entry_size = sizeof(entries[0]),
		.count = MAX_ENTRIES, .entries = (uintptr_t)entries,
	};
	struct thpcow_stats st = { .size = sizeof(st) };
	struct thpcow_policy g = { .size = sizeof(g), .scope = THPCOW_SCOPE_GLOBAL };
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (ioctl(dev, THPCOW_IOC_LIST, &l) || ioctl(dev, THPCOW_IOC_STATS, &st) ||
	    ioctl(dev, THPCOW_IOC_GET, &g))
		die(1, "reading the rules: %s", strerror(errno));
	if (l.count > MAX_ENTRIES)
		die(1, "%u rules, more than %d", l.count, MAX_ENTRIES);
	s->count = l.count;
	for (i = 0; i < l.count; i++) {
		s->e[i].scope = entries[i].scope;
		s->e[i].mode = entries[i].mode;
		s->e[i].flags = entries[i].flags;
		s->e[i].pid = entries[i].pid;
		s->e[i].cgroup_id = entries[i].cgroup_id;
	}
	s->policies = st.policies;
	s->global = g.mode;
	s->armed = debugfs_stat("hook_armed");
}

/* @now is @was, allowing the hook the module's disarm delay to catch up. */
static bool state_same(const struct state *was)
{
	struct state now;
	int i;

	for (i = 0; i < 150; i++) {
		state_read(&now);
		if (memcmp(&now, was, offsetof(struct state, armed)) ||
		    memcmp(now.e, was->e, sizeof(now.e)))
			return false;
		if (now.armed == was->armed)
			return true;
		usleep(100000);
	}
	fprintf(stderr, "hook_armed %ld, was %ld, 15 s on\n", now.armed, was->armed);
	return false;
}

/* --- the calls ------------------------------------------------------------ */

/*
 * DIR/NAME's descriptor, opened once: an open() between writing fail-nth
 * and the call would take the failure meant for the call.
 */
static int cgroup_fd(const char *name)
{
	static int fds[2] = { -1, -1 };
	int *fd = &fds[strcmp(name, "t") != 0];
	char path[4096];

	if (*fd >= 0)
		return *fd;
	snprintf(path, sizeof(path), "%s/%s", cgdir, name);
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		die(1, "%s: %s", path, strerror(errno));
	return *fd;
}

/* One policy ioctl on SCOPE (pid: the child; cgroup: DIR/NAME); 0 or errno. */
static int policy(unsigned long cmd, __u32 scope, const char *name,
		  __u32 mode, __u32 flags, struct thpcow_policy *out)
{
	struct thpcow_policy p = {
		.size = sizeof(p), .scope = scope, .mode = mode, .flags = flags,
	};
	int ret;

	if (scope == THPCOW_SCOPE_PID)
		p.pid = child;
	else if (scope == THPCOW_SCOPE_CGROUP)
		p.cgroup_fd = cgroup_fd(name);
	ret = ioctl(dev, cmd, &p) ? errno : 0;
	if (out)
		*out = p;
	return ret;
}

static void must(int err, const char *what)
{
	if (err && err != ENOENT)
		die(1, "%s: %s", what, strerror(err));
}

struct op {
	const char *name;
	__u32 scope;		/* of SET, CLEAR and GET */
	unsigned long cmd;	/* 0: not a policy call */
	__u32 flags;
};

#define OP(n, s, c, f)	{ .name = (n), .scope = (s), .cmd = (c), .flags = (f) }
static const struct op ops[] = {
	OP("version", 0, 0, 0), OP("stats", 0, 0, 0), OP("list", 0, 0, 0),
	OP("usage", 0, 0, 0),
	OP("get-global", THPCOW_SCOPE_GLOBAL, THPCOW_IOC_GET, 0),
	OP("get-pid", THPCOW_SCOPE_PID, THPCOW_IOC_GET, 0),
	OP("get-cgroup", THPCOW_SCOPE_CGROUP, THPCOW_IOC_GET, 0),
	OP("set-global", THPCOW_SCOPE_GLOBAL, THPCOW_IOC_SET, 0),
	OP("set-pid", THPCOW_SCOPE_PID, THPCOW_IOC_SET, 0),
	OP("set-pid-children", THPCOW_SCOPE_PID, THPCOW_IOC_SET, THPCOW_POLICY_CHILDREN),
	OP("set-cgroup", THPCOW_SCOPE_CGROUP, THPCOW_IOC_SET, 0),
	OP("clear-global", THPCOW_SCOPE_GLOBAL, THPCOW_IOC_CLEAR, 0),
	OP("clear-pid", THPCOW_SCOPE_PID, THPCOW_IOC_CLEAR, 0),
	OP("clear-cgroup", THPCOW_SCOPE_CGROUP, THPCOW_IOC_CLEAR, 0),
};

/*
 * The state each call starts from: the target's rule present ('zero') for
 * GET and CLEAR, absent for SET (the global mode: 'zero' or 'kernel'); for
 * the calls that read, a cgroup and a pid rule.
 */
static void prepare(const struct op *op)
{
	bool present = op->cmd != THPCOW_IOC_SET;

	if (!op->cmd) {
		must(policy(THPCOW_IOC_SET, THPCOW_SCOPE_CGROUP, "t",
			    THPCOW_MODE_ZERO, 0, NULL), "a cgroup rule");
		must(policy(THPCOW_IOC_SET, THPCOW_SCOPE_PID, NULL,
			    THPCOW_MODE_COPY, 0, NULL), "a pid rule");
	} else if (op->scope == THPCOW_SCOPE_GLOBAL) {
		must(policy(THPCOW_IOC_SET, op->scope, NULL,
			    present ? THPCOW_MODE_ZERO : THPCOW_MODE_KERNEL, 0, NULL),
		     "the global mode to start from");
	} else if (present) {
		must(policy(THPCOW_IOC_SET, op->scope, "t", THPCOW_MODE_ZERO, 0, NULL),
		     "the rule to start from");
	} else {
		must(policy(THPCOW_IOC_CLEAR, op->scope, "t", 0, 0, NULL),
		     "clearing the rule to start from");
	}
}

/* The call; 0 or its errno. */
static int call(const struct op *op)
{
	struct thpcow_entry entries[MAX_ENTRIES];
	struct thpcow_usage_entry rows[8];
	union {
		struct thpcow_version v;
		struct thpcow_stats s;
		struct thpcow_list l;
		struct thpcow_usage u;
	} a;

	memset(&a, 0, sizeof(a));
	if (op->cmd == THPCOW_IOC_SET)
		return policy(op->cmd, op->scope, "t", THPCOW_MODE_ZERO, op->flags, NULL);
	if (op->cmd)
		return policy(op->cmd, op->scope, "t", 0, 0, NULL);
	if (!strcmp(op->name, "version")) {
		a.v.size = sizeof(a.v);
		return ioctl(dev, THPCOW_IOC_VERSION, &a.v) ? errno : 0;
	}
	if (!strcmp(op->name, "stats")) {
		a.s.size = sizeof(a.s);
		return ioctl(dev, THPCOW_IOC_STATS, &a.s) ? errno : 0;
	}
	if (!strcmp(op->name, "list")) {
		a.l = (struct thpcow_list){ .size = sizeof(a.l), .entry_size = sizeof(entries[0]),
			.count = MAX_ENTRIES, .entries = (uintptr_t)entries };
		return ioctl(dev, THPCOW_IOC_LIST, &a.l) ? errno : a.l.count >= 2 ? 0 : -1;
	}
	a.u = (struct thpcow_usage){ .size = sizeof(a.u), .entry_size = sizeof(rows[0]),
		.count = 8, .entries = (uintptr_t)rows };
	return ioctl(dev, THPCOW_IOC_USAGE, &a.u) ? errno : 0;
}

/* After the call succeeded: what it should have done, done. */
static bool done(const struct op *op)
{
	struct thpcow_policy p;
	int err;

	if (!op->cmd || op->cmd == THPCOW_IOC_GET)
		return true;
	err = policy(THPCOW_IOC_GET, op->scope, "t", 0, 0, &p);
	if (err)
		return false;
	if (op->scope == THPCOW_SCOPE_GLOBAL)
		return p.mode == (op->cmd == THPCOW_IOC_SET ? THPCOW_MODE_ZERO : THPCOW_MODE_KERNEL);
	if (op->cmd == THPCOW_IOC_CLEAR)
		return !(p.flags & THPCOW_POLICY_PRESENT);
	return (p.flags & THPCOW_POLICY_PRESENT) && p.mode == THPCOW_MODE_ZERO &&
	       (p.flags & THPCOW_POLICY_CHILDREN) == op->flags;
}

static int walk_op(const struct op *op, unsigned int max)
{
	struct state before;
	unsigned int n;
	bool injected;
	int err;

	for (n = 1; n <= max; n++) {
		prepare(op);
		state_read(&before);
		nth_write(n);
		err = call(op);
		injected = nth_injected();
		printf("n=%u injected=%d result=%s\n", n, injected,
		       err > 0 ? strerrorname_np(err) : err ? "wrong" : "ok");
		if (!injected) {
			if (err || !done(op))
				die(1, "%s: %s with no failure injected", op->name,
				    err ? "failed" : "did not do its work");
			printf("op=%s points=%u\n", op->name, n - 1);
			return 0;
		}
		if (err && err != ENOMEM)
			die(1, "%s, failure %u: %s, not ENOMEM", op->name, n,
			    err > 0 ? strerror(err) : "a wrong answer");
		if (err && !state_same(&before))
			die(1, "%s, failure %u: the rules changed", op->name, n);
		if (!err && !done(op))
			die(1, "%s, failure %u: succeeded without doing its work", op->name, n);
		prepare(op);
		if (call(op) || !done(op))
			die(1, "%s, failure %u: the next call failed", op->name, n);
	}
	die(1, "%s: still failing at %u", op->name, max);
}

/* --- load ------------------------------------------------------------------ */

static const char *const leftovers[] = {
	"/sys/module/thpcow", "/dev/thpcow", "/sys/kernel/debug/thpcow",
	"/sys/kernel/tracing/events/thpcow",
};

static void no_leftovers(unsigned int n)
{
	char line[256];
	unsigned int i;
	FILE *f;

	for (i = 0; i < sizeof(leftovers) / sizeof(leftovers[0]); i++)
		if (!access(leftovers[i], F_OK))
			die(1, "load, failure %u: %s is left", n, leftovers[i]);
	f = fopen("/sys/kernel/tracing/enabled_functions", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "do_huge_pmd_wp_page"))
			die(1, "load, failure %u: ftrace still on %s", n, line);
	fclose(f);
}

static int walk_load(const char *ko, const char *params, unsigned int max)
{
	unsigned int n;
	bool injected;
	int fd, err;

	for (n = 1; n <= max; n++) {
		no_leftovers(n);
		fd = open(ko, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(1, "%s: %s", ko, strerror(errno));
		nth_write(n);
		err = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
		injected = nth_injected();
		close(fd);
		printf("n=%u injected=%d result=%s\n", n, injected,
		       err ? strerrorname_np(err) : "ok");
		if (!injected) {
			if (err)
				die(1, "load: %s with no failure injected", strerror(err));
			printf("op=load points=%u\n", n - 1);
			return 0;
		}
		if (!err) {
			/* done without the allocation: fine, if it unloads */
			if (syscall(SYS_delete_module, "thpcow", O_NONBLOCK))
				die(1, "load, failure %u: rmmod: %s", n, strerror(errno));
			continue;
		}
		if (err != ENOMEM)
			fprintf(stderr, "load, failure %u: %s\n", n, strerror(err));
		no_leftovers(n);
	}
	die(1, "load: still failing at %u", max);
}

/* At any exit, die() included: no rule and no child left behind. */
static void cleanup(void)
{
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	if (dev < 0)
		return;
	policy(THPCOW_IOC_CLEAR, THPCOW_SCOPE_CGROUP, "base", 0, 0, NULL);
	policy(THPCOW_IOC_CLEAR, THPCOW_SCOPE_CGROUP, "t", 0, 0, NULL);
	policy(THPCOW_IOC_SET, THPCOW_SCOPE_GLOBAL, NULL, THPCOW_MODE_KERNEL, 0, NULL);
	close(dev);
	dev = -1;
}

int main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "max", required_argument, NULL, 'm' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "unarmed", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned int max = 1000, i;
	int c, ret;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			max = number_arg("--max", optarg, 1, 100000);
			break;
		case 'c':
			cgdir = optarg;
			break;
		case 'u':
			unarmed = true;
			break;
		default:
			usage_exit(usage, c == 'h');
		}
	}
	if (optind >= argc)
		usage_exit(usage, 0);
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		die(4, "/proc/thread-self/fail-nth: %s (no CONFIG_FAULT_INJECTION)",
		    strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[optind], "load")) {
		if (optind + 1 >= argc || optind + 3 < argc)
			usage_exit(usage, 0);
		/* never into the kernel of the machine running the tests */
		if (!getenv("THPCOW_VM_MODULE"))
			die(EXIT_USAGE, "load: only in a vm/run guest (no THPCOW_VM_MODULE)");
		return walk_load(argv[optind + 1], optind + 2 < argc ? argv[optind + 2] : "", max);
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, argv[optind]))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]) || !cgdir || optind + 1 != argc)
		usage_exit(usage, 0);
	dev = open(THPCOW_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die(1, "%s: %s", THPCOW_DEVICE_PATH, strerror(errno));
	child = fork();
	if (child < 0)
		die(1, "fork: %s", strerror(errno));
	if (!child) {
		/* the device is not held open by a child left behind */
		close(dev);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	atexit(cleanup);
	cgroup_fd("t");
	cgroup_fd("base");
	if (!unarmed)
		must(policy(THPCOW_IOC_SET, THPCOW_SCOPE_CGROUP, "base",
			    THPCOW_MODE_COPY, 0, NULL), "the base rule");
	ret = walk_op(&ops[i], max);
	return ret;
}
