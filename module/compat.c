// SPDX-License-Identifier: GPL-2.0
/*
 * The series-specific bodies behind compat.h.
 *
 * Out-of-line bodies for the kernel's inline helpers: mem_cgroup_charge(),
 * count_memcg_event_mm(), add_mm_counter(), the swap-rate throttle,
 * pmdp_huge_clear_flush[_notify]() and the mmu notifier helpers are static
 * inlines or macros in the headers, but the functions they end up calling
 * are not exported to modules. Defining those functions here, with the
 * prototypes from the kernel's own headers, lets thpcow call the inline
 * helpers as mm/ does; each body forwards to the address symbols.c
 * resolved. A module's own definitions bind before the kernel's, so
 * nothing else is affected.
 *
 * Where an inline helper reads a variable that is not exported (the THP
 * sysfs flags, the mTHP statistics), no forwarder can help: the helper is
 * repeated here, reading the resolved variable, as the series has it.
 */
#include "thpcow.h"

#include <linux/sched.h>

#define THPCOW_KSYM(sym, req, fn)					\
	{ .name = #sym, .addr = (void **)&thpcow_ksyms.sym,		\
	  .required = req, .function = fn }
#define THPCOW_FUNC(sym)	THPCOW_KSYM(sym, true, true)
#define THPCOW_VAR(sym)		THPCOW_KSYM(sym, true, false)
/* optional: without it we merely do not throttle on swap rate */
#define THPCOW_OPTIONAL(sym)	THPCOW_KSYM(sym, false, true)

const struct thpcow_ksym_desc thpcow_ksym_table[] = {
	THPCOW_FUNC(do_huge_pmd_wp_page),
	THPCOW_VAR(huge_zero_pfn),
	THPCOW_FUNC(pmdp_huge_clear_flush),
	THPCOW_FUNC(__mmu_notifier_invalidate_range_start),
	THPCOW_FUNC(__mmu_notifier_invalidate_range_end),
	THPCOW_FUNC(mm_trace_rss_stat),
	THPCOW_FUNC(__split_huge_pmd),
#if THPCOW_UP_TO_5_10
	THPCOW_VAR(transparent_hugepage_flags),
	THPCOW_FUNC(prep_transhuge_page),
	THPCOW_FUNC(mem_cgroup_charge),
	THPCOW_OPTIONAL(cgroup_throttle_swaprate),
#elif THPCOW_UP_TO_6_1
	THPCOW_FUNC(vma_thp_gfp_mask),
	THPCOW_FUNC(hugepage_vma_check),
	THPCOW_FUNC(__mem_cgroup_charge),
	THPCOW_OPTIONAL(__cgroup_throttle_swaprate),
#else
	THPCOW_FUNC(vma_thp_gfp_mask),
	THPCOW_VAR(transparent_hugepage_flags),
	THPCOW_VAR(huge_anon_orders_always),
	THPCOW_VAR(huge_anon_orders_madvise),
	THPCOW_VAR(huge_anon_orders_inherit),
	THPCOW_FUNC(__thp_vma_allowable_orders),
	THPCOW_FUNC(__mem_cgroup_charge),
	THPCOW_OPTIONAL(__folio_throttle_swaprate),
	THPCOW_VAR(mthp_stats),
	THPCOW_FUNC(folio_zero_user),
	THPCOW_FUNC(folio_add_new_anon_rmap),
	THPCOW_FUNC(folio_add_lru_vma),
	THPCOW_FUNC(deferred_split_folio),
	THPCOW_FUNC(pmd_mkwrite),
#endif
#if THPCOW_UP_TO_6_1
	THPCOW_FUNC(clear_huge_page),
	THPCOW_FUNC(copy_user_huge_page),
	THPCOW_FUNC(page_add_new_anon_rmap),
	THPCOW_FUNC(lru_cache_add_inactive_or_unevictable),
	THPCOW_FUNC(page_remove_rmap),
	THPCOW_FUNC(__mmu_notifier_invalidate_range),
#else
	THPCOW_FUNC(copy_user_large_folio),
	THPCOW_FUNC(folio_remove_rmap_pmd),
#endif
#if THPCOW_UP_TO_5_10
	THPCOW_FUNC(page_trans_huge_mapcount),
#endif
#if THPCOW_UP_TO_6_12
	THPCOW_FUNC(__count_memcg_events),
#else
	THPCOW_FUNC(count_memcg_events),
	THPCOW_FUNC(folio_memcg_alloc_deferred),
#endif
	{ }
};

/* The hook's entry, with do_huge_pmd_wp_page()'s prototype. */
#if THPCOW_UP_TO_5_10
vm_fault_t thpcow_wp_page_entry(struct vm_fault *vmf, pmd_t orig_pmd)
{
	return thpcow_wp_page(vmf, orig_pmd);
}
#else
vm_fault_t thpcow_wp_page_entry(struct vm_fault *vmf)
{
	return thpcow_wp_page(vmf, vmf->orig_pmd);
}
#endif

