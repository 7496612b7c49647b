// SPDX-License-Identifier: GPL-2.0
/*
 * manyrules: many cgroup rules, for the rule table's limits and costs.
 * Makes N cgroups DIR/r0 .. DIR/rN-1 (those that exist are kept), then
 * sets a 'zero' rule on each through /dev/thpcow, one THPCOW_IOC_SET per
 * cgroup, and prints key=value lines: mkdir_s (making them), set_s (the
 * SETs alone), set_ok, set_failed and set_errno (the first failure's
 * errno name, or 0). With --clean it then clears every rule it set and
 * removes the cgroups again (clean_s).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uapi/thpcow.h>

#include "prog.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cgroup_ioctl(int dev, unsigned long cmd, const char *path,
			__u32 mode)
{
	struct thpcow_policy p = {
		.size = sizeof(p), .scope = THPCOW_SCOPE_CGROUP, .mode = mode,
	};
	int ret;

	p.cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p.cgroup_fd < 0)
		die(1, "%s: %s", path, strerror(errno));
	ret = ioctl(dev, cmd, &p) ? errno : 0;
	close(p.cgroup_fd);
	return ret;
}

int main(int argc, char *argv[])
{
	unsigned long n, i, ok = 0, failed = 0;
	int dev, err, first = 0;
	bool clean = false;
	char path[4096];
	double t0, t1, t2;

	if (argc == 4 && !strcmp(argv[3], "--clean"))
		clean = true;
	else if (argc != 3)
		die(EXIT_USAGE, "usage: manyrules DIR N [--clean]");
	n = number_arg("N", argv[2], 1, 10000000);
	dev = open(THPCOW_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		die(1, "%s: %s", THPCOW_DEVICE_PATH, strerror(errno));

	t0 = now_s();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/r%lu", argv[1], i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die(1, "mkdir %s: %s", path, strerror(errno));
	}
	t1 = now_s();
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/r%lu", argv[1], i);
		err = cgroup_ioctl(dev, THPCOW_IOC_SET, path, THPCOW_MODE_ZERO);
		if (!err) {
			ok++;
		} else if (!failed++) {
			first = err;
		}
	}
	t2 = now_s();
	printf("mkdir_s=%.3f\nset_s=%.3f\nset_ok=%lu\nset_failed=%lu\nset_errno=%s\n",
	       t1 - t0, t2 - t1, ok, failed,
	       first ? strerrorname_np(first) : "0");
	if (!clean)
		return 0;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/r%lu", argv[1], i);
		cgroup_ioctl(dev, THPCOW_IOC_CLEAR, path, 0);
		if (rmdir(path))
			die(1, "rmdir %s: %s", path, strerror(errno));
	}
	printf("clean_s=%.3f\n", now_s() - t2);
	return 0;
}
