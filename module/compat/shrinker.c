// SPDX-License-Identifier: GPL-2.0
/*
 * A shrinker, registered as each series registers one: shrinker_alloc()
 * and shrinker_register() from 6.7, a caller's struct shrinker with a name
 * from 6.0, without before.
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "features.h"
#include "shrinker.h"

/*
 * A registered shrinker of @count and @scan, @flags (SHRINKER_*), @seeks
 * and @batch (objects a call of @scan is asked for), called @name in
 * debugfs' shrinker directory where the series has one; NULL on failure.
 */
struct shrinker *
thpcow_shrinker_register(const char *name, unsigned int flags, int seeks,
			 long batch,
			 unsigned long (*count)(struct shrinker *,
						struct shrink_control *),
			 unsigned long (*scan)(struct shrinker *,
					       struct shrink_control *))
{
	struct shrinker *s;
#if !THPCOW_HAS_SHRINKER_ALLOC
	int ret;
#endif

#if THPCOW_HAS_SHRINKER_ALLOC
	s = shrinker_alloc(flags, "%s", name);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->batch = batch;
	shrinker_register(s);
#else
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->batch = batch;
	s->flags = flags;
#if THPCOW_HAS_SHRINKER_NAME
	ret = register_shrinker(s, "%s", name);
#else
	ret = register_shrinker(s);
#endif
	if (ret) {
		kfree(s);
		return NULL;
	}
#endif
	return s;
}

/* Unregister @s and wait for its callbacks to return. */
void thpcow_shrinker_free(struct shrinker *s)
{
#if THPCOW_HAS_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(s);
#endif
}
