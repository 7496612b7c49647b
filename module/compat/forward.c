// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line bodies for the kernel's inline helpers.
 *
 * mem_cgroup_charge(), count_memcg_event_mm(), add_mm_counter(), the
 * swap-rate throttle, pmdp_huge_clear_flush[_notify]() and the mmu notifier
 * helpers are static inlines or macros in the headers, but the functions
 * they end up calling are not exported to modules. Defining those
 * functions here, with the prototypes from the kernel's own headers, lets
 * thpcow call the inline helpers as mm/ does; each body makes a direct
 * call (compat/ksyms.h) to the address symbols.c resolved. A module's own
 * definitions bind before the kernel's, so nothing else is affected.
 */
#include "../thpcow.h"

pmd_t pmdp_huge_clear_flush(struct vm_area_struct *vma, unsigned long address,
			    pmd_t *pmdp)
{
	return thpcow_call(pmdp_huge_clear_flush)(vma, address, pmdp);
}

int __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *r)
{
	return thpcow_call(__mmu_notifier_invalidate_range_start)(r);
}

#if !THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH
void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *r,
					 bool only_end)
{
	thpcow_call(__mmu_notifier_invalidate_range_end)(r, only_end);
}

void __mmu_notifier_invalidate_range(struct mm_struct *mm,
				     unsigned long start, unsigned long end)
{
	thpcow_call(__mmu_notifier_invalidate_range)(mm, start, end);
}
#else
void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *r)
{
	thpcow_call(__mmu_notifier_invalidate_range_end)(r);
}
#endif

#if !THPCOW_HAS_RSS_STAT_PERCPU
void mm_trace_rss_stat(struct mm_struct *mm, int member, long count)
{
	thpcow_call(mm_trace_rss_stat)(mm, member, count);
}
#else
void mm_trace_rss_stat(struct mm_struct *mm, int member)
{
	thpcow_call(mm_trace_rss_stat)(mm, member);
}
#endif

#if THPCOW_HAS_PMD_MKWRITE_VMA
pmd_t pmd_mkwrite(pmd_t pmd, struct vm_area_struct *vma)
{
	return thpcow_call(pmd_mkwrite)(pmd, vma);
}
#endif

#if !THPCOW_HAS_MEMCG_CHARGE_INLINE
int mem_cgroup_charge(struct page *page, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_call(mem_cgroup_charge)(page, mm, gfp);
}
#elif !THPCOW_HAS_MEMCG_CHARGE_FOLIO
int __mem_cgroup_charge(struct page *page, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_call(__mem_cgroup_charge)(page, mm, gfp);
}
#else
int __mem_cgroup_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_call(__mem_cgroup_charge)(folio, mm, gfp);
}
#endif

#if !THPCOW_HAS_MEMCG_SWAPRATE_INLINE
void cgroup_throttle_swaprate(struct page *page, gfp_t gfp_mask)
{
	thpcow_call_cond(cgroup_throttle_swaprate)(page, gfp_mask);
}
#elif !THPCOW_HAS_FOLIO_THROTTLE_SWAPRATE
void __cgroup_throttle_swaprate(struct page *page, gfp_t gfp_mask)
{
	thpcow_call_cond(__cgroup_throttle_swaprate)(page, gfp_mask);
}
#else
void __folio_throttle_swaprate(struct folio *folio, gfp_t gfp)
{
	thpcow_call_cond(__folio_throttle_swaprate)(folio, gfp);
}
#endif

#if !THPCOW_HAS_COUNT_MEMCG_EVENTS
void __count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			  unsigned long count)
{
	thpcow_call(__count_memcg_events)(memcg, idx, count);
}
#else
void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			unsigned long count)
{
	thpcow_call(count_memcg_events)(memcg, idx, count);
}
#endif
