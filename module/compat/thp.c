// SPDX-License-Identifier: GPL-2.0
/*
 * The out-of-line THP fault steps of compat/thp.h: the kernel's inline
 * helpers that read variables it does not export (the THP sysfs flags, the
 * mTHP statistics) cannot be called from a module, so each is repeated
 * here, reading the resolved variable, as the series has it.
 */
#include "../thpcow.h"

#if THPCOW_HAS_MTHP
/* hugepage_global_enabled() and hugepage_global_always() */
static bool thpcow_global_thp(unsigned long flags)
{
	return READ_ONCE(*thpcow_ksyms.transparent_hugepage_flags) & flags;
}
#endif

bool thpcow_thp_vma_allowable_order(struct vm_area_struct *vma,
				    unsigned long haddr)
{
#if !THPCOW_HAS_HUGEPAGE_VMA_CHECK
	/* __transparent_hugepage_enabled(), which 5.10's fault path asks */
	unsigned long flags = READ_ONCE(*thpcow_ksyms.transparent_hugepage_flags);

	if (!transhuge_vma_suitable(vma, haddr))
		return false;
	if (flags & (1 << TRANSPARENT_HUGEPAGE_NEVER_DAX))
		return false;
	if (!transhuge_vma_enabled(vma, vma->vm_flags))
		return false;
	if (vma_is_temporary_stack(vma))
		return false;
	if (flags & (1 << TRANSPARENT_HUGEPAGE_FLAG))
		return true;
	if (vma_is_dax(vma))
		return true;
	if (flags & (1 << TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG))
		return !!(vma->vm_flags & VM_HUGEPAGE);
	return false;
#elif !THPCOW_HAS_MTHP
	return transhuge_vma_suitable(vma, haddr) &&
	       thpcow_call(hugepage_vma_check)(vma, vma->vm_flags,
					       false, true, true);
#else
	unsigned long vm_flags = vma->vm_flags;
	unsigned long orders = BIT(PMD_ORDER);
	unsigned long mask;

	if (!thp_vma_suitable_order(vma, haddr, PMD_ORDER))
		return false;
	if (vma_is_anonymous(vma)) {
		mask = READ_ONCE(*thpcow_ksyms.huge_anon_orders_always);
		if (vm_flags & VM_HUGEPAGE)
			mask |= READ_ONCE(*thpcow_ksyms.huge_anon_orders_madvise);
		if (thpcow_global_thp(1 << TRANSPARENT_HUGEPAGE_FLAG) ||
		    ((vm_flags & VM_HUGEPAGE) &&
		     thpcow_global_thp((1 << TRANSPARENT_HUGEPAGE_FLAG) |
				       (1 << TRANSPARENT_HUGEPAGE_REQ_MADV_FLAG))))
			mask |= READ_ONCE(*thpcow_ksyms.huge_anon_orders_inherit);
		orders &= mask;
		if (!orders)
			return false;
	}
#if !THPCOW_HAS_TVA_FLAGS
	/* smaps false, in_pf true, enforce_sysfs true */
	return thpcow_call(__thp_vma_allowable_orders)(vma, vm_flags, false,
						       true, true, orders);
#elif !THPCOW_HAS_TVA_TYPE
	return thpcow_call(__thp_vma_allowable_orders)(vma, vm_flags,
						       TVA_IN_PF | TVA_ENFORCE_SYSFS,
						       orders);
#else
	return thpcow_call(__thp_vma_allowable_orders)(vma, vm_flags,
						       TVA_PAGEFAULT, orders);
#endif
#endif
}

gfp_t thpcow_vma_thp_gfp_mask(struct vm_area_struct *vma)
{
#if !THPCOW_HAS_VMA_THP_GFP_MASK
	/* alloc_hugepage_direct_gfpmask(), static in 5.10's mm/huge_memory.c */
	unsigned long *flags = thpcow_ksyms.transparent_hugepage_flags;
	const bool vma_madvised = !!(vma->vm_flags & VM_HUGEPAGE);

	if (test_bit(TRANSPARENT_HUGEPAGE_DEFRAG_DIRECT_FLAG, flags))
		return GFP_TRANSHUGE | (vma_madvised ? 0 : __GFP_NORETRY);
	if (test_bit(TRANSPARENT_HUGEPAGE_DEFRAG_KSWAPD_FLAG, flags))
		return GFP_TRANSHUGE_LIGHT | __GFP_KSWAPD_RECLAIM;
	if (test_bit(TRANSPARENT_HUGEPAGE_DEFRAG_KSWAPD_OR_MADV_FLAG, flags))
		return GFP_TRANSHUGE_LIGHT |
		       (vma_madvised ? __GFP_DIRECT_RECLAIM :
				       __GFP_KSWAPD_RECLAIM);
	if (test_bit(TRANSPARENT_HUGEPAGE_DEFRAG_REQ_MADV_FLAG, flags))
		return GFP_TRANSHUGE_LIGHT |
		       (vma_madvised ? __GFP_DIRECT_RECLAIM : 0);
	return GFP_TRANSHUGE_LIGHT;
#else
	return thpcow_call(vma_thp_gfp_mask)(vma);
#endif
}

void thpcow_count_thp_event(enum vm_event_item item)
{
#if THPCOW_HAS_MTHP_STATS
	/* count_mthp_stat(HPAGE_PMD_ORDER, ...) */
	enum mthp_stat_item mthp;

	switch (item) {
	case THP_FAULT_ALLOC:
		mthp = MTHP_STAT_ANON_FAULT_ALLOC;
		break;
	case THP_FAULT_FALLBACK:
		mthp = MTHP_STAT_ANON_FAULT_FALLBACK;
		break;
	default:
		mthp = MTHP_STAT_ANON_FAULT_FALLBACK_CHARGE;
		break;
	}
	this_cpu_inc(thpcow_ksyms.mthp_stats->stats[HPAGE_PMD_ORDER][mthp]);
#endif
	count_vm_event(item);
}
