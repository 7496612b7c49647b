// SPDX-License-Identifier: GPL-2.0
/* thpcowctl: fields, the policy table, counters; as text or JSON. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "parse.h"
#include "prom.h"
#include "thpcowctl.h"

#define FLAGS_TEXT_LEN	128

static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
	{ THPCOW_POLICY_CHILDREN,	"children" },
	{ THPCOW_ENTRY_PATH_TRUNCATED,	"path_truncated" },
};

static const char *const stat_names[] = {
#define THPCOW_STAT(NAME, name) #name,
#include "uapi/thpcow-stats.h"
};

_Static_assert(ARRAY_SIZE(stat_names) == THPCOW_STAT_NR, "thpcow-stats.h");

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
static void entry_target(struct table *t, int id, const struct thpcow_entry *e)
{
	if (e->scope == THPCOW_SCOPE_PID)
		table_cell(t, id, "%d (%.*s)", e->pid, (int)sizeof(e->comm),
			   e->comm);
	else if (e->scope == THPCOW_SCOPE_CGROUP && e->path[0])
		table_cell(t, id, "%.*s", (int)sizeof(e->path), e->path);
	else if (e->scope == THPCOW_SCOPE_CGROUP)
		table_cell(t, id, "(id %llu)", (unsigned long long)e->cgroup_id);
	else
		table_cell(t, id, "-");
}

enum { LIST_SCOPE, LIST_TARGET, LIST_MODE, LIST_FLAGS, LIST_SUBST, LIST_PID,
       LIST_COMM, LIST_CGROUP, LIST_CGROUP_ID };

#define STR	SCOLS_JSON_STRING
#define NUM	SCOLS_JSON_NUMBER
#define RIGHT	SCOLS_FL_RIGHT

const struct table_col list_cols[] = {
	[LIST_SCOPE]	= { "SCOPE", 0, 0, STR, "pid, cgroup or global" },
	[LIST_TARGET]	= { "TARGET", 0, 0, STR,
			    "\"PID (comm)\" or the cgroup's path" },
	[LIST_MODE]	= { "MODE", 0, 0, STR, "the rule's mode" },
	[LIST_FLAGS]	= { "FLAGS", 0, 0, STR,
			    "children, path_truncated, or -" },
	[LIST_SUBST]	= { "SUBSTITUTIONS", 0, RIGHT, NUM,
			    "THPs given under this rule" },
	[LIST_PID]	= { "PID", 0, RIGHT, NUM, "the process (pid rules)" },
	[LIST_COMM]	= { "COMM", 0, 0, STR, "its name (pid rules)" },
	[LIST_CGROUP]	= { "CGROUP", 0, 0, STR,
			    "the cgroup's path (cgroup rules)" },
	[LIST_CGROUP_ID] = { "CGROUP_ID", 0, RIGHT, NUM,
			     "the cgroup's id (cgroup rules)" },
};
const size_t list_ncols = ARRAY_SIZE(list_cols);
const char *const list_defaults = "SCOPE,TARGET,MODE,FLAGS,SUBSTITUTIONS";

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

static void entry_row(struct table *t, const struct thpcow_entry *e)
{
	char flags[FLAGS_TEXT_LEN];
	bool pid = e->scope == THPCOW_SCOPE_PID;
	bool cg = e->scope == THPCOW_SCOPE_CGROUP;

	flags_text(e->flags, flags, sizeof(flags));
	table_new_row(t);
	table_cell(t, LIST_SCOPE, "%s", scope_name(e->scope));
	entry_target(t, LIST_TARGET, e);
	table_cell(t, LIST_MODE, "%s", mode_name(e->mode));
	table_cell(t, LIST_FLAGS, "%s", flags);
	table_cell(t, LIST_SUBST, "%llu", (unsigned long long)e->substitutions);
	if (pid) {
		table_cell(t, LIST_PID, "%d", e->pid);
		table_cell(t, LIST_COMM, "%.*s", (int)sizeof(e->comm), e->comm);
	}
	if (cg) {
		table_cell(t, LIST_CGROUP, "%.*s", (int)sizeof(e->path), e->path);
		table_cell(t, LIST_CGROUP_ID, "%llu",
			   (unsigned long long)e->cgroup_id);
	}
}

/*
 * The 'list' output: a table (o's columns), or with -J the documented
 * {"policies":[...]} (with -o too: libsmartcols' JSON of those columns).
 */
