// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of thpcowctl, without a kernel module: the parsing and output
 * code called directly, and the built binary run as a process (its device
 * pointed at a missing file with THPCOWCTL_DEVICE). TAP 13 on stdout; the
 * plan is counted from the table. Usage: test_cli PATH/TO/thpcowctl
 */
#include <errno.h>
#include <libgen.h>
#include <locale.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "collapse.h"
#include "conf.h"
#include "json.h"
#include "libvirt.h"
#include "output.h"
#include "parse.h"
#include "thpcowctl.h"
#include "trace.h"
#include "usage.h"

enum { PASS, FAIL, SKIP };

static const char *cli_path;
static const char *skip_reason;
static char tmp_dir[] = "/tmp/thpcowctl-test.XXXXXX";

#define MISSING_DEVICE	"/nonexistent/thpcow"

/* Print a diagnostic, and fail. */
static int __attribute__((format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fputs("#   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	return FAIL;
}

static int expect_str(const char *what, const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return PASS;
	return fail("%s:\n#   got:  [%s]\n#   want: [%s]", what, got, want);
}

/* Whatever fn writes to a FILE, as a string (caller frees). */
#define CAPTURE(buf, f, stmt) do {				\
	size_t __len;						\
	FILE *f = open_memstream(&(buf), &__len);		\
	stmt;							\
	fclose(f);						\
} while (0)

/* --- numbers ------------------------------------------------------------ */

struct num_case {
	const char *in;
	int ret;		/* 0, -EINVAL or -ERANGE */
	pid_t val;
};

static int test_pid(const void *arg)
{
	const struct num_case *c = arg;
	pid_t val = -1;
	int ret = parse_pid(c->in, &val);

	if (ret != c->ret)
		return fail("parse_pid(\"%s\") returned %d, want %d", c->in,
			    ret, c->ret);
	if (!ret && val != c->val)
		return fail("parse_pid(\"%s\") gave %d, want %d", c->in, val,
			    c->val);
	return PASS;
}

/* parse_uint's own bound, below what strtoull can hold. */
static int test_uint_max(const void *arg)
{
	unsigned long long v;

	(void)arg;
	if (parse_uint("10", 10, &v) || v != 10)
		return fail("10 with max 10 refused");
	if (parse_uint("11", 10, &v) != -ERANGE)
		return fail("11 with max 10 accepted");
	return PASS;
}

/* --- terminal width ---------------------------------------------------- */

struct width_case {
	const char *s;
	size_t width;
};

static int test_width(const void *arg)
{
	const struct width_case *c = arg;
	size_t w = utf8_width(c->s);

	if (w != c->width)
		return fail("utf8_width(\"%s\") = %zu, want %zu", c->s, w,
			    c->width);
	return PASS;
}

#define WIDTH(name, str, w) \
	{ name, test_width, &(const struct width_case){ str, w } }

/* --- modes -------------------------------------------------------------- */

struct mode_case {
	const char *in;
	int ret;
	unsigned int mode;
};

static int test_mode(const void *arg)
{
	const struct mode_case *c = arg;
	unsigned int mode = THPCOW_MODE_NR;
	int ret = parse_mode(c->in, &mode);

	if (ret != c->ret || (!ret && mode != c->mode))
		return fail("parse_mode(\"%s\") = %d, mode %u; want %d, mode %u",
			    c->in, ret, mode, c->ret, c->mode);
	if (!ret)
		return expect_str("mode_name()", mode_name(mode), c->in);
	return PASS;
}

/* --- JSON and text escaping --------------------------------------------- */

struct str_case {
	const char *in;
	size_t max;		/* 0: strlen(in) */
	const char *want;
};

static int test_json_escape(const void *arg)
{
	const struct str_case *c = arg;
	char *got = NULL;
	int ret;

	CAPTURE(got, f, json_escape(f, c->in, c->max ? c->max : strlen(c->in)));
	ret = expect_str("json_escape", got, c->want);
	free(got);
	return ret;
}

static int test_text(const void *arg)
{
	const struct str_case *c = arg;
	char *got = NULL;
	int ret;

	CAPTURE(got, f, fput_text(f, c->in, c->max ? c->max : strlen(c->in)));
	ret = expect_str("fput_text", got, c->want);
	free(got);
	return ret;
}

static void write_nested(FILE *f)
{
	struct json j;

	json_init(&j, f);
	json_object(&j, NULL);
	json_uint(&j, "a", 1);
	json_array(&j, "b");
	json_uint(&j, NULL, 2);
	json_string(&j, NULL, "x");
	json_object(&j, NULL);
	json_end(&j);
	json_end(&j);
	json_null(&j, "c");
	json_bool(&j, "d", false);
	json_double(&j, "e", 1.0 / 3);
	json_double(&j, "f", 0.0 / 0.0);
	json_string(&j, "g", NULL);
	json_end(&j);
}

static int test_json_nesting(const void *arg)
{
	char *got = NULL;
	int ret;

	(void)arg;
	CAPTURE(got, f, write_nested(f));
	ret = expect_str("nested JSON", got,
			 "{\"a\":1,\"b\":[2,\"x\",{}],\"c\":null,\"d\":false,"
			 "\"e\":0.33,\"f\":null,\"g\":null}\n");
	free(got);
	return ret;
}

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
		"\n# TYPE thpcow_counter_17_total counter\nthpcow_counter_17_total 8\n",
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
	char *got = NULL;
	int ret = PASS;
	size_t i;

	(void)arg;
	CAPTURE(got, f, print_prometheus(f, &sample_cur, "zero", 2 << 20, 1));
	for (i = 0; i < ARRAY_SIZE(want) && ret == PASS; i++)
		if (!strstr(got, want[i]))
			ret = fail("[%s] not in:\n%s", want[i], got);
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

/*
 * libvirt's words: another domain's event taken for ours (a name that is
 * a prefix of another's), "Started Migrated" (incoming begins) taken for
 * the end, a state reason misread.
 */
static int test_virsh_lines(const void *arg)
{
	static const struct {
		const char *line;
		enum mig_state want;
	} ev[] = {
		{ "event 'lifecycle' for domain 'vm1': Started Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm1': Resumed Post-copy", MIG_POSTCOPY },
		{ "event 'lifecycle' for domain 'vm1': Resumed Migrated", MIG_DONE },
		{ "2026-12-02 02:00:00.000+0000: event 'lifecycle' for domain 'vm1': Resumed Migrated",
		  MIG_DONE },
		{ "event 'lifecycle' for domain 'vm10': Resumed Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm': Resumed Migrated", MIG_WAITING },
		{ "event 'lifecycle' for domain 'vm1': Stopped Failed", MIG_GONE },
		{ "event 'lifecycle' for domain 'vm1': Resumed Unpaused", MIG_WAITING },
		{ "event 'reboot' for domain 'vm1'", MIG_WAITING },
	};
	static const struct {
		const char *line;
		enum mig_state want;
	} st[] = {
		{ "running (migrated)\n", MIG_DONE },
		{ "running (post-copy)\n", MIG_POSTCOPY },
		{ "paused (migrating)\n", MIG_WAITING },
		{ "running (booted)\n", MIG_WAITING },
		{ "shut off (failed)\n", MIG_GONE },
	};
	size_t i;

	(void)arg;
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		if (virsh_event_line(ev[i].line, "vm1", NULL) != ev[i].want)
			return fail("[%s]: %d, want %d", ev[i].line,
				    virsh_event_line(ev[i].line, "vm1", NULL),
				    ev[i].want);
	for (i = 0; i < ARRAY_SIZE(st); i++)
		if (virsh_state_line(st[i].line) != st[i].want)
			return fail("[%s]: %d, want %d", st[i].line,
				    virsh_state_line(st[i].line), st[i].want);
	return PASS;
}

/* --- trace output ------------------------------------------------------ */

/* 5123.456789 s since boot; with the offset, 2026-12-01 02:00:00 UTC */
#define SAMPLE_TS	5123456789012ULL
#define SAMPLE_WALL	(1796090400LL * 1000000000LL - 5123000000000LL)

static const struct trace_event sample_events[] = {
	{ SAMPLE_TS, 1234, "wrf", 0x7f1234600000ULL, "substituted" },
	{ SAMPLE_TS + 1000, 7, "my \"odd\"\tname", 0x200000, "fallback_alloc" },
	/* the comm of the hostile guest test: fields are not text here */
	{ SAMPLE_TS + 999999, 4194304, "a address=1 b", 0xffffffffffffffffULL,
	  "passthrough" },
	{ 12, 1, "d\xc3\xa9j\xc3\xa0 \xff", 0x1000, "native" },
};

struct trace_print_case {
	bool json;
	bool wall;
	const char *want;
};

static void print_sample_events(FILE *f, bool json, bool wall)
{
	struct trace_clock c = { .wall = wall, .wall_offset = SAMPLE_WALL };
	size_t i;

	if (!json)
		print_trace_header(f, &c);
	for (i = 0; i < ARRAY_SIZE(sample_events); i++)
		print_trace_event(f, &sample_events[i], &c, json);
	print_trace_lost(f, 1, 42, SAMPLE_TS + 2000000, &c, json);
	print_trace_lost(f, 0, 1, SAMPLE_TS + 3000000, &c, json);
	print_trace_end(f, 4, 0, json);
	print_trace_end(f, 4, 42, json);
}

static int test_trace_print(const void *arg)
{
	const struct trace_print_case *c = arg;
	char *got = NULL;
	int ret;

	setenv("TZ", "UTC", 1);
	tzset();
	CAPTURE(got, f, print_sample_events(f, c->json, c->wall));
	ret = expect_str("trace output", got, c->want);
	free(got);
	return ret;
}

#ifdef HAVE_LIBTRACEFS
/* --- trace records, field by field (libtraceevent) ------------------------ */

/* thpcow_fault's format as 6.1 has it, and one with the fields moved */
#define FORMAT_COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define FORMAT_PRINT \
	"\nprint fmt: \"pid=%d comm=%s address=0x%lx outcome=%s\", REC->pid, " \
	"REC->comm, REC->address, __get_str(outcome)\n"

struct record_case {
	const char *format;
	/* offsets of pid, comm, address, outcome's __data_loc */
	unsigned int pid_at, comm_at, address_at, loc_at, fixed_size;
	const char *comm, *outcome;
	int cut;		/* bytes cut off the record's end */
	int init, ret;		/* what trace_format_init and trace_decode return */
};

static int test_trace_record(const void *arg)
{
	const struct record_case *c = arg;
	struct tep_handle *tep = tep_alloc();
	struct tep_event *event = NULL;
	struct trace_format f;
	struct trace_event ev;
	struct tep_record rec = { .ts = 5123456789012ULL };
	unsigned char data[128] = { 0 };
	unsigned int loc, len = strlen(c->outcome) + 1;
	int pid = 4242, ret = PASS;
	unsigned long long address = 0x7f1234600000ULL;

	if (!tep)
		return fail("tep_alloc");
	tep_set_long_size(tep, 8);
	if (tep_parse_format(tep, &event, c->format, strlen(c->format), "thpcow") ||
	    !event) {
		tep_free(tep);
		return fail("tep_parse_format");
	}
	if (trace_format_init(&f, event) != c->init) {
		tep_free(tep);
		return fail("trace_format_init != %d", c->init);
	}
	if (c->init) {
		tep_free(tep);
		return PASS;
	}
	*(unsigned short *)data = (unsigned short)event->id;
	memcpy(data + c->pid_at, &pid, sizeof(pid));
	strncpy((char *)data + c->comm_at, c->comm, 16);
	memcpy(data + c->address_at, &address, sizeof(address));
	loc = c->fixed_size | len << 16;
	memcpy(data + c->loc_at, &loc, sizeof(loc));
	memcpy(data + c->fixed_size, c->outcome, len);
	rec.data = data;
	rec.size = (int)(c->fixed_size + len) - c->cut;

	if (trace_decode(&f, &rec, &ev) != c->ret)
		ret = fail("trace_decode != %d", c->ret);
	else if (!c->ret && (ev.pid != pid || ev.address != address ||
			     ev.ts != rec.ts))
		ret = fail("pid %d address 0x%llx ts %llu", ev.pid, ev.address, ev.ts);
	else if (!c->ret && (expect_str("comm", ev.comm, c->comm) ||
			     expect_str("outcome", ev.outcome, c->outcome)))
		ret = FAIL;
	tep_free(tep);
	return ret;
}

#define FORMAT_61 "name: thpcow_fault\nID: 1500\n" FORMAT_COMMON \
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n" \
	"\tfield:unsigned long address;\toffset:32;\tsize:8;\tsigned:0;\n" \
	"\tfield:__data_loc char[] outcome;\toffset:40;\tsize:4;\tsigned:0;\n" \
	FORMAT_PRINT
#define FORMAT_MOVED "name: thpcow_fault\nID: 1501\n" FORMAT_COMMON \
	"\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:__data_loc char[] outcome;\toffset:16;\tsize:4;\tsigned:0;\n" \
	"\tfield:char comm[16];\toffset:20;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:36;\tsize:4;\tsigned:1;\n" \
	FORMAT_PRINT
#define FORMAT_NO_COMM "name: thpcow_fault\nID: 1502\n" FORMAT_COMMON \
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned long address;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:__data_loc char[] outcome;\toffset:24;\tsize:4;\tsigned:0;\n" \
	"\nprint fmt: \"pid=%d\", REC->pid\n"
#define RECORD_61	FORMAT_61, 8, 12, 32, 40, 44
#define RECORD_MOVED	FORMAT_MOVED, 36, 20, 8, 16, 40
#endif /* HAVE_LIBTRACEFS */

/* --- cgroup paths ------------------------------------------------------- */

struct cgroup_case {
	const char *mnt;
	const char *arg;
	int ret;
	const char *abs;
	const char *rel;
};

static int test_cgroup_resolve(const void *arg)
{
	const struct cgroup_case *c = arg;
	char abs[PATH_MAX] = "", rel[PATH_MAX] = "";
	int ret = cgroup_resolve(c->mnt, c->arg, abs, sizeof(abs), rel,
				 sizeof(rel));

	if (ret != c->ret)
		return fail("cgroup_resolve(%s, \"%s\") = %d, want %d",
			    c->mnt, c->arg, ret, c->ret);
	if (ret)
		return PASS;
	if (expect_str("absolute path", abs, c->abs))
		return FAIL;
	return expect_str("shown path", rel, c->rel);
}

struct mountinfo_case {
	const char *text;
	int ret;
	const char *mnt;
};

static int test_mountinfo(const void *arg)
{
	const struct mountinfo_case *c = arg;
	FILE *f = fmemopen((void *)c->text, strlen(c->text), "r");
	char mnt[PATH_MAX] = "";
	int ret = cgroup2_mount(f, mnt, sizeof(mnt));

	fclose(f);
	if (ret != c->ret)
		return fail("cgroup2_mount = %d, want %d", ret, c->ret);
	return ret ? PASS : expect_str("mount point", mnt, c->mnt);
}

/* --- the binary --------------------------------------------------------- */

#define OUT_MAX	16384

struct run {
	int status;
	char out[OUT_MAX];
	char err[OUT_MAX];
	char log[OUT_MAX];
};

static void slurp(FILE *f, char *buf)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, OUT_MAX - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/*
 * What a case needs: the host without the module, the fake device, a
 * cgroup2 mount. The fake is test_fakedev.so beside thpcowctl.
 */
enum { NEED_UNLOADED = 1, NEED_FAKE = 2, NEED_CGROUP2 = 4 };

struct cli_case {
	const char *args[12];
	int status;
	const char *out_has;	/* NULL: stdout must be empty */
	const char *err_has;	/* NULL: stderr must be empty */
	unsigned int need;
	const char *env;	/* NAME=value for the fake, or NULL */
	const char *log_has;	/* what the fake logged; NULL: nothing */
	const char *in;		/* standard input, or NULL: none */
	bool log_is;		/* log_has is all the fake logged */
};

static char fake_lib[PATH_MAX], fake_log[PATH_MAX];

/* Run thpcowctl ARGS; without the fake, its device is a missing file. */
static int run_cli(const struct cli_case *c, struct run *r)
{
	const char *argv[16] = { cli_path };
	FILE *out = tmpfile(), *err = tmpfile(), *in = tmpfile();
	int i, status;
	pid_t pid;

	for (i = 0; c->args[i] && i < 14; i++)
		argv[i + 1] = c->args[i];
	if (!out || !err || !in)
		return -1;
	if (c->in)
		fputs(c->in, in);
	fflush(in);
	rewind(in);
	fflush(stdout);
	unlink(fake_log);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(in), STDIN_FILENO);
		dup2(fileno(out), STDOUT_FILENO);
		dup2(fileno(err), STDERR_FILENO);
		setenv("THPCOWCTL_DEVICE", MISSING_DEVICE, 1);
		if (c->need & NEED_FAKE) {
			setenv("LD_PRELOAD", fake_lib, 1);
			setenv("FAKE_LOG", fake_log, 1);
		}
		if (c->env)
			putenv((char *)c->env);
		execv(cli_path, (char **)argv);
		_exit(126);
	}
	fclose(in);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	slurp(out, r->out);
	slurp(err, r->err);
	r->log[0] = '\0';
	if ((out = fopen(fake_log, "r")))
		slurp(out, r->log);
	return 0;
}

