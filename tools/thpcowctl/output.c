// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: fields, the policy table, counters; as text or JSON. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "parse.h"
#include "thpcowctl.h"

#define FLAGS_TEXT_LEN	128

static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
	{ THPCOW_POLICY_CHILDREN,	"children" },
	{ THPCOW_ENTRY_PATH_TRUNCATED,	"path_truncated" },
};

static const char *const stat_names[] = THPCOW_STAT_NAMES;

_Static_assert(ARRAY_SIZE(stat_names) == THPCOW_STAT_NR, "THPCOW_STAT_NAMES");

/* The name of one flag bit; a bit this tool does not know as hex. */
static const char *flag_name(unsigned int bit, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (flag_names[i].bit == bit)
			return flag_names[i].name;
	snprintf(buf, len, "0x%x", bit);
	return buf;
}

/* "children,cgroup_dead", or "-" for none. */
static void flags_text(unsigned int flags, char *buf, size_t len)
{
	unsigned int bit;
	char hex[16];

	buf[0] = '\0';
	for (bit = 1; bit; bit <<= 1) {
		if (!(flags & bit))
			continue;
		if (buf[0])
			strncat(buf, ",", len - strlen(buf) - 1);
		strncat(buf, flag_name(bit, hex, sizeof(hex)),
			len - strlen(buf) - 1);
	}
	if (!buf[0])
		snprintf(buf, len, "-");
}

static void json_flags(struct json *j, const char *key, unsigned int flags)
{
	unsigned int bit;
	char hex[16];

	json_array(j, key);
	for (bit = 1; bit; bit <<= 1)
		if (flags & bit)
			json_string(j, NULL, flag_name(bit, hex, sizeof(hex)));
	json_end(j);
}

void fput_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, max), len;

	while (n) {
		len = utf8_seq_len(p, n);
		if (!len || *p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\x%02x", *p);
			len = 1;
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
		n -= len;
	}
}

static void __attribute__((noreturn)) out_of_memory(void)
{
	error_msg("out of memory");
	exit(EXIT_FAIL);
}

FILE *xmemstream(char **buf, size_t *len)
{
	FILE *m = open_memstream(buf, len);

	if (!m)
		out_of_memory();
	return m;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		out_of_memory();
	return s;
}

static size_t field_max(const struct field *fl)
{
	return fl->max ? fl->max : strlen(fl->str);
}

static void field_json(struct json *j, const struct field *fl)
{
	switch (fl->type) {
	case FIELD_NULL:
		json_null(j, fl->key);
		break;
	case FIELD_STR:
		json_string_n(j, fl->key, fl->str, field_max(fl));
		break;
	case FIELD_UINT:
		json_uint(j, fl->key, fl->num);
		break;
	case FIELD_BOOL:
		json_bool(j, fl->key, fl->num);
		break;
	case FIELD_FLAGS:
		json_flags(j, fl->key, fl->num);
		break;
	}
}

static void field_text(FILE *f, const struct field *fl)
{
	char buf[FLAGS_TEXT_LEN];

	switch (fl->type) {
	case FIELD_NULL:
		fputc('-', f);
		break;
	case FIELD_STR:
		fput_text(f, fl->str, field_max(fl));
		break;
	case FIELD_UINT:
		fprintf(f, "%llu", fl->num);
		break;
	case FIELD_BOOL:
		fputs(fl->num ? "yes" : "no", f);
		break;
	case FIELD_FLAGS:
		flags_text(fl->num, buf, sizeof(buf));
		fputs(buf, f);
		break;
	}
}

/* Text: "label:" lines with the values aligned. JSON: one object. */
void print_fields(FILE *f, const struct field *fields, size_t n, bool json)
{
	size_t i, width = 0;
	struct json j;

	if (json) {
		json_init(&j, f);
		json_object(&j, NULL);
		for (i = 0; i < n; i++)
			field_json(&j, &fields[i]);
		json_end(&j);
		return;
	}
	for (i = 0; i < n; i++)
		if (strlen(fields[i].label) > width)
			width = strlen(fields[i].label);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s:%*s ", fields[i].label,
			(int)(width - strlen(fields[i].label)), "");
		field_text(f, &fields[i]);
		fputc('\n', f);
	}
}

