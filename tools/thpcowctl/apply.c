// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: applying a rules file (apply, reload): make the global mode and
 * the cgroup rules what FILE (/etc/thpcow.conf) and its drop-ins
 * FILE.d/ *.conf say.
 * Nothing is changed when a file has an error, two name the same target, or
 * one names a cgroup that cannot be opened (one that does not
 * exist: --check reports it too). Then: the file's rules are set, and every
 * cgroup rule the module has that the file does not name is cleared, each
 * change one line on standard output (the journal, from thpcow.service).
 * Without a global line the global mode stays as it is; pid rules are never
 * touched.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "cgroup.h"
#include "conf.h"
#include "device.h"
#include "parse.h"
#include "thpcowctl.h"

#define CGROUP_DEFAULT_MOUNT	"/sys/fs/cgroup"

/* Clear the rule of entry e, a cgroup the file does not name. */
static int clear_stale(int fd, const struct thpcow_entry *e, const char *name)
{
	char path[THPCOW_PATH_LEN + 1], where[THPCOW_PATH_LEN + PATH_MAX + 128];
	struct scope_arg s = { .scope = THPCOW_SCOPE_CGROUP, .given = 1 };
	struct thpcow_policy p;
	struct target t;
	struct stat st;
	int ret = -1;

	memcpy(path, e->path, THPCOW_PATH_LEN);
	path[THPCOW_PATH_LEN] = '\0';
	snprintf(where, sizeof(where), "clear cgroup %s (not in %s)", path, name);
	error_context(where);
	s.cgroup = path;
	if (e->flags & THPCOW_ENTRY_PATH_TRUNCATED) {
		error_msg("its path is too long to clear it here (cgroup id %llu)",
			  (unsigned long long)e->cgroup_id);
	} else if (target_open(&s, &t) == 0) {
		if (fstat(t.cgroup_fd, &st) || st.st_ino != e->cgroup_id) {
			error_msg("%s is another cgroup now (the rule's was "
				  "renamed?): not cleared", t.cgroup_abs);
		} else {
			target_policy(&t, &p);
			ret = device_policy(fd, "apply", THPCOW_IOC_CLEAR, &p, &t);
			if (!ret)
				printf("cleared cgroup %s (not in %s)\n", path, name);
		}
		target_close(&t);
	}
	error_context(NULL);
	return ret;
}

/* Is id one of the n cgroups opened for the file's rules? */
static bool in_file(const struct target *t, size_t n, __u64 id)
{
	struct stat st;
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].scope == THPCOW_SCOPE_CGROUP &&
		    !fstat(t[i].cgroup_fd, &st) && st.st_ino == id)
			return true;
	return false;
}

