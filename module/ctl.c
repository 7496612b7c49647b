// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/thpcow: the versioned ioctl ABI of include/uapi/thpcow.h.
 *
 * Each argument starts with its own size, which must agree with the size
 * encoded in the command and be at least ABI 1's; copy_struct_from_user()
 * accepts a newer, longer structure only when its extra tail is zero.
 * Reserved and output fields must be zero. Reading needs only an open
 * descriptor (the node is 0600); changing a policy needs CAP_SYS_ADMIN in
 * the initial user namespace, so a container's root cannot change what the
 * host decided.
 */
#include "thpcow.h"

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

/* Size agreement, bounds and copy-in of an ioctl argument into @karg. */
static int thpcow_copy_arg(void *karg, size_t ksize, unsigned int cmd,
			   void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize != _IOC_SIZE(cmd) || usize < ksize || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(karg, ksize, uarg, usize);
	return ret == -E2BIG ? -EINVAL : ret;
}

/* Each command: its direction, its structure's size, whether it changes. */
static const struct thpcow_ioc_desc {
	unsigned int dir;
	size_t size;
	bool changes;
} thpcow_iocs[] = {
#define THPCOW_IOC(cmd, type, chg)					\
	[_IOC_NR(cmd)] = { .dir = _IOC_DIR(cmd), .size = sizeof(type),	\
			   .changes = chg }
	THPCOW_IOC(THPCOW_IOC_VERSION, struct thpcow_version, false),
	THPCOW_IOC(THPCOW_IOC_SET, struct thpcow_policy, true),
	THPCOW_IOC(THPCOW_IOC_GET, struct thpcow_policy, false),
	THPCOW_IOC(THPCOW_IOC_CLEAR, struct thpcow_policy, true),
	THPCOW_IOC(THPCOW_IOC_LIST, struct thpcow_list, false),
	THPCOW_IOC(THPCOW_IOC_STATS, struct thpcow_stats, false),
	THPCOW_IOC(THPCOW_IOC_USAGE, struct thpcow_usage, false),
#undef THPCOW_IOC
};

#define thpcow_reserved_zero(s) !memchr_inv((s)->__reserved, 0, sizeof((s)->__reserved))

static int thpcow_ioc_version(struct thpcow_version *v)
{
	if (v->abi || v->major || v->minor || v->patch || v->features ||
	    !thpcow_reserved_zero(v))
		return -EINVAL;
	v->abi = THPCOW_ABI_VERSION;
	v->major = THPCOW_VERSION_MAJOR;
	v->minor = THPCOW_VERSION_MINOR;
	v->patch = THPCOW_VERSION_PATCH;
	v->features = 0;
	if (thpcow_native_zero)
		v->features |= THPCOW_FEATURE_NATIVE_ZERO;
	if (thpcow_static_calls_direct())
		v->features |= THPCOW_FEATURE_DIRECT_CALLS;
	if (thpcow_ibt_enforced())
		v->features |= THPCOW_FEATURE_IBT;
	return 0;
}

/*
 * The process @nr (any of its threads) in the caller's pid namespace,
 * referenced. User processes only: a kernel thread has no memory of its own.
 */
static struct task_struct *thpcow_get_process(pid_t nr)
{
	struct task_struct *task;

	if (nr <= 0)
		return ERR_PTR(-EINVAL);
	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (!task)
		task = ERR_PTR(-ESRCH);
	else if (task->group_leader->flags & PF_KTHREAD)
		task = ERR_PTR(-EINVAL);
	else
		task = get_task_struct(task->group_leader);
	rcu_read_unlock();
	return task;
}

/*
 * The cgroup v2 directory open as @fd, referenced: -EBADF for a bad fd,
 * -ENOTDIR for anything that is not a cgroup v2 directory.
 */
static struct cgroup *thpcow_get_cgroup(int fd)
{
	struct file *file = fget(fd);
	struct cgroup *cgrp;
	struct inode *inode;
	bool ok;

