/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The steps of a THP fault whose API differs between series, each doing
 * what the first-touch THP fault of the running series does, and named
 * after the upstream function it stands for (grep mm/ for the original).
 */
#ifndef THPCOW_COMPAT_THP_H
#define THPCOW_COMPAT_THP_H

#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/huge_mm.h>
#include <linux/memcontrol.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "features.h"
#include "ksyms.h"
#include "series.h"

/* is_huge_zero_pmd(); 7.x's huge zero folio may be larger than a PMD. */
static inline bool thpcow_is_huge_zero_pmd(pmd_t pmd)
{
#if !THPCOW_HAS_LARGE_HUGE_ZERO_FOLIO
	return pmd_present(pmd) &&
	       READ_ONCE(*thpcow_ksyms.huge_zero_pfn) == pmd_pfn(pmd);
#else
	return pmd_present(pmd) &&
	       READ_ONCE(*thpcow_ksyms.huge_zero_pfn) ==
	       (pmd_pfn(pmd) & ~(HPAGE_PMD_NR - 1));
#endif
}

/*
 * What a write fault that gave the faulting mm a page of its own returns.
 * Before 6.0 GUP needs VM_FAULT_WRITE there, as do_wp_page() and the reuse
 * in do_huge_pmd_wp_page() return it: on it faultin_page() sets FOLL_COW,
 * so that a FOLL_FORCE write into a read-only private mapping (ptrace,
 * /proc/PID/mem) follows the page it got instead of faulting again. 6.0
 * removed FOLL_COW (GUP checks PageAnonExclusive), 6.2 VM_FAULT_WRITE.
 */
#if !THPCOW_HAS_NO_FOLL_COW
#define THPCOW_VM_FAULT_WRITE	VM_FAULT_WRITE
#else
#define THPCOW_VM_FAULT_WRITE	0
#endif

/* The kernel's own fallback for a write on the huge zero page, before 6.13. */
static inline vm_fault_t thpcow_split_huge_pmd(struct vm_fault *vmf)
{
	vmf->ptl = pmd_lockptr(vmf->vma->vm_mm, vmf->pmd);
#if !THPCOW_HAS_SPLIT_HUGE_PMD_NO_FOLIO
	thpcow_call(__split_huge_pmd)(vmf->vma, vmf->pmd, vmf->address, false,
				      NULL);
#else
	thpcow_call(__split_huge_pmd)(vmf->vma, vmf->pmd, vmf->address, false);
#endif
	return VM_FAULT_FALLBACK;
}

/*
 * thp_vma_allowable_order(vma, vm_flags, <page fault>, PMD_ORDER): may a
 * THP fault at @haddr in @vma take a THP now (sysfs, madvise, prctl)?
 */
bool thpcow_thp_vma_allowable_order(struct vm_area_struct *vma,
				    unsigned long haddr);

/* vma_thp_gfp_mask(): sysfs 'defrag' and MADV_HUGEPAGE. */
gfp_t thpcow_vma_thp_gfp_mask(struct vm_area_struct *vma);

/* count_vm_event() and, with mTHP statistics, count_mthp_stat(PMD order). */
void thpcow_count_thp_event(enum vm_event_item item);

static inline struct folio *thpcow_vma_alloc_folio(struct vm_area_struct *vma,
						   unsigned long haddr,
						   gfp_t gfp)
{
#if !THPCOW_HAS_VMA_ALLOC_FOLIO
	struct page *page = alloc_hugepage_vma(gfp, vma, haddr, HPAGE_PMD_ORDER);

	if (page)
		thpcow_call(prep_transhuge_page)(page);
	return (struct folio *)page;
#elif !THPCOW_HAS_VMA_ALLOC_FOLIO_NO_HUGEPAGE
	return vma_alloc_folio(gfp, HPAGE_PMD_ORDER, vma, haddr, true);
#else
	return vma_alloc_folio(gfp, HPAGE_PMD_ORDER, vma, haddr);
#endif
}

/*
 * __folio_alloc_node(): a THP on @nid, prepared as thpcow_vma_alloc_folio()
 * prepares a fault's (the same allocator call below the policy lookup).
 */
static inline struct folio *thpcow_folio_alloc_node(gfp_t gfp, int nid)
{
#if !THPCOW_HAS_VMA_ALLOC_FOLIO
	struct page *page = alloc_pages_node(nid, gfp, HPAGE_PMD_ORDER);

	if (page)
		thpcow_call(prep_transhuge_page)(page);
	return (struct folio *)page;
#else
	return __folio_alloc_node(gfp, HPAGE_PMD_ORDER, nid);
#endif
}