void print_entries(FILE *f, const struct thpcow_entry *e, size_t n,
		   const struct table_opts *o)
{
	struct table t;
	size_t i;

	if (o->json && !o->output) {
		print_entries_json(f, e, n);
		return;
	}
	table_init(&t, list_cols, o, "policies", f);
	for (i = 0; i < n; i++)
		entry_row(&t, &e[i]);
	table_print(&t);
	table_free(&t);
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

/* What each counter counts: the DESCRIPTION column, Prometheus' HELP. */
static const char *const stat_descs[] = {
	[THPCOW_STAT_HOOK_CALLS]	= "Huge PMD write faults a policy covers",
	[THPCOW_STAT_SUBSTITUTED]	= "Huge zero page mappings replaced by a whole zeroed THP",
	[THPCOW_STAT_PASSTHROUGH]	= "Faults the policy left to the kernel (mode kernel)",
	[THPCOW_STAT_NOT_ZERO_PAGE]	= "Faults on a PMD that is not the huge zero page",
	[THPCOW_STAT_UNSHARE]		= "Unshare faults (a GUP pin), not writes",
	[THPCOW_STAT_NATIVE]		= "Faults the kernel substitutes by itself",
	[THPCOW_STAT_FALLBACK_INELIGIBLE] = "Fallbacks: no THP allowed here now (THP sysfs, madvise, prctl)",
	[THPCOW_STAT_FALLBACK_UFFD]	= "Fallbacks: a userfaultfd-registered range",
	[THPCOW_STAT_FALLBACK_ALLOC]	= "Fallbacks: no free THP could be allocated",
	[THPCOW_STAT_FALLBACK_CHARGE]	= "Fallbacks: the memory cgroup could not take 2 MiB more",
	[THPCOW_STAT_RETRY_RACE]	= "The PMD changed meanwhile; the fault was retried",
	[THPCOW_STAT_FALLBACK_UNSTABLE]	= "Fallbacks: the mm is being torn down by the OOM killer",
	[THPCOW_STAT_INHERIT_FAILED]	= "Policies not passed to a child for want of memory",
	[THPCOW_STAT_COPIED]		= "Shared anonymous THPs copied whole (mode copy)",
	[THPCOW_STAT_NOT_SHARED]	= "Exclusive THPs the kernel reuses in place",
	[THPCOW_STAT_FALLBACK_PINNED]	= "Fallbacks: a THP that may be DMA-pinned stays shared",
	[THPCOW_STAT_SPLIT]		= "Splits forced where the kernel would not split (mode split)",
	[THPCOW_STAT_POOL_HIT]		= "Substitutions that mapped a pre-zeroed THP from the pool",
	[THPCOW_STAT_POOL_MISS]		= "Substitutions the pool had no THP for (cleared in the fault)",
	[THPCOW_STAT_POOL_REFILLED]	= "THPs the pool's refill threads zeroed and pooled",
	[THPCOW_STAT_POOL_RELEASED]	= "THPs the pool gave back (memory pressure, a smaller pool, unload)",
	[THPCOW_STAT_POOL_POISONED]	= "Pooled THPs with a hardware-poisoned page, kept out of use",
};

_Static_assert(ARRAY_SIZE(stat_descs) == THPCOW_STAT_NR, "stat_descs");

const char *stat_desc(unsigned int i)
{
	return i < ARRAY_SIZE(stat_descs) ? stat_descs[i] :
	       "A counter this thpcowctl does not know";
}

enum { CNT_COUNTER, CNT_VALUE, CNT_DESC };

const struct table_col counter_cols[] = {
	[CNT_COUNTER]	= { "COUNTER", 0, 0, STR, "the counter's name" },
	[CNT_VALUE]	= { "VALUE", 0, RIGHT, NUM, "its value since load" },
	[CNT_DESC]	= { "DESCRIPTION", 0, 0, STR, "what it counts" },
};
const size_t counter_ncols = ARRAY_SIZE(counter_cols);
const char *const counter_defaults = "COUNTER,VALUE";

/*
 * --watch: TIME, then a column per counter (upper case), FALLBACKS. The
 * rows print one at a time: 12 columns each, so that they stay aligned.
 */
#define STRICT	SCOLS_FL_STRICTWIDTH
#define WATCH_TIME	0
#define WATCH_FALLBACKS	(THPCOW_STAT_NR + 1)
#define WATCH_COUNTER(i) ((int)(i) + 1)

static struct table_col watch_table[THPCOW_STAT_NR + 2];
const size_t watch_ncols = ARRAY_SIZE(watch_table);
const char *const watch_defaults =
	"TIME,HOOK_CALLS,SUBSTITUTED,PASSTHROUGH,FALLBACKS,COPIED,SPLIT";

const struct table_col *watch_cols(void)
{
	static char names[THPCOW_STAT_NR][32];
	unsigned int i;
	size_t k;

	if (watch_table[0].name)
		return watch_table;
	watch_table[WATCH_TIME] = (struct table_col){ "TIME", 0, 0, STR,
		"when the interval ended (local time, ISO 8601)" };
	for (i = 0; i < THPCOW_STAT_NR; i++) {
		for (k = 0; stat_names[i][k] && k + 1 < sizeof(names[i]); k++)
			names[i][k] = (char)toupper((unsigned char)stat_names[i][k]);
		/* at least a column more than the name, or the last one
		 * is not right-aligned */
		watch_table[WATCH_COUNTER(i)] = (struct table_col){
			names[i], k < 12 ? 12 : (double)k + 1, RIGHT | STRICT,
			NUM, stat_descs[i] };
	}
	watch_table[WATCH_FALLBACKS] = (struct table_col){ "FALLBACKS", 12,
		RIGHT | STRICT, NUM, "the FALLBACK_* columns summed" };
	return watch_table;
}

/*
 * Without prev: a table of the counters (o's columns), or with -J
 * {"policies":N,"counters":{...}}.
 */
void print_counters(FILE *f, const struct thpcow_stats *st,
		    const struct table_opts *o)
{
	unsigned int i, n = stats_count(st);
	struct table t;
	struct json j;
	char buf[32];

	if (o->json && !o->output) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_uint(&j, "policies", st->policies);
		json_object(&j, "counters");
		for (i = 0; i < n; i++)
			json_uint(&j, stat_name(i, buf, sizeof(buf)),
				  st->counters[i]);
		json_end(&j);
		json_end(&j);
		return;
	}
	table_init(&t, counter_cols, o, "counters", f);
	for (i = 0; i < n; i++) {
		table_new_row(&t);
		table_cell(&t, CNT_COUNTER, "%s", stat_name(i, buf, sizeof(buf)));
		table_cell(&t, CNT_VALUE, "%llu",
			   (unsigned long long)st->counters[i]);
		table_cell(&t, CNT_DESC, "%s", stat_desc(i));
	}
	table_print(&t);
	table_free(&t);
}

