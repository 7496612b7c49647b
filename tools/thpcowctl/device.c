// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the device, its ioctls and the errors they give, in words. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup.h"
#include "device.h"
#include "thpcowctl.h"

#define ROOT_NEEDED	"permission denied: root (CAP_SYS_ADMIN) is needed"

/*
 * THPCOWCTL_DEVICE overrides the device path. It is a testing aid only (the
 * host tests point it at a missing file, or at test_fakedev.so's stand-in);
 * nothing else should set it.
 */
const char *device_path(void)
{
	const char *path = getenv("THPCOWCTL_DEVICE");

	return path && path[0] ? path : THPCOW_DEVICE_PATH;
}

bool module_loaded(void)
{
	return access(SYSFS_MODULE, F_OK) == 0;
}

/*
 * Is thpcow.service installed (a packaged host, or make install-tools)?
 * Then it, not 'thpcowctl load', is how the module is loaded: with its
 * options and /etc/thpcow.conf applied. THPCOWCTL_UNIT: another path (tests).
 */
bool unit_installed(void)
{
	static const char *const dirs[] = {
		"/etc/systemd/system", "/usr/local/lib/systemd/system",
		"/usr/lib/systemd/system", "/lib/systemd/system",
	};
	const char *test = getenv("THPCOWCTL_UNIT");
	char path[256];
	size_t i;

	if (test && test[0])
		return access(test, F_OK) == 0;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/" MODULE_NAME ".service", dirs[i]);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

/* How to load the module here: through the unit if there is one. */
const char *load_hint(void)
{
	return unit_installed() ? "systemctl start " MODULE_NAME :
	       PROGRAM_NAME " load";
}

/* A failed ioctl, in words; what says which command on what. */
static int ioctl_error(const char *what, int err)
{
	if (err == EPERM || err == EACCES)
		error_msg("%s: " ROOT_NEEDED, what);
	else if (err == ENOTTY)
		error_msg("%s: command not understood by the module (ABI mismatch?)",
			  what);
	else
		error_msg("%s: %s", what, strerror(err));
	return -1;
}

/* Open the device without checking its ABI (status, version). */
int device_open_raw(void)
{
	const char *path = device_path();
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOENT && module_loaded())
		error_msg("%s: no such device, but the module is loaded "
			  "(is devtmpfs mounted?)", path);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		error_msg("%s: module not loaded (try: %s)", path, load_hint());
	else if (errno == EACCES || errno == EPERM)
		error_msg("%s: " ROOT_NEEDED, path);
	else
		error_msg("%s: %s", path, strerror(errno));
	return -1;
}

int device_version(int fd, struct thpcow_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	if (ioctl(fd, THPCOW_IOC_VERSION, v) == 0)
		return 0;
	if (errno == ENOTTY || errno == EINVAL)
		error_msg("%s: not a " MODULE_NAME " control device, or one "
			  "with another ABI", device_path());
	else
		ioctl_error(device_path(), errno);
	return -1;
}

int device_check_abi(const struct thpcow_version *v)
{
	if (v->abi == THPCOW_ABI_VERSION)
		return 0;
	error_msg("%s: ABI mismatch: the module (%u.%u.%u) speaks ABI %u, "
		  PROGRAM_NAME " (" THPCOW_VERSION ") speaks ABI %u; "
		  "use the " PROGRAM_NAME " built with the module",
		  device_path(), v->major, v->minor, v->patch, v->abi,
		  THPCOW_ABI_VERSION);
	return -1;
}

/* Open the device for commands: it must speak our ABI. */
int device_open(void)
{
	struct thpcow_version v;
	int fd = device_open_raw();

	if (fd < 0)
		return -1;
	if (device_version(fd, &v) || device_check_abi(&v)) {
		close(fd);
		return -1;
	}
	return fd;
}

int device_stats(int fd, struct thpcow_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(fd, THPCOW_IOC_STATS, st))
		return ioctl_error("stats", errno);
	return 0;
}

/* LIST and USAGE take the same argument: size, entry_size, count, ... */
_Static_assert(sizeof(struct thpcow_list) == sizeof(struct thpcow_usage) &&
	       offsetof(struct thpcow_list, count) ==
	       offsetof(struct thpcow_usage, count) &&
	       offsetof(struct thpcow_list, entries) ==
	       offsetof(struct thpcow_usage, entries),
	       "thpcow_list and thpcow_usage differ");

/*
 * All rows of LIST or USAGE (cmd; what names it in messages): ask with no
 * room to learn the count, then with room to spare; if the rows grew past
 * it meanwhile, ask again. *arg is what the module returned last.
 */
static int device_rows(int fd, unsigned long cmd, const char *what,
		       size_t esize, void **rows, size_t *n,
		       struct thpcow_usage *arg)
{
	void *e = NULL, *grown;
	__u32 room = 0;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		memset(arg, 0, sizeof(*arg));
		arg->size = sizeof(*arg);
		arg->entry_size = esize;
		arg->count = room;
		arg->entries = (uintptr_t)e;
		if (ioctl(fd, cmd, arg)) {
			free(e);
			return ioctl_error(what, errno);
		}
		if (arg->count <= room) {
			*rows = e;
			*n = arg->count;
			return 0;
		}
		room = arg->count + arg->count / 4 + 4;
		grown = realloc(e, room * esize);
		if (!grown) {
			free(e);
			error_msg("%s: %s", what, strerror(ENOMEM));
			return -1;
		}
		e = grown;
		memset(e, 0, room * esize);
	}
	free(e);
	error_msg("%s: the %s keeps growing; try again", what,
		  cmd == THPCOW_IOC_LIST ? "policy list" : "usage table");
	return -1;
}

