/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cgroup v2 by its id: cgroup_get_from_id() where the kernel exports it
 * (NULL or an ERR_PTR when there is none, as the series has it); otherwise
 * (5.10) the module walks the default hierarchy for it, which is
 * O(cgroups) but only ever runs when usage is read.
 */
#ifndef THPCOW_COMPAT_CGROUP_H
#define THPCOW_COMPAT_CGROUP_H

#include <linux/cgroup.h>
#include <linux/err.h>

#include "features.h"

/* The online cgroup v2 with id @id, referenced (cgroup_put()), or NULL. */
static inline struct cgroup *thpcow_cgroup_get_from_id(u64 id)
{
	struct cgroup *cgrp = NULL;
#if !THPCOW_HAS_CGROUP_GET_FROM_ID
	struct cgroup_subsys_state *pos;

	rcu_read_lock();
	css_for_each_descendant_pre(pos, &cgrp_dfl_root.cgrp.self)
		if (cgroup_id(pos->cgroup) == id) {
			if (css_tryget(pos))
				cgrp = pos->cgroup;
			break;
		}
	rcu_read_unlock();
#else
	cgrp = cgroup_get_from_id(id);
	if (IS_ERR(cgrp))
		cgrp = NULL;
#endif
	if (cgrp && !(cgrp->self.flags & CSS_ONLINE)) {
		cgroup_put(cgrp);
		cgrp = NULL;
	}
	return cgrp;
}

#endif /* THPCOW_COMPAT_CGROUP_H */