/* Charge the new THP to @mm's memcg: 0 or an error, the THP still to put. */
static inline int thpcow_mem_cgroup_charge(struct folio *folio,
					   struct mm_struct *mm, gfp_t gfp)
{
#if !THPCOW_HAS_MEMCG_CHARGE_FOLIO
	return mem_cgroup_charge(thpcow_folio_page(folio), mm, gfp);
#else
	return mem_cgroup_charge(folio, mm, gfp);
#endif
}

/* 7.x gives a new THP its memcg's deferred split list. */
static inline int thpcow_folio_memcg_alloc_deferred(struct folio *folio)
{
#if !THPCOW_HAS_FOLIO_MEMCG_ALLOC_DEFERRED
	return 0;
#else
	return thpcow_call(folio_memcg_alloc_deferred)(folio);
#endif
}

/* Zero the THP, the subpage at @addr last (it stays cache-hot). */
static inline void thpcow_folio_zero_user(struct folio *folio,
					  unsigned long addr)
{
#if !THPCOW_HAS_FOLIO_ZERO_USER
	thpcow_call(clear_huge_page)(thpcow_folio_page(folio), addr,
				     HPAGE_PMD_NR);
#elif !THPCOW_HAS_USER_ALLOC_NEEDS_ZEROING
	thpcow_call(folio_zero_user)(folio, addr);
#else
	/* Otherwise the allocator zeroed it already (init_on_alloc). */
	if (user_alloc_needs_zeroing())
		thpcow_call(folio_zero_user)(folio, addr);
#endif
}

/*
 * copy_mc_user_highpage() as 6.12 has it: 0, or the bytes not copied, and
 * then the poisoned source page is queued for memory_failure(). A machine
 * check the copy recovers from is not reported otherwise (the handler only
 * fixes up the copy), and each later copy of the page would take another.
 * 6.1's copy_mc_user_highpage() does not report, its caller does
 * (__wp_page_copy_user()); 6.9 moved the report into it. Without it (5.10)
 * the kernel has no machine-check-safe CoW copy at all: its own copies
 * cannot recover; copy_mc_to_kernel() is what it is built on.
 */
static inline int thpcow_copy_mc_user_highpage(struct page *to,
					       struct page *from,
					       unsigned long vaddr,
					       struct vm_area_struct *vma)
{
	int ret;

#if !THPCOW_HAS_COPY_MC_USER_HIGHPAGE
	/* x86-64 (module/Kbuild) has no highmem: every page is mapped. */
	ret = copy_mc_to_kernel(page_address(to), page_address(from), PAGE_SIZE);
#else
	ret = copy_mc_user_highpage(to, from, vaddr, vma);
#endif
	if (ret && !THPCOW_HAS_COPY_MC_REPORTS)
		memory_failure_queue(page_to_pfn(from), 0);
	return ret;
}

/*
 * Copy @src into @dst; non-zero (-EHWPOISON) if a poisoned subpage of @src
 * was met, reported to memory_failure(), and @dst is not to be used.
 * Before copy_user_large_folio(), copy_user_huge_page() copies with plain
 * copy_user_highpage(), which cannot recover from a machine check: copy
 * each subpage machine-check-safely, as copy_user_large_folio() does (and
 * reports: 6.8's in its callback, 6.9 on in copy_mc_user_highpage()).
 */
static inline int thpcow_copy_user_large_folio(struct folio *dst,
					       struct folio *src,
					       unsigned long addr,
					       struct vm_area_struct *vma)
{
#if !THPCOW_HAS_COPY_USER_LARGE_FOLIO
	struct page *to = thpcow_folio_page(dst), *from = thpcow_folio_page(src);
	unsigned long haddr = addr & HPAGE_PMD_MASK;
	int i;

	for (i = 0; i < HPAGE_PMD_NR; i++) {
		cond_resched();
		if (thpcow_copy_mc_user_highpage(to + i, from + i,
						 haddr + i * PAGE_SIZE, vma))
			return -EHWPOISON;
	}
	return 0;
#else
	return thpcow_call(copy_user_large_folio)(dst, src, addr, vma);
#endif
}

/* Does the kernel know @folio holds a poisoned page? 5.10 does not track it. */
static inline bool thpcow_folio_test_has_hwpoisoned(struct folio *folio)
{
#if THPCOW_HAS_FOLIO
	return folio_test_has_hwpoisoned(folio);
#elif THPCOW_HAS_HWPOISONED_FLAG
	return PageHasHWPoisoned(thpcow_folio_page(folio));
#else
	return false;
#endif
}

