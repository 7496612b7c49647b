// SPDX-License-Identifier: GPL-2.0
/*
 * The substitution: a huge-zero-page PMD becomes a freshly zeroed THP.
 *
 * This is what Linux 6.13 does in do_huge_zero_wp_pmd(), built from the
 * pieces a first-touch THP fault (__do_huge_pmd_anonymous_page()) uses in
 * this kernel series, so the result is indistinguishable from one: same
 * gfp (sysfs defrag, VM_HUGEPAGE), memcg charge, rmap, LRU, mm and vm event
 * counters. The huge zero PMD already has a page table deposited and the
 * mm's huge zero page reference is per mm, so neither changes hands.
 *
 * The PMD is replaced in place under its lock. Zapping it and letting the
 * kernel refault would open a window in which readers re-map the huge zero
 * page, and a writer racing with readers could retry forever; here a
 * reader never faults on the present zero PMD, so a writer always wins.
 */
#include "thpcow.h"

#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/vmstat.h>

/*
 * Charge @folio, a new THP for @vmf, to the faulting mm's memcg, as a
 * first-touch fault charges its THP: 0, or -ENOMEM with the reason in
 * *@why and @folio still the caller's, not charged.
 */
static int thpcow_charge_anon_folio_pmd(struct folio *folio,
					struct vm_fault *vmf, gfp_t gfp,
					enum thpcow_stat *why)
{
	if (thpcow_mem_cgroup_charge(folio, vmf->vma->vm_mm, gfp)) {
		thpcow_count_thp_event(THP_FAULT_FALLBACK);
		thpcow_count_thp_event(THP_FAULT_FALLBACK_CHARGE);
		*why = THPCOW_STAT_FALLBACK_CHARGE;
		return -ENOMEM;
	}
	return 0;
}

/*
 * After the charge (7.x): the memcg's deferred split list, and the swap
 * rate throttle. 0, or -ENOMEM with the reason in *@why, @folio charged,
 * to put.
 */
static int thpcow_prep_charged_folio(struct folio *folio, gfp_t gfp,
				     enum thpcow_stat *why)
{
	if (thpcow_folio_memcg_alloc_deferred(folio)) {
		/*
		 * No memory for the memcg's deferred split list (7.x): the
		 * kernel counts an allocation failure, not a charge one.
		 */
		thpcow_count_thp_event(THP_FAULT_FALLBACK);
		*why = THPCOW_STAT_FALLBACK_ALLOC;
		return -ENOMEM;
	}
	folio_throttle_swaprate(folio, gfp);
	return 0;
}

/*
 * A THP for @vmf, allocated and charged as a first-touch fault's would be:
 * vma_alloc_anon_folio_pmd() in 7.x. NULL with the reason in *@why.
 */
