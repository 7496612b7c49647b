/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel series lives here and in compat.c.
 *
 * The series are Debian's 5.10 (bullseye), 6.1 (bookworm), 6.12 (trixie)
 * and the newest trixie-backports kernel (7.x); module/Kbuild refuses the
 * others. The rest of the module is written against one vocabulary:
 *
 *  - THPCOW ksyms: the kernel functions and variables thpcow needs but the
 *    kernel does not export. symbols.c resolves each at load; a missing
 *    required one fails the load with its name. compat.c gives the
 *    functions that the kernel's own inline helpers call an out-of-line
 *    body that forwards to the resolved address, so code here can use
 *    mem_cgroup_charge(), add_mm_counter(), mmu notifiers and friends
 *    exactly as mm/huge_memory.c of the same series does.
 *
 *  - the thpcow_*() helpers below, one per step of a THP fault whose API
 *    changed; each does what the first-touch THP fault of its series does.
 *
 *  - struct folio on 5.10, which predates folios: there a THP is its
 *    compound head page, and struct folio an incomplete type naming it.
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
#include <linux/version.h>
#include <linux/vmstat.h>

/* The series boundaries, named once: is the running series at most ...? */
#define THPCOW_UP_TO_5_10	(KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE)
#define THPCOW_UP_TO_6_1	(KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE)
#define THPCOW_UP_TO_6_12	(KERNEL_VERSION(6, 13, 0) > LINUX_VERSION_CODE)

#if THPCOW_UP_TO_5_10
/*
 * 5.10 predates folios (5.16): there a THP is its compound head page, and
 * struct folio an incomplete type standing for it, so that the module can
 * use the folio names that it needs throughout.
 */
struct folio;
#define page_folio(page)	((struct folio *)compound_head(page))

static inline struct page *thpcow_folio_page(struct folio *folio)
{
	return (struct page *)folio;
}

static inline void folio_get(struct folio *folio)
{
	get_page(thpcow_folio_page(folio));
}

static inline void folio_put(struct folio *folio)
{
	put_page(thpcow_folio_page(folio));
}

static inline void __folio_mark_uptodate(struct folio *folio)
{
	__SetPageUptodate(thpcow_folio_page(folio));
}

static inline void folio_throttle_swaprate(struct folio *folio, gfp_t gfp)
{
	cgroup_throttle_swaprate(thpcow_folio_page(folio), gfp);
}
#else
static inline struct page *thpcow_folio_page(struct folio *folio)
{
	return &folio->page;
}
#endif

#if !THPCOW_UP_TO_6_12
/* 7.x moved it to mm/internal.h; the prototype is unchanged. */
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma);
#endif

/*
 * What thpcow needs but the kernel does not export, typed after the
 * kernel's own declarations; compat.c names each for symbols.c to resolve.
 */