/* The faulting mapping of @src goes; its page reference is the caller's. */
static inline void thpcow_folio_remove_rmap_pmd(struct folio *src,
						struct vm_area_struct *vma)
{
#if !THPCOW_HAS_REMOVE_RMAP_VMA
	thpcow_call(page_remove_rmap)(thpcow_folio_page(src), true);
#elif !THPCOW_HAS_FOLIO_REMOVE_RMAP_PMD
	thpcow_call(page_remove_rmap)(thpcow_folio_page(src), vma, true);
#else
	thpcow_call(folio_remove_rmap_pmd)(src, thpcow_folio_page(src), vma);
#endif
}

/*
 * Would the kernel's own CoW not copy @page, or copy it for another reason
 * than that it is shared? If so, says why in *@why. Caller holds the PMD
 * lock. Mirrors do_huge_pmd_wp_page() of the series: a THP nobody else
 * holds is reused, never copied (before PageAnonExclusive, 5.10 and 5.15,
 * it tells by its map count, reuse_swap_page(); later series by
 * PageAnonExclusive, or by a reference count of one once the other sharers
 * exited or exec'd); swap cache, KSM and poisoned THPs are left to the
 * kernel. Before 5.19 a shared page may be pinned for DMA (a read-only
 * pin does not unshare there) and must stay the one the device sees. From
 * 5.19 on a shared anonymous page cannot be pinned: GUP unshares it first
 * (FAULT_FLAG_UNSHARE), fork() copies a pinned one, and a pinned page is
 * PageAnonExclusive, which is reused before any such check: the kernel
 * does not check, and neither does this.
 */
static inline bool thpcow_copy_refused(struct folio *folio, struct page *page,
				       enum thpcow_stat *why)
{
#if !THPCOW_HAS_ANON_EXCLUSIVE
	if (thpcow_call(page_trans_huge_mapcount)(page, NULL) <= 1)
		*why = THPCOW_STAT_NOT_SHARED;
	else if (page_maybe_dma_pinned(page))
		*why = THPCOW_STAT_FALLBACK_PINNED;
	else if (!PageAnon(page) || PageKsm(page) || PageSwapCache(page))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
#else
	if (PageAnonExclusive(page) ||
	    folio_ref_count(folio) <= 1 + (folio_test_swapcache(folio) ?
					   folio_nr_pages(folio) : 0))
		*why = THPCOW_STAT_NOT_SHARED;
	else if (!folio_test_anon(folio) || folio_test_ksm(folio) ||
		 folio_test_swapcache(folio) ||
		 thpcow_folio_test_has_hwpoisoned(folio))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
#endif
	else
		return false;
	return true;
}

/*
 * A first look without the PMD lock (the ftrace callback's): is the THP
 * @pmd maps one do_huge_pmd_wp_page() reuses at once because it is
 * PageAnonExclusive (5.19 on; 6.1's, 6.8's, 6.12's and 7.3's check it
 * before anything else)? thpcow_copy_refused() decides under the lock;
 * this only spares such faults the detour. The THP may be unmapped and
 * freed meanwhile (a concurrent MADV_DONTNEED holds mmap_lock for read
 * too), so the flags are read raw, without PageAnonExclusive()'s
 * VM_BUG_ON_PGFLAGS(!PageAnon()); a stale answer costs one detour or one
 * fault passed to the kernel, which reuses or copies it itself.
 */
static inline bool thpcow_thp_maybe_exclusive(pmd_t pmd)
{
#if THPCOW_HAS_ANON_EXCLUSIVE
	struct page *page = pmd_page(pmd);

	return folio_test_anon(page_folio(page)) &&
	       test_bit(PG_anon_exclusive, (unsigned long *)&page->flags);
#else
	return false;
#endif
}

static inline void thpcow_mmu_notifier_range_init(struct mmu_notifier_range *range,
						  struct vm_area_struct *vma,
						  unsigned long start,
						  unsigned long end)
{
#if !THPCOW_HAS_MMU_NOTIFIER_RANGE_NO_VMA
	mmu_notifier_range_init(range, MMU_NOTIFY_CLEAR, 0, vma, vma->vm_mm,
				start, end);
#else
	mmu_notifier_range_init(range, MMU_NOTIFY_CLEAR, 0, vma->vm_mm,
				start, end);
#endif
}

/*
 * mmu_notifier_invalidate_range_start(). Under CONFIG_LOCKDEP (a debug
 * kernel) the inline also takes __mmu_notifier_invalidate_range_start_map,
 * a lockdep map the kernel does not export, which would fail the module's
 * link: the inline's steps (the same in 6.1, 6.12 and Ubuntu's 5.15 and
 * 6.8), on that map found by name, so that lockdep checks thpcow's
 * invalidations as mm/'s.
 */
