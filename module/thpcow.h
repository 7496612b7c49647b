/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcow: whole THPs for write faults on the huge zero page, per process
 * and per cgroup. Declarations shared by the module's files.
 */
#ifndef THPCOW_H
#define THPCOW_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/percpu.h>
#include <linux/srcu.h>
#include <uapi/thpcow.h>

#include "compat.h"

/* stats.c: the counters, below everything (calls no other file) */
struct thpcow_counters {
	u64 c[THPCOW_STAT_NR];
};
DECLARE_PER_CPU(struct thpcow_counters, thpcow_counters);

static inline void thpcow_count(enum thpcow_stat stat)
{
	this_cpu_inc(thpcow_counters.c[stat]);
}

void thpcow_counters_sum(u64 *sum);
extern const char * const thpcow_stat_names[];
int thpcow_stat_usage(enum thpcow_stat why);
const char *thpcow_usage_name(enum thpcow_usage_stat idx);
void thpcow_stats_report(void);

/* compat/symbols.c: resolve compat/ksym-list.h, and check the calls are direct */
struct thpcow_calls {
	unsigned int direct;	/* functions called through a static call */
	unsigned int sites;	/* their call sites, checked */
	unsigned int sealed;	/* of the functions, those without ENDBR64 */
};

extern struct thpcow_calls thpcow_calls;
int thpcow_resolve_symbols(void);

/* probe.c: does the kernel substitute the huge zero page itself? */
void thpcow_probe_init(void);
/* Set at load: the kernel already substitutes the zero page itself. */
extern bool thpcow_native_zero;

/*
 * arm.c: the hook's callback registered only while a policy is active, a
 * deferred reference count (below the policies; knows nothing of them)
 */
struct ftrace_ops;

void thpcow_arm_inc(void);
void thpcow_arm_dec(void);
int thpcow_arm_get(void);
void thpcow_arm_put(void);
bool thpcow_arm_is_armed(void);
unsigned long thpcow_arm_arms(void);
int thpcow_arm_install(struct ftrace_ops *ops);
void thpcow_arm_remove(void);
void thpcow_arm_flush(void);

/* hook.c: the ftrace hook on do_huge_pmd_wp_page(), above the policies */
int thpcow_hook_install(void);
void thpcow_hook_remove(void);

/* subst.c */
vm_fault_t thpcow_subst_zero(struct vm_fault *vmf, pmd_t orig_pmd,
			     enum thpcow_stat *why);
vm_fault_t thpcow_subst_copy(struct vm_fault *vmf, pmd_t orig_pmd,
			     enum thpcow_stat *why);

/*
 * policy.c: the rule store, the lookup for faults, the rules' lifetime.
 * Rules are per process (its tgid) or per cgroup v2; the interfaces see
 * them as struct thpcow_rule_info.
 */
struct thpcow_rule;
struct cgroup;
struct pid;

struct thpcow_rule_info {
	enum thpcow_scope scope;
	union {
		struct pid *pid;	/* THPCOW_SCOPE_PID: the tgid */
		struct cgroup *cgrp;	/* THPCOW_SCOPE_CGROUP */
		const void *key;
	};
	enum thpcow_mode mode;
	u32 flags;			/* THPCOW_POLICY_CHILDREN */
	u64 substitutions;		/* THPs the rule has handed out */
	u64 usage[THPCOW_USAGE_NR];	/* what it did, as THPCOW_IOC_USAGE */
};

#define THPCOW_MAX_RULES	16384	/* max_rules' default */
#define THPCOW_MAX_RULES_LIMIT	1048576

/*
 * Held across the whole fault handler and by anyone walking the policy
 * table; policy entries are freed after an SRCU grace period, and rmmod
 * waits for one before the module's text goes away.
 */
extern struct srcu_struct thpcow_srcu;
int thpcow_srcu_init(void);
void thpcow_srcu_exit(void);

extern const char * const thpcow_mode_names[];
int thpcow_mode_parse(const char *buf, enum thpcow_mode *mode);
int thpcow_mode_check(u32 mode);

void thpcow_policy_init_begin(void);
bool thpcow_param_capable(void);
int thpcow_policy_init(void);
void thpcow_policy_exit(void);
enum thpcow_mode thpcow_policy_of(struct mm_struct *mm,
				  struct thpcow_rule **rule);
void thpcow_policy_account(struct thpcow_rule *rule, int idx);
enum thpcow_mode thpcow_policy_peek(struct mm_struct *mm);
enum thpcow_mode thpcow_policy_global(void);
int thpcow_policy_set_global(enum thpcow_mode mode);
int thpcow_policy_set_task(struct task_struct *task, enum thpcow_mode mode,
			   u32 flags);
int thpcow_policy_set_cgroup(struct cgroup *cgrp, enum thpcow_mode mode,
			     u32 flags);
int thpcow_policy_clear_task(struct task_struct *task);
int thpcow_policy_clear_cgroup(struct cgroup *cgrp);
int thpcow_policy_get_task(struct task_struct *task,
			   struct thpcow_rule_info *info);
int thpcow_policy_get_cgroup(struct cgroup *cgrp,
			     struct thpcow_rule_info *info);
void thpcow_policy_get_global(struct thpcow_rule_info *info);
enum thpcow_mode thpcow_policy_effective(struct task_struct *task,
					 enum thpcow_scope *scope,
					 u64 *cgrp_id);
int thpcow_policy_walk(int (*fn)(const struct thpcow_rule_info *info,
				 void *arg), void *arg);
unsigned int thpcow_policy_count(void);

/*
 * usage.c: the per-cgroup accounting table, and the rows of
 * THPCOW_IOC_USAGE and debugfs 'usage' (cgroups, pid rules, the rest).
 */
#define THPCOW_USAGE_SLOTS	1024	/* usage_slots' default */

struct thpcow_usage_info {
	enum thpcow_scope scope;	/* GLOBAL: what no cgroup row took */
	union {
		struct pid *pid;	/* THPCOW_SCOPE_PID */
		struct cgroup *cgrp;	/* THPCOW_SCOPE_CGROUP */
	};
	u64 counters[THPCOW_USAGE_NR];
};

int thpcow_usage_init(void);
void thpcow_usage_exit(void);
unsigned int thpcow_usage_slots(void);
void thpcow_usage_account(struct mm_struct *mm, int idx);
int thpcow_usage_walk(int (*fn)(const struct thpcow_usage_info *info,
				void *arg), void *arg);
unsigned int thpcow_usage_rows_max(void);
unsigned int thpcow_usage_slots_used(void);
u64 thpcow_usage_bytes(const u64 *counters);

/* pool.c: pre-zeroed THPs (pool_mib), below subst.c */
struct seq_file;

int thpcow_pool_init(void);
void thpcow_pool_exit(void);
struct folio *thpcow_pool_take(struct vm_area_struct *vma);
void thpcow_pool_put_back(struct folio *folio);
void thpcow_pool_show(struct seq_file *m);

/* ctl.c */
int thpcow_ctl_init(void);
void thpcow_ctl_exit(void);

/* debugfs.c */
void thpcow_debugfs_init(void);
void thpcow_debugfs_exit(void);

#endif /* THPCOW_H */
