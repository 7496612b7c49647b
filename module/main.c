// SPDX-License-Identifier: GPL-2.0
/*
 * thpcow: load and unload, the global default, the counters.
 *
 * Since Linux 4.8 a write fault on a PMD that maps the huge zero page
 * splits it and allocates one 4 KiB page; 6.13 gives it a whole THP again,
 * for everyone. thpcow brings the 6.13 behaviour to older kernels, for the
 * processes and cgroups that ask for it, by hooking do_huge_pmd_wp_page().
 */
#include "thpcow.h"

#include <linux/capability.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

DEFINE_PER_CPU(struct thpcow_counters, thpcow_counters);
struct srcu_struct thpcow_srcu;
bool thpcow_native_zero;

const char * const thpcow_stat_names[] = THPCOW_STAT_NAMES;
static_assert(ARRAY_SIZE(thpcow_stat_names) == THPCOW_STAT_NR);
const char * const thpcow_mode_names[] = THPCOW_MODE_NAMES;
static_assert(ARRAY_SIZE(thpcow_mode_names) == THPCOW_MODE_NR);

void thpcow_counters_sum(u64 *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(u64) * THPCOW_STAT_NR);
	for_each_possible_cpu(cpu)
		for (i = 0; i < THPCOW_STAT_NR; i++)
			sum[i] += per_cpu(thpcow_counters.c[i], cpu);
}

/* A mode this module version implements, or why not. */
int thpcow_mode_check(u32 mode)
{
	return mode < THPCOW_MODE_NR ? 0 : -EINVAL;
}

/* Parses a mode name, as written to a parameter (one trailing newline ok). */
int thpcow_mode_parse(const char *buf, enum thpcow_mode *mode)
{
	int i = sysfs_match_string(thpcow_mode_names, buf);

	if (i < 0)
		return -EINVAL;
	*mode = i;
	return 0;
}

/*
 * Set, under the parameters' lock, when thpcow_init() begins: the value
 * given on the load's command line has been taken by then.
 */
static bool thpcow_init_begun;

/*
 * The global mode changes only with CAP_SYS_ADMIN in the initial user
 * namespace, as through /dev/thpcow: a container's root that maps to the
 * host's uid 0 and sees /sys writable gets EPERM, also while the module
 * is still loading or already unloading (the sysfs file exists during all
 * of init and exit). Before init begins the value comes from the load's
 * command line, whose writer has CAP_SYS_MODULE; so must a write to the
 * sysfs file made in that moment.
 */
static int thpcow_param_set_mode(const char *val, const struct kernel_param *kp)
{
	enum thpcow_mode mode;
	int ret;

	if (!capable(thpcow_init_begun ? CAP_SYS_ADMIN : CAP_SYS_MODULE))
		return -EPERM;
	ret = thpcow_mode_parse(val, &mode);
	return ret ? ret : thpcow_policy_set_global(mode);
}

static int thpcow_param_get_mode(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", thpcow_mode_names[thpcow_policy_global()]);
}

static const struct kernel_param_ops thpcow_mode_param_ops = {
	.set = thpcow_param_set_mode,
	.get = thpcow_param_get_mode,
};
module_param_cb(default_mode, &thpcow_mode_param_ops, NULL, 0644);
MODULE_PARM_DESC(default_mode,
		 "Global mode for memory without a pid or cgroup policy: kernel (default), zero, copy or split; changing it needs CAP_SYS_ADMIN");

bool thpcow_assume_ibt;
module_param_named(assume_ibt, thpcow_assume_ibt, bool, 0444);
MODULE_PARM_DESC(assume_ibt,
		 "Act as on a CPU that enforces indirect branch tracking: refuse to load if any call would need an ENDBR64 that is not there");

static void thpcow_report_counters(void)
{
	u64 sum[THPCOW_STAT_NR];

	thpcow_counters_sum(sum);
	pr_info("unloaded: %llu hook calls, %llu THPs substituted, %llu passed through\n",
		sum[THPCOW_STAT_HOOK_CALLS], sum[THPCOW_STAT_SUBSTITUTED],
		sum[THPCOW_STAT_PASSTHROUGH]);
}

static int __init thpcow_init(void)
{
	int ret;

	kernel_param_lock(THIS_MODULE);
	thpcow_init_begun = true;
	kernel_param_unlock(THIS_MODULE);

	if (!has_transparent_hugepage()) {
		pr_err("this machine has no transparent huge pages\n");
		return -ENODEV;
	}
	ret = thpcow_resolve_symbols();
	if (ret)
		return ret;
	thpcow_native_zero = thpcow_probe_native_zero();

	ret = init_srcu_struct(&thpcow_srcu);
	if (ret)
		return ret;
	ret = thpcow_usage_init();
	if (ret)
		goto out_srcu;
	ret = thpcow_policy_init();
	if (ret)
		goto out_usage;
	/* Armed for a moment, to fail here if it cannot be; then idle. */
	ret = thpcow_hook_install();
	if (ret)
		goto out_policy;
	/*
	 * The ways in come last, and nothing can fail after the first of them
	 * succeeded: a file opened before a failed init returns would outlive
	 * the module (its reference does not stop the module from going).
	 */
	ret = thpcow_ctl_init();
	if (ret)
		goto out_hook;
	thpcow_debugfs_init();

	pr_info("%s loaded, default mode %s%s\n", THPCOW_VERSION,
		thpcow_mode_names[thpcow_policy_global()],
		thpcow_native_zero ?
		"; this kernel substitutes the huge zero page itself, zero passes through" :
		"");
	return 0;

out_hook:
	thpcow_hook_remove();
out_policy:
	thpcow_policy_exit();
	thpcow_hook_flush();
out_usage:
	thpcow_usage_exit();
out_srcu:
	cleanup_srcu_struct(&thpcow_srcu);
	return ret;
}

static void __exit thpcow_exit(void)
{
	thpcow_ctl_exit();
	thpcow_debugfs_exit();
	thpcow_hook_remove();
	thpcow_policy_exit();
	thpcow_hook_flush();
	thpcow_usage_exit();
	cleanup_srcu_struct(&thpcow_srcu);
	thpcow_report_counters();
}

module_init(thpcow_init);
module_exit(thpcow_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The thpcow authors");
MODULE_DESCRIPTION("Whole THPs for write faults on the huge zero page, per process and cgroup");
MODULE_VERSION(THPCOW_VERSION);
