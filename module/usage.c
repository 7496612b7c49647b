// SPDX-License-Identifier: GPL-2.0
/*
 * Accounting where the memory is: what the fault handler did, per cgroup.
 *
 * The row of a fault is the cgroup v2 the faulting mm's owner is in (its
 * leaf cgroup, as the policy lookup sees it), whatever rule matched: pid,
 * cgroup or global. Pid rules also count for their own process, in the
 * rule (policy.c); this file lists both and a row for the rest.
 *
 * The table is a fixed array of usage_slots slots (a module parameter,
 * THPCOW_USAGE_SLOTS by default; an id and its counters, in two arrays,
 * allocated at load), keyed by cgroup id: 64 bits, never reused while the
 * system runs (kernfs ids carry a generation), so a stale id can never be
 * confused with a new cgroup. A cgroup's slot is one of the
 * THPCOW_USAGE_PROBE slots from the hash of its id. The fault path finds
 * it with plain reads or claims a free one with a cmpxchg; with none free
 * in its window the fault counts in the 'other' row. Nothing is allocated and no lock is taken on the fault path, and the
 * memory is bounded by the arrays (84 bytes a slot, 84 KiB by default).
 *
 * Nothing tells the module when a cgroup is removed, so the slots of gone
 * cgroups are reclaimed when usage is read (ioctl or debugfs), and by a
 * worker that a fault finding no slot kicks (at most once a second), under
 * thpcow_usage_lock, in two steps:
 *  1. a slot whose cgroup no longer exists gets the id DEAD, which no
 *     lookup matches and no claim takes;
 *  2. after synchronize_srcu(&thpcow_srcu) its counters are zeroed and it
 *     is released as FREE.
 * A fault handler accounts inside the SRCU read section it looked the
 * slot up in (hook.c holds it for the whole handler), so once step 2's
 * grace period has passed no handler can still increment a slot it found
 * under the old id: a reclaimed slot never carries a count into the
 * cgroup that claims it next. Zeroing happens before the release store of
 * FREE, and a claim is a fully ordered cmpxchg that reads FREE, so the
 * new owner's increments land on zeroed counters. A fault of a process in a
 * cgroup being removed can still claim a slot for its id after step 1
 * (removal needs no tasks, but an exiting owner may lag); the next reclaim
 * frees that slot too, so the table cannot fill up with the dead. The
 * other row is never reclaimed: it counts for as long as the module is
 * loaded. Reclaim runs with the faults going on: it never blocks one.
 *
 * Two faults of a new cgroup may race to claim, or a claim may land before
 * a match further along the window after a reclaim: then one id has two
 * slots. Readers sum every slot of an id into one row, and reclaim folds
 * the later slots into the first (also after the grace period).
 */
#include "thpcow.h"

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define THPCOW_USAGE_PROBE	16U
#define THPCOW_SLOT_FREE	0LL	/* no cgroup has id 0 */
#define THPCOW_SLOT_DEAD	(-1LL)	/* nor ~0 */

/*
 * The ids apart from the counters: a lookup reads the ids of one window,
 * 128 bytes, and touches one slot's counters.
 */
static atomic64_t *thpcow_usage_ids;	/* FREE, DEAD or an id */
struct thpcow_usage_counts {
	atomic64_t c[THPCOW_USAGE_NR];	/* by enum thpcow_usage_stat */
};

static struct thpcow_usage_counts *thpcow_usage_counts;
/* faults no slot could take: the window full, or an mm without owner */
static struct thpcow_usage_counts thpcow_usage_other;
/* serialises readers and reclaim; never taken on the fault path */
static DEFINE_MUTEX(thpcow_usage_lock);
/* reclaim's scratch, under the lock: the slot a duplicate folds into */
static u32 *thpcow_usage_fold;

static void thpcow_usage_reclaim(void);

