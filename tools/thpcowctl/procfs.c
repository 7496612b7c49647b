// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: what collapse reads of another process in /proc (see
 * procfs.h). Errors are reported through error_msg(), the caller's
 * error_context() naming the verb.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroup.h"
#include "collapse.h"
#include "procfs.h"
#include "thpcowctl.h"

#define PF_KTHREAD		0x00200000

/* The zero page's frame: map it here and look it up; 0 if pagemap hides
 * frames (without CAP_SYS_ADMIN). */
int zero_pfn(uint64_t *pfn)
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
long long rss_kb(pid_t pid)
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
int check_pid(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long flags = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_line(path, buf, sizeof(buf))) {
		error_msg("no such process: %d", (int)pid);
		return -1;
	}
	/* pid (comm) state ppid pgrp session tty tpgid flags */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1) {
		error_msg("%s: unexpected contents", path);
		return -1;
	}
	if (flags & PF_KTHREAD) {
		error_msg("pid %d is a kernel thread: it has no user "
			  "memory", (int)pid);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_msg("pid %d: cannot read %s: %s", (int)pid, path,
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
int cgroup_pids(const char *arg, pid_t **pids, size_t *n)
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
		error_msg("cgroup '%s': %s", arg, ret == -ENOENT ?
			  "no cgroup2 mount for a relative path" : strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", abs);
	f = fopen(path, "re");
	if (!f) {
		error_msg("cgroup %s: cannot read %s: %s", rel, path,
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
	error_msg("pid %d: cannot read %s: %s", (int)pid, path,
		  strerror(errno));
	return -1;
}

/* The mappings of /proc/PID/smaps; -ESRCH once the process is gone, -1. */
int read_vmas(pid_t pid, struct vma **vmas, size_t *n)
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

/* /proc/PID/pagemap, opened; -ESRCH once the process is gone, -1. */
int open_pagemap(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? proc_error(pid, path) : fd;
}

/* How much of PID's eligible memory is registered with userfaultfd (MiB),
 * or -ESRCH, -1. */
long long uffd_mib(pid_t pid)
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
int uffd_files(pid_t pid)
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
