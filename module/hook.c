// SPDX-License-Identifier: GPL-2.0
/*
 * The hook on do_huge_pmd_wp_page().
 *
 * An ftrace callback on the function's entry sends every call to
 * thpcow_wp_page_entry(), which has the function's prototype
 * (compat/series.h), instead (FTRACE_OPS_FL_IPMODIFY), unless no policy
 * covering the faulting mm could act on the fault (then the call goes on
 * as if unhooked: thpcow_may_act()). The
 * handler decides; whatever it does not take over it passes to the
 * original (a direct call, compat/ksyms.h), whose entry fires the callback
 * again: a call coming from this module is let through.
 * This file is built with -fno-optimize-sibling-calls so that the call to
 * the original is a real call and its return address lies in the module.
 *
 * The callback is registered ("armed") only while some policy asks for
 * something (thpcow_policy_active()): with no rule and the global mode
 * kernel, the function's entry is the kernel's own nop and faults cost
 * nothing, as kprobes do with their ftrace ops. Arming may sleep, so it
 * happens in process context: synchronously when an interface sets a
 * policy (thpcow_hook_get()), so that the policy is in force when the
 * call returns, or from a work item when the fork probe passes a rule to
 * a child of a process whose rule was just cleared. Disarming waits for
 * ten seconds of no policy (THPCOW_HOOK_IDLE_DELAY), in the same work item,
 * as it waits for an RCU tasks grace period. A fault that comes while the
 * hook is not armed
 * takes the kernel's path, which is always a correct answer.
 */
#include "thpcow.h"

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/userfaultfd_k.h>

#define CREATE_TRACE_POINTS
#include "trace.h"

/* Is a THP for this fault allowed now, as for a first-touch fault? */
static bool thpcow_eligible(struct vm_fault *vmf, enum thpcow_stat *why)
{
	struct vm_area_struct *vma = vmf->vma;

	if (!vma->anon_vma ||
	    !thpcow_thp_vma_allowable_order(vma, vmf->address & HPAGE_PMD_MASK))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
	else if (userfaultfd_armed(vma))
		*why = THPCOW_STAT_FALLBACK_UFFD;
	else
		return true;
	return false;
}

/*
 * Decide whether thpcow handles this write fault on a huge PMD, and do it.
 * Returns false to pass the fault to the kernel unchanged.
 */
static bool thpcow_handle(struct vm_fault *vmf, pmd_t orig_pmd,
			  vm_fault_t *ret)
{
	struct thpcow_rule *rule = NULL;
	enum thpcow_stat why;
	enum thpcow_mode mode;
	int idx;

	thpcow_count(THPCOW_STAT_HOOK_CALLS);

	/* A read-only GUP pin asked to unshare: not a write, the kernel's. */
	if (vmf->flags & FAULT_FLAG_UNSHARE) {
		why = THPCOW_STAT_UNSHARE;
		goto out;
	}
	mode = thpcow_policy_of(vmf->vma->vm_mm, &rule);
	if (mode == THPCOW_MODE_SPLIT && thpcow_native_zero &&
	    thpcow_is_huge_zero_pmd(orig_pmd)) {
		/* What this kernel did before it learnt to substitute. */
		why = THPCOW_STAT_SPLIT;
		*ret = thpcow_split_huge_pmd(vmf);
	} else if (mode == THPCOW_MODE_KERNEL || mode == THPCOW_MODE_SPLIT) {
		why = THPCOW_STAT_PASSTHROUGH;
	} else if (thpcow_is_huge_zero_pmd(orig_pmd)) {
		if (thpcow_native_zero)
			why = THPCOW_STAT_NATIVE;
		else if (thpcow_eligible(vmf, &why))
			*ret = thpcow_subst_zero(vmf, orig_pmd, &why);
	} else if (mode != THPCOW_MODE_COPY) {
		why = THPCOW_STAT_NOT_ZERO_PAGE;
	} else if (thpcow_eligible(vmf, &why)) {
		*ret = thpcow_subst_copy(vmf, orig_pmd, &why);
	}
out:
	thpcow_count(why);
	idx = thpcow_stat_usage(why);
	if (idx >= 0) {
		thpcow_policy_account(rule, idx);
		thpcow_usage_account(vmf->vma->vm_mm, idx);
	}
	trace_thpcow_fault(vmf, thpcow_stat_names[why]);
	switch (why) {
	case THPCOW_STAT_SUBSTITUTED:
	case THPCOW_STAT_COPIED:
	case THPCOW_STAT_SPLIT:
		return true;
	case THPCOW_STAT_RETRY_RACE:
		/* The PMD changed under us: let the access fault again. */
		return true;
	default:
		return false;
	}
}