static inline void
thpcow_mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range)
{
#ifdef CONFIG_LOCKDEP
	struct lockdep_map *map =
		thpcow_ksyms.__mmu_notifier_invalidate_range_start_map;

	might_sleep();
	lock_map_acquire(map);
	if (mm_has_notifiers(range->mm)) {
		range->flags |= MMU_NOTIFIER_RANGE_BLOCKABLE;
		__mmu_notifier_invalidate_range_start(range);
	}
	lock_map_release(map);
#else
	mmu_notifier_invalidate_range_start(range);
#endif
}

/*
 * Take down the old PMD. Up to 6.5 secondary TLBs (IOMMU SVA) were told
 * here (the _notify variant), and the range's end need not tell them
 * again (thpcow_mmu_notifier_invalidate_range_end()); since, the TLB flush
 * itself tells them.
 */
static inline void thpcow_pmdp_huge_clear_flush_notify(struct vm_area_struct *vma,
						       unsigned long haddr,
						       pmd_t *pmd)
{
#if !THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH
	pmdp_huge_clear_flush_notify(vma, haddr, pmd);
#else
	pmdp_huge_clear_flush(vma, haddr, pmd);
#endif
}

/*
 * The end of a range begun with thpcow_mmu_notifier_invalidate_range_start():
 * before 6.6 in its _only_end form, as wp_page_copy() does after a _notify
 * clear; the plain form would invalidate the secondary TLBs a second time.
 */
static inline void
thpcow_mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range)
{
#if !THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH
	mmu_notifier_invalidate_range_only_end(range);
#else
	mmu_notifier_invalidate_range_end(range);
#endif
}

/* rmap for a new exclusive anonymous THP mapped by a PMD. */
static inline void thpcow_folio_add_new_anon_rmap(struct folio *folio,
						  struct vm_area_struct *vma,
						  unsigned long haddr)
{
#if !THPCOW_HAS_NEW_ANON_RMAP_NO_COMPOUND
	thpcow_call(page_add_new_anon_rmap)(thpcow_folio_page(folio), vma,
					    haddr, true);
#elif !THPCOW_HAS_FOLIO_ADD_NEW_ANON_RMAP
	thpcow_call(page_add_new_anon_rmap)(thpcow_folio_page(folio), vma,
					    haddr);
#elif !THPCOW_HAS_NEW_ANON_RMAP_FLAGS
	thpcow_call(folio_add_new_anon_rmap)(folio, vma, haddr);
#else
	thpcow_call(folio_add_new_anon_rmap)(folio, vma, haddr, RMAP_EXCLUSIVE);
#endif
}

static inline void thpcow_folio_add_lru_vma(struct folio *folio,
					    struct vm_area_struct *vma)
{
#if !THPCOW_HAS_FOLIO_ADD_LRU_VMA
	thpcow_call(lru_cache_add_inactive_or_unevictable)(thpcow_folio_page(folio),
							   vma);
#else
	thpcow_call(folio_add_lru_vma)(folio, vma);
#endif
}

/*
 * 6.12 queues every new anonymous THP for the underused-THP shrinker
 * (not partially mapped); earlier series queue only partially unmapped ones.
 */
static inline void thpcow_deferred_split_folio(struct folio *folio)
{
#if THPCOW_HAS_THP_UNDERUSED_SHRINKER
	thpcow_call(deferred_split_folio)(folio, false);
#endif
}

/* folio_mk_pmd(), made dirty as a fault's. */
static inline pmd_t thpcow_folio_mk_pmd(struct folio *folio, pgprot_t prot)
{
#if !THPCOW_HAS_FOLIO_MK_PMD
	return pmd_mkdirty(mk_huge_pmd(thpcow_folio_page(folio), prot));
#else
	return pmd_mkdirty(folio_mk_pmd(folio, prot));
#endif
}

/* maybe_pmd_mkwrite(), which mm/ does not declare outside mm/. */
static inline pmd_t thpcow_maybe_pmd_mkwrite(pmd_t pmd,
					     struct vm_area_struct *vma)
{
	if (likely(vma->vm_flags & VM_WRITE)) {
#if !THPCOW_HAS_PMD_MKWRITE_VMA
		pmd = pmd_mkwrite(pmd);
#else
		pmd = pmd_mkwrite(pmd, vma);
#endif
	}
	return pmd;
}

#endif /* THPCOW_COMPAT_THP_H */