/* NULL: s must be empty; else s must hold want. */
static int expect_has(const char *what, const char *s, const char *want)
{
	if (want ? strstr(s, want) != NULL : s[0] == '\0')
		return PASS;
	return fail("%s [%s], want %s [%s]", what, s,
		    want ? "it to hold" : "nothing, not", want ? want : "");
}

static bool have_cgroup2(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char mnt[PATH_MAX];
	int ret;

	if (!f)
		return false;
	ret = cgroup2_mount(f, mnt, sizeof(mnt));
	fclose(f);
	return ret == 0;
}

static int test_cli(const void *arg)
{
	const struct cli_case *c = arg;
	struct run r;

	if ((c->need & NEED_UNLOADED) && access(SYSFS_MODULE, F_OK) == 0)
		skip_reason = "the module is loaded on this host";
	else if ((c->need & NEED_FAKE) && access(fake_lib, R_OK))
		skip_reason = "test_fakedev.so is not built";
	else if ((c->need & NEED_CGROUP2) && !have_cgroup2())
		skip_reason = "no cgroup2 mount on this host";
	if (skip_reason)
		return SKIP;
	if (run_cli(c, &r))
		return fail("cannot run %s: %s", cli_path, strerror(errno));
	/* status -1: any (what the host's kernel decides, checked elsewhere) */
	if (c->status >= 0 && r.status != c->status)
		return fail("exit status %d, want %d; stderr: %s", r.status,
			    c->status, r.err);
	if (expect_has("stdout", r.out, c->out_has) ||
	    expect_has("stderr", r.err, c->err_has) ||
	    (c->log_is ? expect_str("fake log", r.log, c->log_has ? c->log_has : "") :
	     expect_has("fake log", r.log, c->log_has)))
		return FAIL;
	return PASS;
}

/* exec must not run COMMAND when it could not set the policy. */
static int test_exec_not_run(const void *arg)
{
	static char marker[PATH_MAX];
	struct cli_case c = { .args = { "exec", "zero", "--", "touch", marker } };
	struct run r;

	(void)arg;
	snprintf(marker, sizeof(marker), "%s/ran", tmp_dir);
	if (run_cli(&c, &r))
		return fail("cannot run %s", cli_path);
	if (r.status != EXIT_FAIL)
		return fail("exit status %d, want 1", r.status);
	if (access(marker, F_OK) == 0) {
		unlink(marker);
		return fail("COMMAND ran although the policy was not set");
	}
	return PASS;
}

/* --- the rules file ---------------------------------------------------- */

struct conf_case {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	int ret;		/* conf_parse(): the number of errors */
	const char *rules;	/* what it read, one "SCOPE [CGROUP] MODE" a line */
	const char *err;	/* what it reported; "" for nothing */
};

/* conf_parse() of c->text as "t.conf", cgroup2 on /sys/fs/cgroup. */
static int test_conf(const void *arg)
{
	const struct conf_case *c = arg;
	FILE *in = fmemopen((void *)c->text, c->len ? c->len : strlen(c->text), "r");
	FILE *err = tmpfile();
	char msgs[OUT_MAX], *rules = NULL;
	struct conf conf;
	int saved, ret;
	size_t i;

	if (!in || !err)
		return fail("fmemopen/tmpfile: %s", strerror(errno));
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(fileno(err), STDERR_FILENO);
	ret = conf_parse(in, "t.conf", "/sys/fs/cgroup", &conf);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	fclose(in);
	slurp(err, msgs);
	CAPTURE(rules, f, for (i = 0; i < conf.n; i++)
		fprintf(f, "%s%s%s %s\n", scope_name(conf.rules[i].scope),
			conf.rules[i].cgroup ? " " : "",
			conf.rules[i].cgroup ? conf.rules[i].cgroup : "",
			mode_name(conf.rules[i].mode)));
	conf_free(&conf);
	if (ret != c->ret)
		ret = fail("%d errors, want %d; stderr: %s", ret, c->ret, msgs);
	else
		ret = expect_str("rules", rules, c->rules) ||
		      expect_str("stderr", msgs, c->err) ? FAIL : PASS;
	free(rules);
	return ret;
}

/* --- the man page and the completion ------------------------------------ */

/* Run a bash script with $1 = the tool's directory; its output in out. */
static int run_sh(const char *script, char *out, size_t len)
{
	char dir[PATH_MAX];
	int fds[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s", cli_path);
	fflush(stdout);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		execlp("bash", "bash", "-c", script, "bash", dirname(dir),
		       (char *)NULL);
		_exit(126);
	}
	close(fds[1]);
	while (n < len - 1 && (r = read(fds[0], out + n, len - 1 - n)) > 0)
		n += r;
	out[n] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct sh_case {
	const char *needs;	/* a file that must exist, or skip */
	const char *script;
	const char *want;	/* the output; "" for none */
};

static int test_sh(const void *arg)
{
	const struct sh_case *c = arg;
	char out[OUT_MAX];
	int status;

	if (access(c->needs, R_OK)) {
		skip_reason = c->needs;
		return SKIP;
	}
	status = run_sh(c->script, out, sizeof(out));
	if (status)
		return fail("exit status %d; output: %s", status, out);
	return expect_str("output", out, c->want);
}

/* --- collapse: smaps and pagemap --------------------------------------- */

#define SMAPS_VMA(range, perms, dev, inode, name, flags)			\
	range " " perms " 00000000 " dev " " inode "  " name "\n"		\
	"Size:               2048 kB\nAnonHugePages:         0 kB\n"		\
	"FilePmdMapped:         0 kB\nVmFlags: " flags "\n"

/* Which mappings collapse looks at, and their flags. */
static int test_smaps(const void *arg)
{
	static const char text[] =
		SMAPS_VMA("00400000-00600000", "r-xp", "fd:01", "123", "/bin/x", "rd ex")
		SMAPS_VMA("7f0000000000-7f0000a00000", "rw-p", "00:00", "0", "", "rd wr hg")
		SMAPS_VMA("7f0000a00000-7f0000e00000", "rw-p", "00:00", "0", "", "rd wr um nh")
		SMAPS_VMA("7f0000e00000-7f0001000000", "rw-s", "00:01", "9", "/dev/zero (deleted)", "rd wr sh")
		SMAPS_VMA("7f0001000000-7f0001200000", "rw-p", "00:00", "0", "[heap]", "rd wr io")
		SMAPS_VMA("7ffff7ffd000-7ffff7fff000", "r--p", "00:00", "0", "[vvar]", "rd pf");
	static const char want[] =
		"00400000-00600000 anon=0 uffd=0 nh=0 special=0 ranges=1\n"
		"7f0000000000-7f0000a00000 anon=1 uffd=0 nh=0 special=0 ranges=5\n"
		"7f0000a00000-7f0000e00000 anon=1 uffd=1 nh=1 special=0 ranges=2\n"
		"7f0000e00000-7f0001000000 anon=0 uffd=0 nh=0 special=0 ranges=1\n"
		"7f0001000000-7f0001200000 anon=1 uffd=0 nh=0 special=1 ranges=1\n"
		"7ffff7ffd000-7ffff7fff000 anon=0 uffd=0 nh=0 special=1 ranges=0\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	char *got = NULL;
	struct vma v;
	int ret;

	(void)arg;
	CAPTURE(got, out, while (smaps_next(f, &v) > 0)
		fprintf(out, "%08lx-%08lx anon=%d uffd=%d nh=%d special=%d ranges=%lu\n",
			v.start, v.end, v.anon_private, v.uffd, v.nohugepage,
			v.special, range_end(&v) > range_first(&v) ?
			(range_end(&v) - range_first(&v)) / HPAGE_SIZE : 0));
	fclose(f);
	ret = expect_str("vmas", got, want);
	free(got);
	return ret;
}

/* Data pages, the zero page, and aligned runs of 512 frames. */
static int test_range_scan(const void *arg)
{
	static uint64_t pm[HPAGE_PTES];
	struct range_scan s;
	unsigned int i;

	(void)arg;
	for (i = 0; i < HPAGE_PTES; i++)
		pm[i] = PM_PRESENT | (1024 + i);
	range_scan(pm, 7, &s);
	if (s.data != 512 || !s.aligned_run || s.pfn0 != 1024)
		return fail("a THP: data %u run %d", s.data, s.aligned_run);
	pm[3] = PM_PRESENT | 7;		/* the zero page */
	pm[4] = PM_SWAP | 1028;		/* swapped out: not present */
	pm[5] = 0;
	range_scan(pm, 7, &s);
	if (s.data != 509 || s.present != 510 || s.aligned_run)
		return fail("4 KiB pages: data %u present %u run %d", s.data,
			    s.present, s.aligned_run);
	for (i = 0; i < HPAGE_PTES; i++)
		pm[i] = PM_PRESENT | (1025 + i);	/* contiguous, unaligned */
	range_scan(pm, 7, &s);
	if (s.aligned_run)
		return fail("an unaligned run taken for a THP");
	return PASS;
}

/* --- the table ---------------------------------------------------------- */

struct test {
	const char *desc;
	int (*fn)(const void *arg);
	const void *arg;
};

#define CASE(fn, desc, type, ...) \
	{ desc, fn, &(const struct type){ __VA_ARGS__ } }
#define ENTRIES(desc, ...) CASE(test_entries, desc, entries_case, __VA_ARGS__)
#define COUNTERS(desc, ...) CASE(test_counters, desc, counters_case, __VA_ARGS__)
#define PID(desc, ...)	CASE(test_pid, desc, num_case, __VA_ARGS__)
#define MODE(desc, ...)	CASE(test_mode, desc, mode_case, __VA_ARGS__)
#define JSON(desc, ...)	CASE(test_json_escape, desc, str_case, __VA_ARGS__)
#define TEXT(desc, ...)	CASE(test_text, desc, str_case, __VA_ARGS__)
#define CGROUP(desc, ...) CASE(test_cgroup_resolve, desc, cgroup_case, __VA_ARGS__)
#define MOUNTS(desc, ...) CASE(test_mountinfo, desc, mountinfo_case, __VA_ARGS__)
/* CONF(desc, text, errors, rules read, stderr) */
#define CONF(desc, text, ret, rules, err) CASE(test_conf, desc, conf_case, \
	text, 0, ret, rules, err)
