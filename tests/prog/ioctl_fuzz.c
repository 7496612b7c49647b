// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_fuzz [--count N] [--seed S] [--cgroup DIR] [--device PATH]
 * ioctl_fuzz --probe [--device PATH]
 *
 * Fuzz /dev/thpcow: N (default 100000) random ioctls, from a fixed seed
 * (default 1; printed, so a run can be repeated). Each call gets
 *   a command: a valid one; a valid number with a random direction or size;
 *     magic 0xB8 with a random number, direction and size; another magic;
 *   an argument: the command's structure with its size field right, wrong,
 *     small or huge, valid or random scope/mode/flags/pid/cgroup_fd, garbage
 *     in reserved, output or tail bytes; and a pointer to it that is aligned,
 *     misaligned, straddling into an inaccessible page, into a munmap()ed
 *     page, read-only, NULL or a kernel address (LIST's and USAGE's entries
 *     pointers too).
 * Every call must return 0, or -1 with errno in the allowed set below;
 * anything else is printed and makes the run fail. Output: "key value"
 * lines: seed, calls, ok per command, one line per errno, unexpected.
 *
 * Policies: changes go only to targets this program owns (a child it forks,
 * the cgroup v2 directory DIR given with --cgroup, which should be empty and
 * its own), to pids that do not exist, to kernel threads (refused) and to
 * the global mode; reads go anywhere. A SET that succeeded on any other
 * target (a kernel thread, a pid that does not exist, another cgroup, an
 * unknown scope) was wrongly accepted: printed as wrongly_accepted and
 * counted as unexpected. Every SET that succeeded is undone at the end
 * (CLEARs, the global mode put back), and the policy list (LIST) and the
 * global mode must then be what they were before: "policies unchanged".
 *
 * Generic ioctls that the VFS handles before any driver (magic 0x00, 'T',
 * 'X', 'f', 0x94: FIOCLEX, FIONBIO, FIFREEZE, FICLONE, FS_IOC_*, ...) are
 * left out: they are not the module's, and FIFREEZE would act on /dev's
 * filesystem.
 *
 * --probe: open the device and make one well-formed call of each command,
 * printing "name ok" or "name ERRNO" (open, version, stats, list, usage,
 * get_global, get_pid, set_global: the global mode set to itself,
 * clear_pid: this process, which has no policy: ENOENT for root;
 * set_kthread: a 'zero' rule on pid 2, kthreadd, a kernel thread: EINVAL for
 * root, and a rule it wrongly got is cleared again).
 *
 * --usage-checks: well-formed and malformed THPCOW_IOC_USAGE calls, one
 * "name result" line each (what tests/guest/usage.sh expects of them).
 *
 * Exit status: 0 all as expected, 1 not, 2 usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"
#include "uapi/thpcow.h"

#define PAGE		4096UL
#define NR_CMDS		7
#define MAX_ERRNO	4096
#define MAX_TRACKED	64
#define MAX_ENTRIES	256

static const int allowed_errnos[] = {
	EINVAL, EFAULT, ENOTTY, EPERM, ESRCH, ENOENT, ENOTDIR, EBADF,
	EOPNOTSUPP, E2BIG, ENOMEM,
};

static const unsigned int valid_cmds[NR_CMDS] = {
	THPCOW_IOC_VERSION, THPCOW_IOC_SET, THPCOW_IOC_GET,
	THPCOW_IOC_CLEAR, THPCOW_IOC_LIST, THPCOW_IOC_STATS, THPCOW_IOC_USAGE,
};

static const char *const cmd_names[NR_CMDS] = {
	"version", "set", "get", "clear", "list", "stats", "usage",
};

static const size_t cmd_sizes[NR_CMDS] = {
	sizeof(struct thpcow_version), sizeof(struct thpcow_policy),
	sizeof(struct thpcow_policy), sizeof(struct thpcow_policy),
	sizeof(struct thpcow_list), sizeof(struct thpcow_stats),
	sizeof(struct thpcow_usage),
};

