// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl's host tests (test_cli, tests/test_main.c): trace's output, and
 * its records read field by field (libtraceevent).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace.h"

#include "test.h"

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

/* --- events in time order across CPUs (trace_queue) --------------------- */

/*
 * Passes as tracefs_iterate_raw_events() makes them, each with the time it
 * began less the margin ("until"), handled as cmd_trace.c's on_record() and
 * read_and_print() do: each event queued, then what is due
 * (trace_pass_due()) taken; at the pass's end, up to until. CI's
 * trace_fields saw 35.227909, 35.245866, 35.234856, 35.235972 when CPU 1's
 * buffer was empty as a pass looked and CPU 0's was read again later in it;
 * the next pass must not give out the queued 35.245866 before its own.
 * Then, many events out of order (the queue grows and is compacted), equal
 * times in arrival order.
 */
struct queue_pass {
	unsigned long long until;
	unsigned long long ts[3];	/* 0 ends */
};

static size_t queue_passes(struct trace_queue *q, const struct queue_pass *p,
			   size_t passes, unsigned long long *got, size_t max)
{
	struct trace_event ev = { 0 };
	const struct trace_event *e;
	size_t n = 0, i, k;

	for (i = 0; i < passes; i++) {
		for (k = 0; k < ARRAY_SIZE(p[i].ts) && p[i].ts[k]; k++) {
			ev.ts = p[i].ts[k];
			if (trace_queue_add(q, &ev))
				return 0;
			while (n < max &&
			       (e = trace_queue_take(q, trace_pass_due(p[i].until, ev.ts))))
				got[n++] = e->ts;
		}
		while (n < max && (e = trace_queue_take(q, p[i].until)))
			got[n++] = e->ts;
	}
	return n;
}

static int test_trace_queue(const void *arg)
{
	static const struct queue_pass passes[] = {
		{ 35230000, { 35227909, 35245866 } },
		{ 35250000, { 35234856, 35235972 } },
		{ 35270000, { 35260000 } },
	};
	static const unsigned long long want[] = { 35227909, 35234856, 35235972,
						   35245866, 35260000 };
	struct trace_queue q = { 0 };
	struct trace_event ev = { 0 };
	const struct trace_event *e;
	unsigned long long got[ARRAY_SIZE(want) + 1], last = 0;
	size_t n, i;
	int ret = PASS;

	(void)arg;
	n = queue_passes(&q, passes, ARRAY_SIZE(passes), got, ARRAY_SIZE(got));
	if (n != ARRAY_SIZE(want) || !trace_queue_empty(&q))
		ret = fail("%zu events out, the queue %s", n,
			   trace_queue_empty(&q) ? "empty" : "not empty");
	for (i = 0; ret == PASS && i < n; i++)
		if (got[i] != want[i])
			ret = fail("event %zu: %llu, not %llu", i, got[i], want[i]);

	/* 1000 events, in two interleaved runs, taken out as they go */
	for (n = 0, i = 0; ret == PASS && i < 1000; i++) {
		ev.ts = i % 2 ? 10000 + i : i;
		ev.pid = (pid_t)i;
		if (trace_queue_add(&q, &ev))
			ret = fail("trace_queue_add");
		if (i % 7 == 0 && (e = trace_queue_take(&q, 400))) {
			if (e->ts < last)
				ret = fail("%llu after %llu", e->ts, last);
			last = e->ts;
			n++;
		}
	}
	while (ret == PASS && (e = trace_queue_take(&q, ~0ULL))) {
		if (e->ts < last)
			ret = fail("%llu after %llu", e->ts, last);
		last = e->ts;
		n++;
	}
	if (ret == PASS && n != 1000)
		ret = fail("%zu of 1000 events out", n);
	/* full with most taken: the rest moved to the front, none lost */
	for (i = 0; ret == PASS && i < q.size; i++) {
		ev.ts = 100 + i;
		if (trace_queue_add(&q, &ev))
			ret = fail("trace_queue_add");
	}
	for (i = 0; ret == PASS && i < q.size / 2 + 1; i++)
		trace_queue_take(&q, ~0ULL);
	ev.ts = 99;	/* older than all left: in front of them */
	if (ret == PASS && trace_queue_add(&q, &ev))
		ret = fail("trace_queue_add");
	for (n = 0, last = 0; ret == PASS && (e = trace_queue_take(&q, ~0ULL)); n++) {
		if (e->ts < last)
			ret = fail("%llu after %llu", e->ts, last);
		last = e->ts;
	}
	if (ret == PASS && n != q.size / 2)
		ret = fail("%zu left of %zu after moving", n, q.size / 2);
	/* equal times: in the order added */
	for (i = 0; ret == PASS && i < 3; i++) {
		ev.ts = 7;
		ev.pid = (pid_t)i;
		trace_queue_add(&q, &ev);
	}
	for (i = 0; ret == PASS && i < 3; i++) {
		e = trace_queue_take(&q, 7);
		if (!e || e->pid != (pid_t)i)
			ret = fail("equal times: %d taken as %zu", e ? e->pid : -1, i);
	}
	trace_queue_free(&q);
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

static const struct test tests[] = {
	/* an event from a CPU whose buffer a pass found empty printed after
	 * later ones; order lost as the queue grows; equal times reordered */
	{ "trace: events in time order across CPUs", test_trace_queue, NULL },
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
};

TEST_AREA(trace_tests, tests);
