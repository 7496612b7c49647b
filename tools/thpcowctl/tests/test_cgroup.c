// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): cgroup paths
 * resolved, and the cgroup2 mount found in mountinfo.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"

#include "test.h"

/* --- cgroup paths ------------------------------------------------------- */

struct cgroup_case {
	const char *mnt;
	const char *arg;
	int ret;
	const char *abs;
	const char *rel;
};

static int test_cgroup_resolve(const void *arg)
{
	const struct cgroup_case *c = arg;
	char abs[PATH_MAX] = "", rel[PATH_MAX] = "";
	int ret = cgroup_resolve(c->mnt, c->arg, abs, sizeof(abs), rel,
				 sizeof(rel));

	if (ret != c->ret)
		return fail("cgroup_resolve(%s, \"%s\") = %d, want %d",
			    c->mnt, c->arg, ret, c->ret);
	if (ret)
		return PASS;
	if (expect_str("absolute path", abs, c->abs))
		return FAIL;
	return expect_str("shown path", rel, c->rel);
}

struct mountinfo_case {
	const char *text;
	int ret;
	const char *mnt;
};

static int test_mountinfo(const void *arg)
{
	const struct mountinfo_case *c = arg;
	FILE *f = fmemopen((void *)c->text, strlen(c->text), "r");
	char mnt[PATH_MAX] = "";
	int ret = cgroup2_mount(f, mnt, sizeof(mnt));

	fclose(f);
	if (ret != c->ret)
		return fail("cgroup2_mount = %d, want %d", ret, c->ret);
	return ret ? PASS : expect_str("mount point", mnt, c->mnt);
}

#define CGROUP(desc, ...) CASE(test_cgroup_resolve, desc, cgroup_case, __VA_ARGS__)
#define MOUNTS(desc, ...) CASE(test_mountinfo, desc, mountinfo_case, __VA_ARGS__)

static const struct test tests[] = {
	/* the mount path doubled onto an absolute argument */
	CGROUP("cgroup: an absolute path is used as is", "/sys/fs/cgroup",
	       "/sys/fs/cgroup/machine.slice", 0, "/sys/fs/cgroup/machine.slice",
	       "/machine.slice"),
	/* a relative argument resolved against the cwd */
	CGROUP("cgroup: a relative path is below the mount", "/sys/fs/cgroup",
	       "machine.slice/foo", 0, "/sys/fs/cgroup/machine.slice/foo",
	       "/machine.slice/foo"),
	/* "/machine.slice" taken as a directory of the root filesystem */
	CGROUP("cgroup: a leading slash is still below the mount",
	       "/sys/fs/cgroup", "/machine.slice", 0,
	       "/sys/fs/cgroup/machine.slice", "/machine.slice"),
	/* "/sys/fs/cgroupfoo" matched the mount as a string prefix */
	CGROUP("cgroup: the mount prefix must be whole components",
	       "/sys/fs/cgroup", "/sys/fs/cgroupfoo", 0,
	       "/sys/fs/cgroup/sys/fs/cgroupfoo", "/sys/fs/cgroupfoo"),
	/* the root shown as "" or opened as the mount's parent */
	CGROUP("cgroup: / is the root", "/sys/fs/cgroup", "/", 0,
	       "/sys/fs/cgroup", "/"),
	/* the mount itself shown as "" */
	CGROUP("cgroup: the mount point is the root", "/sys/fs/cgroup/unified",
	       "/sys/fs/cgroup/unified/", 0, "/sys/fs/cgroup/unified", "/"),
	/* trailing slashes kept in what is shown */
	CGROUP("cgroup: trailing slashes are dropped", "/sys/fs/cgroup",
	       "a/b//", 0, "/sys/fs/cgroup/a/b", "/a/b"),
	/* "" opened as the mount root by accident */
	CGROUP("cgroup: an empty path is refused", "/sys/fs/cgroup", "", -EINVAL,
	       NULL, NULL),
	/* a relative path opened against the cwd when cgroup2 is absent */
	CGROUP("cgroup: a relative path needs a cgroup2 mount", NULL, "a",
	       -ENOENT, NULL, NULL),
	/* no mount: an absolute path still works */
	CGROUP("cgroup: no mount, an absolute path is used", NULL, "/x/y", 0,
	       "/x/y", "/x/y"),

	/* the first cgroup (v1) line taken for cgroup2 */
	MOUNTS("mountinfo: cgroup2 among v1 mounts",
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup/cpu", "cgroup")
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup/unified", "cgroup2"), 0,
	       "/sys/fs/cgroup/unified"),
	/* a bind mount of a subtree taken over the whole hierarchy */
	MOUNTS("mountinfo: the hierarchy's root is preferred",
	       MOUNTINFO_LINE("/sub", "/mnt/sub", "cgroup2")
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup", "cgroup2"), 0,
	       "/sys/fs/cgroup"),
	/* octal escapes (\040 for a space) left in the path */
	MOUNTS("mountinfo: escapes are undone",
	       MOUNTINFO_LINE("/", "/mnt/my\\040cg", "cgroup2"), 0, "/mnt/my cg"),
	/* a missing cgroup2 reported as found */
	MOUNTS("mountinfo: no cgroup2", MOUNTINFO_LINE("/", "/proc", "proc"),
	       -ENOENT, NULL),
};

TEST_AREA(cgroup_tests, tests);
