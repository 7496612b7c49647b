/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a first-touch THP fault would put its THP: the node the kernel's
 * own allocation tries first, read from the policy as that series'
 * vma_alloc_folio() (alloc_pages_vma() before 6.0) reads it.
 */
#ifndef THPCOW_COMPAT_MEMPOLICY_H
#define THPCOW_COMPAT_MEMPOLICY_H

#include <linux/cpuset.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "features.h"

#ifdef CONFIG_NUMA
/* The nodes of a bind or preferred-many policy. */
static inline const nodemask_t *thpcow_mpol_nodes(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_NODES
	return &pol->v.nodes;
#else
	return &pol->nodes;
#endif
}

/* MPOL_PREFERRED's node, or NUMA_NO_NODE where it means the local one. */
static inline int thpcow_mpol_preferred(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_NODES
	return pol->flags & MPOL_F_LOCAL ? NUMA_NO_NODE : pol->v.preferred_node;
#else
	return first_node(pol->nodes);
#endif
}

/* A bind or preferred-many policy's home node (set_mempolicy_home_node()). */
static inline int thpcow_mpol_home_node(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_HOME_NODE
	return NUMA_NO_NODE;
#else
	return pol->home_node;
#endif
}

static inline bool thpcow_mpol_is_bind(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_PREFERRED_MANY
	return pol->mode == MPOL_BIND;
#else
	return pol->mode == MPOL_BIND || pol->mode == MPOL_PREFERRED_MANY;
#endif
}
#endif /* CONFIG_NUMA */

/*
 * The node a THP fault at @vma would take its THP from first, if that is
 * certain: the VMA's policy, else the task's (the kernel's
 * get_vma_policy()), read as its THP allocation reads it: the local node
 * (no policy, MPOL_LOCAL), MPOL_PREFERRED's node, or for a bind or
 * preferred-many policy its home node or the local node, if the policy's
 * nodes hold it; and the task's cpuset must allow it. NUMA_NO_NODE where
 * the kernel would choose otherwise (interleaving, a bind policy without
 * the local node, a file's policy) or the cpuset does not allow the node:
 * the caller then lets the kernel choose. Called in the faulting task, under
 * the mmap or VMA lock, which keeps the VMA's policy; only the task itself
 * replaces its own.
 */
static inline int thpcow_vma_thp_node(struct vm_area_struct *vma)
{
	int nid = numa_node_id();
#ifdef CONFIG_NUMA
	struct mempolicy *pol;

	if (vma->vm_ops && vma->vm_ops->get_policy)
		return NUMA_NO_NODE;
	pol = vma->vm_policy ?: current->mempolicy;
	if (!pol || pol->mode == MPOL_LOCAL) {
		/* the local node */
	} else if (pol->mode == MPOL_PREFERRED) {
		if (thpcow_mpol_preferred(pol) != NUMA_NO_NODE)
			nid = thpcow_mpol_preferred(pol);
	} else if (thpcow_mpol_is_bind(pol)) {
		if (thpcow_mpol_home_node(pol) != NUMA_NO_NODE)
			nid = thpcow_mpol_home_node(pol);
		if (!node_isset(nid, *thpcow_mpol_nodes(pol)))
			return NUMA_NO_NODE;
	} else {
		return NUMA_NO_NODE;
	}
	if (!node_isset(nid, cpuset_current_mems_allowed))
		return NUMA_NO_NODE;
#endif
	return nid;
}

#endif /* THPCOW_COMPAT_MEMPOLICY_H */
