// SPDX-License-Identifier: GPL-2.0
/*
 * The policy store: which mode applies to the memory being faulted.
 *
 * Rules live in one hash table keyed by the object they name: a struct pid
 * (the thread group's, referenced, so a recycled pid number never inherits
 * a rule) or a struct cgroup (v2, referenced; the rule covers the subtree).
 * The fault path asks about vma->vm_mm, not current: KVM vCPU threads,
 * vhost workers, ptrace and process_vm_writev all fault on behalf of the
 * mm's owner. Most specific wins: pid, nearest cgroup, global.
 *
 * Readers walk the table under thpcow_srcu (the fault handler holds it for
 * its whole run, so a rule it found stays valid while it allocates and
 * clears a THP); writers take thpcow_rules_lock, a spinlock because the
 * fork, exit and cgroup rmdir tracepoints change the table from atomic
 * context: a process's rule goes at its exit, a cgroup's at its rmdir,
 * with nobody having to look. Those probes run for every fork, exit and
 * rmdir on the machine and look up under SRCU too, taking the lock only
 * to link or unlink. The ftrace callback's
 * quick "is this mm covered?" looks up under plain RCU, so an unlinked
 * rule is freed after an RCU and then an SRCU grace period. The fault path
 * takes no lock and allocates nothing; with no rules at all it reads two
 * counters and the global mode.
 *
 * This file is the store only: rules, the lookup, and their lifetime. The
 * interfaces (ctl.c, debugfs.c) resolve and check what userspace names,
 * and format what thpcow_policy_walk() shows them.
 */
#include "thpcow.h"

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

struct thpcow_rule {
	struct hlist_node node;
	enum thpcow_scope scope;
	union {
		struct pid *pid;	/* THPCOW_SCOPE_PID: the tgid */
		struct cgroup *cgrp;	/* THPCOW_SCOPE_CGROUP */
		void *key;
	};
	u32 mode;			/* READ_ONCE: set may change it live */
	u32 flags;			/* THPCOW_POLICY_CHILDREN */
	atomic64_t usage[THPCOW_USAGE_NR];	/* by enum thpcow_usage_stat */
	struct rcu_head rcu;
};

/*
 * At most this many pid and cgroup rules (max_rules): a SET beyond gets
 * ENOSPC, a fork that would pass its rule on counts inherit_failed. The
 * table has a bucket per rule that may exist, rounded up to a power of two,
 * allocated at load: a lookup walks one rule on average however many there
 * are, where --children on a process tree or a rule per VM would otherwise
 * grow without bound.
 */
static unsigned int thpcow_max_rules = THPCOW_MAX_RULES;
module_param_named(max_rules, thpcow_max_rules, uint, 0444);
MODULE_PARM_DESC(max_rules,
		 "Pid and cgroup rules at most, 1 to 1048576 (default 16384); the rule table takes 8 bytes per rule, rounded up to a power of two");

static struct hlist_head *thpcow_rules;
static unsigned int thpcow_rules_bits;
static DEFINE_SPINLOCK(thpcow_rules_lock);
static atomic_t thpcow_nr_pid_rules = ATOMIC_INIT(0);
static atomic_t thpcow_nr_cgroup_rules = ATOMIC_INIT(0);
static atomic_t thpcow_nr_inherit_rules = ATOMIC_INIT(0);

static u32 thpcow_global_mode = THPCOW_MODE_KERNEL;
static atomic64_t thpcow_global_substitutions = ATOMIC64_INIT(0);

#define thpcow_rules_held()						\
	(srcu_read_lock_held(&thpcow_srcu) || rcu_read_lock_held() ||	\
	 lockdep_is_held(&thpcow_rules_lock))

#define thpcow_rule_bucket(k)	(&thpcow_rules[hash_ptr((k), thpcow_rules_bits)])

#define thpcow_for_each_rule_possible(rule, k)				\
	hlist_for_each_entry_rcu(rule, thpcow_rule_bucket(k), node,	\
				 thpcow_rules_held())