/* The sched_process_exit probe, with the tracepoint's prototype. */
#if THPCOW_UP_TO_6_12
void thpcow_exit_probe(void *data, struct task_struct *task)
#else
void thpcow_exit_probe(void *data, struct task_struct *task, bool group_dead)
#endif
{
	thpcow_on_exit(task);
}

/* --- forwarders for the kernel's inline helpers ---------------------------- */

pmd_t pmdp_huge_clear_flush(struct vm_area_struct *vma, unsigned long address,
			    pmd_t *pmdp)
{
	return thpcow_ksyms.pmdp_huge_clear_flush(vma, address, pmdp);
}

int __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *r)
{
	return thpcow_ksyms.__mmu_notifier_invalidate_range_start(r);
}

#if THPCOW_UP_TO_6_1
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

void mm_trace_rss_stat(struct mm_struct *mm, int member, long count)
{
	thpcow_ksyms.mm_trace_rss_stat(mm, member, count);
}
#else
void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *r)
{
	thpcow_ksyms.__mmu_notifier_invalidate_range_end(r);
}

void mm_trace_rss_stat(struct mm_struct *mm, int member)
{
	thpcow_ksyms.mm_trace_rss_stat(mm, member);
}
#endif

#if !THPCOW_UP_TO_6_1
pmd_t pmd_mkwrite(pmd_t pmd, struct vm_area_struct *vma)
{
	return thpcow_ksyms.pmd_mkwrite(pmd, vma);
}
#endif

#if THPCOW_UP_TO_5_10
int mem_cgroup_charge(struct page *page, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_ksyms.mem_cgroup_charge(page, mm, gfp);
}

void cgroup_throttle_swaprate(struct page *page, gfp_t gfp_mask)
{
	if (thpcow_ksyms.cgroup_throttle_swaprate)
		thpcow_ksyms.cgroup_throttle_swaprate(page, gfp_mask);
}
#else
int __mem_cgroup_charge(struct folio *folio, struct mm_struct *mm, gfp_t gfp)
{
	return thpcow_ksyms.__mem_cgroup_charge(folio, mm, gfp);
}
#endif

#if THPCOW_UP_TO_6_1 && !THPCOW_UP_TO_5_10
void __cgroup_throttle_swaprate(struct page *page, gfp_t gfp_mask)
{
	if (thpcow_ksyms.__cgroup_throttle_swaprate)
		thpcow_ksyms.__cgroup_throttle_swaprate(page, gfp_mask);
}
#elif !THPCOW_UP_TO_6_1
void __folio_throttle_swaprate(struct folio *folio, gfp_t gfp)
{
	if (thpcow_ksyms.__folio_throttle_swaprate)
		thpcow_ksyms.__folio_throttle_swaprate(folio, gfp);
}
#endif

#if THPCOW_UP_TO_6_12
void __count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			  unsigned long count)
{
	thpcow_ksyms.__count_memcg_events(memcg, idx, count);
}
#else
void count_memcg_events(struct mem_cgroup *memcg, enum vm_event_item idx,
			unsigned long count)
{
	thpcow_ksyms.count_memcg_events(memcg, idx, count);
}
#endif

/* --- inline helpers that read unexported variables -------------------------- */

#if !THPCOW_UP_TO_6_1
/* hugepage_global_enabled() and hugepage_global_always() */
static bool thpcow_global_thp(unsigned long flags)
{
	return READ_ONCE(*thpcow_ksyms.transparent_hugepage_flags) & flags;
}
#endif

bool thpcow_thp_allowed(struct vm_area_struct *vma, unsigned long haddr)
{
#if THPCOW_UP_TO_5_10
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
#elif THPCOW_UP_TO_6_1
	return transhuge_vma_suitable(vma, haddr) &&
	       thpcow_ksyms.hugepage_vma_check(vma, vma->vm_flags,
					       false, true, true);
#else
	/* thp_vma_allowable_order(vma, vm_flags, <page fault>, PMD_ORDER) */
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
#if THPCOW_UP_TO_6_12
	return thpcow_ksyms.__thp_vma_allowable_orders(vma, vm_flags,
						       TVA_IN_PF | TVA_ENFORCE_SYSFS,
						       orders);
#else
	return thpcow_ksyms.__thp_vma_allowable_orders(vma, vm_flags,
						       TVA_PAGEFAULT, orders);
#endif
#endif
}

gfp_t thpcow_thp_gfp(struct vm_area_struct *vma)
{
#if THPCOW_UP_TO_5_10
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
	return thpcow_ksyms.vma_thp_gfp_mask(vma);
#endif
}

void thpcow_count_thp_event(enum vm_event_item item)
{
#if !THPCOW_UP_TO_6_1
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