static struct folio *thpcow_vma_alloc_anon_folio_pmd(struct vm_fault *vmf,
						     enum thpcow_stat *why)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long haddr = vmf->address & HPAGE_PMD_MASK;
	gfp_t gfp = thpcow_vma_thp_gfp_mask(vma);
	struct folio *folio;

	folio = thpcow_vma_alloc_folio(vma, haddr, gfp);
	if (unlikely(!folio)) {
		thpcow_count_thp_event(THP_FAULT_FALLBACK);
		*why = THPCOW_STAT_FALLBACK_ALLOC;
		return NULL;
	}
	if (thpcow_charge_anon_folio_pmd(folio, vmf, gfp, why) ||
	    thpcow_prep_charged_folio(folio, gfp, why)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/*
 * A pre-zeroed THP from the pool (pool.c), charged as
 * thpcow_vma_alloc_anon_folio_pmd() charges one; NULL when the pool has
 * none for this fault (the caller allocates), or on a charge failure, with
 * *@why set (the THP goes back into the pool, the kernel splits).
 */
static struct folio *thpcow_pool_alloc_anon_folio_pmd(struct vm_fault *vmf,
						      enum thpcow_stat *why)
{
	struct folio *folio = thpcow_pool_take(vmf->vma);
	gfp_t gfp;

	if (!folio)
		return NULL;
	gfp = thpcow_vma_thp_gfp_mask(vmf->vma);
	if (thpcow_charge_anon_folio_pmd(folio, vmf, gfp, why)) {
		thpcow_pool_put_back(folio);
		return NULL;
	}
	if (thpcow_prep_charged_folio(folio, gfp, why)) {
		folio_put(folio);
		return NULL;
	}
	return folio;
}

/* Map @folio at the cleared PMD, as map_anon_folio_pmd_nopf() in 7.x does. */
static void thpcow_map_anon_folio_pmd(struct folio *folio, pmd_t *pmd,
			   struct vm_area_struct *vma, unsigned long haddr)
{
	pmd_t entry = thpcow_folio_mk_pmd(folio, vma->vm_page_prot);

	entry = thpcow_maybe_pmd_mkwrite(entry, vma);
	thpcow_folio_add_new_anon_rmap(folio, vma, haddr);
	thpcow_folio_add_lru_vma(folio, vma);
	set_pmd_at(vma->vm_mm, haddr, pmd, entry);
	update_mmu_cache_pmd(vma, haddr, pmd);
	thpcow_deferred_split_folio(folio);
}

/*
 * Secondary MMUs (KVM's EPT/NPT, IOMMU SVA) drop the old mapping between
 * these two. THPCOW_BREAK=NO_MMU_NOTIFY (module/Kbuild) builds a module
 * broken on purpose that leaves them out: tests/guest/kvm.sh must
 * catch it (a KVM guest keeps reading the huge zero page).
 */
#ifndef THPCOW_BREAK_NO_MMU_NOTIFY
static void thpcow_secondary_mmu_start(struct mmu_notifier_range *range)
{
	thpcow_mmu_notifier_invalidate_range_start(range);
}

static void thpcow_secondary_mmu_end(struct mmu_notifier_range *range)
{
	thpcow_mmu_notifier_invalidate_range_end(range);
}
#else
static void thpcow_secondary_mmu_start(struct mmu_notifier_range *range) { }
static void thpcow_secondary_mmu_end(struct mmu_notifier_range *range) { }
#endif

/*
 * Map @folio (cleared or copied, uptodate) where the PMD still maps what
 * @orig_pmd did: the huge zero page, or @old, a shared anonymous THP
 * whose page the caller holds a reference on. Consumes the reference on
 * @folio. Returns as thpcow_subst_zero() does, leaving *@why as it was
 * when the new THP is mapped.
 */
static vm_fault_t thpcow_install(struct vm_fault *vmf, pmd_t orig_pmd,
				 struct folio *folio, struct folio *old,
				 enum thpcow_stat *why)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long haddr = vmf->address & HPAGE_PMD_MASK;
	struct mmu_notifier_range range;
	vm_fault_t ret = 0;

	thpcow_mmu_notifier_range_init(&range, vma, haddr, haddr + HPAGE_PMD_SIZE);
	thpcow_secondary_mmu_start(&range);

	vmf->ptl = pmd_lock(mm, vmf->pmd);
	if (unlikely(!pmd_same(*vmf->pmd, orig_pmd))) {
		*why = THPCOW_STAT_RETRY_RACE;
		goto release;
	}
	if (unlikely(check_stable_address_space(mm))) {
		/* The OOM reaper has this mm: leave it to the kernel. */
		*why = THPCOW_STAT_FALLBACK_UNSTABLE;
		ret = VM_FAULT_FALLBACK;
		goto release;
	}

	thpcow_pmdp_huge_clear_flush_notify(vma, haddr, vmf->pmd);
	thpcow_map_anon_folio_pmd(folio, vmf->pmd, vma, haddr);
	if (old) {
#ifndef THPCOW_BREAK_RMAP /* broken on purpose: vm/tests/detectors.t */
		thpcow_folio_remove_rmap_pmd(old, vma);
#endif
	} else {
		add_mm_counter(mm, MM_ANONPAGES, HPAGE_PMD_NR);
	}
	spin_unlock(vmf->ptl);
	thpcow_secondary_mmu_end(&range);

	/* The old mapping's reference; the TLB no longer holds it. */
	if (old)
		folio_put(old);
	thpcow_count_thp_event(THP_FAULT_ALLOC);
	count_memcg_event_mm(mm, THP_FAULT_ALLOC);
	return THPCOW_VM_FAULT_WRITE;

release:
	spin_unlock(vmf->ptl);
	thpcow_secondary_mmu_end(&range);
	folio_put(folio);
	return ret;
}

/*
 * Returns THPCOW_VM_FAULT_WRITE (0 but before 6.0) with *@why =
 * THPCOW_STAT_SUBSTITUTED when the THP is mapped, 0 with *@why =
 * THPCOW_STAT_RETRY_RACE when the PMD changed meanwhile (the access simply
 * faults again), or VM_FAULT_FALLBACK with the reason in *@why when the
 * kernel's own split should handle the fault.
 */
