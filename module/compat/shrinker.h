/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shrinker, registered as each series registers one: shrinker_alloc()
 * and shrinker_register() from 6.7, a caller's struct shrinker with a name
 * from 6.0, without before.
 */
#ifndef THPCOW_COMPAT_SHRINKER_H
#define THPCOW_COMPAT_SHRINKER_H

#include <linux/shrinker.h>
#include <linux/slab.h>

#include "features.h"

/*
 * A registered shrinker of @count and @scan, @flags (SHRINKER_*) and
 * @seeks, called @name in debugfs' shrinker directory where the series
 * has one; NULL on failure.
 */
static inline struct shrinker *
thpcow_shrinker_register(const char *name, unsigned int flags, int seeks,
			 unsigned long (*count)(struct shrinker *,
						struct shrink_control *),
			 unsigned long (*scan)(struct shrinker *,
					       struct shrink_control *))
{
	struct shrinker *s;

#if THPCOW_HAS_SHRINKER_ALLOC
	s = shrinker_alloc(flags, "%s", name);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	shrinker_register(s);
#else
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->flags = flags;
#if THPCOW_HAS_SHRINKER_NAME
	if (register_shrinker(s, "%s", name)) {
#else
	if (register_shrinker(s)) {
#endif
		kfree(s);
		return NULL;
	}
#endif
	return s;
}

/* Unregister @s and wait for its callbacks to return. */
static inline void thpcow_shrinker_free(struct shrinker *s)
{
#if THPCOW_HAS_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(s);
#endif
}

#endif /* THPCOW_COMPAT_SHRINKER_H */