/* Magics of the ioctls do_vfs_ioctl() handles itself, for any file. */
static const unsigned int vfs_magics[] = { 0x00, 'T', 'X', 'f', 0x94 };

static int dev_fd = -1;

/* --- randomness: xorshift64*, reproducible from the seed ----------------- */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

/* Values that tend to find edge cases, or plain random ones. */
static uint32_t nasty_u32(void)
{
	static const uint32_t edge[] = {
		0, 1, 2, 3, 4, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff,
	};

	return chance(50) ? edge[below(sizeof(edge) / sizeof(edge[0]))] :
			    (uint32_t)rnd();
}

/* --- memory: where arguments live ---------------------------------------- */

static char *arena;	/* 2 pages read-write, then a PROT_NONE guard page */
static char *hole;	/* a page that was munmap()ed */
static char *ro_page;	/* read-only except while a request is put there */
static char *entries;	/* room for MAX_ENTRIES LIST entries, then a guard */
static size_t entries_len;

static void *map(size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die(1, "mmap: %s", strerror(errno));
	return p;
}

static void setup_memory(void)
{
	char *three;

	arena = map(3 * PAGE, PROT_READ | PROT_WRITE);
	if (mprotect(arena + 2 * PAGE, PAGE, PROT_NONE))
		die(1, "mprotect: %s", strerror(errno));
	three = map(3 * PAGE, PROT_READ | PROT_WRITE);
	hole = three + PAGE;
	if (munmap(hole, PAGE))
		die(1, "munmap: %s", strerror(errno));
	ro_page = map(PAGE, PROT_READ);
	entries_len = (MAX_ENTRIES * sizeof(struct thpcow_entry) + PAGE - 1) & ~(PAGE - 1);
	entries = map(entries_len + PAGE, PROT_READ | PROT_WRITE);
	if (mprotect(entries + entries_len, PAGE, PROT_NONE))
		die(1, "mprotect: %s", strerror(errno));
}

/* A bad user pointer: unmapped, inaccessible, NULL, kernel or non-canonical. */
static uint64_t bad_pointer(void)
{
	static const uint64_t bad[] = {
		0, 16, PAGE, 0xffffffff81000000ULL, 0xffff888000000000ULL,
		0x8000000000000000ULL, 0x0000800000000000ULL, ~0ULL,
	};

	switch (below(3)) {
	case 0:
		return (uintptr_t)hole + below(PAGE);
	case 1:
		return (uintptr_t)arena + 2 * PAGE + below(PAGE);
	default:
		return bad[below(sizeof(bad) / sizeof(bad[0]))];
	}
}

/* --- targets: pids and cgroup fds --------------------------------------- */

static pid_t child = -1;	/* ours: policies on it may change */
static int cgroup_fd = -1;	/* --cgroup DIR: ours as well */
static int root_cgroup_fd = -1;	/* /sys/fs/cgroup, read only */
static int file_fd = -1, dir_fd = -1;

/* A pid with no process behind it (at the time of asking). */
static pid_t absent_pid(void)
{
	pid_t pid;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		pid = 1 + below(chance(80) ? 65536 : 4194304);
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return pid;
	}
	return INT_MAX;
}

/* A pid for a request; @changes: SET or CLEAR, only our own targets. */
static int32_t pick_pid(bool changes)
{
	static const int32_t invalid[] = { 0, -1, INT_MIN, INT_MAX, -2 };

	switch (below(changes ? 4 : 6)) {
	case 0:
		return child;
	case 1:
		return absent_pid();
	case 2:
		return invalid[below(sizeof(invalid) / sizeof(invalid[0]))];
	case 3:
		return 2;	/* kthreadd: a kernel thread, refused */
	case 4:
		return chance(50) ? 1 : getpid();
	default:
		return 1 + below(4096);
	}
}