/* How much a counter grew since prev; one that went back (a reload) from 0. */
static unsigned long long delta(const struct thpcow_stats *st,
				const struct thpcow_stats *prev, unsigned int i)
{
	unsigned long long v = st->counters[i];

	return v >= prev->counters[i] ? v - prev->counters[i] : v;
}

/*
 * One --watch interval: what each counter grew by in secs seconds, ended
 * at when. -J: a JSON Lines object {"time","interval_s","deltas","rates"};
 * else a row of t (the header before the first).
 */
void print_interval(FILE *f, struct table *t, const struct thpcow_stats *st,
		    const struct thpcow_stats *prev, double secs,
		    const char *when)
{
	unsigned int i, n = stats_count(st);
	unsigned long long fallbacks = 0;
	const char *name;
	struct json j;
	char buf[32];
	int pass;

	if (stats_count(prev) < n)
		n = stats_count(prev);
	if (!t) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_string(&j, "time", when);
		json_double(&j, "interval_s", secs);
		for (pass = 0; pass < 2; pass++) {
			json_object(&j, pass ? "rates" : "deltas");
			for (i = 0; i < n; i++) {
				name = stat_name(i, buf, sizeof(buf));
				if (pass)
					json_double(&j, name, delta(st, prev, i) / secs);
				else
					json_uint(&j, name, delta(st, prev, i));
			}
			json_end(&j);
		}
		json_end(&j);
		return;
	}
	table_new_row(t);
	table_cell(t, WATCH_TIME, "%s", when);
	for (i = 0; i < n && i < THPCOW_STAT_NR; i++) {
		table_cell(t, WATCH_COUNTER(i), "%llu", delta(st, prev, i));
		if (strncmp(stat_names[i], "fallback_", 9) == 0)
			fallbacks += delta(st, prev, i);
	}
	table_cell(t, WATCH_FALLBACKS, "%llu", fallbacks);
	table_print_last(t);
}

