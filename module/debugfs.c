// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/thpcow/: what the module did and what it will do.
 *
 *   stats     "name value" lines: the counters of include/uapi/thpcow.h,
 *             summed over CPUs, then the module's state: rules, global
 *             mode, whether the kernel substitutes by itself, whether the
 *             hook is armed (only while a policy is active), whether IBT
 *             is enforced (or assumed), and the kernel functions thpcow
 *             calls directly, their call sites checked at load and how
 *             many of them have a sealed ENDBR64.
 *   policies  a '#' header, then one tab-separated line per rule:
 *             scope, target (pid or cgroup id), mode, flags,
 *             substitutions, name (the process's comm or the cgroup path).
 *   usage     a '#' header, then one tab-separated line per row of
 *             THPCOW_IOC_USAGE: scope (cgroup, pid, or other for what no
 *             cgroup row took), target (cgroup id or pid), the usage
 *             counters (include/uapi/thpcow-stats.h), thp_bytes, name
 *             (path or comm);
 *             last "# slots USED of SLOTS": the cgroup table, after the
 *             reclaim of removed cgroups' slots that reading it does.
 *
 * Both are read-only; a write is refused with EINVAL by the VFS.
 */
#include "thpcow.h"

#include <linux/cgroup.h>
#include <linux/debugfs.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

static struct dentry *thpcow_debugfs_dir;

static int thpcow_stats_show(struct seq_file *m, void *unused)
{
	u64 sum[THPCOW_STAT_NR];
	int i;

	thpcow_counters_sum(sum);
	for (i = 0; i < THPCOW_STAT_NR; i++)
		seq_printf(m, "%s %llu\n", thpcow_stat_names[i], sum[i]);
	seq_printf(m, "policies %u\n", thpcow_policy_count());
	seq_printf(m, "global_mode %s\n",
		   thpcow_mode_names[thpcow_policy_global()]);
	seq_printf(m, "native_zero %d\n", thpcow_native_zero);
	seq_printf(m, "hook_armed %d\n", thpcow_arm_is_armed());
	seq_printf(m, "hook_arms %lu\n", thpcow_arm_arms());
	seq_printf(m, "ibt_enforced %d\n", thpcow_ibt_enforced());
	seq_printf(m, "direct_calls %u\n", thpcow_calls.direct);
	seq_printf(m, "call_sites %u\n", thpcow_calls.sites);
	seq_printf(m, "sealed_endbr %u\n", thpcow_calls.sealed);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(thpcow_stats);

/* A process's comm, or a cgroup's path, into @name (THPCOW_PATH_LEN). */
static void thpcow_name_of(enum thpcow_scope scope, const void *key, char *name)
{
	struct task_struct *task;

	if (scope == THPCOW_SCOPE_PID) {
		rcu_read_lock();
		task = pid_task((struct pid *)key, PIDTYPE_TGID);
		if (task)
			strscpy(name, task->comm, TASK_COMM_LEN);
		rcu_read_unlock();
	} else if (scope == THPCOW_SCOPE_CGROUP) {
		cgroup_path_ns((struct cgroup *)key, name, THPCOW_PATH_LEN,
			       current->nsproxy->cgroup_ns);
	}
}

/* One line of "policies"; may sleep. */
static int thpcow_policies_line(const struct thpcow_rule_info *info, void *arg)
{
	static const char * const scope_names[] = THPCOW_SCOPE_NAMES;
	struct seq_file *m = arg;
	char name[THPCOW_PATH_LEN] = "";

	seq_printf(m, "%s\t", scope_names[info->scope]);
	if (info->scope == THPCOW_SCOPE_PID)
		seq_printf(m, "%d", pid_vnr(info->pid));
	else
		seq_printf(m, "%llu", cgroup_id(info->cgrp));
	seq_printf(m, "\t%s\t%s\t%llu\t", thpcow_mode_names[info->mode],
		   info->flags & THPCOW_POLICY_CHILDREN ? "children" : "-",
		   info->substitutions);
	thpcow_name_of(info->scope, info->key, name);
	seq_printf(m, "%s\n", name);
	return 0;
}

static int thpcow_policies_show(struct seq_file *m, void *unused)
{
	struct thpcow_rule_info global;

	thpcow_policy_get_global(&global);
	seq_puts(m, "# scope\ttarget\tmode\tflags\tsubstitutions\tname\n");
	seq_printf(m, "global\t-\t%s\t-\t%llu\t-\n",
		   thpcow_mode_names[global.mode], global.substitutions);
	return thpcow_policy_walk(thpcow_policies_line, m);
}
DEFINE_SHOW_ATTRIBUTE(thpcow_policies);

/* One line of "usage"; may sleep. */
static int thpcow_usage_line(const struct thpcow_usage_info *info, void *arg)
{
	struct seq_file *m = arg;
	char name[THPCOW_PATH_LEN] = "-";
	int i;

	if (info->scope == THPCOW_SCOPE_PID) {
		seq_printf(m, "pid\t%d", pid_vnr(info->pid));
		thpcow_name_of(info->scope, info->pid, name);
	} else if (info->scope == THPCOW_SCOPE_CGROUP) {
		seq_printf(m, "cgroup\t%llu", cgroup_id(info->cgrp));
		thpcow_name_of(info->scope, info->cgrp, name);
	} else {
		seq_puts(m, "other\t-");
	}
	for (i = 0; i < THPCOW_USAGE_NR; i++)
		seq_printf(m, "\t%llu", info->counters[i]);
	seq_printf(m, "\t%llu\t%s\n", thpcow_usage_bytes(info->counters), name);
	return 0;
}

static int thpcow_usage_show(struct seq_file *m, void *unused)
{
	int i, ret;

	seq_puts(m, "# scope\ttarget");
	for (i = 0; i < THPCOW_USAGE_NR; i++)
		seq_printf(m, "\t%s", thpcow_usage_name(i));
	seq_puts(m, "\tthp_bytes\tname\n");
	ret = thpcow_usage_walk(thpcow_usage_line, m);
	seq_printf(m, "# slots %u of %u\n", thpcow_usage_slots_used(),
		   thpcow_usage_slots());
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(thpcow_usage);

static int thpcow_pool_file_show(struct seq_file *m, void *unused)
{
	thpcow_pool_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(thpcow_pool_file);

void thpcow_debugfs_init(void)
{
	/* Debugging aids only: failures are not worth failing the load. */
	thpcow_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, thpcow_debugfs_dir, NULL,
			    &thpcow_stats_fops);
	debugfs_create_file("policies", 0444, thpcow_debugfs_dir, NULL,
			    &thpcow_policies_fops);
	debugfs_create_file("usage", 0444, thpcow_debugfs_dir, NULL,
			    &thpcow_usage_fops);
	debugfs_create_file("pool", 0444, thpcow_debugfs_dir, NULL,
			    &thpcow_pool_file_fops);
}

void thpcow_debugfs_exit(void)
{
	debugfs_remove(thpcow_debugfs_dir);
}