static int32_t pick_fd(bool changes)
{
	static const int32_t invalid[] = { -1, INT_MIN, INT_MAX, 999, 1 << 20 };

	switch (below(changes ? 4 : 5)) {
	case 0:
		return cgroup_fd >= 0 ? cgroup_fd : dev_fd;
	case 1:
		return chance(50) ? file_fd : dir_fd;
	case 2:
		return chance(50) ? dev_fd : 0;
	case 3:
		return invalid[below(sizeof(invalid) / sizeof(invalid[0]))];
	default:
		return root_cgroup_fd;
	}
}

/* --- requests ------------------------------------------------------------ */

static unsigned char req[2 * PAGE];	/* the argument, built here first */

static void fill_policy(struct thpcow_policy *p, int nr)
{
	bool changes = nr == _IOC_NR(THPCOW_IOC_SET) || nr == _IOC_NR(THPCOW_IOC_CLEAR);

	p->scope = chance(90) ? below(THPCOW_SCOPE_NR) : nasty_u32();
	if (nr == _IOC_NR(THPCOW_IOC_SET))
		p->mode = chance(85) ? below(THPCOW_MODE_NR) : nasty_u32();
	else
		p->mode = chance(85) ? 0 : nasty_u32();
	p->flags = chance(60) ? 0 : chance(70) ? THPCOW_POLICY_CHILDREN : nasty_u32();
	if (p->scope == THPCOW_SCOPE_PID || chance(10))
		p->pid = pick_pid(changes);
	if (p->scope == THPCOW_SCOPE_CGROUP || chance(10))
		p->cgroup_fd = pick_fd(changes);
	if (chance(5))
		p->cgroup_id = rnd();
	if (chance(5))
		p->substitutions = rnd();
	if (chance(5))
		p->effective_mode = nasty_u32();
	if (chance(5))
		p->effective_scope = nasty_u32();
	if (chance(5))
		p->effective_cgroup_id = rnd();
	if (chance(5))
		p->__reserved[below(4)] = nasty_u32();
}

static void fill_list(struct thpcow_list *l)
{
	struct thpcow_entry *e = (struct thpcow_entry *)entries;

	l->entry_size = chance(85) ? sizeof(struct thpcow_entry) : nasty_u32();
	switch (below(5)) {
	case 0:
		l->count = 0;
		break;
	case 1:
	case 2:
		l->count = 1 + below(8);
		break;
	case 3:
		l->count = below(MAX_ENTRIES + 1);
		break;
	default:
		l->count = nasty_u32();
		break;
	}
	switch (below(8)) {
	case 0:
		l->entries = bad_pointer();
		break;
	case 1:	/* the last entry slot straddles into the guard page */
		l->entries = (uintptr_t)(entries + entries_len - sizeof(*e) / 2);
		break;
	case 2:
		l->entries = (uintptr_t)ro_page;
		break;
	case 3:
		l->entries = (uintptr_t)entries + 1 + below(7);
		break;
	default:
		l->entries = (uintptr_t)e;
		break;
	}
	if (chance(5))
		l->__reserved0 = nasty_u32();
	if (chance(5))
		l->__reserved[below(4)] = nasty_u32();
}

/*
 * Build the argument of @cmd in req[] and return how many bytes of it
 * matter (what the size field and the command's size ask for).
 */
