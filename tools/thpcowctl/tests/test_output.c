// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): what list, stats and
 * usage print (fields, entries, counters, Prometheus), the output code
 * called directly.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "prom.h"
#include "table.h"
#include "usage.h"

#include "test.h"

/* --- fields, entries, counters ------------------------------------------ */

static const struct field sample_fields[] = {
	FIELD_BOOL("module loaded", "loaded", true),
	FIELD_STR("version", "version", "0.1.0"),
	FIELD_UINT_IF("abi", "abi", 1, false),
	FIELD_FLAGS("flags", "flags", THPCOW_POLICY_CHILDREN | (1U << 20)),
	FIELD_STR("name", "name", "a\tb"),
};

struct fields_case {
	bool json;
	const char *want;
};

static int test_fields(const void *arg)
{
	const struct fields_case *c = arg;
	char *got = NULL;
	int ret;

	CAPTURE(got, f, print_fields(f, sample_fields,
				     ARRAY_SIZE(sample_fields), c->json));
	ret = expect_str("print_fields", got, c->want);
	free(got);
	return ret;
}

static const struct thpcow_entry sample_entries[] = {
	{
		.scope = THPCOW_SCOPE_PID, .mode = THPCOW_MODE_ZERO,
		.flags = THPCOW_POLICY_CHILDREN, .pid = 1234,
		.substitutions = 42, .comm = "bash",
	}, {
		.scope = THPCOW_SCOPE_CGROUP, .mode = THPCOW_MODE_KERNEL,
		.cgroup_id = 77, .substitutions = 1234567,
		.path = "/machine.slice/vm \"1\"",
	}, {
		/* a comm that fills the field, with no NUL, and a newline */
		.scope = THPCOW_SCOPE_PID, .mode = THPCOW_MODE_ZERO, .pid = 7,
		.comm = { 'a', '\n', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j',
			  'k', 'l', 'm', 'n', 'o', 'p' },
	}, {
		.scope = THPCOW_SCOPE_CGROUP, .mode = THPCOW_MODE_ZERO,
		.flags = THPCOW_ENTRY_PATH_TRUNCATED, .cgroup_id = 9,
		.path = "/d\xc3\xa9j\xc3\xa0",
	},
};

struct entries_case {
	size_t first;		/* of sample_entries */
	size_t n;
	bool json;
	const char *want;
	const char *output;	/* -o */
	bool noheadings, raw;
};

/* The table options of a case; -o's columns as the verbs choose them. */
static int case_opts(struct table_opts *o, const struct table_col *cols,
		     size_t ncols, const char *defaults)
{
	const char *bad;
	size_t len;

	if (table_select(cols, ncols, defaults, o, &bad, &len))
		return fail("table_select: unknown column at [%s]", bad);
	return PASS;
}

static int test_entries(const void *arg)
{
	const struct entries_case *c = arg;
	struct table_opts o = { .output = c->output, .json = c->json,
				.noheadings = c->noheadings, .raw = c->raw };
	char *got = NULL;
	int ret;

	if (case_opts(&o, list_cols, list_ncols, list_defaults))
		return FAIL;
	CAPTURE(got, f, print_entries(f, sample_entries + c->first, c->n, &o));
	ret = expect_str("print_entries", got, c->want);
	free(got);
	return ret;
}

static const struct thpcow_stats sample_prev = {
	.count = THPCOW_STAT_NR, .policies = 2,
	.counters = { 10, 4, [THPCOW_STAT_FALLBACK_ALLOC] = 3,
		      [THPCOW_STAT_FALLBACK_CHARGE] = 5,
		      [THPCOW_STAT_RETRY_RACE] = 100 },
};

static const struct thpcow_stats sample_cur = {
	.count = THPCOW_STAT_NR + 1, .policies = 2,
	.counters = { 30, 2, [THPCOW_STAT_FALLBACK_ALLOC] = 3,
		      [THPCOW_STAT_FALLBACK_CHARGE] = 5,
		      [THPCOW_STAT_RETRY_RACE] = 100,
		      [THPCOW_STAT_NR] = 8 },
};

struct counters_case {
	bool watch;		/* one --watch interval (2 s) after sample_prev */
	bool json;
	const char *want_has;	/* a substring of the output */
	const char *want_not;	/* must not appear */
	const char *output;	/* -o */
	bool noheadings, raw;
};

