// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/thpcow, for the host tests only: LD_PRELOADed into
 * thpcowctl, it answers the ioctls on THPCOWCTL_DEVICE the way the module
 * does (the same argument checks as module/ctl.c and module/policy.c: the
 * size, reserved and unused fields zero, flags only where allowed) and
 * logs each policy and list command it accepts to $FAKE_LOG. It also makes the
 * module look loaded (/sys/module/thpcow, its version).
 *
 * Knobs (environment): FAKE_ABI (what VERSION says, 1), FAKE_ABSENT
 * (GET: no policy here; CLEAR: ENOENT), FAKE_LIST_GROW (the list grows
 * between the sizing call and the filling one), FAKE_LIST_ROOT=ID (the
 * listed cgroup rule is the cgroup2 root's, "/", with the id ID),
 * FAKE_MODES=N (a module that knows only the first N modes: EOPNOTSUPP
 * for the others). Pid 999999 does not exist.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <uapi/thpcow.h>

#define SYSFS_MODULE	"/sys/module/thpcow"
#define NO_SUCH_PID	999999

static int fake_fd = -1;

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static bool is_device(const char *path)
{
	const char *dev = getenv("THPCOWCTL_DEVICE");

	return dev && strcmp(path, dev) == 0;
}

static int fake_open(void)
{
	fake_fd = REAL(open)("/dev/null", O_RDWR | O_CLOEXEC);
	return fake_fd;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	if (is_device(path))
		return fake_open();
	va_start(ap, flags);
	mode = va_arg(ap, mode_t);
	va_end(ap);
	return REAL(open)(path, flags, mode);
}

int access(const char *path, int mode)
{
	if (strcmp(path, SYSFS_MODULE) == 0)
		return 0;
	return REAL(access)(path, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	static char version[] = THPCOW_VERSION "\n";

	if (strcmp(path, SYSFS_MODULE "/version") == 0)
		return fmemopen(version, strlen(version), "r");
	return REAL(fopen)(path, mode);
}

static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_LOG");
	va_list ap;
	FILE *f;

	if (!path || !(f = REAL(fopen)(path, "a")))
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

/* thpcow_policy_check() */
static int policy_check(const struct thpcow_policy *p, bool with_mode)
{
	unsigned int allowed = p->scope == THPCOW_SCOPE_PID ?
			       THPCOW_POLICY_SET_MASK : 0;
	struct statfs sfs;

	if (p->size != sizeof(*p) || !zero(p->__reserved, sizeof(p->__reserved)))
		return -EINVAL;
	if (p->scope >= THPCOW_SCOPE_NR || (p->flags & ~allowed))
		return -EINVAL;
	if ((p->scope != THPCOW_SCOPE_PID && p->pid) ||
	    (p->scope != THPCOW_SCOPE_CGROUP && p->cgroup_fd))
		return -EINVAL;
	if (p->cgroup_id || p->substitutions || p->effective_mode ||
	    p->effective_scope || p->effective_cgroup_id ||
	    (!with_mode && p->mode))
		return -EINVAL;
	if (with_mode && p->mode >= THPCOW_MODE_NR)
		return -EINVAL;
	/* FAKE_MODES=N: a module that knows only the first N modes */
	if (with_mode && getenv("FAKE_MODES") &&
	    p->mode >= strtoul(getenv("FAKE_MODES"), NULL, 10))
		return -EOPNOTSUPP;
	if (p->scope == THPCOW_SCOPE_PID && p->pid <= 0)
		return -EINVAL;
	if (p->scope == THPCOW_SCOPE_PID && p->pid == NO_SUCH_PID)
		return -ESRCH;
	if (p->scope == THPCOW_SCOPE_CGROUP &&
	    (fstatfs(p->cgroup_fd, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC))
		return -ENOTDIR;
	return 0;
}

static int policy(const char *cmd, struct thpcow_policy *p, bool with_mode)
{
	int ret = policy_check(p, with_mode);

	if (ret)
		return ret;
	fake_log("%s scope=%u mode=%u flags=%u pid=%d cgroup=%s\n", cmd, p->scope,
	     p->mode, p->flags, p->pid, p->cgroup_fd ? "ok" : "-");
	if (getenv("FAKE_ABSENT") && !strcmp(cmd, "CLEAR") &&
	    p->scope != THPCOW_SCOPE_GLOBAL)
		return -ENOENT;
	if (strcmp(cmd, "GET"))
		return 0;
	p->flags = THPCOW_POLICY_PRESENT;
	if (p->scope == THPCOW_SCOPE_PID)
		p->flags |= THPCOW_POLICY_CHILDREN;
	p->mode = THPCOW_MODE_ZERO;
	p->substitutions = 5;
	if (getenv("FAKE_ABSENT") && p->scope != THPCOW_SCOPE_GLOBAL)
		p->flags = p->mode = p->substitutions = 0;
	if (p->scope == THPCOW_SCOPE_CGROUP)
		p->cgroup_id = 1;
	if (p->scope == THPCOW_SCOPE_PID) {
		p->effective_mode = THPCOW_MODE_ZERO;
		p->effective_scope = getenv("FAKE_ABSENT") ?
				     THPCOW_SCOPE_CGROUP : THPCOW_SCOPE_PID;
		/* the cgroup2 root's id */
		p->effective_cgroup_id = getenv("FAKE_ABSENT") ? 1 : 0;
	}
	return 0;
}

static const struct thpcow_entry entries[] = {
	{ .scope = THPCOW_SCOPE_PID, .mode = THPCOW_MODE_ZERO,
	  .flags = THPCOW_POLICY_CHILDREN, .pid = 42, .substitutions = 7,
	  .comm = "qemu\"kvm" },
	{ .scope = THPCOW_SCOPE_CGROUP, .mode = THPCOW_MODE_KERNEL,
	  .cgroup_id = 99, .path = "/machine.slice" },
	{ .scope = THPCOW_SCOPE_PID, .mode = THPCOW_MODE_ZERO, .pid = 43,
	  .comm = "late" },
};

/*
 * thpcow_policy_list(): count them all, copy what there is room for. With
 * FAKE_LIST_GROW, 2 entries at first, then 8 (more than the slack).
 */
static int list(struct thpcow_list *l)
{
	static int calls;
	__u32 n = getenv("FAKE_LIST_GROW") && calls++ ? 8 : 2, i;

	struct thpcow_entry *e = (struct thpcow_entry *)(uintptr_t)l->entries;
	const char *root = getenv("FAKE_LIST_ROOT");

	if (l->size != sizeof(*l) || l->entry_size != sizeof(entries[0]) ||
	    l->__reserved0 || !zero(l->__reserved, sizeof(l->__reserved)))
		return -EINVAL;
	for (i = 0; i < n && i < l->count; i++) {
		memcpy(&e[i], &entries[i % 3], sizeof(entries[0]));
		if (root && e[i].scope == THPCOW_SCOPE_CGROUP) {
			strcpy(e[i].path, "/");
			e[i].cgroup_id = strtoull(root, NULL, 10);
		}
	}
	fake_log("LIST room=%u\n", l->count);
	l->count = n;
	return 0;
}

/* thpcow_ioc_usage(): a VM's cgroup, a pid rule's process, the rest. */
static int usage(struct thpcow_usage *u)
{
	static const struct thpcow_usage_entry rows[] = {
		{ .scope = THPCOW_SCOPE_CGROUP, .cgroup_id = 99,
		  .count = THPCOW_USAGE_NR, .thp_bytes = 128ULL << 21,
		  .counters = { [THPCOW_USAGE_SUBSTITUTED] = 128,
				[THPCOW_USAGE_FALLBACK_ALLOC] = 3,
				[THPCOW_USAGE_FALLBACK_UFFD] = 2 },
		  .path = "/machine.slice/machine-qemu\\x2d1\\x2dvm.scope" },
		{ .scope = THPCOW_SCOPE_PID, .pid = 42, .comm = "qemu\"kvm",
		  .count = THPCOW_USAGE_NR, .thp_bytes = 65ULL << 21,
		  .counters = { [THPCOW_USAGE_SUBSTITUTED] = 64,
				[THPCOW_USAGE_COPIED] = 1 } },
		{ .scope = THPCOW_SCOPE_GLOBAL, .count = THPCOW_USAGE_NR,
		  .counters = { [THPCOW_USAGE_FALLBACK_INELIGIBLE] = 5 } },
	};
	struct thpcow_usage_entry *e =
		(struct thpcow_usage_entry *)(uintptr_t)u->entries;
	__u32 i;

	if (u->size != sizeof(*u) || u->entry_size != sizeof(rows[0]) ||
	    u->slots || u->slots_used ||
	    !zero(u->__reserved, sizeof(u->__reserved)))
		return -EINVAL;
	for (i = 0; i < 3 && i < u->count; i++)
		e[i] = rows[i];
	fake_log("USAGE room=%u\n", u->count);
	u->count = 3;
	u->slots = 1024;
	u->slots_used = getenv("FAKE_SLOTS_USED") ?
			(__u32)atoi(getenv("FAKE_SLOTS_USED")) : 1;
	return 0;
}

static int stats(struct thpcow_stats *s)
{
	unsigned int i;

	if (s->size != sizeof(*s) || !zero(&s->count, sizeof(*s) - 4))
		return -EINVAL;
	for (i = 0; i < THPCOW_STAT_NR; i++)
		s->counters[i] = 10 * i + 1;
	s->count = THPCOW_STAT_NR;
	s->policies = 2;
	return 0;
}

static int version(struct thpcow_version *v)
{
	const char *abi = getenv("FAKE_ABI");

	if (v->size != sizeof(*v) || !zero(&v->abi, sizeof(*v) - 4))
		return -EINVAL;
	v->abi = abi ? atoi(abi) : THPCOW_ABI_VERSION;
	v->major = THPCOW_VERSION_MAJOR;
	v->minor = THPCOW_VERSION_MINOR;
	v->patch = THPCOW_VERSION_PATCH;
	v->features = THPCOW_FEATURE_NATIVE_ZERO;
	return 0;
}

int ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != fake_fd)
		return REAL(ioctl)(fd, cmd, arg);
	switch (cmd) {
	case THPCOW_IOC_VERSION:
		ret = version(arg);
		break;
	case THPCOW_IOC_SET:
		ret = policy("SET", arg, true);
		break;
	case THPCOW_IOC_GET:
		ret = policy("GET", arg, false);
		break;
	case THPCOW_IOC_CLEAR:
		ret = policy("CLEAR", arg, false);
		break;
	case THPCOW_IOC_LIST:
		ret = list(arg);
		break;
	case THPCOW_IOC_STATS:
		ret = stats(arg);
		break;
	case THPCOW_IOC_USAGE:
		ret = usage(arg);
		break;
	default:
		ret = -ENOTTY;
	}
	if (ret) {
		errno = -ret;
		return -1;
	}
	return 0;
}
