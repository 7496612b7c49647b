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
 * fork and exit tracepoints change the table from atomic context. Freed
 * rules go through call_srcu(). The fault path takes no lock and allocates
 * nothing; with no rules at all it reads two counters and the global mode.
 */
#include "thpcow.h"

#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/magic.h>
#include <linux/nsproxy.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

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
	atomic64_t substitutions;
	struct rcu_head rcu;
};

#define THPCOW_RULE_HASH_BITS	8

static DEFINE_HASHTABLE(thpcow_rules, THPCOW_RULE_HASH_BITS);
static DEFINE_SPINLOCK(thpcow_rules_lock);
static atomic_t thpcow_nr_pid_rules = ATOMIC_INIT(0);
static atomic_t thpcow_nr_cgroup_rules = ATOMIC_INIT(0);
static atomic_t thpcow_nr_inherit_rules = ATOMIC_INIT(0);

static u32 thpcow_global_mode = THPCOW_MODE_KERNEL;
static atomic64_t thpcow_global_substitutions = ATOMIC64_INIT(0);

#define thpcow_rules_held()						\
	(srcu_read_lock_held(&thpcow_srcu) ||				\
	 lockdep_is_held(&thpcow_rules_lock))

#define thpcow_for_each_rule_possible(rule, k)				\
	hash_for_each_possible_rcu(thpcow_rules, rule, node,		\
				   (unsigned long)(k), thpcow_rules_held())

#define thpcow_for_each_rule(bkt, rule)					\
	for ((bkt) = 0; (bkt) < HASH_SIZE(thpcow_rules); (bkt)++)	\
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

/* Caller holds thpcow_srcu; *@rulep stays valid until it drops it. */
enum thpcow_mode thpcow_policy_of(struct mm_struct *mm,
				  struct thpcow_rule **rulep)
{
	struct thpcow_rule *rule = NULL;
	struct task_struct *owner;

	if (atomic_read(&thpcow_nr_pid_rules) ||
	    atomic_read(&thpcow_nr_cgroup_rules)) {
		rcu_read_lock();
		owner = rcu_dereference(mm->owner);
		if (owner)
			rule = thpcow_rule_of_task(owner);
		rcu_read_unlock();
	}
	*rulep = rule;
	return rule ? READ_ONCE(rule->mode) : READ_ONCE(thpcow_global_mode);
}

void thpcow_policy_account(struct thpcow_rule *rule)
{
	atomic64_inc(rule ? &rule->substitutions :
			    &thpcow_global_substitutions);
}

enum thpcow_mode thpcow_policy_global(void)
{
	return READ_ONCE(thpcow_global_mode);
}

int thpcow_policy_set_global(enum thpcow_mode mode)
{
	int ret = thpcow_mode_check(mode);

	if (!ret)
		WRITE_ONCE(thpcow_global_mode, mode);
	return ret;
}

/*
 * Does a policy ask for anything but the kernel's way for faults in @mm?
 * Asked by the ftrace callback (preemption off) on every write fault on a
 * huge PMD, so that faults no policy covers do not enter thpcow at all;
 * the handler asks again, as a rule may change in between.
 */
bool thpcow_policy_wants(struct mm_struct *mm)
{
	struct thpcow_rule *rule;
	enum thpcow_mode mode;
	int idx;

	if (!atomic_read(&thpcow_nr_pid_rules) &&
	    !atomic_read(&thpcow_nr_cgroup_rules))
		return READ_ONCE(thpcow_global_mode) != THPCOW_MODE_KERNEL;
	idx = srcu_read_lock(&thpcow_srcu);
	mode = thpcow_policy_of(mm, &rule);
	srcu_read_unlock(&thpcow_srcu, idx);
	return mode != THPCOW_MODE_KERNEL;
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
	hash_add_rcu(thpcow_rules, &rule->node, (unsigned long)rule->key);
	atomic_inc(thpcow_scope_count(rule->scope));
	if (rule->flags & THPCOW_POLICY_CHILDREN)
		atomic_inc(&thpcow_nr_inherit_rules);
}

