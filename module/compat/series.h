/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series boundaries, and the small differences of vocabulary: folios
 * on 5.10, prototypes of the functions the kernel calls into thpcow,
 * fault flags, trace event helpers.
 */
#ifndef THPCOW_COMPAT_SERIES_H
#define THPCOW_COMPAT_SERIES_H

#include <linux/mm.h>
#include <linux/swap.h>
#include <linux/version.h>

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
 * do_huge_pmd_wp_page()'s parameters, for the function hook.c redirects it
 * to; the PMD value the fault saw, which 5.10 passes and later series keep
 * in vmf->orig_pmd; and the call to the original with them.
 */
#if THPCOW_UP_TO_5_10
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
#if THPCOW_UP_TO_6_12
#define THPCOW_EXIT_PROBE_PARAMS	void *data, struct task_struct *task
#else
#define THPCOW_EXIT_PROBE_PARAMS	void *data, struct task_struct *task, \
					bool group_dead
#endif

/* 5.10 has no unshare faults (read-only GUP pins came with 5.19). */
#ifndef FAULT_FLAG_UNSHARE
#define FAULT_FLAG_UNSHARE	0
#endif

/* The thpcow:thpcow_fault event: 6.10 dropped __assign_str()'s source. */
#if THPCOW_UP_TO_6_1
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
	return !THPCOW_UP_TO_6_12;
}

#endif /* THPCOW_COMPAT_SERIES_H */
