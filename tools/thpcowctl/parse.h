/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: parsing of numbers, modes and the scope options. */
#ifndef THPCOWCTL_PARSE_H
#define THPCOWCTL_PARSE_H

#include <stdbool.h>
#include <sys/types.h>

#include <uapi/thpcow.h>

int parse_uint(const char *s, unsigned long long max, unsigned long long *out);
int parse_pid(const char *s, pid_t *out);
int parse_mode(const char *s, unsigned int *mode);

const char *mode_name(unsigned int mode);
const char *scope_name(unsigned int scope);
const char *mode_list(void);

/* What --pid/--children/--cgroup/--global said. */
struct scope_arg {
	unsigned int scope;	/* enum thpcow_scope */
	unsigned int given;	/* how many of --pid, --cgroup, --global */
	pid_t pid;
	const char *cgroup;
	bool children;
};

int scope_option(struct scope_arg *s, int opt, const char *arg);
const char *scope_check(const struct scope_arg *s);

#endif /* THPCOWCTL_PARSE_H */
