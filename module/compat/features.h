/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The upstream API changes compat/ follows, one name each: THPCOW_HAS_<X>
 * is 1 where the kernel has change X. Each is defined from the kernel's
 * version (LINUX_VERSION_CODE) at the release that made the change, and
 * nowhere else is a version compared. A new series means reading its own
 * source for each entry, not re-auditing every #if.
 *
 * A distribution kernel that backported a change (or reverted one) says
 * so in its override block, at the top, by defining the feature before
 * the table does; module/Kbuild names the distribution
 * (THPCOW_DISTRO_UBUNTU), RHEL's own <linux/version.h> its release
 * (RHEL_RELEASE_CODE). Each override says where in that kernel's own
 * tree it was read.
 *
 * Versions: the release whose tree first has the change, with the upstream
 * commit's subject. "unpinned A..B" marks a change this file could not
 * date more closely than "not in A, in B" (the trees read: Debian's 5.10,
 * 6.1, 6.12 and 7.3, Ubuntu's 5.15 and 6.8, RHEL's 9.6 and 10.0); the
 * boundary is set where the code used it before, and a series between A
 * and B must check it.
 */
#ifndef THPCOW_COMPAT_FEATURES_H
#define THPCOW_COMPAT_FEATURES_H

#include <linux/version.h>

#define THPCOW_SINCE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/*
 * Is this RHEL major, minor release or a later minor of the same major (any
 * of their updates)? Not RHEL: no. A later minor (9.7 where 9.6 was read)
 * starts from the values of the newest release read, as its kernel keeps
 * what that one backported; module/Kbuild builds for it only when told to
 * (THPCOW_UNTESTED_KERNEL=1).
 */
#ifdef RHEL_RELEASE_CODE
#define THPCOW_RHEL_SINCE(major, minor) \
	((major) == RHEL_MAJOR && (minor) <= RHEL_MINOR)
#else
#define THPCOW_RHEL_SINCE(major, minor)	0
#endif

/* ---- Per-kernel overrides ---- */

#if defined(THPCOW_DISTRO_UBUNTU) && !THPCOW_SINCE(5, 16) && THPCOW_SINCE(5, 15)
/*
 * Ubuntu 22.04's 5.15.0-185 (Makefile 5.15.200):
 * - include/linux/highmem.h has copy_mc_user_highpage() and mm/memory.c's
 *   wp_page_copy() queues a poisoned source for memory_failure(): 6.1's
 *   recovery from CoW machine checks, backported.
 */
#define THPCOW_HAS_COPY_MC_USER_HIGHPAGE	1
#endif

/*
 * Ubuntu 24.04's 6.8.0-49 (Makefile 6.8.12): its mm/huge_memory.c,
 * mm/memory.c and include/ give every entry below the value of upstream
 * 6.8; nothing to override.
 */

/*
 * RHEL: <linux/version.h> (include/generated/uapi/linux/version.h) says
 * which release it is, RHEL_RELEASE_CODE = (RHEL_MAJOR << 8) + RHEL_MINOR;
 * the kernel of a minor release keeps its base version and takes backports
 * in every update, so the release, not LINUX_VERSION_CODE, selects the
 * values. module/Kbuild builds only for the releases below.
 */
#if THPCOW_RHEL_SINCE(9, 6)
/*
 * RHEL 9.6's 5.14.0-570 (read in AlmaLinux's kernel-5.14.0-570.32.1.el9_6:
 * mm/, include/, arch/x86/include): "5.14" in name only. Its THP fault
 * path is folio-based, of about upstream 6.6/6.7 (alloc_pages_mpol() and
 * folio_prep_large_rmappable(), but no uffd-wp async in wp_huge_pmd() and
 * none of 6.8's mTHP): do_huge_pmd_wp_page() is 6.12's but for
 * page_move_anon_rmap() (6.12: folio_move_anon_rmap()), reuses by
 * PageAnonExclusive and still splits the huge zero page ("if
 * (is_huge_zero_pmd(orig_pmd)) goto fallback;"); __do_huge_pmd_anonymous_page()
 * charges the folio, clear_huge_page()s it, folio_add_new_anon_rmap(folio,
 * vma, haddr) (which sets PageAnonExclusive) and folio_add_lru_vma(); no
 * deferred split of new THPs, no mTHP. Backported, each with the upstream
 * release whose change it is:
 */