static void thpcow_rule_unlink(struct thpcow_rule *rule)
{
	lockdep_assert_held(&thpcow_rules_lock);
	hash_del_rcu(&rule->node);
	atomic_dec(thpcow_scope_count(rule->scope));
	thpcow_rule_set_flags(rule, 0);
	call_srcu(&thpcow_srcu, &rule->rcu, thpcow_rule_free);
}

static bool thpcow_rule_stale(struct thpcow_rule *rule)
{
	if (rule->scope == THPCOW_SCOPE_CGROUP)
		return !(rule->cgrp->self.flags & CSS_ONLINE);
	return !pid_task(rule->pid, PIDTYPE_TGID);
}

/*
 * Drop rules whose cgroup was removed (nothing tells the module), and
 * rules of processes that are gone, which the exit probe and
 * thpcow_rule_link_live() never leave behind.
 */
static void thpcow_policy_reap(void)
{
	struct thpcow_rule *rule;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&thpcow_rules_lock);
	rcu_read_lock();
	hash_for_each_safe(thpcow_rules, bkt, tmp, rule, node)
		if (thpcow_rule_stale(rule))
			thpcow_rule_unlink(rule);
	rcu_read_unlock();
	spin_unlock(&thpcow_rules_lock);
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
	atomic64_set(&rule->substitutions, 0);
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

/*
 * Insert or update the rule for @new->key, for @task's process when it is
 * a pid rule. Consumes @new and the reference on its key: linked, or freed
 * because a rule for the key already existed (which is updated) or the
 * process is past its exit (-ESRCH).
 */
static int thpcow_rule_upsert(struct thpcow_rule *new, struct task_struct *task)
{
	struct thpcow_rule *old;
	int ret = 0;

	spin_lock(&thpcow_rules_lock);
	if (task && !atomic_read(&task->signal->live)) {
		ret = -ESRCH;
		goto out;
	}
	old = thpcow_rule_find(new->scope, new->key);
	if (old) {
		WRITE_ONCE(old->mode, new->mode);
		thpcow_rule_set_flags(old, new->flags);
	} else if (!task) {
		thpcow_rule_link(new);
		new = NULL;
	} else {
		ret = thpcow_rule_link_live(new, task) ? 0 : -ESRCH;
		new = NULL;
	}
out:
	spin_unlock(&thpcow_rules_lock);
	if (new)
		thpcow_rule_free(&new->rcu);
	return ret;
}

/*
 * The process @nr (any of its threads) in the caller's pid namespace,
 * referenced. User processes only: a kernel thread has no memory of its own.
 */
static struct task_struct *thpcow_get_process(pid_t nr, int *err)
{
	struct task_struct *task;