size_t entry_fields(const struct thpcow_entry *e, bool present,
		    struct field *out)
{
	size_t n = 0;

	out[n++] = FIELD_STR("scope", "scope", scope_name(e->scope));
	if (e->scope == THPCOW_SCOPE_PID) {
		out[n++] = FIELD_UINT("pid", "pid", (unsigned int)e->pid);
		out[n] = FIELD_STR("comm", "comm", e->comm);
		out[n++].max = sizeof(e->comm);
	} else if (e->scope == THPCOW_SCOPE_CGROUP) {
		out[n] = FIELD_STR("cgroup", "cgroup", e->path);
		out[n++].max = sizeof(e->path);
		out[n++] = FIELD_UINT("cgroup id", "cgroup_id", e->cgroup_id);
	}
	out[n++] = present ? FIELD_STR("mode", "mode", mode_name(e->mode)) :
			     FIELD_NULL("mode", "mode");
	out[n++] = FIELD_FLAGS("flags", "flags", e->flags);
	out[n++] = FIELD_UINT("substitutions", "substitutions",
			      e->substitutions);
	return n;
}

/* The TARGET cell: "PID (comm)", the cgroup's path, or "-". */
static char *entry_target(const struct thpcow_entry *e)
{
	char *buf = NULL;
	size_t len;
	FILE *m = xmemstream(&buf, &len);

	if (e->scope == THPCOW_SCOPE_PID) {
		fprintf(m, "%d (", e->pid);
		fput_text(m, e->comm, sizeof(e->comm));
		fputc(')', m);
	} else if (e->scope == THPCOW_SCOPE_CGROUP && e->path[0]) {
		fput_text(m, e->path, sizeof(e->path));
	} else if (e->scope == THPCOW_SCOPE_CGROUP) {
		fprintf(m, "(id %llu)", (unsigned long long)e->cgroup_id);
	} else {
		fputc('-', m);
	}
	fclose(m);
	return buf;
}

static const struct column entry_columns[] = {
	{ "SCOPE", false },
	{ "TARGET", false },
	{ "MODE", false },
	{ "FLAGS", false },
	{ "SUBSTITUTIONS", true },
};

#define NCOLS	ARRAY_SIZE(entry_columns)

/*
 * Columns two spaces apart, sized to their widest cell, no trailing
 * blanks; cells holds nrows rows of ncols (at most TABLE_COLS_MAX).
 */