/* 5.15: __mem_cgroup_charge() and __folio_throttle_swaprate() behind inlines */
#define THPCOW_HAS_MEMCG_CHARGE_INLINE		1
#define THPCOW_HAS_MEMCG_SWAPRATE_INLINE	1
/* 5.15: PG_has_hwpoisoned */
#define THPCOW_HAS_HWPOISONED_FLAG		1
/* 5.16: struct folio; mem_cgroup_charge(folio, mm, gfp) */
#define THPCOW_HAS_FOLIO			1
#define THPCOW_HAS_MEMCG_CHARGE_FOLIO		1
/* 5.18: page_remove_rmap(page, vma, compound) (no folio_remove_rmap_pmd(), 6.8) */
#define THPCOW_HAS_REMOVE_RMAP_VMA		1
/* 5.19: PG_anon_exclusive, FAULT_FLAG_UNSHARE, page_add_new_anon_rmap() without compound */
#define THPCOW_HAS_ANON_EXCLUSIVE		1
#define THPCOW_HAS_FAULT_FLAG_UNSHARE		1
#define THPCOW_HAS_NEW_ANON_RMAP_NO_COMPOUND	1
/*
 * 6.0: no FOLL_COW; hugepage_vma_check(vma, vm_flags, smaps, in_pf,
 * enforce_sysfs); vma_alloc_folio(..., hugepage)
 */
#define THPCOW_HAS_NO_FOLL_COW			1
#define THPCOW_HAS_HUGEPAGE_VMA_CHECK		1
#define THPCOW_HAS_VMA_ALLOC_FOLIO		1
/* 6.1: copy_mc_user_highpage(), which does not report (6.9 does) */
#define THPCOW_HAS_COPY_MC_USER_HIGHPAGE	1
/* 6.2: mm_trace_rss_stat(mm, member) */
#define THPCOW_HAS_RSS_STAT_PERCPU		1
/*
 * 6.1..6.8: __folio_throttle_swaprate(), mmu_notifier_range_init() without
 * its vma, folio_add_new_anon_rmap(folio, vma, address) (no rmap flags,
 * 6.11), folio_add_lru_vma(), copy_user_large_folio() reporting a poisoned
 * source in its own copy_subpage()
 */
#define THPCOW_HAS_FOLIO_THROTTLE_SWAPRATE	1
#define THPCOW_HAS_MMU_NOTIFIER_RANGE_NO_VMA	1
#define THPCOW_HAS_FOLIO_ADD_NEW_ANON_RMAP	1
#define THPCOW_HAS_FOLIO_ADD_LRU_VMA		1
#define THPCOW_HAS_COPY_USER_LARGE_FOLIO	1
/* 6.6: pmd_mkwrite(pmd, vma) out of line (x86 shadow stacks) */
#define THPCOW_HAS_PMD_MKWRITE_VMA		1
/* 6.6: no __mmu_notifier_invalidate_range(), no _only_end: the TLB flush tells secondary TLBs */
#define THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH	1
/* 5.17: struct mempolicy's home_node */
#define THPCOW_HAS_MPOL_HOME_NODE		1
/* 6.7: shrinker_alloc() (register_shrinker() is kept beside it) */
#define THPCOW_HAS_SHRINKER_ALLOC		1
/*
 * Not backported (the 5.14 values hold): ftrace_regs accessors (6.2: it
 * has ftrace_instruction_pointer_set()), folio_remove_rmap_pmd() (6.8),
 * mTHP (6.8), __assign_str() with one argument (6.10), folio_zero_user()
 * (6.11), rmap flags (6.11), the underused-THP shrinker
 * (deferred_split_folio(folio) has one argument), and everything of 6.13.
 */
#endif