/* As hash_for_each_rcu(): a break in the body ends the whole walk. */
#define thpcow_for_each_rule(bkt, rule)					\
	for ((bkt) = 0, (rule) = NULL;					\
	     !(rule) && (bkt) < 1U << thpcow_rules_bits; (bkt)++)	\
		hlist_for_each_entry_rcu(rule, &thpcow_rules[bkt], node,\
					 thpcow_rules_held())

static struct thpcow_rule *thpcow_rule_find(enum thpcow_scope scope,
					    const void *key)
{
	struct thpcow_rule *rule;

	thpcow_for_each_rule_possible(rule, key)
		if (rule->key == key && rule->scope == scope)
			return rule;
	return NULL;
}

/* The rule that decides for @task's memory, or NULL for the global mode. */
static struct thpcow_rule *thpcow_rule_of_task(struct task_struct *task)
{
	struct thpcow_rule *rule;
	struct cgroup *cgrp;

	if (atomic_read(&thpcow_nr_pid_rules)) {
		rule = thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(task));
		if (rule)
			return rule;
	}
	if (!atomic_read(&thpcow_nr_cgroup_rules))
		return NULL;
	for (cgrp = task_dfl_cgroup(task); cgrp; cgrp = cgroup_parent(cgrp)) {
		rule = thpcow_rule_find(THPCOW_SCOPE_CGROUP, cgrp);
		if (rule)
			return rule;
	}
	return NULL;
}

/* The rule that decides for @mm's memory, or NULL; caller holds RCU. */
static struct thpcow_rule *thpcow_rule_of_mm(struct mm_struct *mm)
{
	struct task_struct *owner;

	if (!atomic_read(&thpcow_nr_pid_rules) &&
	    !atomic_read(&thpcow_nr_cgroup_rules))
		return NULL;
	owner = rcu_dereference(mm->owner);
	return owner ? thpcow_rule_of_task(owner) : NULL;
}

/* Caller holds thpcow_srcu; *@rulep stays valid until it drops it. */
enum thpcow_mode thpcow_policy_of(struct mm_struct *mm,
				  struct thpcow_rule **rulep)
{
	struct thpcow_rule *rule;

	rcu_read_lock();
	rule = thpcow_rule_of_mm(mm);
	rcu_read_unlock();
	*rulep = rule;
	return rule ? READ_ONCE(rule->mode) : READ_ONCE(thpcow_global_mode);
}

struct srcu_struct thpcow_srcu;

int thpcow_srcu_init(void)
{
	return init_srcu_struct(&thpcow_srcu);
}

void thpcow_srcu_exit(void)
{
	cleanup_srcu_struct(&thpcow_srcu);
}

const char * const thpcow_mode_names[] = THPCOW_MODE_NAMES;
static_assert(ARRAY_SIZE(thpcow_mode_names) == THPCOW_MODE_NR);

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

void thpcow_policy_init_begin(void)
{
	kernel_param_lock(THIS_MODULE);
	thpcow_init_begun = true;
	kernel_param_unlock(THIS_MODULE);
}

/*
 * thpcow_param_capable(): the global mode (and pool_mib, pool.c) changes
 * only with CAP_SYS_ADMIN in the initial user
 * namespace, as through /dev/thpcow: a container's root that maps to the
 * host's uid 0 and sees /sys writable gets EPERM, also while the module
 * is still loading or already unloading (the sysfs file exists during all
 * of init and exit). Before init begins the value comes from the load's
 * command line, whose writer has CAP_SYS_MODULE; so must a write to the
 * sysfs file made in that moment.
 */
bool thpcow_param_capable(void)
{
	return capable(thpcow_init_begun ? CAP_SYS_ADMIN : CAP_SYS_MODULE);
}

