// SPDX-License-Identifier: GPL-2.0
/*
 * thpcow: load and unload, and nothing else: each layer's state lives
 * with it (the counters in stats.c, the modes, the global default and
 * SRCU in policy.c, native_zero in probe.c, assume_ibt in compat/ibt.c).
 *
 * Since Linux 5.8 a write fault on a PMD that maps the huge zero page
 * splits it and allocates one 4 KiB page; 6.13 gives it a whole THP again,
 * for everyone. thpcow brings the 6.13 behaviour to older kernels, for the
 * processes and cgroups that ask for it, by hooking do_huge_pmd_wp_page().
 */
#include "thpcow.h"

#include <linux/module.h>

static int __init thpcow_init(void)
{
	int ret;

	thpcow_policy_init_begin();
#ifdef THPCOW_BROKEN
	pr_warn("built broken on purpose (THPCOW_BREAK=%s), for tests only\n",
		THPCOW_BROKEN);
#endif
	if (!has_transparent_hugepage()) {
		pr_err("this machine has no transparent huge pages\n");
		return -ENODEV;
	}
	ret = thpcow_resolve_symbols();
	if (ret)
		return ret;
	thpcow_probe_init();

	ret = thpcow_srcu_init();
	if (ret)
		return ret;
	ret = thpcow_usage_init();
	if (ret)
		goto out_srcu;
	ret = thpcow_policy_init();
	if (ret)
		goto out_usage;
	ret = thpcow_pool_init();
	if (ret)
		goto out_policy;
	/* Armed for a moment, to fail here if it cannot be; then idle. */
	ret = thpcow_hook_install();
	if (ret)
		goto out_pool;
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
out_pool:
	thpcow_pool_exit();
out_policy:
	thpcow_policy_exit();
	thpcow_arm_flush();
out_usage:
	thpcow_usage_exit();
out_srcu:
	thpcow_srcu_exit();
	return ret;
}

static void __exit thpcow_exit(void)
{
	thpcow_ctl_exit();
	thpcow_debugfs_exit();
	thpcow_hook_remove();
	thpcow_pool_exit();
	thpcow_policy_exit();
	thpcow_arm_flush();
	thpcow_usage_exit();
	thpcow_srcu_exit();
	thpcow_stats_report();
}

module_init(thpcow_init);
#ifdef THPCOW_BROKEN
MODULE_INFO(thpcow_broken, THPCOW_BROKEN);
#endif
module_exit(thpcow_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The thpcow authors");
MODULE_DESCRIPTION("Whole THPs for write faults on the huge zero page, per process and cgroup");
MODULE_VERSION(THPCOW_VERSION);
