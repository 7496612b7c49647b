/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl collapse: the engine. For each process, its pidfd first, then
 * (--domain) the wait for libvirt to say the migration has completed, or
 * (--after-migration, and --domain without libvirt) the wait for its
 * postcopy to end seen in /proc, then each eligible
 * 2 MiB range scanned in pagemap and kpageflags and collapsed with
 * process_madvise(MADV_COLLAPSE) at most at --rate; progress on a terminal,
 * Ctrl-C and SIGTERM to stop, and a summary at the end. The verb's file
 * reads the arguments; the decisions are collapse.h's, the reading procfs.h's.
 */
#ifndef THPCOWCTL_COLLAPSE_RUN_H
#define THPCOWCTL_COLLAPSE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The default --min-present: a range is collapsed only when at least this
 * many of its 512 pages hold data, so a collapse adds at most 10 pages to
 * 502, and the process's RSS grows by at most 2 % (10 / 502), whatever its
 * memory looks like. See thpcowctl(8).
 */
#define MIN_PRESENT_DEFAULT	502
#define EXIT_INTERRUPTED	130	/* Ctrl-C or SIGTERM: 128 + SIGINT */

struct collapse_opts {
	unsigned int min_present;
	unsigned long long rate;	/* bytes per second; 0: as fast as it goes */
	unsigned int await;	/* --await-postcopy: seconds */
	const char *domain;	/* --domain: libvirt's events for it, or NULL */
	bool json, after_migration, progress;
};

/* Does this kernel know MADV_COLLAPSE? 0, or -1 reported. */
int collapse_check_kernel(void);

/*
 * Collapse the n processes of pids, then print the summary (JSON with
 * o->json). One that exits meanwhile is an error unless they are a
 * cgroup's. Returns the exit status: EXIT_OK, EXIT_FAIL, EXIT_INTERRUPTED.
 */
int collapse_run(const pid_t *pids, size_t n, bool cgroup,
		 const struct collapse_opts *o);

#endif /* THPCOWCTL_COLLAPSE_RUN_H */
