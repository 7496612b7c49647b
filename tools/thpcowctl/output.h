/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: output. Everything a verb prints is built here, as text or as
 * JSON from the same data, so that it can be tested without a kernel.
 */
#ifndef THPCOWCTL_OUTPUT_H
#define THPCOWCTL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include <uapi/thpcow.h>

#include "json.h"
#include "table.h"

/* One "label: value" line of text, one "key": value member of JSON. */
enum field_type { FIELD_NULL, FIELD_STR, FIELD_UINT, FIELD_BOOL, FIELD_FLAGS };

struct field {
	const char *label;	/* text, e.g. "global mode" */
	const char *key;	/* JSON, e.g. "global_mode" */
	enum field_type type;
	const char *str;	/* FIELD_STR, at most max bytes if max != 0 */
	size_t max;
	unsigned long long num;	/* FIELD_UINT, FIELD_BOOL, FIELD_FLAGS */
};

/* The _IF forms are null when ok is false (not known). */
#define FIELD_STR(l, k, s) \
	((struct field){ .label = l, .key = k, .str = s, \
			 .type = (s) ? FIELD_STR : FIELD_NULL })
#define FIELD_UINT_IF(l, k, v, ok) \
	((struct field){ .label = l, .key = k, .num = v, \
			 .type = (ok) ? FIELD_UINT : FIELD_NULL })
#define FIELD_BOOL_IF(l, k, v, ok) \
	((struct field){ .label = l, .key = k, .num = !!(v), \
			 .type = (ok) ? FIELD_BOOL : FIELD_NULL })
#define FIELD_UINT(l, k, v)	FIELD_UINT_IF(l, k, v, true)
#define FIELD_BOOL(l, k, v)	FIELD_BOOL_IF(l, k, v, true)
#define FIELD_FLAGS(l, k, v) \
	((struct field){ .label = l, .key = k, .type = FIELD_FLAGS, .num = v })
#define FIELD_NULL(l, k) \
	((struct field){ .label = l, .key = k, .type = FIELD_NULL })

void print_fields(FILE *f, const struct field *fields, size_t n, bool json);

/* Text that is safe on a terminal: control and non-UTF-8 bytes as \xNN. */
void fput_text(FILE *f, const char *s, size_t max);

/* An entry's fields; present == false makes its mode null (get). */
#define ENTRY_FIELDS_MAX	8
size_t entry_fields(const struct thpcow_entry *e, bool present,
		    struct field *out);
/* list: its columns, and the table (or JSON) of the entries. */
extern const struct table_col list_cols[];
extern const size_t list_ncols;
extern const char *const list_defaults;
void print_entries(FILE *f, const struct thpcow_entry *e, size_t n,
		   const struct table_opts *o);

/* stats: a table of the counters, or JSON. */
extern const struct table_col counter_cols[];
extern const size_t counter_ncols;
extern const char *const counter_defaults;

unsigned int stats_count(const struct thpcow_stats *st);
const char *stat_name(unsigned int i, char *buf, size_t len);
const char *stat_desc(unsigned int i);
unsigned long long stats_fallbacks(const struct thpcow_stats *st);
void print_counters(FILE *f, const struct thpcow_stats *st,
		    const struct table_opts *o);

/* stats --watch: TIME and a column per counter; a row (or JSON line) each
 * interval, of what each counter grew by. t NULL: JSON. */
const struct table_col *watch_cols(void);
extern const size_t watch_ncols;
extern const char *const watch_defaults;
void print_interval(FILE *f, struct table *t, const struct thpcow_stats *st,
		    const struct thpcow_stats *prev, double secs,
		    const char *when);

/* stats --format prometheus: thpcow_up and thpcow_build_info first. */
void print_prometheus_head(FILE *f, bool up, const char *module_version,
			   const char *kernel);
/* the counters; mode NULL, hook_armed < 0 if not known. */
void print_prometheus(FILE *f, const struct thpcow_stats *st,
		      const char *mode, unsigned long long thp_bytes,
		      int hook_armed);

#endif /* THPCOWCTL_OUTPUT_H */