static size_t build_request(unsigned int cmd)
{
	unsigned int nr = _IOC_NR(cmd), csize = _IOC_SIZE(cmd);
	bool ours = _IOC_TYPE(cmd) == THPCOW_IOC_MAGIC && nr < NR_CMDS;
	size_t known = ours ? cmd_sizes[nr] : 0, len;
	uint32_t size;
	unsigned int i;

	len = csize > known ? csize : known;
	if (len > sizeof(req))
		len = sizeof(req);
	if (len < sizeof(uint32_t))
		len = sizeof(uint32_t);
	memset(req, 0, len);

	if (ours) {
		switch (nr) {
		case _IOC_NR(THPCOW_IOC_VERSION):
			if (chance(10))
				((struct thpcow_version *)req)->abi = nasty_u32();
			if (chance(5))
				((struct thpcow_version *)req)->__reserved[below(4)] = nasty_u32();
			break;
		case _IOC_NR(THPCOW_IOC_LIST):
			fill_list((struct thpcow_list *)req);
			break;
		case _IOC_NR(THPCOW_IOC_USAGE):
			/* the same layout; slots is LIST's __reserved0 */
			fill_list((struct thpcow_list *)req);
			if (((struct thpcow_usage *)req)->entry_size ==
			    sizeof(struct thpcow_entry))
				((struct thpcow_usage *)req)->entry_size =
					sizeof(struct thpcow_usage_entry);
			break;
		case _IOC_NR(THPCOW_IOC_STATS):
			if (chance(5))
				((struct thpcow_stats *)req)->count = nasty_u32();
			if (chance(5))
				((struct thpcow_stats *)req)->counters[below(THPCOW_STATS_MAX)] = rnd();
			break;
		default:
			fill_policy((struct thpcow_policy *)req, nr);
			break;
		}
	} else {
		for (i = 0; i < len; i++)
			req[i] = chance(70) ? 0 : (unsigned char)rnd();
	}

	/* Garbage: one byte anywhere, or a nonzero byte in a newer tail. */
	if (chance(8))
		req[below(len)] = (unsigned char)rnd();
	if (len > known && chance(20))
		req[known + below(len - known)] = 1 + below(255);

	switch (below(20)) {
	case 0:
		size = below(64);
		break;
	case 1:
		size = nasty_u32();
		break;
	case 2:
		size = known ? known : csize;
		break;
	case 3:
		size = PAGE + below(PAGE);
		break;
	default:
		size = csize;
		break;
	}
	memcpy(req, &size, sizeof(size));
	return len;
}

/* A command: mostly ours, some close to ours, some of other drivers. */
static unsigned int pick_command(void)
{
	unsigned int cmd, magic, i, r = below(100);

	if (r < 45)
		return valid_cmds[below(NR_CMDS)];
	if (r < 60) {
		i = below(NR_CMDS);
		return _IOC(chance(50) ? below(4) : _IOC_DIR(valid_cmds[i]),
			    THPCOW_IOC_MAGIC, i,
			    chance(50) ? below(_IOC_SIZEMASK + 1) : cmd_sizes[i] + below(64));
	}
	if (r < 75)
		return _IOC(below(4), THPCOW_IOC_MAGIC, below(256), below(_IOC_SIZEMASK + 1));
	for (;;) {
		cmd = r < 90 ? _IOC(below(4), below(256), below(256), below(_IOC_SIZEMASK + 1))
			     : (unsigned int)rnd();
		magic = _IOC_TYPE(cmd);
		for (i = 0; i < sizeof(vfs_magics) / sizeof(vfs_magics[0]); i++)
			if (magic == vfs_magics[i])
				break;
		if (i == sizeof(vfs_magics) / sizeof(vfs_magics[0]))
			return cmd;
	}
}

/* Put req[0..len) where the pointer says and return the pointer. */
static void *place_request(size_t len, bool *ro)
{
	size_t off, n;
	char *p;

	*ro = false;
	switch (below(20)) {
	case 0:
		return (void *)(uintptr_t)bad_pointer();
	case 1:	/* misaligned */
		p = arena + 1 + below(7);
		break;
	case 2:	/* straddles into the guard page after a readable size */
		off = sizeof(uint32_t) + below(len > 8 ? len - 4 : 4);
		p = arena + 2 * PAGE - off;
		break;
	case 3:
		if (mprotect(ro_page, PAGE, PROT_READ | PROT_WRITE))
			die(1, "mprotect: %s", strerror(errno));
		memcpy(ro_page, req, len < PAGE ? len : PAGE);
		if (mprotect(ro_page, PAGE, PROT_READ))
			die(1, "mprotect: %s", strerror(errno));
		*ro = true;
		return ro_page;
	default:
		p = arena;
		break;
	}
	n = (size_t)(arena + 2 * PAGE - p);
	memcpy(p, req, len < n ? len : n);
	return p;
}

