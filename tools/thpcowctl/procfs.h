/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl collapse: what it reads of a process in /proc (and of a cgroup,
 * its cgroup.procs). Each reports its own errors through error_msg(); one
 * that returns -ESRCH found the process gone, which it does not report.
 */
#ifndef THPCOWCTL_PROCFS_H
#define THPCOWCTL_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vma;

/* Can PID be collapsed at all (it exists, is no kernel thread, and its
 * pagemap can be opened)? 0, or -1 reported. */
int check_pid(pid_t pid);
/* The pids of a cgroup's cgroup.procs (malloc'ed); 0, or -1 reported. */
int cgroup_pids(const char *arg, pid_t **pids, size_t *n);

/* VmRSS of /proc/PID/status in kB; -1 once the process is gone. */
long long rss_kb(pid_t pid);
/* The mappings of /proc/PID/smaps (malloc'ed); 0, -ESRCH, -1. */
int read_vmas(pid_t pid, struct vma **vmas, size_t *n);
/* /proc/PID/pagemap, opened; -ESRCH, -1. */
int open_pagemap(pid_t pid);
/* MiB of PID's private anonymous memory under userfaultfd; -ESRCH, -1. */
long long uffd_mib(pid_t pid);
/* How many userfaultfd files PID has open; -ESRCH, -1. */
int uffd_files(pid_t pid);

/* The zero page's frame (0 if pagemap hides frames); 0 or -errno. */
int zero_pfn(uint64_t *pfn);

#endif /* THPCOWCTL_PROCFS_H */