	*err = -ESRCH;
	if (nr <= 0) {
		*err = -EINVAL;
		return NULL;
	}
	rcu_read_lock();
	task = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (task) {
		task = task->group_leader;
		if (task->flags & PF_KTHREAD) {
			*err = -EINVAL;
			task = NULL;
		} else {
			get_task_struct(task);
		}
	}
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

static int thpcow_policy_set_pid(const struct thpcow_policy *req)
{
	struct thpcow_rule *rule;
	struct task_struct *task;
	int ret;

	task = thpcow_get_process(req->pid, &ret);
	if (!task)
		return ret;
	rule = thpcow_rule_alloc(THPCOW_SCOPE_PID, get_task_pid(task, PIDTYPE_TGID),
				 req->mode, req->flags, GFP_KERNEL);
	if (!rule) {
		put_task_struct(task);
		return -ENOMEM;
	}
	ret = thpcow_rule_upsert(rule, task);
	put_task_struct(task);
	return ret;
}

static int thpcow_policy_set_cgroup(const struct thpcow_policy *req)
{
	struct cgroup *cgrp = thpcow_get_cgroup(req->cgroup_fd);
	struct thpcow_rule *rule;

	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	rule = thpcow_rule_alloc(THPCOW_SCOPE_CGROUP, cgrp, req->mode,
				 req->flags, GFP_KERNEL);
	if (!rule) {
		cgroup_put(cgrp);
		return -ENOMEM;
	}
	return thpcow_rule_upsert(rule, NULL);
}

/* Checks the request's fields for its scope; mode only where @with_mode. */
static int thpcow_policy_check(const struct thpcow_policy *req, bool with_mode)
{
	u32 allowed = req->scope == THPCOW_SCOPE_PID ? THPCOW_POLICY_SET_MASK : 0;

	if (req->scope >= THPCOW_SCOPE_NR)
		return -EINVAL;
	if (req->flags & ~allowed)
		return -EINVAL;
	if (req->scope != THPCOW_SCOPE_PID && req->pid)
		return -EINVAL;
	if (req->scope != THPCOW_SCOPE_CGROUP && req->cgroup_fd)
		return -EINVAL;
	if (req->cgroup_id || req->substitutions || req->effective_mode ||
	    req->effective_scope)
		return -EINVAL;
	if (!with_mode && req->mode)
		return -EINVAL;
	return with_mode ? thpcow_mode_check(req->mode) : 0;
}

int thpcow_policy_set(const struct thpcow_policy *req)
{
	int ret = thpcow_policy_check(req, true);

	if (ret)
		return ret;
	thpcow_policy_reap();
	switch (req->scope) {
	case THPCOW_SCOPE_PID:
		return thpcow_policy_set_pid(req);
	case THPCOW_SCOPE_CGROUP:
		return thpcow_policy_set_cgroup(req);
	default:
		return thpcow_policy_set_global(req->mode);
	}
}

/* Look up the key a request names: a referenced pid or cgroup. */
static void *thpcow_policy_key(const struct thpcow_policy *req,
			       struct task_struct **taskp)
{
	struct task_struct *task;
	int err;

	if (req->scope == THPCOW_SCOPE_CGROUP)
		return thpcow_get_cgroup(req->cgroup_fd);
	task = thpcow_get_process(req->pid, &err);
	if (!task)
		return ERR_PTR(err);
	*taskp = task;
	return get_task_pid(task, PIDTYPE_TGID);
}

static void thpcow_policy_put_key(enum thpcow_scope scope, void *key)
{
	if (scope == THPCOW_SCOPE_CGROUP)
		cgroup_put(key);
	else
		put_pid(key);
}

int thpcow_policy_clear(const struct thpcow_policy *req)
{
	struct task_struct *task = NULL;
	struct thpcow_rule *rule;
	void *key;
	int ret = thpcow_policy_check(req, false);

	if (ret)
		return ret;
	if (req->scope == THPCOW_SCOPE_GLOBAL)
		return thpcow_policy_set_global(THPCOW_MODE_KERNEL);
	key = thpcow_policy_key(req, &task);
	if (IS_ERR(key))
		return PTR_ERR(key);
	spin_lock(&thpcow_rules_lock);
	rule = thpcow_rule_find(req->scope, key);
	if (rule)
		thpcow_rule_unlink(rule);
	spin_unlock(&thpcow_rules_lock);
	thpcow_policy_put_key(req->scope, key);
	if (task)
		put_task_struct(task);
	return rule ? 0 : -ENOENT;
}

static void thpcow_rule_report(struct thpcow_rule *rule, u32 *mode, u32 *flags,
			       u64 *substitutions)
{
	*mode = READ_ONCE(rule->mode);
	*flags = READ_ONCE(rule->flags) | THPCOW_POLICY_PRESENT;
	*substitutions = atomic64_read(&rule->substitutions);
}

int thpcow_policy_get(struct thpcow_policy *req)
{
	struct task_struct *task = NULL;
	struct thpcow_rule *rule, *eff;
	void *key;
	int idx, ret = thpcow_policy_check(req, false);

	if (ret)
		return ret;
	if (req->scope == THPCOW_SCOPE_GLOBAL) {
		req->mode = thpcow_policy_global();
		req->flags = THPCOW_POLICY_PRESENT;
		req->substitutions = atomic64_read(&thpcow_global_substitutions);
		return 0;
	}
	key = thpcow_policy_key(req, &task);
	if (IS_ERR(key))
		return PTR_ERR(key);

	idx = srcu_read_lock(&thpcow_srcu);
	rule = thpcow_rule_find(req->scope, key);
	if (rule)
		thpcow_rule_report(rule, &req->mode, &req->flags,
				   &req->substitutions);
	if (req->scope == THPCOW_SCOPE_CGROUP) {
		req->cgroup_id = cgroup_id(key);
	} else {
		rcu_read_lock();
		eff = thpcow_rule_of_task(task);
		rcu_read_unlock();
		req->effective_mode = eff ? READ_ONCE(eff->mode) :
					    thpcow_policy_global();
		req->effective_scope = eff ? eff->scope : THPCOW_SCOPE_GLOBAL;
	}
	srcu_read_unlock(&thpcow_srcu, idx);

	thpcow_policy_put_key(req->scope, key);
	if (task)
		put_task_struct(task);
	return 0;
}

/* Describe @rule for userspace; caller holds thpcow_srcu. May sleep. */
static void thpcow_rule_describe(struct thpcow_rule *rule,
				 struct thpcow_entry *e)
{
	struct task_struct *task;
	int len;