/* --- undoing what succeeded ----------------------------------------------- */

static struct { uint32_t scope; int32_t target; } tracked[MAX_TRACKED];
static int nr_tracked;

static void track(const struct thpcow_policy *p)
{
	int32_t target = p->scope == THPCOW_SCOPE_PID ? p->pid : p->cgroup_fd;
	int i;

	if (p->scope == THPCOW_SCOPE_GLOBAL)
		return;	/* the global mode is put back as a whole */
	for (i = 0; i < nr_tracked; i++)
		if (tracked[i].scope == p->scope && tracked[i].target == target)
			return;
	if (nr_tracked == MAX_TRACKED)
		die(1, "more than %d distinct policies set", MAX_TRACKED);
	tracked[nr_tracked].scope = p->scope;
	tracked[nr_tracked].target = target;
	nr_tracked++;
}

static int policy_call(unsigned int cmd, uint32_t scope, int32_t pid,
		       int32_t fd, uint32_t mode, struct thpcow_policy *out)
{
	struct thpcow_policy p = {
		.size = sizeof(p), .scope = scope, .mode = mode,
		.pid = pid, .cgroup_fd = fd,
	};
	int ret = ioctl(dev_fd, cmd, &p);

	if (out)
		*out = p;
	return ret < 0 ? errno : 0;
}

static uint32_t global_mode(void)
{
	struct thpcow_policy p;
	int err = policy_call(THPCOW_IOC_GET, THPCOW_SCOPE_GLOBAL, 0, 0, 0, &p);

	if (err)
		die(1, "GET global: %s", strerror(err));
	return p.mode;
}