/*
 * RHEL 10.0's 6.12.0-55 (read in AlmaLinux's kernel-6.12.0-55.24.1.el10_0,
 * against Debian's 6.12.118, which is upstream 6.12 with the 6.12.y stable
 * updates): every entry of the table has the value of upstream 6.12, so
 * nothing is overridden. do_huge_pmd_wp_page() (which splits the huge
 * zero page), wp_huge_pmd(), __do_huge_pmd_anonymous_page() (with
 * deferred_split_folio(folio, false) for the underused-THP shrinker),
 * vma_alloc_folio_noprof(), folio_add_new_anon_rmap(), the memcg charge
 * and mmu_notifier_range_init() are 6.12's, word for word. What differs
 * there is what 6.12.y changed after RHEL's base, none of it on thpcow's
 * path: __handle_mm_fault()'s PMD block (6.12.0's shape),
 * deferred_split_folio() setting partially_mapped non-atomically, the
 * huge zero folio's cmpxchg (no huge_zero_lock), __thp_vma_allowable_orders()'s
 * file-VMA checks (thpcow asks for anonymous VMAs only); and RHEL's kABI
 * reserves (RH_KABI_RESERVE) in struct mmu_notifier_range and its
 * neighbours, which thpcow's build against RHEL's own headers follows.
 */

/* ---- The table, oldest first ---- */

/* 5.11 "ftrace: Have the callbacks receive a struct ftrace_regs instead of pt_regs" */
#ifndef THPCOW_HAS_FTRACE_REGS
#define THPCOW_HAS_FTRACE_REGS			THPCOW_SINCE(5, 11)
#endif

/* 5.11 "ftrace: Reverse what the RECURSION flag means in the ftrace_ops" */
#ifndef THPCOW_HAS_FTRACE_RECURSION_SAFE_DEFAULT
#define THPCOW_HAS_FTRACE_RECURSION_SAFE_DEFAULT THPCOW_SINCE(5, 11)
#endif

/* 5.11 "mm,thp,shmem: limit shmem THP alloc gfp_mask": vma_thp_gfp_mask() */
#ifndef THPCOW_HAS_VMA_THP_GFP_MASK
#define THPCOW_HAS_VMA_THP_GFP_MASK		THPCOW_SINCE(5, 11)
#endif

/* 5.14 "mm: memory: add orig_pmd to struct vm_fault" (do_huge_pmd_wp_page(vmf)) */
#ifndef THPCOW_HAS_VMF_ORIG_PMD
#define THPCOW_HAS_VMF_ORIG_PMD			THPCOW_SINCE(5, 14)
#endif

/*
 * 5.14 "mm/mempolicy: use unified 'nodes' for bind/interleave/prefer
 * policies": struct mempolicy's nodes (not v.nodes, v.preferred_node), and
 * MPOL_LOCAL a mode of its own (not MPOL_PREFERRED with MPOL_F_LOCAL)
 */
#ifndef THPCOW_HAS_MPOL_NODES
#define THPCOW_HAS_MPOL_NODES			THPCOW_SINCE(5, 14)
#endif

/* 5.15 "mm/mempolicy: add MPOL_PREFERRED_MANY for multiple preferred nodes" */
#ifndef THPCOW_HAS_MPOL_PREFERRED_MANY
#define THPCOW_HAS_MPOL_PREFERRED_MANY		THPCOW_SINCE(5, 15)
#endif

/*
 * 5.15 "mm, memcg: inline mem_cgroup_{charge/uncharge} to improve disabled
 * memcg config": __mem_cgroup_charge() behind an inline mem_cgroup_charge()
 */
#ifndef THPCOW_HAS_MEMCG_CHARGE_INLINE
#define THPCOW_HAS_MEMCG_CHARGE_INLINE		THPCOW_SINCE(5, 15)
#endif

/*
 * 5.15 "mm, memcg: inline swap-related functions to improve disabled memcg
 * config": __cgroup_throttle_swaprate() behind an inline
 */
#ifndef THPCOW_HAS_MEMCG_SWAPRATE_INLINE
#define THPCOW_HAS_MEMCG_SWAPRATE_INLINE	THPCOW_SINCE(5, 15)
#endif

/* 5.15 "mm: filemap: check if THP has hwpoisoned subpage for PMD page fault" */
#ifndef THPCOW_HAS_HWPOISONED_FLAG
#define THPCOW_HAS_HWPOISONED_FLAG		THPCOW_SINCE(5, 15)
#endif

/* 5.16 "mm: Introduce struct folio" (and the folio helpers of that merge) */
#ifndef THPCOW_HAS_FOLIO
#define THPCOW_HAS_FOLIO			THPCOW_SINCE(5, 16)
#endif

/* 5.16 "mm/memcg: Convert mem_cgroup_charge() to take a folio" */
#ifndef THPCOW_HAS_MEMCG_CHARGE_FOLIO
#define THPCOW_HAS_MEMCG_CHARGE_FOLIO		THPCOW_SINCE(5, 16)
#endif

