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
void print_entries(FILE *f, const struct thpcow_entry *e, size_t n, bool json);

/* A table: a header per column, right-aligned or not. */
#define TABLE_COLS_MAX	16
struct column {
	const char *header;
	bool right;
};

void print_table(FILE *f, const struct column *cols, size_t ncols,
		 char **cells, size_t nrows);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
FILE *xmemstream(char **buf, size_t *len);

/* Counters: absolute (prev == NULL) or per second since prev. */
unsigned int stats_count(const struct thpcow_stats *st);
const char *stat_name(unsigned int i, char *buf, size_t len);
unsigned long long stats_fallbacks(const struct thpcow_stats *st);
void print_counters(FILE *f, const struct thpcow_stats *st,
		    const struct thpcow_stats *prev, double secs, bool json);

#endif /* THPCOWCTL_OUTPUT_H */