static int thpcow_param_set_mode(const char *val, const struct kernel_param *kp)
{
	enum thpcow_mode mode;
	int ret;

	if (!thpcow_param_capable())
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

/*
 * A fault the handler decided, with its usage counter @idx
 * (thpcow_stat_usage()): counted for the rule that matched (the global
 * mode's when NULL). Caller holds thpcow_srcu. Atomics only: no lock, no
 * memory.
 */
void thpcow_policy_account(struct thpcow_rule *rule, int idx)
{
	if (rule)
		atomic64_inc(&rule->usage[idx]);
	else if (idx <= THPCOW_USAGE_SPLIT)
		atomic64_inc(&thpcow_global_substitutions);
}

enum thpcow_mode thpcow_policy_global(void)
{
	return READ_ONCE(thpcow_global_mode);
}

/*
 * A global mode other than kernel holds one reference on the hook's arming,
 * as each rule does; only such a mode needs the hook armed first.
 */
int thpcow_policy_set_global(enum thpcow_mode mode)
{
	bool active = mode != THPCOW_MODE_KERNEL;
	int ret = thpcow_mode_check(mode);

	if (!ret && active)
		ret = thpcow_arm_get();
	if (ret)
		return ret;
	/* the new mode's reference before the old mode's goes, whatever races */
	if (active)
		thpcow_arm_inc();
	if (xchg(&thpcow_global_mode, mode) != THPCOW_MODE_KERNEL)
		thpcow_arm_dec();
	if (active)
		thpcow_arm_put();
	return 0;
}

/*
 * The mode for faults in @mm, as thpcow_policy_of() without a rule to
 * account to. Asked by the ftrace callback on every write fault on a huge
 * PMD while the hook is armed, so that faults no policy can act on do not
 * enter thpcow at all; the handler asks again, as a rule may change in
 * between.
 */
enum thpcow_mode thpcow_policy_peek(struct mm_struct *mm)
{
	struct thpcow_rule *rule;
	u32 mode;

	/* Rules are freed after an RCU grace period too: no SRCU barriers. */
	rcu_read_lock();
	rule = thpcow_rule_of_mm(mm);
	mode = rule ? READ_ONCE(rule->mode) : READ_ONCE(thpcow_global_mode);
	rcu_read_unlock();
	return mode;
}

unsigned int thpcow_policy_count(void)
{
	return atomic_read(&thpcow_nr_pid_rules) +
	       atomic_read(&thpcow_nr_cgroup_rules);
}

static void thpcow_rule_free(struct rcu_head *head)
{
	struct thpcow_rule *rule = container_of(head, struct thpcow_rule, rcu);

	if (rule->scope == THPCOW_SCOPE_PID)
		put_pid(rule->pid);
	else
		cgroup_put(rule->cgrp);
	kfree(rule);
}

/*
 * An unlinked rule is freed after an RCU grace period (for the ftrace
 * callback's lookup, thpcow_policy_peek()) and then an SRCU one (for the
 * fault handler and the interfaces, which may sleep while they hold it).
 */
static void thpcow_rule_rcu_done(struct rcu_head *head)
{
	call_srcu(&thpcow_srcu, head, thpcow_rule_free);
}

static atomic_t *thpcow_scope_count(enum thpcow_scope scope)
{
	return scope == THPCOW_SCOPE_PID ? &thpcow_nr_pid_rules :
					   &thpcow_nr_cgroup_rules;
}

static void thpcow_rule_set_flags(struct thpcow_rule *rule, u32 flags)
{
	bool was = rule->flags & THPCOW_POLICY_CHILDREN;
	bool now = flags & THPCOW_POLICY_CHILDREN;

	lockdep_assert_held(&thpcow_rules_lock);
	if (was != now)
		atomic_add(now ? 1 : -1, &thpcow_nr_inherit_rules);
	WRITE_ONCE(rule->flags, flags);
}

/* Takes over the reference on @rule->key. */
static void thpcow_rule_link(struct thpcow_rule *rule)
{
	lockdep_assert_held(&thpcow_rules_lock);
	hlist_add_head_rcu(&rule->node, thpcow_rule_bucket(rule->key));
	atomic_inc(thpcow_scope_count(rule->scope));
	if (rule->flags & THPCOW_POLICY_CHILDREN)
		atomic_inc(&thpcow_nr_inherit_rules);
	/* A child's rule, from the fork probe, may find the hook disarmed. */
	thpcow_arm_inc();
}

static void thpcow_rule_unlink(struct thpcow_rule *rule)
{
	lockdep_assert_held(&thpcow_rules_lock);
	hlist_del_init_rcu(&rule->node);
	atomic_dec(thpcow_scope_count(rule->scope));
	thpcow_rule_set_flags(rule, 0);
	call_rcu(&rule->rcu, thpcow_rule_rcu_done);
	thpcow_arm_dec();
}

static struct thpcow_rule *thpcow_rule_alloc(enum thpcow_scope scope,
					     void *key, u32 mode, u32 flags,
					     gfp_t gfp)
{
	struct thpcow_rule *rule = kzalloc(sizeof(*rule), gfp);

	if (!rule)
		return NULL;
	rule->scope = scope;
	rule->key = key;
	rule->mode = mode;
	rule->flags = flags;
	return rule;
}

/*
 * Link @rule for @task's process, unless the process is past its exit.
 * The exit probe runs after signal->live has dropped to zero and looks for
 * the process's rule only when it sees a pid rule counted. The rule and the
 * count are published before live is read here, and the full barriers on
 * both sides (here, and the atomic_dec_and_test() in do_exit()) make sure
 * that either the probe sees them or this sees live at zero and takes the
 * rule back: no rule outlives its process. Returns false if taken back.
 */
static bool thpcow_rule_link_live(struct thpcow_rule *rule,
				  struct task_struct *task)
{
	lockdep_assert_held(&thpcow_rules_lock);
	thpcow_rule_link(rule);
	/* pairs with atomic_dec_and_test(&signal->live) in do_exit() */
	smp_mb__after_atomic();
	if (atomic_read(&task->signal->live))
		return true;
	thpcow_rule_unlink(rule);
	return false;
}

/* Is there room for one more rule (max_rules)? */
static bool thpcow_rule_room(void)
{
	lockdep_assert_held(&thpcow_rules_lock);
	return thpcow_policy_count() < thpcow_max_rules;
}

/*
 * Insert or update the rule for @new->key, for @task's process when it is
 * a pid rule. Consumes @new and the reference on its key: linked, or freed
 * because a rule for the key already existed (which is updated), the
 * process is past its exit (-ESRCH), the cgroup was removed (-ENOENT) or
 * max_rules rules exist (-ENOSPC).
 * The rmdir probe runs after the cgroup went offline and takes the lock:
 * either it finds the rule linked here, or this sees the cgroup offline.
 */
static int thpcow_rule_upsert(struct thpcow_rule *new, struct task_struct *task)
{
	struct thpcow_rule *old;
	int ret;

	/* The hook is armed before the rule is in, or nothing changes. */
	ret = thpcow_arm_get();
	if (ret) {
		thpcow_rule_free(&new->rcu);
		return ret;
	}
	spin_lock(&thpcow_rules_lock);
	if (task && !atomic_read(&task->signal->live)) {
		ret = -ESRCH;
		goto out;
	}
	if (!task && !(READ_ONCE(new->cgrp->self.flags) & CSS_ONLINE)) {
		ret = -ENOENT;
		goto out;
	}
	old = thpcow_rule_find(new->scope, new->key);
	if (old) {
		WRITE_ONCE(old->mode, new->mode);
		thpcow_rule_set_flags(old, new->flags);
	} else if (!thpcow_rule_room()) {
		ret = -ENOSPC;
	} else if (!task) {
		thpcow_rule_link(new);
		new = NULL;
	} else {
		ret = thpcow_rule_link_live(new, task) ? 0 : -ESRCH;
		new = NULL;
	}
out:
	spin_unlock(&thpcow_rules_lock);
	thpcow_arm_put();
	if (new)
		thpcow_rule_free(&new->rcu);
	return ret;
}

/* Set @task's process's rule. */
int thpcow_policy_set_task(struct task_struct *task, enum thpcow_mode mode,
			   u32 flags)
{
	struct pid *pid = get_task_pid(task, PIDTYPE_TGID);
	struct thpcow_rule *rule;

	rule = thpcow_rule_alloc(THPCOW_SCOPE_PID, pid, mode, flags, GFP_KERNEL);
	if (!rule) {
		put_pid(pid);
		return -ENOMEM;
	}
	return thpcow_rule_upsert(rule, task);
}

/* Set @cgrp's rule (it takes a reference of its own). */
int thpcow_policy_set_cgroup(struct cgroup *cgrp, enum thpcow_mode mode,
			     u32 flags)
{
	struct thpcow_rule *rule;

	cgroup_get(cgrp);
	rule = thpcow_rule_alloc(THPCOW_SCOPE_CGROUP, cgrp, mode, flags,
				 GFP_KERNEL);
	if (!rule) {
		cgroup_put(cgrp);
		return -ENOMEM;
	}
	return thpcow_rule_upsert(rule, NULL);
}

static int thpcow_rule_clear(enum thpcow_scope scope, const void *key)
{
	struct thpcow_rule *rule;

	spin_lock(&thpcow_rules_lock);
	rule = thpcow_rule_find(scope, key);
	if (rule)
		thpcow_rule_unlink(rule);
	spin_unlock(&thpcow_rules_lock);
	return rule ? 0 : -ENOENT;
}

/* Remove @task's process's rule; -ENOENT if it has none. */
int thpcow_policy_clear_task(struct task_struct *task)
{
	struct pid *pid = get_task_pid(task, PIDTYPE_TGID);
	int ret = thpcow_rule_clear(THPCOW_SCOPE_PID, pid);

	put_pid(pid);
	return ret;
}

int thpcow_policy_clear_cgroup(struct cgroup *cgrp)
{
	return thpcow_rule_clear(THPCOW_SCOPE_CGROUP, cgrp);
}

/* Caller holds thpcow_srcu. */
static void thpcow_rule_info(struct thpcow_rule *rule,
			     struct thpcow_rule_info *info)
{
	int i;

	info->scope = rule->scope;
	info->key = rule->key;
	info->mode = READ_ONCE(rule->mode);
	info->flags = READ_ONCE(rule->flags);
	for (i = 0; i < THPCOW_USAGE_NR; i++)
		info->usage[i] = atomic64_read(&rule->usage[i]);
	/* what it handed out, as before per-reason counters: THPs and splits */
	info->substitutions = info->usage[THPCOW_USAGE_SUBSTITUTED] +
			      info->usage[THPCOW_USAGE_COPIED] +
			      info->usage[THPCOW_USAGE_SPLIT];
}

static int thpcow_rule_get(enum thpcow_scope scope, const void *key,
			   struct thpcow_rule_info *info)
{
	struct thpcow_rule *rule;
	int idx;

	idx = srcu_read_lock(&thpcow_srcu);
	rule = thpcow_rule_find(scope, key);
	if (rule)
		thpcow_rule_info(rule, info);
	srcu_read_unlock(&thpcow_srcu, idx);
	return rule ? 0 : -ENOENT;
}

/*
 * The rule of @task's process (-ENOENT if none). @info->pid is valid only
 * as long as the caller's own reference to the task.
 */
int thpcow_policy_get_task(struct task_struct *task,
			   struct thpcow_rule_info *info)
{
	return thpcow_rule_get(THPCOW_SCOPE_PID, task_tgid(task), info);
}

int thpcow_policy_get_cgroup(struct cgroup *cgrp,
			     struct thpcow_rule_info *info)
{
	return thpcow_rule_get(THPCOW_SCOPE_CGROUP, cgrp, info);
}

void thpcow_policy_get_global(struct thpcow_rule_info *info)
{
	memset(info, 0, sizeof(*info));
	info->scope = THPCOW_SCOPE_GLOBAL;
	info->mode = thpcow_policy_global();
	info->substitutions = atomic64_read(&thpcow_global_substitutions);
}

/*
 * The mode in effect for @task's memory, the scope it comes from, and for
 * a cgroup rule the id of its cgroup (0 otherwise).
 */
enum thpcow_mode thpcow_policy_effective(struct task_struct *task,
					 enum thpcow_scope *scope,
					 u64 *cgrp_id)
{
	struct thpcow_rule *rule;
	enum thpcow_mode mode;
	int idx;

	idx = srcu_read_lock(&thpcow_srcu);
	rcu_read_lock();
	rule = thpcow_rule_of_task(task);
	rcu_read_unlock();
	*scope = rule ? rule->scope : THPCOW_SCOPE_GLOBAL;
	*cgrp_id = *scope == THPCOW_SCOPE_CGROUP ? cgroup_id(rule->cgrp) : 0;
	mode = rule ? READ_ONCE(rule->mode) : thpcow_policy_global();
	srcu_read_unlock(&thpcow_srcu, idx);
	return mode;
}

/*
 * Call @fn for each rule, under thpcow_srcu: @fn may sleep, and the pid or
 * cgroup in its info stays valid until it returns. A nonzero return stops
 * the walk and is returned.
 */
int thpcow_policy_walk(int (*fn)(const struct thpcow_rule_info *info,
				 void *arg), void *arg)
{
	struct thpcow_rule_info info;
	struct thpcow_rule *rule;
	unsigned int bkt;
	int idx, ret = 0;

	idx = srcu_read_lock(&thpcow_srcu);
	thpcow_for_each_rule(bkt, rule) {
		thpcow_rule_info(rule, &info);
		ret = fn(&info, arg);
		if (ret)
			break;
	}
	srcu_read_unlock(&thpcow_srcu, idx);
	return ret;
}

/*
 * Has @task's process a rule? Its mode and flags in *@mode and *@flags.
 * Without the lock: a probe that sees the rule takes the lock to act.
 */
static bool thpcow_task_has_rule(struct task_struct *task, u32 *mode,
				 u32 *flags)
{
	struct thpcow_rule *rule;
	int idx;

	idx = srcu_read_lock(&thpcow_srcu);
	rule = thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(task));
	if (rule) {
		*mode = READ_ONCE(rule->mode);
		*flags = READ_ONCE(rule->flags);
	}
	srcu_read_unlock(&thpcow_srcu, idx);
	return rule;
}

