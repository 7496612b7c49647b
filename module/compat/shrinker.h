/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shrinker, registered as each series registers one (compat/shrinker.c).
 */
#ifndef THPCOW_COMPAT_SHRINKER_H
#define THPCOW_COMPAT_SHRINKER_H

struct shrinker;
struct shrink_control;

/* A shrinker's count_objects() or scan_objects(). */
typedef unsigned long (*thpcow_shrink_fn)(struct shrinker *s,
					  struct shrink_control *sc);

/*
 * A registered shrinker of @count and @scan, @flags (SHRINKER_*), @seeks
 * and @batch (objects a call of @scan is asked for; 0: SHRINK_BATCH),
 * called @name in debugfs' shrinker directory where the series has one;
 * NULL on failure.
 */
struct shrinker *
thpcow_shrinker_register(const char *name, unsigned int flags, int seeks,
			 long batch, thpcow_shrink_fn count, thpcow_shrink_fn scan);

/* Unregister @s and wait for its callbacks to return. */
void thpcow_shrinker_free(struct shrinker *s);

#endif /* THPCOW_COMPAT_SHRINKER_H */
