/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: finding the cgroup2 mount and resolving --cgroup PATH. */
#ifndef THPCOWCTL_CGROUP_H
#define THPCOWCTL_CGROUP_H

#include <stdio.h>

int cgroup2_mount(FILE *mountinfo, char *buf, size_t len);
int cgroup_resolve(const char *mnt, const char *arg, char *abs, size_t alen,
		   char *rel, size_t rlen);

#endif /* THPCOWCTL_CGROUP_H */