	memset(e, 0, sizeof(*e));
	e->scope = rule->scope;
	thpcow_rule_report(rule, &e->mode, &e->flags, &e->substitutions);
	e->flags &= ~THPCOW_POLICY_PRESENT;
	if (rule->scope == THPCOW_SCOPE_PID) {
		e->pid = pid_vnr(rule->pid);
		rcu_read_lock();
		task = pid_task(rule->pid, PIDTYPE_TGID);
		if (task)
			strscpy_pad(e->comm, task->comm, sizeof(e->comm));
		rcu_read_unlock();
		return;
	}
	e->cgroup_id = cgroup_id(rule->cgrp);
	len = cgroup_path_ns(rule->cgrp, e->path, sizeof(e->path),
			     current->nsproxy->cgroup_ns);
	if (len >= (int)sizeof(e->path))
		e->flags |= THPCOW_ENTRY_PATH_TRUNCATED;
}

/*
 * Copy up to @room rules to @entries and say in *@total how many there are.
 * The rules are described into a kernel buffer under SRCU and copied out
 * after it: a user buffer may fault for as long as its owner likes
 * (userfaultfd), and that must not hold up freeing rules or the hook.
 */
int thpcow_policy_list(struct thpcow_entry __user *entries, u32 room,
		       u32 *total)
{
	struct thpcow_entry *buf = NULL;
	struct thpcow_rule *rule;
	int bkt, idx, ret = 0;
	u32 n = 0, want;

	thpcow_policy_reap();
	want = min(room, thpcow_policy_count());
	if (want) {
		buf = kvmalloc_array(want, sizeof(*buf), GFP_KERNEL_ACCOUNT);
		if (!buf)
			return -ENOMEM;
	}
	idx = srcu_read_lock(&thpcow_srcu);
	thpcow_for_each_rule(bkt, rule) {
		if (n < want)
			thpcow_rule_describe(rule, &buf[n]);
		n++;
	}
	srcu_read_unlock(&thpcow_srcu, idx);
	if (copy_to_user(entries, buf, array_size(min(n, want), sizeof(*buf))))
		ret = -EFAULT;
	kvfree(buf);
	*total = n;
	return ret;
}

void thpcow_policy_show(struct seq_file *m)
{
	static const char * const scope_names[] = THPCOW_SCOPE_NAMES;
	struct thpcow_rule *rule;
	struct thpcow_entry e;
	int bkt, idx;

	thpcow_policy_reap();
	seq_puts(m, "# scope\ttarget\tmode\tflags\tsubstitutions\tname\n");
	seq_printf(m, "global\t-\t%s\t-\t%lld\t-\n",
		   thpcow_mode_names[thpcow_policy_global()],
		   atomic64_read(&thpcow_global_substitutions));
	idx = srcu_read_lock(&thpcow_srcu);
	thpcow_for_each_rule(bkt, rule) {
		thpcow_rule_describe(rule, &e);
		seq_printf(m, "%s\t", scope_names[e.scope]);
		if (e.scope == THPCOW_SCOPE_PID)
			seq_printf(m, "%d", e.pid);
		else
			seq_printf(m, "%llu", e.cgroup_id);
		seq_printf(m, "\t%s\t%s\t%llu\t%s\n",
			   thpcow_mode_names[e.mode],
			   e.flags & THPCOW_POLICY_CHILDREN ? "children" : "-",
			   e.substitutions,
			   e.scope == THPCOW_SCOPE_PID ? e.comm : e.path);
	}
	srcu_read_unlock(&thpcow_srcu, idx);
}

/* A process whose policy has THPCOW_POLICY_CHILDREN passes it to its fork. */
static void thpcow_on_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct thpcow_rule *prule, *rule;

