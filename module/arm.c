// SPDX-License-Identifier: GPL-2.0
/*
 * Arming: the hook's ftrace callback is registered only while some policy
 * asks for something, so that with no rule and the global mode kernel the
 * function's entry is the kernel's own nop and faults cost nothing, as
 * kprobes do with their ftrace ops.
 *
 * The policies hold references, as users of a static key do, taken and
 * dropped in any context (the fork and exit probes link and unlink rules
 * under a spinlock): thpcow_arm_inc() and thpcow_arm_dec(). Registering
 * patches text with IPIs to every CPU (a VM exit on every running vCPU of
 * a host), and unregistering waits for RCU-tasks grace periods, so both
 * happen in a work item, and the last reference going disarms only after
 * THPCOW_ARM_IDLE_DELAY with none, as static_key_slow_dec_deferred() does:
 * rules that come and go (thpcowctl exec in a loop, one rule per short VM)
 * arm it once. An interface that sets a policy brackets it with
 * thpcow_arm_get(), which arms at once, so that the policy is in force
 * when it returns, or it fails with nothing changed, and thpcow_arm_put().
 * A fault that comes while the hook is not armed takes the kernel's path,
 * which is always a correct answer.
 *
 * Of the hook this file has only its ftrace_ops, given at
 * thpcow_arm_install(); of the policies, only their count.
 */
#include "thpcow.h"

#include <linux/ftrace.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/*
 * How long no policy must have been active before the callback goes: each
 * drop to no reference starts the wait anew. Armed without a policy, a
 * write fault on a huge PMD costs the callback's few loads.
 */
#define THPCOW_ARM_IDLE_DELAY	(10 * HZ)

/*
 * thpcow_arm_mutex serialises arming and disarming; under it, once
 * installed, the callback is registered whenever thpcow_arm_users is
 * nonzero or a reference is held, except while thpcow_arm_work has yet to
 * run or registering failed (the next change of the count tries again).
 */
static DEFINE_MUTEX(thpcow_arm_mutex);
/* Orders queueing the work against thpcow_arm_remove(), in any context. */
static DEFINE_SPINLOCK(thpcow_arm_lock);
static struct ftrace_ops *thpcow_arm_ops;	/* the hook's */
static bool thpcow_arm_installed;	/* set under both locks, read under either */
static bool thpcow_armed;		/* set under the mutex, read anywhere */
static atomic_t thpcow_arm_refs = ATOMIC_INIT(0);	/* active policies */
static unsigned int thpcow_arm_users;		/* interfaces setting one */
/* Times the callback was registered: each patches text on every CPU. */
static unsigned long thpcow_arm_count;

static void thpcow_arm_sync(struct work_struct *work);
static DECLARE_DELAYED_WORK(thpcow_arm_work, thpcow_arm_sync);
static void thpcow_arm_queue(int refs);

static int thpcow_arm(void)
{
	int ret;

	lockdep_assert_held(&thpcow_arm_mutex);
	if (thpcow_armed)
		return 0;
	ret = register_ftrace_function(thpcow_arm_ops);
	if (ret) {
		/* The work item tries again at the next change of the count. */
		pr_err_ratelimited("cannot hook do_huge_pmd_wp_page (%d); is another IPMODIFY user (livepatch) on it?\n",
				   ret);
		return ret;
	}
	WRITE_ONCE(thpcow_armed, true);
	WRITE_ONCE(thpcow_arm_count, thpcow_arm_count + 1);
	/*
	 * The mirror of disarm: the last reference may have gone while this
	 * registered, and its thpcow_arm_dec() seen the callback disarmed.
	 */
	smp_mb();
	if (!thpcow_arm_users && !atomic_read(&thpcow_arm_refs))
		thpcow_arm_queue(0);
	return 0;
}

static void thpcow_disarm(void)
{
	lockdep_assert_held(&thpcow_arm_mutex);
	if (!thpcow_armed)
		return;
	/* Cleared first: a reference taken meanwhile asks for a new arming. */
	WRITE_ONCE(thpcow_armed, false);
	/* before thpcow_arm_sync() reads the count; pairs with _queue() */
	smp_mb();
	/* Waits for tasks in the trampoline and the callback (RCU tasks). */
	unregister_ftrace_function(thpcow_arm_ops);
}

