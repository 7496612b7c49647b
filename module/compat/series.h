/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small differences of vocabulary: folio names before folios,
 * prototypes of the functions the kernel calls into thpcow, fault flags,
 * trace event helpers. Each #if tests a feature of compat/features.h.
 */
#ifndef THPCOW_COMPAT_SERIES_H
#define THPCOW_COMPAT_SERIES_H

#include <linux/mm.h>
#include <linux/swap.h>

#include "features.h"

#if !THPCOW_HAS_FOLIO
/*
 * Before folios (5.10, 5.15) a THP is its compound head page, and
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

#if THPCOW_HAS_FOLIO_ADD_LRU_VMA_INTERNAL
/* 7.x moved it to mm/internal.h; the prototype is unchanged. */
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma);
#endif

/*
 * do_huge_pmd_wp_page()'s parameters, for the function hook.c redirects it
 * to; the PMD value the fault saw, which 5.10 passes and later series keep
 * in vmf->orig_pmd; and the call to the original with them.
 */
#if !THPCOW_HAS_VMF_ORIG_PMD
#define THPCOW_WP_PAGE_PARAMS	struct vm_fault *vmf, pmd_t orig_pmd
#define THPCOW_WP_PAGE_ORIG_PMD	orig_pmd
#define thpcow_do_huge_pmd_wp_page(vmf, orig_pmd)			\
	thpcow_call(do_huge_pmd_wp_page)(vmf, orig_pmd)
#else
#define THPCOW_WP_PAGE_PARAMS	struct vm_fault *vmf
#define THPCOW_WP_PAGE_ORIG_PMD	(vmf->orig_pmd)
#define thpcow_do_huge_pmd_wp_page(vmf, orig_pmd)			\
	thpcow_call(do_huge_pmd_wp_page)(vmf)
#endif

/* The sched_process_exit probe's parameters: 7.x added group_dead. */
#if !THPCOW_HAS_EXIT_GROUP_DEAD
#define THPCOW_EXIT_PROBE_PARAMS	void *data, struct task_struct *task
#else
#define THPCOW_EXIT_PROBE_PARAMS	void *data, struct task_struct *task, \
					bool group_dead
#endif

/*
 * No unshare faults before 5.19 (read-only GUP pins). From 5.19 on the
 * flag is an enum constant, which the preprocessor cannot see: test the
 * version, never #ifndef.
 */
#if !THPCOW_HAS_FAULT_FLAG_UNSHARE
#define FAULT_FLAG_UNSHARE	0
#endif

/* The thpcow:thpcow_fault event: 6.10 dropped __assign_str()'s source. */
#if !THPCOW_HAS_ASSIGN_STR_ONE_ARG
#define thpcow_assign_str(field, src)	__assign_str(field, src)
#else
#define thpcow_assign_str(field, src)	__assign_str(field)
#endif

/*
 * Does this series' do_huge_pmd_wp_page() give the huge zero page a THP
 * itself (upstream 6.13)? Asked only when probing the kernel's behaviour
 * at load is inconclusive.
 */
static inline bool thpcow_series_substitutes_zero(void)
{
	return THPCOW_HAS_HUGE_ZERO_WP_THP;
}

#endif /* THPCOW_COMPAT_SERIES_H */