static void print_case_counters(FILE *f, const struct counters_case *c,
				const struct table_opts *o)
{
	struct table t;

	if (!c->watch) {
		print_counters(f, &sample_cur, o);
		return;
	}
	if (!c->json)
		table_init(&t, watch_cols(), o, "intervals", f);
	print_interval(f, c->json ? NULL : &t, &sample_cur, &sample_prev, 2.0,
		       "2026-12-01T02:00:00+0000");
	if (!c->json)
		table_free(&t);
}

static int test_counters(const void *arg)
{
	const struct counters_case *c = arg;
	struct table_opts o = { .output = c->output, .json = c->json,
				.noheadings = c->noheadings, .raw = c->raw };
	char *got = NULL;
	int ret = PASS;

	if (c->watch ? case_opts(&o, watch_cols(), watch_ncols, watch_defaults) :
	    case_opts(&o, counter_cols, counter_ncols, counter_defaults))
		return FAIL;
	CAPTURE(got, f, print_case_counters(f, c, &o));
	if (!strstr(got, c->want_has))
		ret = fail("print_counters: [%s] not in:\n%s", c->want_has, got);
	else if (c->want_not && strstr(got, c->want_not))
		ret = fail("print_counters: [%s] in:\n%s", c->want_not, got);
	free(got);
	return ret;
}

/* The counter past those this tool knows, named by its index. */
static int test_unknown_counter(const void *arg)
{
	struct table_opts o = { 0 };
	char want[64], *got = NULL;
	int ret = PASS;

	(void)arg;
	if (case_opts(&o, counter_cols, counter_ncols, counter_defaults))
		return FAIL;
	snprintf(want, sizeof(want), "\ncounter_%d              8\n",
		 THPCOW_STAT_NR);
	CAPTURE(got, f, print_counters(f, &sample_cur, &o));
	if (!strstr(got, want))
		ret = fail("print_counters: [%s] not in:\n%s", want + 1, got);
	free(got);
	return ret;
}

static int test_prometheus(const void *arg)
{
	static const char *const want[] = {
		"# HELP thpcow_hook_calls_total Huge PMD write faults a policy covers.\n"
		"# TYPE thpcow_hook_calls_total counter\nthpcow_hook_calls_total 30\n",
		"\nthpcow_substituted_total 2\n",
		"# TYPE thpcow_substituted_bytes_total counter\n"
		"thpcow_substituted_bytes_total 4194304\n",
		"# TYPE thpcow_policies gauge\nthpcow_policies 2\n",
		"# TYPE thpcow_fallbacks_total counter\n"
		"thpcow_fallbacks_total{reason=\"ineligible\"} 0\n"
		"thpcow_fallbacks_total{reason=\"uffd\"} 0\n"
		"thpcow_fallbacks_total{reason=\"alloc\"} 3\n"
		"thpcow_fallbacks_total{reason=\"charge\"} 5\n",
		"# TYPE thpcow_hook_armed gauge\nthpcow_hook_armed 1\n",
		"# TYPE thpcow_global_mode gauge\nthpcow_global_mode{mode=\"kernel\"} 0\n"
		"thpcow_global_mode{mode=\"zero\"} 1\n"
		"thpcow_global_mode{mode=\"copy\"} 0\n",
	};
	char *got = NULL, unknown[128];
	int ret = PASS;
	size_t i;

	(void)arg;
	/* the counter past the ones this thpcowctl knows, by its index */
	snprintf(unknown, sizeof(unknown),
		 "\n# TYPE thpcow_counter_%d_total counter\nthpcow_counter_%d_total 8\n",
		 THPCOW_STAT_NR, THPCOW_STAT_NR);
	CAPTURE(got, f, print_prometheus(f, &sample_cur, "zero", 2 << 20, 1));
	for (i = 0; i < ARRAY_SIZE(want) && ret == PASS; i++)
		if (!strstr(got, want[i]))
			ret = fail("[%s] not in:\n%s", want[i], got);
	if (ret == PASS && !strstr(got, unknown))
		ret = fail("[%s] not in:\n%s", unknown + 1, got);
	/* a fallback counted in a family of its own as well as by reason */
	if (ret == PASS && strstr(got, "thpcow_fallback_alloc_total"))
		ret = fail("thpcow_fallback_alloc_total in:\n%s", got);
	free(got);
	return ret;
}

/* Fallbacks are the fallback_* counters: retry_race is not one. */
static int test_fallbacks(const void *arg)
{
	(void)arg;
	if (stats_fallbacks(&sample_cur) != 8)
		return fail("stats_fallbacks = %llu, want 8",
			    stats_fallbacks(&sample_cur));
	return PASS;
}

/*
 * THP coverage: memory.stat's anon_thp against anon (not anon_thp against
 * itself, or "anon" matched by "anon_thp"), as a ratio, not a percentage.
 */
