// SPDX-License-Identifier: GPL-2.0
/*
 * forkexec [--depth N] -- COMMAND [ARG...]
 *
 * Fork a child that execs COMMAND and exit with its status (128 + signal
 * if it was killed). With --depth N > 1 the child execs forkexec itself
 * with depth N - 1, so COMMAND runs N forks and execs below this process:
 * what a policy inherited through fork and exec has to survive.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: forkexec [--depth N] -- COMMAND [ARG...]\n");
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "depth", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long depth = 1;
	char depth_arg[24], self[PATH_MAX], **command, **nested;
	int opt, status, n;
	ssize_t len;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (opt == 'd') {
			depth = number_arg("--depth", optarg, 1, 64);
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc || strcmp(argv[optind - 1], "--"))
		die(EXIT_USAGE, "expected -- COMMAND [ARG...]");
	command = &argv[optind];

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(1, "fork: %s", strerror(errno));
	if (pid == 0) {
		if (depth > 1) {
			/* forkexec --depth=N-1 -- COMMAND [ARG...] NULL */
			n = argc - optind;
			nested = calloc(n + 4, sizeof(*nested));
			if (!nested)
				die(127, "out of memory");
			snprintf(depth_arg, sizeof(depth_arg), "--depth=%llu",
				 depth - 1);
			nested[0] = argv[0];
			nested[1] = depth_arg;
			nested[2] = "--";
			memcpy(nested + 3, command, n * sizeof(*nested));
			/* by its path, not /proc/self/exe: comm stays "forkexec" */
			len = readlink("/proc/self/exe", self, sizeof(self) - 1);
			if (len < 0)
				die(127, "/proc/self/exe: %s", strerror(errno));
			self[len] = '\0';
			execv(self, nested);
			die(127, "%s: %s", self, strerror(errno));
		}
		execvp(command[0], command);
		die(127, "%s: %s", command[0], strerror(errno));
	}
	if (waitpid(pid, &status, 0) < 0)
		die(1, "waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