/* Set the rules of c (targets t, opened), then clear the stale ones. */
static int apply_rules(int fd, const struct conf *c, struct target *t,
		       const char *name)
{
	struct thpcow_entry *entries;
	struct thpcow_policy p;
	char where[PATH_MAX];
	int failed = 0;
	size_t i, n;

	for (i = 0; i < c->n; i++) {
		if (t[i].scope == THPCOW_SCOPE_NR)	/* skipped */
			continue;
		snprintf(where, sizeof(where), "%s:%u", c->rules[i].file,
			 c->rules[i].line);
		error_context(where);
		target_policy(&t[i], &p);
		p.mode = c->rules[i].mode;
		if (device_policy(fd, "apply", THPCOW_IOC_SET, &p, &t[i]))
			failed = 1;
		else if (t[i].scope == THPCOW_SCOPE_CGROUP)
			printf("%s: cgroup %s %s\n", where, c->rules[i].cgroup,
			       mode_name(p.mode));
		else
			printf("%s: global %s\n", where, mode_name(p.mode));
		error_context(NULL);
	}
	if (device_list(fd, &entries, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (entries[i].scope == THPCOW_SCOPE_CGROUP &&
		    !in_file(t, c->n, entries[i].cgroup_id))
			failed |= clear_stale(fd, &entries[i], name);
	free(entries);
	return failed;
}

/*
 * A "cgroup?" rule whose cgroup does not exist (yet): skipped, one line on
 * standard output saying so.
 */
static bool skipped(const struct conf_rule *r, const char *mnt)
{
	char abs[PATH_MAX], rel[PATH_MAX];

	if (!r->optional ||
	    cgroup_resolve(mnt, r->cgroup, abs, sizeof(abs), rel, sizeof(rel)) ||
	    access(abs, F_OK) == 0 || errno != ENOENT)
		return false;
	printf("%s:%u: cgroup? %s: no such cgroup yet: skipped (apply again "
	       "once it exists: systemctl reload thpcow)\n", r->file, r->line,
	       r->cgroup);
	return true;
}

/*
 * --check: every cgroup of c must exist (apply fails as a whole if not),
 * but for the "cgroup?" ones.
 */
static int conf_check_cgroups(const struct conf *c, const char *name,
			      const char *mnt)
{
	char where[PATH_MAX];
	struct scope_arg s;
	struct target t;
	int missing = 0;
	size_t i;

	for (i = 0; i < c->n; i++) {
		if (c->rules[i].scope != THPCOW_SCOPE_CGROUP ||
		    skipped(&c->rules[i], mnt))
			continue;
		memset(&s, 0, sizeof(s));
		s.scope = THPCOW_SCOPE_CGROUP;
		s.cgroup = c->rules[i].cgroup;
		snprintf(where, sizeof(where), "%s:%u", c->rules[i].file,
			 c->rules[i].line);
		error_context(where);
		if (target_open(&s, &t))
			missing++;
		else
			target_close(&t);
		error_context(NULL);
	}
	if (missing)
		error_msg("%s: %d cgroup%s cannot be opened: apply would change "
			  "nothing", name, missing, missing == 1 ? "" : "s");
	return missing ? -1 : 0;
}

/* Open the device and every cgroup of c (not a skipped one), then apply c. */
static int conf_apply(const struct conf *c, const char *name, const char *mnt)
{
	struct target *t = calloc(c->n + 1, sizeof(*t));
	char where[PATH_MAX];
	size_t i, opened;
	int fd, ret = -1;
	struct scope_arg s;

	if (!t) {
		error_msg("%s: %s", name, strerror(ENOMEM));
		return -1;
	}
	fd = device_open();
	for (opened = 0; fd >= 0 && opened < c->n; opened++) {
		if (skipped(&c->rules[opened], mnt)) {
			t[opened].scope = THPCOW_SCOPE_NR;
			continue;
		}
		memset(&s, 0, sizeof(s));
		s.scope = c->rules[opened].scope;
		s.cgroup = c->rules[opened].cgroup;
		snprintf(where, sizeof(where), "%s:%u", c->rules[opened].file,
			 c->rules[opened].line);
		error_context(where);
		ret = target_open(&s, &t[opened]);
		error_context(NULL);
		if (ret) {
			error_msg("%s: nothing applied", name);
			break;
		}
	}
	if (fd >= 0 && opened == c->n)
		ret = apply_rules(fd, c, t, name);
	for (i = 0; i < opened; i++)
		if (t[i].scope != THPCOW_SCOPE_NR)
			target_close(&t[i]);
	free(t);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Add one file's rules to c; "-" is standard input. Returns the number of
 * errors (reported), -1 if it could not be read.
 */
static int conf_read(const char *file, const char *name, const char *mnt,
		     bool check, struct conf *c)
{
	FILE *in = strcmp(file, "-") ? fopen(file, "re") : stdin;
	int ret;

	if (!in) {
		error_msg("%s: %s", file, strerror(errno));
		return -1;
	}
	ret = conf_parse(in, name, mnt, c);
	if (in != stdin)
		fclose(in);
	if (ret > 0)
		error_msg("%s: %d error%s%s", name, ret, ret == 1 ? "" : "s",
			  check ? "" : "; nothing applied");
	return ret;
}

int apply_file(const char *file, bool check)
{
	const char *name = strcmp(file, "-") ? file : "<stdin>";
	char mnt[PATH_MAX], what[PATH_MAX + 64];
	struct conf c = { 0 };
	char **dropins = NULL;
	size_t i, ndropins = 0;
	int ret;

	if (cgroup_mount_point(mnt, sizeof(mnt)))
		strcpy(mnt, CGROUP_DEFAULT_MOUNT);
	/* all of them, or nothing: an error in any file applies none */
	ret = conf_read(file, name, mnt, check, &c) ? 1 : 0;
	if (ret >= 0 && strcmp(file, "-"))
		ret |= conf_dropins(file, &dropins, &ndropins) ? 1 : 0;
	for (i = 0; i < ndropins; i++)	/* every file's errors, then fail */
		ret |= conf_read(dropins[i], dropins[i], mnt, check, &c) ? 1 : 0;
	if (ndropins)
		snprintf(what, sizeof(what), "%s and %s" CONF_DROPIN_SUFFIX
			 "/*.conf", name, name);
	else
		snprintf(what, sizeof(what), "%s", name);
	if (!ret)
		ret = check ? conf_check_cgroups(&c, what, mnt) :
		      conf_apply(&c, what, mnt);
	if (!ret && !check)
		printf("applied %s\n", what);
	conf_free(&c);
	conf_names_free(dropins, ndropins);
	return ret ? -1 : 0;
}