/* 5.18 "mm/munlock: rmap call mlock_vma_page() munlock_vma_page()": page_remove_rmap(page, vma, compound) */
#ifndef THPCOW_HAS_REMOVE_RMAP_VMA
#define THPCOW_HAS_REMOVE_RMAP_VMA		THPCOW_SINCE(5, 18)
#endif

/* 5.19 "mm: remember exclusively mapped anonymous pages with PG_anon_exclusive" */
#ifndef THPCOW_HAS_ANON_EXCLUSIVE
#define THPCOW_HAS_ANON_EXCLUSIVE		THPCOW_SINCE(5, 19)
#endif

/*
 * 5.19 "mm: support GUP-triggered unsharing of anonymous pages":
 * FAULT_FLAG_UNSHARE, a constant of enum fault_flag (no macro to test)
 */
#ifndef THPCOW_HAS_FAULT_FLAG_UNSHARE
#define THPCOW_HAS_FAULT_FLAG_UNSHARE		THPCOW_SINCE(5, 19)
#endif

/* 5.19 "mm/rmap: drop "compound" parameter from page_add_new_anon_rmap()" */
#ifndef THPCOW_HAS_NEW_ANON_RMAP_NO_COMPOUND
#define THPCOW_HAS_NEW_ANON_RMAP_NO_COMPOUND	THPCOW_SINCE(5, 19)
#endif

/* 5.17 "mm/mempolicy: add set_mempolicy_home_node syscall": struct mempolicy's home_node */
#ifndef THPCOW_HAS_MPOL_HOME_NODE
#define THPCOW_HAS_MPOL_HOME_NODE		THPCOW_SINCE(5, 17)
#endif

/*
 * 5.14 "cgroup: Added cgroup_get_from_id" (exported for lpfc; Ubuntu's
 * 5.15 Module.symvers has it)
 */
#ifndef THPCOW_HAS_CGROUP_GET_FROM_ID
#define THPCOW_HAS_CGROUP_GET_FROM_ID		THPCOW_SINCE(5, 14)
#endif

/*
 * 6.0 "mm/gup: fix FOLL_FORCE COW security issue and remove FOLL_COW": GUP
 * no longer needs VM_FAULT_WRITE from a write fault that unshared a page
 */
#ifndef THPCOW_HAS_NO_FOLL_COW
#define THPCOW_HAS_NO_FOLL_COW			THPCOW_SINCE(6, 0)
#endif

/* 6.0 "mm: thp: kill __transhuge_page_enabled()": hugepage_vma_check() */
#ifndef THPCOW_HAS_HUGEPAGE_VMA_CHECK
#define THPCOW_HAS_HUGEPAGE_VMA_CHECK		THPCOW_SINCE(6, 0)
#endif

/* 6.0 "mm: Add vma_alloc_folio()" (it preps the THP itself) */
#ifndef THPCOW_HAS_VMA_ALLOC_FOLIO
#define THPCOW_HAS_VMA_ALLOC_FOLIO		THPCOW_SINCE(6, 0)
#endif

/* 6.0 "mm: shrinkers: provide shrinkers with names": register_shrinker(shrinker, fmt, ...) */
#ifndef THPCOW_HAS_SHRINKER_NAME
#define THPCOW_HAS_SHRINKER_NAME		THPCOW_SINCE(6, 0)
#endif

/* 6.1 "mm, hwpoison: try to recover from copy-on write faults": copy_mc_user_highpage() */
#ifndef THPCOW_HAS_COPY_MC_USER_HIGHPAGE
#define THPCOW_HAS_COPY_MC_USER_HIGHPAGE	THPCOW_SINCE(6, 1)
#endif

/* 6.2 "mm: convert mm's rss stats into percpu_counter": mm_trace_rss_stat(mm, member) */
#ifndef THPCOW_HAS_RSS_STAT_PERCPU
#define THPCOW_HAS_RSS_STAT_PERCPU		THPCOW_SINCE(6, 2)
#endif

/* 6.2 "ftrace: rename ftrace_instruction_pointer_set() -> ftrace_regs_set_instruction_pointer()", with ftrace_regs_get_argument() */
#ifndef THPCOW_HAS_FTRACE_REGS_ACCESSORS
#define THPCOW_HAS_FTRACE_REGS_ACCESSORS	THPCOW_SINCE(6, 2)
#endif

