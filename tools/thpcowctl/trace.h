/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpcowctl: thpcow:thpcow_fault events (module/trace.h has the event's
 * fields: pid, comm, address, outcome), as trace prints them. cmd_trace.c
 * reads them, field by field, through libtracefs and libtraceevent.
 */
#ifndef THPCOWCTL_TRACE_H
#define THPCOWCTL_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define TRACE_SYSTEM_NAME	MODULE_NAME
#define TRACE_SYSTEM_DIR	"events/" TRACE_SYSTEM_NAME
#define TRACE_EVENT_NAME	"thpcow_fault"
#define TRACE_COMM_LEN		16	/* the kernel's TASK_COMM_LEN */
#define TRACE_OUTCOME_LEN	32

struct trace_event {
	unsigned long long ts;			/* ns, the instance's clock: boot */
	pid_t pid;				/* the thread group */
	char comm[TRACE_COMM_LEN];		/* NUL-terminated */
	unsigned long long address;
	char outcome[TRACE_OUTCOME_LEN];	/* a counter's name */
};

#ifdef HAVE_LIBTRACEFS
#include <event-parse.h>

/* The event's fields, found by name in its format (tracefs's format file). */
struct trace_format {
	struct tep_event *event;
	struct tep_format_field *pid, *comm, *address, *outcome;
};

/* -1 when the format lacks a field, or has one of another kind */
int trace_format_init(struct trace_format *f, struct tep_event *event);
/* A record of the event, field by field; -1 if it does not fit its format. */
int trace_decode(const struct trace_format *f, struct tep_record *rec,
		 struct trace_event *ev);
#endif

/*
 * How times are shown. Boot: seconds since boot (CLOCK_BOOTTIME, the
 * instance's trace_clock "boot"), "S.UUUUUU". wall_offset: ns to add to a
 * boot time for the wall-clock time (CLOCK_REALTIME); text shows that,
 * local, when wall is set; JSON always has both.
 */
struct trace_clock {
	bool wall;
	long long wall_offset;
};

void print_trace_header(FILE *f, const struct trace_clock *c);
void print_trace_event(FILE *f, const struct trace_event *ev,
		       const struct trace_clock *c, bool json);
/* lost: events the kernel dropped on cpu, seen at ts */
void print_trace_lost(FILE *f, int cpu, unsigned long long lost,
		      unsigned long long ts, const struct trace_clock *c,
		      bool json);
/* the end: events printed, and lost in all (the instance's overrun) */
void print_trace_end(FILE *f, unsigned long long events,
		     unsigned long long lost, bool json);

#endif /* THPCOWCTL_TRACE_H */