int device_list(int fd, struct thpcow_entry **entries, size_t *n)
{
	struct thpcow_usage arg;

	return device_rows(fd, THPCOW_IOC_LIST, "list", sizeof(**entries),
			   (void **)entries, n, &arg);
}

/* All usage rows; *arg as the module returned it (its table's size). */
int device_usage(int fd, struct thpcow_usage_entry **entries, size_t *n,
		 struct thpcow_usage *arg)
{
	return device_rows(fd, THPCOW_IOC_USAGE, "usage", sizeof(**entries),
			   (void **)entries, n, arg);
}

/* The cgroup2 mount point of this process; 0 or -errno. */
int cgroup_mount_point(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret;

	if (!f)
		return -errno;
	ret = cgroup2_mount(f, buf, len);
	fclose(f);
	return ret;
}

/* Resolve and open --cgroup PATH; it must be a cgroup v2 directory. */
static int cgroup_open(const char *arg, struct target *t)
{
	char mnt[PATH_MAX];
	bool have_mnt = cgroup_mount_point(mnt, sizeof(mnt)) == 0;
	struct statfs sfs;
	int ret;

	ret = cgroup_resolve(have_mnt ? mnt : NULL, arg, t->cgroup_abs,
			     sizeof(t->cgroup_abs), t->cgroup, sizeof(t->cgroup));
	if (ret == -ENOENT) {
		error_msg("%s: no cgroup2 mount in /proc/self/mountinfo "
			  "(give an absolute path)", arg);
		return -1;
	} else if (ret) {
		error_msg("%s: %s", arg[0] ? arg : "''", ret == -EINVAL ?
			  "empty cgroup path" : strerror(-ret));
		return -1;
	}
	t->cgroup_fd = open(t->cgroup_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->cgroup_fd < 0) {
		/* "/proc": not below the cgroup2 root, but it is there */
		if (errno == ENOENT && arg[0] == '/' && access(arg, F_OK) == 0)
			error_msg("%s: not a cgroup v2 directory", arg);
		else if (errno == ENOTDIR)
			error_msg("%s: not a cgroup v2 directory", t->cgroup_abs);
		else
			error_msg("%s: %s", t->cgroup_abs, strerror(errno));
		return -1;
	}
	if (fstatfs(t->cgroup_fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		error_msg("%s: not a cgroup v2 directory", t->cgroup_abs);
		target_close(t);
		return -1;
	}
	return 0;
}

int target_open(const struct scope_arg *s, struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->scope = s->scope;
	t->pid = s->pid;
	t->cgroup_fd = -1;
	if (s->scope == THPCOW_SCOPE_CGROUP)
		return cgroup_open(s->cgroup, t);
	return 0;
}

void target_close(struct target *t)
{
	if (t->cgroup_fd >= 0)
		close(t->cgroup_fd);
	t->cgroup_fd = -1;
}

/* A policy argument for t, every other field zero. */
void target_policy(const struct target *t, struct thpcow_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->scope = t->scope;
	p->pid = t->scope == THPCOW_SCOPE_PID ? t->pid : 0;
	/* the module wants 0, not -1, in fields the scope does not use */
	p->cgroup_fd = t->scope == THPCOW_SCOPE_CGROUP ? t->cgroup_fd : 0;
}

/* "pid 1234", "cgroup /machine.slice", "global" */
static const char *target_name(const struct target *t, char *buf, size_t len)
{
	if (t->scope == THPCOW_SCOPE_PID)
		snprintf(buf, len, "pid %d", t->pid);
	else if (t->scope == THPCOW_SCOPE_CGROUP)
		snprintf(buf, len, "cgroup %s", t->cgroup);
	else
		snprintf(buf, len, "global");
	return buf;
}

/* SET, GET or CLEAR on t; verb names the command in messages. */
int device_policy(int fd, const char *verb, unsigned long cmd,
		  struct thpcow_policy *p, const struct target *t)
{
	char name[PATH_MAX + 16], what[PATH_MAX + 32];
	int err;

	if (ioctl(fd, cmd, p) == 0)
		return 0;
	err = errno;
	target_name(t, name, sizeof(name));
	snprintf(what, sizeof(what), "%s %s", verb, name);
	if (err == ESRCH && t->scope == THPCOW_SCOPE_PID)
		error_msg("no such process: %d", t->pid);
	else if (err == ENOENT && cmd != THPCOW_IOC_SET)
		error_msg("no policy for %s", name);
	else if ((err == ENOTDIR || err == EBADF) &&
		 t->scope == THPCOW_SCOPE_CGROUP)
		error_msg("%s: not a cgroup v2 directory", t->cgroup_abs);
	else if (err == ENOSPC && cmd == THPCOW_IOC_SET)
		error_msg("%s: the module's rule table is full (module parameter max_rules)",
			  what);
	else if (err == EOPNOTSUPP && cmd == THPCOW_IOC_SET)
		error_msg("mode '%s' is not supported by this module version",
			  mode_name(p->mode));
	else
		return ioctl_error(what, err);
	return -1;
}