static void thpcow_usage_reclaim_fn(struct work_struct *work)
{
	mutex_lock(&thpcow_usage_lock);
	thpcow_usage_reclaim();
	mutex_unlock(&thpcow_usage_lock);
}

static DECLARE_WORK(thpcow_usage_reclaim_work, thpcow_usage_reclaim_fn);
static unsigned long thpcow_usage_kicked;	/* jiffies */

/* The table's size: a power of two, its log, and the window (<= size). */
static unsigned int thpcow_usage_nr = THPCOW_USAGE_SLOTS;
module_param_named(usage_slots, thpcow_usage_nr, uint, 0444);
MODULE_PARM_DESC(usage_slots,
		 "Cgroup rows of the usage table, 1 to 65536, rounded up to a power of two (default 1024, 84 bytes each)");
static unsigned int thpcow_usage_bits, thpcow_usage_probe;

/* Allocate the table; before the hook goes live. */
int thpcow_usage_init(void)
{
	unsigned int nr = thpcow_usage_nr;

	if (!nr || nr > 65536) {
		pr_err("usage_slots=%u: must be 1 to 65536\n", nr);
		return -EINVAL;
	}
	nr = roundup_pow_of_two(nr);
	thpcow_usage_ids = kvcalloc(nr, sizeof(*thpcow_usage_ids), GFP_KERNEL);
	thpcow_usage_counts = kvcalloc(nr, sizeof(*thpcow_usage_counts),
				       GFP_KERNEL);
	thpcow_usage_fold = kvcalloc(nr, sizeof(*thpcow_usage_fold), GFP_KERNEL);
	if (!thpcow_usage_ids || !thpcow_usage_counts || !thpcow_usage_fold) {
		thpcow_usage_exit();
		return -ENOMEM;
	}
	thpcow_usage_nr = nr;
	thpcow_usage_kicked = jiffies - HZ;
	thpcow_usage_bits = ilog2(nr);
	thpcow_usage_probe = min(nr, THPCOW_USAGE_PROBE);
	return 0;
}

/* After the hook and every way in are gone. */
void thpcow_usage_exit(void)
{
	cancel_work_sync(&thpcow_usage_reclaim_work);
	kvfree(thpcow_usage_ids);
	kvfree(thpcow_usage_counts);
	kvfree(thpcow_usage_fold);
}

/* How many cgroup rows the table holds at most. */
unsigned int thpcow_usage_slots(void)
{
	return thpcow_usage_nr;
}

/* Bytes given as whole THPs. */
u64 thpcow_usage_bytes(const u64 *counters)
{
	return (counters[THPCOW_USAGE_SUBSTITUTED] +
		counters[THPCOW_USAGE_COPIED]) * HPAGE_PMD_SIZE;
}

/* The @i-th slot of the window that starts at @home. */
static inline unsigned int thpcow_usage_at(unsigned int home, unsigned int i)
{
	return (home + i) & (thpcow_usage_nr - 1);
}

static inline unsigned int thpcow_usage_home(s64 id)
{
	/* hash_64() cannot make 0 bits */
	return thpcow_usage_bits ? hash_64(id, thpcow_usage_bits) : 0;
}

/*
 * A fault found no slot: have a worker reclaim the slots of removed
 * cgroups, at most once a second, so that a table nobody reads does not
 * fill up with them. queue_work() neither sleeps nor allocates.
 */
static void thpcow_usage_kick(void)
{
	unsigned long now = jiffies;

	if (time_before(now, READ_ONCE(thpcow_usage_kicked) + HZ))
		return;
	WRITE_ONCE(thpcow_usage_kicked, now);
	queue_work(system_long_wq, &thpcow_usage_reclaim_work);
}

/* The counters of cgroup @id's slot, claimed if need be; else the other row. */
static struct thpcow_usage_counts *thpcow_usage_counts_of(s64 id)
{
	unsigned int home = thpcow_usage_home(id), i, s;
	s64 old;

