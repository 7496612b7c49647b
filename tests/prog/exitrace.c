// SPDX-License-Identifier: GPL-2.0
/*
 * exitrace [--procs N] [--rounds N] [--device PATH]
 *
 * Pid rules set while their processes exit. Each round starts N processes
 * (sharing this one's memory, so their exit is short) that all block
 * reading one pipe, and sets a 'zero' rule on each of them through the
 * control device, as fast as it can; after a quarter of them it closes the
 * pipe, so that they all exit at once: the rules set by then meet exits
 * (the exit probe must take each away), the sets after that race them. (A
 * close before the first set left none to race on a slow kernel:
 * 6.12-debug under TCG refused all 4000 sets, every process gone.) Then it waits
 * for them all and asks the module how many rules it holds, without
 * running anything that reaps stale rules (THPCOW_IOC_STATS). A rule that
 * is still there belongs to a dead process: the round prints it and
 * exitrace stops, so that a later set cannot reap it, and exits 1.
 *
 * Prints "sets=S refused=R rounds=N leaked=L".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"
#include "uapi/thpcow.h"

#define STACK_SIZE	(16 * 1024)

static int pipe_fds[2];

static void usage(FILE *f)
{
	fprintf(f, "Usage: exitrace [--procs N] [--rounds N] [--device PATH]\n");
}

/* A process of its own on this one's memory: wait for EOF, then exit. */
static int waiter(void *arg)
{
	char c;

	(void)arg;
	close(pipe_fds[1]);
	while (read(pipe_fds[0], &c, 1) < 0 && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return 0;
}

static unsigned int rule_count(int dev)
{
	struct thpcow_stats s = { .size = sizeof(s) };

	if (ioctl(dev, THPCOW_IOC_STATS, &s))
		die(1, "THPCOW_IOC_STATS: %s", strerror(errno));
	return s.policies;
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long procs = 2000, rounds = 10, round, i;
	unsigned long long sets = 0, refused = 0;
	const char *device = "/dev/" THPCOW_DEVICE_NAME;
	unsigned int leaked = 0;
	char *stacks;
	pid_t *pids;
	int opt, dev;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'p')
			procs = number_arg("--procs", optarg, 1, 100000);
		else if (opt == 'r')
			rounds = number_arg("--rounds", optarg, 1, 100000);
		else if (opt == 'd')
			device = optarg;
		else
			usage_exit(usage, opt == 'h');
	}
	no_operands(argc, argv, optind);

	dev = open(device, O_RDONLY | O_CLOEXEC);
	if (dev < 0)
		die(1, "%s: %s", device, strerror(errno));
	if (rule_count(dev))
		die(1, "the module holds rules already");
	pids = calloc(procs, sizeof(*pids));
	stacks = mmap(NULL, procs * STACK_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pids || stacks == MAP_FAILED)
		die(1, "out of memory");

	for (round = 1; round <= rounds && !leaked; round++) {
		if (pipe2(pipe_fds, O_CLOEXEC))
			die(1, "pipe: %s", strerror(errno));
		for (i = 0; i < procs; i++) {
			pids[i] = clone(waiter, stacks + (i + 1) * STACK_SIZE,
					CLONE_VM | SIGCHLD, NULL);
			if (pids[i] < 0)
				die(1, "clone: %s", strerror(errno));
		}
		close(pipe_fds[0]);
		for (i = 0; i < procs; i++) {
			struct thpcow_policy p = {
				.size = sizeof(p),
				.scope = THPCOW_SCOPE_PID,
				.mode = THPCOW_MODE_ZERO,
				.pid = pids[i],
			};

			if (i == procs / 4)
				close(pipe_fds[1]);	/* they all exit now */
			if (!ioctl(dev, THPCOW_IOC_SET, &p))
				sets++;
			else if (errno == ESRCH)
				refused++;
			else
				die(1, "THPCOW_IOC_SET %d: %s", pids[i],
				    strerror(errno));
		}
		for (i = 0; i < procs; i++)
			if (waitpid(pids[i], NULL, 0) != pids[i])
				die(1, "waitpid %d: %s", pids[i], strerror(errno));
		leaked = rule_count(dev);
		if (leaked)
			printf("round %llu: %u rules of dead processes\n",
			       round, leaked);
	}
	printf("sets=%llu refused=%llu rounds=%llu leaked=%u\n", sets, refused,
	       round - 1, leaked);
	return leaked ? 1 : 0;
}