struct thpcow_ksyms {
	/* the hooked function, called for everything we pass on */
	typeof(&do_huge_pmd_wp_page) do_huge_pmd_wp_page;
	/* is_huge_zero_pmd() reads it */
	typeof(&huge_zero_pfn) huge_zero_pfn;
	/* building the new mapping, as __do_huge_pmd_anonymous_page() */
	typeof(&pmdp_huge_clear_flush) pmdp_huge_clear_flush;
	typeof(&__mmu_notifier_invalidate_range_start) __mmu_notifier_invalidate_range_start;
	typeof(&__mmu_notifier_invalidate_range_end) __mmu_notifier_invalidate_range_end;
	typeof(&mm_trace_rss_stat) mm_trace_rss_stat;
	/* what do_huge_pmd_wp_page() falls back to: split the PMD */
	typeof(&__split_huge_pmd) __split_huge_pmd;
#if THPCOW_UP_TO_5_10
	/* sysfs 'enabled' and 'defrag', read by inline helpers */
	typeof(&transparent_hugepage_flags) transparent_hugepage_flags;
	typeof(&prep_transhuge_page) prep_transhuge_page;
	typeof(&mem_cgroup_charge) mem_cgroup_charge;
	typeof(&cgroup_throttle_swaprate) cgroup_throttle_swaprate;
#elif THPCOW_UP_TO_6_1
	typeof(&vma_thp_gfp_mask) vma_thp_gfp_mask;
	typeof(&hugepage_vma_check) hugepage_vma_check;
	typeof(&__mem_cgroup_charge) __mem_cgroup_charge;
	typeof(&__cgroup_throttle_swaprate) __cgroup_throttle_swaprate;
#else
	typeof(&vma_thp_gfp_mask) vma_thp_gfp_mask;
	typeof(&transparent_hugepage_flags) transparent_hugepage_flags;
	typeof(&huge_anon_orders_always) huge_anon_orders_always;
	typeof(&huge_anon_orders_madvise) huge_anon_orders_madvise;
	typeof(&huge_anon_orders_inherit) huge_anon_orders_inherit;
	typeof(&__thp_vma_allowable_orders) __thp_vma_allowable_orders;
	typeof(&__mem_cgroup_charge) __mem_cgroup_charge;
	typeof(&__folio_throttle_swaprate) __folio_throttle_swaprate;
	typeof(&mthp_stats) mthp_stats;
	typeof(&folio_zero_user) folio_zero_user;
	typeof(&folio_add_new_anon_rmap) folio_add_new_anon_rmap;
	typeof(&folio_add_lru_vma) folio_add_lru_vma;
	typeof(&deferred_split_folio) deferred_split_folio;
	/* x86's, out of line since shadow stacks (6.6) */
	typeof(&pmd_mkwrite) pmd_mkwrite;
#endif
#if THPCOW_UP_TO_6_1
	typeof(&clear_huge_page) clear_huge_page;
	typeof(&copy_user_huge_page) copy_user_huge_page;
	typeof(&page_add_new_anon_rmap) page_add_new_anon_rmap;
	typeof(&lru_cache_add_inactive_or_unevictable) lru_cache_add_inactive_or_unevictable;
	/* the copied THP's old mapping goes, as in zap_huge_pmd() */
	typeof(&page_remove_rmap) page_remove_rmap;
	typeof(&__mmu_notifier_invalidate_range) __mmu_notifier_invalidate_range;
#else
	typeof(&copy_user_large_folio) copy_user_large_folio;
	typeof(&folio_remove_rmap_pmd) folio_remove_rmap_pmd;
#endif
#if THPCOW_UP_TO_5_10
	/* whether do_huge_pmd_wp_page() would reuse a THP (reuse_swap_page()) */
	typeof(&page_trans_huge_mapcount) page_trans_huge_mapcount;
#endif
#if THPCOW_UP_TO_6_12
	typeof(&__count_memcg_events) __count_memcg_events;
#else
	typeof(&count_memcg_events) count_memcg_events;
	typeof(&folio_memcg_alloc_deferred) folio_memcg_alloc_deferred;
#endif
};

extern struct thpcow_ksyms thpcow_ksyms;

/*
 * do_huge_pmd_wp_page()'s prototype: 5.10 passes the PMD value the fault
 * saw, later series keep it in vmf->orig_pmd. compat.c defines
 * thpcow_wp_page_entry() with the kernel's prototype; it calls
 * thpcow_wp_page() (hook.c), which calls the original through this.
 */
vm_fault_t thpcow_wp_page(struct vm_fault *vmf, pmd_t orig_pmd);
#if THPCOW_UP_TO_5_10
vm_fault_t thpcow_wp_page_entry(struct vm_fault *vmf, pmd_t orig_pmd);
#define thpcow_call_wp_page(vmf, orig_pmd)				\
	thpcow_ksyms.do_huge_pmd_wp_page(vmf, orig_pmd)
#else
vm_fault_t thpcow_wp_page_entry(struct vm_fault *vmf);
#define thpcow_call_wp_page(vmf, orig_pmd)				\
	thpcow_ksyms.do_huge_pmd_wp_page(vmf)
#endif

/* 5.10 has no unshare faults (read-only GUP pins came with 5.19). */
#ifndef FAULT_FLAG_UNSHARE
#define FAULT_FLAG_UNSHARE	0
#endif

/*
 * sched_process_exit's probe, in compat.c with the tracepoint's prototype
 * (7.x added group_dead); it calls thpcow_on_exit() (policy.c).
 */
void thpcow_on_exit(struct task_struct *task);
#if THPCOW_UP_TO_6_12
void thpcow_exit_probe(void *data, struct task_struct *task);
#else
void thpcow_exit_probe(void *data, struct task_struct *task, bool group_dead);
#endif

/*
 * ftrace: the callback's last argument and how to redirect the call.
 * 5.10 hands over pt_regs; from 5.11 it is ftrace_regs. 5.10's
 * FTRACE_OPS_FL_RECURSION_SAFE meant "do not protect me"; leaving it out
 * gets ftrace's recursion protection, which 5.11 on ask for with
 * FTRACE_OPS_FL_RECURSION.
 */