	for (i = 0; i < thpcow_usage_probe; i++) {
		s = thpcow_usage_at(home, i);
		/* pairs with the release of FREE in thpcow_usage_reclaim() */
		if (atomic64_read_acquire(&thpcow_usage_ids[s]) == id)
			return &thpcow_usage_counts[s];
	}
	for (i = 0; i < thpcow_usage_probe; i++) {
		s = thpcow_usage_at(home, i);
		if (atomic64_read(&thpcow_usage_ids[s]) != THPCOW_SLOT_FREE)
			continue;
		old = atomic64_cmpxchg(&thpcow_usage_ids[s], THPCOW_SLOT_FREE, id);
		if (old == THPCOW_SLOT_FREE || old == id)
			return &thpcow_usage_counts[s];
	}
	thpcow_usage_kick();
	return &thpcow_usage_other;
}

/* Count @idx for @mm's owner's cgroup. Caller holds thpcow_srcu. */
void thpcow_usage_account(struct mm_struct *mm, int idx)
{
	struct task_struct *owner;
	s64 id = 0;

	rcu_read_lock();
	owner = rcu_dereference(mm->owner);
	if (owner)
		id = cgroup_id(task_dfl_cgroup(owner));
	rcu_read_unlock();
	atomic64_inc(&(id > 0 ? thpcow_usage_counts_of(id) :
				&thpcow_usage_other)->c[idx]);
}

/* The first slot of @id in its window: the one lookups find. */
static unsigned int thpcow_usage_first(s64 id)
{
	unsigned int home = thpcow_usage_home(id), i;

	for (i = 0; i < thpcow_usage_probe; i++)
		if (atomic64_read(&thpcow_usage_ids[thpcow_usage_at(home, i)]) == id)
			break;
	return thpcow_usage_at(home, i);
}

static bool thpcow_usage_cgroup_exists(s64 id)
{
	struct cgroup *cgrp = thpcow_cgroup_get_from_id(id);

	if (cgrp)
		cgroup_put(cgrp);
	return cgrp;
}

/* Free the slots of removed cgroups, fold duplicates; see the top. */
static void thpcow_usage_reclaim(void)
{
	unsigned int i, k, to, dead = 0;
	s64 id, v;

	lockdep_assert_held(&thpcow_usage_lock);
	for (i = 0; i < thpcow_usage_nr; i++) {
		cond_resched();	/* each lookup walks the tree on 5.10 (compat/cgroup.h) */
		id = atomic64_read(&thpcow_usage_ids[i]);
		if (id == THPCOW_SLOT_FREE || id == THPCOW_SLOT_DEAD)
			continue;
		to = thpcow_usage_first(id);
		/* gone: dropped; a duplicate: folded into the first, alive */
		if (to == i && thpcow_usage_cgroup_exists(id))
			continue;
		if (to != i && !thpcow_usage_cgroup_exists(id))
			to = i;
		thpcow_usage_fold[i] = to;
		/* only reclaim changes a claimed id: no cmpxchg needed */
		atomic64_set(&thpcow_usage_ids[i], THPCOW_SLOT_DEAD);
		dead++;
	}
	if (!dead)
		return;
	synchronize_srcu(&thpcow_srcu);
	for (i = 0; i < thpcow_usage_nr; i++) {
		if (atomic64_read(&thpcow_usage_ids[i]) != THPCOW_SLOT_DEAD)
			continue;
		to = thpcow_usage_fold[i];
		for (k = 0; k < THPCOW_USAGE_NR; k++) {
			v = atomic64_xchg(&thpcow_usage_counts[i].c[k], 0);
			if (to != i)
				atomic64_add(v, &thpcow_usage_counts[to].c[k]);
		}
		atomic64_set_release(&thpcow_usage_ids[i], THPCOW_SLOT_FREE);
	}
}