/* The policy entries, sorted, without their (changing) substitution counts. */
static int list_policies(struct thpcow_entry *out, int room)
{
	struct thpcow_list l = {
		.size = sizeof(l), .entry_size = sizeof(*out),
		.count = room, .entries = (uintptr_t)out,
	};
	int i, j;

	if (ioctl(dev_fd, THPCOW_IOC_LIST, &l) < 0)
		die(1, "LIST: %s", strerror(errno));
	if ((int)l.count > room)
		die(1, "LIST: %u policies, more than %d", l.count, room);
	for (i = 0; i < (int)l.count; i++)
		out[i].substitutions = 0;
	for (i = 1; i < (int)l.count; i++)	/* insertion sort: a few entries */
		for (j = i; j > 0 && memcmp(&out[j - 1], &out[j], sizeof(*out)) > 0; j--) {
			struct thpcow_entry t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return l.count;
}

static void print_policies(const char *when, const struct thpcow_entry *e, int n)
{
	static const char *const scopes[] = THPCOW_SCOPE_NAMES;
	static const char *const modes[] = THPCOW_MODE_NAMES;
	int i;

	printf("policies_%s %d\n", when, n);
	for (i = 0; i < n; i++)
		printf("policy_%s %s %lld %s flags=%#x %s\n", when,
		       e[i].scope < THPCOW_SCOPE_NR ? scopes[e[i].scope] : "?",
		       e[i].scope == THPCOW_SCOPE_PID ? (long long)e[i].pid :
							(long long)e[i].cgroup_id,
		       e[i].mode < THPCOW_MODE_NR ? modes[e[i].mode] : "?",
		       e[i].flags, e[i].scope == THPCOW_SCOPE_PID ? e[i].comm : e[i].path);
}

/* --- the modes ------------------------------------------------------------ */

static const char *result(int ret)
{
	return ret ? strerrorname_np(ret) : "ok";
}

static int probe(const char *device)
{
	struct thpcow_version v = { .size = sizeof(v) };
	struct thpcow_stats s = { .size = sizeof(s) };
	struct thpcow_entry e[4];
	struct thpcow_list l = {
		.size = sizeof(l), .entry_size = sizeof(e[0]), .count = 4,
		.entries = (uintptr_t)e,
	};
	struct thpcow_usage_entry ue[4];
	struct thpcow_usage u = {
		.size = sizeof(u), .entry_size = sizeof(ue[0]), .count = 4,
		.entries = (uintptr_t)ue,
	};
	struct thpcow_policy g;
	int err;

	dev_fd = open(device, O_RDONLY | O_CLOEXEC);
	printf("open %s\n", result(dev_fd < 0 ? errno : 0));
	if (dev_fd < 0)
		return 0;
	printf("version %s\n", result(ioctl(dev_fd, THPCOW_IOC_VERSION, &v) ? errno : 0));
	printf("stats %s\n", result(ioctl(dev_fd, THPCOW_IOC_STATS, &s) ? errno : 0));
	printf("list %s\n", result(ioctl(dev_fd, THPCOW_IOC_LIST, &l) ? errno : 0));
	printf("usage %s\n", result(ioctl(dev_fd, THPCOW_IOC_USAGE, &u) ? errno : 0));
	err = policy_call(THPCOW_IOC_GET, THPCOW_SCOPE_GLOBAL, 0, 0, 0, &g);
	printf("get_global %s\n", result(err));
	printf("get_pid %s\n", result(policy_call(THPCOW_IOC_GET, THPCOW_SCOPE_PID,
						  getpid(), 0, 0, NULL)));
	printf("set_global %s\n", result(err ? err :
		policy_call(THPCOW_IOC_SET, THPCOW_SCOPE_GLOBAL, 0, 0, g.mode, NULL)));
	printf("clear_pid %s\n", result(policy_call(THPCOW_IOC_CLEAR, THPCOW_SCOPE_PID,
						    getpid(), 0, 0, NULL)));
	err = policy_call(THPCOW_IOC_SET, THPCOW_SCOPE_PID, 2, 0, THPCOW_MODE_ZERO, NULL);
	printf("set_kthread %s\n", result(err));
	if (!err)
		policy_call(THPCOW_IOC_CLEAR, THPCOW_SCOPE_PID, 2, 0, 0, NULL);
	return 0;
}

/* One USAGE call with @u changed by the caller from a good request. */
static const char *usage_call(struct thpcow_usage *u)
{
	return result(ioctl(dev_fd, _IOC(_IOC_READ | _IOC_WRITE, THPCOW_IOC_MAGIC,
					 _IOC_NR(THPCOW_IOC_USAGE), u->size), u) ?
		      errno : 0);
}

static int usage_checks(const char *device)
{
	static struct thpcow_usage_entry e[64];
	struct {
		struct thpcow_usage u;
		char tail[8];
	} big;
	struct thpcow_usage u;

#define GOOD() (u = (struct thpcow_usage){ .size = sizeof(u),		\
		.entry_size = sizeof(e[0]), .count = 64,		\
		.entries = (uintptr_t)e })
	dev_fd = open(device, O_RDONLY | O_CLOEXEC);
	if (dev_fd < 0) {
		printf("open %s\n", result(errno));
		return 1;
	}
	GOOD();
	printf("good %s\n", usage_call(&u));
	printf("good_count %u\n", u.count);
	printf("good_slots %u\n", u.slots);
	printf("good_slots_used %u\n", u.slots_used);
	GOOD();
	u.count = 0;
	printf("sizing %s\n", usage_call(&u));
	GOOD();
	u.entry_size -= 8;
	printf("entry_size_small %s\n", usage_call(&u));
	GOOD();
	u.entry_size += 8;
	printf("entry_size_large %s\n", usage_call(&u));
	GOOD();
	u.size -= 8;
	printf("size_small %s\n", usage_call(&u));
	GOOD();
	u.slots = 1;
	printf("slots_set %s\n", usage_call(&u));
	GOOD();
	u.slots_used = 1;
	printf("slots_used_set %s\n", usage_call(&u));
	GOOD();
	u.__reserved[2] = 1;
	printf("reserved_set %s\n", usage_call(&u));
	GOOD();
	u.entries = 0;
	printf("entries_null %s\n", usage_call(&u));
	/* a newer caller's longer structure: its tail must be zero */
	GOOD();
	memset(&big, 0, sizeof(big));
	big.u = u;
	big.u.size = sizeof(big);
	printf("tail_zero %s\n", usage_call(&big.u));
	big.tail[0] = 1;
	printf("tail_set %s\n", usage_call(&big.u));