#if THPCOW_UP_TO_5_10
#define thpcow_ftrace_regs	pt_regs
#define THPCOW_FTRACE_RECURSION	0
#else
#define thpcow_ftrace_regs	ftrace_regs
#define THPCOW_FTRACE_RECURSION	FTRACE_OPS_FL_RECURSION
#endif

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define THPCOW_FTRACE_SAVE_REGS	FTRACE_OPS_FL_SAVE_REGS
#else
#define THPCOW_FTRACE_SAVE_REGS	0
#endif

#define THPCOW_FTRACE_FLAGS						\
	(THPCOW_FTRACE_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |		\
	 THPCOW_FTRACE_RECURSION)

static inline void thpcow_ftrace_set_ip(struct thpcow_ftrace_regs *fregs,
					unsigned long ip)
{
#if THPCOW_UP_TO_5_10
	instruction_pointer_set(fregs, ip);
#elif !defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
	/* FTRACE_OPS_FL_SAVE_REGS asked for the whole pt_regs */
	instruction_pointer_set(ftrace_get_regs(fregs), ip);
#elif THPCOW_UP_TO_6_1
	ftrace_instruction_pointer_set(fregs, ip);
#else
	ftrace_regs_set_instruction_pointer(fregs, ip);
#endif
}

/* The hooked call's first argument, the struct vm_fault *. */
static inline struct vm_fault *
thpcow_ftrace_vmf(struct thpcow_ftrace_regs *fregs)
{
#if THPCOW_UP_TO_5_10
	return (struct vm_fault *)regs_get_kernel_argument(fregs, 0);
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
	/* FTRACE_OPS_FL_SAVE_REGS asked for the whole pt_regs */
	return (struct vm_fault *)regs_get_kernel_argument(ftrace_get_regs(fregs),
							   0);
#else
	return (struct vm_fault *)ftrace_regs_get_argument(fregs, 0);
#endif
}

/* The thpcow:thpcow_fault event: 6.10 dropped __assign_str()'s source. */
#if THPCOW_UP_TO_6_1
#define thpcow_assign_str(field, src)	__assign_str(field, src)
#else
#define thpcow_assign_str(field, src)	__assign_str(field)
#endif

/*
 * Indirect branch tracking: on a CPU with IBT enabled, an indirect call
 * must land on ENDBR64, and the kernel seals (overwrites) the ENDBR64 of
 * functions whose address it never takes. thpcow calls what it resolved
 * indirectly, so such a function cannot be called. The kernel's own
 * is_endbr() also accepts a sealed site: compare with ENDBR64 itself.
 */
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>

static inline bool thpcow_ibt_enabled(void)
{
	return cpu_feature_enabled(X86_FEATURE_IBT);
}

static inline bool thpcow_has_endbr(const void *fn)
{
	u32 insn;

	return !get_kernel_nofault(insn, (const u32 *)fn) &&
	       insn == gen_endbr();
}
#else
static inline bool thpcow_ibt_enabled(void)
{
	return false;
}

static inline bool thpcow_has_endbr(const void *fn)
{
	return true;
}
#endif

/*
 * Does this series' do_huge_pmd_wp_page() give the huge zero page a THP
 * itself (upstream 6.13)? Asked only when probing the kernel's behaviour
 * at load is inconclusive.
 */
static inline bool thpcow_series_substitutes_zero(void)
{
	return !THPCOW_UP_TO_6_12;
}

static inline bool thpcow_is_huge_zero_pmd(pmd_t pmd)
{
#if THPCOW_UP_TO_6_12
	return pmd_present(pmd) &&
	       READ_ONCE(*thpcow_ksyms.huge_zero_pfn) == pmd_pfn(pmd);
#else
	return pmd_present(pmd) &&
	       READ_ONCE(*thpcow_ksyms.huge_zero_pfn) ==
	       (pmd_pfn(pmd) & ~(HPAGE_PMD_NR - 1));
#endif
}

