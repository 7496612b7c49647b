/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: /dev/thpcow. Every function here reports its own failures
 * through error_msg(), in words, and returns -1 (or NULL) to the verb.
 */
#ifndef THPCOWCTL_DEVICE_H
#define THPCOWCTL_DEVICE_H

#include <limits.h>
#include <sys/types.h>

#include <uapi/thpcow.h>

#include "parse.h"

/* What a policy command is about, with the cgroup opened. */
struct target {
	unsigned int scope;
	pid_t pid;
	int cgroup_fd;
	char cgroup[PATH_MAX];		/* below the cgroup2 root, as shown */
	char cgroup_abs[PATH_MAX];	/* what was opened */
};

const char *device_path(void);
int cgroup_mount_point(char *buf, size_t len);
bool module_loaded(void);
bool unit_installed(void);
const char *load_hint(void);	/* "systemctl start thpcow" or "thpcowctl load" */
int device_open_raw(void);
int device_open(void);
int device_version(int fd, struct thpcow_version *v);
int device_check_abi(const struct thpcow_version *v);
int device_stats(int fd, struct thpcow_stats *st);
int device_list(int fd, struct thpcow_entry **entries, size_t *n);
int device_usage(int fd, struct thpcow_usage_entry **entries, size_t *n,
		 struct thpcow_usage *arg);

int target_open(const struct scope_arg *s, struct target *t);
void target_close(struct target *t);
void target_policy(const struct target *t, struct thpcow_policy *p);
int device_policy(int fd, const char *verb, unsigned long cmd,
		  struct thpcow_policy *p, const struct target *t);

#endif /* THPCOWCTL_DEVICE_H */
