/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the rules file, /etc/thpcow.conf (see thpcow.conf(5)). */
#ifndef THPCOWCTL_CONF_H
#define THPCOWCTL_CONF_H

#include <stdio.h>

#define CONF_PATH	"/etc/thpcow.conf"

struct conf_rule {
	unsigned int scope;	/* THPCOW_SCOPE_GLOBAL or THPCOW_SCOPE_CGROUP */
	unsigned int mode;
	unsigned int line;
	char *cgroup;		/* cgroup scope: below the cgroup2 root, "/a/b" */
};

struct conf {
	struct conf_rule *rules;
	size_t n;
};

int conf_parse(FILE *in, const char *name, const char *mnt, struct conf *c);
void conf_free(struct conf *c);

#endif /* THPCOWCTL_CONF_H */