/* Slots taken now (after a walk: by cgroups that existed at its start). */
unsigned int thpcow_usage_slots_used(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < thpcow_usage_nr; i++)
		n += atomic64_read(&thpcow_usage_ids[i]) != THPCOW_SLOT_FREE;
	return n;
}

/* The most rows thpcow_usage_walk() can show now. */
unsigned int thpcow_usage_rows_max(void)
{
	return thpcow_usage_nr + 1 + thpcow_policy_count();
}

static void thpcow_usage_sum(const struct thpcow_usage_counts *from,
			     u64 *counters)
{
	unsigned int k;

	for (k = 0; k < THPCOW_USAGE_NR; k++)
		counters[k] += atomic64_read(&from->c[k]);
}

struct thpcow_usage_walk_arg {
	int (*fn)(const struct thpcow_usage_info *info, void *arg);
	void *arg;
};

static int thpcow_usage_pid_row(const struct thpcow_rule_info *rule, void *arg)
{
	struct thpcow_usage_walk_arg *w = arg;
	struct thpcow_usage_info info = {
		.scope = THPCOW_SCOPE_PID,
		.pid = rule->pid,
	};

	if (rule->scope != THPCOW_SCOPE_PID)
		return 0;
	memcpy(info.counters, rule->usage, sizeof(info.counters));
	return w->fn(&info, w->arg);
}

/*
 * Call @fn for each row: the cgroups (live, one row per id), the processes
 * with a pid rule, and the other row if it counted anything. @fn may
 * sleep; the cgroup or pid in its info stays valid until it returns. A
 * nonzero return stops the walk and is returned. Slots of removed cgroups
 * are reclaimed first; this may wait for an SRCU grace period.
 */
int thpcow_usage_walk(int (*fn)(const struct thpcow_usage_info *info,
				void *arg), void *arg)
{
	struct thpcow_usage_walk_arg w = { .fn = fn, .arg = arg };
	struct thpcow_usage_info info;
	unsigned int i, j, s, home;
	bool any = false;
	int ret = 0;
	s64 id;

	/*
	 * Reclaim in the worker, not here: from 6.1 cgroup_get_from_id() sees
	 * only the caller's cgroup namespace, and a reader inside one would
	 * take every other cgroup for removed. The rows below are those the
	 * reader's namespace shows.
	 */
	queue_work(system_long_wq, &thpcow_usage_reclaim_work);
	flush_work(&thpcow_usage_reclaim_work);
	mutex_lock(&thpcow_usage_lock);
	for (i = 0; i < thpcow_usage_nr && !ret; i++) {
		cond_resched();
		id = atomic64_read(&thpcow_usage_ids[i]);
		if (id == THPCOW_SLOT_FREE || id == THPCOW_SLOT_DEAD ||
		    thpcow_usage_first(id) != i)
			continue;
		info.scope = THPCOW_SCOPE_CGROUP;
		info.cgrp = thpcow_cgroup_get_from_id(id);
		if (!info.cgrp)		/* removed since: reclaimed next time */
			continue;
		memset(info.counters, 0, sizeof(info.counters));
		home = thpcow_usage_home(id);
		for (j = 0; j < thpcow_usage_probe; j++) {
			s = thpcow_usage_at(home, j);
			if (atomic64_read(&thpcow_usage_ids[s]) == id)
				thpcow_usage_sum(&thpcow_usage_counts[s],
						 info.counters);
		}
		ret = fn(&info, arg);
		cgroup_put(info.cgrp);
	}
	mutex_unlock(&thpcow_usage_lock);
	if (!ret)
		ret = thpcow_policy_walk(thpcow_usage_pid_row, &w);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	info.scope = THPCOW_SCOPE_GLOBAL;
	thpcow_usage_sum(&thpcow_usage_other, info.counters);
	for (i = 0; i < THPCOW_USAGE_NR; i++)
		any |= info.counters[i];
	return any ? fn(&info, arg) : 0;
}