/*
 * The first lines of 'stats --format prometheus', also when the module is
 * not there (up 0: an absent module is a value, not a stale file):
 * thpcow_up and thpcow_build_info (module_version "" when not loaded).
 */
void print_prometheus_head(FILE *f, bool up, const char *module_version,
			   const char *kernel)
{
	const struct prom_label l[] = {
		{ "version", THPCOW_VERSION, 0 },
		{ "module_version", module_version ? module_version : "", 0 },
		{ "kernel", kernel, 0 },
	};

	prom_family(f, "thpcow_up", "gauge",
		    "1 if the thpcow module is loaded and answered, 0 if not");
	prom_sample(f, "thpcow_up", NULL, 0, up);
	prom_family(f, "thpcow_build_info", "gauge",
		    "Always 1: thpcowctl's version, the loaded module's and the kernel's");
	prom_sample(f, "thpcow_build_info", l, ARRAY_SIZE(l), 1);
}

/*
 * The Prometheus text exposition format (version 0.0.4), for
 * node-exporter's textfile collector: each counter as thpcow_NAME_total,
 * except the fallback_* ones, which are one family thpcow_fallbacks_total
 * with a reason label (as in usage); the memory given as whole THPs in
 * bytes, the rules, the global mode (mode NULL: unknown) and whether the
 * hook is armed (hook_armed < 0: unknown) as gauges.
 */
void print_prometheus(FILE *f, const struct thpcow_stats *st,
		      const char *mode, unsigned long long thp_bytes,
		      int hook_armed)
{
	static const char *const modes[] = THPCOW_MODE_NAMES;
	static const struct {
		unsigned int stat;
		const char *name, *help;
	} bytes[] = {
		{ THPCOW_STAT_SUBSTITUTED, "thpcow_substituted_bytes_total",
		  "Memory given as whole THPs in place of the huge zero page, in bytes" },
		{ THPCOW_STAT_COPIED, "thpcow_copied_bytes_total",
		  "Memory of shared THPs copied whole, in bytes" },
	};
	const char *fb = "thpcow_fallbacks_total";
	struct prom_label label = { "mode", NULL, 0 };
	unsigned int i, n = stats_count(st);
	char name[64], buf[32];

	for (i = 0; i < n; i++) {
		if (i < THPCOW_STAT_NR && strncmp(stat_names[i], "fallback_", 9) == 0)
			continue;
		snprintf(name, sizeof(name), "thpcow_%s_total",
			 stat_name(i, buf, sizeof(buf)));
		prom_family(f, name, "counter", stat_desc(i));
		prom_sample(f, name, NULL, 0, st->counters[i]);
	}
	prom_family(f, fb, "counter",
		    "Faults a policy covered that did not get a whole THP, by reason");
	label.name = "reason";
	for (i = 0; i < n && i < THPCOW_STAT_NR; i++) {
		if (strncmp(stat_names[i], "fallback_", 9))
			continue;
		label.value = stat_names[i] + 9;
		prom_sample(f, fb, &label, 1, st->counters[i]);
	}
	label.name = "mode";
	for (i = 0; i < ARRAY_SIZE(bytes); i++) {
		if (bytes[i].stat >= n)
			continue;
		prom_family(f, bytes[i].name, "counter", bytes[i].help);
		prom_sample(f, bytes[i].name, NULL, 0,
			    st->counters[bytes[i].stat] * thp_bytes);
	}
	prom_family(f, "thpcow_policies", "gauge", "Pid and cgroup rules in force");
	prom_sample(f, "thpcow_policies", NULL, 0, st->policies);
	if (hook_armed >= 0) {
		prom_family(f, "thpcow_hook_armed", "gauge",
			    "1 while the fault hook is registered (some policy is active)");
		prom_sample(f, "thpcow_hook_armed", NULL, 0, hook_armed > 0);
	}
	if (!mode)
		return;
	prom_family(f, "thpcow_global_mode", "gauge",
		    "The global mode: 1 for the one in force, 0 for the others");
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		label.value = modes[i];
		prom_sample(f, "thpcow_global_mode", &label, 1,
			    strcmp(modes[i], mode) == 0);
	}
}
