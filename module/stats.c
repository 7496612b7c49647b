// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters, per CPU, and the names of what they count: the
 * bottom of the module, which every other file may count into and which
 * calls none of them.
 */
#include "thpcow.h"

#include <linux/string.h>

DEFINE_PER_CPU(struct thpcow_counters, thpcow_counters);

const char * const thpcow_stat_names[] = THPCOW_STAT_NAMES;
static_assert(ARRAY_SIZE(thpcow_stat_names) == THPCOW_STAT_NR);

void thpcow_counters_sum(u64 *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(u64) * THPCOW_STAT_NR);
	for_each_possible_cpu(cpu)
		for (i = 0; i < THPCOW_STAT_NR; i++)
			sum[i] += per_cpu(thpcow_counters.c[i], cpu);
}

/* Which usage counter (THPCOW_USAGE_*) an outcome of the handler goes to, or -1. */
int thpcow_stat_usage(enum thpcow_stat why)
{
	switch (why) {
	case THPCOW_STAT_SUBSTITUTED:
		return THPCOW_USAGE_SUBSTITUTED;
	case THPCOW_STAT_COPIED:
		return THPCOW_USAGE_COPIED;
	case THPCOW_STAT_SPLIT:
		return THPCOW_USAGE_SPLIT;
	case THPCOW_STAT_FALLBACK_INELIGIBLE:
		return THPCOW_USAGE_FALLBACK_INELIGIBLE;
	case THPCOW_STAT_FALLBACK_UFFD:
		return THPCOW_USAGE_FALLBACK_UFFD;
	case THPCOW_STAT_FALLBACK_ALLOC:
		return THPCOW_USAGE_FALLBACK_ALLOC;
	case THPCOW_STAT_FALLBACK_CHARGE:
		return THPCOW_USAGE_FALLBACK_CHARGE;
	case THPCOW_STAT_FALLBACK_UNSTABLE:
		return THPCOW_USAGE_FALLBACK_UNSTABLE;
	case THPCOW_STAT_FALLBACK_PINNED:
		return THPCOW_USAGE_FALLBACK_PINNED;
	default:
		return -1;
	}
}

/* At unload, in the kernel's log. */
void thpcow_stats_report(void)
{
	u64 sum[THPCOW_STAT_NR];

	thpcow_counters_sum(sum);
	pr_info("unloaded: %llu hook calls, %llu THPs substituted, %llu passed through\n",
		sum[THPCOW_STAT_HOOK_CALLS], sum[THPCOW_STAT_SUBSTITUTED],
		sum[THPCOW_STAT_PASSTHROUGH]);
}