vm_fault_t thpcow_subst_zero(struct vm_fault *vmf, pmd_t orig_pmd,
			     enum thpcow_stat *why)
{
	struct folio *folio;
	bool pooled;
	vm_fault_t ret;

	*why = THPCOW_STAT_SUBSTITUTED;
	folio = thpcow_pool_alloc_anon_folio_pmd(vmf, why);
	pooled = folio;
	if (!folio) {
		if (*why != THPCOW_STAT_SUBSTITUTED)
			return VM_FAULT_FALLBACK;
		folio = thpcow_vma_alloc_anon_folio_pmd(vmf, why);
		if (!folio)
			return VM_FAULT_FALLBACK;
		thpcow_folio_zero_user(folio, vmf->address);
	}
	/* Orders the clearing before the set_pmd_at() that publishes it. */
	__folio_mark_uptodate(folio);
	ret = thpcow_install(vmf, orig_pmd, folio, NULL, why);
	if (pooled && *why == THPCOW_STAT_SUBSTITUTED)
		thpcow_count(THPCOW_STAT_POOL_HIT);
	return ret;
}

/*
 * Under the PMD lock: does the PMD still map what @orig_pmd did, and would
 * the kernel copy that THP? It, or NULL with the reason in *@why.
 */
static struct folio *thpcow_copy_source(struct vm_fault *vmf, pmd_t orig_pmd,
					enum thpcow_stat *why)
{
	struct page *page = pmd_page(orig_pmd);
	struct folio *old = page_folio(page);

	if (unlikely(!pmd_same(*vmf->pmd, orig_pmd))) {
		*why = THPCOW_STAT_RETRY_RACE;
		return NULL;
	}
	return thpcow_copy_refused(old, page, why) ? NULL : old;
}

/* What to return when thpcow_copy_source() said no. */
static vm_fault_t thpcow_copy_declined(enum thpcow_stat why)
{
	return why == THPCOW_STAT_RETRY_RACE ? 0 : VM_FAULT_FALLBACK;
}

/*
 * A write fault on a PMD-mapped anonymous THP shared with other processes
 * (after fork()): copy all 2 MiB into a new THP mapped writable for this
 * process alone, as Linux did before 5.8, instead of splitting and copying
 * 4 KiB. The other sharers keep the original. Returns as
 * thpcow_subst_zero(); whatever the kernel would not copy either
 * (thpcow_copy_refused()) falls back to it with the reason.
 *
 * The new THP is allocated, which may compact for a long time, before a
 * reference on the old one is taken: meanwhile the other sharers' faults
 * find the reference count they expect, and the old THP can be migrated.
 */
vm_fault_t thpcow_subst_copy(struct vm_fault *vmf, pmd_t orig_pmd,
			     enum thpcow_stat *why)
{
	struct mm_struct *mm = vmf->vma->vm_mm;
	struct folio *old, *folio;
	vm_fault_t ret;

	/* A first look: a THP the kernel would reuse costs no allocation. */
	vmf->ptl = pmd_lock(mm, vmf->pmd);
	old = thpcow_copy_source(vmf, orig_pmd, why);
	spin_unlock(vmf->ptl);
	if (!old)
		return thpcow_copy_declined(*why);

	folio = thpcow_vma_alloc_anon_folio_pmd(vmf, why);
	if (!folio)
		return VM_FAULT_FALLBACK;

	vmf->ptl = pmd_lock(mm, vmf->pmd);
	old = thpcow_copy_source(vmf, orig_pmd, why);
	/* Nobody can write it: every mapping of a shared page is read-only. */
	if (old)
		folio_get(old);
	spin_unlock(vmf->ptl);
	if (!old) {
		folio_put(folio);
		return thpcow_copy_declined(*why);
	}

	if (thpcow_copy_user_large_folio(folio, old, vmf->address, vmf->vma)) {
		/*
		 * A poisoned source, queued for memory_failure(), which marks
		 * it (6.1 on: later faults find it has_hwpoisoned) or splits
		 * it. The kernel's split follows, and its copy of the faulting
		 * 4 KiB, as stock (on 5.10 a copy that cannot recover).
		 */
		folio_put(folio);
		folio_put(old);
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
		return VM_FAULT_FALLBACK;
	}
	__folio_mark_uptodate(folio);
	*why = THPCOW_STAT_COPIED;
	ret = thpcow_install(vmf, orig_pmd, folio, old, why);
	folio_put(old);
	return ret;
}