	if (!file)
		return ERR_PTR(-EBADF);
	inode = file_inode(file);
	ok = S_ISDIR(inode->i_mode) &&
	     inode->i_sb->s_magic == CGROUP2_SUPER_MAGIC;
	fput(file);
	if (!ok)
		return ERR_PTR(-ENOTDIR);
	cgrp = cgroup_get_from_fd(fd);
	if (IS_ERR(cgrp) && PTR_ERR(cgrp) == -EBADF)
		return ERR_PTR(-ENOTDIR);
	return cgrp;
}

/* What a pid or cgroup request names, referenced; put with thpcow_put_target(). */
static void *thpcow_get_target(const struct thpcow_policy *req)
{
	if (req->scope == THPCOW_SCOPE_CGROUP)
		return thpcow_get_cgroup(req->cgroup_fd);
	return thpcow_get_process(req->pid);
}

static void thpcow_put_target(const struct thpcow_policy *req, void *target)
{
	if (req->scope == THPCOW_SCOPE_CGROUP)
		cgroup_put(target);
	else
		put_task_struct(target);
}

/* Checks the request's fields for its scope; mode only where @with_mode. */
static int thpcow_policy_check(const struct thpcow_policy *req, bool with_mode)
{
	u32 allowed = req->scope == THPCOW_SCOPE_PID ? THPCOW_POLICY_SET_MASK : 0;

	if (!thpcow_reserved_zero(req))
		return -EINVAL;
	if (req->scope >= THPCOW_SCOPE_NR)
		return -EINVAL;
	if (req->flags & ~allowed)
		return -EINVAL;
	if (req->scope != THPCOW_SCOPE_PID && req->pid)
		return -EINVAL;
	if (req->scope != THPCOW_SCOPE_CGROUP && req->cgroup_fd)
		return -EINVAL;
	if (req->cgroup_id || req->substitutions || req->effective_mode ||
	    req->effective_scope || req->effective_cgroup_id)
		return -EINVAL;
	if (!with_mode && req->mode)
		return -EINVAL;
	return with_mode ? thpcow_mode_check(req->mode) : 0;
}

/* THPCOW_IOC_SET (@set) or THPCOW_IOC_CLEAR. */
static int thpcow_ioc_change(const struct thpcow_policy *req, bool set)
{
	void *target;
	int ret = thpcow_policy_check(req, set);

	if (ret)
		return ret;
	if (req->scope == THPCOW_SCOPE_GLOBAL)
		return thpcow_policy_set_global(set ? req->mode :
						      THPCOW_MODE_KERNEL);
	target = thpcow_get_target(req);
	if (IS_ERR(target))
		return PTR_ERR(target);
	if (req->scope == THPCOW_SCOPE_CGROUP)
		ret = set ? thpcow_policy_set_cgroup(target, req->mode, req->flags) :
			    thpcow_policy_clear_cgroup(target);
	else
		ret = set ? thpcow_policy_set_task(target, req->mode, req->flags) :
			    thpcow_policy_clear_task(target);
	thpcow_put_target(req, target);
	return ret;
}

static int thpcow_ioc_get(struct thpcow_policy *req)
{
	struct thpcow_rule_info info;
	enum thpcow_scope eff;
	void *target;
	int ret = thpcow_policy_check(req, false);

	if (ret)
		return ret;
	if (req->scope == THPCOW_SCOPE_GLOBAL) {
		thpcow_policy_get_global(&info);
	} else {
		target = thpcow_get_target(req);
		if (IS_ERR(target))
			return PTR_ERR(target);
		if (req->scope == THPCOW_SCOPE_CGROUP) {
			req->cgroup_id = cgroup_id(target);
			ret = thpcow_policy_get_cgroup(target, &info);
		} else {
			req->effective_mode =
				thpcow_policy_effective(target, &eff,
							&req->effective_cgroup_id);
			req->effective_scope = eff;
			ret = thpcow_policy_get_task(target, &info);
		}
		thpcow_put_target(req, target);
		if (ret)	/* no rule: no PRESENT, zero mode and count */
			return ret == -ENOENT ? 0 : ret;
	}
	req->mode = info.mode;
	req->flags = info.flags | THPCOW_POLICY_PRESENT;
	req->substitutions = info.substitutions;
	return 0;
}

/*
 * The rows of LIST or USAGE: described into a kernel buffer during the
 * walk and copied out after it, as a user buffer may fault for as long as
 * its owner likes (userfaultfd), and that must not hold up freeing rules,
 * reclaiming usage slots or the hook.
 */
