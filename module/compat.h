/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel series lives here and in compat.c.
 *
 * The rest of the module is written against one vocabulary:
 *
 *  - THPCOW_KSYMS(X): the kernel functions and variables thpcow needs but
 *    the kernel does not export. symbols.c resolves each at load; a missing
 *    required one fails the load with its name. compat.c gives the
 *    functions that the kernel's own inline helpers call an out-of-line
 *    body that forwards to the resolved address, so code here can use
 *    mem_cgroup_charge(), add_mm_counter(), mmu notifiers and friends
 *    exactly as mm/huge_memory.c of the same series does.
 *
 *  - the thpcow_*() helpers below, one per operation whose API changed.
 */
#ifndef THPCOW_COMPAT_H
#define THPCOW_COMPAT_H

#include <linux/ftrace.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/swap.h>

/* Kbuild refuses unsupported series and configurations before we get here. */

/*
 * What thpcow needs but the kernel does not export, typed after the
 * kernel's own declarations; compat.c names each for symbols.c to resolve.
 */
struct thpcow_ksyms {
	/* the hooked function, called for everything we pass on */
	typeof(&do_huge_pmd_wp_page) do_huge_pmd_wp_page;
	/* is_huge_zero_pmd() reads it */
	typeof(&huge_zero_pfn) huge_zero_pfn;
	/* the first-touch THP fault's gfp and eligibility rules */
	typeof(&vma_thp_gfp_mask) vma_thp_gfp_mask;
	typeof(&hugepage_vma_check) hugepage_vma_check;
	/* building the new mapping, as __do_huge_pmd_anonymous_page() */
	typeof(&clear_huge_page) clear_huge_page;
	typeof(&copy_user_huge_page) copy_user_huge_page;
	typeof(&page_add_new_anon_rmap) page_add_new_anon_rmap;
	typeof(&lru_cache_add_inactive_or_unevictable) lru_cache_add_inactive_or_unevictable;
	/* what do_huge_pmd_wp_page() falls back to: split the PMD */
	typeof(&__split_huge_pmd) __split_huge_pmd;
	/* the copied THP's old mapping goes, as in zap_huge_pmd() */
	typeof(&page_remove_rmap) page_remove_rmap;
	/* out-of-line halves of inline helpers (compat.c) */
	typeof(&pmdp_huge_clear_flush) pmdp_huge_clear_flush;
	typeof(&__mem_cgroup_charge) __mem_cgroup_charge;
	typeof(&__count_memcg_events) __count_memcg_events;
	typeof(&mm_trace_rss_stat) mm_trace_rss_stat;
	typeof(&__mmu_notifier_invalidate_range_start) __mmu_notifier_invalidate_range_start;
	typeof(&__mmu_notifier_invalidate_range_end) __mmu_notifier_invalidate_range_end;
	typeof(&__mmu_notifier_invalidate_range) __mmu_notifier_invalidate_range;
	/* optional: without it we merely do not throttle on swap rate */
	typeof(&__cgroup_throttle_swaprate) __cgroup_throttle_swaprate;
};

extern struct thpcow_ksyms thpcow_ksyms;

/* ftrace: the callback's register argument and how to redirect it. */
#define THPCOW_FTRACE_FLAGS						\
	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |		\
	 FTRACE_OPS_FL_RECURSION)

static inline void thpcow_ftrace_set_ip(struct ftrace_regs *fregs,
					unsigned long ip)
{
	ftrace_instruction_pointer_set(fregs, ip);
}

/* The kernel's own fallback for a write on the huge zero page, before 6.13. */
static inline vm_fault_t thpcow_split_zero_pmd(struct vm_fault *vmf)
{
	vmf->ptl = pmd_lockptr(vmf->vma->vm_mm, vmf->pmd);
	thpcow_ksyms.__split_huge_pmd(vmf->vma, vmf->pmd, vmf->address, false,
				      NULL);
	return VM_FAULT_FALLBACK;
}

/* Does this kernel already give the huge zero page a THP on write (6.13)? */
static inline bool thpcow_kernel_substitutes_zero(void)
{
	return false;
}