static vm_fault_t thpcow_wp_page_entry(THPCOW_WP_PAGE_PARAMS)
{
	vm_fault_t ret;
	int idx;

	idx = srcu_read_lock(&thpcow_srcu);
	if (!thpcow_handle(vmf, THPCOW_WP_PAGE_ORIG_PMD, &ret))
		ret = thpcow_do_huge_pmd_wp_page(vmf, THPCOW_WP_PAGE_ORIG_PMD);
	srcu_read_unlock(&thpcow_srcu, idx);
	return ret;
}

/*
 * Could thpcow_handle() act on this fault under @mode, rather than pass it
 * on? 'zero' acts on the huge zero page only, where the kernel does not
 * substitute it itself; 'copy' on that and on any other THP but one the
 * kernel reuses in place because it is PageAnonExclusive (whether it is
 * shared is seen under the PMD lock); 'split' only where the kernel would
 * substitute. Unshare faults are always the kernel's.
 */
static bool thpcow_may_act(struct vm_fault *vmf, pmd_t orig_pmd,
			   enum thpcow_mode mode)
{
	bool zero;

	if (mode == THPCOW_MODE_KERNEL || (vmf->flags & FAULT_FLAG_UNSHARE))
		return false;
	zero = thpcow_is_huge_zero_pmd(orig_pmd);
	switch (mode) {
	case THPCOW_MODE_ZERO:
		return zero && !thpcow_native_zero;
	case THPCOW_MODE_COPY:
		return zero ? !thpcow_native_zero :
			      !thpcow_thp_maybe_exclusive(orig_pmd);
	case THPCOW_MODE_SPLIT:
		return zero && thpcow_native_zero;
	default:
		return false;
	}
}

static void notrace thpcow_ftrace_thunk(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *ops,
					struct thpcow_ftrace_regs *fregs)
{
	struct vm_fault *vmf;

	if (within_module(parent_ip, THIS_MODULE))
		return;
	/*
	 * A fault that no policy covers, or whose policy could not change
	 * what the kernel does with it, runs as if unhooked: no second pass
	 * through ftrace, no handler, no counting.
	 */
	vmf = thpcow_ftrace_vmf(fregs);
	if (thpcow_may_act(vmf, thpcow_ftrace_orig_pmd(fregs, vmf),
			   thpcow_policy_peek(vmf->vma->vm_mm)))
		thpcow_ftrace_set_ip(fregs, (unsigned long)thpcow_wp_page_entry);
}

static struct ftrace_ops thpcow_ftrace_ops = {
	.func = thpcow_ftrace_thunk,
	/*
	 * IPMODIFY: the callback rewrites the return address (in the saved
	 * registers, or the ftrace_regs where they carry it: compat/ftrace.h),
	 * and needs no recursion guard from ftrace.
	 */
	.flags = THPCOW_FTRACE_FLAGS,
};

/*
 * thpcow_hook_mutex serialises arming and disarming; under it, the hook is
 * armed whenever thpcow_hook_users is nonzero (a policy being set) or a
 * policy is active, except while thpcow_hook_work has yet to run.
 */