static int test_coverage(const void *arg)
{
	static const char stat[] = "anon 8388608\nfile 4096\nanon_thp 2097152\n"
				   "file_thp 0\n";
	static const char want[] =
		"thpcow_usage_thp_coverage_ratio{scope=\"cgroup\",cgroup=\"/a\"} 0.25\n";
	struct usage_row r = { .scope = THPCOW_SCOPE_CGROUP, .name = "/a" };
	char *got = NULL;
	int ret = PASS;
	FILE *f = fmemopen((void *)stat, sizeof(stat) - 1, "r");

	(void)arg;
	usage_parse_memory_stat(f, &r);
	fclose(f);
	if (!r.have_kernel || !r.have_anon || r.kernel_anon_bytes != 8388608 ||
	    r.kernel_thp_bytes != 2097152)
		return fail("parsed anon %llu, anon_thp %llu", r.kernel_anon_bytes,
			    r.kernel_thp_bytes);
	CAPTURE(got, f2, print_usage_prometheus(f2, &r, 1, 1024, 1));
	if (!strstr(got, want))
		ret = fail("[%s] not in:\n%s", want, got);
	free(got);
	return ret;
}

#define ENTRIES(desc, ...) CASE(test_entries, desc, entries_case, __VA_ARGS__)
#define COUNTERS(desc, ...) CASE(test_counters, desc, counters_case, __VA_ARGS__)