/* APPLY(desc, env, stdin, status, stderr has, all the fake logs): apply - */
#define APPLY(desc, env, in, status, err, log) CASE(test_cli, desc, cli_case, \
	{ "apply", "-" }, status, (status) ? NULL : "applied <stdin>\n", err, \
	NEED_FAKE | NEED_CGROUP2, env, log, in, true)
/* CLI(desc, status, stdout has, stderr has, ARGS...) */
#define CLI(desc, status, out, err, ...) CASE(test_cli, desc, cli_case, \
	{ __VA_ARGS__ }, status, out, err, 0, NULL, NULL, NULL, false)
/* the same, for what a loaded module on the host would change */
#define CLI_UNLOADED(desc, status, out, err, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_UNLOADED, NULL, NULL, NULL, false)
/* FAKE(desc, env, status, stdout has, stderr has, fake log has, ARGS...) */
#define FAKE(desc, env, status, out, err, log, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_FAKE, env, log, NULL, false)
/* the same, where a cgroup2 mount is needed */
#define FAKE_CG(desc, env, status, out, err, log, ...) CASE(test_cli, desc, \
	cli_case, { __VA_ARGS__ }, status, out, err, NEED_FAKE | NEED_CGROUP2, \
	env, log, NULL, false)
#define SH(desc, needs, script, want) CASE(test_sh, desc, sh_case, needs, \
	script, want)
/* bash with the completion loaded, completing the last of words into
 * COMPREPLY, then what follows (REPLY: print it) */
#define COMPLETE(words) \
	". " BASH_COMPLETION "; . \"$1/thpcowctl.bash-completion\"; " \
	"COMP_WORDS=(thpcowctl " words "); " \
	"COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=\"${COMP_WORDS[*]}\"; " \
	"COMP_POINT=${#COMP_LINE}; _thpcowctl; "
#define REPLY	"echo \"${COMPREPLY[*]}\"; "
#define BASH_COMPLETION	"/usr/share/bash-completion/bash_completion"
#define NOT_LOADED	MISSING_DEVICE ": module not loaded (try: thpcowctl load)"
#define MOUNTINFO_LINE(root, mnt, type) \
	"30 1 0:26 " root " " mnt " rw,nosuid shared:9 - " type " " type " rw\n"