/*
 * A process whose policy has THPCOW_POLICY_CHILDREN passes it to its fork.
 * Every fork on the machine comes here while one such rule exists: the
 * parent's rule is looked up without the lock, which is taken only to
 * link the child's.
 */
static void thpcow_on_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct thpcow_rule *rule;
	u32 mode, flags;

	if (!atomic_read(&thpcow_nr_inherit_rules) ||
	    !thread_group_leader(child) ||
	    !thpcow_task_has_rule(parent, &mode, &flags) ||
	    !(flags & THPCOW_POLICY_CHILDREN))
		return;

	rule = thpcow_rule_alloc(THPCOW_SCOPE_PID, get_pid(task_tgid(child)),
				 mode, flags, GFP_NOWAIT | __GFP_NOWARN);
	if (!rule) {
		put_pid(task_tgid(child));
		thpcow_count(THPCOW_STAT_INHERIT_FAILED);
		return;
	}
	spin_lock(&thpcow_rules_lock);
	/* Not if the child has exited already, or a set gave it a rule. */
	if (atomic_read(&child->signal->live) &&
	    !thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(child))) {
		if (thpcow_rule_room()) {
			thpcow_rule_link_live(rule, child);
			rule = NULL;
		} else {
			thpcow_count(THPCOW_STAT_INHERIT_FAILED);
		}
	}
	spin_unlock(&thpcow_rules_lock);
	if (rule)
		thpcow_rule_free(&rule->rcu);
}