/* unpinned 6.1..6.8: __folio_throttle_swaprate() replaces __cgroup_throttle_swaprate() */
#ifndef THPCOW_HAS_FOLIO_THROTTLE_SWAPRATE
#define THPCOW_HAS_FOLIO_THROTTLE_SWAPRATE	THPCOW_SINCE(6, 2)
#endif

/* unpinned 6.1..6.8: mmu_notifier_range_init() without its vma */
#ifndef THPCOW_HAS_MMU_NOTIFIER_RANGE_NO_VMA
#define THPCOW_HAS_MMU_NOTIFIER_RANGE_NO_VMA	THPCOW_SINCE(6, 2)
#endif

/* unpinned 6.1..6.8: folio_add_new_anon_rmap() replaces page_add_new_anon_rmap() */
#ifndef THPCOW_HAS_FOLIO_ADD_NEW_ANON_RMAP
#define THPCOW_HAS_FOLIO_ADD_NEW_ANON_RMAP	THPCOW_SINCE(6, 2)
#endif

/* unpinned 6.1..6.8: lru_cache_add_inactive_or_unevictable() gone, folio_add_lru_vma() it is */
#ifndef THPCOW_HAS_FOLIO_ADD_LRU_VMA
#define THPCOW_HAS_FOLIO_ADD_LRU_VMA		THPCOW_SINCE(6, 2)
#endif

/*
 * unpinned 6.1..6.8: copy_user_large_folio(), machine-check safe and
 * reporting a poisoned source itself ("mm: hwpoison: support recovery from
 * HugePage copy-on-write faults")
 */
#ifndef THPCOW_HAS_COPY_USER_LARGE_FOLIO
#define THPCOW_HAS_COPY_USER_LARGE_FOLIO	THPCOW_SINCE(6, 2)
#endif

/* 6.6 "mm: Make pte_mkwrite() take a VMA" (x86's out of line, shadow stacks) */
#ifndef THPCOW_HAS_PMD_MKWRITE_VMA
#define THPCOW_HAS_PMD_MKWRITE_VMA		THPCOW_SINCE(6, 6)
#endif

/*
 * 6.7 "mm: shrinker: add infrastructure for dynamically allocating
 * shrinker": shrinker_alloc(), shrinker_register(), shrinker_free()
 */
#ifndef THPCOW_HAS_SHRINKER_ALLOC
#define THPCOW_HAS_SHRINKER_ALLOC		THPCOW_SINCE(6, 7)
#endif

/*
 * 6.6 "mmu_notifiers: don't invalidate secondary TLBs as part of
 * mmu_notifier_invalidate_range_end()" and "mmu_notifiers: rename
 * invalidate_range notifier": no __mmu_notifier_invalidate_range(), no
 * only_end, the TLB flush tells secondary TLBs
 */
#ifndef THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH
#define THPCOW_HAS_MMU_NOTIFIER_TLB_FLUSH	THPCOW_SINCE(6, 6)
#endif

/* 6.8 "mm/rmap: introduce folio_remove_rmap_[pte|ptes|pmd]()" */
#ifndef THPCOW_HAS_FOLIO_REMOVE_RMAP_PMD
#define THPCOW_HAS_FOLIO_REMOVE_RMAP_PMD	THPCOW_SINCE(6, 8)
#endif

/*
 * 6.8 "mm: thp: introduce multi-size THP sysfs interface":
 * huge_anon_orders_*, __thp_vma_allowable_orders() for hugepage_vma_check()
 */
#ifndef THPCOW_HAS_MTHP
#define THPCOW_HAS_MTHP				THPCOW_SINCE(6, 8)
#endif

/* 6.9 "mm: move memory_failure_queue() into copy_mc_[user]_highpage()" */
#ifndef THPCOW_HAS_COPY_MC_REPORTS
#define THPCOW_HAS_COPY_MC_REPORTS		THPCOW_SINCE(6, 9)
#endif

/* 6.10 "tracing/treewide: Remove second parameter of __assign_str()" */
#ifndef THPCOW_HAS_ASSIGN_STR_ONE_ARG
#define THPCOW_HAS_ASSIGN_STR_ONE_ARG		THPCOW_SINCE(6, 10)
#endif