struct thpcow_rows {
	void *buf;
	size_t esize;
	u32 room, n;
};

/* The next row to fill in, zeroed; NULL past the room, but counted. */
static void *thpcow_rows_next(struct thpcow_rows *r)
{
	void *e;

	if (r->n++ >= r->room)
		return NULL;
	e = r->buf + (size_t)(r->n - 1) * r->esize;
	memset(e, 0, r->esize);
	return e;
}

/* A process for userspace: its number here, and its comm. */
static void thpcow_describe_pid(struct pid *pid, __s32 *nr, char *comm)
{
	struct task_struct *task;

	*nr = pid_vnr(pid);
	rcu_read_lock();
	task = pid_task(pid, PIDTYPE_TGID);
	if (task)
		strscpy_pad(comm, task->comm, THPCOW_COMM_LEN);
	rcu_read_unlock();
}

/* A cgroup for userspace: its id and path; THPCOW_ENTRY_PATH_TRUNCATED. */
static u32 thpcow_describe_cgroup(struct cgroup *cgrp, __u64 *id, char *path)
{
	int len;

	*id = cgroup_id(cgrp);
	len = cgroup_path_ns(cgrp, path, THPCOW_PATH_LEN,
			     current->nsproxy->cgroup_ns);
	return len >= THPCOW_PATH_LEN ? THPCOW_ENTRY_PATH_TRUNCATED : 0;
}

/*
 * Run @walk to fill in up to *@count rows of @esize (at most @max exist)
 * and copy them to @uptr; *@count becomes how many there are.
 */
static int thpcow_rows_out(u32 *count, u32 max, size_t esize, u64 uptr,
			   void (*walk)(struct thpcow_rows *r))
{
	struct thpcow_rows rows = { .esize = esize };
	int ret = 0;

	rows.room = min(*count, max);
	if (rows.room) {
		rows.buf = kvmalloc_array(rows.room, esize, GFP_KERNEL_ACCOUNT);
		if (!rows.buf)
			return -ENOMEM;
	}
	walk(&rows);
	if (copy_to_user(u64_to_user_ptr(uptr), rows.buf,
			 array_size(min(rows.n, rows.room), esize)))
		ret = -EFAULT;
	kvfree(rows.buf);
	*count = rows.n;
	return ret;
}

/* Describe a rule for userspace; may sleep. */
static int thpcow_list_entry(const struct thpcow_rule_info *info, void *arg)
{
	struct thpcow_entry *e = thpcow_rows_next(arg);

	if (!e)
		return 0;
	e->scope = info->scope;
	e->mode = info->mode;
	e->flags = info->flags;
	e->substitutions = info->substitutions;
	if (info->scope == THPCOW_SCOPE_PID)
		thpcow_describe_pid(info->pid, &e->pid, e->comm);
	else
		e->flags |= thpcow_describe_cgroup(info->cgrp, &e->cgroup_id,
						   e->path);
	return 0;
}

static void thpcow_list_walk(struct thpcow_rows *r)
{
	thpcow_policy_walk(thpcow_list_entry, r);
}

/* Copy up to l->count rules to l->entries; l->count: how many there are. */
static int thpcow_ioc_list(struct thpcow_list *l)
{
	if (l->__reserved0 || !thpcow_reserved_zero(l) ||
	    l->entry_size != sizeof(struct thpcow_entry))
		return -EINVAL;
	return thpcow_rows_out(&l->count, thpcow_policy_count(),
			       sizeof(struct thpcow_entry), l->entries,
			       thpcow_list_walk);
}

/* Describe a usage row for userspace; may sleep. */
static int thpcow_usage_entry(const struct thpcow_usage_info *info, void *arg)
{
	struct thpcow_usage_entry *e = thpcow_rows_next(arg);

	if (!e)
		return 0;
	e->scope = info->scope;
	BUILD_BUG_ON(THPCOW_USAGE_NR > THPCOW_USAGE_MAX);
	e->count = THPCOW_USAGE_NR;
	memcpy(e->counters, info->counters, sizeof(info->counters));
	e->thp_bytes = thpcow_usage_bytes(info->counters);
	if (info->scope == THPCOW_SCOPE_PID)
		thpcow_describe_pid(info->pid, &e->pid, e->comm);
	else if (info->scope == THPCOW_SCOPE_CGROUP)
		e->flags = thpcow_describe_cgroup(info->cgrp, &e->cgroup_id,
						  e->path);
	return 0;
}