/*
 * The last thread of a process with a rule is exiting: drop the rule.
 * Every process exit on the machine comes here while a pid rule exists:
 * the rule is looked up without the lock, which is taken only to unlink
 * it. The unlocked checks pair with thpcow_rule_link_live(): live was
 * decremented with a full barrier before they read.
 */
static void thpcow_exit_probe(THPCOW_EXIT_PROBE_PARAMS)
{
	struct thpcow_rule *rule;
	u32 mode, flags;

	if (!atomic_read(&thpcow_nr_pid_rules) ||
	    atomic_read(&task->signal->live) ||
	    !thpcow_task_has_rule(task, &mode, &flags))
		return;

	spin_lock(&thpcow_rules_lock);
	rule = thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(task));
	if (rule)
		thpcow_rule_unlink(rule);
	spin_unlock(&thpcow_rules_lock);
}

/*
 * A cgroup is being removed (rmdir, the only way a cgroup v2 goes): its
 * rule goes with it, so that it neither pins the cgroup nor is walked by
 * faults, counted, or keeps the hook armed. Called after the cgroup went
 * offline, under cgroup_mutex and the tracepoint's spinlock, interrupts off.
 * Always under the rules lock, never skipped on a count read without it:
 * a SET that saw the cgroup online and has yet to link its rule (the
 * count still 0) would then link it after this, for good.
 */
