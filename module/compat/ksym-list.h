/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What thpcow needs from the kernel but the kernel does not export, written
 * once, in the style of <asm/kvm-x86-ops.h>. No include guard: each user
 * defines the three macros, includes this file, and gets them undefined:
 *
 *   THPCOW_FUNC(sym)      a function, called through the static call
 *                         thpcow_ksym_<sym> (compat/ksyms.h); required
 *   THPCOW_OPTIONAL(sym)  a void function thpcow can do without
 *   THPCOW_VAR(sym)       a variable, read through thpcow_ksyms.<sym>
 *
 * symbols.c resolves each by name at load; a missing required one fails the
 * load with its name.
 */

/* How everything else is found; a kprobe finds it first (symbols.c). */
THPCOW_FUNC(kallsyms_lookup_name)
/* the hooked function, called for everything thpcow passes on */
THPCOW_FUNC(do_huge_pmd_wp_page)
/* is_huge_zero_pmd() reads it */
THPCOW_VAR(huge_zero_pfn)
/* building the new mapping, as __do_huge_pmd_anonymous_page() */
THPCOW_FUNC(pmdp_huge_clear_flush)
THPCOW_FUNC(__mmu_notifier_invalidate_range_start)
THPCOW_FUNC(__mmu_notifier_invalidate_range_end)
#ifdef CONFIG_LOCKDEP
/* what mmu_notifier_invalidate_range_start() takes for lockdep (thp.h) */
THPCOW_VAR(__mmu_notifier_invalidate_range_start_map)
#endif
THPCOW_FUNC(mm_trace_rss_stat)
/* what do_huge_pmd_wp_page() falls back to: split the PMD */
THPCOW_FUNC(__split_huge_pmd)

/* sysfs 'enabled' and 'defrag', read by inline helpers (compat/thp.c) */
#if !THPCOW_HAS_HUGEPAGE_VMA_CHECK || THPCOW_HAS_MTHP
THPCOW_VAR(transparent_hugepage_flags)
#endif
#if THPCOW_HAS_VMA_THP_GFP_MASK
THPCOW_FUNC(vma_thp_gfp_mask)
#endif
#if THPCOW_HAS_MTHP
THPCOW_VAR(huge_anon_orders_always)
THPCOW_VAR(huge_anon_orders_madvise)
THPCOW_VAR(huge_anon_orders_inherit)
THPCOW_FUNC(__thp_vma_allowable_orders)
#elif THPCOW_HAS_HUGEPAGE_VMA_CHECK
THPCOW_FUNC(hugepage_vma_check)
#endif
#if THPCOW_HAS_MTHP_STATS
THPCOW_VAR(mthp_stats)
#endif

#if !THPCOW_HAS_VMA_ALLOC_FOLIO
THPCOW_FUNC(prep_transhuge_page)
#endif
#if !THPCOW_HAS_MEMCG_CHARGE_INLINE
THPCOW_FUNC(mem_cgroup_charge)
#else
THPCOW_FUNC(__mem_cgroup_charge)
#endif
/* without it thpcow merely does not throttle on swap rate */
#if !THPCOW_HAS_MEMCG_SWAPRATE_INLINE
THPCOW_OPTIONAL(cgroup_throttle_swaprate)
#elif !THPCOW_HAS_FOLIO_THROTTLE_SWAPRATE
THPCOW_OPTIONAL(__cgroup_throttle_swaprate)
#else
THPCOW_OPTIONAL(__folio_throttle_swaprate)
#endif

#if THPCOW_HAS_FOLIO_ZERO_USER
THPCOW_FUNC(folio_zero_user)
#else
THPCOW_FUNC(clear_huge_page)
#endif
#if THPCOW_HAS_FOLIO_ADD_NEW_ANON_RMAP
THPCOW_FUNC(folio_add_new_anon_rmap)
#else
THPCOW_FUNC(page_add_new_anon_rmap)
#endif
#if THPCOW_HAS_FOLIO_ADD_LRU_VMA
THPCOW_FUNC(folio_add_lru_vma)
#else
THPCOW_FUNC(lru_cache_add_inactive_or_unevictable)
#endif
#if THPCOW_HAS_THP_UNDERUSED_SHRINKER
THPCOW_FUNC(deferred_split_folio)
#endif
#if THPCOW_HAS_PMD_MKWRITE_VMA
/* x86's, out of line since shadow stacks (6.6) */
THPCOW_FUNC(pmd_mkwrite)
#endif
#if !THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH
THPCOW_FUNC(__mmu_notifier_invalidate_range)
#endif

/* the copied THP's old mapping goes, as in zap_huge_pmd() */
#if THPCOW_HAS_FOLIO_REMOVE_RMAP_PMD
THPCOW_FUNC(folio_remove_rmap_pmd)
#else
THPCOW_FUNC(page_remove_rmap)
#endif
#if THPCOW_HAS_COPY_USER_LARGE_FOLIO
THPCOW_FUNC(copy_user_large_folio)
#endif
#if !THPCOW_HAS_ANON_EXCLUSIVE
/* whether do_huge_pmd_wp_page() would reuse a THP (reuse_swap_page()) */
THPCOW_FUNC(page_trans_huge_mapcount)
#endif

#if THPCOW_HAS_COUNT_MEMCG_EVENTS
THPCOW_FUNC(count_memcg_events)
#else
THPCOW_FUNC(__count_memcg_events)
#endif
#if THPCOW_HAS_FOLIO_MEMCG_ALLOC_DEFERRED
THPCOW_FUNC(folio_memcg_alloc_deferred)
#endif

#undef THPCOW_FUNC
#undef THPCOW_OPTIONAL
#undef THPCOW_VAR