	if (!atomic_read(&thpcow_nr_inherit_rules) ||
	    !thread_group_leader(child))
		return;

	spin_lock(&thpcow_rules_lock);
	prule = thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(parent));
	if (!prule || !(prule->flags & THPCOW_POLICY_CHILDREN) ||
	    !atomic_read(&child->signal->live) ||
	    thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(child)))
		goto out;
	rule = thpcow_rule_alloc(THPCOW_SCOPE_PID, get_pid(task_tgid(child)),
				 prule->mode, prule->flags,
				 GFP_NOWAIT | __GFP_NOWARN);
	if (!rule) {
		put_pid(task_tgid(child));
		thpcow_count(THPCOW_STAT_INHERIT_FAILED);
		goto out;
	}
	thpcow_rule_link_live(rule, child);
out:
	spin_unlock(&thpcow_rules_lock);
}

/*
 * The last thread of a process with a rule is exiting: drop the rule. The
 * unlocked checks pair with thpcow_rule_link_live(): live was decremented
 * with a full barrier before they read.
 */
static void thpcow_exit_probe(THPCOW_EXIT_PROBE_PARAMS)
{
	struct thpcow_rule *rule;

	if (!atomic_read(&thpcow_nr_pid_rules) ||
	    atomic_read(&task->signal->live))
		return;

	spin_lock(&thpcow_rules_lock);
	rule = thpcow_rule_find(THPCOW_SCOPE_PID, task_tgid(task));
	if (rule)
		thpcow_rule_unlink(rule);
	spin_unlock(&thpcow_rules_lock);
}

static struct thpcow_tracepoint {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} thpcow_tracepoints[] = {
	{ .name = "sched_process_fork", .probe = thpcow_on_fork },
	{ .name = "sched_process_exit", .probe = thpcow_exit_probe },
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
	struct thpcow_tracepoint *t;
	int ret;

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
			return ret;
		}
	}
	return 0;
}

void thpcow_policy_exit(void)
{
	struct thpcow_rule *rule;
	struct hlist_node *tmp;
	int bkt;

	thpcow_unregister_tracepoints(thpcow_tracepoints +
				      ARRAY_SIZE(thpcow_tracepoints));
	spin_lock(&thpcow_rules_lock);
	hash_for_each_safe(thpcow_rules, bkt, tmp, rule, node)
		thpcow_rule_unlink(rule);
	spin_unlock(&thpcow_rules_lock);
	srcu_barrier(&thpcow_srcu);
}
