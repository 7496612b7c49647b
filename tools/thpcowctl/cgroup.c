// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: cgroup paths. The rule for --cgroup PATH: a PATH that starts
 * with the cgroup2 mount point (as a whole path component) is absolute and
 * used as it is; any other PATH, with or without a leading '/', names a
 * cgroup below the cgroup2 root. So with cgroup2 on /sys/fs/cgroup,
 * "/sys/fs/cgroup/machine.slice", "machine.slice" and "/machine.slice" are
 * the same cgroup, and "/" is the root. (An absolute PATH outside the
 * mount that exists, like "/proc", is then reported as not a cgroup v2
 * directory rather than as missing below the root.)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo; undo it in place. */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * The mount point of cgroup2 from a /proc/PID/mountinfo stream: the first
 * whose root is the hierarchy's root, else the first at all. Returns 0, or
 * -ENOENT when there is none (or it does not fit buf).
 */
int cgroup2_mount(FILE *mountinfo, char *buf, size_t len)
{
	char *line = NULL, *sep, *field[5], *save;
	bool found = false;
	size_t cap = 0;
	int i;

	while (getline(&line, &cap, mountinfo) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - TYPE ... */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		field[0] = strtok_r(line, " ", &save);
		for (i = 1; i < 5 && field[i - 1]; i++)
			field[i] = strtok_r(NULL, " ", &save);
		if (!field[4])
			continue;
		unescape_octal(field[3]);
		unescape_octal(field[4]);
		if (strlen(field[4]) >= len || (found && strcmp(field[3], "/")))
			continue;
		strcpy(buf, field[4]);
		found = true;
		if (strcmp(field[3], "/") == 0)
			break;
	}
	free(line);
	return found ? 0 : -ENOENT;
}

/* Does path start with the directory dir, as whole components? */
static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || !path[n]);
}

/* Drop trailing slashes, but keep "/" itself. */
static void strip_slashes(char *path)
{
	size_t n;

	for (n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
		path[n - 1] = '\0';
}

/*
 * Apply the rule above. mnt is the cgroup2 mount point, or NULL if there is
 * none (then only an absolute PATH works). Fills abs (what to open) and rel
 * (what to show: the path below the cgroup2 root, "/" for the root, as the
 * module reports it). Trailing slashes are dropped. Returns 0, -EINVAL for
 * an empty PATH, -ENOENT for a relative PATH and no mount, -ENAMETOOLONG.
 */
int cgroup_resolve(const char *mnt, const char *arg, char *abs, size_t alen,
		   char *rel, size_t rlen)
{
	int ret;

	if (!arg[0])
		return -EINVAL;
	if (!mnt && arg[0] != '/')
		return -ENOENT;
	if (!mnt || path_under(arg, mnt)) {
		ret = snprintf(abs, alen, "%s", arg);
		arg += mnt && strcmp(mnt, "/") ? strlen(mnt) : 0;
	} else {
		arg += strspn(arg, "/");
		ret = snprintf(abs, alen, "%s%s%s", mnt,
			       mnt[strlen(mnt) - 1] == '/' ? "" : "/", arg);
	}
	if (ret < 0 || (size_t)ret >= alen)
		return -ENAMETOOLONG;
	arg += strspn(arg, "/");
	ret = snprintf(rel, rlen, "/%s", arg);
	if (ret < 0 || (size_t)ret >= rlen)
		return -ENAMETOOLONG;
	strip_slashes(abs);
	strip_slashes(rel);
	return 0;
}