/* 6.10 "mm: add per-order mTHP anon_fault_alloc and anon_fault_fallback counters" */
#ifndef THPCOW_HAS_MTHP_STATS
#define THPCOW_HAS_MTHP_STATS			THPCOW_SINCE(6, 10)
#endif

/* unpinned 6.8..6.12: __thp_vma_allowable_orders() takes TVA_* flags, not bools */
#ifndef THPCOW_HAS_TVA_FLAGS
#define THPCOW_HAS_TVA_FLAGS			THPCOW_SINCE(6, 10)
#endif

/* 6.11 "mm: convert clear_huge_page() to folio_zero_user()" */
#ifndef THPCOW_HAS_FOLIO_ZERO_USER
#define THPCOW_HAS_FOLIO_ZERO_USER		THPCOW_SINCE(6, 11)
#endif

/* 6.11 "mm: extend rmap flags arguments for folio_add_new_anon_rmap" */
#ifndef THPCOW_HAS_NEW_ANON_RMAP_FLAGS
#define THPCOW_HAS_NEW_ANON_RMAP_FLAGS		THPCOW_SINCE(6, 11)
#endif

/*
 * 6.12 "mm: split underused THPs" and "mm: introduce a pageflag for
 * partially mapped folios": every new anonymous THP queued for the
 * underused-THP shrinker, deferred_split_folio(folio, partially_mapped)
 */
#ifndef THPCOW_HAS_THP_UNDERUSED_SHRINKER
#define THPCOW_HAS_THP_UNDERUSED_SHRINKER	THPCOW_SINCE(6, 12)
#endif

/* 6.13 "mm: allocate THP on hugezeropage wp-fault": the fix thpcow brings */
#ifndef THPCOW_HAS_HUGE_ZERO_WP_THP
#define THPCOW_HAS_HUGE_ZERO_WP_THP		THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: vma_alloc_folio() without its hugepage argument */
#ifndef THPCOW_HAS_VMA_ALLOC_FOLIO_NO_HUGEPAGE
#define THPCOW_HAS_VMA_ALLOC_FOLIO_NO_HUGEPAGE	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: __split_huge_pmd() without its folio argument */
#ifndef THPCOW_HAS_SPLIT_HUGE_PMD_NO_FOLIO
#define THPCOW_HAS_SPLIT_HUGE_PMD_NO_FOLIO	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: user_alloc_needs_zeroing() (init_on_alloc zeroes once) */
#ifndef THPCOW_HAS_USER_ALLOC_NEEDS_ZEROING
#define THPCOW_HAS_USER_ALLOC_NEEDS_ZEROING	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: count_memcg_events() out of line, no __count_memcg_events() */
#ifndef THPCOW_HAS_COUNT_MEMCG_EVENTS
#define THPCOW_HAS_COUNT_MEMCG_EVENTS		THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: folio_memcg_alloc_deferred(), a memcg's deferred split list */
#ifndef THPCOW_HAS_FOLIO_MEMCG_ALLOC_DEFERRED
#define THPCOW_HAS_FOLIO_MEMCG_ALLOC_DEFERRED	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: folio_mk_pmd() for mk_huge_pmd() */
#ifndef THPCOW_HAS_FOLIO_MK_PMD
#define THPCOW_HAS_FOLIO_MK_PMD			THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: the huge zero folio may be larger than a PMD */
#ifndef THPCOW_HAS_LARGE_HUGE_ZERO_FOLIO
#define THPCOW_HAS_LARGE_HUGE_ZERO_FOLIO	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: __thp_vma_allowable_orders() takes a TVA type (TVA_PAGEFAULT) */
#ifndef THPCOW_HAS_TVA_TYPE
#define THPCOW_HAS_TVA_TYPE			THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: folio_add_lru_vma() declared in mm/internal.h only */
#ifndef THPCOW_HAS_FOLIO_ADD_LRU_VMA_INTERNAL
#define THPCOW_HAS_FOLIO_ADD_LRU_VMA_INTERNAL	THPCOW_SINCE(6, 13)
#endif

/* unpinned 6.12..7.3: the sched_process_exit tracepoint passes group_dead */
#ifndef THPCOW_HAS_EXIT_GROUP_DEAD
#define THPCOW_HAS_EXIT_GROUP_DEAD		THPCOW_SINCE(6, 13)
#endif

#endif /* THPCOW_COMPAT_FEATURES_H */
