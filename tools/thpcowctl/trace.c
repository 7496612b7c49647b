// SPDX-License-Identifier: GPL-2.0
/*
 * thpcowctl: thpcow_fault events from trace_pipe. A line there is
 *
 *   TASK-TID [CPU] FLAGS TIMESTAMP: thpcow_fault: pid=P comm=C address=0xA outcome=O
 *
 * where TASK and C are process names (up to 15 bytes of anything: spaces,
 * '=', even "address=0x"). The prefix's TASK is too short to hold the whole
 * ": thpcow_fault: " tag, so the first tag ends the prefix; the outcome is a
 * word and the address hex digits, so the last " outcome=" and, before it,
 * the last " address=0x" are the real ones, and C is what lies between.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "parse.h"
#include "thpcowctl.h"
#include "trace.h"

#define EVENT_TAG	": " TRACE_EVENT_NAME ": "
#define ADDRESS_TAG	" address=0x"
#define OUTCOME_TAG	" outcome="

/* The last needle that lies wholly within [begin, end), or NULL. */
static const char *find_last(const char *begin, const char *end,
			     const char *needle)
{
	size_t n = strlen(needle);
	const char *p;

	if ((size_t)(end - begin) < n)
		return NULL;
	for (p = end - n; p >= begin; p--)
		if (memcmp(p, needle, n) == 0)
			return p;
	return NULL;
}

/*
 * s is prefix, a decimal number up to max and sep: the number in *v, and
 * what follows sep; else NULL.
 */
static const char *expect_number(const char *s, const char *prefix,
				 const char *sep, unsigned long long max,
				 unsigned long long *v)
{
	char num[24];
	size_t n;

	if (strncmp(s, prefix, strlen(prefix)) != 0)
		return NULL;
	s += strlen(prefix);
	n = strspn(s, "0123456789");
	if (!n || n >= sizeof(num) || strncmp(s + n, sep, strlen(sep)) != 0)
		return NULL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_uint(num, max, v))
		return NULL;
	return s + n + strlen(sep);
}

/* "CPU:N [LOST M EVENTS]", or "CPU:N [LOST EVENTS]" when M is not known. */
static bool parse_lost(const char *s, unsigned long long *lost)
{
	unsigned long long cpu;

	s = expect_number(s, "CPU:", " [LOST ", INT_MAX, &cpu);
	if (!s)
		return false;
	*lost = 0;
	if (strcmp(s, "EVENTS]") == 0)
		return true;
	s = expect_number(s, "", " EVENTS]", ULLONG_MAX, lost);
	return s && !*s;
}

/* The event's own text, after the tag: "pid=P comm=C address=0xA outcome=O". */
static bool parse_fields(const char *s, struct trace_event *ev)
{
	const char *end = s + strlen(s), *comm, *addr, *outcome;
	unsigned long long pid;
	size_t n;

	memset(ev, 0, sizeof(*ev));
	comm = expect_number(s, "pid=", " comm=", INT_MAX, &pid);
	if (!comm)
		return false;
	ev->pid = (pid_t)pid;

	outcome = find_last(comm, end, OUTCOME_TAG);
	if (!outcome)
		return false;
	addr = find_last(comm, outcome, ADDRESS_TAG);
	if (!addr)
		return false;

	n = addr - comm;
	if (n >= sizeof(ev->comm))
		return false;
	memcpy(ev->comm, comm, n);

	/* up to 16 hex digits, exactly up to the outcome */
	s = addr + strlen(ADDRESS_TAG);
	n = strspn(s, "0123456789abcdef");
	if (!n || n > 16 || s + n != outcome)
		return false;
	ev->address = strtoull(s, NULL, 16);

	s = outcome + strlen(OUTCOME_TAG);
	n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (!n || s[n] || n >= sizeof(ev->outcome))
		return false;
	memcpy(ev->outcome, s, n);
	return true;
}

/* One line of trace_pipe, without its newline. */
enum trace_line trace_parse_line(const char *line, struct trace_event *ev,
				 unsigned long long *lost)
{
	const char *tag;

	if (parse_lost(line, lost))
		return TRACE_LINE_LOST;
	tag = strstr(line, EVENT_TAG);
	if (!tag)
		return TRACE_LINE_OTHER;
	if (!parse_fields(tag + strlen(EVENT_TAG), ev))
		return TRACE_LINE_BAD;
	return TRACE_LINE_EVENT;
}

#define COMM_COLUMNS	(TRACE_COMM_LEN - 1)

void print_trace_header(FILE *f)
{
	fprintf(f, "%7s  %-*s  %-18s  %s\n", "PID", COMM_COLUMNS, "COMM",
		"ADDRESS", "OUTCOME");
}

/*
 * Text: the header's columns; the name escaped as fput_text() does and
 * padded by the columns it shows. JSON: one object a line,
 * {"pid":P,"comm":C,"address":"0xA","outcome":O}.
 */
void print_trace_event(FILE *f, const struct trace_event *ev, bool json)
{
	char hex[24], comm[TRACE_COMM_LEN * 4 + 1] = "";
	const char *addr = hex;
	size_t width;
	FILE *m;

	snprintf(hex, sizeof(hex), "0x%llx", ev->address);
	if (json) {
		struct field fields[] = {
			FIELD_UINT("pid", "pid", (unsigned int)ev->pid),
			FIELD_STR("comm", "comm", ev->comm),
			FIELD_STR("address", "address", addr),
			FIELD_STR("outcome", "outcome", ev->outcome),
		};

		print_fields(f, fields, ARRAY_SIZE(fields), true);
		return;
	}
	m = fmemopen(comm, sizeof(comm), "w");
	if (m) {
		fput_text(m, ev->comm, sizeof(ev->comm));
		fclose(m);
	}
	width = utf8_width(comm);
	fprintf(f, "%7d  %s%*s  %-18s  %s\n", ev->pid, comm,
		width < COMM_COLUMNS ? (int)(COMM_COLUMNS - width) : 0, "",
		addr, ev->outcome);
}