/* The kernel's own fallback for a write on the huge zero page, before 6.13. */
static inline vm_fault_t thpcow_split_zero_pmd(struct vm_fault *vmf)
{
	vmf->ptl = pmd_lockptr(vmf->vma->vm_mm, vmf->pmd);
#if THPCOW_UP_TO_6_12
	thpcow_ksyms.__split_huge_pmd(vmf->vma, vmf->pmd, vmf->address, false,
				      NULL);
#else
	thpcow_ksyms.__split_huge_pmd(vmf->vma, vmf->pmd, vmf->address, false);
#endif
	return VM_FAULT_FALLBACK;
}

/* May a THP fault at @haddr in @vma take a THP now (sysfs, madvise, prctl)? */
bool thpcow_thp_allowed(struct vm_area_struct *vma, unsigned long haddr);

/* The first-touch THP fault's gfp: sysfs 'defrag' and MADV_HUGEPAGE. */
gfp_t thpcow_thp_gfp(struct vm_area_struct *vma);

/* vm event and, where there are mTHP statistics, the PMD order's count. */
void thpcow_count_thp_event(enum vm_event_item item);

static inline struct folio *thpcow_alloc_thp(struct vm_area_struct *vma,
					     unsigned long haddr, gfp_t gfp)
{
#if THPCOW_UP_TO_5_10
	struct page *page = alloc_hugepage_vma(gfp, vma, haddr, HPAGE_PMD_ORDER);

	if (page)
		thpcow_ksyms.prep_transhuge_page(page);
	return (struct folio *)page;
#elif THPCOW_UP_TO_6_12
	return vma_alloc_folio(gfp, HPAGE_PMD_ORDER, vma, haddr, true);
#else
	return vma_alloc_folio(gfp, HPAGE_PMD_ORDER, vma, haddr);
#endif
}

/*
 * Charge the new THP to @mm's memcg, and on 7.x give it its memcg's
 * deferred split list; 0 or an error, the THP still to be put.
 */
static inline int thpcow_charge_thp(struct folio *folio, struct mm_struct *mm,
				    gfp_t gfp)
{
#if THPCOW_UP_TO_5_10
	return mem_cgroup_charge(thpcow_folio_page(folio), mm, gfp);
#else
	return mem_cgroup_charge(folio, mm, gfp);
#endif
}

static inline int thpcow_thp_memcg_prepare(struct folio *folio)
{
#if THPCOW_UP_TO_6_12
	return 0;
#else
	return thpcow_ksyms.folio_memcg_alloc_deferred(folio);
#endif
}

/* Zero the THP, the subpage at @addr last (it stays cache-hot). */
static inline void thpcow_clear_thp(struct folio *folio, unsigned long addr)
{
#if THPCOW_UP_TO_6_1
	thpcow_ksyms.clear_huge_page(thpcow_folio_page(folio), addr,
				     HPAGE_PMD_NR);
#elif THPCOW_UP_TO_6_12
	thpcow_ksyms.folio_zero_user(folio, addr);
#else
	/* Otherwise the allocator zeroed it already (init_on_alloc). */
	if (user_alloc_needs_zeroing())
		thpcow_ksyms.folio_zero_user(folio, addr);
#endif
}

/* Copy @src into @dst, the subpage at @addr last; non-zero: poisoned @src. */
static inline int thpcow_copy_thp(struct folio *dst, struct folio *src,
				  unsigned long addr, struct vm_area_struct *vma)
{
#if THPCOW_UP_TO_6_1
	thpcow_ksyms.copy_user_huge_page(thpcow_folio_page(dst),
					 thpcow_folio_page(src), addr, vma,
					 HPAGE_PMD_NR);
	return 0;
#else
	return thpcow_ksyms.copy_user_large_folio(dst, src, addr, vma);
#endif
}

/* The faulting mapping of @src goes; its page reference is the caller's. */
static inline void thpcow_remove_thp_rmap(struct folio *src,
					  struct vm_area_struct *vma)
{
#if THPCOW_UP_TO_5_10
	thpcow_ksyms.page_remove_rmap(thpcow_folio_page(src), true);
#elif THPCOW_UP_TO_6_1
	thpcow_ksyms.page_remove_rmap(thpcow_folio_page(src), vma, true);
#else
	thpcow_ksyms.folio_remove_rmap_pmd(src, thpcow_folio_page(src), vma);
#endif
}

/*
 * Would the kernel's own CoW refuse to copy @page for another reason than
 * that it is shared? If so, says why in *@why. Caller holds the PMD lock.
 * Mirrors do_huge_pmd_wp_page() of the series: an exclusive page is
 * reused, never copied (5.10 tells by its map count, later series by
 * PageAnonExclusive); a page that may be pinned for DMA must stay the one
 * the device sees; swap cache and KSM pages are left to the kernel.
 */
