/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * thpcow: the control ABI shared by the kernel module and thpcowctl.
 *
 * Every ioctl argument starts with a __u32 'size' that the caller sets to
 * sizeof() of the structure it was built with, which must also be the size
 * encoded in the command. The module refuses a structure smaller than ABI
 * 1's and accepts a larger (newer) one only when the part it does not know
 * is zero, the rules of copy_struct_from_user(). Reserved fields, output
 * fields and unknown flag bits must be zero on input; anything else is
 * refused with EINVAL and changes nothing.
 */
#ifndef _UAPI_THPCOW_H
#define _UAPI_THPCOW_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * The one place the version lives (semantic versioning: MINOR for a change
 * an operator sees, PATCH for a fix): the module (MODULE_VERSION), thpcowctl,
 * the top Makefile (dkms.conf's PACKAGE_VERSION in thpcow-dkms, the .deb
 * names) read it; debian/changelog must have an entry for it
 * (tests/host/install.t checks all of them).
 */
#define THPCOW_VERSION_MAJOR	0
#define THPCOW_VERSION_MINOR	2
#define THPCOW_VERSION_PATCH	0
#define THPCOW_VERSION		"0.2.0"

/* Bumped on any incompatible change of the structures or commands below. */
#define THPCOW_ABI_VERSION	1

#define THPCOW_DEVICE_NAME	"thpcow"
#define THPCOW_DEVICE_PATH	"/dev/thpcow"

/*
 * What a write fault on a huge PMD does for memory under a policy.
 * KERNEL: whatever this kernel does by itself (the default).
 * ZERO:   a write fault on the huge zero page gets a whole zeroed THP.
 * COPY:   ZERO, and a CoW fault on a shared anon THP copies it whole.
 * SPLIT:  always split and copy 4 KiB, even where the kernel would not.
 */
enum thpcow_mode {
	THPCOW_MODE_KERNEL	= 0,
	THPCOW_MODE_ZERO	= 1,
	THPCOW_MODE_COPY	= 2,
	THPCOW_MODE_SPLIT	= 3,
	THPCOW_MODE_NR
};

#define THPCOW_MODE_NAMES { "kernel", "zero", "copy", "split" }

/* Most specific wins: pid, then the nearest cgroup, then global. */
enum thpcow_scope {
	THPCOW_SCOPE_GLOBAL	= 0,
	THPCOW_SCOPE_CGROUP	= 1,
	THPCOW_SCOPE_PID	= 2,
	THPCOW_SCOPE_NR
};

#define THPCOW_SCOPE_NAMES { "global", "cgroup", "pid" }

/* thpcow_policy.flags */
/* pid scope, in/out: processes the target forks later inherit the policy */
#define THPCOW_POLICY_CHILDREN	(1U << 0)
/* out: an entry exists at exactly this scope and target */
#define THPCOW_POLICY_PRESENT	(1U << 1)
/* bits a caller may set */
#define THPCOW_POLICY_SET_MASK	THPCOW_POLICY_CHILDREN

struct thpcow_policy {
	__u32 size;		/* in: sizeof(struct thpcow_policy) */
	__u32 scope;		/* in: enum thpcow_scope */
	__u32 mode;		/* in (SET), out (GET): enum thpcow_mode */
	__u32 flags;		/* THPCOW_POLICY_* */
	__s32 pid;		/* in, pid scope: the process (thread group) */
	__s32 cgroup_fd;	/* in, cgroup scope: an open cgroup v2 directory */
	__u64 cgroup_id;	/* out, cgroup scope: the cgroup's id (inode) */
	__u64 substitutions;	/* out (GET): THPs this entry has handed out */
	__u32 effective_mode;	/* out (GET, pid scope): what applies now */
	__u32 effective_scope;	/* out (GET, pid scope): where it comes from */
	/*
	 * out (GET, pid scope, effective_scope cgroup): the id of the cgroup
	 * whose rule applies. Was __reserved[0..1], which callers built
	 * before it set to zero, as it must be on input.
	 */
	__u64 effective_cgroup_id;
	__u32 __reserved[4];	/* must be zero */
};

/* thpcow_entry.flags, besides THPCOW_POLICY_CHILDREN */
#define THPCOW_ENTRY_PATH_TRUNCATED	(1U << 8)

#define THPCOW_PATH_LEN		256
#define THPCOW_COMM_LEN		16

struct thpcow_entry {
	__u32 scope;
	__u32 mode;
	__u32 flags;
	__s32 pid;			/* pid scope */
	__u64 cgroup_id;		/* cgroup scope */
	__u64 substitutions;
	char comm[THPCOW_COMM_LEN];	/* pid scope: the process's name */
	char path[THPCOW_PATH_LEN];	/* cgroup scope: path below cgroup2's root */
};

