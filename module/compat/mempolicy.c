// SPDX-License-Identifier: GPL-2.0
/*
 * The node a THP fault's own allocation tries first (compat/mempolicy.h),
 * by the policy's layout and meaning in each series.
 */
#include <linux/cpuset.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "features.h"
#include "mempolicy.h"

#ifdef CONFIG_NUMA
/* The nodes of a bind or preferred-many policy. */
static const nodemask_t *thpcow_mpol_nodes(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_NODES
	return &pol->v.nodes;
#else
	return &pol->nodes;
#endif
}

/* MPOL_PREFERRED's node, or NUMA_NO_NODE where it means the local one. */
static int thpcow_mpol_preferred(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_NODES
	return pol->flags & MPOL_F_LOCAL ? NUMA_NO_NODE : pol->v.preferred_node;
#else
	return first_node(pol->nodes);
#endif
}

/*
 * The node a bind (or preferred-many) policy's THP allocation starts
 * from: its home node (set_mempolicy_home_node()) where the series' THP
 * path takes it (preferred-many from 5.17, bind from 6.7's
 * alloc_pages_mpol(); before, vma_alloc_folio() tried the local node
 * first), else the local node; NUMA_NO_NODE unless the policy's nodes
 * hold it.
 */
static int thpcow_mpol_bind_node(const struct mempolicy *pol, int local)
{
	int nid = local;

#if THPCOW_HAS_MPOL_HOME_NODE
	if (pol->home_node != NUMA_NO_NODE &&
	    (THPCOW_HAS_ALLOC_PAGES_MPOL || pol->mode != MPOL_BIND))
		nid = pol->home_node;
#endif
	return node_isset(nid, *thpcow_mpol_nodes(pol)) ? nid : NUMA_NO_NODE;
}

static bool thpcow_mpol_is_bind(const struct mempolicy *pol)
{
#if !THPCOW_HAS_MPOL_PREFERRED_MANY
	return pol->mode == MPOL_BIND;
#else
	return pol->mode == MPOL_BIND || pol->mode == MPOL_PREFERRED_MANY;
#endif
}

/*
 * The VMA's policy, else the task's (the kernel's get_vma_policy()), read
 * as its THP allocation reads it: the local node (no policy, MPOL_LOCAL),
 * MPOL_PREFERRED's node, a bind or preferred-many policy's starting node
 * if its nodes hold it. NUMA_NO_NODE where the kernel would choose
 * otherwise: interleaving, a file's policy (vm_ops->get_policy), a bind
 * policy without its starting node. Only the task itself replaces its own
 * policy; the mmap or VMA lock keeps the VMA's.
 */
static int thpcow_policy_node(struct vm_area_struct *vma)
{
	struct mempolicy *pol;
	int nid = numa_node_id();

	if (vma->vm_ops && vma->vm_ops->get_policy)
		return NUMA_NO_NODE;
	pol = vma->vm_policy ?: current->mempolicy;
	if (!pol || pol->mode == MPOL_LOCAL)
		return nid;
	if (pol->mode == MPOL_PREFERRED)
		return thpcow_mpol_preferred(pol) == NUMA_NO_NODE ?
		       nid : thpcow_mpol_preferred(pol);
	if (thpcow_mpol_is_bind(pol))
		return thpcow_mpol_bind_node(pol, nid);
	return NUMA_NO_NODE;
}
#else
static int thpcow_policy_node(struct vm_area_struct *vma)
{
	return numa_node_id();
}
#endif /* CONFIG_NUMA */

int thpcow_vma_thp_node(struct vm_area_struct *vma)
{
	int nid = thpcow_policy_node(vma);

	if (nid == NUMA_NO_NODE || !node_isset(nid, cpuset_current_mems_allowed))
		return NUMA_NO_NODE;
	return nid;
}