static inline bool thpcow_copy_refused(struct folio *folio, struct page *page,
				       enum thpcow_stat *why)
{
#if THPCOW_UP_TO_5_10
	if (thpcow_ksyms.page_trans_huge_mapcount(page, NULL) <= 1)
		*why = THPCOW_STAT_NOT_SHARED;
	else if (page_maybe_dma_pinned(page))
		*why = THPCOW_STAT_FALLBACK_PINNED;
	else if (!PageAnon(page) || PageKsm(page) || PageSwapCache(page))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
#else
	if (PageAnonExclusive(page))
		*why = THPCOW_STAT_NOT_SHARED;
	else if (folio_maybe_dma_pinned(folio))
		*why = THPCOW_STAT_FALLBACK_PINNED;
	else if (!folio_test_anon(folio) || folio_test_ksm(folio) ||
		 folio_test_swapcache(folio))
		*why = THPCOW_STAT_FALLBACK_INELIGIBLE;
#endif
	else
		return false;
	return true;
}

static inline void thpcow_mmu_range_init(struct mmu_notifier_range *range,
					 struct vm_area_struct *vma,
					 unsigned long start, unsigned long end)
{
#if THPCOW_UP_TO_6_1
	mmu_notifier_range_init(range, MMU_NOTIFY_CLEAR, 0, vma, vma->vm_mm,
				start, end);
#else
	mmu_notifier_range_init(range, MMU_NOTIFY_CLEAR, 0, vma->vm_mm,
				start, end);
#endif
}

/*
 * Take down the old PMD. Up to 6.5 secondary TLBs (IOMMU SVA) were told
 * here (the _notify variant); since, the TLB flush itself tells them.
 */
static inline void thpcow_pmd_clear_flush(struct vm_area_struct *vma,
					  unsigned long haddr, pmd_t *pmd)
{
#if THPCOW_UP_TO_6_1
	pmdp_huge_clear_flush_notify(vma, haddr, pmd);
#else
	pmdp_huge_clear_flush(vma, haddr, pmd);
#endif
}

/* rmap and LRU for a new exclusive anonymous THP, as a first-touch fault. */
static inline void thpcow_add_new_anon_thp(struct folio *folio,
					   struct vm_area_struct *vma,
					   unsigned long haddr)
{
#if THPCOW_UP_TO_5_10
	thpcow_ksyms.page_add_new_anon_rmap(thpcow_folio_page(folio), vma,
					    haddr, true);
	thpcow_ksyms.lru_cache_add_inactive_or_unevictable(thpcow_folio_page(folio),
							   vma);
#elif THPCOW_UP_TO_6_1
	thpcow_ksyms.page_add_new_anon_rmap(thpcow_folio_page(folio), vma,
					    haddr);
	thpcow_ksyms.lru_cache_add_inactive_or_unevictable(thpcow_folio_page(folio),
							   vma);
#else
	thpcow_ksyms.folio_add_new_anon_rmap(folio, vma, haddr, RMAP_EXCLUSIVE);
	thpcow_ksyms.folio_add_lru_vma(folio, vma);
#endif
}

/*
 * 6.12 queues every new anonymous THP for the underused-THP shrinker
 * (not partially mapped); earlier series queue only partially unmapped ones.
 */
static inline void thpcow_deferred_split(struct folio *folio)
{
#if !THPCOW_UP_TO_6_1
	thpcow_ksyms.deferred_split_folio(folio, false);
#endif
}

static inline pmd_t thpcow_mk_thp_pmd(struct folio *folio,
				      struct vm_area_struct *vma)
{
	pmd_t entry;

#if THPCOW_UP_TO_6_12
	entry = pmd_mkdirty(mk_huge_pmd(thpcow_folio_page(folio),
					vma->vm_page_prot));
#else
	entry = pmd_mkdirty(folio_mk_pmd(folio, vma->vm_page_prot));
#endif
	/* maybe_pmd_mkwrite(), which mm/ does not declare outside mm/ */
	if (likely(vma->vm_flags & VM_WRITE)) {
#if THPCOW_UP_TO_6_1
		entry = pmd_mkwrite(entry);
#else
		entry = pmd_mkwrite(entry, vma);
#endif
	}
	return entry;
}

#endif /* THPCOW_COMPAT_H */