static const struct test tests[] = {
	/* labels not aligned, bools not words, a null printed as 0 */
	CASE(test_fields, "fields: text", fields_case, false,
	     "module loaded: yes\nversion:       0.1.0\nabi:           -\n"
	     "flags:         children,0x100000\nname:          a\\x09b\n"),
	/* null as a string, flags not an array, unknown bits dropped */
	CASE(test_fields, "fields: JSON", fields_case, true,
	     "{\"loaded\":true,\"version\":\"0.1.0\",\"abi\":null,"
	     "\"flags\":[\"children\",\"0x100000\"],\"name\":\"a\\tb\"}\n"),

	/* garbage rows for an empty list (libsmartcols prints nothing) */
	ENTRIES("list: no entries is nothing", .first = 0, .n = 0, .want = ""),
	/* widths from the header only; numbers not right-aligned; a comm
	 * without NUL read past its field or its newline forging a row */
	ENTRIES("list: table", .n = 4, .want =
		"SCOPE  TARGET                  MODE   FLAGS          SUBSTITUTIONS\n"
		"pid    1234 (bash)             zero   children                  42\n"
		"cgroup /machine.slice/vm \"1\"   kernel -                    1234567\n"
		"pid    7 (a\\x0acdefghijklmnop) zero   -                          0\n"
		"cgroup /d\xc3\xa9j\xc3\xa0                   zero   path_truncated             0\n"),
	/* a column sized by bytes, not characters, when UTF-8 is widest */
	ENTRIES("list: UTF-8 width", .first = 3, .n = 1, .want =
		"SCOPE  TARGET MODE FLAGS          SUBSTITUTIONS\n"
		"cgroup /d\xc3\xa9j\xc3\xa0  zero path_truncated             0\n"),
	/* -o: the columns named, in that order, empty where they do not apply */
	ENTRIES("list: -o PID,COMM,CGROUP,CGROUP_ID", .n = 2,
		.output = "PID,COMM,CGROUP,CGROUP_ID", .want =
		" PID COMM CGROUP                CGROUP_ID\n"
		"1234 bash                       \n"
		"          /machine.slice/vm \"1\"        77\n"),
	/* -o +LIST not adding to the defaults; names in lower case refused */
	ENTRIES("list: -o +pid adds to the defaults", .n = 1, .output = "+pid",
		.want = "SCOPE TARGET      MODE FLAGS    SUBSTITUTIONS  PID\n"
		"pid   1234 (bash) zero children            42 1234\n"),
	/* -n printing the header all the same */
	ENTRIES("list: -n", .n = 1, .noheadings = true, .want =
		"pid   1234 (bash) zero children            42\n"),
	/* -r aligning, or leaving a blank inside a cell unescaped */
	ENTRIES("list: -r", .n = 2, .raw = true, .want =
		"SCOPE TARGET MODE FLAGS SUBSTITUTIONS\n"
		"pid 1234\\x20(bash) zero children 42\n"
		"cgroup /machine.slice/vm\\x20\"1\" kernel - 1234567\n"),
	/* -J -o: libsmartcols' JSON of the chosen columns, numbers as numbers */
	ENTRIES("list: -J -o SCOPE,SUBSTITUTIONS", .n = 2, .json = true,
		.output = "SCOPE,SUBSTITUTIONS", .want =
		"{\n   \"policies\": [\n      {\n         \"scope\": \"pid\",\n"
		"         \"substitutions\": 42\n      },{\n"
		"         \"scope\": \"cgroup\",\n"
		"         \"substitutions\": 1234567\n      }\n   ]\n}\n"),
	/* the JSON list drifting from the get schema, or unescaped paths */
	ENTRIES("list: JSON", .n = 2, .json = true, .want =
		"{\"policies\":[{\"scope\":\"pid\",\"pid\":1234,\"comm\":\"bash\","
		"\"mode\":\"zero\",\"flags\":[\"children\"],\"substitutions\":42},"
		"{\"scope\":\"cgroup\",\"cgroup\":\"/machine.slice/vm \\\"1\\\"\","
		"\"cgroup_id\":77,\"mode\":\"kernel\",\"flags\":[],"
		"\"substitutions\":1234567}]}\n"),
	/* an empty list printed as nothing at all */
	ENTRIES("list: empty JSON", .json = true, .want = "{\"policies\":[]}\n"),

	/* names off by one against the counters */
	COUNTERS("stats: a table of the counters", .want_has =
		 "COUNTER             VALUE\nhook_calls             30\n"
		 "substituted             2\n"),
	/* counters a newer module added dropped or misnamed */
	{ "stats: an unknown counter is counter_N", test_unknown_counter, NULL },
	/* the DESCRIPTION column not from the counter's own line */
	COUNTERS("stats: -o COUNTER,DESCRIPTION", .output = "COUNTER,DESCRIPTION",
		 .want_has = "\nfallback_charge     Fallbacks: the memory cgroup "
		 "could not take 2 MiB more\n", .want_not = "VALUE"),
	COUNTERS("stats: -n", .noheadings = true, .want_has = "hook_calls  ",
		 .want_not = "COUNTER"),
	COUNTERS("stats: -r", .raw = true, .want_has =
		 "COUNTER VALUE\nhook_calls 30\nsubstituted 2\n"),
	COUNTERS("stats: -J -o", .json = true, .output = "counter,value",
		 .want_has = "{\n   \"counters\": [\n      {\n"
		 "         \"counter\": \"hook_calls\",\n         \"value\": 30\n"),
	/* JSON keys drifting from the text names */
	COUNTERS("stats: JSON", .json = true, .want_has =
		 "{\"policies\":2,\"counters\":{\"hook_calls\":30,\"substituted\":2,"),
	/* totals instead of what grew; a reset counter as a huge number; the
	 * fallbacks not summed; the time missing */
	COUNTERS("stats --watch: a header and a row of deltas", .watch = true,
		 .want_has =
		 "TIME                       HOOK_CALLS  SUBSTITUTED  PASSTHROUGH"
		 "    FALLBACKS       COPIED        SPLIT\n"
		 "2026-12-01T02:00:00+0000           20            2            0"
		 "            0            0            0\n"),
	/* a counter the previous sample lacked compared with garbage */
	COUNTERS("stats --watch: -o any counter, not one the sample lacked",
		 .watch = true, .output = "RETRY_RACE,INHERIT_FAILED",
		 .want_has = "  RETRY_RACE  INHERIT_FAILED\n           0               0\n"),
	COUNTERS("stats --watch: -n", .watch = true, .noheadings = true,
		 .want_has = "2026-12-01T02:00:00+0000           20", .want_not = "TIME"),
	/* JSON lines without the time, or rates not divided by the interval */
	COUNTERS("stats --watch -J", .watch = true, .json = true, .want_has =
		 "{\"time\":\"2026-12-01T02:00:00+0000\",\"interval_s\":2.00,"
		 "\"deltas\":{\"hook_calls\":20,\"substituted\":2,"),
	COUNTERS("stats --watch -J: rates", .watch = true, .json = true,
		 .want_has = "\"rates\":{\"hook_calls\":10.00,\"substituted\":1.00,",
		 .want_not = "counter_"),
	/* a counter as a gauge, bytes not THP-sized, HELP/TYPE missing, the
	 * global mode not one-hot */
	{ "stats --format prometheus", test_prometheus, NULL },
	/* retry_race (not a fallback) added into the headline */
	{ "stats: fallbacks sums fallback_* only", test_fallbacks, NULL },
	{ "usage: THP coverage from memory.stat", test_coverage, NULL },
};

TEST_AREA(output_tests, tests);
