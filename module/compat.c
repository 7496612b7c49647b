// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line bodies for the kernel's inline helpers.
 *
 * mem_cgroup_charge(), count_memcg_event_mm(), add_mm_counter(),
 * cgroup_throttle_swaprate(), pmdp_huge_clear_flush_notify() and the mmu
 * notifier helpers are static inlines or macros
 * in this series' headers, but the functions they end up calling are not
 * exported to modules. Defining those functions here, with the prototypes
 * from the kernel's own headers, lets thpcow call the inline helpers as
 * mm/ does; each body forwards to the address symbols.c resolved. A module's
 * own definitions bind before the kernel's, so nothing else is affected.
 */
#include "thpcow.h"

#define THPCOW_KSYM(sym, req)						\
	{ .name = #sym, .addr = (void **)&thpcow_ksyms.sym, .required = req }

const struct thpcow_ksym_desc thpcow_ksym_table[] = {
	THPCOW_KSYM(do_huge_pmd_wp_page, true),
	THPCOW_KSYM(huge_zero_pfn, true),
	THPCOW_KSYM(vma_thp_gfp_mask, true),
	THPCOW_KSYM(hugepage_vma_check, true),
	THPCOW_KSYM(clear_huge_page, true),
	THPCOW_KSYM(copy_user_huge_page, true),
	THPCOW_KSYM(page_add_new_anon_rmap, true),
	THPCOW_KSYM(lru_cache_add_inactive_or_unevictable, true),
	THPCOW_KSYM(page_remove_rmap, true),
	THPCOW_KSYM(__split_huge_pmd, true),
	THPCOW_KSYM(pmdp_huge_clear_flush, true),
	THPCOW_KSYM(__mem_cgroup_charge, true),
	THPCOW_KSYM(__count_memcg_events, true),
	THPCOW_KSYM(mm_trace_rss_stat, true),
	THPCOW_KSYM(__mmu_notifier_invalidate_range_start, true),
	THPCOW_KSYM(__mmu_notifier_invalidate_range_end, true),
	THPCOW_KSYM(__mmu_notifier_invalidate_range, true),
	THPCOW_KSYM(__cgroup_throttle_swaprate, false),
	{ }
};

int __mem_cgroup_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_ksyms.__mem_cgroup_charge(folio, mm, gfp);
}

void __count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			  unsigned long count)
{
	thpcow_ksyms.__count_memcg_events(memcg, idx, count);
}

void mm_trace_rss_stat(struct mm_struct *mm, int member, long count)
{
	thpcow_ksyms.mm_trace_rss_stat(mm, member, count);
}

int __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *r)
{
	return thpcow_ksyms.__mmu_notifier_invalidate_range_start(r);
}

void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *r,
					 bool only_end)
{
	thpcow_ksyms.__mmu_notifier_invalidate_range_end(r, only_end);
}

void __mmu_notifier_invalidate_range(struct mm_struct *mm,
				     unsigned long start, unsigned long end)
{
	thpcow_ksyms.__mmu_notifier_invalidate_range(mm, start, end);
}

pmd_t pmdp_huge_clear_flush(struct vm_area_struct *vma, unsigned long address,
			    pmd_t *pmdp)
{
	return thpcow_ksyms.pmdp_huge_clear_flush(vma, address, pmdp);
}

void __cgroup_throttle_swaprate(struct page *page, gfp_t gfp_mask)
{
	if (thpcow_ksyms.__cgroup_throttle_swaprate)
		thpcow_ksyms.__cgroup_throttle_swaprate(page, gfp_mask);
}