static DEFINE_MUTEX(thpcow_hook_mutex);
static bool thpcow_hook_installed;
static bool thpcow_hook_armed;
static unsigned int thpcow_hook_users;
/* Times the callback was registered: each patches text on every CPU. */
static unsigned long thpcow_hook_arms;

static void thpcow_hook_sync(struct work_struct *work);
static DECLARE_DELAYED_WORK(thpcow_hook_work, thpcow_hook_sync);

/*
 * How long no policy must have been active before the callback goes: each
 * drop to no policy starts the wait anew, as static_key_slow_dec_deferred()
 * does, so rules that come and go (thpcowctl exec in a loop, one rule per
 * short VM) arm it once. Armed without a policy, a write fault on a huge
 * PMD costs the callback's few loads.
 */
#define THPCOW_HOOK_IDLE_DELAY	(10 * HZ)

static int thpcow_hook_arm(void)
{
	int ret;

	lockdep_assert_held(&thpcow_hook_mutex);
	if (thpcow_hook_armed)
		return 0;
	ret = register_ftrace_function(&thpcow_ftrace_ops);
	if (ret) {
		/* The work item retries on each rule a fork passes on. */
		pr_err_ratelimited("cannot hook do_huge_pmd_wp_page (%d); is another IPMODIFY user (livepatch) on it?\n",
				   ret);
		return ret;
	}
	WRITE_ONCE(thpcow_hook_armed, true);
	WRITE_ONCE(thpcow_hook_arms, thpcow_hook_arms + 1);
	return 0;
}

static void thpcow_hook_disarm(void)
{
	lockdep_assert_held(&thpcow_hook_mutex);
	if (!thpcow_hook_armed)
		return;
	/* Cleared first: a rule linked meanwhile asks for a new arming. */
	WRITE_ONCE(thpcow_hook_armed, false);
	/* before thpcow_hook_sync() reads the counts; pairs with _update() */
	smp_mb();
	/* Waits for tasks in the trampoline and the callback (RCU tasks). */
	unregister_ftrace_function(&thpcow_ftrace_ops);
}

static void thpcow_hook_sync(struct work_struct *work)
{
	mutex_lock(&thpcow_hook_mutex);
	if (!thpcow_hook_installed)
		goto out;
	if (thpcow_hook_users || thpcow_policy_active()) {
		/* Nothing to tell: the next set reports the same failure. */
		thpcow_hook_arm();
		goto out;
	}
	thpcow_hook_disarm();
	/* A child's rule may have been linked while the callback went. */
	if (thpcow_policy_active())
		thpcow_hook_arm();
out:
	mutex_unlock(&thpcow_hook_mutex);
}

/*
 * The set of policies changed, maybe in atomic context: arm at once if a
 * policy is active and the hook is not armed, or disarm after
 * THPCOW_HOOK_IDLE_DELAY if none is. Cheap when there is nothing to do.
 */
void thpcow_hook_update(void)
{
	bool active;

	/* The count just changed before armed is read: see disarm. */
	smp_mb();
	active = thpcow_policy_active();

	/* Not before install (a parameter at load) nor after remove. */
	if (!READ_ONCE(thpcow_hook_installed) ||
	    active == READ_ONCE(thpcow_hook_armed))
		return;
	/*
	 * (Dis)arming waits for RCU tasks grace periods: the long queue. A
	 * disarm already waiting waits again from now.
	 */
	mod_delayed_work(system_long_wq, &thpcow_hook_work,
			 active ? 0 : THPCOW_HOOK_IDLE_DELAY);
}

/*
 * Arm the hook, if it is not, and keep it armed until thpcow_hook_put():
 * an interface brackets setting a policy with the two, so the policy is in
 * force when it returns, or it fails with nothing changed. Before the
 * hook is installed (a parameter given at load) there is nothing to do:
 * installing arms it.
 */
