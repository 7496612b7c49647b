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

#if !THPCOW_HAS_SHRINKER_ALLOC
/* register_shrinker(), with the name where the series takes one. */
static int thpcow_register_shrinker(struct shrinker *s, const char *name)
{
#if THPCOW_HAS_SHRINKER_NAME
	return register_shrinker(s, "%s", name);
#else
	return register_shrinker(s);
#endif
}
#endif

/* As compat/shrinker.h says. */
struct shrinker *
thpcow_shrinker_register(const char *name, unsigned int flags, int seeks,
			 long batch, thpcow_shrink_fn count, thpcow_shrink_fn scan)
{
	struct shrinker *s;

#if THPCOW_HAS_SHRINKER_ALLOC
	s = shrinker_alloc(flags, "%s", name);
#else
	s = kzalloc(sizeof(*s), GFP_KERNEL);
#endif
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
	s->batch = batch;
#if THPCOW_HAS_SHRINKER_ALLOC
	shrinker_register(s);
#else
	s->flags = flags;
	if (thpcow_register_shrinker(s, name)) {
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
