// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: thpcow_fault events as trace prints them: a text table with a
 * header, or JSON Lines. The events come decoded, field by field, from the
 * ring buffer (cmd_trace.c), so nothing here parses text.
 */
#include <stdlib.h>
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

int trace_queue_add(struct trace_queue *q, const struct trace_event *ev)
{
	struct trace_event *grown;
	size_t i, size;

	if (trace_queue_empty(q)) {
		q->head = 0;
		q->n = 0;
	} else if (q->n == q->size && q->head >= q->size / 2) {
		/* half of it taken: room at the front, not more memory */
		memmove(q->ev, q->ev + q->head, (q->n - q->head) * sizeof(*q->ev));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->size) {
		size = q->size ? 2 * q->size : 64;
		grown = realloc(q->ev, size * sizeof(*q->ev));
		if (!grown)
			return -1;
		q->ev = grown;
		q->size = size;
	}
	/* mostly in order already: look from the newest back */
	for (i = q->n; i > q->head && q->ev[i - 1].ts > ev->ts; i--)
		;
	memmove(q->ev + i + 1, q->ev + i, (q->n - i) * sizeof(*q->ev));
	q->ev[i] = *ev;
	q->n++;
	return 0;
}

const struct trace_event *trace_queue_take(struct trace_queue *q,
					   unsigned long long until)
{
	if (trace_queue_empty(q) || q->ev[q->head].ts > until)
		return NULL;
	return &q->ev[q->head++];
}

void trace_queue_free(struct trace_queue *q)
{
	free(q->ev);
	*q = (struct trace_queue){ 0 };
}

#ifdef HAVE_LIBTRACEFS
int trace_format_init(struct trace_format *f, struct tep_event *event)
{
	f->event = event;
	f->pid = tep_find_field(event, "pid");
	f->comm = tep_find_field(event, "comm");
	f->address = tep_find_field(event, "address");
	f->outcome = tep_find_field(event, "outcome");
	if (!f->pid || !f->comm || !f->address || !f->outcome)
		return -1;
	/* numbers, a char array and a string the record points to */
	if ((f->pid->flags | f->address->flags) & (TEP_FIELD_IS_ARRAY |
						   TEP_FIELD_IS_DYNAMIC) ||
	    !(f->comm->flags & TEP_FIELD_IS_ARRAY) ||
	    !(f->outcome->flags & TEP_FIELD_IS_DYNAMIC))
		return -1;
	return 0;
}

/*
 * A string field, a char array or a __data_loc string that libtraceevent
 * finds in the record, NUL-terminated in buf; -1 if outside the record.
 */
static int string_field(const struct trace_format *f,
			struct tep_format_field *field, struct tep_record *rec,
			char *buf, size_t size)
{
	const char *data = rec->data, *s;
	int len;

	s = tep_get_field_raw(NULL, f->event, field->name, rec, &len, 0);
	if (!s || len < 0 || s < data || s + len > data + rec->size)
		return -1;
	len = strnlen(s, len);
	if ((size_t)len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return 0;
}

int trace_decode(const struct trace_format *f, struct tep_record *rec,
		 struct trace_event *ev)
{
	unsigned long long pid;

	memset(ev, 0, sizeof(*ev));
	ev->ts = rec->ts;
	if (f->pid->offset + f->pid->size > rec->size ||
	    f->address->offset + f->address->size > rec->size ||
	    tep_read_number_field(f->pid, rec->data, &pid) ||
	    tep_read_number_field(f->address, rec->data, &ev->address) ||
	    string_field(f, f->comm, rec, ev->comm, sizeof(ev->comm)) ||
	    string_field(f, f->outcome, rec, ev->outcome, sizeof(ev->outcome)))
		return -1;
	ev->pid = (pid_t)pid;
	return 0;
}
#endif /* HAVE_LIBTRACEFS */

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

void print_trace_lost(FILE *f, int cpu, unsigned long long lost,
		      unsigned long long ts, const struct trace_clock *c,
		      bool json)
{
	char when[48];
	struct json j;

	if (json) {
		json_init(&j, f);
		json_object(&j, NULL);
		json_string(&j, "type", "lost");
		json_times(&j, ts, c);
		json_uint(&j, "cpu", (unsigned int)cpu);
		json_uint(&j, "lost", lost);
		json_end(&j);
		return;
	}
	if (c->wall)
		format_wall(when, sizeof(when), ts, c, false);
	else
		format_boot(when, sizeof(when), ts);
	fprintf(f, PROGRAM_NAME ": trace: %llu event%s lost on CPU %d by %s "
		"(the trace buffer overflowed)\n", lost, lost == 1 ? "" : "s", cpu,
		when);
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
		fprintf(f, PROGRAM_NAME ": trace: %llu event%s lost in all (the "
			"trace buffer overflowed; --buffer-size makes it larger)\n",
			lost, lost == 1 ? "" : "s");
	}
}
