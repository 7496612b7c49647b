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
 * something: arm.c.
 */
#include "thpcow.h"

#include <linux/ftrace.h>
#include <linux/module.h>
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
 * Set the filter and arm once, so that a load fails at once, and says why,
 * where the function cannot be hooked at all (arm.c then disarms if no
 * policy is active).
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
	ret = thpcow_arm_install(&thpcow_ftrace_ops);
	if (ret)
		ftrace_set_filter_ip(&thpcow_ftrace_ops, addr, 1, 0);
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
 * Nothing queues arm.c's work item after this; thpcow_arm_flush() waits
 * for one still pending.
 */
void thpcow_hook_remove(void)
{
	unsigned long addr = (unsigned long)thpcow_ksym_addr(do_huge_pmd_wp_page);

	thpcow_arm_remove();
	ftrace_set_filter_ip(&thpcow_ftrace_ops, addr, 1, 0);
	synchronize_rcu_tasks();
	synchronize_srcu(&thpcow_srcu);
	synchronize_rcu_tasks();
}
