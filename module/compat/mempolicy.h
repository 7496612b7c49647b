/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a first-touch THP fault would put its THP: the node the kernel's
 * own allocation tries first, read from the policy as that series'
 * vma_alloc_folio() (alloc_pages_vma() before 6.0, alloc_pages_mpol()
 * from 6.7) reads it (compat/mempolicy.c).
 */
#ifndef THPCOW_COMPAT_MEMPOLICY_H
#define THPCOW_COMPAT_MEMPOLICY_H

struct vm_area_struct;

/*
 * The node a THP fault at @vma would take its THP from first, if that is
 * certain and the task's cpuset allows it; else NUMA_NO_NODE, and the
 * caller lets the kernel choose. Called in the faulting task, under the
 * mmap or VMA lock.
 */
int thpcow_vma_thp_node(struct vm_area_struct *vma);

#endif /* THPCOW_COMPAT_MEMPOLICY_H */