#undef GOOD
	return 0;
}

/* SET a rule on a target of ours, to be undone like the fuzzer's own. */
static void set_known(uint32_t scope, int32_t pid, int32_t fd)
{
	struct thpcow_policy p = { .scope = scope, .pid = pid, .cgroup_fd = fd };
	int err = policy_call(THPCOW_IOC_SET, scope, pid, fd, THPCOW_MODE_ZERO, NULL);

	printf("known_set %s %s\n", scope == THPCOW_SCOPE_PID ? "pid" : "cgroup", result(err));
	if (!err)
		track(&p);
}

/* A SET that succeeded: on a target of ours (or the global mode)? */
static bool set_target_ours(const struct thpcow_policy *p)
{
	switch (p->scope) {
	case THPCOW_SCOPE_GLOBAL:
		return true;
	case THPCOW_SCOPE_PID:
		return p->pid == child;
	case THPCOW_SCOPE_CGROUP:
		return cgroup_fd >= 0 && p->cgroup_fd == cgroup_fd;
	default:
		return false;
	}
}

static bool errno_allowed(int e)
{
	unsigned int i;

	for (i = 0; i < sizeof(allowed_errnos) / sizeof(allowed_errnos[0]); i++)
		if (e == allowed_errnos[i])
			return true;
	return false;
}

