// SPDX-License-Identifier: GPL-2.0
/*
 * The hook on do_huge_pmd_wp_page().
 *
 * An ftrace callback on the function's entry asks thpcow_decide() what
 * the policy covering the faulting mm makes of the fault. Where the
 * answer is the kernel's path, unchanged, the callback counts why and the
 * call goes on as if unhooked; otherwise it sends the call to
 * thpcow_wp_page_entry(), which has the function's prototype
 * (compat/series.h), instead (FTRACE_OPS_FL_IPMODIFY). The handler asks
 * thpcow_decide() again, under SRCU, as the policy may have changed in
 * between, and acts; whatever it does not take over it passes to the
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

/* What thpcow does with a write fault on a huge PMD. */
enum thpcow_action {
	THPCOW_ACT_KERNEL,	/* the kernel's path, unchanged */
	THPCOW_ACT_ZERO,	/* a zeroed THP for the huge zero page */
	THPCOW_ACT_COPY,	/* a whole copy of a shared anon THP */
	THPCOW_ACT_SPLIT,	/* split, as the kernel did before 6.13 */
};

/*
 * The one decision table, read by the ftrace callback and by the handler:
 * what @mode makes of this fault, from what is known without the PMD lock.
 * For THPCOW_ACT_KERNEL, @why is the counter that says why. 'zero' acts on
 * the huge zero page only, where the kernel does not substitute it itself;
 * 'copy' on that and on any other THP but one the kernel reuses in place
 * because it is PageAnonExclusive (whether it is shared is seen again under
 * the PMD lock); 'split' only where the kernel would substitute. Unshare
 * faults (a read-only GUP pin) are always the kernel's.
 */
static enum thpcow_action thpcow_decide(struct vm_fault *vmf, pmd_t orig_pmd,
					enum thpcow_mode mode,
					enum thpcow_stat *why)
{
	bool zero;

	if (mode == THPCOW_MODE_KERNEL) {
		*why = THPCOW_STAT_PASSTHROUGH;
		return THPCOW_ACT_KERNEL;
	}
	if (vmf->flags & FAULT_FLAG_UNSHARE) {
		*why = THPCOW_STAT_UNSHARE;
		return THPCOW_ACT_KERNEL;
	}
	zero = thpcow_is_huge_zero_pmd(orig_pmd);
	if (mode == THPCOW_MODE_SPLIT) {
		if (zero && thpcow_native_zero)
			return THPCOW_ACT_SPLIT;
		*why = THPCOW_STAT_PASSTHROUGH;
		return THPCOW_ACT_KERNEL;
	}
	/* 'zero' or 'copy' */
	if (zero) {
		if (!thpcow_native_zero)
			return THPCOW_ACT_ZERO;
		*why = THPCOW_STAT_NATIVE;
	} else if (mode != THPCOW_MODE_COPY) {
		*why = THPCOW_STAT_NOT_ZERO_PAGE;
	} else if (thpcow_thp_maybe_exclusive(orig_pmd)) {
		*why = THPCOW_STAT_NOT_SHARED;
	} else {
		return THPCOW_ACT_COPY;
	}
	return THPCOW_ACT_KERNEL;
}

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

/* Each fault the hook sees moves one counter and makes one event. */
static void thpcow_outcome(struct vm_fault *vmf, enum thpcow_stat why)
{
	thpcow_count(why);
	trace_thpcow_fault(vmf, thpcow_stat_names[why]);
}

/*
 * Act on a write fault the ftrace callback redirected here, as
 * thpcow_decide() says now. Returns false to pass the fault to the kernel
 * unchanged.
 */
static bool thpcow_handle(struct vm_fault *vmf, pmd_t orig_pmd,
			  vm_fault_t *ret)
{
	struct thpcow_rule *rule = NULL;
	enum thpcow_stat why;
	enum thpcow_mode mode;
	int idx;

	thpcow_count(THPCOW_STAT_HOOK_CALLS);
	mode = thpcow_policy_of(vmf->vma->vm_mm, &rule);
	switch (thpcow_decide(vmf, orig_pmd, mode, &why)) {
	case THPCOW_ACT_KERNEL:
		/* The policy changed since the callback asked. */
		break;
	case THPCOW_ACT_SPLIT:
		/* What this kernel did before it learnt to substitute. */
		why = THPCOW_STAT_SPLIT;
		*ret = thpcow_split_huge_pmd(vmf);
		break;
	case THPCOW_ACT_ZERO:
		if (thpcow_eligible(vmf, &why))
			*ret = thpcow_subst_zero(vmf, orig_pmd, &why);
		break;
	case THPCOW_ACT_COPY:
		if (thpcow_eligible(vmf, &why))
			*ret = thpcow_subst_copy(vmf, orig_pmd, &why);
		break;
	}
	thpcow_outcome(vmf, why);
	idx = thpcow_stat_usage(why);
	if (idx >= 0) {
		thpcow_policy_account(rule, idx);
		thpcow_usage_account(vmf->vma->vm_mm, idx);
	}
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

static void notrace thpcow_ftrace_thunk(unsigned long ip,
					unsigned long parent_ip,
					struct ftrace_ops *ops,
					struct thpcow_ftrace_regs *fregs)
{
	struct vm_fault *vmf;
	enum thpcow_stat why;

	if (within_module(parent_ip, THIS_MODULE))
		return;
	/*
	 * A fault that no policy covers, or whose policy could not change
	 * what the kernel does with it, runs as if unhooked, counted: no
	 * second pass through ftrace, no handler.
	 */
	vmf = thpcow_ftrace_vmf(fregs);
	if (thpcow_decide(vmf, thpcow_ftrace_orig_pmd(fregs, vmf),
			  thpcow_policy_peek(vmf->vma->vm_mm), &why) ==
	    THPCOW_ACT_KERNEL)
		thpcow_outcome(vmf, why);
	else
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