struct thpcow_list {
	__u32 size;		/* in: sizeof(struct thpcow_list) */
	__u32 entry_size;	/* in: sizeof(struct thpcow_entry) */
	__u32 count;		/* in: room in entries; out: entries that exist */
	__u32 __reserved0;	/* must be zero */
	__u64 entries;		/* in: user pointer to struct thpcow_entry[count] */
	__u32 __reserved[4];	/* must be zero */
};

/*
 * The counters, indexed by enum thpcow_stat: the THPCOW_STAT() entries of
 * thpcow-stats.h, which names them and says what each counts.
 */
enum thpcow_stat {
#define THPCOW_STAT(NAME, name) THPCOW_STAT_##NAME,
#include "thpcow-stats.h"
	THPCOW_STAT_NR
};

#define THPCOW_STATS_MAX	64

struct thpcow_stats {
	__u32 size;		/* in: sizeof(struct thpcow_stats) */
	__u32 count;		/* out: counters the module filled in */
	__u32 policies;		/* out: live policy entries (pid + cgroup) */
	__u32 __reserved0;	/* must be zero */
	__u64 counters[THPCOW_STATS_MAX];	/* out, indexed by thpcow_stat */
};

/* thpcow_version.features */
/* the running kernel already gives the huge zero page a THP on write */
#define THPCOW_FEATURE_NATIVE_ZERO	(1U << 0)
/* every call into a kernel function thpcow resolved is direct (checked at load) */
#define THPCOW_FEATURE_DIRECT_CALLS	(1U << 1)
/* the CPU enforces indirect branch tracking, or assume_ibt=1 acts as if */
#define THPCOW_FEATURE_IBT		(1U << 2)

struct thpcow_version {
	__u32 size;		/* in: sizeof(struct thpcow_version) */
	__u32 abi;		/* out: THPCOW_ABI_VERSION */
	__u32 major;		/* out: THPCOW_VERSION_* of the module */
	__u32 minor;
	__u32 patch;
	__u32 features;		/* out: THPCOW_FEATURE_* */
	__u32 __reserved[4];	/* must be zero */
};

/*
 * THPCOW_IOC_USAGE: what the module did where the memory is. One entry per
 * cgroup (the leaf cgroup of the faulting mm's owner, whatever rule
 * matched), per process with a pid rule, and one of scope GLOBAL for what
 * no cgroup row could take (the module's table full, or an mm without an
 * owner). Counters are indexed by enum thpcow_usage_stat: the
 * THPCOW_USAGE() entries of thpcow-stats.h, each a counter of enum
 * thpcow_stat, whose name it has.
 */
enum thpcow_usage_stat {
#define THPCOW_USAGE(NAME) THPCOW_USAGE_##NAME,
#include "thpcow-stats.h"
	THPCOW_USAGE_NR
};

#define THPCOW_USAGE_MAX	16

struct thpcow_usage_entry {
	__u32 scope;			/* enum thpcow_scope, see above */
	__u32 flags;			/* THPCOW_ENTRY_PATH_TRUNCATED */
	__s32 pid;			/* pid scope */
	__u32 count;			/* counters the module filled in */
	__u64 cgroup_id;		/* cgroup scope */
	__u64 thp_bytes;		/* given as whole THPs: substituted + copied */
	__u64 counters[THPCOW_USAGE_MAX];	/* indexed by thpcow_usage_stat */
	char comm[THPCOW_COMM_LEN];	/* pid scope: the process's name */
	char path[THPCOW_PATH_LEN];	/* cgroup scope: path below cgroup2's root */
};

struct thpcow_usage {
	__u32 size;		/* in: sizeof(struct thpcow_usage) */
	__u32 entry_size;	/* in: sizeof(struct thpcow_usage_entry) */
	__u32 count;		/* in: room in entries; out: entries that exist */
	__u32 slots;		/* out: rows the cgroup table holds at most */
	__u64 entries;		/* in: user pointer to struct thpcow_usage_entry[count] */
	__u32 slots_used;	/* out: of those, taken now */
	__u32 __reserved[3];	/* must be zero */
};

#define THPCOW_IOC_MAGIC	0xB8

#define THPCOW_IOC_VERSION	_IOWR(THPCOW_IOC_MAGIC, 0x00, struct thpcow_version)
#define THPCOW_IOC_SET		_IOW(THPCOW_IOC_MAGIC, 0x01, struct thpcow_policy)
#define THPCOW_IOC_GET		_IOWR(THPCOW_IOC_MAGIC, 0x02, struct thpcow_policy)
#define THPCOW_IOC_CLEAR	_IOW(THPCOW_IOC_MAGIC, 0x03, struct thpcow_policy)
#define THPCOW_IOC_LIST		_IOWR(THPCOW_IOC_MAGIC, 0x04, struct thpcow_list)
#define THPCOW_IOC_STATS	_IOWR(THPCOW_IOC_MAGIC, 0x05, struct thpcow_stats)
#define THPCOW_IOC_USAGE	_IOWR(THPCOW_IOC_MAGIC, 0x06, struct thpcow_usage)

#endif /* _UAPI_THPCOW_H */