static int fuzz(unsigned long long count, unsigned long long seed,
		const char *device, const char *cgroup_dir)
{
	static struct thpcow_entry before[MAX_ENTRIES], after[MAX_ENTRIES];
	static unsigned long long by_errno[MAX_ERRNO], ok[NR_CMDS + 1];
	unsigned long long n, unexpected = 0, other_ok = 0;
	int nb, na, e, i, err, failed = 0;
	uint32_t global_before;
	unsigned int cmd, nr;
	size_t len;
	bool ro;
	long ret;
	void *arg;

	dev_fd = open(device, O_RDONLY | O_CLOEXEC);
	if (dev_fd < 0)
		die(1, "%s: %s", device, strerror(errno));
	if (cgroup_dir) {
		cgroup_fd = open(cgroup_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cgroup_fd < 0)
			die(1, "%s: %s", cgroup_dir, strerror(errno));
	}
	root_cgroup_fd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	file_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	dir_fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	setup_memory();

	child = fork();
	if (child < 0)
		die(1, "fork: %s", strerror(errno));
	if (child == 0) {
		for (;;)
			pause();
	}

	rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	global_before = global_mode();
	nb = list_policies(before, MAX_ENTRIES);
	printf("seed %llu\n", seed);
	print_policies("before", before, nb);
	fflush(stdout);

	for (n = 0; n < count; n++) {
		cmd = pick_command();
		len = build_request(cmd);
		arg = place_request(len, &ro);
		ret = ioctl(dev_fd, cmd, arg);
		e = errno;
		nr = _IOC_NR(cmd);
		if (ret == 0) {
			if (_IOC_TYPE(cmd) == THPCOW_IOC_MAGIC && nr < NR_CMDS)
				ok[nr]++;
			else
				other_ok++;
			/* SET succeeded (with ABI 1's or a longer structure) */
			if (_IOC_TYPE(cmd) == THPCOW_IOC_MAGIC && nr == _IOC_NR(THPCOW_IOC_SET)) {
				struct thpcow_policy *p = (struct thpcow_policy *)req;

				if (!set_target_ours(p) && unexpected++ < 20)
					printf("wrongly_accepted SET scope=%u pid=%d cgroup_fd=%d mode=%u\n",
					       p->scope, p->pid, p->cgroup_fd, p->mode);
				if (p->scope == THPCOW_SCOPE_PID || p->scope == THPCOW_SCOPE_CGROUP)
					track(p);
			}
		} else if (ret == -1 && e > 0 && e < MAX_ERRNO && errno_allowed(e)) {
			by_errno[e]++;
		} else {
			if (unexpected++ < 20)
				printf("unexpected_call cmd=%#x arg=%p%s ret=%ld errno=%d (%s)\n",
				       cmd, arg, ro ? " (read-only)" : "", ret, e,
				       strerrorname_np(e) ?: "?");
			if (ret == -1 && e > 0 && e < MAX_ERRNO)
				by_errno[e]++;
		}
	}

	/* A known pair last, so that the undo below always has work. */
	set_known(THPCOW_SCOPE_PID, child, 0);
	if (cgroup_fd >= 0)
		set_known(THPCOW_SCOPE_CGROUP, 0, cgroup_fd);

	/* Undo: the policies set on our targets, then the global mode. */
	for (i = 0; i < nr_tracked; i++) {
		err = policy_call(THPCOW_IOC_CLEAR, tracked[i].scope,
				  tracked[i].scope == THPCOW_SCOPE_PID ? tracked[i].target : 0,
				  tracked[i].scope == THPCOW_SCOPE_CGROUP ? tracked[i].target : 0,
				  0, NULL);
		printf("undo %s %d %s\n", tracked[i].scope == THPCOW_SCOPE_PID ? "pid" : "cgroup",
		       tracked[i].target, result(err));
		if (err && err != ENOENT)
			failed = 1;
	}
	if (global_mode() != global_before) {
		err = policy_call(THPCOW_IOC_SET, THPCOW_SCOPE_GLOBAL, 0, 0, global_before, NULL);
		printf("undo global %s\n", result(err));
	}
	na = list_policies(after, MAX_ENTRIES);	/* the child still lives */
	print_policies("after", after, na);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	printf("calls %llu\n", count);
	for (i = 0; i < NR_CMDS; i++)
		printf("ok_%s %llu\n", cmd_names[i], ok[i]);
	printf("ok_other %llu\n", other_ok);
	for (e = 1; e < MAX_ERRNO; e++)
		if (by_errno[e])
			printf("%s %llu\n", strerrorname_np(e) ?: "errno?", by_errno[e]);
	printf("unexpected %llu\n", unexpected);
	if (na == nb && !memcmp(before, after, nb * sizeof(before[0])) &&
	    global_mode() == global_before) {
		printf("policies unchanged\n");
	} else {
		printf("policies CHANGED\n");
		failed = 1;
	}
	return unexpected || other_ok || failed;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: ioctl_fuzz [--count N] [--seed S] [--cgroup DIR] [--device PATH]\n"
		   "       ioctl_fuzz --probe [--device PATH]\n"
		   "       ioctl_fuzz --usage-checks [--device PATH]\n");
}

int main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "probe", no_argument, NULL, 'p' },
		{ "usage-checks", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	unsigned long long count = 100000, seed = 1;
	const char *device = THPCOW_DEVICE_PATH, *cgroup_dir = NULL;
	bool do_probe = false, do_usage = false;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			count = number_arg("--count", optarg, 0, 1ULL << 40);
			break;
		case 's':
			seed = number_arg("--seed", optarg, 0, ~0ULL);
			break;
		case 'c':
			cgroup_dir = optarg;
			break;
		case 'd':
			device = optarg;
			break;
		case 'p':
			do_probe = true;
			break;
		case 'u':
			do_usage = true;
			break;
		default:
			usage_exit(usage, opt == 'h');
		}
	}
	no_operands(argc, argv, optind);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (do_usage)
		return usage_checks(device);
	return do_probe ? probe(device) : fuzz(count, seed, device, cgroup_dir);
}