void print_table(FILE *f, const struct column *cols, size_t ncols,
		 char **cells, size_t nrows)
{
	size_t width[TABLE_COLS_MAX], r, c, w;
	const char *s;

	for (c = 0; c < ncols; c++)
		width[c] = strlen(cols[c].header);
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++) {
			w = utf8_width(cells[r * ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	for (r = 0; r <= nrows; r++) {
		for (c = 0; c < ncols; c++) {
			s = r ? cells[(r - 1) * ncols + c] : cols[c].header;
			w = width[c] - utf8_width(s);
			if (c)
				fputs("  ", f);
			if (cols[c].right)
				fprintf(f, "%*s", (int)w, "");
			fputs(s, f);
			if (!cols[c].right && c + 1 < ncols)
				fprintf(f, "%*s", (int)w, "");
		}
		fputc('\n', f);
	}
}

static void print_entries_json(FILE *f, const struct thpcow_entry *e, size_t n)
{
	struct field fields[ENTRY_FIELDS_MAX];
	struct json j;
	size_t i, k, nf;

	json_init(&j, f);
	json_object(&j, NULL);
	json_array(&j, "policies");
	for (i = 0; i < n; i++) {
		nf = entry_fields(&e[i], true, fields);
		json_object(&j, NULL);
		for (k = 0; k < nf; k++)
			field_json(&j, &fields[k]);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

/* The 'list' output: a table with a header line, or {"policies":[...]}. */
void print_entries(FILE *f, const struct thpcow_entry *e, size_t n, bool json)
{
	char flags[FLAGS_TEXT_LEN], **cells;
	size_t i;

	if (json) {
		print_entries_json(f, e, n);
		return;
	}
	cells = calloc(n * NCOLS + 1, sizeof(*cells));
	if (!cells)
		out_of_memory();
	for (i = 0; i < n; i++) {
		flags_text(e[i].flags, flags, sizeof(flags));
		cells[i * NCOLS + 0] = xasprintf("%s", scope_name(e[i].scope));
		cells[i * NCOLS + 1] = entry_target(&e[i]);
		cells[i * NCOLS + 2] = xasprintf("%s", mode_name(e[i].mode));
		cells[i * NCOLS + 3] = xasprintf("%s", flags);
		cells[i * NCOLS + 4] = xasprintf("%llu", (unsigned long long)
						 e[i].substitutions);
	}
	print_table(f, entry_columns, NCOLS, cells, n);
	for (i = 0; i < n * NCOLS; i++)
		free(cells[i]);
	free(cells);
}

/* How many counters st holds (the module may be older or newer). */
unsigned int stats_count(const struct thpcow_stats *st)
{
	return st->count < THPCOW_STATS_MAX ? st->count : THPCOW_STATS_MAX;
}

/* A counter's name; one a newer module added is "counter_N". */
const char *stat_name(unsigned int i, char *buf, size_t len)
{
	if (i < ARRAY_SIZE(stat_names))
		return stat_names[i];
	snprintf(buf, len, "counter_%u", i);
	return buf;
}

/* All the fallback_* counters, summed: what did not get a whole THP. */
unsigned long long stats_fallbacks(const struct thpcow_stats *st)
{
	unsigned long long sum = 0;
	unsigned int i;

	for (i = 0; i < stats_count(st) && i < ARRAY_SIZE(stat_names); i++)
		if (strncmp(stat_names[i], "fallback_", 9) == 0)
			sum += st->counters[i];
	return sum;
}

/*
 * Without prev: "name value" lines, or {"policies":N,"counters":{...}}.
 * With prev: "interval_s S" then "name rate" lines (per second) and a
 * blank line, or {"interval_s":S,"rates":{...}}. A counter that went
 * backwards (the module was reloaded) counts from zero.
 */
void print_counters(FILE *f, const struct thpcow_stats *st,
		    const struct thpcow_stats *prev, double secs, bool json)
{
	unsigned int i, n = stats_count(st);
	unsigned long long v;
	const char *name;
	struct json j;
	char buf[32];

	if (prev && stats_count(prev) < n)
		n = stats_count(prev);
	json_init(&j, f);
	if (json) {
		json_object(&j, NULL);
		if (prev)
			json_double(&j, "interval_s", secs);
		else
			json_uint(&j, "policies", st->policies);
		json_object(&j, prev ? "rates" : "counters");
	} else if (prev) {
		fprintf(f, "%-20s %.2f\n", "interval_s", secs);
	}
	for (i = 0; i < n; i++) {
		name = stat_name(i, buf, sizeof(buf));
		v = st->counters[i];
		if (prev && v >= prev->counters[i])
			v -= prev->counters[i];
		if (json && prev)
			json_double(&j, name, v / secs);
		else if (json)
			json_uint(&j, name, v);
		else if (prev)
			fprintf(f, "%-20s %.2f\n", name, v / secs);
		else
			fprintf(f, "%-20s %llu\n", name, v);
	}
	if (json) {
		json_end(&j);
		json_end(&j);
	} else if (prev) {
		fputc('\n', f);
	}
}
