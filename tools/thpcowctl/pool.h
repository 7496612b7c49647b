/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: the module's pool of pre-zeroed THPs as debugfs shows it
 * (KEY VALUE lines), for pool, status and stats --format prometheus.
 */
#ifndef THPCOWCTL_POOL_H
#define THPCOWCTL_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define POOL_DEBUGFS	"/sys/kernel/debug/thpcow/pool"
#define POOL_KEYS	64

struct pool_info {
	size_t n;
	char key[POOL_KEYS][32];
	unsigned long long val[POOL_KEYS];
};

/* Read @path's KEY VALUE lines; 0, or -errno. */
int pool_read(const char *path, struct pool_info *p);
/* KEY's value, if the pool has it. */
bool pool_get(const struct pool_info *p, const char *key,
	      unsigned long long *val);
/* The Prometheus families of the pool: its size, per node, and its cost. */
void print_prometheus_pool(FILE *f, const struct pool_info *p);

#endif /* THPCOWCTL_POOL_H */
