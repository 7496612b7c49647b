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
THPCOW_FUNC(mm_trace_rss_stat)
/* what do_huge_pmd_wp_page() falls back to: split the PMD */
THPCOW_FUNC(__split_huge_pmd)

#if THPCOW_UP_TO_5_10
/* sysfs 'enabled' and 'defrag', read by inline helpers */
THPCOW_VAR(transparent_hugepage_flags)
THPCOW_FUNC(prep_transhuge_page)
THPCOW_FUNC(mem_cgroup_charge)
/* without it thpcow merely does not throttle on swap rate */
THPCOW_OPTIONAL(cgroup_throttle_swaprate)
#elif THPCOW_UP_TO_6_1
THPCOW_FUNC(vma_thp_gfp_mask)
THPCOW_FUNC(hugepage_vma_check)
THPCOW_FUNC(__mem_cgroup_charge)
THPCOW_OPTIONAL(__cgroup_throttle_swaprate)
#else
THPCOW_FUNC(vma_thp_gfp_mask)
THPCOW_VAR(transparent_hugepage_flags)
THPCOW_VAR(huge_anon_orders_always)
THPCOW_VAR(huge_anon_orders_madvise)
THPCOW_VAR(huge_anon_orders_inherit)
THPCOW_FUNC(__thp_vma_allowable_orders)
THPCOW_FUNC(__mem_cgroup_charge)
THPCOW_OPTIONAL(__folio_throttle_swaprate)
THPCOW_VAR(mthp_stats)
THPCOW_FUNC(folio_zero_user)
THPCOW_FUNC(folio_add_new_anon_rmap)
THPCOW_FUNC(folio_add_lru_vma)
THPCOW_FUNC(deferred_split_folio)
/* x86's, out of line since shadow stacks (6.6) */
THPCOW_FUNC(pmd_mkwrite)
#endif

#if THPCOW_UP_TO_6_1
THPCOW_FUNC(clear_huge_page)
THPCOW_FUNC(page_add_new_anon_rmap)
THPCOW_FUNC(lru_cache_add_inactive_or_unevictable)
/* the copied THP's old mapping goes, as in zap_huge_pmd() */
THPCOW_FUNC(page_remove_rmap)
THPCOW_FUNC(__mmu_notifier_invalidate_range)
#else
THPCOW_FUNC(copy_user_large_folio)
THPCOW_FUNC(folio_remove_rmap_pmd)
#endif

#if THPCOW_UP_TO_5_10
/* whether do_huge_pmd_wp_page() would reuse a THP (reuse_swap_page()) */
THPCOW_FUNC(page_trans_huge_mapcount)
#endif

#if THPCOW_UP_TO_6_12
THPCOW_FUNC(__count_memcg_events)
#else
THPCOW_FUNC(count_memcg_events)
THPCOW_FUNC(folio_memcg_alloc_deferred)
#endif

#undef THPCOW_FUNC
#undef THPCOW_OPTIONAL
#undef THPCOW_VAR