static const struct test tests[] = {
	/* a sign check that rejects good input */
	PID("pid: 1234 is accepted", "1234", 0, 1234),
	/* an off-by-one at the top of pid_t */
	PID("pid: INT_MAX is accepted", "2147483647", 0, INT_MAX),
	/* pid 0 means "the caller" in many APIs; it must not slip through */
	PID("pid: 0 is refused", "0", -EINVAL, 0),
	/* strtol() accepts a sign; a negative pid is a process group */
	PID("pid: -5 is refused", "-5", -EINVAL, 0),
	/* strtoull() accepts "+5" and silently negates "-5" */
	PID("pid: +5 is refused", "+5", -EINVAL, 0),
	/* strtol() without an end check */
	PID("pid: trailing junk is refused", "12abc", -EINVAL, 0),
	/* trailing whitespace is junk too */
	PID("pid: a trailing space is refused", "12 ", -EINVAL, 0),
	/* strtol() skips leading whitespace */
	PID("pid: a leading space is refused", " 12", -EINVAL, 0),
	/* an empty string parses as 0 with strtol() */
	PID("pid: the empty string is refused", "", -EINVAL, 0),
	/* base 0 would read hex */
	PID("pid: 0x10 is refused", "0x10", -EINVAL, 0),
	/* a value past pid_t truncated into a valid-looking pid */
	PID("pid: INT_MAX + 1 is out of range", "2147483648", -ERANGE, 0),
	/* ERANGE from strtoull() ignored: wraps to ULLONG_MAX */
	PID("pid: 2^64 is out of range", "18446744073709551616", -ERANGE, 0),
	/* the max argument ignored */
	{ "uint: max is enforced", test_uint_max, NULL },

	/* trace pads its comm column by these (run under C.UTF-8) */
	WIDTH("width: ASCII", "wrf", 3),
	WIDTH("width: one column per accented letter", "d\xc3\xa9j\xc3\xa0", 4),
	/* code points, not columns: CJK takes two each */
	WIDTH("width: CJK takes two columns each", "\xe6\xbc\xa2\xe5\xad\x97", 4),
	/* a combining accent takes none */
	WIDTH("width: a combining accent takes none", "e\xcc\x81", 1),
	/* a byte that is no UTF-8 is shown as one escape's start */
	WIDTH("width: a stray byte takes one", "a\xff", 2),

	/* a table that drifted from THPCOW_MODE_NAMES */
	MODE("mode: kernel", "kernel", 0, THPCOW_MODE_KERNEL),
	MODE("mode: zero", "zero", 0, THPCOW_MODE_ZERO),
	MODE("mode: copy", "copy", 0, THPCOW_MODE_COPY),
	MODE("mode: split", "split", 0, THPCOW_MODE_SPLIT),
	/* a prefix match (strncmp) */
	MODE("mode: a prefix is refused", "zer", -EINVAL, 0),
	/* a match that ignores what follows */
	MODE("mode: a longer word is refused", "zeros", -EINVAL, 0),
	/* strcasecmp: modes are exact words */
	MODE("mode: case matters", "ZERO", -EINVAL, 0),
	/* a number taken as the enum value */
	MODE("mode: a number is refused", "1", -EINVAL, 0),
	/* an empty string matching the first name */
	MODE("mode: the empty string is refused", "", -EINVAL, 0),

	/* no escaping: a quote ends the string early */
	JSON("json: quotes are escaped", "say \"hi\"", 0, "\"say \\\"hi\\\"\""),
	/* a backslash starts an escape of its own */
	JSON("json: backslashes are escaped", "a\\b", 0, "\"a\\\\b\""),
	/* raw control characters are invalid JSON */
	JSON("json: \\n and \\t use short escapes", "a\nb\tc", 0, "\"a\\nb\\tc\""),
	/* other control characters need \u00XX */
	JSON("json: other control characters as \\u00XX", "\x01\x1f\x7f", 0,
	     "\"\\u0001\\u001f\\u007f\""),
	/* high bytes mangled (e.g. sign-extended char compared < 0x20) */
	JSON("json: UTF-8 passes through", "d\xc3\xa9j\xc3\xa0 \xe6\x97\xa5 \xf0\x9f\x98\x80",
	     0, "\"d\xc3\xa9j\xc3\xa0 \xe6\x97\xa5 \xf0\x9f\x98\x80\""),
	/* a lead byte taken with whatever follows it */
	JSON("json: a lead byte without continuation becomes U+FFFD", "\xc3(",
	     0, "\"\\ufffd(\""),
	/* a comm cut mid-character by the kernel made invalid JSON */
	JSON("json: a truncated sequence becomes U+FFFD", "ab\xc3", 0, "\"ab\\ufffd\""),
	/* lone continuation bytes copied through */
	JSON("json: a stray continuation byte becomes U+FFFD", "\x80z", 0,
	     "\"\\ufffdz\""),
	/* overlong encodings smuggle '/' or NUL */
	JSON("json: an overlong form becomes U+FFFD", "\xc0\xaf", 0,
	     "\"\\ufffd\\ufffd\""),
	/* UTF-16 surrogates are not characters */
	JSON("json: an encoded surrogate becomes U+FFFD", "\xed\xa0\x80", 0,
	     "\"\\ufffd\\ufffd\\ufffd\""),
	/* reading a fixed-size field past its end */
	JSON("json: a fixed-size field stops at its size", "abcdef", 3, "\"abc\""),
	/* commas between members and after nested containers */
	{ "json: nesting, commas, null, NaN", test_json_nesting, NULL },

	/* a comm with a newline forging a table row */
	TEXT("text: control characters become \\xNN", "a\nb\x1b[1m", 0,
	     "a\\x0ab\\x1b[1m"),
	/* UTF-8 names shown as escapes */
	TEXT("text: UTF-8 passes through", "d\xc3\xa9j\xc3\xa0", 0, "d\xc3\xa9j\xc3\xa0"),
	/* a broken sequence written raw to the terminal */
	TEXT("text: invalid UTF-8 becomes \\xNN", "a\xff", 0, "a\\xff"),

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

#ifdef HAVE_LIBTRACEFS
	/* fields read from the printed text: the comm's "address=" taken */
	CASE(test_trace_record, "trace: a record's fields by name (6.1's format)",
	     record_case, RECORD_61, "a address=1 b", "substituted", 0, 0, 0),
	/* the comm cut at its first space */
	CASE(test_trace_record, "trace: a comm holding \" outcome=\"",
	     record_case, RECORD_61, "x outcome=y z", "passthrough", 0, 0, 0),
	/* fixed offsets instead of the format's */
	CASE(test_trace_record, "trace: the fields where the format says",
	     record_case, RECORD_MOVED, "a address=1 b", "fallback_alloc", 0, 0, 0),
	/* a 16-byte comm with no NUL overflowing into the next field */
	CASE(test_trace_record, "trace: a comm filling its array",
	     record_case, RECORD_61, "123456789012345", "substituted", 0, 0, 0),
	/* the outcome read past the record's end */
	CASE(test_trace_record, "trace: a record cut short is refused",
	     record_case, RECORD_61, "wrf", "substituted", 3, 0, -1),
	/* a format without comm taken as the event's */
	CASE(test_trace_record, "trace: a format without comm is refused",
	     record_case, FORMAT_NO_COMM, 8, 0, 16, 24, 28, "wrf", "x", 0, -1, 0),
#endif
	/* columns that do not line up with the header; a control character in
	 * a comm written raw; UTF-8 counted in bytes; microseconds cut to
	 * milliseconds or rounded up */
	CASE(test_trace_print, "trace: text", trace_print_case, false, false,
	     "           TIME      PID  COMM             ADDRESS             OUTCOME\n"
	     "    5123.456789     1234  wrf              0x7f1234600000      substituted\n"
	     "    5123.456790        7  my \"odd\"\\x09name  0x200000            fallback_alloc\n"
	     "    5123.457789  4194304  a address=1 b    0xffffffffffffffff  passthrough\n"
	     "       0.000000        1  d\xc3\xa9j\xc3\xa0 \\xff        0x1000              native\n"
	     "thpcowctl: trace: 42 events lost on CPU 1 by 5123.458789 (the trace buffer overflowed)\n"
	     "thpcowctl: trace: 1 event lost on CPU 0 by 5123.459789 (the trace buffer overflowed)\n"
	     "thpcowctl: trace: 42 events lost in all (the trace buffer overflowed; --buffer-size makes it larger)\n"),
	/* the time of day in the boot time's column; the zone left out */
	CASE(test_trace_print, "trace: text, --wall-clock", trace_print_case, false,
	     true,
	     "TIME" "                                 PID  COMM             ADDRESS             OUTCOME\n"
	     "2026-12-01T02:00:00.456789+0000     1234  wrf              0x7f1234600000      substituted\n"
	     "2026-12-01T02:00:00.456790+0000        7  my \"odd\"\\x09name  0x200000            fallback_alloc\n"
	     "2026-12-01T02:00:00.457789+0000  4194304  a address=1 b    0xffffffffffffffff  passthrough\n"
	     "2026-12-01T00:34:37.000000+0000        1  d\xc3\xa9j\xc3\xa0 \\xff        0x1000              native\n"
	     "thpcowctl: trace: 42 events lost on CPU 1 by 2026-12-01T02:00:00.458789+0000 (the trace buffer overflowed)\n"
	     "thpcowctl: trace: 1 event lost on CPU 0 by 2026-12-01T02:00:00.459789+0000 (the trace buffer overflowed)\n"
	     "thpcowctl: trace: 42 events lost in all (the trace buffer overflowed; --buffer-size makes it larger)\n"),
	/* one object a line; quotes, tabs and bad UTF-8 in a comm escaped;
	 * times as exact decimals, not doubles; lost and end lines typed */
	CASE(test_trace_print, "trace: JSON", trace_print_case, true, false,
	     "{\"type\":\"fault\",\"time\":5123.456789,\"wall_time\":\"2026-12-01T02:00:00.456789Z\","
	     "\"pid\":1234,\"comm\":\"wrf\",\"address\":\"0x7f1234600000\",\"outcome\":\"substituted\"}\n"
	     "{\"type\":\"fault\",\"time\":5123.456790,\"wall_time\":\"2026-12-01T02:00:00.456790Z\","
	     "\"pid\":7,\"comm\":\"my \\\"odd\\\"\\tname\",\"address\":\"0x200000\",\"outcome\":\"fallback_alloc\"}\n"
	     "{\"type\":\"fault\",\"time\":5123.457789,\"wall_time\":\"2026-12-01T02:00:00.457789Z\","
	     "\"pid\":4194304,\"comm\":\"a address=1 b\",\"address\":\"0xffffffffffffffff\",\"outcome\":\"passthrough\"}\n"
	     "{\"type\":\"fault\",\"time\":0.000000,\"wall_time\":\"2026-12-01T00:34:37.000000Z\","
	     "\"pid\":1,\"comm\":\"d\xc3\xa9j\xc3\xa0 \\ufffd\",\"address\":\"0x1000\",\"outcome\":\"native\"}\n"
	     "{\"type\":\"lost\",\"time\":5123.458789,\"wall_time\":\"2026-12-01T02:00:00.458789Z\",\"cpu\":1,\"lost\":42}\n"
	     "{\"type\":\"lost\",\"time\":5123.459789,\"wall_time\":\"2026-12-01T02:00:00.459789Z\",\"cpu\":0,\"lost\":1}\n"
	     "{\"type\":\"end\",\"events\":4,\"lost\":0}\n"
	     "{\"type\":\"end\",\"events\":4,\"lost\":42}\n"),

	/* the mount path doubled onto an absolute argument */
	CGROUP("cgroup: an absolute path is used as is", "/sys/fs/cgroup",
	       "/sys/fs/cgroup/machine.slice", 0, "/sys/fs/cgroup/machine.slice",
	       "/machine.slice"),
	/* a relative argument resolved against the cwd */
	CGROUP("cgroup: a relative path is below the mount", "/sys/fs/cgroup",
	       "machine.slice/foo", 0, "/sys/fs/cgroup/machine.slice/foo",
	       "/machine.slice/foo"),
	/* "/machine.slice" taken as a directory of the root filesystem */
	CGROUP("cgroup: a leading slash is still below the mount",
	       "/sys/fs/cgroup", "/machine.slice", 0,
	       "/sys/fs/cgroup/machine.slice", "/machine.slice"),
	/* "/sys/fs/cgroupfoo" matched the mount as a string prefix */
	CGROUP("cgroup: the mount prefix must be whole components",
	       "/sys/fs/cgroup", "/sys/fs/cgroupfoo", 0,
	       "/sys/fs/cgroup/sys/fs/cgroupfoo", "/sys/fs/cgroupfoo"),
	/* the root shown as "" or opened as the mount's parent */
	CGROUP("cgroup: / is the root", "/sys/fs/cgroup", "/", 0,
	       "/sys/fs/cgroup", "/"),
	/* the mount itself shown as "" */
	CGROUP("cgroup: the mount point is the root", "/sys/fs/cgroup/unified",
	       "/sys/fs/cgroup/unified/", 0, "/sys/fs/cgroup/unified", "/"),
	/* trailing slashes kept in what is shown */
	CGROUP("cgroup: trailing slashes are dropped", "/sys/fs/cgroup",
	       "a/b//", 0, "/sys/fs/cgroup/a/b", "/a/b"),
	/* "" opened as the mount root by accident */
	CGROUP("cgroup: an empty path is refused", "/sys/fs/cgroup", "", -EINVAL,
	       NULL, NULL),
	/* a relative path opened against the cwd when cgroup2 is absent */
	CGROUP("cgroup: a relative path needs a cgroup2 mount", NULL, "a",
	       -ENOENT, NULL, NULL),
	/* no mount: an absolute path still works */
	CGROUP("cgroup: no mount, an absolute path is used", NULL, "/x/y", 0,
	       "/x/y", "/x/y"),

	/* the first cgroup (v1) line taken for cgroup2 */
	MOUNTS("mountinfo: cgroup2 among v1 mounts",
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup/cpu", "cgroup")
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup/unified", "cgroup2"), 0,
	       "/sys/fs/cgroup/unified"),
	/* a bind mount of a subtree taken over the whole hierarchy */
	MOUNTS("mountinfo: the hierarchy's root is preferred",
	       MOUNTINFO_LINE("/sub", "/mnt/sub", "cgroup2")
	       MOUNTINFO_LINE("/", "/sys/fs/cgroup", "cgroup2"), 0,
	       "/sys/fs/cgroup"),
	/* octal escapes (\040 for a space) left in the path */
	MOUNTS("mountinfo: escapes are undone",
	       MOUNTINFO_LINE("/", "/mnt/my\\040cg", "cgroup2"), 0, "/mnt/my cg"),
	/* a missing cgroup2 reported as found */
	MOUNTS("mountinfo: no cgroup2", MOUNTINFO_LINE("/", "/proc", "proc"),
	       -ENOENT, NULL),

	/* comments, blank lines, tabs and CRLF taken for rules */
	CONF("conf: comments, blanks, tabs, CRLF",
	     "# rules\n\n   \t\n\tglobal\tzero\r\n  cgroup /machine.slice kernel  # vms\n",
	     0, "global zero\ncgroup /machine.slice kernel\n", ""),
	/* a '#' inside a word cutting it short */
	CONF("conf: '#' inside a word is not a comment", "cgroup /a#b zero\n", 0,
	     "cgroup /a#b zero\n", ""),
	/* the last line without a newline dropped */
	CONF("conf: a last line without a newline", "global copy", 0,
	     "global copy\n", ""),
	/* an empty file taken as an error, or as "no change" */
	CONF("conf: an empty file has no rules", "", 0, "", ""),
	/* the --cgroup rule not applied: mount prefix, relative, root */
	CONF("conf: cgroup paths as --cgroup takes them",
	     "cgroup /sys/fs/cgroup/a split\ncgroup b/c zero\ncgroup / kernel\n", 0,
	     "cgroup /a split\ncgroup /b/c zero\ncgroup / kernel\n", ""),
	/* repeated and trailing slashes kept: duplicates not found */
	CONF("conf: paths are normalised", "cgroup machine.slice//vm/ zero\n", 0,
	     "cgroup /machine.slice/vm zero\n", ""),
	/* one cgroup spelt two ways, both applied in turn */
	CONF("conf: the same cgroup twice", "cgroup /sys/fs/cgroup/a zero\n"
	     "\ncgroup a// kernel\n", 1, "",
	     "thpcowctl: t.conf:3: cgroup /a already has a rule on line 1\n"),
	/* the last global silently winning */
	CONF("conf: two global lines", "global zero\nglobal kernel\n", 1, "",
	     "thpcowctl: t.conf:2: a second global line (the first is line 1)\n"),
	/* "../" leaving the cgroup tree, "." making two names for one cgroup */
	CONF("conf: '..' and '.' are refused", "cgroup /a/../b zero\ncgroup ./a zero\n",
	     2, "", "thpcowctl: t.conf:1: cgroup path '/a/../b': '.' and '..' are "
	     "not allowed\nthpcowctl: t.conf:2: cgroup path './a': '.' and '..' "
	     "are not allowed\n"),
	/* a component merely starting with dots refused */
	CONF("conf: '..a' is a name", "cgroup /..a/.b zero\n", 0,
	     "cgroup /..a/.b zero\n", ""),
	/* words beyond a rule ignored, or too few read past the end */
	CONF("conf: the number of words",
	     "global\nglobal zero zero\ncgroup /a\ncgroup /a zero zero\n", 4, "",
	     "thpcowctl: t.conf:1: expected 'global MODE'\n"
	     "thpcowctl: t.conf:2: expected 'global MODE'\n"
	     "thpcowctl: t.conf:3: expected 'cgroup PATH MODE'\n"
	     "thpcowctl: t.conf:4: expected 'cgroup PATH MODE'\n"),
	/* a bad mode taken as kernel; keywords matched without case */
	CONF("conf: an unknown mode and keyword", "cgroup /a fast\nGlobal zero\n", 2,
	     "", "thpcowctl: t.conf:1: unknown mode 'fast': expected one of "
	     "kernel, zero, copy, split\nthpcowctl: t.conf:2: unknown keyword "
	     "'Global': expected global or cgroup\n"),
	/* a pid rule kept for whichever process gets that pid next boot */
	CONF("conf: pid rules are refused", "pid 1 zero\n", 1, "",
	     "thpcowctl: t.conf:1: pid rules do not belong in a file (pids "
	     "change): use thpcowctl exec or set --pid\n"),
	/* a NUL byte ending the line early: "global zero" read from it */
	CASE(test_conf, "conf: a NUL byte", conf_case, "global zero\0junk\n", 17,
	     1, "", "thpcowctl: t.conf:1: a NUL byte\n"),
	/* the good lines of a bad file used; errors after the first lost */
	CONF("conf: every error, and no rules from a bad file",
	     "global zero\nbogus\ncgroup /a zero\ncgroup /b\n", 2, "",
	     "thpcowctl: t.conf:2: unknown keyword 'bogus': expected global or "
	     "cgroup\nthpcowctl: t.conf:4: expected 'cgroup PATH MODE'\n"),

	/* help to stderr, or a non-zero status for asked-for help */
	CLI("cli: --help goes to stdout, exit 0", 0, "Usage: thpcowctl", NULL,
	    "--help"),
	/* a verb left out of the generated help */
	CLI("cli: --help lists the verbs", 0,
	    "  unload    unload the module\n", NULL, "--help"),
	/* verb help not generated from the table */
	CLI("cli: VERB --help, exit 0", 0,
	    "Usage: thpcowctl set (-p PID [--children] | -c PATH | -g) MODE",
	    NULL, "set", "--help"),
	/* the mode list in help not generated from THPCOW_MODE_NAMES */
	CLI("cli: help VERB lists the modes", 0,
	    "MODE is one of: kernel, zero, copy, split.", NULL, "help", "exec"),
	/* no verb treated as success */
	CLI("cli: no verb, exit 2", 2, NULL, "thpcowctl: missing VERB", NULL),
	/* an unknown verb treated as a failure (1), not a usage error */
	CLI("cli: unknown verb, exit 2", 2, NULL,
	    "thpcowctl: unknown verb 'frobnicate'", "frobnicate"),
	/* getopt's own message and status */
	CLI("cli: unknown option, exit 2", 2, NULL,
	    "thpcowctl: list: unknown option '--bogus'", "list", "--bogus"),
	/* a missing option argument consuming the next word */
	CLI("cli: missing option argument, exit 2", 2, NULL,
	    "option '--pid' needs an argument", "get", "--pid"),
	/* two scopes silently taking the last one */
	CLI("cli: --pid with --global, exit 2", 2, NULL, "mutually exclusive",
	    "set", "--pid", "1", "--global", "zero"),
	/* --cgroup and --pid together */
	CLI("cli: --cgroup with --pid, exit 2", 2, NULL, "mutually exclusive",
	    "get", "--cgroup", "a", "--pid", "1"),
	/* a repeated scope option quietly overriding the first */
	CLI("cli: --pid twice, exit 2", 2, NULL, "mutually exclusive",
	    "clear", "--pid", "1", "--pid", "2"),
	/* no scope defaulting to global */
	CLI("cli: no scope, exit 2", 2, NULL,
	    "one of --pid, --cgroup or --global is required", "set", "zero"),
	/* --children accepted (and ignored) for a cgroup */
	CLI("cli: --children with --cgroup, exit 2", 2, NULL,
	    "--children is only valid with --pid",
	    "set", "--cgroup", "a", "--children", "zero"),
	/* --children with --global */
	CLI("cli: --children with --global, exit 2", 2, NULL,
	    "--children is only valid with --pid",
	    "set", "--global", "--children", "zero"),
	/* --children accepted by a verb that has no use for it */
	CLI("cli: --children with get, exit 2", 2, NULL,
	    "unknown option '--children'", "get", "--pid", "1", "--children"),
	/* a bad pid reaching the ioctl */
	CLI("cli: a bad PID, exit 2", 2, NULL, "invalid PID '12x'",
	    "get", "--pid", "12x"),
	/* a bad mode reaching the ioctl as a number */
	CLI("cli: an unknown mode, exit 2", 2, NULL, "unknown mode 'fast'",
	    "set", "--global", "fast"),
	/* set without MODE */
	CLI("cli: set without MODE, exit 2", 2, NULL, "missing MODE",
	    "set", "--global"),
	/* extra words ignored by the verbs that take none */
	CLI("cli: status with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "status", "now"),
	/* extra words ignored */
	CLI("cli: an extra argument, exit 2", 2, NULL,
	    "unexpected argument 'zero'", "set", "--global", "zero", "zero"),
	/* exec running "zero", or taking the command's options as its own */
	CLI("cli: exec without --, exit 2", 2, NULL,
	    "missing '--' before COMMAND", "exec", "zero", "ls"),
	/* exec with nothing to run */
	CLI("cli: exec without COMMAND, exit 2", 2, NULL, "missing COMMAND",
	    "exec", "zero", "--"),
	/* --count without --watch ignored */
	CLI("cli: --count without --watch, exit 2", 2, NULL,
	    "--count needs --watch", "stats", "--count", "2"),
	/* --watch 0 spinning */
	CLI("cli: --watch 0, exit 2", 2, NULL, "invalid SECONDS '0'",
	    "stats", "--watch", "0"),
	/* the device missing reported as a raw ENOENT, or as exit 2 */
	CLI("cli: list without the module, exit 1", 1, NULL, NOT_LOADED,
	    "list"),
	/* set printing something before it found no device */
	CLI("cli: set without the module, exit 1", 1, NULL, NOT_LOADED,
	    "set", "--pid", "1", "zero"),
	/* stats --json printing half an object */
	CLI("cli: stats without the module, exit 1", 1, NULL, NOT_LOADED,
	    "stats", "--json"),
	/* exec going ahead without its policy */
	CLI("cli: exec without the module, exit 1", 1, NULL, NOT_LOADED,
	    "exec", "zero", "--", "true"),
	/* and running COMMAND all the same */
	{ "cli: exec without the module does not run COMMAND",
	  test_exec_not_run, NULL },
	/* status failing (or lying) when the module is simply not there;
	 * exit 3 (UNKNOWN to Nagios) where the kernel needs no module */
	SH("cli: status without the module: exit 3, or 0 where not needed",
	   "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; "
	   "p=$(\"$1/thpcowctl\" probe --json); out=$(\"$1/thpcowctl\" status); rc=$?; "
	   "grep -qx 'module loaded: *no' <<<\"$out\" || echo \"$out\"; "
	   "case $p in *'\"whole THP\"'*) [ $rc = 0 ];; *) [ $rc = 3 ];; esac || "
	   "echo \"rc $rc with $p\"", ""),
	/* status --json without the keys it documents */
	CLI_UNLOADED("cli: status --json without the module", -1,
		     "{\"loaded\":false,\"module_version\":null,\"abi\":null,"
		     "\"tool_version\":\"" THPCOW_VERSION "\",\"tool_abi\":1,"
		     "\"kernel\":", NULL, "status", "--json"),
	/* version needing the module */
	CLI_UNLOADED("cli: version without the module, exit 0", 0,
		     "thpcowctl " THPCOW_VERSION " (ABI 1)\n"
		     "thpcow module not loaded\n", NULL, "version"),
	/* --version not an alias of version */
	CLI_UNLOADED("cli: --version", 0, "thpcowctl " THPCOW_VERSION, NULL,
		     "--version"),
	/* unload trying delete_module() on a module that is not there */
	CLI_UNLOADED("cli: unload without the module, exit 1", 1, NULL,
		     "thpcowctl: thpcow: module not loaded", "unload"),
	/* load --path reaching insmod with a missing file */
	CLI("cli: load --path of a missing file, exit 1", 1, NULL,
	    "/nonexistent/thpcow.ko: No such file or directory",
	    "load", "--path", "/nonexistent/thpcow.ko"),

	/* trace --count 0 waiting forever */
	CLI("cli: trace --count 0, exit 2", 2, NULL, "invalid N '0'",
	    "trace", "--count", "0"),
	/* a bad --duration taken as 0 (forever) */
	CLI("cli: trace --duration 1s, exit 2", 2, NULL,
	    "invalid SECONDS '1s'", "trace", "--duration", "1s"),
	/* --pid 0 as "every process" */
	CLI("cli: trace --pid 0, exit 2", 2, NULL, "invalid PID '0'",
	    "trace", "--pid", "0"),
	/* extra words ignored */
	CLI("cli: trace with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "trace", "now"),
	/* a failure (no tracefs, no module or no root: each is exit 1) as
	 * a usage error, or a header printed before it */
	CLI_UNLOADED("cli: trace without the module, exit 1", 1, NULL,
		     "thpcowctl: trace: ", "trace", "--count", "1"),
	/* collapse: one process, pid file or cgroup, not two, not none */
	CLI("cli: collapse without a scope, exit 2", 2, NULL,
	    "thpcowctl: collapse: one of --pid, --cgroup or --pidfile is required",
	    "collapse"),
	CLI("cli: collapse --pid with --cgroup, exit 2", 2, NULL,
	    "--pid, --cgroup and --pidfile are mutually exclusive", "collapse", "--pid",
	    "1", "--cgroup", "a"),
	CLI("cli: collapse --pidfile with --pid, exit 2", 2, NULL,
	    "--pid, --cgroup and --pidfile are mutually exclusive", "collapse",
	    "--pidfile", "/run/x.pid", "--pid", "1"),
	/* --await-postcopy 0 as "forever" */
	CLI("cli: collapse --await-postcopy 0, exit 2", 2, NULL,
	    "invalid seconds '0'", "collapse", "--pid", "1",
	    "--await-postcopy", "0"),
	/* --rate 0 taken as "no bound", or as a stall */
	CLI("cli: collapse --rate 0, exit 2", 2, NULL, "invalid MiB/s '0'",
	    "collapse", "--pid", "1", "--rate", "0"),
	/* --min-present above 512 never collapsing anything */
	CLI("cli: collapse --min-present 513, exit 2", 2, NULL,
	    "invalid page count '513': out of range", "collapse", "--pid", "1",
	    "--min-present", "513"),
	CLI("cli: collapse --pid 0, exit 2", 2, NULL, "invalid PID '0'",
	    "collapse", "--pid", "0"),
	CLI("cli: collapse with an argument, exit 2", 2, NULL,
	    "unexpected argument 'now'", "collapse", "--pid", "1", "now"),
	{ "collapse: smaps mappings and flags", test_smaps, NULL },
	{ "collapse: pagemap ranges", test_range_scan, NULL },
	SH("completion: collapse's options", BASH_COMPLETION,
	   COMPLETE("collapse --") REPLY,
	   "--pid --cgroup --pidfile --min-present --rate --after-migration "
	   "--await-postcopy --domain --json --help\n"),
	/* --domain for a whole cgroup (which QEMU's events?) */
	CLI("cli: collapse --domain with --cgroup, exit 2", 2, NULL,
	    "--domain NAME is one QEMU's: with --pid or --pidfile", "collapse",
	    "--cgroup", "a", "--domain", "vm1"),
	{ "collapse: virsh's lifecycle events and states", test_virsh_lines, NULL },
	/* a missing rules file reported as something else */
	CLI("cli: apply of a missing file, exit 1", 1, NULL,
	    "thpcowctl: /nonexistent/thpcow.conf: No such file or directory\n",
	    "apply", "--check", "/nonexistent/thpcow.conf"),
	/* a second FILE ignored */
	CLI("cli: apply with two files, exit 2", 2, NULL,
	    "unexpected argument 'b'", "apply", "a", "b"),
	/* --check needing the module; the shipped example not valid */
	SH("cli: apply --check of dist/thpcow.conf", "/bin/bash",
	   "\"$1/thpcowctl\" apply --check \"$1/../../dist/thpcow.conf\"", ""),
	/* probe's two options taken together */
	CLI("cli: probe --json --condition, exit 2", 2, NULL,
	    "--json and --condition exclude each other", "probe", "--json",
	    "--condition"),
	/* probe without an answer, or exit 0 when it has none */
	SH("cli: probe answers splits, whole THP or unknown (exit 1)", "/bin/bash",
	   "out=$(\"$1/thpcowctl\" probe --json); rc=$?; case $out in "
	   "*'\"without_thpcow\":\"splits\"'*|*'\"without_thpcow\":\"whole THP\"'*) "
	   "[ $rc = 0 ];; *'\"without_thpcow\":\"unknown\"'*) [ $rc = 1 ];; "
	   "*) false;; esac", ""),
	/* the THP settings not read, or the whole "always [madvise] never" */
	SH("cli: status shows the THP settings", "/usr/bin/jq",
	   "t=/sys/kernel/mm/transparent_hugepage; [ -r $t/enabled ] || exit 0; "
	   "w() { sed 's/.*\\[\\(.*\\)\\].*/\\1/' \"$t/$1\"; }; "
	   "\"$1/thpcowctl\" status --json | jq -r '[.thp_enabled, .thp_defrag, "
	   ".thp_use_zero_page, .khugepaged_defrag] | join(\" \")' | "
	   "grep -qxF \"$(w enabled) $(w defrag) $(cat $t/use_zero_page) "
	   "$(cat $t/khugepaged/defrag)\" || echo differ", ""),
	/* status without the module not saying what the kernel does */
	SH("cli: status without the module: what the kernel does alone", "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; \"$1/thpcowctl\" status | "
	   "grep -E '^without thpcow: +(splits|whole THP|unknown)$' >/dev/null", ""),
	/* the hint on a packaged host: 'thpcowctl load' loads the module
	 * without its config or rules */
	{ "cli: without the module where thpcow.service is installed: the hint",
	  test_cli, &(const struct cli_case){ { "list" }, 1, NULL,
	  MISSING_DEVICE ": module not loaded (try: systemctl start thpcow)",
	  NEED_UNLOADED, "THPCOWCTL_UNIT=/", NULL, NULL, false } },
	/* check: a state that is not the kernel's (CRITICAL where nothing is
	 * needed), or an exit status that is not the state */
	SH("cli: check without the module: OK where not needed, else CRITICAL",
	   "/bin/bash",
	   "[ ! -d /sys/module/thpcow ] || exit 0; "
	   "p=$(\"$1/thpcowctl\" probe --json); out=$(\"$1/thpcowctl\" check); rc=$?; "
	   "case $p in *'\"whole THP\"'*) w='0 THPCOW OK - not needed: Linux';; "
	   "*'\"splits\"'*) w='2 THPCOW CRITICAL - module not loaded, and Linux';; "
	   "*) w='3 THPCOW UNKNOWN - module not loaded';; esac; "
	   "case \"$rc $out\" in \"$w\"*) ;; *) echo \"$rc $out\";; esac", ""),
	/* a usage error as 2 (CRITICAL to Nagios), not 3 (UNKNOWN) */
	CLI("cli: check -w above -c, exit 3", 3, NULL,
	    "thpcowctl: check: --warning 60 is above --critical 50", "check",
	    "-w", "60", "-c", "50"),
	CLI("cli: check with an unknown option, exit 3", 3, NULL,
	    "unknown option '--bogus'", "check", "--bogus"),
	CLI("cli: check -w 101, exit 3", 3, NULL, "invalid percentage '101'",
	    "check", "-w", "101"),
	/* apply going on without the module */
	{ "cli: apply without the module, exit 1", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 1, NULL, NOT_LOADED, 0, NULL, NULL, "global zero\n",
	  false } },
	/* a metric a real parser refuses, or values other than the counters */
	SH("stats --format prometheus: prometheus_client parses it",
	   "/usr/lib/python3/dist-packages/prometheus_client/parser.py",
	   "export THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null; "
	   "t=$(mktemp -d); LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" "
	   "stats --format prometheus >\"$t/p\" && "
	   "{ LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" stats -n -r; "
	   "echo policies 2; echo global_mode zero; } >\"$t/s\" && "
	   "\"$1/../../tests/lib/prometheus-check.py\" \"$t/p\" \"$t/s\" 2097152; "
	   "rm -rf \"$t\"", "ok\n"),
	/* usage's metrics refused by a real parser, or other than debugfs'
	 * rows (the fake device's, as debugfs usage would show them) */
	SH("usage --format prometheus: prometheus_client parses it",
	   "/usr/lib/python3/dist-packages/prometheus_client/parser.py",
	   "export THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null; "
	   "t=$(mktemp -d); LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" "
	   "usage --format prometheus >\"$t/p\" && "
	   "printf '# scope\\ttarget\\tsubstituted\\tcopied\\tsplit\\tfallback_ineligible\\t"
	   "fallback_uffd\\tfallback_alloc\\tfallback_charge\\tfallback_unstable\\t"
	   "fallback_pinned\\tthp_bytes\\tname\\n"
	   "cgroup\\t99\\t128\\t0\\t0\\t0\\t2\\t3\\t0\\t0\\t0\\t268435456\\t"
	   "/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\\n"
	   "pid\\t42\\t64\\t1\\t0\\t0\\t0\\t0\\t0\\t0\\t0\\t136314880\\tqemu\"kvm\\n"
	   "other\\t-\\t0\\t0\\t0\\t5\\t0\\t0\\t0\\t0\\t0\\t0\\t-\\n"
	   "# slots 1 of 1024\\n' >\"$t/d\" && "
	   "\"$1/../../tests/lib/prometheus-check.py\" --usage \"$t/p\" \"$t/d\"; "
	   "rm -rf \"$t\"", "ok\n"),
	/* the man page with groff warnings (bad macros, lines too long) */
	SH("man: thpcowctl.8 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/thpcowctl.8\" >/dev/null", ""),
	/* the same for the rules file's page */
	SH("man: thpcow.conf.5 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/thpcow.conf.5\" >/dev/null", ""),
	/* the module's page with groff warnings */
	SH("man: thpcow.4 renders without warnings", "/usr/bin/man",
	   "MANWIDTH=80 man --warnings -l \"$1/thpcow.4\" >/dev/null", ""),
	/* a counter, an ioctl or a parameter added and not documented */
	SH("man: thpcow.4 has every counter, ioctl and parameter", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/thpcow.4\" 2>/dev/null); "
	   "u=\"$1/../../include/uapi/thpcow.h\"; "
	   "for w in $(sed -n '/^#define THPCOW_STAT_NAMES/,/^}/p' \"$u\" | grep -o '\"[a-z_]*\"' | tr -d '\"') "
	   "$(grep -o '^#define THPCOW_IOC_[A-Z]*' \"$u\" | awk '$2 != \"THPCOW_IOC_MAGIC\" { print $2 }') "
	   "$(sed -n 's/^module_param[a-z_]*(\\([a-z_]*\\),.*/\\1/p' \"$1/../../module/\"*.c); do "
	   "grep -qE \"^       $w( |=|$)\" <<<\"$page\" || echo \"$w is missing\"; done", ""),
	/* a column -o takes and the page does not name */
	SH("man: thpcowctl.8 names every column", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/thpcowctl.8\" 2>/dev/null); "
	   "for c in $(\"$1/thpcowctl\" list --help | sed -n '/^Available/,$s/^  \\([A-Z_]*\\) .*/\\1/p') "
	   "$(\"$1/thpcowctl\" stats --help | sed -n '/^Available/,/^$/s/^  \\([A-Z_]*\\) .*/\\1/p') "
	   "$(\"$1/thpcowctl\" usage --help | sed -n '/^Available/,$s/^  \\([A-Z_]*\\) .*/\\1/p') TIME FALLBACKS; do "
	   "grep -qw \"$c\" <<<\"$page\" || echo \"$c is missing\"; done", ""),
	/* the options section without one of the global options */
	SH("man: thpcowctl.8 has every global option", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/thpcowctl.8\" 2>/dev/null); "
	   "for o in $(\"$1/thpcowctl\" --help | sed -n '/^Options/,/^$/s/^  \\(-[a-zA-Z]\\), \\(--[a-z]*\\).*/\\1 \\2/p'); do "
	   "grep -qe \"^       .*$o\" <<<\"$page\" || echo \"$o is missing\"; done", ""),
	/* the man page not covering every verb */
	SH("man: every verb is documented", "/usr/bin/man",
	   "page=$(MANWIDTH=200 man -l \"$1/thpcowctl.8\" 2>/dev/null); "
	   "for v in $(\"$1/thpcowctl\" --help | sed -n \"s/^  \\([a-z]*\\) .*/\\1/p\"); do "
	   "grep -q \"^       $v\" <<<\"$page\" || echo \"$v is missing\"; done", ""),
	/* a syntax error in the completion script */
	SH("completion: loads in bash", "/bin/bash",
	   ". \"$1/thpcowctl.bash-completion\" && complete -p thpcowctl",
	   "complete -F _thpcowctl thpcowctl\n"),
	/* a verb missing from the completion */
	SH("completion: the verbs", BASH_COMPLETION, COMPLETE("t") REPLY,
	   "trace\n"),
	/* probe missing from the completion, or its options */
	SH("completion: probe and its options", BASH_COMPLETION,
	   COMPLETE("pr") REPLY COMPLETE("probe --") REPLY,
	   "probe\n--json --condition --help\n"),
	/* the trace options not completed */
	SH("completion: trace's options", BASH_COMPLETION,
	   COMPLETE("trace --") REPLY,
	   "--json --count --duration --pid --buffer-size --wall-clock --help\n"),
	/* usage's options, or --format's values, not completed */
	SH("completion: usage and its options", BASH_COMPLETION,
	   "PATH=\"$1:$PATH\"; "
	   COMPLETE("usage --") REPLY COMPLETE("usage --format p") REPLY
	   COMPLETE("usage -o SCOPE,ANON") REPLY,
	   "--cgroup --pid --machine --json --output --noheadings --raw --format --help\n"
	   "prometheus\nSCOPE,ANON_THP_MIB SCOPE,ANON_THP_BYTES\n"),
	/* a size offered process ids or files */
	SH("completion: trace --buffer-size offers nothing", BASH_COMPLETION,
	   COMPLETE("trace --buffer-size \"\"") REPLY, "\n"),
	/* apply's option not completed */
	SH("completion: apply's options", BASH_COMPLETION,
	   COMPLETE("apply --") REPLY, "--check --help\n"),
	/* the table options not completed */
	SH("completion: list's options", BASH_COMPLETION,
	   COMPLETE("list --") REPLY,
	   "--json --output --noheadings --raw --help\n"),
	SH("completion: stats' options and formats", BASH_COMPLETION,
	   COMPLETE("stats --") REPLY COMPLETE("stats --format p") REPLY,
	   "--json --output --noheadings --raw --format --watch --count --help\n"
	   "prometheus\n"),
	/* -o's columns, after a comma too */
	SH("completion: list -o COLUMNS", BASH_COMPLETION,
	   COMPLETE("list -o SCOPE,C") REPLY,
	   "SCOPE,COMM SCOPE,CGROUP SCOPE,CGROUP_ID\n"),
	SH("completion: stats -o and stats --watch -o", BASH_COMPLETION,
	   "PATH=\"$1:$PATH\"; " COMPLETE("stats -o D") REPLY
	   COMPLETE("stats --watch 1 -o TIME,SUB") REPLY,
	   "DESCRIPTION\nTIME,SUBSTITUTED\n"),
	/* the global options, and the verb after them */
	SH("completion: options before the verb", BASH_COMPLETION,
	   COMPLETE("--n") REPLY COMPLETE("-J -o SCOPE li") REPLY,
	   "--noheadings\nlist\n"),
	SH("completion: -p offers process ids", BASH_COMPLETION,
	   COMPLETE("get -p \"\"")
	   "[[ \" ${COMPREPLY[*]} \" == *\" $$ \"* ]] && echo ok", "ok\n"),
	/* trace --pid offering the options, or nothing */
	SH("completion: trace --pid offers process ids", BASH_COMPLETION,
	   COMPLETE("trace --pid \"\"")
	   "[[ \" ${COMPREPLY[*]} \" == *\" $$ \"* ]] && echo ok", "ok\n"),

	/* below: against test_fakedev.so, which checks arguments as the
	 * module does and logs the policy commands it accepted */

	/* cgroup_fd -1 (not 0) for a pid, or --children lost */
	FAKE("fake: set --pid --children", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=1 flags=1 pid=1234 cgroup=-\n",
	     "set", "--pid", "1234", "--children", "zero"),
	/* a pid or flags left in a global request */
	FAKE("fake: set --global", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n",
	     "set", "--global", "zero"),
	/* the cgroup fd not opened, or not a cgroup2 directory */
	FAKE_CG("fake: set --cgroup / opens the cgroup2 root", NULL, 0, NULL,
		NULL, "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n",
		"set", "--cgroup", "/", "zero"),
	/* a file in cgroupfs passed on as a cgroup */
	FAKE_CG("fake: a cgroup file is not a cgroup", NULL, 1, NULL,
		"/cgroup.procs: not a cgroup v2 directory\n", NULL,
		"set", "--cgroup", "cgroup.procs", "zero"),
	/* an existing directory outside cgroup2 reported as missing below it */
	FAKE_CG("fake: /proc is not a cgroup", NULL, 1, NULL,
		"thpcowctl: /proc: not a cgroup v2 directory\n", NULL,
		"set", "--cgroup", "/proc", "zero"),
	/* a missing cgroup reported as something else */
	FAKE_CG("fake: a missing cgroup", NULL, 1, NULL,
		"/no-such-cgroup: No such file or directory\n", NULL,
		"clear", "--cgroup", "no-such-cgroup"),
	/* the modes beyond zero, as the module takes them (mode numbers) */
	FAKE("fake: set copy", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=2 flags=0 pid=1 cgroup=-\n",
	     "set", "--pid", "1", "copy"),
	FAKE("fake: set split", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=3 flags=0 pid=0 cgroup=-\n",
	     "set", "--global", "split"),
	/* EOPNOTSUPP from a module that predates a mode, as a raw errno */
	FAKE("fake: an unsupported mode", "FAKE_MODES=2", 1, NULL,
	     "thpcowctl: mode 'copy' is not supported by this module version\n",
	     NULL, "set", "--pid", "1", "copy"),
	/* ESRCH shown as a raw errno */
	FAKE("fake: no such process", NULL, 1, NULL,
	     "thpcowctl: no such process: 999999\n", NULL,
	     "set", "--pid", "999999", "zero"),
	/* ENOENT on clear shown as a raw errno */
	FAKE("fake: clear without a policy", "FAKE_ABSENT=1", 1, NULL,
	     "thpcowctl: no policy for pid 42\n",
	     "CLEAR scope=2 mode=0 flags=0 pid=42 cgroup=-\n",
	     "clear", "--pid", "42"),
	/* clear --global refused for having no entry */
	FAKE("fake: clear --global", "FAKE_ABSENT=1", 0, NULL, NULL,
	     "CLEAR scope=0 mode=0 flags=0 pid=0 cgroup=-\n", "clear", "--global"),
	/* a mode sent with GET, or the effective fields dropped */
	FAKE("fake: get --pid --json", NULL, 0,
	     ",\"mode\":\"zero\",\"flags\":[\"children\"],\"substitutions\":5,"
	     "\"present\":true,\"effective_mode\":\"zero\","
	     "\"effective_scope\":\"pid\",\"effective_cgroup\":null,"
	     "\"effective_cgroup_id\":null}\n", NULL,
	     "GET scope=2 mode=0 flags=0 pid=1 cgroup=-\n",
	     "get", "--pid", "1", "--json"),
	/* a policy that is not there shown as mode "kernel" */
	FAKE("fake: get --pid without a policy", "FAKE_ABSENT=1", 0,
	     "\"mode\":null,\"flags\":[],\"substitutions\":0,\"present\":false,"
	     "\"effective_mode\":\"zero\",\"effective_scope\":\"cgroup\","
	     "\"effective_cgroup\":",
	     NULL, "GET", "get", "--pid", "1", "--json"),
	/* the id of the cgroup whose rule applies not shown */
	FAKE("fake: get --pid names the cgroup id", "FAKE_ABSENT=1", 0,
	     "\"effective_cgroup_id\":1}\n",
	     NULL, "GET", "get", "--pid", "1", "--json"),
	/* the cgroup shown by the argument rather than below the root */
	FAKE_CG("fake: get --cgroup text", NULL, 0,
		"scope:         cgroup\ncgroup:        /\ncgroup id:     1\n"
		"mode:          zero\n", NULL, "GET scope=1",
		"get", "--cgroup", "/"),
	/* the global default shown as absent */
	FAKE("fake: get --global --json", NULL, 0,
	     "{\"scope\":\"global\",\"mode\":\"zero\",\"flags\":[],"
	     "\"substitutions\":5,\"present\":true}\n", NULL, "GET scope=0",
	     "get", "--global", "--json"),
	/* LIST not sized first, or entries read past what was filled */
	FAKE("fake: list", NULL, 0,
	     "SCOPE  TARGET         MODE   FLAGS    SUBSTITUTIONS\n"
	     "pid    42 (qemu\"kvm)  zero   children             7\n"
	     "cgroup /machine.slice kernel -                    0\n", NULL,
	     "LIST room=0\nLIST room=6\n", "list"),
	/* USAGE not sized first, or a row missing from the table */
	/* (libsmartcols shows a backslash as \x5c, as lsblk does) */
	FAKE("fake: usage table", NULL, 0,
	     "SCOPE  TARGET                                             SUBSTITUTED COPIED FALLBACKS THP_MIB ANON_THP_MIB\n"
	     "cgroup /machine.slice/machine-qemu\\x5cx2d1\\x5cx2dvm.scope         128      0         5     256            -\n"
	     "pid    42 (qemu\"kvm)                                               64      1         0     130            -\n"
	     "other  (other)                                                      0      0         5       0            -\n",
	     NULL, "USAGE room=0\nUSAGE room=7\n", "usage"),
	/* JSON rows without their counters, MiB or an escaped path */
	FAKE("fake: usage --json", NULL, 0,
	     "{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"cgroup\","
	     "\"cgroup\":\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\","
	     "\"cgroup_id\":99,\"substituted\":128,\"copied\":0,\"split\":0,"
	     "\"fallback_ineligible\":0,\"fallback_uffd\":2,"
	     "\"fallback_alloc\":3,\"fallback_charge\":0,"
	     "\"fallback_unstable\":0,\"fallback_pinned\":0,"
	     "\"fallbacks\":5,\"thp_bytes\":268435456,\"thp_mib\":256,"
	     "\"anon_thp_bytes\":null,\"anon_bytes\":null},{\"scope\":\"pid\",\"pid\":42,"
	     "\"comm\":\"qemu\\\"kvm\",", NULL, "USAGE", "usage", "--json"),
	/* the exposition format without HELP/TYPE, units or escaped labels */
	FAKE("fake: usage --format prometheus", NULL, 0,
	     "# HELP thpcow_usage_substituted_total Write faults on the huge zero page given a whole THP.\n"
	     "# TYPE thpcow_usage_substituted_total counter\n"
	     "thpcow_usage_substituted_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\"} 128\n"
	     "thpcow_usage_substituted_total{scope=\"other\"} 0\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* a pid rule's row in the families the cgroup rows sum in: its
	 * faults counted twice by sum() */
	FAKE("fake: usage prometheus: pid rules in a family of their own", NULL, 0,
	     "# TYPE thpcow_pid_rule_substituted_total counter\n"
	     "thpcow_pid_rule_substituted_total{pid=\"42\",comm=\"qemu\\\"kvm\"} 64\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* the table's size missing */
	FAKE("fake: usage prometheus: slots", NULL, 0,
	     "# TYPE thpcow_usage_slots gauge\nthpcow_usage_slots 1024\n"
	     "# HELP thpcow_usage_slots_used ",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	FAKE("fake: usage prometheus fallbacks by reason", NULL, 0,
	     "thpcow_usage_fallbacks_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\",reason=\"alloc\"} 3\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	FAKE("fake: usage prometheus bytes", NULL, 0,
	     "# TYPE thpcow_usage_thp_bytes_total counter\n"
	     "thpcow_usage_thp_bytes_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\"} 268435456\n",
	     NULL, "USAGE", "usage", "--format", "prometheus"),
	/* --pid not keeping only the process's row */
	FAKE("fake: usage --pid", NULL, 0,
	     "{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"pid\",\"pid\":42,",
	     NULL, "USAGE", "usage", "--pid", "42", "--json"),
	FAKE("fake: usage --pid of a missing process", NULL, 1, NULL,
	     "thpcowctl: no such process: 999999\n", "USAGE",
	     "usage", "--pid", "999999"),
	FAKE("fake: usage --pid of a process without a pid rule", NULL, 1, NULL,
	     "thpcowctl: pid 1: no pid rule covers it", "USAGE",
	     "usage", "--pid", "1"),
	/* a cgroup without a row shown as nothing, or a file taken for one */
	FAKE_CG("fake: usage --cgroup without a row is zeros", NULL, 0,
		"{\"slots\":1024,\"slots_used\":1,\"usage\":[{\"scope\":\"cgroup\",\"cgroup\":\"/\","
		"\"cgroup_id\":1,\"substituted\":0,", NULL, "USAGE",
		"usage", "--cgroup", "/", "--json"),
	FAKE_CG("fake: usage --cgroup of a file", NULL, 1, NULL,
		"not a cgroup v2 directory", "USAGE",
		"usage", "--cgroup", "/cgroup.procs"),
	FAKE("fake: usage --pid and --cgroup", NULL, 2, NULL,
	     "thpcowctl: usage: --pid, --cgroup and --machine are mutually exclusive\n",
	     "", "usage", "--pid", "42", "--cgroup", "/"),
	FAKE("fake: usage --machine and --pid", NULL, 2, NULL,
	     "--pid, --cgroup and --machine are mutually exclusive\n",
	     "", "usage", "--machine", "vm", "--pid", "42"),
	/* a VM named by its scope only (its number changes at each start),
	 * by libvirt's machine name qemu-1-vm (so does its 1), or machined's
	 * quoted SCOPE= (systemd >= 250) not unquoted */
	SH("fake: usage names a VM by systemd-machined's name and UUID", "/bin/bash",
	   "m=$(mktemp -d); printf '%s\\n' '# This is private data. Do not parse.' "
	   "NAME=qemu-1-vm 'SCOPE=\"machine-qemu\\\\x2d1\\\\x2dvm.scope\"' SERVICE=libvirt-qemu "
	   "ID=0123456789abcdef0123456789abcdef CLASS=vm >\"$m/qemu-1-vm\"; "
	   "ln -s qemu-1-vm \"$m/unit:machine-qemu\\x2d1\\x2dvm.scope\"; "
	   "export THPCOWCTL_MACHINES=$m THPCOWCTL_DEVICE=" MISSING_DEVICE
	   " FAKE_LOG=/dev/null LD_PRELOAD=\"$1/test_fakedev.so\"; "
	   "\"$1/thpcowctl\" usage --format prometheus | grep -F 'thpcow_usage_substituted_total{'; "
	   "\"$1/thpcowctl\" usage -o MACHINE,MACHINE_UUID,SUBSTITUTED --machine vm; "
	   "\"$1/thpcowctl\" usage --machine vm2 2>&1 | sed \"s|$m|M|\"; "
	   "echo \"rc=${PIPESTATUS[0]}\"; rm -rf \"$m\"",
	   "thpcow_usage_substituted_total{scope=\"cgroup\",cgroup=\"/machine.slice/machine-qemu\\\\x2d1\\\\x2dvm.scope\","
	   "machine=\"vm\",machine_uuid=\"01234567-89ab-cdef-0123-456789abcdef\"} 128\n"
	   "thpcow_usage_substituted_total{scope=\"other\"} 0\n"
	   "MACHINE MACHINE_UUID                         SUBSTITUTED\n"
	   "vm      01234567-89ab-cdef-0123-456789abcdef         128\n"
	   "thpcowctl: machine vm2: not known to systemd-machined (M)\nrc=1\n"),
	FAKE("fake: usage --format bogus", NULL, 2, NULL,
	     "thpcowctl: usage: unknown format 'bogus'", "",
	     "usage", "--format", "bogus"),
	FAKE("fake: usage --json --format", NULL, 2, NULL,
	     "mutually exclusive", "", "usage", "--json", "--format", "json"),
	/* usage's table options: -o's columns, -J -o as libsmartcols' JSON
	 * (null for a cell a row does not have), -n -r, and -p from the
	 * option table */
	FAKE("fake: usage -J -o", NULL, 0,
	     "{\n   \"usage\": [\n      {\n         \"scope\": \"cgroup\",\n"
	     "         \"cgroup_id\": 99,\n         \"pid\": null\n      },{\n",
	     NULL, "USAGE", "-J", "-o", "SCOPE,CGROUP_ID,PID", "usage"),
	FAKE("fake: usage -p PID -n -r -o", NULL, 0,
	     "pid 42 qemu\"kvm 64 136314880\n", NULL, "USAGE", "usage", "-p",
	     "42", "-n", "-r", "-o", "SCOPE,PID,COMM,SUBSTITUTED,THP_BYTES"),
	FAKE_CG("fake: usage -c PATH", NULL, 0,
		"cgroup / 0\n", NULL, "USAGE", "usage", "-c", "/", "-n", "-r",
		"-o", "SCOPE,CGROUP,SUBSTITUTED"),
	CLI("cli: usage -o BOGUS, exit 2", 2, NULL,
	    "thpcowctl: usage: unknown column 'BOGUS' (see 'thpcowctl usage --help')",
	    "usage", "-o", "BOGUS"),
	CLI("cli: usage -J -n, exit 2", 2, NULL,
	    "thpcowctl: usage: -n and -r are for the table", "usage", "-J", "-n"),
	CLI("cli: usage --format prometheus -r, exit 2", 2, NULL,
	    "thpcowctl: usage: --format prometheus takes none of -o, -n, -r",
	    "usage", "--format", "prometheus", "-r"),
	CLI("cli: usage --help lists the columns", 0,
	    "  ANON_THP_MIB        MiB of anonymous THPs now", NULL, "usage",
	    "--help"),
	/* a list that grew past the room not asked for again */
	FAKE("fake: list retries when the list grew", "FAKE_LIST_GROW=1", 0,
	     "pid    43 (late)      zero   -                    0\n"
	     "pid    42 (qemu\"kvm)  zero   children             7\n"
	     "cgroup /machine.slice kernel -                    0\n", NULL,
	     "LIST room=0\nLIST room=6\nLIST room=14\n", "list"),
	/* the counters not named from THPCOW_STAT_NAMES */
	FAKE("fake: stats", NULL, 0,
	     "COUNTER             VALUE\nhook_calls              1\n"
	     "substituted            11\n", NULL, NULL,
	     "stats"),
	/* headline counters from the wrong index; fallbacks not summed */
	FAKE("fake: status --json", NULL, 0,
	     "\"native_zero\":true,\"global_mode\":\"zero\",\"policies\":2,"
	     "\"substituted\":11,\"fallbacks\":566,\"hook_calls\":1,", NULL,
	     "GET scope=0", "status", "--json"),
	/* another ABI's answers trusted */
	FAKE("fake: status with another ABI", "FAKE_ABI=2", 1,
	     "module abi:         2\nthpcowctl version:  " THPCOW_VERSION "\n",
	     "ABI mismatch: the module (" THPCOW_VERSION ") speaks ABI 2", NULL, "status"),
	/* a command sent to a module of another ABI */
	FAKE("fake: list with another ABI", "FAKE_ABI=2", 1, NULL,
	     "ABI mismatch", NULL, "list"),
	/* the module's version not shown */
	FAKE("fake: version", NULL, 0,
	     "thpcowctl " THPCOW_VERSION " (ABI 1)\nthpcow " THPCOW_VERSION
	     " (ABI 1)\n", NULL, NULL, "version"),
	/* COMMAND's exit status lost, or --children not passed */
	FAKE("fake: exec runs COMMAND under the policy", NULL, 7, NULL, NULL,
	     "SET scope=2 mode=1 flags=1 pid=", "exec", "zero", "--children",
	     "--", "sh", "-c", "exit 7"),
	/* a policy left behind for a command that never ran */
	FAKE("fake: exec of a missing COMMAND clears the policy, exit 127",
	     NULL, 127, NULL, "(the policy on pid ",
	     "CLEAR scope=2 mode=0 flags=0 pid=", "exec", "zero", "--",
	     "/nonexistent/command"),
	/* a rule of the file not set, or the stale list not read */
	APPLY("fake: apply sets the file's rules", "FAKE_LIST_ROOT=1",
	      "global zero\ncgroup / zero\n", 0, NULL,
	      "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n"
	      "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n"
	      "LIST room=0\nLIST room=6\n"),
	/* a cgroup rule the file dropped kept; pid rules cleared with it */
	APPLY("fake: apply clears cgroup rules not in the file, not pid rules",
	      "FAKE_LIST_ROOT=1", "global kernel\n", 0, NULL,
	      "SET scope=0 mode=0 flags=0 pid=0 cgroup=-\n"
	      "LIST room=0\nLIST room=6\n"
	      "CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n"),
	/* no global line taken as "global kernel" (modprobe.d's default lost) */
	APPLY("fake: apply without a global line leaves it", "FAKE_LIST_ROOT=1",
	      "cgroup / kernel\n", 0, NULL,
	      "SET scope=1 mode=0 flags=0 pid=0 cgroup=ok\n"
	      "LIST room=0\nLIST room=6\n"),
	/* the good lines of a bad file applied */
	APPLY("fake: apply of a bad file changes nothing", NULL,
	      "global zero\ncgroup / fast\n", 1,
	      "thpcowctl: <stdin>:2: unknown mode 'fast'", NULL),
	/* the rules before a missing cgroup applied */
	APPLY("fake: apply with a missing cgroup changes nothing", NULL,
	      "global zero\ncgroup / zero\ncgroup /no-such-cgroup zero\n", 1,
	      "thpcowctl: <stdin>:3: /", NULL),
	/* a drop-in not read, or one that is not *.conf (a package manager's
	 * .dpkg-old, a README) read */
	SH("fake: apply reads FILE, then FILE.d/*.conf",
	   "/sys/fs/cgroup/cgroup.controllers",
	   "d=$(mktemp -d); echo '# nothing here' >\"$d/t.conf\"; mkdir \"$d/t.conf.d\"; "
	   "echo 'global copy' >\"$d/t.conf.d/20-b.conf\"; "
	   "echo 'global split' >\"$d/t.conf.d/10-a.conf.dpkg-old\"; "
	   "echo 'bogus' >\"$d/t.conf.d/README\"; "
	   "THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null "
	   "LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" apply \"$d/t.conf\" "
	   "| sed \"s|$d/||g\"; rm -rf \"$d\"",
	   "t.conf.d/20-b.conf:1: global copy\n"
	   "applied t.conf and t.conf.d/*.conf\n"),
	/* a bad drop-in leaving the good file applied, the drop-ins out of
	 * order, or one silently overriding the file's rule for a target */
	SH("cli: apply --check: a bad drop-in or a target named twice fails all",
	   "/bin/bash",
	   "d=$(mktemp -d); printf 'global zero\\n' >\"$d/t.conf\"; "
	   "mkdir \"$d/t.conf.d\"; echo 'global fast' >\"$d/t.conf.d/b.conf\"; "
	   "echo 'global copy' >\"$d/t.conf.d/c.conf\"; "
	   "echo 'cgroup' >\"$d/t.conf.d/a.conf\"; "
	   "echo 'bogus' >\"$d/t.conf.d/README\"; "
	   "echo 'bogus' >\"$d/t.conf.d/d.conf.dpkg-old\"; "
	   "\"$1/thpcowctl\" apply --check \"$d/t.conf\" 2>&1 | sed \"s|$d/||g\"; "
	   "echo \"rc=${PIPESTATUS[0]}\"; rm -rf \"$d\"",
	   "thpcowctl: t.conf.d/a.conf:1: expected 'cgroup PATH MODE'\n"
	   "thpcowctl: t.conf.d/a.conf: 1 error\n"
	   "thpcowctl: t.conf.d/b.conf:1: unknown mode 'fast': expected one of kernel, zero, copy, split\n"
	   "thpcowctl: t.conf.d/b.conf: 1 error\n"
	   "thpcowctl: t.conf.d/c.conf:1: a second global line (the first is t.conf:1)\n"
	   "thpcowctl: t.conf.d/c.conf: 1 error\nrc=1\n"),
	/* --check setting anything */
	{ "fake: apply --check changes nothing", test_cli, &(const struct cli_case){
	  { "apply", "--check", "-" }, 0, NULL, NULL, NEED_FAKE | NEED_CGROUP2,
	  NULL, NULL, "global zero\ncgroup / zero\n", true } },
	/* --check passing a file that apply refuses as a whole */
	{ "cli: apply --check of a missing cgroup, exit 1", test_cli, &(const struct cli_case){
	  { "apply", "--check", "-" }, 1, NULL,
	  "thpcowctl: <stdin>: 1 cgroup cannot be opened: apply would change nothing\n",
	  NEED_CGROUP2, NULL, NULL, "global zero\ncgroup /no-such-cgroup zero\n",
	  false } },
	/* apply silent about what it changed (the journal shows it) */
	{ "fake: apply says what it set", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 0,
	  "<stdin>:1: global zero\n<stdin>:2: cgroup / zero\napplied <stdin>\n",
	  NULL, NEED_FAKE | NEED_CGROUP2, "FAKE_LIST_ROOT=1",
	  "SET scope=0 mode=1 flags=0 pid=0 cgroup=-\n"
	  "SET scope=1 mode=1 flags=0 pid=0 cgroup=ok\n"
	  "LIST room=0\nLIST room=6\n", "global zero\ncgroup / zero\n", true } },
	/* ... and what it cleared */
	{ "fake: apply says what it cleared", test_cli, &(const struct cli_case){
	  { "apply", "-" }, 0,
	  "<stdin>:1: global kernel\ncleared cgroup / (not in <stdin>)\napplied <stdin>\n",
	  NULL, NEED_FAKE | NEED_CGROUP2, "FAKE_LIST_ROOT=1",
	  "SET scope=0 mode=0 flags=0 pid=0 cgroup=-\n"
	  "LIST room=0\nLIST room=6\n"
	  "CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n", "global kernel\n", true } },
	/* a rule cleared on another cgroup that took the listed path */
	APPLY("fake: apply clears no cgroup but the rule's", "FAKE_LIST_ROOT=7",
	      "", 1, "thpcowctl: clear cgroup / (not in <stdin>): ",
	      "LIST room=0\nLIST room=6\n"),
	/* global options not reaching the verb */
	FAKE("fake: -J before the verb", NULL, 0, "{\"policies\":[{\"scope\":\"pid\"",
	     NULL, "LIST room=6\n", "-J", "list"),
	FAKE("fake: --json before the verb", NULL, 0, "{\"loaded\":true,", NULL,
	     "GET scope=0", "--json", "status"),
	FAKE("fake: -n -o before the verb, -r after it", NULL, 0,
	     "pid 42 qemu\"kvm\ncgroup  \n", NULL, "LIST room=6\n",
	     "-n", "-o", "SCOPE,PID,COMM", "list", "-r"),
	FAKE("fake: --output=LIST --noheadings --raw", NULL, 0,
	     "zero\nkernel\n", NULL, "LIST room=6\n", "list", "--output=mode",
	     "--noheadings", "--raw"),
	/* a global option for a verb without it taken silently */
	CLI("cli: -J before a verb without JSON, exit 2", 2, NULL,
	    "thpcowctl: set: unknown option '--json'", "-J", "set", "-g", "zero"),
	CLI("cli: -o before a verb without a table, exit 2", 2, NULL,
	    "thpcowctl: status: unknown option '--output'", "-o", "X", "status"),
	CLI("cli: an unknown option before the verb, exit 2", 2, NULL,
	    "thpcowctl: unknown option '-x'", "-x", "list"),
	CLI("cli: -o without COLUMNS before the verb, exit 2", 2, NULL,
	    "thpcowctl: option '-o' needs an argument", "-o"),
	CLI("cli: options but no verb, exit 2", 2, NULL,
	    "thpcowctl: missing VERB", "-J"),
	CLI_UNLOADED("cli: -V", 0, "thpcowctl " THPCOW_VERSION " (ABI 1)\n", NULL,
		     "-V"),
	CLI("cli: -h", 0, "Usage: thpcowctl [OPTIONS] VERB [ARG...]", NULL, "-h"),
	/* the short options of the scopes */
	FAKE("fake: set -p", NULL, 0, NULL, NULL,
	     "SET scope=2 mode=1 flags=0 pid=1234 cgroup=-\n", "set", "-p", "1234",
	     "zero"),
	FAKE("fake: set -g", NULL, 0, NULL, NULL,
	     "SET scope=0 mode=3 flags=0 pid=0 cgroup=-\n", "set", "-g", "split"),
	FAKE_CG("fake: clear -c", NULL, 0, NULL, NULL,
		"CLEAR scope=1 mode=0 flags=0 pid=0 cgroup=ok\n", "clear", "-c", "/"),
	FAKE("fake: get -J -p", NULL, 0, "{\"scope\":\"pid\",\"pid\":1,", NULL,
	     "GET scope=2", "get", "-J", "-p", "1"),
	FAKE("fake: -pPID attached", NULL, 0, "pid:                 77\n", NULL,
	     "GET scope=2 mode=0 flags=0 pid=77 ",
	     "get", "-p77"),
	/* -o: an unknown column taken as none, or as the defaults */
	CLI("cli: list -o BOGUS, exit 2", 2, NULL,
	    "thpcowctl: list: unknown column 'BOGUS' (see 'thpcowctl list --help')",
	    "list", "-o", "SCOPE,BOGUS"),
	CLI("cli: list -o with an empty name, exit 2", 2, NULL,
	    "thpcowctl: list: unknown column ''", "list", "-o", "SCOPE,"),
	CLI("cli: stats -o a --watch column without --watch, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown column 'SUBSTITUTED'", "stats", "-o",
	    "SUBSTITUTED"),
	CLI("cli: stats --watch -o a one-shot column, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown column 'VALUE'", "stats", "--watch", "1",
	    "-o", "VALUE"),
	CLI("cli: list -J -n, exit 2", 2, NULL,
	    "thpcowctl: list: -n and -r are for the table", "list", "-J", "-n"),
	CLI("cli: stats -J -r, exit 2", 2, NULL,
	    "thpcowctl: stats: -n and -r are for the table", "stats", "-J", "-r"),
	CLI("cli: stats --format bogus, exit 2", 2, NULL,
	    "thpcowctl: stats: unknown format 'bogus': expected text, json or "
	    "prometheus", "stats", "--format", "bogus"),
	CLI("cli: stats --format prometheus -o, exit 2", 2, NULL,
	    "--format prometheus takes none of", "stats", "--format",
	    "prometheus", "-o", "COUNTER"),
	CLI("cli: stats --watch -J -o, exit 2", 2, NULL,
	    "thpcowctl: stats: --watch -J prints every counter: no -o", "stats",
	    "--watch", "1", "-J", "-o", "TIME"),
	/* the columns missing from VERB --help */
	CLI("cli: list --help lists the columns", 0,
	    "Available output columns (-o):\n  SCOPE ", NULL, "list", "--help"),
	CLI("cli: stats --help lists the columns", 0,
	    "  DESCRIPTION         what it counts\n", NULL, "help", "stats"),
	FAKE("fake: stats --format json is -J", NULL, 0,
	     "{\"policies\":2,\"counters\":{\"hook_calls\":1,", NULL, NULL,
	     "stats", "--format", "json"),
	FAKE("fake: stats --format text is the table", NULL, 0,
	     "COUNTER             VALUE\n", NULL, NULL, "stats", "--format", "text"),
	FAKE("fake: stats --format prometheus", NULL, 0,
	     "# TYPE thpcow_substituted_total counter\nthpcow_substituted_total 11\n",
	     NULL, "GET scope=0", "stats", "--format", "prometheus"),
	/* check: the fake's counters, 566 fallbacks of 708 (79.9 %): the
	 * thresholds not applied, or perfdata not in the plugins' form */
	FAKE("fake: check: CRITICAL over -c, with perfdata", NULL, 2,
	     "THPCOW CRITICAL - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); fallbacks 79.9 % >= 50 % | given=142c "
	     "fallbacks=566c fallback_pct=79.9%;20;50;0;100 policies=2;;;0 "
	     "slots_used=1;921;;0;1024\n", NULL, "USAGE room=7", "check"),
	FAKE("fake: check: WARNING over -w", NULL, 1,
	     "THPCOW WARNING - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); fallbacks 79.9 % >= 70 % |", NULL,
	     "USAGE room=7", "check", "-w", "70", "-c", "90"),
	FAKE("fake: check: OK under -w", NULL, 0, "THPCOW OK - mode zero,",
	     NULL, "USAGE room=7", "check", "-w", "80", "-c", "90"),
	/* a verdict on too few faults */
	FAKE("fake: check: fallbacks judged only after --min-faults", NULL, 0,
	     "THPCOW OK - ", NULL, "USAGE room=7", "check", "--min-faults", "1000"),
	FAKE("fake: check: the usage table full", "FAKE_SLOTS_USED=922", 1,
	     "THPCOW WARNING - mode zero, 2 policies, 142 THPs given, 566 "
	     "fallbacks (79.9 %); usage table 922 of 1024 rows: new cgroups count "
	     "as other (usage_slots) |", NULL, "USAGE room=7", "check", "-w", "80",
	     "-c", "90"),
	/* a loaded module reported as down, or the build info missing */
	FAKE("fake: stats --format prometheus: up, build info", NULL, 0,
	     "# TYPE thpcow_up gauge\nthpcow_up 1\n# HELP thpcow_build_info",
	     NULL, "GET scope=0", "stats", "--format", "prometheus"),
	/* no module: an error and no file (node-exporter keeps serving the
	 * stale one) instead of thpcow_up 0 */
	CLI_UNLOADED("cli: stats --format prometheus without the module: up 0, exit 0",
	    0, "# TYPE thpcow_up gauge\nthpcow_up 0\n", NULL, "stats",
	    "--format", "prometheus"),
	/* the header repeated, or a row without its time */
	SH("fake: stats --watch 1 --count 2: a header, then two rows", "/bin/bash",
	   "THPCOWCTL_DEVICE=" MISSING_DEVICE " FAKE_LOG=/dev/null "
	   "LD_PRELOAD=\"$1/test_fakedev.so\" \"$1/thpcowctl\" stats --watch 1 "
	   "--count 2 -o TIME,SUBSTITUTED | sed -E 's/^[0-9]{4}-[0-9]{2}-[0-9]{2}T"
	   "[0-9]{2}:[0-9]{2}:[0-9]{2}[+-][0-9]{4}/T/'",
	   "TIME                      SUBSTITUTED\nT            0\nT            0\n"),
	/* --watch not printing rates per interval, or not stopping */
	FAKE("fake: stats --watch 1 --count 1", NULL, 0,
	     "\"deltas\":{\"hook_calls\":0,", NULL, NULL,
	     "stats", "--watch", "1", "--count", "1", "--json"),
};

int main(int argc, char *argv[])
{
	size_t i, counts[3] = { 0 };
	char dir[PATH_MAX];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/TO/thpcowctl\n", argv[0]);
		return 2;
	}
	cli_path = argv[1];
	/* libsmartcols measures UTF-8 by the locale, as on a terminal */
	setlocale(LC_ALL, "C.UTF-8");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(fake_log, sizeof(fake_log), "%s/fake.log", tmp_dir);
	snprintf(dir, sizeof(dir), "%s", cli_path);
	snprintf(fake_lib, sizeof(fake_lib), "%s/test_fakedev.so", dirname(dir));
	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		skip_reason = NULL;
		alarm(10);	/* a hung case ends the run, not the session */
		ret = tests[i].fn(tests[i].arg);
		counts[ret]++;
		if (ret == SKIP)
			printf("ok %zu - %s # SKIP %s\n", i + 1, tests[i].desc,
			       skip_reason);
		else
			printf("%sok %zu - %s\n", ret == PASS ? "" : "not ",
			       i + 1, tests[i].desc);
		fflush(stdout);
	}
	printf("# Totals: pass:%zu fail:%zu xfail:0 xpass:0 skip:%zu error:0\n",
	       counts[PASS], counts[FAIL], counts[SKIP]);
	unlink(fake_log);
	rmdir(tmp_dir);
	return counts[FAIL] ? 1 : 0;
}
