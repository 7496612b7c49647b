// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: thpcow_fault events as trace prints them: a text table with a
 * header, or JSON Lines. The events come decoded, field by field, from the
 * ring buffer (cmd_trace.c), so nothing here parses text.
 */
#include <string.h>
#include <time.h>

#include "json.h"
#include "output.h"
#include "thpcowctl.h"
#include "trace.h"

#define NSEC		1000000000ULL
#define COMM_COLUMNS	(TRACE_COMM_LEN - 1)
#define BOOT_COLUMNS	15	/* "SSSSSSSS.UUUUUU" */
#define WALL_COLUMNS	31	/* "YYYY-MM-DDTHH:MM:SS.UUUUUU+HHMM" */

/* ns since boot as "S.UUUUUU" */
static void format_boot(char *buf, size_t len, unsigned long long ts)
{
	snprintf(buf, len, "%llu.%06llu", ts / NSEC, ts % NSEC / 1000);
}

/* ns since boot as wall-clock time: local with its offset, or UTC ("Z") */
static void format_wall(char *buf, size_t len, unsigned long long ts,
			const struct trace_clock *c, bool utc)
{
	long long wall = (long long)ts + c->wall_offset;
	time_t secs = (time_t)(wall / (long long)NSEC);
	char date[32], zone[8] = "Z";
	struct tm tm;

	if (wall < 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (utc)
		gmtime_r(&secs, &tm);
	else
		localtime_r(&secs, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	if (!utc)
		strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, len, "%s.%06llu%s", date,
		 (unsigned long long)(wall % (long long)NSEC) / 1000, zone);
}

void print_trace_header(FILE *f, const struct trace_clock *c)
{
	if (c->wall)
		fprintf(f, "%-*s", WALL_COLUMNS, "TIME");
	else
		fprintf(f, "%*s", BOOT_COLUMNS, "TIME");
	fprintf(f, "  %7s  %-*s  %-18s  %s\n", "PID", COMM_COLUMNS, "COMM",
		"ADDRESS", "OUTCOME");
}

static void json_times(struct json *j, unsigned long long ts,
		       const struct trace_clock *c)
{
	char wall[48];

	json_fixed(j, "time", ts / 1000, 6);
	format_wall(wall, sizeof(wall), ts, c, true);
	json_string(j, "wall_time", wall);
}

/*
 * Text: the header's columns; the name escaped as fput_text() does and
 * padded by the columns it shows. JSON: one object a line (JSON OUTPUT in
 * thpcowctl.8).
 */
void print_trace_event(FILE *f, const struct trace_event *ev,
		       const struct trace_clock *c, bool json)
{
	char hex[24], when[48], comm[TRACE_COMM_LEN * 4 + 1] = "";
	struct json j;
	size_t width;
	FILE *m;

	snprintf(hex, sizeof(hex), "0x%llx", ev->address);
	if (json) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_string(&j, "type", "fault");
		json_times(&j, ev->ts, c);
		json_uint(&j, "pid", (unsigned int)ev->pid);
		json_string_n(&j, "comm", ev->comm, sizeof(ev->comm));
		json_string(&j, "address", hex);
		json_string_n(&j, "outcome", ev->outcome, sizeof(ev->outcome));
		json_end(&j);
		return;
	}
	m = fmemopen(comm, sizeof(comm), "w");
	if (m) {
		fput_text(m, ev->comm, sizeof(ev->comm));
		fclose(m);
	}
	width = utf8_width(comm);
	if (c->wall) {
		format_wall(when, sizeof(when), ev->ts, c, false);
		fprintf(f, "%-*s", WALL_COLUMNS, when);
	} else {
		format_boot(when, sizeof(when), ev->ts);
		fprintf(f, "%*s", BOOT_COLUMNS, when);
	}
	fprintf(f, "  %7d  %s%*s  %-18s  %s\n", ev->pid, comm,
		width < COMM_COLUMNS ? (int)(COMM_COLUMNS - width) : 0, "",
		hex, ev->outcome);
}

void print_trace_lost(FILE *f, int cpu, long long lost, unsigned long long ts,
		      const struct trace_clock *c, bool json)
{
	char when[48];
	struct json j;

	if (json) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_string(&j, "type", "lost");
		json_times(&j, ts, c);
		json_uint(&j, "cpu", (unsigned int)cpu);
		if (lost > 0)
			json_uint(&j, "lost", (unsigned long long)lost);
		else
			json_null(&j, "lost");
		json_end(&j);
		return;
	}
	if (c->wall)
		format_wall(when, sizeof(when), ts, c, false);
	else
		format_boot(when, sizeof(when), ts);
	if (lost > 0)
		fprintf(f, PROGRAM_NAME ": trace: %lld events lost on CPU %d before %s "
			"(the trace buffer overflowed)\n", lost, cpu, when);
	else
		fprintf(f, PROGRAM_NAME ": trace: events lost on CPU %d before %s "
			"(the trace buffer overflowed)\n", cpu, when);
}

/* Text: a line only when some were lost. */
void print_trace_end(FILE *f, unsigned long long events,
		     unsigned long long lost, bool json)
{
	struct json j;

	if (json) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_string(&j, "type", "end");
		json_uint(&j, "events", events);
		json_uint(&j, "lost", lost);
		json_end(&j);
	} else if (lost) {
		fprintf(f, PROGRAM_NAME ": trace: %llu events lost in all (the trace "
			"buffer overflowed; --buffer-size makes it larger)\n", lost);
	}
}