int thpcow_hook_get(void)
{
	int ret = 0;

	mutex_lock(&thpcow_hook_mutex);
	if (thpcow_hook_installed)
		ret = thpcow_hook_arm();
	if (!ret)
		thpcow_hook_users++;
	mutex_unlock(&thpcow_hook_mutex);
	return ret;
}

/*
 * Both under the mutex, so that a parameter write racing the module's exit
 * (its sysfs file outlives mod->exit()) cannot queue the work after
 * thpcow_hook_remove() cleared installed and thpcow_hook_flush() ran.
 */
void thpcow_hook_put(void)
{
	mutex_lock(&thpcow_hook_mutex);
	thpcow_hook_users--;
	thpcow_hook_update();
	mutex_unlock(&thpcow_hook_mutex);
}

/* A policy went, in process context: disarm if it was the last. */
void thpcow_hook_changed(void)
{
	mutex_lock(&thpcow_hook_mutex);
	thpcow_hook_update();
	mutex_unlock(&thpcow_hook_mutex);
}

bool thpcow_hook_is_armed(void)
{
	return READ_ONCE(thpcow_hook_armed);
}

unsigned long thpcow_hook_arm_count(void)
{
	return READ_ONCE(thpcow_hook_arms);
}

/*
 * Set the filter and arm once, so that a load fails at once, and says why,
 * where the function cannot be hooked at all; thpcow_hook_update() then
 * disarms if no policy is active.
 */
int thpcow_hook_install(void)
{
	unsigned long addr = (unsigned long)thpcow_ksym_addr(do_huge_pmd_wp_page);
	int ret;

	/* ftrace calls both indirectly: they must start with ENDBR64. */
	ret = thpcow_ibt_check_entry("thpcow_ftrace_thunk", thpcow_ftrace_thunk) ?:
	      thpcow_ibt_check_entry("thpcow_wp_page_entry", thpcow_wp_page_entry);
	if (ret)
		return ret;

	ret = ftrace_set_filter_ip(&thpcow_ftrace_ops, addr, 0, 0);
	if (ret) {
		pr_err("cannot trace do_huge_pmd_wp_page at %pS (%d)\n",
		       (void *)addr, ret);
		return ret;
	}
	mutex_lock(&thpcow_hook_mutex);
	ret = thpcow_hook_arm();
	WRITE_ONCE(thpcow_hook_installed, !ret);
	mutex_unlock(&thpcow_hook_mutex);
	if (ret)
		ftrace_set_filter_ip(&thpcow_ftrace_ops, addr, 1, 0);
	else
		thpcow_hook_update();
	return ret;
}

/*
 * After this returns no task runs module code on the fault path:
 *  - unregistering stops new redirections and waits (RCU tasks) for tasks
 *    inside the ftrace trampoline or between it and srcu_read_lock() in
 *    thpcow_wp_page_entry() (nothing there sleeps voluntarily);
 *  - synchronize_srcu() waits for handlers, which may sleep allocating;
 *  - the last RCU-tasks grace period waits for tasks between
 *    srcu_read_unlock() and the return.
 * The work item may still be queued by the policy probes until they are
 * gone: thpcow_hook_flush() waits for it then.
 */
void thpcow_hook_remove(void)
{
	unsigned long addr = (unsigned long)thpcow_ksym_addr(do_huge_pmd_wp_page);

	mutex_lock(&thpcow_hook_mutex);
	WRITE_ONCE(thpcow_hook_installed, false);
	thpcow_hook_disarm();
	mutex_unlock(&thpcow_hook_mutex);
	ftrace_set_filter_ip(&thpcow_ftrace_ops, addr, 1, 0);
	synchronize_rcu_tasks();
	synchronize_srcu(&thpcow_srcu);
	synchronize_rcu_tasks();
}

/* Nothing queues the work item any more: wait for it to be idle. */
void thpcow_hook_flush(void)
{
	cancel_delayed_work_sync(&thpcow_hook_work);
}
