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
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
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

static int thpcow_ioc_list(struct thpcow_list *l)
{
	if (l->__reserved0 || !thpcow_reserved_zero(l) ||
	    l->entry_size != sizeof(struct thpcow_entry))
		return -EINVAL;
	return thpcow_policy_list(u64_to_user_ptr(l->entries), l->count,
				  &l->count);
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
		ret = thpcow_reserved_zero(&k.policy) ?
		      thpcow_policy_set(&k.policy) : -EINVAL;
		return ret;
	case _IOC_NR(THPCOW_IOC_CLEAR):
		ret = thpcow_reserved_zero(&k.policy) ?
		      thpcow_policy_clear(&k.policy) : -EINVAL;
		return ret;
	case _IOC_NR(THPCOW_IOC_GET):
		ret = thpcow_reserved_zero(&k.policy) ?
		      thpcow_policy_get(&k.policy) : -EINVAL;
		break;
	case _IOC_NR(THPCOW_IOC_LIST):
		ret = thpcow_ioc_list(&k.list);
		break;
	case _IOC_NR(THPCOW_IOC_STATS):
		ret = thpcow_ioc_stats(&k.stats);
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
