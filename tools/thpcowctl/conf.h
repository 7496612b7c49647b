/* SPDX-License-Identifier: GPL-2.0 */
/* thpcowctl: the rules file, /etc/thpcow.conf (see thpcow.conf(5)). */
#ifndef THPCOWCTL_CONF_H
#define THPCOWCTL_CONF_H

#include <stdbool.h>
#include <stdio.h>

#define CONF_PATH	"/etc/thpcow.conf"
/* FILE's drop-ins: FILE.d/ *.conf, read after FILE in the C locale's order */
#define CONF_DROPIN_SUFFIX	".d"

struct conf_rule {
	unsigned int scope;	/* THPCOW_SCOPE_GLOBAL or THPCOW_SCOPE_CGROUP */
	unsigned int mode;
	unsigned int line;
	const char *file;	/* the name it was read under (the caller's) */
	char *cgroup;		/* cgroup scope: below the cgroup2 root, "/a/b" */
	bool optional;		/* "cgroup?": skipped while it does not exist */
};

struct conf {
	struct conf_rule *rules;
	size_t n;
};

/* c starts empty ({ 0 }); each call adds a file's rules (see conf.c). */
int conf_parse(FILE *in, const char *name, const char *mnt, struct conf *c);
/* FILE.d's *.conf files, sorted, into *names (free with conf_names_free). */
int conf_dropins(const char *file, char ***names, size_t *n);
void conf_names_free(char **names, size_t n);
void conf_free(struct conf *c);

#endif /* THPCOWCTL_CONF_H */