static inline bool thpcow_is_huge_zero_pmd(pmd_t pmd)
{
	return pmd_present(pmd) &&
	       READ_ONCE(*thpcow_ksyms.huge_zero_pfn) == pmd_pfn(pmd);
}

/* May a THP fault at @haddr in @vma take a THP now (sysfs, madvise, prctl)? */
static inline bool thpcow_thp_allowed(struct vm_area_struct *vma,
				      unsigned long haddr)
{
	return transhuge_vma_suitable(vma, haddr) &&
	       thpcow_ksyms.hugepage_vma_check(vma, vma->vm_flags,
					       false, true, true);
}

static inline struct folio *thpcow_alloc_thp(struct vm_area_struct *vma,
					     unsigned long haddr, gfp_t gfp)
{
	return vma_alloc_folio(gfp, HPAGE_PMD_ORDER, vma, haddr, true);
}

static inline void thpcow_clear_thp(struct folio *folio, unsigned long addr)
{
	thpcow_ksyms.clear_huge_page(&folio->page, addr, HPAGE_PMD_NR);
}

static inline void thpcow_copy_thp(struct folio *dst, struct folio *src,
				   unsigned long addr, struct vm_area_struct *vma)
{
	thpcow_ksyms.copy_user_huge_page(&dst->page, &src->page, addr, vma,
					 HPAGE_PMD_NR);
}

/* The faulting mapping of @src goes; its page reference is the caller's. */
static inline void thpcow_remove_thp_rmap(struct folio *src,
					  struct vm_area_struct *vma)
{
	thpcow_ksyms.page_remove_rmap(&src->page, vma, true);
}

/*
 * Would the kernel's own CoW refuse to copy @page for another reason than
 * that it is shared? If so, says why in *@why. Caller holds the PMD lock. Mirrors do_huge_pmd_wp_page() of 6.1:
 * an exclusive page is reused, never copied; a page that may be pinned
 * for DMA must stay the one the device sees; swap cache and KSM pages are
 * left to the kernel.
 */
static inline bool thpcow_copy_refused(struct folio *folio, struct page *page,
				       enum thpcow_stat *why)
{
	if (PageAnonExclusive(page))
		*why = THPCOW_STAT_NOT_SHARED;
	else if (folio_maybe_dma_pinned(folio))
		*why = THPCOW_STAT_FALLBACK_PINNED;
	else if (!folio_test_anon(folio) || folio_test_ksm(folio) ||
		 folio_test_swapcache(folio))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
	else
		return false;
	return true;
}

static inline void thpcow_mmu_range_init(struct mmu_notifier_range *range,
					 struct vm_area_struct *vma,
					 unsigned long start, unsigned long end)
{
	mmu_notifier_range_init(range, MMU_NOTIFY_CLEAR, 0, vma, vma->vm_mm,
				start, end);
}

/* Take down the old PMD, secondary TLBs (IOMMU SVA) included. */
static inline void thpcow_pmd_clear_flush(struct vm_area_struct *vma,
					  unsigned long haddr, pmd_t *pmd)
{
	pmdp_huge_clear_flush_notify(vma, haddr, pmd);
}

/* rmap and LRU for a new exclusive anonymous THP, as a first-touch fault. */
static inline void thpcow_add_new_anon_thp(struct folio *folio,
					   struct vm_area_struct *vma,
					   unsigned long haddr)
{
	thpcow_ksyms.page_add_new_anon_rmap(&folio->page, vma, haddr);
	thpcow_ksyms.lru_cache_add_inactive_or_unevictable(&folio->page, vma);
}

static inline pmd_t thpcow_mk_thp_pmd(struct folio *folio,
				      struct vm_area_struct *vma)
{
	pmd_t entry = pmd_mkdirty(mk_huge_pmd(&folio->page, vma->vm_page_prot));

	/* maybe_pmd_mkwrite(), which 6.1 does not declare outside mm/ */
	if (likely(vma->vm_flags & VM_WRITE))
		entry = pmd_mkwrite(entry);
	return entry;
}

#endif /* THPCOW_COMPAT_H */