static void thpcow_cgroup_rmdir_probe(void *data, struct cgroup *cgrp,
				      const char *path)
{
	thpcow_rule_clear(THPCOW_SCOPE_CGROUP, cgrp);
}

static struct thpcow_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} thpcow_tracepoints[] = {
	{ .name = "sched_process_fork", .probe = thpcow_on_fork },
	{ .name = "sched_process_exit", .probe = thpcow_exit_probe },
	{ .name = "cgroup_rmdir", .probe = thpcow_cgroup_rmdir_probe },
};

static void thpcow_match_tracepoint(struct tracepoint *tp, void *priv)
{
	struct thpcow_tracepoint *t;

	for (t = thpcow_tracepoints;
	     t < thpcow_tracepoints + ARRAY_SIZE(thpcow_tracepoints); t++)
		if (!strcmp(tp->name, t->name))
			t->tp = tp;
}

static void thpcow_unregister_tracepoints(struct thpcow_tracepoint *end)
{
	struct thpcow_tracepoint *t;

	for (t = thpcow_tracepoints; t < end; t++)
		tracepoint_probe_unregister(t->tp, t->probe, NULL);
	tracepoint_synchronize_unregister();
}

int thpcow_policy_init(void)
{
	unsigned int nr = thpcow_max_rules;
	struct thpcow_tracepoint *t;
	int ret;

	if (!nr || nr > THPCOW_MAX_RULES_LIMIT) {
		pr_err("max_rules=%u: must be 1 to %u\n", nr,
		       THPCOW_MAX_RULES_LIMIT);
		return -EINVAL;
	}
	/* Two buckets at least: hash_ptr() cannot hash to 0 bits. */
	thpcow_rules_bits = ilog2(roundup_pow_of_two(max(nr, 2U)));
	thpcow_rules = kvcalloc(1U << thpcow_rules_bits, sizeof(*thpcow_rules),
				GFP_KERNEL);
	if (!thpcow_rules)
		return -ENOMEM;

	for_each_kernel_tracepoint(thpcow_match_tracepoint, NULL);
	for (t = thpcow_tracepoints;
	     t < thpcow_tracepoints + ARRAY_SIZE(thpcow_tracepoints); t++) {
		/* The tracepoint calls its probes indirectly. */
		ret = thpcow_ibt_check_entry(t->name, t->probe);
		if (!ret)
			ret = t->tp ? tracepoint_probe_register(t->tp, t->probe,
								NULL) : -ENOENT;
		if (ret) {
			pr_err("cannot attach to tracepoint %s (%d)\n",
			       t->name, ret);
			thpcow_unregister_tracepoints(t);
			kvfree(thpcow_rules);
			return ret;
		}
	}
	return 0;
}

void thpcow_policy_exit(void)
{
	struct thpcow_rule *rule;
	struct hlist_node *tmp;
	unsigned int bkt;

	thpcow_unregister_tracepoints(thpcow_tracepoints +
				      ARRAY_SIZE(thpcow_tracepoints));
	spin_lock(&thpcow_rules_lock);
	for (bkt = 0; bkt < 1U << thpcow_rules_bits; bkt++) {
		hlist_for_each_entry_safe(rule, tmp, &thpcow_rules[bkt], node)
			thpcow_rule_unlink(rule);
		/* Not under the lock for long: up to a million buckets. */
		if (!(bkt % 4096)) {
			spin_unlock(&thpcow_rules_lock);
			cond_resched();
			spin_lock(&thpcow_rules_lock);
		}
	}
	spin_unlock(&thpcow_rules_lock);
	rcu_barrier();		/* thpcow_rule_rcu_done() passes them on */
	srcu_barrier(&thpcow_srcu);
	kvfree(thpcow_rules);
}
