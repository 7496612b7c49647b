// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: the pool of pre-zeroed THPs, read from debugfs (pool.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pool.h"
#include "prom.h"

int pool_read(const char *path, struct pool_info *p)
{
	FILE *f = fopen(path, "re");
	char line[128];

	p->n = 0;
	if (!f)
		return -errno;
	while (p->n < POOL_KEYS && fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %llu", p->key[p->n], &p->val[p->n]) == 2)
			p->n++;
	fclose(f);
	return 0;
}

bool pool_get(const struct pool_info *p, const char *key,
	      unsigned long long *val)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->key[i], key) == 0) {
			*val = p->val[i];
			return true;
		}
	return false;
}

void print_prometheus_pool(FILE *f, const struct pool_info *p)
{
	static const struct {
		const char *key, *name, *type, *help;
	} one[] = {
		{ "target", "thpcow_pool_target_thps", "gauge",
		  "THPs the pool of pre-zeroed THPs keeps, over all nodes (pool_mib)" },
		{ "refill_ns", "thpcow_pool_refill_seconds_total", "counter",
		  "Time the pool's refill threads spent allocating and zeroing" },
		{ "cpu_ns", "thpcow_pool_cpu_seconds_total", "counter",
		  "CPU time of the pool's refill threads while they run" },
	};
	unsigned long long v;
	unsigned int node;
	char nodebuf[16];
	size_t i;

	for (i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		if (!pool_get(p, one[i].key, &v))
			continue;
		prom_family(f, one[i].name, one[i].type, one[i].help);
		if (strcmp(one[i].type, "counter") == 0)
			prom_sample_double(f, one[i].name, NULL, 0, v / 1e9);
		else
			prom_sample(f, one[i].name, NULL, 0, v);
	}
	prom_family(f, "thpcow_pool_thps", "gauge",
		    "Pre-zeroed THPs pooled now, per NUMA node");
	for (i = 0; i < p->n; i++) {
		if (sscanf(p->key[i], "node%u_thps", &node) != 1)
			continue;
		snprintf(nodebuf, sizeof(nodebuf), "%u", node);
		prom_sample(f, "thpcow_pool_thps",
			    &(const struct prom_label){ "node", nodebuf, 0 }, 1,
			    p->val[i]);
	}
}