static void thpcow_usage_rows_walk(struct thpcow_rows *r)
{
	thpcow_usage_walk(thpcow_usage_entry, r);
}

/* As thpcow_ioc_list(), for the usage rows; and the table's size. */
static int thpcow_ioc_usage(struct thpcow_usage *u)
{
	int ret;

	if (u->slots || u->slots_used || !thpcow_reserved_zero(u) ||
	    u->entry_size != sizeof(struct thpcow_usage_entry))
		return -EINVAL;
	ret = thpcow_rows_out(&u->count, thpcow_usage_rows_max(),
			      sizeof(struct thpcow_usage_entry), u->entries,
			      thpcow_usage_rows_walk);
	u->slots = thpcow_usage_slots();
	u->slots_used = thpcow_usage_slots_used();
	return ret;
}

static int thpcow_ioc_stats(struct thpcow_stats *s)
{
	if (s->count || s->policies || s->__reserved0 ||
	    memchr_inv(s->counters, 0, sizeof(s->counters)))
		return -EINVAL;
	BUILD_BUG_ON(THPCOW_STAT_NR > THPCOW_STATS_MAX);
	thpcow_counters_sum(s->counters);
	s->count = THPCOW_STAT_NR;
	s->policies = thpcow_policy_count();
	return 0;
}

static long thpcow_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	union {
		struct thpcow_version version;
		struct thpcow_policy policy;
		struct thpcow_list list;
		struct thpcow_stats stats;
		struct thpcow_usage usage;
	} k;
	const struct thpcow_ioc_desc *desc;
	unsigned int nr = _IOC_NR(cmd);
	long ret;

	if (_IOC_TYPE(cmd) != THPCOW_IOC_MAGIC || nr >= ARRAY_SIZE(thpcow_iocs))
		return -ENOTTY;
	desc = &thpcow_iocs[nr];
	if (!desc->size || _IOC_DIR(cmd) != desc->dir)
		return -ENOTTY;
	if (desc->changes && !capable(CAP_SYS_ADMIN))
		return -EPERM;

	ret = thpcow_copy_arg(&k, desc->size, cmd, uarg);
	if (ret)
		return ret;

	switch (nr) {
	case _IOC_NR(THPCOW_IOC_VERSION):
		ret = thpcow_ioc_version(&k.version);
		break;
	case _IOC_NR(THPCOW_IOC_SET):
		return thpcow_ioc_change(&k.policy, true);
	case _IOC_NR(THPCOW_IOC_CLEAR):
		return thpcow_ioc_change(&k.policy, false);
	case _IOC_NR(THPCOW_IOC_GET):
		ret = thpcow_ioc_get(&k.policy);
		break;
	case _IOC_NR(THPCOW_IOC_LIST):
		ret = thpcow_ioc_list(&k.list);
		break;
	case _IOC_NR(THPCOW_IOC_STATS):
		ret = thpcow_ioc_stats(&k.stats);
		break;
	case _IOC_NR(THPCOW_IOC_USAGE):
		ret = thpcow_ioc_usage(&k.usage);
		break;
	}
	if (ret)
		return ret;
	/* Only what the caller's structure has room for goes back. */
	return copy_to_user(uarg, &k, desc->size) ? -EFAULT : 0;
}

static const struct file_operations thpcow_ctl_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = thpcow_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice thpcow_ctl_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = THPCOW_DEVICE_NAME,
	.fops = &thpcow_ctl_fops,
	.mode = 0600,
};

int thpcow_ctl_init(void)
{
	int ret = misc_register(&thpcow_ctl_dev);

	if (ret)
		pr_err("cannot register %s (%d)\n", THPCOW_DEVICE_PATH, ret);
	return ret;
}

void thpcow_ctl_exit(void)
{
	misc_deregister(&thpcow_ctl_dev);
}
