// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters, per CPU, and the names of what they count: the
 * bottom of the module, which every other file may count into and which
 * calls none of them.
 */
#include "thpcow.h"

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/stringify.h>

DEFINE_PER_CPU(struct thpcow_counters, thpcow_counters);

const char * const thpcow_stat_names[] = {
#define THPCOW_STAT(NAME, name) __stringify(name),
#include <uapi/thpcow-stats.h>
};
static_assert(ARRAY_SIZE(thpcow_stat_names) == THPCOW_STAT_NR);
static_assert(THPCOW_STAT_NR <= THPCOW_STATS_MAX);

/* Which counter of enum thpcow_stat each usage counter is. */
static const u8 thpcow_usage_stats[] = {
#define THPCOW_USAGE(NAME) THPCOW_STAT_##NAME,
#include <uapi/thpcow-stats.h>
};
static_assert(ARRAY_SIZE(thpcow_usage_stats) == THPCOW_USAGE_NR);
static_assert(THPCOW_USAGE_NR <= THPCOW_USAGE_MAX);

const char *thpcow_usage_name(enum thpcow_usage_stat idx)
{
	return thpcow_stat_names[thpcow_usage_stats[idx]];
}

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
	int i;

	for (i = 0; i < THPCOW_USAGE_NR; i++)
		if (thpcow_usage_stats[i] == why)
			return i;
	return -1;
}

/* At unload, in the kernel's log: every counter that moved. */
void thpcow_stats_report(void)
{
	static char line[THPCOW_STAT_NR * 32];
	u64 sum[THPCOW_STAT_NR];
	int i, len = 0;

	thpcow_counters_sum(sum);
	for (i = 0; i < THPCOW_STAT_NR; i++)
		if (sum[i])
			len += scnprintf(line + len, sizeof(line) - len, " %s=%llu",
					 thpcow_stat_names[i], sum[i]);
	pr_info("unloaded; counters:%s\n", len ? line : " none moved");
}