static void thpcow_arm_sync(struct work_struct *work)
{
	mutex_lock(&thpcow_arm_mutex);
	if (!thpcow_arm_installed)
		goto out;
	if (thpcow_arm_users || atomic_read(&thpcow_arm_refs)) {
		/* Nothing to tell: the next set reports the same failure. */
		thpcow_arm();
		goto out;
	}
	thpcow_disarm();
	/* A child's rule may have been linked while the callback went. */
	if (atomic_read(&thpcow_arm_refs))
		thpcow_arm();
out:
	mutex_unlock(&thpcow_arm_mutex);
}

/*
 * The count is now @refs (read after it changed with a full barrier in
 * between, or under the mutex): arm at once if it is nonzero and the
 * callback is not registered, or disarm after THPCOW_ARM_IDLE_DELAY if it
 * is zero. Cheap when there is nothing to do. Not before install (a
 * parameter at load) nor after remove: a parameter's sysfs file outlives
 * the module's exit.
 */
static void thpcow_arm_queue(int refs)
{
	unsigned long flags;

	if ((refs > 0) == READ_ONCE(thpcow_armed))
		return;
	spin_lock_irqsave(&thpcow_arm_lock, flags);
	/* read again: of two racing callers, the later one decides */
	refs = atomic_read(&thpcow_arm_refs);
	/* (Dis)arming waits for RCU tasks grace periods: the long queue. */
	if (thpcow_arm_installed)
		mod_delayed_work(system_long_wq, &thpcow_arm_work,
				 refs > 0 ? 0 : THPCOW_ARM_IDLE_DELAY);
	spin_unlock_irqrestore(&thpcow_arm_lock, flags);
}

/* A policy became active (any context). */
void thpcow_arm_inc(void)
{
	/* value-returning atomics are full barriers: see disarm */
	thpcow_arm_queue(atomic_inc_return(&thpcow_arm_refs));
}

/* A policy went (any context). */
void thpcow_arm_dec(void)
{
	int refs = atomic_dec_return(&thpcow_arm_refs);

	WARN_ON_ONCE(refs < 0);
	thpcow_arm_queue(refs);
}

/*
 * Arm the callback, if it is not, and keep it armed until thpcow_arm_put().
 * Before thpcow_arm_install() (a parameter given at load) there is nothing
 * to do: installing arms it.
 */
int thpcow_arm_get(void)
{
	int ret = 0;

	mutex_lock(&thpcow_arm_mutex);
	if (thpcow_arm_installed)
		ret = thpcow_arm();
	if (!ret)
		thpcow_arm_users++;
	mutex_unlock(&thpcow_arm_mutex);
	return ret;
}

void thpcow_arm_put(void)
{
	mutex_lock(&thpcow_arm_mutex);
	thpcow_arm_users--;
	/* the policy set in between took its reference */
	thpcow_arm_queue(atomic_read(&thpcow_arm_refs));
	mutex_unlock(&thpcow_arm_mutex);
}

bool thpcow_arm_is_armed(void)
{
	return READ_ONCE(thpcow_armed);
}

unsigned long thpcow_arm_arms(void)
{
	return READ_ONCE(thpcow_arm_count);
}

/*
 * Arm @ops once (its filter set), so that a load fails at once, and says
 * why, where the function cannot be hooked at all; then disarm after the
 * idle delay if no policy holds a reference.
 */
int thpcow_arm_install(struct ftrace_ops *ops)
{
	int ret;

	mutex_lock(&thpcow_arm_mutex);
	thpcow_arm_ops = ops;
	ret = thpcow_arm();
	spin_lock_irq(&thpcow_arm_lock);
	thpcow_arm_installed = !ret;
	spin_unlock_irq(&thpcow_arm_lock);
	mutex_unlock(&thpcow_arm_mutex);
	if (!ret)
		thpcow_arm_queue(atomic_read(&thpcow_arm_refs));
	return ret;
}

/* Disarm for good: nothing queues the work item after this returns. */
void thpcow_arm_remove(void)
{
	mutex_lock(&thpcow_arm_mutex);
	spin_lock_irq(&thpcow_arm_lock);
	thpcow_arm_installed = false;
	spin_unlock_irq(&thpcow_arm_lock);
	thpcow_disarm();
	mutex_unlock(&thpcow_arm_mutex);
}

/* After thpcow_arm_remove(): wait for the work item to be idle. */
void thpcow_arm_flush(void)
{
	cancel_delayed_work_sync(&thpcow_arm_work);
}
